"""Report card: which natural-logic phenomena break a victim, from its profile runs, one victim or
several side by side, with its accuracy, attack results and probe scores around it."""

from __future__ import annotations

import json
from dataclasses import asdict

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from annotations.aggregation import results_by_text
from annotations.report import load_report
from app.auth import admin_session, open_store
from app.links import profile_pair_link
from app.text import show_chart
from app.widgets import HVASR_HEADINGS, md_escape, shown_ratios
from engine.api import (
    card_cells,
    card_latex,
    card_table,
    clean_accuracy,
    csv_text,
    differences,
    get_settings,
    model_card,
    repair_reports,
    victim_accuracy,
)

st.title("Victim report card")
st.caption("Which natural-logic phenomena break a victim. A profile run (`python -m engine profile`) asks, on "
           "every pair, up to a few of the best one-edit candidates of each phenomenon its first round has: an "
           "operator family crossed with the polarity of the edited word's context (hypernym ↑, hyponym ↓, "
           "insertion under a downward operator, negation, double negation, ...). A cell's failure rate is the "
           "share of its pairs on which one of them fooled the victim, with a Wilson 95 % interval.")

with open_store() as store:
    admin_session(store, "card-sign-in")
    runs = store.profile_runs()
    if not runs:
        st.info("No profile run yet: run `python -m engine profile --data FILE --victim VICTIM` (for example "
                "`--data ../shared/data/snli_test.tsv --split TEST --limit 200`), then come back.")
        st.stop()
    names = [r.name for r in runs]
    last_two = list(dict.fromkeys(r.victim for r in reversed(runs)))[:2]  # the victims profiled last
    latest = [r.name for r in runs if r.victim in last_two]
    chosen_names = st.multiselect("Profile runs (the runs of one victim make one card; several victims are "
                                  "compared)", names, default=latest, key="card_runs")
    if not chosen_names:
        st.info("Choose at least one profile run.")
        st.stop()
    chosen = [r for r in runs if r.name in chosen_names]
    min_pairs = st.number_input("Cells need at least this many pairs to be shown", 1, 1000, 5, key="card_min_pairs")
    judged = results_by_text(store)
    victims: dict[str, list] = {}
    for r in chosen:
        victims.setdefault(r.victim, []).append(r)
    # each victim's card reads every chosen run of it: (run, pair) for the links back to the run
    profiles = {victim: [(r, p) for r in owned for p in store.profile_pairs(r.id)] for victim, owned in victims.items()}
    reports = load_report(store).runs
    accuracy = victim_accuracy(store)
    probes = store.probe_runs()

cards = {victim: card_cells([p for _, p in items]) for victim, items in profiles.items()}

