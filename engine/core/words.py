"""The small word lists more than one stage reads, defined once here.

In: nothing. Out: frozen sets of lower-cased words.
"""

from __future__ import annotations

#: "not" and its clitic: what a law rewrite or a do-support negation adds or removes.
NOT_PARTICLES = frozenset({"not", "n't"})
#: Adverbs that negate their clause: the polarity marker's negators, the parse repairs' too.
NEGATIVE_ADVERBS = NOT_PARTICLES | {"never"}
#: Negative determiners, pronouns and coordinators.
NEGATIVE_QUANTIFIERS = frozenset({"no", "none", "nobody", "nothing", "neither", "nor"})
#: Every word that makes its phrase negative (a modifier beside one is not intersective).
NEGATION_WORDS = NEGATIVE_ADVERBS | NEGATIVE_QUANTIFIERS | {"without"}
