"""Sense choice in context and the readings it cannot rule out (real WordNet, the offline encoder)."""

from __future__ import annotations

import pytest

from engine.core.settings import get_settings
from engine.edits.candidates import generate_candidates
from engine.lexicon.senses import ContextSense, FirstSense, SenseContext, rival_senses
from engine.models.language import load_sentence_encoder
from engine.natlog.polarity import Conventions, polarize
from engine.natlog.setups import get_setup
from engine.parse import parse

BAT = SenseContext("a quadruped inspected each black bat", "some quadruped inspected each black bat")


@pytest.fixture(scope="module")
def chooser() -> ContextSense:
    settings = get_settings()
    return ContextSense(load_sentence_encoder(settings), settings)


def test_scored_senses_are_ranked_best_first(chooser: ContextSense) -> None:
    scored = chooser.scored("bat", "NOUN", BAT)
    assert [s for s, _ in scored] == chooser.rank("bat", "NOUN", BAT)
    assert [v for _, v in scored] == sorted((v for _, v in scored), reverse=True)
    # the encoder prefers the baseball at-bat, by less than 0.1, to the animal
    names = [s.name() for s, _ in scored]
    assert names[0] == "bat.n.02" and names.index("bat.n.01") == 1
    assert scored[0][1] - scored[1][1] < 0.1


def test_rivals_are_the_senses_within_the_margin(chooser: ContextSense) -> None:
    settings = get_settings()
    assert "bat.n.01" in rival_senses(chooser, "bat", "NOUN", BAT, settings.with_overrides(wsd_margin=0.1))
    assert rival_senses(chooser, "bat", "NOUN", BAT, settings.with_overrides(wsd_margin=0.0)) == ()
    assert rival_senses(chooser, "bat", "NOUN", BAT, settings.with_overrides(wsd_margin=0.01)) == ()
    wide = settings.with_overrides(wsd_margin=0.5)
    # WordNet's order has no scores: no rivals
    assert rival_senses(FirstSense(settings), "bat", "NOUN", BAT, wide) == ()
    # a word of one sense has none; the default margin (0) gives none
    assert rival_senses(chooser, "quadruped", "NOUN", BAT, wide) == ()
    assert rival_senses(chooser, "bat", "NOUN", BAT, settings) == ()


def synonyms_in(context: SenseContext, chooser: ContextSense, margin: float) -> set[str]:
    settings = get_settings().with_overrides(wsd_margin=margin, indefinite_reading="existential")
    polarized = polarize(parse(context.sentence, settings=settings), conventions=Conventions.of(settings))
    found = generate_candidates(polarized, get_setup("E2E").relations, setup="E2E", settings=settings,
                                senses=chooser, premise=context.premise)
    return {c.text for c in found if c.operator == "PerturbSyno"}


def test_a_substitution_must_hold_under_every_close_sense(chooser: ContextSense) -> None:
    newborn = SenseContext("a quadruped inspected each newborn bat", "some quadruped inspected each newborn bat")
    assert "A quadruped inspected each newborn at-bat" in synonyms_in(newborn, chooser, 0.0)
    assert not any("at-bat" in text for text in synonyms_in(newborn, chooser, 0.1))


def test_a_coloured_noun_reads_as_a_physical_thing(chooser: ContextSense) -> None:
    """A colour is said of physical things: "each black bat" is the animal or a club, never the
    at-bat (a turn at batting), although the encoder prefers the at-bat there (BAT, above)."""
    assert chooser.rank("bat", "NOUN", BAT)[0].name() == "bat.n.02"
    physical = SenseContext(BAT.sentence, BAT.premise, physical=True)
    assert "bat.n.02" not in [s.name() for s in chooser.rank("bat", "NOUN", physical)]
    assert chooser.rank("bat", "NOUN", physical)[0].name() == "bat.n.01"
    assert not any("at-bat" in text for text in synonyms_in(BAT, chooser, 0.0))
    # The colour may sit in a coordination of colours, or on another use of the noun; without one,
    # the encoder's at-bat stays.
    for text in ("a quadruped inspected each brown or black bat", "a black bat and a quadruped inspected each bat"):
        assert not any("at-bat" in t for t in synonyms_in(SenseContext(text, text), chooser, 0.0)), text
    plain = "a quadruped inspected each bat"
    assert "A quadruped inspected each at-bat" in synonyms_in(SenseContext(plain, plain), chooser, 0.0)


