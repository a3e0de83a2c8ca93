"""Fluency scorers: SmolLM2 perplexity on real text, masked-LM pseudo-perplexity mechanics, ranking."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
import torch

from engine.core.settings import SettingsError, get_settings
from engine.models.language import LoadedModel, load_causal_lm, load_masked_lm
from engine.ranking.scoring import CausalLMScorer, MaskedLMScorer, build_scorer, lm_work, rank
from tests.ranking.test_models import build_tiny_masked_lm

SENTENCES = [
    "A man is playing a guitar.",
    "Two dogs run across the green field.",
    "The woman is reading a book in the library near the old church.",
    "Kids swim.",
]


@dataclasses.dataclass(frozen=True)
class Item:
    text: str
    score: float | None = None


@pytest.fixture(scope="module")
def smollm(settings) -> LoadedModel:
    return load_causal_lm("offline", settings=settings)


@pytest.fixture(scope="module")
def tiny_mlm(tmp_path_factory: pytest.TempPathFactory) -> LoadedModel:
    """Exactness checks need float32 (``lm_dtype=auto`` picks bfloat16 on CPUs with native bf16)."""
    folder = build_tiny_masked_lm(tmp_path_factory.mktemp("mlm"))
    return load_masked_lm(str(folder), settings=get_settings().with_overrides(lm_dtype="float32"))


@pytest.mark.slow
def test_smollm2_prefers_fluent_over_scrambled(smollm: LoadedModel) -> None:
    """In the configured ``lm_dtype`` (``auto``: bfloat16 on CPUs with native bf16, else float32), on
    purpose: the comparison does not depend on the precision, since each scrambled sentence scores at
    least 6.5 times its fluent one in float32 and in bfloat16 alike (bf16 moves a score by about 3 %)."""
    scorer = CausalLMScorer(smollm)
    fluent = SENTENCES[:3]
    scrambled = [" ".join(reversed(s.rstrip(".").split())) + "." for s in fluent]
    scores = scorer.score(fluent + scrambled)
    for good, bad in zip(scores[:3], scores[3:]):
        assert good < bad


@pytest.mark.slow
def test_a_premise_makes_its_own_content_more_expected(settings) -> None:
    """In float32 (exact comparisons of batched and single scores): reading P lowers the mean NLL of
    an H that repeats P's content far more than of an unrelated H; batched equals one by one; an
    empty-ish prefix leaves the score close to the unconditional one."""
    lm = load_causal_lm("offline", dtype="float32", settings=settings)
    scorer = CausalLMScorer(lm, max_tokens=10_000)
    premise = "A man in a red shirt is playing a guitar on a stage."
    related, unrelated = "A man is playing a guitar.", "Two cats are sleeping on a sofa."
    cond = scorer.conditional_nll([(premise, related), (premise, unrelated)])
    alone = [math.log(v) for v in scorer.score([related, unrelated])]
    assert alone[0] - cond[0] > 2 * (alone[1] - cond[1]) and alone[0] - cond[0] > 0.5
    single = [CausalLMScorer(lm).conditional_nll([pair])[0] for pair in [(premise, related), (premise, unrelated)]]
    assert cond == pytest.approx(single, rel=1e-3)


@pytest.mark.slow
def test_continuation_nll_reads_only_the_next_tokens_after_a_head(settings) -> None:
    """In float32: an object that fits the verb before it ("playing a guitar") costs less than
    after a verb it does not fit ("performing a guitar"); only the first ``tokens`` tokens count;
    an empty rest is NaN; batched equals one by one."""
    lm = load_causal_lm("offline", dtype="float32", settings=settings)
    scorer = CausalLMScorer(lm, max_tokens=10_000)
    pairs = [("A man is playing", "a guitar"), ("A man is performing", "a guitar"),
             ("A man is playing", "a guitar on the stage tonight"), ("A man is playing", "")]
    fit, misfit, longer, empty = scorer.continuation_nll(pairs, tokens=2)
    assert misfit - fit > 1.0
    assert longer == pytest.approx(fit, rel=1e-4) and math.isnan(empty)
    assert scorer.continuation_nll(pairs[2:3], tokens=6)[0] != pytest.approx(fit, rel=1e-2)
    single = [CausalLMScorer(lm).continuation_nll([pair], tokens=2)[0] for pair in pairs[:3]]
    assert [fit, misfit, longer] == pytest.approx(single, rel=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize(("dtype", "tolerance"), [("float32", 1e-3), ("bfloat16", 0.1)])
def test_causal_batched_equals_one_by_one(dtype: str, tolerance: float, settings) -> None:
    """Padding must not change a score; bfloat16 rounds differently per batch shape (up to about 6 % here)."""
    lm = load_causal_lm("offline", dtype=dtype, settings=settings)
    batched = CausalLMScorer(lm, max_tokens=10_000).score(SENTENCES)
    single = [CausalLMScorer(lm).score([s])[0] for s in SENTENCES]  # fresh scorers: no memo
    assert batched == pytest.approx(single, rel=tolerance)
    assert all(math.isfinite(s) and s > 1 for s in batched)


@pytest.mark.slow
def test_a_text_is_scored_once(settings) -> None:
    scorer = CausalLMScorer(load_causal_lm("offline", dtype="float32", settings=settings))
    first = scorer.score(SENTENCES)
    passes = scorer.forward_passes
    assert scorer.score(SENTENCES[:2]) == first[:2] and scorer.forward_passes == passes
    assert scorer.score(SENTENCES[:1] + ["A new sentence."])[0] == first[0] and scorer.forward_passes == passes + 1
    # what bench/speed.py divides into a cost per text: every row a forward pass scored, and its time
    assert scorer.rows_scored == len(SENTENCES) + 1 and scorer.seconds > 0
    rows, seconds, work = scorer.rows_scored, scorer.seconds, lm_work()
    scorer.continuation_nll([("A man is", "playing a guitar.")])
    assert scorer.rows_scored == rows + 1 and scorer.seconds > seconds
    # the process's tally sums every scorer (a run rebuilds its attack, and so its scorers)
    other = CausalLMScorer(scorer.lm)
    other.score(["Another new sentence."])
    done = lm_work() - work
    assert (done.passes, done.rows) == (2, 2) and done.seconds > 0 and done.seconds_per_text == done.seconds / 2


def _reference_pppl(lm: LoadedModel, text: str) -> float:
    """Pseudo-perplexity computed the slow, obvious way: one forward pass per masked position."""
    ids = lm.tokenizer(text)["input_ids"]
    total = 0.0
    for pos in range(1, len(ids) - 1):
        masked = list(ids)
        masked[pos] = lm.tokenizer.mask_token_id
        with torch.no_grad():
            logits = lm.model(input_ids=torch.tensor([masked])).logits[0, pos]
        total += torch.log_softmax(logits, dim=-1)[ids[pos]].item()
    return math.exp(-total / (len(ids) - 2))


def test_masked_scorer_matches_reference_and_batches_all_copies(tiny_mlm: LoadedModel) -> None:
    scorer = MaskedLMScorer(tiny_mlm, max_tokens=100_000, max_rows=1000)
    scores = scorer.score(SENTENCES)
    assert scorer.forward_passes == 1
    assert scores == pytest.approx([_reference_pppl(tiny_mlm, s) for s in SENTENCES], rel=1e-4)


def test_masked_scorer_dynamic_padding_is_invisible(tiny_mlm: LoadedModel) -> None:
    small = MaskedLMScorer(tiny_mlm, max_tokens=64, max_rows=8)
    batched = small.score(SENTENCES)
    assert small.forward_passes > 1
    single = [MaskedLMScorer(tiny_mlm).score([s])[0] for s in SENTENCES]
    assert batched == pytest.approx(single, rel=1e-4)


def test_rank_keeps_the_lowest_scores_first(tiny_mlm: LoadedModel) -> None:
    scorer = MaskedLMScorer(tiny_mlm)
    items = [Item(s) for s in SENTENCES]
    ranked = rank(items, scorer, top_k=3)
    assert len(ranked) == 3
    assert [r.score for r in ranked] == sorted(r.score for r in ranked)
    expected = sorted(scorer.score(SENTENCES))[:3]
    assert [r.score for r in ranked] == pytest.approx(expected)
    assert rank([], scorer, top_k=3) == []


def test_unknown_scorer_is_a_settings_error() -> None:
    with pytest.raises(SettingsError, match="unknown scorer .*; known: causal, masked"):
        build_scorer(get_settings(), "bleu")


def test_masked_scorer_from_settings(tmp_path: Path) -> None:
    folder = build_tiny_masked_lm(tmp_path / "m", seed=1)
    scorer = build_scorer(get_settings().with_overrides(masked_lm=str(folder), scorer="masked"))
    assert isinstance(scorer, MaskedLMScorer)
    assert all(math.isfinite(s) for s in scorer.score(SENTENCES[:2]))


def test_token_nll_in_chunks_is_exactly_one_flat_cross_entropy() -> None:
    """The chunked per-position NLL gives bit for bit what one cross-entropy over the whole
    flattened batch gives, for any width (one row per chunk, several rows, a ragged last chunk)."""
    from engine.ranking.scoring import NLL_CHUNK_TOKENS, _token_nll

    generator = torch.Generator().manual_seed(0)
    for rows, width in ((7, 5), (3, NLL_CHUNK_TOKENS + 3), (11, 2)):
        logits = torch.randn((rows, width, 301), generator=generator).to(torch.bfloat16)
        ids = torch.randint(0, 301, (rows, width), generator=generator)
        flat = torch.nn.functional.cross_entropy(
            logits[:, :-1].reshape(-1, 301).float(), ids[:, 1:].reshape(-1), reduction="none"
        ).view(rows, width - 1)
        assert torch.equal(_token_nll(logits, ids), flat)
