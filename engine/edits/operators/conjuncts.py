"""Conjunct edits as attack operators: delete a conjunct or disjunct, insert one (ConjNLI's edits).

Each edit's relation is the lexical relation old -> new at the coordination, as for any edit:

- **ConjunctDeletion** "A and B" -> "A": (A ∧ B) ⊏ A (forward, like deleting an intersective
  modifier; "but" conjoins too);
- **DisjunctDeletion** "A or B" -> "A": (A ∨ B) ⊐ A (reverse);
- **ConjunctInsertion** "A and B" -> "A, B and C": ⊐;
- **DisjunctInsertion** "A or B" -> "A, B or C": A ⊏ (A ∨ C), forward.

The relation projects through the coordination's context (:func:`engine.edits.conjuncts.coordination_projection`:
the triggers outside it that hold all its conjuncts), carried on the edit, so "No dog or cat
barked" -> "No dog barked" is ⊏ (the disjunct's ⊐ flipped by "no"). Only boolean coordinations
are edited: a collective predicate, a name, a number, "between", "and then" (the risk reasons of
:func:`engine.edits.conjuncts.assess_risk`) make a coordination non-boolean, and it is never proposed.
Inserted conjuncts are the premise's conjuncts of the same category, else the small lexicon of
:mod:`engine.edits.conjuncts`. The derivation (connective, category, why boolean) is in the edit's ``path``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

from engine.core.errors import InputError
from engine.edits.conjuncts import ConjunctEdit, Phrase, conjunct_edits, donor_phrases
from engine.edits.operators.base import EditOperator, Level, register_operator
from engine.edits.records import Edit, EditContext
from engine.lexicon.inflection import uncapitalise
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import Relation
from engine.parse import ParsedSentence, parse_many, split_sentences


def edit_window(sentence: ParsedSentence, words: Sequence[str], spaces: Sequence[bool]) -> tuple[int, int, int, int]:
    """The smallest word window [start, end) of the sentence that, replaced by ``words[new_start:new_end]``
    (with their spacing), gives the edited sentence; never an empty side except at the sentence's
    edges, so the edit's spacing is exactly the one rendered (:func:`engine.edits.records.apply_edit` keeps
    the words outside the window as they are)."""
    def lowered(pairs: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
        # The first word is compared as it reads mid-sentence: apply_edit capitalises it anyway.
        return [(w[:1].lower() + w[1:], s) if k == 0 else (w, s) for k, (w, s) in enumerate(pairs)]

    old = lowered([(uncapitalise(t.text, t.upos), t.space_after) for t in sentence.tokens])
    new = lowered(list(zip(words, spaces)))
    prefix = 0
    while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    start, end, new_end = prefix, len(old) - suffix, len(new) - suffix
    if (start == end or start == new_end) and start > 0:
        start -= 1
    return start, end, start, new_end


def as_edit(sentence: ParsedSentence, edit: ConjunctEdit) -> Edit:
    """The conjunct edit as an :class:`Edit` of H: its window, its lexical relation, the projection
    of its coordination's context and the derivation in ``path``."""
    start, end, new_start, new_end = edit_window(sentence, edit.words, edit.spaces)
    coordination = edit.coordination
    path = (f"'{coordination.coordinator}' coordination ({coordination.category}), boolean", edit.reasoning)
    return Edit(start, end, edit.words[new_start:new_end], edit.lexical, path=path,
                spaces=edit.spaces[new_start:new_end], projection=edit.projection)


def premise_donors(ctx: EditContext) -> tuple[Phrase, ...]:
    """The conjuncts of the premise's boolean coordinations (none without a premise)."""
    if not ctx.premise:
        return ()
    try:
        parsed = parse_many(split_sentences(ctx.premise), settings=ctx.settings)
    except InputError:
        return ()
    return donor_phrases(p for p in parsed if p is not None)


class ConjunctOperator(EditOperator):
    """An operator making one kind of conjunct edit (``kind``) on coordinations by ``connectives``."""

    level = Level.TOKEN
    own_context = True
    kind: ClassVar[str]
    connectives: ClassVar[frozenset[str]]
    parameters = ("insertions_per_slot",)

    def __init__(self, insertions_per_slot: int = 8) -> None:
        #: How many premise conjuncts an insertion may offer per coordination.
        self.insertions_per_slot = insertions_per_slot

    def propose(self, ctx: EditContext, sites: Sequence[PolarizedToken]) -> Iterator[tuple[int | None, Edit]]:
        donors = premise_donors(ctx) if self.kind == "add" else ()
        for edit in conjunct_edits(ctx.polarized, donors, (self.kind,), self.insertions_per_slot):
            coordination = edit.coordination
            if coordination.coordinator in self.connectives and coordination.risk.boolean:
                yield coordination.head_id - 1, as_edit(ctx.polarized.sentence, edit)


@register_operator
class ConjunctDeletion(ConjunctOperator):
    """Delete a conjunct of a boolean "and" / "but": (A ∧ B) ⊏ A."""

    name = "ConjunctDeletion"
    relations = frozenset({Relation.FORWARD})
    description = "delete a conjunct of a boolean 'and'/'but' (⊏)"
    kind = "remove"
    connectives = frozenset({"and", "but"})


@register_operator
class DisjunctDeletion(ConjunctOperator):
    """Delete a disjunct of a boolean "or": (A ∨ B) ⊐ A."""

    name = "DisjunctDeletion"
    relations = frozenset({Relation.REVERSE})
    description = "delete a disjunct of a boolean 'or' (⊐)"
    kind = "remove"
    connectives = frozenset({"or"})


@register_operator
class ConjunctInsertion(ConjunctOperator):
    """Add a conjunct to a boolean "and": A ⊐ (A ∧ C)."""

    name = "ConjunctInsertion"
    relations = frozenset({Relation.REVERSE})
    description = "add a conjunct to a boolean 'and' (⊐)"
    kind = "add"
    connectives = frozenset({"and"})


@register_operator
class DisjunctInsertion(ConjunctOperator):
    """Add a disjunct to a boolean "or": A ⊏ (A ∨ C)."""

    name = "DisjunctInsertion"
    relations = frozenset({Relation.FORWARD})
    description = "add a disjunct to a boolean 'or' (⊏)"
    kind = "add"
    connectives = frozenset({"or"})
