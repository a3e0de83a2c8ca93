"""MacCartney's relations: every join-table cell re-derived from set semantics, labels and lookups."""

from __future__ import annotations

from itertools import combinations

import pytest

from engine.natlog.relations import (
    JOIN_TABLE,
    RELATION_ORDER,
    WORD_RELATIONS,
    Relation,
    format_relations,
    join,
    join_sets,
    nli_label,
    relation_symbols,
    relations_for_label,
)

UNIVERSE = frozenset(range(5))
# Non-vacuous sets (neither empty nor the universe), as MacCartney assumes.
SETS = [frozenset(c) for k in range(1, len(UNIVERSE)) for c in combinations(sorted(UNIVERSE), k)]


def relation_between(x: frozenset, y: frozenset, universe: frozenset = UNIVERSE) -> Relation:
    """The one of the seven relations that holds between two non-vacuous sets."""
    if x == y:
        return Relation.EQUIVALENCE
    if x < y:
        return Relation.FORWARD
    if x > y:
        return Relation.REVERSE
    if not x & y:
        return Relation.NEGATION if x | y == universe else Relation.ALTERNATION
    if x | y == universe:
        return Relation.COVER
    return Relation.INDEPENDENCE


def _derived_join() -> dict[tuple[Relation, Relation], set[Relation]]:
    table: dict[tuple[Relation, Relation], set[Relation]] = {}
    for x in SETS:
        for y in SETS:
            r1 = relation_between(x, y)
            for z in SETS:
                table.setdefault((r1, relation_between(y, z)), set()).add(relation_between(x, z))
    return table


DERIVED = _derived_join()


@pytest.mark.parametrize("r1", RELATION_ORDER, ids=lambda r: r.name)
@pytest.mark.parametrize("r2", RELATION_ORDER, ids=lambda r: r.name)
def test_join_cell_matches_set_semantics(r1: Relation, r2: Relation) -> None:
    assert join(r1, r2) == frozenset(DERIVED[(r1, r2)])


def test_join_table_is_complete_and_keeps_unions() -> None:
    assert len(JOIN_TABLE) == 49
    assert join(Relation.FORWARD, Relation.REVERSE) == frozenset(
        {Relation.EQUIVALENCE, Relation.FORWARD, Relation.REVERSE, Relation.ALTERNATION, Relation.INDEPENDENCE})
    assert join(Relation.INDEPENDENCE, Relation.INDEPENDENCE) == frozenset(RELATION_ORDER)
    assert join(Relation.NEGATION, Relation.NEGATION) == {Relation.EQUIVALENCE}


def test_join_sets_is_the_union_of_pairwise_joins() -> None:
    a = {Relation.EQUIVALENCE, Relation.FORWARD}
    b = {Relation.NEGATION}
    assert join_sets(a, b) == {Relation.NEGATION, Relation.ALTERNATION}
    assert join_sets(frozenset(), b) == frozenset()


def test_order_symbols_and_one_formatter() -> None:
    assert [r.symbol for r in RELATION_ORDER] == ["≡", "⊏", "⊐", "^", "|", "‿", "#"]
    # Whatever order a set iterates in, relation sets print in RELATION_ORDER.
    every = frozenset(RELATION_ORDER)
    for size in range(1, 8):
        for start in range(7):
            subset = [RELATION_ORDER[(start + k) % 7] for k in range(size)]
            expected = [r.symbol for r in RELATION_ORDER if r in subset]
            assert relation_symbols(reversed(subset)) == expected
            assert format_relations(frozenset(subset)) == "/".join(expected)
    assert format_relations(every, " ") == "≡ ⊏ ⊐ ^ | ‿ #"
    assert format_relations(()) == "∅"


def test_nli_labels() -> None:
    assert {r for r in RELATION_ORDER if nli_label(r) == "entailment"} == {Relation.EQUIVALENCE, Relation.FORWARD}
    assert {r for r in RELATION_ORDER if nli_label(r) == "contradiction"} == {Relation.NEGATION, Relation.ALTERNATION}
    assert relations_for_label("neutral") == {Relation.REVERSE, Relation.COVER, Relation.INDEPENDENCE}
    with pytest.raises(ValueError):
        relations_for_label("maybe")


def test_word_relations_exclude_cover_and_independence() -> None:
    assert WORD_RELATIONS == frozenset(RELATION_ORDER) - {Relation.COVER, Relation.INDEPENDENCE}
