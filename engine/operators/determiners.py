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
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.edits import Edit, EditContext
from engine.inflection import indefinite_article, is_mass_noun, match_case
from engine.natlog import determiners
from engine.natlog.determiners import Head
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import Relation
from engine.operators.base import TokenOperator, register_operator
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
