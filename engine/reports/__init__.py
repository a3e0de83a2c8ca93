"""Reports over stored runs: ASR, QN, PPL and HVASR, breakdowns, the paper's tables, the
confidence explorer's data, and the one text-table printer.

In: stored attacks (and judgments). Out: metrics, tables, chart data.
"""
