"""The annotate and admin pages, driven through Streamlit's AppTest on a real store file."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from annotations import Store, auth
from annotations.auth import SIGN_IN_FAILED
from annotations.crowd_import import import_votes
from app.auth import signin_link
from app.text import md_escape
from engine.core.settings import PROJECT_ROOT, get_settings
from tests.annotations.test_annotations_store import make_record, start

ANNOTATE = str(PROJECT_ROOT / "pages" / "annotate.py")
ADMIN = str(PROJECT_ROOT / "pages" / "admin.py")


@pytest.fixture()
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Point the app's settings at a fresh store file holding one attack item."""
    path = tmp_path / "app.sqlite"
    monkeypatch.setenv("NATLOG_DB_PATH", str(path))
    monkeypatch.setenv("NATLOG_ANNOTATIONS_GOLD_PERCENT", "0")
    get_settings.cache_clear()
    st.cache_resource.clear()
    with Store.open(path, get_settings()) as store:
        store.record_attack(start(store), make_record(0))
    yield path
    get_settings.cache_clear()
    st.cache_resource.clear()


def sign_in(app: AppTest, name: str, token: str) -> AppTest:
    app.text_input[0].input(name)
    app.text_input[1].input(token)
    return app.button[0].click().run()


def test_annotator_signs_in_judges_blind_and_is_thanked(db: Path) -> None:
    with Store.open(db) as store:
        token = auth.add_annotator(store, "alice")
    app = AppTest.from_file(ANNOTATE, default_timeout=30).run()
    assert not app.exception
    sign_in(app, "alice", token + "x")
    assert [e.value for e in app.error] == [md_escape(SIGN_IN_FAILED)]
    sign_in(app, "bob", token)
    assert [e.value for e in app.error] == [md_escape(SIGN_IN_FAILED)]
    sign_in(app, "alice", token)
    assert app.expander[0].label == "How to judge (read this first)"  # the guideline comes first
    shown = " ".join(m.value for m in app.markdown)
    assert "**Entailment (1)**" in shown
    # The pair itself is drawn as exact HTML (st.html: no markdown reads it).
    pair = [h.proto.body for h in app.get("html")]
    assert any(">A man is not playing an instrument 0.</p>" in body for body in pair)
    assert any(">A man is playing guitar number 0.</p>" in body for body in pair)
    shown += " ".join(pair)
    assert "target" not in shown.lower() and "predict" not in shown.lower()
    labels = [b.label for b in app.button]
    assert {"Entailment (1)", "Neutral (2)", "Contradiction (3)", "OK (q)", "Odd (w)", "Broken (e)"} <= set(labels)
    # Fluency keys q / w / e, and no widget key names the item (a key would tell items apart).
    fluency = [b for b in app.button if b.key and b.key.startswith("fluency-")]
    assert {b.key for b in fluency} == {"fluency-ok", "fluency-odd", "fluency-broken"}
    assert {b.proto.shortcut.lower() for b in fluency} == {"q", "w", "e"}
    assert any("How the hypothesis reads: **OK**" in c.value for c in app.caption)  # ok unless changed
    app.button(key="fluency-broken").click().run()
    app.button(key="fluency-odd").click().run()  # the last choice counts
    assert any("How the hypothesis reads: **Odd**" in c.value for c in app.caption)
    assert app.button(key="fluency-odd").proto.icon == ":material/radio_button_checked:"
    assert app.button(key="fluency-ok").proto.icon == ":material/radio_button_unchecked:"
    next(b for b in app.button if b.label == "Contradiction (3)").click().run()
    assert not app.exception
    assert any("Thank you" in s.value for s in app.success)
    with Store.open(db) as store:
        row = next(store.db.query("SELECT label, fluency, not_fluent, seconds FROM judgments"))
    assert (row["label"], row["fluency"], row["not_fluent"]) == ("contradiction", "odd", 0) and row["seconds"] >= 0


