"""Edit operators, registered by name (see :mod:`engine.edits.operators.base` for the interface).

Importing this package registers the built-in operators in Algorithm 1's order: the WordNet
substitutions, deletion and insertion, predicate negation, AltLM, then the sentence-level
negations; then the conjunct edits (ConjNLI) and the equivalence laws (the logic probe's laws).
New operators register the same way from any module imported before generation.

In: an ``EditContext`` (the polarized H, the wanted relations). Out: ``Edit`` records with their
lexical relation and derivation.
"""

from engine.edits.operators import altlm, modifiers, negation, wordnet  # noqa: E402,F401,I001  (registration order)
from engine.edits.operators import conjuncts, equivalence_laws  # noqa: E402,F401,I001  (after Algorithm 1's)
from engine.edits.operators import determiners  # noqa: E402,F401,I001  (the determiner table's substitutions)
from engine.edits.operators import antonyms  # noqa: E402,F401,I001  (negated antonyms, last)
from engine.edits.operators.base import (
    EditOperator,
    Level,
    SentenceOperator,
    TokenOperator,
    get_operator,
    operator_names,
    register_operator,
    registered_operators,
    select_operators,
)

__all__ = [
    "EditOperator", "Level", "SentenceOperator", "TokenOperator", "get_operator", "operator_names",
    "register_operator", "registered_operators", "select_operators",
]
