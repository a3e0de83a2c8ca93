"""The parse layer: spaCy -> UD v2 conversion (each mapping), stanza conversion, input checks."""

from __future__ import annotations

import pytest

from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.parse import parse, split_sentences, validate_text
from engine.parse.spacy_ud import _Node, convert_arcs
from engine.parse.stanza_ud import document_to_sentence


def arcs(words_heads_deps: list[tuple[str, int, str, str]]) -> list[tuple[int, str]]:
    """Convert hand-written spaCy arcs (text, 0-based head or -1, dep, upos) to UD."""
    lemma = {"is": "be", "are": "be", "was": "be"}
    nodes = [_Node(h, d, upos, lemma.get(w, w)) for w, h, d, upos in words_heads_deps]
    return convert_arcs(nodes)


def rel(sentence, word: str) -> tuple[str, str]:
    """(deprel, head word) of the first token spelled ``word``."""
    tok = next(t for t in sentence if t.text == word)
    return tok.deprel, ("ROOT" if tok.head == 0 else sentence.token(tok.head).text)


# --- each label mapping, on hand-built spaCy arcs (independent of the statistical parser) ---

@pytest.mark.parametrize("spacy_dep, ud_dep", [
    ("dobj", "obj"), ("nsubjpass", "nsubj:pass"), ("auxpass", "aux:pass"), ("neg", "advmod"),
    ("predet", "det:predet"), ("poss", "nmod:poss"), ("relcl", "acl:relcl"),
    ("npadvmod", "obl:npmod"), ("quantmod", "advmod"), ("prt", "compound:prt"),
    ("intj", "discourse"), ("oprd", "xcomp"), ("preconj", "cc:preconj"), ("dative", "iobj"),
    ("nsubj", "nsubj"), ("amod", "amod"), ("det", "det"), ("ROOT", "root"),
])
def test_label_renames(spacy_dep: str, ud_dep: str) -> None:
    out = arcs([("head", -1, "ROOT", "VERB"), ("dep", 0, spacy_dep, "NOUN")])
    assert out[0] == (-1, "root")
    assert out[1] == (0, ud_dep)


def test_prep_pobj_on_verb_becomes_case_and_obl() -> None:
    # barked -prep-> at -pobj-> cat
    out = arcs([("barked", -1, "ROOT", "VERB"), ("at", 0, "prep", "ADP"), ("cat", 1, "pobj", "NOUN")])
    assert out == [(-1, "root"), (2, "case"), (0, "obl")]


def test_prep_pobj_on_noun_becomes_nmod() -> None:
    # dog -prep-> in -pobj-> house
    out = arcs([("dog", -1, "ROOT", "NOUN"), ("in", 0, "prep", "ADP"), ("house", 1, "pobj", "NOUN")])
    assert out == [(-1, "root"), (2, "case"), (0, "nmod")]


def test_agent_becomes_obl_agent() -> None:
    out = arcs([("praised", -1, "ROOT", "VERB"), ("by", 0, "agent", "ADP"), ("all", 1, "pobj", "PRON")])
    assert out == [(-1, "root"), (2, "case"), (0, "obl:agent")]


def test_prep_pcomp_becomes_advcl_with_mark() -> None:
    # left -prep-> after -pcomp-> eating
    out = arcs([("left", -1, "ROOT", "VERB"), ("after", 0, "prep", "ADP"), ("eating", 1, "pcomp", "VERB")])
    assert out == [(-1, "root"), (2, "mark"), (0, "advcl")]


def test_copula_becomes_cop_under_predicate() -> None:
    # goose <-nsubj- is -attr-> bird ; "is" keeps no dependents
    out = arcs([("goose", 1, "nsubj", "NOUN"), ("is", -1, "ROOT", "AUX"), ("bird", 1, "attr", "NOUN")])
    assert out == [(2, "nsubj"), (2, "cop"), (-1, "root")]


def test_acomp_without_copula_is_xcomp() -> None:
    out = arcs([("seems", -1, "ROOT", "VERB"), ("happy", 0, "acomp", "ADJ")])
    assert out == [(-1, "root"), (0, "xcomp")]


