"""The lazy round: a round's costly work only for the candidates the search reaches.

A round of the eager pipeline (:func:`engine.attack.round.candidate_round` with ``lazy_round`` off)
checks every candidate, scores each with the ranking LM, keeps the best ``top_k`` by fluency and
estimates and orders those; the search then asks a handful of them. The lazy round
(``search.lazy_round``, on in the default recipe) does the costly work window by window in a round
with more candidates than it may ask:

1. **Cheap checks** on every candidate: the constraints that need no parse and no model
   (:meth:`engine.constraints.chain.ConstraintChain.split`: the relation guard, the premise check,
   the edit cap, no repeats).
2. **A first order** with no model pass per candidate: the estimate that orders the round, without
   its costly features (the sentence encoder; :meth:`engine.validity.estimate.ValidityGate.first_order`),
   in three groups: the round's candidates, then its verb swaps (``verb_swaps_last``), then those the
   cheap natural estimate puts under ``natural_floor`` (the last resorts).
3. **Windows** of that order (within a group: the first as large as the round's ``top_k``, each next
   twice the one before; :func:`window_sizes`), one at a time as the search reaches them: the
   costly checks (re-parse, the LM's fluency floor, insertion and verb fit), the LM score, the full
   estimate; each window is asked by
   ``log perplexity - validity_weight * log(estimate)``, as the eager round orders all of its
   candidates. A candidate the full estimate puts in a later group than the cheap one (a last
   resort after all) waits for that group's windows.

At most ``top_k`` candidates are asked. Only a round with more candidates than ``top_k`` after the
cheap checks is lazy (:func:`engine.attack.round.begin_round`); every other round is the eager one.
A lazy round asks what its first window's key puts first among ``top_k`` candidates of the first
order, not among the ``top_k`` most fluent of all: it changes what some large rounds ask (measured
blind: bench/validity/LOG.md, v47).

In: the :class:`~engine.attack.build.Attack` and where the round starts. Out: a :class:`LazyRound`
the search takes candidates from (:meth:`LazyRound.take`), which keeps its unasked rest for a paused
round (:meth:`LazyRound.rest`) and its tallies for the trace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from engine.constraints import CheckContext, swaps_a_verb
from engine.constraints.chain import ConstraintChain
from engine.edits.records import Candidate
from engine.natlog.polarity import PolarizedSentence
from engine.validity.estimate import ValidityEstimate, ValidityGate

__all__ = ["LAST_RESORT", "LazyRound", "first_windows", "window_sizes"]

#: The groups of a round, in the order they are asked.
NATURAL, VERB_SWAP, LAST_RESORT = 0, 1, 2


def window_sizes(count: int, first: int) -> list[int]:
    """How ``count`` candidates of one group split into windows: ``first``, then each twice the one
    before. The first window is as large as the places of the round (``top_k``), so that its order,
    by fluency against the full estimate, weighs as many candidates as the eager round's does
    (windows of 16, tried first, changed more of what the rounds asked: bench/validity/LOG.md, v47)."""
    sizes: list[int] = []
    size = max(first, 1)
    while sum(sizes) < count:
        sizes.append(min(size, count - sum(sizes)))
        size *= 2
    return sizes


@dataclass
class _Pending:
    """What a lazy round has not checked yet (its windows, in the first order), what it checked but
    holds for a later group, and its tallies; shared by a paused round's rest."""

    windows: list[tuple[int, list[Candidate]]]
    held: dict[int, list[tuple[float, Candidate]]] = field(default_factory=dict)
    rejected: dict[str, int] = field(default_factory=dict)
    by_operator: dict[str, dict[str, int]] = field(default_factory=dict)
    estimates: dict[str, ValidityEstimate] = field(default_factory=dict)
    windows_checked: int = 0
    #: how many candidates the checked windows held
    checked: int = 0
    #: how many candidates passed the costly checks (the gate's input)
    passed: int = 0


