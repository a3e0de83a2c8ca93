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

__all__ = ["Proposal", "RoundCandidates", "RoundStart", "ask_reason", "candidate_round", "no_candidate_reason",
           "propose", "verb_swaps_last"]


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


def candidate_round(attack: Attack, start: RoundStart) -> RoundCandidates:
    """One round of ``attack`` from ``start``: candidates whose relation is allowed, less those seen,
    through the attack's constraint chain, ranked by its scorer (the best ``top_k``), then
    estimated, gated and ordered by its gate (with a premise)."""
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
    scorer, gate = attack.ranker.scorer, attack.ranker.gate
    check = CheckContext(setup, premise, start.composed, len(start.operators_so_far), polarized, settings, scorer,
                         start.reference)
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


def ask_reason(candidate: Candidate, source: PolarizedSentence, search: SearchSection, natural_floor: float) -> str:
    """Why a round asks ``candidate`` where it does, in a few words (the trace and the stepper):
    its place by fluency and estimate, or the group it waits in."""
    if candidate.naturalness is not None and candidate.naturalness < natural_floor:
        return f"last resort: estimated natural {candidate.naturalness:.2f} < floor {natural_floor:.2f}"
    if search.verb_swaps_last and swaps_a_verb(candidate, source):
        return "verb swap: after the round's other candidates"
    if candidate.naturalness is not None:
        return f"natural first: estimated natural {candidate.naturalness:.2f}, fluency"
    if candidate.validity is not None:
        return f"estimated valid {candidate.validity:.2f}, fluency"
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
                            found.estimates, below, found.natural_floor))
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
