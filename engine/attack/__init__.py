"""The attack on one pair: rounds of generate → check → rank → query, the search, its records,
and the recipe that identifies a run.

In: an attack built from its recipe (:mod:`engine.attack.build`), a pair and its setup, a victim. Out: an ``AttackRecord`` with its trace.
"""
