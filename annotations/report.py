"""The paper's tables with human validation: the engine's run metrics (ASR, QN, PPL) and
breakdowns, with each run's HVASR (three readings) and judged count, and each operator's judged
shares, from the annotations."""

from __future__ import annotations

from annotations.aggregation import hvasr, verdicts
from annotations.store import Store
from engine.reports.metrics import HumanValidation, Report
from engine.reports.metrics import load_report as load_engine_report


def human_validation(store: Store) -> dict[str, HumanValidation]:
    """Per run name: its attacked, successful, judged and valid counts (HVASR's one definition)."""
    return {row.value: HumanValidation(row.attacked, row.successful, row.judged, row.valid, row.valid_fluent,
                                       row.valid_natural)
            for row in hvasr(store, "run")}


def load_report(store: Store, run: str | None = None) -> Report:
    """Run metrics with HVASR, and the operator and polarity breakdowns with their judged shares."""
    return load_engine_report(store, run, human_validation(store), verdicts(store))
