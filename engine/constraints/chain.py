"""Constraints: checks every candidate H* must pass before it is ranked and put to the victim.

A constraint is an object with a ``name`` and one method, :meth:`Constraint.keep`, that returns
the candidates it lets through; the :class:`ConstraintChain` runs the registered constraints in
order and tallies what each one dropped (``rejected: {name: count}``), which the round trace,
the CLI and the pages print. The attack search, ``engine candidates`` and the Candidates page
run the same chain.

Adding one is one class and one registration::

    @register_constraint
    class NoDigits(Constraint):
        name = "no-digits"
        description = "H* has no digits"

        def keep(self, candidates, check):
            return [c for c in candidates if not any(ch.isdigit() for ch in c.text)]

The framework is here; the constraints live in one module per family, as the edit operators do:
:mod:`engine.constraints.logic` (the relation guard, the premise check, the edit cap),
:mod:`engine.constraints.wording` (no doubled words, the re-parse check) and
:mod:`engine.constraints.fluency` (the fluency floor, the insertion fit, the verb fit).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from engine.core.registry import Configurable, Registry
from engine.core.settings import Settings
from engine.edits.records import Candidate
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.relations import Relation
from engine.natlog.setups import Setup
from engine.ranking.scoring import Scorer


@dataclass(frozen=True)
class CheckContext:
    """What the constraints know about a round: the premise (None when there is none), the setup
    (its relation set and target label), H's relation to the hypothesis being edited and how many
    edits led to it, the polarized hypothesis being edited, the settings, and the ranking scorer
    with its score of the original H (the fluency reference)."""

    setup: Setup
    premise: str | None = None
    composed: frozenset[Relation] = field(default_factory=lambda: frozenset({Relation.EQUIVALENCE}))
    edits: int = 0
    source: PolarizedSentence | None = None
    settings: Settings | None = None
    scorer: Scorer | None = None
    reference: float | None = None

    def needed_settings(self) -> Settings:
        """``settings``, for a constraint that parses or reads WordNet: a context built without them
        is the caller's mistake (ValueError), never a reason to fall back on the defaults."""
        if self.settings is None:
            raise ValueError(f"a {self.setup.name} check context without settings: pass the run's settings")
        return self.settings


class Constraint(Configurable, ABC):
    """One check on candidates. Subclasses set ``name`` (and ``description``) and implement :meth:`keep`;
    one with parameters names them in ``parameters`` and takes them in its constructor."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    #: Whether the check costs a model pass or a parse per candidate: a lazy round runs it only on
    #: the candidates the search reaches (:mod:`engine.attack.lazy`).
    costly: ClassVar[bool] = False

    @abstractmethod
    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        """The candidates that pass, in their order."""

    def __repr__(self) -> str:
        return f"<constraint {self.name}>"


_REGISTRY: Registry[Constraint] = Registry("constraint")
C = TypeVar("C", bound=type[Constraint])


def register_constraint(cls: C) -> C:
    """Class decorator: add one instance of ``cls`` to the chain (registration order is run order)."""
    _REGISTRY.add(cls.name, cls())
    return cls


def registered_constraints() -> tuple[Constraint, ...]:
    return _REGISTRY.values()


def get_constraint(name: str) -> Constraint:
    return _REGISTRY.get(name)


@dataclass(frozen=True)
class Checked:
    """The candidates a chain kept and, per constraint in chain order, how many it dropped (in all,
    and per edit operator)."""

    kept: list[Candidate]
    rejected: dict[str, int]
    by_operator: dict[str, dict[str, int]] = field(default_factory=dict)


def describe_rejected(rejected: dict[str, int]) -> str:
    """``3 by relation-guard, 1 by premise-check`` (constraints that dropped nothing left out)."""
    return ", ".join(f"{n} by {name}" for name, n in rejected.items() if n) or "none rejected"


def describe_by_operator(by_operator: dict[str, dict[str, int]]) -> str:
    """``reparse-check: PerturbHypo 2, Insertion 1; fluency-floor: ...`` (empty when nothing dropped)."""
    return "; ".join(f"{name}: " + ", ".join(f"{op} {n}" for op, n in ops.items())
                     for name, ops in by_operator.items() if ops)


@dataclass(frozen=True)
class ConstraintChain:
    """Constraints run in order; each sees only what the ones before it kept."""

    constraints: tuple[Constraint, ...]

    @classmethod
    def named(cls, names: Iterable[str]) -> ConstraintChain:
        return cls(tuple(get_constraint(n) for n in names))

    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.constraints)

    def split(self) -> tuple[ConstraintChain, ConstraintChain]:
        """The cheap checks and the costly ones (:attr:`Constraint.costly`), each in chain order. Every
        check keeps or drops a candidate on its own, so running the cheap part on a round and the
        costly part on what the search reaches keeps what the whole chain keeps."""
        return (ConstraintChain(tuple(c for c in self.constraints if not c.costly)),
                ConstraintChain(tuple(c for c in self.constraints if c.costly)))

    def apply(self, candidates: Sequence[Candidate], check: CheckContext) -> Checked:
        kept = list(candidates)
        rejected: dict[str, int] = {}
        by_operator: dict[str, dict[str, int]] = {}
        for constraint in self.constraints:
            passed = constraint.keep(kept, check)
            rejected[constraint.name] = len(kept) - len(passed)
            if len(passed) < len(kept):
                survivors = Counter(c.text for c in passed)
                dropped: Counter[str] = Counter()
                for c in kept:
                    if survivors[c.text]:
                        survivors[c.text] -= 1
                    else:
                        dropped[c.operator] += 1
                by_operator[constraint.name] = dict(sorted(dropped.items()))
            kept = passed
        return Checked(kept, rejected, by_operator)
