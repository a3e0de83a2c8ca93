"""How the victim's confidence moves under perturbation: every candidate an attack put to the
victim, with its probability of the target label, read back from the stored search traces.

A *point* is one queried candidate: its round, its edit (operator, polarity of the edited site,
lexical relation and the projected sentence relation), the victim's probability of the target
label on (P, candidate), the *drop* from the original pair's probability, the ranking LM's score
and whether the search continued from it (the path H -> H*). Points group by operator, polarity,
lexical relation, setup or round, and filter like CheckList's test slices. Pure functions over
:class:`engine.store.records.StoredAttack`; the Confidence page draws them.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.core.errors import InputError
from engine.core.vocab import AttackStatus
from engine.store.records import StoredAttack

GROUPINGS: tuple[str, ...] = ("operator", "polarity", "lexical_relation", "relation", "setup", "round", "validity_band")
#: The bands of the validity estimate that ``validity_band`` groups by (upper bounds).
VALIDITY_BANDS = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def validity_band(validity: float | None) -> str:
    """The band of a validity estimate, e.g. ``0.6–0.7`` (``not estimated`` for None)."""
    if validity is None:
        return "not estimated"
    low = 0.0
    for high in VALIDITY_BANDS:
        if validity < high or high == 1.0:
            return f"{low:.1f}–{high:.1f}"
        low = high
    return f"{low:.1f}–1.0"


@dataclass(frozen=True)
class ConfidencePoint:
    """One candidate the victim was asked about during an attack."""

    attack_id: int
    run: str
    setup: str
    pair_index: int
    status: str
    round: int
    rank: int
    order: int
    text: str
    operator: str
    polarity: str
    lexical_relation: str
    relation: str
    target_prob: float
    drop: float
    ranking_score: float | None
    counted: bool
    on_path: bool
    flipped: bool
    #: The candidate's validity estimate when the run had a gate (None for runs without one).
    validity: float | None = None

    @property
    def validity_band(self) -> str:
        return validity_band(self.validity)


@dataclass(frozen=True)
class PathStep:
    """One hypothesis on the path from H (step 0) to the last one the search reached."""

    step: int
    text: str
    operator: str
    target_prob: float


@dataclass(frozen=True)
class GroupRow:
    """Points of one group: how many, the mean and median drop, and the share that flipped the victim."""

    group: str
    value: str
    points: int
    attacks: int
    mean_drop: float
    median_target_prob: float
    flip_share: float


def _target_prob(probs: dict[str, float] | None, target: str) -> float | None:
    return None if not probs else float(probs.get(target, 0.0))


def _rounds(attack: StoredAttack) -> list[dict[str, Any]]:
    trace = attack.record.trace
    if not isinstance(trace, dict):
        return []
    return [r for r in trace.get("rounds", []) if isinstance(r, dict)]


def attack_points(attack: StoredAttack) -> list[ConfidencePoint]:
    """The queried candidates of one attack, in query order (none for a skipped attack, or one
    stored without its trace)."""
    record = attack.record
    target = record.target_label.value
    start = _target_prob(record.original_probabilities, target)
    if start is None:
        return []
    out: list[ConfidencePoint] = []
    order = 0
    for rnd in _rounds(attack):
        chosen = rnd.get("chosen")
        for rank, q in enumerate(rnd.get("queried", [])):
            prob = _target_prob(q.get("probs"), target)
            if prob is None:
                continue
            order += 1
            out.append(ConfidencePoint(
                attack_id=attack.id, run=attack.run_name, setup=str(q.get("setup") or ""),
                pair_index=record.pair_index, status=record.status.value, round=int(rnd.get("round", 0)),
                rank=rank, order=order, text=str(q.get("text", "")), operator=str(q.get("operator", "")),
                polarity=str(q.get("polarity", "?")), lexical_relation=str(q.get("lexical_relation", "")),
                relation=str(q.get("relation", "")), target_prob=prob, drop=start - prob,
                ranking_score=q.get("score"), counted=bool(q.get("counted")), on_path=rank == chosen,
                flipped=q.get("label") not in (None, target),
                validity=float(q["validity"]) if q.get("validity") is not None else None,
            ))
    return out


def confidence_points(attacks: Iterable[StoredAttack], setups: dict[int, str] | None = None) -> list[ConfidencePoint]:
    """Every queried candidate of ``attacks`` (read with their traces). ``setups`` names each
    run's setup by run id, for traces whose candidates do not carry it."""
    out = []
    for attack in attacks:
        for point in attack_points(attack):
            if not point.setup and setups:
                point = replace(point, setup=setups.get(attack.run_id, ""))
            out.append(point)
    return out


def attack_path(attack: StoredAttack) -> list[PathStep]:
    """H, then each hypothesis the search continued from, with the victim's P(target) on each:
    the path from H to H* for a successful attack (its last step is H*)."""
    record = attack.record
    target = record.target_label.value
    start = _target_prob(record.original_probabilities, target)
    if start is None:
        return []
    steps = [PathStep(0, record.hypothesis, "", start)]
    for rnd in _rounds(attack):
        chosen = rnd.get("chosen")
        queried = rnd.get("queried", [])
        if chosen is None or not 0 <= chosen < len(queried):
            continue
        q = queried[chosen]
        prob = _target_prob(q.get("probs"), target)
        if prob is not None:
            steps.append(PathStep(len(steps), str(q.get("text", "")), str(q.get("operator", "")), prob))
    return steps


def filter_points(
    points: Iterable[ConfidencePoint], *, operators: Collection[str] | None = None,
    polarities: Collection[str] | None = None, setups: Collection[str] | None = None,
    success: bool | None = None, validity: tuple[float, float] | None = None,
) -> list[ConfidencePoint]:
    """The points of the chosen slices: each filter left at None keeps everything; ``success``
    keeps the points of successful (True) or of unsuccessful (False) attacks; ``validity`` keeps
    the points whose estimate lies in [low, high] (points without an estimate drop out)."""
    return [
        p for p in points
        if (operators is None or p.operator in operators)
        and (polarities is None or p.polarity in polarities)
        and (setups is None or p.setup in setups)
        and (success is None or (p.status == AttackStatus.SUCCESS.value) == success)
        and (validity is None or (p.validity is not None and validity[0] <= p.validity <= validity[1]))
    ]


def group_points(points: Sequence[ConfidencePoint], by: str) -> list[GroupRow]:
    """Points grouped by one of :data:`GROUPINGS`, largest mean drop first."""
    if by not in GROUPINGS:
        raise InputError(f"unknown grouping {by!r}; use one of: {', '.join(GROUPINGS)}")
    groups: dict[str, list[ConfidencePoint]] = defaultdict(list)
    for point in points:
        groups[str(getattr(point, by))].append(point)
    rows = [
        GroupRow(
            group=by, value=value, points=len(members), attacks=len({p.attack_id for p in members}),
            mean_drop=statistics.fmean(p.drop for p in members),
            median_target_prob=statistics.median(p.target_prob for p in members),
            flip_share=sum(p.flipped for p in members) / len(members),
        )
        for value, members in groups.items()
    ]
    return sorted(rows, key=lambda r: (-r.mean_drop, r.value))
