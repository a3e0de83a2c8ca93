"""Distributed runs on a real local Ray cluster (2 workers): the same results as one process, one
writer (no pair stored twice), resume, and clear errors for a bad address, a failing worker and a
missing Ray."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.core.errors import InputError
from engine.natlog.setups import get_setup
from engine.runs.distributed import RAY_MISSING, RayOptions, run_attacks_distributed, start_ray
from engine.runs.runner import RunHooks, RunSpec, run_attacks
from engine.store.store import RunStore
from engine.victim.model import load_victim
from tests.attacking import attack_of
from tests.tiny_models import build_tiny_classifier

ray = pytest.importorskip("ray", reason="Ray is part of requirements.txt; this environment lacks it")


@pytest.fixture(scope="module")
def cluster():
    """A local Ray with two worker CPUs for the module, shut down after it."""
    start_ray(2, None)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def slice_file(tmp_path_factory: pytest.TempPathFactory, contradictions) -> Path:
    data = tmp_path_factory.mktemp("data") / "slice.tsv"
    data.write_text("".join(f"{p.pair_id}\t{p.premise}\t{p.hypothesis}\tCONTRADICTION\n" for p in contradictions),
                    encoding="utf-8")
    return data


@pytest.fixture(scope="module")
def victim_folder(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(build_tiny_classifier(tmp_path_factory.mktemp("victim"), bias=(0.0, 0.0, 3.0)))


def fingerprint(store: RunStore, name: str) -> list[tuple]:
    return [(a.record.pair_index, a.record.status, a.record.adversarial_hypothesis, a.record.queries)
            for a in sorted(store.attacks(store.run(name).id, with_trace=False), key=lambda a: a.record.pair_index)]


@pytest.fixture
def one_thread(settings):
    """Settings with one torch thread, as a Ray actor runs: bfloat16 scores depend on the thread
    count, so the single-process reference must use the actors' (docs/speed-and-scale.md, *Distributed runs*)."""
    import torch

    threads = torch.get_num_threads()
    yield settings.with_overrides(torch_threads=1)
    torch.set_num_threads(threads)


def test_two_ray_workers_match_one_process_and_resume(cluster, slice_file: Path, victim_folder: str, one_thread,
                                                      tmp_path: Path) -> None:
    """In the configured ``lm_dtype`` (``auto``: bfloat16 on CPUs with native bf16), at one torch
    thread: both sides run on this machine with the same settings (the actors get them), so the
    comparison does not depend on the precision and checks the one distributed runs use by default."""
    settings = one_thread
    setup = get_setup("C2E")
    db = tmp_path / "runs.sqlite"
    with RunStore.open(db) as store:
        attack = attack_of(settings)
        single = run_attacks(store, RunSpec("single", slice_file, "tsv", setup, victim_folder), attack,
                             load_victim(victim_folder, settings=settings), hooks=RunHooks(progress=False))
        ray_spec = RunSpec("ray", slice_file, "tsv", setup, victim_folder)
        spread = run_attacks_distributed(store, ray_spec, attack, RayOptions(workers=2), progress=False)
        assert (spread.selected, spread.attacked, spread.successful) == (single.selected, single.attacked,
                                                                          single.successful)
        assert fingerprint(store, "ray") == fingerprint(store, "single") and len(fingerprint(store, "ray")) == 4
        # One writer: each pair once; a second invocation resumes with nothing left to do.
        again = run_attacks_distributed(store, ray_spec, attack, RayOptions(workers=2), progress=False)
        assert (again.resumed, again.attacked) == (4, 0)
        rows = store.db.query("SELECT pair_id, COUNT(*) AS n FROM attacks WHERE run_id = ? GROUP BY pair_id",
                              [store.run("ray").id])
        assert all(row["n"] == 1 for row in rows)


