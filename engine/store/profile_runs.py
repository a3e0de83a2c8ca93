"""Profile runs in the runs store: a victim's failures by natural-logic phenomenon.

Mixed into :class:`engine.store.store.RunStore`. A profile run (:mod:`engine.profile`) asks, for
each pair and setup, a few of the best candidates of every phenomenon its first round has. One
:class:`ProfilePair` row per pair and setup (profiled, or skipped because the victim already gets
(P, H) wrong, or unparsable), with one :class:`ProfileCell` per phenomenon, is written in one
transaction, so an interrupted run resumes where it stopped and never stores a pair twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.core.errors import InputError
from engine.core.vocab import LABELS
from engine.store.jsonio import from_json, to_json

if TYPE_CHECKING:
    import sqlite_utils

PAIR_STATUSES = ("profiled", "skipped", "unparsable")


@dataclass(frozen=True)
class ProfileRun:
    """One profile run: a victim on a data file's pairs in some setups, ``budget`` asks per phenomenon."""

    id: int
    name: str
    victim: str
    data_path: str
    data_format: str
    setups: tuple[str, ...]
    budget: int
    config: dict[str, Any]
    created_at: str
    finished_at: str | None


@dataclass(frozen=True)
class ProfileCell:
    """One phenomenon on one pair: how many of its candidates the round had, how many were asked,
    how many fooled the victim, and its example (the first that fooled it, else the asked one with
    the lowest probability of the target label), with that H*'s estimates."""

    phenomenon: str
    candidates: int
    asked: int
    fooled: int
    example: str
    example_target_prob: float
    example_validity: float | None = None
    example_natural: float | None = None


@dataclass(frozen=True)
class ProfilePair:
    """One pair in one setup: its text and gold label, how it went, the victim on (P, H), its cells."""

    pair_index: int
    setup: str
    premise: str
    hypothesis: str
    gold_label: str
    status: str
    original_probabilities: tuple[float, float, float] | None
    cells: tuple[ProfileCell, ...] = ()


def _profile_run(row: dict[str, Any]) -> ProfileRun:
    return ProfileRun(row["id"], row["name"], row["victim"], row["data_path"], row["data_format"],
                      tuple(row["setups"].split(",")), int(row["budget"]), from_json(row["config"]),
                      row["created_at"], row["finished_at"])


