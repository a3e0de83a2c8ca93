"""Tables and plotly figures of the Probes page (pure pandas/plotly: testable without a browser)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from engine.api import LABELS, ProbeResult, ProbeSummary


def overview_frame(summaries: Sequence[ProbeSummary]) -> pd.DataFrame:
    """Every probe run side by side: suite, victim, items, accuracy, weighted F1."""
    return pd.DataFrame([{"run": s.run, "suite": s.suite, "victim": s.victim, "items": s.items,
                          "accuracy": s.accuracy, "weighted F1": s.weighted_f1} for s in summaries]).set_index("run")


def category_frame(summary: ProbeSummary) -> pd.DataFrame:
    return pd.DataFrame(summary.by_category).set_index("category")


def category_figure(summary: ProbeSummary) -> go.Figure:
    """Accuracy and weighted F1 per category (bars), clickable for drill-down."""
    long = pd.DataFrame(summary.by_category).melt(id_vars=["category", "items"],
                                                  value_vars=["accuracy", "weighted_f1"],
                                                  var_name="metric", value_name="score")
    figure = px.bar(long, x="category", y="score", color="metric", barmode="group", range_y=[0, 1],
                    hover_data=["items"], custom_data=["category"],
                    title=f"{summary.suite}: accuracy and weighted F1 per category")
    return figure


def confusion_frame(summary: ProbeSummary) -> pd.DataFrame:
    frame = pd.DataFrame(summary.confusion).T.reindex(index=list(map(str, LABELS)), columns=list(map(str, LABELS)))
    frame.index.name = "gold \\ predicted"
    return frame


def report_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(list(rows))


def items_frame(results: Sequence[ProbeResult], category: str | None = None, group: str | None = None,
                wrong_only: bool = False) -> pd.DataFrame:
    """The items of one cell with the victim's probabilities (text shown as data, never as markup)."""
    rows = [{
        "item": r.item_index, "category": r.category, "group": r.group, "premise": r.premise,
        "hypothesis": r.hypothesis, "gold": r.gold_label, "predicted": r.predicted_label, "correct": r.correct,
        **{f"p({label})": round(p, 3) for label, p in zip(LABELS, r.probabilities)}, "form": r.form,
    } for r in results
        if (category is None or r.category == category) and (group is None or r.group == group)
        and not (wrong_only and r.correct)]
    return pd.DataFrame(rows).set_index("item") if rows else pd.DataFrame()


def comparison_figure(summaries: Sequence[ProbeSummary]) -> go.Figure:
    """Accuracy per category for several runs of one suite (e.g. victims side by side)."""
    rows = [{"run": s.run, "category": row["category"], "accuracy": row["accuracy"]}
            for s in summaries for row in s.by_category]
    return px.bar(pd.DataFrame(rows), x="category", y="accuracy", color="run", barmode="group", range_y=[0, 1],
                  title="Accuracy per category, runs compared")
