"""Coordinations on real parses: conjunct spans, nesting, the boolean risk, the edits (text,
agreement, natural-logic label) and the conjunct operators' projected relations."""

from __future__ import annotations

import pytest

import engine.edits.operators.conjuncts as conjunct_operators
from engine.edits.candidates import generate_candidates
from engine.edits.conjuncts import ConjunctEdit, Coordination, conjunct_edits, find_coordinations
from engine.edits.operators import get_operator
from engine.natlog.polarity import PolarizedSentence, polarize
from engine.natlog.relations import Relation
from engine.parse import parse

OPERATORS = ("ConjunctDeletion", "DisjunctDeletion", "ConjunctInsertion", "DisjunctInsertion")


def polarized(text: str, settings) -> PolarizedSentence:
    return polarize(parse(text, settings=settings))


def coordinations(text: str, settings) -> tuple[Coordination, ...]:
    return find_coordinations(parse(text, settings=settings))


def conjunct_texts(text: str, coordination: Coordination, settings) -> list[str]:
    words = parse(text, settings=settings).words
    return [" ".join(words[k.span[0]:k.span[1]]) for k in coordination.conjuncts]


def edits(text: str, settings, kinds: tuple[str, ...] = ("remove", "add", "replace"), per_slot: int = 2) -> list[ConjunctEdit]:
    return conjunct_edits(polarized(text, settings), kinds=kinds, per_slot=per_slot)


def test_a_list_parsed_as_a_chain_is_one_coordination(settings) -> None:
    text = "John, Mary and Sue sing and dance."
    nominal, verbal = coordinations(text, settings)
    assert (nominal.coordinator, nominal.category, nominal.words) == ("and", "NP", ("and",))
    assert conjunct_texts(text, nominal, settings) == ["John", "Mary", "Sue"]
    assert (verbal.category, conjunct_texts(text, verbal, settings)) == ("VP", ["sing", "dance"])
    assert nominal.risk.boolean and verbal.risk.boolean and nominal.parent is verbal.parent is None


def test_nested_coordination_knows_its_parent(settings) -> None:
    text = "A dog and a cat or a bird."
    outer, inner = coordinations(text, settings)
    assert conjunct_texts(text, outer, settings) == ["A dog", "a cat or a bird"]
    assert (inner.coordinator, conjunct_texts(text, inner, settings)) == ("or", ["a cat", "a bird"])
    assert inner.parent == outer.head_id and outer.parent is None


def test_either_or_and_shared_subject(settings) -> None:
    text = "Either John or Mary sings."
    (coordination,) = coordinations(text, settings)
    assert coordination.words == ("either", "or") and coordination.preconj_id == 1
    assert coordination.region == (0, 4)
    clause = "In 2008 she ran for parliament, but was not elected."
    (but,) = coordinations(clause, settings)
    # The subject and what precedes it are shared: the first conjunct starts at the verb.
    assert conjunct_texts(clause, but, settings) == ["ran for parliament", "was not elected"]
    assert (but.coordinator, but.category, but.contiguous) == ("but", "VP", True)


def test_coordination_inside_a_relative_clause(settings) -> None:
    text = "The man who bought apples and pears left."
    (coordination,) = coordinations(text, settings)
    assert conjunct_texts(text, coordination, settings) == ["apples", "pears"]
    assert coordination.risk.boolean
    removals = edits(text, settings, ("remove",))
    assert {e.text for e in removals} == {"The man who bought pears left.", "The man who bought apples left."}
    # The definite's restrictor is non-monotone: the relation does not project, the label is not licensed.
    assert all(e.polarity == "=" and e.projected is Relation.INDEPENDENCE and not e.safe for e in removals)


@pytest.mark.parametrize("text,reason", [
    ("John and Mary met.", "collective predicate 'meet'"),
    ("She travelled between London and Paris.", "'between X and Y'"),
    ("He works for Procter and Gamble.", "fixed phrase 'procter and gamble'"),
    ("It weighs two and a half pounds.", "a number"),
    ("He ate and then he slept.", "temporal sequence ('and then')"),
    ("They mixed flour and water together.", "collective modifier 'together'"),
    ("John and Mary are friends.", "'friend' relates the conjuncts"),
    ("Every dog and cat barked.", "reads 'and' as a union"),
])
def test_non_boolean_coordinations_are_flagged_with_the_reason(text: str, reason: str, settings) -> None:
    (coordination,) = coordinations(text, settings)
    assert not coordination.risk.boolean
    assert any(reason in r for r in coordination.risk.reasons), coordination.risk.reasons
    assert all(not e.safe and reason in " ".join(e.unsafe) for e in edits(text, settings))


def test_removal_keeps_commas_preconjunctions_and_agreement(settings) -> None:
    cases = {
        "John and Mary are happy.": {"Mary is happy.", "John is happy."},
        "You and I are right.": {"I am right.", "You are right."},
        "Both John and Mary sing.": {"Mary sings.", "John sings."},
        "Either John or Mary sings.": {"Mary sings.", "John sings."},
        "A man and woman are walking.": {"A woman is walking.", "A man is walking."},
        "John, Mary and Sue sing and dance.": {"Mary and Sue sing and dance.", "John and Sue sing and dance.",
                                               "John and Mary sing and dance.", "John, Mary and Sue dance.",
                                               "John, Mary and Sue sing."},
    }
    for text, expected in cases.items():
        assert {e.text for e in edits(text, settings, ("remove",))} == expected, text