@dataclass
class LazyRound:
    """A round's candidates in the order the search asks them, checked and scored as it reaches them.

    ``context`` is the round's check context, ``costly`` its costly constraints, ``gate`` the validity
    gate, ``polarized`` the hypothesis it edits and ``limit`` the most candidates it asks (``top_k``).
    A round built with :meth:`ready` holds candidates checked and ordered already (the eager round)."""

    context: CheckContext | None
    costly: ConstraintChain
    gate: ValidityGate | None
    polarized: PolarizedSentence | None
    limit: int
    hypothesis: str = ""
    operators_so_far: tuple[str, ...] = ()
    verb_swaps_last: bool = True
    asked: list[Candidate] = field(default_factory=list)
    pending: _Pending = field(default_factory=lambda: _Pending([]))

    @classmethod
    def ready(cls, candidates: Sequence[Candidate], estimates: Mapping[str, ValidityEstimate] | None = None) -> LazyRound:
        """A round of candidates checked and ordered already (the eager round, a paused round's rest)."""
        return cls(None, ConstraintChain(()), None, None, len(candidates), asked=list(candidates),
                   pending=_Pending([], estimates=dict(estimates or {})))

    # -- what the search reads ----------------------------------------------------------------

    def take(self, n: int) -> list[Candidate]:
        """The first ``n`` candidates in the order they are asked (fewer when the round has fewer),
        checking windows as needed."""
        while len(self.asked) < min(n, self.limit) and self._more():
            self._next_window()
        return self.asked[:min(n, self.limit)]

    def take_all(self) -> list[Candidate]:
        """Every candidate the round asks, in order (each window checked)."""
        return self.take(self.limit)

    @property
    def estimates(self) -> dict[str, ValidityEstimate]:
        """The full estimate of every candidate checked so far, by text."""
        return self.pending.estimates

    @property
    def rejected(self) -> dict[str, int]:
        """What each constraint dropped so far (the cheap ones on the whole round)."""
        return self.pending.rejected

    @property
    def by_operator(self) -> dict[str, dict[str, int]]:
        return self.pending.by_operator

    @property
    def unchecked(self) -> int:
        """How many candidates passed the cheap checks and were never checked further (so far)."""
        return sum(len(w) for _, w in self.pending.windows)

    @property
    def windows_checked(self) -> int:
        return self.pending.windows_checked

    @property
    def checked(self) -> int:
        """How many candidates the checked windows held (each through the costly checks and the LM)."""
        return self.pending.checked

    def size_hint(self) -> int:
        """At most how many candidates the round asks (for a progress bar)."""
        held = sum(len(v) for v in self.pending.held.values())
        return min(self.limit, len(self.asked) + held + self.unchecked)

    def texts(self) -> list[str]:
        """Every candidate text the round holds, checked or not (what later rounds leave out)."""
        return ([c.text for c in self.asked] + [c.text for v in self.pending.held.values() for _, c in v]
                + [c.text for _, w in self.pending.windows for c in w])

    def rest(self, k: int) -> LazyRound:
        """The round after its first ``k`` candidates (a paused round's rest): the same windows still to
        check, and the same tallies."""
        return replace(self, limit=max(0, self.limit - k), asked=list(self.asked[k:]), pending=self.pending)

    # -- checking a window ----------------------------------------------------------------------

    def _more(self) -> bool:
        return bool(self.pending.windows) or any(self.pending.held.values())

    def _group(self, candidate: Candidate) -> int:
        if self.gate is not None and self.gate.last_resort(candidate):
            return LAST_RESORT
        if self.verb_swaps_last and self.polarized is not None and swaps_a_verb(candidate, self.polarized):
            return VERB_SWAP
        return NATURAL

    def _next_window(self) -> None:
        pending = self.pending
        next_group = pending.windows[0][0] if pending.windows else LAST_RESORT + 1
        waiting = [g for g in sorted(pending.held) if g < next_group and pending.held[g]]
        if waiting:  # a group's windows are done: what the full estimate moved into it comes now
            self._ask(sorted(pending.held.pop(waiting[0]), key=lambda kc: kc[0]))
            return
        group, window = pending.windows.pop(0)
        pending.windows_checked += 1
        pending.checked += len(window)
        kept = self._check(window)
        now: list[tuple[float, Candidate]] = list(pending.held.pop(group, []))
        for key, c in kept:
            later = self._group(c)
            if later > group:
                pending.held.setdefault(later, []).append((key, c))
            else:
                now.append((key, c))
        self._ask(sorted(now, key=lambda kc: kc[0]))

    def _ask(self, ordered: list[tuple[float, Candidate]]) -> None:
        room = self.limit - len(self.asked)
        self.asked.extend(c for _, c in ordered[:max(room, 0)])

    def _check(self, window: list[Candidate]) -> list[tuple[float, Candidate]]:
        """The window's candidates that pass the costly checks and the gate, with their place."""
        context, pending = self.context, self.pending
        assert context is not None and context.premise is not None and self.gate is not None
        checked = self.costly.apply(window, context)
        _tally(pending.rejected, checked.rejected)
        for name, ops in checked.by_operator.items():
            _tally(pending.by_operator.setdefault(name, {}), ops)
        pending.passed += len(checked.kept)
        scored = _scored(checked.kept, context)
        gated = self.gate.apply(scored, premise=context.premise, hypothesis=self.hypothesis,
                                target=context.setup.target_label.value, operators_so_far=self.operators_so_far)
        pending.estimates.update(gated.estimates)
        if self.gate.min_validity > 0:
            _tally(pending.rejected, {ValidityGate.name: gated.dropped})
        if gated.by_operator:
            _tally(pending.by_operator.setdefault(ValidityGate.name, {}), gated.by_operator)
        return [(gated.keys[c.text], c) for c in gated.kept]


