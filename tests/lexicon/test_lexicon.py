"""WordNet lexical relations on the real WordNet 3.0: POS-aware, distance-bounded, MacCartney's relations."""

from __future__ import annotations

import pytest

from engine.core.settings import Settings, get_settings
from engine.lexicon import relatives as lexicon
from engine.natlog.relations import Relation


@pytest.fixture(scope="module")
def settings() -> Settings:
    """WordNet's structure, without the frequency floor (tested on its own below)."""
    return get_settings().with_overrides(wordnet_distance=2, wordnet_senses=1, min_zipf=0)


def lemmas(found: tuple[lexicon.LexicalRelative, ...] | list[lexicon.LexicalRelative]) -> set[str]:
    return {r.lemma for r in found}


def test_hypernyms_are_forward_within_the_distance(settings: Settings) -> None:
    found = lexicon.hypernyms("bird", "NOUN", settings)
    assert {"vertebrate", "chordate"} <= lemmas(found)
    assert {r.relation for r in found} == {Relation.FORWARD}
    vertebrate = next(r for r in found if r.lemma == "vertebrate")
    assert vertebrate.path == ("bird.n.01", "vertebrate.n.01") and vertebrate.source == "bird.n.01"
    one_hop = lexicon.hypernyms("bird", "NOUN", settings.with_overrides(wordnet_distance=1))
    assert "vertebrate" in lemmas(one_hop) and "chordate" not in lemmas(one_hop)
    assert all(len(r.path) - 1 <= 2 for r in found)


def test_hyponyms_are_reverse_and_multiword_lemmas_have_spaces(settings: Settings) -> None:
    found = lexicon.hyponyms("dog", "NOUN", settings)
    assert "puppy" in lemmas(found)
    assert {r.relation for r in found} == {Relation.REVERSE}
    assert any(" " in r.lemma for r in found)
    assert not any("_" in r.lemma for r in found)
    assert "dog" not in lemmas(found)


def test_synonyms_are_equivalent(settings: Settings) -> None:
    found = lexicon.synonyms("quickly", "ADV", settings)
    assert "rapidly" in lemmas(found)
    assert {r.relation for r in found} == {Relation.EQUIVALENCE}


def test_co_hyponyms_are_alternations_distinct_from_other_relatives(settings: Settings) -> None:
    found = lexicon.co_hyponyms("dog", "NOUN", settings)
    assert "wolf" in lemmas(found)
    assert {r.relation for r in found} == {Relation.ALTERNATION}
    wolf = next(r for r in found if r.lemma == "wolf")
    assert wolf.path[0] == "dog.n.01" and len(wolf.path) == 3
    related = lexicon.related_lemmas("dog", "NOUN", settings)
    assert not {r.lemma.lower() for r in found} & related


def test_antonyms_are_alternation_never_negation(settings: Settings) -> None:
    assert "short" in lemmas(lexicon.antonyms("tall", "ADJ", settings))
    assert "slowly" in lemmas(lexicon.antonyms("quickly", "ADV", settings))
    found = lexicon.antonyms("tall", "ADJ", settings) + lexicon.antonyms("happy", "ADJ", settings)
    assert found and all(r.relation is Relation.ALTERNATION for r in found)


def test_relations_depend_on_the_part_of_speech(settings: Settings) -> None:
    as_verb = lemmas(lexicon.hypernyms("bark", "VERB", settings))
    as_noun = lemmas(lexicon.hypernyms("bark", "NOUN", settings))
    assert "talk" in as_verb and "talk" not in as_noun
    assert as_noun and not as_noun & as_verb
    assert lexicon.synonyms("the", "DET", settings) == ()


