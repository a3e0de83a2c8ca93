"""The repair loop's parts on real files: ``engine augment`` exports successful H* from a real store
file with their provenance, keeps judged-valid or estimated-valid ones only, and never a held-out
pair; ``train-victim`` adds the file to a real (tiny) training run and records it; the loop itself
on a seeded slice of real SNLI pairs never trains on a pair it profiles afterwards."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from engine.augment.export import (
    AugmentReport,
    attack_examples,
    balance_anchors,
    export_augmentation,
    held_out_keys,
    profile_anchors,
    profile_examples,
    read_verdicts,
)
from engine.augment.repair import RepairReport, RepairSpec, Weakness, run_repair, weakest
from engine.cli import main as cli_main
from engine.cli.augment_commands import format_repair_report
from engine.core.errors import InputError
from engine.data.augmented import read_augmentation
from engine.data.readers import pair_key, read_pairs
from engine.profile.card import card_cells
from engine.profile.runner import profile_setups
from engine.store.profile_runs import ProfileCell, ProfilePair
from engine.store.records import AttackRecord
from engine.store.store import RunStore
from engine.victim.model import load_victim
from engine.victim.training import TRAINED_PAIRS_FILE, DataSource, TrainConfig, train_victim, trained_pair_keys
from tests.tiny_models import build_tiny_classifier

PROBS = {"entailment": 0.2, "neutral": 0.7, "contradiction": 0.1}


def _attack(index: int, h_star: str | None, validity: float | None) -> AttackRecord:
    return AttackRecord(
        pair_index=index, premise=f"A man plays a guitar on stage {index}.", hypothesis=f"A man plays a guitar {index}.",
        gold_label="entailment", status="success" if h_star else "failed", source_label="entailment",
        target_label="entailment", original_prediction="entailment", original_probabilities=PROBS,
        adversarial_hypothesis=h_star, adversarial_prediction="neutral" if h_star else None,
        adversarial_probabilities=PROBS if h_star else None, queries=3, operators=("PerturbHyper",),
        derivation=[{"validity": validity}] if h_star else None)


def _store(db: Path) -> None:
    """A profile run of three pairs and an attack run of four, in a real store file."""
    with RunStore.open(db) as store:
        run = store.start_profile_run("mine", "tiny", "train.tsv", "tsv", ["E2E", "C2C"], 5, {})
        cells = (ProfileCell("hypernym ↑", 4, 2, 1, "A person plays a guitar.", 0.3, 0.8, 0.6),
                 ProfileCell("double negation", 2, 2, 2, "It is not true that no man plays a guitar.", 0.2, 0.3, 0.0),
                 ProfileCell("deletion ↑", 1, 1, 0, "A man plays.", 0.9, 0.9, 0.9))
        store.record_profile_pair(run.id, ProfilePair(0, "E2E", "A man plays a red guitar.", "A man plays a guitar.",
                                                      "entailment", "profiled", (0.8, 0.1, 0.1), cells))
        store.record_profile_pair(run.id, ProfilePair(1, "C2C", "A dog sleeps.", "A cat runs.", "contradiction",
                                                      "profiled", (0.1, 0.1, 0.8), (ProfileCell(
                                                          "hyponym ↑", 3, 1, 1, "A kitten runs.", 0.2, 0.7, 0.5),)))
        store.record_profile_pair(run.id, ProfilePair(2, "E2E", "Held out premise.", "Held out hypothesis.",
                                                      "entailment", "profiled", (0.8, 0.1, 0.1), (ProfileCell(
                                                          "hypernym ↑", 1, 1, 1, "Held out thing.", 0.2, 0.9, 0.9),)))
        attack_run = store.start_run("attacks", "E2E", "tiny", "train.tsv", "tsv", 0, {})
        for k, (h_star, validity) in enumerate((("A person plays a guitar 0.", 0.9), ("A man plays a device 1.", 0.95),
                                                ("A man plays music 2.", 0.1), (None, None))):
            store.record_attack(attack_run.id, _attack(k, h_star, validity))


def test_augment_keeps_valid_h_star_with_provenance_and_never_a_held_out_pair(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    _store(db)
    held = tmp_path / "held.tsv"
    held.write_text("1\tHeld out premise.\tHeld out hypothesis.\tENTAILMENT\n", encoding="utf-8")
    # the study judged one attack's H* invalid and another's valid (annotations export --format jsonl)
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text("".join(json.dumps(row) + "\n" for row in (
        {"premise": "A man plays a guitar on stage 1.", "adversarial_hypothesis": "A man plays a device 1.",
         "target_label": "entailment", "majority": "neutral", "state": "resolved", "fluency_votes": {"ok": 3}},
        {"premise": "A man plays a guitar on stage 2.", "adversarial_hypothesis": "A man plays music 2.",
         "target_label": "entailment", "majority": "entailment", "state": "resolved",
         "fluency_votes": {"ok": 2, "broken": 1}})), encoding="utf-8")
    judged = read_verdicts(verdicts)
    assert judged == {("A man plays a guitar on stage 1.", "A man plays a device 1."): False,
                      ("A man plays a guitar on stage 2.", "A man plays music 2."): True}
    with RunStore.open(db) as store:
        examples = profile_examples(store, "mine", judged) + attack_examples(store, "attacks", judged)
    assert len(examples) == 7  # four fooling cells (a cell that fooled nothing gives none) and three successes
    out = tmp_path / "aug.jsonl"
    report = export_augmentation(examples, out, held_out_keys([DataSource(held, "tsv")]), min_validity=0.5)
    assert (report.kept, report.held_out, report.judged_invalid, report.low_validity) == (4, 1, 1, 1)
    rows = read_augmentation(out)
    kept = {r["sentence2"]: r for r in rows}
    # estimated valid (0.8, 0.7, 0.9) or judged valid whatever its estimate (0.1); never the held-out pair
    assert set(kept) == {"A person plays a guitar.", "A kitten runs.", "A person plays a guitar 0.", "A man plays music 2."}
    assert kept["A kitten runs."]["gold_label"] == "contradiction"  # C2C keeps the contradiction
    assert kept["A person plays a guitar."]["source"] == {
        "run": "mine", "kind": "profile", "pair_index": 0, "setup": "E2E", "hypothesis": "A man plays a guitar.",
        "label": "entailment", "key": pair_key("A man plays a red guitar.", "A man plays a guitar."),
        "what": "hypernym ↑"}
    assert kept["A man plays music 2."]["judged"] is True and kept["A person plays a guitar 0."]["judged"] is None
    # the file is a data file like any other
    pairs = read_pairs(out)
    assert [(p.hypothesis, p.label) for p in pairs][:2] == [("A person plays a guitar.", "entailment"),
                                                            ("A kitten runs.", "contradiction")]


def _anchor_store(db: Path) -> None:
    """Double negations that fooled the victim on two entailed pairs, and that it got right on entailed,
    neutral and contradicted pairs; one hypernym that fooled it and one it got right."""
    dn = "double negation"
    rows = (  # index, setup, gold, cells: (phenomenon, fooled, example, target probability, validity)
        (0, "E2E", "entailment", ((dn, 1, "It is not true that no man sings.", 0.2, 0.9),
                                  ("hypernym ↑", 1, "A person sings.", 0.3, 0.8))),
        (1, "E2E", "entailment", ((dn, 1, "It is not true that no man runs.", 0.1, 0.9),)),
        (2, "E2E", "entailment", ((dn, 0, "It is not true that no man swims.", 0.6, 0.9),)),
        (3, "N2N", "neutral", ((dn, 0, "It is not true that no woman waits.", 0.7, 0.9),
                               ("hypernym ↑", 0, "A person waits.", 0.8, 0.9))),
        (4, "N2N", "neutral", ((dn, 0, "It is not true that no woman cries.", 0.5, 0.2),)),  # estimated at 0.2
        (5, "C2C", "contradiction", ((dn, 0, "It is not true that no dog barks.", 0.9, 0.9),)),
        (6, "C2C", "contradiction", ((dn, 0, "It is not true that no dog sleeps.", 0.55, 0.9),)))
    with RunStore.open(db) as store:
        run = store.start_profile_run("mine", "tiny", "train.tsv", "tsv", ["E2E", "C2C", "N2N"], 5, {})
        for index, setup, gold, cells in rows:
            store.record_profile_pair(run.id, ProfilePair(
                index, setup, f"Premise {index}.", f"Hypothesis {index}.", gold, "profiled", (0.4, 0.3, 0.3),
                tuple(ProfileCell(what, 3, 2, fooled, text, prob, validity, 0.1)
                      for what, fooled, text, prob, validity in cells)))


def test_anchors_balance_each_phenomenon_with_the_labels_it_did_not_fool_on(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "runs.sqlite"
    _anchor_store(db)
    with RunStore.open(db) as store:
        fooled = profile_examples(store, "mine")
        anchors = profile_anchors(store, "mine")
    assert sorted(e.hypothesis for e in fooled) == ["A person sings.", "It is not true that no man runs.",
                                                    "It is not true that no man sings."]
    assert {a.kind for a in anchors} == {"anchor"} and len(anchors) == 6
    chosen = balance_anchors(fooled, anchors)
    # two double negations fooled it (both entailments): two anchors, neutral and contradiction before entailment,
    # each the hardest of its label (the lowest probability of its target label)
    assert [(a.label, a.hypothesis) for a in chosen if a.what == "double negation"] == [
        ("neutral", "It is not true that no woman cries."), ("contradiction", "It is not true that no dog sleeps.")]
    assert [a.hypothesis for a in chosen if a.what == "hypernym ↑"] == ["A person waits."]
    # an anchor needs no validity estimate (the victim already answers its label): the one estimated at 0.2 is
    # kept, where a fooling H* estimated that low would not be; a held-out anchor is still dropped
    out = tmp_path / "aug.jsonl"
    low = dataclasses.replace(fooled[0], validity=0.2)
    report = export_augmentation([*fooled[1:], low, *chosen], out, frozenset({chosen[-1].source_key}), min_validity=0.5)
    assert (report.kept, report.low_validity, report.held_out, report.by_kind) == (4, 1, 1, {"profile": 2, "anchor": 2})
    rows = {r["sentence2"]: r for r in read_augmentation(out)}
    assert rows["It is not true that no woman cries."]["gold_label"] == "neutral"
    assert rows["It is not true that no woman cries."]["source"]["kind"] == "anchor"
    assert rows["It is not true that no woman cries."]["target_prob"] == 0.5
    assert cli_main(["augment", "--db", str(db), "--profile", "mine", "--out", str(out), "--anchors"]) == 0
    assert "(3 of them anchors the victim got right)" in capsys.readouterr().out
    labels = sorted((r["source"]["what"], r["gold_label"]) for r in read_augmentation(out) if r["source"]["kind"] == "anchor")
    assert labels == [("double negation", "contradiction"), ("double negation", "neutral"), ("hypernym ↑", "neutral")]
    assert cli_main(["augment", "--db", str(db), "--run", "mine", "--out", str(out), "--anchors"]) == 2
    assert "--anchors needs a --profile run" in capsys.readouterr().err


def test_engine_augment_cli_and_its_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "runs.sqlite"
    _store(db)
    out = tmp_path / "aug.jsonl"
    assert cli_main(["augment", "--db", str(db), "--profile", "mine", "--run", "attacks", "--out", str(out),
                     "--min-validity", "0.75"]) == 0
    printed = capsys.readouterr().out
    assert "4 of 7 H* exported" in printed and "hypernym ↑" in printed
    assert len(read_augmentation(out)) == 4  # 0.8, 0.9, 0.95 and the held-in 0.9 cell; 0.7, 0.3 and 0.1 are under
    for argv, message in ((["--out", str(out)], "name at least one --run or --profile"),
                          (["--profile", "nope", "--out", str(out)], "no profile run named 'nope'"),
                          (["--run", "attacks", "--out", str(out), "--min-validity", "2"], "between 0 and 1"),
                          (["--run", "attacks", "--out", str(out), "--verdicts", str(tmp_path / "none.jsonl")],
                           "no such verdicts file")):
        assert cli_main(["augment", "--db", str(db), *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"premise": "x"}\n', encoding="utf-8")
    assert cli_main(["augment", "--db", str(db), "--run", "attacks", "--out", str(out), "--verdicts", str(bad)]) == 2
    assert "line 1: not a row of an annotations export" in capsys.readouterr().err


def test_training_with_an_augmentation_file_records_it_and_its_sources(shared_data: Path, tmp_settings,
                                                                     tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    _store(db)
    with RunStore.open(db) as store:
        examples = profile_examples(store, "mine")
    aug = tmp_path / "aug.jsonl"
    assert export_augmentation(examples, aug, frozenset()).kept == 3
    backbone = build_tiny_classifier(tmp_path / "backbone", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    base = TrainConfig(backbone=str(backbone), epochs=1, batch_size=16, max_minutes=5, balance=False,
                       train=(DataSource(shared_data / "sick_corrected.tsv", "sick", "TRAIN", 40),))
    assert "augment" not in base.key()  # a recipe without augmentation keeps the key it always had
    config = dataclasses.replace(base, augment=(aug,))
    sick_test = shared_data / "sick_corrected.tsv"
    evaluation = (DataSource(sick_test, "sick", "TEST", 30), DataSource(sick_test, "sick", "TEST", 12))
    card = train_victim(config, tmp_settings, tmp_path / "victim", evaluation, progress=False).card
    # two samples of one file and split are both on the card, the second named with its size
    assert card["accuracy"][evaluation[0].name]["pairs"] == 30
    assert card["accuracy"][f"{evaluation[0].name} (12 pairs)"]["pairs"] == 12
    assert card["train_pairs"] == 38 + 3 and card["config"]["augment"][0]["file"] == "aug.jsonl"
    assert card["augmentation"]["aug.jsonl"]["by_what"] == {"hypernym ↑": 2, "hyponym ↑": 1}
    assert "augmented with `aug.jsonl`" in (tmp_path / "victim" / "README.md").read_text()
    trained = trained_pair_keys(tmp_path / "victim")
    assert trained is not None and (tmp_path / "victim" / TRAINED_PAIRS_FILE).is_file()
    # the augmented pairs and the pairs they were made from count as trained on: attacks leave them out
    assert pair_key("A man plays a red guitar.", "A person plays a guitar.") in trained
    assert pair_key("A man plays a red guitar.", "A man plays a guitar.") in trained
    assert pair_key("Held out premise.", "Held out hypothesis.") in trained  # it was not held out here


def test_engine_repair_prints_accuracy_and_failure_rates_to_three_decimals(tmp_path: Path) -> None:
    report = RepairReport(AugmentReport(tmp_path / "aug.jsonl", 2, 2), tmp_path / "victim-after",
                          {"snli_test.tsv:TEST (2000)": 0.6812}, {"snli_test.tsv:TEST (2000)": 0.7077},
                          [Weakness("snli_test.tsv:TEST", "hypernym ↑", "E2E", 63, 0.7302, 0.4127)])
    printed = format_repair_report(report)
    assert "| snli_test.tsv:TEST (2000) | 0.681 | 0.708 |" in printed  # not 0.7 and 0.7
    assert "| snli_test.tsv:TEST | hypernym ↑ | E2E | 63 | 0.730 | 0.413 | 0.435 |" in printed


def test_train_victim_refuses_a_file_that_is_not_an_augmentation(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"sentence1": "a", "sentence2": "b", "gold_label": "entailment"}\n', encoding="utf-8")
    assert cli_main(["train-victim", "--augment", str(bad)]) == 2
    assert "not a line of an augmentation file" in capsys.readouterr().err


def test_the_repair_loop_never_trains_on_a_pair_it_profiles_afterwards(shared_data: Path, tmp_settings,
                                                                      tmp_path: Path) -> None:
    """The whole loop as the Runs page queues it, run by the worker, on a seeded slice of real SNLI
    pairs with a tiny victim and a tiny backbone: mine, export, train, profile both victims on the
    held-out pairs; the job reports each step and leaves its measurements for the Report card."""
    from engine.attack.build import Resources
    from engine.augment.repair import repair_fragments, repair_reports
    from engine.runs.worker import REPAIR_JOB, check_repair_spec, run_worker
    from engine.store import jobs

    lines = (shared_data / "snli_test.tsv").read_text(encoding="utf-8").splitlines(True)
    short = [line for line in lines if len(line.split("\t")[2].split()) <= 6]
    (tmp_path / "mine.tsv").write_text("".join(short[:10]), encoding="utf-8")
    (tmp_path / "held.tsv").write_text("".join(short[10:15] + short[:2]), encoding="utf-8")  # two pairs in both
    victim = build_tiny_classifier(tmp_path / "victim", seed=1, initializer_range=1.0)  # one-word edits move it
    backbone = build_tiny_classifier(tmp_path / "backbone", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    db = tmp_path / "runs.sqlite"
    settings = tmp_settings.with_overrides(backbone=str(backbone), top_k=20, db_path=db, data_dir=tmp_path / "var")
    spec = check_repair_spec({
        "victim": str(victim), "mine": [f"{tmp_path / 'mine.tsv'},format=tsv"],
        "held_out": [f"{tmp_path / 'held.tsv'},format=tsv"], "setups": "E2E,C2C,N2N", "budget": 1,
        "min_validity": 0.0, "epochs": 1,
        "train": [f"{shared_data / 'sick_corrected.tsv'},format=sick,split=TRAIN,limit=90"],
        "evaluation": [f"{shared_data / 'sick_corrected.tsv'},format=sick,split=TEST,limit=20"]}, shared_data)
    with RunStore.open(db) as store:
        job = jobs.enqueue(store, "loop", spec, kind=REPAIR_JOB)
    assert run_worker(db, Resources.of(settings)) == 1
    with RunStore.open(db) as store:
        done = jobs.job(store, job.id)
        before = store.profile_pairs(store.profile_run("loop-before-0").id)
        after = store.profile_pairs(store.profile_run("loop-after-0").id)
    assert done.status == "done", done.message
    assert jobs.progress(store, done) == done.total == 6 and "new victim" in (done.message or "")
    (report,) = repair_reports(settings).values()
    rows = read_augmentation(tmp_path / "var" / "augment" / "loop.jsonl")
    assert rows and report["augmentation"]["kept"] == len(rows)
    held = {pair_key(p.premise, p.hypothesis) for p in read_pairs(tmp_path / "held.tsv", "tsv")}
    profiled = {pair_key(p.premise, p.hypothesis) for p in before + after}
    trained = trained_pair_keys(report["victim_after"]) or frozenset()
    # nothing trained on is profiled, and nothing held out is trained on: the two pairs in both files
    # were profiled as held-out pairs, never exported
    assert trained and not (trained & profiled) and not ({r["source"]["key"] for r in rows} & held)
    assert {r["sentence2"] for r in rows}.isdisjoint({p.hypothesis for p in read_pairs(tmp_path / "held.tsv", "tsv")})
    assert {(p.pair_index, p.setup) for p in before} == {(p.pair_index, p.setup) for p in after}  # the same pairs
    # clean accuracy on the evaluation and held-out files, and on each semantic fragment's dev file the data has
    fragments = repair_fragments(settings.shared_data_dir)
    assert set(report["accuracy_before"]) == set(report["accuracy_after"])
    assert len(report["accuracy_before"]) == 2 + len(fragments)
    assert all(f"{f.name} (500)" in report["accuracy_after"] for f in fragments)
    card = json.loads((Path(report["victim_after"]) / "training.json").read_text())
    assert card["augmentation"]["loop.jsonl"]["examples"] == len(rows)
    assert load_victim(report["victim_after"], settings=settings).labels == ("entailment", "neutral", "contradiction")
    assert all(w["pairs"] >= 20 for w in report["weakest"])  # cells this small say too little to be called weak


def test_the_weakest_cells_are_those_the_first_victim_failed_most_on() -> None:
    def pair(k: int, setup: str, fooled: dict[str, int]) -> ProfilePair:
        return ProfilePair(k, setup, "P", "H", "entailment", "profiled", None,
                           tuple(ProfileCell(name, 1, 1, n, "H*", 0.1) for name, n in fooled.items()))
    before = card_cells([pair(k, "E2E", {"negation": 1, "hypernym ↑": k % 2, "deletion ↑": 0}) for k in range(4)])
    after = card_cells([pair(k, "E2E", {"negation": k % 2, "hypernym ↑": 0, "deletion ↑": 0}) for k in range(4)])
    found = weakest("d", before, after, count=2, min_pairs=4)
    assert [(w.phenomenon, w.before, w.after, w.relative_drop) for w in found] == [
        ("negation", 1.0, 0.5, 0.5), ("hypernym ↑", 0.5, 0.0, 1.0)]
    assert weakest("d", before, after, min_pairs=5) == []


def test_a_repair_loop_with_nothing_to_mine_says_so(tmp_settings, attack, tmp_path: Path) -> None:
    spec = RepairSpec("empty", "offline", (), (), profile_setups("E2E"))
    with RunStore.open(tmp_path / "runs.sqlite") as store, pytest.raises(InputError, match="at least one source"):
        run_repair(store, spec, attack, tmp_settings, augment_path=tmp_path / "aug.jsonl", progress=False)


def test_check_repair_spec_names_what_is_wrong(shared_data: Path) -> None:
    from engine.runs.worker import check_repair_spec

    good = {"mine": ["snli_test.tsv,format=tsv,split=TRAIN,limit=5"], "held_out": ["snli_test.tsv,split=TEST"],
            "setups": "E2E"}
    assert check_repair_spec(dict(good), shared_data) == good
    for change, message in (({"mine": []}, "needs 'mine'"), ({"held_out": ["none.tsv"]}, "no such data file (held_out)"),
                            ({"setups": "E2X"}, "unknown setup"), ({"min_validity": 1.5}, "between 0 and 1"),
                            ({"held_out": ["snli_test.tsv,limit=x"]}, "whole number"), ({"colour": 1}, "unknown repair")):
        with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
            check_repair_spec({**good, **change}, shared_data)


def test_the_report_card_shows_the_augmentation_and_the_repair_loops(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from annotations import Store, auth
    from engine.core.settings import PROJECT_ROOT, get_settings

    victim = tmp_path / "victim-repaired"
    victim.mkdir()
    (victim / "training.json").write_text(json.dumps({"augmentation": {"aug.jsonl": {
        "examples": 115, "by_label": {"entailment": 100}, "by_what": {"double negation": 55, "hypernym ↑": 41},
        "runs": {"mine-<i>0</i>": 115}, "judged_valid": 0}}}), encoding="utf-8")
    (tmp_path / "var" / "augment").mkdir(parents=True)
    (tmp_path / "var" / "augment" / "loop.report.json").write_text(json.dumps({
        "victim_after": str(victim), "augmentation": {"kept": 115, "by_kind": {"profile": 70, "anchor": 45}},
        "weakest": [{"source": "snli", "phenomenon": "double negation", "setup": "E2E", "pairs": 60, "before": 1.0,
                     "after": 0.2, "relative_drop": 0.8}],
        "accuracy_before": {"snli": 0.679}, "accuracy_after": {"snli": 0.675}}), encoding="utf-8")
    db = tmp_path / "card.sqlite"
    monkeypatch.setenv("NATLOG_DB_PATH", str(db))
    monkeypatch.setenv("NATLOG_DATA_DIR", str(tmp_path / "var"))
    get_settings.cache_clear()
    st.cache_resource.clear()
    with Store.open(db) as store:
        run = store.start_profile_run("after", str(victim), "snli_test.tsv", "snli", ["E2E"], 5, {})
        store.record_profile_pair(run.id, ProfilePair(0, "E2E", "P", "H", "entailment", "profiled", (0.9, 0.05, 0.05),
                                                      (ProfileCell("negation", 1, 1, 0, "No H.", 0.9),)))
        token = auth.add_annotator(store, "root", "admin")
    app = AppTest.from_file(str(PROJECT_ROOT / "pages" / "report_card.py"), default_timeout=60).run()
    app.text_input[0].input("root")
    app.text_input[1].input(token)
    app = app.button[0].click().run()
    assert not app.exception and not app.error
    (note,) = [i.value for i in app.info if "augmentation" in i.value]
    assert "115 successful H*" in note and r"mine\-\<i\>0\<\/i\>" in note and "double negation 55" in note
    assert "Repair loops" in [h.value for h in app.header]
    assert any("115 H* trained on (45 of them anchors the victim got right)" in m.value for m in app.markdown)
    weak = next(f.value for f in app.dataframe if "relative_drop" in f.value.columns)
    assert weak.iloc[0][["phenomenon", "before", "after"]].tolist() == ["double negation", 1.0, 0.2]
    get_settings.cache_clear()
    st.cache_resource.clear()
