"""Records of the annotation layer (annotators, items, judgments, agreement, HVASR); the run
records it builds on come from :mod:`engine.store.records`."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.vocab import FLUENCIES, LABELS, AttackStatus, Fluency, NLILabel
from engine.store.records import AttackRecord, Run, StoredAttack

__all__ = ["FLUENCIES", "LABELS", "AttackRecord", "AttackStatus", "Fluency", "NLILabel", "Run", "StoredAttack"]

#: annotators judge; authors write attacks on the Write page and judge the others' items; admins
#: run the study and may do both.
ROLES: tuple[str, ...] = ("annotator", "admin", "author")


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

    @property
    def may_write(self) -> bool:
        """Whether this person may write attacks (authors and admins)."""
        return self.role in ("author", "admin")


@dataclass(frozen=True)
class QueueItem:
    """What an annotator sees: the pair to judge, nothing about the victim or other votes."""

    item_id: int
    premise: str
    hypothesis: str


@dataclass(frozen=True)
class Judgment:
    """One vote on one item: a label and how H* reads as English (``fluency``: ok, odd or broken)."""

    id: int
    item_id: int
    annotator_id: int
    annotator: str
    label: str
    fluency: str
    seconds: float | None
    source: str
    created_at: str

    @property
    def not_fluent(self) -> bool:
        """The older two-level reading of the vote: broken English."""
        return self.fluency == Fluency.BROKEN


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
    """The aggregated votes of one attack item; ``majority`` is None while pending or tied;
    ``fluency`` counts the votes per fluency level (ok, odd, broken)."""

    item_id: int
    attack_id: int
    votes: dict[str, int]
    fluency: dict[str, int]
    majority: str | None
    state: str  # "pending" (fewer than k votes), "tie" or "resolved"

    @property
    def not_fluent(self) -> int:
        """Votes that read H* as broken English (the older flag's count)."""
        return self.fluency.get(Fluency.BROKEN, 0)

    @property
    def broken(self) -> bool:
        """At least half of the item's judges read H* as broken (ungrammatical or meaningless)."""
        return self.not_fluent * 2 >= sum(self.votes.values()) > 0

    @property
    def natural(self) -> bool:
        """A strict majority of the item's judges read H* as ok: English a native speaker could have written."""
        return self.fluency.get(Fluency.OK, 0) * 2 > sum(self.votes.values())


@dataclass(frozen=True)
class AnnotatorAgreement:
    """One annotator's votes, agreement with the majority, and accuracy on gold items."""

    name: str
    votes: int
    agreement: float | None
    gold_votes: int
    gold_accuracy: float | None
    #: shares of this annotator's votes that read the hypothesis as odd, and as broken
    odd_share: float | None
    broken_share: float | None
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
    one definition of :class:`engine.reports.metrics.HumanValidation`, in its three readings side by
    side: label only (``hvasr``, the paper's), label and not broken (``hvasr_fluent``), label and
    natural (``hvasr_natural``)."""

    group: str
    value: str
    attacked: int
    successful: int
    judged: int
    valid: int
    #: valid attacks that the judges also read as English (not :attr:`ItemResult.broken`)
    valid_fluent: int
    #: valid attacks whose H* a strict majority of the judges read as natural (:attr:`ItemResult.natural`)
    valid_natural: int
    asr: float | None
    coverage: float | None
    hvasr: float | None
    #: HVASR, label and not broken: ``valid_fluent`` over attacked pairs
    hvasr_fluent: float | None
    #: HVASR, label and natural: ``valid_natural`` over attacked pairs
    hvasr_natural: float | None
    hvasr_judged: float | None
    #: HVASR as the validity estimate predicts it (estimates of the successful H* over attacked pairs)
    hvasr_estimated: float | None = None
    #: the mean estimate over the judged attacks: beside ``hvasr_judged``, the estimate's calibration
    estimate_on_judged: float | None = None


@dataclass(frozen=True)
class OpenItem:
    """An attack item that is not resolved yet, with the pair an admin needs to decide about it:
    ``missing`` votes it needs (a tie needs one more), ``can_vote`` active annotators who have
    neither voted on it nor skipped it, and what to do when nobody can (``advice``)."""

    item_id: int
    premise: str
    hypothesis: str
    state: str
    votes: int
    missing: int
    can_vote: int

    @property
    def stuck(self) -> bool:
        """No active annotator can give the votes it still needs: it never finishes as things stand."""
        return self.can_vote < self.missing

    @property
    def advice(self) -> str:
        if not self.stuck:
            return f"waiting: {self.can_vote} annotator(s) can still vote"
        if self.state == "tie":
            return "stuck tie: add an annotator, or adjudicate (export it and decide), or leave it a tie (not valid)"
        return "stuck: add an annotator, or lower k for the study"


@dataclass(frozen=True)
class AuthorRow:
    """One author's submitted attacks against the study's votes: how many they submitted and how many
    fooled the victim; of those the study resolved (``judged``), how many it validated (the majority
    label is the target: ``verified``, Dynabench's verified model error rate is ``verified / judged``)
    and how many it found natural too; and how often natural logic's verdict, where it committed
    (``committed``), gave the study's majority label (``verdict_agrees``)."""

    author: str
    submitted: int
    fooled: int
    judged: int
    verified: int
    natural: int
    committed: int
    verdict_agrees: int
    queries_mean: float | None

    @property
    def verified_rate(self) -> float | None:
        return self.verified / self.judged if self.judged else None

    @property
    def verdict_agreement(self) -> float | None:
        return self.verdict_agrees / self.committed if self.committed else None
