"""The paper's table (setups x victim and data set) from run metrics, and its LaTeX."""

from __future__ import annotations

import pandas as pd

from engine.reports.metrics import RunMetrics
from engine.reports.paper_tables import MEASURES, paper_pivot, to_latex


def metrics(run: str, setup: str, victim: str, data: str, asr: float, qn: float, system: str = "NatLog",
            hvasr: float | None = None, hvasr_fluent: float | None = None,
            hvasr_natural: float | None = None) -> RunMetrics:
    return RunMetrics(run=run, setup=setup, victim=victim, data=data, pairs=10, skipped=1, attacked=9, successful=6,
                      asr=asr, hvasr=hvasr, hvasr_judged=None, judged=0, coverage=None, qn_mean=qn, qn_median=qn,
                      ppl_mean=50.0, seconds=1.0, system=system, hvasr_fluent=hvasr_fluent, hvasr_natural=hvasr_natural)


def test_pivot_has_setups_in_paper_order_and_one_group_per_victim_and_data() -> None:
    rows = [metrics("a", "E2C", "models/victim_offline", "snli_test.tsv", 0.5, 2.0),
            metrics("b", "C2C", "models/victim_offline", "snli_test.tsv", 0.25, 40.0),
            metrics("c", "E2C", "roberta", "sick.tsv", 0.75, 3.0),
            metrics("d", "E2C", "roberta", "sick.tsv", 0.25, 5.0)]  # a second run: averaged
    table = paper_pivot(rows)
    assert list(table.index) == ["C2C", "E2C"]  # the paper's order: label-preserving first
    assert list(dict.fromkeys(c[:-1] for c in table.columns)) == [
        ("NatLog", "roberta", "sick.tsv"), ("NatLog", "victim_offline", "snli_test.tsv")]
    assert table.loc["E2C", ("NatLog", "roberta", "sick.tsv", "asr")] == 0.5
    assert table.loc["E2C", ("NatLog", "roberta", "sick.tsv", "qn_mean")] == 4.0
    assert pd.isna(table.loc["C2C", ("NatLog", "roberta", "sick.tsv", "asr")])
    assert pd.isna(table.loc["E2C", ("NatLog", "victim_offline", "snli_test.tsv", "hvasr")])  # nothing judged
    latex = to_latex(table)
    assert r"\multicolumn{8}{c}{NatLog: victim\_offline / snli\_test.tsv}" in latex
    assert "C2C & -- & -- & -- & -- & -- & -- & -- & -- & 0.250 & -- & -- & -- & -- & 40.0 & 40.0 & 50.0" in latex
    assert latex.count(r"\\") == 2 + len(table) and len(MEASURES) == 8
    assert to_latex(paper_pivot([])) == "% no runs\n"


def test_peer_systems_get_blocks_of_their_own_after_natlog_with_both_hvasr_readings() -> None:
    rows = [metrics("pw", "E2E", "victim", "snli.tsv", 0.9, 60.0, system="PWWS", hvasr=0.7, hvasr_fluent=0.3,
                    hvasr_natural=0.1),
            metrics("nl", "E2E", "victim", "snli.tsv", 0.8, 6.0, hvasr=0.65, hvasr_fluent=0.6),
            metrics("dwb", "E2E", "victim", "snli.tsv", 0.5, 30.0, system="DeepWordBug")]
    table = paper_pivot(rows)
    assert [c[0] for c in dict.fromkeys(c[:-1] for c in table.columns)] == ["NatLog", "DeepWordBug", "PWWS"]
    assert table.loc["E2E", ("PWWS", "victim", "snli.tsv", "hvasr")] == 0.7
    assert table.loc["E2E", ("PWWS", "victim", "snli.tsv", "hvasr_fluent")] == 0.3
    assert table.loc["E2E", ("PWWS", "victim", "snli.tsv", "hvasr_natural")] == 0.1
    assert table.loc["E2E", ("NatLog", "victim", "snli.tsv", "qn_mean")] == 6.0
    assert pd.isna(table.loc["E2E", ("DeepWordBug", "victim", "snli.tsv", "hvasr")])
    latex = to_latex(table)
    assert latex.index("NatLog: victim") < latex.index("DeepWordBug: victim") < latex.index("PWWS: victim")
    assert "HVASR & HVASR+E & HVASR+N" in latex and "0.700 & 0.300 & 0.100" in latex
