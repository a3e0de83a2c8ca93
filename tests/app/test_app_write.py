"""The Write page through Streamlit's AppTest on a real store file: an author edits H into H*, sees the
victim's probabilities, the word diff and natural logic's verdict, and submits H* to the blind study."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from annotations import Store, auth
from engine.core.settings import PROJECT_ROOT, get_settings
from tests.tiny_models import build_tiny_classifier

WRITE = str(PROJECT_ROOT / "pages" / "write.py")
P = "A man is playing a guitar on stage."
H = "A man is playing an instrument."


@pytest.fixture()
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "write.sqlite"
    monkeypatch.setenv("NATLOG_DB_PATH", str(path))
    monkeypatch.setenv("NATLOG_ANNOTATIONS_GOLD_PERCENT", "0")
    get_settings.cache_clear()
    st.cache_resource.clear()
    yield path
    get_settings.cache_clear()
    st.cache_resource.clear()


def victim_folder(tmp_path: Path) -> Path:
    """A tiny classifier whose answers depend on the text (it answers contradiction to these pairs)."""
    return build_tiny_classifier(tmp_path / "victim", bias=(0.0, 2.5, 0.0), initializer_range=0.5)


def signed_in(name: str, token: str) -> AppTest:
    app = AppTest.from_file(WRITE, default_timeout=120).run()
    app.text_input[0].input(name)
    app.text_input[1].input(token)
    return app.button[0].click().run()


def type_hstar(app: AppTest, text: str) -> AppTest:
    """What the editor sends after a pause in typing (its callback sets this state)."""
    app.session_state["write_hstar"] = text
    return app.run()


def test_an_author_edits_sees_the_verdict_and_submits(db: Path, tmp_path: Path) -> None:
    with Store.open(db) as store:
        tokens = {"wendy": auth.add_annotator(store, "wendy", "author"),
                  "ann": auth.add_annotator(store, "ann", "annotator")}
    refused = signed_in("ann", tokens["ann"])
    assert any("Only authors and admins" in e.value for e in refused.error)

    app = signed_in("wendy", tokens["wendy"])
    assert not app.exception
    app.radio(key="write_pair_source").set_value("Type a pair").run()
    app.text_area(key="write_premise").input(P)
    app.text_input(key="write_hypothesis").input(H)
    app.text_input(key="write_victim").input(str(victim_folder(tmp_path))).run()
    assert not app.exception
    assert [i.value for i in app.info] == ["H\\* is H unchanged\\: edit it first"]  # the editor starts at H
    assert [o for o in app.selectbox(key="write_setup").options][0].startswith("entailment (E2E")

    app = type_hstar(app, "A person is playing an instrument.")
    assert not app.exception
    verdicts = [s.value for s in app.success]
    assert any(v.startswith("(P, H\\*) is **entailment**, as you intend.") for v in verdicts)
    assert any("⊏" in m.value and "man" in m.value and "person" in m.value for m in app.markdown)  # the derivation
    diff = " ".join(h.proto.body for h in app.get("html"))
    assert "<del" in diff and ">man</del>" in diff and ">person</ins>" in diff
    metric = app.metric[0]
    assert metric.label == "P(entailment)" and metric.value != "" and "from H" in metric.proto.delta
    fooled = any("The victim is fooled" in s for s in verdicts)
    assert fooled != any("not fooled" in w.value for w in app.warning)
    assert any(c.value == "1 distinct H* asked (queries spent on this pair)." for c in app.caption)

    # bad input: one line each, nothing asked
    for text, message in (("   ", "H\\* is empty"), ("x" * 601, "H\\* has 601 characters")):
        app = type_hstar(app, text)
        assert any(i.value.startswith(message) for i in app.info) and not app.exception
    # markup typed into H* is text: escaped in the diff, the verdict and the tries table
    app = type_hstar(app, "A <b>person</b> is playing an instrument.")
    diff = " ".join(h.proto.body for h in app.get("html"))
    assert "&lt;b&gt;person&lt;/b&gt;" in diff and "<b>person" not in diff
    assert any(c.value == "2 distinct H* asked (queries spent on this pair)." for c in app.caption)

    app = type_hstar(app, "A person is playing an instrument.")
    app.button(key="write-submit").click().run()
    assert not app.exception
    assert any("Submitted" in s.value for s in app.success) == fooled
    with Store.open(db) as store:
        (run,) = store.runs()
        (attack,) = store.attacks()
    assert run.system == "human:wendy" and run.setup == "E2E" and run.data_path == "typed pairs"
    assert attack.record.adversarial_hypothesis == "A person is playing an instrument."
    assert attack.record.queries == 2 and attack.record.trace["verdict"]["label"] == "entailment"
    assert attack.record.started_at < attack.record.finished_at  # from the first look at the pair to the submission
    assert (attack.item_id is not None) == fooled == (attack.record.status == "success")


def test_a_suggestion_goes_into_the_editor(db: Path, tmp_path: Path) -> None:
    """The engine's candidates for the current H* are one click from the editor."""
    with Store.open(db) as store:
        token = auth.add_annotator(store, "wendy", "author")
    app = signed_in("wendy", token)
    app.radio(key="write_pair_source").set_value("Type a pair").run()
    app.text_area(key="write_premise").input(P)
    app.text_input(key="write_hypothesis").input(H)
    app.text_input(key="write_victim").input(str(victim_folder(tmp_path))).run()
    app = type_hstar(app, "A person is playing an instrument.")
    app.toggle(key="write_suggest").set_value(True).run()
    assert not app.exception
    suggestions = [b for b in app.button if b.key and b.key.startswith("write-suggestion-")]
    assert suggestions, [c.value for c in app.caption]
    version = app.session_state["write_work"]["version"]
    suggestions[0].click().run()
    assert app.session_state["write_hstar"] != "A person is playing an instrument."
    assert app.session_state["write_work"]["version"] == version + 1  # the editor shows the new text
    assert any(c.value == "2 distinct H* asked (queries spent on this pair)." for c in app.caption)


