"""The records of candidate generation: an :class:`Edit` an operator proposes, the
:class:`EditContext` it sees, and the :class:`Candidate` H* that applying it yields.

An edit replaces a word range of H and says which lexical relation holds between the old and
the new words; the candidate carries the sentence-level relation H -> H* (the lexical relation
projected through the context of the edited word) and the derivation a reader can check.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from engine.core.settings import Settings
from engine.lexicon.inflection import fix_article, uncapitalise
from engine.lexicon.pp_inventory import ModifierInventory
from engine.natlog.polarity import PolarizedSentence
from engine.natlog.relations import Relation

if TYPE_CHECKING:
    from engine.lexicon.senses import SenseChooser


@dataclass(frozen=True)
class Edit:
    """Replace words [start, end) of H by ``words``; ``relation`` holds between old and new.

    ``spaces`` says whether a space follows each new word; by default every new word but the
    last is followed by one, and the last keeps the spacing of the span it replaces.
    ``synsets`` and ``path`` are the WordNet evidence of a lexical substitution.
    """

    start: int
    end: int
    words: tuple[str, ...]
    relation: Relation
    synsets: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    spaces: tuple[bool, ...] | None = None
    # The projection list the edit projects through, when not its site word's own (a negation
    # inserted at the predicate projects through the clause's context: PolarizedSentence.clause_projection).
    projection: tuple[Relation, ...] | None = None


@dataclass(frozen=True)
class Candidate:
    """One edited hypothesis H* with the derivation that justifies its relation to H.

    ``span`` is the [start, end) word range replaced in H (0-based), ``new_span`` the
    range of the new words in H*; ``relation`` is the sentence-level relation H -> H*,
    ``lexical_relation`` projected through the context of H's word ``site`` (None for
    sentence-level edits, whose relation is already sentence-level). ``operator`` names the
    registered edit operator (:mod:`engine.edits.operators`); ``also`` the others that gave the same text.
    """

    text: str
    words: tuple[str, ...]
    operator: str
    span: tuple[int, int]
    new_span: tuple[int, int]
    old: str
    new: str
    lexical_relation: Relation
    relation: Relation
    setup: str
    synsets: tuple[str, ...] = ()
    path: tuple[str, ...] = ()
    site: int | None = None
    also: tuple[str, ...] = ()
    score: float | None = None
    #: The estimated probability that H* is valid (:mod:`engine.validity`), once a gate estimated it.
    validity: float | None = None
    #: The estimated probability that H* is valid and natural English, once a gate with a natural
    #: estimate estimated it: what orders the round (:mod:`engine.validity.estimate`).
    naturalness: float | None = None

    @property
    def edit_kind(self) -> str:
        """``insertion``, ``deletion`` or ``substitution``."""
        if not self.old:
            return "insertion"
        return "deletion" if not self.new else "substitution"

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.text, "words": list(self.words), "operator": self.operator,
            "also": list(self.also), "edit": self.edit_kind, "span": list(self.span),
            "new_span": list(self.new_span), "old": self.old, "new": self.new,
            "lexical_relation": self.lexical_relation.symbol, "relation": self.relation.symbol,
            "setup": self.setup, "site": self.site, "synsets": list(self.synsets), "path": list(self.path),
            "score": self.score, **({"validity": self.validity} if self.validity is not None else {}),
            **({"naturalness": self.naturalness} if self.naturalness is not None else {}),
        }


@dataclass(frozen=True)
class Slot:
    """A word AltLM may replace, with the lemmas its replacement must avoid."""

    index: int
    upos: str
    xpos: str
    lemma: str
    exclude: frozenset[str]


class FillIn(Protocol):
    """Proposes same-POS replacement words for slots of a sentence (the AltLM back-ends of
    :mod:`engine.ranking.fill_in`)."""

    def alternatives(self, words: Sequence[str], slots: Sequence[Slot], k: int) -> list[list[str]]: ...


@dataclass(frozen=True)
class EditContext:
    """What every operator sees: the polarized H, the settings and the generation resources.

    ``alternated`` holds the (lower-cased) words earlier alternations introduced, which are not
    alternated again; ``fill_in`` is the AltLM back-end (None leaves AltLM out); ``senses`` picks
    the WordNet senses of a word in context (None: WordNet's first ones), reading ``premise`` too.
    """

    polarized: PolarizedSentence
    settings: Settings
    inventory: ModifierInventory
    alternated: frozenset[str] = frozenset()
    fill_in: FillIn | None = None
    senses: SenseChooser | None = None
    premise: str | None = None

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(t.text for t in self.polarized.sentence.tokens)


def apply_edit(polarized: PolarizedSentence, edit: Edit) -> tuple[tuple[str, ...], str, tuple[int, int]]:
    """H* words, text and the new words' span after an edit (spacing, capitals, a/an fixed)."""
    tokens = polarized.sentence.tokens
    words = [t.text for t in tokens]
    flags = [t.space_after for t in tokens]
    words[0] = uncapitalise(words[0], tokens[0].upos)
    new_flags = [True] * len(edit.words)
    if edit.end > edit.start:
        if edit.words:
            new_flags[-1] = flags[edit.end - 1]
        elif edit.start > 0:
            flags[edit.start - 1] = flags[edit.end - 1]
    elif edit.start > 0:
        new_flags[-1], flags[edit.start - 1] = flags[edit.start - 1], True
    if edit.spaces is not None:
        new_flags = list(edit.spaces)
    words = words[: edit.start] + list(edit.words) + words[edit.end:]
    flags = flags[: edit.start] + new_flags + flags[edit.end:]
    new_span = (edit.start, edit.start + len(edit.words))
    fix_article(words, edit.start)
    if words:
        words[0] = words[0][:1].upper() + words[0][1:]
    text = "".join(w + (" " if f else "") for w, f in zip(words, flags)).strip()
    return tuple(words), text, new_span


def make_candidate(
    polarized: PolarizedSentence, operator: str, edit: Edit, relation: Relation, setup: str, site: int | None,
) -> Candidate:
    """The candidate H* of ``edit``, whose sentence-level relation to H is ``relation``."""
    words, text, new_span = apply_edit(polarized, edit)
    old_words = [t.text for t in polarized.sentence.tokens[edit.start:edit.end]]
    return Candidate(
        text=text, words=words, operator=operator, span=(edit.start, edit.end), new_span=new_span,
        old=" ".join(old_words), new=" ".join(words[new_span[0]:new_span[1]]),
        lexical_relation=edit.relation, relation=relation, setup=setup,
        synsets=edit.synsets, path=edit.path, site=site,
    )


def merge_duplicates(candidates: Sequence[Candidate]) -> list[Candidate]:
    """One candidate per text: the first derivation, naming the other operators in ``also``."""
    merged: dict[str, Candidate] = {}
    for c in candidates:
        first = merged.get(c.text)
        if first is None:
            merged[c.text] = c
        elif c.operator != first.operator and c.operator not in first.also:
            merged[c.text] = dataclasses.replace(first, also=(*first.also, c.operator))
    return list(merged.values())
