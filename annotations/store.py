"""The annotation store: the runs store (:mod:`engine.store`) plus annotators, items, assignments and
judgments in the same SQLite file.

A successful attack becomes an annotation item (premise, H*) and a source pair with a known label
a gold item (once per distinct pair): in the transaction that records the attack when it is
recorded through this class, and on opening for attacks recorded through the bare runs store
(``python -m engine attack``). People signed in through the app reach the store only through
:mod:`annotations.access`, which enforces who may see what.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Self

import sqlite_utils

from annotations import schema
from engine.api import get_settings
from engine.core.errors import InputError
from engine.core.settings import Settings
from engine.core.vocab import AttackStatus
from engine.store import schema as run_schema
from engine.store.records import AttackRecord
from engine.store.store import RunStore, connect, from_json, iso, to_json, utc_now

__all__ = ["Store", "from_json", "iso", "to_json", "utc_now"]

#: The app key holding the judgments per item an admin chose for this study.
STUDY_K = "study_k"


def check_k(k: int, what: str = "judgments per item") -> int:
    """``k`` when it is a whole number >= 1, else InputError. An even k can end in a tie (1-1 with
    k = 2): the item then waits for one more vote (see :mod:`annotations.assignment`)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"{what} must be a whole number of at least 1, got {k!r}")
    return k


class Store(RunStore):
    """Runs and their human validation; ``k`` votes per item, a gold rate and a lease timeout."""

    _ITEM_COLUMN, _ITEM_JOIN = "i.id AS item_id", "LEFT JOIN items i ON i.attack_id = a.id"

    def __init__(self, db: sqlite_utils.Database, path: Path, settings: Settings) -> None:
        super().__init__(db, path)
        # The study's own k (set on the Admin page) wins over the setting.
        chosen = next(db.query("SELECT value FROM app_keys WHERE name = ?", [STUDY_K]), None)
        self.k = int(chosen["value"]) if chosen is not None else settings.annotations_k
        self.gold_percent = settings.annotations_gold_percent
        self.lease_s = settings.annotations_lease_s
        self.queue_seed = settings.annotations_queue_seed
        db.conn.create_function("queue_rank", 2, self.queue_rank, deterministic=True)

    def queue_rank(self, annotator_id: int, item_id: int) -> int:
        """An item's place in one annotator's queue: a hash of the queue seed, the annotator and the
        item, so each annotator gets their own reproducible shuffled order, with the items of every
        run and attack system interleaved."""
        digest = hashlib.sha256(f"{self.queue_seed}:{annotator_id}:{item_id}".encode()).digest()
        return int.from_bytes(digest[:7], "big")

    @classmethod
    def open(cls, path: str | Path | None = None, settings: Settings | None = None) -> Self:
        """Open (creating and migrating as needed) the store at ``path``.

        ``path`` defaults to ``settings.db_path``; ``settings`` (default: the
        process settings) also give k, the gold rate and the lease timeout.
        """
        settings = settings or get_settings()
        path = Path(path) if path is not None else settings.db_path
        check_k(settings.annotations_k, "annotations_k (judgments per item)")
        if not 0 <= settings.annotations_gold_percent <= 100:
            raise InputError("annotations_gold_percent must be between 0 and 100")
        if settings.annotations_lease_s <= 0:
            raise InputError("annotations_lease_s must be positive")
        store = cls(connect(path, cls.migrate), path, settings)
        try:
            store.sync_items()
        except BaseException:
            store.close()
            raise
        return store

    @staticmethod
    def migrate(db: sqlite_utils.Database) -> None:
        run_schema.migrate(db)
        schema.migrate(db)

    def set_k(self, k: int) -> None:
        """Make every item of this study need ``k`` judgments (>= 1; a tie waits for one more
        vote), kept in the store; items that already have ``k`` agreeing votes resolve at once."""
        check_k(k)
        with self.transaction() as db:
            db.execute("INSERT INTO app_keys (name, value) VALUES (?, ?) "
                       "ON CONFLICT (name) DO UPDATE SET value = excluded.value", [STUDY_K, str(int(k))])
            db.execute("UPDATE items SET k = ?", [int(k)])
        self.k = int(k)

    def _attack_recorded(self, db: sqlite_utils.Database, attack_id: int, record: AttackRecord) -> None:
        now = self.now()
        if record.status == AttackStatus.SUCCESS:
            db.table("items").insert({
                "kind": "attack", "attack_id": attack_id, "premise": record.premise,
                "hypothesis": record.adversarial_hypothesis, "gold_label": None,
                "k": self.k, "created_at": now,
            })
        if record.gold_label is not None:
            db.execute(
                "INSERT INTO items (kind, premise, hypothesis, gold_label, k, created_at) "
                "VALUES ('gold', ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [record.premise, record.hypothesis, record.gold_label, self.k, now],
            )

    def sync_items(self) -> int:
        """Create the items of attacks recorded without this layer (by the engine's runs store);
        return how many were added."""
        missing = next(self.db.query(
            "SELECT COUNT(*) AS n FROM attacks a WHERE a.status = 'success' "
            "AND NOT EXISTS (SELECT 1 FROM items i WHERE i.attack_id = a.id)"))["n"]
        gold = next(self.db.query(
            "SELECT COUNT(*) AS n FROM pairs p WHERE p.gold_label IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM items i WHERE i.kind = 'gold' AND i.premise = p.premise "
            "AND i.hypothesis = p.hypothesis)"))["n"]
        if not missing and not gold:
            return 0
        now = self.now()
        with self.transaction() as db:
            before = next(db.query("SELECT COUNT(*) AS n FROM items"))["n"]
            db.execute(
                "INSERT INTO items (kind, attack_id, premise, hypothesis, gold_label, k, created_at) "
                "SELECT 'attack', a.id, p.premise, a.adversarial_hypothesis, NULL, ?, ? FROM attacks a "
                "JOIN pairs p ON p.id = a.pair_id WHERE a.status = 'success' "
                "AND NOT EXISTS (SELECT 1 FROM items i WHERE i.attack_id = a.id) ORDER BY a.id",
                [self.k, now])
            db.execute(
                "INSERT INTO items (kind, premise, hypothesis, gold_label, k, created_at) "
                "SELECT 'gold', p.premise, p.hypothesis, p.gold_label, ?, ? FROM pairs p "
                "WHERE p.gold_label IS NOT NULL ORDER BY p.id ON CONFLICT DO NOTHING",
                [self.k, now])
            after = next(db.query("SELECT COUNT(*) AS n FROM items"))["n"]
        return int(after - before)
