"""Probes: a victim on the probe suites (equivalence laws, RobustLR, fragments, ConjNLI), per category,
with the suites' own tables, drill-down to items, and a button to run a probe."""

from pathlib import Path

import streamlit as st

from app import cached
from app.auth import admin_session, open_store
from app.probe_views import (
    category_figure,
    category_frame,
    comparison_figure,
    confusion_frame,
    items_frame,
    overview_frame,
    report_frame,
)
from app.text import show_chart
from app.widgets import md_escape
from engine.api import (
    InputError,
    ResourceError,
    csv_text,
    data_folders,
    default_probe_run_name,
    get_suite,
    inside_folders,
    load_suite_items,
    run_probe,
    suite_names,
    summarize,
)

st.title("Probes")
settings = cached.settings()
# The app reads only the data folders, its uploads and generated probe files, never any path on the server.
FOLDERS = (*data_folders(settings.shared_data_dir, settings.data_dir), settings.data_dir / "probes")

with open_store() as store:
    admin_session(store, "probes-sign-in")

    with st.expander("Run a probe", expanded=not store.probe_runs()):
        with st.form("probe-run"):
            names = suite_names()
            suite_name = st.selectbox("Suite", names, key="probe_suite")
            data = st.text_input("Data (empty: generate). A JSONL file from `probe generate`, or the suite's "
                                 "released file or folder, inside the data folders", key="probe_data",
                                 help="Readable folders: " + ", ".join(str(f) for f in FOLDERS))
            cols = st.columns(3)
            n = cols[0].number_input("Generated items", 10, 20000, 600, step=50, key="probe_n")
            seed = cols[1].number_input("Seed", 0, 10**6, 0, key="probe_seed")
            victim_name = cols[2].text_input("Victim", settings.victim, key="probe_victim")
            run_name = st.text_input("Run name (empty: automatic; the same name resumes)", key="probe_run_name")
            go = st.form_submit_button("Run probe", type="primary")
        if go:
            try:
                suite = get_suite(suite_name)
                path = inside_folders(data.strip(), FOLDERS) if data.strip() else None
                items = load_suite_items(suite, path, int(n), int(seed), cached.settings())
                victim = cached.victim(victim_name)
                name = run_name.strip() or default_probe_run_name(suite.name, victim_name, path, int(n), int(seed),
                                                                  items)
                bar = st.progress(0.0, text=f"{suite.name}: 0 / {len(items)} items")

                def progress(done: int, total: int) -> None:
                    bar.progress(done / max(total, 1), text=f"{suite.name}: {done} / {total} items")

                run_probe(store, name, suite.name, items, victim, victim_name,
                          str(path.resolve()) if path else f"generated:n={int(n)}", int(seed), progress=progress)
                st.session_state["probe_shown"] = name
                st.success(f"Probe run {md_escape(name)} stored: {len(items)} items.")
            except (InputError, ResourceError, FileNotFoundError) as exc:
                st.error(md_escape(str(exc)))

    runs = store.probe_runs()
    if not runs:
        st.info("No probe run yet. Run one above, or `python -m engine probe run --suite equivalence`.")
        st.stop()
    overview = [summarize(r, store.probe_results(r.id)) for r in runs]
    st.subheader("All probe runs")
    st.dataframe(overview_frame(overview), width="stretch")
    names = [r.name for r in runs]
    wanted = st.session_state.get("probe_shown") or st.query_params.get("run")
    shown = st.selectbox("Probe run", names, index=names.index(wanted) if wanted in names else len(names) - 1,
                         key="probe_shown_select")
    run = store.probe_run(shown)
    results = store.probe_results(run.id)
    summary = next(o for o in overview if o.run == run.name)
    same_suite = [o for o in overview if o.suite == run.suite and o.run != run.name]

cols = st.columns(4)
cols[0].metric("Items", summary.items)
cols[1].metric("Accuracy", f"{summary.accuracy:.3f}")
cols[2].metric("Weighted F1", f"{summary.weighted_f1:.3f}")
cols[3].metric("Victim", Path(summary.victim).name or summary.victim)

event = show_chart(category_figure(summary), width="stretch", on_select="rerun", selection_mode="points",
                        key="probe_categories")
st.dataframe(category_frame(summary), width="stretch")

for name, rows in summary.reports.items():
    if rows:
        st.subheader(name.replace("_", " ").capitalize())
        st.dataframe(report_frame(rows), width="stretch", hide_index=True)

st.subheader("Confusion (rows: gold, columns: predicted)")
st.dataframe(confusion_frame(summary), width="stretch")

if same_suite:
    st.subheader("Compared with other runs of this suite")
    show_chart(comparison_figure([summary, *same_suite]), width="stretch")

st.subheader("Items")
categories = [row["category"] for row in summary.by_category]
clicked = [p.get("customdata", [None])[0] for p in event.selection.points] if event else []
default = categories.index(clicked[0]) + 1 if clicked and clicked[0] in categories else 0
cols = st.columns(3)
category = cols[0].selectbox("Category", ["(all)", *categories], index=default, key="probe_category")
groups = sorted({r.group for r in results if category == "(all)" or r.category == category})
group = cols[1].selectbox("Group", ["(all)", *groups], key="probe_group")
wrong_only = cols[2].checkbox("Only items the victim gets wrong", key="probe_wrong")
frame = items_frame(results, None if category == "(all)" else category, None if group == "(all)" else group,
                    wrong_only)
if frame.empty:
    st.info("No item in this cell.")
else:
    st.caption(f"{len(frame)} items; probabilities are the victim's.")
    st.dataframe(frame, width="stretch", height=min(520, 36 * len(frame) + 40))
    st.download_button("Download CSV", csv_text(frame).encode(), f"probe-{run.name}.csv", "text/csv")
