"""Attack stepper: attack one pair round by round and watch the victim's confidence."""


from pathlib import Path

import pandas as pd
import streamlit as st

from app import cached
from app.auth import admin_session, open_store
from app.pairs import choose_pair
from app.text import show_chart
from app.victim_gate import victim_ready
from app.widgets import candidate_html, derivation_lines, md_escape, probability_figure, validity_line
from engine.api import (
    SETUPS,
    AttackSearch,
    AttackStatus,
    InputError,
    ResourceError,
    Round,
    RoundOutcome,
    Target,
    describe_by_operator,
    describe_rejected,
    format_relations,
    recipe_names,
    setups_for_label,
    start_search,
)

STATE = "attack_search"
CHART_ROWS = 20


def opened_profile_pair(store) -> str | None:
    """Fill the typed pair from a profiled pair named in the URL (``?profile=RUN_ID&pair=I&setup=S``,
    the Report card's links), once per pair; returns a one-line note of what was opened."""
    wanted = (st.query_params.get("profile"), st.query_params.get("pair"), st.query_params.get("setup"))
    if not all(wanted) or st.session_state.get("opened_profile") == wanted:
        return None
    st.session_state["opened_profile"] = wanted
    try:
        run = next(r for r in store.profile_runs() if r.id == int(wanted[0] or ""))
        pair = next(p for p in store.profile_pairs(run.id) if p.pair_index == int(wanted[1] or "") and p.setup == wanted[2])
    except (ValueError, StopIteration):
        st.error("No such profiled pair: the link names none in this store.")
        return None
    st.session_state.update({
        "pair_source": "Type a pair", "premise": pair.premise, "hypothesis": pair.hypothesis,
        "gold": pair.gold_label, "setup": pair.setup, "victim": run.victim,
    })
    return (f"Opened pair {pair.pair_index} ({md_escape(pair.setup)}) of profile run {md_escape(run.name)}: "
            "start it to attack it round by round.")


def opened_attack(store) -> str | None:
    """Fill the typed pair from a stored attack named in the URL (``?attack=ID``, the Confidence
    page's links), once per attack; returns a one-line note of what was opened."""
    if st.query_params.get("profile"):
        return opened_profile_pair(store)
    wanted = st.query_params.get("attack")
    if not wanted or st.session_state.get("opened_attack") == wanted:
        return None
    st.session_state["opened_attack"] = wanted
    try:
        attack = store.attack(int(wanted))
        run = store.run(attack.run_name)
    except (ValueError, InputError):
        st.error(f"No stored attack {md_escape(wanted)}: the link names none in this store.")
        return None
    record = attack.record
    st.session_state.update({
        "pair_source": "Type a pair", "premise": record.premise, "hypothesis": record.hypothesis,
        "gold": record.source_label.value, "setup": run.setup, "victim": run.victim,
    })
    return (f"Opened attack {attack.id} of run {md_escape(attack.run_name)} (pair {record.pair_index}): "
            "start it to step through it again.")

st.title("Attack stepper")
with open_store() as store:
    admin_session(store, "attack-sign-in")
    prefill = opened_attack(store)
if prefill:
    st.info(prefill)

settings = cached.settings()


def round_frame(search: AttackSearch, rnd: Round) -> pd.DataFrame:
    """The round's ranked candidates, with the victim's answer for those it was asked about."""
    target = search.setup.target_label
    rows = []
    for k, candidate in enumerate(rnd.candidates):
        query = rnd.queried[k] if k < len(rnd.queried) else None
        rows.append({
            "rank": k + 1, "H*": candidate.text, "operator": candidate.operator,
            "H → H*": candidate.relation.symbol, "score": round(candidate.score or 0.0, 2),
            "validity": candidate.validity, "natural": candidate.naturalness,
            "queried": "query" if query and query.counted else ("cache" if query else ""),
            "asked because": rnd.reasons[k] if k < len(rnd.reasons) else "",
            "victim": query.prediction.label if query else "not asked",
            f"P({target})": f"{query.prediction.prob(target):.3f}" if query else "—",
        })
    return pd.DataFrame(rows).set_index("rank")


