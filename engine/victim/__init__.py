"""The victim NLI model: loading any Hugging Face classifier, counting queries, and training the
offline victim.

In: (premise, hypothesis) batches. Out: label probabilities, a trained model folder.
"""