def _tally(into: dict[str, int], counts: Mapping[str, int]) -> None:
    """Add ``counts`` to the running counts ``into`` (what a constraint or the gate dropped)."""
    for name, n in counts.items():
        into[name] = into.get(name, 0) + n


def _scored(candidates: list[Candidate], context: CheckContext) -> list[Candidate]:
    """``candidates`` with their ranking-LM score (the fluency floor set it, unless it is off)."""
    missing = [c for c in candidates if c.score is None]
    if not missing or context.scorer is None:
        return candidates
    scores = dict(zip((c.text for c in missing), context.scorer.score([c.text for c in missing])))
    return [c if c.score is not None else replace(c, score=scores[c.text]) for c in candidates]


def first_windows(candidates: Sequence[Candidate], gate: ValidityGate, polarized: PolarizedSentence, *,
                  premise: str, hypothesis: str, target: str, operators_so_far: Sequence[str],
                  verb_swaps_last: bool, first: int) -> list[tuple[int, list[Candidate]]]:
    """The windows of a lazy round: ``candidates`` (those that passed the cheap checks) in the first
    order, grouped (the round's, its verb swaps, its last resorts) and cut into :func:`window_sizes`
    (the first of ``first``)."""
    places = gate.first_order(candidates, premise=premise, hypothesis=hypothesis, target=target,
                              operators_so_far=operators_so_far)
    keyed = []
    for k, (c, (key, last)) in enumerate(zip(candidates, places)):
        group = (LAST_RESORT if last else
                 VERB_SWAP if verb_swaps_last and swaps_a_verb(c, polarized) else NATURAL)
        keyed.append((group, key, k, c))
    keyed.sort(key=lambda item: item[:3])
    windows: list[tuple[int, list[Candidate]]] = []
    for group in (NATURAL, VERB_SWAP, LAST_RESORT):
        members = [c for g, _, _, c in keyed if g == group]
        start = 0
        for size in window_sizes(len(members), first):
            windows.append((group, members[start:start + size]))
            start += size
    return windows