def test_addition_and_replacement_take_phrases_of_the_same_category(settings) -> None:
    added = {e.text for e in edits("John, Mary and Sue sing and dance.", settings, ("add",))}
    # Names join names: the lexicon's common nouns are not added to "John, Mary and Sue".
    assert added == {"John, Mary and Sue sing, dance and travel.", "John, Mary and Sue sing, dance and write books."}
    assert "He bought apples, pears and some books." in {e.text for e in edits("He bought apples and pears.", settings, ("add",))}
    replaced = {e.new for e in edits("He is tall but thin.", settings, ("replace",))}
    assert replaced and replaced <= {"popular", "famous", "expensive"}
    # After a shared determiner only a bare noun fits: never "A a friend and woman".
    assert not edits("A man and woman are walking.", settings, ("add", "replace"))


@pytest.mark.parametrize("text,kind,lexical,polarity,label", [
    ("John sang and danced.", "remove", "⊏", "↑", "entailment"),
    ("John didn't sing and dance.", "remove", "⊏", "↓", "neutral"),
    ("A dog or a cat barked.", "remove", "⊐", "↑", "neutral"),
    ("A dog or a cat barked.", "add", "⊏", "↑", "entailment"),
    ("No dog or cat barked.", "remove", "⊐", "↓", "entailment"),
    ("No student read the book or the article.", "add", "⊏", "↓", "neutral"),
    ("No student read the book or the article.", "remove", "⊐", "↓", "entailment"),
    ("John didn't sing or dance.", "remove", "⊐", "↓", "entailment"),
    ("The boys and the girls are happy.", "add", "⊐", "↑", "neutral"),
    ("The boys and the girls are happy.", "replace", "#", "↑", "neutral"),
])
def test_labels_follow_the_coordination_context(text: str, kind: str, lexical: str, polarity: str, label: str,
                                                settings) -> None:
    found = edits(text, settings, (kind,))
    assert found
    for edit in found:
        assert (edit.lexical.symbol, edit.polarity, edit.label, edit.safe) == (lexical, polarity, label, True)
        assert lexical in edit.reasoning and label in edit.reasoning


def test_operators_are_registered_with_their_relations() -> None:
    assert conjunct_operators.ConjunctDeletion.name in OPERATORS
    relations = {name: get_operator(name).relations for name in OPERATORS}
    assert relations == {"ConjunctDeletion": {Relation.FORWARD}, "DisjunctDeletion": {Relation.REVERSE},
                         "ConjunctInsertion": {Relation.REVERSE}, "DisjunctInsertion": {Relation.FORWARD}}


def candidates(text: str, settings, premise: str | None = None):
    return generate_candidates(polarized(text, settings), set(Relation), settings=settings,
                               operators=[get_operator(name) for name in OPERATORS], premise=premise)


@pytest.mark.parametrize("text,operator,lexical,relation", [
    ("A dog or a cat barked.", "DisjunctDeletion", Relation.REVERSE, Relation.REVERSE),
    ("No dog or cat barked.", "DisjunctDeletion", Relation.REVERSE, Relation.FORWARD),
    ("John sang and danced.", "ConjunctDeletion", Relation.FORWARD, Relation.FORWARD),
    ("John didn't sing and dance.", "ConjunctDeletion", Relation.FORWARD, Relation.REVERSE),
    ("John didn't sing or dance.", "DisjunctInsertion", Relation.FORWARD, Relation.REVERSE),
])
def test_operator_relations_project_and_flip_downward(text: str, operator: str, lexical: Relation, relation: Relation,
                                                       settings) -> None:
    found = [c for c in candidates(text, settings) if c.operator == operator]
    assert found
    assert all(c.lexical_relation is lexical and c.relation is relation for c in found)
    assert all("boolean" in c.path[0] for c in found)


def test_operator_texts_are_the_rendered_edits(settings) -> None:
    for text in ("John and Mary are happy.", "Apples and pears are fruit.", "John, Mary and Sue sing and dance.",
                 "Either John or Mary sings.", "A man and woman are walking."):
        rendered = {e.text for e in edits(text, settings, ("remove", "add"), get_operator("ConjunctInsertion").insertions_per_slot)
                    if e.coordination.coordinator in ("and", "or")}
        assert {c.text for c in candidates(text, settings)} == rendered, text


def test_operators_never_edit_non_boolean_coordinations(settings) -> None:
    for text in ("John and Mary met.", "She travelled between London and Paris.", "He works for Procter and Gamble."):
        assert edits(text, settings, ("remove",))
        assert candidates(text, settings) == []


def test_insertion_takes_the_premise_conjuncts(settings) -> None:
    found = candidates("Either John or Mary sings.", settings, premise="Either Sue or Tom sings.")
    texts = {c.text for c in found if c.operator == "DisjunctInsertion"}
    assert {"Either John, Mary or Sue sings.", "Either John, Mary or Tom sings."} <= texts


def test_a_finite_verb_tagged_as_participle_inflects_its_new_conjunct_as_past(settings) -> None:
    """Taggers confuse past "aired" with participle "aired"; a conjunct added beside a "participle"
    that has a subject and no auxiliary is a past tense ("sang", not "sung")."""
    from dataclasses import replace

    from engine.edits.conjuncts import verb_tag
    from engine.parse import ParsedSentence

    sentence = parse("The finale aired on Monday and drew many viewers.", settings=settings)
    aired = next(t for t in sentence.tokens if t.text == "aired")
    assert verb_tag(sentence, aired) == aired.xpos == "VBD"
    mistagged = ParsedSentence(sentence.text, tuple(replace(t, xpos="VBN") if t.text in ("aired", "drew") else t
                                                    for t in sentence.tokens), sentence.parser)
    assert verb_tag(mistagged, mistagged.token(aired.id)) == "VBD"
    passive = parse("The show was aired and sung on Monday.", settings=settings)
    assert [verb_tag(passive, t) for t in passive.tokens if t.text in ("aired", "sung")] == ["VBN", "VBN"]
