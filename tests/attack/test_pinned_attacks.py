"""Seeded attacks, with the ranking LM in float32 at one torch thread, give the same H*, query
numbers and traces as the pin (see tests/pinned_runs.py for when it was recorded, and why in float32:
bfloat16 scores differ between CPU kernels and thread counts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tests.pinned_runs import MAX_HVASR, PIN, PIN_MAX_HVASR, run_cases

pytestmark = pytest.mark.slow


def test_seeded_attacks_in_float32_at_one_thread_match_the_pin(shared_data: Path, tmp_path: Path) -> None:
    """float32, one torch thread (``OVERRIDES``, whatever NATLOG_LM_DTYPE or NATLOG_TORCH_THREADS say)."""
    pinned = json.loads(PIN.read_text(encoding="utf-8"))
    threads = torch.get_num_threads()
    found = run_cases(shared_data, tmp_path / "victim")
    assert torch.get_num_threads() == threads, "run_cases must restore torch's thread count"
    assert [c["setup"] for c in found] == [c["setup"] for c in pinned]
    for got, want in zip(found, pinned):
        assert got == want, f"{want['setup']} on {want['hypothesis']!r} changed (ranking LM in float32, 1 thread)"
    # The pin exercises what it should: successes and failures, several rounds, a constraint that
    # dropped candidates, and sentence-level as well as word-level operators.
    statuses = {c["status"] for c in pinned}
    operators = {q[1] for c in pinned for r in c["rounds"] for q in r["queried"]}
    assert {"success", "failed"} <= statuses
    assert any(len(c["rounds"]) > 1 for c in pinned)
    assert any(r["rejected"] for c in pinned for r in c["rounds"])
    assert {"SentenceNegation", "DoubleNegation", "PerturbSyno", "PerturbHyper"} <= operators
    # Insertions are generated in these rounds; at the default insertion cost the LM finds none of
    # them fitting enough to be asked ("Two kids are running down a highway in the water").
    assert sum(r["rejected"].get("insertion-fit", 0) for c in pinned for r in c["rounds"]) > 0


def test_the_max_hvasr_order_keeps_the_pin_before_natural_candidates(shared_data: Path, tmp_path: Path) -> None:
    """The order of the validity estimate (the ``max-hvasr`` recipe) gives every H*, query and trace
    of the pin recorded before natural candidates came first; the default differs from it."""
    older = json.loads(PIN_MAX_HVASR.read_text(encoding="utf-8"))
    found = run_cases(shared_data, tmp_path / "victim", MAX_HVASR)
    for got, want in zip(found, older, strict=True):
        assert got == want, f"{want['setup']} on {want['hypothesis']!r} changed under the max-hvasr order"
    assert older != json.loads(PIN.read_text(encoding="utf-8"))
