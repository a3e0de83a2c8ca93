"""Probe suites registered by name, the way the edit operators are.

Each suite module builds one :class:`Suite` and registers it at import. A suite can *generate*
items (labels derived by its solver), *read* a released file, *check* an item (re-derive its label
from ``item.form``; a failing check is a generator bug), and add *reports* of its own beside the
runner's per-category accuracy and F1 (the equivalence suite's both-direction table, RobustLR's
consistency). Suites are looked up with :func:`get_suite`, which imports the built-in modules.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from engine.core.errors import InputError
from engine.core.registry import Registry
from engine.core.settings import Settings
from engine.probes.record import ProbeItem, read_items

T = TypeVar("T")

#: (items, predicted labels, probabilities in LABELS order) -> report name -> table rows
Reporter = Callable[[Sequence[ProbeItem], Sequence[str], Sequence[Sequence[float]]], dict[str, list[dict[str, Any]]]]

BUILTIN_MODULES = ("engine.probes.equivalence", "engine.probes.robustlr", "engine.probes.fragments",
                   "engine.probes.conjnli")


@dataclass(frozen=True)
class Suite:
    """A probe suite: how to make, read, check and report its items. ``generate`` (n, seed),
    ``read`` (path) and ``check`` (item) that declare a ``settings`` parameter get the caller's
    settings as a keyword (parser, WordNet, data): call them through :func:`generate_items` and
    :func:`load_suite_items`, which pass them."""

    name: str
    description: str
    generate: Callable[..., list[ProbeItem]] | None = None
    read: Callable[..., list[ProbeItem]] | None = None
    check: Callable[..., None] | None = None
    report: Reporter | None = None


class ProbeCheckError(ValueError):
    """An item whose stored label its suite's solver does not re-derive: a generator bug, never data."""


_SUITES: Registry[Suite] = Registry("probe suite")


def register_suite(suite: Suite) -> Suite:
    """Register ``suite`` (again registering the same object is a no-op: modules may be re-imported)."""
    if suite.name in _SUITES and _SUITES.get(suite.name) is not suite:
        raise ValueError(f"probe suite {suite.name!r} registered twice")
    if suite.name not in _SUITES:
        _SUITES.add(suite.name, suite)
    return suite


def _load_builtins() -> None:
    for module in BUILTIN_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def suite_names() -> list[str]:
    _load_builtins()
    return sorted(_SUITES)


def get_suite(name: str) -> Suite:
    _load_builtins()
    return _SUITES.get(name)


def _with_settings(fn: Callable[..., T], settings: Settings) -> Callable[..., T]:
    """``fn`` with ``settings`` passed, when it declares a ``settings`` parameter (the suites that parse
    or read WordNet do; the logic suites need none)."""
    if "settings" not in inspect.signature(fn).parameters:
        return fn
    return functools.partial(fn, settings=settings)


def load_suite_items(suite: Suite, data: Path | None, n: int, seed: int,
                     settings: Settings) -> list[ProbeItem]:
    """A suite's items: from a JSONL file, from the suite's released file or folder, or generated."""
    if data is None:
        return generate_items(suite, n, seed, settings)
    if data.suffix == ".jsonl":
        return read_items(data, suite.name)
    if suite.read is None:
        raise InputError(f"suite {suite.name!r} reads only JSONL files from 'probe generate', not {data}")
    if not data.exists():
        raise InputError(f"probe data {data}: no such file or folder")
    return _with_settings(suite.read, settings)(data)


def generate_items(suite: Suite, n: int, seed: int, settings: Settings) -> list[ProbeItem]:
    if suite.generate is None:
        raise InputError(f"suite {suite.name!r} has no generator; give --data (its released file or folder)")
    if n < 1:
        raise InputError("--n must be at least 1")
    items = _with_settings(suite.generate, settings)(n, seed)
    if suite.check is not None:
        check = _with_settings(suite.check, settings)
        for item in items:
            check(item)  # a failure is a generator bug: it propagates as one
    return items
