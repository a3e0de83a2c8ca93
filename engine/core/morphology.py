"""Memoised lemminflect look-ups: inflections and lemmas of English words.

lemminflect deep-copies its tables on every call, and an attack asks about the same few hundred
words round after round (re-inflecting substitutes, the parse repair's verb checks, WordNet
filters). These wrappers answer each question once per process with lemminflect's own answer,
as tuples and read-only mappings so that no caller can change a shared result.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

import lemminflect

from engine.core.caches import register_function

_SIZE = 100_000


@lru_cache(maxsize=_SIZE)
def inflections(lemma: str, tag: str) -> tuple[str, ...]:
    """``lemma`` inflected for the Penn ``tag`` (lemminflect's ``getInflection``; may be empty)."""
    return tuple(lemminflect.getInflection(lemma, tag=tag))


@lru_cache(maxsize=_SIZE)
def all_inflections(lemma: str, upos: str | None = None) -> Mapping[str, tuple[str, ...]]:
    """Every inflection of ``lemma`` by Penn tag (``getAllInflections``)."""
    return MappingProxyType({tag: tuple(forms) for tag, forms in lemminflect.getAllInflections(lemma, upos=upos).items()})


@lru_cache(maxsize=_SIZE)
def all_lemmas(word: str, upos: str | None = None) -> Mapping[str, tuple[str, ...]]:
    """Every lemma of ``word`` by universal POS (``getAllLemmas``)."""
    return MappingProxyType({pos: tuple(forms) for pos, forms in lemminflect.getAllLemmas(word, upos=upos).items()})


@lru_cache(maxsize=_SIZE)
def lemmas(word: str, upos: str) -> tuple[str, ...]:
    """The lemmas of ``word`` as a ``upos`` (``getLemma``)."""
    return tuple(lemminflect.getLemma(word, upos=upos))


for _function in (inflections, all_inflections, all_lemmas, lemmas,):
    register_function(f"morphology.{_function.__name__}", _function)
