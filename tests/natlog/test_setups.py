"""Table 1 of NatLogAttack: each row's relation set proved from the join table and the label map."""

from __future__ import annotations

import pytest

from engine.core.errors import InputError
from engine.natlog.relations import (
    RELATION_ORDER,
    WORD_RELATIONS,
    Relation,
    join_sets,
    nli_label,
    relations_for_label,
)
from engine.natlog.setups import SETUPS, get_setup, setups_for_label

E, F, R, N, A, C, I = RELATION_ORDER


def labels_after(setup_name: str) -> set[str]:
    """The labels (P, H*) can get when P bears a source-label relation to H and H a setup relation to H*."""
    setup = get_setup(setup_name)
    return {nli_label(r) for r in join_sets(relations_for_label(setup.source_label), setup.relations)}


def guaranteed(source: str, target: str) -> set[Relation]:
    """The single relations r for which every P-H relation of ``source`` joins into ``target`` only."""
    return {r for r in RELATION_ORDER
            if {nli_label(x) for x in join_sets(relations_for_label(source), {r})} == {target}}


def test_e2e_is_exactly_the_relations_that_preserve_entailment() -> None:
    assert get_setup("E2E").relations == guaranteed("entailment", "entailment") == {E, F}
    assert labels_after("E2E") == {"entailment"}


def test_c2c_is_exactly_the_relations_that_preserve_contradiction() -> None:
    assert get_setup("C2C").relations == guaranteed("contradiction", "contradiction") == {E, R}
    assert labels_after("C2C") == {"contradiction"}


def test_e2c_is_exactly_the_word_relations_that_flip_entailment_to_contradiction() -> None:
    assert get_setup("E2C").relations == guaranteed("entailment", "contradiction") & WORD_RELATIONS == {N, A}
    assert labels_after("E2C") == {"contradiction"}


def test_n2n_never_yields_entailment() -> None:
    # From neutral no single relation guarantees neutral (cover joined with reverse can reach
    # contradiction); the row keeps H* at least as strong as H, so P can never come to entail it.
    assert "entailment" not in labels_after("N2N")
    assert get_setup("N2N").relations == {E, R}
    assert "entailment" in {nli_label(r) for r in join_sets(relations_for_label("neutral"), {F})}


def test_e2n_reverse_breaks_entailment_from_equivalence_and_never_reaches_negation() -> None:
    setup = get_setup("E2N")
    assert setup.relations == {R}
    assert join_sets({E}, setup.relations) == {R}
    assert nli_label(R) == "neutral"
    assert N not in join_sets({E, F}, setup.relations)


def test_c2e_negated_or_weakened_hypothesis_is_entailed() -> None:
    # P contradicts H, so P entails not-H; H* = not-H (H ^ H*) or weaker than not-H (H ‿ H*).
    setup = get_setup("C2E")
    assert setup.relations == {N, C}
    assert labels_after("C2E") == {"entailment"}


def test_never_neutral_from_contradiction_and_never_entailment_or_contradiction_from_neutral() -> None:
    pairs = {(s.source_label, s.target_label) for s in SETUPS.values()}
    assert ("contradiction", "neutral") not in pairs
    assert not {("neutral", "entailment"), ("neutral", "contradiction")} & pairs


def test_label_preserving_flag_and_word_relations() -> None:
    for setup in SETUPS.values():
        assert setup.label_preserving == (setup.source_label == setup.target_label)
        if setup.name != "C2E":
            assert setup.relations <= WORD_RELATIONS


def test_lookup_by_name_and_label() -> None:
    assert get_setup("e->c") is SETUPS["E2C"]
    assert get_setup("C→E") is SETUPS["C2E"]
    assert [s.name for s in setups_for_label("entailment")] == ["E2E", "E2C", "E2N"]
    assert [s.name for s in setups_for_label("Neutral")] == ["N2N"]
    with pytest.raises(InputError, match="unknown attack setup"):
        get_setup("X2Y")
    with pytest.raises(InputError, match="unknown NLI label"):
        setups_for_label("unknown")
