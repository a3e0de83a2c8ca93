"""Runs: queue batch attacks on a data file (one run per setup), executed by a worker process
outside the app; live progress, cancel and resume; the victim's accuracy per label and data set."""

from typing import Any

import pandas as pd
import plotly.express as px
import streamlit as st

from app import cached
from app.auth import admin_session, open_store
from app.text import show_chart
from app.widgets import md_escape
from engine.api import (
    FORMATS,
    LABELS,
    PROFILE_JOB,
    REPAIR_HELD_OUT,
    REPAIR_JOB,
    REPAIR_MINE,
    SETUPS,
    UPLOAD_SUFFIXES,
    InputError,
    check_profile_spec,
    check_repair_spec,
    check_spec,
    check_upload,
    data_files,
    data_folders,
    default_run_name,
    inside_folders,
    jobs,
    queue_offline_victim,
    read_pairs,
    recipe_names,
    spawn_worker,
    victim_accuracy,
    worker_running,
)

settings = cached.settings()
FOLDERS = data_folders(settings.shared_data_dir, settings.data_dir)
UPLOADS = FOLDERS[1]

st.title("Runs")
with open_store() as store:
    admin_session(store, "runs-sign-in")


def chosen_file() -> str | Any | None:
    """A data file under the data folders (its path), or a file uploaded now (checked below)."""
    source = st.radio("Data", ["From the data folders", "Upload a file"], horizontal=True, key="run_source")
    if source == "Upload a file":
        return st.file_uploader("NLI pairs (TSV or JSON Lines, UTF-8)", type=[s.lstrip(".") for s in UPLOAD_SUFFIXES],
                                key="run_upload")
    files = data_files(FOLDERS)
    if not files:
        st.info(f"No data file under {md_escape(str(settings.shared_data_dir))}: upload one.")
        return None
    names = [str(f) for f in files]
    default = next((k for k, f in enumerate(files) if f.name == "snli_test.tsv"), 0)
    return st.selectbox("Data file", names, index=default, key="run_file",
                        format_func=lambda n: n.replace(str(settings.shared_data_dir) + "/", ""))


def checked_upload(upload: Any, fmt: str, split: str) -> str | None:
    """An upload checked now with the readers a run uses (format, encoding, header, labels, lengths):
    its saved path and a line saying what was read, or a one-line error and nothing kept."""
    try:
        saved, concrete, count = check_upload(upload.name, upload.getvalue(), UPLOADS, fmt, split.strip() or None,
                                              settings.max_chars)
    except InputError as exc:
        st.error(md_escape(str(exc)))
        return None
    st.caption(f"{md_escape(upload.name)}: {count} labelled pairs, read as {concrete}.")
    return str(saved)


with st.container(border=True):
    path = chosen_file()
    c1, c2, c3 = st.columns(3)
    fmt = c1.selectbox("Format", FORMATS, key="run_format")
    split = c2.text_input("Split (optional)", "", key="run_split", help="SICK: TRAIN/TRIAL/TEST; other files: "
                          "the stable hash half TRAIN or TEST (the offline victim trains on SNLI's TRAIN half)")
    if path is not None and not isinstance(path, str):
        path = checked_upload(path, fmt, split)
    victim = c3.text_input("Victim", settings.victim, key="run_victim")
    c4, c5, c6 = st.columns(3)
    setups = c4.multiselect("Setups (one run each)", list(SETUPS), default=["E2C"], key="run_setups")
    limit = c5.number_input("Pairs per setup (seeded sample)", 1, 100_000, 20, key="run_limit")
    seed = c6.number_input("Seed", 0, 2**31 - 1, 0, key="run_seed")
    c7, c8, c9 = st.columns([2, 1, 1])
    run_name = c7.text_input("Run name (optional)", "", key="run_name", max_chars=120,
                             help="Default: built from the setup, victim, data file and its content hash, split, size "
                                  "and seed. Queue an existing name to resume it; with several setups each run gets "
                                  "the setup as a prefix.")
    include_trained = c8.checkbox("Also attack pairs the victim trained on", key="run_include_trained",
                                  help="Left out by default (the victim's model card lists them); a run that "
                                       "includes them is marked in the reports.")
    recipe = c9.selectbox("Attack recipe", recipe_names(), key="run_recipe", index=cached.recipe_index(settings),
                          help="default: the shipped defaults; natlog2023: Algorithm 1 as the paper describes it "
                               "(engine recipes lists them). Each run stores its recipe whole.")
    queue = st.button("Queue runs", type="primary", disabled=not (path and setups))

