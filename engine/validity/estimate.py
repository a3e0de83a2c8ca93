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

A second fitted file, ``engine/validity/natural.json`` (``bench/validity_estimator.py --target
natural``), estimates "valid and natural": the target label, and English a native speaker could
have written (the ``ok`` of the blind labels). With it (``settings.natural_estimate``, shipped by
default) the same order uses the natural estimate instead, and candidates estimated under
``natural_floor`` are asked after the round's others: natural candidates first, the unnatural
(double negations, rare hyponyms) as the last resort.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core.errors import InputError
from engine.core.settings import PROJECT_ROOT, Settings, SettingsError
from engine.validity.features import FeatureExtractor, ValidityInput

if TYPE_CHECKING:
    from engine.edits.records import Candidate
    from engine.models.language import SentenceEncoder
    from engine.ranking.scoring import CausalLMScorer

SHIPPED = PROJECT_ROOT / "engine" / "validity" / "estimator.json"
#: The shipped estimate of "valid and natural" (the target label, and ``ok`` English): it orders rounds.
NATURAL = PROJECT_ROOT / "engine" / "validity" / "natural.json"


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

    def logits(self, row: Sequence[float], leave_out: frozenset[int] = frozenset()) -> list[float]:
        """Each feature's contribution to the log-odds; the columns in ``leave_out`` contribute 0 (the
        feature at its fitted mean: what the estimate says without it)."""
        return [0.0 if k in leave_out else c * (x - m) / s
                for k, (x, m, s, c) in enumerate(zip(row, self.mean, self.scale, self.coef))]

    def estimate(self, row: Sequence[float], leave_out: frozenset[int] = frozenset()) -> ValidityEstimate:
        parts = self.logits(row, leave_out)
        z = self.intercept + sum(parts)
        p = 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))
        reasons = tuple(sorted(((n, v) for n, v in zip(self.features, parts) if abs(v) >= 0.01),
                               key=lambda item: -abs(item[1])))
        return ValidityEstimate(p, reasons)


def estimate_path(settings: Settings) -> Path | None:
    """The estimate file ``settings.validity_estimate`` names: ``shipped``, ``none`` (no gate) or a path."""
    return _named_path(settings.validity_estimate, SHIPPED)


def natural_path(settings: Settings) -> Path | None:
    """The file ``settings.natural_estimate`` names: ``shipped`` (:data:`NATURAL`), ``none`` (the
    validity estimate orders rounds) or a path; None too without a validity gate."""
    return None if estimate_path(settings) is None else _named_path(settings.natural_estimate, NATURAL)


def _named_path(name: str, shipped: Path) -> Path | None:
    name = name.strip()
    if name == "none":
        return None
    if name == "shipped":
        return shipped
    path = Path(name).expanduser()
    return path if path.is_absolute() else PROJECT_ROOT / path


@lru_cache(maxsize=4)
def _load(path: Path) -> ValidityModel:
    return ValidityModel.load(path)


def load_model(settings: Settings) -> ValidityModel | None:
    path = estimate_path(settings)
    return None if path is None else _load(path)


def load_natural(settings: Settings) -> ValidityModel | None:
    """The natural estimate ``settings.natural_estimate`` names (None: ``none``, or no gate)."""
    path = natural_path(settings)
    return None if path is None else _load(path)


class ValidityEstimator:
    """Estimates for (P, H, H*) batches: the fitted model over the feature extractor, and with a
    ``natural`` model, the estimate of "valid and natural" from the same feature rows."""

    def __init__(self, model: ValidityModel, extractor: FeatureExtractor,
                 natural: ValidityModel | None = None) -> None:
        for fitted in (model, natural):
            missing = [f for f in fitted.features if f not in extractor.names] if fitted is not None else []
            if missing:
                raise SettingsError(f"the validity estimate uses features this engine does not compute: "
                                    f"{', '.join(missing[:5])}")
        self.model, self.extractor, self.natural = model, extractor, natural
        self._columns = [extractor.names.index(f) for f in model.features]
        self._natural_columns = [extractor.names.index(f) for f in natural.features] if natural is not None else []
        # The columns a cheap estimate leaves out, in each model's own feature order.
        self._costly = extractor.costly_columns(model.features)
        self._natural_costly = extractor.costly_columns(natural.features) if natural is not None else frozenset()

    @classmethod
    def build(cls, settings: Settings, scorer: CausalLMScorer, encoder: SentenceEncoder) -> "ValidityEstimator | None":
        """The estimator ``settings.validity_estimate`` names (None when ``none``), with the natural
        estimate ``settings.natural_estimate`` names."""
        from engine.edits.operators import registered_operators

        model = load_model(settings)
        if model is None:
            return None
        natural = load_natural(settings)
        wanted = set(model.features) | set(natural.features if natural is not None else ())
        return cls(model, FeatureExtractor([op.name for op in registered_operators()], scorer, encoder, settings,
                                           wanted=wanted), natural)

    def without_natural(self) -> "ValidityEstimator":
        """The same estimator with no natural estimate (the validity estimate orders rounds)."""
        return self if self.natural is None else ValidityEstimator(self.model, self.extractor)

    def estimate(self, items: Sequence[ValidityInput]) -> list[ValidityEstimate]:
        return [valid for valid, _ in self.estimate_both(items)]

    def estimate_both(self, items: Sequence[ValidityInput],
                      cheap: bool = False) -> list[tuple[ValidityEstimate, ValidityEstimate | None]]:
        """Each item's validity estimate and natural estimate (None without a natural model), from
        one feature row per item. ``cheap`` leaves out the features that cost a model pass per
        candidate (the sentence encoder, the per-candidate LM terms; each at its fitted mean): the
        lazy round's first order, a few milliseconds a candidate less."""
        rows = self.extractor.extract(items, cheap=cheap)
        natural = self.natural
        skip, natural_skip = (self._costly, self._natural_costly) if cheap else (frozenset(), frozenset())
        return [(self.model.estimate([row[k] for k in self._columns], skip),
                 natural.estimate([row[k] for k in self._natural_columns], natural_skip) if natural is not None else None)
                for row in rows]


