"""Merge judgments gathered elsewhere (e.g. an MTurk batch result CSV) into the store.

How H* reads comes in a ``fluency`` column (ok, odd or broken), or in the older yes/no
``not_fluent`` column (yes: broken, no: ok); with neither, a vote reads as ok."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import TextIO

from annotations.assignment import check_fluency, check_label, submit
from annotations.records import Fluency, ImportReport
from annotations.store import Store
from engine.core.errors import InputError
from engine.data.readers import check_text_file, not_utf8

# Accepted column names: our own, then MTurk batch-result names.
COLUMN_ALIASES = {
    "item_id": ("item_id", "Input.item_id"),
    "worker_id": ("worker_id", "WorkerId"),
    "label": ("label", "Answer.label"),
    "fluency": ("fluency", "Answer.fluency"),
    "not_fluent": ("not_fluent", "Answer.not_fluent"),
    "seconds": ("seconds", "WorkTimeInSeconds"),
}
REQUIRED = ("item_id", "worker_id", "label")
_WORKER = re.compile(r"^[\w.@+-]{1,64}$")
_TRUE = {"1", "true", "yes", "on", "x"}
_FALSE = {"", "0", "false", "no", "off"}


def _columns(header: list[str], path: Path) -> dict[str, str]:
    found = {}
    for field, aliases in COLUMN_ALIASES.items():
        name = next((alias for alias in aliases if alias in header), None)
        if name is not None:
            found[field] = name
    missing = [field for field in REQUIRED if field not in found]
    if missing:
        wanted = "; ".join(" or ".join(COLUMN_ALIASES[field]) for field in missing)
        raise InputError(f"{path}: missing column(s) {wanted} (found: {', '.join(header)})")
    return found


def _crowd_annotator(store: Store, worker: str, source: str) -> int:
    name = f"{source}:{worker}"
    row = next(store.db.query("SELECT id FROM annotators WHERE name = ?", [name]), None)
    if row is not None:
        return int(row["id"])
    annotator_id = store.db.table("annotators").insert({
        "name": name, "role": "annotator", "token_hash": None, "source": source,
        "created_at": store.now(), "revoked_at": None,
    }).last_pk
    assert annotator_id is not None  # set by every insert
    return int(annotator_id)


def import_votes(store: Store, path: str | Path, source: str = "crowd") -> ImportReport:
    """Merge the votes in CSV ``path``; a row already stored with the same label is a duplicate
    and skipped; a malformed or conflicting row is rejected with its line number while every
    other row is kept (the good rows commit together in one transaction)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such vote file")
    if not _WORKER.match(source):
        raise InputError(f"source {source!r} must be letters, digits or _.@+-")
    check_text_file(path)
    try:
        handle = path.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from exc
    try:
        return _import_rows(store, path, handle, source)
    except UnicodeDecodeError:  # nothing was imported: the transaction rolled back
        raise not_utf8(path) from None


def _import_rows(store: Store, path: Path, handle: TextIO, source: str) -> ImportReport:
    imported = duplicates = 0
    rejected: list[tuple[int, str]] = []
    with handle, store.transaction():
        reader = csv.DictReader(handle)
        if reader.fieldnames is None:
            raise InputError(f"{path}: empty file, expected a header row")
        columns = _columns(list(reader.fieldnames), path)
        for row in reader:
            line = reader.line_num
            try:
                outcome = _import_row(store, row, columns, source)
            except InputError as exc:
                rejected.append((line, str(exc)))
                continue
            imported += outcome == "imported"
            duplicates += outcome == "duplicate"
    return ImportReport(imported=imported, duplicates=duplicates, rejected=tuple(rejected))


def _import_row(store: Store, row: dict, columns: dict[str, str], source: str) -> str:
    if None in row or any(value is None for value in row.values()):
        raise InputError("wrong number of fields")
    raw_item = row[columns["item_id"]].strip()
    if not raw_item.isdigit():
        raise InputError(f"item id {raw_item!r} is not a number")
    item_id = int(raw_item)
    worker = row[columns["worker_id"]].strip()
    if not _WORKER.match(worker):
        raise InputError(f"worker id {worker!r} must be 1-64 letters, digits or _.@+-")
    label = check_label(row[columns["label"]])
    fluency = _fluency(row, columns)
    raw_seconds = row.get(columns.get("seconds", ""), "").strip()
    try:
        seconds = float(raw_seconds) if raw_seconds else None
    except ValueError as exc:
        raise InputError(f"time spent {raw_seconds!r} is not a number") from exc
    with store.transaction():
        annotator_id = _crowd_annotator(store, worker, source)
        stored = next(store.db.query(
            "SELECT label FROM judgments WHERE item_id = ? AND annotator_id = ?",
            [item_id, annotator_id]), None)
        if stored is not None:
            if stored["label"] == label:
                return "duplicate"
            raise InputError(f"worker {worker} already voted {stored['label']!r} on item "
                             f"{item_id}; conflicting vote {label!r} rejected")
        submit(store, annotator_id, item_id, label, fluency, seconds, source="import")
    return "imported"


def _fluency(row: dict, columns: dict[str, str]) -> Fluency:
    """The row's fluency: its ``fluency`` cell (ok, odd or broken), else its not-fluent flag (yes:
    broken, no or empty: ok); both given must agree."""
    level = row.get(columns.get("fluency", ""), "").strip() or None
    flag = row.get(columns.get("not_fluent", ""), "").strip().lower()
    if flag not in _TRUE | _FALSE:
        raise InputError(f"not-fluent flag {flag!r} is not yes/no")
    return check_fluency(level, flag in _TRUE if flag else None)
