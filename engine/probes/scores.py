"""Scores shared by the probe suites (no model imports: the suites' reports use them too)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence


def weighted_f1(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """F1 per label averaged with the label's share of ``gold`` as weight (scikit-learn's 'weighted')."""
    if not gold:
        return 0.0
    total = 0.0
    support = Counter(gold)
    for label, count in support.items():
        tp = sum(g == p == label for g, p in zip(gold, predicted))
        predicted_count = sum(p == label for p in predicted)
        precision = tp / predicted_count if predicted_count else 0.0
        recall = tp / count
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        total += f1 * count
    return total / len(gold)
