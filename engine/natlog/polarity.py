"""Polarity marking: project each token's context through the triggers (quantifiers, negators, ...) that scope over it.

For every token the trigger arguments that hold it are ordered from the
outermost (a trigger whose scope holds the other's trigger) to the
innermost, and their projectivities compose into the token's projection
list: where each of the seven lexical relations lands at sentence level.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.natlog.projectivity import IDENTITY, Polarity, Projectivity, compose
from engine.natlog.relations import RELATION_ORDER, Relation
from engine.natlog.triggers import ANY_WORDS, DEFAULT_CONVENTIONS, Conventions, ScopedTrigger, TriggerArgument, find_triggers
from engine.parse.sentence import ParsedSentence, Token


@dataclass(frozen=True)
class PolarizedToken:
    """A token with its polarity, the triggers over it (outermost first) and its projection list."""

    token: Token
    polarity: Polarity
    triggers: tuple[str, ...]
    projection: tuple[Relation, ...]

    @property
    def marked(self) -> str:
        """The word with its arrow, e.g. ``dog↓``."""
        return f"{self.token.text}{self.polarity.mark}"

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.token.id, "text": self.token.text, "polarity": self.polarity.mark,
            "triggers": list(self.triggers),
            "projection": {r.symbol: p.symbol for r, p in zip(RELATION_ORDER, self.projection)},
        }


@dataclass(frozen=True)
class PolarizedSentence:
    """A parsed sentence with one :class:`PolarizedToken` per token (same order) and the triggers found."""

    sentence: ParsedSentence
    tokens: tuple[PolarizedToken, ...]
    triggers: tuple[ScopedTrigger, ...] = ()
    warnings: tuple[str, ...] = ()

    def token(self, token_id: int) -> PolarizedToken:
        if not 1 <= token_id <= len(self.tokens):
            raise IndexError(f"token id {token_id} is outside 1..{len(self.tokens)}")
        return self.tokens[token_id - 1]

    def local_relations(self, token_id: int, target: Relation | Iterable[Relation]) -> frozenset[Relation]:
        """The lexical relations that, substituted at ``token_id``, project to (one of) ``target`` (Eq. 1)."""
        targets = {target} if isinstance(target, Relation) else set(target)
        projection = self.token(token_id).projection
        return frozenset(r for r, p in zip(RELATION_ORDER, projection) if p in targets)

    def clause_projection(self, token_id: int, without: Iterable[int] = ()) -> tuple[Relation, ...]:
        """The projection list of a predicate's clause: the word's context without the quantifiers
        of its own objects and obliques (those to its right in its subtree), and without the
        triggers placed by the words ``without`` (an edit that replaces the predicate's own "not"
        is not in the scope of that "not").

        A negation inserted at the predicate ("has cracks" -> "does not have cracks") takes scope
        over the predicate's indefinite objects (not any crack), so it projects through this
        context, not through the word's own (which sits inside the object's existential).
        """
        removed = frozenset(without)
        sentence = self.sentence
        right = {t.id for c in sentence.children(token_id) if c.id > token_id for t in sentence.subtree(c.id)}

        def objects_quantifier(op: ScopedTrigger) -> bool:
            anchors = op.anchors or next((a.tokens for a in op.arguments if a.role == "restrictor"), frozenset())
            return bool(anchors) and anchors <= right

        context = [(op, arg) for op in self.triggers if not objects_quantifier(op) and not op.anchors & removed
                   for arg in op.arguments if token_id in arg.tokens]
        return _projection(_ordered(context)).mapping if context else IDENTITY.mapping

    def projection_over(self, token_id: int, covering: Iterable[int]) -> tuple[Relation, ...]:
        """The projection list of a coordination: the word's context through the trigger arguments
        that hold the other conjunct (``covering``) too. "Mary can't swim, and John can't either":
        the second clause is outside the first one's "n't", so deleting it projects upward."""
        others = frozenset(covering)
        context = [(op, arg) for op in self.triggers for arg in op.arguments
                   if token_id in arg.tokens and arg.tokens & others]
        return _projection(_ordered(context)).mapping if context else IDENTITY.mapping

    @property
    def marked(self) -> str:
        """The sentence with arrows, e.g. ``Every↑ dog↓ sees↑ some↑ cat↑``."""
        return " ".join(t.marked for t in self.tokens)

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.sentence.text,
            "tokens": [t.to_json() for t in self.tokens],
            "triggers": [
                {"name": op.name, "triggers": list(op.triggers),
                 "arguments": [{"role": a.role, "tokens": sorted(a.tokens), "projectivity": a.projectivity.name}
                               for a in op.arguments]}
                for op in self.triggers
            ],
            "warnings": list(self.warnings),
        }


def _ordered(arguments: list[tuple[ScopedTrigger, TriggerArgument]]) -> list[tuple[ScopedTrigger, TriggerArgument]]:
    """Outermost first: a trigger outscopes those whose triggers lie in its argument; ties go left to right."""
    def outscopes(item: tuple[ScopedTrigger, TriggerArgument]) -> int:
        trigger, argument = item
        return sum(1 for other, _ in arguments if other is not trigger and other.anchors & argument.tokens)

    return sorted(arguments, key=lambda item: (-outscopes(item), min(item[0].anchors, default=0)))


def _contexts(sentence: ParsedSentence, triggers: list[ScopedTrigger]) -> list[list[tuple[ScopedTrigger, TriggerArgument]]]:
    return [
        _ordered([(op, arg) for op in triggers for arg in op.arguments if tok.id in arg.tokens])
        for tok in sentence.tokens
    ]


def _projection(context: list[tuple[ScopedTrigger, TriggerArgument]]) -> Projectivity:
    return compose(arg.projectivity for _, arg in reversed(context))


def polarize(sentence: ParsedSentence, *, conventions: Conventions = DEFAULT_CONVENTIONS) -> PolarizedSentence:
    """Mark every token of a parsed sentence with its polarity and projection list.

    Sentences without triggers, without a verb, or without tokens get upward
    polarity (identity projection) and a warning, never an error. ``conventions``
    fixes the readings where calculi differ ("the", bare subject numerals).
    """
    warnings: list[str] = []
    if not sentence.tokens:
        return PolarizedSentence(sentence, (), (), ("the sentence has no tokens",))
    if not any(t.upos in ("VERB", "AUX") for t in sentence.tokens):
        warnings.append("no verb found: trigger bodies may be incomplete; unscoped tokens are upward")
    triggers = find_triggers(sentence, conventions=conventions)
    if any(t.text.lower() in ANY_WORDS for t in sentence.tokens):
        # "any" reads as existential or universal by its context: a second pass gives it one.
        preliminary = _contexts(sentence, triggers)

        def context_polarity(token_id: int) -> Polarity:
            return _projection(preliminary[token_id - 1]).polarity

        triggers = find_triggers(sentence, context_polarity, conventions=conventions)
    contexts = _contexts(sentence, triggers)
    tokens = []
    for tok, context in zip(sentence.tokens, contexts):
        projection = _projection(context) if context else IDENTITY
        tokens.append(PolarizedToken(
            token=tok, polarity=projection.polarity,
            triggers=tuple(op.name for op, _ in context), projection=projection.mapping,
        ))
    return PolarizedSentence(sentence, tuple(tokens), tuple(triggers), tuple(warnings))


__all__ = ["Conventions", "Polarity", "PolarizedSentence", "PolarizedToken", "polarize"]
