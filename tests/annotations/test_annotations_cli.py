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
    assert code == 2 and err == "error: an annotator named 'alice' already exists (names ignore case)\n"
    code, _, err = run_cli(capsys, "add-annotator", "ALICE", "--db", str(db))  # one person to every reader
    assert code == 2 and err == "error: an annotator named 'alice' already exists (names ignore case)\n"
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
    assert json.loads(table[0]["votes"])[2] == {"annotator": "crowd:c", "label": "neutral", "fluency": "ok",
                                                "not_fluent": False}
    assert json.loads(table[0]["fluency_votes"]) == {"ok": 3, "odd": 0, "broken": 0}
    code, _, err = run_cli(capsys, "export", "--db", str(db), "--run", "nope")
    assert code == 2 and "no run named 'nope'" in err


def test_hvasr_table(capsys, db: Path) -> None:
    code, out, _ = run_cli(capsys, "hvasr", "--by", "setup", "--db", str(db))
    assert code == 0
    # Nothing judged: HVASR is undefined ("-"), not 0, and the coverage says why.
    # attacked, successful, judged, valid, valid fluent, valid natural, ASR, coverage, the three HVASR readings...
    assert out.splitlines()[2] == "| E2C | 3 | 2 | 0 | 0 | 0 | 0 | 0.667 | - | - | - | - | - | - | - |"  # no gate
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


def test_import_takes_a_fluency_column_and_the_old_not_fluent_flag(capsys, db: Path, tmp_path: Path) -> None:
    """A ``fluency`` column (ok, odd, broken; MTurk's Answer.fluency too) is stored as it is; the older
    yes/no not_fluent reads yes as broken and no as ok; a bad level or a disagreeing pair is rejected."""
    levels = _write_csv(tmp_path / "levels.csv", ["Input.item_id", "WorkerId", "Answer.label", "Answer.fluency"], [
        ["1", "W1", "contradiction", "odd"],
        ["1", "W2", "contradiction", "Broken"],
        ["1", "W3", "neutral", ""],          # no level: ok
        ["2", "W1", "neutral", "meh"],       # rejected
    ])
    code, out, err = run_cli(capsys, "import-votes", str(levels), "--db", str(db))
    assert code == 1 and out.strip() == "imported 3 votes, skipped 0 duplicates, rejected 1 rows"
    assert "unknown fluency 'meh'; use one of: ok, odd, broken" in err
    flags = _write_csv(tmp_path / "flags.csv", ["item_id", "worker_id", "label", "not_fluent", "fluency"], [
        ["2", "old1", "neutral", "yes", ""],
        ["2", "old2", "neutral", "no", ""],
        ["2", "old3", "neutral", "yes", "broken"],  # both, agreeing
        ["2", "old4", "neutral", "yes", "ok"],      # both, disagreeing: rejected
        ["2", "old5", "neutral", "maybe", ""],      # rejected
    ])
    code, out, err = run_cli(capsys, "import-votes", str(flags), "--db", str(db), "--source", "old")
    assert code == 1 and out.strip() == "imported 3 votes, skipped 0 duplicates, rejected 2 rows"
    assert "fluency 'ok' contradicts not_fluent=True" in err and "not-fluent flag 'maybe' is not yes/no" in err
    with Store.open(db) as store:
        stored = {row["name"]: (row["fluency"], row["not_fluent"]) for row in store.db.query(
            "SELECT a.name, j.fluency, j.not_fluent FROM judgments j JOIN annotators a ON a.id = j.annotator_id")}
    assert stored == {"crowd:W1": ("odd", 0), "crowd:W2": ("broken", 1), "crowd:W3": ("ok", 0),
                      "old:old1": ("broken", 1), "old:old2": ("ok", 0), "old:old3": ("broken", 1)}
    code, out, _ = run_cli(capsys, "export", "--db", str(db), "--format", "jsonl")
    first = json.loads(out.splitlines()[0])
    assert [(v["annotator"], v["fluency"]) for v in first["votes"]] == [
        ("crowd:W1", "odd"), ("crowd:W2", "broken"), ("crowd:W3", "ok")]
    assert first["fluency_votes"] == {"ok": 1, "odd": 1, "broken": 1} and first["not_fluent_votes"] == 1


