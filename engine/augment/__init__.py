"""Augmentation and the repair loop: successful H* of attack and profile runs on training pairs,
exported as a training file with their target labels and where each came from; a victim trained
with it, and both victims profiled on held-out pairs.

In: a runs store's attack and profile runs (and the study's verdicts). Out: an augmentation file;
with :func:`engine.augment.repair.run_repair`, a new victim and the before/after measurements.
"""

from engine.augment.export import (
    AugmentExample,
    AugmentReport,
    attack_examples,
    balance_anchors,
    export_augmentation,
    held_out_keys,
    profile_anchors,
    profile_examples,
    read_verdicts,
    with_anchors,
)
from engine.data.augmented import describe_augmentation, read_augmentation

__all__ = ["AugmentExample", "AugmentReport", "attack_examples", "balance_anchors", "export_augmentation",
           "held_out_keys", "profile_anchors", "profile_examples", "read_verdicts", "with_anchors",
           "describe_augmentation", "read_augmentation"]
