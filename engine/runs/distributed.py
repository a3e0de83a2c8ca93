"""Distributed attack runs on Ray: the pairs of a run are sharded over Ray actors, each holding its
models once; results flow back to one writer, this process, which commits them to the SQLite store.

Because only the driver writes, resume and the no-duplicates guarantee are those of a single
process: a pair is stored once, when its result arrives; an interrupted run (Ctrl-C, a worker
crash, a lost cluster) keeps every result already stored, and running the same command again
attacks only the pairs not stored yet.

Default: a local Ray started for the run (``workers`` actors, one CPU each). With an address, an
existing cluster (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the
others); ``gpus_per_worker`` reserves GPUs per actor (one GPU per actor on a GPU cluster).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tqdm import tqdm

from engine.attack.build import Attack, Resources, build
from engine.attack.recipe import AttackRecipe
from engine.attack.search import Target, attack_pair
from engine.core.errors import InputError
from engine.core.vocab import AttackStatus
from engine.data.readers import NLIPair, read_pairs
from engine.natlog.setups import get_setup
from engine.runs.runner import WARM_AHEAD, RunReport, RunSpec, VictimInfo, start_run
from engine.store.records import AttackRecord
from engine.store.store import RunStore
from engine.victim.model import load_victim, victim_labels, victim_location

RAY_MISSING = "Ray is not installed: run `make setup` (Ray is in requirements.txt) or `pip install ray==2.60.0` to use --workers"


#: The fewest pairs left to attack for which ``engine attack`` spreads a run over the cores by
#: itself: each actor loads its own models (about 10 s), which a short run would not win back.
AUTO_MIN_PAIRS = 40


def auto_workers(pairs_left: int, cores: int | None = None) -> int:
    """How many local Ray actors a run uses when ``--workers`` is not given: one per core (``cores``,
    default this machine's) when there are two or more, Ray is installed and at least
    :data:`AUTO_MIN_PAIRS` pairs are left; otherwise 1 (one process).

    One process leaves a core idle while it parses, walks WordNet and searches in Python; on 2 cores
    two one-thread actors finish C2C on 60 pairs in 125 s against 156 s (docs/speed-and-scale.md).
    The results are the same as one process's where the ranking LM runs in float32 (the default on
    a CPU without native bfloat16); in bfloat16 they are the same as one process's at one torch
    thread."""
    cores = os.cpu_count() if cores is None else cores
    if not cores or cores < 2 or pairs_left < AUTO_MIN_PAIRS or importlib.util.find_spec("ray") is None:
        return 1
    return min(cores, pairs_left)


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise InputError(RAY_MISSING) from exc
    return ray


@dataclass(frozen=True)
class RayOptions:
    """Where a distributed run runs: ``workers`` actors on a local Ray (or the cluster at
    ``address``), each reserving ``gpus_per_worker`` GPUs, each loading the victim with ``label_map``."""

    workers: int = 2
    address: str | None = None
    gpus_per_worker: float = 0.0
    label_map: str | None = None


class AttackWorker:
    """One Ray actor: builds the attack and loads the victim once, then attacks pairs on request."""

    def __init__(self, recipe: AttackRecipe, resources: Resources, victim_name: str, label_map: str | None) -> None:
        self.attack = build(recipe, resources)
        self.victim = load_victim(victim_name, label_map, settings=resources.settings)

    def warm(self, hypotheses: list[str]) -> None:
        """Score the hypotheses of pairs this actor may attack next in one batch (:meth:`Attack.warm`)."""
        self.attack.warm(hypotheses)

    def attack_one(self, index: int, pair: NLIPair, setup_name: str) -> AttackRecord:
        started = datetime.now(UTC)
        result = attack_pair(self.attack, Target.of_pair(pair, get_setup(setup_name)), self.victim)
        return result.to_record(index, started, datetime.now(UTC))


def start_ray(workers: int, address: str | None) -> Any:
    """Connect to the cluster at ``address``, or start a local one with ``workers`` CPUs."""
    ray = _ray()
    if ray.is_initialized():
        return ray
    if address and address != "auto":
        _reachable(address)
    try:
        if address:
            ray.init(address=address, log_to_driver=False, include_dashboard=False)
        else:
            ray.init(num_cpus=workers, log_to_driver=False, include_dashboard=False)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError or ValueError by version
        where = f"the Ray cluster at {address!r}" if address else "a local Ray"
        raise InputError(f"cannot start or reach {where}: {str(exc).splitlines()[0] if str(exc) else exc}") from exc
    return ray


def run_attacks_distributed(store: RunStore, spec: RunSpec, attack: Attack, ray_options: RayOptions, *,
                            pairs: Sequence[NLIPair] | None = None, progress: bool = True) -> RunReport:
    """:func:`engine.runs.runner.run_attacks` over Ray actors (``ray_options``), with this process as
    the one writer; each actor builds ``attack``'s recipe under the same resources."""
    workers, address = ray_options.workers, ray_options.address
    if workers < 1:
        raise InputError("--workers must be at least 1")
    pairs = read_pairs(spec.data, spec.fmt, spec.split) if pairs is None else pairs
    attack = attack.for_data(spec.data, spec.fmt)
    location = victim_location(spec.victim_name, attack.settings)
    # The same identity as a local run's (a run started here resumes locally and the other way round).
    labels = victim_labels(location, ray_options.label_map)
    run, chosen = start_run(store, spec, attack.recipe, attack.resources, VictimInfo(location, labels), pairs)
    ray = start_ray(workers, address)
    done = store.done_pair_indices(run.id)
    queue = [(k, p) for k, p in chosen if k not in done]
    began = time.monotonic()
    counts = dict.fromkeys(AttackStatus, 0)
    remote = ray.remote(num_cpus=1, num_gpus=ray_options.gpus_per_worker)(AttackWorker)
    actors = [remote.remote(attack.recipe, attack.resources, spec.victim_name, ray_options.label_map)
              for _ in range(min(workers, max(1, len(queue))))]
    total = len(queue)
    bar = tqdm(total=total, desc=f"attack {spec.setup.name} on {len(actors)} Ray workers", unit="pair",
               disable=not progress)
    pending: dict[Any, tuple[int, Any]] = {}
    idle = list(actors)
    failure: tuple[int, BaseException] | None = None
    sent = 0
    try:
        while (queue and failure is None) or pending:
            while queue and idle and failure is None:
                if sent % WARM_AHEAD == 0:  # any actor may take any of the next pairs: each scores their H
                    upcoming = [p.hypothesis for _, p in queue[:WARM_AHEAD]]
                    for each in actors:
                        each.warm.remote(upcoming)  # an actor runs its calls in order: before the attacks
                sent += 1
                index, pair = queue.pop(0)
                actor = idle.pop()
                pending[actor.attack_one.remote(index, pair, spec.setup.name)] = (index, actor)
            ready, _ = ray.wait(list(pending), num_returns=1)
            index, actor = pending.pop(ready[0])
            try:
                record = ray.get(ready[0])
            except Exception as exc:  # a crashed actor or an error inside the attack
                failure = failure or (index, exc)
                continue  # keep collecting what the other workers finish
            store.record_attack(run.id, record)  # the one writer: each result is stored once
            counts[AttackStatus(record.status)] += 1
            bar.update(1)
            idle.append(actor)
    finally:
        bar.close()
        for actor in actors:
            ray.kill(actor)
    if failure is not None:
        index, error = failure
        raise InputError(
            f"a Ray worker failed on pair {index} ({type(error).__name__}: {_first_line(error)}); "
            f"{sum(counts.values())} of {total} results were stored; run the same command again to resume")
    store.finish_run(run.id)
    skipped = counts[AttackStatus.SKIPPED]
    attacked = sum(counts.values())
    return RunReport(run, len(chosen), len(chosen) - total, attacked - skipped,
                     counts[AttackStatus.SUCCESS], skipped, time.monotonic() - began)


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast, in one line, when nothing listens at HOST:PORT (Ray itself retries for minutes)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"--ray-address must be HOST:PORT (the head's GCS port, 6379 by default), got {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise InputError(f"cannot start or reach the Ray cluster at {address!r}: {exc.strerror or exc}") from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""
