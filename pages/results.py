"""Results: attack runs side by side (ASR, HVASR in three readings, QN, PPL) with breakdowns by operator and
polarity (each one's ASR contribution, valid and natural shares of its judged successes, mean QN)."""

from dataclasses import asdict

import pandas as pd
import plotly.express as px
import streamlit as st

from annotations.aggregation import agreement, agreement_reading, author_rows, hvasr
from annotations.report import load_report
from app.auth import admin_session, open_store
from app.links import stepper_link
from app.text import show_chart
from app.widgets import HVASR_HEADINGS, HVASR_HELP, md_escape, shown_ratios
from engine.api import AttackStatus, csv_text, diff_rows, paper_pivot, recipe_rows, to_latex

#: The breakdowns' rates, charted side by side, and the columns of their tables.
BREAKDOWN_RATES = {"asr_contribution": "ASR contribution", "valid_share": "valid share (judged)",
                   "natural_share": "natural share (judged)"}
BREAKDOWN_SHOWN = ("successful", "share", "asr_contribution", "judged", "valid_share", "natural_share", "qn_mean",
                   "ppl_mean")

st.title("Attack results")

with open_store() as store:
    admin_session(store, "results-sign-in")
    rows = load_report(store).runs
    if not rows:
        st.info("No attack run yet. Queue one on the Runs page, or run `python -m engine attack --data FILE "
                "--setup E2E ...`.")
        st.stop()
    table = pd.DataFrame([asdict(r) for r in rows]).set_index("run").round(
        {"asr": 3, "hvasr": 3, "hvasr_fluent": 3, "hvasr_natural": 3, "hvasr_judged": 3, "hvasr_estimated": 3,
         "coverage": 3,
         "qn_mean": 1, "qn_median": 1, "ppl_mean": 1, "seconds": 1})
    st.subheader("Runs")
    st.caption(HVASR_HELP + " QN: victim queries of successful attacks. PPL: causal-LM perplexity of H*.")
    st.dataframe(shown_ratios(table), width="stretch", column_config=HVASR_HEADINGS)
    st.download_button("Download CSV", csv_text(table).encode(), "natlog-runs.csv", "text/csv")

    calibration = [r for r in hvasr(store, "run") if r.estimate_on_judged is not None]
    if calibration:
        st.caption("The validity estimate against the judges, on the successful attacks people judged: the mean "
                   "estimate beside the share the majority found valid (a calibrated estimate gives the same).")
        st.dataframe(shown_ratios(pd.DataFrame([
            {"run": r.value, "judged": r.judged, "hvasr_judged": r.hvasr_judged, "estimate_on_judged": r.estimate_on_judged}
            for r in calibration]).set_index("run")), width="stretch")

    report = agreement(store)
    judged = sum(r.judged for r in rows)
    successful = sum(r.successful for r in rows)
    cols = st.columns(3)
    cols[0].metric("Judged successful attacks", f"{judged} / {successful}")
    cols[1].metric("Fleiss' κ", "—" if report.fleiss_kappa is None else f"{report.fleiss_kappa:.3f}",
                   help=f"over {report.fleiss_items} items with k votes")
    cols[2].metric("Krippendorff's α", "—" if report.krippendorff_alpha is None
                   else f"{report.krippendorff_alpha:.3f}", help=f"over {report.alpha_votes} votes")
    if (reading := agreement_reading(report)) is not None:
        st.caption(reading)  # our own sentence: numbers only

    st.subheader("Paper table")
    st.caption("Setups by attack system, victim and data set, as in Zheng & Zhu (2023), Tables 4-5: one block per "
               "system, NatLog first, peers recorded by `bench/peers.py --natlog-run` after it (several runs of one "
               "setup, system, victim and data set are averaged). HVASR (hvasr): label only (the paper's reading); "
               "HVASR+E (hvasr_fluent): label and not broken; HVASR+N (hvasr_natural): label and natural. "
               "'judged': HVASR's coverage.")
    pivot = paper_pivot(rows)
    st.dataframe(shown_ratios(pivot), width="stretch")
    left, right = st.columns(2)
    left.download_button("Download CSV", csv_text(pivot).encode(), "natlog-paper-table.csv", "text/csv")
    right.download_button("Download LaTeX", to_latex(pivot).encode(), "natlog-paper-table.tex", "text/x-tex")

    authors = author_rows(store)
    if authors:
        st.subheader("People writing attacks")
        st.caption("Each author's H* written on the Write page, judged in the same blind queue as every system's "
                   "(their rows are in the tables above as the system human:NAME). Fooled: the victim did not answer "
                   "the label the author intended. Verified: of the fooling H* the study resolved, the share whose "
                   "majority label is the intended one (Dynabench's verified model error rate); natural: and read "
                   "as natural English. Verdict agrees: where natural logic committed to a label for the edit, how "
                   "often it was the study's majority label.")
        st.dataframe(shown_ratios(pd.DataFrame([{
            "author": a.author, "submitted": a.submitted, "fooled": a.fooled, "judged": a.judged,
            "verified": a.verified, "verified_rate": a.verified_rate,
            "natural_rate": a.natural / a.judged if a.judged else None, "verdict_committed": a.committed,
            "verdict_agreement": a.verdict_agreement,
            "qn_mean": None if a.queries_mean is None else round(a.queries_mean, 1)} for a in authors]
        ).set_index("author"), ("verified_rate", "natural_rate", "verdict_agreement")), width="stretch")

    # Charts go through show_chart, which escapes data text once (plotly renders a subset of HTML).
    shown = table.reset_index()
    systems = shown.dropna(subset=["hvasr"])
    if systems["system"].nunique() > 1:
        readings = ["asr", "hvasr", "hvasr_fluent", "hvasr_natural"]
        by_system = systems.groupby(["setup", "system"], as_index=False)[readings].mean()
        by_system = by_system.melt(id_vars=["setup", "system"], var_name="metric", value_name="rate").dropna()
        show_chart(px.bar(by_system, x="setup", y="rate", color="system", barmode="group", facet_row="metric",
                               range_y=[0, 1], height=800,
                               title="Attack systems side by side on their judged runs: ASR, HVASR (label only), "
                                     "HVASR+E (label and not broken), HVASR+N (label and natural)"), width="stretch")

    long = shown.melt(id_vars=["run", "setup"], value_vars=["asr", "hvasr", "hvasr_fluent", "hvasr_natural",
                                                             "hvasr_estimated"],
                      var_name="metric", value_name="rate").dropna()
    show_chart(px.bar(long, x="run", y="rate", color="metric", barmode="group", hover_data=["setup"],
                           range_y=[0, 1], title="Attack success (ASR) and human-validated success (HVASR: label; "
                                                 "+E: and not broken; +N: and natural)"),
                    width="stretch")

    queries = pd.DataFrame([{"run": a.run_name, "queries": a.record.queries}
                            for a in store.attacks(with_trace=False) if a.record.status == AttackStatus.SUCCESS])
    if not queries.empty:
        violins = px.violin(queries, x="run", y="queries", box=True, points="all",
                            title="Queries per successful attack (QN), with medians (the paper's Figure 2)")
        violins.update_layout(height=420, margin={"t": 50, "b": 10})
        show_chart(violins, width="stretch")

    checks = pd.DataFrame(store.self_checks())
    if not checks.empty:
        st.subheader("Self-check: does the project's own logic re-derive each H*?")
        st.caption("For every successful attack, `verify(H, H*)` (the natural-logic verifier, `python -m engine "
                   "verify`) derives the relation from H to H*: re-derived (it lies in the setup's relations), "
                   "unknown (the verifier cannot tell), fails (it derives another relation: an edit bug or a "
                   "verifier gap). Attacks recorded before the check existed count as not checked.")
        checks["status"] = checks["status"].fillna("not checked")
        counts = checks.pivot_table(index="run", columns="status", values="attack_id", aggfunc="count",
                                    fill_value=0)
        st.dataframe(counts, width="stretch")
        failing = checks[checks["status"] == "fails"]
        if not failing.empty:
            with st.expander(f"{len(failing)} attacks whose H* the verifier does not re-derive"):
                st.dataframe(failing[["attack_id", "run", "hypothesis", "adversarial_hypothesis", "relations",
                                      "reason"]].set_index("attack_id"), width="stretch")
                for attack_id in failing["attack_id"].head(10):
                    stepper_link(int(attack_id))

    run = st.selectbox("Run", list(table.index))
    attacks = store.attacks(store.run(run).id, with_trace=False)
    won = pd.DataFrame([{"queries": a.record.queries, "perplexity": a.record.perplexity}
                        for a in attacks if a.record.status == AttackStatus.SUCCESS])
    left, right = st.columns(2)
    if not won.empty:
        show_chart(container=left, figure=px.histogram(won, x="queries", nbins=30, title=f"Query numbers ({run})"),
                          width="stretch")
        show_chart(container=right, figure=px.histogram(won.dropna(), x="perplexity", nbins=30,
                                        title=f"Perplexity of H* ({run})"), width="stretch")
    else:
        left.info("This run has no successful attack yet.")
    tables = load_report(store, run)
    for group, rows in (("operator", tables.operators), ("polarity", tables.polarity)):
        parts = pd.DataFrame([asdict(b) for b in rows])
        if parts.empty:
            continue
        st.subheader(f"Successful attacks by {group}")
        st.caption(f"An attack counts once under each {group} its derivation H → H* used, so shares can add up to "
                   f"more than 1. ASR contribution: successes using the {group} / attacked pairs of the run. Valid "
                   "share and natural share: of its successes people judged, those whose majority label is the "
                   "target, and those most judges read as natural English ('—' until one is judged). QN: mean "
                   "queries of its successes.")
        rates = parts.melt(
            id_vars=["value", "successful", "judged", "qn_mean"], value_vars=list(BREAKDOWN_RATES),
            var_name="measure", value_name="rate").dropna(subset=["rate"])
        rates["measure"] = rates["measure"].map(BREAKDOWN_RATES)
        show_chart(px.bar(rates, x="value", y="rate", color="measure", barmode="group", range_y=[0, 1],
                               hover_data=["successful", "judged", "qn_mean"], labels={"value": group},
                               title=f"{run}: by {group}"), width="stretch", key=f"by-{group}")
        st.dataframe(shown_ratios(parts[["value", *BREAKDOWN_SHOWN]].set_index("value").round(
            {"qn_mean": 1, "ppl_mean": 1})), width="stretch")

    st.subheader("Recipe")
    st.caption("Everything that shapes the run's attacks, stored with it: the attack recipe (operators and their "
               "parameters, the constraint chain in order, search, ranking, lexicon and conventions), what it ran on "
               "(dtype, device), the victim's weights hash, the data file's content hash, the code version. A resume "
               "continues with the stored recipe and refuses any other; `engine recipe --run RUN --out FILE` writes "
               "it for `engine attack --recipe FILE`.")
    chosen = store.run(run)
    stored = chosen.config.get("recipe") or {}
    if isinstance(stored, dict) and "format" in stored:
        st.markdown(f"Recipe **{md_escape(str(stored.get('name', '')))}** "
                    f"(hash {md_escape(str(chosen.config.get('recipe_hash', '')))}): "
                    f"{md_escape(str(stored.get('description', '')))}")
    recipe_left, recipe_right = st.columns(2)
    recipe_left.dataframe(pd.DataFrame(recipe_rows(chosen.config), columns=["field", "value"]).set_index("field"),
                          width="stretch", height=420)
    others = [name for name in table.index if name != run]
    other = recipe_right.selectbox("Compare with", others, index=None, placeholder="another run",
                                   key="recipe_other") if others else None
    if other is not None:
        second = store.run(other)
        rows_diff = diff_rows({"setup": chosen.setup, "seed": chosen.seed, **chosen.config},
                              {"setup": second.setup, "seed": second.seed, **second.config})
        if rows_diff:
            recipe_right.dataframe(pd.DataFrame(rows_diff, columns=["field", run, other]).set_index("field"),
                                   width="stretch")
        else:
            recipe_right.success("Both runs have the same recipe.")
