"""The store's schema as an ordered list of forward migrations.

``PRAGMA user_version`` holds the number of migrations applied; opening a
store applies the missing ones inside one write transaction, so two
processes opening a fresh file at once cannot both migrate it.
"""

from __future__ import annotations

import sqlite_utils

from engine.errors import InputError

_LABEL_CHECK = "IN ('entailment', 'neutral', 'contradiction')"

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: runs, source pairs, attacks; annotators, items, assignments, judgments.
    (
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            setup TEXT NOT NULL,
            victim TEXT NOT NULL,
            data_path TEXT NOT NULL,
            data_format TEXT NOT NULL,
            seed INTEGER NOT NULL,
            config TEXT NOT NULL,
            created_at TEXT NOT NULL,
            finished_at TEXT
        )""",
        f"""CREATE TABLE pairs (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            pair_index INTEGER NOT NULL CHECK (pair_index >= 0),
            premise TEXT NOT NULL,
            hypothesis TEXT NOT NULL,
            gold_label TEXT CHECK (gold_label IS NULL OR gold_label {_LABEL_CHECK}),
            UNIQUE (run_id, pair_index)
        )""",
        f"""CREATE TABLE attacks (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            pair_id INTEGER NOT NULL UNIQUE REFERENCES pairs(id),
            status TEXT NOT NULL CHECK (status IN ('success', 'failed', 'skipped')),
            source_label TEXT NOT NULL CHECK (source_label {_LABEL_CHECK}),
            target_label TEXT NOT NULL CHECK (target_label {_LABEL_CHECK}),
            original_hypothesis TEXT NOT NULL,
            adversarial_hypothesis TEXT,
            original_prediction TEXT,
            original_probabilities TEXT,
            adversarial_prediction TEXT,
            adversarial_probabilities TEXT,
            queries INTEGER NOT NULL CHECK (queries >= 0),
            cache_hits INTEGER NOT NULL CHECK (cache_hits >= 0),
            perplexity REAL,
            operators TEXT NOT NULL,
            polarity TEXT,
            derivation TEXT,
            trace TEXT,
            started_at TEXT NOT NULL,
            finished_at TEXT NOT NULL
        )""",
        "CREATE INDEX attacks_run ON attacks(run_id)",
        """CREATE TABLE annotators (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL CHECK (role IN ('annotator', 'admin')),
            token_hash TEXT,
            source TEXT NOT NULL,
            created_at TEXT NOT NULL,
            revoked_at TEXT
        )""",
        f"""CREATE TABLE items (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('attack', 'gold')),
            attack_id INTEGER UNIQUE REFERENCES attacks(id),
            premise TEXT NOT NULL,
            hypothesis TEXT NOT NULL,
            gold_label TEXT CHECK (gold_label IS NULL OR gold_label {_LABEL_CHECK}),
            k INTEGER NOT NULL CHECK (k >= 1 AND k % 2 = 1),
            created_at TEXT NOT NULL,
            CHECK ((kind = 'attack' AND attack_id IS NOT NULL)
                   OR (kind = 'gold' AND gold_label IS NOT NULL))
        )""",
        "CREATE UNIQUE INDEX items_gold_pair ON items(premise, hypothesis) WHERE kind = 'gold'",
        """CREATE TABLE assignments (
            id INTEGER PRIMARY KEY,
            item_id INTEGER NOT NULL REFERENCES items(id),
            annotator_id INTEGER NOT NULL REFERENCES annotators(id),
            assigned_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            UNIQUE (item_id, annotator_id)
        )""",
        f"""CREATE TABLE judgments (
            id INTEGER PRIMARY KEY,
            item_id INTEGER NOT NULL REFERENCES items(id),
            annotator_id INTEGER NOT NULL REFERENCES annotators(id),
            label TEXT NOT NULL CHECK (label {_LABEL_CHECK}),
            not_fluent INTEGER NOT NULL CHECK (not_fluent IN (0, 1)),
            seconds REAL CHECK (seconds IS NULL OR seconds >= 0),
            source TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (item_id, annotator_id)
        )""",
        "CREATE INDEX judgments_annotator ON judgments(annotator_id)",
    ),
)

SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: sqlite_utils.Database) -> int:
    """The number of migrations applied to ``db``."""
    return int(next(db.query("PRAGMA user_version"))["user_version"])


def migrate(db: sqlite_utils.Database) -> int:
    """Apply the missing migrations in one ``BEGIN IMMEDIATE`` transaction; return the version."""
    latest = len(MIGRATIONS)
    if schema_version(db) == latest:
        return latest
    db.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(db)
        if version > latest:
            raise InputError(
                f"store schema version {version} is newer than this program's {latest}; "
                "upgrade NatLog Studio to open it"
            )
        for number in range(version, latest):
            for statement in MIGRATIONS[number]:
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {latest}")
    except BaseException:
        db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")
    return latest
