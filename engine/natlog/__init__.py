"""Natural-logic core: relations and join, projectivity, triggers and scope, polarity, attack setups
(the verifier, which also reads the lexicon, is :mod:`engine.verify`).

In: a ``ParsedSentence``. Out: a ``PolarizedSentence`` (each token's polarity and projection), setups.
"""

from engine.natlog.polarity import Polarity, PolarizedSentence, PolarizedToken, polarize
from engine.natlog.relations import RELATION_ORDER, WORD_RELATIONS, Relation, join, join_sets, nli_label
from engine.natlog.setups import SETUPS, Setup, get_setup, setups_for_label

__all__ = [
    "RELATION_ORDER", "SETUPS", "WORD_RELATIONS", "Polarity", "PolarizedSentence", "PolarizedToken",
    "Relation", "Setup", "get_setup", "join", "join_sets", "nli_label", "polarize", "setups_for_label",
]
