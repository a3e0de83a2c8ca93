"""Shared rendering: dependency arcs, token tables, polarity marks, operator scopes."""

from __future__ import annotations

import html

import pandas as pd
from spacy import displacy

from engine.natlog.operators import ScopedOperator
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.relations import RELATION_ORDER, WORD_RELATIONS, Relation
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


POLARITY_COLOURS = {"↑": "#2b8a3e", "↓": "#c92a2a", "=": "#868e96"}
ARGUMENT_COLOURS = ("#d0ebff", "#ffe8cc", "#e5dbff", "#d3f9d8", "#fff3bf")


def polarity_html(polarized: PolarizedSentence) -> str:
    """The sentence with a coloured arrow after each word; operator triggers in bold."""
    triggers = {i for op in polarized.operators for i in op.anchors}
    parts = []
    for pt in polarized.tokens:
        mark = pt.polarity.mark
        word = escape(pt.token.text)
        if pt.token.id in triggers:
            word = f"<b style='text-decoration:underline'>{word}</b>"
        parts.append(
            f"<span class='natlog-token' title='{escape(', '.join(pt.operators) or 'no operator')}'>{word}"
            f"<sup style='color:{POLARITY_COLOURS[mark]};font-weight:700'>{mark}</sup></span>"
        )
    return f"<div style='font-size:1.6rem;line-height:2.6rem'>{' '.join(parts)}</div>"


def scope_html(polarized: PolarizedSentence, operator: ScopedOperator) -> str:
    """One operator's scope: trigger words boxed, each argument's tokens on its own colour."""
    colour_of = {}
    for k, argument in enumerate(operator.arguments):
        for i in argument.tokens:
            colour_of.setdefault(i, ARGUMENT_COLOURS[k % len(ARGUMENT_COLOURS)])
    parts = []
    for pt in polarized.tokens:
        i, word = pt.token.id, escape(pt.token.text)
        style = "padding:1px 4px;border-radius:4px;"
        if i in operator.triggers:
            style += "border:2px solid #343a40;font-weight:700;"
        if i in colour_of:
            style += f"background:{colour_of[i]};"
        parts.append(f"<span style='{style}'>{word}</span>")
    legend = " ".join(
        f"<span style='background:{ARGUMENT_COLOURS[k % len(ARGUMENT_COLOURS)]};padding:1px 6px;border-radius:4px'>"
        f"{escape(a.role)}: {escape(a.projectivity.name)}</span>"
        for k, a in enumerate(operator.arguments)
    )
    return (f"<div style='margin:0.3rem 0'><code>{escape(operator.name)}</code>&nbsp; {' '.join(parts)}"
            f"<div style='font-size:0.85rem;margin-top:2px'>{legend}</div></div>")


def projection_table(polarized: PolarizedSentence) -> pd.DataFrame:
    """Per token: polarity, operators over it, and the projection of each of the seven relations."""
    rows = []
    for pt in polarized.tokens:
        row = {"id": pt.token.id, "token": pt.token.text, "polarity": pt.polarity.mark,
               "operators": " > ".join(pt.operators)}
        row.update({f"{r.symbol} {r.name.lower()}": p.symbol for r, p in zip(RELATION_ORDER, pt.projection)})
        rows.append(row)
    return pd.DataFrame(rows).set_index("id")


def allowed_edits_table(polarized: PolarizedSentence, targets: frozenset[Relation]) -> pd.DataFrame:
    """Per token: which lexical relations (of the five word-level ones) project into ``targets``."""
    rows = []
    for pt in polarized.tokens:
        allowed = polarized.local_relations(pt.token.id, targets) & WORD_RELATIONS
        rows.append({
            "id": pt.token.id, "token": pt.token.text, "polarity": pt.polarity.mark,
            "allowed local relations": "  ".join(f"{r.symbol} {r.name.lower()}" for r in RELATION_ORDER if r in allowed) or "—",
        })
    return pd.DataFrame(rows).set_index("id")
