"""Run metrics on a real SQLite store: ASR, QN, PPL, breakdowns, HVASR once votes exist, CSV."""

from __future__ import annotations

import argparse
import csv
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from annotations import cli as annotations_cli
from annotations.assignment import submit
from annotations.auth import add_annotator, annotators
from annotations.records import AttackRecord
from annotations.report import load_report as load_validated_report
from annotations.store import Store
from engine.cli.report_commands import cmd_report
from engine.core.errors import InputError
from engine.reports.metrics import HumanValidation, load_report, run_metrics, write_csv
from engine.reports.tables import record_table

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PROBS = {"entailment": 0.2, "neutral": 0.2, "contradiction": 0.6}


def record(index: int, status: str, queries: int, ppl: float | None = None, operators: tuple[str, ...] = (),
           polarity: str | None = None) -> AttackRecord:
    won = status == "success"
    return AttackRecord(
        pair_index=index, premise=f"A man sleeps number {index}.", hypothesis="A man plays.",
        gold_label="contradiction", status=status, source_label="contradiction", target_label="contradiction",
        original_prediction="entailment" if status == "skipped" else "contradiction", original_probabilities=PROBS,
        adversarial_hypothesis=f"A man plays a guitar {index}." if won else None,
        adversarial_prediction="neutral" if won else None, adversarial_probabilities=PROBS if won else None,
        queries=queries, perplexity=ppl, operators=operators, polarity=polarity,
        started_at=T0, finished_at=T0 + timedelta(seconds=2),
    )


@pytest.fixture()
def store(tmp_settings) -> Store:
    with Store.open(settings=tmp_settings) as opened:
        run = opened.start_run("c2c", "C2C", "tiny", "/data/snli_test.tsv", "tsv", 0, {})
        for r in (
            record(0, "skipped", 1),
            record(1, "failed", 500),
            record(2, "success", 4, 20.0, ("PerturbHypo",), "↑"),
            record(3, "success", 10, 40.0, ("Insertion", "PerturbHypo"), "↑↓"),
            record(4, "success", 30, None, ("AddNeg",), "↓"),
        ):
            opened.record_attack(run.id, r)
        yield opened


def test_run_metrics(store: Store) -> None:
    (row,) = run_metrics(store)
    assert (row.pairs, row.skipped, row.attacked, row.successful) == (5, 1, 4, 3)
    assert row.asr == pytest.approx(3 / 4)
    assert row.qn_mean == pytest.approx((4 + 10 + 30) / 3) and row.qn_median == 10
    assert row.ppl_mean == pytest.approx(30.0)
    assert row.seconds == pytest.approx(10.0)
    assert row.hvasr is None and row.judged == 0
    assert (row.setup, row.victim, row.data) == ("C2C", "tiny", "snli_test.tsv")


def test_breakdowns(store: Store) -> None:
    tables = load_report(store)
    ops = {r.value: r for r in tables.operators}
    assert set(ops) == {"PerturbHypo", "Insertion", "AddNeg"}
    assert ops["PerturbHypo"].successful == 2 and ops["PerturbHypo"].share == pytest.approx(2 / 3)
    assert ops["PerturbHypo"].qn_mean == pytest.approx(7.0) and ops["PerturbHypo"].ppl_mean == pytest.approx(30.0)
    assert ops["AddNeg"].ppl_mean is None
    # ASR contribution: successes using the operator over the 4 attacked pairs (the skipped one is not attacked).
    assert {op: r.asr_contribution for op, r in ops.items()} == {"PerturbHypo": 0.5, "Insertion": 0.25, "AddNeg": 0.25}
    assert all(r.judged == 0 and r.valid_share is None and r.natural_share is None for r in ops.values())
    # Derivations "↑", "↑↓" and "↓": each counts once under every polarity its edits took.
    polarity = {r.value: r.successful for r in tables.polarity}
    assert polarity == {"↑": 2, "↓": 2}


def test_edit_values_are_distinct_and_never_empty() -> None:
    won = record(0, "success", 9, operators=("PerturbHypo", "Insertion", "PerturbHypo"), polarity="↑=↑")
    assert won.edit_values("operator") == ("PerturbHypo", "Insertion")
    assert won.edit_values("polarity") == ("↑", "=")
    failed = record(1, "failed", 500)
    assert failed.edit_values("polarity") == ("none",) == failed.edit_values("operator")


def test_load_report_matches_the_separate_tables(store: Store) -> None:
    tables = load_report(store, "c2c")
    assert tables.runs == run_metrics(store, "c2c")
    assert tables.operators == load_report(store).operators
    (row,) = load_report(store, "c2c", {"c2c": HumanValidation(attacked=4, successful=3, judged=2, valid=1)}).runs
    assert (row.hvasr, row.hvasr_judged, row.coverage) == (0.25, 0.5, pytest.approx(2 / 3))


