"""What an attack on one pair produced: its rounds (each with the candidates asked and the
victim's answers), the derivation H -> H*, and the result with its full trace, which the runs store
keeps (:meth:`AttackResult.to_record`). The search that makes them is :mod:`engine.attack.search`.

In: what the search did. Out: frozen records, as JSON and as the store's :class:`AttackRecord`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime

from engine.core.caches import CacheCounts, hit_rates
from engine.core.vocab import LABELS, AttackStatus, NLILabel
from engine.edits.records import Candidate
from engine.natlog.relations import Relation, relation_symbols
from engine.store.records import AttackRecord
from engine.verify.verifier import SelfCheck
from engine.victim.model import Prediction

__all__ = ["AttackResult", "DerivationStep", "Query", "Round", "RoundOutcome"]


class RoundOutcome(enum.StrEnum):
    """How a round ended."""

    SUCCESS = "success"  # a queried candidate left the target label
    EXHAUSTED = "exhausted"  # every ranked candidate asked; the next round starts from the best
    # ``round_patience`` asks in a row did not lower the round's best target probability: the next
    # round starts from the best, and the round's other candidates wait for a dead end
    PAUSED = "paused"
    BUDGET = "budget"  # the query budget is spent
    NO_CANDIDATES = "no-candidates"  # nothing left to ask
    BELOW_VALIDITY = "below-validity"  # candidates there were, but every one's validity estimate was under min_validity
    UNPARSABLE = "unparsable"  # the current hypothesis could not be parsed


@dataclass(frozen=True)
class Query:
    """One candidate put to the victim: its prediction and whether it cost a query."""

    text: str
    prediction: Prediction
    counted: bool
    queries_so_far: int


@dataclass(frozen=True)
class Round:
    """One round of the search, from ``hypothesis`` (whose relation to H is ``composed``)."""

    index: int
    hypothesis: str
    composed: frozenset[Relation]
    allowed: frozenset[Relation]
    candidates: tuple[Candidate, ...]
    rejected: dict[str, int]
    revisited: int
    queried: tuple[Query, ...]
    outcome: RoundOutcome
    chosen: int | None
    seconds: float
    rejected_by_operator: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The polarity mark of each ranked candidate's edit site (as :func:`engine.attack.search.edit_polarity`).
    polarities: tuple[str, ...] = ()
    #: Where the search goes on after a round that led nowhere (``max_backtracks``): the candidate
    #: of an earlier round it resumes from; None when it goes on from the chosen one or stops.
    resumed: str | None = None
    #: When the search goes on with the candidates a paused round did not ask: that round's index.
    back_to: int | None = None
    #: Why each asked candidate was asked where it was (:func:`engine.attack.round.ask_reason`).
    reasons: tuple[str, ...] = ()
    #: What the round looked up in the process's caches (:mod:`engine.core.caches`), by cache.
    caches: dict[str, CacheCounts] = field(default_factory=dict)
    #: A lazy round (:mod:`engine.attack.lazy`): the windows it checked, and how many candidates that
    #: passed its cheap checks it never checked further (no parse, no LM score, no full estimate).
    windows: int = 0
    unchecked: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "round": self.index, "hypothesis": self.hypothesis, "resumed": self.resumed,
            **({"back_to": self.back_to} if self.back_to is not None else {}),
            "composed": relation_symbols(self.composed), "allowed": relation_symbols(self.allowed),
            "ranked": len(self.candidates), "rejected": dict(self.rejected),
            "rejected_by_operator": {k: dict(v) for k, v in self.rejected_by_operator.items()},
            "revisited": self.revisited, "outcome": self.outcome, "chosen": self.chosen,
            "seconds": round(self.seconds, 3), "caches": hit_rates(self.caches),
            **({"windows": self.windows, "unchecked": self.unchecked} if self.windows else {}),
            "queried": [
                {**c.to_json(), **q.prediction.to_json(), "counted": q.counted, "queries": q.queries_so_far,
                 **({"polarity": self.polarities[k]} if k < len(self.polarities) else {}),
                 **({"why": self.reasons[k]} if k < len(self.reasons) else {})}
                for k, (c, q) in enumerate(zip(self.candidates, self.queried))
            ],
        }


@dataclass(frozen=True)
class DerivationStep:
    """One edit on the path H -> H*: the candidate, its edit polarity, and H's relation to it."""

    round: int
    source: str
    candidate: Candidate
    polarity: str
    composed: frozenset[Relation]

    def to_json(self) -> dict[str, object]:
        return {"round": self.round, "from": self.source, **self.candidate.to_json(),
                "polarity": self.polarity, "composed": relation_symbols(self.composed)}


