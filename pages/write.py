"""Write an attack: edit H into H* against the victim, with its probabilities and natural logic's
verdict updated as you type, then send H* to the same blind study as the engine's attacks."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import streamlit as st

from app import cached
from app.auth import author_session, open_store, resumed_author
from app.live_editor import live_editor
from app.pairs import ChosenPair, choose_pair
from app.text import show_chart
from app.victim_gate import victim_ready
from app.widgets import md_escape, probability_figure, word_diff_html
from engine.api import (
    SETUPS,
    EditLabel,
    InputError,
    Prediction,
    ResourceError,
    Setup,
    authored_record,
    authored_run,
    check_edit,
    label_after_edit,
    parse,
    polarize,
    propose,
    setups_for_label,
    victim_identity,
    victim_location,
)

#: The page's own state: the pair being edited, its H*, the editor's version, the tries.
WORK = "write_work"
HSTAR = "write_hstar"
#: How many of the engine's candidates for the current H* are offered as next edits.
SUGGESTIONS = 6

st.title("Write an attack")
st.caption("Edit the hypothesis H into an H* that keeps (or flips) the pair's label as you intend, and that "
           "the victim gets wrong. As you type, the victim's probabilities and natural logic's verdict on your "
           "edit update. Submitted H* go to the blind study, unmarked, beside the engine's and the peers' attacks "
           "(never to you).")
settings = cached.settings()

with open_store() as store:
    session = author_session(store, "write-sign-in")
    author = session.annotator.name

with st.container(border=True):
    victim_column, map_column = st.columns([2, 1])
    victim_name = victim_column.text_input("Victim (offline, hub id or folder)", settings.victim, key="write_victim")
    label_map = map_column.text_input("Label map (for LABEL_0..2 models)", "", key="write_label_map",
                                      placeholder="entailment,neutral,contradiction")
    chosen: ChosenPair | None = choose_pair(victim_name, prefix="write_")
    setup_name = None
    if chosen is not None:
        options = [s.name for s in setups_for_label(chosen.label)]
        setup_name = st.selectbox(
            "The label you intend for (P, H*)", options, key="write_setup",
            format_func=lambda n: f"{SETUPS[n].target_label} ({n}: {SETUPS[n].description})")
    ready = victim_ready(victim_name)

if chosen is None or setup_name is None or not ready:
    st.stop()
setup: Setup = SETUPS[setup_name]

try:
    victim = cached.victim(victim_name, label_map)
except (InputError, ResourceError) as exc:
    st.error(md_escape(str(exc)))
    st.stop()

# A new pair, setup or victim starts a new piece of work: H in the editor, no tries.
work_key = (chosen.premise, chosen.hypothesis, chosen.label, setup.name, victim_name, label_map)
work: dict[str, Any] = st.session_state.get(WORK) or {}
if work.get("key") != work_key:
    work = {"key": work_key, "version": int(work.get("version", 0)) + 1, "tries": {}, "started": time.time(),
            "suggestions": {}}
    st.session_state[WORK] = work
    st.session_state[HSTAR] = chosen.hypothesis


def predict(hypothesis: str) -> Prediction:
    return victim.predict([(chosen.premise, hypothesis)])[0]


def use_candidate(text: str) -> None:
    """A suggestion's button: its text goes into the editor (a new version of it)."""
    st.session_state[HSTAR] = text
    st.session_state[WORK]["version"] += 1


original = predict(chosen.hypothesis)
target = setup.target_label
st.markdown(f"**P:** {md_escape(chosen.premise)}  \n**H:** {md_escape(chosen.hypothesis)}  \n"
            f"**(P, H):** {md_escape(chosen.label)} · **you intend (P, H\\*):** {target.value} ({setup.name}); the "
            f"victim is fooled when it does not answer **{target.value}**.")
if original.label != chosen.label:
    st.caption(f"The victim already gets (P, H) wrong: it answers {original.label}.")

hstar_typed = live_editor("write_editor", HSTAR, version=int(work["version"]), label="H*: edit the hypothesis",
                          max_chars=settings.max_chars)
try:
    hstar = check_edit(chosen.hypothesis, hstar_typed, settings.max_chars)
except InputError as exc:
    st.info(md_escape(str(exc)))
    try:  # load the parser and WordNet now, so that the first edit's verdict does not wait for them
        label_after_edit(chosen.label, chosen.hypothesis, chosen.hypothesis, settings)
    except InputError:
        pass  # H itself cannot be parsed: the edit's verdict will say so
    st.stop()

began = time.monotonic()
adversarial = predict(hstar)
try:
    verdict: EditLabel | None = label_after_edit(chosen.label, chosen.hypothesis, hstar, settings)
    verdict_error = None