class ProfileRunsMixin:
    """Profile-run methods of the runs store (needs ``db``, ``transaction`` and ``now``)."""

    db: "sqlite_utils.Database"

    if TYPE_CHECKING:  # provided by RunStore
        def transaction(self) -> AbstractContextManager[sqlite_utils.Database]: ...
        def now(self) -> str: ...

    def start_profile_run(self, name: str, victim: str, data_path: str, data_format: str,
                          setups: Sequence[str], budget: int, config: dict[str, Any]) -> ProfileRun:
        """Create profile run ``name``, or return it when it exists with the same parameters (resume)."""
        if not name.strip():
            raise InputError("a profile run name must not be empty")
        if budget < 1:
            raise InputError(f"the budget per phenomenon must be at least 1, not {budget}")
        wanted = {"victim": victim, "data_path": str(data_path), "data_format": data_format,
                  "setups": ",".join(setups), "budget": int(budget), "config": to_json(config, "profile config")}
        with self.transaction() as db:
            row = next(db.query("SELECT * FROM profile_runs WHERE name = ?", [name]), None)
            if row is None:
                run_id = db.table("profile_runs").insert(
                    {"name": name, **wanted, "created_at": self.now(), "finished_at": None}).last_pk
                row = next(db.query("SELECT * FROM profile_runs WHERE id = ?", [run_id]))
            else:
                differing = [key for key, value in wanted.items() if row[key] != value]
                if differing:
                    raise InputError(f"profile run {name!r} exists with another {', '.join(differing)}, so it "
                                     "cannot resume: use another name, or the same parameters")
        return _profile_run(row)

    def finish_profile_run(self, run_id: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE profile_runs SET finished_at = ? WHERE id = ?", [self.now(), run_id])

    def profile_runs(self) -> list[ProfileRun]:
        return [_profile_run(row) for row in self.db.query("SELECT * FROM profile_runs ORDER BY id")]

    def profile_run(self, name: str) -> ProfileRun:
        """The profile run called ``name`` (InputError naming the known ones when absent)."""
        row = next(self.db.query("SELECT * FROM profile_runs WHERE name = ?", [name]), None)
        if row is None:
            known = ", ".join(run.name for run in self.profile_runs()) or "none"
            raise InputError(f"no profile run named {name!r} (known profile runs: {known})")
        return _profile_run(row)

    def done_profile_pairs(self, run_id: int) -> set[tuple[int, str]]:
        """(pair index, setup) of the pairs of ``run_id`` already stored."""
        rows = self.db.query("SELECT pair_index, setup FROM profile_pairs WHERE profile_run_id = ?", [run_id])
        return {(row["pair_index"], row["setup"]) for row in rows}

    def record_profile_pair(self, run_id: int, pair: ProfilePair) -> int:
        """Store one pair and its cells in one transaction; return the pair's row id."""
        if pair.gold_label not in LABELS:
            raise InputError(f"pair {pair.pair_index}: the gold label must be one of {', '.join(LABELS)}")
        if pair.status not in PAIR_STATUSES:
            raise InputError(f"pair {pair.pair_index}: status must be one of {', '.join(PAIR_STATUSES)}")
        with self.transaction() as db:
            if next(db.query("SELECT 1 FROM profile_runs WHERE id = ?", [run_id]), None) is None:
                raise InputError(f"no profile run with id {run_id}")
            if next(db.query("SELECT 1 FROM profile_pairs WHERE profile_run_id = ? AND pair_index = ? AND setup = ?",
                             [run_id, pair.pair_index, pair.setup]), None) is not None:
                raise InputError(f"pair {pair.pair_index} ({pair.setup}) of profile run {run_id} is already recorded")
            pair_id = db.table("profile_pairs").insert({
                "profile_run_id": run_id, "pair_index": pair.pair_index, "setup": pair.setup,
                "premise": pair.premise, "hypothesis": pair.hypothesis, "gold_label": pair.gold_label,
                "status": pair.status,
                "original_probabilities": None if pair.original_probabilities is None
                else to_json(list(pair.original_probabilities), "probabilities"),
            }).last_pk
            db.table("profile_cells").insert_all([{
                "profile_pair_id": pair_id, "phenomenon": c.phenomenon, "candidates": c.candidates,
                "asked": c.asked, "fooled": c.fooled, "example": c.example,
                "example_target_prob": c.example_target_prob, "example_validity": c.example_validity,
                "example_natural": c.example_natural} for c in pair.cells])
        return int(pair_id) if pair_id is not None else 0

    def profile_pairs(self, run_id: int) -> list[ProfilePair]:
        """Every stored pair of ``run_id`` with its cells, in pair and setup order."""
        cells: dict[int, list[ProfileCell]] = {}
        for row in self.db.query(
                "SELECT c.* FROM profile_cells c JOIN profile_pairs p ON p.id = c.profile_pair_id "
                "WHERE p.profile_run_id = ? ORDER BY c.id", [run_id]):
            cells.setdefault(row["profile_pair_id"], []).append(ProfileCell(
                row["phenomenon"], row["candidates"], row["asked"], row["fooled"], row["example"],
                row["example_target_prob"], row["example_validity"], row["example_natural"]))
        out = []
        for row in self.db.query("SELECT * FROM profile_pairs WHERE profile_run_id = ? ORDER BY pair_index, setup",
                                 [run_id]):
            probs = from_json(row["original_probabilities"]) if row["original_probabilities"] else None
            out.append(ProfilePair(row["pair_index"], row["setup"], row["premise"], row["hypothesis"],
                                   row["gold_label"], row["status"],
                                   (probs[0], probs[1], probs[2]) if probs else None,
                                   tuple(cells.get(row["id"], ()))))
        return out