def show_round(search: AttackSearch, rnd: Round, expanded: bool) -> None:
    composed = format_relations(rnd.composed, " ")
    with st.expander(f"Round {rnd.index}: {rnd.outcome} — {len(rnd.queried)} of {len(rnd.candidates)} "
                     f"candidates asked ({rnd.seconds:.1f} s)", expanded=expanded):
        st.markdown(f"From **{md_escape(rnd.hypothesis)}** (H → this: {composed}); edits allowed this round: "
                    + format_relations(rnd.allowed, " ")
                    + f". Dropped by the constraints: {describe_rejected(rnd.rejected)}; "
                    f"{rnd.revisited} were already seen.")
        if rnd.rejected_by_operator:
            st.caption("Dropped per operator: " + md_escape(describe_by_operator(rnd.rejected_by_operator)))
        if rnd.windows:
            st.caption(f"A lazy round (more candidates than top_k after the cheap checks): {rnd.windows} windows "
                       f"of its first order checked and scored; {rnd.unchecked} candidates never checked.")
        if not rnd.candidates:
            st.info(f"Every ranked candidate's validity estimate was under min_validity "
                    f"({search.search.min_validity:.2f}); none was asked."
                    if rnd.outcome == RoundOutcome.BELOW_VALIDITY else "No candidate left for this hypothesis.")
            if rnd.back_to is not None:
                st.info(f"The search goes back to round {rnd.back_to}, which paused: it asks the candidates "
                        f"that round did not ask, from **{md_escape(rnd.resumed or '')}**.")
            elif rnd.resumed is not None:
                st.info(f"The search backtracks: it goes on from **{md_escape(rnd.resumed)}**, the candidate of "
                        "an earlier round it asked but did not follow with the lowest P(target).")
            return
        if rnd.outcome == RoundOutcome.PAUSED:
            st.caption(f"Paused: {search.search.round_patience} asks in a row did not lower P(target). The "
                       f"search goes on from the lowest asked, and comes back for the "
                       f"{len(rnd.candidates) - len(rnd.queried) + rnd.unchecked} not asked at a dead end.")
        st.dataframe(round_frame(search, rnd), width="stretch", height=min(420, 36 * len(rnd.candidates) + 40))
        target = search.setup.target_label
        asked = sorted(((f"{k + 1}. {c.text}", q.prediction) for k, (c, q) in enumerate(zip(rnd.candidates, rnd.queried))),
                       key=lambda row: row[1].prob(target))
        if asked:
            shown = f"the {CHART_ROWS} of {len(asked)} asked with the lowest P({target})" if len(asked) > CHART_ROWS \
                else f"all {len(asked)} asked"
            show_chart(probability_figure(asked[:CHART_ROWS], f"Victim on the candidates: {shown}"),
                            width="stretch", key=f"round-{rnd.index}")
        pick = st.number_input("Show the derivation of candidate #", 1, len(rnd.candidates), 1,
                               key=f"derive-{rnd.index}")
        chosen = rnd.candidates[int(pick) - 1]
        st.html(candidate_html(chosen))
        st.markdown("\n".join(f"- {line}" for line in derivation_lines(chosen)))
        estimate = search.explain(chosen, rnd.index)
        if estimate is not None:
            st.markdown(validity_line(estimate))


with st.container(border=True):
    chosen = choose_pair(st.session_state.get("victim", settings.victim))
    chosen_pair = chosen[:3] if chosen else None
    # a typed pair: conventions set to auto take their strict reading
    st.session_state["pair_file"] = (chosen.file, chosen.fmt) if chosen and chosen.file else None
    left, mid, right = st.columns(3)
    victim_name = left.text_input("Victim (offline, hub id or folder)", settings.victim, key="victim")
    label_map = mid.text_input("Label map (for LABEL_0..2 models)", "", key="label_map",
                               placeholder="entailment,neutral,contradiction")
    options = [s.name for s in setups_for_label(chosen_pair[2])] if chosen_pair else list(SETUPS)
    setup_name = right.selectbox("Setup", options, format_func=lambda n: f"{n}: {SETUPS[n].description}", key="setup")
    recipe_column, alt_column = st.columns([1, 2])
    recipe_name = recipe_column.selectbox(
        "Attack recipe", recipe_names(), key="attack_recipe", index=cached.recipe_index(settings),
        help="default: the shipped defaults; natlog2023: Algorithm 1 as the paper describes it (engine recipes)")
    alt_lm = alt_column.toggle("AltLM operator (slower; off by default, see docs/natural-logic.md)", value=False,
                               key="alt_lm")
    ready = victim_ready(victim_name)
    start = st.button("Start attack", type="primary", disabled=chosen_pair is None or not ready)