def test_admin_bootstrap_then_manage_annotators(db: Path) -> None:
    app = AppTest.from_file(ADMIN, default_timeout=30).run()
    assert "no admin yet" in app.info[0].value and "bootstrap code" in app.info[0].value
    app.text_input[0].input("root")
    app.button[0].click().run()  # no code: refused, nobody is admin
    assert "bootstrap code is wrong" in app.error[0].value and not app.code
    with Store.open(db) as store:
        assert not auth.has_admin(store)
        code = auth.issue_bootstrap_code(store)  # what the server prints on its console
    app.text_input[1].input(code)
    app.button[0].click().run()
    assert not app.info or "no admin yet" not in app.info[0].value  # the first-run form is gone
    token = app.code[-1].value
    assert len(token) >= 32
    # The new admin is signed in at once: the admin page is there, no form to sign in first.
    assert not app.exception and [t.label for t in app.tabs][:1] == ["Annotators"]
    assert not app.query_params  # no secret in the address bar: the session is a cookie
    votes = db.with_name("votes.csv")
    votes.write_text("item_id,worker_id,label\n1,a,contradiction\n1,b,contradiction\n1,c,neutral\n")
    with Store.open(db) as store:
        assert import_votes(store, votes).imported == 3
    app = AppTest.from_file(ADMIN, default_timeout=30).run()
    sign_in(app, "root", token)
    assert not app.exception and not app.error
    assert len(app.get("plotly_chart")) == 1  # agreement chart
    assert [m.value for m in app.metric][:4] == ["1", "0", "0", "1"]  # items, pending, tie, resolved
    assert [t.label for t in app.tabs] == ["Annotators", "Progress", "Agreement", "HVASR", "Export"]
    app.text_input[0].input("alice")
    app.button(key="FormSubmitter:add-annotator-Add annotator").click().run()
    assert "/annotate?signin=" in app.code[0].value  # relative here: AppTest has no page URL
    new_token = app.code[-1].value
    with Store.open(db) as store:
        assert auth.authenticate(store, "alice", new_token).role == "annotator"
    # A refused name comes back in one line, shown as text (no live image).
    app.text_input[0].input("![x](http://127.0.0.1/x.png)")
    app.button(key="FormSubmitter:add-annotator-Add annotator").click().run()
    assert "must be 1" in app.error[0].value and "![x](" not in app.error[0].value
    assert r"\!\[x\]\(http" in app.error[0].value
    # A new token for alice: the old one stops signing in.
    reissue = next(s for s in app.selectbox if s.label == "Issue a new token for")
    reissue.set_value("alice")
    app.button(key="FormSubmitter:reissue-Issue new token").click().run()
    assert any("New token (the old link and token no longer work) for" in s.value for s in app.success)
    reissued = app.code[-1].value
    with Store.open(db) as store:
        assert auth.authenticate(store, "alice", reissued).name == "alice"
        with pytest.raises(auth.AuthError):
            auth.authenticate(store, "alice", new_token)
    new_token = reissued
    # An annotator is refused on the admin page.
    app = AppTest.from_file(ADMIN, default_timeout=30).run()
    sign_in(app, "alice", new_token)
    assert [e.value for e in app.error] == ["Only admins may open this page."]


def test_annotators_see_only_public_pages_and_their_queue(db: Path) -> None:
    with Store.open(db) as store:
        token = auth.add_annotator(store, "carol")
    app = AppTest.from_file(str(PROJECT_ROOT / "app" / "main.py"), default_timeout=60)
    app.run()
    app.switch_page(ANNOTATE)
    app.run()
    sign_in(app, "carol", token)
    assert not app.exception
    app.run()
    # The admin pages are not registered in an annotator's navigation at all.
    for page in ("attack.py", "results.py", "admin.py"):
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            app.switch_page(str(PROJECT_ROOT / "pages" / page))
    app.switch_page(str(PROJECT_ROOT / "pages" / "inspector.py")).run()
    assert app.title[0].value == "Parse & polarity inspector"


def test_unjudged_hvasr_reads_the_same_on_admin_and_results(db: Path) -> None:
    """An unjudged run shows HVASR "—" (not 0, not None) on both pages, with the same columns, and
    the admin is warned that k judgments cannot come from the annotators there are."""
    with Store.open(db) as store:
        token = auth.add_annotator(store, "root", role="admin")
        auth.add_annotator(store, "alice")
    admin = sign_in(AppTest.from_file(ADMIN, default_timeout=30).run(), "root", token)
    assert not admin.exception
    assert any("needs 3 judgments but only 1 annotator(s) are active" in w.value for w in admin.warning)
    shown = admin.dataframe[-1].value
    assert list(shown["hvasr"]) == ["—"] and list(shown["hvasr_judged"]) == ["—"]
    # The three readings side by side: label, label and not broken, label and natural.
    columns = list(shown.columns)
    assert columns[columns.index("hvasr"):columns.index("hvasr") + 3] == ["hvasr", "hvasr_fluent", "hvasr_natural"]
    assert list(shown["hvasr_natural"]) == ["—"]
    assert list(shown["coverage"]) == ["—"] and list(shown["asr"]) == ["1.000"]
    results = sign_in(AppTest.from_file(str(PROJECT_ROOT / "pages" / "results.py"), default_timeout=30).run(),
                      "root", token)
    assert not results.exception
    runs = results.dataframe[0].value
    assert list(runs["hvasr"]) == ["—"] and list(runs["asr"]) == ["1.000"] and list(runs["coverage"]) == ["—"]


