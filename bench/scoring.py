"""Benchmark the fluency scorers: the same candidates scored one by one and batched.

    python bench/scoring.py [--n 512] [--data ../shared/data/snli_test.tsv] [--masked-lm NAME]
                            [--dtypes float32,bfloat16] [--rows 8,16,32,64]

Candidates are generated from SNLI test hypotheses (each with the setups of its
gold label). The causal scorer is the registry's ``settings.causal_lm`` (SmolLM2-135M
offline). The masked scorer uses ``--masked-lm`` when given; otherwise, offline, a
BertForMaskedLM with the all-MiniLM-L6-v2 encoder and an untrained MLM head
(representative for speed only). Each scorer runs in every ``--dtypes`` precision. Prints
sentences per second, the batching speed-up, and how far each precision's scores and ranking
are from the first precision's.

``--rows`` also scores the same candidates with the causal scorer's batches capped at each number
of rows (a fresh scorer each, after one warm-up batch): how much larger batches would gain, which is
what running several searches in lockstep, to batch their rounds together, could save at most.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import torch
from tqdm import tqdm

from engine.api import get_settings
from engine.core.errors import InputError
from engine.core.resources import minilm_path
from engine.edits.candidates import generate_candidates
from engine.models.language import LoadedModel, load_causal_lm, load_masked_lm, resolve_device
from engine.natlog.polarity import polarize
from engine.natlog.setups import setups_for_label
from engine.parse import parse
from engine.ranking.scoring import CausalLMScorer, MaskedLMScorer, Scorer


def candidate_texts(path: Path, n: int) -> list[str]:
    """``n`` distinct candidate texts generated from the hypotheses of an SNLI-format TSV."""
    settings = get_settings()
    if not path.is_file():
        raise SystemExit(f"SNLI test file not found at {path}; pass --data PATH")
    texts: list[str] = []
    with path.open(encoding="utf-8") as handle, tqdm(total=n, desc="generating", unit="cand") as bar:
        for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            try:
                polarized = polarize(parse(row[2], settings=settings))
            except (InputError, IndexError):
                continue
            for setup in setups_for_label(row[3].lower()):
                for c in generate_candidates(polarized, setup.relations, setup=setup.name, settings=settings)[:8]:
                    if c.text not in texts and len(texts) < n:
                        texts.append(c.text)
                        bar.update(1)
            if len(texts) >= n:
                return texts
    return texts


def minilm_masked_lm_folder(folder: Path) -> Path:
    """all-MiniLM-L6-v2's encoder under a fresh MLM head, saved as a masked LM."""
    from transformers import AutoTokenizer, BertForMaskedLM
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    BertForMaskedLM.from_pretrained(minilm_path()).save_pretrained(folder)
    AutoTokenizer.from_pretrained(minilm_path()).save_pretrained(folder)
    return folder


def measure(name: str, make: Callable[[], Scorer], texts: list[str]) -> list[float]:
    """The same texts scored one by one and batched, each by a fresh scorer from ``make`` (the causal
    scorer memoises per text: one scorer would answer the batched pass from its memo)."""
    scorer = make()
    start = time.perf_counter()
    single = [scorer.score([t])[0] for t in tqdm(texts, desc=f"{name} one by one", leave=False)]
    one_by_one = time.perf_counter() - start
    scorer = make()
    passes = getattr(scorer, "forward_passes", 0)
    start = time.perf_counter()
    batched = scorer.score(texts)
    together = time.perf_counter() - start
    passes = getattr(scorer, "forward_passes", 0) - passes
    drift = max(abs(a - b) / max(abs(a), 1e-9) for a, b in zip(single, batched))
    print(
        f"{name:<34} one-by-one {len(texts) / one_by_one:8.1f} sent/s   batched {len(texts) / together:8.1f} sent/s"
        f"   speed-up x{one_by_one / together:5.1f}   max relative score difference {drift:.1e}"
        + (f"   ({passes} forward passes batched)" if passes else "")
    )
    return batched


def by_rows(name: str, lm: LoadedModel, texts: list[str], rows: list[int]) -> list[float]:
    """Sentences a second when the causal scorer's batches hold at most each of ``rows`` texts."""
    CausalLMScorer(lm).score(texts[:16])  # warm-up
    rates = []
    for n in rows:
        scorer = CausalLMScorer(lm, max_rows=n)
        start = time.perf_counter()
        scorer.score(texts)
        rates.append(len(texts) / (time.perf_counter() - start))
    print(f"{name:<34} " + "   ".join(f"{n} rows {rate:6.1f} sent/s" for n, rate in zip(rows, rates)))
    return rates


def row_counts(value: str) -> list[int]:
    """``--rows``: comma-separated positive whole numbers."""
    try:
        rows = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        rows = []
    if not rows or min(rows) < 1:
        raise argparse.ArgumentTypeError(f"expected positive whole numbers separated by commas, got {value!r}")
    return rows


def compare(name: str, reference: list[float], scores: list[float]) -> None:
    """How far ``scores`` are from ``reference``: relative difference and rank agreement."""
    from scipy.stats import spearmanr

    drift = statistics.median(abs(a - b) / a for a, b in zip(reference, scores))
    print(f"{'':<34} vs {name}: median relative difference {drift:.1e}, "
          f"Spearman rank correlation {spearmanr(reference, scores).statistic:.4f}")


def main() -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--data", type=Path, default=settings.shared_data_dir / "snli_test.tsv")
    parser.add_argument("--masked-lm", default=None, help="Hub id or folder (default: MiniLM encoder, offline)")
    parser.add_argument("--skip", choices=("causal", "masked"), default=None)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--dtypes", default="float32,bfloat16", help="comma-separated precisions to measure")
    parser.add_argument("--rows", type=row_counts, default=[],
                        help="comma-separated batch sizes (rows) to time the causal scorer at")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    texts = candidate_texts(args.data, args.n)
    words = sum(len(t.split()) for t in texts) / len(texts)
    print(
        f"{len(texts)} candidates, {words:.1f} words on average, device {resolve_device(settings)}, "
        f"{torch.get_num_threads()} CPU threads"
    )
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    if args.skip != "causal":
        reference = None
        for dtype in dtypes:
            lm = load_causal_lm(settings=settings, dtype=dtype)
            print(f"causal LM {lm.name!r} in {dtype} loaded in {lm.load_seconds:.1f}s")
            scores = measure(f"causal PPL (SmolLM2-135M, {dtype})", partial(CausalLMScorer, lm), texts)
            if args.rows:
                by_rows(f"  by batch rows ({dtype})", lm, texts, args.rows)
            if reference is not None:
                compare(dtypes[0], reference, scores)
            reference = reference or scores
    if args.skip != "masked":
        with tempfile.TemporaryDirectory() as tmp:
            name = args.masked_lm or str(minilm_masked_lm_folder(Path(tmp)))
            label = args.masked_lm or "MiniLM-L6 encoder, untrained head"
            reference = None
            for dtype in dtypes:
                mlm = load_masked_lm(name, settings=settings.with_overrides(lm_dtype=dtype))
                scores = measure(f"masked PPPL ({label}, {dtype})", partial(MaskedLMScorer, mlm), texts)
                if reference is not None:
                    compare(dtypes[0], reference, scores)
                reference = reference or scores


if __name__ == "__main__":
    main()
