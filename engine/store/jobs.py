"""Batch-run jobs: a queue in the store file, filled by the app (or the CLI) and drained by one
worker process (``python -m engine worker``), so that long runs never execute in a web request.

A job has a ``kind``: ``attack`` (the default) names a run and holds its parameters (``spec``: data
file, format, split, setup, victim, limit, seed); ``train-victim`` trains the offline victim (the
app queues it when the victim is missing) and reports its steps in ``done`` / ``total``. Its life:
``queued`` -> ``running`` -> ``done`` | ``failed`` | ``cancelled``. An attack's progress is not
stored here: the run's attacks are committed pair by pair, so done / ``total`` is read from the
runs tables. Cancelling a running job sets a flag the worker reads between pairs; the run
stays resumable (queue it again).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from engine.core.errors import InputError
from engine.store.store import RunStore, from_json, to_json

STATUSES = ("queued", "running", "done", "failed", "cancelled")
OPEN = ("queued", "running")
KINDS = ("attack", "train-victim", "profile", "repair")


@dataclass(frozen=True)
class Job:
    """One queued or executed batch run."""

    id: int
    run_name: str
    spec: dict[str, Any]
    status: str
    total: int | None
    message: str | None
    cancel_requested: bool
    pid: int | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    kind: str = "attack"
    done: int | None = None


def _job(row: dict[str, Any]) -> Job:
    return Job(**{**row, "spec": from_json(row["spec"]), "cancel_requested": bool(row["cancel_requested"])})


def enqueue(store: RunStore, run_name: str, spec: dict[str, Any], kind: str = "attack") -> Job:
    """Queue a run (or another ``kind`` of job, named ``run_name``); refused while a job of the same
    name is queued or running."""
    if not run_name.strip():
        raise InputError("a run name must not be empty")
    if kind not in KINDS:
        raise InputError(f"unknown job kind {kind!r}; known: {', '.join(KINDS)}")
    with store.transaction() as db:
        if next(db.query("SELECT 1 FROM jobs WHERE run_name = ? AND status IN ('queued', 'running')",
                         [run_name]), None):
            raise InputError(f"run {run_name!r} is already queued or running")
        inserted = db.table("jobs").insert({
            "run_name": run_name, "kind": kind, "spec": to_json(spec, "job spec"), "status": "queued", "total": None,
            "message": None, "cancel_requested": 0, "pid": None, "created_at": store.now(),
            "started_at": None, "finished_at": None,
        }).last_pk
    assert inserted is not None
    return job(store, int(inserted))


def job(store: RunStore, job_id: int) -> Job:
    row = next(store.db.query("SELECT * FROM jobs WHERE id = ?", [job_id]), None)
    if row is None:
        raise InputError(f"no job {job_id} in this store")
    return _job(row)


def jobs(store: RunStore) -> list[Job]:
    """Every job, newest first."""
    return [_job(row) for row in store.db.query("SELECT * FROM jobs ORDER BY id DESC")]


def claim_next(store: RunStore, pid: int) -> Job | None:
    """Mark the oldest queued job running for worker ``pid`` and return it (None when none)."""
    with store.transaction() as db:
        row = next(db.query("SELECT id FROM jobs WHERE status = 'queued' ORDER BY id LIMIT 1"), None)
        if row is None:
            return None
        db.execute("UPDATE jobs SET status = 'running', pid = ?, started_at = ? WHERE id = ?",
                   [pid, store.now(), row["id"]])
    return job(store, row["id"])


def set_total(store: RunStore, job_id: int, total: int) -> None:
    with store.transaction() as db:
        db.execute("UPDATE jobs SET total = ? WHERE id = ?", [total, job_id])


def set_progress(store: RunStore, job_id: int, done: int, total: int) -> None:
    """Progress of a job whose work is not stored pair by pair (training steps)."""
    with store.transaction() as db:
        db.execute("UPDATE jobs SET done = ?, total = ? WHERE id = ?", [done, total, job_id])


def set_message(store: RunStore, job_id: int, message: str) -> None:
    """What a running job is doing now, in one line (the repair loop's current step)."""
    with store.transaction() as db:
        db.execute("UPDATE jobs SET message = ? WHERE id = ?", [message, job_id])


def progress(store: RunStore, job: Job) -> int:
    """How much of ``job`` is done: its run's pairs for an attack, its recorded steps otherwise."""
    return done_pairs(store, job.run_name) if job.kind == "attack" else int(job.done or 0)


def open_job(store: RunStore, kind: str) -> Job | None:
    """The queued or running job of ``kind`` (the oldest), if any."""
    row = next(store.db.query("SELECT * FROM jobs WHERE kind = ? AND status IN ('queued', 'running') ORDER BY id "
                              "LIMIT 1", [kind]), None)
    return None if row is None else _job(row)


def latest_job(store: RunStore, kind: str) -> Job | None:
    """The newest job of ``kind``, whatever its status."""
    row = next(store.db.query("SELECT * FROM jobs WHERE kind = ? ORDER BY id DESC LIMIT 1", [kind]), None)
    return None if row is None else _job(row)


def finish(store: RunStore, job_id: int, status: str, message: str | None = None) -> None:
    if status not in ("done", "failed", "cancelled"):
        raise InputError(f"a job ends done, failed or cancelled, not {status!r}")
    with store.transaction() as db:
        db.execute("UPDATE jobs SET status = ?, message = ?, finished_at = ? WHERE id = ?",
                   [status, message, store.now(), job_id])


def request_cancel(store: RunStore, job_id: int) -> Job:
    """Cancel a queued job now, or ask the worker to stop a running one after its current pair."""
    current = job(store, job_id)
    if current.status not in OPEN:
        raise InputError(f"job {job_id} is {current.status}; only queued or running jobs can be cancelled")
    with store.transaction() as db:
        if current.status == "queued":
            db.execute("UPDATE jobs SET status = 'cancelled', finished_at = ?, message = 'cancelled before it "
                       "started' WHERE id = ? AND status = 'queued'", [store.now(), job_id])
        db.execute("UPDATE jobs SET cancel_requested = 1 WHERE id = ?", [job_id])
    return job(store, job_id)


def cancel_requested(store: RunStore, job_id: int) -> bool:
    row = next(store.db.query("SELECT cancel_requested FROM jobs WHERE id = ?", [job_id]), None)
    return bool(row and row["cancel_requested"])


def done_pairs(store: RunStore, run_name: str) -> int:
    """Pairs of run ``run_name`` attacked so far (0 before the run exists): a job's progress."""
    row = next(store.db.query("SELECT id FROM runs WHERE name = ?", [run_name]), None)
    return 0 if row is None else len(store.done_pair_indices(row["id"]))


def requeue(store: RunStore, job_id: int) -> Job:
    """Queue a finished job's run again (it resumes: pairs already attacked are kept)."""
    current = job(store, job_id)
    if current.status in OPEN:
        raise InputError(f"job {job_id} is still {current.status}")
    return enqueue(store, current.run_name, current.spec, current.kind)


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_orphans(store: RunStore) -> int:
    """Mark running jobs whose worker process is gone as failed (resumable); how many."""
    orphans = [j for j in jobs(store) if j.status == "running" and not _alive(j.pid)]
    for orphan in orphans:
        finish(store, orphan.id, "failed", "the worker stopped before the run finished; queue it again to resume")
    return len(orphans)