def test_report_carries_the_natural_reading_into_its_text_csv_and_latex(capsys, db: Path, tmp_path: Path) -> None:
    """Item 1 (the first attack) judged contradiction, the target, by three, two of them ok: valid and
    natural; item 3 (the second attack; 2 is the first one's gold pair) valid but broken. Attacked 3:
    HVASR 2/3, label and not broken 1/3, label and natural 1/3."""
    votes = _write_csv(tmp_path / "v.csv", ["item_id", "worker_id", "label", "fluency"], [
        ["1", "a", "contradiction", "ok"], ["1", "b", "contradiction", "ok"], ["1", "c", "contradiction", "odd"],
        ["3", "a", "contradiction", "broken"], ["3", "b", "contradiction", "broken"],
        ["3", "c", "contradiction", "ok"]])
    assert run_cli(capsys, "import-votes", str(votes), "--db", str(db))[0] == 0
    latex, paper, runs = tmp_path / "t.tex", tmp_path / "paper.csv", tmp_path / "runs.csv"
    code, out, _ = run_cli(capsys, "report", "--db", str(db), "--latex", str(latex), "--paper-csv", str(paper),
                           "--csv", str(runs))
    assert code == 0 and "HVASR+N = label and natural" in out
    assert "| E2C | 0.667 | 0.667 | 0.333 | 0.333 | 1.000 |" in out  # ASR, HVASR, +E, +N, judged
    tex = latex.read_text(encoding="utf-8")
    assert "setup & ASR & HVASR & HVASR+E & HVASR+N & judged & QN" in tex
    assert "\nE2C & 0.667 & 0.667 & 0.333 & 0.333 & 1.000 &" in tex
    table = list(csv.reader(paper.open(encoding="utf-8")))  # system, victim, data, measure headers, then setups
    assert table[-1][0] == "E2C" and table[-1][table[3].index("hvasr_natural")] == "0.333"  # rounded as printed
    (run,) = list(csv.DictReader(runs.open(encoding="utf-8")))
    assert float(run["hvasr_natural"]) == pytest.approx(1 / 3) and float(run["hvasr_fluent"]) == pytest.approx(1 / 3)
    (operator,) = list(csv.DictReader(runs.with_name("runs-operator.csv").open(encoding="utf-8")))
    assert (operator["value"], float(operator["valid_share"]), float(operator["natural_share"])) == (
        "negation", 1.0, 0.5)


def test_csv_export_opens_as_text_in_a_spreadsheet(capsys, tmp_path: Path) -> None:
    """Cells that start like a formula (=, +, -, @) are prefixed with an apostrophe in CSV; pandas
    reads them as text and numbers stay numbers; the JSON Lines export keeps the text exact."""
    import pandas as pd

    formula = '=HYPERLINK("http://evil.example","click")'
    path = tmp_path / "formula.sqlite"
    with Store.open(path) as store:
        run_id = start(store, "+cmd|' /C calc'!A0")
        store.record_attack(run_id, make_record(0, premise="@SUM(1+1)", adversarial_hypothesis=formula))
    target = tmp_path / "out.csv"
    assert run_cli(capsys, "export", "--db", str(path), "--format", "csv", "-o", str(target))[0] == 0
    table = pd.read_csv(target)
    assert table.loc[0, "adversarial_hypothesis"] == "'" + formula
    assert table.loc[0, "premise"] == "'@SUM(1+1)" and table.loc[0, "run"] == "'+cmd|' /C calc'!A0"
    cells = [c for row in csv.reader(io.StringIO(target.read_text())) for c in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert table.loc[0, "queries"] == 7  # a number, not text
    code, out, _ = run_cli(capsys, "export", "--db", str(path), "--format", "jsonl")
    assert json.loads(out.splitlines()[0])["adversarial_hypothesis"] == formula
