"""Text shown by the app: user and data text escaped for markdown, HTML and plotly (a light module,
no models)."""

from __future__ import annotations

import html
import re
import string
from typing import Any

# Every ASCII punctuation character is escapable in CommonMark. Escaping all of them keeps data text
# literal whatever Streamlit's markdown does with it: links, images, emphasis, HTML, code spans and
# $math$.
_PUNCTUATION = frozenset(string.punctuation)
# Streamlit's markdown also turns bare URLs and e-mail addresses into links after escapes are
# resolved ("http://...", "www.x.org", "a@b.org"); an invisible WORD JOINER (U+2060) inside the
# pattern stops that and changes nothing a reader sees.
_AUTOLINKS = re.compile(r"(?<=:)(?=\\/\\/)|(?i:(?<=www))(?=\\\.)|(?=\\@)")


# Streamlit reads ":" before a letter in text as its own markup, after the markdown escapes are
# resolved: ":red[dog]" (colour), ":material/warning:" (an icon), ":smile:" (an emoji shortcode).
# The same invisible word joiner after such a colon stops all three.
_DIRECTIVES = re.compile(r"(?<=\\:)(?=[A-Za-z])")
_RAW_DIRECTIVES = re.compile(r"(?<=:)(?=[A-Za-z])")


def md_escape(text: str) -> str:
    """Text shown inside markdown as itself (no links, autolinks, images, emphasis, math, HTML,
    colours, icons or emoji shortcodes)."""
    escaped = "".join("\\" + ch if ch in _PUNCTUATION else ch for ch in text)
    return _DIRECTIVES.sub("\u2060", _AUTOLINKS.sub("\u2060", escaped))


def exact_html(text: str) -> str:
    """Data text inside the HTML a page shows with ``st.html``, which no markdown reads:
    HTML-escaped and nothing else, so the page shows the text byte for byte (no invisible
    characters added), with no tag, link, colour, icon or emoji from it. The path for every piece of
    HTML the app builds around data text (candidates, polarity, scopes, parses, the Annotate page's
    premise and hypothesis); markdown gets :func:`md_escape`, charts :func:`show_chart`."""
    return html.escape(text, quote=True)


def plotly_escape(text: object) -> str:
    """Data text for a plotly figure (titles, ticks, legends, hover labels), as itself: plotly renders
    a subset of HTML there (``<b>``, ``<a href>``, ``<br>``, entities), so ``&``, ``<`` and ``>``
    become the entities plotly decodes (it shows ``&quot;`` as written, so quotes stay: without a
    ``<`` there is no tag for them to matter in)."""
    return html.escape(str(text), quote=False)


# The keys of a plotly figure (traces and layout, at any depth) whose strings plotly renders as its
# HTML subset: titles, tick labels, legend names, annotations, category values and hover text.
_PLOTLY_TEXT_KEYS = frozenset({"text", "name", "title", "ticktext", "x", "y", "z", "hovertext", "labels",
                               "parents", "ids", "legendgrouptitle"})
# Templates keep the markup we write (line breaks, the hover box's side label) and escape the rest,
# which px fills with data values ("system=<value>").
_PLOTLY_TEMPLATE_KEYS = frozenset({"hovertemplate", "texttemplate"})
_TEMPLATE_MARKUP = re.compile(r"(<br>|<extra>|</extra>)")


def _plotly_safe_value(key: str, value: object) -> object:
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind is not None and hasattr(value, "tolist"):  # a numpy array: text arrays are escaped
        return [_plotly_safe_value(key, v) for v in value.tolist()] if kind in "OUS" else value
    if isinstance(value, dict):
        return {k: _plotly_safe_value(k, v) for k, v in value.items()}
    if key in _PLOTLY_TEMPLATE_KEYS and isinstance(value, str):
        return "".join(part if _TEMPLATE_MARKUP.fullmatch(part) else plotly_escape(part)
                       for part in _TEMPLATE_MARKUP.split(value))
    if key in _PLOTLY_TEMPLATE_KEYS and isinstance(value, (list, tuple)):
        return [_plotly_safe_value(key, v) for v in value]
    if isinstance(value, (list, tuple)):
        return [_plotly_safe_value(key, v) for v in value]
    if key in _PLOTLY_TEXT_KEYS and isinstance(value, str):
        return plotly_escape(value)
    return value


def plotly_safe(figure: Any) -> Any:
    """A copy of a plotly figure whose data text shows as itself: every string plotly renders as
    HTML (titles, axis and tick labels, legends, facet and line annotations, category values,
    hover text, and the data values px writes into hover templates) escaped once, here. Pages pass
    raw text to their figures and show them through :func:`show_chart`, the one path to the screen."""
    import plotly.graph_objects as go

    safe = {key: _plotly_safe_value(key, value) for key, value in figure.to_dict().items()}
    return go.Figure(safe)


def show_chart(figure: Any, container: Any = None, **kwargs: Any) -> Any:
    """``st.plotly_chart`` of :func:`plotly_safe` ``(figure)`` in ``container`` (default: the page);
    returns what ``st.plotly_chart`` returns (the selection event with ``on_select``)."""
    import streamlit as st

    return (container or st).plotly_chart(plotly_safe(figure), **kwargs)
