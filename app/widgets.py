"""Shared rendering: dependency arcs, polarity marks, trigger scopes, candidates, victim probabilities."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go
from spacy import displacy

from app.text import exact_html, md_escape
from engine.api import (
    LABELS,
    RELATION_ORDER,
    WORD_RELATIONS,
    Candidate,
    ParsedSentence,
    PolarizedSentence,
    Prediction,
    Relation,
    ScopedTrigger,
    ValidityEstimate,
    get_settings,
    wordnet,
)

__all__ = ["md_escape"]  # re-exported: pages import it from here


def dependency_svg(sentence: ParsedSentence) -> str:
    """An SVG of the UD tree (arcs labelled with deprels), drawn by displaCy in manual mode."""
    words = [{"text": t.text, "tag": t.upos} for t in sentence]
    arcs = []
    for t in sentence:
        if t.head == 0:
            continue
        start, end = sorted((t.id - 1, t.head - 1))
        arcs.append({"start": start, "end": end, "label": t.deprel, "dir": "left" if t.id < t.head else "right"})
    svg = displacy.render(
        {"words": words, "arcs": arcs}, style="dep", manual=True, jupyter=False,
        options={"compact": True, "distance": 110, "offset_x": 40, "font": "sans-serif"},
    )
    # displaCy sizes the drawing to the last word's centre plus one step: a long last word (or its
    # tag) would be cut at the right edge, so the canvas gets the left margin on the right too.
    return re.sub(r'(class="displacy" width=")(\d+)"', lambda m: f'{m.group(1)}{int(m.group(2)) + 120}"', svg, count=1)


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
    """Data text for the HTML these widgets build, which pages show with ``st.html`` (no markdown
    reads it): see :func:`app.text.exact_html`."""
    return exact_html(text)


POLARITY_COLOURS = {"↑": "#2b8a3e", "↓": "#c92a2a", "=": "#868e96"}
ARGUMENT_COLOURS = ("#d0ebff", "#ffe8cc", "#e5dbff", "#d3f9d8", "#fff3bf")


def polarity_html(polarized: PolarizedSentence) -> str:
    """The sentence with a coloured arrow after each word; trigger words in bold."""
    triggers = {i for op in polarized.triggers for i in op.anchors}
    parts = []
    for pt in polarized.tokens:
        mark = pt.polarity.mark
        word = escape(pt.token.text)
        if pt.token.id in triggers:
            word = f"<b style='text-decoration:underline'>{word}</b>"
        parts.append(
            f"<span class='natlog-token' title='{escape(', '.join(pt.triggers) or 'no trigger')}'>{word}"
            f"<sup style='color:{POLARITY_COLOURS[mark]};font-weight:700'>{mark}</sup></span>"
        )
    return f"<div style='font-size:1.6rem;line-height:2.6rem'>{' '.join(parts)}</div>"


def scope_html(polarized: PolarizedSentence, trigger: ScopedTrigger) -> str:
    """One trigger's scope: its words boxed, each argument's tokens on its own colour."""
    colour_of: dict[int, str] = {}
    for k, argument in enumerate(trigger.arguments):
        for i in argument.tokens:
            colour_of.setdefault(i, ARGUMENT_COLOURS[k % len(ARGUMENT_COLOURS)])
    parts = []
    for pt in polarized.tokens:
        i, word = pt.token.id, escape(pt.token.text)
        style = "padding:1px 4px;border-radius:4px;"
        if i in trigger.triggers:
            style += "border:2px solid #343a40;font-weight:700;"
        if i in colour_of:
            style += f"background:{colour_of[i]};"
        parts.append(f"<span style='{style}'>{word}</span>")
    legend = " ".join(
        f"<span style='background:{ARGUMENT_COLOURS[k % len(ARGUMENT_COLOURS)]};padding:1px 6px;border-radius:4px'>"
        f"{escape(a.role)}: {escape(a.projectivity.name)}</span>"
        for k, a in enumerate(trigger.arguments)
    )
    return (f"<div style='margin:0.3rem 0'><code>{escape(trigger.name)}</code>&nbsp; {' '.join(parts)}"
            f"<div style='font-size:0.85rem;margin-top:2px'>{legend}</div></div>")


def projection_table(polarized: PolarizedSentence) -> pd.DataFrame:
    """Per token: polarity, triggers over it, and the projection of each of the seven relations."""
    rows = []
    for pt in polarized.tokens:
        row = {"id": pt.token.id, "token": pt.token.text, "polarity": pt.polarity.mark,
               "triggers": " > ".join(pt.triggers)}
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


EDIT_STYLES = {
    "substitution": "background:#fff3bf;border-bottom:2px solid #f08c00;",
    "insertion": "background:#d3f9d8;border-bottom:2px solid #2b8a3e;",
    "deletion": "color:#c92a2a;text-decoration:line-through;",
}


def word_spacing(text: str, words: Sequence[str]) -> list[str]:
    """The text after each word of ``words`` (a space or nothing), read off ``text``, the sentence the
    words were joined into: "song" then "." gives "song" + "" (no space before the period)."""
    gaps, at = [], 0
    for word in words:
        found = text.find(word, at)
        at = (found if found >= 0 else at) + len(word)
        gap = text[at:at + 1] if text[at:at + 1] == " " else ""
        gaps.append(gap)
        at += len(gap)
    return gaps


def candidate_html(candidate: Candidate) -> str:
    """H* with its edit marked: substitutions amber, insertions green, deletions struck through;
    spaced as H* is ("a song.", not "a song .")."""
    start, end = candidate.new_span
    gaps = word_spacing(candidate.text, candidate.words)
    words = [escape(w) + gap for w, gap in zip(candidate.words, gaps)]
    kind = candidate.edit_kind
    if kind == "deletion":  # the struck-out words where they stood: after a space, before what followed
        struck = f"<span style='{EDIT_STYLES[kind]}'>{escape(candidate.old)}</span>"
        if start == 0:
            words.insert(0, struck + " ")
        else:
            gap = gaps[start - 1]
            words[start - 1] = words[start - 1][:len(words[start - 1]) - len(gap)] + " " + struck + gap
    elif end > start:
        edited = "".join(words[start:end]).rstrip(" ")
        tail = " " if words[end - 1].endswith(" ") else ""
        words[start:end] = [f"<span style='{EDIT_STYLES[kind]}padding:0 2px'>{edited}</span>{tail}"]
    return "".join(words).strip()


def candidates_table(candidates: Sequence[Candidate]) -> pd.DataFrame:
    """Ranked candidates: text, operator, relations, edit, fluency score, validity and natural
    estimates (when estimated)."""
    return pd.DataFrame([
        {"rank": k, "H*": c.text, "operator": c.operator, "edit": c.edit_kind,
         "old → new": f"{c.old or '∅'} → {c.new or '∅'}",
         "lexical": f"{c.lexical_relation.symbol} {c.lexical_relation.name.lower()}",
         "H → H*": f"{c.relation.symbol} {c.relation.name.lower()}",
         "score": None if c.score is None else round(c.score, 2),
         "validity": c.validity, "natural": c.naturalness}
        for k, c in enumerate(candidates, start=1)
    ]).set_index("rank")




def validity_line(estimate: ValidityEstimate) -> str:
    """A candidate's validity estimate and the features that moved it most, as a markdown list item
    (feature names escaped)."""
    return (f"- validity estimate **{estimate.probability:.2f}**; what moved it most (log-odds): "
            + md_escape(estimate.explain(4)))


def sense_gloss(synset_name: str) -> str | None:
    """WordNet's gloss of a synset name such as ``runner.n.02`` (None when it is no synset)."""
    try:
        return str(wordnet(get_settings()).synset(synset_name).definition())
    except Exception:  # noqa: BLE001 - a name that is not a synset (an AltLM mark) has no gloss
        return None


