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

from collections.abc import Callable, Iterator, Mapping
from typing import ClassVar, Generic, Self, TypeVar

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


#: The values a component parameter may take (what a recipe file can spell).
ParamValue = int | float | str | bool


class Configurable:
    """A registered component with constructor parameters (an edit operator, a constraint).

    ``parameters`` names them; each is a constructor argument whose default is on the class (as
    spaCy's ``default_config``), and a recipe gives its own values by name (:meth:`configured`). The
    registry holds one instance built with the defaults.
    """

    name: ClassVar[str]
    parameters: ClassVar[tuple[str, ...]] = ()

    def params(self) -> dict[str, ParamValue]:
        """The instance's parameter values, by name."""
        return {name: getattr(self, name) for name in self.parameters}

    def configured(self, values: Mapping[str, object], what: str = "component") -> Self:
        """A new instance of the same class with ``values`` replacing some parameters (InputError for an
        unknown name or a value of another type)."""
        unknown = sorted(set(values) - set(self.parameters))
        if unknown:
            raise InputError(f"{what} {self.name} has no parameter {unknown[0]!r}; "
                             f"it takes: {', '.join(self.parameters) or 'none'}")
        merged = self.params()
        for key, value in values.items():
            merged[key] = _same_type(merged[key], value, f"{what} {self.name}: parameter {key!r}")
        return type(self)(**merged)


def _same_type(default: ParamValue, value: object, what: str) -> ParamValue:
    """``value`` as the type of ``default`` (an int is a valid float; nothing else converts)."""
    if isinstance(default, bool) or isinstance(value, bool):
        if isinstance(default, bool) and isinstance(value, bool):
            return value
    elif isinstance(default, float) and isinstance(value, (int, float)):
        return float(value)
    elif isinstance(default, int) and isinstance(value, int):
        return value
    elif isinstance(default, str) and isinstance(value, str):
        return value
    raise InputError(f"{what} must be {type(default).__name__}, not {value!r}")
