"""The paper's result tables (Zheng & Zhu 2023, Tables 4-5): one row per setup, one column group
per (attack system, victim, data set), with ASR, HVASR in three readings (label only, as the paper;
label and not broken, HVASR+E; label and natural, HVASR+N), the judged share, QN mean / median and
PPL; as a DataFrame, CSV or LaTeX.
NatLog and the peer attacks recorded beside it (bench/peers.py) sit side by side, NatLog first."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from engine.natlog.setups import SETUPS
from engine.reports.metrics import RunMetrics
from engine.store.records import NATLOG_SYSTEM

#: The measures of each (victim, data set) column group, in the paper's order, with their digits.
MEASURES: dict[str, int] = {"asr": 3, "hvasr": 3, "hvasr_fluent": 3, "hvasr_natural": 3, "coverage": 3,
                            "qn_mean": 1, "qn_median": 1, "ppl_mean": 1}
#: Column headings of the measures (LaTeX and the app): HVASR label only, +E label and not broken
#: (reads as English), +N label and natural.
MEASURE_NAMES = {"asr": "ASR", "hvasr": "HVASR", "hvasr_fluent": "HVASR+E", "hvasr_natural": "HVASR+N",
                 "coverage": "judged", "qn_mean": "QN", "qn_median": "QN med.", "ppl_mean": "PPL"}
GROUP_LEVELS = ("system", "victim", "data")


def _system_order(system: str) -> tuple[int, str]:
    return (system != NATLOG_SYSTEM, system.lower())


def paper_pivot(runs: Sequence[RunMetrics]) -> pd.DataFrame:
    """Setups (rows, in the paper's order) x (system, victim, data, measure) columns, NatLog's
    blocks first. Several runs of one system, setup, victim and data file are pooled by their mean
    (say so in the caption when it happens)."""
    if not runs:
        return pd.DataFrame()
    long = pd.DataFrame([{"setup": r.setup, "system": r.system, "victim": r.victim.rstrip("/").split("/")[-1],
                          "data": r.data, **{m: getattr(r, m) for m in MEASURES}} for r in runs])
    long[list(MEASURES)] = long[list(MEASURES)].astype(float)
    table = long.pivot_table(index="setup", columns=list(GROUP_LEVELS), values=list(MEASURES), aggfunc="mean")
    table = table.reorder_levels([1, 2, 3, 0], axis=1)
    groups = sorted(set(zip(long["system"], long["victim"], long["data"])),
                    key=lambda g: (_system_order(g[0]), g[1], g[2]))
    table = table.reindex(columns=pd.MultiIndex.from_tuples([(*g, m) for g in groups for m in MEASURES]))
    order = [s for s in SETUPS if s in table.index]
    table = table.reindex(order)
    return table.apply(lambda column: column.round(MEASURES[column.name[-1]]))


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}


def _tex(text: object) -> str:
    """Text set as itself in LaTeX."""
    return "".join(_TEX.get(ch, ch) for ch in str(text))


def to_latex(table: pd.DataFrame) -> str:
    """A booktabs tabular of :func:`paper_pivot` (data text escaped for LaTeX; "--" for no value)."""
    if table.empty:
        return "% no runs\n"
    groups = list(dict.fromkeys(column[:-1] for column in table.columns))
    width = len(MEASURES)
    lines = [r"\begin{tabular}{l" + "r" * (width * len(groups)) + "}", r"\toprule"]
    lines.append(" & " + " & ".join(rf"\multicolumn{{{width}}}{{c}}{{{_tex(s)}: {_tex(v)} / {_tex(d)}}}"
                                    for s, v, d in groups) + r" \\")
    lines.append("setup & " + " & ".join(MEASURE_NAMES[m] for _ in groups for m in MEASURES) + r" \\")
    lines.append(r"\midrule")
    for setup, row in table.iterrows():
        cells = ["--" if pd.isna(value) else f"{value:.{MEASURES[column[-1]]}f}"
                 for column, value in zip(table.columns, row)]
        lines.append(f"{_tex(setup)} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)


def format_paper(table: pd.DataFrame) -> str:
    """:func:`paper_pivot` as plain text: one block of rows per (system, victim, data), setups down."""
    if table.empty:
        return "(no runs)"
    from engine.reports.tables import format_table

    blocks = []
    for group in dict.fromkeys(column[:-1] for column in table.columns):
        rows = [[setup, *("-" if pd.isna(row[(*group, m)]) else f"{row[(*group, m)]:.{d}f}"
                          for m, d in MEASURES.items())] for setup, row in table.iterrows()]
        blocks.append(f"{group[0]}: {group[1]} / {group[2]}\n"
                      + format_table(["setup", *(MEASURE_NAMES[m] for m in MEASURES)], rows))
    return "\n\n".join(blocks)
