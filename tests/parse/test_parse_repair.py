"""Parse repairs on real spaCy parses: each repair fixes its error class and leaves sound parses alone."""

from __future__ import annotations

import pytest

from engine.core.settings import get_settings
from engine.lexicon.relatives import wordnet, wordnet_animacy
from engine.natlog.polarity import polarize
from engine.parse import load_parser, parse
from engine.parse.repair import (
    predicate_candidate,
    repair,
    repair_determined_noun,
    repair_missing_main_clause,
    repair_relative_attachment,
    repair_subjectless_main_clause,
    repair_verbless_sentence,
    verb_lemma,
)
from engine.parse.sentence import ParsedSentence


@pytest.fixture(scope="module")
def parser():
    settings = get_settings()
    return load_parser("spacy", settings.spacy_model, settings.nltk_data)


@pytest.fixture(scope="module")
def is_animate(settings):
    return wordnet_animacy(wordnet(settings=settings))


@pytest.fixture(scope="module")
def classes(settings):
    from engine.core.wordnet import wordnet_classes

    return wordnet_classes(wordnet(settings=settings))


def raw(parser, text: str):
    """The converted but unrepaired parse of pre-tokenized ``text`` and its verb margins."""
    doc = parser.analyse(text, text.split(" "))
    return parser.to_sentence(doc), parser.verb_margins(doc)


def arc(sentence: ParsedSentence, word: str, nth: int = 0) -> tuple[str, str]:
    """(deprel, head word) of the nth token spelled ``word``."""
    tok = [t for t in sentence if t.text == word][nth]
    return tok.deprel, ("ROOT" if tok.head == 0 else sentence.token(tok.head).text)


def test_verb_lemma_checks_the_form_against_the_tag() -> None:
    assert verb_lemma("chases", "VBZ") == "chase"
    assert verb_lemma("like", "VBP") == "like"
    assert verb_lemma("like", "VBZ") is None
    assert verb_lemma("two", "VBZ") is None


def test_predicate_candidate_needs_agreement(parser) -> None:
    sentence, margins = raw(parser, "no dog chases")
    assert predicate_candidate(sentence, [1, 2, 3], margins) == (3, "VBZ")
    # "dogs" is a VBZ form, but "Three" is plural: only "like" (VBP) agrees
    sentence, margins = raw(parser, "Three dogs like four cats")
    assert predicate_candidate(sentence, [1, 2, 3, 4, 5], margins) == (3, "VBP")


def test_verb_read_as_preposition_becomes_the_predicate(parser) -> None:
    before, margins = raw(parser, "Three dogs like four cats")
    assert not any(t.upos == "VERB" for t in before)  # the small model reads "like" as a preposition
    after = repair_verbless_sentence(before, margins)
    assert arc(after, "like") == ("root", "ROOT") and after.token(3).upos == "VERB"
    assert arc(after, "dogs") == ("nsubj", "like")
    assert arc(after, "cats") == ("obj", "like")
    # phrase-internal arcs survive
    assert arc(after, "Three") == ("nummod", "dogs") and arc(after, "four") == ("nummod", "cats")


def test_verb_read_as_noun_becomes_the_predicate(parser) -> None:
    before, margins = raw(parser, "Several dogs bark")
    assert before.token(3).upos == "NOUN"
    after = repair_verbless_sentence(before, margins)
    assert arc(after, "bark") == ("root", "ROOT") and after.token(3).lemma == "bark"
    assert arc(after, "dogs") == ("nsubj", "bark")
    assert arc(after, "Several")[1] == "dogs"


def test_verb_swallowed_by_a_relative_clause_returns(parser) -> None:
    before, margins = raw(parser, "Most people who own a car drive to work")
    assert before.token(7).upos == "NOUN"  # "a car drive" read as one noun phrase
    after = repair_verbless_sentence(before, margins)
    assert arc(after, "drive") == ("root", "ROOT")
    assert arc(after, "people") == ("nsubj", "drive")
    assert arc(after, "car") == ("obj", "own") and arc(after, "a") == ("det", "car")
    assert arc(after, "own") == ("acl:relcl", "people")


def test_reduced_relative_becomes_the_predicate(parser) -> None:
    before, margins = raw(parser, "The woman without a hat left early")
    assert arc(before, "left")[0] == "acl"
    after = repair_verbless_sentence(before, margins)
    assert arc(after, "left") == ("root", "ROOT") and after.token(6).xpos == "VBD"
    assert arc(after, "woman") == ("nsubj", "left")
    assert arc(after, "hat") == ("nmod", "woman")
    assert arc(after, "early") == ("advmod", "left")


@pytest.mark.parametrize("text", ["Every dog barks", "John can swim", "Eat the cake", "The big red barn"])
def test_sound_or_verbless_fragments_are_left_alone(parser, text: str) -> None:
    before, margins = raw(parser, text)
    assert repair_verbless_sentence(before, margins) == before


