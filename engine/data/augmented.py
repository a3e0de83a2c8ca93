"""Augmentation files (``engine augment`` writes them): JSON Lines of training pairs that
:func:`engine.data.readers.read_pairs` reads (``sentence1``, ``sentence2``, ``gold_label``), each with
its provenance (``source``: the run, its kind, the source pair and its key, the phenomenon or
operators). Read here, below the victim's training, which adds them to a recipe's pairs and
records them on the model card."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from engine.core.errors import InputError


def read_augmentation(path: Path) -> list[dict[str, Any]]:
    """The lines of an augmentation file (InputError for a file that is not one)."""
    if not path.is_file():
        raise InputError(f"{path}: no such augmentation file")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                row = json.loads(line)
                row["sentence1"], row["sentence2"], row["gold_label"], row["source"]["key"]
            except (ValueError, KeyError, TypeError):
                raise InputError(f"{path}, line {number}: not a line of an augmentation file "
                                 "(engine augment writes them)") from None
            rows.append(row)
    return rows


def describe_augmentation(path: Path) -> dict[str, Any]:
    """What a victim's card records of an augmentation file: its examples by label, by phenomenon or
    operators, by run, by kind (attack, profile, or anchor), and how many were judged."""
    rows = read_augmentation(path)
    return {"examples": len(rows), "by_label": dict(Counter(r["gold_label"] for r in rows)),
            "by_what": dict(Counter(r["source"].get("what", "") for r in rows).most_common()),
            "runs": dict(Counter(r["source"].get("run", "") for r in rows)),
            "by_kind": dict(Counter(r["source"].get("kind", "") for r in rows)),
            "judged_valid": sum(1 for r in rows if r.get("judged") is True)}


def source_keys(path: Path) -> list[str]:
    """The keys of the source pairs an augmentation file was made from (the trained-pairs list
    leaves them out of later attacks and profiles, as it leaves the trained pairs out)."""
    return [r["source"]["key"] for r in read_augmentation(path)]
