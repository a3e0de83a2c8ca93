"""stanza backend: stanza already speaks UD v2, so conversion is a field copy."""

from __future__ import annotations

import functools

from engine.core.resources import ResourceError, check_stanza_models
from engine.parse.sentence import ParsedSentence, Token, feats_from_string


def document_to_sentence(doc, text: str | None = None) -> ParsedSentence:
    """Convert the first sentence of a ``stanza.Document`` to a :class:`ParsedSentence`."""
    if not doc.sentences:
        raise ValueError("stanza returned no sentence")
    sentence = doc.sentences[0]
    tokens: list[Token] = []
    cursor = 0
    for word in sentence.words:
        start, end = word.start_char, word.end_char
        if start is None:  # words of a multi-word token share the token's span
            parent = word.parent
            start, end = parent.start_char, parent.end_char
        if start is None:  # documents built from token dicts may lack offsets
            start = cursor
            end = start + len(word.text)
        cursor = end + 1
        tokens.append(Token(
            id=int(word.id), text=word.text, lemma=word.lemma or word.text,
            upos=word.upos or "X", xpos=word.xpos or "", head=int(word.head or 0),
            deprel=word.deprel or "dep", start=start, end=end,
            feats=feats_from_string(word.feats),
        ))
    return ParsedSentence(text=text if text is not None else sentence.text, tokens=tuple(tokens), parser="stanza")


class StanzaParser:
    """Parse with stanza's English UD pipeline (models must be downloaded)."""

    name = "stanza"

    def __init__(self) -> None:
        status = check_stanza_models()
        if not status.found:
            raise ResourceError(f"stanza's English models are not installed: {status.fix}")
        import stanza

        self._raw = stanza.Pipeline(
            "en", processors="tokenize,pos,lemma,depparse", tokenize_no_ssplit=True,
            download_method=None, verbose=False,
        )

    @functools.cached_property
    def _pretokenized(self):
        """The pipeline for pre-tokenized input, built on first use."""
        import stanza

        return stanza.Pipeline(
            "en", processors="tokenize,pos,lemma,depparse", tokenize_pretokenized=True,
            download_method=None, verbose=False,
        )

    def parse(self, text: str, words: list[str] | None = None) -> ParsedSentence:
        if words is not None:
            return document_to_sentence(self._pretokenized([words]), text)
        return document_to_sentence(self._raw(text), text)
