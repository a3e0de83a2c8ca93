"""Algorithm 1 on real parses, real polarity and real WordNet: polarity-correct, grammatical candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lemminflect import getLemma

from engine import cli
from engine.core.settings import Settings, get_settings
from engine.edits.candidates import generate_candidates
from engine.edits.operators import registered_operators
from engine.edits.records import Candidate, merge_duplicates
from engine.lexicon import pp_inventory
from engine.lexicon import relatives as lexicon
from engine.lexicon.inflection import inflect
from engine.models.language import load_causal_lm, load_masked_lm
from engine.natlog.polarity import Conventions, PolarizedSentence, polarize
from engine.natlog.relations import RELATION_ORDER, Relation, join
from engine.natlog.setups import get_setup
from engine.parse import parse
from engine.ranking.fill_in import FrequencyFillIn, MaskedLMFillIn
from engine.ranking.scoring import CausalLMScorer
from tests.ranking.test_models import build_tiny_masked_lm

CORPUS = """A man in a red shirt is walking in the park.
Two dogs play in the park.
A woman with a hat sits on a bench.
A boy with a hat runs quickly.
The girl sings loudly in the park.
A child in a red shirt is eating an apple.
A group of people stand next to him.
A group of people wait.
"""


@pytest.fixture(scope="module")
def settings() -> Settings:
    return get_settings().with_overrides(wordnet_distance=2, wordnet_senses=1)


#: AltLM with a small pool and top (its own parameters, as a recipe would set them).
ALT_LM = {"alt_lm_pool": 12, "alt_lm_top": 3}


def operators(**alt_lm: int) -> tuple:
    """Every registered operator, AltLM with ``ALT_LM`` (updated by ``alt_lm``)."""
    return tuple(op.configured({**ALT_LM, **alt_lm}) if op.name == "AltLM" else op for op in registered_operators())


def polar(text: str, settings) -> PolarizedSentence:
    return polarize(parse(text, settings=settings))


def generate(text: str, setup: str, settings: Settings, **kwargs) -> list[Candidate]:
    chosen = get_setup(setup)
    polarized = polarize(parse(text, settings=settings), conventions=Conventions.of(settings))
    kwargs.setdefault("operators", operators())
    return generate_candidates(polarized, chosen.relations, setup=chosen.name, settings=settings, **kwargs)


def by(candidates: list[Candidate], operator: str, old: str | None = None) -> list[Candidate]:
    return [c for c in candidates if c.operator == operator and (old is None or c.old == old)]


def test_upward_noun_gets_hypernyms_only(settings: Settings) -> None:
    found = generate("A goose is a large bird.", "E2E", settings)
    hyper = by(found, "PerturbHyper", "bird")
    assert "A goose is a large vertebrate." in {c.text for c in hyper}
    assert all(c.relation is Relation.FORWARD and c.lexical_relation is Relation.FORWARD for c in hyper)
    assert not by(found, "PerturbHypo") and not by(found, "Insertion")
    assert {c.relation for c in found} <= get_setup("E2E").relations
    deleted = by(found, "Deletion", "large")
    assert [c.text for c in deleted] == ["A goose is a bird."]


def test_listed_compounds_are_units(settings: Settings) -> None:
    """WordNet lists "Christmas tree", "ice cream" and "water bird": their heads are not substituted
    alone, and a modifier is deleted only when the compound is a kind of its head."""
    tree = generate("A man carries a Christmas tree.", "C2C", settings)
    assert tree and not [c for c in tree if c.old in ("tree", "Christmas") and c.edit_kind == "substitution"]
    assert by(generate("A goose is a water bird.", "E2E", settings), "Deletion", "water")
    assert not by(generate("A goose is a water bird.", "E2E", settings), "PerturbHyper", "bird")
    assert not by(generate("A boy eats ice cream.", "E2E", settings), "Deletion")
    balls = generate("A man sells tennis balls.", "E2E", settings)  # listed, and a kind of ball
    assert [c.text for c in by(balls, "Deletion", "tennis")] == ["A man sells balls."]
    assert {c.text for c in by(generate("A man watches a fencing tournament.", "E2E", settings), "PerturbHyper",
                               "tournament")} >= {"A man watches a fencing contest."}


def test_insertion_adds_one_modifier_of_a_kind_that_fits_the_noun(settings: Settings) -> None:
    swim = generate("A boy is swimming slowly in the ocean.", "C2C", settings, inventory=pp_inventory.BUILTIN)
    inserted = {c.text for c in by(swim, "Insertion")}
    # The verb already has an adverb and a PP; the noun has neither, and is a person.
    assert {"A young boy is swimming slowly in the ocean.", "A boy in a red shirt is swimming slowly in the ocean."} <= inserted
    assert not [t for t in inserted if "swimming slowly in the ocean" not in t]
    assert "A red boy is swimming slowly in the ocean." not in inserted
    pants = {c.text for c in by(generate("The man is wearing white pants.", "C2C", settings,
                                         inventory=pp_inventory.BUILTIN), "Insertion")}
    assert {"The man is wearing white pants slowly.", "The man is wearing white pants in the park."} <= pants
    adjectives = set(pp_inventory.BUILTIN.top("adjectives", 8))
    assert not [t for t in pants if t.split(" white pants")[0].split()[-1] in adjectives]  # "white" is there
    tree = {c.text for c in by(generate("A man carries a Christmas tree.", "C2C", settings,
                                        inventory=pp_inventory.BUILTIN), "Insertion")}
    assert {"A man carries a red Christmas tree.", "A man carries a Christmas tree near a tree."} <= tree
    assert not tree & {"A man carries a happy Christmas tree.", "A man carries a Christmas tree in a red shirt."}
    # Under the default "exactly n" reading of a subject numeral, its predicate is non-monotone:
    # no insertion there is licensed; the "at least n" reading (captions) licenses them again.
    assert not by(generate("Two men carry a Christmas tree.", "C2C", settings, inventory=pp_inventory.BUILTIN),
                  "Insertion")
    at_least = settings.with_overrides(numeral_reading="at-least")
    assert "Two men carry a red Christmas tree." in {c.text for c in by(generate(
        "Two men carry a Christmas tree.", "C2C", at_least, inventory=pp_inventory.BUILTIN), "Insertion")}


def test_inventory_hosts(tmp_path: Path) -> None:
    inv = pp_inventory.BUILTIN
    assert "in a red shirt" in inv.top("noun_pps", 8, "animate") and "in a red shirt" not in inv.top("noun_pps", 8, "inanimate")
    assert "near a tree" in inv.top("noun_pps", 8, "animate") and "near a tree" in inv.top("noun_pps", 8, "inanimate")
    assert "red" not in inv.top("adjectives", 8, "animate") and inv.top("adverbs", 8, "inanimate") == inv.top("adverbs", 8)
    # An inventory mined before hosts were counted (no "inanimate") fits every noun.
    old = tmp_path / "old.json"
    data = inv.to_json()
    del data["inanimate"]
    old.write_text(json.dumps(data), encoding="utf-8")
    assert pp_inventory.load(old).top("noun_pps", 8, "inanimate") == inv.top("noun_pps", 8)
    with pytest.raises(ValueError):
        inv.top("adjectives", 3, "plant")


def test_downward_noun_gets_hyponyms_and_insertions(settings: Settings) -> None:
    found = generate("No dog barked.", "E2E", settings)
    hypo = by(found, "PerturbHypo", "dog")
    assert "No puppy barked." in {c.text for c in hypo}
    assert all(c.lexical_relation is Relation.REVERSE and c.relation is Relation.FORWARD for c in hypo)
    assert not by(found, "PerturbHyper", "dog")
    inserted = by(found, "Insertion")
    assert inserted and all(c.relation is Relation.FORWARD for c in inserted)
    assert any(c.text.startswith("No ") and c.words[2] == "dog" for c in inserted)
    assert not by(found, "Deletion")


def test_deletions_only_where_polarity_allows(settings: Settings) -> None:
    upward = generate("An old man runs quickly in the park.", "E2E", settings)
    texts = {c.text for c in by(upward, "Deletion")}
    assert {"A man runs quickly in the park.", "An old man runs in the park.", "An old man runs quickly."} <= texts
    downward = generate("No old man runs in the park.", "E2E", settings)
    assert not by(downward, "Deletion")
    reverse = generate("No old man runs in the park.", "C2C", settings)
    assert "No man runs in the park." in {c.text for c in by(reverse, "Deletion")}
    assert all(c.relation is Relation.REVERSE for c in by(reverse, "Deletion"))


def test_the_predicate_of_be_is_no_modifier(settings: Settings) -> None:
    """"outdoors" in "The rider is outdoors" is the clause's predicate: deleting it leaves "The rider
    is." A second complement, or an existential "there", leaves a clause, so that one still goes."""
    assert not by(generate("The rider is outdoors.", "E2E", settings), "Deletion")
    assert not by(generate("The man is in the park.", "E2E", settings), "Deletion")
    both = {c.text for c in by(generate("The old man is outside in the park.", "E2E", settings), "Deletion")}
    assert both == {"The old man is in the park.", "The old man is outside."}  # either leaves a predicate
    assert "There is a dog." in {c.text for c in by(generate("There is a dog in the park.", "E2E", settings),
                                                    "Deletion")}


