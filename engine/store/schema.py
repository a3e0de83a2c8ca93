"""Schemas as ordered lists of forward migrations, one list per component sharing the file.

The runs store owns ``runs``, ``pairs`` and ``attacks``; the annotation layer adds its own
tables to the same file with its own list (:mod:`annotations.schema`). Table
``schema_migrations`` holds how many migrations of each component are applied; opening a store
applies the missing ones inside one ``BEGIN IMMEDIATE`` transaction, so two processes opening a
fresh file at once cannot both migrate it.

Files written before components existed kept one count in ``PRAGMA user_version`` for a single
list whose first migration created every table; such a count is read as that many migrations
of each component.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlite_utils

from engine.core.errors import InputError

Migrations = Sequence[Sequence[str]]
LABEL_CHECK = "IN ('entailment', 'neutral', 'contradiction')"
COMPONENT = "runs"


def _rebuild_jobs(kinds: tuple[str, ...]) -> tuple[str, ...]:
    """The statements that rebuild the jobs table with ``kinds`` as its allowed kinds (SQLite alters
    no CHECK in place), keeping every row."""
    allowed = ", ".join(f"'{kind}'" for kind in kinds)
    return (
        f"""CREATE TABLE jobs_rebuilt (
            id INTEGER PRIMARY KEY,
            run_name TEXT NOT NULL,
            spec TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
            total INTEGER,
            message TEXT,
            cancel_requested INTEGER NOT NULL DEFAULT 0,
            pid INTEGER,
            created_at TEXT NOT NULL,
            started_at TEXT,
            finished_at TEXT,
            kind TEXT NOT NULL DEFAULT 'attack' CHECK (kind IN ({allowed})),
            done INTEGER
        )""",
        "INSERT INTO jobs_rebuilt (id, run_name, spec, status, total, message, cancel_requested, pid, created_at, "
        "started_at, finished_at, kind, done) SELECT id, run_name, spec, status, total, message, cancel_requested, "
        "pid, created_at, started_at, finished_at, kind, done FROM jobs",
        "DROP TABLE jobs",
        "ALTER TABLE jobs_rebuilt RENAME TO jobs",
        "CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status)",
    )


MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: runs, source pairs, attacks.
    (
        """CREATE TABLE IF NOT EXISTS runs (
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
        f"""CREATE TABLE IF NOT EXISTS pairs (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            pair_index INTEGER NOT NULL CHECK (pair_index >= 0),
            premise TEXT NOT NULL,
            hypothesis TEXT NOT NULL,
            gold_label TEXT CHECK (gold_label IS NULL OR gold_label {LABEL_CHECK}),
            UNIQUE (run_id, pair_index)
        )""",
        f"""CREATE TABLE IF NOT EXISTS attacks (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            pair_id INTEGER NOT NULL UNIQUE REFERENCES pairs(id),
            status TEXT NOT NULL CHECK (status IN ('success', 'failed', 'skipped')),
            source_label TEXT NOT NULL CHECK (source_label {LABEL_CHECK}),
            target_label TEXT NOT NULL CHECK (target_label {LABEL_CHECK}),
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
        "CREATE INDEX IF NOT EXISTS attacks_run ON attacks(run_id)",
    ),
    # 2: batch-run jobs, queued by the app (or the CLI) and executed by a worker process.
    (
        """CREATE TABLE IF NOT EXISTS jobs (
            id INTEGER PRIMARY KEY,
            run_name TEXT NOT NULL,
            spec TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
            total INTEGER,
            message TEXT,
            cancel_requested INTEGER NOT NULL DEFAULT 0,
            pid INTEGER,
            created_at TEXT NOT NULL,
            started_at TEXT,
            finished_at TEXT
        )""",
        "CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status)",
    ),
    # 3: probe runs (a victim on a probe suite's items) and one result row per item.
    (
        """CREATE TABLE IF NOT EXISTS probe_runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            suite TEXT NOT NULL,
            victim TEXT NOT NULL,
            data_path TEXT NOT NULL,
            seed INTEGER NOT NULL,
            config TEXT NOT NULL,
            created_at TEXT NOT NULL,
            finished_at TEXT
        )""",
        f"""CREATE TABLE IF NOT EXISTS probe_results (
            id INTEGER PRIMARY KEY,
            probe_run_id INTEGER NOT NULL REFERENCES probe_runs(id),
            item_index INTEGER NOT NULL CHECK (item_index >= 0),
            premise TEXT NOT NULL,
            hypothesis TEXT NOT NULL,
            gold_label TEXT NOT NULL CHECK (gold_label {LABEL_CHECK}),
            category TEXT NOT NULL,
            item_group TEXT NOT NULL,
            family TEXT NOT NULL,
            form TEXT NOT NULL,
            meta TEXT NOT NULL,
            predicted_label TEXT NOT NULL CHECK (predicted_label {LABEL_CHECK}),
            probabilities TEXT NOT NULL,
            UNIQUE (probe_run_id, item_index)
        )""",
        "CREATE INDEX IF NOT EXISTS probe_results_run ON probe_results(probe_run_id)",
    ),
    # 4: jobs of other kinds than attack runs (training the offline victim), with their own progress.
    (
        "ALTER TABLE jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'attack' CHECK (kind IN ('attack', 'train-victim'))",
        "ALTER TABLE jobs ADD COLUMN done INTEGER",
    ),
    # 5: profile runs (a victim's failures by natural-logic phenomenon): one row per pair and setup
    # profiled (or why it was not), and one cell per phenomenon whose edits the pair's round had.
    (
        """CREATE TABLE IF NOT EXISTS profile_runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            victim TEXT NOT NULL,
            data_path TEXT NOT NULL,
            data_format TEXT NOT NULL,
            setups TEXT NOT NULL,
            budget INTEGER NOT NULL CHECK (budget >= 1),
            config TEXT NOT NULL,
            created_at TEXT NOT NULL,
            finished_at TEXT
        )""",
        f"""CREATE TABLE IF NOT EXISTS profile_pairs (
            id INTEGER PRIMARY KEY,
            profile_run_id INTEGER NOT NULL REFERENCES profile_runs(id),
            pair_index INTEGER NOT NULL CHECK (pair_index >= 0),
            setup TEXT NOT NULL,
            premise TEXT NOT NULL,
            hypothesis TEXT NOT NULL,
            gold_label TEXT NOT NULL CHECK (gold_label {LABEL_CHECK}),
            status TEXT NOT NULL CHECK (status IN ('profiled', 'skipped', 'unparsable')),
            original_probabilities TEXT,
            UNIQUE (profile_run_id, pair_index, setup)
        )""",
        """CREATE TABLE IF NOT EXISTS profile_cells (
            id INTEGER PRIMARY KEY,
            profile_pair_id INTEGER NOT NULL REFERENCES profile_pairs(id),
            phenomenon TEXT NOT NULL,
            candidates INTEGER NOT NULL CHECK (candidates >= 1),
            asked INTEGER NOT NULL CHECK (asked >= 1),
            fooled INTEGER NOT NULL CHECK (fooled >= 0 AND fooled <= asked),
            example TEXT NOT NULL,
            example_target_prob REAL NOT NULL,
            example_validity REAL,
            example_natural REAL,
            UNIQUE (profile_pair_id, phenomenon)
        )""",
        "CREATE INDEX IF NOT EXISTS profile_pairs_run ON profile_pairs(profile_run_id)",
    ),
    # 6: profile runs as jobs too (the Runs page queues them). The table is rebuilt for its CHECK.
    _rebuild_jobs(("attack", "train-victim", "profile")),
    # 7: the repair loop as a job (the Runs page queues it), rebuilt again for its CHECK.
    _rebuild_jobs(("attack", "train-victim", "profile", "repair")),
)


def _recorded(db: sqlite_utils.Database, component: str) -> int | None:
    if "schema_migrations" not in db.table_names():
        return None
    row = next(db.query("SELECT version FROM schema_migrations WHERE component = ?", [component]), None)
    return None if row is None else int(row["version"])


def schema_version(db: sqlite_utils.Database, component: str = COMPONENT) -> int:
    """The number of ``component`` migrations applied to ``db`` (a file from before components:
    its ``user_version``)."""
    recorded = _recorded(db, component)
    if recorded is not None:
        return recorded
    return int(next(db.query("PRAGMA user_version"))["user_version"])


def migrate(db: sqlite_utils.Database, component: str = COMPONENT, migrations: Migrations | None = None) -> int:
    """Apply ``component`` 's missing migrations (default: this module's) in one ``BEGIN IMMEDIATE``
    transaction; return the version."""
    migrations = MIGRATIONS if migrations is None else migrations
    latest = len(migrations)
    if _recorded(db, component) == latest:
        return latest
    # A migration may rebuild a table (SQLite cannot alter a CHECK): foreign keys are off while the
    # migrations run, as SQLite's own procedure asks, and checked whole before the commit.
    enforced = bool(db.execute("PRAGMA foreign_keys").fetchone()[0])
    db.execute("PRAGMA foreign_keys = OFF")
    try:
        _apply(db, component, migrations, latest)
    finally:
        if enforced:  # a pragma, so outside the transaction
            db.execute("PRAGMA foreign_keys = ON")
    return latest


def _apply(db: sqlite_utils.Database, component: str, migrations: Migrations, latest: int) -> None:
    """Run ``component`` 's missing migrations and record the version, in one ``BEGIN IMMEDIATE``
    transaction that a broken reference rolls back."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(db, component)
        if version > latest:
            raise InputError(
                f"store schema version {version} ({component}) is newer than this program's {latest}; "
                "upgrade NatLog Studio to open it"
            )
        for number in range(version, latest):
            for statement in migrations[number]:
                db.execute(statement)
        db.execute("CREATE TABLE IF NOT EXISTS schema_migrations "
                   "(component TEXT PRIMARY KEY, version INTEGER NOT NULL)")
        db.execute("INSERT INTO schema_migrations (component, version) VALUES (?, ?) "
                   "ON CONFLICT (component) DO UPDATE SET version = excluded.version", [component, latest])
        broken = db.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise InputError(f"migrating the store ({component}) would break {len(broken)} references; "
                             "nothing was changed")
    except BaseException:
        db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")
