"""Negated antonyms: a predicate traded for the negation of its WordNet antonym, or the other way.

- "A man is sitting" -> "A man is not lying" (⊏), "The bowl is empty" -> "The bowl is not full";
- "A man is not sitting" -> "A man is lying" (⊐), "The dog does not sleep" -> "The dog wakes".

The relation is MacCartney's join of the antonym's alternation and the negation's ^: join(|, ^) is
⊏. It holds of the clause's predicate as a one-place predicate of its subject, and modifiers do not
change it: "sits on a bench" ⊏ "sits" ⊏ "does not lie" ⊏ "does not lie on a bench" (a modifier
dropped, the antonym negated, a modifier added under the negation). So the edit projects through the
clause's context (:meth:`PolarizedSentence.clause_projection`), as a predicate negation does, and a
predicate with an object or a clause of its own is left alone: "pushing a stroller" and "not pulling
a stroller" are not so related ("push" and "pull" exclude each other as one act on one thing, not as
what someone is doing). Passives, coordinated predicates and predicates in the body of "no N"
(:func:`without_existential_import`) are left alone too.

Why an operator of its own: a victim that reads "not" as a sign of contradiction is fooled by "It is
not true that a man is not sitting", which no one writes; "A man is not lying" is the same
entailment in the English of a caption. The double negation stays, asked after it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

from engine.edits.conjuncts import verb_tag
from engine.edits.operators.base import EditOperator, Level, register_operator
from engine.edits.operators.negation import without_existential_import
from engine.edits.operators.wordnet import PerturbAnto, fits_slot, substitutable
from engine.edits.records import Edit, EditContext
from engine.lexicon.inflection import inflect, negate_predicate
from engine.lexicon.relatives import LexicalRelative
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import Relation
from engine.parse import ParsedSentence
from engine.parse.sentence import Token

#: Dependents that make the predicate more than a one-place predicate of its subject (an object, a
#: clause, a second predicate, a particle, a passive) or an existential ("There is ...").
ARGUMENTS = frozenset({"obj", "iobj", "ccomp", "xcomp", "csubj", "conj", "expl", "compound:prt", "aux:pass",
                       "nsubj:pass", "csubj:pass", "dative", "attr", "oprd", "agent"})
#: Adverbs that do not leave the bare predicate true ("almost sitting" is not sitting).
NOT_VERIDICAL = frozenset({"almost", "nearly", "barely", "hardly", "scarcely", "just", "only", "never", "not", "n't"})
#: The negations this operator moves ("never" is not "not": "never sits" says more than "does not lie").
NOT = frozenset({"not", "n't"})


def predicate_of(sentence: ParsedSentence) -> tuple[Token, Token] | None:
    """(clause head, predicate word) of H's main clause when its predicate is a one-place
    predicate of the subject: a verb or an adjective at the root ("sits", "is empty"), or the
    adverb or adjective after a root "be" ("are outside"). None otherwise."""
    root = sentence.root
    if root is None:
        return None
    predicate = root
    if root.upos not in ("VERB", "ADJ"):
        if root.lemma.lower() != "be":
            return None
        after = [c for c in sentence.children(root.id) if c.deprel in ("advmod", "acomp") and c.id > root.id
                 and c.upos in ("ADV", "ADJ") and c.lemma.lower() not in NOT_VERIDICAL]
        if len(after) != 1:
            return None
        predicate = after[0]
    for word in {root.id, predicate.id}:
        for child in sentence.children(word):
            if child.deprel in ARGUMENTS or child.deprel.split(":")[0] in ARGUMENTS:
                return None
            if child.deprel == "advmod" and child.lemma.lower() in NOT_VERIDICAL - NOT:
                return None
    return root, predicate


def _negation(sentence: ParsedSentence, root: Token) -> Token | None:
    """The predicate's one "not" (or "n't"), or None."""
    found = [c for c in sentence.children(root.id) if c.deprel in ("advmod", "neg") and c.text.lower() in NOT]
    return found[0] if len(found) == 1 else None


def _between(sentence: ParsedSentence, start: int, end: int, skip: frozenset[int]) -> list[Token]:
    """The words strictly between word ids ``start`` and ``end``, less those in ``skip``."""
    return [sentence.token(i) for i in range(start + 1, end) if i not in skip]


def _edit(first: Token, last: Token, words: list[str], relation: Relation, projection: tuple[Relation, ...]) -> Edit:
    """Replace words ``first``..``last`` (ids, inclusive) by ``words`` (spaced as one phrase)."""
    return Edit(first.id - 1, last.id, tuple(words), relation, projection=projection)


