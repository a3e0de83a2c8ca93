"""Candidate generation (the paper's Algorithm 1): every natural-logic edit H -> H* whose
sentence-level relation is in a given set.

For each word the natural-logic core says which lexical relations project to one of the wanted
relations (``local_relations``, Eq. 1); each registered edit operator (:mod:`engine.edits.operators`)
is asked only about the words where one of its relations may be used, and the candidate's
sentence-level relation is the word's projection of the edit's lexical relation, so it is exact
and composes across rounds with ``join``. Sentence-level edits project as themselves.

:func:`propose` adds what the attack does next: the constraint chain (:mod:`engine.constraints.chain`)
and the fluency ranking, so the Candidates page and ``engine candidates`` list exactly what a
round of the attack would consider.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

from engine.constraints.chain import CheckContext, ConstraintChain
from engine.core.settings import Settings, get_settings
from engine.edits.operators import EditOperator, Level, registered_operators, select_operators
from engine.edits.records import Candidate, EditContext, FillIn, make_candidate, merge_duplicates
from engine.lexicon.pp_inventory import ModifierInventory
from engine.lexicon.pp_inventory import inventory as default_inventory
from engine.lexicon.senses import SenseChooser
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.relations import RELATION_ORDER, Relation
from engine.natlog.setups import Setup
from engine.ranking.scoring import Scorer, rank
from engine.validity.estimate import ValidityEstimate, ValidityGate

__all__ = ["Candidate", "Proposal", "generate_candidates", "no_candidate_reason", "propose"]


def generate_candidates(
    polarized: PolarizedSentence,
    relations: Collection[Relation],
    *,
    setup: str = "",
    settings: Settings | None = None,
    inventory: ModifierInventory | None = None,
    fill_in: FillIn | None = None,
    alternated: Collection[str] = (),
    operators: Sequence[EditOperator] | None = None,
    senses: SenseChooser | None = None,
    premise: str | None = None,
) -> list[Candidate]:
    """Every candidate H* whose relation to H is one of ``relations``, duplicates merged.

    ``setup`` names the setup the candidates are for (recorded on each); ``operators`` defaults to
    the registered ones minus ``settings.disabled_operators``; ``fill_in`` enables AltLM;
    ``alternated`` lists the words (or ``Candidate.new`` phrases) that alternations introduced in
    earlier rounds, which are not alternated again; ``senses`` chooses each word's WordNet senses
    in context (with the ``premise`` when given; None: WordNet's first senses). Order: by edited word, then lexical relation
    (``RELATION_ORDER``), then operator registration order; sentence-level edits last.
    """
    settings = settings or get_settings()
    wanted = frozenset(relations)
    chosen = select_operators(settings.disabled_operators) if operators is None else tuple(operators)
    done = frozenset(w.lower() for phrase in alternated for w in phrase.split())
    ctx = EditContext(polarized, settings, inventory or default_inventory(settings), done, fill_in, senses, premise)
    tokens = [t for t in polarized.tokens if t.token.upos != "PUNCT"]
    local = {t.token.id - 1: polarized.local_relations(t.token.id, wanted) for t in tokens}
    keyed: list[tuple[tuple[int, int, int, int], Candidate]] = []
    last = len(polarized.tokens)
    for rank_of_op, op in enumerate(chosen):
        if op.level is Level.SENTENCE:
            for seq, (_, edit) in enumerate(op.propose(ctx, ())):
                if edit.relation in wanted:
                    candidate = make_candidate(polarized, op.name, edit, edit.relation, setup, None)
                    keyed.append(((last, rank_of_op, 0, seq), candidate))
            continue
        # An operator whose edits bring their own projection (op.own_context) sees every site.
        sites = tokens if op.own_context else [t for t in tokens if op.relations & local[t.token.id - 1]]
        for seq, (site, edit) in enumerate(op.propose(ctx, sites)):
            assert site is not None, f"{op.name} is a token-level operator but proposed a sentence edit"
            mapping = edit.projection or polarized.tokens[site].projection
            projected = mapping[RELATION_ORDER.index(edit.relation)]
            if edit.relation not in op.relations or projected not in wanted:
                continue
            candidate = make_candidate(polarized, op.name, edit, projected, setup, site)
            keyed.append(((site, RELATION_ORDER.index(edit.relation), rank_of_op, seq), candidate))
    keyed.sort(key=lambda item: item[0])
    return merge_duplicates([c for _, c in keyed])


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


def propose(
    polarized: PolarizedSentence,
    setups: Sequence[Setup],
    scorer: Scorer,
    *,
    premise: str | None = None,
    settings: Settings | None = None,
    fill_in: FillIn | None = None,
    top_k: int | None = None,
    chain: ConstraintChain | None = None,
    senses: SenseChooser | None = None,
    gate: ValidityGate | None = None,
) -> list[Proposal]:
    """Generate, check, rank and (with a ``gate``) estimate and gate each setup's candidates as the
    first round of an attack would, keeping the best ``top_k`` (default ``settings.top_k``) per setup."""
    settings = settings or get_settings()
    chain = chain or ConstraintChain.default()
    out = []
    reference = scorer.score([polarized.sentence.text])[0] if setups else None
    for setup in setups:
        found = generate_candidates(polarized, setup.relations, setup=setup.name, settings=settings, fill_in=fill_in,
                                    senses=senses, premise=premise)
        check = CheckContext(setup, premise, source=polarized, settings=settings, scorer=scorer, reference=reference)
        checked = chain.apply(found, check)
        keep = top_k or settings.top_k
        if gate is None or premise is None:
            ranked = rank(checked.kept, scorer, keep)
            out.append(Proposal(setup, tuple(ranked), len(found), checked.rejected, checked.by_operator))
            continue
        ranked = rank(checked.kept, scorer, keep)
        gated = gate.apply(ranked, premise=premise, hypothesis=polarized.sentence.text,
                           target=setup.target_label.value)
        kept = {c.text for c in gated.kept}
        below = tuple(replace(c, validity=round(gated.estimates[c.text].probability, 4))
                      for c in ranked if c.text not in kept)
        rejected = {**checked.rejected, **({ValidityGate.name: gated.dropped} if gate.min_validity > 0 else {})}
        by_operator = {**checked.by_operator, **({ValidityGate.name: gated.by_operator} if gated.by_operator else {})}
        out.append(Proposal(setup, tuple(gated.kept), len(found), rejected, by_operator, gated.estimates, below))
    return out


def no_candidate_reason(polarized: PolarizedSentence, proposal: Proposal, *, settings: Settings | None = None,
                        premise: str | None = None, senses: SenseChooser | None = None) -> str:
    """Why a setup has no ranked candidate, in one sentence: the constraints dropped every one, or
    operators that are switched off would have made some (named), or no registered operator has an
    edit whose relation projects into the setup's relations (natural logic licenses none here)."""
    settings = settings or get_settings()
    if proposal.below_validity:
        return (f"No candidate: all {len(proposal.below_validity)} ranked candidates have a validity estimate "
                f"under min_validity (setting; see the estimates below).")
    if proposal.generated:
        return (f"No candidate: the constraints dropped all {proposal.generated} generated "
                f"(see the counts above).")
    every = generate_candidates(polarized, proposal.setup.relations, setup=proposal.setup.name, settings=settings,
                                operators=registered_operators(), senses=senses, premise=premise)
    off = sorted({name for c in every for name in (c.operator, *c.also)})
    if off:
        return (f"No candidate from the operators switched on; {len(every)} would come from operators "
                f"switched off ({', '.join(off)}: setting disabled_operators).")
    return ("No candidate: no registered operator has an edit at any word whose relation projects into "
            "this setup's relations.")
