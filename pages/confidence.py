"""Confidence explorer: how the victim's probability of the target label moves under perturbation,
across a run (by operator, edit polarity, lexical relation) and along one attack (H -> H*)."""


import streamlit as st

from app.auth import admin_session, open_store
from app.confidence_charts import (
    attack_figure,
    drop_by_group_figure,
    drop_vs_perplexity_figure,
    group_table,
    points_frame,
)
from app.links import stepper_link
from app.text import show_chart
from app.widgets import md_escape
from engine.api import GROUPINGS, InputError, attack_path, attack_points, confidence_points, filter_points, group_points

st.title("Confidence explorer")
with open_store() as store:
    admin_session(store, "confidence-sign-in")
    runs = store.runs()
    if not runs:
        st.info("No attack run yet: start one with `python -m engine attack --data FILE --setup E2E ...`.")
        st.stop()
    names = [r.name for r in runs]
    wanted = st.query_params.get("run")
    run = st.selectbox("Run", names, index=names.index(wanted) if wanted in names else len(names) - 1, key="run")
    chosen_run = store.run(run)
    attacks = store.attacks(chosen_run.id)
points = confidence_points(attacks, {chosen_run.id: chosen_run.setup})
if not points:
    st.info("This run has no queried candidate yet (every pair was skipped, or the run is empty).")
    st.stop()

st.caption("Each point is a candidate the victim was asked about; its drop is P(target | P, H) minus "
           "P(target | P, candidate). Select a point to open its attack.")
with st.container(border=True):
    c1, c2, c3, c4 = st.columns(4)
    operators = c1.multiselect("Operator", sorted({p.operator for p in points}), key="f_operator")
    polarities = c2.multiselect("Edit polarity", sorted({p.polarity for p in points}), key="f_polarity")
    setups = c3.multiselect("Setup", sorted({p.setup for p in points}), key="f_setup")
    outcome = c4.radio("Attacks", ["all", "successful", "not successful"], horizontal=True, key="f_success")
    estimated = any(p.validity is not None for p in points)
    band = st.slider("Validity estimate", 0.0, 1.0, (0.0, 1.0), 0.05, key="f_validity", disabled=not estimated,
                     help="The probability that blind judges would find the candidate valid, estimated before "
                          "the victim was asked" + ("" if estimated else " (this run has no estimates)"))
shown = filter_points(points, operators=operators or None, polarities=polarities or None, setups=setups or None,
                      success=None if outcome == "all" else outcome == "successful",
                      validity=None if not estimated or band == (0.0, 1.0) else band)
if not shown:
    st.warning("No candidate matches these filters.")
    st.stop()

frame = points_frame(shown)
metrics = st.columns(4)
metrics[0].metric("Candidates queried", len(shown))
metrics[1].metric("Attacks", len({p.attack_id for p in shown}))
metrics[2].metric("Mean drop", f"{round(frame['drop'].mean(), 3) + 0.0:.3f}")
metrics[3].metric("Flipped the victim", f"{frame['flipped'].mean():.1%}")

overview, one = st.tabs(["Across the run", "One attack"])
with overview:
    by = st.selectbox("Group by", GROUPINGS, format_func=lambda g: g.replace("_", " "), key="group_by")
    selected = []
    event = show_chart(drop_by_group_figure(frame, by), width="stretch", on_select="rerun",
                            selection_mode="points", key="by_group")
    selected += [p.get("customdata", [None])[0] for p in event.selection.points] if event else []
    st.dataframe(group_table(group_points(shown, by)), width="stretch")
    event = show_chart(drop_vs_perplexity_figure(frame), width="stretch", on_select="rerun",
                            selection_mode="points", key="vs_ppl")
    selected += [p.get("customdata", [None])[0] for p in event.selection.points] if event else []
    picked = [int(a) for a in selected if a is not None]
    if picked:
        st.session_state["explore_attack"] = picked[-1]
        stepper_link(picked[-1])

with one:
    ids = sorted({p.attack_id for p in shown})
    default = st.session_state.get("explore_attack")
    attack_id = st.selectbox("Attack", ids, index=ids.index(default) if default in ids else 0,
                             format_func=lambda a: f"attack {a}", key="one_attack")
    try:
        with open_store() as store:
            attack = store.attack(int(attack_id))
    except InputError as exc:
        st.error(md_escape(str(exc)))
        st.stop()
    record = attack.record
    st.markdown(f"**P:** {md_escape(record.premise)}  \n**H:** {md_escape(record.hypothesis)}  \n"
                f"**target:** {record.target_label.value} · **status:** {record.status.value} · "
                f"**queries:** {record.queries}")
    path = attack_path(attack)
    show_chart(attack_figure(attack_points(attack), path, path[0].target_prob), width="stretch",
                    key="one_attack_chart")
    st.dataframe(
        [{"step": s.step, "hypothesis": s.text, "operator": s.operator, "P(target)": round(s.target_prob, 3)}
         for s in path],
        width="stretch", hide_index=True,
    )
    stepper_link(attack.id)