def test_rare_words_and_pronouns_are_not_relatives(settings: Settings) -> None:
    floor = settings.with_overrides(min_zipf=2.5)
    assert "clew" not in lemmas(lexicon.hypernyms("sign", "NOUN", floor))
    assert not lexicon.common_enough("clew", floor) and lexicon.common_enough("clue", floor)
    assert not lexicon.plain_word("clew", "NOUN", floor) and lexicon.plain_word("clew", "NOUN", floor.with_overrides(min_zipf=0))
    assert lexicon.common_enough("water bird", floor)  # phrases are left to the fluency ranking
    found = lemmas(lexicon.hypernyms("man", "NOUN", settings))
    assert "person" in found and not found & {"someone", "somebody"}


def test_listed_compounds_and_whether_they_are_kinds_of_their_head(settings: Settings) -> None:
    assert lexicon.compound_kind_of("Christmas tree", "tree", settings) is True
    assert lexicon.compound_kind_of("ice cream", "cream", settings) is False
    assert lexicon.compound_kind_of("fencing tournament", "tournament", settings) is None


def test_substitutes_read_as_plain_english(settings: Settings) -> None:
    reader = lexicon.wordnet(settings)
    # WordNet's girl.n.01 has the slang sense baby.n.05 ("babe") and, two hops down, the profane "bimbo".
    girl = reader.synset("girl.n.01")
    assert reader.synset("baby.n.05") in girl.hyponyms()
    assert reader.synset("bimbo.n.01") in {h for s in girl.hyponyms() for h in [s, *s.hyponyms()]}
    assert not {"babe", "bimbo"} & lemmas(lexicon.hyponyms("girl", "NOUN", settings))
    assert "lass" in lemmas(lexicon.hyponyms("girl", "NOUN", settings))
    assert not lexicon.plain_word("bimbo", "NOUN", settings)
    assert not lexicon.plain_word("rich", "NOUN", settings)  # usually an adjective
    assert lexicon.usual_pos("rich", settings) == "a" and lexicon.usual_pos("carry", settings) == "v"
    assert lexicon.plain_word("puppy", "NOUN", settings) and lexicon.plain_word("carry", "VERB", settings)


def test_no_hypernym_from_the_top_of_the_noun_hierarchy(settings: Settings) -> None:
    reader = lexicon.wordnet(settings)
    people = reader.synset("people.n.01")
    assert reader.synset("abstraction.n.06") in {h for g in people.hypernyms() for h in g.hypernyms()}
    assert not {"group", "grouping", "abstraction"} & lemmas(lexicon.hypernyms("people", "NOUN", settings))
    assert "person" in lemmas(lexicon.hypernyms("man", "NOUN", settings))  # person.n.01 is deep enough
    assert "move" in lemmas(lexicon.hypernyms("carry", "VERB", settings))  # verbs have shallow hierarchies


def test_relatives_come_in_the_same_order_in_every_process() -> None:
    """NLTK keeps WordNet pointers in sets, whose order follows Python's per-process string hashing;
    the lexicon sorts them, so two processes with different hash seeds list the same relatives in
    the same order (and a seeded attack is the same attack in every process)."""
    import os
    import subprocess
    import sys

    script = (
        "from engine.core.settings import get_settings\n"
        "from engine.lexicon import relatives as lexicon\n"
        "settings = get_settings()\n"
        "for find in (lexicon.hyponyms, lexicon.hypernyms, lexicon.co_hyponyms):\n"
        "    print([(r.lemma, r.path) for r in find('dog', 'NOUN', settings)])\n"
        "print([r.lemma for r in lexicon.antonyms('hot', 'ADJ', settings)])\n"
        "print([s.name() for s in lexicon.related(lexicon.wordnet(settings).synset('dog.n.01'), 'hyponyms')])\n"
        "print([s.name() for s in lexicon.wordnet(settings).synset('dog.n.01').hyponyms()])\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout.splitlines()
        for seed in ("1", "2", "3")
    ]
    assert runs[0][:5] == runs[1][:5] == runs[2][:5]
    assert len(runs[0][0]) > 200  # dog has many hyponyms within two steps
    # NLTK's own order is the one that moves (else this test would prove nothing).
    assert len({run[5] for run in runs}) > 1


