"""Fluency ranking: the causal- and masked-LM scorers and the AltLM fill-in back-ends, over the
language models :mod:`engine.models` loads.

In: sentences. Out: perplexity scores (lower is more fluent), fill-in words.
"""
