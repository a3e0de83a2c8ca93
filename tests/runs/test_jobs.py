"""Batch-run jobs on a real SQLite file: the queue's life cycle, the worker draining it with a tiny
real victim (real parses, WordNet and LMs), cancel and resume, one worker per store, and the
victim's accuracy read back from the runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.attack.build import Resources
from engine.core.errors import InputError
from engine.core.settings import PROJECT_ROOT
from engine.reports.metrics import victim_accuracy
from engine.runs.worker import check_spec, execute, job_attack, run_worker, worker_lock, worker_running
from engine.store import jobs
from engine.store.store import RunStore
from tests.tiny_models import build_tiny_classifier


@pytest.fixture(scope="module")
def victim_dir(tmp_path_factory) -> Path:
    return build_tiny_classifier(tmp_path_factory.mktemp("victim"), bias=(0.0, 0.0, 3.0))


@pytest.fixture()
def data(tmp_path: Path, contradictions) -> Path:
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"{p.pair_id}\t{p.premise}\t{p.hypothesis}\tCONTRADICTION\n" for p in contradictions[:3])
                    + "9\tA dog runs in a park.\tAn animal runs.\tENTAILMENT\n", encoding="utf-8")
    return path


def spec(data: Path, victim_dir: Path, setup: str = "C2E", limit: int = 2) -> dict:
    return {"data": str(data), "format": "tsv", "setup": setup, "victim": str(victim_dir), "limit": limit, "seed": 0}


def test_queue_life_cycle(tmp_path: Path, data: Path, victim_dir: Path) -> None:
    with RunStore.open(tmp_path / "runs.sqlite") as store:
        first = jobs.enqueue(store, "r1", spec(data, victim_dir))
        assert first.status == "queued" and first.spec["setup"] == "C2E"
        with pytest.raises(InputError, match="run 'r1' is already queued or running"):
            jobs.enqueue(store, "r1", spec(data, victim_dir))
        second = jobs.enqueue(store, "r2", spec(data, victim_dir))
        assert [j.id for j in jobs.jobs(store)] == [second.id, first.id]  # newest first
        claimed = jobs.claim_next(store, pid=os.getpid())
        assert claimed is not None and claimed.id == first.id and claimed.status == "running"
        assert jobs.request_cancel(store, second.id).status == "cancelled"  # queued: at once
        running = jobs.request_cancel(store, first.id)
        assert running.status == "running" and jobs.cancel_requested(store, first.id)  # running: a flag
        assert jobs.claim_next(store, pid=os.getpid()) is None
        with pytest.raises(InputError, match="only queued or running jobs can be cancelled"):
            jobs.request_cancel(store, second.id)
        again = jobs.requeue(store, second.id)
        assert again.status == "queued" and again.run_name == "r2"
        with pytest.raises(InputError, match="still running"):
            jobs.requeue(store, first.id)


def test_a_dead_workers_job_is_recovered(tmp_path: Path, data: Path, victim_dir: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with RunStore.open(tmp_path / "runs.sqlite") as store:
        job = jobs.enqueue(store, "r1", spec(data, victim_dir))
        jobs.claim_next(store, pid=gone.pid)
        assert jobs.recover_orphans(store) == 1
        assert jobs.job(store, job.id).status == "failed" and "queue it again" in jobs.job(store, job.id).message


def test_worker_runs_the_queue_then_cancel_and_resume(tmp_path: Path, data: Path, victim_dir: Path,
                                                      settings) -> None:
    db = tmp_path / "runs.sqlite"
    small = Resources.of(settings.with_overrides(query_budget=10, top_k=6))
    with RunStore.open(db) as store:
        done = jobs.enqueue(store, "c2e", spec(data, victim_dir))
        bad = jobs.enqueue(store, "bad", {**spec(data, victim_dir), "data": str(tmp_path / "absent.tsv")})
    assert run_worker(db, small) == 2
    with RunStore.open(db) as store:
        finished = jobs.job(store, done.id)
        assert finished.status == "done" and finished.total == 2 and jobs.done_pairs(store, "c2e") == 2
        assert "2 attacked" in finished.message
        assert store.run("c2e").finished_at is not None
        failed = jobs.job(store, bad.id)
        assert failed.status == "failed" and failed.message.endswith("absent.tsv: no such data file")
        # Cancelled before its first pair: nothing attacked, the run is left unfinished; queued
        # again, it resumes and finishes.
        stop = jobs.enqueue(store, "c2c", spec(data, victim_dir, "C2C"))
        claimed = jobs.claim_next(store, os.getpid())
        jobs.request_cancel(store, stop.id)
        assert execute(store, claimed, job_attack(claimed, small)) == "cancelled"
        assert jobs.done_pairs(store, "c2c") == 0 and store.run("c2c").finished_at is None
        jobs.requeue(store, stop.id)
    assert run_worker(db, small) == 1
    with RunStore.open(db) as store:
        assert jobs.done_pairs(store, "c2c") == 2 and store.run("c2c").finished_at is not None
        (accuracy,) = victim_accuracy(store)
    # The always-contradiction victim on the contradiction pairs the runs asked about: both runs
    # drew the same seeded two, and each pair counts once.
    assert accuracy.victim == str(victim_dir) and accuracy.data == "pairs.tsv"
    assert accuracy.confusion["contradiction"]["contradiction"] == accuracy.pairs == 2
    assert accuracy.accuracy == 1.0 and accuracy.per_label == {"contradiction": 1.0}


def test_one_worker_per_store(tmp_path: Path, settings) -> None:
    db = tmp_path / "runs.sqlite"
    assert not worker_running(db)
    with worker_lock(db) as mine:
        assert mine and worker_running(db)
        assert run_worker(db, Resources.of(settings)) == 0  # another worker holds the lock: nothing runs


def test_job_specs_are_checked() -> None:
    with pytest.raises(InputError, match="unknown job parameters: colour"):
        check_spec({"data": "x.tsv", "setup": "E2C", "colour": "red"})
    with pytest.raises(InputError, match="a job needs 'setup'"):
        check_spec({"data": "x.tsv"})
    with pytest.raises(InputError, match="limit must be at least 1"):
        check_spec({"data": "x.tsv", "setup": "E2C", "limit": 0})


def test_evaluate_command_prints_accuracy_and_confusion(data: Path, victim_dir: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "engine", "evaluate", "--data", str(data), "--format", "tsv",
                          "--victim", str(victim_dir)], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "accuracy 0.750 over 4 pairs" in out.stdout
    assert "| contradiction | 3 | 1.000 |" in out.stdout and "| entailment | 1 | 0.000 |" in out.stdout
    assert "| entailment | 0 | 0 | 1 |" in out.stdout  # the entailment pair, predicted contradiction
