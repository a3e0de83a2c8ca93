"""The context a coordination's edits project through: removing a conjunct of *and* in an upward
context is forward entailment, (A ∧ B) ⊏ A; a downward context swaps ⊏ and ⊐.

In: a polarized sentence and one of its coordinations. Out: the projectivity of its context.
"""


from __future__ import annotations

from engine.edits.conjuncts.detection import Coordination
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.projectivity import IDENTITY, Projectivity, compose
from engine.natlog.triggers import ScopedTrigger, TriggerArgument


def coordination_projection(polarized: PolarizedSentence, coordination: Coordination) -> Projectivity:
    """How a relation between two versions of the coordination projects to the sentence.

    The context is the triggers outside the coordination whose argument holds its head and every
    other conjunct ("No dog or cat", "did n't sing or dance"); a trigger inside one conjunct (its
    own determiner) or anchored at the connective (the marker's coordinated-subject trigger) is part
    of what is edited, not of the context. Outermost first, as the polarity marker orders them.
    """
    inside = coordination.token_ids
    others = [frozenset(range(k.span[0] + 1, k.span[1] + 1)) for k in coordination.conjuncts
              if k.head_id != coordination.head_id]
    context: list[tuple[ScopedTrigger, TriggerArgument]] = [
        (op, arg) for op in polarized.triggers if not op.anchors & inside for arg in op.arguments
        if coordination.head_id in arg.tokens and all(arg.tokens & other for other in others)
    ]
    if not context:
        return IDENTITY

    def outscopes(item: tuple[ScopedTrigger, TriggerArgument]) -> int:
        return sum(1 for other, _ in context if other is not item[0] and other.anchors & item[1].tokens)

    ordered = sorted(context, key=lambda item: (-outscopes(item), min(item[0].anchors, default=0)))
    return compose(arg.projectivity for _, arg in reversed(ordered))


# Conjunct edits -----------------------------------------------------------------------------------
