"""The validity benchmark's bookkeeping on real files: label keys, blind exports, the report's
validity and naturalness, and the labels kept in the repo covering the dev set."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import validity
from engine.core.settings import PROJECT_ROOT

DEV = PROJECT_ROOT / "results" / "validity"


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_report_counts_valid_and_natural(tmp_path: Path, capsys, shared_data: Path) -> None:
    first = validity.source_pairs()["conjnli-dev"][0]
    p = first.premise
    rows = [
        {"setup": "E2C", "source": "conjnli-dev", "index": 0, "target_label": "contradiction",
         "status": "success", "queries": 2, "h_star": "It is not true that a man plays music.",
         "key": validity.item_key(p, "It is not true that a man plays music."), "operators": ["SentenceNegation"]},
        {"setup": "E2C", "source": "conjnli-dev", "index": 0, "target_label": "contradiction",
         "status": "success", "queries": 4, "h_star": "A man do not plays.",
         "key": validity.item_key(p, "A man do not plays."), "operators": ["PredicateNegation"]},
        {"setup": "E2C", "source": "conjnli-dev", "index": 1, "target_label": "contradiction",
         "status": "skipped", "queries": 1},
    ]
    run = write(tmp_path / "run.jsonl", rows)
    labels = write(tmp_path / "labels.jsonl", [
        {"key": rows[0]["key"], "label": "contradiction", "english": "ok"},
        {"key": rows[1]["key"], "label": "contradiction", "english": "broken"},
    ])
    validity.report(argparse.Namespace(runs=[run], labels=labels))
    out = capsys.readouterr().out
    # HVASR in three readings: label only (2 of 2 attacked), label and not broken (1 of 2), label
    # and natural (1 of 2: the broken one is not natural either).
    assert "| all | 2 | 2 | 1.000 | - | 3.0 | 2 | 0.500 | 0.500 | 1.000 | 0.500 | 0.500 | 3.0 | 0 | - |" in out
    assert ("| source conjnli-dev | 2 | 2 | 1.000 | - | 3.0 | 2 | 0.500 | 0.500 | 1.000 | 0.500 | 0.500 | 3.0 | 0 | - |"
            in out)
    # An operator's row: its successes over every attacked pair, and its share of the run's successes.
    assert "| PredicateNegation | - | 1 | 0.500 | 0.500 | 4.0 | 1 | 0.000 | 0.000 | 0.500 | 0.000 | 0.000 | 4.0 | 0 | - |" in out
    assert "| SentenceNegation | - | 1 | 0.500 | 0.500 | 2.0 | 1 | 1.000 | 1.000 | 0.500 | 0.500 | 0.500 | 2.0 | 0 | - |" in out
    # The source pair (P, H) labelled with E2C's source label: both attacks count as source-agreed.
    source = {"key": validity.item_key(p, first.hypothesis), "label": "entailment", "english": "ok"}
    labels.write_text(labels.read_text() + json.dumps(source) + "\n", encoding="utf-8")
    validity.report(argparse.Namespace(runs=[run], labels=labels))
    assert ("| all | 2 | 2 | 1.000 | - | 3.0 | 2 | 0.500 | 0.500 | 1.000 | 0.500 | 0.500 | 3.0 | 2 | 0.500 |"
            in capsys.readouterr().out)
    export = tmp_path / "todo.jsonl"
    validity.to_label(argparse.Namespace(runs=[run], labels=tmp_path / "none.jsonl", out=export, seed=0,
                                         sources=False))
    blind = [json.loads(line) for line in export.read_text().splitlines()]
    assert len(blind) == 2 and all(set(item) == {"key", "premise", "hypothesis"} for item in blind)
    assert {item["premise"] for item in blind} == {p}  # read back from the shared data, not stored
    validity.to_label(argparse.Namespace(runs=[run], labels=tmp_path / "none.jsonl", out=export, seed=0,
                                         sources=True))
    mixed = [json.loads(line) for line in export.read_text().splitlines()]
    assert len(mixed) == 3 and first.hypothesis in {item["hypothesis"] for item in mixed}


def test_two_passes_agreement_and_kappa(tmp_path: Path, capsys) -> None:
    first = write(tmp_path / "a.jsonl", [
        {"key": "k1", "label": "entailment", "english": "ok"}, {"key": "k2", "label": "neutral", "english": "odd"},
        {"key": "k3", "label": "entailment", "english": "broken"}, {"key": "k4", "label": "neutral", "english": "ok"}])
    second = write(tmp_path / "b.jsonl", [
        {"key": "k1", "label": "entailment", "english": "ok"}, {"key": "k2", "label": "neutral", "english": "ok"},
        {"key": "k3", "label": "neutral", "english": "broken"}, {"key": "k4", "label": "neutral", "english": "ok"},
        {"key": "k5", "label": "neutral", "english": "ok"}])
    validity.agreement(argparse.Namespace(first=first, second=second))
    out = capsys.readouterr().out
    # label: 3 of 4 agree; chance (2*1 + 2*3) / 16 = 0.5, so kappa 0.5. broken: 4 of 4, kappa 1.
    assert "| label | 4 | 0.750 | 0.500 |" in out and "| broken | 4 | 1.000 | 1.000 |" in out
    with pytest.raises(SystemExit, match="share no labelled item"):
        validity.agreement(argparse.Namespace(first=first, second=write(tmp_path / "c.jsonl", [])))


def test_bad_label_lines_are_refused(tmp_path: Path) -> None:
    bad = write(tmp_path / "labels.jsonl", [{"key": "x", "label": "yes", "english": "ok"}])
    with pytest.raises(SystemExit, match="labels.jsonl:1"):
        validity.read_labels(bad)


def test_the_dev_set_is_labelled_blind_and_whole(shared_data: Path) -> None:
    labels = validity.read_labels(DEV / "labels.jsonl")
    runs = [p for p in sorted(DEV.glob("*.jsonl")) if not p.name.startswith("labels")]
    assert runs, "the dev-set runs are kept in results/validity/"
    runs += sorted((DEV / "candidates").glob("*.jsonl"))  # the sampled candidates the estimate is fitted on
    rows = [r for p in runs for r in validity.with_texts(validity.read_jsonl(p))]
    produced = {r["key"] for r in rows if r.get("key")}
    assert len(produced) >= 1000 and produced <= set(labels)
    second = validity.read_labels(DEV / "labels_pass2.jsonl")
    assert len(set(labels) & set(second)) >= 1000  # two independent passes over most of it
    assert all(validity.item_key(r["premise"], r["h_star"]) == r["key"] for r in rows if r.get("key"))
    assert not [r for p in runs for r in validity.read_jsonl(p) if "premise" in r]  # no data copied
    assert all(set(row) == {"key", "label", "english"} for row in labels.values())
    assert (PROJECT_ROOT / "docs" / "annotation-guideline.md").is_file()


def test_expected_calibration_error_by_hand() -> None:
    from bench.validity_estimator import expected_calibration_error

    # Two bins used: [0.2, 0.3) holds p = 0.2, 0.2 with outcomes 0, 1 (mean 0.5 vs 0.2: 0.3 off);
    # [0.9, 1.0] holds p = 0.9, 1.0 with outcomes 1, 1 (mean 1 vs 0.95: 0.05 off); equal weights.
    assert expected_calibration_error([0, 1, 1, 1], [0.2, 0.2, 0.9, 1.0]) == pytest.approx(0.5 * 0.3 + 0.5 * 0.05)
    assert expected_calibration_error([1, 0], [1.0, 0.0]) == 0.0


def test_within_pair_auc_compares_only_h_star_of_the_same_source_pair() -> None:
    from bench.validity_estimator import within_pair_auc

    # Pair a: valid 0.9 above invalid 0.4, valid 0.3 under it (1 of 2 couples); pair b: a tie (half).
    # The invalid 0.95 of pair c would beat every valid H* of a and b, but is compared with none.
    groups = ["a", "a", "a", "b", "b", "c"]
    y = [1, 0, 1, 1, 0, 0]
    p = [0.9, 0.4, 0.3, 0.5, 0.5, 0.95]
    assert within_pair_auc(groups, y, p) == (pytest.approx((1 + 0 + 0.5) / 3), 3)
    assert within_pair_auc(["a", "b"], [1, 0], [0.9, 0.1]) == (None, 0)


def test_source_agreement_reads_the_labellers_label_of_the_source_pair() -> None:
    from bench.validity_estimator import source_agreement

    rows = [{"premise": "P.", "hypothesis": "H one.", "setup": "C2E"},  # source label: contradiction
            {"premise": "P.", "hypothesis": "H two.", "setup": "E2E"},
            {"premise": "P.", "hypothesis": "H three.", "setup": "N2N"}]
    labels = {validity.item_key("P.", "H one."): {"label": "contradiction", "english": "ok"},
              validity.item_key("P.", "H two."): {"label": "neutral", "english": "ok"}}
    assert source_agreement(rows, labels) == [1, 0, None]


def test_a_sample_stratified_by_a_word_keeps_whole_words_only() -> None:
    from engine.data.readers import NLIPair

    pool = [("s", k, NLIPair(pair_id=str(k), premise="P.", hypothesis=h, label="entailment", source="s", line=k))
            for k, h in enumerate(["A dog or a cat.", "An ORange sky.", "Tea OR coffee.", "Nothing here."])]
    assert [k for _, k, _ in validity.having_words(pool, "or")] == [0, 2]
    assert [k for _, k, _ in validity.having_words(pool, " or , and ")] == [0, 2]
    assert validity.having_words(pool, "") == pool


def test_a_missing_data_folder_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "NATLOG_SHARED_DATA_DIR": str(tmp_path / "no-data")}
    done = subprocess.run([sys.executable, str(PROJECT_ROOT / "bench" / "validity.py"), "generate", "--per-setup", "1",
                           "--out", str(tmp_path / "run.jsonl")], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"error: {tmp_path / 'no-data' / 'snli_test.tsv'}: no such data file"
    assert not (tmp_path / "run.jsonl").exists()


@pytest.mark.slow
def test_verb_swaps_writes_each_swap_with_its_rise_and_skips_labelled_ones(tmp_path: Path, shared_data: Path) -> None:
    """A seeded slice of real pairs: every row is a first-round WordNet swap at a verb, with the
    LM rise the verb-fit check reads and the check itself off (rises over 2 nats are kept, to be
    labelled); a (P, H*) the labels cover is left out."""
    from engine.constraints import VERB_SWAPS

    out = tmp_path / "verbs.jsonl"
    args = argparse.Namespace(per_setup=8, per_pair=2, setups="E2E,N2N", seed=3, labels=None, out=out)
    validity.verb_swaps(args)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows and all(r["operators"][0] in VERB_SWAPS and r["status"] == "candidate" for r in rows)
    assert all(isinstance(r["verb_fit"], float) and r["old"] and r["new"] for r in rows)
    assert all(sum(s["source"] == r["source"] and s["index"] == r["index"] and s["setup"] == r["setup"]
                   for s in rows) <= 2 for r in rows)
    labels = write(tmp_path / "labels.jsonl", [{"key": rows[0]["key"], "label": "neutral", "english": "ok"}])
    validity.verb_swaps(argparse.Namespace(**{**vars(args), "labels": labels, "out": tmp_path / "again.jsonl"}))
    again = [json.loads(line) for line in (tmp_path / "again.jsonl").read_text().splitlines()]
    assert rows[0]["key"] not in {r["key"] for r in again}
