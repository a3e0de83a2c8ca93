"""Language models and fluency ranking: the model registry, the causal- and masked-LM scorers,
and the AltLM fill-in back-ends.

In: sentences. Out: perplexity scores (lower is more fluent), fill-in words.
"""
