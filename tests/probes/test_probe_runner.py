"""The shared probe framework: the store's probe tables, the runner (resume, no duplicates), the
scores, inoculation by fine-tuning, the SVG curve, and the CLI's one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from sklearn.metrics import f1_score

from engine.core.errors import InputError
from engine.core.settings import PROJECT_ROOT
from engine.probes.inoculation import InoculationPoint, InoculationSettings, inoculate, outcome, parse_ks
from engine.probes.record import ProbeItem, read_items, write_items
from engine.probes.runner import run_probe, summarize
from engine.probes.scores import weighted_f1
from engine.probes.suites import Suite, get_suite, register_suite
from engine.probes.svg_plot import inoculation_svg
from engine.store import schema
from engine.store.probe_runs import ProbeResult
from engine.store.store import RunStore
from engine.victim.model import load_victim
from tests.tiny_models import build_tiny_classifier

WORDS = ["dogs", "cats", "birds", "children", "farmers", "pilots", "cooks", "singers"]


def _items(n: int) -> list[ProbeItem]:
    labels = ["entailment", "neutral", "contradiction"]
    return [ProbeItem(f"The {WORDS[k % 8]} sleep near river {k}.", f"Some {WORDS[(k + 1) % 8]} sleep.",
                      labels[k % 3], "runner-test", f"cat{k % 2}", f"g{k % 3}", f"fam{k // 3}", f"form {k}")
            for k in range(n)]


def _report(items, predicted, probs):
    return {"families": [{"families": len({i.family for i in items}), "items": len(predicted)}]}


SUITE = register_suite(Suite("runner-test", "items for the runner's tests", generate=lambda n, seed: _items(n),
                             report=_report))


@pytest.fixture(scope="module")
def biased_victim(tmp_path_factory, settings):
    folder = build_tiny_classifier(tmp_path_factory.mktemp("probe-victim"), bias=(0.0, 0.0, 3.0))
    return str(folder), load_victim(str(folder), settings=settings)


def test_weighted_f1_matches_scikit_learn() -> None:
    gold = ["entailment"] * 5 + ["neutral"] * 3 + ["contradiction"] * 2
    pred = ["entailment", "neutral", "entailment", "contradiction", "entailment", "neutral", "neutral",
            "entailment", "contradiction", "neutral"]
    assert weighted_f1(gold, pred) == pytest.approx(f1_score(gold, pred, average="weighted"))
    assert weighted_f1(gold, gold) == 1.0


def test_probe_store_round_trip_and_resume_rules(tmp_path: Path) -> None:
    path = tmp_path / "probe.sqlite"
    with RunStore.open(path) as store:
        run = store.start_probe_run("p1", "runner-test", "v", "generated:n=3", 0, {"items": 3})
        assert store.start_probe_run("p1", "runner-test", "v", "generated:n=3", 0, {"items": 3}).id == run.id
        with pytest.raises(InputError, match="different victim"):
            store.start_probe_run("p1", "runner-test", "other", "generated:n=3", 0, {"items": 3})
        result = ProbeResult(0, "P", "H", "entailment", "c", "g", "f", "A ⊢ B", {"x": 1}, "neutral", (0.2, 0.5, 0.3))
        store.record_probe_results(run.id, [result])
        with pytest.raises(InputError, match="already recorded"):
            store.record_probe_results(run.id, [result])
    with RunStore.open(path) as store:  # a real file, reopened
        assert store.probe_results(run.id) == [result]
        assert schema.schema_version(store.db) == len(schema.MIGRATIONS)
        with pytest.raises(InputError, match="no probe run named 'nope'.*p1"):
            store.probe_run("nope")


def test_runner_resumes_without_losing_or_repeating_items(tmp_path: Path, biased_victim) -> None:
    name, victim = biased_victim
    items = _items(10)
    calls = []

    def stop_after_first_batch(done: int, total: int) -> None:
        calls.append(done)
        if done == 4:
            raise KeyboardInterrupt

    with RunStore.open(tmp_path / "s.sqlite") as store:
        with pytest.raises(KeyboardInterrupt):
            run_probe(store, "r", "runner-test", items, victim, name, "generated:n=10", 0,
                      progress=stop_after_first_batch, batch=4)
        run = store.probe_run("r")
        assert store.done_probe_items(run.id) == {0, 1, 2, 3} and run.finished_at is None
        run = run_probe(store, "r", "runner-test", items, victim, name, "generated:n=10", 0, batch=4)
        results = store.probe_results(run.id)
    assert [r.item_index for r in results] == list(range(10)) and run.finished_at is not None
    # The tiny victim's output bias makes it say contradiction everywhere.
    assert {r.predicted_label for r in results} == {"contradiction"}
    summary = summarize(run, results)
    assert summary.accuracy == pytest.approx(sum(i.label == "contradiction" for i in items) / 10)
    assert {row["category"] for row in summary.by_category} == {"cat0", "cat1"}
    assert sum(row["items"] for row in summary.by_group) == 10
    assert summary.confusion["entailment"]["contradiction"] == 4
    assert summary.reports == {"families": [{"families": 4, "items": 10}]}


def test_items_file_errors_are_one_line(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    write_items(_items(3), path)
    assert read_items(path, "runner-test") == _items(3)
    with pytest.raises(InputError, match="suite 'runner-test', not 'equivalence'"):
        read_items(path, "equivalence")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"premise": "P", "hypothesis": "H", "label": "entailment"}) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl:1: missing or non-text field\(s\) suite, category"):
        read_items(bad)
    bad.write_text(json.dumps({"premise": "P", "hypothesis": "H", "label": "yes", "suite": "s", "category": "c"}))
    with pytest.raises(InputError, match="label 'yes' is not one of"):
        read_items(bad)
    with pytest.raises(InputError, match="unknown probe suite 'nope'"):
        get_suite("nope")


def test_inoculation_moves_the_probe_score(settings, biased_victim) -> None:
    name, _ = biased_victim
    train = [ProbeItem(f"{w} sleep {k}.", f"{w} rest {k}.", "entailment", "runner-test", "c")
             for k in range(10) for w in WORDS[:6]]
    test = [ProbeItem(f"{w} sleep at {k}.", f"{w} rest at {k}.", "entailment", "runner-test", "c")
            for k in range(4) for w in WORDS[6:]]
    original = []
    points = inoculate(name, None, train, test, original, [0, 40], settings,
                       InoculationSettings(epochs=3, learning_rate=0.05, batch_size=8))
    assert [p.k for p in points] == [0, 40]
    assert points[0].probe_accuracy == 0.0 and points[0].steps == 0
    assert points[1].steps == 15 and points[1].probe_accuracy == 1.0
    with pytest.raises(InputError, match="k=61 is larger than the 60 training items"):
        inoculate(name, None, train, test, original, [0, 61], settings)
    # An item that is also a test item is never trained on.
    with pytest.raises(InputError, match="larger than the 56 training items"):
        inoculate(name, None, train + test, test + train[:4], original, [57], settings)


def test_inoculation_outcomes_and_k_parsing() -> None:
    def point(k: int, probe: float, original: float) -> InoculationPoint:
        return InoculationPoint(k, probe, original, 0, 0.0)
    assert outcome([point(0, 0.4, 0.8), point(500, 0.9, 0.8)]) == "learned without loss"
    assert outcome([point(0, 0.4, 0.8), point(500, 0.9, 0.7)]) == "learned at a cost"
    # On 200 scored items a 3-point drop is inside two standard errors: not a cost.
    assert outcome([point(0, 0.4, 0.6), point(500, 0.9, 0.57)], 200, 200) == "learned without loss"
    assert outcome([point(0, 0.4, 0.6), point(500, 0.9, 0.57)]) == "learned at a cost"
    assert outcome([point(0, 0.4, 0.8), point(500, 0.45, 0.8)]) == "not learned"
    assert parse_ks("1000, 0,50,50") == [0, 50, 1000]
    for bad in ("a,b", "-5", ""):
        with pytest.raises(InputError):
            parse_ks(bad)


def test_inoculation_svg_is_well_formed_and_escaped() -> None:
    points = [InoculationPoint(0, 0.3, 0.8, 0, 0.0), InoculationPoint(50, 0.7, 0.79, 10, 1.0)]
    svg = inoculation_svg({"<negation>": points, "boolean": points}, "A & B")
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "A & B" in texts and "<negation>" in texts
    assert len(list(root.iter("{http://www.w3.org/2000/svg}polyline"))) == 4


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", "probe", *args], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=300)


def test_cli_bad_input_gets_one_line(tmp_path: Path) -> None:
    out = _cli("run", "--suite", "nope", "--db", str(tmp_path / "s.sqlite"))
    assert out.returncode == 2 and out.stderr.startswith("error: unknown probe suite 'nope'")
    assert len(out.stderr.strip().splitlines()) == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"premise": "P"}\n')
    out = _cli("run", "--suite", "equivalence", "--data", str(bad), "--db", str(tmp_path / "s.sqlite"))
    assert out.returncode == 2 and "bad.jsonl:1: missing or non-text field(s) hypothesis, label, suite, category" \
        in out.stderr and "Traceback" not in out.stderr