for number, (victim, owned) in enumerate(victims.items()):
    items, cells = profiles[victim], cards[victim]
    pairs = [p for _, p in items]
    st.header(f"Victim {victim}", anchor=False)
    st.caption("; ".join(f"Profile run {md_escape(r.name)}: data {md_escape(r.data_path)}, setups "
                         f"{', '.join(r.setups)}, at most {r.budget} asks per phenomenon and pair" for r in owned) + ".")
    trained = model_card(victim, get_settings()) or {}
    for name, aug in (trained.get("augmentation") or {}).items():
        anchors = aug.get("by_kind", {}).get("anchor", 0)
        examples = f"H* ({anchors} of them anchors the victim got right)" if anchors else "successful H*"
        st.info(f"Trained with augmentation {md_escape(name)}: {aug['examples']} {examples} of "
                f"{md_escape(', '.join(aug['runs']))} ({aug['judged_valid']} judged valid by the study, the rest by "
                "the validity estimate); most of them: "
                + md_escape(", ".join(f"{what} {n}" for what, n in list(aug["by_what"].items())[:5])) + ".")
    clean = clean_accuracy(pairs)
    metrics = st.columns(max(len(clean), 1) + 1)
    metrics[0].metric("Pairs profiled", sum(1 for p in pairs if p.status == "profiled"),
                      help="pairs (in a setup) the victim got right before any edit, so they were profiled")
    for column, (setup, (right, total)) in zip(metrics[1:], sorted(clean.items())):
        column.metric(f"Right on (P, H), {setup}", f"{right / total:.3f}" if total else "—", help=f"{right} of {total}")
    shown = [c for c in cells if c.pairs >= min_pairs]
    if not shown:
        st.info(f"No cell has {min_pairs} pairs or more yet.")
        continue
    # The judged validity of each cell's fooling examples, where the study has votes on that (P, H*).
    target = {"E2E": "entailment", "C2C": "contradiction", "N2N": "neutral", "E2C": "contradiction",
              "E2N": "neutral", "C2E": "entailment"}
    judged_cells: dict[tuple[str, str], tuple[int, int]] = {}
    for pair in pairs:
        for cell in pair.cells:
            result = judged.get((pair.premise, cell.example)) if cell.fooled else None
            if result is not None and result.majority is not None:
                valid, n = judged_cells.get((cell.phenomenon, pair.setup), (0, 0))
                judged_cells[(cell.phenomenon, pair.setup)] = (valid + (result.majority == target.get(pair.setup)), n + 1)
    frame = pd.DataFrame([asdict(c) for c in shown])
    frame["judged"] = [judged_cells.get((c.phenomenon, c.setup), (0, 0))[1] for c in shown]
    frame["judged_valid"] = [(lambda v, n: v / n if n else None)(*judged_cells.get((c.phenomenon, c.setup), (0, 0)))
                             for c in shown]
    setups = list(dict.fromkeys(c.setup for c in shown))
    phenomena = list(dict.fromkeys(c.phenomenon for c in shown))
    index = {(c.phenomenon, c.setup): c for c in shown}
    z = [[index[(p, s)].failure_rate if (p, s) in index else None for s in setups] for p in phenomena]
    text = [[f"{index[(p, s)].failure_rate:.2f} (n={index[(p, s)].pairs})" if (p, s) in index else "" for s in setups]
            for p in phenomena]
    hover = [[(f"{p} in {s}: {index[(p, s)].fooled} of {index[(p, s)].pairs} pairs fooled, 95 % CI "
               f"{index[(p, s)].ci_low:.2f}–{index[(p, s)].ci_high:.2f}; estimated validity of the failures "
               + ("—" if index[(p, s)].est_validity is None else f"{index[(p, s)].est_validity:.2f}"))
              if (p, s) in index else "" for s in setups] for p in phenomena]
    heatmap = go.Figure(go.Heatmap(z=z, x=setups, y=phenomena, text=text, texttemplate="%{text}", hovertext=hover,
                                   hovertemplate="%{hovertext}<extra></extra>", zmin=0, zmax=1,
                                   colorscale="Reds", colorbar={"title": "failure rate"}))
    heatmap.update_layout(title=f"Failure rate per phenomenon and setup: {victim}", height=120 + 34 * len(phenomena),
                          yaxis={"autorange": "reversed"}, margin={"t": 60, "b": 10})
    show_chart(heatmap, width="stretch", key=f"heatmap-{number}")
    st.dataframe(shown_ratios(frame.set_index(["phenomenon", "setup"]).round({"asks_mean": 1}),
                              ("failure_rate", "ci_low", "ci_high", "est_validity", "est_natural", "judged_valid")),
                 width="stretch")
    headers, rows = card_table(cells)
    left, mid, right = st.columns(3)
    left.download_button("Download CSV", csv_text(pd.DataFrame(rows, columns=headers)).encode(),
                         f"card-{number}.csv", "text/csv", key=f"csv-{number}")
    mid.download_button("Download LaTeX", card_latex(cells).encode(), f"card-{number}.tex", "text/x-tex",
                        key=f"tex-{number}")
    right.download_button("Download JSON", json.dumps({"runs": [r.name for r in owned], "victim": victim,
                                                       "cells": [c.to_json() for c in cells]},
                                                      ensure_ascii=False, indent=1).encode(),
                          f"card-{number}.json", "application/json", key=f"json-{number}")

    with st.expander("Examples of a cell"):
        cell_key = st.selectbox("Cell", [f"{c.phenomenon} · {c.setup}" for c in shown], key=f"cell-{number}")
        phenomenon, setup = cell_key.split(" · ")
        examples = [(run, pair, cell) for run, pair in items if pair.setup == setup for cell in pair.cells
                    if cell.phenomenon == phenomenon]
        examples.sort(key=lambda item: (not item[2].fooled, item[2].example_target_prob))
        st.dataframe(pd.DataFrame([{
            "pair": pair.pair_index, "P": pair.premise, "H": pair.hypothesis, "H* (example)": cell.example,
            "fooled": cell.fooled > 0, f"P({target.get(setup, 'target')}) on H*": cell.example_target_prob,
            "asked": cell.asked, "estimated validity": cell.example_validity} for _, pair, cell in examples]),
            width="stretch", hide_index=True)
        for run, pair, _cell in examples[:5]:
            profile_pair_link(run.id, pair.pair_index, setup, f"Attack pair {pair.pair_index} in the stepper")

    with st.expander("The same victim elsewhere: accuracy, attack runs, probe suites"):
        same = [a for a in accuracy if a.victim == victim]
        if same:
            st.markdown("**Accuracy per data file** (the pairs the attack runs asked it first: the paper's Table 3)")
            st.dataframe(pd.DataFrame([{"data": a.data.rsplit("/", 1)[-1], "pairs": a.pairs, "accuracy": round(a.accuracy, 3)}
                                       for a in same]), width="stretch", hide_index=True)
        attacked = [r for r in reports if r.victim == victim]
        if attacked:
            st.markdown("**Attack runs** (ASR and HVASR in its three readings)")
            st.dataframe(shown_ratios(pd.DataFrame([{
                "run": r.run, "system": r.system, "setup": r.setup, "attacked": r.attacked, "asr": r.asr,
                "hvasr": r.hvasr, "hvasr_fluent": r.hvasr_fluent, "hvasr_natural": r.hvasr_natural}
                for r in attacked]).set_index("run")), width="stretch", column_config=HVASR_HEADINGS)
        probed = [p for p in probes if p.victim == victim]
        if probed:
            st.markdown("**Probe runs**: " + ", ".join(md_escape(f"{p.name} ({p.suite})") for p in probed)
                        + " (scores on the Probes page)")
        if not (same or attacked or probed):
            st.caption("No attack or probe run of this victim in the store.")