def test_existential_there_keeps_be_as_root() -> None:
    out = arcs([("there", 1, "expl", "PRON"), ("is", -1, "ROOT", "VERB"), ("dog", 1, "attr", "NOUN")])
    assert out == [(1, "expl"), (-1, "root"), (1, "nsubj")]


def test_cc_attaches_to_following_conjunct() -> None:
    out = arcs([("dogs", -1, "ROOT", "NOUN"), ("and", 0, "cc", "CCONJ"), ("cats", 0, "conj", "NOUN")])
    assert out == [(-1, "root"), (2, "cc"), (0, "conj")]


# --- real parses ---

def test_acceptance_sentence_relations(settings) -> None:
    s = parse("The dog did not bark at every cat", settings=settings)
    assert rel(s, "dog") == ("nsubj", "bark")
    assert rel(s, "not") == ("advmod", "bark")
    assert rel(s, "cat") == ("obl", "bark")
    assert rel(s, "at") == ("case", "cat")
    assert rel(s, "every") == ("det", "cat")
    assert rel(s, "The") == ("det", "dog")
    assert s.root.text == "bark"


def test_tokens_carry_all_fields_and_offsets(settings) -> None:
    s = parse("All the kids ran home.", settings=settings)
    assert [t.text for t in s] == ["All", "the", "kids", "ran", "home", "."]
    kids = s.token(3)
    assert (kids.lemma, kids.upos, kids.xpos, kids.feats_dict.get("Number")) == ("kid", "NOUN", "NNS", "Plur")
    assert all(s.text[t.start:t.end] == t.text for t in s)
    assert rel(s, "All") == ("det:predet", "kids")
    assert sum(1 for t in s if t.head == 0) == 1


def test_copula_and_possessive_in_real_parse(settings) -> None:
    s = parse("My goose is a water bird", settings=settings)
    assert s.root.text == "bird"
    assert rel(s, "is") == ("cop", "bird")
    assert rel(s, "My") == ("nmod:poss", "goose")
    assert rel(s, "goose") == ("nsubj", "bird")


def test_passive_and_relative_clause(settings) -> None:
    s = parse("The cat that the dog chased was bitten by a rat", settings=settings)
    assert rel(s, "chased") == ("acl:relcl", "cat")
    assert rel(s, "was") == ("aux:pass", "bitten")
    assert rel(s, "cat") == ("nsubj:pass", "bitten")
    assert rel(s, "rat") == ("obl:agent", "bitten")


def test_pretokenized_keeps_tokens_one_to_one(settings) -> None:
    text = "Most dogs who bark loudly do not like cats"
    s = parse(text, pretokenized=True, settings=settings)
    assert s.words == text.split(" ")
    # A contraction stays one token when pre-tokenized, unlike the default tokenizer.
    assert parse("John cannot swim", pretokenized=True, settings=settings).words == ["John", "cannot", "swim"]
    assert len(parse("John cannot swim", settings=settings).words) == 4


def test_pretokenized_long_sentence_stays_one_sentence(settings) -> None:
    text = "Even if you are addicted to cigarettes you can smoke two a day"
    s = parse(text, pretokenized=True, settings=settings)
    assert len(s) == len(text.split())
    assert sum(1 for t in s if t.head == 0) == 1


def test_subtree_children_and_ancestors(settings) -> None:
    s = parse("Every dog who likes cats barks", settings=settings)
    dog = next(t for t in s if t.text == "dog")
    assert [t.text for t in s.subtree(dog.id)] == ["Every", "dog", "who", "likes", "cats"]
    assert [t.text for t in s.children(dog.id, "acl")] == ["likes"]
    cats = next(t for t in s if t.text == "cats")
    assert [t.text for t in s.ancestors(cats.id)] == ["likes", "dog", "barks"]


# --- stanza: conversion from a Document built from token dicts (no model needed) ---

