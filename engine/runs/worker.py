"""The batch-run worker: drains the store's job queue (:mod:`engine.store.jobs`) in its own process.

``python -m engine worker --db FILE`` runs queued jobs one after another and exits when the queue
is empty; the app starts one with :func:`spawn_worker` whenever it queues a run. One worker per
store file: a second one finds the lock taken and exits at once. A job's run is attacked with
:func:`engine.runs.runner.run_attacks`, committing pair by pair, so the app reads live progress from
the store and a cancelled or crashed job resumes where it stopped when queued again.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.attack.build import Attack, Resources, build
from engine.attack.recipe import load_recipe, recipe_names
from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.core.settings import Settings
from engine.natlog.setups import get_setup
from engine.runs.runner import RunHooks, RunSpec, run_attacks
from engine.store import jobs
from engine.store.store import RunStore
from engine.victim.model import load_victim, offline_victim_dir
from engine.victim.training import (
    OFFLINE_EVAL,
    OFFLINE_TRAIN,
    DataSource,
    TrainConfig,
    TrainingStopped,
    train_victim,
)

#: The keys of a job's spec (the Runs page and ``engine attack`` fill the same parameters).
SPEC_KEYS = ("data", "format", "split", "setup", "victim", "label_map", "limit", "seed", "include_trained", "recipe")


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".worker.lock")


def log_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".worker.log")


@contextmanager
def worker_lock(db_path: Path) -> Iterator[bool]:
    """Hold the store's worker lock while inside; yields False (without waiting) when another
    process holds it."""
    path = lock_path(db_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def worker_running(db_path: Path) -> bool:
    """Whether a worker holds this store's lock now."""
    with worker_lock(db_path) as mine:
        return not mine


def check_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with its keys checked (InputError naming what is wrong)."""
    unknown = set(spec) - set(SPEC_KEYS)
    if unknown:
        raise InputError(f"unknown job parameters: {', '.join(sorted(unknown))}")
    for key in ("data", "setup"):
        if not spec.get(key):
            raise InputError(f"a job needs {key!r}")
    get_setup(spec["setup"])
    recipe = spec.get("recipe")
    if recipe is not None and recipe not in recipe_names():
        raise InputError(f"unknown attack recipe {recipe!r}; known: {', '.join(recipe_names())}")
    limit = spec.get("limit")
    if limit is not None and int(limit) < 1:
        raise InputError("limit must be at least 1")
    return spec


def job_attack(job: jobs.Job, resources: Resources) -> Attack:
    """The attack a job runs: its recipe (``spec["recipe"]``, a named one; default: ``default``) built
    under ``resources`` (built once per recipe in a process: jobs of one recipe share the models)."""
    return build(load_recipe(check_spec(job.spec).get("recipe"), resources.settings), resources)


def execute(store: RunStore, job: jobs.Job, attack: Attack) -> str:
    """Run one claimed job to its end with ``attack`` (:func:`job_attack`); returns the final status
    (the job row is updated)."""
    spec = check_spec(job.spec)
    settings = attack.resources.settings
    victim_name = spec.get("victim") or settings.victim
    victim = load_victim(victim_name, spec.get("label_map") or None, settings=settings)
    run = RunSpec(job.run_name, Path(spec["data"]), spec.get("format") or "auto", get_setup(spec["setup"]),
                  victim_name, limit=spec.get("limit"), seed=int(spec.get("seed") or 0),
                  split=spec.get("split") or None, include_trained=bool(spec.get("include_trained")))
    hooks = RunHooks(progress=False, should_stop=lambda: jobs.cancel_requested(store, job.id),
                     on_start=lambda run, total: jobs.set_total(store, job.id, total))
    report = run_attacks(store, run, attack, victim, hooks=hooks)
    status = "cancelled" if report.stopped else "done"
    message = (f"{report.attacked} attacked, {report.successful} successful, {report.skipped} skipped"
               + (" (stopped on request; queue it again to resume)" if report.stopped else ""))
    jobs.finish(store, job.id, status, message)
    return status


TRAIN_JOB = "train-victim"
TRAIN_JOB_NAME = "offline victim"


def offline_training(settings: Settings, backbone: str | None = None) -> tuple[TrainConfig, list[DataSource]]:
    """The offline victim's recipe (:data:`engine.victim.training.OFFLINE_TRAIN`) on ``backbone`` (default
    ``settings.backbone``), with its held-out evaluation; an InputError when the shared data is missing."""
    base = settings.shared_data_dir
    if not base.is_dir():
        raise InputError(f"the offline victim trains on the shared NLI data, not found at {base} "
                         "(set NATLOG_SHARED_DATA_DIR, or use a hub victim)")
    config = TrainConfig(backbone=backbone or settings.backbone,
                         train=tuple(DataSource.parse(spec, base) for spec in OFFLINE_TRAIN))
    return config, [DataSource.parse(spec, base) for spec in OFFLINE_EVAL]


def offline_victim_ready(settings: Settings) -> bool:
    """Whether the offline victim is trained (its folder is complete)."""
    return (offline_victim_dir(settings) / "config.json").is_file()


def queue_offline_victim(store: RunStore, settings: Settings, backbone: str | None = None) -> jobs.Job | None:
    """Queue the offline victim's training unless it is trained or already queued; returns the open
    training job (None when the victim is ready). The caller starts a worker."""
    if offline_victim_ready(settings):
        return None
    current = jobs.open_job(store, TRAIN_JOB)
    if current is not None:
        return current
    offline_training(settings, backbone)  # refuse now, in one line, when the data is missing
    return jobs.enqueue(store, TRAIN_JOB_NAME, {"backbone": backbone or settings.backbone}, kind=TRAIN_JOB)


def execute_training(store: RunStore, job: jobs.Job, settings: Settings) -> str:
    """Train the offline victim for a claimed ``train-victim`` job, reporting its steps."""
    config, evaluation = offline_training(settings, job.spec.get("backbone"))
    last = [0.0]

    def on_step(step: int, total: int) -> None:
        now = time.monotonic()
        if step == total or now - last[0] >= 1.0:  # one write a second at most
            last[0] = now
            jobs.set_progress(store, job.id, step, total)

    try:
        result = train_victim(config, settings, offline_victim_dir(settings), evaluation, progress=False,
                              on_step=on_step, should_stop=lambda: jobs.cancel_requested(store, job.id))
    except TrainingStopped as exc:
        jobs.finish(store, job.id, "cancelled", str(exc))
        return "cancelled"
    card = result.card
    held_out = "; ".join(f"{name} {acc['accuracy']:.3f}" for name, acc in card["accuracy"].items())  # type: ignore[attr-defined]
    jobs.finish(store, job.id, "done", ("reused the trained victim" if result.reused else
                                        f"trained {card['steps']} steps in {card['train_seconds']} s") +
                f"; accuracy {held_out}")
    return "done"


PROFILE_JOB = "profile"
#: The keys of a profile job's spec (the Runs page and ``engine profile`` fill the same parameters).
PROFILE_KEYS = ("data", "format", "split", "setups", "victim", "label_map", "limit", "seed", "budget",
                "include_trained", "recipe")


def check_profile_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A profile job's spec with its keys checked (InputError naming what is wrong)."""
    from engine.profile.runner import profile_setups

    unknown = set(spec) - set(PROFILE_KEYS)
    if unknown:
        raise InputError(f"unknown profile parameters: {', '.join(sorted(unknown))}")
    if not spec.get("data"):
        raise InputError("a profile needs 'data'")
    profile_setups(spec.get("setups") or "")
    recipe = spec.get("recipe")
    if recipe is not None and recipe not in recipe_names():
        raise InputError(f"unknown attack recipe {recipe!r}; known: {', '.join(recipe_names())}")
    for key in ("limit", "budget"):
        if spec.get(key) is not None and int(spec[key]) < 1:
            raise InputError(f"{key} must be at least 1")
    return spec


