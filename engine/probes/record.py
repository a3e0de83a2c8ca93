"""The one probe record every suite produces, and its JSONL form.

A :class:`ProbeItem` is an NLI pair with a label derived by the suite's solver (truth tables,
the RobustLR prover, a model-theoretic evaluator, the polarity marker) or read from a released
file, never typed by hand. ``category`` is what reports group by (a law, a contrast set, a
fragment); ``group`` is the finer cell (a perturbation group, a direction, a sub-type);
``form`` keeps the symbolic form the item came from, so a reader can re-derive the label.
``family`` ties items that must be judged together (the two directions of one equivalence, the
variants of one theory: RobustLR's consistency is computed per family).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.core.errors import InputError
from engine.core.vocab import LABELS

REQUIRED_FIELDS = ("premise", "hypothesis", "label", "suite", "category")


@dataclass(frozen=True)
class ProbeItem:
    """One probe pair with its derived label and where it came from."""

    premise: str
    hypothesis: str
    label: str
    suite: str
    category: str
    group: str = ""
    family: str = ""
    form: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise InputError(f"probe item label {self.label!r} is not one of {', '.join(LABELS)}")
        if not self.premise.strip() or not self.hypothesis.strip():
            raise InputError("probe item with an empty premise or hypothesis")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "probe item") -> "ProbeItem":
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(data).__name__}")
        missing = [name for name in REQUIRED_FIELDS if not isinstance(data.get(name), str)]
        if missing:
            raise InputError(f"{where}: missing or non-text field(s) {', '.join(missing)} "
                             f"(a probe record needs {', '.join(REQUIRED_FIELDS)})")
        known = {name: data[name] for name in ("group", "family", "form") if isinstance(data.get(name), str)}
        meta = data.get("meta") or {}
        if not isinstance(meta, dict):
            raise InputError(f"{where}: field meta must be an object")
        try:
            return cls(**{name: data[name] for name in REQUIRED_FIELDS}, **known, meta=meta)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None


def write_items(items: Iterable[ProbeItem], path: str | Path) -> int:
    """Write ``items`` as JSONL; return how many."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for item in items:
            handle.write(json.dumps(item.to_json(), ensure_ascii=False) + "\n")
            count += 1
    return count


def read_items(path: str | Path, suite: str | None = None) -> list[ProbeItem]:
    """Read a JSONL probe file; a wrong line or a record of another suite is a one-line error."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"probe data {path}: no such file")
    items: list[ProbeItem] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{number}: not JSON ({exc.msg})") from None
            item = ProbeItem.from_json(data, f"{path}:{number}")
            if suite is not None and item.suite != suite:
                raise InputError(f"{path}:{number}: an item of suite {item.suite!r}, not {suite!r}")
            items.append(item)
    if not items:
        raise InputError(f"probe data {path}: no items")
    return items


def label_counts(items: Sequence[ProbeItem]) -> dict[str, int]:
    return {label: sum(item.label == label for item in items) for label in LABELS}
