"""The Streamlit app run headless with AppTest: navigation and the inspector page."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from engine.settings import PROJECT_ROOT

MAIN = str(PROJECT_ROOT / "app" / "main.py")


def submit(at: AppTest, text: str) -> AppTest:
    at.text_input[0].set_value(text)
    at.button[0].click()
    return at.run()


def test_inspector_parses_default_sentence() -> None:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    assert not at.exception
    assert at.title[0].value == "Parse & polarity inspector"
    table = at.dataframe[0].value
    assert list(table["text"]) == ["The", "dog", "did", "not", "bark", "at", "every", "cat"]
    assert table.loc[4, "deprel"] == "advmod"


def test_inspector_shows_errors_and_keeps_running() -> None:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    submit(at, "It rained. It poured.")
    assert "expected one sentence" in at.error[0].value
    submit(at, "")
    assert "empty" in at.error[0].value
    submit(at, "Some cats sleep")
    assert not at.error and not at.exception
    assert list(at.dataframe[0].value["text"]) == ["Some", "cats", "sleep"]
