"""The project's WordNet 3.0 reader and the WordNet animacy test: the lowest lexical layer, which
the parser's repairs may use without reaching up to :mod:`engine.lexicon.relatives` (which re-exports both).

In: settings (where the WordNet copy lies). Out: NLTK's WordNet reader; a ``Token -> bool`` test.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine.core.resources import ResourceError, check_wordnet
from engine.core.settings import Settings

if TYPE_CHECKING:
    from engine.parse.sentence import Token

__all__ = ["ANIMATE_LEXNAMES", "INANIMATE_PRONOUNS", "semcor_counts", "wordnet", "wordnet_animacy", "wordnet_classes"]


def wordnet(settings: Settings) -> Any:
    """The NLTK WordNet reader over the project's WordNet 3.0 copy (raises ResourceError if absent)."""
    return _wordnet(settings)


@lru_cache(maxsize=8)
def _wordnet(settings: Settings) -> Any:
    status = check_wordnet(settings)
    if not status.found:
        raise ResourceError(f"WordNet is missing: {status.fix}")
    import nltk

    try:
        root = nltk.data.find("corpora/wordnet")
    except LookupError:
        root = nltk.data.find("corpora/wordnet.zip/wordnet/")
    return _reader_at(root)


_READERS: dict[str, Any] = {}
_LOADING = threading.Lock()


def _reader_at(root: Any) -> Any:
    """One reader per WordNet copy (NLTK's path pointer ``root``), loaded once per process however
    many settings objects point at it."""
    location = str(root)
    with _LOADING:  # the app's sessions are threads: one load, not one per thread
        if location not in _READERS:
            _READERS[location] = _reader_class()(root, None)
        return _READERS[location]


@lru_cache(maxsize=1)
def _reader_class() -> type:
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class WordNet30Reader(WordNetCorpusReader):  # type: ignore[misc]  # nltk ships no stubs
        """NLTK's WordNet reader without the version map it builds at every load.

        NLTK maps the multilingual (OMW) offsets of the corpus called "wordnet" onto the loaded copy
        when their versions differ, and compares the copy's version ("3.0") with that name, not a
        version: every load reads both sense indexes to map WordNet 3.0 onto itself (about 2 s of a
        3 s load). The project reads WordNet 3.0 and no multilingual data, so there is nothing to
        map: NLTK's own value for a copy of the same version is None.
        """

        def map_wn(self, version: str = "wordnet") -> Any:
            if version == "wordnet" and self.get_version() == "3.0":
                return None
            return super().map_wn(version)

    return WordNet30Reader


@lru_cache(maxsize=100_000)
def semcor_counts(synset: Any) -> Mapping[str, int]:
    """How often each lemma of ``synset`` was tagged with it in SemCor (``cntlist.rev``), by
    lower-cased lemma name (the first lemma wins where two differ only in case).

    Memoised: NLTK answers every ``Lemma.count()`` with a binary search of the file on disk, and
    an attack asks for the same senses' counts round after round.
    """
    counts: dict[str, int] = {}
    for lemma in synset.lemmas():
        counts.setdefault(lemma.name().lower(), int(lemma.count()))
    return MappingProxyType(counts)


# Animacy (the relative-clause parse repair, and which modifiers fit a noun) ------------------

ANIMATE_LEXNAMES = {"noun.person", "noun.animal", "noun.group"}
INANIMATE_PRONOUNS = {"it", "this", "that", "which", "what", "something", "anything", "nothing", "everything"}


def wordnet_classes(reader: Any) -> Callable[[str], dict[str, str]]:
    """A word's lemma per WordNet part of speech it has: ``{"n": "mammal"}`` for "mammals",
    adjective satellites under "a" (the determined-noun parse repair)."""
    def classes(word: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for pos, key in (("n", "n"), ("v", "v"), ("a", "a"), ("s", "a")):
            if key in out:
                continue
            lemma = reader.morphy(word, pos)
            if lemma is not None and reader.synsets(lemma, pos):
                out[key] = lemma
        return out

    return classes


def wordnet_animacy(reader: Any) -> Callable[[Token], bool]:
    """Animacy from WordNet: a noun is animate when its most frequent sense is a person, animal or group.

    Names and personal pronouns count as animate; nouns WordNet lacks too (no evidence to move a clause).
    """
    def is_animate(token: Token) -> bool:
        if token.upos == "PROPN":
            return True
        if token.upos == "PRON":
            return token.text.lower() not in INANIMATE_PRONOUNS
        synsets = reader.synsets(token.lemma.lower(), "n")
        return not synsets or synsets[0].lexname() in ANIMATE_LEXNAMES

    return is_animate
