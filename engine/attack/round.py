"""One round of candidates: generate → check (the constraint chain) → rank → estimate and gate → order.

The search (:class:`engine.attack.search.AttackSearch`, one call per round, from the hypothesis it
has reached) and the Candidates page and ``engine candidates`` (:func:`propose`, the first round of
each setup, no victim asked) run this one pipeline, so what the page lists is what a round of the
attack considers.

In: the :class:`~engine.attack.build.Attack` (operators, chain, ranker) and where the round starts
(:class:`RoundStart`). Out: :class:`RoundCandidates`, the ranked list in the order the victim is
asked, with what each stage dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from engine.attack.build import Attack
from engine.attack.lazy import LazyRound, _Pending, first_windows
from engine.constraints import CheckContext, Checked, swaps_a_verb
from engine.core.settings import SearchSection
from engine.edits.candidates import generate_candidates
from engine.edits.operators import registered_operators
from engine.edits.records import Candidate
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.relations import Relation
from engine.natlog.setups import Setup
from engine.ranking.scoring import rank
from engine.validity.estimate import ValidityEstimate, ValidityGate

__all__ = ["Begun", "Proposal", "RoundCandidates", "RoundStart", "ask_reason", "begin_round", "candidate_round",
           "lazy", "no_candidate_reason", "propose", "verb_swaps_last"]


@dataclass(frozen=True)
class RoundCandidates:
    """What one round produced before the victim is asked.

    ``generated``: every candidate the operators made; ``revisited``: how many of them earlier rounds
    had already ranked (left out); ``checked``: what the constraint chain kept and dropped;
    ``ranked``: the best ``top_k`` by fluency; ``kept``: those the gate keeps, in the order the
    victim is asked (``ranked`` without a gate; with ``settings.verb_swaps_last``, the swaps of a verb
    after the others: :func:`verb_swaps_last`; with a natural estimate, those under its floor
    last); ``estimates``: each ranked candidate's validity estimate; ``rejected`` and
    ``by_operator``: what each stage dropped (the gate counted only when it has a threshold)."""

    generated: tuple[Candidate, ...]
    revisited: int
    checked: Checked
    ranked: tuple[Candidate, ...]
    kept: tuple[Candidate, ...]
    rejected: dict[str, int]
    by_operator: dict[str, dict[str, int]]
    estimates: dict[str, ValidityEstimate] = field(default_factory=dict)
    #: the natural estimate under which a candidate is the last resort (0: no natural estimate;
    #: each candidate's own estimate is its ``naturalness``)
    natural_floor: float = 0.0
    #: a lazy round checked to its end: how many windows of its first order it checked (0: eager)
    windows: int = 0

    @property
    def below_validity(self) -> tuple[Candidate, ...]:
        """The ranked candidates the gate dropped, each with its estimate."""
        kept = {c.text for c in self.kept}
        return tuple(replace(c, validity=round(self.estimates[c.text].probability, 4))
                     for c in self.ranked if c.text not in kept and c.text in self.estimates)


@dataclass(frozen=True)
class RoundStart:
    """Where a round starts: ``polarized`` (reached from the original hypothesis H by the edits of
    ``operators_so_far``, whose composed relation is ``composed``), the setup, the relations an edit
    may have (``allowed``; default: the setup's), the premise (None: no victim's pair, as on the
    Candidates page without one), H's score by the ranking scorer (``reference``, the fluency floor's
    reference), the words earlier alternations introduced, the texts earlier rounds ranked
    (``seen``, left out) and how many candidates to keep (``top_k``; default the recipe's)."""

    polarized: PolarizedSentence
    setup: Setup
    hypothesis: str
    premise: str | None = None
    reference: float | None = None
    allowed: frozenset[Relation] | None = None
    composed: frozenset[Relation] = frozenset({Relation.EQUIVALENCE})
    operators_so_far: tuple[str, ...] = ()
    alternated: frozenset[str] = frozenset()
    seen: frozenset[str] = frozenset()
    top_k: int | None = None


@dataclass(frozen=True)
class Begun:
    """A round as the search starts it: the candidates in the order it asks them (``order``, checked as
    it reaches them in a lazy round), how many generated candidates earlier rounds had ranked
    (``revisited``), and the eager round's whole record (None for a lazy round)."""

    order: LazyRound
    revisited: int
    eager: RoundCandidates | None = None
    generated: tuple[Candidate, ...] = ()

    def texts(self) -> list[str]:
        """The candidate texts the round ranked or holds (what later rounds leave out): the eager round's
        best ``top_k`` by fluency, a lazy round's candidates after the cheap checks."""
        return [c.text for c in self.eager.ranked] if self.eager is not None else self.order.texts()

    @property
    def before_gate(self) -> int:
        """How many candidates reached the validity gate so far."""
        return len(self.eager.ranked) if self.eager is not None else self.order.pending.passed

    @property
    def rejected(self) -> dict[str, int]:
        return self.eager.rejected if self.eager is not None else dict(self.order.rejected)

    @property
    def by_operator(self) -> dict[str, dict[str, int]]:
        return self.eager.by_operator if self.eager is not None else {k: dict(v) for k, v in self.order.by_operator.items()}


def lazy(attack: Attack, start: RoundStart) -> bool:
    """Whether a round of ``attack`` from ``start`` may be lazy: ``search.lazy_round``, with a validity
    gate and a premise (without them there is no first order but fluency, which needs every LM score)."""
    return attack.search.lazy_round and attack.ranker.gate is not None and start.premise is not None


def begin_round(attack: Attack, start: RoundStart) -> Begun:
    """A round of ``attack`` from ``start`` as the search runs it. A round with more candidates after
    the cheap checks than it may ask (``top_k``), with ``search.lazy_round``, is lazy
    (:mod:`engine.attack.lazy`): checked window by window as the search reaches them. Every other
    round is eager (:func:`candidate_round`): each candidate checked and scored, the best ``top_k`` by
    fluency estimated and ordered at once."""
    proposed, fresh, check = _generated(attack, start)
    limit = start.top_k or attack.search.top_k
    if lazy(attack, start):
        cheap, costly = attack.chain.split()
        checked = cheap.apply(fresh, check)
        if len(checked.kept) > limit:
            gate, search = attack.ranker.gate, attack.search
            assert gate is not None and start.premise is not None
            windows = first_windows(checked.kept, gate, start.polarized, premise=start.premise,
                                    hypothesis=start.hypothesis, target=start.setup.target_label.value,
                                    operators_so_far=start.operators_so_far, verb_swaps_last=search.verb_swaps_last,
                                    first=limit)
            order = LazyRound(check, costly, gate, start.polarized, limit, start.hypothesis,
                              tuple(start.operators_so_far), search.verb_swaps_last,
                              pending=_Pending(windows, rejected=dict(checked.rejected),
                                               by_operator={k: dict(v) for k, v in checked.by_operator.items()}))
            return Begun(order, len(proposed) - len(fresh), generated=tuple(proposed))
    found = _eager(attack, start, proposed, fresh, check)
    return Begun(LazyRound.ready(found.kept, found.estimates), found.revisited, found, found.generated)


def _generated(attack: Attack, start: RoundStart) -> tuple[list[Candidate], list[Candidate], CheckContext]:
    """The round's candidates (their relation allowed), those earlier rounds did not rank, and the
    round's check context."""
    settings, polarized, setup, premise = attack.settings, start.polarized, start.setup, start.premise
    allowed = start.allowed if start.allowed is not None else setup.relations
    proposed = attack.generate(
        polarized, allowed, setup=setup.name, settings=settings, fill_in=attack.fill_in,
        alternated=start.alternated, senses=attack.senses, premise=premise, operators=attack.operators,
    )
    # Seen texts compare with their first letter's case ignored: an edit that swaps a word back
    # re-capitalises the sentence ("the child ..." -> "The kid ..." -> "The child ...").
    known = {_first_lower(t) for t in start.seen}
    fresh = [c for c in proposed if _first_lower(c.text) not in known]
    check = CheckContext(setup, premise, start.composed, len(start.operators_so_far), polarized, settings,
                         attack.ranker.scorer, start.reference)
    return list(proposed), fresh, check


def candidate_round(attack: Attack, start: RoundStart) -> RoundCandidates:
    """One round of ``attack`` from ``start``, whole: candidates whose relation is allowed, less those
    seen, through the attack's constraint chain, ranked by its scorer (the best ``top_k``), then
    estimated, gated and ordered by its gate (with a premise). A lazy round (:func:`begin_round`) is
    checked to its end: the same candidates in the same order as the search asks them."""
    begun = begin_round(attack, start)
    if begun.eager is not None:
        return begun.eager
    asked = tuple(begun.order.take_all())
    rejected, by_operator = begun.rejected, begun.by_operator
    return RoundCandidates(begun.generated, begun.revisited, Checked(list(asked), rejected, by_operator), asked, asked,
                           rejected, by_operator, dict(begun.order.estimates), attack.ranker.natural_floor,
                           begun.order.windows_checked)


def _eager(attack: Attack, start: RoundStart, proposed: list[Candidate], fresh: list[Candidate],
           check: CheckContext) -> RoundCandidates:
    """The eager round: every fresh candidate through the whole chain, the best ``top_k`` by fluency,
    estimated, gated and ordered."""
    polarized, setup, premise = start.polarized, start.setup, start.premise
    scorer, gate = attack.ranker.scorer, attack.ranker.gate
    checked = attack.chain.apply(fresh, check)
    ranked = tuple(rank(checked.kept, scorer, start.top_k or attack.search.top_k))
    rejected, by_operator = dict(checked.rejected), dict(checked.by_operator)
    if gate is None or premise is None:
        return RoundCandidates(tuple(proposed), len(proposed) - len(fresh), checked, ranked,
                               verb_swaps_last(ranked, polarized, attack.search), rejected, by_operator)
    # The gate estimates the top_k by fluency (gating the whole checked list before the cut was
    # measured too: slower, and no better on the dev set; bench/validity/LOG.md).
    gated = gate.apply(list(ranked), premise=premise, hypothesis=start.hypothesis, target=setup.target_label.value,
                       operators_so_far=list(start.operators_so_far))
    if gate.min_validity > 0:  # a gate that drops nothing is not counted as a check
        rejected[ValidityGate.name] = gated.dropped
    if gated.by_operator:
        by_operator[ValidityGate.name] = gated.by_operator
    kept = verb_swaps_last(gated.kept, polarized, attack.search)
    # Natural candidates first: those the natural estimate puts under the floor are the last resort.
    last = [gate.last_resort(c) for c in kept]
    kept = tuple(c for c, late in zip(kept, last) if not late) + tuple(c for c, late in zip(kept, last) if late)
    return RoundCandidates(tuple(proposed), len(proposed) - len(fresh), checked, ranked, kept, rejected, by_operator,
                           dict(gated.estimates), gate.natural_floor)


def verb_swaps_last(candidates: Sequence[Candidate], source: PolarizedSentence,
                    search: SearchSection) -> tuple[Candidate, ...]:
    """The order a round asks ``candidates`` in: as given, but with ``search.verb_swaps_last`` the
    WordNet swaps of a verb of ``source`` after every other candidate, in their own order. A verb
    hyponym in a sense the reader does not take describes another event and fools the victim for
    that reason: successful H* that swap a verb are judged valid half as often as other swaps
    (bench/validity/LOG.md, v38), so the round asks them once nothing else is left (but before the
    candidates the natural estimate puts under its floor: :func:`candidate_round`)."""
    if not search.verb_swaps_last:
        return tuple(candidates)
    verbs = [swaps_a_verb(c, source) for c in candidates]
    return (tuple(c for c, verb in zip(candidates, verbs) if not verb)
            + tuple(c for c, verb in zip(candidates, verbs) if verb))


def ask_reason(candidate: Candidate, source: PolarizedSentence, search: SearchSection, natural_floor: float,
               windowed: bool = False) -> str:
    """Why a round asks ``candidate`` where it does, in a few words (the trace and the stepper):
    its place by fluency and estimate, or the group it waits in; ``windowed``: in a lazy round, where
    the place is within the candidate's window of the round's first order."""
    within = "; fluency within its window of the first order" if windowed else ""
    if candidate.naturalness is not None and candidate.naturalness < natural_floor:
        return f"last resort: estimated natural {candidate.naturalness:.2f} < floor {natural_floor:.2f}{within}"
    if search.verb_swaps_last and swaps_a_verb(candidate, source):
        return f"verb swap: after the round's other candidates{within}"
    if candidate.naturalness is not None:
        return f"natural first: estimated natural {candidate.naturalness:.2f}, fluency{within}"
    if candidate.validity is not None:
        return f"estimated valid {candidate.validity:.2f}, fluency{within}"
    return "fluency"


def _first_lower(text: str) -> str:
    return text[:1].lower() + text[1:]


@dataclass(frozen=True)
class Proposal:
    """One setup's ranked candidates for H, after the constraint chain.

    ``generated`` counts the distinct candidates before the chain, ``rejected`` what each
    constraint dropped (``rejected_by_operator``: per edit operator), ``candidates`` the best
    ``top_k`` of the rest in the order the attack asks them. With a validity gate, ``estimates``
    holds the estimate of each of the ``top_k`` (those the gate dropped too, under ``rejected["validity"]``)."""

    setup: Setup
    candidates: tuple[Candidate, ...]
    generated: int
    rejected: dict[str, int]
    rejected_by_operator: dict[str, dict[str, int]]
    estimates: dict[str, ValidityEstimate] = field(default_factory=dict)
    below_validity: tuple[Candidate, ...] = ()
    natural_floor: float = 0.0
    #: a lazy round (more candidates than ``top_k`` after the cheap checks): the windows checked
    windows: int = 0


def propose(attack: Attack, polarized: PolarizedSentence, setups: Sequence[Setup], premise: str | None = None,
            top_k: int | None = None) -> list[Proposal]:
    """Each setup's first round of ``attack`` on H (``polarized``): what :func:`candidate_round`
    gives the search's first round, in the order the victim is asked, keeping the best ``top_k``
    (default the recipe's) per setup. ``engine candidates``, the Candidates page and the search
    all call this pipeline, so they list the same candidates in the same order."""
    reference = attack.ranker.scorer.score([polarized.sentence.text])[0] if setups else None
    out = []
    for setup in setups:
        found = candidate_round(attack, RoundStart(polarized, setup, polarized.sentence.text, premise, reference,
                                                   top_k=top_k))
        below = found.below_validity if attack.ranker.gate is not None and premise is not None else ()
        out.append(Proposal(setup, found.kept, len(found.generated), found.rejected, found.by_operator,
                            found.estimates, below, found.natural_floor, found.windows))
    return out


def no_candidate_reason(attack: Attack, polarized: PolarizedSentence, proposal: Proposal,
                        premise: str | None = None) -> str:
    """Why a setup has no ranked candidate, in one sentence: the constraints dropped every one, or
    registered operators the recipe leaves out would have made some (named), or no registered
    operator has an edit whose relation projects into the setup's relations (natural logic licenses
    none here)."""
    if proposal.below_validity:
        return (f"No candidate: all {len(proposal.below_validity)} ranked candidates have a validity estimate "
                f"under min_validity (setting; see the estimates below).")
    if proposal.generated:
        return (f"No candidate: the constraints dropped all {proposal.generated} generated "
                f"(see the counts above).")
    every = generate_candidates(polarized, proposal.setup.relations, setup=proposal.setup.name,
                                settings=attack.settings, operators=registered_operators(), senses=attack.senses,
                                premise=premise)
    off = sorted({name for c in every for name in (c.operator, *c.also)})
    if off:
        return (f"No candidate from the recipe's operators; {len(every)} would come from operators it leaves "
                f"out ({', '.join(off)}: setting disabled_operators, or left out of the recipe).")
    return ("No candidate: no registered operator has an edit at any word whose relation projects into "
            "this setup's relations.")
