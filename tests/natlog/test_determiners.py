"""The determiner table (one source for the verifier and the attack) and the PerturbQuant operator
on real parses: licensed relations, projection through the determiner's context, grammar kept."""

from __future__ import annotations

import pytest

from engine.core.settings import Settings, get_settings
from engine.edits.candidates import generate_candidates
from engine.edits.operators import get_operator
from engine.natlog import determiners
from engine.natlog.determiners import Head
from engine.natlog.polarity import polarize
from engine.natlog.relations import Relation
from engine.natlog.setups import get_setup
from engine.parse import parse
from engine.verify.verifier import verify

R = Relation


@pytest.fixture(scope="module")
def settings() -> Settings:
    return get_settings().with_overrides(disabled_operators="none")


def quant(text: str, setup: str, settings: Settings) -> dict[str, str]:
    """PerturbQuant's candidates for ``setup``: H* -> sentence-level relation symbol."""
    polarized = polarize(parse(text, settings=settings))
    found = generate_candidates(polarized, get_setup(setup).relations, settings=settings,
                                operators=[get_operator("PerturbQuant")], setup=setup)
    return {c.text: c.relation.symbol for c in found}


def test_table_relations_are_maccartneys() -> None:
    assert determiners.relation("every", "a") is R.FORWARD
    assert determiners.relation("a", "every") is R.REVERSE
    assert determiners.relation("some", "no") is R.NEGATION
    assert determiners.relation("every", "no") is R.ALTERNATION
    assert determiners.relation("most", "some") is R.FORWARD
    assert determiners.relation("every", "each") is R.EQUIVALENCE
    assert determiners.relation("most", "many") is None  # no licensed relation
    assert determiners.relation("the", "a") is None       # "the" is not in the table


def test_substitutes_keep_the_head_nouns_number() -> None:
    singular = dict(determiners.substitutes("a", Head.SINGULAR))
    assert singular == {"every": R.REVERSE, "each": R.REVERSE, "no": R.NEGATION}
    plural = dict(determiners.substitutes("some", Head.PLURAL))
    assert "every" not in plural and plural["all"] is R.REVERSE and plural["no"] is R.NEGATION
    assert plural["most"] is R.REVERSE and plural["several"] is R.REVERSE


def test_the_verifier_reads_the_same_table(settings: Settings) -> None:
    result = verify("Every dog barks.", "A dog barks.", settings=settings)
    assert result.relations == {R.FORWARD} and result.label == "entailment"
    result = verify("A man is sleeping.", "No man is sleeping.", settings=settings)
    assert result.label == "contradiction"


def test_every_to_a_is_entailed_and_projects_through_the_context(settings: Settings) -> None:
    # "Every" sits upward: every ⊏ a projects to ⊏ (E2E); "No" -> "a" is ^ (E2C).
    assert quant("Every old man owns an umbrella.", "E2E", settings) == {
        "Each old man owns an umbrella.": "≡", "An old man owns an umbrella.": "⊏"}
    assert quant("No dog is running in the park.", "E2C", settings) == {
        "A dog is running in the park.": "^", "Every dog is running in the park.": "|"}


def test_only_subjects_get_strong_determiners(settings: Settings) -> None:
    found = quant("A man is playing a guitar.", "C2C", settings)
    assert found == {"Every man is playing a guitar.": "⊐"}  # never "... playing every guitar"
    assert quant("A man is playing a guitar.", "E2C", settings) == {"No man is playing a guitar.": "^"}


def test_plural_and_existential_subjects(settings: Settings) -> None:
    found = quant("Some children are eating all the cookies.", "E2N", settings)
    assert set(found) == {f"{d} children are eating all the cookies." for d in ("All", "Most", "Many", "Several")}
    assert set(found.values()) == {"⊐"}
    # "There is every man" is no English: only existential determiners after "there is".
    assert quant("There is a man in the park.", "E2C", settings) == {"There is no man in the park.": "^"}
    assert quant("There is a man in the park.", "C2C", settings) == {}


