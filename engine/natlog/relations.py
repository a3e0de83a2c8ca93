"""MacCartney's seven semantic relations, their join table and their NLI labels.

The join table is MacCartney (2009, Table 5.2): ``join(r1, r2)`` is the set of
relations that can hold between x and z when ``x r1 y`` and ``y r2 z``; cells
where the result is a union keep the whole set.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from functools import reduce

from engine.core.vocab import NLILabel


class Relation(enum.Enum):
    """A semantic relation between two expressions (value = its symbol)."""

    EQUIVALENCE = "≡"
    FORWARD = "⊏"
    REVERSE = "⊐"
    NEGATION = "^"
    ALTERNATION = "|"
    COVER = "‿"
    INDEPENDENCE = "#"

    @property
    def symbol(self) -> str:
        return self.value


RELATION_ORDER: tuple[Relation, ...] = tuple(Relation)

_E, _F, _R, _N, _A, _C, _I = RELATION_ORDER
_ALL = frozenset(RELATION_ORDER)

# Rows: r1, columns: r2, both in RELATION_ORDER.
_JOIN_ROWS: tuple[tuple[frozenset[Relation], ...], ...] = tuple(
    tuple(frozenset(cell) for cell in row)
    for row in (
        ({_E}, {_F}, {_R}, {_N}, {_A}, {_C}, {_I}),
        ({_F}, {_F}, {_E, _F, _R, _A, _I}, {_A}, {_A}, {_F, _N, _A, _C, _I}, {_F, _A, _I}),
        ({_R}, {_E, _F, _R, _C, _I}, {_R}, {_C}, {_R, _N, _A, _C, _I}, {_C}, {_R, _C, _I}),
        ({_N}, {_C}, {_A}, {_E}, {_R}, {_F}, {_I}),
        ({_A}, {_F, _N, _A, _C, _I}, {_A}, {_F}, {_E, _F, _R, _A, _I}, {_F}, {_F, _A, _I}),
        ({_C}, {_C}, {_R, _N, _A, _C, _I}, {_R}, {_R}, {_E, _F, _R, _C, _I}, {_R, _C, _I}),
        ({_I}, {_F, _C, _I}, {_R, _A, _I}, {_I}, {_R, _A, _I}, {_F, _C, _I}, _ALL),
    )
)
JOIN_TABLE: dict[tuple[Relation, Relation], frozenset[Relation]] = {
    (r1, r2): _JOIN_ROWS[i][j]
    for i, r1 in enumerate(RELATION_ORDER)
    for j, r2 in enumerate(RELATION_ORDER)
}


_LABEL = {
    _E: NLILabel.ENTAILMENT, _F: NLILabel.ENTAILMENT,
    _N: NLILabel.CONTRADICTION, _A: NLILabel.CONTRADICTION,
    _R: NLILabel.NEUTRAL, _C: NLILabel.NEUTRAL, _I: NLILabel.NEUTRAL,
}

# Relations a single word substitution may realise (no cover, no independence).
WORD_RELATIONS: frozenset[Relation] = frozenset({_E, _F, _R, _N, _A})


def relation_symbols(relations: Iterable[Relation]) -> list[str]:
    """The symbols of a set of relations, always in ``RELATION_ORDER`` (never a set's iteration order)."""
    present = set(relations)
    return [r.symbol for r in RELATION_ORDER if r in present]


def format_relations(relations: Iterable[Relation], sep: str = "/") -> str:
    """A set of relations as text, in ``RELATION_ORDER``: ``≡/⊏``; ``∅`` for the empty set."""
    return sep.join(relation_symbols(relations)) or "∅"


def join(r1: Relation, r2: Relation) -> frozenset[Relation]:
    """The relations possible between x and z given ``x r1 y`` and ``y r2 z``."""
    return JOIN_TABLE[(r1, r2)]


def join_sets(a: Iterable[Relation], b: Iterable[Relation]) -> frozenset[Relation]:
    """Join two sets of possible relations: the union of the pairwise joins."""
    b = tuple(b)
    return reduce(frozenset.union, (join(x, y) for x in a for y in b), frozenset())


def nli_label(relation: Relation) -> NLILabel:
    """The NLI label a premise-hypothesis relation yields."""
    return _LABEL[relation]


def relations_for_label(label: str | NLILabel) -> frozenset[Relation]:
    """The relations that yield an NLI label ("entailment", "neutral", "contradiction")."""
    key = NLILabel.parse(label)
    return frozenset(r for r in RELATION_ORDER if _LABEL[r] == key)
