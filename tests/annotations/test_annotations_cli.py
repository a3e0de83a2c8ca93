"""``python -m annotations``: tokens, export, crowd import with bad rows, clean errors."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from annotations import Store, auth
from annotations.cli import main
from annotations.crowd_import import import_votes
from engine.core.errors import InputError
from engine.core.settings import PROJECT_ROOT
from tests.annotations.test_annotations_store import make_record, start


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    """A store with two successful attacks and one failed one."""
    path = tmp_path / "cli.sqlite"
    with Store.open(path) as store:
        run_id = start(store, "cli-run")
        for index, status in enumerate(["success", "success", "failed"]):
            store.record_attack(run_id, make_record(index, status))
    return path


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_annotator_prints_a_working_token_once(capsys, db: Path) -> None:
    code, out, _ = run_cli(capsys, "add-annotator", "alice", "--role", "admin", "--db", str(db))
    assert code == 0
    token = out.strip().splitlines()[-1]
    with Store.open(db) as store:
        assert auth.authenticate(store, "alice", token).role == "admin"
    code, _, err = run_cli(capsys, "add-annotator", "alice", "--db", str(db))
    assert code == 2 and err == "error: an annotator named 'alice' already exists\n"
    code, out, _ = run_cli(capsys, "annotators", "--db", str(db))
    assert "alice" in out and token not in out
    assert run_cli(capsys, "revoke", "alice", "--db", str(db))[0] == 0
    with Store.open(db) as store, pytest.raises(InputError):
        auth.authenticate(store, "alice", token)


def test_bootstrap_code_creates_the_first_admin_once(capsys, db: Path) -> None:
    code, out, _ = run_cli(capsys, "bootstrap-code", "--db", str(db))
    assert code == 0
    printed = out.strip().splitlines()[-1]
    with Store.open(db) as store:
        token = auth.bootstrap_admin(store, "root", printed)
        assert auth.authenticate(store, "root", token).role == "admin"
    code, _, err = run_cli(capsys, "bootstrap-code", "--db", str(db))
    assert code == 2 and err == "error: this store already has an admin; ask them for an account\n"


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_import_votes_keeps_good_rows_and_names_bad_lines(capsys, db: Path, tmp_path: Path) -> None:
    header = ["HITId", "Input.item_id", "WorkerId", "Answer.label", "WorkTimeInSeconds"]
    batch = _write_csv(tmp_path / "batch.csv", header, [
        ["h1", "1", "W1", "contradiction", "12"],
        ["h1", "1", "W2", "Contradiction", "9"],
        ["h1", "1", "W1", "contradiction", "12"],   # duplicate: skipped
        ["h1", "1", "W1", "neutral", "3"],          # conflicting vote
        ["h2", "999", "W1", "neutral", "3"],        # unknown item
        ["h2", "2", "W3", "maybe", "3"],            # bad label
        ["h2", "two", "W3", "neutral", "3"],        # bad item id
        ["h2", "2", "W3", "neutral", "3", "extra"],  # malformed row
        ["h2", "2", "W3", "neutral", "3"],
    ])
    code, out, err = run_cli(capsys, "import-votes", str(batch), "--db", str(db))
    assert code == 1
    assert out.strip() == "imported 3 votes, skipped 1 duplicates, rejected 5 rows"
    lines = err.strip().splitlines()
    assert [line.split(":")[1] for line in lines] == ["5", "6", "7", "8", "9"]
    assert "conflicting vote 'neutral'" in lines[0] and "unknown item 999" in lines[1]
    assert "unknown label 'maybe'; use one of: entailment" in lines[2] and "not a number" in lines[3]
    assert "wrong number of fields" in lines[4]
    with Store.open(db) as store:
        votes = {(r["name"], r["item_id"], r["label"]) for r in store.db.query(
            "SELECT a.name, j.item_id, j.label FROM judgments j "
            "JOIN annotators a ON a.id = j.annotator_id")}
        assert votes == {("crowd:W1", 1, "contradiction"), ("crowd:W2", 1, "contradiction"),
                         ("crowd:W3", 2, "neutral")}
        # Importing the same file again adds nothing.
        again = import_votes(store, batch)
        assert (again.imported, again.duplicates) == (0, 4)
        # Crowd workers have no token and cannot sign in.
        with pytest.raises(InputError):
            auth.authenticate(store, "crowd:W1", "")


def test_import_refuses_a_file_without_required_columns(capsys, db: Path, tmp_path: Path) -> None:
    bad = _write_csv(tmp_path / "bad.csv", ["item", "who"], [["1", "W1"]])
    code, _, err = run_cli(capsys, "import-votes", str(bad), "--db", str(db))
    assert code == 2
    assert ("missing column(s) item_id or Input.item_id; worker_id or WorkerId; "
            "label or Answer.label (found: item, who)") in err
    code, _, err = run_cli(capsys, "import-votes", str(tmp_path / "none.csv"), "--db", str(db))
    assert code == 2 and "no such vote file" in err


def test_export_csv_and_jsonl(capsys, db: Path, tmp_path: Path) -> None:
    with Store.open(db) as store:
        import_votes(store, _write_csv(tmp_path / "v.csv", ["item_id", "worker_id", "label"], [
            ["1", "a", "contradiction"], ["1", "b", "contradiction"], ["1", "c", "neutral"]]))
    code, out, _ = run_cli(capsys, "export", "--db", str(db), "--format", "jsonl")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["status"] for r in rows] == ["success", "success", "failed"]
    first = rows[0]
    assert first["majority"] == "contradiction" and first["state"] == "resolved"
    assert first["vote_counts"] == {"entailment": 0, "neutral": 1, "contradiction": 2}
    assert first["derivation"] == {"edits": [{"token": 4, "relation": "^"}]}
    assert first["adversarial_hypothesis"] == "A man is not playing an instrument 0."
    assert first["original_prediction"] == "entailment" and first["queries"] == 7
    assert rows[1]["state"] == "pending" and rows[2]["votes"] == []
    target = tmp_path / "out.csv"
    code, _, err = run_cli(capsys, "export", "--db", str(db), "--format", "csv", "-o", str(target),
                           "--run", "cli-run")
    assert code == 0 and "wrote 3 attacks" in err
    table = list(csv.DictReader(io.StringIO(target.read_text())))
    assert table[0]["premise"] == "A man is playing guitar number 0."
    assert json.loads(table[0]["votes"])[2] == {"annotator": "crowd:c", "label": "neutral",
                                                "not_fluent": False}
    code, _, err = run_cli(capsys, "export", "--db", str(db), "--run", "nope")
    assert code == 2 and "no run named 'nope'" in err


def test_hvasr_table(capsys, db: Path) -> None:
    code, out, _ = run_cli(capsys, "hvasr", "--by", "setup", "--db", str(db))
    assert code == 0
    # Nothing judged: HVASR is undefined ("-"), not 0, and the coverage says why.
    assert out.splitlines()[2] == "| E2C | 3 | 2 | 0 | 0 | 0.667 | - | - | - | - | - | - |"  # no estimates: no gate
    assert "unjudged attacks count as not validated" in out


def test_module_entry_point_reports_errors_without_traceback(db: Path) -> None:
    bad = subprocess.run([sys.executable, "-m", "annotations", "revoke", "ghost", "--db", str(db)],
                         capture_output=True, text=True, cwd=PROJECT_ROOT)
    assert bad.returncode == 2 and bad.stderr == "error: no active annotator named 'ghost'\n"


def test_reissue_token_for_a_revoked_annotator(capsys, db: Path) -> None:
    code, out, _ = run_cli(capsys, "add-annotator", "bob", "--db", str(db))
    old = out.splitlines()[-1]
    assert run_cli(capsys, "revoke", "bob", "--db", str(db))[0] == 0
    code, out, _ = run_cli(capsys, "reissue-token", "bob", "--db", str(db))
    assert code == 0 and "shown only once" in out
    new = out.splitlines()[-1]
    with Store.open(db) as store:
        assert auth.authenticate(store, "bob", new).name == "bob"
        with pytest.raises(auth.AuthError):
            auth.authenticate(store, "bob", old)
    code, _, err = run_cli(capsys, "reissue-token", "nobody", "--db", str(db))
    assert code == 2 and err.strip() == "error: no annotator named 'nobody'"


def test_report_writes_the_paper_table_as_latex(capsys, db: Path, tmp_path: Path) -> None:
    target = tmp_path / "table.tex"
    code, out, _ = run_cli(capsys, "report", "--db", str(db), "--latex", str(target))
    assert code == 0 and f"wrote the paper table to {target}" in out
    latex = target.read_text(encoding="utf-8")
    assert latex.startswith(r"\begin{tabular}") and "\nE2C & 0.667 & -- & -- &" in latex


def test_vote_files_that_are_not_utf8_import_nothing(capsys, db: Path, tmp_path: Path) -> None:
    votes = tmp_path / "votes.csv"
    votes.write_bytes("item_id,worker_id,label\n1,a,neutral\n1,b,neutral\n1,zoë,neutral\n".encode("latin-1"))
    code, _, err = run_cli(capsys, "import-votes", str(votes), "--db", str(db))
    assert code == 2 and err.strip() == f"error: {votes}: not UTF-8 text (line 4 has byte 0xeb); save the file as UTF-8"
    with Store.open(db) as store:
        assert next(store.db.query("SELECT COUNT(*) AS n FROM judgments"))["n"] == 0  # none half-imported
