"""What the engine knows about a candidate H* before the victim is asked, as numbers.

A :class:`ValidityInput` is one (P, H, H*) with the operators of the derivation that made H* and
the setup's target label. :class:`FeatureExtractor` turns a batch of them into feature rows:

- the derivation: one indicator per operator that took part, the number of edits, the target;
- the edit itself, read from the word difference of H and H*: how many words left and came, the
  new words' frequency (wordfreq Zipf) and the drop from the old ones, whether a single word
  became a phrase;
- WordNet, for a one-word substitution: the fewest hypernym/hyponym hops that connect a sense of
  the old lemma with a sense of the new one, how common those connecting senses are for their
  lemmas in SemCor (the sense prior: "leave -> buzz off" connects through a sense of *leave* that
  SemCor almost never tags), and the depth of the new sense;
- the sentence encoder (all-MiniLM-L6-v2): how close the new word is to the old, H* to H, and how
  much closer or farther H* is to P than H was;
- the ranking LM (SmolLM2): log perplexity of H* minus that of H, and how expected H* is after
  reading P compared with H after P (:meth:`engine.ranking.scoring.CausalLMScorer.conditional_nll`).

The same function describes the labelled H* when the estimate is fitted (``bench/validity_estimator.py``)
and each candidate when the search asks for an estimate, so the two cannot drift apart.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.core.caches import register_function
from engine.core.settings import Settings

if TYPE_CHECKING:
    from engine.models.language import SentenceEncoder
    from engine.ranking.scoring import CausalLMScorer

TARGETS = ("entailment", "neutral", "contradiction")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
_FUNCTION = frozenset(
    "a an the of in on at to for with by from and or but not no is are was were be been being it "
    "that this there he she they we i you his her their its do does did n't 's 'm 're 've".split()
)
NO_HOPS = 6  # "no WordNet connection within five hops"


@dataclass(frozen=True)
class ValidityInput:
    """One (P, H, H*) to estimate: ``operators`` made H* from H in ``edits`` steps for a setup whose
    target label is ``target``."""

    premise: str
    hypothesis: str
    h_star: str
    operators: tuple[str, ...]
    target: str
    edits: int


@dataclass(frozen=True)
class WordEdit:
    """The words of H that left (``old``) and the words of H* that came (``new``)."""

    old: tuple[str, ...]
    new: tuple[str, ...]


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def word_edit(hypothesis: str, h_star: str) -> WordEdit:
    """The words that differ between H and H*, in order (difflib over lower-cased words)."""
    a, b = words(hypothesis), words(h_star)
    old: list[str] = []
    new: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            old.extend(a[i1:i2])
            new.extend(b[j1:j2])
    return WordEdit(tuple(old), tuple(new))


def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


def _content(ws: Sequence[str]) -> list[str]:
    return [w for w in ws if w not in _FUNCTION]


@lru_cache(maxsize=50_000)
def wordnet_link(old: str, new: str, settings: Settings) -> tuple[int, float, float, int]:
    """(hops, prior of old's connecting sense, prior of new's, depth of new's connecting sense) for
    the closest pair of senses of ``old`` and ``new`` (same part of speech, hypernym/hyponym paths
    of up to five hops, synonyms at 0). ``NO_HOPS`` and zero priors when none connects."""
    from engine.lexicon import relatives as lexicon

    reader = lexicon.wordnet(settings)
    best: tuple[int, float, float, int] = (NO_HOPS, 0.0, 0.0, 0)
    best_key: tuple[int, float] = (NO_HOPS + 1, 0.0)
    for pos in ("n", "v", "a", "r"):
        old_lemma = reader.morphy(old, pos) or old
        new_lemma = reader.morphy(new.replace(" ", "_"), pos) or new.replace(" ", "_")
        old_senses = reader.synsets(old_lemma, pos)[:10]
        new_senses = reader.synsets(new_lemma, pos)[:10]
        if not old_senses or not new_senses:
            continue
        old_total = sum(_count(s, old_lemma) for s in old_senses) + len(old_senses)
        new_total = sum(_count(s, new_lemma) for s in new_senses) + len(new_senses)
        for so in old_senses:
            for sn in new_senses:
                hops = _hops(so, sn)
                if hops is None:
                    continue
                prior_old = (_count(so, old_lemma) + 1) / old_total
                prior_new = (_count(sn, new_lemma) + 1) / new_total
                key = (hops, -(prior_old * prior_new))
                if key < best_key:
                    best_key = key
                    best = (hops, prior_old, prior_new, sn.min_depth())
    if settings.basic_hypernyms:
        basic = _basic_link(old, new, settings)
        if basic is not None and (best[0] == NO_HOPS or basic[1] > best[1]):
            return basic
    return best


def _basic_link(old: str, new: str, settings: Settings) -> tuple[int, float, float, int] | None:
    """The link from a noun's most used sense to its basic category however far up ("cat" ->
    "animal", seven hops): hops as counted, at most the five the estimate was fitted on, with both
    words' priors. The closest pair of senses would instead connect a rare sense of the word."""
    from engine.lexicon import relatives as lexicon

    reader = lexicon.wordnet(settings)
    old_lemma = reader.morphy(old, "n") or old
    new_lemma = reader.morphy(new.replace(" ", "_"), "n") or new.replace(" ", "_")
    old_senses = reader.synsets(old_lemma, "n")[:10]
    basic = [s for s in reader.synsets(new_lemma, "n")[:10] if s.name() in lexicon.BASIC_CATEGORIES]
    for so in old_senses[:1]:
        for sn in basic:
            hops = lexicon.hops_up(so, sn)
            if hops is not None:
                prior_old = (_count(so, old_lemma) + 1) / (sum(_count(s, old_lemma) for s in old_senses) + len(old_senses))
                new_senses = reader.synsets(new_lemma, "n")[:10]
                prior_new = (_count(sn, new_lemma) + 1) / (sum(_count(s, new_lemma) for s in new_senses) + len(new_senses))
                return min(hops, NO_HOPS - 1), prior_old, prior_new, sn.min_depth()
    return None