def test_consequent_read_as_relative_clause_is_promoted(parser) -> None:
    before, margins = raw(parser, "Even if you are addicted to cigarettes you can smoke two a day")
    assert arc(before, "smoke")[0] == "acl:relcl"
    after = repair_missing_main_clause(before, margins)
    assert arc(after, "smoke") == ("root", "ROOT")
    assert arc(after, "addicted") == ("advcl", "smoke")
    assert arc(after, "if") == ("mark", "addicted")
    assert arc(after, "you", 1) == ("nsubj", "smoke")


def test_consequent_read_as_object_is_rebuilt(parser) -> None:
    before, margins = raw(parser, "If every cat runs some dog runs also")
    assert arc(before, "runs", 1)[0] == "obj"
    after = repair_missing_main_clause(before, margins)
    assert arc(after, "runs", 1) == ("root", "ROOT") and after.token(7).upos == "VERB"
    assert arc(after, "runs", 0) == ("advcl", "runs")
    assert arc(after, "dog") == ("nsubj", "runs") and arc(after, "some") == ("det", "dog")
    assert arc(after, "also") == ("advmod", "runs") and after.token(8).head == 7


def test_main_clause_repair_ignores_sentences_with_a_main_clause(parser) -> None:
    before, margins = raw(parser, "Some dog runs if every cat runs")
    assert repair_missing_main_clause(before, margins) == before


def test_subjectless_main_verb_takes_the_fronted_clause_object(parser) -> None:
    before, _ = raw(parser, "If some dog barks every cat runs")
    assert arc(before, "cat") == ("obj", "barks")
    after = repair_subjectless_main_clause(before)
    assert arc(after, "cat") == ("nsubj", "runs")
    assert arc(after, "every") == ("det", "cat")
    # a main clause with its subject is left alone
    sound, _ = raw(parser, "If some dog barks , the cat runs")
    assert arc(sound, "cat") == ("nsubj", "runs")
    assert repair_subjectless_main_clause(sound) == sound


def test_wordnet_animacy_uses_the_most_frequent_sense(parser, is_animate) -> None:
    sentence, _ = raw(parser, "The dog and the committee saw John in the house")
    animate = {t.text: is_animate(t) for t in sentence if t.upos in ("NOUN", "PROPN")}
    assert animate == {"dog": True, "committee": True, "John": True, "house": False}


def test_who_clause_moves_from_inanimate_to_animate_noun(parser, is_animate) -> None:
    before, _ = raw(parser, "There is a dog in the house who wants to eat three biscuits")
    assert arc(before, "wants") == ("acl:relcl", "house")
    after = repair_relative_attachment(before, is_animate)
    assert arc(after, "wants") == ("acl:relcl", "dog")
    kept, _ = raw(parser, "I saw a dog who barks")
    assert repair_relative_attachment(kept, is_animate) == kept


def test_parse_applies_the_repairs(parser, is_animate, settings) -> None:
    sentence = parse("no dog chases", pretokenized=True, settings=settings)
    assert arc(sentence, "chases") == ("root", "ROOT") and arc(sentence, "dog") == ("nsubj", "chases")
    before, margins = raw(parser, "All the kids run")
    assert repair(before, margins, is_animate) == before


def test_relative_clause_that_swallowed_the_main_predicate(parser) -> None:
    from engine.parse.repair import repair_relative_clause

    before, margins = raw(parser, "Every cat who no dog chases rests")
    assert arc(before, "rests") != ("root", "ROOT")  # the small model makes "chases" a noun, "rests" relative
    after = repair_relative_clause(before, margins)
    assert arc(after, "rests") == ("root", "ROOT") and arc(after, "cat") == ("nsubj", "rests")
    assert arc(after, "chases") == ("acl:relcl", "cat") and arc(after, "dog") == ("nsubj", "chases")
    assert arc(after, "who") == ("obj", "chases")
    before, margins = raw(parser, "The dog that bark loudly does not like any cat")
    after = repair_relative_clause(before, margins)
    assert arc(after, "like") == ("root", "ROOT") and arc(after, "dog") == ("nsubj", "like")
    assert arc(after, "bark") == ("acl:relcl", "dog") and arc(after, "not") == ("advmod", "like")
    # A sound parse is left alone, nested relatives included.
    for text in ("The man who the woman saw left the room", "Some cat who likes every dog who likes some squirrel died"):
        sound, margins = raw(parser, text)
        assert repair_relative_clause(sound, margins) == sound


