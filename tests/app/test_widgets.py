"""Rendering helpers on real candidates: edit places in words, derivations that stay markdown-safe,
and probability charts whose legend stays clear of the axis."""

from __future__ import annotations

import dataclasses
import re

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
    """Text the widgets put inside the HTML pages show with st.html: no tag survives, and a reader
    sees exactly the same characters (nothing invisible added)."""
    import html

    from app.text import exact_html

    text = 'A *bold* <b>man</b> at www.example.org, :red[x] :material/warning: bob@example.org pays $5 & "q" _x_'
    shown = exact_html(text)
    assert "<" not in shown and ">" not in shown and '"' not in shown
    assert html.unescape(shown) == text


def test_markdown_escape_stops_streamlit_directives() -> None:
    """Inside markdown, Streamlit's colour, icon and emoji directives are stopped by a word joiner
    after the colon (and nothing else changes what a reader sees)."""
    from app.text import md_escape

    shown = md_escape("a :red[dog] :material/warning: :smile: at 10:30")
    assert ":red" not in shown and ":material" not in shown and ":smile" not in shown
    unescaped = re.sub(r"\\(.)", r"\1", shown).replace("\u2060", "")
    assert unescaped == "a :red[dog] :material/warning: :smile: at 10:30"


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


def test_every_chart_text_plotly_reads_as_html_is_escaped_once() -> None:
    """show_chart's plotly_safe: category values, legend names, titles, facet labels and the data
    values px writes into hover templates show as text; our own line breaks stay markup."""
    import pandas as pd
    import plotly.express as px

    from app.text import plotly_safe

    hostile = '<b>x</b> & <a href="http://evil.example">y</a>'
    frame = pd.DataFrame({"run": [hostile, "plain"], "rate": [0.1, 0.2], "system": [hostile, "ok"],
                          "metric": [hostile, "asr"]})
    figure = plotly_safe(px.bar(frame, x="run", y="rate", color="system", facet_row="metric", title=hostile))
    shown = figure.to_plotly_json()
    texts = [str(v) for trace in shown["data"] for k, v in trace.items() if k in ("x", "name", "hovertemplate")]
    texts += [a["text"] for a in shown["layout"].get("annotations", [])] + [shown["layout"]["title"]["text"]]
    assert texts and not [t for t in texts if "<b>" in t or "<a " in t], texts
    assert any("&lt;b&gt;x&lt;/b&gt; &amp; &lt;a href" in t for t in texts)
    assert all(trace["hovertemplate"].count("<br>") >= 2 for trace in shown["data"])  # px's own markup kept
    bars = plotly_safe(probability_figure([(hostile, Prediction("P", hostile, (0.7, 0.2, 0.1)))], hostile))
    assert list(bars.data[0].y) == ["&lt;b&gt;x&lt;/b&gt; &amp; &lt;a href=\"http://evil.example\"&gt;y&lt;/a&gt;"]