def edit_place(span: tuple[int, int]) -> str:
    """Where an edit is, in 1-based words: "word 3", "words 3–4", or "after word 5" for an insertion."""
    start, end = span
    if end <= start:
        return "at the start" if start == 0 else f"after word {start}"
    return f"word {start + 1}" if end == start + 1 else f"words {start + 1}–{end}"


def derivation_lines(candidate: Candidate) -> list[str]:
    """How the candidate was derived, one line per fact (markdown; words escaped, never code spans,
    so a backtick in a hypothesis cannot break the list)."""
    lines = [
        f"**{candidate.operator}** ({candidate.edit_kind}) {edit_place(candidate.span)}: "
        f"“{md_escape(candidate.old or '∅')}” → “{md_escape(candidate.new or '∅')}”",
        f"lexical relation {candidate.lexical_relation.symbol} ({candidate.lexical_relation.name.lower()}) projects to "
        f"{candidate.relation.symbol} ({candidate.relation.name.lower()}) between H and H*; setup {candidate.setup}",
    ]
    if candidate.synsets:
        lines.append("WordNet synsets: " + ", ".join(f"`{s}`" for s in candidate.synsets))
        gloss = sense_gloss(candidate.synsets[0])
        if gloss:
            lines.append(f"sense of “{md_escape(candidate.old)}” in this context: {md_escape(gloss)}")
    if candidate.path:
        lines.append("WordNet path: " + " → ".join(f"`{p}`" for p in candidate.path))
    if candidate.also:
        lines.append("also produced by: " + ", ".join(candidate.also))
    return lines