@register_operator
class NegatedAntonym(EditOperator):
    """A predicate and the negation of its antonym: "is sitting" -> "is not lying" (⊏), and back:
    "is not sitting" -> "is lying" (⊐); projected through the clause's context."""

    name = "NegatedAntonym"
    relations = frozenset({Relation.FORWARD, Relation.REVERSE})
    level = Level.TOKEN
    description = "a predicate for the negation of its WordNet antonym and back (join(|, ^) = ⊏; 'sits' -> 'does not lie')"
    own_context = True

    def propose(self, ctx: EditContext, sites: Sequence[PolarizedToken]) -> Iterator[tuple[int | None, Edit]]:
        sentence = ctx.polarized.sentence
        found = predicate_of(sentence)
        if found is None:
            return
        root, predicate = found
        site = root.id - 1
        tok = ctx.polarized.token(predicate.id)
        if (not substitutable(tok) or not any(t.token.id - 1 == site for t in sites)
                or without_existential_import(ctx.polarized, site)):
            return
        antonyms = self.antonyms(ctx, tok, predicate is not root)
        if not antonyms:
            return
        negation = _negation(sentence, root)
        tag = verb_tag(sentence, predicate) if predicate.upos == "VERB" else predicate.xpos
        if negation is None:
            yield from self._negated(ctx, root, predicate, antonyms, tag)
        else:
            yield from self._unnegated(ctx, root, predicate, negation, antonyms, tag)

    @staticmethod
    def antonyms(ctx: EditContext, tok: PolarizedToken, after_be: bool) -> list[LexicalRelative]:
        """The predicate's one-word WordNet antonyms, under the senses chosen in H and P. An adverb
        after "be" is a predicative complement ("are outside", "are inside"): WordNet lists those
        words mostly as adjectives, so the lexicon refuses them as adverbs (a substitute is usually
        read in its slot's part of speech), and an adverb without antonyms of its own is read as
        the adjective, taking that adjective's own antonyms only."""
        sentence = ctx.polarized.sentence
        found = PerturbAnto().relatives(ctx, tok, tok.token.lemma)
        if not found and after_be and tok.token.upos == "ADV":
            as_adjective = dataclasses.replace(tok, token=dataclasses.replace(tok.token, upos="ADJ", xpos="JJ"))
            # Only the word's own antonyms: a satellite sense's head ("outside" as "external", whose
            # antonym is "internal") is not the place the predicate names.
            found = [r for r in PerturbAnto().relatives(ctx, as_adjective, tok.token.lemma) if len(r.path) == 2]
        # One word, and a verb that keeps the slot's valency, as every WordNet swap (:func:`fits_slot`:
        # "Koko knows" does not become "Koko does not ignore").
        return [r for r in found if " " not in r.lemma and fits_slot(sentence, tok, r, ctx.settings)]

    def _negated(self, ctx: EditContext, root: Token, predicate: Token, antonyms: list[LexicalRelative],
                 tag: str) -> Iterator[tuple[int, Edit]]:
        """"sits" -> "does not lie", "is sitting" -> "is not lying" (⊏)."""
        sentence = ctx.polarized.sentence
        negated = negate_predicate(sentence, root.id)
        if negated is None:
            return
        index, words = negated
        projection = ctx.polarized.clause_projection(root.id)
        first = sentence.tokens[index]
        for rel in antonyms:
            if first.id == predicate.id:  # do-support: "sits" -> "does not lie"
                base = inflect(rel.lemma, "VB", "VERB")
                if base is None:
                    continue
                new = [*words[:-1], base]
                yield root.id - 1, _edit(first, predicate, new, Relation.FORWARD, projection)
            elif first.id < predicate.id:  # "is sitting" -> "is not lying", "are outside" -> "are not inside"
                form = inflect(rel.lemma, tag, predicate.upos)
                if form is None or form.lower() == predicate.text.lower():
                    continue
                if _between(sentence, first.id, predicate.id, frozenset()):
                    continue  # "is very happy" -> "is not very unhappy", "is always complaining" -> "is not always cheering"
                yield root.id - 1, _edit(first, predicate, [*words, form], Relation.FORWARD, projection)

    def _unnegated(self, ctx: EditContext, root: Token, predicate: Token, negation: Token,
                   antonyms: list[LexicalRelative],
                   tag: str) -> Iterator[tuple[int, Edit]]:
        """"is not sitting" -> "is lying", "does not sit" -> "lies" (⊐): the "not" is gone, so the
        edit projects through the clause's context without it."""
        sentence = ctx.polarized.sentence
        helpers = [c for c in sentence.children(root.id) if c.deprel in ("aux", "cop") and c.id < negation.id]
        if not helpers or negation.id > predicate.id:
            return
        helper = helpers[-1]
        projection = ctx.polarized.clause_projection(root.id, without=(negation.id,))
        do_support = helper.lemma.lower() == "do"
        if do_support and (predicate.upos != "VERB" or helper.xpos not in ("VBZ", "VBD", "VBP")):
            return
        if _between(sentence, helper.id, predicate.id, frozenset({negation.id})):
            return  # only "is not sitting", "does not sit": no adverb whose scope the "not" would leave
        for rel in antonyms:
            form = inflect(rel.lemma, helper.xpos if do_support else tag, predicate.upos)
            if form is None or form.lower() == predicate.text.lower():
                continue
            if do_support:  # "does not sit" -> "lies"
                yield root.id - 1, _edit(helper, predicate, [form], Relation.REVERSE, projection)
            else:  # "is not sitting" -> "is lying", "isn't happy" -> "is sad": the helper stays, spaced
                yield root.id - 1, _edit(helper, predicate, [helper.text, form], Relation.REVERSE, projection)
