"""Constraints read off the ranking LM: H* at most ``fluency_floor`` times as perplexing as H
(``fluency-floor``), inserted modifiers that fit (``insertion-fit``) and swapped verbs whose next
words still fit (``verb-fit``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from engine.constraints.chain import CheckContext, Constraint, register_constraint
from engine.edits.records import Candidate
from engine.natlog.polarity import PolarizedSentence
from engine.ranking.scoring import Scorer


@register_constraint
class FluencyFloor(Constraint):
    """H* may be at most ``fluency_floor`` times as perplexing as H to the ranking LM (0:
    no floor). Scores are kept on the candidates, so ranking does not score them again."""

    name = "fluency-floor"
    description = "H*'s perplexity is at most fluency_floor times H's"
    costly = True
    parameters = ("fluency_floor",)

    def __init__(self, fluency_floor: float = 3.0) -> None:
        self.fluency_floor = fluency_floor

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        if self.fluency_floor <= 0 or check.scorer is None or check.reference is None or not candidates:
            return list(candidates)
        scores = check.scorer.score([c.text for c in candidates])
        limit = self.fluency_floor * check.reference
        return [dataclasses.replace(c, score=s) for c, s in zip(candidates, scores) if s <= limit]


@register_constraint
class InsertionFit(Constraint):
    """An inserted modifier must cost the ranking LM at most ``insertion_cost`` nats per
    inserted token (0: off): H*'s total negative log-likelihood minus that of the hypothesis it
    edits, over the tokens added. Mined modifiers fit their noun's class but often not the
    sentence ("The gang is structured in the air", "Oats in the water have long been food for
    horses"); a perplexity ratio does not tell those apart, this cost does in part
    (bench/validity/LOG.md). Runs after the fluency floor and reuses its scores."""

    name = "insertion-fit"
    description = "an inserted modifier costs the LM at most insertion_cost nats per token"
    costly = True
    parameters = ("insertion_cost",)

    def __init__(self, insertion_cost: float = 3.0) -> None:
        self.insertion_cost = insertion_cost

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        inserted = [c for c in candidates if c.operator == "Insertion"]
        if self.insertion_cost <= 0 or check.scorer is None or check.source is None or not inserted:
            return list(candidates)
        scorer = check.scorer
        missing = [c for c in inserted if c.score is None]
        if missing:
            fresh = dict(zip((c.text for c in missing), scorer.score([c.text for c in missing])))
            inserted = [c if c.score is not None else dataclasses.replace(c, score=fresh[c.text]) for c in inserted]
        source = check.source.sentence.text
        # In the first round the hypothesis edited is H, whose score the fluency reference holds.
        if check.edits == 0 and check.reference is not None:
            base_score = check.reference
        else:
            (base_score,) = scorer.score([source])
        counts = scorer.token_counts([source, *(c.text for c in inserted)])
        base = counts[0] * math.log(base_score)
        too_costly = {
            c.text for c, n in zip(inserted, counts[1:])
            if (n * math.log(c.score or math.inf) - base) / max(1, n - counts[0]) > self.insertion_cost
        }
        return [c for c in candidates if not (c.operator == "Insertion" and c.text in too_costly)]


#: The WordNet swaps :class:`VerbFit` checks, and how many tokens after the verb it reads.
VERB_SWAPS = frozenset({"PerturbHypo", "PerturbHyper", "PerturbSyno"})
VERB_FIT_TOKENS = 3


def swaps_a_verb(candidate: Candidate, source: PolarizedSentence) -> bool:
    """Whether ``candidate`` is a WordNet swap (:data:`VERB_SWAPS`) of a word that ``source``, the
    hypothesis it edits, parses as a verb."""
    tokens = source.tokens
    return (candidate.operator in VERB_SWAPS and candidate.site is not None and candidate.site < len(tokens)
            and tokens[candidate.site].token.upos == "VERB")


@register_constraint
class VerbFit(Constraint):
    """A verb that a WordNet swap puts in must take the words after it as the old verb did: the
    ranking LM's mean negative log-likelihood of the next ``VERB_FIT_TOKENS`` tokens after the new
    verb may exceed that after the old one by at most ``verb_fit_cost`` nats (0: off). A hyponym
    or synonym of the right sense often takes other objects or particles ("A man is performing a
    guitar", "The man is put on in summer clothing", "partake a maritime border"); the whole
    sentence's perplexity hides that in one token, the words after the verb do not
    (bench/validity/LOG.md, v36). A verb with nothing after it passes."""

    name = "verb-fit"
    description = "a swapped verb makes the next tokens at most verb_fit_cost nats less likely"
    costly = True
    parameters = ("verb_fit_cost",)

    def __init__(self, verb_fit_cost: float = 2.0) -> None:
        self.verb_fit_cost = verb_fit_cost

    def keep(self, candidates: Sequence[Candidate], check: CheckContext) -> list[Candidate]:
        if self.verb_fit_cost <= 0 or check.scorer is None or check.source is None:
            return list(candidates)
        rises = verb_swap_rises(candidates, check.source, check.scorer)
        misfit = {id(c) for c, rise in rises if rise > self.verb_fit_cost}
        return [c for c in candidates if id(c) not in misfit]


def verb_swap_rises(candidates: Sequence[Candidate], source: PolarizedSentence,
                    scorer: Scorer) -> list[tuple[Candidate, float]]:
    """Each WordNet swap among ``candidates`` whose site in ``source`` (the hypothesis they edit) is
    a verb with words after it, with its rise: the ranking LM's mean negative log-likelihood of the
    next ``VERB_FIT_TOKENS`` tokens after the new verb minus that after the old one, in nats."""
    tokens = source.tokens
    words = [t.token.text for t in tokens]
    swapped = [c for c in candidates
               if swaps_a_verb(c, source) and c.span[1] < len(words) and c.new_span[1] < len(c.words)]
    if not swapped:
        return []
    pairs = []
    for c in swapped:
        pairs.append((" ".join(words[: c.span[1]]), " ".join(words[c.span[1]:])))
        pairs.append((" ".join(c.words[: c.new_span[1]]), " ".join(c.words[c.new_span[1]:])))
    nll = _continuation_nll(scorer, pairs)
    return [(c, nll[2 * k + 1] - nll[2 * k]) for k, c in enumerate(swapped)]


def _continuation_nll(scorer: Scorer, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """The scorer's continuation NLL where it has one (a causal LM); 0 for every pair elsewhere, so
    a masked-LM scorer lets every swap through."""
    method = getattr(scorer, "continuation_nll", None)
    if method is None:
        return [0.0] * len(pairs)
    return list(method(pairs, VERB_FIT_TOKENS))
