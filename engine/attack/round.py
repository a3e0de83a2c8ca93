"""One round of candidates: generate → check (the constraint chain) → rank → estimate and gate → order.

The search (:class:`engine.attack.search.AttackSearch`, one call per round, from the hypothesis it
has reached) and the Candidates page and ``engine candidates`` (:func:`propose`, the first round of
each setup, no victim asked) run this one pipeline, so what the page lists is what a round of the
attack considers.

In: a polarized hypothesis, the setup and the relations an edit may have, the round's tools (chain,
scorer, gate, operators). Out: :class:`RoundCandidates`, the ranked list in the order the victim is
asked, with what each stage dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace

from engine.constraints.chain import CheckContext, Checked, ConstraintChain, swaps_a_verb
from engine.core.settings import Settings
from engine.edits.candidates import generate_candidates
from engine.edits.operators import EditOperator, select_operators
from engine.edits.records import Candidate, FillIn
from engine.lexicon.senses import SenseChooser
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.relations import Relation
from engine.natlog.setups import Setup
from engine.ranking.scoring import Scorer, rank
from engine.validity.estimate import ValidityEstimate, ValidityGate

Generator = Callable[..., list[Candidate]]

__all__ = ["Generator", "Proposal", "RoundCandidates", "ask_reason", "candidate_round", "no_candidate_reason",
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


def candidate_round(
    polarized: PolarizedSentence, setup: Setup, allowed: Collection[Relation], *,
    settings: Settings, scorer: Scorer, chain: ConstraintChain, premise: str | None, hypothesis: str,
    reference: float | None, gate: ValidityGate | None = None, fill_in: FillIn | None = None,
    senses: SenseChooser | None = None, operators: Sequence[EditOperator] | None = None,
    generate: Generator = generate_candidates, alternated: Collection[str] = (), seen: Collection[str] = (),
    composed: frozenset[Relation] = frozenset({Relation.EQUIVALENCE}), edits: int = 0,
    operators_so_far: Sequence[str] = (), top_k: int | None = None,
) -> RoundCandidates:
    """One round from ``polarized`` (reached from the original ``hypothesis`` H by ``edits`` edits
    whose composed relation is ``composed``): candidates whose relation is in ``allowed``, less those
    in ``seen``, through ``chain``, ranked by ``scorer`` (``top_k``, default ``settings.top_k``),
    then estimated and gated by ``gate`` (with a premise). ``reference`` is the scorer's score of H
    (the fluency floor's reference)."""
    proposed = generate(
        polarized, allowed, setup=setup.name, settings=settings, fill_in=fill_in, alternated=frozenset(alternated),
        senses=senses, premise=premise, **({"operators": tuple(operators)} if operators is not None else {}),
    )
    # Seen texts compare with their first letter's case ignored: an edit that swaps a word back
    # re-capitalises the sentence ("the child ..." -> "The kid ..." -> "The child ...").
    known = {_first_lower(t) for t in seen}
    fresh = [c for c in proposed if _first_lower(c.text) not in known]
    check = CheckContext(setup, premise, composed, edits, polarized, settings, scorer, reference)
    checked = chain.apply(fresh, check)
    ranked = tuple(rank(checked.kept, scorer, top_k or settings.top_k))
    rejected, by_operator = dict(checked.rejected), dict(checked.by_operator)
    if gate is None or premise is None:
        return RoundCandidates(tuple(proposed), len(proposed) - len(fresh), checked, ranked,
                               verb_swaps_last(ranked, polarized, settings), rejected, by_operator)
    # The gate estimates the top_k by fluency (gating the whole checked list before the cut was
    # measured too: slower, and no better on the dev set; docs/validity.md).
    gated = gate.apply(list(ranked), premise=premise, hypothesis=hypothesis, target=setup.target_label.value,
                       operators_so_far=list(operators_so_far))
    if gate.min_validity > 0:  # a gate that drops nothing is not counted as a check
        rejected[ValidityGate.name] = gated.dropped
    if gated.by_operator:
        by_operator[ValidityGate.name] = gated.by_operator
    kept = verb_swaps_last(gated.kept, polarized, settings)
    # Natural candidates first: those the natural estimate puts under the floor are the last resort.
    last = [gate.last_resort(c) for c in kept]
    kept = tuple(c for c, late in zip(kept, last) if not late) + tuple(c for c, late in zip(kept, last) if late)
    return RoundCandidates(tuple(proposed), len(proposed) - len(fresh), checked, ranked, kept, rejected, by_operator,
                           dict(gated.estimates), gate.natural_floor)


def verb_swaps_last(candidates: Sequence[Candidate], source: PolarizedSentence,
                    settings: Settings) -> tuple[Candidate, ...]:
    """The order a round asks ``candidates`` in: as given, but with ``settings.verb_swaps_last`` the
    WordNet swaps of a verb of ``source`` after every other candidate, in their own order. A verb
    hyponym in a sense the reader does not take describes another event and fools the victim for
    that reason: successful H* that swap a verb are judged valid half as often as other swaps
    (docs/validity.md, v38), so the round asks them once nothing else is left (but before the
    candidates the natural estimate puts under its floor: :func:`candidate_round`)."""
    if not settings.verb_swaps_last:
        return tuple(candidates)
    verbs = [swaps_a_verb(c, source) for c in candidates]
    return (tuple(c for c, verb in zip(candidates, verbs) if not verb)
            + tuple(c for c, verb in zip(candidates, verbs) if verb))


def ask_reason(candidate: Candidate, source: PolarizedSentence, settings: Settings, natural_floor: float) -> str:
    """Why a round asks ``candidate`` where it does, in a few words (the trace and the stepper):
    its place by fluency and estimate, or the group it waits in."""
    if candidate.naturalness is not None and candidate.naturalness < natural_floor:
        return f"last resort: estimated natural {candidate.naturalness:.2f} < floor {natural_floor:.2f}"
    if settings.verb_swaps_last and swaps_a_verb(candidate, source):
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


def propose(
    polarized: PolarizedSentence,
    setups: Sequence[Setup],
    scorer: Scorer,
    *,
    settings: Settings,
    premise: str | None = None,
    fill_in: FillIn | None = None,
    top_k: int | None = None,
    chain: ConstraintChain | None = None,
    senses: SenseChooser | None = None,
    gate: ValidityGate | None = None,
    operators: Sequence[EditOperator] | None = None,
) -> list[Proposal]:
    """Each setup's first round of an attack on H (``polarized``), as :func:`candidate_round` runs it,
    keeping the best ``top_k`` (default ``settings.top_k``) per setup. ``chain`` and ``operators``
    default to those the settings describe."""
    chain = chain or ConstraintChain.default(settings)
    gate = gate.for_settings(settings) if gate is not None else None
    reference = scorer.score([polarized.sentence.text])[0] if setups else None
    out = []
    for setup in setups:
        found = candidate_round(polarized, setup, setup.relations, settings=settings, scorer=scorer, chain=chain,
                                premise=premise, hypothesis=polarized.sentence.text, reference=reference, gate=gate,
                                fill_in=fill_in, senses=senses, operators=operators, top_k=top_k)
        below = found.below_validity if gate is not None and premise is not None else ()
        out.append(Proposal(setup, found.kept, len(found.generated), found.rejected, found.by_operator,
                            found.estimates, below, found.natural_floor))
    return out


def no_candidate_reason(polarized: PolarizedSentence, proposal: Proposal, *, settings: Settings,
                        premise: str | None = None, senses: SenseChooser | None = None) -> str:
    """Why a setup has no ranked candidate, in one sentence: the constraints dropped every one, or
    operators that are switched off would have made some (named), or no registered operator has an
    edit whose relation projects into the setup's relations (natural logic licenses none here)."""
    if proposal.below_validity:
        return (f"No candidate: all {len(proposal.below_validity)} ranked candidates have a validity estimate "
                f"under min_validity (setting; see the estimates below).")
    if proposal.generated:
        return (f"No candidate: the constraints dropped all {proposal.generated} generated "
                f"(see the counts above).")
    every = generate_candidates(polarized, proposal.setup.relations, setup=proposal.setup.name, settings=settings,
                                operators=select_operators((), settings), senses=senses, premise=premise)
    off = sorted({name for c in every for name in (c.operator, *c.also)})
    if off:
        return (f"No candidate from the operators switched on; {len(every)} would come from operators "
                f"switched off ({', '.join(off)}: setting disabled_operators, or left out of the recipe).")
    return ("No candidate: no registered operator has an edit at any word whose relation projects into "
            "this setup's relations.")
