"""Inoculation by fine-tuning (Liu et al. 2019, as the semantic-fragments paper uses it).

For each k, a fresh copy of the victim is fine-tuned on k probe items (never the items it is then
scored on) and scored on the probe's test items and on an original benchmark. k = 0 is the victim
as it is. Reading the curve (Liu et al.'s three outcomes): the probe is *learned without loss* when
its accuracy rises and the original benchmark holds; *learned at a cost* when it rises but the
original benchmark drops; *not learned* when a few hundred items do not close the gap.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.data.readers import NLIPair
from engine.models.language import resolve_device
from engine.probes.record import ProbeItem
from engine.victim.model import HFVictim, Victim, load_victim, victim_location
from engine.victim.training import TrainConfig, fine_tune

#: accuracy gain that counts as learning the probe, and original-benchmark drop that counts as a cost
LEARNED_GAIN = 0.10
COST_DROP = 0.02


@dataclass(frozen=True)
class InoculationPoint:
    """Scores after fine-tuning on k probe items."""

    k: int
    probe_accuracy: float
    original_accuracy: float
    steps: int
    seconds: float


@dataclass(frozen=True)
class InoculationSettings:
    epochs: float = 3.0
    learning_rate: float = 5e-5
    batch_size: int = 16
    max_minutes: float = 10.0
    seed: int = 13


def _accuracy(victim: Victim, pairs: Sequence[tuple[str, str, str]]) -> float:
    predictions = victim.predict([(p, h) for p, h, _ in pairs])
    return sum(pred.label == gold for pred, (_, _, gold) in zip(predictions, pairs)) / max(len(pairs), 1)


def disjoint_training_items(train: Sequence[ProbeItem], test: Sequence[ProbeItem]) -> list[ProbeItem]:
    """``train`` without any item whose pair (premise, hypothesis) is also a test item."""
    seen = {(item.premise, item.hypothesis) for item in test}
    return [item for item in train if (item.premise, item.hypothesis) not in seen]


def parse_ks(text: str) -> list[int]:
    """``--k 0,50,200,1000`` -> sorted distinct sizes (one-line error otherwise)."""
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise InputError(f"--k {text!r}: give comma-separated item counts, e.g. 0,50,200,1000") from None
    if not ks or ks[0] < 0:
        raise InputError(f"--k {text!r}: counts must be 0 or more")
    return ks


def inoculate(victim_name: str, label_map: str | None, train: Sequence[ProbeItem], test: Sequence[ProbeItem],
              original: Sequence[NLIPair], ks: Sequence[int], settings: Settings,
              config: InoculationSettings = InoculationSettings(),
              progress: Callable[[int, int], None] | None = None) -> list[InoculationPoint]:
    """Fine-tune a fresh copy of the victim on the first k of ``train`` (seeded order) for each k."""
    from transformers import AutoModelForSequenceClassification

    train = disjoint_training_items(train, test)
    too_many = [k for k in ks if k > len(train)]
    if too_many:
        raise InputError(f"k={too_many[0]} is larger than the {len(train)} training items available "
                         "(after removing items that are also test items); generate more or lower --k")
    order = list(train)
    random.Random(config.seed).shuffle(order)
    base = load_victim(victim_name, label_map, settings=settings)
    if not isinstance(base, HFVictim):
        raise InputError(f"inoculation fine-tunes the victim: {victim_name!r} is not a Hugging Face model")
    probe_pairs = [(item.premise, item.hypothesis, item.label) for item in test]
    original_pairs = [(pair.premise, pair.hypothesis, pair.label) for pair in original]
    location = victim_location(victim_name, settings)
    device = resolve_device(settings)
    points = []
    for done, k in enumerate(ks):
        if k == 0:
            victim, steps, seconds = base, 0, 0.0
        else:
            torch.manual_seed(config.seed)
            model = AutoModelForSequenceClassification.from_pretrained(location)
            pairs = [NLIPair(f"inoculation-{j}", item.premise, item.hypothesis, item.label, item.suite, j)
                     for j, item in enumerate(order[:k])]
            run = fine_tune(model, base.tokenizer, pairs,
                            TrainConfig(backbone=location, train=(), epochs=config.epochs,
                                        batch_size=config.batch_size, learning_rate=config.learning_rate,
                                        max_minutes=config.max_minutes, seed=config.seed),
                            device, labels=base.labels, progress=False)
            victim = HFVictim(model, base.tokenizer, base.labels, name=f"{location}+{k}", device=device)
            steps, seconds = run.steps, run.seconds
        points.append(InoculationPoint(k, round(_accuracy(victim, probe_pairs), 4),
                                       round(_accuracy(victim, original_pairs), 4), steps, round(seconds, 1)))
        if progress:
            progress(done + 1, len(ks))
    return points


def outcome(points: Sequence[InoculationPoint], probe_items: int | None = None,
            original_items: int | None = None) -> str:
    """Liu et al.'s reading of a curve: learned without loss, learned at a cost, or not learned.

    A gain or drop counts when it exceeds the fixed floor (:data:`LEARNED_GAIN`, :data:`COST_DROP`)
    and, when the number of items scored is given, two standard errors of the k = 0 accuracy: on
    200 items a 3-point drop is noise, not a cost.
    """
    if len(points) < 2 or points[0].k != 0:
        return "not enough points (need k=0 and a larger k)"
    first, last = points[0], points[-1]
    if last.probe_accuracy - first.probe_accuracy < max(LEARNED_GAIN, _two_se(first.probe_accuracy, probe_items)):
        return "not learned"
    if first.original_accuracy - last.original_accuracy > max(COST_DROP, _two_se(first.original_accuracy, original_items)):
        return "learned at a cost"
    return "learned without loss"


def _two_se(accuracy: float, items: int | None) -> float:
    return 0.0 if not items else 2 * math.sqrt(accuracy * (1 - accuracy) / items)
