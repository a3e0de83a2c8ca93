"""The repair loop: profile a victim on training pairs, export what fooled it, train a new victim with
that added, and profile both on held-out pairs, so the report card shows whether the weakness went.

1. **Mine.** A profile run of the victim on each mining source (pairs it never trained on, from
   training files: SNLI test's TRAIN half, the fragments' train files).
2. **Export.** Every phenomenon that fooled it on a pair becomes a training example (P, H*, target
   label) when judged valid or estimated valid (:func:`engine.augment.export.export_augmentation`),
   with as many anchors per phenomenon: H* of the same phenomenon that the victim got right, other
   labels first (:func:`engine.augment.export.balance_anchors`);
   any example whose source pair or (P, H*) is a held-out pair, or a pair of the recipe's evaluation
   files, is dropped.
3. **Train.** The victim's training recipe with the file added (:class:`TrainConfig` ``augment``); its
   model card records the augmentation, and its trained-pairs list the mined source pairs.
4. **Measure.** Both victims profiled on the same held-out pairs; the three phenomena the first
   failed most on (cells of at least ``min_pairs`` pairs), their failure rates before and after on
   the pairs both victims got right, and both victims' clean accuracy (evaluation and held-out
   files, and the semantic fragments' dev files where the data has them).

Every step is resumable: the profile runs resume by name, and a trained victim whose card records
the same recipe is reused.

In: a :class:`RepairSpec`, a runs store, the attack tools. Out: :class:`RepairReport`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.attack.build import Attack
from engine.augment.export import (
    DEFAULT_MIN_VALIDITY,
    AugmentReport,
    export_augmentation,
    held_out_keys,
    profile_anchors,
    profile_examples,
    with_anchors,
)
from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.natlog.setups import Setup
from engine.profile.card import CardCell, card_cells
from engine.profile.runner import DEFAULT_BUDGET, ProfileSpec, run_profile
from engine.store.profile_runs import ProfilePair
from engine.store.store import RunStore
from engine.victim.model import Victim, load_victim
from engine.victim.training import OFFLINE_EVAL, OFFLINE_TRAIN, DataSource, TrainConfig, evaluate, train_victim

__all__ = ["FRAGMENT_NAMES", "POOLED", "REPAIR_HELD_OUT", "REPAIR_MINE", "RepairReport", "RepairSpec", "RepairStopped",
           "Weakness", "augment_file", "both_profiled", "compare_profiles", "repair_fragments", "repair_reports",
           "repair_steps", "report_path", "run_repair", "weakest"]

#: What the repair loop mines and measures on by default: pairs of training files the offline victim
#: never trained on, and the held-out pairs its report card profiles (docs/report-card.md).
REPAIR_MINE = (
    "snli_test.tsv,format=tsv,split=TRAIN,limit=400",
    "semantic_fragments/monotonicity_simple/train.tsv,format=tsv,limit=300",
)
REPAIR_HELD_OUT = (
    "snli_test.tsv,format=tsv,split=TEST,limit=320",
    "semantic_fragments/monotonicity_simple/dev.tsv,format=tsv,limit=200",
)

#: The semantic-fragments dev files both victims' clean accuracy is also read on, where the shared
#: data has them (Richardson et al.'s eight fragments, 500 pairs each).
FRAGMENT_NAMES = ("boolean", "comparative", "conditional", "counting", "monotonicity_hard", "monotonicity_simple",
                  "negation", "quantifier")
FRAGMENT_LIMIT = 500


def repair_fragments(base: Path) -> tuple[DataSource, ...]:
    """The fragments' dev files under the shared data folder ``base`` that exist, as scored sources."""
    paths = (base / "semantic_fragments" / name / "dev.tsv" for name in FRAGMENT_NAMES)
    return tuple(DataSource(path, "tsv", None, FRAGMENT_LIMIT) for path in paths if path.is_file())


#: Cells this small say little; the loop's "three phenomena it failed most" need this many pairs.
MIN_PAIRS = 20


