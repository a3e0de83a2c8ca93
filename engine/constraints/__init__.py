"""The constraint chain every candidate passes before it is ranked and put to the victim.

:mod:`engine.constraints.chain` is the framework (a :class:`Constraint`, the registry, the
:class:`ConstraintChain`); the built-in constraints are one module per family, imported here in
registration order: :mod:`.logic`, :mod:`.wording`, :mod:`.fluency`.

In: candidates and their check context. Out: the kept candidates and what each constraint dropped.
"""

from engine.constraints import logic, wording, fluency  # noqa: F401,I001  (registration order)
from engine.constraints.chain import (
    CheckContext,
    Checked,
    Constraint,
    ConstraintChain,
    describe_by_operator,
    describe_rejected,
    get_constraint,
    register_constraint,
    registered_constraints,
)
from engine.constraints.fluency import (
    VERB_FIT_TOKENS,
    VERB_SWAPS,
    FluencyFloor,
    InsertionFit,
    VerbFit,
    swaps_a_verb,
    verb_swap_rises,
)
from engine.constraints.logic import MaxEdits, PremiseCheck, RelationGuard, content_words, said_words
from engine.constraints.wording import NoRepeat, ReparseCheck

__all__ = [
    "VERB_FIT_TOKENS", "VERB_SWAPS", "CheckContext", "Checked", "Constraint", "ConstraintChain", "FluencyFloor",
    "InsertionFit", "MaxEdits", "NoRepeat", "PremiseCheck", "RelationGuard", "ReparseCheck", "VerbFit",
    "content_words", "describe_by_operator", "describe_rejected", "get_constraint", "register_constraint",
    "registered_constraints", "said_words", "swaps_a_verb", "verb_swap_rises",
]
