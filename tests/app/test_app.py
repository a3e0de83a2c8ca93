"""The Streamlit app run headless with AppTest: navigation and the polarity inspector."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from engine.core.settings import PROJECT_ROOT

MAIN = str(PROJECT_ROOT / "app" / "main.py")


def submit(at: AppTest, text: str) -> AppTest:
    at.text_input[0].set_value(text)
    at.button[0].click()
    return at.run()


def parse_table(at: AppTest):
    """The token table of the Dependency parse tab (the one with a ``deprel`` column)."""
    return next(frame.value for frame in at.dataframe if "deprel" in frame.value.columns)


def markdown_text(at: AppTest) -> str:
    """The page's markdown and the HTML it shows with st.html (the widgets' HTML: no markdown reads it)."""
    return "\n".join([*(m.value for m in at.markdown), *(h.proto.body for h in at.get("html"))])


def test_inspector_marks_polarity_and_projection() -> None:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    assert not at.exception
    assert at.title[0].value == "Parse & polarity inspector"
    submit(at, "Every dog sees some cat")
    html = markdown_text(at)
    # dog is in the restrictor of "every": downward; cat under "some" in the body: upward.
    assert "dog<sup style='color:#c92a2a;font-weight:700'>↓" in html
    assert "cat<sup style='color:#2b8a3e;font-weight:700'>↑" in html
    projection = at.dataframe[0].value
    assert list(projection["token"]) == ["Every", "dog", "sees", "some", "cat"]
    assert projection.loc[2, "⊏ forward"] == "⊐"   # a hyponym edit under "every" is weaker: ⊐ flips
    assert projection.loc[5, "⊏ forward"] == "⊏"
    assert parse_table(at).loc[2, "deprel"] == "nsubj"


def test_allowed_edits_follow_the_chosen_setup() -> None:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    submit(at, "No dog barked")
    allowed = at.dataframe[1].value
    # E2E (default): under "no", only a reverse (hyponym) edit of "dog" keeps entailment.
    assert "⊐ reverse" in allowed.loc[2, "allowed local relations"]
    assert "⊏ forward" not in allowed.loc[2, "allowed local relations"]
    next(s for s in at.selectbox if s.label == "Setup").set_value("E2C").run()
    allowed = at.dataframe[1].value
    assert "| alternation" in allowed.loc[3, "allowed local relations"] or "^ negation" in allowed.loc[3, "allowed local relations"]


def test_inspector_shows_errors_and_keeps_running() -> None:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    submit(at, "It rained. It poured.")
    assert "expected one sentence" in at.error[0].value
    submit(at, "")
    assert "empty" in at.error[0].value
    submit(at, "Some cats sleep")
    assert not at.error and not at.exception
    assert list(parse_table(at)["text"]) == ["Some", "cats", "sleep"]


def test_a_long_paste_is_cut_with_a_note() -> None:
    """5,000 characters pasted into Parse: the first max_chars are parsed and a note says so (the
    paste is never dropped and reported as empty)."""
    app = submit(AppTest.from_file(MAIN, default_timeout=120).run(),
                 "The dog runs " + "and the dog runs " * 300 + ".")
    assert not app.exception
    assert any("only its first" in w.value and "the limit is 600" in w.value for w in app.warning)
    assert not [e for e in app.error if "empty" in e.value]


def test_verifier_panel_derives_a_pair() -> None:
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    assert not at.exception
    # Defaults: "No dog barked" -> "No poodle barked loudly": both edits strengthen, which "no" turns around.
    assert "entailment" in at.success[0].value
    derivation = next(frame.value for frame in at.dataframe if "lexical" in frame.value.columns)
    assert list(derivation["edit"]) == ["substitute", "insert"] and list(derivation["projected"]) == ["⊏", "⊏"]
    def pair(premise: str, hypothesis: str) -> None:
        first, second = (t for t in at.text_input if t.label.startswith(("Premise", "Hypothesis")))
        first.set_value(premise)
        second.set_value(hypothesis)
        at.button[1].click().run()

    pair("Every dog barked", "No dog barked")
    assert "contradiction" in at.success[0].value
    pair("Every dog barked", "")
    assert any(e.value.startswith("hypothesis") and "empty" in e.value for e in at.error) and not at.exception


def test_the_indefinite_reading_is_a_convention_the_inspector_shows() -> None:
    """A caption's negated predicate: neutral (‿) under the strict existential reading of "a dog",
    a contradiction under the scene reading chosen in the inspector."""
    at = AppTest.from_file(MAIN, default_timeout=120).run()
    reading = next(s for s in at.selectbox if s.label == "Reading of an indefinite subject")
    assert reading.value == "existential" and reading.options == ["existential", "scene"]
    first, second = (t for t in at.text_input if t.label.startswith(("Premise", "Hypothesis")))
    first.set_value("A dog is chasing a ball.")
    second.set_value("A dog is not chasing a ball.")
    at.button[1].click().run()
    assert not at.exception and "neutral" in at.success[0].value and "‿" in at.success[0].value
    reading = next(s for s in at.selectbox if s.label == "Reading of an indefinite subject")
    reading.set_value("scene")
    at.button[0].click().run()
    assert not at.exception
    assert any("contradiction" in s.value for s in at.success)
    submit(at, "A dog is chasing a ball")
    assert "a (scene)" in markdown_text(at) + "".join(str(f.value.to_dict()) for f in at.dataframe)
