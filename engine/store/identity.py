"""Comparing two runs' identities (their stored configs) field by field.

A run's config is a nested JSON object (:mod:`engine.attack.identity` builds it); two runs are the same
attack when every compared field is equal. Provenance fields (the git commit, the hash derived
from the rest) are recorded but never compared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: Fields recorded for provenance only: they never make two runs different.
PROVENANCE = frozenset({"code.commit", "recipe_hash", "identity_hash", "recipe.name", "recipe.description"})


def flatten(value: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"recipe": {"top_k": 5}}`` -> ``{"recipe.top_k": 5}``."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, Mapping):
            out.update(flatten(item, name + "."))
        else:
            out[name] = item
    return out


def differences(stored: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Field -> (stored, given) for every compared field that differs (a field one side lacks
    counts as a difference; provenance fields are not compared)."""
    a, b = flatten(stored), flatten(given)
    return {key: (a.get(key), b.get(key)) for key in sorted(set(a) | set(b))
            if key not in PROVENANCE and a.get(key) != b.get(key)}


def _short(value: Any, width: int = 40) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str) if not isinstance(value, str) else value
    return text if len(text) <= width else text[:width - 1] + "…"


def describe_differences(diff: Mapping[str, tuple[Any, Any]], limit: int = 6) -> str:
    """One line: ``recipe.max_edits (stored 3, given 1); recipe.operators (given adds X; drops Y)``."""
    parts = []
    for key, (old, new) in list(diff.items())[:limit]:
        if _named_steps(old) and _named_steps(new):
            parts.append(f"{key} ({_describe_steps(old, new)})")
        elif isinstance(old, list) and isinstance(new, list):
            added, dropped = [x for x in new if x not in old], [x for x in old if x not in new]
            change = "; ".join(filter(None, [f"given adds {', '.join(map(str, added))}" if added else "",
                                             f"drops {', '.join(map(str, dropped))}" if dropped else ""]))
            parts.append(f"{key} ({change or 'another order'})")
        else:
            parts.append(f"{key} (stored {_short(old)}, given {_short(new)})")
    more = len(diff) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def _named_steps(value: Any) -> bool:
    """A recipe's operator or constraint list: dicts that each have a name."""
    return isinstance(value, list) and bool(value) and all(isinstance(x, Mapping) and "name" in x for x in value)


def _describe_steps(old: list[Mapping[str, Any]], new: list[Mapping[str, Any]]) -> str:
    """``given adds X; drops Y; max-edits: max_edits stored 3, given 1`` (or ``another order``)."""
    before, after = {s["name"]: s for s in old}, {s["name"]: s for s in new}
    added = [n for n in after if n not in before]
    dropped = [n for n in before if n not in after]
    changed = [f"{name}: {key} stored {_short(before[name].get(key))}, given {_short(after[name].get(key))}"
               for name in after if name in before
               for key in sorted(set(before[name]) | set(after[name])) if before[name].get(key) != after[name].get(key)]
    parts = ([f"given adds {', '.join(added)}"] if added else []) + ([f"drops {', '.join(dropped)}"] if dropped else [])
    return "; ".join(parts + changed) or "another order"


def recipe_rows(config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A run's stored identity as (field, value) rows, in field order (values as JSON text)."""
    return [(key, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
            for key, value in sorted(flatten(config).items())]


def diff_rows(first: Mapping[str, Any], second: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(field, first's value, second's value) for every compared field in which two runs differ."""
    def text(value: Any) -> str:
        return "—" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return [(key, text(a), text(b)) for key, (a, b) in differences(first, second).items()]
