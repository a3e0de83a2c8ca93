"""The paper's result tables (Zheng & Zhu 2023, Tables 4-5): one row per setup, one column group
per (victim, data set), with ASR, HVASR, QN mean / median and PPL; as a DataFrame, CSV or LaTeX."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from engine.metrics import RunMetrics
from engine.natlog.setups import SETUPS

#: The measures of each (victim, data set) column group, in the paper's order, with their digits.
MEASURES: dict[str, int] = {"asr": 3, "hvasr": 3, "coverage": 3, "qn_mean": 1, "qn_median": 1, "ppl_mean": 1}


def paper_pivot(runs: Sequence[RunMetrics]) -> pd.DataFrame:
    """Setups (rows, in the paper's order) x (victim, data, measure) columns. Several runs of one
    setup, victim and data file are pooled by their mean (say so in the caption when it happens)."""
    if not runs:
        return pd.DataFrame()
    long = pd.DataFrame([{"setup": r.setup, "victim": r.victim.rstrip("/").split("/")[-1], "data": r.data,
                          **{m: getattr(r, m) for m in MEASURES}} for r in runs])
    table = long.pivot_table(index="setup", columns=["victim", "data"], values=list(MEASURES), aggfunc="mean")
    table = table.reorder_levels([1, 2, 0], axis=1)
    groups = sorted(set(zip(long["victim"], long["data"])))
    table = table.reindex(columns=pd.MultiIndex.from_tuples([(v, d, m) for v, d in groups for m in MEASURES]))
    order = [s for s in SETUPS if s in table.index]
    table = table.reindex(order)
    return table.apply(lambda column: column.round(MEASURES[column.name[2]]))


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}


def _tex(text: object) -> str:
    """Text set as itself in LaTeX."""
    return "".join(_TEX.get(ch, ch) for ch in str(text))


def to_latex(table: pd.DataFrame) -> str:
    """A booktabs tabular of :func:`paper_pivot` (data text escaped for LaTeX; "--" for no value)."""
    if table.empty:
        return "% no runs\n"
    groups = list(dict.fromkeys((v, d) for v, d, _ in table.columns))
    names = {"asr": "ASR", "hvasr": "HVASR", "coverage": "judged", "qn_mean": "QN", "qn_median": "QN med.",
             "ppl_mean": "PPL"}
    width = len(MEASURES)
    lines = [r"\begin{tabular}{l" + "r" * (width * len(groups)) + "}", r"\toprule"]
    lines.append(" & " + " & ".join(rf"\multicolumn{{{width}}}{{c}}{{{_tex(v)} / {_tex(d)}}}" for v, d in groups)
                 + r" \\")
    lines.append("setup & " + " & ".join(names[m] for _ in groups for m in MEASURES) + r" \\")
    lines.append(r"\midrule")
    for setup, row in table.iterrows():
        cells = ["--" if pd.isna(value) else f"{value:.{MEASURES[m]}f}"
                 for (_, _, m), value in zip(table.columns, row)]
        lines.append(f"{_tex(setup)} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)
