"""Quality control: score candidate sentences by fluency and keep the best (lowest score).

Two scorers share the :class:`Scorer` interface: :class:`CausalLMScorer` (perplexity
of a causal LM, the offline default with SmolLM2-135M) and :class:`MaskedLMScorer`
(pseudo-perplexity of a masked LM, Salazar et al. 2020). Both sort inputs by length
and pad each batch only to its own longest sequence.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

import torch

from engine.core.caches import Memo
from engine.core.registry import Registry
from engine.core.settings import Settings, SettingsError
from engine.models.language import LoadedModel, load_causal_lm, load_masked_lm


class Scorer(Protocol):
    """Maps sentences to fluency scores; lower is more fluent."""

    name: str

    def score(self, texts: Sequence[str]) -> list[float]: ...

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """How many tokens each text's score averages over (score ** count: its total likelihood)."""
        ...


class _Scored(Protocol):
    """A dataclass (for :func:`dataclasses.replace`) with a ``text`` and a ``score`` field."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    @property
    def text(self) -> str: ...

    @property
    def score(self) -> float | None: ...


S = TypeVar("S", bound=_Scored)


def _length_batches(lengths: Sequence[int], max_tokens: int, max_rows: int) -> list[list[int]]:
    """Indices grouped by ascending length so each padded batch holds at most ``max_tokens``."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        width = lengths[i]
        if current and ((len(current) + 1) * width > max_tokens or len(current) >= max_rows):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


@dataclasses.dataclass(frozen=True)
class LMWork:
    """What the process's causal-LM scorers computed: forward passes, the texts (rows) they scored
    and the seconds they took. Subtract two snapshots of :func:`lm_work` for a stretch of work."""

    passes: int = 0
    rows: int = 0
    seconds: float = 0.0

    def __sub__(self, other: LMWork) -> LMWork:
        return LMWork(self.passes - other.passes, self.rows - other.rows, self.seconds - other.seconds)

    @property
    def seconds_per_text(self) -> float | None:
        return self.seconds / self.rows if self.rows else None


class _Tally:
    passes = rows = 0
    seconds = 0.0


_WORK = _Tally()


def lm_work() -> LMWork:
    """The work of every :class:`CausalLMScorer` of the process so far (a run rebuilds its attack,
    and so its scorers, per data file: a per-scorer count would miss it)."""
    return LMWork(_WORK.passes, _WORK.rows, _WORK.seconds)


