"""Insertion and deletion of intersective modifiers (Algorithm 1: Insertion ⊐, Deletion ⊏).

Deleting an adjective, adverb, PP, relative clause or compound modifier makes the phrase more
general (forward entailment); inserting one from the modifier inventory makes it more specific.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine import lexicon
from engine.edits import Edit, EditContext
from engine.inflection import NEGATION_WORDS
from engine.lexicon import LIGHT_VERBS, NON_INTERSECTIVE
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import Relation
from engine.operators.base import TokenOperator, register_operator
from engine.operators.wordnet import compound_status
from engine.parse import ParsedSentence

DELETABLE = ("amod", "advmod", "nmod", "obl", "acl", "compound")


def _deletable(ctx: EditContext, child_id: int) -> list[int] | None:
    """Word indexes of the modifier constituent headed by ``child_id``, if it may be deleted."""
    sentence = ctx.polarized.sentence
    child = sentence.token(child_id)
    base = child.deprel.split(":")[0]
    if base not in DELETABLE or child.lemma.lower() in NON_INTERSECTIVE:
        return None
    if base == "amod" and child.upos != "ADJ" or base == "advmod" and child.upos != "ADV":
        return None
    if base == "compound" and (
        child.upos != "NOUN" or sentence.token(child.head).upos != "NOUN"
        # "ice cream" is no cream: drop a listed compound's modifier only if WordNet says it is a kind of its head.
        or child.id < child.head and compound_status(sentence, child.head, child.id, ctx.settings) is False
    ):
        return None
    if base in ("nmod", "obl") and not sentence.children(child_id, "case"):
        return None
    ids = [t.id for t in sentence.subtree(child_id)]
    if ids[-1] - ids[0] != len(ids) - 1:
        return None
    if any(sentence.token(j).lemma.lower() in NEGATION_WORDS for j in ids):
        return None
    return [j - 1 for j in ids]


@register_operator
class Deletion(TokenOperator):
    """Delete an adjective, adverb, PP, relative clause or noun compound modifying the token (forward)."""

    name = paper_name = "Deletion"
    relations = frozenset({Relation.FORWARD})
    description = "delete a modifier of the word (⊏)"

    def edits_at(self, ctx: EditContext, tok: PolarizedToken) -> Iterator[Edit]:
        for child in ctx.polarized.sentence.children(tok.token.id):
            span = _deletable(ctx, child.id)
            if span:
                yield Edit(span[0], span[-1] + 1, (), Relation.FORWARD)


def _after(sentence: ParsedSentence, head_id: int) -> int:
    """Word index right after a verb, or after its object when it has one."""
    objects = sentence.children(head_id, "obj") + sentence.children(head_id, "iobj")
    if not objects:
        return head_id
    return max(t.id for t in sentence.subtree(objects[-1].id))


def has_modifier(sentence: ParsedSentence, head_id: int, kind: str) -> bool:
    """Whether the head already has an adjective (``amod``), a non-negating adverb (``advmod``),
    or a PP (``nmod`` / ``obl`` with a preposition)."""
    for child in sentence.children(head_id):
        base = child.deprel.split(":")[0]
        if kind == "amod" and base == "amod":
            return True
        if kind == "advmod" and base == "advmod" and child.upos == "ADV" and child.lemma.lower() not in NEGATION_WORDS:
            return True
        if kind in ("nmod", "obl") and base == kind and sentence.children(child.id, "case"):
            return True
    return False


@register_operator
class Insertion(TokenOperator):
    """Insert an adjective before a noun, an adverb or PP after a verb, a PP after a noun (reverse).

    A head takes at most one modifier of each kind: nothing is inserted where one is present, so
    rounds cannot stack them ("young black happy white pants", "slowly rapidly"). Noun modifiers
    must fit the noun's animacy ("in a red shirt" goes on people and animals only).
    """

    name = paper_name = "Insertion"
    relations = frozenset({Relation.REVERSE})
    description = "insert a modifier from the inventory (⊐)"

    def edits_at(self, ctx: EditContext, tok: PolarizedToken) -> Iterator[Edit]:
        t, n = tok.token, ctx.settings.insertions_per_slot
        text = " ".join(ctx.words).lower()
        sentence = ctx.polarized.sentence
        inserts: list[tuple[int, str]] = []
        if t.upos == "NOUN" and t.deprel not in ("compound", "flat"):
            host = "animate" if lexicon.wordnet_animacy(lexicon.wordnet(ctx.settings))(t) else "inanimate"
            if not has_modifier(sentence, t.id, "amod"):
                left = [c.id for c in sentence.children(t.id, "compound") if c.id < t.id]
                before = min(left, default=t.id) - 1
                inserts += [(before, adjective) for adjective in ctx.inventory.top("adjectives", n, host)]
            if not has_modifier(sentence, t.id, "nmod"):
                inserts += [(t.id, pp) for pp in ctx.inventory.top("noun_pps", n, host)]
        elif t.upos == "VERB" and t.lemma.lower() not in LIGHT_VERBS:
            where = _after(sentence, t.id)
            if not has_modifier(sentence, t.id, "advmod"):
                inserts += [(where, adverb) for adverb in ctx.inventory.top("adverbs", n)]
            if not has_modifier(sentence, t.id, "obl"):
                inserts += [(where, pp) for pp in ctx.inventory.top("verb_pps", n)]
        for where, phrase in inserts:
            if f" {phrase} " not in f" {text} ":
                yield Edit(where, where, tuple(phrase.split()), Relation.REVERSE)
