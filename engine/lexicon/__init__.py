"""Words: WordNet relatives as MacCartney relations, word senses in context, morphology and
inflection, and the inventory of insertable modifiers.

In: a lemma and its part of speech (and its sentence, for senses). Out: ``LexicalRelative`` records,
inflected forms, ranked senses.
"""
