"""Profile runs and the report card's table: phenomena read off real parses, a seeded slice of real
SNLI pairs profiled against a tiny victim into a real store file, resumed, and printed by the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from engine.api import (
    NLIPair,
    card_cells,
    clean_accuracy,
    differences,
    get_setup,
    load_victim,
    parse,
    polarize,
    propose,
    read_pairs,
)
from engine.cli import main as cli_main
from engine.core.errors import InputError
from engine.profile.card import wilson
from engine.profile.phenomena import PHENOMENA, phenomenon
from engine.profile.runner import ProfileSpec, profile_pair, profile_setups, run_profile
from engine.store.profile_runs import ProfileCell, ProfilePair
from engine.store.store import RunStore
from tests.tiny_models import build_tiny_classifier


def test_a_phenomenon_is_the_operator_family_in_the_edits_context(attack, settings) -> None:
    """The same hypernym edit of "dog" is "hypernym ↑" in "A dog ..." and "hypernym ↓" under "No"."""
    found = {}
    for sentence in ("A dog is running in the park.", "No dog is running in the park."):
        polarized = polarize(parse(sentence, settings=settings), conventions=attack.reading)
        (proposal,) = propose(attack, polarized, [get_setup("E2E" if sentence.startswith("A") else "E2N")], None, 200)
        found[sentence] = {phenomenon(c, polarized) for c in proposal.candidates if c.operator == "PerturbHyper"
                           and c.old.lower() == "dog"}
    assert found["A dog is running in the park."] == {"hypernym ↑"}
    assert found["No dog is running in the park."] == {"hypernym ↓"}
    assert {"double negation", "negation", "hypernym ↓", "insertion ↓", "quantifier swap ↑"} <= set(PHENOMENA)


def test_wilson_interval_and_differences() -> None:
    low, high = wilson(5, 20)
    assert (round(low, 3), round(high, 3)) == (0.112, 0.469)  # the textbook interval of 5 in 20
    assert wilson(0, 0) == (0.0, 1.0)
    pair = lambda setup, fooled: ProfilePair(0, setup, "P", "H", "entailment", "profiled", None, (  # noqa: E731
        ProfileCell("hypernym ↑", 3, 2, fooled, "H*", 0.4, 0.8, 0.5),))
    first = card_cells([pair("E2E", 0), pair("E2E", 1)])
    second = card_cells([pair("E2E", 1), pair("E2E", 2)])
    (cell,) = first
    assert (cell.pairs, cell.fooled, cell.failure_rate, cell.est_validity) == (2, 1, 0.5, 0.8)
    (diff,) = differences(first, second)
    assert (diff.rate_a, diff.rate_b, diff.difference) == (0.5, 1.0, 0.5)


@pytest.fixture()
def snli_slice(shared_data: Path) -> list[NLIPair]:
    pairs = read_pairs(shared_data / "snli_test.tsv", "snli")
    return [p for p in pairs if len(p.hypothesis.split()) <= 7][:12]


def test_a_profile_run_asks_each_phenomenon_within_its_budget_and_resumes(tmp_path: Path, attack, settings,
                                                                          snli_slice: list[NLIPair]) -> None:
    folder = build_tiny_classifier(tmp_path / "victim", bias=(0.0, 2.5, 0.0), initializer_range=0.5)
    victim = load_victim(str(folder), settings=settings)
    setups = profile_setups("E2E,C2C,N2N")
    spec = ProfileSpec("p1", tmp_path / "data.tsv", "snli", setups, str(folder), limit=8, seed=3, budget=2, top_k=40)
    (tmp_path / "data.tsv").write_text("x")  # the spec's file: only its content hash is recorded
    with RunStore.open(tmp_path / "store.sqlite") as store:
        report = run_profile(store, spec, attack, victim, pairs=snli_slice, progress=False)
        stored = store.profile_pairs(report.run.id)
        assert report.selected == 8 and len(stored) == 8 and report.profiled + report.skipped == 8
        again = run_profile(store, spec, attack, victim, pairs=snli_slice, progress=False)
        assert (again.resumed, again.profiled, again.skipped) == (8, 0, 0)  # nothing asked twice
        with pytest.raises(InputError, match="another budget"):
            store.start_profile_run("p1", spec.victim_name, str(spec.data), "snli", ["E2E", "C2C", "N2N"], 3,
                                    report.run.config)
    profiled = [p for p in stored if p.status == "profiled"]
    assert profiled and any(p.status == "skipped" for p in stored)
    for p in stored:
        original = victim.predict([(p.premise, p.hypothesis)])[0]
        assert (p.status == "skipped") == (original.label != p.gold_label)  # skipped: the victim was already wrong
        assert get_setup(p.setup).source_label == p.gold_label
    for p in profiled:
        target = get_setup(p.setup).target_label
        assert len({c.phenomenon for c in p.cells}) == len(p.cells)
        for c in p.cells:
            assert 1 <= c.asked <= min(2, c.candidates) and 0 <= c.fooled <= c.asked
            answer = victim.predict([(p.premise, c.example)])[0]
            assert (answer.label != target) == (c.fooled > 0)  # the example fooled it exactly when one did
            assert answer.prob(target) == pytest.approx(c.example_target_prob, abs=1e-3)
    # one pair, asked again by hand, gives the stored cells
    first = profiled[0]
    pair = next(p for p in snli_slice if p.premise == first.premise and p.hypothesis == first.hypothesis)
    again_pair = profile_pair(attack, victim, first.pair_index, pair, get_setup(first.setup), 2, 40)
    assert again_pair.cells == first.cells
    cells = card_cells(stored)
    assert sum(c.pairs for c in cells) == sum(len(p.cells) for p in profiled)
    assert set(clean_accuracy(stored)) <= {"E2E", "C2C", "N2N"}


def test_engine_report_prints_and_exports_a_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "store.sqlite"
    with RunStore.open(db) as store:
        run = store.start_profile_run("card", "tiny", "data.tsv", "snli", ["E2E"], 5, {})
        for k, fooled in enumerate((1, 0, 1)):
            store.record_profile_pair(run.id, ProfilePair(k, "E2E", f"P{k}", f"H{k}", "entailment", "profiled",
                                                          (0.8, 0.1, 0.1), (ProfileCell("negation", 2, 2, fooled,
                                                                                        "It is false that <b>x</b>", 0.3),)))
        store.record_profile_pair(run.id, ProfilePair(3, "E2E", "P3", "H3", "entailment", "skipped", (0.1, 0.8, 0.1)))
    out = {suffix: tmp_path / f"card.{suffix}" for suffix in ("csv", "tex", "json")}
    assert cli_main(["report", "--db", str(db), "--profile", "card", "--csv", str(out["csv"]), "--latex",
                     str(out["tex"]), "--json", str(out["json"])]) == 0
    printed = capsys.readouterr().out
    assert "E2E 3/4" in printed and "| negation | E2E | 3 | 2 |" in printed
    frame = pd.read_csv(out["csv"])
    assert frame.loc[0, "failure_rate"] == pytest.approx(2 / 3) and frame.loc[0, "pairs"] == 3
    assert json.loads(out["json"].read_text())["cells"][0]["fooled"] == 2
    assert "negation & 0.67 (3)" in out["tex"].read_text()
    assert cli_main(["report", "--db", str(db), "--profile", "nope"]) == 2
    assert "no profile run named 'nope'" in capsys.readouterr().err


def two_victims(db: Path) -> None:
    """A store with a profile run for each of two victims on the same pairs: victim B falls to
    negation far more often, to hypernyms as often."""
    from annotations import Store

    with Store.open(db) as store:
        for victim, negation in (("victim-a", (0, 0, 0, 1)), ("victim-b", (1, 1, 1, 1))):
            run = store.start_profile_run(f"profile-{victim}", victim, "snli_test.tsv", "snli", ["E2E"], 5, {})
            for k in range(4):
                store.record_profile_pair(run.id, ProfilePair(
                    k, "E2E", f"A <b>dog</b> runs {k}.", f"An animal runs {k}.", "entailment", "profiled",
                    (0.9, 0.05, 0.05), (ProfileCell("negation", 1, 1, negation[k], f"No animal runs {k}.", 0.2, 0.9, 0.7),
                                        ProfileCell("hypernym ↑", 2, 2, k % 2, f"An organism runs {k}.", 0.4, 0.8, 0.3))))


def test_the_report_card_page_shows_two_victims_side_by_side(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from annotations import Store, auth
    from engine.core.settings import PROJECT_ROOT, get_settings

    db = tmp_path / "card.sqlite"
    # A data folder of its own: the checkout's var/augment may hold real repair loops' reports.
    monkeypatch.setenv("NATLOG_NLTK_DATA", str(get_settings().nltk_data))
    monkeypatch.setenv("NATLOG_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("NATLOG_DB_PATH", str(db))
    get_settings.cache_clear()
    st.cache_resource.clear()
    two_victims(db)
    with Store.open(db) as store:
        token = auth.add_annotator(store, "root", "admin")
    app = AppTest.from_file(str(PROJECT_ROOT / "pages" / "report_card.py"), default_timeout=60).run()
    app.text_input[0].input("root")
    app.text_input[1].input(token)
    app = app.button[0].click().run()
    app.number_input(key="card_min_pairs").set_value(1).run()
    assert not app.exception and not app.error
    assert [h.value for h in app.header] == ["Victim victim-a", "Victim victim-b", "Victims side by side"]
    diff = next(f.value for f in app.dataframe if "difference" in f.value.columns)
    assert diff.iloc[0][["phenomenon", "setup", "rate_a", "rate_b", "difference"]].tolist() == [
        "negation", "E2E", 0.25, 1.0, 0.75]  # the largest difference first
    assert diff.iloc[1]["difference"] == 0.0
    examples = next(f.value for f in app.dataframe if "H* (example)" in f.value.columns)
    # the first cell (hypernym ↑ of victim-a): its fooling examples first, the data text as itself
    assert examples[["pair", "P", "fooled"]].values.tolist()[:2] == [[1, "A <b>dog</b> runs 1.", True],
                                                                   [3, "A <b>dog</b> runs 3.", True]]
    heatmaps = [c for c in app.get("plotly_chart") if "Failure rate per phenomenon" in c.proto.spec]
    assert len(heatmaps) == 2
    assert {b.label for b in app.get("download_button")} >= {"Download CSV", "Download LaTeX", "Download JSON"}
    get_settings.cache_clear()
    st.cache_resource.clear()


def test_a_profile_job_runs_in_the_worker_with_progress(tmp_path: Path, settings, shared_data: Path) -> None:
    """The Runs page's path: a profile job queued in a store is run by the worker, its progress is the
    (pair, setup) done, and the stored run is what ``engine report --profile`` reads."""
    from engine.api import Resources
    from engine.runs.worker import PROFILE_JOB, check_profile_spec, run_worker
    from engine.store import jobs

    data = tmp_path / "head.tsv"
    data.write_text("".join((shared_data / "snli_test.tsv").read_text(encoding="utf-8").splitlines(True)[:15]),
                    encoding="utf-8")
    folder = build_tiny_classifier(tmp_path / "victim", bias=(0.0, 2.5, 0.0), initializer_range=0.5)
    db = tmp_path / "jobs.sqlite"
    with pytest.raises(InputError, match="unknown setup"):
        check_profile_spec({"data": str(data), "setups": "E2X"})
    with RunStore.open(db) as store:
        job = jobs.enqueue(store, "card-job", check_profile_spec({
            "data": str(data), "format": "snli", "setups": "E2E,C2C", "victim": str(folder), "limit": 3,
            "seed": 0, "budget": 1}), kind=PROFILE_JOB)
    assert run_worker(db, Resources.of(settings.with_overrides(db_path=db, top_k=20))) == 1
    with RunStore.open(db) as store:
        done = jobs.job(store, job.id)
        run = store.profile_run("card-job")
        stored = store.profile_pairs(run.id)
    assert done.status == "done" and "profiled" in (done.message or "")
    assert done.done == done.total == len(stored) >= 1 and run.budget == 1 and run.finished_at is not None
    assert all(c.asked == 1 for p in stored for c in p.cells)