def test_centre_embedded_relative_clauses_get_their_verbs_in_order(parser, settings) -> None:
    from engine.parse.repair import repair_centre_embedding

    text = "some black dog who all brown bulldogs who every cat moved away from saw moved"
    before, margins = raw(parser, text)
    assert arc(before, "saw") != ("acl:relcl", "dog")  # the small model reads "saw" as a noun after "from"
    after = repair_centre_embedding(before, margins)
    assert arc(after, "moved", 1) == ("root", "ROOT") and arc(after, "dog") == ("nsubj", "moved")
    assert arc(after, "saw") == ("acl:relcl", "dog") and arc(after, "bulldogs") == ("nsubj", "saw")
    assert arc(after, "moved", 0) == ("acl:relcl", "bulldogs") and arc(after, "cat") == ("nsubj", "moved")
    assert arc(after, "who", 0) == ("obj", "saw") and arc(after, "who", 1) == ("obl", "moved")
    assert arc(after, "from") == ("case", "who") and arc(after, "brown") == ("amod", "bulldogs")
    saw = next(t for t in after if t.text == "saw")
    assert (saw.upos, saw.lemma) == ("VERB", "see")
    # Polarity follows: "cat" sits in the restrictor of "every" inside the restrictor of "all" (up),
    # "saw" in the body of "all" (up); with the noun reading "saw" came out down.
    marked = " ".join(t.marked for t in polarize(parse(text, settings=settings)).tokens)
    assert "cat↑ moved↓" in marked and "saw↑" in marked
    # Sound parses, one level of relative clause and right-branching nesting are left alone.
    for sound_text in ("The man who the woman saw left the room", "Some cat who likes every dog who likes some squirrel died",
                       "Every cat who no dog chases rests"):
        sound, margins = raw(parser, sound_text)
        assert repair_centre_embedding(sound, margins) == sound


def test_exception_phrase_read_as_a_clause(parser) -> None:
    from engine.parse.repair import repair_exception_phrase

    before, margins = raw(parser, "All the cats except for two slept")
    after = repair_exception_phrase(before, margins)
    assert arc(after, "slept") == ("root", "ROOT") and arc(after, "cats") == ("nsubj", "slept")
    assert arc(after, "two") == ("nmod", "cats") and arc(after, "except") == ("case", "two")
    sound, margins = raw(parser, "Every student except John passed the exam")
    assert repair_exception_phrase(sound, margins) == sound


def test_determiner_most_is_not_a_superlative(parser) -> None:
    from engine.parse.repair import repair_determiner_most

    before, _ = raw(parser, "Most fluffy cats sleep")
    assert arc(before, "Most") == ("advmod", "fluffy")
    assert arc(repair_determiner_most(before), "Most") == ("amod", "cats")
    superlative, _ = raw(parser, "The most fluffy cats sleep")
    assert repair_determiner_most(superlative) == superlative


def test_determined_noun_read_as_adjective_or_participle_is_a_noun(parser, classes) -> None:
    # the tagger calls the rare noun an adjective and hangs the determiner on the verb
    before, _ = raw(parser, "some mammal slept")
    assert before.token(2).upos == "ADJ" and arc(before, "some") == ("det", "slept")
    after = repair_determined_noun(before, classes)
    assert after.token(2).upos == "NOUN" and after.token(2).xpos == "NN"
    assert arc(after, "mammal") == ("nsubj", "slept") and arc(after, "some") == ("det", "mammal")
    # a past participle it cannot be, after a degree adverb and an adjective: arcs inside the phrase stay
    before, _ = raw(parser, "a very bad quadruped stared at no steel wheels")
    assert before.token(4).upos == "VERB"
    after = repair_determined_noun(before, classes)
    assert after.token(4).upos == "NOUN" and arc(after, "quadruped") == ("nsubj", "stared")
    assert arc(after, "very") == ("advmod", "bad") and arc(after, "bad") == ("amod", "quadruped")
    # an adjective that headed the phrase gives the noun its place
    before, _ = raw(parser, "every young quadruped who most mammals saw swam")
    assert arc(before, "young") == ("nsubj", "quadruped")
    after = repair_determined_noun(before, classes)
    assert arc(after, "young") == ("amod", "quadruped") and arc(after, "every") == ("det", "quadruped")


def test_determined_noun_leaves_adjectives_as_nouns_and_verb_forms(parser, classes) -> None:
    # "other" is an adjective to WordNet, "saw" a form of "see": neither becomes a noun
    for text in ("The cats are playing with each other", "a horse who a mammal saw ran"):
        before, _ = raw(parser, text)
        after = repair_determined_noun(before, classes)
        assert [t.upos for t in after if t.text in ("other", "saw")] == [t.upos for t in before
                                                                       if t.text in ("other", "saw")]
    sound, _ = raw(parser, "A dog is barking at the mailman")
    assert repair_determined_noun(sound, classes) == sound


def test_determined_noun_repair_changes_what_double_negation_licenses() -> None:
    # With "quadruped" read as a participle the subject "a" had no noun, and the double negation
    # of the predicate came out as ≡; read as a noun, strict "a" gives ⊐, which E2E does not allow.
    from engine.core.settings import DEFAULT_SETTINGS
    from engine.edits.candidates import generate_candidates
    from engine.natlog.polarity import Conventions, polarize
    from engine.natlog.setups import get_setup

    settings = DEFAULT_SETTINGS.with_overrides(indefinite_reading="existential")
    conventions = Conventions.of(settings)

    def double_negations(text: str):
        polarized = polarize(parse(text, settings=settings), conventions=conventions)
        return [c.relation for c in generate_candidates(polarized, get_setup("E2E").relations, setup="E2E",
                                                        settings=settings) if c.operator == "DoubleNegation"]

    assert double_negations("a black quadruped touched a stallion") == []
    assert double_negations("the black quadruped touched a stallion")  # a definite subject keeps ≡
