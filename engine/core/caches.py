"""The process's caches, by name, with how often each was hit.

Every memo the pipeline keeps lives for the whole process, bounded (least recently used first
out), and is shared by every round, pair and run the process attacks: LM scores and continuations
keyed by text, parses, WordNet walks, sense choices, the estimate's features, the victim's answers.
Each registers here under a dotted name, either as a :class:`Memo` or as a function cached with
:func:`functools.lru_cache` (:func:`register_function`), so that :func:`counts` can snapshot them
all and :func:`since` say what one stretch of work (a round, an attack, a run) hit and missed. The
attack's trace keeps that per round, and ``bench/speed.py`` prints the hit rates of a run.

In: lookups. Out: values, and :class:`CacheCounts` per cache name.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["CacheCounts", "Memo", "counts", "hit_rates", "register_function", "since"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True)
class CacheCounts:
    """Lookups of one cache: ``hits`` answered from it, ``misses`` computed (and then kept)."""

    hits: int = 0
    misses: int = 0

    @property
    def lookups(self) -> int:
        return self.hits + self.misses

    @property
    def hit_rate(self) -> float | None:
        return self.hits / self.lookups if self.lookups else None

    def __add__(self, other: CacheCounts) -> CacheCounts:
        return CacheCounts(self.hits + other.hits, self.misses + other.misses)

    def __sub__(self, other: CacheCounts) -> CacheCounts:
        return CacheCounts(self.hits - other.hits, self.misses - other.misses)


class _Info(Protocol):
    hits: int
    misses: int


class _Tally:
    """The lookups of every :class:`Memo` of one name, for the life of the process."""

    def __init__(self) -> None:
        self.hits = self.misses = 0


class Memo(Generic[K, V]):
    """A bounded map from keys to computed values, least recently used out first, counting its hits
    and misses under ``name`` (instances that share a name are counted together, also after they
    are gone)."""

    def __init__(self, name: str, size: int) -> None:
        if size < 1:
            raise ValueError(f"cache {name!r}: size must be at least 1, not {size}")
        self.name, self.size = name, size
        self._tally = _TALLIES.setdefault(name, _Tally())
        self._values: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` is kept (not counted as a lookup)."""
        return key in self._values

    def missing(self, keys: Iterable[K]) -> list[K]:
        """The distinct ``keys`` not kept, in their first order; each key looked up counts once, as a
        hit or a miss."""
        out: list[K] = []
        for key in dict.fromkeys(keys):
            if key in self._values:
                self._tally.hits += 1
            else:
                self._tally.misses += 1
                out.append(key)
        return out

    def put(self, key: K, value: V) -> None:
        self._values[key] = value
        self._values.move_to_end(key)
        while len(self._values) > self.size:
            self._values.popitem(last=False)

    def __getitem__(self, key: K) -> V:
        """The kept value (a KeyError when it is not kept); marks it recently used, not counted."""
        self._values.move_to_end(key)
        return self._values[key]

    def get_or(self, key: K, compute: Callable[[], V]) -> V:
        """The kept value, or ``compute()`` kept and returned (one counted lookup)."""
        if key in self._values:
            self._tally.hits += 1
            self._values.move_to_end(key)
            return self._values[key]
        self._tally.misses += 1
        value = compute()
        self.put(key, value)
        return value

    def clear(self) -> None:
        self._values.clear()


_TALLIES: dict[str, _Tally] = {}
_FUNCTIONS: dict[str, Callable[[], _Info]] = {}


def register_function(name: str, function: Any) -> None:
    """Count ``function`` (wrapped by :func:`functools.lru_cache`) as the cache ``name``."""
    _FUNCTIONS[name] = function.cache_info


def counts() -> dict[str, CacheCounts]:
    """Every registered cache's lookups so far in this process, by name (sorted)."""
    out = {name: CacheCounts(tally.hits, tally.misses) for name, tally in _TALLIES.items()}
    for name, info in _FUNCTIONS.items():
        got = info()
        out[name] = out.get(name, CacheCounts()) + CacheCounts(got.hits, got.misses)
    return dict(sorted(out.items()))


def since(before: Mapping[str, CacheCounts]) -> dict[str, CacheCounts]:
    """The lookups since the snapshot ``before`` (from :func:`counts`), caches looked up at all only."""
    now = counts()
    diff = {name: value - before.get(name, CacheCounts()) for name, value in now.items()}
    return {name: value for name, value in diff.items() if value.lookups > 0}


def hit_rates(per_cache: Mapping[str, CacheCounts]) -> dict[str, dict[str, float | int | None]]:
    """``{name: {"hits", "misses", "hit_rate"}}``, as the trace and the benchmarks print them."""
    return {name: {"hits": c.hits, "misses": c.misses,
                   "hit_rate": round(c.hit_rate, 3) if c.hit_rate is not None else None}
            for name, c in per_cache.items()}