def test_substitutions_keep_the_inflection(settings: Settings) -> None:
    found = generate("Some dogs barked.", "E2E", settings)
    nouns = by(found, "PerturbHyper", "dogs")
    assert {"Some animals barked.", "Some domestic animals barked."} <= {c.text for c in nouns}
    # "canine" is first a tooth: a reader would not take it for the dog's kind (see test_validity).
    assert "Some canines barked." not in {c.text for c in nouns}
    for c in by(found, "PerturbHyper", "barked"):
        lemma = lexicon.render(c.path[-1].split(".")[0])
        assert c.new.split()[0].endswith("ed") or c.new != inflect(lemma, "VB", "VERB")


def test_articles_follow_the_new_word(settings: Settings) -> None:
    found = generate("A goose is a water bird.", "E2E", settings)
    for c in found:
        for article, word in zip(c.words, c.words[1:]):
            if article.lower() in ("a", "an"):
                expected = "an" if word[0].lower() in "aeiou" else "a"
                assert article.lower() == expected, c.text
    assert "An anseriform bird is a water bird." in {c.text for c in found}


def test_negation_uses_do_support_and_projects(settings: Settings) -> None:
    found = generate("The man sleeps.", "E2C", settings)
    predicate = {c.text: c for c in by(found, "PredicateNegation")}
    sentence = {c.text: c for c in by(found, "SentenceNegation")}
    assert predicate["The man does not sleep."].relation is Relation.NEGATION
    assert sentence["It is not true that the man sleeps."].relation is Relation.NEGATION
    assert "It is false that the man sleeps." in sentence
    # Two operators, two names: the breakdowns can tell them apart.
    assert not set(predicate) & set(sentence)
    assert all(c.site is not None for c in predicate.values()) and all(c.site is None for c in sentence.values())
    every = generate("Every dog runs.", "E2C", settings)
    pred = {c.text: c for c in by(every, "PredicateNegation")}
    assert pred["Every dog does not run."].relation is Relation.ALTERNATION
    e2e = generate("The man sleeps.", "E2E", settings)
    assert not by(e2e, "PredicateNegation") and not by(e2e, "SentenceNegation")


