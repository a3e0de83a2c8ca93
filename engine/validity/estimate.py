"""A calibrated probability that a candidate H* is valid, before the victim is asked.

"Valid" is what the blind judges decide: (P, H*) carries the setup's target label and H* is not
broken English. The estimate is a logistic regression over :mod:`engine.validity.features`,
fitted on the blind labels by ``bench/validity_estimator.py fit`` and shipped as a small JSON file
(``engine/validity/estimator.json``: the feature names, their standardisation, the coefficients,
and what it was fitted on with its cross-validated AUC and calibration). Nothing here imports
scikit-learn: the engine reads the numbers.

:class:`ValidityGate` is what the search does with it: candidates whose estimate is under
``min_validity`` are not asked, and the rest are ordered by
``log(perplexity) - validity_weight * log(estimate)`` (fluency first, weighed against validity).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core.errors import InputError
from engine.core.settings import DEFAULT_SETTINGS, PROJECT_ROOT, Settings, SettingsError
from engine.validity.features import FeatureExtractor, ValidityInput

if TYPE_CHECKING:
    from engine.edits.records import Candidate
    from engine.ranking.models import SentenceEncoder
    from engine.ranking.scoring import CausalLMScorer

SHIPPED = PROJECT_ROOT / "engine" / "validity" / "estimator.json"


@dataclass(frozen=True)
class ValidityEstimate:
    """A probability of validity and the features that moved it most (name, contribution in logits)."""

    probability: float
    reasons: tuple[tuple[str, float], ...]

    def explain(self, n: int = 3) -> str:
        """The ``n`` strongest contributions in words, e.g. ``op:SentenceNegation +0.41, lm_delta -0.30``."""
        return ", ".join(f"{name} {value:+.2f}" for name, value in self.reasons[:n])


@dataclass(frozen=True)
class ValidityModel:
    """The fitted numbers (see the module docstring); ``meta`` says what it was fitted on."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    meta: dict[str, Any]
    digest: str

    @classmethod
    def load(cls, path: Path) -> "ValidityModel":
        try:
            raw = path.read_bytes()
            data = json.loads(raw)
            features = tuple(str(f) for f in data["features"])
            model = cls(features, tuple(map(float, data["mean"])), tuple(map(float, data["scale"])),
                        tuple(map(float, data["coef"])), float(data["intercept"]), dict(data.get("meta", {})),
                        "sha256:" + hashlib.sha256(raw).hexdigest()[:16])
        except FileNotFoundError:
            raise SettingsError(f"validity estimate {path} does not exist (python bench/validity_estimator.py fit)") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SettingsError(f"validity estimate {path} is not a fitted estimate file ({exc})") from None
        if not len(features) == len(model.mean) == len(model.scale) == len(model.coef):
            raise SettingsError(f"validity estimate {path}: features, mean, scale and coef differ in length")
        return model

    def logits(self, row: Sequence[float]) -> list[float]:
        """Each feature's contribution to the log-odds."""
        return [c * (x - m) / s for x, m, s, c in zip(row, self.mean, self.scale, self.coef)]

    def estimate(self, row: Sequence[float]) -> ValidityEstimate:
        parts = self.logits(row)
        z = self.intercept + sum(parts)
        p = 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))
        reasons = tuple(sorted(((n, v) for n, v in zip(self.features, parts) if abs(v) >= 0.01),
                               key=lambda item: -abs(item[1])))
        return ValidityEstimate(p, reasons)


def estimate_path(settings: Settings) -> Path | None:
    """The estimate file ``settings.validity_estimate`` names: ``shipped``, ``none`` (no gate) or a path."""
    name = settings.validity_estimate.strip()
    if name == "none":
        return None
    if name == "shipped":
        return SHIPPED
    path = Path(name).expanduser()
    return path if path.is_absolute() else PROJECT_ROOT / path


