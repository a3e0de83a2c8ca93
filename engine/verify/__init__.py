"""The verifier: MacCartney's NatLog run forward over two sentences a few edits apart. It aligns H
and H*, finds the edits, reads each edit's lexical relation (WordNet, the determiner table, the
negation and conjunct rules) and projects it through H's polarity, so that the relation H -> H*
is re-derived independently of the operator that proposed it. Above the lexicon and natural logic.

In: two sentences (and the settings). Out: a ``Verdict`` (the relation and its derivation, or why it
cannot tell), and the ``SelfCheck`` an attack records for its H*.
"""