def test_hvasr_has_one_definition() -> None:
    """6 of 9 successful attacks judged, 4 valid, 10 attacked: HVASR over attacked pairs is a lower
    bound read with its coverage; nothing judged is undefined (None, shown "—"), never 0."""
    partial = HumanValidation(attacked=10, successful=9, judged=6, valid=4)
    assert partial.hvasr == pytest.approx(0.4) and partial.hvasr_judged == pytest.approx(4 / 6)
    assert partial.coverage == pytest.approx(6 / 9)
    none = HumanValidation(attacked=10, successful=9, judged=0, valid=0)
    assert none.hvasr is None and none.hvasr_judged is None and none.coverage is None
    assert HumanValidation(attacked=0, successful=0, judged=0, valid=0).hvasr is None


def test_hvasr_appears_with_judgments(store: Store) -> None:
    for name in ("ann", "bob", "cyd"):
        add_annotator(store, name)
    people = [a.id for a in annotators(store)]
    items = {a.record.pair_index: a.item_id for a in store.attacks() if a.item_id is not None}
    for person, label in zip(people, ("contradiction", "contradiction", "neutral")):
        submit(store, person, items[2], label, source="crowd")
    for person, label in zip(people, ("neutral", "neutral", "contradiction")):
        submit(store, person, items[3], label, source="crowd")
    submit(store, people[0], items[4], "contradiction", source="crowd")
    # The engine's metrics know nothing of judgments; the annotation layer's report adds them.
    assert run_metrics(store, "c2c")[0].hvasr is None
    (row,) = load_validated_report(store, "c2c").runs
    # Two items have a majority; one of them agrees with the target label; 4 pairs were attacked.
    assert row.judged == 2 and row.hvasr == pytest.approx(1 / 4)


def test_table_csv_and_report_command(store: Store, tmp_path: Path, capsys) -> None:
    rows = run_metrics(store)
    table = record_table(rows, ["run", "asr", "qn_mean", "qn_median"])
    assert table.splitlines()[2] == "| c2c | 0.750 | 14.7 | 10.0 |"
    out = tmp_path / "report.csv"
    write_csv(rows, out)
    (line,) = list(csv.DictReader(out.open(encoding="utf-8")))
    assert line["run"] == "c2c" and float(line["asr"]) == pytest.approx(0.75)

    assert cmd_report(argparse.Namespace(db=store.path, run="c2c", csv=tmp_path / "cli.csv", recipe=None,
                                         diff=None)) == 0
    printed = capsys.readouterr().out
    assert "| c2c | NatLog | C2C | tiny |" in printed and "PerturbHypo" in printed
    # Per operator: successes, share of them, ASR contribution, judged, valid and natural shares ('-': no
    # votes reach the engine), mean QN and PPL.
    assert ("| run | value | successful | share | asr_contribution | judged | valid_share | natural_share | qn_mean "
            "| ppl_mean |") in printed
    assert "| c2c | PerturbHypo | 2 | 0.667 | 0.500 | 0 | - | - | 7.0 | 30.0 |" in printed
    (first, *_) = list(csv.DictReader((tmp_path / "cli-operator.csv").open(encoding="utf-8")))
    assert (first["value"], float(first["asr_contribution"]), first["valid_share"]) == ("PerturbHypo", 0.5, "")
    assert (tmp_path / "cli-polarity.csv").is_file()
    # The same tables, with HVASR, from the annotation layer's command line.
    assert annotations_cli.main(["report", "--db", str(store.path), "--run", "c2c"]) == 0
    assert "| c2c | NatLog | C2C | tiny |" in capsys.readouterr().out


def test_report_prints_a_recipe_and_the_difference_of_two(store: Store, capsys) -> None:
    store.start_run("other", "C2C", "tiny", "/data/snli_test.tsv", "tsv", 0,
                    {"recipe": {"top_k": 5, "wsd": "first"}, "recipe_hash": "abc"})
    store.start_run("third", "C2C", "tiny", "/data/snli_test.tsv", "tsv", 0,
                    {"recipe": {"top_k": 7, "wsd": "first"}, "recipe_hash": "def"})
    assert cmd_report(argparse.Namespace(db=store.path, run=None, csv=None, recipe="other", diff=None)) == 0
    printed = capsys.readouterr().out
    assert "| recipe.top_k | 5 |" in printed and "| recipe.wsd | first |" in printed
    assert cmd_report(argparse.Namespace(db=store.path, run=None, csv=None, recipe=None, diff=["other", "third"])) == 0
    printed = capsys.readouterr().out
    # Only the differing field; the hash is provenance, never a difference of its own.
    assert "| recipe.top_k | 5 | 7 |" in printed and "wsd" not in printed and "recipe_hash" not in printed
    with pytest.raises(InputError, match="no-such-run"):
        cmd_report(argparse.Namespace(db=store.path, run=None, csv=None, recipe="no-such-run", diff=None))