LABEL_COLOURS = {"entailment": "#2b8a3e", "neutral": "#868e96", "contradiction": "#c92a2a"}


def probability_figure(rows: Sequence[tuple[str, Prediction]], title: str = "") -> go.Figure:
    """Stacked horizontal bars of the victim's label probabilities, one bar per hypothesis."""
    names = [name for name, _ in rows]
    figure = go.Figure()
    for k, label in enumerate(LABELS):
        figure.add_bar(
            y=names, x=[p.probs[k] for _, p in rows], name=label, orientation="h",
            marker_color=LABEL_COLOURS[label], hovertemplate="%{y}<br>" + label + ": %{x:.3f}<extra></extra>",
        )
    figure.update_layout(
        barmode="stack", title=title or None, xaxis={"range": [0, 1], "title": "probability"},
        yaxis={"autorange": "reversed"}, height=max(190, 40 * len(rows) + 120),
        # The legend sits above the bars, right-aligned, clear of the axis and its title.
        margin={"l": 10, "r": 10, "t": 70 if title else 40, "b": 10},
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
    )
    return figure


# HVASR has one definition (engine.reports.metrics.HumanValidation); every page explains and shows it alike.
HVASR_HELP = (
    "ASR: successful / attacked pairs. HVASR, in three readings side by side, over attacked pairs: "
    "label only (hvasr, the paper's): attacks that fooled the victim and whose human majority label equals "
    "the target label; label and not broken (hvasr_fluent, HVASR+E): valid, and fewer than half the judges "
    "read H* as broken English; label and natural (hvasr_natural, HVASR+N): valid, and a strict majority of "
    "the judges read H* as English a native speaker could have written. Attacks nobody has judged yet count "
    "as not validated, so read HVASR beside its coverage (judged / successful attacks). HVASR judged: valid / "
    "judged attacks. '—' until something is judged. HVASR estimated: what the validity estimate predicts (the "
    "successful H*'s estimates summed, over attacked pairs), '—' for runs without a validity gate."
)
HVASR_RATIOS = ("asr", "coverage", "hvasr", "hvasr_fluent", "hvasr_natural", "hvasr_judged", "hvasr_estimated",
                "estimate_on_judged", "asr_contribution", "valid_share", "natural_share", "share")
#: On-screen headings of the HVASR readings (``st.dataframe(column_config=...)``; the columns keep
#: their names in downloads and exports).
HVASR_HEADINGS = {"hvasr": "HVASR: label", "hvasr_fluent": "HVASR: label and not broken",
                  "hvasr_natural": "HVASR: label and natural", "valid_fluent": "valid and not broken",
                  "valid_natural": "valid and natural"}


def shown_ratios(table: pd.DataFrame, columns: Sequence[str] = HVASR_RATIOS) -> pd.DataFrame:
    """A copy for display: ratio columns as three-decimal text, '—' where undefined (never 0, never
    None); other float columns with a missing value get one decimal and '—' too."""
    out = table.copy()
    for column in out.columns:
        name = column[-1] if isinstance(column, tuple) else column
        if name in columns:
            digits = 3
        elif pd.api.types.is_float_dtype(out[column]) and out[column].isna().any():
            digits = 1
        else:
            continue
        out[column] = [("—" if value is None or pd.isna(value) else f"{value:.{digits}f}") for value in out[column]]
    return out


def word_diff_html(before: str, after: str) -> str:
    """``after`` word by word against ``before``: words taken out struck through on red, words put
    in on green, the rest as they are (data text escaped)."""
    import difflib

    old, new = before.split(), after.split()
    parts: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            parts.extend(escape(w) for w in new[j1:j2])
            continue
        if op in ("delete", "replace"):
            parts.append("<del class='natlog-out' style='background:#ffe3e3;color:#c92a2a'>"
                         + escape(" ".join(old[i1:i2])) + "</del>")
        if op in ("insert", "replace"):
            parts.append("<ins class='natlog-in' style='background:#d3f9d8;color:#2b8a3e;text-decoration:none'>"
                         + escape(" ".join(new[j1:j2])) + "</ins>")
    return f"<div class='natlog-diff' style='font-size:1.3rem;line-height:2rem'>{' '.join(parts)}</div>"
