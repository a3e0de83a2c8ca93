"""Text shown by the app: user and data text escaped for markdown (a light module, no models)."""

from __future__ import annotations


def md_escape(text: str) -> str:
    """Text shown inside markdown as itself (no links, images, emphasis or HTML)."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>~" else ch for ch in text)
