"""The NatLogAttack search (Zheng & Zhu 2023, Section 3.4) on one pair.

Only pairs the victim gets right are attacked. Each round generates the natural-logic
candidates of the current hypothesis, ranks them by fluency and queries the victim in rank
order until its prediction differs from the setup's target label. When a round's list is
exhausted, the next round starts from the queried candidate with the lowest target-label
probability. A round also ends early (``paused``) once ``search.round_patience`` asks in a row
have not lowered that probability: the next round starts from the lowest so far, and the round's
other candidates are asked at the next dead end (before a backtrack). The search stops at
success, when no candidate is left, or at ``search.query_budget`` queries (the original pair
counts as one).

The relation between the ORIGINAL hypothesis and the current one is composed across rounds
with the join table; a round only asks for edits whose composition stays inside the setup's
relation set. Each round's candidates then pass the constraint chain (:mod:`engine.constraints.chain`:
the relation guard on the composed relation, the premise check for neutral targets, ...), which
tallies what each constraint dropped in the round's ``rejected``.

:class:`AttackSearch` runs one round per :meth:`AttackSearch.step` (the app's stepper and
:func:`attack_pair` both use it); batch runs over data files are in :mod:`engine.runs.runner`.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from engine.attack.build import Attack
from engine.attack.lazy import LazyRound
from engine.attack.results import AttackResult, DerivationStep, Query, Round, RoundOutcome
from engine.attack.round import RoundStart, ask_reason, begin_round
from engine.core import caches
from engine.core.errors import InputError
from engine.core.settings import SearchSection
from engine.core.vocab import AttackStatus, NLILabel
from engine.data.readers import NLIPair
from engine.edits.records import Candidate
from engine.natlog.polarity import PolarizedSentence, polarize
from engine.natlog.projectivity import Polarity
from engine.natlog.relations import RELATION_ORDER, Relation, join_sets
from engine.natlog.setups import Setup
from engine.parse import ParsedSentence, parse, validate_premise, validate_text
from engine.parse.completeness import incomplete_reason
from engine.validity.estimate import ValidityEstimate
from engine.validity.features import ValidityInput
from engine.verify.verifier import SelfCheck, self_check
from engine.victim.model import Prediction, QueryCounter, Victim

PREFETCH = 8
SKIP_REASON = "victim already wrong"
INCOMPLETE_REASON = "hypothesis is not a complete sentence"
SOURCE_CHECKS = ("complete", "off")


def source_cut(parsed: ParsedSentence | None, search: SearchSection) -> str | None:
    """Why H (``parsed``) is not attacked as a sentence (``search.source_check``), or ``None``.

    ``complete`` (the default) skips a hypothesis cut off mid-sentence (see
    :mod:`engine.parse.completeness`); ``off`` attacks every hypothesis as it is. An unparsable H
    (``None``) is left to the first round, which reports it.
    """
    mode = search.source_check
    if mode not in SOURCE_CHECKS:
        raise InputError(f"unknown source_check {mode!r}; use one of: {', '.join(SOURCE_CHECKS)}")
    if mode == "off" or parsed is None:
        return None
    return incomplete_reason(parsed)


def allowed_next(composed: frozenset[Relation], setup: Setup) -> frozenset[Relation]:
    """Relations an edit may have so that H's composed relation to the result stays in the setup."""
    return frozenset(r for r in RELATION_ORDER if join_sets(composed, {r}) <= setup.relations)


def edit_polarity(polarized: PolarizedSentence, candidate: Candidate) -> str:
    """The polarity mark of the word whose context projected the edit (``↑`` for whole-sentence edits)."""
    if candidate.site is None:
        return Polarity.UP.mark
    return polarized.tokens[candidate.site].polarity.mark


@dataclass
class _State:
    hypothesis: str
    composed: frozenset[Relation]
    derivation: list[DerivationStep]
    alternated: set[str]
    seen: set[str]