except InputError as exc:
    verdict, verdict_error = None, str(exc)
seconds = time.monotonic() - began
fooled = adversarial.label != target
tries: dict[str, dict[str, Any]] = work["tries"]
if hstar not in tries:
    tries[hstar] = {"H*": hstar, "victim": adversarial.label.value, f"P({target.value})": round(adversarial.prob(target), 3),
                    "fooled": fooled, "natural logic": verdict.label if verdict else "error"}

st.html(word_diff_html(chosen.hypothesis, hstar))
left, right = st.columns(2)
with left:
    show_chart(probability_figure([("H", original), ("H*", adversarial)], "The victim on (P, H) and (P, H*)"),
               width="stretch", key="write-probabilities")
    moved = adversarial.prob(target) - original.prob(target)
    st.metric(f"P({target.value})", f"{adversarial.prob(target):.3f}", f"{moved:+.3f} from H", delta_color="inverse")
    if fooled:
        st.success(f"The victim is fooled: it answers **{adversarial.label.value}**, not {target.value}.")
    else:
        st.warning(f"The victim is not fooled: it still answers **{target.value}**.")
with right:
    st.markdown("**Natural logic's verdict**")
    if verdict is None:
        st.error(md_escape(verdict_error or "no verdict"))
    else:
        if not verdict.committed:
            st.info(f"Cannot tell: {md_escape(verdict.reason)}")
        elif verdict.label == target.value:
            st.success(f"(P, H\\*) is **{verdict.label}**, as you intend. {md_escape(verdict.reason)}")
        else:
            st.error(f"(P, H\\*) is **{verdict.label}**, not {target.value} as you intend. {md_escape(verdict.reason)}")
        if verdict.verdict is not None and verdict.verdict.steps:
            st.markdown("\n".join(f"- {md_escape(s.line)}" for s in verdict.verdict.steps))
    st.caption(f"victim and verdict in {seconds * 1000:.0f} ms")

st.subheader("Your tries on this pair")
st.caption(f"{len(tries)} distinct H* asked (queries spent on this pair).")
st.dataframe(pd.DataFrame(list(tries.values())[::-1]), width="stretch", hide_index=True)

if st.button("Submit H* to the study", type="primary", key="write-submit", disabled=verdict is None,
             help="natural logic's verdict must be known (or 'cannot tell') before a submission"):
    assert verdict is not None  # the button is disabled without one
    try:
        run = authored_run(author, setup, victim_name, victim_identity(victim_location(victim_name, settings),
                                                                        label_map or None),
                           chosen.file, chosen.fmt or "auto")
        record = authored_record(
            0, premise=chosen.premise, hypothesis=chosen.hypothesis, gold_label=chosen.label, setup=setup,
            hstar=hstar, original=original, adversarial=adversarial, queries=len(tries), verdict=verdict,
            tries=[{k: v for k, v in t.items() if k in ("H*", "victim", "fooled")} for t in tries.values()],
            source={"file": chosen.file, "line": chosen.line} if chosen.file else {"typed": True},
            started_at=datetime.fromtimestamp(work["started"], UTC))  # when the author began on this pair
        with open_store() as store:
            resumed_author(store).submit_attack(run, record)
    except (InputError, ResourceError) as exc:
        st.error(md_escape(str(exc)))
    else:
        if fooled:
            st.success("Submitted: the H* fooled the victim and goes to the blind study. Edit it further for "
                       "another, or choose the next pair.")
        else:
            st.info("Stored: the H* did not fool the victim, so it is kept in your run and not sent to the study.")

st.subheader("Next edits the engine proposes for your H*")
if not st.toggle("Propose next edits (a few seconds for each new H*; the verdict above does not wait for them)",
                 key="write_suggest"):
    st.stop()
cache: dict[str, list[str]] = work["suggestions"]
if hstar not in cache:
    try:
        attack = cached.attack()
        polarized = polarize(parse(hstar, settings=attack.settings), conventions=attack.reading)
        same = next(s for s in setups_for_label(target.value) if s.target_label == target)
        (proposal,) = propose(attack, polarized, [same], chosen.premise, SUGGESTIONS)
        cache[hstar] = [c.text for c in proposal.candidates]
    except (InputError, ResourceError, StopIteration) as exc:
        cache[hstar] = []
        st.caption(f"No suggestions: {md_escape(str(exc))}")
suggestions = cache[hstar]
if not suggestions:
    st.caption("The engine has no edit of this H* that keeps its label.")
for k, text in enumerate(suggestions):
    st.button(md_escape(text), key=f"write-suggestion-{k}", on_click=use_candidate, args=(text,),
              help="put this H* in the editor")
