"""Records of the annotation layer (annotators, items, judgments, agreement, HVASR); the run
records it builds on come from :mod:`engine.store.records`."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.vocab import LABELS, AttackStatus, NLILabel
from engine.store.records import AttackRecord, Run, StoredAttack

__all__ = ["LABELS", "AttackRecord", "AttackStatus", "NLILabel", "Run", "StoredAttack"]

ROLES: tuple[str, ...] = ("annotator", "admin")


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

    @property
    def broken(self) -> bool:
        """At least half of the item's judges flagged H* as not fluent or not meaningful English."""
        return self.not_fluent * 2 >= sum(self.votes.values()) > 0


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
    #: the share of pairs of votes on an item that agree (Fleiss' P-bar), beside the chance-corrected kappa
    observed_agreement: float | None = None
    #: a 95 % bootstrap interval for kappa over the complete items
    kappa_interval: tuple[float, float] | None = None


@dataclass(frozen=True)
class HvasrRow:
    """Human-validated attack success for one group (a run, setup, data set, operator...), by the
    one definition of :class:`engine.reports.metrics.HumanValidation`."""

    group: str
    value: str
    attacked: int
    successful: int
    judged: int
    valid: int
    asr: float | None
    coverage: float | None
    hvasr: float | None
    hvasr_judged: float | None
    #: HVASR as the validity estimate predicts it (estimates of the successful H* over attacked pairs)
    hvasr_estimated: float | None = None
    #: the mean estimate over the judged attacks: beside ``hvasr_judged``, the estimate's calibration
    estimate_on_judged: float | None = None
    #: valid attacks that the judges also read as English (not :attr:`ItemResult.broken`)
    valid_fluent: int = 0
    #: HVASR under the stricter reading, label and not broken: ``valid_fluent`` over attacked pairs
    hvasr_fluent: float | None = None
