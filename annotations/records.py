"""Records stored in and read from the annotation store (defined once, reused everywhere)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.natlog.relations import NLI_LABELS as LABELS

ATTACK_STATUSES: tuple[str, ...] = ("success", "failed", "skipped")
ROLES: tuple[str, ...] = ("annotator", "admin")


@dataclass(frozen=True)
class Run:
    """One batch attack run: a setup against a victim over one data file."""

    id: int
    name: str
    setup: str
    victim: str
    data_path: str
    data_format: str
    seed: int
    config: dict[str, Any]
    created_at: str
    finished_at: str | None


@dataclass(frozen=True)
class AttackRecord:
    """What the attack engine hands to the store for one source pair.

    ``original_*`` fields describe the victim on (premise, hypothesis);
    ``adversarial_*`` fields describe it on (premise, H*). ``derivation`` and
    ``trace`` must be JSON-serialisable.
    """

    pair_index: int
    premise: str
    hypothesis: str
    gold_label: str | None
    status: str
    source_label: str
    target_label: str
    original_prediction: str | None = None
    original_probabilities: dict[str, float] | None = None
    adversarial_hypothesis: str | None = None
    adversarial_prediction: str | None = None
    adversarial_probabilities: dict[str, float] | None = None
    queries: int = 0
    cache_hits: int = 0
    perplexity: float | None = None
    operators: tuple[str, ...] = ()
    polarity: str | None = None
    derivation: Any = None
    trace: Any = None
    started_at: datetime | None = None
    finished_at: datetime | None = None

    def edit_values(self, group: str) -> tuple[str, ...]:
        """The distinct ``operator`` s, or edit ``polarity`` marks (↑ ↓ =), of H*'s derivation, in
        order of first use; ``("none",)`` when it has none. A value used twice counts once."""
        values = self.operators if group == "operator" else tuple(self.polarity or ())
        return tuple(dict.fromkeys(values)) or ("none",)


@dataclass(frozen=True)
class StoredAttack:
    """An attack as read back from the store, with its run's identity."""

    id: int
    run_id: int
    run_name: str
    pair_id: int
    item_id: int | None
    record: AttackRecord


@dataclass(frozen=True)
class Annotator:
    """A person (or crowd worker) who judges items; the token hash never leaves the store."""

    id: int
    name: str
    role: str
    created_at: str
    revoked_at: str | None
    source: str

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


@dataclass(frozen=True)
class QueueItem:
    """What an annotator sees: the pair to judge, nothing about the victim or other votes."""

    item_id: int
    premise: str
    hypothesis: str


@dataclass(frozen=True)
class Judgment:
    """One vote on one item."""

    id: int
    item_id: int
    annotator_id: int
    annotator: str
    label: str
    not_fluent: bool
    seconds: float | None
    source: str
    created_at: str


@dataclass(frozen=True)
class Progress:
    """An annotator's own progress: votes given and items still open to them."""

    done: int
    remaining: int


@dataclass(frozen=True)
class ImportReport:
    """Outcome of merging an external vote file: rows taken, duplicates skipped, rows rejected."""

    imported: int
    duplicates: int
    rejected: tuple[tuple[int, str], ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class ItemResult:
    """The aggregated votes of one attack item; ``majority`` is None while pending or tied."""

    item_id: int
    attack_id: int
    votes: dict[str, int]
    not_fluent: int
    majority: str | None
    state: str  # "pending" (fewer than k votes), "tie" or "resolved"


@dataclass(frozen=True)
class AnnotatorAgreement:
    """One annotator's votes, agreement with the majority, and accuracy on gold items."""

    name: str
    votes: int
    agreement: float | None
    gold_votes: int
    gold_accuracy: float | None
    not_fluent_share: float | None
    mean_seconds: float | None


@dataclass(frozen=True)
class AgreementReport:
    """Inter-annotator agreement over attack items."""

    fleiss_kappa: float | None
    fleiss_items: int
    krippendorff_alpha: float | None
    alpha_votes: int
    annotators: tuple[AnnotatorAgreement, ...]


@dataclass(frozen=True)
class HvasrRow:
    """Human-validated attack success for one group (a run, setup, data set, operator...)."""

    group: str
    value: str
    attacked: int
    successful: int
    judged: int
    valid: int
    asr: float | None
    hvasr: float | None