register_function('features.wordnet_links', wordnet_link)


@lru_cache(maxsize=50_000)
def new_word_use(word: str, settings: Settings) -> tuple[float, float]:
    """How people use a substitute: log(1 + how often SemCor tags it, over all its senses), and the
    share of its senses WordNet marks with a usage or region domain (slang, colloquialism, British,
    ...). "chit" for a woman and "pull-in" for a cafe are words no caption writer uses."""
    from engine.lexicon import relatives as lexicon

    reader = lexicon.wordnet(settings)
    name = word.strip().lower().replace(" ", "_")
    senses = reader.synsets(name)
    count = sum(_count(s, name) for s in senses)
    marked = sum(bool(s.usage_domains() or s.region_domains()) for s in senses)
    return math.log1p(count), marked / len(senses) if senses else 0.0


register_function('features.word_uses', new_word_use)


def _count(synset, lemma: str) -> int:
    from engine.lexicon.senses import sense_count

    return sense_count(synset, lemma)


def _hops(a, b) -> int | None:
    if a == b:
        return 0
    if a.pos() != b.pos() and {a.pos(), b.pos()} != {"a", "s"}:
        return None
    up_a = _ancestors(a)
    up_b = _ancestors(b)
    common = set(up_a) & set(up_b)
    if not common:
        return None
    hops = min(up_a[c] + up_b[c] for c in common)
    return hops if hops < NO_HOPS else None


@lru_cache(maxsize=100_000)
def _ancestors_cached(synset: Any) -> tuple[tuple[str, int], ...]:
    """The synset's ancestors within NO_HOPS (and its similar-tos at one hop), by name; memoised per
    synset (NLTK's synsets hash and compare by name), read through the synset's own reader."""
    found: dict[str, int] = {}
    for s, d in synset.hypernym_distances():
        if d < NO_HOPS and (s.name() not in found or d < found[s.name()]):
            found[s.name()] = d
    for s in synset.similar_tos():
        found.setdefault(s.name(), 1)
    return tuple(found.items())


register_function('features.ancestors', _ancestors_cached)


def _ancestors(synset) -> dict[str, int]:
    return dict(_ancestors_cached(synset))


