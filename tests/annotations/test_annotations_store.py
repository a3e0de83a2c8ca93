"""The store: schema and migrations, runs and resume, attack records, items, crash safety."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from annotations import AttackRecord, Store, schema
from engine.core.errors import InputError
from engine.core.settings import PROJECT_ROOT, Settings
from engine.store import schema as run_schema

PROBS = {"entailment": 0.8, "neutral": 0.1, "contradiction": 0.1}


def make_record(index: int, status: str = "success", target: str = "contradiction",
                **changes: object) -> AttackRecord:
    """A plausible E2C attack record on pair ``index``."""
    record = AttackRecord(
        pair_index=index,
        premise=f"A man is playing guitar number {index}.",
        hypothesis=f"A man is playing an instrument {index}.",
        gold_label="entailment",
        status=status,
        source_label="entailment",
        target_label=target,
        original_prediction="entailment",
        original_probabilities=PROBS,
        adversarial_hypothesis=(f"A man is not playing an instrument {index}."
                                if status == "success" else None),
        adversarial_prediction="entailment" if status == "success" else None,
        adversarial_probabilities=PROBS if status == "success" else None,
        queries=7 + index,
        cache_hits=1,
        perplexity=42.5,
        operators=("negation",),
        polarity="↑",
        derivation={"edits": [{"token": 4, "relation": "^"}]},
        trace={"rounds": [{"candidates": ["x"], "queried": 1}]},
    )
    return replace(record, **changes)


def open_store(path: Path, settings: Settings, **overrides: object) -> Store:
    return Store.open(path, settings.with_overrides(**overrides) if overrides else settings)


def start(store: Store, name: str = "run-a", setup: str = "E2C", data: str = "snli_test.tsv",
          victim: str = "offline") -> int:
    return store.start_run(name, setup, victim, data, "snli", 13, {"top_k": 100}).id


@pytest.fixture()
def store(tmp_settings: Settings):
    with Store.open(settings=tmp_settings) as opened:
        yield opened


def test_open_creates_wal_store_with_foreign_keys_and_version(store: Store) -> None:
    assert store.path.is_file()
    assert run_schema.schema_version(store.db) == len(run_schema.MIGRATIONS)
    assert schema.schema_version(store.db) == len(schema.MIGRATIONS)
    assert next(store.db.query("PRAGMA journal_mode"))["journal_mode"] == "wal"
    assert next(store.db.query("PRAGMA foreign_keys"))["foreign_keys"] == 1
    with pytest.raises(sqlite3.IntegrityError):
        with store.transaction() as db:
            db.execute("INSERT INTO pairs (run_id, pair_index, premise, hypothesis) "
                       "VALUES (999, 0, 'p', 'h')")


def test_reopening_keeps_data_and_newer_schema_is_refused(tmp_settings: Settings) -> None:
    with Store.open(settings=tmp_settings) as store:
        run_id = start(store)
        store.record_attack(run_id, make_record(0))
    with Store.open(settings=tmp_settings) as store:
        assert [a.record.pair_index for a in store.attacks()] == [0]
        store.db.execute("UPDATE schema_migrations SET version = version + 1 WHERE component = 'runs'")
    with pytest.raises(InputError, match="newer"):
        Store.open(settings=tmp_settings)


def test_a_store_from_before_components_opens_with_its_data(tmp_settings: Settings) -> None:
    """Files written when one migration list created every table kept its count in user_version."""
    legacy = sqlite3.connect(tmp_settings.db_path)
    for statement in (*run_schema.MIGRATIONS[0], *schema.MIGRATIONS[0]):
        legacy.execute(statement.replace(" IF NOT EXISTS", ""))
    legacy.execute("INSERT INTO runs (name, setup, victim, data_path, data_format, seed, config, created_at) "
                   "VALUES ('old', 'E2C', 'tiny', '/d.tsv', 'tsv', 0, '{}', '2026-01-01T00:00:00.000+00:00')")
    legacy.execute("PRAGMA user_version = 1")
    legacy.commit()
    legacy.close()
    with Store.open(settings=tmp_settings) as store:
        assert [r.name for r in store.runs()] == ["old"]
        versions = {r["component"]: r["version"] for r in store.db.query("SELECT * FROM schema_migrations")}
        assert versions == {"runs": len(run_schema.MIGRATIONS), "annotations": len(schema.MIGRATIONS)}
        assert "jobs" in store.db.table_names()  # later migrations were applied on top


def test_forward_migration_applies_once_and_keeps_data(
        tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    with Store.open(settings=tmp_settings) as store:
        store.record_attack(start(store), make_record(0))
    extra = ("ALTER TABLE runs ADD COLUMN note TEXT", "UPDATE runs SET note = 'migrated'")
    monkeypatch.setattr(run_schema, "MIGRATIONS", run_schema.MIGRATIONS + (extra,))
    with Store.open(settings=tmp_settings) as store:
        assert run_schema.schema_version(store.db) == len(run_schema.MIGRATIONS)
        assert schema.schema_version(store.db) == len(schema.MIGRATIONS)
        assert [r["note"] for r in store.db.query("SELECT note FROM runs")] == ["migrated"]
        assert store.done_pair_indices(1) == {0}
        store.db.execute("UPDATE runs SET note = 'kept'")
    with Store.open(settings=tmp_settings) as store:  # nothing left to migrate
        assert [r["note"] for r in store.db.query("SELECT note FROM runs")] == ["kept"]


def test_a_store_made_for_odd_k_opens_and_takes_k_2(tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store written before even k (annotations migration 2, items CHECK k odd) is rebuilt on
    open: items keep their ids, votes and gold rows; foreign keys are enforced again afterwards;
    and k = 2 can then be stored, which the old table refused."""
    from annotations import access, auth

    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:2])
    with Store.open(settings=tmp_settings) as store:
        run = start(store)
        for index in range(3):
            store.record_attack(run, make_record(index))
        person = auth.add_annotator(store, "alice")
        session = access.sign_in(store, "alice", person)
        first = session.next_item()
        store.db.execute("INSERT INTO judgments (item_id, annotator_id, label, not_fluent, source, created_at) "
                         "VALUES (?, ?, 'contradiction', 0, 'app', ?)", [first.item_id, session.annotator.id, store.now()])
        before = list(store.db.query("SELECT id, kind, attack_id, premise, hypothesis, gold_label, k FROM items "
                                     "ORDER BY id"))
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            store.db.execute("UPDATE items SET k = 2")
    monkeypatch.undo()
    with Store.open(settings=tmp_settings) as store:
        assert schema.schema_version(store.db) == len(schema.MIGRATIONS) == 5
        assert list(store.db.query("SELECT id, kind, attack_id, premise, hypothesis, gold_label, k FROM items "
                                   "ORDER BY id")) == before
        assert [r["item_id"] for r in store.db.query("SELECT item_id FROM judgments")] == [first.item_id]
        assert store.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            store.db.execute("INSERT INTO judgments (item_id, annotator_id, label, not_fluent, fluency, source, "
                             "created_at) VALUES (9999, 1, 'neutral', 0, 'ok', 'app', 'now')")
        store.set_k(2)
        assert {r["k"] for r in store.db.query("SELECT k FROM items")} == {2}


