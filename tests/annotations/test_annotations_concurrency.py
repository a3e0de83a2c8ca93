"""Twenty annotator processes judge as fast as they can against one store file."""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from pathlib import Path

from annotations import LABELS, Store, auth
from annotations.access import sign_in
from annotations.aggregation import item_results
from engine.core.settings import Settings
from tests.annotations.test_annotations_store import make_record, start

WORKERS = 20
ITEMS = 100


def _judge(db: str, settings: Settings, name: str, token: str, barrier, results) -> None:
    """One annotator: sign in, then take and judge items until the queue is empty."""
    with Store.open(db, settings) as store:
        session = sign_in(store, name, token)
        barrier.wait(timeout=60)
        mine = []
        while (item := session.next_item()) is not None:
            # Everyone agrees on an item's label, so no tie asks for an extra vote.
            judgment_id = session.submit(item.item_id, LABELS[item.item_id % 3], seconds=0.0)
            mine.append((item.item_id, judgment_id))
        results.put((name, mine))


def test_twenty_concurrent_annotators_store_each_vote_once_and_never_exceed_k(
        tmp_path: Path, tmp_settings: Settings) -> None:
    settings = tmp_settings.with_overrides(annotations_gold_percent=20)
    db = tmp_path / "crowd.sqlite"
    with Store.open(db, settings) as store:
        run_id = start(store)
        for index in range(ITEMS):
            store.record_attack(run_id, make_record(index))
        tokens = {f"w{n:02d}": auth.add_annotator(store, f"w{n:02d}") for n in range(WORKERS)}
    # A fork server (single-threaded, modules preloaded) makes workers fast and fork-safe.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    barrier, results = context.Barrier(WORKERS), context.Queue()
    workers = [context.Process(target=_judge, args=(str(db), settings, name, token, barrier,
                                                    results))
               for name, token in tokens.items()]
    started = time.monotonic()
    for worker in workers:
        worker.start()
    reported = dict(results.get(timeout=120) for _ in workers)
    for worker in workers:
        worker.join(timeout=30)
    elapsed = time.monotonic() - started
    assert all(worker.exitcode == 0 for worker in workers)
    assert elapsed < 60

    submitted = Counter((name, item) for name, votes in reported.items() for item, _ in votes)
    with Store.open(db, settings) as store:
        rows = list(store.db.query(
            "SELECT a.name, j.item_id, j.id, i.kind FROM judgments j "
            "JOIN annotators a ON a.id = j.annotator_id JOIN items i ON i.id = j.item_id"))
        results_by_item = item_results(store)
    stored = Counter((row["name"], row["item_id"]) for row in rows)
    # Every acknowledged vote is stored exactly once, and nothing else is.
    assert stored == submitted and max(stored.values()) == 1
    assert {j for votes in reported.values() for _, j in votes} == {row["id"] for row in rows}
    # Every attack item got exactly k votes: none more, none left short.
    attack_votes = Counter(row["item_id"] for row in rows if row["kind"] == "attack")
    assert len(results_by_item) == ITEMS
    assert set(attack_votes.values()) == {settings.annotations_k}
    assert all(r.state == "resolved" for r in results_by_item.values())
    # Gold items were mixed in for (most) workers while they judged.
    assert sum(row["kind"] == "gold" for row in rows) > 0
