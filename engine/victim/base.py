"""What any victim offers, and the shared machinery most victims are built on.

:class:`Victim` is the protocol the attack search, the runs and the probes use: ``predict(pairs)``
gives one :class:`Prediction` per (premise, hypothesis) pair, ``cached(pair)`` says whether asking
costs nothing, ``counter()`` starts a per-attack :class:`QueryCounter`, and ``identity()`` says what
the victim is, for provenance. ``name`` is the location it was loaded from and ``labels`` the NLI
label of each of its outputs, in output order.

:class:`CachedVictim` implements all of that around one method, :meth:`CachedVictim.probabilities`,
which computes a batch: a new kind of victim (see :mod:`engine.victim.registry`) subclasses it.
It caches outputs per pair, computes uncached pairs in length-sorted batches of ``batch_size``, and
counts ``evaluations`` (pairs really computed) and ``forward_passes`` (the batches they took).

Queries are counted per attack by a :class:`QueryCounter`: a *query* is one distinct pair the
attack asked the victim about (the first time it asks); asking again about the same pair in the
same attack is a *cache hit*.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from engine.core.caches import Memo
from engine.core.errors import InputError
from engine.core.vocab import LABELS, NLILabel

Pair = tuple[str, str]


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
    check_labels(labels, f"--label-map {text!r}")
    return labels


def check_labels(labels: Sequence[str], where: str) -> None:
    """InputError unless ``labels`` names each NLI label once."""
    unknown = [label for label in labels if label not in LABELS]
    if len(labels) != len(LABELS) or unknown or len(set(labels)) != len(LABELS):
        raise InputError(
            f"{where}: cannot map the victim's outputs {list(labels)} to the NLI labels "
            f"{', '.join(LABELS)}; give --label-map with the three labels in output order, "
            "e.g. --label-map entailment,neutral,contradiction"
        )


def resolve_labels(id2label: dict[int, str], num_labels: int, label_map: str | None = None,
                   where: str = "config.id2label") -> tuple[str, ...]:
    """The NLI label of each model output, from ``label_map`` or else ``id2label`` (``where`` names
    that source in the error)."""
    if label_map:
        labels = parse_label_map(label_map)
        if len(labels) != num_labels:
            raise InputError(f"--label-map names {len(labels)} labels but the model has {num_labels} outputs")
        return labels
    labels = tuple(str(id2label.get(k, f"LABEL_{k}")).lower() for k in range(num_labels))
    check_labels(labels, where)
    return labels


@runtime_checkable
class Victim(Protocol):
    """What any victim must offer (see the module docstring); ``isinstance`` checks it."""

    name: str
    labels: tuple[str, ...]

    def predict(self, pairs: Sequence[Pair]) -> list[Prediction]:
        """One prediction per pair, in order (repeated pairs included)."""
        ...

    def cached(self, pair: Pair) -> bool:
        """Whether the output for ``pair`` is already known (asking for it costs no computation)."""
        ...

    def counter(self) -> QueryCounter:
        """A fresh per-attack query counter over this victim."""
        ...

    def identity(self) -> dict[str, Any]:
        """What the victim is, for provenance: ``kind``, ``location``, ``labels`` and ``model`` (a
        content hash or the model id a server reports, where one exists)."""
        ...


class QueryCounter:
    """Counts one attack's queries (distinct pairs asked) and cache hits (pairs asked again)."""

    def __init__(self, victim: Victim) -> None:
        self.victim = victim
        self.queries = 0
        self.cache_hits = 0
        self.asked: set[Pair] = set()

    def predict(self, pairs: Sequence[Pair]) -> list[Prediction]:
        for pair in pairs:
            if pair in self.asked:
                self.cache_hits += 1
            else:
                self.asked.add(pair)
                self.queries += 1
        return self.victim.predict(pairs)

    def predict_one(self, premise: str, hypothesis: str) -> Prediction:
        return self.predict([(premise, hypothesis)])[0]


class CachedVictim(ABC):
    """A victim with cached, batched, counted inference around :meth:`probabilities`.

    ``kind`` is the registry name of the victim's kind (:mod:`engine.victim.registry`); ``labels``
    the NLI label of each output column :meth:`probabilities` returns.
    """

    kind: ClassVar[str] = "custom"

    def __init__(self, name: str, labels: Sequence[str], batch_size: int = 32, cache_size: int = 200_000) -> None:
        labels = tuple(labels)
        check_labels(labels, name)
        self.name = name
        self.labels = labels
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.evaluations = 0
        self.forward_passes = 0
        self._cache: Memo[Pair, Prediction] = Memo("victim.answers", cache_size)
        # Column k of the reordered output is LABELS[k].
        self._order = [labels.index(label) for label in LABELS]

    @abstractmethod
    def probabilities(self, batch: list[Pair]) -> Sequence[Sequence[float]]:
        """One row of probabilities per pair of ``batch``, each in the order of :attr:`labels`."""

    def model_identity(self) -> str | None:
        """What identifies the model behind the victim (a content hash, a served model's id), or None."""
        return None

    def identity(self) -> dict[str, Any]:
        return {"kind": self.kind, "location": self.name, "labels": list(self.labels), "model": self.model_identity()}

    def predict(self, pairs: Sequence[Pair]) -> list[Prediction]:
        """Predictions for (premise, hypothesis) pairs; uncached ones run in length-sorted batches."""
        todo = sorted(self._cache.missing(pairs), key=lambda pair: len(pair[0]) + len(pair[1]))
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start:start + self.batch_size]
            rows = self.probabilities(batch)
            self.evaluations += len(batch)
            self.forward_passes += 1
            for pair, row in zip(batch, rows):
                probs = (float(row[self._order[0]]), float(row[self._order[1]]), float(row[self._order[2]]))
                self._remember(pair, Prediction(pair[0], pair[1], probs))
        return [self._cache[pair] for pair in pairs]

    def cached(self, pair: Pair) -> bool:
        return pair in self._cache

    def counter(self) -> QueryCounter:
        return QueryCounter(self)

    def _remember(self, pair: Pair, prediction: Prediction) -> None:
        self._cache.put(pair, prediction)
