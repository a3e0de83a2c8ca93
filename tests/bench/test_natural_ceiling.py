"""The first round's ceiling (bench/natural_ceiling.py) on real pairs, the real first round and a
real (tiny) victim: every candidate asked, the fooling ones kept in the round's order, and the
report's reach joined with blind labels."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bench import natural_ceiling as ceiling
from bench import validity
from tests.tiny_models import build_tiny_classifier


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.slow
def test_run_asks_the_victim_about_every_first_round_candidate(tmp_path: Path, shared_data: Path) -> None:
    # A victim that answers "contradiction" to everything: every E2E candidate fools it, no C2C one does.
    folder = build_tiny_classifier(tmp_path / "victim", bias=(0.0, 0.0, 3.0))
    run = write(tmp_path / "run.jsonl", [
        {"setup": "E2E", "source": "snli-train-half", "index": 34, "target_label": "entailment",
         "status": "failed", "queries": 1},
        {"setup": "C2C", "source": "snli-train-half", "index": 102, "target_label": "contradiction",
         "status": "failed", "queries": 1},
        {"setup": "E2C", "source": "snli-train-half", "index": 34, "target_label": "contradiction",
         "status": "failed", "queries": 1},  # not a setup asked for: left out
    ])
    out = tmp_path / "ceiling.jsonl"
    ceiling.run(argparse.Namespace(run=run, out=out, setups="E2E,C2C", recipe="default", victim=str(folder),
                                   shard=0, shards=1))
    e2e, c2c = validity.read_jsonl(out)
    assert (e2e["setup"], c2c["setup"]) == ("E2E", "C2C")
    assert e2e["candidates"] > 0 and len(e2e["fooling"]) == e2e["candidates"]
    assert [f["position"] for f in e2e["fooling"]] == list(range(e2e["candidates"]))
    pair = validity.source_pairs()["snli-train-half"][34]
    assert all(f["key"] == validity.item_key(pair.premise, f["h_star"]) and f["victim"] == "contradiction"
               and f["h_star"] != pair.hypothesis and f["naturalness"] is not None for f in e2e["fooling"])
    assert c2c["candidates"] > 0 and c2c["fooling"] == []


@pytest.mark.slow
def test_second_round_starts_from_the_first_lexical_candidates(tmp_path: Path, shared_data: Path) -> None:
    folder = build_tiny_classifier(tmp_path / "victim", bias=(0.0, 0.0, 3.0))
    base = {"source": "snli-train-half", "status": "failed", "queries": 1, "run_key": None, "run_operators": [],
            "run_edits": None, "candidates": 3}
    ceilings = write(tmp_path / "ceiling.jsonl", [
        # "The girl with the dark hair is running in the sand.", an entailment
        {**base, "index": 3398, "setup": "E2E", "target_label": "entailment", "fooling": []},
        # a pair the first round already fools with a lexical edit: not the second round's business
        {**base, "index": 34, "setup": "E2E", "target_label": "entailment",
         "fooling": [_fooling("x", "The lady has a collection", "PerturbHyper", 0.5, 0)]},
    ])
    out = tmp_path / "second.jsonl"
    ceiling.second(argparse.Namespace(ceiling=ceilings, out=out, starts=2, recipe="default", victim=str(folder),
                                      shard=0, shards=1))
    (row,) = validity.read_jsonl(out)
    assert row["index"] == 3398 and row["starts"] == 2
    # The victim answers "contradiction" to everything, so every second-round candidate fools it:
    # each one a lexical edit of one of the two starts, neither H nor a first-round text.
    assert row["candidates"] > 0 and len(row["fooling"]) == row["candidates"]
    assert 1 <= len({f["via"]["h_star"] for f in row["fooling"]}) <= 2
    hypothesis = validity.source_pairs()["snli-train-half"][3398].hypothesis
    assert all(f["h_star"] not in (hypothesis, f["via"]["h_star"]) and f["operator"] != "DoubleNegation"
               and f["via"]["operator"] != "DoubleNegation" for f in row["fooling"])
    assert len({f["h_star"] for f in row["fooling"]}) == len(row["fooling"])


def _fooling(premise: str, text: str, operator: str, naturalness: float, position: int) -> dict:
    return {"h_star": text, "key": validity.item_key(premise, text), "operator": operator, "position": position,
            "naturalness": naturalness, "validity": 0.5, "victim": "neutral"}


def test_report_and_to_label_join_the_labels(tmp_path: Path, capsys, shared_data: Path) -> None:
    p = validity.source_pairs()["snli-train-half"][34].premise
    p71 = validity.source_pairs()["snli-train-half"][71].premise
    odd = _fooling(p, "The lady has a plot of ground", "PerturbHyper", 0.6, 0)
    natural = _fooling(p, "The woman has a garden", "PerturbHyper", 0.4, 1)
    unlabelled = _fooling(p, "The dame has a garden", "PerturbHypo", 0.5, 2)
    dn = _fooling(p, "It is not true that the lady has no garden", "DoubleNegation", 0.9, 3)
    rows = [
        {"setup": "E2E", "source": "snli-train-half", "index": 34, "target_label": "entailment", "status": "success",
         "queries": 2, "run_key": odd["key"], "run_operators": ["PerturbHyper"], "run_edits": 1, "candidates": 9,
         "fooling": [odd, natural, unlabelled, dn]},
        {"setup": "C2C", "source": "snli-train-half", "index": 102, "target_label": "contradiction",
         "status": "failed", "queries": 30, "run_key": None, "run_operators": [], "run_edits": None,
         "candidates": 20, "fooling": []},
        {"setup": "N2N", "source": "snli-train-half", "index": 71, "target_label": "neutral", "status": "failed",
         "queries": 9, "run_key": None, "run_operators": [], "run_edits": None, "candidates": 5,
         "fooling": [_fooling(p71, "There are adults outside.", "PerturbHypo", 0.3, 4)]},
    ]
    ceilings = write(tmp_path / "ceiling.jsonl", rows)
    labels = write(tmp_path / "labels.jsonl", [
        {"key": odd["key"], "label": "entailment", "english": "odd"},
        {"key": natural["key"], "label": "entailment", "english": "ok"},
    ])
    ceiling.report(argparse.Namespace(ceilings=[ceilings], labels=labels, per_pair=2))
    out = capsys.readouterr().out
    # Three pairs, the run natural on none. The E2E pair has fooling lexical candidates and a labelled
    # natural one (reachable); the N2N pair has one fooling candidate no label covers (at most); the
    # C2C pair none. Only the E2E pair's best two lexical candidates are labelled (checked).
    assert "| all | 3 | 0.000 | 0.667 | 0.667 | 0.333 | 0.667 | 1 | 9.0 | 1.0 |" in out
    assert "| E2E | 1 | 0.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1 | 9.0 | 4.0 |" in out
    assert "| C2C | 1 | 0.000 | 0.000 | 0.000 | 0.000 | 0.000 | 0 | 20.0 | 0.0 |" in out
    assert "| N2N | 1 | 0.000 | 1.000 | 1.000 | 0.000 | 1.000 | 0 | 5.0 | 1.0 |" in out
    todo = tmp_path / "todo.jsonl"
    ceiling.to_label(argparse.Namespace(ceilings=[ceilings], labels=labels, out=todo, per_pair=2, seed=0))
    # The best two lexical candidates by natural estimate are the odd one and the unlabelled one;
    # the double negation is never sent, and only P and H* go out.
    sent = validity.read_jsonl(todo)
    assert sorted(i["hypothesis"] for i in sent) == ["The dame has a garden", "There are adults outside."]
    assert all(set(i) == {"key", "premise", "hypothesis"} for i in sent)
    # Once the run ended in a natural success, the pair is not sent at all.
    rows[0]["run_key"] = natural["key"]
    ceiling.to_label(argparse.Namespace(ceilings=[write(ceilings, rows)], labels=labels, out=todo, per_pair=2, seed=0))
    assert [i["hypothesis"] for i in validity.read_jsonl(todo)] == ["There are adults outside."]