@lru_cache(maxsize=4)
def _load(path: Path) -> ValidityModel:
    return ValidityModel.load(path)


def load_model(settings: Settings | None = None) -> ValidityModel | None:
    path = estimate_path(settings or DEFAULT_SETTINGS)
    return None if path is None else _load(path)


class ValidityEstimator:
    """Estimates for (P, H, H*) batches: the fitted model over the feature extractor."""

    def __init__(self, model: ValidityModel, extractor: FeatureExtractor) -> None:
        missing = [f for f in model.features if f not in extractor.names]
        if missing:
            raise SettingsError(f"the validity estimate uses features this engine does not compute: {', '.join(missing[:5])}")
        self.model, self.extractor = model, extractor
        self._columns = [extractor.names.index(f) for f in model.features]

    @classmethod
    def build(cls, settings: Settings, scorer: CausalLMScorer, encoder: SentenceEncoder) -> "ValidityEstimator | None":
        """The estimator ``settings.validity_estimate`` names (None when ``none``)."""
        from engine.edits.operators import registered_operators

        model = load_model(settings)
        if model is None:
            return None
        return cls(model, FeatureExtractor([op.name for op in registered_operators()], scorer, encoder, settings,
                                           wanted=model.features))

    def estimate(self, items: Sequence[ValidityInput]) -> list[ValidityEstimate]:
        rows = self.extractor.extract(items)
        return [self.model.estimate([row[k] for k in self._columns]) for row in rows]


@dataclass(frozen=True)
class Gated:
    """The candidates a gate kept (reordered, each with ``validity`` set) and how many it dropped,
    by operator; ``estimates`` holds every candidate's estimate by text, kept or not."""

    kept: list[Candidate]
    dropped: int
    by_operator: dict[str, int]
    estimates: dict[str, ValidityEstimate]


class ValidityGate:
    """Drops candidates under ``min_validity`` and orders the rest by fluency weighed against validity."""

    name = "validity"

    def __init__(self, estimator: ValidityEstimator, min_validity: float, weight: float) -> None:
        if not 0.0 <= min_validity < 1.0:
            raise InputError(f"min_validity must be in [0, 1), not {min_validity}")
        self.estimator, self.min_validity, self.weight = estimator, min_validity, weight

    @classmethod
    def build(cls, settings: Settings, scorer: CausalLMScorer, encoder: SentenceEncoder) -> "ValidityGate | None":
        estimator = ValidityEstimator.build(settings, scorer, encoder)
        return None if estimator is None else cls(estimator, settings.min_validity, settings.validity_weight)

    def apply(self, ranked: Sequence[Candidate], *, premise: str, hypothesis: str, target: str,
              operators_so_far: Sequence[str] = ()) -> Gated:
        """Estimate each ranked candidate (H* from the original H through ``operators_so_far`` and
        its own operator), drop those under the threshold, and order the rest."""
        if not ranked:
            return Gated([], 0, {}, {})
        edits = len(operators_so_far) + 1
        items = [ValidityInput(premise, hypothesis, c.text, (*operators_so_far, c.operator), target, edits)
                 for c in ranked]
        estimates = self.estimator.estimate(items)
        kept: list[tuple[float, int, Candidate]] = []
        by_operator: dict[str, int] = {}
        for k, (c, e) in enumerate(zip(ranked, estimates)):
            if e.probability < self.min_validity:
                by_operator[c.operator] = by_operator.get(c.operator, 0) + 1
                continue
            fluency = math.log(max(c.score, 1e-9)) if c.score is not None else 0.0
            kept.append((fluency - self.weight * math.log(max(e.probability, 1e-9)), k,
                         replace(c, validity=round(e.probability, 4))))
        kept.sort(key=lambda item: (item[0], item[1]))
        return Gated([c for _, _, c in kept], len(ranked) - len(kept), dict(sorted(by_operator.items())),
                     {c.text: e for c, e in zip(ranked, estimates)})
