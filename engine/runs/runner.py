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

from engine.attack.identity import run_identity, runtime_identity, victim_identity
from engine.attack.recipe import AttackRecipe
from engine.attack.search import AttackTools, attack_pair
from engine.core.settings import Settings
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


def start_run(
    store: RunStore, run_name: str, data: Path, fmt: str, setup: Setup, victim_name: str, victim_location: str,
    labels: Sequence[str], settings: Settings, recipe: AttackRecipe, *, limit: int | None, seed: int,
    split: str | None, pairs: Sequence[NLIPair], include_trained: bool = False,
) -> tuple[Run, list[tuple[int, NLIPair]]]:
    """Create or resume the run (its whole identity checked, see :mod:`engine.attack.identity`) and choose its
    pairs; pairs the victim trained on are left out unless ``include_trained``. The run stores
    ``recipe`` (resolved for the data's format) whole."""
    recipe = recipe.for_data(data, fmt)
    settings = recipe.apply(settings)
    exclude = training_exclusions(victim_location, include_trained)
    chosen = select_pairs(pairs, setup, limit, seed, exclude)
    data_identity = {"sha256": file_digest(data), "format": fmt, "split": split, "limit": limit,
                     "include_trained": include_trained,
                     "trained_pairs_left_out": sum(1 for p in pairs if p.label == setup.source_label
                                                   and pair_key(p.premise, p.hypothesis) in exclude)}
    config = run_identity(recipe.to_json(), victim_identity(victim_location, ",".join(labels)), data_identity,
                          runtime_identity(settings))
    return store.start_run(run_name, setup.name, victim_name, data, fmt, seed, config), chosen


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


def run_attacks(
    store: RunStore, run_name: str, data: Path, fmt: str, setup: Setup, victim_name: str, victim: Victim,
    tools: AttackTools, settings: Settings, *, limit: int | None = None, seed: int = 0,
    split: str | None = None, pairs: Sequence[NLIPair] | None = None, progress: bool = True,
    should_stop: Callable[[], bool] | None = None, on_start: Callable[[Run, int], None] | None = None,
    include_trained: bool = False, recipe: AttackRecipe | None = None,
) -> RunReport:
    """Attack the selected pairs of ``data`` (``pairs``: already read from it), committing each
    result; pairs already stored for ``run_name`` are not attacked again (resume). Pairs the victim
    trained on are left out unless ``include_trained`` (the run records which).

    ``on_start(run, selected)`` is called once the run exists; ``should_stop()`` is asked before
    each pair, and a True ends the run early, unfinished (it resumes when run again).

    ``recipe`` is the attack (:class:`engine.attack.recipe.AttackRecipe`; ``tools`` must be built
    with it applied); None: the one ``settings`` describe, with AltLM as ``tools`` has it.
    """
    pairs = read_pairs(data, fmt, split) if pairs is None else pairs
    if recipe is None:
        recipe = AttackRecipe.from_settings(settings).with_alt_lm(tools.fill_in is not None)
    recipe = recipe.for_data(data, fmt)
    settings = recipe.apply(settings)
    run, chosen = start_run(store, run_name, data, fmt, setup, victim_name, victim.name, victim.labels, settings,
                            recipe, limit=limit, seed=seed, split=split, pairs=pairs, include_trained=include_trained)
    if on_start is not None:
        on_start(run, len(chosen))
    done = store.done_pair_indices(run.id)
    todo = [(k, p) for k, p in chosen if k not in done]
    began = time.monotonic()
    counts = dict.fromkeys(AttackStatus, 0)
    bar = tqdm(todo, desc=f"attack {setup.name}", unit="pair", disable=not progress)
    stopped = False
    for index, pair in bar:
        if should_stop is not None and should_stop():
            stopped = True
            break
        started = datetime.now(UTC)
        result = attack_pair(pair.premise, pair.hypothesis, pair.label, setup, victim, tools, settings, recipe)
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