def test_semcor_counts_are_wordnets_own_and_read_once(settings: Settings) -> None:
    from engine.core.wordnet import semcor_counts
    from engine.lexicon.senses import sense_count

    dog = lexicon.wordnet(settings).synset("dog.n.01")
    assert semcor_counts(dog) == {l.name().lower(): l.count() for l in dog.lemmas()}
    assert semcor_counts(dog)["dog"] == 42 and sense_count(dog, "Canis familiaris") == 0
    assert sense_count(dog, "cat") == 0
    assert semcor_counts(dog) is semcor_counts(dog)  # memoised: the file is searched once per sense
    with pytest.raises(TypeError):
        semcor_counts(dog)["dog"] = 0  # type: ignore[index]


def test_a_basic_category_is_a_hypernym_however_far_up_with_the_flag(settings: Settings) -> None:
    """Real WordNet: "animal" is seven hops above "cat" (past "feline" and "carnivore") and "person"
    three above "surfer"; with ``basic_hypernyms`` they are hypernyms, named by the category's first
    lemma ("animal", never "beast" or "creature"), and the estimate's link reads "cat" in its dominant
    sense, not through a rare sense that happens to be closer."""
    from engine.validity.features import wordnet_link

    on = settings.with_overrides(basic_hypernyms=True)
    off = settings.with_overrides(basic_hypernyms=False)
    assert "animal" not in lemmas(lexicon.hypernyms("cat", "NOUN", off))
    found = {r.lemma: r for r in lexicon.hypernyms("cat", "NOUN", on)}
    assert found["animal"].relation is Relation.FORWARD and len(found["animal"].path) - 1 == 7
    assert {"beast", "creature"}.isdisjoint(found) and {"feline", "carnivore"} <= set(found)
    assert "person" in lemmas(lexicon.hypernyms("surfer", "NOUN", on))
    assert "person" not in lemmas(lexicon.hypernyms("surfer", "NOUN", off))
    assert lexicon.hypernyms("run", "VERB", on) == lexicon.hypernyms("run", "VERB", off)  # nouns only
    # "dog" already reaches "animal" within two hops: nothing new, nothing twice
    assert sorted(lemmas(lexicon.hypernyms("dog", "NOUN", on))) == sorted(lemmas(lexicon.hypernyms("dog", "NOUN", off)))
    hops, prior_old, _, _ = wordnet_link("cat", "animal", on)
    assert hops == 5 and prior_old > 0.5  # cat.n.01 (the animal), at most the five hops the estimate knows
    assert wordnet_link("cat", "animal", off)[1] < 0.1  # without it: a rare sense of "cat" that is closer


def test_the_indexed_profanity_check_answers_as_better_profanity_does() -> None:
    """The first-letter index changes how fast a word is checked, never the answer: the same on
    every listed word, their spelling variants, phrases holding them, and a sample of WordNet."""
    import random

    from better_profanity import profanity
    from better_profanity.utils import read_wordlist

    listed = sorted(read_wordlist(profanity._default_wordlist_filename))
    names = sorted(lexicon.wordnet(get_settings()).all_lemma_names())
    words = [
        *listed, *(w.replace("i", "1").replace("a", "@").replace("s", "$") for w in listed),
        *(f"a {w} b" for w in listed[::7]), *(w.upper() for w in listed[::5]),
        *(n.replace("_", " ") for n in random.Random(3).sample(names, 1500)),
        "", " ", "-", "assassin", "cocktail", "Scunthorpe", "pull-in", "sh!t", "s h i t",
    ]
    ours, theirs = lexicon._profanity(), profanity
    answers = [theirs.contains_profanity(w) for w in words]
    assert [ours.contains_profanity(w) for w in words] == answers
    assert sum(answers) > 2000 and answers.count(False) > 1000  # both answers, many times
    assert [lexicon.profane(w) for w in words[:50]] == answers[:50]
