"""Probe runs in the runs store: a victim on a probe suite's items, one result row per item.

Mixed into :class:`engine.store.store.RunStore`. Like attack runs, a probe run is created once per
name and resumed when started again with the same parameters: items already stored are skipped,
and a batch of results is written in one transaction, so an interrupted run loses no stored row
and never stores an item twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core.errors import InputError
from engine.core.vocab import LABELS
from engine.store.jsonio import from_json, to_json

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class ProbeRun:
    """One probe run: a suite's items (from a file or generated with a seed) against a victim."""

    id: int
    name: str
    suite: str
    victim: str
    data_path: str
    seed: int
    config: dict[str, Any]
    created_at: str
    finished_at: str | None


@dataclass(frozen=True)
class ProbeResult:
    """The victim's answer on one probe item, with the item's derived label and provenance."""

    item_index: int
    premise: str
    hypothesis: str
    gold_label: str
    category: str
    group: str
    family: str
    form: str
    meta: dict[str, Any]
    predicted_label: str
    probabilities: tuple[float, float, float]

    @property
    def correct(self) -> bool:
        return self.predicted_label == self.gold_label


def _probe_run(row: dict[str, Any]) -> ProbeRun:
    return ProbeRun(row["id"], row["name"], row["suite"], row["victim"], row["data_path"], row["seed"],
                    from_json(row["config"]), row["created_at"], row["finished_at"])


class ProbeRunsMixin:
    """Probe-run methods of the runs store (needs ``db``, ``transaction`` and ``now``)."""

    db: "sqlite_utils.Database"

    if TYPE_CHECKING:  # provided by RunStore
        def transaction(self) -> AbstractContextManager[sqlite_utils.Database]: ...
        def now(self) -> str: ...

    def start_probe_run(self, name: str, suite: str, victim: str, data_path: str | Path,
                        seed: int, config: dict[str, Any]) -> ProbeRun:
        """Create probe run ``name``, or return it when it exists with the same parameters."""
        if not name.strip():
            raise InputError("a probe run name must not be empty")
        wanted = {"suite": suite, "victim": victim, "data_path": str(data_path), "seed": int(seed),
                  "config": to_json(config, "probe run config")}
        with self.transaction() as db:
            row = next(db.query("SELECT * FROM probe_runs WHERE name = ?", [name]), None)
            if row is None:
                run_id = db.table("probe_runs").insert(
                    {"name": name, **wanted, "created_at": self.now(), "finished_at": None}).last_pk
                row = next(db.query("SELECT * FROM probe_runs WHERE id = ?", [run_id]))
            else:
                differing = [key for key, value in wanted.items() if row[key] != value]
                if differing:
                    raise InputError(
                        f"probe run {name!r} already exists with different {', '.join(differing)}; "
                        "use another --run-name or the same parameters to resume")
        return _probe_run(row)

    def finish_probe_run(self, run_id: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE probe_runs SET finished_at = ? WHERE id = ?", [self.now(), run_id])

    def probe_runs(self, suite: str | None = None) -> list[ProbeRun]:
        where, params = ("WHERE suite = ?", [suite]) if suite else ("", [])
        return [_probe_run(row) for row in self.db.query(f"SELECT * FROM probe_runs {where} ORDER BY id", params)]

    def probe_run(self, name: str) -> ProbeRun:
        row = next(self.db.query("SELECT * FROM probe_runs WHERE name = ?", [name]), None)
        if row is None:
            known = ", ".join(run.name for run in self.probe_runs()) or "none"
            raise InputError(f"no probe run named {name!r} (known probe runs: {known})")
        return _probe_run(row)

    def done_probe_items(self, run_id: int) -> set[int]:
        rows = self.db.query("SELECT item_index FROM probe_results WHERE probe_run_id = ?", [run_id])
        return {row["item_index"] for row in rows}

    def record_probe_results(self, run_id: int, results: Sequence[ProbeResult]) -> int:
        """Store a batch of results in one transaction; an item already stored is an error."""
        rows = []
        for result in results:
            if result.gold_label not in LABELS or result.predicted_label not in LABELS:
                raise InputError(f"probe item {result.item_index}: labels must be one of {', '.join(LABELS)}")
            rows.append({
                "probe_run_id": run_id, "item_index": result.item_index, "premise": result.premise,
                "hypothesis": result.hypothesis, "gold_label": result.gold_label, "category": result.category,
                "item_group": result.group, "family": result.family, "form": result.form,
                "meta": to_json(result.meta, "probe item meta"), "predicted_label": result.predicted_label,
                "probabilities": to_json(list(result.probabilities), "probabilities"),
            })
        with self.transaction() as db:
            if next(db.query("SELECT 1 FROM probe_runs WHERE id = ?", [run_id]), None) is None:
                raise InputError(f"no probe run with id {run_id}")
            done = self.done_probe_items(run_id)
            again = sorted(row["item_index"] for row in rows if row["item_index"] in done)
            if again:
                raise InputError(f"probe items {again[:5]} of probe run {run_id} are already recorded")
            db.table("probe_results").insert_all(rows)
        return len(rows)

    def probe_results(self, run_id: int) -> list[ProbeResult]:
        return list(self._probe_results(run_id))

    def _probe_results(self, run_id: int) -> Iterator[ProbeResult]:
        for row in self.db.query("SELECT * FROM probe_results WHERE probe_run_id = ? ORDER BY item_index",
                                 [run_id]):
            probs = from_json(row["probabilities"])
            yield ProbeResult(row["item_index"], row["premise"], row["hypothesis"], row["gold_label"],
                              row["category"], row["item_group"], row["family"], row["form"],
                              from_json(row["meta"]), row["predicted_label"], (probs[0], probs[1], probs[2]))
