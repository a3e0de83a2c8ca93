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
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, TypeVar

from engine.edits import Candidate
from engine.errors import InputError
from engine.natlog.relations import Relation, join_sets
from engine.natlog.setups import Setup
from runstore.vocab import NLILabel


@dataclass(frozen=True)
class CheckContext:
    """What the constraints know about a round: the premise (None when there is none), the setup
    (its relation set and target label), and H's relation to the hypothesis being edited."""

    setup: Setup
    premise: str | None = None
    composed: frozenset[Relation] = field(default_factory=lambda: frozenset({Relation.EQUIVALENCE}))


class Constraint(ABC):
    """One check on candidates. Subclasses set ``name`` (and ``description``) and implement :meth:`keep`."""

    name: ClassVar[str]
    description: ClassVar[str] = ""

    @abstractmethod
    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        """The candidates that pass, in their order."""

    def __repr__(self) -> str:
        return f"<constraint {self.name}>"


_REGISTRY: dict[str, Constraint] = {}
C = TypeVar("C", bound=type[Constraint])


def register_constraint(cls: C) -> C:
    """Class decorator: add one instance of ``cls`` to the chain (registration order is run order)."""
    if not cls.name or cls.name in _REGISTRY:
        raise ValueError(f"constraint name {cls.name!r} is empty or already registered")
    _REGISTRY[cls.name] = cls()
    return cls


def registered_constraints() -> tuple[Constraint, ...]:
    return tuple(_REGISTRY.values())


def get_constraint(name: str) -> Constraint:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown constraint {name!r}; known: {', '.join(_REGISTRY)}") from None


@dataclass(frozen=True)
class Checked:
    """The candidates a chain kept and, per constraint in chain order, how many it dropped."""

    kept: list[Candidate]
    rejected: dict[str, int]


def describe_rejected(rejected: dict[str, int]) -> str:
    """``3 by relation-guard, 1 by premise-check`` (constraints that dropped nothing left out)."""
    return ", ".join(f"{n} by {name}" for name, n in rejected.items() if n) or "none rejected"


@dataclass(frozen=True)
class ConstraintChain:
    """Constraints run in order; each sees only what the ones before it kept."""

    constraints: tuple[Constraint, ...]

    @classmethod
    def default(cls) -> ConstraintChain:
        """Every registered constraint, in registration order."""
        return cls(registered_constraints())

    @classmethod
    def named(cls, names: Iterable[str]) -> ConstraintChain:
        return cls(tuple(get_constraint(n) for n in names))

    def apply(self, candidates: Sequence[Candidate], check: CheckContext) -> Checked:
        kept = list(candidates)
        rejected: dict[str, int] = {}
        for constraint in self.constraints:
            passed = constraint.keep(kept, check)
            rejected[constraint.name] = len(kept) - len(passed)
            kept = passed
        return Checked(kept, rejected)


@register_constraint
class RelationGuard(Constraint):
    """Keep a candidate only if H's relation to it, composed across rounds with the join table,
    stays inside the setup's relation set (a round asks only for such edits; this guards the
    composition)."""

    name = "relation-guard"
    description = "H's composed relation to H* stays in the setup's relations"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        allowed = check.setup.relations
        return [c for c in candidates if join_sets(check.composed, {c.relation}) <= allowed]


def content_words(text: str) -> set[str]:
    """Lower-cased alphabetic words of ``text`` that are not stop words."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return {w for w in (t.strip(".,;:!?\"'").lower() for t in text.split()) if w.isalpha() and w not in STOP_WORDS}


@register_constraint
class PremiseCheck(Constraint):
    """For a neutral target: keep the candidates whose new words bring content P does not already have.

    An edit that makes H stronger with words of P ("a man sweeps" -> "a man in a red shirt sweeps"
    when P mentions the red shirt) likely leaves P entailing H*, so it could not be neutral.
    """

    name = "premise-check"
    description = "neutral targets: the edit adds content P does not have"

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        if check.setup.target_label != NLILabel.NEUTRAL or not check.premise:
            return list(candidates)
        known = content_words(check.premise)
        return [c for c in candidates if not (new := content_words(c.new)) or not new <= known]
