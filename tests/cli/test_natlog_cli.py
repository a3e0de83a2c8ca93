"""`python -m engine polarize` and `polarity-eval` through the real CLI entry point."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.core.settings import PROJECT_ROOT


def test_polarize_prints_arrows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["polarize", "Every dog sees some cat"]) == 0
    assert capsys.readouterr().out.strip() == "Every↑ dog↓ sees↑ some↑ cat↑"


def test_polarize_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["polarize", "No dog barks", "--json", "--pretokenized"]) == 0
    data = json.loads(capsys.readouterr().out)
    dog = data["tokens"][1]
    assert dog["polarity"] == "↓" and dog["triggers"] == ["no"]
    assert list(dog["projection"]) == ["≡", "⊏", "⊐", "^", "|", "‿", "#"]
    assert dog["projection"]["^"] == "|"


def test_polarity_eval_reports_wrong_sentences_and_accuracy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "gold.txt"
    gold.write_text("Every↑ dog↓ sees↑ some↑ cat↑\n\nNo↑ dog↑ barks↓\n", encoding="utf-8")
    assert main(["polarity-eval", str(gold)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1] == "token_accuracy=0.875 sentence_accuracy=0.500"
    assert "  gold: No↑ dog↑ barks↓" in out and "  pred: No↑ dog↓ barks↓" in out
    assert not any("Every" in line for line in out)


@pytest.mark.parametrize("content, message", [
    ("Every↑ dog sees↑\n", "line 1: token 'dog' does not end"),
    ("\n\n", "has no gold sentences"),
])
def test_polarity_eval_bad_files_give_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               content: str, message: str) -> None:
    gold = tmp_path / "gold.txt"
    gold.write_text(content, encoding="utf-8")
    assert main(["polarity-eval", str(gold)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_missing_file_and_empty_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["polarity-eval", str(tmp_path / "nope.txt")]) == 2
    assert "gold file not found" in capsys.readouterr().err
    assert main(["polarize", "   "]) == 2
    assert "empty" in capsys.readouterr().err


def test_module_entry_point_on_shared_gold(shared_data: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "engine", "polarity-eval", str(shared_data / "polarity_gold_dev.txt")],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr
    last = run.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"token_accuracy=\d\.\d{3} sentence_accuracy=\d\.\d{3}", last)