class FeatureExtractor:
    """Feature rows for :class:`ValidityInput` batches (see the module docstring).

    ``operators`` fixes the operator columns (the registered operators, in registration order), so
    a fitted estimate and the engine agree on what each column means; ``scorer`` is the ranking
    causal LM and ``encoder`` the sentence encoder (None leaves their features at 0, for tests of
    the plumbing only: the shipped estimate is fitted with both)."""

    def __init__(self, operators: Sequence[str], scorer: CausalLMScorer | None, encoder: SentenceEncoder | None,
                 settings: Settings, wanted: Collection[str] | None = None) -> None:
        self.operators = tuple(operators)
        self.scorer, self.encoder = scorer, encoder
        self.settings = settings
        # The base features a fitted estimate uses (None: all): the costly per-candidate LM passes
        # run only when one of them is wanted (the rest of the row is cheap and always computed).
        self.wanted = frozenset(PER_CANDIDATE_LM | ENCODER if wanted is None else {n.split("|")[0] for n in wanted})
        self._h_cache: dict[str, float] = {}

    @property
    def base_names(self) -> tuple[str, ...]:
        return tuple(f"op:{op}" for op in self.operators) + tuple(f"target:{t}" for t in TARGETS) + NUMERIC

    @property
    def names(self) -> tuple[str, ...]:
        """Every column: the base features, then each non-target feature once more per target label
        (``lm_delta|neutral``: the feature where the target is neutral, else 0), since what makes an
        entailment valid can make a neutral invalid."""
        base = self.base_names
        return base + tuple(f"{n}|{t}" for t in TARGETS for n in base if not n.startswith("target:"))

    def costly_columns(self, names: Sequence[str]) -> frozenset[int]:
        """The positions in ``names`` (columns of :attr:`names`) of the features that cost a model pass
        per candidate (:data:`COSTLY`): what :meth:`extract` leaves out with ``cheap``."""
        return frozenset(k for k, n in enumerate(names) if n.split("|")[0] in COSTLY)

    def extract(self, items: Sequence[ValidityInput], cheap: bool = False) -> list[list[float]]:
        """One feature row per item (columns: :attr:`names`). ``cheap`` leaves the features that cost
        a model pass per candidate (:data:`COSTLY`: the sentence encoder, the per-candidate LM terms)
        at 0; an estimate read from such a row leaves them out (:meth:`ValidityModel.estimate`)."""
        if not items:
            return []
        lm = self._lm(items, cheap)
        edits = [word_edit(i.hypothesis, i.h_star) for i in items]  # once, for both feature groups
        enc = [[0.0, 0.0, 0.0] for _ in items] if cheap else self._encoder(items, edits)
        rows = []
        for k, item in enumerate(items):
            ops = set(item.operators)
            row = ([float(op in ops) for op in self.operators] + [float(item.target == t) for t in TARGETS]
                   + self._edit(item, edits[k]) + lm[k] + enc[k])
            plain = [v for v, n in zip(row, self.base_names) if not n.startswith("target:")]
            rows.append(row + [v if item.target == t else 0.0 for t in TARGETS for v in plain])
        return rows

    def _edit(self, item: ValidityInput, edit: WordEdit) -> list[float]:
        old_c, new_c = _content(edit.old), _content(edit.new)
        new_zipf = min((_zipf(w) for w in new_c), default=0.0)
        old_zipf = min((_zipf(w) for w in old_c), default=0.0)
        substitution = bool(old_c) and bool(new_c)
        hops, prior_old, prior_new, depth = NO_HOPS, 0.0, 0.0, 0
        if substitution:
            hops, prior_old, prior_new, depth = wordnet_link(old_c[-1], " ".join(new_c), self.settings)
        premise_words = set(words(item.premise))
        new_in_p = float(bool(new_c) and all(w in premise_words for w in new_c))
        old_in_p = float(bool(old_c) and any(w in premise_words for w in old_c))
        negations = sum(w in ("not", "no", "false", "n't", "never", "nobody", "nothing") for w in words(item.h_star))
        return [
            float(item.edits), float(len(edit.old)), float(len(edit.new)),
            float(len(words(item.h_star)) - len(words(item.hypothesis))),
            new_zipf, (old_zipf - new_zipf) if substitution else 0.0,
            float(substitution and len(new_c) > 1), float(substitution),
            float(hops) if substitution else 0.0, float(substitution and hops >= NO_HOPS),
            math.log(prior_old) if substitution and prior_old else 0.0,
            math.log(prior_new) if substitution and prior_new else 0.0,
            float(depth), float(negations), new_in_p, old_in_p, float(len(words(item.hypothesis))),
            *(new_word_use(" ".join(new_c), self.settings) if substitution else (0.0, 0.0)),
        ]

    def _lm(self, items: Sequence[ValidityInput], cheap: bool = False) -> list[list[float]]:
        """lm_delta, premise_delta, premise_gain_delta, h_log_perplexity: the H* terms are scored only
        when a wanted feature uses them (:attr:`PER_CANDIDATE_LM`) and the row is not ``cheap``, the H
        terms once per hypothesis."""
        if self.scorer is None:
            return [[0.0, 0.0, 0.0, 0.0] for _ in items]
        hs = [h for h in dict.fromkeys(i.hypothesis for i in items) if h not in self._h_cache]
        if len(self._h_cache) + len(hs) > 50_000:  # a long-lived worker sees many hypotheses
            self._h_cache.clear()
            hs = list(dict.fromkeys(i.hypothesis for i in items))
        for text, value in zip(hs, self.scorer.score(hs)):
            self._h_cache[text] = value
        ppl = dict(self._h_cache)
        if not cheap and ("lm_delta" in self.wanted or "premise_gain_delta" in self.wanted):
            stars = list(dict.fromkeys(i.h_star for i in items))
            ppl.update(zip(stars, self.scorer.score(stars)))
        cond: dict[tuple[str, str], float] = {}
        if not cheap and ("premise_delta" in self.wanted or "premise_gain_delta" in self.wanted):
            pairs = list(dict.fromkeys([(i.premise, i.hypothesis) for i in items] + [(i.premise, i.h_star) for i in items]))
            cond = dict(zip(pairs, self.scorer.conditional_nll(pairs)))
        out = []
        for i in items:
            h = math.log(ppl[i.hypothesis])
            star = math.log(ppl[i.h_star]) if i.h_star in ppl else h
            lm_delta = star - h
            premise_delta = cond[(i.premise, i.h_star)] - cond[(i.premise, i.hypothesis)] if cond else 0.0
            gain = ((star - cond[(i.premise, i.h_star)]) - (h - cond[(i.premise, i.hypothesis)])) if cond else 0.0
            out.append([lm_delta, premise_delta, gain, h])
        return out

    def _encoder(self, items: Sequence[ValidityInput], edits: Sequence[WordEdit]) -> list[list[float]]:
        if self.encoder is None or not self.wanted & ENCODER:
            return [[0.0, 0.0, 0.0] for _ in items]
        olds = [" ".join(e.old) or "-" for e in edits]
        news = [" ".join(e.new) or "-" for e in edits]
        texts = list(dict.fromkeys([i.premise for i in items] + [i.hypothesis for i in items]
                                   + [i.h_star for i in items] + olds + news))
        vectors = dict(zip(texts, self.encoder.encode(texts)))

        def cos(a: str, b: str) -> float:
            return float((vectors[a] * vectors[b]).sum())

        out = []
        for i, e, o, n in zip(items, edits, olds, news):
            word_sim = cos(o, n) if e.old and e.new else 1.0
            out.append([word_sim, cos(i.hypothesis, i.h_star),
                        cos(i.premise, i.h_star) - cos(i.premise, i.hypothesis)])
        return out


NUMERIC = (
    "edits", "words_out", "words_in", "length_delta", "new_zipf", "zipf_drop", "phrase_for_word",
    "substitution", "wordnet_hops", "wordnet_unlinked", "log_prior_old_sense", "log_prior_new_sense",
    "new_sense_depth", "negations", "new_words_in_premise", "old_words_in_premise", "h_words",
    "new_semcor_uses", "new_marked_usage", "lm_delta", "premise_delta", "premise_gain_delta", "h_log_perplexity",
    "word_similarity", "h_similarity", "premise_similarity_delta",
)

#: Features that cost a language-model pass per candidate (the H* perplexity, and P + H* for the
#: premise-conditioned ones).
PER_CANDIDATE_LM = frozenset({"lm_delta", "premise_delta", "premise_gain_delta"})
#: Features that cost a sentence-encoder pass per candidate.
ENCODER = frozenset({"word_similarity", "h_similarity", "premise_similarity_delta"})
#: Features that cost a model pass per candidate: a cheap estimate (the lazy round's first order,
#: :class:`engine.validity.estimate.ValidityEstimator`) leaves them out.
COSTLY = PER_CANDIDATE_LM | ENCODER