def test_double_negation_relation_is_the_join(settings: Settings) -> None:
    found = generate("The man sleeps.", "E2E", settings)
    double = {c.text: c for c in by(found, "DoubleNegation")}
    assert double["It is not true that the man does not sleep."].relation is Relation.EQUIVALENCE
    polarized = polar("Every dog barked.", settings=settings)
    inner = polarized.token(3).projection[RELATION_ORDER.index(Relation.NEGATION)]
    (expected,) = join(inner, Relation.NEGATION)
    universal = by(generate("Every dog barked.", "E2E", settings), "DoubleNegation")
    assert expected is Relation.FORWARD and universal and all(c.relation is expected for c in universal)


@pytest.mark.parametrize("text", ["No dog barked.", "No animals who some beagle saw touched a cat."])
def test_no_predicate_negation_in_the_body_of_no(text: str, settings: Settings) -> None:
    """ "every N" presupposes some N, "no N" does not: "It is not true that no dog did not bark" says
    some dog barked, which "No dog barked" leaves open, so ^ projects to no relation there and neither
    negation of the predicate is offered; "no one" (people exist) and "every" keep theirs."""
    everything = set(Relation)
    found = generate_candidates(polar(text, settings=settings), everything, settings=settings)
    assert not [c for c in found if c.operator in ("DoubleNegation", "PredicateNegation")]
    assert any(c.operator == "SentenceNegation" for c in found)
    for kept in ("No one is jumping.", "Every dog barked."):
        operators = {c.operator for c in generate_candidates(polar(kept, settings=settings), everything, settings=settings)}
        assert {"DoubleNegation", "PredicateNegation"} <= operators, kept