def test_results_show_an_author_beside_natlog(db: Path, settings) -> None:
    """An author's run is a system on Results (runs table and the paper table's blocks), and the
    authors' table gives their verified model error rate and how often the verdict agreed with the
    study: one fooling H* validated as natural, one judged another label than intended."""
    from annotations.access import sign_in
    from annotations.assignment import submit
    from tests.annotations.test_annotations_store import make_record, start
    from tests.annotations.test_authors import submission

    results = str(PROJECT_ROOT / "pages" / "results.py")
    with Store.open(db) as store:
        admin_token = auth.add_annotator(store, "root", "admin")
        wendy = sign_in(store, "wendy", auth.add_annotator(store, "wendy", "author"))
        natlog = start(store, "nl", setup="E2E")
        store.record_attack(natlog, make_record(0, target="entailment", adversarial_prediction="neutral",
                                                hypothesis=H, premise=P))
        for hstar in ("A person is playing an instrument.", "A man is playing a guitar."):
            wendy.submit_attack(*submission(settings, "wendy", hstar))  # type: ignore[attr-defined]
        for name in "ABC":
            auth.add_annotator(store, name)
        voters = [row["id"] for row in store.db.query("SELECT id FROM annotators WHERE name IN ('A', 'B', 'C')")]
        for attack in store.attacks():
            labels = {"A man is playing a guitar.": "neutral"}.get(attack.record.adversarial_hypothesis, "entailment")
            for voter in voters:
                submit(store, voter, attack.item_id, labels, "ok", source="import")
    app = AppTest.from_file(results, default_timeout=120).run()
    app.text_input[0].input("root")
    app.text_input[1].input(admin_token)
    app = app.button[0].click().run()
    assert not app.exception and not app.error
    runs = app.dataframe[0].value
    assert set(runs["system"]) == {"NatLog", "human:wendy"}
    pivot = next(f.value for f in app.dataframe if f.value.index.name == "setup")
    assert [b[0] for b in dict.fromkeys(c[:-1] for c in pivot.columns)] == ["NatLog", "human:wendy"]
    authors = next(f.value for f in app.dataframe if f.value.index.name == "author")
    row = authors.loc["wendy"]
    assert (row["submitted"], row["fooled"], row["judged"], row["verified"]) == (2, 2, 2, 1)
    assert row["verified_rate"] == "0.500" and row["natural_rate"] == "0.500"
    # the verdict: entailment for man -> person (agrees), cannot tell for instrument -> guitar (the
    # verifier's WordNet senses of the two do not meet): one committed, and it agreed
    assert row["verdict_committed"] == 1 and row["verdict_agreement"] == "1.000"