loops = repair_reports(get_settings())
if loops:
    st.header("Repair loops", anchor=False)
    st.caption("`python -m engine repair` or the Runs page: the victim profiled on training pairs, a new victim "
               "trained with the H* that fooled it, both profiled on held-out pairs. Rates are on the held-out "
               "pairs both victims got right.")
    for loop, found in loops.items():
        augmentation = found.get("augmentation", {})
        anchors = int(augmentation.get("by_kind", {}).get("anchor", 0))
        st.markdown(f"**{md_escape(loop)}**: new victim `{md_escape(found.get('victim_after', ''))}`, "
                    f"{int(augmentation.get('kept', 0))} H* trained on"
                    + (f" ({anchors} of them anchors the victim got right)" if anchors else ""))
        st.dataframe(pd.DataFrame(found.get("weakest", [])), width="stretch", hide_index=True)
        before, after = found.get("accuracy_before", {}), found.get("accuracy_after", {})
        st.dataframe(pd.DataFrame([{"data": name, "accuracy before": acc, "accuracy after": after.get(name)}
                                   for name, acc in before.items()]), width="stretch", hide_index=True)

if len(victims) >= 2:
    st.header("Victims side by side", anchor=False)
    first, *others = list(victims)
    for other in others:
        rows = differences(cards[first], cards[other], int(min_pairs))
        st.subheader(f"{other} against {first}", anchor=False)
        if not rows:
            st.info("The two profiles share no cell with enough pairs.")
            continue
        table = pd.DataFrame([asdict(d) for d in rows])
        st.caption("Failure rate of each shared cell on both victims, and the second's minus the first's, largest "
                   "difference first.")
        st.dataframe(table.round(3), width="stretch", hide_index=True)
        bars = go.Figure(go.Bar(x=table["difference"], y=table["phenomenon"] + " · " + table["setup"],
                                orientation="h", marker_color=["#c92a2a" if d > 0 else "#2b8a3e" for d in table["difference"]]))
        bars.update_layout(title=f"Failure rate, {other} minus {first}", height=120 + 26 * len(table),
                           yaxis={"autorange": "reversed"}, xaxis={"range": [-1, 1]}, margin={"t": 60, "b": 10})
        show_chart(bars, width="stretch", key=f"diff-{first}-{other}")
