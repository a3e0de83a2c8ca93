"""Insertion and deletion of intersective modifiers (Algorithm 1: Insertion ⊐, Deletion ⊏).

Deleting an adjective, adverb, PP, relative clause or compound modifier makes the phrase more
general (forward entailment); inserting one from the modifier inventory makes it more specific.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.core.settings import Settings
from engine.core.words import NEGATION_WORDS
from engine.edits.operators.base import TokenOperator, register_operator
from engine.edits.operators.wordnet import compound_status, word_senses
from engine.edits.records import Edit, EditContext
from engine.lexicon import relatives as lexicon
from engine.lexicon.relatives import LIGHT_VERBS, NON_INTERSECTIVE
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import Relation
from engine.parse import ParsedSentence, Token

DELETABLE = ("amod", "advmod", "nmod", "obl", "acl", "compound")
SINGULAR_INDEFINITE = frozenset({"a", "an", "one"})


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
    if predicate_of_be(sentence, child):
        return None
    ids = [t.id for t in sentence.subtree(child_id)]
    if ids[-1] - ids[0] != len(ids) - 1:
        return None
    if any(sentence.token(j).lemma.lower() in NEGATION_WORDS for j in ids):
        return None
    span = set(ids)
    if any(span & set(t.triggers) and not set(t.triggers) <= span for t in ctx.polarized.triggers):
        return None  # a word of a multiword trigger is no modifier ("at" of "at least 3": "Least 3 ...")
    return [j - 1 for j in ids]


# Dependents of "be" that complete it: what is left of the clause when one is deleted.
BE_COMPLEMENTS = frozenset({"advmod", "obl", "nmod", "xcomp", "obj", "attr", "acomp", "ccomp", "csubj"})


def predicate_of_be(sentence: ParsedSentence, child: Token) -> bool:
    """Whether ``child`` is the only complement of a copular "be" ("The rider is outdoors", "The man is
    in the park"): the clause's predicate, not a modifier; deleting it leaves "The rider is."
    ("There is a man in the park" keeps "There is a man")."""
    if not child.head:
        return False
    head = sentence.token(child.head)
    if head.lemma.lower() != "be" or sentence.children(head.id, "expl"):
        return False
    return not any(c.id != child.id and c.deprel.split(":")[0] in BE_COMPLEMENTS
                   and c.lemma.lower() not in NEGATION_WORDS for c in sentence.children(head.id))


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


# Dependents that end a verb phrase's core: a modifier goes before them, not after.
_OUTSIDE_CORE = frozenset({"punct", "conj", "cc", "parataxis", "advcl", "ccomp", "mark", "obl", "discourse"})
# Adverbs that say where, whatever the verb; other insertable adverbs must say how (-ly manner
# adverbs, which WordNet derives from an adjective): "eats dinner outside" / "slowly", never
# "eats dinner away / close / forward / hard".
LOCATIVE_ADVERBS = frozenset({"outside", "outdoors", "inside", "indoors", "nearby", "upstairs", "downstairs", "abroad"})


def _after(sentence: ParsedSentence, head_id: int) -> int:
    """Word index right after a verb's core phrase: the verb, its objects and other arguments
    that follow it ("is wearing black", "brought allegations that ..."), before its PPs and clauses."""
    end = head_id
    for child in sentence.children(head_id):
        if child.id > head_id and child.deprel.split(":")[0] not in _OUTSIDE_CORE:
            end = max(end, max(t.id for t in sentence.subtree(child.id)))
    return end


def insertable_adverb(adverb: str, settings: Settings) -> bool:
    """A locative adverb, or a manner adverb WordNet derives from an adjective ("slowly")."""
    if adverb in LOCATIVE_ADVERBS:
        return True
    return any(l.pertainyms() for s in lexicon.wordnet(settings).synsets(adverb, "r") for l in s.lemmas()
               if l.name().lower() == adverb.lower())


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


# Nouns that take an inserted modifier: the clause's arguments (not list members, appositions,
# compound parts or names, where "editor in the background" or "White el bonaerense" come from).
HOST_NOUN_ROLES = frozenset({"nsubj", "obj", "iobj", "obl"})
# Dependents a modifier may be inserted before: adjuncts, not the verb's arguments.
ADJUNCTS = frozenset({"obl", "advmod", "advcl", "punct", "conj", "cc", "parataxis", "mark", "dep", "discourse"})


def main_clause_verb(sentence: ParsedSentence, verb_id: int) -> bool:
    """Whether a verb heads the main clause (or a clause coordinated with it): inside an adverbial
    or participial clause an inserted modifier attaches ambiguously ("Combining folk, trip hop
    elements in the background, it earned ...")."""
    verb = sentence.token(verb_id)
    if verb.head == 0:
        return True
    return verb.deprel == "conj" and sentence.token(verb.head).head == 0


def splits_arguments(sentence: ParsedSentence, verb_id: int, where: int) -> bool:
    """Whether inserting after word ``where`` would separate the verb from one of its arguments
    ("is wearing in the background black", "was raining on the beach on")."""
    return any(c.id > where and c.deprel.split(":")[0] not in ADJUNCTS for c in sentence.children(verb_id))


# What a colour, a size or a place can be said of: physical things, people, animals, plants, food.
CONCRETE_LEXNAMES = frozenset({
    "noun.artifact", "noun.animal", "noun.person", "noun.plant", "noun.food", "noun.body", "noun.object",
})


def concrete(ctx: EditContext, lemma: str) -> bool:
    """Whether a noun names a physical thing in its context (its chosen WordNet sense): "a red
    shirt", never "a red release" or "a rhyme in the city"."""
    senses = word_senses(ctx, lemma, "NOUN")
    return bool(senses) and lexicon.wordnet(ctx.settings).synset(senses[0]).lexname() in CONCRETE_LEXNAMES


def animate_subject(ctx: EditContext, verb_id: int) -> bool:
    """Whether the verb's subject is a person or an animal: where and how someone does something
    can be added ("runs outside"); songs do not compete outside, it does not rain on the beach."""
    sentence = ctx.polarized.sentence
    subjects = [c for c in sentence.children(verb_id) if c.deprel.split(":")[0] == "nsubj"]
    if not subjects:
        return False
    is_animate = lexicon.wordnet_animacy(lexicon.wordnet(ctx.settings))
    subject = subjects[0]
    return subject.upos in ("NOUN", "PROPN", "PRON") and is_animate(subject) and subject.lemma.lower() != "it"


@register_operator
class Insertion(TokenOperator):
    """Insert an adjective before a noun, an adverb or PP after a verb, a PP after a noun (reverse).

    A head takes at most one modifier of each kind: nothing is inserted where one is present, so
    rounds cannot stack them ("young black happy white pants", "slowly rapidly"). Noun modifiers
    go on concrete nouns that are the clause's arguments and fit the noun's animacy ("in a red
    shirt" goes on people and animals only); verb modifiers on the main verb of an animate subject,
    after its arguments.
    """

    name = paper_name = "Insertion"
    relations = frozenset({Relation.REVERSE})
    description = "insert a modifier from the inventory (⊐)"
    parameters = ("insertions_per_slot",)

    def __init__(self, insertions_per_slot: int = 8) -> None:
        #: How many modifiers of each kind are offered per slot (the inventory's most frequent).
        self.insertions_per_slot = insertions_per_slot

    def edits_at(self, ctx: EditContext, tok: PolarizedToken) -> Iterator[Edit]:
        t, n = tok.token, self.insertions_per_slot
        text = " ".join(ctx.words).lower()
        sentence = ctx.polarized.sentence
        inserts: list[tuple[int, str]] = []
        if t.upos == "NOUN" and t.deprel.split(":")[0] in HOST_NOUN_ROLES and concrete(ctx, t.lemma):
            host = "animate" if lexicon.wordnet_animacy(lexicon.wordnet(ctx.settings))(t) else "inanimate"
            if not has_modifier(sentence, t.id, "amod"):
                left = [c.id for c in sentence.children(t.id, "compound") if c.id < t.id]
                before = min(left, default=t.id) - 1
                inserts += [(before, adjective) for adjective in ctx.inventory.top("adjectives", n, host)]
            if not has_modifier(sentence, t.id, "nmod"):
                plural = t.feats_dict.get("Number") == "Plur" or t.xpos == "NNS"
                # "riders in a white shirt": a singular indefinite PP after a plural noun reads as
                # one shirt for all of them; such PPs go on singular nouns only.
                inserts += [(t.id, pp) for pp in ctx.inventory.top("noun_pps", n, host)
                            if not (plural and SINGULAR_INDEFINITE & set(pp.lower().split()[1:2]))]
        elif (t.upos == "VERB" and t.lemma.lower() not in LIGHT_VERBS and main_clause_verb(sentence, t.id)
              and animate_subject(ctx, t.id)):
            where = _after(sentence, t.id)
            if splits_arguments(sentence, t.id, where):
                return
            if not has_modifier(sentence, t.id, "advmod"):
                inserts += [(where, adverb) for adverb in ctx.inventory.top("adverbs", n)
                            if insertable_adverb(adverb, ctx.settings)]
            if not has_modifier(sentence, t.id, "obl"):
                inserts += [(where, pp) for pp in ctx.inventory.top("verb_pps", n)]
        for where, phrase in inserts:
            if f" {phrase} " not in f" {text} ":
                yield Edit(where, where, tuple(phrase.split()), Relation.REVERSE)