def test_double_negation_keeps_the_spacing_of_the_words_it_carries(settings: Settings) -> None:
    texts = {c.text for c in by(generate("The boy's foster-child plays.", "E2E", settings), "DoubleNegation")}
    assert "It is not true that the boy's foster-child does not play." in texts


def test_alternations_and_their_lock(settings: Settings) -> None:
    found = generate("The man is tall.", "E2C", settings)
    assert "The man is short." in {c.text for c in by(found, "PerturbAnto", "tall")}
    assert all(c.relation in get_setup("E2C").relations for c in found)
    subject = generate("A tall man sleeps.", "E2C", settings)
    assert not by(subject, "PerturbAnto"), "| under the restrictor of 'a' projects to #"
    # Negating the body of "a" gives ‿ (some do, some do not), not ^: only the sentence negation stays.
    assert by(subject, "SentenceNegation") and not by(subject, "PredicateNegation")
    locked = generate("The man is tall.", "E2C", settings, alternated=["Tall"])
    assert not [c for c in locked if c.old == "tall" and c.lexical_relation is Relation.ALTERNATION]
    assert by(locked, "PredicateNegation")


def test_candidate_records_are_consistent(settings: Settings) -> None:
    text = "An old man runs quickly in the park."
    words = parse(text, settings=settings).words
    found = generate(text, "E2E", settings)
    assert len({c.text for c in found}) == len(found)
    polarized = polar(text, settings=settings)
    for c in found:
        assert " ".join(words[c.span[0]:c.span[1]]) == c.old
        if c.site is None:
            assert c.operator in ("SentenceNegation", "DoubleNegation") and c.span[0] == 0
        else:
            projection = polarized.tokens[c.site].projection
            assert projection[RELATION_ORDER.index(c.lexical_relation)] is c.relation
        assert " ".join(c.words[c.new_span[0]:c.new_span[1]]).lower() == c.new.lower()
        assert c.setup == "E2E" and c.score is None
        assert c.edit_kind in ("insertion", "deletion", "substitution")
        json.dumps(c.to_json())


def test_duplicates_merge_and_keep_the_first_derivation() -> None:
    first = Candidate("A dog runs.", ("A", "dog", "runs", "."), "PerturbHyper", (1, 2), (1, 2), "puppy", "dog",
                      Relation.FORWARD, Relation.FORWARD, "E2E")
    second = Candidate("A dog runs.", ("A", "dog", "runs", "."), "Deletion", (1, 3), (1, 2), "young puppy", "dog",
                       Relation.FORWARD, Relation.FORWARD, "E2E")
    merged = merge_duplicates([first, second, first])
    assert len(merged) == 1 and merged[0].operator == "PerturbHyper" and merged[0].also == ("Deletion",)