class CausalLMScorer:
    """Perplexity under a causal LM: exp of the mean token negative log-likelihood.

    Scores are memoised per text (``cache_size`` texts): a hypothesis or candidate seen in an
    earlier round or attack is not scored again, and keeps the score it was first given (in
    bfloat16 a score moves slightly with the batch it is computed in).
    """

    name = "causal-ppl"

    def __init__(self, lm: LoadedModel, max_tokens: int = 4096, max_rows: int = 64, *,
                 cache_size: int = 50_000) -> None:
        self.lm, self.max_tokens, self.max_rows, self.cache_size = lm, max_tokens, max_rows, cache_size
        tok = lm.tokenizer
        self._start = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
        self._pad = tok.pad_token_id if tok.pad_token_id is not None else self._start
        self._memo: Memo[str, float] = Memo("lm.scores", cache_size)
        self._continued: Memo[tuple[str, tuple[int, ...]], float] = Memo("lm.continuations", cache_size)
        #: this scorer's forward passes, the texts (rows) they scored and the seconds they took, over
        #: every use (scores, conditional and continuation NLLs); :func:`lm_work` sums every scorer's
        self.forward_passes, self.rows_scored, self.seconds = 0, 0, 0.0

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        return [len(self.lm.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts]

    def score(self, texts: Sequence[str]) -> list[float]:
        missing = self._memo.missing(texts)
        if missing:
            for text, value in zip(missing, self._score(missing)):
                self._memo.put(text, value)
        return [self._memo[t] for t in texts]

    def _score(self, texts: Sequence[str]) -> list[float]:
        ids = [[self._start, *self.lm.tokenizer(t, add_special_tokens=False)["input_ids"]] for t in texts]
        return [math.exp(value) for value in self._mean_nll(ids, [1] * len(ids))]

    @torch.inference_mode()
    def _mean_nll(self, ids: Sequence[list[int]], first: Sequence[int]) -> list[float]:
        """Mean NLL of the tokens ``ids[i][first[i]:]`` given those before them, in length-sorted,
        dynamically padded batches."""
        out = [math.inf] * len(ids)
        began = time.perf_counter()
        for batch in _length_batches([len(x) for x in ids], self.max_tokens, self.max_rows):
            width = max(len(ids[i]) for i in batch)
            input_ids = torch.full((len(batch), width), self._pad, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            scored = torch.zeros((len(batch), width), dtype=torch.long)
            for row, i in enumerate(batch):
                input_ids[row, : len(ids[i])] = torch.tensor(ids[i])
                mask[row, : len(ids[i])] = 1
                scored[row, first[i]: len(ids[i])] = 1
            input_ids, mask, scored = input_ids.to(self.lm.device), mask.to(self.lm.device), scored.to(self.lm.device)
            logits = self.lm.model(input_ids=input_ids, attention_mask=mask).logits
            self.forward_passes += 1
            nll = _token_nll(logits, input_ids) * scored[:, 1:]
            counts = scored[:, 1:].sum(dim=1).clamp(min=1)
            for row, value in zip(batch, (nll.sum(dim=1) / counts).tolist()):
                out[row] = value
            self.rows_scored += len(batch)
            _WORK.rows += len(batch)
            _WORK.passes += 1
        elapsed = time.perf_counter() - began
        self.seconds += elapsed
        _WORK.seconds += elapsed
        return out

    def conditional_nll(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """Mean negative log-likelihood of each ``text``'s tokens after ``prefix`` (a premise, then a
        line break): how expected the hypothesis is once the premise is read. The text is tokenised
        on its own, as :meth:`score` tokenises it, so ``conditional_nll([(P, H)])`` against
        ``log(score([H]))`` says how much reading P helps H. Not memoised; batched like :meth:`score`."""
        tok = self.lm.tokenizer
        prefixes = [[self._start, *tok(f"{prefix}\n", add_special_tokens=False)["input_ids"]] for prefix, _ in pairs]
        ids = [a + tok(text, add_special_tokens=False)["input_ids"] for a, (_, text) in zip(prefixes, pairs)]
        return self._mean_nll(ids, [len(a) for a in prefixes])

    def continuation_nll(self, pairs: Sequence[tuple[str, str]], tokens: int = 3) -> list[float]:
        """Mean negative log-likelihood of the first ``tokens`` tokens of each ``rest`` after its
        ``head`` (the words before it, joined by a space): how well what follows a word fits it.
        An empty ``rest`` gives NaN. Memoised per head and scored tokens (an H and the candidates
        of later rounds share them); batched like :meth:`score`."""
        tok = self.lm.tokenizer
        keys = [
            (head, tuple(tok(f" {rest}", add_special_tokens=False)["input_ids"][:tokens]) if rest else ())
            for head, rest in pairs
        ]
        missing = self._continued.missing(k for k in keys if k[1])
        if missing:
            heads = [[self._start, *tok(head, add_special_tokens=False)["input_ids"]] for head, _ in missing]
            values = self._mean_nll([h + list(tail) for h, (_, tail) in zip(heads, missing)], [len(h) for h in heads])
            for key, value in zip(missing, values):
                self._continued.put(key, value)
        return [self._continued[k] if k[1] else math.nan for k in keys]


#: Tokens per chunk of :func:`_token_nll`: the chunk's float32 logits (64 x a 50k vocabulary,
#: 12 MiB) stay in cache, where converting the whole batch at once streams hundreds of MiB.
NLL_CHUNK_TOKENS = 64


def _token_nll(logits: torch.Tensor, input_ids: torch.Tensor) -> torch.Tensor:
    """Per-position negative log-likelihood of each next token: ``(rows, width - 1)`` from
    ``(rows, width, vocabulary)`` logits, in float32.

    Cross-entropy runs over a few rows at a time on contiguous slices (no copy of the batch's
    logits); each value is the same as one cross-entropy over the whole flattened batch, since every
    position's log-softmax is computed on its own row of logits.
    """
    rows, width, vocabulary = logits.shape
    step = max(1, NLL_CHUNK_TOKENS // width)
    out = torch.empty((rows, width), dtype=torch.float32, device=logits.device)
    targets = torch.zeros_like(input_ids)
    targets[:, :-1] = input_ids[:, 1:]
    for start in range(0, rows, step):
        chunk = logits[start:start + step].reshape(-1, vocabulary).float()
        out[start:start + step] = torch.nn.functional.cross_entropy(
            chunk, targets[start:start + step].reshape(-1), reduction="none"
        ).view(-1, width)
    return out[:, :-1]


class MaskedLMScorer:
    """Pseudo-perplexity: mask each token in turn; exp of the mean negative pseudo-log-likelihood.

    Every masked copy of every sentence goes into one pool, batched by length.
    """

    name = "masked-pppl"

    def __init__(self, lm: LoadedModel, max_tokens: int = 8192, max_rows: int = 256) -> None:
        self.lm, self.max_tokens, self.max_rows = lm, max_tokens, max_rows
        self.forward_passes = 0

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        tok = self.lm.tokenizer
        special = set(tok.all_special_ids)
        return [sum(i not in special for i in tok(t, truncation=True)["input_ids"]) for t in texts]

    @torch.inference_mode()
    def score(self, texts: Sequence[str]) -> list[float]:
        tok = self.lm.tokenizer
        encoded = [tok(t, truncation=True)["input_ids"] for t in texts]
        special = set(tok.all_special_ids)
        copies = [
            (sentence, pos)
            for sentence, ids in enumerate(encoded)
            for pos, token in enumerate(ids)
            if token not in special
        ]
        totals = [0.0] * len(texts)
        counts = [0] * len(texts)
        lengths = [len(encoded[s]) for s, _ in copies]
        for batch in _length_batches(lengths, self.max_tokens, self.max_rows):
            width = max(lengths[i] for i in batch)
            input_ids = torch.full((len(batch), width), tok.pad_token_id, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            targets, positions = [], []
            for row, i in enumerate(batch):
                sentence, pos = copies[i]
                ids = encoded[sentence]
                input_ids[row, : len(ids)] = torch.tensor(ids)
                input_ids[row, pos] = tok.mask_token_id
                mask[row, : len(ids)] = 1
                targets.append(ids[pos])
                positions.append(pos)
            logits = self.lm.model(
                input_ids=input_ids.to(self.lm.device), attention_mask=mask.to(self.lm.device)
            ).logits
            self.forward_passes += 1
            rows = torch.arange(len(batch), device=logits.device)
            picked = logits[rows, torch.tensor(positions, device=logits.device)].float()
            logp = torch.log_softmax(picked, dim=-1)[rows, torch.tensor(targets, device=logits.device)]
            for i, value in zip(batch, logp.tolist()):
                sentence = copies[i][0]
                totals[sentence] += value
                counts[sentence] += 1
        return [math.exp(-t / c) if c else math.inf for t, c in zip(totals, counts)]


#: Fluency scorers by name: a factory over the model registry's models, in ``dtype`` (causal only).
SCORER_FACTORIES: Registry[Callable[[Settings, str | None], Scorer]] = Registry("scorer", SettingsError)
SCORER_FACTORIES.add("causal", lambda settings, dtype: CausalLMScorer(load_causal_lm(settings=settings, dtype=dtype)))
SCORER_FACTORIES.add("masked", lambda settings, dtype: MaskedLMScorer(load_masked_lm(settings=settings)))
SCORERS = SCORER_FACTORIES.names()


def build_scorer(settings: Settings, kind: str | None = None, dtype: str | None = None) -> Scorer:
    """The scorer named by ``kind`` (default ``settings.scorer``; see :data:`SCORER_FACTORIES`) over
    the registry's models, in ``dtype`` (default ``settings.lm_dtype``; causal only)."""
    return SCORER_FACTORIES.get(kind or settings.scorer)(settings, dtype)


def rank(candidates: Sequence[S], scorer: Scorer, top_k: int) -> list[S]:
    """Score every candidate's text and keep the ``top_k`` lowest, best first."""
    if not candidates:
        return []
    known = [c.score for c in candidates]
    if all(s is not None for s in known):  # scored already (the fluency floor), by the same scorer
        scores = [float(s) for s in known if s is not None]
    else:
        scores = scorer.score([c.text for c in candidates])
    scored = [(s, dataclasses.replace(c, score=s)) for c, s in zip(candidates, scores)]
    return [c for _, c in sorted(scored, key=lambda pair: pair[0])[: max(top_k, 0)]]