@dataclass(frozen=True)
class RepairSpec:
    """One repair loop: its name (a prefix of its runs and files), the victim, where H* are mined,
    the held-out sources both victims are profiled on, the setups, the budget per phenomenon, the
    validity an unjudged H* needs, where the new victim goes, and whether anchors are trained beside
    what fooled the victim (:func:`engine.augment.export.balance_anchors`: per phenomenon as many H*
    the victim got right, from the other labels first, so no phenomenon becomes a label of its own)."""

    name: str
    victim: str
    mine: tuple[DataSource, ...]
    held_out: tuple[DataSource, ...]
    setups: tuple[Setup, ...]
    budget: int = DEFAULT_BUDGET
    min_validity: float = DEFAULT_MIN_VALIDITY
    output: Path | None = None
    seed: int = 0
    train: tuple[str, ...] = OFFLINE_TRAIN
    evaluation: tuple[str, ...] = OFFLINE_EVAL
    epochs: float = TrainConfig.epochs
    anchors: bool = True
    #: more files both victims' clean accuracy is read on (the fragments: :func:`repair_fragments`)
    scored: tuple[DataSource, ...] = ()


class RepairStopped(InputError):
    """The loop was stopped on request; what it stored resumes under the same name."""


def repair_steps(spec: RepairSpec) -> int:
    """How many steps the loop announces: one per mined source, the export, the training, the clean
    accuracy, and two per held-out source."""
    return len(spec.mine) + 3 + 2 * len(spec.held_out)


@dataclass(frozen=True)
class Weakness:
    """One phenomenon in one setup: failure rates on held-out pairs that both victims got right."""

    source: str
    phenomenon: str
    setup: str
    pairs: int
    before: float
    after: float

    @property
    def relative_drop(self) -> float:
        return (self.before - self.after) / self.before if self.before else 0.0


@dataclass(frozen=True)
class RepairReport:
    """What the loop did and measured."""

    augmentation: AugmentReport
    victim_after: Path
    accuracy_before: dict[str, float]
    accuracy_after: dict[str, float]
    weakest: list[Weakness]
    cells: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "augmentation": {"path": str(self.augmentation.path), "kept": self.augmentation.kept,
                             "found": self.augmentation.found, "held_out": self.augmentation.held_out,
                             "low_validity": self.augmentation.low_validity,
                             "judged_invalid": self.augmentation.judged_invalid,
                             "by_label": self.augmentation.by_label, "by_what": self.augmentation.by_what,
                             "by_kind": self.augmentation.by_kind},
            "victim_after": str(self.victim_after),
            "accuracy_before": self.accuracy_before, "accuracy_after": self.accuracy_after,
            "weakest": [{"source": w.source, "phenomenon": w.phenomenon, "setup": w.setup, "pairs": w.pairs,
                         "before": round(w.before, 4), "after": round(w.after, 4),
                         "relative_drop": round(w.relative_drop, 4)} for w in self.weakest],
            "cells": self.cells,
        }


def both_profiled(before: Sequence[ProfilePair], after: Sequence[ProfilePair]) -> tuple[list[ProfilePair], list[ProfilePair]]:
    """The pairs both victims got right on (P, H), so both were profiled on them."""
    done = {(p.pair_index, p.setup) for p in before if p.status == "profiled"}
    common = done & {(p.pair_index, p.setup) for p in after if p.status == "profiled"}
    return ([p for p in before if (p.pair_index, p.setup) in common],
            [p for p in after if (p.pair_index, p.setup) in common])


def weakest(source: str, before: Sequence[CardCell], after: Sequence[CardCell], count: int = 3,
            min_pairs: int = MIN_PAIRS) -> list[Weakness]:
    """The ``count`` cells the first victim failed most on (of ``min_pairs`` pairs or more), with the
    second victim's rate on the same cell."""
    later = {(c.phenomenon, c.setup): c for c in after}
    ranked = sorted((c for c in before if c.pairs >= min_pairs), key=lambda c: (-c.failure_rate, -c.pairs))
    return [Weakness(source, c.phenomenon, c.setup, c.pairs, c.failure_rate,
                     later[(c.phenomenon, c.setup)].failure_rate if (c.phenomenon, c.setup) in later else 0.0)
            for c in ranked[:count]]


#: The source name of the cells pooled over every held-out file.
POOLED = "all held-out files"


def compare_profiles(profiles: Sequence[tuple[str, Sequence[ProfilePair], Sequence[ProfilePair]]],
                     ) -> tuple[list[Weakness], dict[str, dict[str, list[dict[str, Any]]]]]:
    """Per held-out file (name, the first victim's profiled pairs, the second's), and pooled over them
    when there are several: the three weakest cells on the pairs both victims got right, and every
    cell of both."""
    weak: list[Weakness] = []
    cells: dict[str, dict[str, list[dict[str, Any]]]] = {}
    pooled: tuple[list[ProfilePair], list[ProfilePair]] = ([], [])
    for name, before, after in profiles:
        first, second = both_profiled(before, after)
        pooled[0].extend(first)
        pooled[1].extend(second)
        a, b = card_cells(first), card_cells(second)
        weak += weakest(name, a, b)
        cells[name] = {"before": [c.to_json() for c in a], "after": [c.to_json() for c in b]}
    if len(profiles) > 1:
        weak += weakest(POOLED, card_cells(pooled[0]), card_cells(pooled[1]))
    return weak, cells


