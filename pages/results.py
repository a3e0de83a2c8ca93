"""Results: attack runs side by side (ASR, HVASR, QN, PPL) with breakdowns by operator and polarity."""

from dataclasses import asdict

import pandas as pd
import plotly.express as px
import streamlit as st

from annotations.report import load_report
from app.auth import admin_session, open_store
from app.widgets import HVASR_HELP, shown_ratios
from runstore.vocab import AttackStatus

st.title("Attack results")

with open_store() as store:
    admin_session(store, "results-sign-in")
    rows = load_report(store).runs
    if not rows:
        st.info("No attack run yet. Queue one on the Runs page, or run `python -m engine attack --data FILE "
                "--setup E2E ...`.")
        st.stop()
    table = pd.DataFrame([asdict(r) for r in rows]).set_index("run").round(
        {"asr": 3, "hvasr": 3, "hvasr_judged": 3, "coverage": 3, "qn_mean": 1, "qn_median": 1, "ppl_mean": 1,
         "seconds": 1})
    st.subheader("Runs")
    st.caption(HVASR_HELP + " QN: victim queries of successful attacks. PPL: causal-LM perplexity of H*.")
    st.dataframe(shown_ratios(table), width="stretch")
    st.download_button("Download CSV", table.to_csv().encode(), "natlog-runs.csv", "text/csv")

    long = table.reset_index().melt(id_vars=["run", "setup"], value_vars=["asr", "hvasr"],
                                    var_name="metric", value_name="rate").dropna()
    st.plotly_chart(px.bar(long, x="run", y="rate", color="metric", barmode="group", hover_data=["setup"],
                           range_y=[0, 1], title="Attack success (ASR) and human-validated success (HVASR)"),
                    width="stretch")

    run = st.selectbox("Run", list(table.index))
    attacks = store.attacks(store.run(run).id, with_trace=False)
    won = pd.DataFrame([{"queries": a.record.queries, "perplexity": a.record.perplexity}
                        for a in attacks if a.record.status == AttackStatus.SUCCESS])
    left, right = st.columns(2)
    if not won.empty:
        left.plotly_chart(px.histogram(won, x="queries", nbins=30, title=f"Query numbers ({run})"), width="stretch")
        right.plotly_chart(px.histogram(won.dropna(), x="perplexity", nbins=30, title=f"Perplexity of H* ({run})"),
                           width="stretch")
    else:
        left.info("This run has no successful attack yet.")
    tables = load_report(store, run)
    for group, rows in (("operator", tables.operators), ("polarity", tables.polarity)):
        parts = pd.DataFrame([asdict(b) for b in rows])
        if parts.empty:
            continue
        st.subheader(f"Successful attacks by {group}")
        st.caption(f"An attack counts once under each {group} its derivation H → H* used, so shares can "
                   "add up to more than 1.")
        st.plotly_chart(px.bar(parts, x="value", y="successful", hover_data=["share", "qn_mean", "ppl_mean"],
                               title=f"{run}: by {group}"), width="stretch", key=f"by-{group}")
        st.dataframe(parts.drop(columns=["run", "group"]).set_index("value").round(
            {"share": 3, "qn_mean": 1, "ppl_mean": 1}), width="stretch")
