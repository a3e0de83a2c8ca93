"""Projectivity signatures (MacCartney 2009; MacCartney & Manning 2009) and their composition.

A projectivity maps each of the seven relations holding between two
expressions to the relation holding between two contexts that differ only in
those expressions. Nested triggers compose: the innermost applies first.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from engine.natlog.relations import RELATION_ORDER, Relation


class Polarity(enum.Enum):
    """Monotonicity of a position: upward, downward or neither (value = its mark)."""

    UP = "↑"
    DOWN = "↓"
    NONE = "="

    @property
    def mark(self) -> str:
        return self.value

    @classmethod
    def from_mark(cls, mark: str) -> "Polarity":
        for polarity in cls:
            if polarity.value == mark:
                return polarity
        raise ValueError(f"unknown polarity mark {mark!r}; use ↑, ↓ or =")


@dataclass(frozen=True)
class Projectivity:
    """A projection function over the seven relations; ``mapping[k]`` projects ``RELATION_ORDER[k]``."""

    name: str
    mapping: tuple[Relation, ...]

    def __post_init__(self) -> None:
        if len(self.mapping) != len(RELATION_ORDER) or self.mapping[0] is not Relation.EQUIVALENCE:
            raise ValueError(f"projectivity {self.name!r} must map 7 relations and keep equivalence")

    def __call__(self, relation: Relation) -> Relation:
        return self.mapping[RELATION_ORDER.index(relation)]

    def then(self, outer: "Projectivity") -> "Projectivity":
        """This projectivity (inner) followed by ``outer``."""
        return Projectivity(f"{outer.name}∘{self.name}", tuple(outer(r) for r in self.mapping))

    @property
    def polarity(self) -> Polarity:
        """UP when forward entailment projects to itself, DOWN when to reverse, else NONE."""
        forward = self(Relation.FORWARD)
        if forward is Relation.FORWARD:
            return Polarity.UP
        if forward is Relation.REVERSE:
            return Polarity.DOWN
        return Polarity.NONE


def signature(name: str, symbols: str) -> Projectivity:
    """Build a projectivity from seven symbols in RELATION_ORDER, e.g. ``"≡⊐⊏^‿|#"``."""
    return Projectivity(name, tuple(Relation(s) for s in symbols))


def agreement(first: Projectivity, second: Projectivity) -> Projectivity:
    """The projectivity of a position under a conjunction of two triggers: a direction both share, else none."""
    if first.polarity is second.polarity is Polarity.UP:
        return UPWARD
    if first.polarity is second.polarity is Polarity.DOWN:
        return DOWNWARD
    return NON_MONOTONE


def compose(projectivities: Iterable[Projectivity]) -> Projectivity:
    """Compose projectivities listed from innermost to outermost."""
    result = IDENTITY
    for p in projectivities:
        result = p if result is IDENTITY else result.then(p)
    return result


# Generic signatures.
IDENTITY = signature("identity", "≡⊏⊐^|‿#")
UPWARD = signature("upward", "≡⊏⊐####")
DOWNWARD = signature("downward", "≡⊐⊏####")
NEGATION = signature("negation", "≡⊐⊏^‿|#")
ANTI_ADDITIVE = signature("anti-additive", "≡⊐⊏|#|#")
NON_MONOTONE = signature("non-monotone", "≡######")

# Quantifier signatures, (first argument, second argument): MacCartney & Manning (2009), Table 3;
# † entries assume the other argument is non-vacuous.
SOME = (signature("some:1", "≡⊏⊐‿#‿#"), signature("some:2", "≡⊏⊐‿#‿#"))
NO = (signature("no:1", "≡⊐⊏|#|#"), signature("no:2", "≡⊐⊏|#|#"))
EVERY = (signature("every:1", "≡⊐⊏|#|#"), signature("every:2", "≡⊏⊐||##"))
NOT_EVERY = (signature("not every:1", "≡⊏⊐‿#‿#"), signature("not every:2", "≡⊐⊏‿‿##"))
AT_LEAST_N = (signature("at least n:1", "≡⊏⊐####"), signature("at least n:2", "≡⊏⊐####"))
AT_MOST_N = (signature("at most n:1", "≡⊐⊏####"), signature("at most n:2", "≡⊐⊏####"))
MOST = (signature("most:1", "≡######"), signature("most:2", "≡⊏⊐||##"))
MANY = (signature("many:1", "≡######"), signature("many:2", "≡⊏⊐####"))
FEW = (signature("few:1", "≡⊐⊏####"), signature("few:2", "≡⊐⊏####"))
EXACTLY_N = (NON_MONOTONE, NON_MONOTONE)
ALL_BUT_N = (NON_MONOTONE, NON_MONOTONE)
# Bare numerals (see triggers.numeral_reading): a subject numeral reads "exactly n", so its
# noun and its body are both non-monotone (the dev gold's "Five↑ dogs= see= ..."; an = noun
# with an upward body would mix the "exactly" and "at least" readings); as an object the noun
# keeps its context (upward) unless the predicate reads the count exhaustively.
BARE_NUMERAL = EXACTLY_N
# The number of an "exactly n" phrase. Numbers as lexical items read "at most n" (smaller ⊏ larger,
# the verifier's convention), and "exactly n" and "exactly m" are disjoint without covering every
# case: either direction of a number change projects to alternation ("Two dogs run" | "Three dogs run").
EXACT_NUMBER = signature("exactly n: number", "≡||####")
OBJECT_NUMERAL = (UPWARD, UPWARD)
EXHAUSTIVE_NUMERAL = (NON_MONOTONE, UPWARD)
# Comparative determiners "more A than B" / "fewer A than B": (A, B, body).
MORE_THAN = (UPWARD, DOWNWARD, NON_MONOTONE)
FEWER_THAN = (DOWNWARD, UPWARD, NON_MONOTONE)
