"""Uploads checked at upload time (engine.data.readers.check_upload) with the readers a run uses:
one-line errors that name the upload and no server path, nothing kept of a rejected file, and a
re-upload under the same name never replacing the file an older run read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.core.errors import InputError
from engine.data.readers import check_upload, read_pairs

GOOD = "1\tA man plays a guitar.\tA man plays music.\tentailment\n2\tA dog runs.\tA cat sleeps.\tcontradiction\n"


@pytest.mark.parametrize(("name", "data", "message"), [
    ("pairs.tsv", GOOD.encode("utf-16"), "pairs.tsv: UTF-16 text; save it as UTF-8"),
    ("pairs.tsv", GOOD.encode("utf-16-le"), "pairs.tsv: UTF-16 text; save it as UTF-8"),
    ("pairs.tsv", "1\tA café.\tA bar.\tneutral\n".encode("latin-1"), "pairs.tsv: not UTF-8 text (line 1 has byte 0xe9)"),
    ("pairs.tsv", b"SQLite format 3\x00\x00", "pairs.tsv: a SQLite database"),
    ("pairs.tsv", b"  \n", "pairs.tsv: the file is empty"),
    ("pairs.csv", GOOD.encode(), "pairs.csv: upload a TSV or JSON Lines file"),
    ("pairs.tsv", b"1\tA man.\tA man.\tmaybe\n", "pairs.tsv:1: "),
    ("pairs.tsv", ("1\t" + "word " * 9600 + "\tA man.\tneutral\n").encode(),
     "pairs.tsv:1: the premise is 47999 characters long; the limit is 2400"),
    ("pairs.tsv", ("1\tA man.\t" + "a " * 400 + "\tneutral\n").encode(), "pairs.tsv:1: the hypothesis is 799"),
    ("pairs.tsv", b"1\tA man.\tA man.\t-\n", "pairs.tsv: no labelled pairs to attack"),
])
def test_a_bad_upload_gets_one_line_naming_it_and_nothing_is_kept(tmp_path: Path, name: str, data: bytes,
                                                                    message: str) -> None:
    uploads = tmp_path / "uploads"
    with pytest.raises(InputError) as caught:
        check_upload(name, data, uploads)
    shown = str(caught.value)
    assert shown.startswith(message), shown
    assert "\n" not in shown and "/tmp" not in shown and str(tmp_path) not in shown
    assert not uploads.exists() or not any(uploads.iterdir())


def test_header_rows_and_json_lines_are_recognised(tmp_path: Path) -> None:
    saved, fmt, count = check_upload("with header.tsv", ("id\tpremise\thypothesis\tlabel\n" + GOOD).encode(), tmp_path)
    assert (fmt, count) == ("tsv", 2) and saved.name.startswith("with_header-") and saved.suffix == ".tsv"
    assert [p.label for p in read_pairs(saved)] == ["entailment", "contradiction"]
    lines = "".join(json.dumps({"sentence1": "A man sleeps.", "sentence2": "A man rests.", "gold_label": label}) + "\n"
                    for label in ("entailment", "neutral"))
    _, fmt, count = check_upload("snli.jsonl", lines.encode(), tmp_path)
    assert (fmt, count) == ("jsonl", 2)


def test_a_reupload_with_the_same_name_keeps_the_older_file(tmp_path: Path) -> None:
    first, _, _ = check_upload("pairs.tsv", GOOD.encode(), tmp_path)
    again, _, _ = check_upload("pairs.tsv", GOOD.encode(), tmp_path)
    other, _, count = check_upload("pairs.tsv", GOOD.replace("A dog runs.", "A dog walks.").encode(), tmp_path)
    assert first == again and other != first and count == 2
    assert "A dog runs." in first.read_text() and "A dog walks." in other.read_text()


def test_a_run_on_an_upload_still_resumes_after_a_reupload_with_the_same_name(tmp_path: Path, victim,
                                                                               settings) -> None:
    """A run stopped after one of its two pairs resumes from its upload although a file of the same
    name and other content was uploaded since (that upload is another file)."""
    from engine.natlog.setups import get_setup
    from engine.runs.runner import RunHooks, RunSpec, run_attacks
    from engine.store.store import RunStore
    from tests.attacking import attack_of

    uploads = tmp_path / "uploads"
    first, _, _ = check_upload("pairs.tsv", GOOD.replace("entailment", "contradiction").encode(), uploads)
    configured = settings.with_overrides(db_path=tmp_path / "runs.sqlite", query_budget=4, top_k=3)
    asked = iter([False, True])  # attack one pair, then stop
    with RunStore.open(configured.db_path) as store:
        spec, attack = RunSpec("upload-run", first, "tsv", get_setup("C2C"), "tiny"), attack_of(configured)
        stopped = run_attacks(store, spec, attack, victim,
                              hooks=RunHooks(progress=False, should_stop=lambda: next(asked, True)))
        other, _, _ = check_upload("pairs.tsv", GOOD.replace("A man plays", "A woman plays").encode(), uploads)
        assert other != first and first.read_bytes().count(b"contradiction") == 2
        resumed = run_attacks(store, spec, attack, victim, hooks=RunHooks(progress=False))
    assert stopped.stopped and stopped.attacked == 1 and (resumed.resumed, resumed.attacked) == (1, 1)
