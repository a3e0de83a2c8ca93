"""MacCartney's seven semantic relations, their join table and their NLI labels.

The join table is MacCartney (2009, Table 5.2): ``join(r1, r2)`` is the set of
relations that can hold between x and z when ``x r1 y`` and ``y r2 z``; cells
where the result is a union keep the whole set.
"""

from __future__ import annotations

import enum
from functools import reduce
from typing import Iterable

from engine.errors import InputError


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

    @classmethod
    def from_name(cls, name: str) -> "Relation":
        """Look a relation up by member name, symbol or common alias (case-insensitive); InputError if unknown."""
        key = name.strip()
        found = _ALIASES.get(key) or _ALIASES.get(key.lower())
        if found is None:
            raise InputError(
                f"unknown relation {name!r}; use one of: "
                + ", ".join(f"{r.name.lower()} ({r.symbol})" for r in RELATION_ORDER)
            )
        return found


RELATION_ORDER: tuple[Relation, ...] = tuple(Relation)

_ALIASES: dict[str, Relation] = {}
for _r in Relation:
    _ALIASES[_r.name.lower()] = _r
    _ALIASES[_r.symbol] = _r
_ALIASES.update({
    "=": Relation.EQUIVALENCE, "equivalent": Relation.EQUIVALENCE, "eq": Relation.EQUIVALENCE,
    "forward_entailment": Relation.FORWARD, "forward entailment": Relation.FORWARD, "<": Relation.FORWARD,
    "reverse_entailment": Relation.REVERSE, "reverse entailment": Relation.REVERSE, ">": Relation.REVERSE,
    "contradiction": Relation.NEGATION, "neg": Relation.NEGATION, "¬": Relation.NEGATION,
    "alt": Relation.ALTERNATION, "exclusion": Relation.ALTERNATION,
    "independent": Relation.INDEPENDENCE, "ind": Relation.INDEPENDENCE,
})

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

NLI_LABELS = ("entailment", "neutral", "contradiction")
_LABEL = {
    _E: "entailment", _F: "entailment",
    _N: "contradiction", _A: "contradiction",
    _R: "neutral", _C: "neutral", _I: "neutral",
}

# Relations a single word substitution may realise (no cover, no independence).
WORD_RELATIONS: frozenset[Relation] = frozenset({_E, _F, _R, _N, _A})


def join(r1: Relation, r2: Relation) -> frozenset[Relation]:
    """The relations possible between x and z given ``x r1 y`` and ``y r2 z``."""
    return JOIN_TABLE[(r1, r2)]


def join_sets(a: Iterable[Relation], b: Iterable[Relation]) -> frozenset[Relation]:
    """Join two sets of possible relations: the union of the pairwise joins."""
    b = tuple(b)
    return reduce(frozenset.union, (join(x, y) for x in a for y in b), frozenset())


def nli_label(relation: Relation) -> str:
    """The NLI label a premise-hypothesis relation yields."""
    return _LABEL[relation]


def relations_for_label(label: str) -> frozenset[Relation]:
    """The relations that yield an NLI label ("entailment", "neutral", "contradiction")."""
    key = label.strip().lower()
    if key not in NLI_LABELS:
        raise InputError(f"unknown NLI label {label!r}; use one of: {', '.join(NLI_LABELS)}")
    return frozenset(r for r in RELATION_ORDER if _LABEL[r] == key)
