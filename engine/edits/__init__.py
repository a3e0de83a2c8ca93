"""Candidate edits: the ``Edit`` / ``Candidate`` records, the edit operators (``operators/``),
conjunct edits and candidate generation (the paper's Algorithm 1).

In: a ``PolarizedSentence`` and the relations a setup wants. Out: ``Candidate`` H* with derivations.
"""
