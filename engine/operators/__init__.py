"""Edit operators, registered by name (see :mod:`engine.operators.base` for the interface).

Importing this package registers the built-in operators in Algorithm 1's order: the WordNet
substitutions, deletion and insertion, predicate negation, AltLM, then the sentence-level
negations; then the conjunct edits (ConjNLI) and the equivalence laws (the logic probe's laws).
New operators register the same way from any module imported before generation.
"""

from engine.operators import altlm, modifiers, negation, wordnet  # noqa: E402,F401,I001  (registration order)
from engine.operators import conjuncts, equivalence_laws  # noqa: E402,F401,I001  (after Algorithm 1's)
from engine.operators import determiners  # noqa: E402,F401,I001  (the determiner table's substitutions, last)
from engine.operators.base import (
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
