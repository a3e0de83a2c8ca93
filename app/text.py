"""Text shown by the app: user and data text escaped for markdown (a light module, no models)."""

from __future__ import annotations

import re
import string

# Every ASCII punctuation character is escapable in CommonMark. Escaping all of them keeps data text
# literal whatever Streamlit's markdown does with it: links, images, emphasis, HTML, code spans and
# $math$.
_PUNCTUATION = frozenset(string.punctuation)
# Streamlit's markdown also turns bare URLs and e-mail addresses into links after escapes are
# resolved ("http://...", "www.x.org", "a@b.org"); an invisible WORD JOINER (U+2060) inside the
# pattern stops that and changes nothing a reader sees.
_AUTOLINKS = re.compile(r"(?<=:)(?=\\/\\/)|(?i:(?<=www))(?=\\\.)|(?=\\@)")


def md_escape(text: str) -> str:
    """Text shown inside markdown as itself (no links, autolinks, images, emphasis, math or HTML)."""
    escaped = "".join("\\" + ch if ch in _PUNCTUATION else ch for ch in text)
    return _AUTOLINKS.sub("\u2060", escaped)
