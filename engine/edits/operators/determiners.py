"""Determiner substitution (``PerturbQuant``): replace a noun phrase's determiner by another that
the determiner table (:mod:`engine.natlog.determiners`, the verifier's table too) relates to it.

"Every dog barks" -> "A dog barks" (every ⊏ some, projected ↑: ⊏), "A man sleeps" -> "No man
sleeps" (some ^ no: ^), "Some people sing" -> "Most people sing" (some ⊐ most: ⊐). The relation
is the table's, projected through the determiner's own context like any word-level edit.

Grammar is kept by construction: the new determiner must take the head noun as it stands
(singular count, plural or mass, :data:`engine.natlog.determiners.HEADS`), so the verb's agreement
is unchanged; "a"/"an" follows the next word's sound. Left alone: predeterminers ("all the
cookies"), quantity phrases ("a lot of", "a few", "a couple of"), numerals, predicate nominals
("He is a doctor": a determiner there quantifies nothing), and in an existential clause ("There is
a man") only determiners that read as existential are offered (no "There is every man"). Determiners that say something strong of the whole
restrictor ("every", "all", "most", "no") are offered only to a clause's subject: "A man is playing
every guitar" is licensed but no reader takes it as a description of a scene. "each" stands only
for "every" (≡).

Numerals: a cardinal counting a plural noun ("Two dogs", "holding 3 balls") becomes the next
number down or up (never one, so the noun stays plural), written as it was (a word or digits).
As lexical items numbers read "at most n" (smaller ⊏ larger, the verifier's convention); how the
change projects is the numeral reading's (``numeral_reading``): a subject's "exactly n" gives an
alternation (two | three: an E2C edit), "at least n" a downward number (three → two: ⊏, an E2E
edit), and an object's non-monotone number none.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.edits.operators.base import TokenOperator, register_operator
from engine.edits.records import Edit, EditContext
from engine.lexicon.inflection import indefinite_article, is_mass_noun, match_case
from engine.natlog import determiners
from engine.natlog.determiners import Head
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import Relation
from engine.natlog.triggers import NUMBER_VALUES
from engine.parse.sentence import ParsedSentence, Token

#: Nouns that measure or count rather than name what the phrase is about ("a lot of people").
QUANTITY_NOUNS = frozenset({
    "lot", "lots", "couple", "few", "little", "number", "bunch", "dozen", "pair", "handful", "majority",
    "minority", "plenty", "deal", "amount", "total", "part", "rest", "kind", "sort", "type", "variety",
})
#: Determiners that read as existential after "there is/are".
EXISTENTIAL_OK = frozenset({"a", "an", "some", "no", "several", "many"})
#: Determiners that say something strong of the whole restrictor: offered only to a clause's subject
#: ("Every man is playing a guitar", never "A man is playing every guitar" or "... plays no guitar").
SUBJECT_ONLY = frozenset({"every", "each", "all", "most", "no"})
SUBJECTS = ("nsubj", "nsubj:pass")
NOMINAL = ("NOUN",)
SINGULAR_ONLY = frozenset({"a", "an", "every", "each"})


def head_kind(sentence: ParsedSentence, det: Token, head: Token) -> Head | None:
    """How the determiner's head noun is used: plural (NNS), singular count (after a/an/every/each,
    or a count noun), or mass; None when it cannot be told."""
    if head.xpos in ("NNS", "NNPS") or head.feats_dict.get("Number") == "Plur":
        return Head.PLURAL
    if head.xpos not in ("NN", "NNP"):
        return None
    old = det.text.lower()
    if old in SINGULAR_ONLY:
        return Head.SINGULAR
    if old != "no":  # "some water", "all music", "most bread": before a singular noun these read as mass
        return Head.MASS
    return Head.MASS if is_mass_noun(head.lemma.lower()) else Head.SINGULAR


def noun_phrase_ok(sentence: ParsedSentence, det: Token, head: Token) -> bool:
    """The determiner opens a plain noun phrase: only modifiers between it and its noun, no
    quantity noun or numeral, no "of" phrase after a quantity noun, not a predicate nominal."""
    if head.upos not in NOMINAL or head.id <= det.id or head.deprel in ("compound", "flat", "fixed"):
        return False
    between = [sentence.token(i) for i in range(det.id + 1, head.id)]
    if any(t.upos not in ("ADJ", "NOUN", "PROPN", "ADV", "VERB") or t.text.lower() in QUANTITY_NOUNS
           or t.text.lower() in determiners.HEADS for t in between):
        return False
    if head.lemma.lower() in QUANTITY_NOUNS or head.text.lower() in QUANTITY_NOUNS:
        return False
    if sentence.children(head.id, "cop") or head.deprel in ("root", "appos", "vocative", "list"):
        return False
    return True


def existential(sentence: ParsedSentence, head: Token) -> bool:
    """Whether the noun is the subject of "there is/are" (its clause has an expletive)."""
    governor = sentence.token(head.head) if head.head else None
    return bool(sentence.children(head.id, "expl")) or (
        governor is not None and bool(sentence.children(governor.id, "expl")))


@register_operator
class DeterminerSubstitution(TokenOperator):
    """Replace a determiner by one the determiner table relates to it (≡, ⊏, ⊐, ^, |)."""

    name = "PerturbQuant"
    relations = frozenset({Relation.EQUIVALENCE, Relation.FORWARD, Relation.REVERSE, Relation.NEGATION,
                           Relation.ALTERNATION})
    description = "replace a determiner by one the determiner table relates to it (every ⊏ a, a ^ no, ...)"

    def edits_at(self, ctx: EditContext, tok: PolarizedToken) -> Iterable[Edit]:
        if tok.token.upos == "NUM":
            yield from numeral_edits(ctx.polarized.sentence, tok.token)
            return
        sentence = ctx.polarized.sentence
        det = tok.token
        old = det.text.lower()
        if old not in determiners.HEADS or det.deprel not in ("det", "amod") or not det.head:
            return
        head = sentence.token(det.head)
        if not noun_phrase_ok(sentence, det, head):
            return
        kind = head_kind(sentence, det, head)
        if kind is None:
            return
        index = det.id - 1
        following = sentence.tokens[index + 1].text if index + 1 < len(sentence.tokens) else ""
        in_existential = existential(sentence, head)
        subject = head.deprel in SUBJECTS
        for word, relation in determiners.substitutes(old, kind):
            if in_existential and word not in EXISTENTIAL_OK:
                continue
            if not subject and word in SUBJECT_ONLY:
                continue
            if "each" in (word, old) and {word, old} != {"each", "every"}:
                continue  # "each" only as "every"'s equivalent
            if word == "a":
                word = indefinite_article(following)
            yield Edit(index, index + 1, (match_case(word, det.text),), relation,
                       path=(f"determiner '{old}' {relation.symbol} '{word}'",))


#: Number words written out, by value (the cardinals the marker knows, up to twelve, and the tens).
NUMBER_WORDS_BY_VALUE = {value: word for word, value in NUMBER_VALUES.items() if word not in ("hundred", "thousand",
                                                                                             "dozen")}
#: Nouns a numeral counts as a measure ("two years", "3 hours"): a number change there is a claim
#: about a quantity, not about who is in the scene, and the marker reads these by their own rules.
MEASURE_NOUNS = frozenset({"percent", "%", "dollar", "dollars", "cent", "cents", "mile", "miles", "meter", "meters",
                           "foot", "feet", "pound", "pounds", "degree", "degrees"})


def numeral_value(word: str) -> int | None:
    text = word.lower().replace(",", "")
    if text.isdigit():
        return int(text)
    return NUMBER_VALUES.get(text) if text in NUMBER_WORDS_BY_VALUE.values() else None


def numeral_edits(sentence: ParsedSentence, number: Token) -> Iterable[Edit]:
    """A cardinal that counts a plural noun, one up and one down (at least two: the noun stays
    plural), in the numeral's own spelling; the relation is the "at most n" order."""
    value = numeral_value(number.text)
    if value is None or value < 2 or number.deprel != "nummod" or not number.head:
        return
    noun = sentence.token(number.head)
    if noun.upos != "NOUN" or noun.xpos != "NNS" or noun.text.lower() in MEASURE_NOUNS:
        return
    if any(t.text.lower() in ("at", "least", "most", "than", "exactly", "about", "around", "over", "under")
           for t in sentence.tokens[max(0, number.id - 3):number.id - 1]):
        return  # "at least three", "more than two": the quantifier table's business, not a bare numeral's
    digits = number.text.replace(",", "").isdigit()
    for new in (value - 1, value + 1):
        if new < 2 or (not digits and new not in NUMBER_WORDS_BY_VALUE):
            continue
        word = str(new) if digits else match_case(NUMBER_WORDS_BY_VALUE[new], number.text)
        relation = Relation.FORWARD if value < new else Relation.REVERSE
        yield Edit(number.id - 1, number.id, (word,), relation,
                   path=(f"number {value} {relation.symbol} {new} (as 'at most n')",))
