"""Shared foundations: user-facing errors, the small vocabularies every layer shares (NLI labels,
attack statuses), the negation word lists, morphology (lemmas and inflections), the settings, the
offline resources and the WordNet reader, and the one ``Registry[T]`` every pluggable part is
registered in.

In: configuration (defaults, ``natlog.toml``, environment). Out: ``Settings``, located resources,
registries. Imports nothing else of the engine.
"""
