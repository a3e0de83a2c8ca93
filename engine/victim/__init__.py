"""The victim NLI model: the :class:`~engine.victim.base.Victim` protocol and its registered kinds
(any Hugging Face classifier, a classifier served over HTTP), counting queries, and training the
offline victim.

In: (premise, hypothesis) batches, a victim spec. Out: label probabilities, the victim's identity,
a trained model folder.
"""
