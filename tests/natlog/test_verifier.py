"""The natural-logic verifier on real parses and real WordNet: each edit kind, projection, joins,
bad input, the CLI, and the attack self-check."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.natlog.relations import Relation
from engine.natlog.setups import get_setup
from engine.verify.verifier import UNKNOWN, self_check, verify

F, R, N, A, C, I, E = (Relation.FORWARD, Relation.REVERSE, Relation.NEGATION, Relation.ALTERNATION,
                       Relation.COVER, Relation.INDEPENDENCE, Relation.EQUIVALENCE)


@pytest.mark.parametrize("premise,hypothesis,relation,label", [
    # WordNet hyponymy, projected through the word's polarity.
    ("Some dog barked", "Some animal barked", F, "entailment"),
    ("No dog barked", "No poodle barked", F, "entailment"),
    ("No poodle barked", "No dog barked", R, "neutral"),
    ("Every dog barked", "Every poodle barked", F, "entailment"),
    # Determiners: every | no, some ^ no, most ⊏ some.
    ("Every dog barked", "No dog barked", A, "contradiction"),
    ("Some dog barked", "No dog barked", N, "contradiction"),
    ("Most dogs barked", "Some dogs barked", F, "entailment"),
    # Negation: of the sentence, and of a predicate whose object is indefinite ("not" outscopes it).
    ("A man runs", "It is not true that a man runs", N, "contradiction"),
    ("The church has cracks in the ceiling", "The church does not have cracks in the ceiling", N, "contradiction"),
    ("The dog does not bark", "The dog barks", N, "contradiction"),
    # ... under an existential subject, a predicate negation is only cover: some man runs, some does not.
    ("A man runs", "A man does not run", C, "neutral"),
    ("There are people outside", "There are no people outside", N, "contradiction"),
    # Restrictive modifiers and conjuncts, inserted and deleted.
    ("A man is playing a guitar", "A man is playing a red guitar", R, "neutral"),
    ("No man is playing a red guitar", "No man is playing a guitar", R, "neutral"),
    ("I bought a few eggs and a little milk .", "I bought a few eggs", F, "entailment"),
    ("Maybe he is Italian or Spanish .", "Maybe he is Italian", R, "neutral"),
    ("He played the piano and she sang .", "He played the piano", F, "entailment"),
    # Numbers read "at most n" as lexical items: "at least five" entails "at least four".
    ("At least five dogs barked", "At least four dogs barked", F, "entailment"),
    # Two edits joined left to right: hyponym in a downward restrictor, then "no" -> "some".
    ("every brown or black stallion touched no iron boxes", "every brown stallion touched some iron boxes",
     A, "contradiction"),
    # Alternation under an existential projects to independence.
    ("There are dogs outside", "There are cats outside", I, "neutral"),
])
def test_derivations(premise: str, hypothesis: str, relation: Relation, label: str, settings: Settings) -> None:
    verdict = verify(premise, hypothesis, settings)
    assert verdict.relation is relation, [s.line for s in verdict.steps]
    assert verdict.label == label
    assert verdict.steps and all(s.lexical is not None for s in verdict.steps)


def test_derivation_names_site_polarity_and_evidence(settings: Settings) -> None:
    verdict = verify("No dog barked", "No poodle barked", settings)
    (step,) = verdict.steps
    assert (step.kind, step.old, step.new, step.site, step.polarity) == ("substitute", "dog", "poodle", "dog", "↓")
    assert step.lexical is R and step.projected is F and "poodle.n.01" in step.why
    assert step.sentence == "No poodle barked"


@pytest.mark.parametrize("premise,hypothesis,why", [
    # A non-subsective modifier has no fixed relation.
    ("A man holds a gun", "A man holds a fake gun", "intersective"),
    # A non-monotone context (the restrictor of "most") blocks the projection.
    ("Most dogs bark", "Most poodles bark", "non-monotone"),
    # Words WordNet does not relate.
    ("A man holds a guitar", "A man holds an idea", "WordNet"),
    # Two edits whose join spans several labels.
    ("Every dog barked", "Every poodle barked loudly", "several labels"),
])
def test_unknown_when_no_relation_is_licensed(premise: str, hypothesis: str, why: str, settings: Settings) -> None:
    verdict = verify(premise, hypothesis, settings)
    assert verdict.label == UNKNOWN and not verdict.committed and verdict.relation is None
    assert why in verdict.reason


def test_bad_input_gets_a_clear_answer(settings: Settings) -> None:
    same = verify("The cat sleeps.", "the cat sleeps", settings)
    assert same.relation is E and same.label == "entailment" and "identical" in same.reason
    unrelated = verify("The cat sleeps", "Quantum chromodynamics predicts gluons", settings)
    assert unrelated.label == UNKNOWN and "too few to align" in unrelated.reason
    many = verify("a big old brown dog ate three red apples", "some small young black cat bit four green pears",
                  settings)
    assert many.label == UNKNOWN
    with pytest.raises(InputError, match="^premise: .*empty"):
        verify("", "A cat sleeps", settings)
    with pytest.raises(InputError, match="^hypothesis: .*empty"):
        verify("A cat sleeps", "   ", settings)


def test_cli_prints_derivation_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    """The installed command once as a process; its JSON and its bad input in this process."""
    from engine.cli import main as engine_main

    run = ["verify", "--premise", "No dog barked", "--hypothesis", "No poodle barked"]
    text = subprocess.run([sys.executable, "-m", "engine", *run], capture_output=True, text=True, check=True).stdout
    assert text.startswith("entailment (⊏)") and "'dog' -> 'poodle'" in text and "dog↓" in text
    assert engine_main([*run, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["relation"] == "⊏" and out["label"] == "entailment"
    assert out["derivation"][0]["lexical"] == "⊐" and out["derivation"][0]["projected"] == "⊏"
    assert engine_main(["verify", "--premise", "", "--hypothesis", "x"]) != 0
    err = capsys.readouterr().err
    assert "premise" in err and "Traceback" not in err and err.count("\n") == 1


def test_self_check_rederives_or_flags(settings: Settings) -> None:
    e2n = get_setup("E2N").relations
    assert self_check("A man is playing a guitar.", "A man is playing a red guitar.", e2n, settings).status == "re-derived"
    # An inflection read as a hyponym (the bug the check caught in PerturbHypo) gives ≡, not ⊐.
    bad = self_check("People are sleeping.", "Peoples are sleeping.", e2n, settings)
    assert bad.status == "fails" and "≡" in bad.relations
    assert self_check("A man holds a guitar.", "A man holds an idea.", e2n, settings).status == "unknown"


def test_people_are_read_as_persons_and_as_a_group(settings) -> None:
    """"People" is WordNet's group and the plural of "person": an attack that swaps it for a kind
    of person ("Adults") and one that swaps it for what a group is ("Groups") both re-derive."""
    persons = self_check("People walk around a mall.", "Adults walk around a mall.", get_setup("C2C").relations, settings=settings)
    assert persons.status == "re-derived" and "adult.n.01 is a kind of person.n.01" in persons.reason
    group = self_check("People walk around a mall.", "Groups walk around a mall.", get_setup("E2E").relations, settings=settings)
    assert group.status == "re-derived" and "people.n.01 is a kind of group.n.01" in group.reason
