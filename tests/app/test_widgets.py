"""Rendering helpers on real candidates: edit places in words, derivations that stay markdown-safe,
and probability charts whose legend stays clear of the axis."""

from __future__ import annotations

import dataclasses

from app.widgets import derivation_lines, edit_place, probability_figure
from engine.edits.candidates import generate_candidates
from engine.natlog.polarity import polarize
from engine.natlog.setups import get_setup
from engine.parse import parse
from engine.victim.model import Prediction


def test_edit_places_read_as_words() -> None:
    assert edit_place((4, 4)) == "after word 4"  # an insertion: never "words 5–4"
    assert edit_place((0, 0)) == "at the start"
    assert edit_place((2, 3)) == "word 3" and edit_place((2, 4)) == "words 3–4"


def test_derivations_of_real_insertions_and_backticks(settings) -> None:
    found = generate_candidates(polarize(parse("A man is playing a guitar.", settings=settings)),
                                get_setup("E2N").relations, settings=settings)
    inserted = next(c for c in found if c.operator == "Insertion")
    first = derivation_lines(inserted)[0]
    assert "after word" in first and "–" not in first
    tricky = dataclasses.replace(inserted, old="gui`tar", new="*bold* [x](http://127.0.0.1)")
    line = derivation_lines(tricky)[0]
    assert "`" not in line.replace("\\`", "") and "[x](" not in line and r"\*bold\*" in line


def test_probability_legend_sits_above_the_bars() -> None:
    figure = probability_figure([("H", Prediction("A man sleeps.", "A man rests.", (0.7, 0.2, 0.1)))], "Victim")
    legend = figure.layout.legend
    assert legend.y >= 1 and legend.yanchor == "bottom" and figure.layout.margin.t >= 60


def test_data_text_in_html_stays_text() -> None:
    """Text the widgets put inside HTML that markdown renders: no tag, link, autolink, e-mail link,
    emphasis or math survives, and a reader sees the same characters."""
    from app.text import html_escape

    text = 'A *bold* <b>man</b> at www.example.org, http://x.org or bob@example.org pays $5 & "quotes" _x_'
    shown = html_escape(text)
    assert "<" not in shown and ">" not in shown and "*" not in shown and "_" not in shown and "$" not in shown
    assert "www\u2060.example" in shown and "http:\u2060//" in shown and "bob\u2060@" in shown
    import html

    assert html.unescape(shown).replace("\u2060", "") == text


def test_candidate_html_keeps_the_spacing_of_h_star(settings) -> None:
    """The marked H* reads as H* does: no space before a period or a comma; a deletion shows the
    struck-out words in their place."""
    import html
    import re

    from app.widgets import candidate_html

    found = []
    for text in ("The man, who is tall, is singing a song.", "A tall man is singing a song loudly."):
        polarized = polarize(parse(text, settings=settings))
        found += generate_candidates(polarized, get_setup("E2E").relations, settings=settings, setup="E2E")
    assert any(c.edit_kind != "deletion" for c in found) and any(c.edit_kind == "deletion" for c in found)
    for candidate in found:
        shown = html.unescape(re.sub(r"<[^>]+>", "", candidate_html(candidate)))
        if candidate.edit_kind != "deletion":
            assert shown == candidate.text, (shown, candidate.text)
        assert " ." not in shown and " ," not in shown, shown
