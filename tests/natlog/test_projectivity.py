"""Projectivity signatures checked against generalized-quantifier semantics, and their composition."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import pytest

from engine.natlog import projectivity as pj
from engine.natlog.projectivity import Polarity, compose, signature
from engine.natlog.relations import RELATION_ORDER, Relation
from tests.natlog.test_relations import relation_between

UNIVERSE = frozenset(range(5))
SETS = [frozenset(c) for k in range(1, len(UNIVERSE)) for c in combinations(sorted(UNIVERSE), k)]
WORLDS = frozenset(range(len(SETS)))

Quantifier = Callable[[frozenset, frozenset], bool]
QUANTIFIERS: dict[str, tuple[Quantifier, tuple]] = {
    "some": (lambda a, b: bool(a & b), pj.SOME),
    "no": (lambda a, b: not a & b, pj.NO),
    "every": (lambda a, b: a <= b, pj.EVERY),
    "not every": (lambda a, b: not a <= b, pj.NOT_EVERY),
    "at least 2": (lambda a, b: len(a & b) >= 2, pj.AT_LEAST_N),
    "at most 1": (lambda a, b: len(a & b) <= 1, pj.AT_MOST_N),
    "exactly 2": (lambda a, b: len(a & b) == 2, pj.EXACTLY_N),
    "most": (lambda a, b: len(a & b) > len(a - b), pj.MOST),
    "all but 1": (lambda a, b: len(a - b) == 1, pj.ALL_BUT_N),
}


def observed(q: Quantifier, argument: int, r: Relation) -> set[Relation]:
    """Relations between Q(x, .) and Q(y, .) (or Q(., x), Q(., y)) as propositions over the other argument."""
    found = set()
    for x in SETS:
        for y in SETS:
            if relation_between(x, y) is not r:
                continue
            if argument == 0:
                s1 = frozenset(i for i, p in enumerate(SETS) if q(x, p))
                s2 = frozenset(i for i, p in enumerate(SETS) if q(y, p))
            else:
                s1 = frozenset(i for i, p in enumerate(SETS) if q(p, x))
                s2 = frozenset(i for i, p in enumerate(SETS) if q(p, y))
            if s1 and s2 and s1 != WORLDS and s2 != WORLDS:
                found.add(relation_between(s1, s2, WORLDS))
    return found


@pytest.mark.parametrize("name", list(QUANTIFIERS))
@pytest.mark.parametrize("argument", [0, 1], ids=["restrictor", "body"])
def test_quantifier_signature_matches_semantics(name: str, argument: int) -> None:
    q, sig = QUANTIFIERS[name]
    for r in RELATION_ORDER:
        seen = observed(q, argument, r)
        projected = sig[argument](r)
        if len(seen) == 1:
            assert projected in seen, (name, argument, r)
        else:
            assert projected is Relation.INDEPENDENCE, (name, argument, r, seen)


def test_negation_signature_is_complementation() -> None:
    for r in RELATION_ORDER:
        seen = {relation_between(UNIVERSE - x, UNIVERSE - y) for x in SETS for y in SETS if relation_between(x, y) is r}
        assert seen == {pj.NEGATION(r)}


def test_generic_signatures() -> None:
    assert pj.IDENTITY.mapping == RELATION_ORDER
    assert "".join(r.symbol for r in pj.UPWARD.mapping) == "≡⊏⊐####"
    assert "".join(r.symbol for r in pj.DOWNWARD.mapping) == "≡⊐⊏####"
    assert "".join(r.symbol for r in pj.NEGATION.mapping) == "≡⊐⊏^‿|#"
    assert "".join(r.symbol for r in pj.NON_MONOTONE.mapping) == "≡######"
    assert [p.polarity for p in (pj.UPWARD, pj.DOWNWARD, pj.NEGATION, pj.NON_MONOTONE)] == [
        Polarity.UP, Polarity.DOWN, Polarity.DOWN, Polarity.NONE]


def test_composition_inner_first() -> None:
    # "not every": the restrictor of every, then negation, is MacCartney's "not every" row.
    assert compose([pj.EVERY[0], pj.NEGATION]).mapping == pj.NOT_EVERY[0].mapping
    assert compose([pj.EVERY[1], pj.NEGATION]).mapping == pj.NOT_EVERY[1].mapping
    # Double negation restores every relation; negation under a universal's restrictor turns up.
    assert compose([pj.NEGATION, pj.NEGATION]).mapping == pj.IDENTITY.mapping
    assert compose([pj.NEGATION, pj.EVERY[0]]).polarity is Polarity.UP
    # Order matters: alternation through "every" body then negation vs the reverse order.
    assert compose([pj.EVERY[1], pj.NEGATION])(Relation.ALTERNATION) is Relation.COVER
    assert compose([pj.NEGATION, pj.EVERY[1]])(Relation.ALTERNATION) is Relation.INDEPENDENCE
    assert compose([]).mapping == RELATION_ORDER


def test_non_monotone_absorbs() -> None:
    for other in (pj.NEGATION, pj.EVERY[0], pj.SOME[1]):
        assert compose([pj.NON_MONOTONE, other]).polarity is Polarity.NONE
        assert compose([other, pj.NON_MONOTONE]).polarity is Polarity.NONE


def test_signature_validation_and_marks() -> None:
    with pytest.raises(ValueError):
        signature("bad", "⊏⊏⊐^|‿#")
    assert Polarity.from_mark("↓") is Polarity.DOWN
    with pytest.raises(ValueError):
        Polarity.from_mark("?")