@dataclass(frozen=True)
class _RoundStart:
    """Where a round started, and the polarized hypothesis it edited: what going back to one of
    its candidates (a backtrack) or to its candidates not asked (a paused round) restores."""

    round: int
    hypothesis: str
    composed: frozenset[Relation]
    derivation: tuple[DerivationStep, ...]
    alternated: frozenset[str]
    polarized: PolarizedSentence

    def restore(self, state: _State) -> None:
        state.hypothesis, state.composed = self.hypothesis, self.composed
        state.derivation, state.alternated = list(self.derivation), set(self.alternated)


@dataclass(frozen=True)
class _Paused:
    """The candidates a paused round did not ask yet (a dead end comes back to them before any
    backtrack; in a lazy round, the windows it did not check too), with their estimates."""

    start: _RoundStart
    candidates: LazyRound


@dataclass(frozen=True)
class _Untried:
    """A candidate a round asked but did not follow, and where that round started (a backtrack
    resumes from it)."""

    target_prob: float
    order: int
    start: _RoundStart
    candidate: Candidate


@dataclass(frozen=True)
class Target:
    """One pair to attack and the setup it is attacked in (the pair's label must be the setup's
    source label: an InputError otherwise)."""

    premise: str
    hypothesis: str
    gold_label: NLILabel
    setup: Setup

    @classmethod
    def of(cls, premise: str, hypothesis: str, gold_label: str, setup: Setup) -> Target:
        label = NLILabel.parse(gold_label, "the pair's label")
        if label != setup.source_label:
            raise InputError(f"setup {setup.name} attacks {setup.source_label} pairs; this pair is labelled {label!r}")
        return cls(premise, hypothesis, label, setup)

    @classmethod
    def of_pair(cls, pair: NLIPair, setup: Setup) -> Target:
        return cls.of(pair.premise, pair.hypothesis, pair.label, setup)