def test_stanza_document_conversion() -> None:
    from stanza.models.common.doc import Document

    doc = Document([[
        {"id": 1, "text": "Dogs", "lemma": "dog", "upos": "NOUN", "xpos": "NNS", "feats": "Number=Plur", "head": 2, "deprel": "nsubj"},
        {"id": 2, "text": "bark", "lemma": "bark", "upos": "VERB", "xpos": "VBP", "feats": "Mood=Ind|Tense=Pres", "head": 0, "deprel": "root"},
        {"id": 3, "text": "loudly", "lemma": "loudly", "upos": "ADV", "xpos": "RB", "head": 2, "deprel": "advmod"},
    ]], text="Dogs bark loudly")
    s = document_to_sentence(doc, "Dogs bark loudly")
    assert [(t.text, t.head, t.deprel) for t in s] == [("Dogs", 2, "nsubj"), ("bark", 0, "root"), ("loudly", 2, "advmod")]
    assert s.token(1).feats_dict == {"Number": "Plur"}
    assert s.token(2).feats_dict == {"Mood": "Ind", "Tense": "Pres"}
    assert [s.text[t.start:t.end] for t in s] == ["Dogs", "bark", "loudly"]
    assert s.parser == "stanza"


def test_stanza_without_models_names_the_fix(settings) -> None:
    from engine.core.resources import check_stanza_models

    if check_stanza_models().found:
        pytest.skip("stanza models are installed here")
    with pytest.raises(ResourceError, match=r"stanza.download\('en'\)"):
        parse("Dogs bark", parser="stanza", settings=settings)


# --- bad input ---

@pytest.mark.parametrize("text, message", [
    ("", "empty"), ("   \n\t", "empty"), ("?!... ,", "no words"),
    ("The dog barked. The cat ran away!", "expected one sentence, found 2"),
    ("word " * 200, "limit is 600"),
])
def test_bad_input_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        validate_text(text, 600)


def test_unknown_parser_is_an_input_error(settings) -> None:
    with pytest.raises(InputError, match="unknown parser"):
        parse("Dogs bark", parser="corenlp", settings=settings)


def test_sentence_splitter_keeps_abbreviations_and_decimals() -> None:
    assert split_sentences("Mr. Smith paid 3.5 dollars to Dr. Who.") == ["Mr. Smith paid 3.5 dollars to Dr. Who."]
    assert split_sentences("It rained. Then it stopped? Yes!") == ["It rained.", "Then it stopped?", "Yes!"]


def test_premises_may_hold_several_sentences_but_not_nothing() -> None:
    from engine.parse import validate_premise

    assert validate_premise("  It rained.\n Then it  stopped. ", 600) == "It rained. Then it stopped."
    with pytest.raises(InputError, match="premise is empty"):
        validate_premise(" ", 600)
    with pytest.raises(InputError, match="no words"):
        validate_premise("?!", 600)
    with pytest.raises(InputError, match="limit is 2400"):
        validate_premise("word " * 600, 600)


def test_treebank_split_clitics_are_one_auxiliary(settings) -> None:
    """HELP and ConjNLI write "I 'm", "We 've" (a space before the clitic); spaCy's tokenizer cuts
    those two in two, and the negation then landed inside ("I ' notm buying fruit")."""
    from engine.edits.candidates import generate_candidates
    from engine.edits.operators import get_operator
    from engine.natlog.polarity import polarize
    from engine.natlog.setups import get_setup

    for text, clitic, lemma in (("I 'm buying fruit", "'m", "be"), ("We 've eaten", "'ve", "have")):
        sentence = parse(text, settings=settings)
        assert [t.text for t in sentence.tokens][1] == clitic and sentence.tokens[1].lemma == lemma
        assert sentence.tokens[1].upos == "AUX" and sentence.text == text
    found = generate_candidates(polarize(parse("I 'm buying fruit", settings=settings)), get_setup("E2C").relations,
                                operators=[get_operator("PredicateNegation")], settings=settings)
    assert [c.text for c in found] == ["I 'm not buying fruit"]
    # A quoted letter is no clitic.
    assert "m" in [t.text for t in parse("the 'm' key is broken", settings=settings).tokens]
