"""The report card's table: per phenomenon and setup, how often a victim falls, how sure we are, and
how valid its failures look; and, for two victims, the difference per cell.

A cell counts the pairs whose first round had at least one candidate of the phenomenon (``pairs``)
and those on which one of the asked candidates fooled the victim (``fooled``). Its failure rate
comes with a Wilson 95 % interval (small cells say so), the mean estimated validity and naturalness
of the fooling examples (the estimates of :mod:`engine.validity`), and the mean asks.

In: a profile run's stored pairs. Out: :class:`CardCell` rows, their difference between victims,
and the table as rows for CSV, LaTeX and JSON.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from engine.profile.phenomena import PHENOMENA
from engine.store.profile_runs import ProfilePair

#: The card's columns that are shares (printed with three decimals).
CARD_RATIOS = frozenset({"failure_rate", "ci_low", "ci_high", "est_validity", "est_natural"})

__all__ = ["CARD_RATIOS", "CardCell", "CellDifference", "card_cells", "card_latex", "card_table", "clean_accuracy", "differences",
           "wilson"]

#: The z of a two-sided 95 % interval.
Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` in ``n`` (0, 1 for n = 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class CardCell:
    """One phenomenon in one setup: pairs with a candidate of it, pairs it fooled the victim on, the
    failure rate with its Wilson 95 % interval, the mean estimated validity and naturalness of the
    fooling examples (None without estimates or failures), and the mean asks per pair."""

    phenomenon: str
    setup: str
    pairs: int
    fooled: int
    failure_rate: float
    ci_low: float
    ci_high: float
    est_validity: float | None
    est_natural: float | None
    asks_mean: float

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def card_cells(pairs: Sequence[ProfilePair]) -> list[CardCell]:
    """The card's cells of a profile run's pairs, in the order of :data:`PHENOMENA` then setup."""
    grouped: dict[tuple[str, str], list] = defaultdict(list)
    for pair in pairs:
        if pair.status != "profiled":
            continue
        for cell in pair.cells:
            grouped[(cell.phenomenon, pair.setup)].append(cell)
    order = {name: k for k, name in enumerate(PHENOMENA)}
    out = []
    for (name, setup), cells in sorted(grouped.items(), key=lambda item: (order.get(item[0][0], len(order)),
                                                                          item[0][0], item[0][1])):
        fooled = [c for c in cells if c.fooled]
        low, high = wilson(len(fooled), len(cells))
        out.append(CardCell(
            phenomenon=name, setup=setup, pairs=len(cells), fooled=len(fooled),
            failure_rate=len(fooled) / len(cells), ci_low=low, ci_high=high,
            est_validity=_mean(c.example_validity for c in fooled), est_natural=_mean(c.example_natural for c in fooled),
            asks_mean=sum(c.asked for c in cells) / len(cells)))
    return out


def clean_accuracy(pairs: Sequence[ProfilePair]) -> dict[str, tuple[int, int]]:
    """Per setup, (pairs the victim got right, pairs profiled or skipped): its accuracy on the
    profile's own pairs before any edit (an unparsable pair counts as answered right when it was)."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for pair in pairs:
        out[pair.setup][1] += 1
        out[pair.setup][0] += pair.status != "skipped"
    return {setup: (right, total) for setup, (right, total) in out.items()}


@dataclass(frozen=True)
class CellDifference:
    """One cell measured on two victims: each one's pairs and failure rate, and B's rate minus A's."""

    phenomenon: str
    setup: str
    pairs_a: int
    rate_a: float
    pairs_b: int
    rate_b: float
    difference: float


def differences(first: Sequence[CardCell], second: Sequence[CardCell], min_pairs: int = 1) -> list[CellDifference]:
    """Cells both victims have with at least ``min_pairs`` pairs each, sorted by the size of the
    difference in failure rate (largest first)."""
    index = {(c.phenomenon, c.setup): c for c in second}
    out = []
    for a in first:
        b = index.get((a.phenomenon, a.setup))
        if b is None or a.pairs < min_pairs or b.pairs < min_pairs:
            continue
        out.append(CellDifference(a.phenomenon, a.setup, a.pairs, a.failure_rate, b.pairs, b.failure_rate,
                                  b.failure_rate - a.failure_rate))
    return sorted(out, key=lambda d: (-abs(d.difference), d.phenomenon, d.setup))


def card_table(cells: Sequence[CardCell]) -> tuple[list[str], list[list[object]]]:
    """The card as a table: headers and one row per cell (what ``engine report --profile`` prints and
    the exports hold)."""
    headers = ["phenomenon", "setup", "pairs", "fooled", "failure_rate", "ci_low", "ci_high", "est_validity",
               "est_natural", "asks_mean"]
    return headers, [[getattr(c, h) for h in headers] for c in cells]


def _tex(text: str) -> str:
    out = []
    for ch in str(text):
        out.append({"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
                    "↑": r"$\uparrow$", "↓": r"$\downarrow$"}.get(ch, ch))
    return "".join(out)


def card_latex(cells: Sequence[CardCell]) -> str:
    """A booktabs tabular: one row per phenomenon, one column per setup, each cell the failure rate
    with its pair count ("--" where the setup had no candidate of the phenomenon)."""
    if not cells:
        return "% no profiled pairs\n"
    setups = list(dict.fromkeys(c.setup for c in cells))
    rows = list(dict.fromkeys(c.phenomenon for c in cells))
    index = {(c.phenomenon, c.setup): c for c in cells}
    lines = [r"\begin{tabular}{l" + "r" * len(setups) + "}", r"\toprule",
             "phenomenon & " + " & ".join(_tex(s) for s in setups) + r" \\", r"\midrule"]
    for name in rows:
        parts = [f"{index[(name, s)].failure_rate:.2f} ({index[(name, s)].pairs})" if (name, s) in index else "--"
                 for s in setups]
        lines.append(_tex(name) + " & " + " & ".join(parts) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
