"""The victim: an NLI sequence-classification model, queried in batches and counted honestly.

A :class:`Victim` wraps any Hugging Face ``AutoModelForSequenceClassification`` with three
labels. Its output order comes from ``config.id2label``; models that only say ``LABEL_0..2``
need an explicit label map, and a model whose labels cannot be mapped is refused when it is
loaded, before any query. Outputs are cached per (premise, hypothesis).

Queries are counted per attack by a :class:`QueryCounter`: a *query* is one distinct pair the
attack asked the model about (the first time it asks); asking again about the same pair in the
same attack is a *cache hit*. ``Victim.evaluations`` counts pairs the model really computed and
``Victim.forward_passes`` the batches they took.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import torch

from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.core.settings import DEFAULT_SETTINGS, Settings
from engine.core.vocab import LABELS, NLILabel
from engine.ranking.models import model_dtype, resolve_device

OFFLINE_VICTIM_DIR = "victim-offline"
MAX_TOKENS = 256


@dataclass(frozen=True)
class Prediction:
    """The victim's output for one pair: probabilities in :data:`LABELS` order."""

    premise: str
    hypothesis: str
    probs: tuple[float, float, float]

    @property
    def label(self) -> NLILabel:
        return LABELS[max(range(len(LABELS)), key=lambda k: self.probs[k])]

    def prob(self, label: str) -> float:
        return self.probs[LABELS.index(label)]

    def to_json(self) -> dict[str, object]:
        return {"label": self.label, "probs": dict(zip(LABELS, self.probs))}


def parse_label_map(text: str) -> tuple[str, ...]:
    """Read ``--label-map``: ``entailment,neutral,contradiction`` (index order) or ``0=...,1=...``."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if all("=" in item for item in items):
        pairs = [item.split("=", 1) for item in items]
        try:
            mapping = {int(k.strip().removeprefix("LABEL_")): v.strip() for k, v in pairs}
        except ValueError as exc:
            raise InputError(f"--label-map {text!r}: keys must be output indices (0, 1, 2 or LABEL_0..)") from exc
        if sorted(mapping) != list(range(len(mapping))):
            raise InputError(f"--label-map {text!r}: indices must be 0..{len(mapping) - 1}")
        items = [mapping[k] for k in range(len(mapping))]
    labels = tuple(item.lower() for item in items)
    _check_labels(labels, f"--label-map {text!r}")
    return labels


def _check_labels(labels: Sequence[str], where: str) -> None:
    unknown = [label for label in labels if label not in LABELS]
    if len(labels) != len(LABELS) or unknown or len(set(labels)) != len(LABELS):
        raise InputError(
            f"{where}: cannot map the victim's outputs {list(labels)} to the NLI labels "
            f"{', '.join(LABELS)}; give --label-map with the three labels in output order, "
            "e.g. --label-map entailment,neutral,contradiction"
        )


def resolve_labels(id2label: dict[int, str], num_labels: int, label_map: str | None = None) -> tuple[str, ...]:
    """The NLI label of each model output, from ``label_map`` or else ``config.id2label``."""
    if label_map:
        labels = parse_label_map(label_map)
        if len(labels) != num_labels:
            raise InputError(f"--label-map names {len(labels)} labels but the model has {num_labels} outputs")
        return labels
    labels = tuple(str(id2label.get(k, f"LABEL_{k}")).lower() for k in range(num_labels))
    _check_labels(labels, "config.id2label")
    return labels


class Victim:
    """A three-way NLI classifier with batched, dynamically padded, cached inference."""

    def __init__(
        self, model, tokenizer, labels: tuple[str, ...], name: str,
        device: torch.device | None = None, batch_size: int = 32, cache_size: int = 200_000,
    ) -> None:
        _check_labels(labels, name)
        self.name = name
        self.labels = labels
        self.device = device or torch.device("cpu")
        self.model = model.to(self.device, dtype=model_dtype(self.device)).eval()
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.evaluations = 0
        self.forward_passes = 0
        self._cache: OrderedDict[tuple[str, str], Prediction] = OrderedDict()
        # Column k of the reordered output is LABELS[k].
        self._order = [labels.index(label) for label in LABELS]

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[Prediction]:
        """Predictions for (premise, hypothesis) pairs; uncached ones run in length-sorted batches."""
        todo = list(dict.fromkeys(pair for pair in pairs if pair not in self._cache))
        todo.sort(key=lambda pair: len(pair[0]) + len(pair[1]))
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start:start + self.batch_size]
            for pair, probs in zip(batch, self._forward(batch)):
                self._remember(pair, Prediction(pair[0], pair[1], probs))
        out = []
        for pair in pairs:
            self._cache.move_to_end(pair)
            out.append(self._cache[pair])
        return out

    def cached(self, pair: tuple[str, str]) -> bool:
        """Whether the output for ``pair`` is already known (asking for it costs no computation)."""
        return pair in self._cache

    def counter(self) -> "QueryCounter":
        """A fresh per-attack query counter over this victim."""
        return QueryCounter(self)

    @torch.inference_mode()
    def _forward(self, batch: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        encoded = self.tokenizer(
            [p for p, _ in batch], [h for _, h in batch], padding=True, truncation=True,
            max_length=MAX_TOKENS, return_tensors="pt",
        ).to(self.device)
        logits = self.model(**encoded).logits.float()
        probs = torch.softmax(logits, dim=-1)[:, self._order].cpu().tolist()
        self.evaluations += len(batch)
        self.forward_passes += 1
        return [tuple(row) for row in probs]

    def _remember(self, pair: tuple[str, str], prediction: Prediction) -> None:
        self._cache[pair] = prediction
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)


class QueryCounter:
    """Counts one attack's queries (distinct pairs asked) and cache hits (pairs asked again)."""

    def __init__(self, victim: Victim) -> None:
        self.victim = victim
        self.queries = 0
        self.cache_hits = 0
        self.asked: set[tuple[str, str]] = set()

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[Prediction]:
        for pair in pairs:
            if pair in self.asked:
                self.cache_hits += 1
            else:
                self.asked.add(pair)
                self.queries += 1
        return self.victim.predict(pairs)

    def predict_one(self, premise: str, hypothesis: str) -> Prediction:
        return self.predict([(premise, hypothesis)])[0]