def run_repair(store: RunStore, spec: RepairSpec, attack: Attack, settings: Settings, *,
               augment_path: Path, progress: bool = True,
               on_step: Callable[[str], None] | None = None,
               should_stop: Callable[[], bool] | None = None) -> RepairReport:
    """Run the whole loop (module docstring); ``on_step`` hears each step as one line as it starts
    (:func:`repair_steps` of them); a True from ``should_stop()`` ends it (:class:`RepairStopped`),
    resumable."""
    if not spec.mine or not spec.held_out:
        raise InputError("the repair loop needs at least one source to mine and one held-out source")
    say = on_step or (lambda line: None)
    base = settings.shared_data_dir
    evaluation = tuple(DataSource.parse(s, base) for s in spec.evaluation)
    before = load_victim(spec.victim, settings=settings)

    def profile(victim: Victim, victim_name: str, source: DataSource, run_name: str) -> list[ProfilePair]:
        say(f"profiling {victim_name} on {source.name} ({run_name})")
        profile_spec = ProfileSpec(run_name, source.path, source.fmt, spec.setups, victim_name, source.limit,
                                   spec.seed, source.split, spec.budget)
        report = run_profile(store, profile_spec, attack, victim, progress=progress, should_stop=should_stop)
        if report.stopped:
            raise RepairStopped(f"stopped on request during {run_name}; run the loop again to resume")
        return store.profile_pairs(report.run.id)

    mined, anchors = [], []
    for k, source in enumerate(spec.mine):
        profile(before, spec.victim, source, f"{spec.name}-mine-{k}")
        mined += profile_examples(store, f"{spec.name}-mine-{k}")
        anchors += profile_anchors(store, f"{spec.name}-mine-{k}") if spec.anchors else []
    held = held_out_keys(spec.held_out + evaluation)
    augmentation = export_augmentation(with_anchors(mined, anchors, held, spec.min_validity), augment_path, held,
                                       spec.min_validity)
    if augmentation.kept == 0:
        raise InputError(f"no H* to train on: {augmentation.summary()}")
    say(f"exported: {augmentation.summary()}")

    config = TrainConfig(backbone=settings.backbone, train=tuple(DataSource.parse(s, base) for s in spec.train),
                         epochs=spec.epochs, augment=(augment_path,))
    output = spec.output or settings.models_dir / f"victim-{spec.name}"
    say(f"training the augmented victim into {output}")
    trained = train_victim(config, settings, output, evaluation + spec.held_out, progress=progress,
                           should_stop=should_stop)
    after = load_victim(str(trained.folder), settings=settings)
    say("clean accuracy of both victims")
    clean = {f"{source.name} ({source.limit or 'all'})": source.load(config.seed)
             for source in evaluation + spec.held_out + spec.scored}
    accuracy_before = {name: round(evaluate(before, pairs).accuracy, 4) for name, pairs in clean.items()}
    accuracy_after = {name: round(evaluate(after, pairs).accuracy, 4) for name, pairs in clean.items()}

    weak, cells = compare_profiles([(source.name, profile(before, spec.victim, source, f"{spec.name}-before-{k}"),
                                     profile(after, str(trained.folder), source, f"{spec.name}-after-{k}"))
                                    for k, source in enumerate(spec.held_out)])
    return RepairReport(augmentation, trained.folder, accuracy_before, accuracy_after, weak, cells)


def report_path(settings: Settings, name: str) -> Path:
    """Where loop ``name`` leaves its measurements (``NAME.report.json``) beside its training file."""
    return settings.data_dir / "augment" / f"{name}.report.json"


def augment_file(settings: Settings, name: str) -> Path:
    """Where loop ``name`` writes its training file (``NAME.jsonl``)."""
    return settings.data_dir / "augment" / f"{name}.jsonl"


def repair_reports(settings: Settings) -> dict[str, dict[str, Any]]:
    """Every finished loop's measurements, by loop name (files that do not read are left out)."""
    folder = settings.data_dir / "augment"
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.report.json")) if folder.is_dir() else []:
        try:
            out[path.name.removesuffix(".report.json")] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
    return out