def test_a_common_noun_has_no_sense_wordnet_spells_as_a_name(chooser: ContextSense) -> None:
    """WordNet holds "Badger" (a native of Wisconsin) and "Turkey" (the country) capitalised: a word
    the parser tags NOUN is not that sense, in any case; the hypernyms follow the animal."""
    from engine.lexicon import relatives
    from engine.lexicon.senses import candidate_senses

    settings = get_settings()
    assert [s.name() for s in candidate_senses("badger", "NOUN", settings)] == ["badger.n.02"]
    assert "turkey.n.01" in {s.name() for s in candidate_senses("turkey", "NOUN", settings)}
    assert "turkey.n.02" not in {s.name() for s in candidate_senses("turkey", "NOUN", settings)}
    context = SenseContext("a badger was happy", "each badger was happy")
    assert chooser.rank("badger", "NOUN", context)[0].name() == "badger.n.02"
    assert [s.name() for s in relatives.senses("badger", "NOUN", settings)] == ["badger.n.02"]
    hypernyms = {r.lemma for r in relatives.hypernyms("badger", "NOUN", settings)}
    assert "dweller" not in hypernyms and "musteline mammal" in hypernyms
    # Verbs and common nouns WordNet writes in lower case keep every sense.
    assert len(candidate_senses("bat", "NOUN", settings)) == 5


def test_a_verb_that_takes_someone_and_the_nouns_it_asks_an_animate_reading_of() -> None:
    from engine.edits.operators.wordnet import asks_for_someone, takes_someone

    settings = get_settings()
    # WordNet's first sense of "sniff" and "dance" has only "Somebody ----s" frames; "run" and
    # "touch" also take "Something" ("the engine runs").
    assert takes_someone("sniff", settings) and takes_someone("dance", settings)
    assert not takes_someone("run", settings) and not takes_someone("touch", settings)
    assert not takes_someone("glorp", settings)

    def asking(text: str) -> list[str]:
        parsed = parse(text, settings=settings)
        return [t.text for t in parsed.tokens if asks_for_someone(parsed, t, settings)]

    assert asking("each bat sniffed at least 5 bats") == ["bat"]  # the subject, not the object
    assert asking("a bat who danced moved") == ["bat"]  # the antecedent of "who"
    assert asking("a bat moved") == []  # "move" also takes "Something"
    assert asking("a bat was sniffed by a dog") == []  # a passive subject is not the one who sniffs
    assert asking("a quadruped inspected each black bat") == ["quadruped"]


def test_where_the_sentence_asks_for_someone_a_noun_keeps_its_animate_senses(chooser: ContextSense) -> None:
    """"each bat sniffed at least 5 bats": the encoder prefers the at-bat (the sentence is about
    hitting and counting), but an at-bat sniffs nothing, and every "bat" of the sentence is the
    same animal (one sense per discourse)."""
    settings = get_settings().with_overrides(indefinite_reading="existential")
    text = "each bat sniffed at least 5 bats"
    assert chooser.rank("bat", "NOUN", SenseContext(text, text))[0].name() == "bat.n.02"  # the at-bat
    assert [s.name() for s in chooser.rank("bat", "NOUN", SenseContext(text, text, animate=True))] == ["bat.n.01"]
    # a word with no animate sense keeps all of its own
    assert chooser.rank("coffee", "NOUN", SenseContext(text, text, animate=True)) == \
        chooser.rank("coffee", "NOUN", SenseContext(text, text))
    polarized = polarize(parse(text, settings=settings), conventions=Conventions.of(settings))
    found = {c.text for c in generate_candidates(polarized, get_setup("E2E").relations, setup="E2E",
                                                 settings=settings, senses=chooser, premise=text)}
    assert "Each bat sniffed at least 5 mammals" in found
    assert not any("at-bat" in t or "activity" in t for t in found)
