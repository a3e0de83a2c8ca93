"""JSON columns of the runs store: how a value is written and read back (shared by the attack
runs of :mod:`engine.store.store` and the probe runs of :mod:`engine.store.probe_runs`)."""

from __future__ import annotations

import json
from typing import Any

from engine.core.errors import InputError

__all__ = ["from_json", "to_json"]


def to_json(value: Any, what: str) -> str:
    """Serialise ``value`` or raise InputError naming the field."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} is not JSON-serialisable: {exc}") from exc


def from_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)
