"""bench/speed.py's LM floor: the distinct candidates an attack asked, and what scoring only those
would cost at the run's measured cost of a text."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bench import speed
from engine.ranking.scoring import LMWork


def stored(*rounds: list[str]) -> SimpleNamespace:
    """An attack as the store gives it back: its trace's rounds, each with the texts it asked."""
    return SimpleNamespace(record=SimpleNamespace(trace={"rounds": [
        {"queried": [{"text": t} for t in texts]} for texts in rounds]}))


def test_distinct_asked_counts_a_text_asked_again_in_a_later_round_once() -> None:
    assert speed.distinct_asked(stored(["a", "b"], ["b", "c"]).record.trace) == 3
    assert speed.distinct_asked({}) == 0


def test_the_floor_is_the_asked_candidates_at_the_measured_cost_of_a_text() -> None:
    attacks = [stored(["a", "b"], ["b", "c"]), stored(["d"])]  # 3 and 1 distinct texts asked
    row, above = speed.lm_floor("C2C", attacks, LMWork(passes=5, rows=20, seconds=2.0))  # 0.1 s a text
    assert row[:3] == ["C2C", 2.0, 10.0]
    assert row[3:] == pytest.approx([1.0, 100.0, 0.2])  # LM s / pair, ms / text, floor s / pair
    assert above == pytest.approx(2.0 - 4 * 0.1)
    # No text scored: no cost per text, and nothing to take out.
    row, above = speed.lm_floor("E2E", attacks, LMWork())
    assert row[4] is None and above == 0.0