def test_migration_4_reads_the_old_flag_as_three_level_fluency(
        tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store written at annotations migration 3 (votes carry only not_fluent) is migrated on open:
    a flagged vote reads as broken, any other as ok; not_fluent is kept beside it and can no longer
    disagree with the fluency; a value outside ok / odd / broken is refused."""
    from annotations import auth
    from annotations.aggregation import item_results

    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:3])
    with Store.open(settings=tmp_settings) as store:
        run = start(store)
        attack = store.record_attack(run, make_record(0))
        item = next(a.item_id for a in store.attacks() if a.id == attack)
        for name, flag in (("ann", 1), ("bob", 1), ("cyd", 0)):
            auth.add_annotator(store, name)
            person = next(store.db.query("SELECT id FROM annotators WHERE name = ?", [name]))["id"]
            store.db.execute("INSERT INTO judgments (item_id, annotator_id, label, not_fluent, seconds, source, "
                             "created_at, comment) VALUES (?, ?, 'contradiction', ?, 2.5, 'app', 'then', ?)",
                             [item, person, flag, f"note {name}"])
        assert "fluency" not in store.db["judgments"].columns_dict
    monkeypatch.undo()
    with Store.open(settings=tmp_settings) as store:
        assert schema.schema_version(store.db) == len(schema.MIGRATIONS)
        rows = list(store.db.query("SELECT a.name, j.fluency, j.not_fluent, j.seconds, j.comment FROM judgments j "
                                   "JOIN annotators a ON a.id = j.annotator_id ORDER BY a.name"))
        assert [(r["name"], r["fluency"], r["not_fluent"]) for r in rows] == [
            ("ann", "broken", 1), ("bob", "broken", 1), ("cyd", "ok", 0)]
        assert [(r["seconds"], r["comment"]) for r in rows][0] == (2.5, "note ann")  # the rest of the vote kept
        result = item_results(store)[attack]
        assert result.fluency == {"ok": 1, "odd": 0, "broken": 2} and result.broken and not result.natural
        auth.add_annotator(store, "dee")  # one who has not voted: only the CHECKs can refuse her rows
        dee = next(store.db.query("SELECT id FROM annotators WHERE name = 'dee'"))["id"]
        for fluency, flag in (("broken", 0), ("ok", 1), ("meh", 0)):
            with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
                store.db.execute("INSERT INTO judgments (item_id, annotator_id, label, not_fluent, fluency, source, "
                                 "created_at) VALUES (?, ?, 'neutral', ?, ?, 'app', 'now')", [item, dee, flag, fluency])
        assert next(store.db.query("SELECT COUNT(*) AS n FROM judgments"))["n"] == 3


def test_not_a_store_file_is_a_clear_error(tmp_path: Path, tmp_settings: Settings) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_text("this is not sqlite " * 100)
    with pytest.raises(InputError, match="not a usable NatLog store"):
        Store.open(bad, tmp_settings)
    with pytest.raises(InputError, match="whole number of at least 1"):
        Store.open(tmp_path / "x.sqlite", tmp_settings.with_overrides(annotations_k=0))


def test_start_run_resumes_same_parameters_and_refuses_different(store: Store) -> None:
    first = store.start_run("r", "E2C", "offline", "data.tsv", "tsv", 1, {"top_k": 100})
    again = store.start_run("r", "E2C", "offline", "data.tsv", "tsv", 1, {"top_k": 100})
    assert again == first
    with pytest.raises(InputError, match=r"seed \(stored 1, given 2\)"):
        store.start_run("r", "E2C", "offline", "data.tsv", "tsv", 2, {"top_k": 100})
    with pytest.raises(InputError, match=r"top_k \(stored 100, given 5\)"):
        store.start_run("r", "E2C", "offline", "data.tsv", "tsv", 1, {"top_k": 5})
    assert [run.name for run in store.runs()] == ["r"]
    store.finish_run(first.id)
    assert store.run("r").finished_at is not None
    with pytest.raises(InputError, match="known runs: r"):
        store.run("missing")


def test_record_attack_round_trips_and_feeds_resume(store: Store) -> None:
    run_id = start(store)
    ids = [store.record_attack(run_id, make_record(i, status)) for i, status in
           enumerate(["success", "failed", "skipped"])]
    assert len(set(ids)) == 3
    assert store.done_pair_indices(run_id) == {0, 1, 2}
    stored = store.attacks(run_id)
    assert [a.record.status for a in stored] == ["success", "failed", "skipped"]
    first = stored[0].record
    assert first.derivation == {"edits": [{"token": 4, "relation": "^"}]}
    assert first.trace["rounds"][0]["queried"] == 1
    assert first.operators == ("negation",) and first.original_probabilities == PROBS
    assert stored[0].item_id is not None and stored[1].item_id is None
    assert all(a.record.trace is None for a in store.attacks(run_id, with_trace=False))
    with pytest.raises(InputError, match="already recorded"):
        store.record_attack(run_id, make_record(0))


def test_items_from_successes_and_gold_pairs_once(store: Store) -> None:
    run_a, run_b = start(store, "a"), start(store, "b", setup="E2E")
    store.record_attack(run_a, make_record(0))
    store.record_attack(run_a, make_record(1, "failed"))
    store.record_attack(run_b, make_record(0, target="entailment",
                                           adversarial_prediction="neutral"))
    items = list(store.db.query("SELECT kind, hypothesis, gold_label FROM items ORDER BY id"))
    attack_items = [i for i in items if i["kind"] == "attack"]
    gold_items = [i for i in items if i["kind"] == "gold"]
    assert [i["hypothesis"] for i in attack_items] == ["A man is not playing an instrument 0."] * 2
    # Pair 0 appears in both runs but is one gold item; pair 1 (failed) is still gold.
    assert sorted(i["hypothesis"] for i in gold_items) == [
        "A man is playing an instrument 0.", "A man is playing an instrument 1."]


@pytest.mark.parametrize(("changes", "message"), [
    ({"status": "won"}, "unknown attack status 'won'"),
    ({"target_label": "maybe"}, "unknown target label 'maybe'"),
    ({"adversarial_hypothesis": " "}, "needs H"),
    ({"adversarial_prediction": "contradiction"}, "differs from the target label"),
    ({"trace": {"bad": {1, 2}}}, "trace is not JSON-serialisable"),
    ({"original_probabilities": {"yes": 1.0}}, "map labels"),
    ({"queries": -1}, ">= 0"),
    ({"premise": ""}, "must not be empty"),
    ({"polarity": object()}, "polarity must be a string"),
])
def test_bad_attack_records_are_refused_and_nothing_is_written(
        store: Store, changes: dict, message: str) -> None:
    run_id = start(store)
    with pytest.raises(InputError, match=message):
        store.record_attack(run_id, make_record(0, **changes))
    assert store.done_pair_indices(run_id) == set()
    assert next(store.db.query("SELECT COUNT(*) AS n FROM pairs"))["n"] == 0
    assert next(store.db.query("SELECT COUNT(*) AS n FROM items"))["n"] == 0


_WRITER = """
from annotations import Store
from tests.annotations.test_annotations_store import make_record
store = Store.open({db!r})
run_id = store.start_run("crash", "E2C", "offline", "d.tsv", "tsv", 1, {{}}).id
i = 0
while True:
    store.record_attack(run_id, make_record(i, trace={{"pad": "x" * 20000}}))
    print(i, flush=True)
    i += 1
"""


def test_killed_writer_loses_nothing_committed(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER.format(db=str(db))],
        stdout=subprocess.PIPE, text=True, cwd=PROJECT_ROOT,
    )
    committed = -1
    deadline = time.monotonic() + 60
    while committed < 40 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        committed = int(line)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert committed >= 40, "the writer did not get going"
    with Store.open(db) as store:
        assert next(store.db.query("PRAGMA integrity_check"))["integrity_check"] == "ok"
        run_id = store.run("crash").id
        done = store.done_pair_indices(run_id)
        # Everything reported as committed is there, with its item, and nothing is half-written.
        assert set(range(committed + 1)) <= done
        assert done == set(range(len(done)))
        assert all(a.item_id is not None for a in store.attacks(run_id))
        pairs = next(store.db.query("SELECT COUNT(*) AS n FROM pairs"))["n"]
        assert pairs == len(done)
