"""The offline victim on a fresh machine: pages that need it queue its training (once), start the
worker, and show the training's progress until it is ready; everything else stays usable."""

from __future__ import annotations

import streamlit as st

from app import cached
from app.auth import open_store
from app.text import md_escape
from engine.api import TRAIN_JOB, InputError, jobs, offline_victim_ready, queue_offline_victim, spawn_worker


def victim_ready(victim_name: str) -> bool:
    """True when ``victim_name`` can be loaded now. For the offline victim before it is trained: queue
    its training unless queued, start the worker, show the progress (the page reruns when it is
    done) and return False."""
    settings = cached.settings()
    if victim_name.strip() != "offline" or offline_victim_ready(settings):
        return True
    if not settings.auto_train_victim:
        st.warning("The offline victim is not trained yet: run `python -m engine train-victim` (a few minutes on "
                   "two cores), or name a hub model or a model folder as the victim.")
        return False
    try:
        with open_store() as store:
            queue_offline_victim(store, settings)
        spawn_worker(settings.db_path)
    except InputError as exc:
        st.error(f"The offline victim is not trained and cannot be: {md_escape(str(exc))}")
        return False
    _training_progress()
    return False


@st.fragment(run_every=2)
def _training_progress() -> None:
    """The training job's progress, re-read every two seconds; the whole page reruns once it is ready."""
    settings = cached.settings()
    if offline_victim_ready(settings):
        st.rerun()
    with open_store() as store:
        job = jobs.latest_job(store, TRAIN_JOB)
        done = jobs.progress(store, job) if job is not None else 0
    if job is None:
        return
    if job.status in ("failed", "cancelled"):
        st.error(f"Training the offline victim {job.status}: {md_escape(job.message or 'no message')}")
        if st.button("Train it again", key="victim-train-again"):
            with open_store() as store:
                jobs.requeue(store, job.id)
            spawn_worker(settings.db_path)
            st.rerun(scope="fragment")
        return
    st.info("The offline victim is being trained on this machine (first start only; a few minutes on two cores, "
            "see the model card afterwards). This part of the page works once it is ready; the rest of the "
            "studio is usable meanwhile.", icon=":material/model_training:")
    total = job.total or 0
    text = f"training: step {done} of {total}" if total else ("queued" if job.status == "queued" else "preparing the data")
    st.progress(min(done / total, 1.0) if total else 0.0, text=text)
