"""NegatedAntonym on real parses and real WordNet: a one-place predicate of the subject traded for
the negation of its antonym (⊏) and back (⊐), projected through the clause's context; predicates
with objects, passives, coordinations and the body of "no N" left alone."""

from __future__ import annotations

import pytest

from engine.attack.recipe import load_recipe
from engine.edits.candidates import generate_candidates
from engine.edits.operators import get_operator
from engine.lexicon.senses import build_sense_chooser
from engine.natlog.polarity import Conventions, polarize
from engine.natlog.relations import RELATION_ORDER, Relation
from engine.natlog.setups import get_setup
from engine.parse import parse


def negated_antonyms(text: str, setup: str, settings, reading: str = "scene") -> dict[str, Relation]:
    scene = settings.with_overrides(indefinite_reading=reading)
    polarized = polarize(parse(text, settings=scene), conventions=Conventions.of(scene))
    found = generate_candidates(polarized, get_setup(setup).relations, setup=setup, settings=scene)
    return {c.text: c.relation for c in found if c.operator == "NegatedAntonym"}


@pytest.mark.parametrize("text,expected", [
    ("A group of people are standing.", "A group of people are not sitting."),  # auxiliary "are" takes the "not"
    ("Two men sit outdoors in an urban area.", "Two men do not lie outdoors in an urban area."),  # do-support
    ("A classroom is empty.", "A classroom is not full."),  # an adjective after a copula
    ("The man performing is famous.", "The man performing is not unknown."),
    # An adverb after "be" is read as the predicative adjective WordNet gives the antonym of.
    ("People are inside.", "People are not outside."),
])
def test_a_predicate_becomes_the_negation_of_its_antonym_a_forward_entailment(text: str, expected: str,
                                                                              settings) -> None:
    found = negated_antonyms(text, "E2E", settings)
    assert found.get(expected) is Relation.FORWARD, found


def test_the_existential_reading_licenses_it_too(settings) -> None:
    """"Some man stands" ⊏ "some man does not sit": the same man. "Two men", read as exactly two
    by the numeral convention, is no upward context, and gets nothing."""
    found = negated_antonyms("A man is standing.", "E2E", settings, reading="existential")
    assert found.get("A man is not sitting.") is Relation.FORWARD, found


@pytest.mark.parametrize("text,expected", [
    ("The man is not sitting.", "The man is lying."),
    ("The man does not sit on a bench.", "The man lies on a bench."),  # "does not" goes, "lies" takes its tense
    ("The man isn't happy.", "The man is unhappy."),  # "is" + "n't": the helper keeps a space after it
])
def test_a_negated_predicate_becomes_its_antonym_a_reverse_entailment(text: str, expected: str, settings) -> None:
    found = negated_antonyms(text, "C2C", settings)
    assert found.get(expected) is Relation.REVERSE, found
    # Not a forward entailment: an E2E round never gets it.
    assert expected not in negated_antonyms(text, "E2E", settings)


@pytest.mark.parametrize("text", [
    "A woman is pushing a stroller.",  # an object: "push" and "pull" exclude one act on one thing only
    "A girl is covered in paint.",  # a passive
    "A man is sitting and reading a book.",  # a coordinated predicate: "not" would take both
    "No man is sitting.",  # "no N" has no existential import
    "A man is almost sitting.",  # "almost sitting" is not sitting
    "There is a man sitting.",  # an existential clause
    "The woman is very happy.",  # "is not very unhappy": no adverb between the helper and the predicate
    "The woman is not very happy.",
    "Koko knows.",  # "ignore", the antonym, needs an object: the valency check of every WordNet swap
])
def test_predicates_that_are_not_one_place_predicates_of_the_subject_are_left_alone(text: str, settings) -> None:
    assert negated_antonyms(text, "E2E", settings) == {}
    assert negated_antonyms(text, "C2C", settings) == {}


def test_an_adverb_read_as_an_adjective_takes_its_own_antonyms_only(settings) -> None:
    """"outside" as the satellite "external" has the head's antonym "internal": not a place (the
    sense the context chooser picks beside this premise, as in an attack)."""
    premise = "Man sitting on bench with suitcase waiting for his source of transportation."
    scene = settings.with_overrides(indefinite_reading="scene", wsd="context")
    polarized = polarize(parse("The man is outside.", settings=scene), conventions=Conventions.of(scene))
    found = {c.text for c in generate_candidates(polarized, get_setup("E2E").relations, setup="E2E", settings=scene,
                                                 premise=premise, senses=build_sense_chooser(scene))
             if c.operator == "NegatedAntonym"}
    assert "The man is not internal." not in found
    assert found <= {"The man is not inside."}


def test_the_relation_is_projected_through_the_clause_context(settings) -> None:
    """Under "Every": the predicate is in the body (upward), so ⊏ stays ⊏; the candidate's relation is
    the clause projection of the operator's lexical relation."""
    scene = settings.with_overrides(indefinite_reading="scene")
    polarized = polarize(parse("Every man is standing.", settings=scene), conventions=Conventions.of(scene))
    found = [c for c in generate_candidates(polarized, get_setup("E2E").relations, setup="E2E", settings=scene)
             if c.operator == "NegatedAntonym"]
    assert found and {c.text for c in found} >= {"Every man is not sitting."}
    for c in found:
        assert c.lexical_relation in get_operator("NegatedAntonym").relations
        root = polarized.sentence.root
        assert root is not None and c.site == root.id - 1
        projection = polarized.clause_projection(root.id)
        assert projection[RELATION_ORDER.index(c.lexical_relation)] is c.relation


def test_the_default_recipe_has_it_and_max_hvasr_keeps_the_operators_it_had(settings) -> None:
    default = [s.name for s in load_recipe("default", settings).operators]
    max_hvasr = [s.name for s in load_recipe("max-hvasr", settings).operators]
    assert "NegatedAntonym" in default and "NegatedAntonym" not in max_hvasr
    assert max_hvasr == [n for n in default if n != "NegatedAntonym"]
    assert "NegatedAntonym" not in [s.name for s in load_recipe("natlog2023", settings).operators]
