"""Readers for the NLI file formats, on the real shared data and on small broken files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine.core.errors import InputError
from engine.core.vocab import LABELS
from engine.data.readers import detect_format, read_pairs


def test_snli_tsv_reads_every_row(shared_data: Path) -> None:
    pairs = read_pairs(shared_data / "snli_test.tsv", "snli")
    lines = (shared_data / "snli_test.tsv").read_text(encoding="utf-8").splitlines()
    assert len(pairs) == len(lines)
    first = lines[0].split("\t")
    assert (pairs[0].pair_id, pairs[0].premise, pairs[0].hypothesis) == (first[0], first[1], first[2])
    assert pairs[0].label == first[3].lower()
    assert {p.label for p in pairs} == set(LABELS)


def test_sick_uses_corrected_label_and_split(shared_data: Path) -> None:
    path = shared_data / "sick_corrected.tsv"
    header, *rows = path.read_text(encoding="utf-8").splitlines()
    column = {name: k for k, name in enumerate(header.split("\t"))}
    test_rows = [r.split("\t") for r in rows if r.split("\t")[column["SemEval_set"]] == "TEST"]
    pairs = read_pairs(path, "sick", split="test")
    assert len(pairs) == len(test_rows)
    assert [p.label for p in pairs] == [r[column["label_current_paper"]].lower() for r in test_rows]
    # The corrected labels differ from the original ones on some pairs.
    assert any(r[column["label_current_paper"]] != r[column["entailment_label"]] for r in test_rows)
    assert {p.split for p in read_pairs(path, "sick")} == {"TRAIN", "TRIAL", "TEST"}


def test_conjnli_with_bom_and_help_are_detected(shared_data: Path) -> None:
    conj = shared_data / "conjnli" / "conj_dev.tsv"
    assert conj.read_bytes().startswith(b"\xef\xbb\xbf")
    assert detect_format(conj) == "conjnli"
    pairs = read_pairs(conj)
    assert pairs[0].premise.startswith("Historically") and pairs[0].line == 2
    help_pairs = read_pairs(shared_data / "help" / "leskexppmb_and.tsv")
    assert help_pairs[0].genre == "conjunction" and help_pairs[0].split == ""


def test_jsonl_and_mnli_tsv(tmp_path: Path) -> None:
    rows = [
        {"sentence1": "A dog runs.", "sentence2": "An animal runs.", "gold_label": "entailment", "pairID": "a"},
        {"sentence1": "A dog runs.", "sentence2": "A cat sleeps.", "gold_label": "-", "pairID": "b"},
        {"sentence1": "A dog runs.", "sentence2": "Nothing runs.", "gold_label": "contradiction", "genre": "x"},
    ]
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    pairs = read_pairs(jsonl, "mnli")
    assert [(p.pair_id, p.label, p.line) for p in pairs] == [("a", "entailment", 1), ("3", "contradiction", 3)]
    tsv = tmp_path / "med.tsv"
    tsv.write_text("genre\tsentence1\tsentence2\tgold_label\nup\tA dog ran\tAn animal ran\tENTAILMENT\n",
                   encoding="utf-8")
    (pair,) = read_pairs(tsv, "mnli")
    assert (pair.premise, pair.genre, pair.label) == ("A dog ran", "up", "entailment")


@pytest.mark.parametrize(
    ("fmt", "text", "message"),
    [
        ("tsv", "1\tA dog runs.\tAn animal runs.\tENTAILMENT\n2\tA dog runs.\tA cat.\tMAYBE\n",
         ":2: unknown label 'MAYBE'"),
        ("tsv", "1\tA dog runs.\tAn animal runs.\tENTAILMENT\n\n3\tA\tB\tNEUTRAL\n", ":2: blank line"),
        ("tsv", "1\tA dog runs.\tENTAILMENT\n", ":1: expected 4 tab-separated columns"),
        ("sick", "pair_ID\tsentence_A\tSemEval_set\n1\tA\tTEST\n", ":1: missing column sentence_B"),
        ("conjnli", "Premise\tHypothesis\tLabel\nA dog.\t\tneutral\n", ":2: column 'Hypothesis' is empty"),
        ("snli", '{"sentence1": "A", "sentence2": "B"}\n', ":1: missing column gold_label"),
        ("auto", '[{"sentence1": "A", "sentence2": "B", "gold_label": "neutral"}]\n', ":1: looks like a JSON array"),
    ],
)
def test_bad_files_name_the_line(tmp_path: Path, fmt: str, text: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_pairs(path, fmt)
    assert str(path) in str(info.value) and message in str(info.value)


def test_missing_file_and_wrong_split(tmp_path: Path, shared_data: Path) -> None:
    with pytest.raises(InputError, match="no such data file"):
        read_pairs(tmp_path / "absent.tsv")
    with pytest.raises(InputError, match="halves TRAIN, TEST; got 'DEV'"):
        read_pairs(shared_data / "snli_test.tsv", "tsv", split="DEV")
    with pytest.raises(InputError, match="unknown data format"):
        read_pairs(shared_data / "snli_test.tsv", "csv")


def test_hash_split_gives_disjoint_stable_halves(shared_data: Path) -> None:
    everything = read_pairs(shared_data / "snli_test.tsv", "tsv")
    train = read_pairs(shared_data / "snli_test.tsv", "tsv", split="train")
    test = read_pairs(shared_data / "snli_test.tsv", "tsv", split="TEST")
    assert {p.pair_id for p in train}.isdisjoint({p.pair_id for p in test})
    assert len(train) + len(test) == len(everything)
    assert 0.45 < len(train) / len(everything) < 0.55
    assert [p.pair_id for p in read_pairs(shared_data / "snli_test.tsv", "tsv", split="TEST")] == [p.pair_id for p in test]


@pytest.mark.parametrize("fmt", ["auto", "tsv", "snli", "mnli", "sick"])
def test_files_that_are_not_utf8_text_are_one_line_errors(tmp_path: Path, fmt: str) -> None:
    latin = tmp_path / "latin1.tsv"
    latin.write_bytes("1\tA man plays.\tA man plays.\tENTAILMENT\n2\tCafé crème.\tA drink.\tNEUTRAL\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1.tsv: not UTF-8 text \(line 2 has byte 0xe9\); save the file"):
        read_pairs(latin, fmt)
    store = tmp_path / "runs.sqlite"
    with sqlite3.connect(store) as connection:
        connection.execute("CREATE TABLE t (x)")
    with pytest.raises(InputError, match="runs.sqlite: a SQLite database, not a data file"):
        read_pairs(store, fmt)
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}" + bytes(range(256)))
    with pytest.raises(InputError, match="model.safetensors: a binary file, not a data file"):
        read_pairs(weights, fmt)
    with pytest.raises(InputError, match=": a folder, not a data file"):
        read_pairs(tmp_path, fmt)
