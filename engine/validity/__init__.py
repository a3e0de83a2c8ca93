"""The validity estimate: how likely blind judges are to accept a candidate H* (its target label, in
plain English), known before the victim is asked.

- :mod:`engine.validity.features`: what the engine knows about a candidate, as numbers.
- :mod:`engine.validity.estimate`: the fitted estimate (``estimator.json``) and the gate the search
  uses (drop under ``min_validity``, order by fluency weighed against the estimate).

In: (P, H, H*) with the derivation that made H*. Out: a calibrated probability that H* is valid.

``bench/validity_estimator.py`` fits the estimate on the blind labels; docs/validity.md says how
well it does and what the search gains from it.
"""
