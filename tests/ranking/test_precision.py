"""bfloat16 vs float32: the ranking LM orders real attack candidates almost as in float32.

``lm_dtype = auto`` runs the ranking LM in bfloat16 on CPUs with native bf16 (AVX512-BF16, AMX),
where it is about twice as fast. Its scores are not float32's (and move with the CPU kernel and
thread count: tests/pinned_runs.py pins float32 for that reason), so this test states what bf16
promises instead: a ranking that agrees with float32's within a tolerance, by Spearman's rank
correlation and by the overlap of the two top-10s, not equality. On a CPU without native bf16,
torch emulates bf16 (slower, same contract), so the test runs everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
import torch

from engine.core.settings import Settings, get_settings
from engine.edits.candidates import generate_candidates
from engine.natlog.polarity import Conventions, polarize
from engine.natlog.relations import Relation
from engine.parse import parse
from engine.ranking.scoring import CausalLMScorer, Scorer, build_scorer

# Real SNLI test hypotheses; every operator's candidates for every relation (the union of what the
# six setups' first rounds generate) give 100, 76 and 66 distinct sentences.
HYPOTHESES = (
    "A man playing an electric guitar on stage.",
    "A vehicle is crossing a river.",
    "Tons of people are gathered around the statue.",
)
TOP = 10
# Measured on a CPU with native bf16 (AVX512-BF16) at one and two threads, and with AVX2 kernels
# only (ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2: emulated bf16), per hypothesis above:
# Spearman 0.9991-0.9994, 0.9982-0.9983, 0.9978-0.9990; top-10 overlap 9, 9, 10. The thresholds
# leave a margin of about ten times the measured disagreement (1 - rho) and two of the ten.
MIN_SPEARMAN = 0.98
MIN_TOP_OVERLAP = 7


def _ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start:end + 1]:
            ranks[i] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's correlation of the (tie-averaged) ranks."""
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    var_a = sum((x - ma) ** 2 for x in ra)
    var_b = sum((y - mb) ** 2 for y in rb)
    return cov / (var_a * var_b) ** 0.5


def top_overlap(a: Sequence[float], b: Sequence[float], k: int) -> int:
    """How many of the ``k`` lowest-scored items (the best ranked) the two scorings share."""
    best_a = sorted(range(len(a)), key=lambda i: a[i])[:k]
    best_b = sorted(range(len(b)), key=lambda i: b[i])[:k]
    return len(set(best_a) & set(best_b))


def test_spearman_and_top_overlap_by_hand() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)  # 1 - 6 * 4 / (5 * 24)
    assert _ranks([3.0, 1.0, 3.0, 2.0]) == [3.5, 1.0, 3.5, 2.0]
    assert top_overlap([1, 2, 3, 4], [1, 3, 2, 0], 2) == 1


MAX_TEXTS = 120


@pytest.fixture(scope="module")
def settings() -> Iterator[Settings]:
    """Every operator on, one torch thread (reproducible values, fastest on a busy CPU); torch's
    thread count is restored afterwards."""
    threads = torch.get_num_threads()
    yield get_settings().with_overrides(disabled_operators="none", torch_threads=1)
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def scorers(settings: Settings) -> dict[str, Scorer]:
    """The real ranking scorer (``build_scorer``, as ``engine.attack.build.build`` makes it) in each precision."""
    out = {dtype: build_scorer(settings.with_overrides(lm_dtype=dtype, scorer="causal"))
           for dtype in ("float32", "bfloat16")}
    for dtype, scorer in out.items():
        assert isinstance(scorer, CausalLMScorer)
        assert next(scorer.lm.model.parameters()).dtype == getattr(torch, dtype)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("hypothesis", HYPOTHESES)
def test_bfloat16_ranking_agrees_with_float32_within_tolerance(hypothesis: str, settings: Settings,
                                                               scorers: dict[str, Scorer]) -> None:
    """The candidates a round generates for a real SNLI hypothesis, scored in float32 and in
    bfloat16: Spearman >= MIN_SPEARMAN and the top-10s share >= MIN_TOP_OVERLAP sentences.
    (No AltLM and no constraint chain: both would use the scorer, and the list must not depend on
    the precision under test.)"""
    polarized = polarize(parse(hypothesis, settings=settings), conventions=Conventions.of(settings))
    found = generate_candidates(polarized, set(Relation), settings=settings)
    texts = list(dict.fromkeys(c.text for c in found))
    assert len(texts) >= 40, f"only {len(texts)} distinct candidates for {hypothesis!r}"
    # At most the first MAX_TEXTS (about a round's ranked list): bfloat16 is slow on a CPU without
    # native bfloat16 arithmetic, and every operator over every relation makes hundreds.
    texts = texts[:MAX_TEXTS]
    float32 = scorers["float32"].score(texts)
    bfloat16 = scorers["bfloat16"].score(texts)
    rho, shared = spearman(float32, bfloat16), top_overlap(float32, bfloat16, TOP)
    measured = f"bfloat16 vs float32 on {len(texts)} candidates: Spearman {rho:.4f}, top-{TOP} overlap {shared}"
    assert rho >= MIN_SPEARMAN, measured
    assert shared >= MIN_TOP_OVERLAP, measured
