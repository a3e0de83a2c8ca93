"""Natural-logic core: relations and join, projectivity, triggers and scope, polarity, attack setups,
and the verifier (MacCartney's NatLog run forward over two sentences a few edits apart).

In: a ``ParsedSentence`` (and, for the verifier, a premise and a hypothesis). Out: a
``PolarizedSentence`` (each token's polarity and projection), setups, a verified relation.
"""

from engine.natlog.polarity import Polarity, PolarizedSentence, PolarizedToken, polarize
from engine.natlog.relations import RELATION_ORDER, WORD_RELATIONS, Relation, join, join_sets, nli_label
from engine.natlog.setups import SETUPS, Setup, get_setup, setups_for_label

__all__ = [
    "RELATION_ORDER", "SETUPS", "WORD_RELATIONS", "Polarity", "PolarizedSentence", "PolarizedToken",
    "Relation", "Setup", "get_setup", "join", "join_sets", "nli_label", "polarize", "setups_for_label",
]
