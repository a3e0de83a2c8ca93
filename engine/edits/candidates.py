"""Candidate generation (the paper's Algorithm 1): every natural-logic edit H -> H* whose
sentence-level relation is in a given set.

For each word the natural-logic core says which lexical relations project to one of the wanted
relations (``local_relations``, Eq. 1); each registered edit operator (:mod:`engine.edits.operators`)
is asked only about the words where one of its relations may be used, and the candidate's
sentence-level relation is the word's projection of the edit's lexical relation, so it is exact
and composes across rounds with ``join``. Sentence-level edits project as themselves.

A round of the attack (:mod:`engine.attack.round`) runs these candidates through the constraint
chain, the fluency ranking and the validity gate.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from engine.core.settings import Settings
from engine.edits.operators import EditOperator, Level, select_operators
from engine.edits.records import Candidate, EditContext, FillIn, make_candidate, merge_duplicates
from engine.lexicon.pp_inventory import ModifierInventory
from engine.lexicon.pp_inventory import inventory as default_inventory
from engine.lexicon.senses import SenseChooser
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.relations import RELATION_ORDER, Relation

__all__ = ["Candidate", "generate_candidates"]


def generate_candidates(
    polarized: PolarizedSentence,
    relations: Collection[Relation],
    *,
    setup: str = "",
    settings: Settings,
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
