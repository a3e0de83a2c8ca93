"""Annotate: judge one (premise, hypothesis) pair at a time, blind to the victim and other votes."""

import secrets
import time
from pathlib import Path

import streamlit as st

from annotations.assignment import COMMENT_CHARS
from app.auth import open_store, sign_out_button, signed_in
from app.text import exact_html, md_escape
from engine.api import InputError

GUIDELINE = (Path(__file__).resolve().parent.parent / "docs" / "annotation-guideline.md").read_text(encoding="utf-8")
CHOICES = (("Entailment", "entailment", "1"), ("Neutral", "neutral", "2"),
           ("Contradiction", "contradiction", "3"))
#: How the hypothesis reads, chosen before the label (a label key records both): the keys sit under 1 / 2 / 3.
FLUENCY = (("OK", "ok", "q", "English a native speaker could have written"),
           ("Odd", "odd", "w", "understandable, but not what a native speaker would write"),
           ("Broken", "broken", "e", "ungrammatical or meaningless"))
#: The fluency chosen for the item on screen, as {item id: level}; any other item starts at ok.
FLUENCY_STATE = "natlog_fluency"
#: The random nonce that names the item on screen in widget keys, as {item id: nonce}.
NONCE_STATE = "natlog_item_nonce"

st.title("Annotate")


def choose_fluency(item_id: int, level: str) -> None:
    """Remember the fluency chosen for the item on screen (a button's callback, before the page is drawn again)."""
    st.session_state[FLUENCY_STATE] = {item_id: level}


with open_store() as store:
    session = signed_in(store, "annotate-sign-in")
    if session is None:
        st.caption("Sign in with the name and access token your study admin gave you.")
        st.stop()
    sign_out_button(session)

    progress = session.progress()
    if progress.done == 0 and progress.remaining == 0:
        st.info("Nothing to judge yet: no attack has been added to this study. Come back when your study's "
                "admin says it has started.")
        st.stop()
    with st.expander("How to judge (read this first)", expanded=progress.done == 0):
        st.markdown(GUIDELINE)
    total = progress.done + progress.remaining
    st.progress(progress.done / total if total else 1.0,
                text=f"{progress.done} judged · {progress.remaining} left")

    item = session.next_item()
    if item is None:
        if session.study_complete():
            st.success("Thank you! The study is complete: every pair has all the votes it needs.")
        else:
            st.success("Thank you! You have judged every pair you can. The pairs still open wait for other "
                       "annotators' votes; the study's admin will tell you if more come.")
        st.stop()

    served = st.session_state.setdefault("natlog_served_at", {})
    served.setdefault(item.item_id, time.monotonic())
    # Widget keys reach the page's HTML (st-key-...): they name the item on screen by a random nonce,
    # never by its id, which is sequential per run and would tell gold items and runs apart.
    nonces = st.session_state.get(NONCE_STATE, {})
    if item.item_id not in nonces:
        nonces = {item.item_id: secrets.token_hex(8)}
        st.session_state[NONCE_STATE] = nonces
    nonce = nonces[item.item_id]

    st.markdown("Assume the **premise** is true. Is the **hypothesis** then definitely true "
                "(*entailment*), possibly true (*neutral*), or definitely false "
                "(*contradiction*)? Keys **1 / 2 / 3** answer. Before that, say how the hypothesis reads "
                "if it is not plain English: keys **Q** ok, **W** odd, **E** broken (ok unless you change it).")
    with st.container(border=True):
        for caption, text in (("Premise", item.premise), ("Hypothesis", item.hypothesis)):
            st.caption(caption)
            # st.html: no markdown reads the text, so it shows exactly as stored.
            st.html(f'<p style="font-size:1.5rem;margin:0 0 0.5rem 0">{exact_html(text)}</p>')
    comment = st.text_input("Comment (optional)", key=f"comment-{nonce}", max_chars=COMMENT_CHARS,
                            placeholder="anything the admin should know about this pair")

    fluency = st.session_state.get(FLUENCY_STATE, {}).get(item.item_id, "ok")
    reads = next(choice for choice in FLUENCY if choice[1] == fluency)
    st.caption(f"How the hypothesis reads: **{reads[0]}**, {reads[3]}.")
    for column, (title, level, key, meaning) in zip(st.columns(3), FLUENCY):
        column.button(f"{title} ({key})", key=f"fluency-{level}", shortcut=key, width="stretch", help=meaning,
                      icon=":material/radio_button_checked:" if level == fluency
                      else ":material/radio_button_unchecked:",
                      on_click=choose_fluency, args=(item.item_id, level))
    chosen = None
    for column, (title, label, key) in zip(st.columns(3), CHOICES):
        if column.button(f"{title} ({key})", key=f"{label}-{nonce}", type="primary",
                         shortcut=key, width="stretch"):
            chosen = label
    left, right = st.columns(2)
    skipped = left.button("Skip this pair", key=f"skip-{nonce}", help="it will not come back to you")
    undo = right.button("Undo my last vote", key="undo", disabled=progress.done == 0,
                        help="within ten minutes of giving it; that pair comes back")
    try:
        if chosen is not None:
            seconds = time.monotonic() - served.pop(item.item_id, time.monotonic())
            session.submit(item.item_id, chosen, fluency, seconds=round(seconds, 2), comment=comment)
            st.session_state.pop(FLUENCY_STATE, None)
            st.rerun()
        if skipped:
            served.pop(item.item_id, None)
            session.skip(item.item_id)
            st.rerun()
        if undo:
            session.undo_last()
            st.rerun()
    except InputError as exc:
        st.error(md_escape(str(exc)))