class AttackSearch:
    """The search of ``attack`` on one pair (``target``), one round per :meth:`step`; the original
    pair is asked at once."""

    def __init__(self, attack: Attack, target: Target, victim: Victim) -> None:
        self.attack, self.settings, self.search = attack, attack.settings, attack.search
        premise = validate_premise(target.premise, self.search.max_chars)
        hypothesis = validate_text(target.hypothesis, self.search.max_chars)
        self.premise, self.hypothesis, self.gold_label, self.setup = premise, hypothesis, target.gold_label, target.setup
        self.victim, self.scorer, self.gate = victim, attack.ranker.scorer, attack.ranker.gate
        self._perplexity: float | None = None
        self._h_score: float | None = None
        self.counter: QueryCounter = victim.counter()
        self.started = time.monotonic()
        self.rounds: list[Round] = []
        self.original = self.counter.predict_one(premise, hypothesis)
        self._state = _State(hypothesis, frozenset({Relation.EQUIVALENCE}), [], set(), {hypothesis})
        self._untried: list[_Untried] = []
        self._paused: list[_Paused] = []
        self._resuming: _Paused | None = None
        self._backtracks = 0
        self._success: Prediction | None = None
        self._progress: Callable[[str, float], None] = lambda what, fraction: None
        self._self_check: SelfCheck | None = None
        self._skipped = self.original.label != self.gold_label
        self._reason = SKIP_REASON if self._skipped else ""
        # H is parsed once: for the source check here, and again by the first round.
        self._parsed_h: ParsedSentence | None = None
        if not self._skipped:
            try:
                self._parsed_h = parse(hypothesis, settings=self.settings)
            except InputError:
                pass  # the first round reports it
            cut = source_cut(self._parsed_h, self.search)
            if cut is not None:
                self._skipped, self._reason = True, f"{INCOMPLETE_REASON}: {cut}"

    @property
    def done(self) -> bool:
        return bool(self._reason)

    @property
    def budget_left(self) -> int:
        return self.search.query_budget - self.counter.queries

    def step(self, progress: Callable[[str, float], None] | None = None) -> Round:
        """Run one round: generate, check (the constraint chain), rank, then query in rank order.
        ``progress(what, fraction)`` hears where the round is (the stepper's bar within a round)."""
        if self.done:
            raise InputError(f"the attack is over ({self._reason})")
        self._progress = progress or (lambda what, fraction: None)
        self._progress("parsing and marking polarity", 0.0)
        began, looked_up = time.monotonic(), caches.counts()
        state, setup = self._state, self.setup
        start, start_composed = state.hypothesis, state.composed
        allowed = allowed_next(start_composed, setup)
        try:
            parsed = self._parsed_h if start == self.hypothesis and self._parsed_h is not None else None
            polarized = polarize(parsed or parse(start, settings=self.settings), conventions=self.attack.reading)
        except InputError as exc:
            self._reason = f"unparsable: {exc}"
            result = Round(len(self.rounds) + 1, start, start_composed, allowed, (), {}, 0, (),
                           RoundOutcome.UNPARSABLE, None, time.monotonic() - began, caches=caches.since(looked_up))
            self.rounds.append(result)
            return result
        rejected: dict[str, int]
        by_operator: dict[str, dict[str, int]]
        estimates: Mapping[str, ValidityEstimate]
        begun = None
        if (paused := self._resuming) is not None:
            # The rest of a paused round: its candidates as ordered then, nothing generated again.
            self._resuming = None
            polarized, order = paused.start.polarized, paused.candidates
            revisited = 0
        else:
            self._progress("generating, checking and ranking candidates", 0.05)
            begun = begin_round(self.attack, RoundStart(
                polarized, setup, self.hypothesis, self.premise, self._reference(), allowed, start_composed,
                tuple(s.candidate.operator for s in state.derivation), frozenset(state.alternated),
                frozenset(state.seen),
            ))
            state.seen.update(begun.texts())
            order, revisited = begun.order, begun.revisited
        queried, patience_out = self._query(order)
        ranked, estimates = order.asked, order.estimates
        if begun is not None:
            rejected, by_operator, before_gate = begun.rejected, begun.by_operator, begun.before_gate
        else:
            rejected, by_operator, before_gate = {}, {}, len(ranked)
        chosen: int | None = None
        outcome: RoundOutcome
        if self._success is not None:
            chosen = self._most_valid_success(queried, ranked, estimates)
            self._success = queried[chosen].prediction
            outcome = RoundOutcome.SUCCESS
        elif order.size_hint() > len(queried) and not patience_out:  # candidates left, no budget
            outcome = RoundOutcome.BUDGET
        elif not queried:
            outcome = (RoundOutcome.BUDGET if self.budget_left <= 0 else
                       RoundOutcome.BELOW_VALIDITY if before_gate else RoundOutcome.NO_CANDIDATES)
        else:
            chosen = min(range(len(queried)), key=lambda k: queried[k].prediction.prob(setup.target_label))
            outcome = (RoundOutcome.BUDGET if self.budget_left <= 0 else
                       RoundOutcome.PAUSED if patience_out else RoundOutcome.EXHAUSTED)
        going_on = outcome in (RoundOutcome.EXHAUSTED, RoundOutcome.PAUSED)
        if going_on:
            here = _RoundStart(len(self.rounds) + 1, start, start_composed, tuple(state.derivation),
                               frozenset(state.alternated), polarized)
            self._remember(here, ranked, queried, chosen)
            if outcome is RoundOutcome.PAUSED:
                self._paused.append(_Paused(here, order.rest(len(queried))))
        if chosen is not None:
            self._advance(polarized, ranked[chosen])
        resumed, back_to = None, None
        dead_end = outcome in (RoundOutcome.NO_CANDIDATES, RoundOutcome.BELOW_VALIDITY) and self.budget_left > 0
        if dead_end and self._paused:
            back_to = self._resume_paused()
            resumed = self._state.hypothesis
        elif dead_end:
            resumed = self._backtrack()
        if not going_on and resumed is None:
            self._reason = outcome.value
        result = Round(
            len(self.rounds) + 1, start, start_composed, allowed, tuple(ranked),
            rejected=rejected, rejected_by_operator=by_operator,
            revisited=revisited,
            queried=tuple(queried), outcome=outcome, chosen=chosen, seconds=time.monotonic() - began,
            polarities=tuple(edit_polarity(polarized, c) for c in ranked[:len(queried)]),
            resumed=resumed, back_to=back_to,
            reasons=tuple(ask_reason(c, polarized, self.search, self.attack.ranker.natural_floor,
                                     windowed=order.windows_checked > 0)
                          for c in ranked[:len(queried)]),
            caches=caches.since(looked_up),
            unchecked=order.unchecked, windows=order.windows_checked,
        )
        self.rounds.append(result)
        return result

    def explain(self, candidate: Candidate, round_index: int) -> ValidityEstimate | None:
        """The validity estimate of a candidate of round ``round_index``, with what moved it (None
        without a gate)."""
        if self.gate is None:
            return None
        ops = [s.candidate.operator for s in self._state.derivation if s.round < round_index]
        return self.gate.estimator.estimate([ValidityInput(
            self.premise, self.hypothesis, candidate.text, (*ops, candidate.operator),
            self.setup.target_label.value, len(ops) + 1)])[0]

    def _advance(self, polarized: PolarizedSentence, pick: Candidate, found_in: int | None = None) -> None:
        """Make ``pick`` (a candidate of round ``found_in``, the current one by default) the current
        hypothesis, composing its relation with H's."""
        state = self._state
        composed = join_sets(state.composed, {pick.relation})
        state.derivation.append(DerivationStep(
            found_in or len(self.rounds) + 1, state.hypothesis, pick, edit_polarity(polarized, pick), composed,
        ))
        if pick.lexical_relation is Relation.ALTERNATION and pick.new:
            state.alternated.update(pick.new.lower().split())
        state.hypothesis, state.composed = pick.text, composed

    def _remember(self, here: _RoundStart, ranked: Sequence[Candidate], queried: Sequence[Query],
                  chosen: int | None) -> None:
        """Keep the asked candidates the search does not follow, for a backtrack."""
        if self.search.max_backtracks <= 0:
            return
        target = self.setup.target_label
        for k, query in enumerate(queried):
            if k != chosen:
                self._untried.append(_Untried(query.prediction.prob(target), len(self._untried), here, ranked[k]))

    def _resume_paused(self) -> int:
        """Go back to the paused round with the fewest edits behind it (the earliest on a tie): the
        next round asks the candidates it did not ask, from the state it started from; its index."""
        paused = min(self._paused, key=lambda p: (len(p.start.derivation), p.start.round))
        self._paused.remove(paused)
        paused.start.restore(self._state)
        self._resuming = paused
        return paused.start.round

    def _backtrack(self) -> str | None:
        """Resume from the best candidate asked but not followed (lowest target probability, the
        earliest on a tie), if ``max_backtracks`` allows one more; its text, or None."""
        if self._backtracks >= self.search.max_backtracks or not self._untried:
            return None
        best = min(self._untried, key=lambda u: (u.target_prob, u.order))
        self._untried.remove(best)
        self._backtracks += 1
        best.start.restore(self._state)
        self._advance(best.start.polarized, best.candidate, best.start.round)
        return best.candidate.text

    def _query(self, order: LazyRound) -> tuple[list[Query], bool]:
        """Query in rank order until the prediction leaves the target label or the budget is spent;
        after the first success, ``search.success_pool`` more candidates of the round are asked (with
        a validity gate: the round's success then is the asked one the natural estimate, or without
        one the validity estimate, rates highest). The queries,
        and whether the round paused: ``search.round_patience`` asks in a row (cache hits too) left
        the round's lowest target probability where it was, with candidates still to ask, or (with
        ``search.last_resort_waits``) the next candidate is a last resort after natural ones.

        On a cache miss the upcoming candidates are evaluated ahead in one batch (uncounted), the
        batch doubling each time (``PREFETCH``, 2x, 4x, ...) so that a long round takes few forward
        passes while an early success wastes little; a candidate counts as a query only when the
        search actually asks for it. A lazy round (``order``) checks its candidates as far as the
        asks and the batch ahead reach.
        """
        out: list[Query] = []
        target = self.setup.target_label
        window = PREFETCH
        pool = self.search.success_pool if self.gate is not None else 0
        patience = self.search.round_patience
        stop = order.limit
        best, best_at = 2.0, 0
        for k in itertools.count():
            ranked = order.take(k + 1)
            if k >= min(stop, len(ranked)):
                break
            candidate = ranked[k]
            size = order.size_hint()
            self._progress(f"asking the victim: candidate {k + 1} of {size}", 0.5 + 0.5 * k / max(size, 1))
            if patience > 0 and self._success is None and k - best_at > patience:
                return out, True
            if (self.search.last_resort_waits and self._success is None and k > 0 and self.gate is not None
                    and self.gate.last_resort(candidate) and not self.gate.last_resort(ranked[k - 1])):
                # The round's natural candidates are spent: its last resorts wait for a dead end, as the
                # rest of a paused round, and the search goes on from the best natural candidate.
                return out, True
            pair = (self.premise, candidate.text)
            fresh = pair not in self.counter.asked
            if fresh and self.budget_left <= 0:
                break
            if fresh and not self.victim.cached(pair):
                ahead = min(window, self.budget_left, stop - k)
                # a lazy round checks as far as the batch ahead reaches: the victim's batches stay whole
                self.victim.predict([(self.premise, c.text) for c in order.take(k + ahead)[k:k + ahead]])
                window *= 2
            prediction = self.counter.predict_one(*pair)
            out.append(Query(candidate.text, prediction, fresh, self.counter.queries))
            if prediction.prob(target) < best:
                best, best_at = prediction.prob(target), k
            if prediction.label != target and self._success is None:
                self._success = prediction
                stop = min(stop, k + 1 + pool)
        return out, False

    def _most_valid_success(self, queried: Sequence[Query], ranked: Sequence[Candidate],
                            estimates: Mapping[str, ValidityEstimate]) -> int:
        """The index of the asked candidate that left the target label and is rated highest by the
        estimate that orders the round: the natural estimate when there is one (``queried[k]`` asks
        ``ranked[k]``), else the validity estimate; the first such on a tie, the first success without
        estimates."""
        target = self.setup.target_label

        def rating(k: int) -> float:
            natural = ranked[k].naturalness if k < len(ranked) else None
            if natural is not None:
                return natural
            return estimates[queried[k].text].probability if queried[k].text in estimates else -1.0

        won = [k for k, q in enumerate(queried) if q.prediction.label != target]
        return max(won, key=lambda k: (rating(k), -k))

    def _reference(self) -> float:
        """The ranking scorer's score of the original H (the fluency floor's reference), scored once."""
        if self._h_score is None:
            self._h_score = self.scorer.score([self.hypothesis])[0]
        return self._h_score

    def _hstar_perplexity(self, hstar: str | None) -> float | None:
        """Causal-LM perplexity of the final H*, scored once."""
        if hstar is not None and self._perplexity is None:
            self._perplexity = self.attack.ranker.perplexity.score([hstar])[0]
        return self._perplexity if hstar is not None else None

    def run(self) -> "AttackResult":
        """Step until the search ends and return the result."""
        while not self.done:
            self.step()
        return self.result()

    def result(self) -> "AttackResult":
        """The result so far (final once :attr:`done`)."""
        state = self._state
        won = self._success is not None
        status = (AttackStatus.SUCCESS if won else
                  AttackStatus.SKIPPED if self._skipped else AttackStatus.FAILED)
        hstar = state.hypothesis if won else None
        if hstar is not None and self._self_check is None:
            self._self_check = self_check(self.hypothesis, hstar, self.setup.relations, self.settings)
        return AttackResult(
            premise=self.premise, hypothesis=self.hypothesis, gold_label=self.gold_label,
            setup=self.setup.name, target_label=self.setup.target_label, status=status,
            reason=self._reason, original=self.original, adversarial=self._success,
            adversarial_hypothesis=hstar, relation=state.composed, derivation=tuple(state.derivation),
            rounds=tuple(self.rounds), queries=self.counter.queries, cache_hits=self.counter.cache_hits,
            perplexity=self._hstar_perplexity(hstar),
            seconds=time.monotonic() - self.started, self_check=self._self_check if won else None,
        )


def start_search(attack: Attack, target: Target, victim: Victim) -> AttackSearch:
    """A new search of ``attack`` on ``target`` (the original pair is asked now)."""
    return AttackSearch(attack, target, victim)


def attack_pair(attack: Attack, target: Target, victim: Victim) -> AttackResult:
    """Attack one pair to the end."""
    return AttackSearch(attack, target, victim).run()
