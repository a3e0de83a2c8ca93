"""Negations (Algorithm 1's AddNeg, in its three forms, each its own operator):

- **PredicateNegation** negates the main predicate ("runs" -> "does not run"); the negation (^)
  is projected through the predicate's context like any word-level edit.
- **SentenceNegation** prefixes "It is not true that" / "It is false that": the prefix takes
  the whole sentence in its scope, so H -> H* is ^ whatever the context.
- **DoubleNegation** does both; its relation is join(projected predicate negation, ^), kept
  only when that join is a single relation.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.edits import Edit, EditContext
from engine.inflection import negate_predicate, uncapitalise
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import RELATION_ORDER, Relation, join
from engine.operators.base import SentenceOperator, TokenOperator, register_operator

NEGATION_PREFIXES = ("It is not true that", "It is false that")


@register_operator
class PredicateNegation(TokenOperator):
    """Negate the main predicate ("runs" -> "does not run"), projected through its context."""

    name = "PredicateNegation"
    paper_name = "AddNeg"
    relations = frozenset({Relation.NEGATION})
    description = "negate the main predicate (^, projected)"

    def edits_at(self, ctx: EditContext, tok: PolarizedToken) -> Iterator[Edit]:
        if tok.token.head != 0:
            return
        negated = negate_predicate(ctx.polarized.sentence, tok.token.id)
        if negated is not None:
            index, words = negated
            yield Edit(index, index + 1, words, Relation.NEGATION)


@register_operator
class SentenceNegation(SentenceOperator):
    """Prefix the sentence with "It is not true that" or "It is false that" (^)."""

    name = "SentenceNegation"
    paper_name = "AddNeg"
    relations = frozenset({Relation.NEGATION})
    description = "prefix 'It is not true that' (^)"

    def sentence_edits(self, ctx: EditContext) -> Iterator[Edit]:
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
        root = ctx.polarized.sentence.root
        negated = negate_predicate(ctx.polarized.sentence, root.id) if root is not None else None
        if root is None or negated is None:
            return
        index, replacement = negated
        inner = ctx.polarized.token(root.id).projection[RELATION_ORDER.index(Relation.NEGATION)]
        joined = join(inner, Relation.NEGATION)
        if len(joined) == 1:
            (relation,) = joined
            for prefix in NEGATION_PREFIXES:
                yield _prefixed(ctx, prefix, index + 1, replacement, relation)
