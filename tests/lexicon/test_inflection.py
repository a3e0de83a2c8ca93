"""Grammar keepers: lemminflect re-inflection, a/an, capitals and do-support on real parses."""

from __future__ import annotations

import pytest

from engine.lexicon.inflection import (
    fix_article,
    indefinite_article,
    inflect,
    is_negated,
    match_case,
    negate_predicate,
    uncapitalise,
)
from engine.parse import parse


@pytest.mark.parametrize(("lemma", "xpos", "upos", "expected"), [
    ("puppy", "NNS", "NOUN", "puppies"),
    ("mouse", "NNS", "NOUN", "mice"),
    ("water bird", "NNS", "NOUN", "water birds"),
    ("dog", "NN", "NOUN", "dog"),
    ("jog", "VBZ", "VERB", "jogs"),
    ("run", "VBD", "VERB", "ran"),
    ("look up", "VBD", "VERB", "looked up"),
    ("sit", "VBG", "VERB", "sitting"),
    ("tall", "JJR", "ADJ", "taller"),
    ("quickly", "RB", "ADV", "quickly"),
    # a hyphenated noun inflects its head part, not the whole word ("ex-wifes")
    ("ex-wife", "NNS", "NOUN", "ex-wives"),
    ("step-child", "NNS", "NOUN", "step-children"),
    ("mother-in-law", "NNS", "NOUN", "mothers-in-law"),
    ("x-ray", "NNS", "NOUN", "x-rays"),
    ("skinny-dip", "VBG", "VERB", "skinny-dipping"),
])
def test_inflect_matches_the_original_form(lemma: str, xpos: str, upos: str, expected: str) -> None:
    assert inflect(lemma, xpos, upos) == expected


def test_mass_nouns_by_their_plurals() -> None:
    from engine.lexicon.inflection import is_mass_noun

    assert is_mass_noun("equipment") and is_mass_noun("public")  # "publics" is far rarer than "public"
    assert not is_mass_noun("dog") and not is_mass_noun("folk")


def test_unknown_comparative_is_refused() -> None:
    assert inflect("anseriform", "JJR", "ADJ") is None


@pytest.mark.parametrize(("word", "article"), [
    ("apple", "an"), ("dog", "a"), ("hour", "an"), ("honest", "an"), ("unicorn", "a"),
    ("university", "a"), ("umbrella", "an"), ("European", "a"), ("unusual", "an"), ("one", "a"), ("old", "an"),
])
def test_indefinite_article(word: str, article: str) -> None:
    assert indefinite_article(word) == article


def test_fix_article_keeps_case_and_ignores_other_words() -> None:
    assert fix_article(["An", "goose", "swims"], 1) == ["A", "goose", "swims"]
    assert fix_article(["see", "a", "old", "goose"], 2) == ["see", "an", "old", "goose"]
    assert fix_article(["the", "old", "goose"], 1) == ["the", "old", "goose"]


def test_case_helpers() -> None:
    assert match_case("puppy", "Dog") == "Puppy"
    assert match_case("puppy", "dog") == "puppy"
    assert uncapitalise("The", "DET") == "the"
    assert uncapitalise("John", "PROPN") == "John"
    assert uncapitalise("I", "PRON") == "I"


def _negated(text: str, settings) -> str | None:
    sentence = parse(text, settings=settings)
    result = negate_predicate(sentence, sentence.root.id)
    if result is None:
        return None
    index, words = result
    out = sentence.words[:index] + list(words) + sentence.words[index + 1:]
    return " ".join(out)


@pytest.mark.parametrize(("text", "expected"), [
    ("The dog runs .", "The dog does not run ."),
    ("The dogs ran .", "The dogs did not run ."),
    ("The dogs run .", "The dogs do not run ."),
    ("A man is sleeping .", "A man is not sleeping ."),
    ("A goose is a water bird .", "A goose is not a water bird ."),
    ("The man can swim .", "The man can not swim ."),
    ("The cake has been eaten .", "The cake has not been eaten ."),
])
def test_negation_uses_do_support_or_the_first_auxiliary(text: str, expected: str, settings) -> None:
    assert _negated(text, settings=settings) == expected


def test_already_negated_predicates_are_left_alone(settings) -> None:
    sentence = parse("The dog does not run.", settings=settings)
    assert is_negated(sentence, sentence.root.id)
    assert negate_predicate(sentence, sentence.root.id) is None
    assert not is_negated(parse("The dog runs.", settings=settings), 3)