if queue and path:
    try:
        data = inside_folders(path, FOLDERS)
        if not read_pairs(data, fmt, split.strip() or None):  # checked now, not when the worker runs
            raise InputError(f"{data.name}: no labelled pairs to attack")
        chosen_victim = victim.strip() or settings.victim
        with open_store() as store:
            if chosen_victim == "offline" and settings.auto_train_victim:
                queue_offline_victim(store, settings)  # trains first when missing: the worker runs jobs in order
            for setup in setups:
                spec = check_spec({"data": str(data), "format": fmt, "split": split.strip() or None, "setup": setup,
                                   "victim": chosen_victim, "limit": int(limit), "seed": int(seed),
                                   "include_trained": include_trained, "recipe": recipe})
                name = (f"{setup}-{run_name.strip()}" if len(setups) > 1 else run_name.strip()) if run_name.strip() \
                    else default_run_name(setup, chosen_victim, data, int(limit), int(seed), spec["split"])
                jobs.enqueue(store, name, spec)
        started = spawn_worker(settings.db_path)
        st.success(f"Queued {len(setups)} run(s)" + ("; a worker started." if started else "; the worker picks them up."))
    except InputError as exc:
        st.error(md_escape(str(exc)))

def queue_job(name: str, spec: dict[str, Any], kind: str, chosen_victim: str, what: str) -> None:
    """Queue one job of ``kind`` (the offline victim's training first when it is missing), start a
    worker, and say so in one line."""
    with open_store() as store:
        if chosen_victim == "offline" and settings.auto_train_victim:
            queue_offline_victim(store, settings)
        jobs.enqueue(store, name, spec, kind=kind)
    started = spawn_worker(settings.db_path)
    st.success(f"Queued {what} {md_escape(name)}" + ("; a worker started." if started else "; the worker picks it up."))


with st.expander("Profile the victim for its report card"):
    st.caption("The chosen data file, victim, split, sample size, seed and recipe above: each pair is profiled in the "
               "setups of its gold label among those chosen here, asking up to the budget of each phenomenon's best "
               "candidates (`python -m engine profile` does the same). The Report card page shows the result.")
    p1, p2, p3 = st.columns([2, 1, 2])
    profile_setups = p1.multiselect("Setups", list(SETUPS), default=["E2E", "C2C", "N2N"], key="profile_setups")
    budget = p2.number_input("Asks per phenomenon", 1, 50, 5, key="profile_budget")
    profile_name = p3.text_input("Profile run name", "", key="profile_name", max_chars=120,
                                 placeholder="profile-VICTIM-DATA")
    queue_profile = st.button("Queue profile", disabled=not (path and profile_setups), key="queue_profile")

if queue_profile and path:
    try:
        data = inside_folders(path, FOLDERS)
        if not read_pairs(data, fmt, split.strip() or None):
            raise InputError(f"{data.name}: no labelled pairs to profile")
        chosen_victim = victim.strip() or settings.victim
        spec = check_profile_spec({"data": str(data), "format": fmt, "split": split.strip() or None,
                                   "setups": ",".join(profile_setups), "victim": chosen_victim, "limit": int(limit),
                                   "seed": int(seed), "budget": int(budget), "include_trained": include_trained,
                                   "recipe": recipe})
        name = profile_name.strip() or (f"profile-{chosen_victim.rstrip('/').split('/')[-1]}-{data.stem}"
                                        f"-{''.join(profile_setups)}-n{int(limit)}-seed{int(seed)}")
        queue_job(name, spec, PROFILE_JOB, chosen_victim, "profile")
    except InputError as exc:
        st.error(md_escape(str(exc)))

