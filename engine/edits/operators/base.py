"""The edit-operator interface and its registry.

An edit operator (the paper's Algorithm 1 rows: PerturbSyno, Insertion, AltLM, ...) is an
object with a ``name``, the lexical ``relations`` its edits can stand in, a ``level`` (it edits
at a word, or the whole sentence) and one method, :meth:`EditOperator.propose`, that yields
edits. Token-level operators are asked only about the words where one of their relations
projects into the wanted sentence-level relations (Eq. 1); the generation stage
(:mod:`engine.edits.candidates`) projects each edit's relation through that word's context.

Registering is one decorator::

    @register_operator
    class Reduplicate(TokenOperator):
        name = "Reduplicate"
        relations = frozenset({Relation.EQUIVALENCE})
        description = "..."

        def edits_at(self, ctx, tok):
            yield Edit(...)

Candidates, the breakdowns, the CLI (``engine operators``) and the pages read the same registry.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from typing import ClassVar, TypeVar

from engine.core.registry import Configurable, Registry
from engine.edits.records import Edit, EditContext
from engine.natlog.polarity import PolarizedToken
from engine.natlog.relations import Relation, format_relations


class Level(enum.StrEnum):
    """Where an operator edits: at one word (projected through its context) or the whole sentence."""

    TOKEN = "token"
    SENTENCE = "sentence"


class EditOperator(Configurable, ABC):
    """One kind of edit. Subclasses set the class attributes and implement :meth:`propose`; an operator
    with parameters names them in ``parameters`` and takes them in its constructor (a recipe sets them)."""

    name: ClassVar[str]
    relations: ClassVar[frozenset[Relation]]
    level: ClassVar[Level] = Level.TOKEN
    description: ClassVar[str] = ""
    #: The operator's name in Zheng & Zhu (2023), Algorithm 1, where it has one.
    paper_name: ClassVar[str] = ""
    #: Its edits carry their own projection (``Edit.projection``): it sees every site, and each
    #: edit is kept when its own projection gives a wanted relation.
    own_context: ClassVar[bool] = False

    @abstractmethod
    def propose(self, ctx: EditContext, sites: Sequence[PolarizedToken]) -> Iterator[tuple[int | None, Edit]]:
        """Edits as ``(site, edit)``: ``site`` the 0-based index of the word whose context projects
        the edit's relation (None for sentence-level edits, whose relation is sentence-level).
        ``sites`` are the words where one of :attr:`relations` may be used (empty for sentence level)."""

    def __repr__(self) -> str:
        return f"<operator {self.name} {format_relations(self.relations)} {self.level}>"


class TokenOperator(EditOperator):
    """An operator that edits at one word at a time: implement :meth:`edits_at`."""

    level = Level.TOKEN

    @abstractmethod
    def edits_at(self, ctx: EditContext, tok: PolarizedToken) -> Iterable[Edit]:
        """The edits this operator makes at (or around) the word ``tok``."""

    def propose(self, ctx: EditContext, sites: Sequence[PolarizedToken]) -> Iterator[tuple[int | None, Edit]]:
        for tok in sites:
            for edit in self.edits_at(ctx, tok):
                yield tok.token.id - 1, edit


class SentenceOperator(EditOperator):
    """An operator that edits the whole sentence: implement :meth:`sentence_edits`; each edit's
    ``relation`` is the sentence-level relation H -> H*."""

    level = Level.SENTENCE

    @abstractmethod
    def sentence_edits(self, ctx: EditContext) -> Iterable[Edit]:
        """The whole-sentence edits of H."""

    def propose(self, ctx: EditContext, sites: Sequence[PolarizedToken]) -> Iterator[tuple[int | None, Edit]]:
        for edit in self.sentence_edits(ctx):
            yield None, edit


_REGISTRY: Registry[EditOperator] = Registry("edit operator")
O = TypeVar("O", bound=type[EditOperator])


def register_operator(cls: O) -> O:
    """Class decorator: add one instance of ``cls`` to the registry (registration order is the
    order candidates are generated in, within a word and relation)."""
    if cls.name and not cls.relations:
        raise ValueError(f"edit operator {cls.name} declares no relation")
    _REGISTRY.add(cls.name, cls())
    return cls


def registered_operators() -> tuple[EditOperator, ...]:
    """Every registered operator, in registration order."""
    return _REGISTRY.values()


def operator_names() -> tuple[str, ...]:
    return _REGISTRY.names()


def get_operator(name: str) -> EditOperator:
    """The operator registered as ``name`` (InputError naming the known ones)."""
    return _REGISTRY.get(name)


def select_operators(disabled: str | Iterable[str] = ()) -> tuple[EditOperator, ...]:
    """The registered operators minus ``disabled`` (names, or a comma-separated string as in
    ``settings.disabled_operators``, where ``none`` disables nothing), each with its default
    parameters; an unknown name is an InputError."""
    names = [n.strip() for n in (disabled.split(",") if isinstance(disabled, str) else disabled) if n.strip()]
    names = [n for n in names if n.lower() != "none"]
    for name in names:
        get_operator(name)
    return tuple(op for op in _REGISTRY.values() if op.name not in names)
