"""The runs store: one SQLite file in WAL mode holding attack runs, source pairs and attacks.

This is the trusted layer used by the engine and the command line (whoever holds the file holds
the data). :class:`annotations.store.Store` extends it with annotators, items and judgments in
the same file; people signed in through the app reach it only through :mod:`annotations.access`.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

import sqlite_utils

from engine.core.errors import InputError
from engine.core.vocab import LABELS, AttackStatus, NLILabel
from engine.store import schema
from engine.store.identity import describe_differences, differences
from engine.store.jsonio import from_json, to_json
from engine.store.probe_runs import ProbeRunsMixin
from engine.store.profile_runs import ProfileRunsMixin
from engine.store.records import AttackRecord, Run, StoredAttack

BUSY_TIMEOUT_S = 60.0


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """Fixed-width UTC ISO-8601, so stored timestamps compare correctly as text."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def connect(path: Path, migrate: Callable[[sqlite_utils.Database], None]) -> sqlite_utils.Database:
    """Open ``path`` (creating its folder) in WAL mode with foreign keys on, and migrate it."""
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a store file")
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    try:
        db = sqlite_utils.Database(conn)
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        migrate(db)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise InputError(f"{path} is not a usable NatLog store: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    return db


class RunStore(ProbeRunsMixin, ProfileRunsMixin):
    """Runs, pairs and attacks in one SQLite file; every write is one transaction."""

    def __init__(self, db: sqlite_utils.Database, path: Path) -> None:
        self.db = db
        self.path = path
        self.clock: Callable[[], datetime] = utc_now

    @classmethod
    def open(cls, path: str | Path) -> Self:
        """Open (creating and migrating as needed) the store at ``path``."""
        path = Path(path)
        return cls(connect(path, cls.migrate), path)

    @staticmethod
    def migrate(db: sqlite_utils.Database) -> None:
        """Bring the file's schema up to date (subclasses add their components)."""
        schema.migrate(db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> str:
        return iso(self.clock())

    @contextmanager
    def transaction(self) -> Iterator[sqlite_utils.Database]:
        """A write transaction that takes the write lock up front (``BEGIN IMMEDIATE``);
        inside another transaction it is a savepoint."""
        if self.db.conn.in_transaction:
            with self.db.atomic():  # nested: a savepoint
                yield self.db
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            if self.db.conn.in_transaction:
                self.db.conn.execute("ROLLBACK")
            raise
        self.db.conn.execute("COMMIT")

    # ---- runs -------------------------------------------------------------------------

    def start_run(self, name: str, setup: str, victim: str, data_path: str | Path,
                  data_format: str, seed: int, config: dict[str, Any]) -> Run:
        """Create run ``name``, or return it when it exists as the same attack (resume).

        ``config`` is the run's identity (:func:`engine.attack.identity.run_identity`: recipe, victim, data
        content, code); a resume whose setup, victim, format, seed or any compared config field
        differs is refused in one line naming the fields. The data file's path is recorded, not
        compared: the same content read from another folder or checkout resumes.
        """
        if not name.strip():
            raise InputError("a run name must not be empty")
        wanted = {"setup": setup, "victim": victim, "data_format": data_format, "seed": int(seed)}
        with self.transaction() as db:
            row = next(db.query("SELECT * FROM runs WHERE name = ?", [name]), None)
            if row is None:
                run_id = db.table("runs").insert(
                    {"name": name, **wanted, "data_path": _stored_path(data_path),
                     "config": to_json(config, "run config"), "created_at": self.now(), "finished_at": None}
                ).last_pk
                row = next(db.query("SELECT * FROM runs WHERE id = ?", [run_id]))
            else:
                diff: dict[str, tuple[Any, Any]] = {k: (row[k], v) for k, v in wanted.items() if row[k] != v}
                diff.update(differences(from_json(row["config"]), config))
                if diff:
                    raise InputError(
                        f"run {name!r} exists as another attack, so it cannot resume: {describe_differences(diff)}; "
                        "use another run name, or the stored recipe to resume"
                    )
        return _run(row)

    def finish_run(self, run_id: int) -> None:
        """Mark a run as finished (now)."""
        with self.transaction() as db:
            db.execute("UPDATE runs SET finished_at = ? WHERE id = ?", [self.now(), run_id])

    def runs(self) -> list[Run]:
        return [_run(row) for row in self.db.query("SELECT * FROM runs ORDER BY id")]

    def run(self, name: str) -> Run:
        """The run called ``name`` (InputError naming the known runs when absent)."""
        row = next(self.db.query("SELECT * FROM runs WHERE name = ?", [name]), None)
        if row is None:
            known = ", ".join(r.name for r in self.runs()) or "none"
            raise InputError(f"no run named {name!r} (known runs: {known})")
        return _run(row)

    def done_pair_indices(self, run_id: int) -> set[int]:
        """Indices (in the data file) of the pairs of ``run_id`` already recorded."""
        rows = self.db.query(
            "SELECT p.pair_index FROM attacks a JOIN pairs p ON p.id = a.pair_id "
            "WHERE a.run_id = ?",
            [run_id],
        )
        return {row["pair_index"] for row in rows}

    # ---- attacks ----------------------------------------------------------------------

    def record_attack(self, run_id: int, record: AttackRecord) -> int:
        """Store the source pair and its attack in one transaction; return the attack id."""
        row = _attack_row(record)
        with self.transaction() as db:
            if next(db.query("SELECT 1 FROM runs WHERE id = ?", [run_id]), None) is None:
                raise InputError(f"no run with id {run_id}")
            if next(db.query("SELECT 1 FROM pairs WHERE run_id = ? AND pair_index = ?",
                             [run_id, record.pair_index]), None) is not None:
                raise InputError(f"pair {record.pair_index} of run {run_id} is already recorded")
            pair_id = db.table("pairs").insert({
                "run_id": run_id, "pair_index": record.pair_index, "premise": record.premise,
                "hypothesis": record.hypothesis, "gold_label": record.gold_label,
            }).last_pk
            attack_id = db.table("attacks").insert(
                {"run_id": run_id, "pair_id": pair_id, **row}
            ).last_pk
            assert attack_id is not None  # set by every insert
            self._attack_recorded(db, int(attack_id), record)
        return int(attack_id)

    def _attack_recorded(self, db: sqlite_utils.Database, attack_id: int, record: AttackRecord) -> None:
        """Called inside :meth:`record_attack` 's transaction; layers above add their rows here."""

    #: How :meth:`attacks` finds an attack's annotation item (none in a bare runs store).
    _ITEM_COLUMN, _ITEM_JOIN = "NULL AS item_id", ""

    def attack(self, attack_id: int) -> StoredAttack:
        """One stored attack, with its trace (InputError when there is none with this id)."""
        found = self._attacks("WHERE a.id = ?", [attack_id], with_trace=True)
        if not found:
            raise InputError(f"no attack with id {attack_id} in this store")
        return found[0]

    def self_checks(self, run_id: int | None = None) -> list[dict[str, Any]]:
        """Per successful attack: its id, run name and the self-check its trace records
        (``status``: re-derived / unknown / fails; None for attacks recorded before the check
        existed), read from the trace in SQL without loading the traces."""
        where, params = ("AND a.run_id = ?", [run_id]) if run_id is not None else ("", [])
        rows = self.db.query(
            "SELECT a.id AS attack_id, r.name AS run, json_extract(a.trace, '$.self_check.status') AS status, "
            "json_extract(a.trace, '$.self_check.relations') AS relations, "
            "json_extract(a.trace, '$.self_check.reason') AS reason, a.adversarial_hypothesis, p.hypothesis "
            "FROM attacks a JOIN runs r ON r.id = a.run_id JOIN pairs p ON p.id = a.pair_id "
            f"WHERE a.status = 'success' {where} ORDER BY a.id",
            params,
        )
        return list(rows)

    def attacks(self, run_id: int | None = None, *, with_trace: bool = True) -> list[StoredAttack]:
        """Stored attacks (of one run, or all), in recording order; ``with_trace=False``
        leaves the (large) search traces out."""
        where, params = ("WHERE a.run_id = ?", [run_id]) if run_id is not None else ("", [])
        return self._attacks(where, params, with_trace=with_trace)

    def _attacks(self, where: str, params: list[Any], *, with_trace: bool) -> list[StoredAttack]:
        columns = ", ".join(f"a.{c}" for c in _ATTACK_COLUMNS)
        trace = "a.trace" if with_trace else "NULL AS trace"
        rows = self.db.query(
            f"SELECT {columns}, {trace}, r.name AS run_name, p.pair_index, p.premise, "
            f"p.hypothesis, p.gold_label, {self._ITEM_COLUMN} FROM attacks a "
            "JOIN runs r ON r.id = a.run_id JOIN pairs p ON p.id = a.pair_id "
            f"{self._ITEM_JOIN} {where} ORDER BY a.id",
            params,
        )
        return [_stored_attack(row) for row in rows]


_ATTACK_COLUMNS = (
    "id", "run_id", "pair_id", "status", "source_label", "target_label", "adversarial_hypothesis",
    "original_prediction", "original_probabilities", "adversarial_prediction",
    "adversarial_probabilities", "queries", "cache_hits", "perplexity", "operators", "polarity",
    "derivation", "started_at", "finished_at",
)


def _stored_path(data_path: str | Path) -> str:
    """A data file's path as a run stores it: resolved; a name that is no file (the typed pairs of a
    person's run) as it is."""
    path = Path(data_path)
    return str(path.resolve()) if path.exists() else str(data_path)


def _run(row: dict[str, Any]) -> Run:
    return Run(**{**row, "config": json.loads(row["config"])})


def _check_label(value: str | None, what: str, optional: bool = False) -> NLILabel | None:
    if value is None and optional:
        return None
    return NLILabel.parse(value, what)


def _check_probabilities(value: dict[str, float] | None, what: str) -> None:
    if value is None:
        return
    if not isinstance(value, dict) or set(value) - set(LABELS):
        raise InputError(f"{what} must map labels ({', '.join(LABELS)}) to probabilities")
    if any(not isinstance(p, (int, float)) or not math.isfinite(p) for p in value.values()):
        raise InputError(f"{what} holds a probability that is not a finite number")


def _attack_row(record: AttackRecord) -> dict[str, Any]:
    """Validate an AttackRecord and turn it into an ``attacks`` row (without ids)."""
    status = AttackStatus.parse(record.status, "attack status")
    if record.pair_index < 0:
        raise InputError(f"pair index must be >= 0, got {record.pair_index}")
    if not record.premise.strip() or not record.hypothesis.strip():
        raise InputError(f"pair {record.pair_index}: premise and hypothesis must not be empty")
    _check_label(record.gold_label, "gold label", optional=True)
    _check_label(record.source_label, "source label")
    _check_label(record.target_label, "target label")
    _check_label(record.original_prediction, "original prediction", optional=True)
    _check_label(record.adversarial_prediction, "adversarial prediction", optional=True)
    _check_probabilities(record.original_probabilities, "original probabilities")
    _check_probabilities(record.adversarial_probabilities, "adversarial probabilities")
    if record.polarity is not None and not isinstance(record.polarity, str):
        raise InputError(f"polarity must be a string such as '↑', got {record.polarity!r}")
    if not all(isinstance(op, str) for op in record.operators):
        raise InputError(f"operators must be strings, got {record.operators!r}")
    if record.queries < 0 or record.cache_hits < 0:
        raise InputError("queries and cache hits must be >= 0")
    if status is AttackStatus.SUCCESS:
        if not (record.adversarial_hypothesis or "").strip():
            raise InputError(f"pair {record.pair_index}: a successful attack needs H*")
        if record.adversarial_prediction in (None, record.target_label):
            raise InputError(
                f"pair {record.pair_index}: a successful attack needs a victim prediction on H* "
                f"that differs from the target label {record.target_label!r}"
            )
    started = record.started_at or utc_now()
    finished = record.finished_at or utc_now()
    return {
        "status": status.value,
        "source_label": record.source_label,
        "target_label": record.target_label,
        "original_hypothesis": record.hypothesis,
        "adversarial_hypothesis": record.adversarial_hypothesis,
        "original_prediction": record.original_prediction,
        "original_probabilities": to_json(record.original_probabilities, "original probabilities"),
        "adversarial_prediction": record.adversarial_prediction,
        "adversarial_probabilities": to_json(record.adversarial_probabilities,
                                             "adversarial probabilities"),
        "queries": int(record.queries),
        "cache_hits": int(record.cache_hits),
        "perplexity": record.perplexity,
        "operators": to_json(list(record.operators), "operators"),
        "polarity": record.polarity,
        "derivation": to_json(record.derivation, "derivation"),
        "trace": to_json(record.trace, "trace"),
        "started_at": iso(started),
        "finished_at": iso(finished),
    }


def _label(value: str | None) -> NLILabel | None:
    return None if value is None else NLILabel(value)


def _stored_attack(row: dict[str, Any]) -> StoredAttack:
    record = AttackRecord(
        pair_index=row["pair_index"],
        premise=row["premise"],
        hypothesis=row["hypothesis"],
        gold_label=_label(row["gold_label"]),
        status=AttackStatus(row["status"]),
        source_label=NLILabel(row["source_label"]),
        target_label=NLILabel(row["target_label"]),
        original_prediction=_label(row["original_prediction"]),
        original_probabilities=from_json(row["original_probabilities"]),
        adversarial_hypothesis=row["adversarial_hypothesis"],
        adversarial_prediction=_label(row["adversarial_prediction"]),
        adversarial_probabilities=from_json(row["adversarial_probabilities"]),
        queries=row["queries"],
        cache_hits=row["cache_hits"],
        perplexity=row["perplexity"],
        operators=tuple(from_json(row["operators"])),
        polarity=row["polarity"],
        derivation=from_json(row["derivation"]),
        trace=from_json(row["trace"]),
        started_at=datetime.fromisoformat(row["started_at"]),
        finished_at=datetime.fromisoformat(row["finished_at"]),
    )
    return StoredAttack(id=row["id"], run_id=row["run_id"], run_name=row["run_name"],
                        pair_id=row["pair_id"], item_id=row["item_id"], record=record)

