"""plotly figures of the Confidence page: the victim's P(target) along an attack and across a run.

Hover texts are data (hypotheses): they are HTML-escaped, since plotly renders a subset of HTML
in hover labels. Each point carries its attack id as ``customdata`` so that a selection can open
that attack in the stepper.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from engine.api import ConfidencePoint, GroupRow, PathStep


def points_frame(points: Sequence[ConfidencePoint]) -> pd.DataFrame:
    frame = pd.DataFrame([asdict(p) for p in points])
    if not frame.empty:
        frame["hover"] = list(frame["text"])  # escaped by app.text.show_chart
        frame["attack"] = frame["status"].map(lambda s: "successful" if s == "success" else "not successful")
        frame["validity_band"] = [p.validity_band for p in points]
    return frame


def drop_by_group_figure(frame: pd.DataFrame, by: str) -> go.Figure:
    """Box plots of the confidence drop, one per value of ``by``, every point shown."""
    figure = px.box(frame, x=by, y="drop", points="all", color=by, custom_data=["attack_id"],
                    hover_data={"hover": True, "round": True, "target_prob": ":.3f", by: False},
                    labels={"drop": "drop in P(target) from (P, H)", "hover": "candidate"},
                    title=f"Confidence drop by {by.replace('_', ' ')}")
    figure.update_layout(showlegend=False, height=420, margin={"t": 50, "b": 10})
    return figure


def drop_vs_perplexity_figure(frame: pd.DataFrame) -> go.Figure:
    """Confidence drop against the ranking LM's score (perplexity) of each candidate."""
    scored = frame.dropna(subset=["ranking_score"])
    figure = px.scatter(scored, x="ranking_score", y="drop", color="operator", symbol="attack",
                        custom_data=["attack_id"], log_x=True,
                        hover_data={"hover": True, "round": True, "polarity": True, "target_prob": ":.3f"},
                        labels={"ranking_score": "ranking LM perplexity of the candidate",
                                "drop": "drop in P(target)", "hover": "candidate"},
                        title="Confidence drop against perplexity")
    figure.update_layout(height=420, margin={"t": 50, "b": 10},
                         legend={"orientation": "h", "yanchor": "top", "y": -0.2})
    return figure


def attack_figure(points: Sequence[ConfidencePoint], path: Sequence[PathStep], start: float) -> go.Figure:
    """One attack: P(target) of every queried candidate in query order (one colour per round),
    the chosen ones (the path from H to H*) joined by a line, and the original pair's level."""
    frame = points_frame(points)
    figure = go.Figure()
    for rnd, rows in frame.groupby("round"):
        figure.add_trace(go.Scatter(
            x=rows["order"], y=rows["target_prob"], mode="markers", name=f"round {rnd}",
            text=rows["hover"], customdata=rows[["attack_id"]].to_numpy(),
            hovertemplate="%{text}<br>P(target) %{y:.3f}<extra>round " + str(rnd) + "</extra>",
        ))
    chosen = frame[frame["on_path"]]
    figure.add_trace(go.Scatter(
        x=[0, *chosen["order"]], y=[start, *chosen["target_prob"]], mode="lines+markers",
        name="path H → H*", line={"color": "black", "width": 2}, marker={"symbol": "diamond", "size": 10},
        text=[path[0].text if path else "H", *chosen["hover"]],
        hovertemplate="%{text}<br>P(target) %{y:.3f}<extra>path</extra>",
    ))
    figure.add_hline(y=start, line_dash="dot", annotation_text="P(target) on (P, H)", annotation_position="top left")
    figure.update_layout(xaxis_title="query order", yaxis_title="P(target label)", yaxis_range=[0, 1],
                         height=420, margin={"t": 30, "b": 10},
                         legend={"orientation": "h", "yanchor": "top", "y": -0.2})
    return figure


def group_table(rows: Sequence[GroupRow]) -> pd.DataFrame:
    return pd.DataFrame([asdict(r) for r in rows]).drop(columns="group").set_index("value").round(
        {"mean_drop": 3, "median_target_prob": 3, "flip_share": 3})