def execute_profile(store: RunStore, job: jobs.Job, resources: Resources) -> str:
    """Run one claimed profile job to its end (:func:`engine.profile.runner.run_profile`), reporting
    the (pair, setup) done; returns the final status."""
    from engine.profile.runner import DEFAULT_BUDGET, ProfileSpec, profile_setups, run_profile

    spec = check_profile_spec(job.spec)
    settings = resources.settings
    victim_name = spec.get("victim") or settings.victim
    victim = load_victim(victim_name, spec.get("label_map") or None, settings=settings)
    attack = build(load_recipe(spec.get("recipe"), settings), resources)
    profile = ProfileSpec(job.run_name, Path(spec["data"]), spec.get("format") or "auto",
                          profile_setups(spec["setups"]), victim_name, spec.get("limit"), int(spec.get("seed") or 0),
                          spec.get("split") or None, int(spec.get("budget") or DEFAULT_BUDGET),
                          bool(spec.get("include_trained")))
    last = [0.0]

    def on_pair(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last[0] >= 1.0:
            last[0] = now
            jobs.set_progress(store, job.id, done, total)

    report = run_profile(store, profile, attack, victim, progress=False, on_pair=on_pair,
                         should_stop=lambda: jobs.cancel_requested(store, job.id))
    status = "cancelled" if report.stopped else "done"
    jobs.finish(store, job.id, status, f"{report.profiled} profiled, {report.skipped} skipped (victim already wrong)"
                + (" (stopped on request; queue it again to resume)" if report.stopped else "")
                + "; see the Report card")
    return status


REPAIR_JOB = "repair"
#: The keys of a repair job's spec (the Runs page and ``engine repair`` fill the same parameters).
REPAIR_KEYS = ("victim", "mine", "held_out", "setups", "budget", "min_validity", "recipe", "epochs", "train", "evaluation",
               "anchors", "fragments")


def check_repair_spec(spec: dict[str, Any], base: Path) -> dict[str, Any]:
    """A repair job's spec with its keys checked, its data files found under ``base`` (the shared data
    folder) where relative (InputError naming what is wrong)."""
    from engine.profile.runner import profile_setups

    unknown = set(spec) - set(REPAIR_KEYS)
    if unknown:
        raise InputError(f"unknown repair parameters: {', '.join(sorted(unknown))}")
    for key in ("mine", "held_out"):
        if not spec.get(key) or not all(isinstance(s, str) and s.strip() for s in spec[key]):
            raise InputError(f"a repair loop needs '{key}': data specs PATH[,format=F][,split=S][,limit=N]")
        for text in spec[key]:
            source = DataSource.parse(text, base)
            if not source.path.is_file():
                raise InputError(f"{source.path}: no such data file ({key})")
    profile_setups(spec.get("setups") or "")
    recipe = spec.get("recipe")
    if recipe is not None and recipe not in recipe_names():
        raise InputError(f"unknown attack recipe {recipe!r}; known: {', '.join(recipe_names())}")
    if spec.get("budget") is not None and int(spec["budget"]) < 1:
        raise InputError("budget must be at least 1")
    if spec.get("min_validity") is not None and not 0.0 <= float(spec["min_validity"]) <= 1.0:
        raise InputError("min_validity must be between 0 and 1")
    return spec


def execute_repair(store: RunStore, job: jobs.Job, resources: Resources) -> str:
    """Run one claimed repair job to its end (:func:`engine.augment.repair.run_repair`), reporting each
    step as the job's message and its count as progress; returns the final status."""
    from engine.augment.export import DEFAULT_MIN_VALIDITY
    from engine.augment.repair import (
        RepairSpec,
        RepairStopped,
        augment_file,
        repair_fragments,
        repair_steps,
        report_path,
        run_repair,
    )
    from engine.profile.runner import DEFAULT_BUDGET, profile_setups

    settings = resources.settings
    base = settings.shared_data_dir
    spec = check_repair_spec(job.spec, base)
    repair = RepairSpec(job.run_name, spec.get("victim") or settings.victim,
                        tuple(DataSource.parse(s, base) for s in spec["mine"]),
                        tuple(DataSource.parse(s, base) for s in spec["held_out"]), profile_setups(spec["setups"]),
                        int(spec.get("budget") or DEFAULT_BUDGET),
                        float(spec["min_validity"]) if spec.get("min_validity") is not None else DEFAULT_MIN_VALIDITY,
                        epochs=float(spec.get("epochs") or TrainConfig.epochs),
                        train=tuple(spec.get("train") or OFFLINE_TRAIN),
                        evaluation=tuple(spec.get("evaluation") or OFFLINE_EVAL),
                        anchors=bool(spec.get("anchors", True)),
                        scored=repair_fragments(base) if spec.get("fragments", True) else ())
    total, done = repair_steps(repair), [0]

    def on_step(line: str) -> None:
        jobs.set_progress(store, job.id, done[0], total)
        jobs.set_message(store, job.id, line)
        done[0] += 1

    attack = build(load_recipe(spec.get("recipe"), settings), resources)
    try:
        report = run_repair(store, repair, attack, settings, progress=False, on_step=on_step,
                            augment_path=augment_file(settings, job.run_name),
                            should_stop=lambda: jobs.cancel_requested(store, job.id))
    except RepairStopped as exc:
        jobs.finish(store, job.id, "cancelled", str(exc))
        return "cancelled"
    jobs.set_progress(store, job.id, total, total)
    report_path(settings, job.run_name).write_text(
        json.dumps(report.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")
    drops = ", ".join(f"{w.phenomenon} {w.setup} {w.before:.2f} → {w.after:.2f}" for w in report.weakest) or "no cell large enough"
    jobs.finish(store, job.id, "done", f"new victim {report.victim_after.name}: {report.augmentation.kept} H* trained on; "
                f"{drops}; see the Report card")
    return "done"


def run_worker(db_path: Path, resources: Resources) -> int:
    """Drain the queue of ``db_path``; returns how many jobs ran (0 when another worker holds the lock)."""
    ran = 0
    settings = resources.settings
    with worker_lock(db_path) as mine:
        if not mine:
            return 0
        with RunStore.open(db_path) as store:
            jobs.recover_orphans(store)
            while (job := jobs.claim_next(store, os.getpid())) is not None:
                ran += 1
                try:
                    if job.kind == TRAIN_JOB:
                        execute_training(store, job, settings)
                        continue
                    if job.kind == PROFILE_JOB:
                        execute_profile(store, job, resources)
                        continue
                    if job.kind == REPAIR_JOB:
                        execute_repair(store, job, resources)
                        continue
                    execute(store, job, job_attack(job, resources))
                except (InputError, ResourceError) as exc:
                    jobs.finish(store, job.id, "failed", str(exc))
                except Exception as exc:  # a worker outlives one bad job; the traceback goes to the log
                    traceback.print_exc()
                    jobs.finish(store, job.id, "failed", f"{type(exc).__name__}: {exc} (see {log_path(db_path)})")
    return ran


def spawn_worker(db_path: Path) -> bool:
    """Start a detached worker for ``db_path`` unless one is running; True when one was started.
    Its output goes to ``<store>.worker.log`` beside the store."""
    if worker_running(db_path):
        return False
    with log_path(db_path).open("a") as log:
        subprocess.Popen([sys.executable, "-m", "engine", "worker", "--db", str(db_path)],
                         stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    return True