def test_a_failing_worker_loses_no_stored_result(cluster, contradictions, settings, tmp_path: Path) -> None:
    """Two pairs are stored (a run stopped after two); the victim's tokenizer files then break (its weights,
    and so the run's identity, stay), so the workers of the next invocation crash: the error says so in
    one line, the stored results stay, and the run still resumes."""
    setup = get_setup("C2E")
    folder = build_tiny_classifier(tmp_path / "victim", bias=(0.0, 0.0, 3.0))
    data = tmp_path / "slice.tsv"
    data.write_text("".join(f"{p.pair_id}\t{p.premise}\t{p.hypothesis}\tCONTRADICTION\n" for p in contradictions),
                    encoding="utf-8")
    asked = iter(range(100))
    with RunStore.open(tmp_path / "runs.sqlite") as store:
        # A local run and a distributed one share the run's identity: this one resumes on Ray below.
        spec, attack = RunSpec("partial", data, "tsv", setup, str(folder)), attack_of(settings)
        partial = run_attacks(store, spec, attack, load_victim(str(folder), settings=settings),
                              hooks=RunHooks(progress=False, should_stop=lambda: next(asked) >= 2))
        assert partial.stopped and partial.attacked + partial.skipped == 2
        kept = fingerprint(store, "partial")
        for name in ("tokenizer.json", "tokenizer_config.json"):
            (folder / name).write_text("not a tokenizer", encoding="utf-8")
        left = len(contradictions) - 2
        with pytest.raises(InputError, match=rf"^a Ray worker failed on pair \d+ .*0 of {left} results were stored.*"
                                             r"run the same command again to resume$") as info:
            run_attacks_distributed(store, spec, attack, RayOptions(workers=2), progress=False)
        assert "\n" not in str(info.value)
        assert fingerprint(store, "partial") == kept and len(kept) == 2


def test_bad_address_and_missing_ray_are_one_line_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    if ray.is_initialized():
        ray.shutdown()
    with pytest.raises(InputError, match="cannot start or reach the Ray cluster at '127.0.0.1:1'"):
        start_ray(2, "127.0.0.1:1")
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(InputError, match="Ray is not installed") as info:
        start_ray(2, None)
    assert str(info.value) == RAY_MISSING


def test_auto_workers_uses_every_core_only_for_runs_long_enough() -> None:
    from engine.runs.distributed import AUTO_MIN_PAIRS, auto_workers

    assert auto_workers(AUTO_MIN_PAIRS, cores=2) == 2
    assert auto_workers(500, cores=8) == 8
    assert auto_workers(AUTO_MIN_PAIRS - 1, cores=8) == 1  # a short run: loading models twice costs more
    assert auto_workers(500, cores=1) == 1


def test_the_cli_spreads_a_long_run_over_the_cores_with_the_same_results(
        cluster, slice_file: Path, victim_folder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``engine attack`` without --workers: one process for a short run; with the threshold under the
    run's size, as many local Ray workers as cores (two here), and the same status, H* and queries."""
    from engine.cli import main as engine_main
    from engine.core.settings import get_settings
    from engine.runs import distributed

    monkeypatch.setenv("NATLOG_TORCH_THREADS", "1")  # as an actor runs (see one_thread above)
    get_settings.cache_clear()
    db = tmp_path / "runs.sqlite"
    common = ["attack", "--data", str(slice_file), "--format", "tsv", "--setup", "C2E", "--victim", victim_folder,
              "--db", str(db)]
    try:
        assert engine_main([*common, "--run-name", "one"]) == 0
        assert "local Ray workers" not in capsys.readouterr().out
        monkeypatch.setattr(distributed, "AUTO_MIN_PAIRS", 2)
        monkeypatch.setattr(distributed.os, "cpu_count", lambda: 2)
        assert engine_main([*common, "--run-name", "spread"]) == 0
        assert "4 pairs to attack: on 2 local Ray workers" in capsys.readouterr().out
    finally:
        get_settings.cache_clear()
    with RunStore.open(db) as store:
        assert fingerprint(store, "spread") == fingerprint(store, "one") and len(fingerprint(store, "one")) == 4