@dataclass(frozen=True)
class AttackResult:
    """The outcome of attacking one pair, with its full trace.

    ``status`` is ``success``, ``failed`` (``reason``: ``budget``, ``no-candidates`` or
    ``unparsable: ...``) or
    ``skipped`` (the victim was already wrong on the original pair).
    """

    premise: str
    hypothesis: str
    gold_label: NLILabel
    setup: str
    target_label: NLILabel
    status: AttackStatus
    reason: str
    original: Prediction
    adversarial: Prediction | None
    adversarial_hypothesis: str | None
    relation: frozenset[Relation]
    derivation: tuple[DerivationStep, ...]
    rounds: tuple[Round, ...]
    queries: int
    cache_hits: int
    perplexity: float | None
    seconds: float
    # verify(H, H*) for a success: does the project's own logic re-derive the setup's relation?
    self_check: SelfCheck | None = None

    @property
    def caches(self) -> dict[str, CacheCounts]:
        """The cache lookups of all the attack's rounds, by cache."""
        total: dict[str, CacheCounts] = {}
        for round_ in self.rounds:
            for name, counted in round_.caches.items():
                total[name] = total.get(name, CacheCounts()) + counted
        return dict(sorted(total.items()))

    def to_json(self) -> dict[str, object]:
        return {
            "premise": self.premise, "hypothesis": self.hypothesis, "gold_label": self.gold_label,
            "setup": self.setup, "target_label": self.target_label, "status": self.status,
            "reason": self.reason, "original": self.original.to_json(),
            "adversarial": self.adversarial.to_json() if self.adversarial else None,
            "adversarial_hypothesis": self.adversarial_hypothesis, "relation": relation_symbols(self.relation),
            "derivation": [s.to_json() for s in self.derivation],
            "rounds": [r.to_json() for r in self.rounds], "queries": self.queries,
            "cache_hits": self.cache_hits, "perplexity": self.perplexity, "seconds": round(self.seconds, 3),
            "caches": hit_rates(self.caches),
            "self_check": self.self_check.to_json() if self.self_check else None,
        }

    def to_record(self, pair_index: int, started: datetime, finished: datetime) -> AttackRecord:
        """The store's record of this attack."""
        won = self.status is AttackStatus.SUCCESS
        return AttackRecord(
            pair_index=pair_index, premise=self.premise, hypothesis=self.hypothesis,
            gold_label=self.gold_label, status=self.status, source_label=self.gold_label,
            target_label=self.target_label, original_prediction=self.original.label,
            original_probabilities=dict(zip(LABELS, self.original.probs)),
            adversarial_hypothesis=self.adversarial_hypothesis if won else None,
            adversarial_prediction=self.adversarial.label if won and self.adversarial else None,
            adversarial_probabilities=dict(zip(LABELS, self.adversarial.probs)) if won and self.adversarial else None,
            queries=self.queries, cache_hits=self.cache_hits, perplexity=self.perplexity,
            operators=tuple(s.candidate.operator for s in self.derivation) if won else (),
            polarity="".join(s.polarity for s in self.derivation) if won else None,
            derivation=[s.to_json() for s in self.derivation] if won else None,
            trace={"reason": self.reason, "relation": relation_symbols(self.relation),
                   "rounds": [r.to_json() for r in self.rounds], "seconds": round(self.seconds, 3),
                   "caches": hit_rates(self.caches),
                   **({"self_check": self.self_check.to_json()} if self.self_check else {})},
            started_at=started, finished_at=finished,
        )
