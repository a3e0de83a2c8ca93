"""A hypothesis-only baseline for any probe suite: does the hypothesis alone give the label away?

A multinomial naive Bayes classifier (numpy, add-one smoothing) over the unigrams and bigrams of
the hypothesis is trained on one set of items and scored on another (for a generated suite, two
seeds' generations). Accuracy well above the majority-class rate means a surface cue: a model
could score on the suite without reading the premise.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.core.errors import InputError
from engine.core.vocab import LABELS
from engine.probes.record import ProbeItem

_WORD = re.compile(r"[a-z']+")


def features(text: str) -> list[str]:
    """The lower-cased unigrams and bigrams of ``text``."""
    words = _WORD.findall(text.lower())
    return words + [f"{first} {second}" for first, second in zip(words, words[1:])]


def _counts(items: Sequence[ProbeItem], vocabulary: dict[str, int]) -> np.ndarray:
    """Item × feature count matrix over ``vocabulary`` (features outside it are dropped)."""
    matrix = np.zeros((len(items), len(vocabulary)))
    for row, item in enumerate(items):
        for feature in features(item.hypothesis):
            column = vocabulary.get(feature)
            if column is not None:
                matrix[row, column] += 1
    return matrix


def train_naive_bayes(items: Sequence[ProbeItem]) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """(vocabulary, log class priors, log feature probabilities per class in LABELS order)."""
    vocabulary = {feature: k for k, feature in enumerate(sorted({f for item in items for f in features(item.hypothesis)}))}
    counts = _counts(items, vocabulary)
    labels = np.array([LABELS.index(item.label) for item in items])
    class_counts = np.bincount(labels, minlength=len(LABELS))
    priors = np.log((class_counts + 1) / (len(items) + len(LABELS)))
    per_class = np.stack([counts[labels == k].sum(axis=0) for k in range(len(LABELS))]) + 1
    likelihoods = np.log(per_class / per_class.sum(axis=1, keepdims=True))
    return vocabulary, priors, likelihoods


def hypothesis_only_baseline(train_items: Sequence[ProbeItem], test_items: Sequence[ProbeItem]) -> dict[str, Any]:
    """Train on ``train_items``' hypotheses, score on ``test_items``: the accuracy, and that of
    always answering the training set's most frequent label (the bar a cue-free set keeps it near)."""
    if not train_items or not test_items:
        raise InputError("the hypothesis-only baseline needs training and test items")
    vocabulary, priors, likelihoods = train_naive_bayes(train_items)
    scores = _counts(test_items, vocabulary) @ likelihoods.T + priors
    predicted = [LABELS[k] for k in scores.argmax(axis=1)]
    majority = Counter(item.label for item in train_items).most_common(1)[0][0]
    return {
        "accuracy": float(np.mean([guess == item.label for guess, item in zip(predicted, test_items)])),
        "majority_label": majority,
        "majority_accuracy": float(np.mean([item.label == majority for item in test_items])),
        "n_train": len(train_items),
        "n_test": len(test_items),
        "vocabulary": len(vocabulary),
    }
