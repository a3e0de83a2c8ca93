"""The one text-table printer of the command lines (``engine`` and ``annotations``): markdown
tables, so that output pastes into a README or an issue as it is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, is_dataclass

#: Columns printed as ratios (three decimals); other floats get one.
RATIOS = frozenset({"asr", "hvasr", "hvasr_judged", "hvasr judged", "hvasr_estimated", "hvasr estimated",
                    "hvasr_fluent", "hvasr+e", "hvasr_natural", "hvasr+n", "estimate on judged", "coverage",
                    "share", "agreement", "gold_accuracy", "not_fluent_share", "odd share", "broken share",
                    "accuracy", "valid", "natural", "asr_contribution", "valid_share", "natural_share"})


def format_cell(value: object, ratio: bool = True) -> str:
    """``-`` for None, floats with three decimals (ratios) or one, anything else as ``str``."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if ratio else f"{value:.1f}"
    return str(value)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[object]], ratios: frozenset[str] = RATIOS) -> str:
    """A markdown table; a float cell is a ratio when its header is in ``ratios``."""
    if not rows:
        return "(no rows)"
    body = [[format_cell(v, h.lower() in ratios) for h, v in zip(headers, row)] for row in rows]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(lines)


def record_table(rows: Sequence[object], columns: Sequence[str] | None = None) -> str:
    """A markdown table of dataclass records (all fields, or ``columns``)."""
    if not rows:
        return "(no rows)"
    first = rows[0]
    if columns is None:
        if not is_dataclass(first):
            raise TypeError("record_table needs dataclass rows or explicit columns")
        columns = [f.name for f in fields(first)]
    return format_table(list(columns), [[getattr(row, c) for c in columns] for row in rows])


#: What a spreadsheet reads as the start of a formula (``=HYPERLINK(...)``, ``+cmd``, ``-2+3``,
#: ``@SUM``) or of a hidden one (a tab or carriage return before it).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """A CSV cell that a spreadsheet opens as text: a string starting like a formula gets a leading
    apostrophe (OWASP's advice; Excel, LibreOffice and Google Sheets show the text without it).
    Numbers stay numbers, so a negative number is not touched; JSON Lines exports stay exact."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def csv_text(frame: object) -> str:
    """A pandas frame as CSV with every text cell and label :func:`spreadsheet_safe` (what the app's
    download buttons give)."""
    import pandas as pd

    assert isinstance(frame, pd.DataFrame)
    safe = frame.map(spreadsheet_safe)
    safe.index = safe.index.map(spreadsheet_safe)
    safe.columns = safe.columns.map(spreadsheet_safe)
    return str(safe.to_csv())
