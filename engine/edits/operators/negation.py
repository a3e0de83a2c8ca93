"""Negations (Algorithm 1's AddNeg, in its three forms, each its own operator):

- **PredicateNegation** negates the main predicate ("runs" -> "does not run"); the negation (^)
  is projected through the predicate's context like any word-level edit.
- **SentenceNegation** prefixes "It is not true that" / "It is false that": the prefix takes
  the whole sentence in its scope, so H -> H* is ^ whatever the context. Only a finite clause
  can follow "that": captions without a finite verb get no prefix.
- **DoubleNegation** does both; its relation is join(projected predicate negation, ^), kept
  only when that join is a single relation.

Neither negates a predicate in the body of "no N" (:func:`without_existential_import`): the
projection of ^ there (to |, and so the double negation's ⊏) holds only when some N exists.
"every N" presupposes its N (a reader takes "It is not true that every dog did not bark" to say
some dog barked), "no N" does not: "No animals touched a cat" leaves open whether there are any,
so "It is not true that no animals did not touch a cat", which says some animal did, does not follow.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from engine.edits.operators.base import EditOperator, Level, SentenceOperator, register_operator
from engine.edits.records import Edit, EditContext
from engine.lexicon.inflection import has_finite_clause, negate_predicate, uncapitalise
from engine.natlog.polarity import PolarizedSentence, PolarizedToken
from engine.natlog.relations import RELATION_ORDER, Relation, join

NEGATION_PREFIXES = ("It is not true that", "It is false that")


#: Quantifiers whose body does not presuppose their restrictor non-empty ("no N" is true of no N at all).
NO_IMPORT_QUANTIFIERS = frozenset({"no"})


def without_existential_import(polarized: PolarizedSentence, site: int) -> bool:
    """Whether word ``site`` (0-based) lies in the body of a quantifier that does not presuppose its
    restrictor (:data:`NO_IMPORT_QUANTIFIERS`), where negating it projects to no relation a reader grants."""
    return any(op.name in NO_IMPORT_QUANTIFIERS and arg.role == "body" and site + 1 in arg.tokens
               for op in polarized.triggers for arg in op.arguments)


def main_clause_negation(polarized: PolarizedSentence) -> tuple[int, int, tuple[str, ...]] | None:
    """The negation of H's main clause as (site, word index, replacement words): the site is the
    word whose context projects it, the root, except in an existential clause whose subject has
    a determiner ("There is a man" -> "There is no man"): that determiner is replaced, and its own
    context (outside its scope) projects the edit."""
    sentence = polarized.sentence
    root = sentence.root
    if root is None:
        return None
    negated = negate_predicate(sentence, root.id)
    if negated is None:
        return None
    index, words = negated
    replaced = sentence.tokens[index]
    site = index if sentence.children(root.id, "expl") and replaced.upos == "DET" else root.id - 1
    if without_existential_import(polarized, site):
        return None
    return site, index, words


@register_operator
class PredicateNegation(EditOperator):
    """Negate the main predicate ("runs" -> "does not run"), projected through its context."""

    name = "PredicateNegation"
    paper_name = "AddNeg"
    relations = frozenset({Relation.NEGATION})
    level = Level.TOKEN
    description = "negate the main predicate (^, projected through the clause's context)"
    own_context = True

    def propose(self, ctx: EditContext, sites: Sequence[PolarizedToken]) -> Iterator[tuple[int | None, Edit]]:
        found = main_clause_negation(ctx.polarized)
        if found is not None and any(t.token.id - 1 == found[0] for t in sites):
            site, index, words = found
            # "not" outscopes the predicate's indefinite objects ("does not have cracks": no crack).
            yield site, Edit(index, index + 1, words, Relation.NEGATION,
                             projection=ctx.polarized.clause_projection(site + 1))


@register_operator
class SentenceNegation(SentenceOperator):
    """Prefix the sentence with "It is not true that" or "It is false that" (^)."""

    name = "SentenceNegation"
    paper_name = "AddNeg"
    relations = frozenset({Relation.NEGATION})
    description = "prefix 'It is not true that' (^)"

    def sentence_edits(self, ctx: EditContext) -> Iterator[Edit]:
        if not has_finite_clause(ctx.polarized.sentence):  # "It is not true that two dogs sitting ..."
            return
        for prefix in NEGATION_PREFIXES:
            yield Edit(0, 0, tuple(prefix.split()), Relation.NEGATION)


def _prefixed(ctx: EditContext, prefix: str, upto: int, replacement: tuple[str, ...], relation: Relation) -> Edit:
    """Put a negation prefix before H and replace word ``upto - 1`` by ``replacement``; the words
    before it are carried over with their own spacing ("foster-child" stays one word)."""
    tokens = ctx.polarized.sentence.tokens
    head = prefix.split()
    tail = [t.text for t in tokens[: upto - 1]] + list(replacement)
    tail[0] = uncapitalise(tail[0], tokens[0].upos)
    spaces = ([True] * len(head) + [t.space_after for t in tokens[: upto - 1]]
              + [True] * (len(replacement) - 1) + [tokens[upto - 1].space_after])
    return Edit(0, upto, (*head, *tail), relation, spaces=tuple(spaces))


@register_operator
class DoubleNegation(SentenceOperator):
    """Negate the main predicate and prefix a sentence negation: join(projected ^, ^)."""

    name = "DoubleNegation"
    relations = frozenset({Relation.EQUIVALENCE, Relation.FORWARD, Relation.REVERSE,
                           Relation.NEGATION, Relation.ALTERNATION, Relation.COVER})
    description = "negate the predicate and the sentence (join of both)"

    def sentence_edits(self, ctx: EditContext) -> Iterator[Edit]:
        found = main_clause_negation(ctx.polarized)
        if found is None or not has_finite_clause(ctx.polarized.sentence):
            return
        site, index, replacement = found
        inner = ctx.polarized.clause_projection(site + 1)[RELATION_ORDER.index(Relation.NEGATION)]
        joined = join(inner, Relation.NEGATION)
        if len(joined) == 1:
            (relation,) = joined
            for prefix in NEGATION_PREFIXES:
                yield _prefixed(ctx, prefix, index + 1, replacement, relation)
