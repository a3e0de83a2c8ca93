"""Batch runs: attack the selected pairs of a data file with one setup, committing each result to
the runs store so that an interrupted run resumes where it stopped."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tqdm import tqdm

from engine.attack.build import Attack, Resources, stage_settings
from engine.attack.identity import run_identity, runtime_identity, victim_identity
from engine.attack.recipe import AttackRecipe
from engine.attack.search import Target, attack_pair
from engine.core.vocab import AttackStatus
from engine.data.readers import NLIPair, file_digest, pair_key, read_pairs
from engine.natlog.setups import Setup
from engine.store.records import Run
from engine.store.store import RunStore
from engine.victim.model import Victim
from engine.victim.training import trained_pair_keys


def select_pairs(pairs: Sequence[NLIPair], setup: Setup, limit: int | None, seed: int,
                 exclude: frozenset[str] = frozenset()) -> list[tuple[int, NLIPair]]:
    """The pairs a run attacks: those labelled with the setup's source label whose key
    (:func:`engine.data.readers.pair_key`) is not in ``exclude``, a seeded sample of ``limit`` of them,
    in file order; each keeps its index in the file."""
    eligible = [(k, p) for k, p in enumerate(pairs)
                if p.label == setup.source_label and (not exclude or pair_key(p.premise, p.hypothesis) not in exclude)]
    if limit is not None and limit < len(eligible):
        eligible = sorted(random.Random(seed).sample(eligible, limit), key=lambda item: item[0])
    return eligible


def training_exclusions(victim_location: str, include_trained: bool) -> frozenset[str]:
    """The keys of the pairs a run leaves out: those the victim trained on (its ``trained_pairs.txt``),
    unless ``include_trained``; none for a victim that lists none (a hub model)."""
    if include_trained:
        return frozenset()
    return trained_pair_keys(victim_location) or frozenset()


def default_run_name(setup: str, victim: str, data: Path, limit: int | None, seed: int,
                     split: str | None = None) -> str:
    """A run name built from what identifies the run: the setup, the victim, the data file's folder,
    name and content hash, the split, the sample size and the seed (two fragments' ``test.tsv`` or a
    changed upload under the same name get different names)."""
    victim_part = Path(victim.rstrip("/")).name or victim
    data_part = f"{data.parent.name}-{data.stem}-{file_digest(data)[:8]}" + (f"-{split.upper()}" if split else "")
    return f"{setup}-{victim_part}-{data_part}-n{limit or 'all'}-seed{seed}"


@dataclass(frozen=True)
class RunSpec:
    """What a batch run attacks: its name, the data file (format, split), the setup, the victim's
    name as the user gave it, the sample (``limit`` pairs drawn with ``seed``; None: every eligible
    pair) and whether pairs the victim trained on are attacked too."""

    name: str
    data: Path
    fmt: str
    setup: Setup
    victim_name: str
    limit: int | None = None
    seed: int = 0
    split: str | None = None
    include_trained: bool = False


@dataclass(frozen=True)
class RunHooks:
    """How a caller follows a run: a tqdm bar (``progress``), ``should_stop()`` asked before each pair
    (True ends the run early, unfinished: it resumes when run again), and ``on_start(run, selected)``
    once the run exists."""

    progress: bool = True
    should_stop: Callable[[], bool] | None = None
    on_start: Callable[[Run, int], None] | None = None


@dataclass(frozen=True)
class VictimInfo:
    """What a run records of its victim before any weights load: where it is (a folder, a hub id,
    a URL) and the NLI label of each of its outputs."""

    location: str
    labels: tuple[str, ...]

    @classmethod
    def of(cls, victim: Victim) -> VictimInfo:
        return cls(victim.name, tuple(victim.labels))


def start_run(store: RunStore, spec: RunSpec, recipe: AttackRecipe, resources: Resources, victim: VictimInfo,
              pairs: Sequence[NLIPair]) -> tuple[Run, list[tuple[int, NLIPair]]]:
    """Create or resume the run (its whole identity checked, see :mod:`engine.attack.identity`) and
    choose its pairs (``pairs``: the data file's, read); pairs the victim trained on are left out
    unless ``spec.include_trained``. The run stores ``recipe`` (resolved for the data's format) whole.
    Nothing is built or loaded here: a resume with another recipe is refused before any model loads."""
    recipe = recipe.for_data(spec.data, spec.fmt)
    exclude = training_exclusions(victim.location, spec.include_trained)
    chosen = select_pairs(pairs, spec.setup, spec.limit, spec.seed, exclude)
    data_identity = {"sha256": file_digest(spec.data), "format": spec.fmt, "split": spec.split, "limit": spec.limit,
                     "include_trained": spec.include_trained,
                     "trained_pairs_left_out": sum(1 for p in pairs if p.label == spec.setup.source_label
                                                   and pair_key(p.premise, p.hypothesis) in exclude)}
    config = run_identity(recipe.to_json(), victim_identity(victim.location, ",".join(victim.labels)),
                          data_identity, runtime_identity(stage_settings(recipe, resources)))
    return store.start_run(spec.name, spec.setup.name, spec.victim_name, spec.data, spec.fmt, spec.seed, config), chosen


@dataclass(frozen=True)
class RunReport:
    """What one invocation of a batch run did."""

    run: Run
    selected: int
    resumed: int
    attacked: int
    successful: int
    skipped: int
    seconds: float
    stopped: bool = False  # ``should_stop`` ended it early; the run stays resumable


#: How many upcoming pairs :meth:`Attack.warm` scores ahead in one batch (a batch of 32 sentences
#: takes about what 7 sentences take one at a time).
WARM_AHEAD = 32


def run_attacks(store: RunStore, spec: RunSpec, attack: Attack, victim: Victim, *,
                pairs: Sequence[NLIPair] | None = None, hooks: RunHooks = RunHooks()) -> RunReport:
    """Attack the selected pairs of ``spec.data`` with ``attack`` (``pairs``: already read from the
    file), committing each result; pairs already stored for the run are not attacked again (resume).
    Pairs the victim trained on are left out unless ``spec.include_trained`` (the run records which)."""
    pairs = read_pairs(spec.data, spec.fmt, spec.split) if pairs is None else pairs
    attack = attack.for_data(spec.data, spec.fmt)
    run, chosen = start_run(store, spec, attack.recipe, attack.resources, VictimInfo.of(victim), pairs)
    if hooks.on_start is not None:
        hooks.on_start(run, len(chosen))
    done = store.done_pair_indices(run.id)
    todo = [(k, p) for k, p in chosen if k not in done]
    began = time.monotonic()
    counts = dict.fromkeys(AttackStatus, 0)
    bar = tqdm(todo, desc=f"attack {spec.setup.name}", unit="pair", disable=not hooks.progress)
    stopped = False
    for n, (index, pair) in enumerate(bar):
        if hooks.should_stop is not None and hooks.should_stop():
            stopped = True
            break
        if n % WARM_AHEAD == 0:  # the next pairs' H scored under the float32 LM in one batch
            attack.warm([p.hypothesis for _, p in todo[n:n + WARM_AHEAD]])
        started = datetime.now(UTC)
        result = attack_pair(attack, Target.of_pair(pair, spec.setup), victim)
        store.record_attack(run.id, result.to_record(index, started, datetime.now(UTC)))
        counts[result.status] += 1
        bar.set_postfix({status.value: n for status, n in counts.items()})
    bar.close()
    if not stopped:
        store.finish_run(run.id)
    skipped = counts[AttackStatus.SKIPPED]
    attacked = sum(counts.values())
    return RunReport(run, len(chosen), len(chosen) - len(todo), attacked - skipped,
                     counts[AttackStatus.SUCCESS], skipped, time.monotonic() - began, stopped)