if start and chosen_pair:
    try:
        pair_file = st.session_state.get("pair_file")
        attack = cached.attack(recipe_name, alt_lm)
        if pair_file:  # the reading of indefinites follows the data file's format, as in a batch run
            attack = attack.for_data(Path(pair_file[0]), pair_file[1])
        search = start_search(attack, Target.of(*chosen_pair, SETUPS[setup_name]),
                              cached.victim(victim_name, label_map))
    except (InputError, ResourceError) as exc:
        st.error(md_escape(str(exc)))
        st.stop()
    st.session_state[STATE] = search

search: AttackSearch | None = st.session_state.get(STATE)
if search is None:
    st.info("Choose a pair, a victim and a setup, then start the attack.")
    st.stop()

st.divider()
st.markdown(f"**P:** {md_escape(search.premise)}  \n**H:** {md_escape(search.hypothesis)}  \n"
            f"**setup:** {search.setup.name} ({search.setup.source_label} → {search.setup.target_label}); "
            f"the attack succeeds when the victim stops answering **{search.setup.target_label}**.")
show_chart(probability_figure([("H (original)", search.original)], "Victim on the original pair"),
                width="stretch", key="original")

buttons = st.columns(3)
step = buttons[0].button("Next round", disabled=search.done)
finish = buttons[1].button("Run to the end", disabled=search.done)
if buttons[2].button("Clear"):
    st.session_state.pop(STATE, None)
    st.rerun()
if step or finish:
    # Any click during the run (this button, or any other widget) stops it after the current round:
    # Streamlit ends the script run and the search keeps every round done so far.
    stop_slot = st.empty()
    stop_slot.button("Stop", key="stop", help="stop after the current round; 'Run to the end' continues")
    bar = st.progress(0.0, text="starting the round…")
    overall = st.empty()

    def within_round(what: str, fraction: float) -> None:
        """The bar follows the round being run: parsing, generating and ranking, then each ask."""
        bar.progress(min(max(fraction, 0.0), 1.0), text=f"round {len(search.rounds) + 1}: {what}")

    while not search.done:
        done_round = search.step(progress=within_round)
        overall.caption(f"round {done_round.index} took {done_round.seconds:.1f} s; {search.counter.queries} of "
                        f"{search.search.query_budget} queries used")
        if step:
            break
    bar.empty()
    overall.empty()
    stop_slot.empty()
    if search.done:
        st.rerun()  # draw the round buttons again, disabled now that the attack has ended

metrics = st.columns(4)
metrics[0].metric("Queries", f"{search.counter.queries} / {settings.query_budget}")
metrics[1].metric("Cache hits", search.counter.cache_hits)
metrics[2].metric("Rounds", len(search.rounds))
result = search.result()
metrics[3].metric("Status", result.status if search.done else "paused",
                  help="between rounds the attack waits for Next round or Run to the end")

for rnd in search.rounds:
    show_round(search, rnd, expanded=rnd is search.rounds[-1])

if not search.done:
    st.stop()
if result.status is AttackStatus.SKIPPED:
    st.warning("Skipped: the victim is already wrong on the original pair, so it is not attacked.")
elif result.status is AttackStatus.FAILED:
    st.error(f"The attack failed ({md_escape(result.reason)}) after {result.queries} queries.")
else:
    final = result.derivation[-1].candidate
    st.success(f"The victim was fooled after {result.queries} queries: it now answers "
               f"**{result.adversarial.label}**, while P and H* stand in relation "
               f"{format_relations(result.relation, ' ')} to H, so the label is {result.target_label}.")
    st.html(f"<div style='font-size:1.3rem'>H*: {candidate_html(final)}</div>")
    if result.perplexity is not None:
        st.caption(f"Perplexity of H* under the causal LM: {result.perplexity:.1f}")
    if result.self_check is not None:
        check = result.self_check
        shown = {"re-derived": st.info, "unknown": st.info, "fails": st.warning}[check.status]
        shown(f"Self-check, `verify(H, H*)`: **{check.status}** (derived {md_escape(check.relations)}, "
              f"label {md_escape(check.label)}). {md_escape(check.reason)}")
    show_chart(probability_figure([("H", result.original), ("H*", result.adversarial)], "Before and after"),
                    width="stretch", key="final")
    st.subheader("Derivation H → H*")
    for step_ in result.derivation:
        st.markdown(f"**Round {step_.round}** (edit polarity {step_.polarity}, H → result: "
                    f"{format_relations(step_.composed, ' ')})")
        st.markdown("\n".join(f"- {line}" for line in derivation_lines(step_.candidate)))
