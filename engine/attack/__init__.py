"""The attack on one pair: rounds of generate → check → rank → query, the search, its records,
and the recipe that identifies a run.

In: a pair, a setup, a victim, the tools. Out: an ``AttackRecord`` with its trace.
"""
