"""Shared rendering: dependency arcs, token tables."""

from __future__ import annotations

import html

import pandas as pd
from spacy import displacy

from engine.parse import ParsedSentence


def dependency_svg(sentence: ParsedSentence) -> str:
    """An SVG of the UD tree (arcs labelled with deprels), drawn by displaCy in manual mode."""
    words = [{"text": t.text, "tag": t.upos} for t in sentence]
    arcs = []
    for t in sentence:
        if t.head == 0:
            continue
        start, end = sorted((t.id - 1, t.head - 1))
        arcs.append({"start": start, "end": end, "label": t.deprel, "dir": "left" if t.id < t.head else "right"})
    return displacy.render(
        {"words": words, "arcs": arcs}, style="dep", manual=True, jupyter=False,
        options={"compact": True, "distance": 110, "offset_x": 40, "font": "sans-serif"},
    )


def token_table(sentence: ParsedSentence) -> pd.DataFrame:
    """One row per token with its UD fields."""
    rows = []
    for t in sentence:
        head = "ROOT" if t.head == 0 else f"{t.head} ({sentence.token(t.head).text})"
        feats = "|".join(f"{k}={v}" for k, v in t.feats)
        rows.append({"id": t.id, "text": t.text, "lemma": t.lemma, "upos": t.upos, "xpos": t.xpos,
                     "feats": feats, "head": head, "deprel": t.deprel, "chars": f"{t.start}-{t.end}"})
    return pd.DataFrame(rows).set_index("id")


def escape(text: str) -> str:
    return html.escape(text, quote=True)