@pytest.mark.slow
def test_alt_lm_offline_fill_in_gives_disjoint_unrelated_nouns(settings: Settings) -> None:
    scorer = CausalLMScorer(load_causal_lm("offline", settings=settings))
    wide = operators(alt_lm_pool=60)  # few frequent nouns are concrete enough
    found = generate("The pets are cats.", "E2C", settings, fill_in=FrequencyFillIn(scorer, settings), operators=wide)
    alt = by(found, "AltLM")
    assert alt and all(c.relation in get_setup("E2C").relations for c in alt)
    assert len(alt) <= ALT_LM["alt_lm_top"]
    reader = lexicon.wordnet(settings)
    for c in alt:
        (lemma,) = getLemma(c.new.lower(), upos="NOUN")
        assert lemma not in lexicon.related_lemmas("cat", "NOUN", settings)
        assert reader.synsets(lemma, "n")[0].lexname() in lexicon.DISJOINT_LEXNAMES
    assert "The pets are ways." not in {c.text for c in alt}
    # Not where the noun introduces something (a man may eat bread and cake), nor on verbs.
    for text in ("The dog sleeps.", "A man eats bread."):
        assert not by(generate(text, "E2C", settings, fill_in=FrequencyFillIn(scorer, settings), operators=wide),
                      "AltLM")


def test_alt_lm_masked_fill_in_mechanics(settings: Settings, tmp_path: Path) -> None:
    lm = load_masked_lm(str(build_tiny_masked_lm(tmp_path / "mlm")), settings=settings)
    fill = MaskedLMFillIn(lm, settings, pool=3000)
    found = generate("The pets are cats.", "E2C", settings, fill_in=fill)
    alt = by(found, "AltLM", "cats")
    assert alt and len(alt) <= ALT_LM["alt_lm_top"]
    for c in alt:
        assert c.new.isalpha() and lexicon.wordnet(settings).synsets(c.new, "n")


def test_mined_inventory_drives_insertion(settings: Settings, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    out = tmp_path / "pps.json"
    assert cli.main(["mine-pps", str(corpus), "--min-count", "2", "--out", str(out)]) == 0
    inventory = pp_inventory.load(out)
    assert dict(inventory.verb_pps)["in the park"] == 3
    assert dict(inventory.noun_pps)["with a hat"] == 2
    assert "in a red shirt" in dict(inventory.noun_pps)
    assert "red" in dict(inventory.adjectives) and "loudly" not in dict(inventory.adverbs)
    assert "of people" not in dict(inventory.noun_pps) and "next to him" not in dict(inventory.verb_pps)
    # "red" only ever modified "shirt" in the corpus, "with a hat" only people.
    assert dict(inventory.inanimate) == {"red": 2}
    found = generate("No cat sleeps.", "E2E", settings, inventory=inventory)
    texts = {c.text for c in by(found, "Insertion")}
    assert {"No cat sleeps in the park.", "No cat with a hat sleeps."} <= texts
    assert "No red cat sleeps." not in texts
    shirts = {c.text for c in by(generate("No shirt fits.", "E2E", settings, inventory=inventory), "Insertion")}
    assert "No red shirt fits." in shirts and "No shirt with a hat fits." not in shirts


def test_mine_pps_reports_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["mine-pps", str(tmp_path / "missing.txt")]) == 2
    assert "does not exist" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(Exception, match="not a modifier inventory"):
        pp_inventory.load(bad)


