"""The models every stage reads, loaded in one place and cached: the causal and masked language
models (the offline SmolLM2 GGUF, hub ids, local folders), the sentence encoder, the device and
precision they run in. Below the lexicon (word senses read the encoder), the ranking (the scorers
read the LMs) and the victim.

In: a model name and the settings' device and precision. Out: loaded models (``LoadedModel``,
``SentenceEncoder``), the resolved device and dtype.
"""