def test_quantity_phrases_predicates_and_predeterminers_are_left_alone(settings: Settings) -> None:
    for text in ("A lot of people are watching.", "He is a doctor.", "A couple of dogs run."):
        for setup in ("E2E", "C2C", "E2C", "E2N"):
            assert quant(text, setup, settings) == {}, (text, setup)
    # "all" in "all the cookies" is a predeterminer: never substituted.
    assert not any("the cookies" in t and not t.endswith("all the cookies.")
                   for t in quant("Some children are eating all the cookies.", "E2C", settings))


def test_articles_follow_the_next_word(settings: Settings) -> None:
    assert "An elephant drinks water." in quant("Every elephant drinks water.", "E2E", settings)


def test_an_empty_setup_says_why(settings: Settings) -> None:
    """Operators switched off are named; a sentence where logic licenses nothing says so."""
    from engine.attack.round import Proposal, no_candidate_reason

    polarized = polarize(parse("Every dog sees some cat", settings=settings))
    empty = Proposal(get_setup("E2E"), (), 0, {}, {})
    off = settings.with_overrides(disabled_operators="PerturbHyper,PerturbHypo,PerturbSyno,Deletion,PerturbQuant,"
                                                     "DoubleNegation,AltLM,Insertion,PerturbCoHyper,PerturbAnto")
    from tests.attacking import attack_of

    reason = no_candidate_reason(attack_of(off), polarized, empty)
    assert "leaves out" in reason and "PerturbHyper" in reason and "PerturbQuant" in reason
    assert "dropped all 7" in no_candidate_reason(attack_of(settings), polarized,
                                                  Proposal(get_setup("E2E"), (), 7, {"x": 7}, {}))


def numerals(text: str, setup: str, settings: Settings, reading: str = "exactly") -> dict[str, str]:
    from engine.natlog.triggers import Conventions

    polarized = polarize(parse(text, settings=settings), conventions=Conventions(numerals=reading))
    found = generate_candidates(polarized, get_setup(setup).relations, settings=settings,
                                operators=[get_operator("PerturbQuant")], setup=setup)
    return {c.text: c.relation.symbol for c in found}


def test_a_subject_numeral_changes_under_the_chosen_reading(settings: Settings) -> None:
    """Exactly n: another number is an alternation (E2C), never an entailment; at least n: a smaller
    number is entailed (E2E), a larger one is not; one is never offered (the noun stays plural)."""
    assert numerals("Two men are playing guitars.", "E2C", settings) == {"Three men are playing guitars.": "|"}
    assert numerals("Three dogs run in the snow.", "E2C", settings) == {
        "Two dogs run in the snow.": "|", "Four dogs run in the snow.": "|"}
    assert numerals("Three dogs run in the snow.", "E2E", settings) == {}
    assert numerals("Three dogs run in the snow.", "E2E", settings, "at-least") == {"Two dogs run in the snow.": "⊏"}
    assert numerals("Three dogs run in the snow.", "E2N", settings, "at-least") == {"Four dogs run in the snow.": "⊐"}
    assert numerals("12 dogs run in the snow.", "E2C", settings) == {"11 dogs run in the snow.": "|",
                                                                    "13 dogs run in the snow.": "|"}


def test_numerals_the_marker_reads_otherwise_are_left_alone(settings: Settings) -> None:
    cases = {"At least three dogs run.": "three", "A man is kicking two balls.": "two", "Two years passed.": "Two",
             "One dog runs.": "One"}
    for text, number in cases.items():
        for setup in ("E2E", "E2C", "C2C", "E2N"):
            for reading in ("exactly", "at-least"):
                changed = [c for c in numerals(text, setup, settings, reading) if number not in c.split()]
                assert changed == [], (text, setup, reading)


def test_the_verifier_derives_the_numeral_edits(settings: Settings) -> None:
    assert verify("Two men are playing guitars.", "Three men are playing guitars.", settings).label == "contradiction"
    at_least = settings.with_overrides(numeral_reading="at-least")
    assert verify("Three dogs run.", "Two dogs run.", at_least).label == "entailment"
    assert verify("Two dogs run.", "Three dogs run.", at_least).label == "neutral"
