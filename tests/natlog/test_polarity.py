"""Polarity marking on real spaCy parses: triggers, scope, nesting, Eq. 1 lookups and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.natlog import projectivity as pj
from engine.natlog.evaluation import read_gold, score
from engine.natlog.polarity import Conventions, Polarity, PolarizedSentence, polarize
from engine.natlog.projectivity import compose
from engine.natlog.relations import RELATION_ORDER, join
from engine.natlog.setups import get_setup
from engine.parse import parse
from engine.parse.sentence import ParsedSentence, Token

E, F, R, N, A, C, I = RELATION_ORDER


def marks(text: str, settings) -> str:
    return polarize(parse(text, pretokenized=True, settings=settings)).marked


def token(result: PolarizedSentence, word: str, nth: int = 0):
    return [t for t in result.tokens if t.token.text == word][nth]


@pytest.mark.parametrize("gold", [
    "Every↑ dog↓ sees↑ some↑ cat↑",
    "Some↑ rat↑ sees↑ every↑ squirrel↓",
    "No↑ dog↓ barks↓",
    "John↑ did↑ not↑ see↓ any↓ dog↓",
    "Nobody↑ saw↓ anything↓",
    "None↑ of↓ the↓ dogs↓ barked↓",
    "Ursula↑ failed↑ to↑ sing↓",
    "I↑ doubt↑ that↑ some↓ dog↓ barks↓",
    "John↑ never↑ eats↓ meat↓",
    "At↑ least↑ 5↓ people↑ ran↑",
    "At↑ most↑ 6↑ dogs↓ are↓ hungry↓",
    "More↑ than↑ 6↓ dogs↑ are↑ hungry↑",
    "Less↑ than↑ 5↑ people↓ ran↓",
    "Exactly↑ 8= cats= are= sleeping=",
    "A↑ few↑ boys↑ chased↑ a↑ girl↑",
    "Most↑ dogs= chase↑ most↑ cats=",
    "Several↑ dogs↑ chased↑ the↑ cat=",
    "John↑ is↑ dancing↑ without↑ clothes↓",
    "Any↑ dog↓ in↓ Ohio↓ would↑ prefer↑ to↑ live↑ in↑ Indiana↑",
    "All↑ but↑ five= dogs= died=",
    "Only↑ John↑ saw↓ the↓ dog=",
    "Few↑ people↓ have↓ never↓ seen↑ the↑ sea=",
    "It↑ is↑ false↑ that↑ some↓ dog↓ barks↓",
    "All↑ students↓ except↓ engineers= must↑ take↑ a↑ class↑",
    "Every↑ dog↓ except↓ Fido= barked↑",
    # The Udep2Mono gold marks "or↑" here; "or" -> "and" is reverse entailment, which a downward
    # context turns into forward entailment ("refused to sing or dance" entails "... sing and dance").
    "Ursula↑ refused↑ to↑ sing↓ or↓ dance↓",
])
def test_trigger_lexicon(gold: str, settings) -> None:
    words = " ".join(item[:-1] for item in gold.split())
    assert marks(words, settings=settings) == gold


def test_negation_under_a_universal_composes(settings) -> None:
    result = polarize(parse("Every dog does not bark", settings=settings))
    assert result.marked == "Every↑ dog↓ does↑ not↑ bark↓"
    bark = token(result, "bark")
    assert bark.triggers == ("every", "not")
    assert bark.projection == compose([pj.NEGATION, pj.EVERY[1]]).mapping
    # alternation under negation becomes cover, which the universal's body keeps as independence
    assert bark.projection[RELATION_ORDER.index(A)] is I


def test_not_before_a_quantifier_scopes_over_it(settings) -> None:
    result = polarize(parse("Not every student likes semantics", settings=settings))
    assert result.marked == "Not↑ every↓ student↑ likes↓ semantics↓"
    assert token(result, "student").projection == pj.NOT_EVERY[0].mapping


def test_relative_clause_in_restrictor_nests(settings) -> None:
    result = polarize(parse("Some cat who likes every dog who likes some squirrel died", settings=settings))
    assert result.marked == "Some↑ cat↑ who↑ likes↑ every↑ dog↓ who↓ likes↓ some↓ squirrel↓ died↑"
    assert token(result, "squirrel").triggers == ("some", "every", "some")


def test_conditional_antecedent_is_downward(settings) -> None:
    result = polarize(parse("If every cat runs, some dog runs also.", settings=settings))
    assert [t.polarity.mark for t in result.tokens[:4]] == ["↑", "↓", "↑", "↓"]
    assert token(result, "dog").polarity is Polarity.UP
    assert token(result, "cat").triggers == ("if", "every")


def test_it_is_not_true_that(settings) -> None:
    assert marks("It is not true that every dog barks", settings=settings) == "It↑ is↑ not↑ true↓ that↓ every↓ dog↑ barks↓"


def test_any_is_existential_under_negation_and_universal_elsewhere(settings) -> None:
    negative = polarize(parse("No students liked any class in Chemistry", settings=settings))
    assert token(negative, "class").polarity is Polarity.DOWN
    assert "any (some)" in token(negative, "class").triggers
    free = polarize(parse("Any dog barks", settings=settings))
    assert token(free, "dog").polarity is Polarity.DOWN
    assert token(free, "barks").polarity is Polarity.UP


def test_paper_worked_example_all_the_kids_run(settings) -> None:
    """All the kids run -> All the boys run (E->E) -> All the boys sleep (E->C)."""
    first = polarize(parse("All the kids run", settings=settings))
    kids, run = token(first, "kids"), token(first, "run")
    # kids ⊐ boys in a downward restrictor gives H ⊏ H*: allowed for E->E
    assert R in first.local_relations(kids.token.id, get_setup("E2E").relations)
    assert kids.projection[RELATION_ORDER.index(R)] is F
    second = polarize(parse("All the boys run", settings=settings))
    run2 = token(second, "run")
    # run | sleep in the universal's body stays alternation: allowed for E->C
    assert A in second.local_relations(run2.token.id, get_setup("E2C").relations)
    assert run.projection[RELATION_ORDER.index(A)] is A
    # the two steps chain: P ⊏ H ... H ⊏ H' and H' | H'' give H | H''
    assert join(F, A) == {A}


def test_local_relations_inverts_the_projection(settings) -> None:
    result = polarize(parse("No dog barks", settings=settings))
    dog = token(result, "dog").token.id
    assert result.local_relations(dog, F) == {R}
    assert result.local_relations(dog, [E, F]) == {E, R}
    assert result.local_relations(dog, N) == frozenset()
    assert result.local_relations(dog, A) == {N, C}
    everything = set()
    for target in RELATION_ORDER:
        everything |= result.local_relations(dog, target)
    assert everything == set(RELATION_ORDER)
    with pytest.raises(IndexError):
        result.local_relations(99, F)


def test_projection_lists_are_complete_and_aligned(settings) -> None:
    sentence = parse("Every dog who likes most cats was chased by at least two of them", settings=settings)
    result = polarize(sentence)
    assert [t.token for t in result.tokens] == list(sentence.tokens)
    for t in result.tokens:
        assert len(t.projection) == 7 and t.projection[0] is E
        assert t.polarity is pj.signature("p", "".join(r.symbol for r in t.projection)).polarity
    assert result.marked == "Every↑ dog↓ who↓ likes↓ most↓ cats= was↑ chased↑ by↑ at↑ least↑ two↓ of↑ them↑"


def test_bad_input_defaults_to_upward_with_warnings(settings) -> None:
    empty = polarize(ParsedSentence(text="", tokens=()))
    assert empty.tokens == () and empty.warnings
    fragment = polarize(parse("Every dog", settings=settings))
    assert fragment.warnings and token(fragment, "dog").polarity is Polarity.DOWN
    gibberish = polarize(parse("Blorf zzqx glarbed wumpus", settings=settings))
    # Upward everywhere; at most an implicit existential over a bare noun, never a trigger word.
    assert all(t.polarity is Polarity.UP for t in gibberish.tokens)
    assert all(op.triggers == () for op in gibberish.triggers)
    lone = Token(id=1, text="not", lemma="not", upos="PART", xpos="RB", head=0, deprel="root", start=0, end=3)
    assert polarize(ParsedSentence(text="not", tokens=(lone,))).tokens[0].polarity is Polarity.UP


def test_json_has_marks_triggers_and_projection(settings) -> None:
    data = polarize(parse("No dog barks", settings=settings)).to_json()
    assert [t["polarity"] for t in data["tokens"]] == ["↑", "↓", "↓"]
    assert data["tokens"][1]["projection"]["⊏"] == "⊐"
    assert data["triggers"][0]["name"] == "no"
    assert {a["role"] for a in data["triggers"][0]["arguments"]} == {"restrictor", "body"}


@pytest.mark.parametrize("gold", [
    # Bare numerals. The literature disagrees: MacCartney and Hu & Moss read "n" as "at least n"
    # (number downward, noun upward); the Udep2Mono gold that the dev file samples marks the
    # number "=" unless the predicate reads it from below, and contradicts itself on the rest
    # ("Three= dogs= like↑" vs "Five↑ dogs= see="; "eat↑ three= biscuits=" vs "ate↑ two= rotten↑
    # biscuits↑"). We follow Udep2Mono's lexicon, which explains most of its marks, except on the
    # body of a subject: a subject counts a group of exactly n (number, noun and body "=": an upward
    # body would read "at least n" while the noun reads "exactly"); an object keeps its noun's context
    # ("have three= candies↑"); consumption/acquisition verbs and durations read "at least n"
    # ("smoke two↓", "for three↓ days↓"); preference verbs read "exactly n" ("like four= cats=").
    "Three= dogs= like= four= cats=",
    "My↑ parents↑ said↑ I↑ could↑ have↑ three= candies↑",
    "A↑ dog↑ who↑ ate↑ two= rotten↑ biscuits↑ was↑ sick↑ for↑ three↓ days↓",
    "Even↑ if↑ you↓ are↓ addicted↓ to↓ cigarettes↓ you↑ can↑ smoke↑ two↓ a↑ day↑",
    "Every↑ farmer↓ who↓ bought↓ three↑ cows↓ was↑ happy↑",
])
def test_bare_numeral_readings(gold: str, settings) -> None:
    words = " ".join(item[:-1] for item in gold.split())
    assert marks(words, settings=settings) == gold


def test_counted_exception_reads_all_but_at_most(settings) -> None:
    # "All the cats except for at most two like chocolate" = at most two cats do not: the domain
    # and the body are non-monotone (as in "all but n"), and the count is upward (more exceptions,
    # weaker claim): the exception is subtracted from the domain (downward) inside the
    # universal's downward restrictor, and "at most" keeps its number upward.
    result = polarize(parse("All the cats except for at most two like chocolate", pretokenized=True, settings=settings))
    assert result.marked == "All↑ the↓ cats= except↓ for↓ at↓ most↓ two↑ like= chocolate="
    assert token(result, "two").triggers == ("all", "except", "at most")
    # a bare count is exact, as in "all but three"
    assert marks("All dogs except three barked", settings=settings) == "All↑ dogs= except↓ three= barked="


def test_relative_that_is_not_a_demonstrative(settings) -> None:
    # the small model reads "that sleep" as determiner + noun; a WDT "that" never fixes a referent
    assert marks("All cats that sleep are happy", settings=settings) == "All↑ cats↓ that↓ sleep↓ are↑ happy↑"


def test_gold_dev_file(shared_data, settings) -> None:
    # Measured with the offline spaCy small model plus the parse repairs (engine/parse/repair.py):
    # token 0.979, sentence 0.857 (0.962 / 0.893 before subject numerals read "exactly n").
    # The four remaining misses are all bare numerals, where the gold is not consistent:
    # - "Five↑ dogs= see= at= least= six= cats=" and "Three= dogs= like↑ four= cats=" disagree on
    #   the body of a subject numeral; we read "exactly n" (noun and body =), as the first does.
    #   An = noun with an upward body mixes the "exactly" and "at least" readings.
    # - "No dentist who recommends ... at least four times a day gave five patients": "four" sits
    #   in two downward contexts (the "at least" number inside the restrictor of "no"), so it is
    #   upward, not downward as marked; "five↓" in the body of "no" is marked as if the number
    #   were upward, which no reading of a bare numeral gives.
    # - "eat↑ three= biscuits=" contradicts "ate↑ two= rotten↑ biscuits↑": we keep the object noun upward.
    report = score(read_gold(shared_data / "polarity_gold_dev.txt"),
                   lambda text: polarize(parse(text, pretokenized=True, settings=settings)))
    assert report.token_accuracy >= 0.975
    assert report.sentence_accuracy >= 0.85


def test_held_out_sentences_generalise(settings) -> None:
    # 80 sentences in the dev file's style, hand-marked from the semantics before the marker was
    # run on them (tests/data/polarity_heldout.txt), in three batches, each written after the
    # fixes the previous one prompted. First blind runs (token / sentence accuracy): lines 1-40
    # 0.969 / 0.900, lines 41-65 0.965 / 0.880, lines 66-80 0.989 / 0.933. Miss left: a PP the
    # parser attaches to the noun ("finished the report on time": "on time" marked as the noun's).
    # Two lines were re-marked when subject numerals changed to the "exactly n" reading
    # ("Two= dogs= chased= a= ball=", "Four= students= love= three= poems=").
    report = score(read_gold(Path(__file__).resolve().parents[1] / "data" / "polarity_heldout.txt"),
                   lambda text: polarize(parse(text, pretokenized=True, settings=settings)))
    assert len(report.sentences) >= 25
    assert report.token_accuracy >= 0.90


# Constructions other projects' test suites mark (issue 14), with the marks the monotonicity
# calculus gives (MacCartney 2009; Icard & Moss 2014), on real parses of the offline spaCy model
# and its repairs. Trigger words carry their context's mark (the project's convention).
@pytest.mark.parametrize("gold", [
    # "no" and the noun "doubt" are both downward: the complement is upward again.
    "There↑ is↓ no↑ doubt↓ that↓ cats↑ have↑ tails↑",
    "Plants↑ die↑ from↑ a↑ lack↑ of↑ water↓",
    # "neither A" = "no A"; "both A" = "every A"; "neither A nor B" denies each conjunct.
    "Neither↑ dog↓ barked↓",
    "Neither↑ John↓ nor↓ Mary↓ came↓",
    "Both↑ dogs↓ barked↑ loudly↑",
    "Both↑ John↑ and↑ Mary↑ came↑",
    # An object relative clause with a quantifier inside the restrictor (repaired parse).
    "Every↑ cat↓ who↓ no↓ dog↑ chases↑ rests↑",
    "Every↑ dog↓ that↓ chased↓ a↓ cat↓ barked↑ loudly↑",
    # A possessive under a quantifier: the possessed noun is in the restrictor.
    "Every↑ student↓ 's↓ favorite↓ class↓ was↑ French↑",
    "No↑ student↓ 's↓ dog↓ barked↓",
    # "some but not all": upward in the noun (both determiners are), non-monotone body.
    "Some↑ but↑ not↑ all↑ students↑ cheated=",
    # A time window is an upper bound: "in one hour" entails "in two hours".
    "He↑ finished↑ the↑ work= in↑ one↑ hour↑",
    # A bare subject numeral reads "exactly n": noun and body are both non-monotone.
    "Three= dogs= chased= a= cat=",
    # A counted exception reads the universal as "all but n"; "All" itself stays upward.
    "All↑ the↓ cats= except↓ for↓ two= slept=",
    # The verb phrase after "not" is downward even when the subject is misparsed.
    "The↑ dog= that= bark= loudly= does↑ not↑ like↓ any↓ cat↓",
    # "most" without an article is the determiner, not a superlative.
    "Most↑ fluffy= cats= sleep↑",
    "The↑ most= fluffy= cats= sleep↑",
    # An interjection is not in the scope of "not".
    "No↑ ,↑ not↑ Tuesday↓",
    "enough↑ fluffy= cats= have↑ long↑ tails↑",
])
def test_constructions_other_projects_mark(gold: str, settings) -> None:
    words = " ".join(item[:-1] for item in gold.split())
    assert marks(words, settings=settings) == gold


def test_existential_there_projects_alternation_to_independence(settings) -> None:
    # "There are people outside" vs "There are men outside": compatible, so | at "people" is #.
    result = polarize(parse("There are people outside", settings=settings))
    people = token(result, "people")
    assert people.polarity is Polarity.UP
    assert "there be" in people.triggers
    assert dict(zip(RELATION_ORDER, people.projection))[A] is I
    # With a determiner the same holds through "a" (some), and a bare object noun too.
    assert dict(zip(RELATION_ORDER, token(polarize(parse("There is a man outside", settings=settings)), "man").projection))[A] is I
    water = token(polarize(parse("The man drinks water", settings=settings)), "water")
    assert "bare noun" in water.triggers and dict(zip(RELATION_ORDER, water.projection))[A] is I
    # A name is not quantified: it keeps the identity projection.
    assert token(polarize(parse("John sleeps", settings=settings)), "John").triggers == ()


def test_existential_there_blocks_alternation_in_e2c(settings) -> None:
    from engine.natlog.relations import Relation
    result = polarize(parse("There are people outside", settings=settings))
    people = token(result, "people").token.id
    assert Relation.ALTERNATION not in result.local_relations(people, get_setup("E2C").relations)


def test_definite_reading_is_a_setting(settings) -> None:
    sentence = parse("the fluffy cats have long tails", pretokenized=True, settings=settings)
    assert polarize(sentence).marked == "the↑ fluffy= cats= have↑ long↑ tails↑"
    assert polarize(sentence, conventions=Conventions(definite="existential")).marked == \
        "the↑ fluffy↑ cats↑ have↑ long↑ tails↑"
    from engine.core.errors import InputError
    with pytest.raises(InputError, match="definite reading"):
        Conventions(definite="generic")


def test_numeral_reading_is_a_setting(settings) -> None:
    sentence = parse("Two men carry a Christmas tree", pretokenized=True, settings=settings)
    assert polarize(sentence).marked == "Two= men= carry= a= Christmas= tree="
    assert polarize(sentence, conventions=Conventions(numerals="at-least")).marked == \
        "Two↓ men↑ carry↑ a↑ Christmas↑ tree↑"
    from engine.core.errors import InputError
    with pytest.raises(InputError, match="numeral reading"):
        Conventions(numerals="about")


def test_peer_test_set_is_scored_with_conventions_apart(settings) -> None:
    # 84 sentences transcribed from Udep2Mono, Stanford CoreNLP, NaturalLI and ccg2mono test
    # files (tests/data/polarity_peers_SOURCES.md). Measured: all tokens 0.882 / sentences 0.679;
    # without convention tokens 0.927 / 0.869 (docs/natural-logic.md).
    report = score(read_gold(Path(__file__).resolve().parents[1] / "data" / "polarity_peers.jsonl"),
                   lambda text: polarize(parse(text, pretokenized=True, settings=settings)))
    assert len(report.sentences) == 84 and len(report.by_source()) == 6
    assert report.logic_token_accuracy > report.token_accuracy
    assert report.logic_token_accuracy >= 0.92
    assert report.logic_sentence_accuracy >= 0.85


def test_a_coordinated_subject_distributes_its_predicate(settings) -> None:
    # "A and B did not drink" denies it of each: alternation (|) with "A and B drank", not negation.
    result = polarize(parse("Colm Murphy and Seamus Daly drank all the wine that day.", settings=settings))
    drank = result.sentence.root.id
    assert result.token(drank).polarity is Polarity.UP
    assert dict(zip(RELATION_ORDER, result.clause_projection(drank)))[N] is A
    either = polarize(parse("John or Mary sleeps", settings=settings))
    assert dict(zip(RELATION_ORDER, either.clause_projection(either.sentence.root.id)))[N] is C
    alone = polarize(parse("John sleeps", settings=settings))
    assert dict(zip(RELATION_ORDER, alone.clause_projection(alone.sentence.root.id)))[N] is N