@dataclass(frozen=True)
class Gated:
    """The candidates a gate kept (reordered, each with ``validity`` and, with a natural estimate,
    ``naturalness`` set) and how many it dropped, by operator; ``estimates`` holds every candidate's
    estimate by text, kept or not."""

    kept: list[Candidate]
    dropped: int
    by_operator: dict[str, int]
    estimates: dict[str, ValidityEstimate]
    #: each kept candidate's place in the order, by text (lower is asked first; :meth:`ValidityGate.apply`)
    keys: dict[str, float] = field(default_factory=dict)


class ValidityGate:
    """Drops candidates under ``min_validity`` and orders the rest by fluency weighed against the
    estimate that orders (the natural estimate when there is one, else validity); candidates whose
    natural estimate is under ``natural_floor`` come after every other (:meth:`last_resort`)."""

    name = "validity"

    def __init__(self, estimator: ValidityEstimator, min_validity: float, weight: float,
                 natural_floor: float = 0.0) -> None:
        if not 0.0 <= min_validity < 1.0:
            raise InputError(f"min_validity must be in [0, 1), not {min_validity}")
        if not 0.0 <= natural_floor < 1.0:
            raise InputError(f"natural_floor must be in [0, 1), not {natural_floor}")
        self.estimator, self.min_validity, self.weight = estimator, min_validity, weight
        self.natural_floor = natural_floor if estimator.natural is not None else 0.0

    @classmethod
    def build(cls, settings: Settings, scorer: CausalLMScorer, encoder: SentenceEncoder) -> "ValidityGate | None":
        estimator = ValidityEstimator.build(settings, scorer, encoder)
        return None if estimator is None else cls(estimator, settings.min_validity, settings.validity_weight,
                                                  settings.natural_floor)

    def last_resort(self, candidate: Candidate) -> bool:
        """Whether a kept candidate is asked only after the round's others: its natural estimate is
        under ``natural_floor``."""
        return candidate.naturalness is not None and candidate.naturalness < self.natural_floor

    def apply(self, ranked: Sequence[Candidate], *, premise: str, hypothesis: str, target: str,
              operators_so_far: Sequence[str] = ()) -> Gated:
        """Estimate each ranked candidate (H* from the original H through ``operators_so_far`` and
        its own operator), drop those under the threshold, and order the rest."""
        if not ranked:
            return Gated([], 0, {}, {})
        edits = len(operators_so_far) + 1
        items = [ValidityInput(premise, hypothesis, c.text, (*operators_so_far, c.operator), target, edits)
                 for c in ranked]
        both = self.estimator.estimate_both(items)
        kept: list[tuple[float, int, Candidate]] = []
        by_operator: dict[str, int] = {}
        for k, (c, (e, n)) in enumerate(zip(ranked, both)):
            if e.probability < self.min_validity:
                by_operator[c.operator] = by_operator.get(c.operator, 0) + 1
                continue
            fluency = math.log(max(c.score, 1e-9)) if c.score is not None else 0.0
            orders = n if n is not None else e
            kept.append((fluency - self.weight * math.log(max(orders.probability, 1e-9)), k,
                         replace(c, validity=round(e.probability, 4),
                                 naturalness=round(n.probability, 4) if n is not None else None)))
        kept.sort(key=lambda item: (item[0], item[1]))
        return Gated([c for _, _, c in kept], len(ranked) - len(kept), dict(sorted(by_operator.items())),
                     {c.text: e for c, (e, _) in zip(ranked, both)}, {c.text: key for key, _, c in kept})

    def first_order(self, candidates: Sequence[Candidate], *, premise: str, hypothesis: str, target: str,
                    operators_so_far: Sequence[str] = ()) -> list[tuple[float, bool]]:
        """Each candidate's place in a lazy round's first order, with no model pass per candidate:
        ``-validity_weight * log(estimate)`` from the estimate without its costly features (the
        natural estimate when there is one), and whether that estimate puts it under ``natural_floor``."""
        if not candidates:
            return []
        edits = len(operators_so_far) + 1
        items = [ValidityInput(premise, hypothesis, c.text, (*operators_so_far, c.operator), target, edits)
                 for c in candidates]
        out = []
        for e, n in self.estimator.estimate_both(items, cheap=True):
            orders = n if n is not None else e
            out.append((-self.weight * math.log(max(orders.probability, 1e-9)),
                        n is not None and n.probability < self.natural_floor))
        return out
