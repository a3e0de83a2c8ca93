"""Propositional logic shared by the probe suites and the law-rewriting operators: formulas, a
prover and situations.

In: formulas. Out: truth, equivalence, entailment.
"""
