"""One name → component registry for every pluggable part: edit operators, constraints, probe
suites, parsers, scorers, AltLM fill-ins and word-sense strategies.

A :class:`Registry` maps names to entries (a component instance, or a factory that builds one from
the settings) in registration order, refuses an empty or duplicate name, and answers an unknown
name with one line that lists the known ones. It replaces the if/elif factories, so adding a
parser or a scorer is one registration, and what is registered can be listed and snapshot-tested
(``tests/test_registry.py``).

In: a name. Out: the entry registered under it (or a one-line error naming the known ones).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from engine.core.errors import InputError

T = TypeVar("T")
E = TypeVar("E")


class Registry(Generic[T]):
    """Names → entries of one kind (``kind`` names it in messages: "edit operator", "parser")."""

    def __init__(self, kind: str, error: type[Exception] = InputError) -> None:
        self.kind = kind
        self.error = error
        self._entries: dict[str, T] = {}

    def add(self, name: str, entry: T) -> T:
        """Register ``entry`` under ``name``; an empty or taken name is a programming error."""
        if not name or name in self._entries:
            raise ValueError(f"{self.kind} name {name!r} is empty or already registered")
        self._entries[name] = entry
        return entry

    def register(self, name: str) -> Callable[[E], E]:
        """Decorator form of :meth:`add` for a factory function: ``@PARSERS.register("spacy")``."""
        def decorate(entry: E) -> E:
            self.add(name, entry)  # type: ignore[arg-type]
            return entry
        return decorate

    def get(self, name: str) -> T:
        try:
            return self._entries[name]
        except KeyError:
            raise self.error(f"unknown {self.kind} {name!r}; known: {', '.join(self._entries) or 'none'}") from None

    def names(self) -> tuple[str, ...]:
        """The registered names, in registration order."""
        return tuple(self._entries)

    def values(self) -> tuple[T, ...]:
        return tuple(self._entries.values())

    def copy(self) -> Registry[T]:
        """A registry with the same entries (tests register into a copy and leave this one as it is)."""
        other: Registry[T] = Registry(self.kind, self.error)
        other._entries = dict(self._entries)
        return other

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"<{self.kind} registry: {', '.join(self._entries)}>"
