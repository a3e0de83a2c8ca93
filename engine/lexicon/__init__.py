"""Words: WordNet relatives as MacCartney relations, word senses in context, inflection (lemmas and
forms are :mod:`engine.core.morphology`'s), and the inventory of insertable modifiers.

In: a lemma and its part of speech (and its sentence, for senses). Out: ``LexicalRelative`` records,
inflected forms, ranked senses.
"""