def offline_victim_dir(settings: Settings) -> Path:
    """Where ``train-victim`` keeps the offline default victim."""
    return settings.models_dir / OFFLINE_VICTIM_DIR


def victim_location(name: str, settings: Settings) -> str:
    """A loadable location for ``name``: ``offline``, a local folder, or a hub id."""
    if name == "offline":
        folder = offline_victim_dir(settings)
        if not (folder / "config.json").is_file():
            raise ResourceError(
                f"the offline victim is not trained yet ({folder}): run `python -m engine train-victim`"
            )
        return str(folder)
    path = Path(name).expanduser()
    if path.exists():
        if not (path / "config.json").is_file():
            raise InputError(f"{path}: not a model folder (no config.json)")
        return str(path.resolve())
    return name


def victim_labels(location: str, label_map: str | None = None) -> tuple[str, ...]:
    """The NLI label of each output of the model at ``location``, read from its config alone
    (no weights are loaded); unmappable labels are an InputError."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(location, local_files_only=True)  # a folder, or the hub's cache
    except OSError:
        if not hub_reachable():  # fail in seconds, not after the hub client's retries
            raise ResourceError(
                f"cannot load victim {location!r}: not a local model folder, not in the Hugging Face cache, and "
                "the Hub cannot be reached from here; give a model folder, or 'offline' (python -m engine "
                "train-victim)") from None
        try:
            config = AutoConfig.from_pretrained(location)
        except OSError as exc:
            raise ResourceError(
                f"cannot load victim {location!r}: not a local model folder, and the Hugging Face Hub "
                f"could not provide it ({str(exc).splitlines()[0]})"
            ) from exc
    return resolve_labels(dict(config.id2label or {}), int(config.num_labels), label_map)


def hub_reachable(timeout_s: float = 3.0) -> bool:
    """Whether the Hugging Face Hub's host answers a TCP connection within ``timeout_s`` (False at
    once when ``HF_HUB_OFFLINE`` is set)."""
    import socket
    from urllib.parse import urlsplit

    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return False
    parts = urlsplit(constants.ENDPOINT)
    try:
        with socket.create_connection((parts.hostname or "", parts.port or 443), timeout=timeout_s):
            return True
    except OSError:
        return False


@lru_cache(maxsize=4)
def _load(location: str, label_map: str | None, device: str) -> Victim:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    labels = victim_labels(location, label_map)
    model = AutoModelForSequenceClassification.from_pretrained(location)
    tokenizer = AutoTokenizer.from_pretrained(location)
    return Victim(model, tokenizer, labels, name=location, device=torch.device(device))


def load_victim(name: str | None = None, label_map: str | None = None, settings: Settings | None = None) -> Victim:
    """The cached victim for ``name`` (default ``settings.victim``); unmappable labels are refused."""
    settings = settings or DEFAULT_SETTINGS
    location = victim_location(name or settings.victim, settings)
    return _load(location, label_map or None, str(resolve_device(settings)))