def test_votes_can_be_undone_and_sign_out_ends_the_session_everywhere(db: Path) -> None:
    """Votes, undo and skip work; the Admin page's sign-in link names the Annotate page of this
    server; Sign out brings the form back and ends the person's session in every other tab too, at
    its next key press; a re-issued token ends an open session the same way."""
    with Store.open(db) as store:
        token = auth.add_annotator(store, "alice")
        alice = next(a.id for a in auth.annotators(store) if a.name == "alice")
        run = store.runs()[0].id
        store.record_attack(run, make_record(1))
    link = signin_link(alice, token, "http://127.0.0.1:8501/admin")
    assert link == f"http://127.0.0.1:8501/annotate?signin={alice}.{token}"
    app = sign_in(AppTest.from_file(ANNOTATE, default_timeout=30).run(), "alice", token)
    other_tab = sign_in(AppTest.from_file(ANNOTATE, default_timeout=30).run(), "alice", token)
    assert not app.exception and not [t for t in app.text_input if t.label == "Access token"]
    assert "0 judged · 2 left" in app.get("progress")[0].proto.text
    app.text_input(key=next(t.key for t in app.text_input if t.label == "Comment (optional)")).input("hard one")
    app.button(key="fluency-broken").click().run()
    next(b for b in app.button if b.label == "Neutral (2)").click().run()
    assert "1 judged · 1 left" in app.get("progress")[0].proto.text
    assert any("How the hypothesis reads: **OK**" in c.value for c in app.caption)  # the next pair starts at ok
    with Store.open(db) as store:
        assert next(store.db.query("SELECT label, comment, fluency, not_fluent FROM judgments")) == {
            "label": "neutral", "comment": "hard one", "fluency": "broken", "not_fluent": 1}
    next(b for b in app.button if b.label == "Undo my last vote").click().run()
    assert not app.exception and "0 judged · 2 left" in app.get("progress")[0].proto.text
    next(b for b in app.button if b.label == "Skip this pair").click().run()
    assert "0 judged · 1 left" in app.get("progress")[0].proto.text
    app.button(key="sign-out").click().run()
    assert [t for t in app.text_input if t.label == "Access token"]  # the form again
    assert not app.error  # this tab's own sign-out is no error
    # The other tab, still showing a pair, is signed out at its next key press: no vote is stored.
    next(b for b in other_tab.button if b.label == "Contradiction (3)").click().run()
    assert any("expired or was revoked" in e.value for e in other_tab.error)
    assert [t for t in other_tab.text_input if t.label == "Access token"]
    # A re-issued token ends an open session the same way.
    app = sign_in(app, "alice", token)
    with Store.open(db) as store:
        auth.reissue_token(store, "alice")
    next(b for b in app.button if b.label == "Contradiction (3)").click().run()
    assert any("expired or was revoked" in e.value for e in app.error)
    with Store.open(db) as store:
        assert next(store.db.query("SELECT COUNT(*) AS n FROM judgments"))["n"] == 0


def test_first_run_and_empty_states_say_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh store: admin-only pages point to the Admin page's bootstrap; an annotator with nothing
    to judge is told so (no 'thank you' under an empty progress bar); the Admin page says when k
    exceeds the active annotators and which items still miss votes."""
    path = tmp_path / "fresh.sqlite"
    monkeypatch.setenv("NATLOG_DB_PATH", str(path))
    get_settings.cache_clear()
    st.cache_resource.clear()
    try:
        results = AppTest.from_file(str(PROJECT_ROOT / "pages" / "results.py"), default_timeout=30).run()
        assert "no admin yet" in results.info[0].value and "bootstrap code" in results.info[0].value
        with Store.open(path, get_settings()) as store:
            admin_token = auth.add_annotator(store, "root", "admin")
            token = auth.add_annotator(store, "alice")
        app = sign_in(AppTest.from_file(ANNOTATE, default_timeout=30).run(), "alice", token)
        assert not app.exception and "Nothing to judge yet" in app.info[0].value
        assert not app.success and not app.get("progress")
        with Store.open(path, get_settings()) as store:
            store.record_attack(start(store), make_record(0))
        admin = sign_in(AppTest.from_file(ADMIN, default_timeout=30).run(), "root", admin_token)
        warning = admin.warning[0].value
        assert "needs 3 judgments but only 1 annotator" in warning and "sign-in link" in warning
        waiting = next(f.value for f in admin.dataframe if "missing" in f.value.columns)
        assert waiting["missing"].tolist() == [3] and waiting["state"].tolist() == ["pending"]
        assert any("No votes yet" in i.value for i in admin.info)
        # k that fits: 3 is refused with one annotator, 1 is taken and the warning goes.
        admin.number_input(key=next(n.key for n in admin.number_input if n.label == "Judgments per item (k)")).set_value(5)
        admin.button(key="FormSubmitter:study-k-Set k").click().run()
        assert any("needs at least 5 active annotators and the study has 1" in e.value for e in admin.error)
        admin.number_input(key=next(n.key for n in admin.number_input if n.label == "Judgments per item (k)")).set_value(1)
        admin.button(key="FormSubmitter:study-k-Set k").click().run()
        assert not admin.exception and not admin.warning
        with Store.open(path, get_settings()) as store:
            assert store.k == 1
    finally:
        get_settings.cache_clear()
        st.cache_resource.clear()


def test_a_name_with_markdown_shows_as_written(db: Path) -> None:
    with Store.open(db) as store:
        token = auth.add_annotator(store, "_em_")
    app = sign_in(AppTest.from_file(ANNOTATE, default_timeout=30).run(), "_em_", token)
    assert not app.exception
    assert any("`_em_`" in c.value for c in app.caption)  # a code span: shown as typed, nothing added