@pytest.mark.slow
def test_candidates_cli_ranks_and_validates(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["candidates", "--premise", "A man is sleeping.", "--hypothesis", "The man sleeps.",
            "--label", "entailment", "--setup", "E2C", "--top", "3", "--no-alt-lm", "--json"]
    assert cli.main(args) == 0
    rows = json.loads(capsys.readouterr().out)
    assert 0 < len(rows) <= 3
    assert [r["score"] for r in rows] == sorted(r["score"] for r in rows)
    assert {r["relation"] for r in rows} <= {"^", "|"}
    assert cli.main(args[:6] + ["contradiction", "--setup", "E2E"]) == 2
    assert "starts from entailment pairs" in capsys.readouterr().err
    assert cli.main(args[:6] + ["maybe"]) == 2
    assert "unknown NLI label" in capsys.readouterr().err


def test_a_phrasal_verb_is_substituted_whole_or_not_at_all(settings: Settings) -> None:
    found = generate("A man is picking up a ball.", "E2E", settings)
    verbs = [c for c in found if c.operator.startswith("Perturb") and c.old in ("picking", "picking up", "up")]
    assert verbs and all(c.old == "picking up" for c in verbs)  # the pair is the unit, never "picking" or "up" alone
    assert "A man is lifting a ball." in {c.text for c in verbs}
    assert not any("up up" in c.text or c.text.startswith("A man is lifting up") for c in verbs)
    # "move away" is not a WordNet verb: "moved" is not replaced ("overtook away from"), nor is "away".
    found = generate("A boy moved away from the dog.", "E2E", settings)
    assert not [c for c in found if c.operator.startswith("Perturb") and c.old in ("moved", "away")]
    assert by(found, "PerturbHyper", "boy")  # the rest of the sentence is still edited


def test_a_word_of_a_multiword_quantifier_is_not_deleted(settings: Settings) -> None:
    """"at least" is one trigger: its "at" is no modifier of "least" ("Least 3 brown mammals waltzed")."""
    found = generate("at least 3 brown or black mammals waltzed", "E2E", settings)
    # The restrictor's own modifier still goes; "Least 3 brown or black mammals waltzed" does not come.
    assert {c.text for c in by(found, "Deletion")} == {"At least 3 mammals waltzed"}


def test_a_finite_verb_tagged_as_participle_is_replaced_by_a_past_tense(settings: Settings) -> None:
    """The tagger reads the main verb of "a rabbit who danced moved" as a participle (VBN): with a
    subject and no auxiliary it is a past tense, so its synonym is "went", never "gone"; a real
    participle after "has" stays one."""
    sentence = parse("a rabbit who danced moved", settings=settings)
    assert sentence.tokens[-1].xpos == "VBN"
    relations = set(get_setup("E2E").relations)
    texts = {c.text for c in generate_candidates(polar("a rabbit who danced moved", settings=settings), relations, settings=settings)
             if c.operator == "PerturbSyno"}
    assert "A rabbit who danced went" in texts and "A rabbit who danced gone" not in texts
    perfect = {c.text for c in generate_candidates(polar("The man has eaten the cake.", settings=settings), relations, settings=settings)
               if c.operator == "PerturbHyper"}
    assert "The man has consumed the cake." in perfect


def test_a_plural_slot_takes_no_mass_noun_made_plural(settings: Settings) -> None:
    """"People walk": WordNet's kinds of "people" include "the public" and "the Dutch", whose
    plurals no one writes ("Publics walk", "Dutches walk"); a hyphenated noun is no longer made
    plural at its end ("Ex-wifes")."""
    relations = set(get_setup("C2C").relations)
    found = generate_candidates(polar("People walk around a mall.", settings=settings), relations, settings=settings)
    subjects = {c.text.split(" walk ")[0] for c in found if c.operator == "PerturbHypo" and " walk " in c.text}
    assert subjects and not {"Publics", "Dutches"} & subjects
    women = {c.text for c in generate_candidates(polar("Women are dancing.", settings=settings), relations, settings=settings)
             if c.operator == "PerturbHypo"}
    assert women and not any("wifes" in text for text in women)


def test_a_plural_slot_takes_a_plural_only_noun_but_no_mass_noun_made_plural(settings: Settings) -> None:
    from engine.edits.operators.wordnet import substitutions

    polarized = polar("Citizens walk around a mall.", settings=settings)
    token = polarized.tokens[0]

    def rel(lemma: str) -> lexicon.LexicalRelative:
        return lexicon.LexicalRelative(lemma, Relation.REVERSE, "hyponym", "citizen.n.01", "x.n.01", ())

    made = [" ".join(e.words) for e in substitutions(polarized.sentence, token,
                                                      [rel("public"), rel("suds"), rel("voter")], settings)]
    # "publics" is far rarer than "public" (a mass noun made plural); "suds" is plural as it is
    assert made == ["suds", "voters"]
