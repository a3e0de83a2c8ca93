"""The equivalence laws as attack operators, on real parses: the law's rewrite, checked by truth
table, realised with H's own conjuncts; never on a non-boolean or ambiguous coordination."""

from __future__ import annotations

import pytest

from engine.edits.candidates import generate_candidates
from engine.edits.conjuncts import conjunct_phrase, find_coordinations
from engine.edits.operators.equivalence_laws import Commutation, DeMorgan, law_edit, read_formula
from engine.logic.formulas import And, Atom, Not, Or
from engine.natlog.polarity import polarize
from engine.natlog.relations import Relation
from engine.parse import parse


def rewrites(hypothesis: str, settings, relations=(Relation.EQUIVALENCE,)) -> list:
    polarized = polarize(parse(hypothesis, settings=settings))
    return generate_candidates(polarized, relations, settings=settings, operators=[Commutation(), DeMorgan()])


@pytest.mark.parametrize(("hypothesis", "expected", "operator"), [
    ("A man and a woman are walking.", "A woman and a man are walking.", "Commutation"),
    ("Two kids play soccer or basketball.", "Two kids play basketball or soccer.", "Commutation"),
    ("A boy or a girl is running.", "A girl or a boy is running.", "Commutation"),
    ("The dog is not black or white.", "The dog is neither black nor white.", "DeMorgan"),
    ("The dog is neither black nor white.", "The dog is not black or white.", "DeMorgan"),
    ("Tom can not swim or run.", "Tom can neither swim nor run.", "DeMorgan"),
    ("I can't laugh or cry.", "I can neither laugh nor cry.", "DeMorgan"),   # the clipped host is a word again
    ("I ca n't laugh or cry .", "I can neither laugh nor cry .", "DeMorgan"),
    ("He could neither read nor write.", "He could not read or write.", "DeMorgan"),
])
def test_law_rewrites_keep_the_meaning(hypothesis: str, expected: str, operator: str, settings) -> None:
    found = rewrites(hypothesis, settings)
    assert [(c.text, c.operator) for c in found] == [(expected, operator)]
    candidate = found[0]
    assert candidate.relation == Relation.EQUIVALENCE
    law, proof, _ = candidate.path
    assert "≡" in law and "(truth table)" in proof


@pytest.mark.parametrize("hypothesis", [
    "John and Mary met at the park.",             # collective predicate: non-boolean
    "The girl does not eat or drink.",            # 'does neither eat nor drink' is not English
    "People are singing and dancing in the street.",  # the PP may modify both conjuncts
    "A man sits between a tree and a car.",       # 'between X and Y'
    "A man, a woman and a child walk.",           # three conjuncts: not read as a binary formula
    "Cyrus neither confirmed nor denied it.",      # 'Cyrus not confirmed or denied it': no auxiliary
    "They presented neither a military nor a mercantile threat.",
    "Neither the dog nor the cat is hungry.",      # 'Not the dog or the cat is hungry'
])
def test_no_rewrite_where_the_law_is_not_safe(hypothesis: str, settings) -> None:
    assert rewrites(hypothesis, settings) == []


def test_equivalence_edits_serve_every_wanted_relation_only_as_equivalence(settings) -> None:
    assert rewrites("A man and a woman are walking.", settings, (Relation.FORWARD,)) == []
    assert len(rewrites("A man and a woman are walking.", settings, (Relation.FORWARD, Relation.EQUIVALENCE))) == 1


def test_a_broken_law_is_refused_by_the_truth_table(settings) -> None:
    sentence = parse("The dog is not black or white.", settings=settings)
    (coordination,) = find_coordinations(sentence)
    formula = read_formula(sentence, coordination)
    assert formula == Not(Or(Atom("p"), Atom("q")))
    phrases = {"p": conjunct_phrase(sentence, coordination, coordination.conjuncts[0]),
               "q": conjunct_phrase(sentence, coordination, coordination.conjuncts[1])}

    def broken(f):  # De Morgan without flipping the connective: ¬(P ∨ Q) -> ¬P ∨ ¬Q
        return Or(Not(Atom("p")), Not(Atom("q")))

    with pytest.raises(AssertionError, match="non-equivalent"):
        law_edit(sentence, coordination, formula, phrases, "de_morgan_or", broken)
    neither = parse("The dog is neither black nor white.", settings=settings)
    assert read_formula(neither, find_coordinations(neither)[0]) == And(Not(Atom("p")), Not(Atom("q")))
