"""Text shown by the app: user and data text escaped for markdown, HTML and plotly (a light module,
no models)."""

from __future__ import annotations

import html
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


# The same for text placed inside HTML that Streamlit's markdown renders (st.markdown(...,
# unsafe_allow_html=True)): markdown still reads the text between tags, so every character that
# is markdown or HTML syntax becomes a numeric character reference, and the word joiner breaks the
# autolink patterns, which markdown matches after references are decoded. Plain sentence
# punctuation (. , ; : ? / @ %) stays as it is.
_HTML_REFERENCES = {ch: f"&#{ord(ch)};" for ch in "\\`*_{}[]()#+-!|~<>$&\"'^="}
_RAW_AUTOLINKS = re.compile(r"(?<=:)(?=//)|(?i:(?<=www))(?=\.)|(?=@)")


def html_escape(text: str) -> str:
    """Text shown inside HTML that markdown renders, as itself (no tags, entities, links,
    autolinks, emphasis or math)."""
    return "".join(_HTML_REFERENCES.get(ch, ch) for ch in _RAW_AUTOLINKS.sub("\u2060", text))


def plotly_escape(text: object) -> str:
    """Data text for a plotly figure (titles, ticks, legends, hover labels), as itself: plotly renders
    a subset of HTML there (``<b>``, ``<a href>``, ``<br>``, entities), so ``&``, ``<`` and ``>``
    become the entities plotly decodes (it shows ``&quot;`` as written, so quotes stay: without a
    ``<`` there is no tag for them to matter in)."""
    return html.escape(str(text), quote=False)
