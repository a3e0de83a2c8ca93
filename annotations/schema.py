"""The annotation layer's tables, as an ordered list of forward migrations of component
``annotations`` (see :mod:`engine.store.schema`, which applies them and owns the runs' tables)."""

from __future__ import annotations

import sqlite_utils

from engine.store import schema as run_schema
from engine.store.schema import LABEL_CHECK

COMPONENT = "annotations"
#: The fluency levels of a vote (:class:`engine.core.vocab.Fluency`), as a migration wrote them.
FLUENCY_CHECK = "IN ('ok', 'odd', 'broken')"
#: The roles of a person (:data:`annotations.records.ROLES`), as migration 5 wrote them.
ROLE_CHECK = "IN ('annotator', 'admin', 'author')"

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: annotators, items, assignments, judgments.
    (
        """CREATE TABLE IF NOT EXISTS annotators (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL CHECK (role IN ('annotator', 'admin')),
            token_hash TEXT,
            source TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        )""",
        f"""CREATE TABLE IF NOT EXISTS items (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('attack', 'gold')),
            attack_id INTEGER UNIQUE REFERENCES attacks(id),
            premise TEXT NOT NULL,
            hypothesis TEXT NOT NULL,
            gold_label TEXT CHECK (gold_label IS NULL OR gold_label {LABEL_CHECK}),
            k INTEGER NOT NULL CHECK (k >= 1 AND k % 2 = 1),
            created_at TEXT NOT NULL,
            CHECK ((kind = 'attack' AND attack_id IS NOT NULL)
                   OR (kind = 'gold' AND gold_label IS NOT NULL))
        )""",
        "CREATE UNIQUE INDEX IF NOT EXISTS items_gold_pair ON items(premise, hypothesis) WHERE kind = 'gold'",
        """CREATE TABLE IF NOT EXISTS assignments (
            id INTEGER PRIMARY KEY,
            item_id INTEGER NOT NULL REFERENCES items(id),
            annotator_id INTEGER NOT NULL REFERENCES annotators(id),
            assigned_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            UNIQUE (item_id, annotator_id)
        )""",
        f"""CREATE TABLE IF NOT EXISTS judgments (
            id INTEGER PRIMARY KEY,
            item_id INTEGER NOT NULL REFERENCES items(id),
            annotator_id INTEGER NOT NULL REFERENCES annotators(id),
            label TEXT NOT NULL CHECK (label {LABEL_CHECK}),
            not_fluent INTEGER NOT NULL CHECK (not_fluent IN (0, 1)),
            seconds REAL CHECK (seconds IS NULL OR seconds >= 0),
            source TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (item_id, annotator_id)
        )""",
        "CREATE INDEX IF NOT EXISTS judgments_annotator ON judgments(annotator_id)",
    ),
    # 2: an optional comment with a vote, items an annotator skipped, and the key that signs
    # sign-in links (so that a reload keeps the session).
    (
        "ALTER TABLE judgments ADD COLUMN comment TEXT",
        """CREATE TABLE IF NOT EXISTS skips (
            item_id INTEGER NOT NULL REFERENCES items(id),
            annotator_id INTEGER NOT NULL REFERENCES annotators(id),
            created_at TEXT NOT NULL,
            PRIMARY KEY (item_id, annotator_id)
        )""",
        "CREATE TABLE IF NOT EXISTS app_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
    # 3: any k >= 1 (k = 2 with two annotators: an item resolves when both agree, and a split
    # waits for a third vote). SQLite cannot drop a CHECK, so the table is rebuilt as its docs
    # describe (foreign keys are off during migrations and checked before the commit).
    (
        f"""CREATE TABLE items_rebuilt (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('attack', 'gold')),
            attack_id INTEGER UNIQUE REFERENCES attacks(id),
            premise TEXT NOT NULL,
            hypothesis TEXT NOT NULL,
            gold_label TEXT CHECK (gold_label IS NULL OR gold_label {LABEL_CHECK}),
            k INTEGER NOT NULL CHECK (k >= 1),
            created_at TEXT NOT NULL,
            CHECK ((kind = 'attack' AND attack_id IS NOT NULL)
                   OR (kind = 'gold' AND gold_label IS NOT NULL))
        )""",
        "INSERT INTO items_rebuilt (id, kind, attack_id, premise, hypothesis, gold_label, k, created_at) "
        "SELECT id, kind, attack_id, premise, hypothesis, gold_label, k, created_at FROM items",
        "DROP TABLE items",
        "ALTER TABLE items_rebuilt RENAME TO items",
        "CREATE UNIQUE INDEX IF NOT EXISTS items_gold_pair ON items(premise, hypothesis) WHERE kind = 'gold'",
    ),
    # 4: fluency in three levels per vote (ok, odd, broken) instead of the not-fluent flag. An old
    # flagged vote reads as broken, any other as ok; not_fluent stays, always fluency = 'broken', for
    # older readers and exports. The table is rebuilt (a CHECK across columns cannot be added).
    (
        f"""CREATE TABLE judgments_rebuilt (
            id INTEGER PRIMARY KEY,
            item_id INTEGER NOT NULL REFERENCES items(id),
            annotator_id INTEGER NOT NULL REFERENCES annotators(id),
            label TEXT NOT NULL CHECK (label {LABEL_CHECK}),
            not_fluent INTEGER NOT NULL CHECK (not_fluent IN (0, 1)),
            fluency TEXT NOT NULL CHECK (fluency {FLUENCY_CHECK}),
            seconds REAL CHECK (seconds IS NULL OR seconds >= 0),
            source TEXT NOT NULL,
            created_at TEXT NOT NULL,
            comment TEXT,
            UNIQUE (item_id, annotator_id),
            CHECK (not_fluent = (fluency = 'broken'))
        )""",
        "INSERT INTO judgments_rebuilt (id, item_id, annotator_id, label, not_fluent, fluency, seconds, source, "
        "created_at, comment) SELECT id, item_id, annotator_id, label, not_fluent, "
        "CASE WHEN not_fluent = 1 THEN 'broken' ELSE 'ok' END, seconds, source, created_at, comment FROM judgments",
        "DROP TABLE judgments",
        "ALTER TABLE judgments_rebuilt RENAME TO judgments",
        "CREATE INDEX IF NOT EXISTS judgments_annotator ON judgments(annotator_id)",
    ),
    # 5: authors, a third role: people who write attacks against the victim on the Write page (their
    # H* enter the same blind queue) and judge the others' items. The table is rebuilt for its CHECK.
    (
        f"""CREATE TABLE annotators_rebuilt (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL CHECK (role {ROLE_CHECK}),
            token_hash TEXT,
            source TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        )""",
        "INSERT INTO annotators_rebuilt (id, name, role, token_hash, source, created_at, revoked_at) "
        "SELECT id, name, role, token_hash, source, created_at, revoked_at FROM annotators",
        "DROP TABLE annotators",
        "ALTER TABLE annotators_rebuilt RENAME TO annotators",
    ),
)


def schema_version(db: sqlite_utils.Database) -> int:
    """The number of annotation migrations applied to ``db``."""
    return run_schema.schema_version(db, COMPONENT)


def latest_version() -> int:
    return len(MIGRATIONS)


def migrate(db: sqlite_utils.Database) -> int:
    """Apply the missing annotation migrations (after the runs' own)."""
    return run_schema.migrate(db, COMPONENT, MIGRATIONS)