with st.expander("Repair the victim: train on what fooled it, profile both on held-out pairs"):
    st.caption("The victim above is profiled on the mining files; every H* that fooled it and is estimated valid "
               "(or judged valid) becomes a training pair with its target label; a new victim is trained on the "
               "offline recipe plus those pairs; both victims are profiled on the held-out files, which nothing is "
               "ever trained on (`python -m engine repair` does the same). The Report card shows them side by side. "
               "One data file per line: PATH[,format=F][,split=S][,limit=N], under the shared data folder.")
    r1, r2 = st.columns(2)
    mine_specs = r1.text_area("Mine H* on", "\n".join(REPAIR_MINE), key="repair_mine", height=90)
    held_specs = r2.text_area("Held out (profiled before and after)", "\n".join(REPAIR_HELD_OUT), key="repair_held",
                              height=90)
    r3, r4, r5 = st.columns([2, 1, 2])
    repair_setups = r3.multiselect("Setups", list(SETUPS), default=["E2E", "C2C", "N2N"], key="repair_setups")
    min_validity = r4.number_input("Validity an unjudged H* needs", 0.0, 1.0, 0.5, 0.05, key="repair_min_validity")
    repair_name = r5.text_input("Loop name", "repair", key="repair_name", max_chars=80)
    queue_repair = st.button("Queue the repair loop", disabled=not (repair_setups and repair_name.strip()),
                             key="queue_repair")

if queue_repair:
    try:
        chosen_victim = victim.strip() or settings.victim
        spec = check_repair_spec({
            "victim": chosen_victim, "mine": [line.strip() for line in mine_specs.splitlines() if line.strip()],
            "held_out": [line.strip() for line in held_specs.splitlines() if line.strip()],
            "setups": ",".join(repair_setups), "min_validity": float(min_validity), "recipe": recipe},
            settings.shared_data_dir)
        queue_job(repair_name.strip(), spec, REPAIR_JOB, chosen_victim, "the repair loop")
    except InputError as exc:
        st.error(md_escape(str(exc)))

STATUS_ICONS = {"queued": ":material/schedule:", "running": ":material/play_circle:", "done": ":material/check_circle:",
                "failed": ":material/error:", "cancelled": ":material/cancel:"}


@st.fragment(run_every=2)
def job_list() -> None:
    """The queue and its progress, re-read from the store every two seconds."""
    with open_store() as store:
        all_jobs = jobs.jobs(store)
        progress = {j.id: jobs.progress(store, j) for j in all_jobs}
    if not all_jobs:
        st.info("No run queued yet.")
        return
    busy = worker_running(settings.db_path)
    st.caption("Worker: " + ("running" if busy else "idle") + f" · log: {md_escape(str(settings.db_path))}.worker.log")
    for job in all_jobs:
        with st.container(border=True):
            left, right = st.columns([5, 1])
            done, total = progress[job.id], job.total
            left.markdown(f"{STATUS_ICONS[job.status]} **{md_escape(job.run_name)}** · job {job.id} · {job.status}"
                          + (f" · {md_escape(job.message)}" if job.message else ""))
            if total:
                left.progress(min(done / total, 1.0), text=f"{done} / {total} {'steps' if job.kind in ('train-victim', 'repair') else 'pairs'}")
            if job.status in jobs.OPEN:
                if right.button("Cancel", key=f"cancel-{job.id}"):
                    with open_store() as store:
                        jobs.request_cancel(store, job.id)
                    st.rerun(scope="fragment")
            elif right.button("Queue again", key=f"again-{job.id}", help="resumes: attacked pairs are kept"):
                try:
                    with open_store() as store:
                        jobs.requeue(store, job.id)
                    spawn_worker(settings.db_path)
                except InputError as exc:
                    st.error(md_escape(str(exc)))
                st.rerun(scope="fragment")


st.subheader("Queue")
job_list()

st.subheader("Victim accuracy")
st.caption("On the original pairs of the stored runs (each pair once per victim and data file); the paper's "
           "Table 3. `python -m engine evaluate --data FILE --victim V` measures a whole file.")
with open_store() as store:
    accuracies = victim_accuracy(store)
if not accuracies:
    st.info("No run has finished a pair yet.")
for acc in accuracies:
    st.markdown(f"**{md_escape(acc.victim)}** on **{md_escape(acc.data)}**: accuracy {acc.accuracy:.3f} "
                f"over {acc.pairs} pairs")
    left, right = st.columns(2)
    left.dataframe(pd.DataFrame({"accuracy": acc.per_label}).round(3), width="stretch")
    matrix = pd.DataFrame(acc.confusion).T.reindex(index=LABELS, columns=LABELS)
    show_chart(container=right, figure=px.imshow(matrix, text_auto=True, color_continuous_scale="Blues",
                                 labels={"x": "predicted", "y": "gold", "color": "pairs"}),
                       width="stretch", key=f"confusion-{acc.victim}-{acc.data}")
