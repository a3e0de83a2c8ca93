"""The parse stage: text -> :class:`ParsedSentence` (UD v2), via spaCy or stanza, with repairs of
known parser errors and the completeness check a hypothesis passes before it is attacked.

In: text (one sentence). Out: a ``ParsedSentence`` (tokens with UD heads, relations and features).

>>> sentence = parse("All the kids run")            # doctest: +SKIP
>>> [(t.text, t.deprel) for t in sentence]           # doctest: +SKIP
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from engine.core.caches import Memo
from engine.core.errors import InputError
from engine.core.registry import Registry
from engine.core.settings import Settings
from engine.parse.sentence import ParsedSentence, Token

_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e",
    "inc", "ltd", "co", "mt", "no", "u.s", "a.m", "p.m",
}
_BOUNDARY = re.compile(r"([.!?]+)[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


class Parser(Protocol):
    name: str

    def parse(self, text: str, words: list[str] | None = None) -> ParsedSentence: ...


def split_sentences(text: str) -> list[str]:
    """Split on sentence-final punctuation followed by a capitalised word (abbreviations kept)."""
    parts, start = [], 0
    for match in _BOUNDARY.finditer(text):
        before = text[start:match.start()].split()
        last = before[-1].lower().rstrip(".") if before else ""
        if match.group(1) == "." and (last in _ABBREVIATIONS or len(last) == 1):
            continue
        parts.append(text[start:match.end()].strip())
        start = match.end()
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def validate_text(text: str, max_chars: int) -> str:
    """Return the stripped text of one sentence, or raise :class:`InputError` saying what is wrong."""
    if text is None or not text.strip():
        raise InputError("the text is empty: type one sentence")
    stripped = " ".join(text.split())
    if not any(ch.isalnum() for ch in stripped):
        raise InputError("the text has no words, only punctuation or symbols: type one sentence")
    if len(stripped) > max_chars:
        raise InputError(
            f"the text is {len(stripped)} characters long; the limit is {max_chars} "
            "(set NATLOG_MAX_CHARS to change it)"
        )
    sentences = split_sentences(stripped)
    if len(sentences) > 1:
        raise InputError(
            f"expected one sentence, found {len(sentences)}: "
            + " | ".join(s if len(s) < 60 else s[:57] + "..." for s in sentences)
        )
    return stripped


def validate_premise(text: str, max_chars: int) -> str:
    """Return the whitespace-normalised premise, or raise :class:`InputError`.

    Premises may hold several sentences (MultiNLI) and are four times as long as a hypothesis may be.
    """
    if text is None or not text.strip():
        raise InputError("the premise is empty: give the premise P of the pair")
    stripped = " ".join(text.split())
    if not any(ch.isalnum() for ch in stripped):
        raise InputError("the premise has no words, only punctuation or symbols")
    if len(stripped) > 4 * max_chars:
        raise InputError(f"the premise is {len(stripped)} characters long; the limit is {4 * max_chars}")
    return stripped


#: Parser back-ends by name: a factory taking the spaCy model name and the WordNet folder of the
#: repairs (stanza ignores both).
PARSER_FACTORIES: Registry[Callable[[str, Path | None], Parser]] = Registry("parser")


@PARSER_FACTORIES.register("spacy")
def _spacy_parser(spacy_model: str, nltk_data: Path) -> Parser:
    from engine.core.resources import ResourceError, spacy_model_status
    from engine.parse.spacy_ud import SpacyParser

    status = spacy_model_status(spacy_model)
    if not status.found:
        raise ResourceError(f"spaCy model {spacy_model!r} is not installed: {status.fix}")
    return SpacyParser(spacy_model, nltk_data)


@PARSER_FACTORIES.register("stanza")
def _stanza_parser(spacy_model: str, nltk_data: Path) -> Parser:
    from engine.parse.stanza_ud import StanzaParser

    return StanzaParser()


PARSERS = PARSER_FACTORIES.names()


@lru_cache(maxsize=4)
def load_parser(name: str, spacy_model: str, nltk_data: Path) -> Parser:
    """Build a parser backend once per process (a name of :data:`PARSER_FACTORIES`, the spaCy
    pipeline it reads); ``nltk_data``: where the repairs read WordNet."""
    return PARSER_FACTORIES.get(name)(spacy_model, nltk_data)


# Parses memoised per (parser, text, tokenisation): rounds, constraints and the verifier parse the
# same sentences again. ParsedSentence is frozen, so sharing one is safe.
PARSE_CACHE_SIZE = 20_000
_PARSED: Memo[tuple[str, str, bool], ParsedSentence] = Memo("parse", PARSE_CACHE_SIZE)


def configured_parser(settings: Settings, name: str | None = None) -> Parser:
    """The parser ``settings.parser`` (or ``name``) names, over the settings' spaCy model and
    WordNet folder, loaded once per process."""
    return load_parser(name or settings.parser, settings.spacy_model, settings.nltk_data)


def _backend(parser: str | Parser | None, settings: Settings) -> Parser:
    return parser if parser is not None and not isinstance(parser, str) else configured_parser(settings, parser)


def parse(
    text: str,
    *,
    pretokenized: bool = False,
    parser: str | Parser | None = None,
    settings: Settings,
) -> ParsedSentence:
    """Parse one sentence. With ``pretokenized`` the text is split on spaces, one token per word."""
    clean = validate_text(text, settings.max_chars)
    backend = _backend(parser, settings)
    key = (getattr(backend, "name", type(backend).__name__), clean, pretokenized)
    words = clean.split(" ") if pretokenized else None
    return _PARSED.get_or(key, lambda: backend.parse(clean, words))


def parse_many(texts: Sequence[str], *, settings: Settings) -> list[ParsedSentence | None]:
    """Parse many sentences (None for a text :func:`parse` would refuse), batched where the parser can."""
    backend = _backend(None, settings)
    name = getattr(backend, "name", type(backend).__name__)
    clean: list[str | None] = []
    for text in texts:
        try:
            clean.append(validate_text(text, settings.max_chars))
        except InputError:
            clean.append(None)
    todo = [text for _, text, _ in _PARSED.missing((name, c, False) for c in clean if c is not None)]
    many = getattr(backend, "parse_many", None)
    found: dict[str, ParsedSentence] = {}
    if todo:
        fresh = many(todo) if many is not None else [backend.parse(t, None) for t in todo]
        for text, parsed in zip(todo, fresh):
            _PARSED.put((name, text, False), parsed)
            found[text] = parsed
    return [(found[c] if c in found else _PARSED[(name, c, False)]) if c is not None else None for c in clean]


__all__ = ["PARSERS", "ParsedSentence", "Parser", "Token", "configured_parser", "load_parser", "parse", "parse_many", "split_sentences",
           "validate_premise", "validate_text"]
