"""Twenty annotator processes judge as fast as they can against one store file."""

from __future__ import annotations

import json
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


# A deadline that catches a hang, not a slow machine.
DEADLINE_S = 600


def _judge(db: str, settings: Settings, name: str, token: str, folder: str) -> None:
    """One annotator: sign in, wait for the start file, then take and judge items until the queue
    is empty; writes its votes (or the error that stopped it) to ``folder/NAME.json``.

    Files, not a multiprocessing queue: a child that dies before it reports leaves the parent
    waiting on the queue (the test once hung ten minutes so); a missing file says who.
    """
    out, go = Path(folder) / f"{name}.json", Path(folder) / "go"
    try:
        with Store.open(db, settings) as store:
            session = sign_in(store, name, token)
            (Path(folder) / f"{name}.ready").touch()
            deadline = time.monotonic() + DEADLINE_S
            while not go.exists():
                if time.monotonic() > deadline:
                    raise TimeoutError("no start signal")
                time.sleep(0.01)
            mine = []
            while (item := session.next_item()) is not None:
                # Everyone agrees on an item's label, so no tie asks for an extra vote.
                judgment_id = session.submit(item.item_id, LABELS[item.item_id % 3], seconds=0.0)
                mine.append((item.item_id, judgment_id))
        out.write_text(json.dumps(mine), encoding="utf-8")
    except BaseException as error:  # noqa: BLE001 - reported to the parent, which fails the test
        out.write_text(json.dumps(f"{type(error).__name__}: {error}"), encoding="utf-8")


def test_twenty_concurrent_annotators_store_each_vote_once_and_never_exceed_k(
        tmp_path: Path, tmp_settings: Settings) -> None:
    settings = tmp_settings.with_overrides(annotations_gold_percent=20)
    db = tmp_path / "crowd.sqlite"
    with Store.open(db, settings) as store:
        run_id = start(store)
        for index in range(ITEMS):
            store.record_attack(run_id, make_record(index))
        tokens = {f"w{n:02d}": auth.add_annotator(store, f"w{n:02d}") for n in range(WORKERS)}
    # A fork server (single-threaded, modules preloaded) makes workers fast and fork-safe. (Its
    # children run the parent's __main__ first: tests/conftest.py keeps that pytest's own.)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    folder = tmp_path / "votes"
    folder.mkdir()
    workers = [context.Process(target=_judge, args=(str(db), settings, name, token, str(folder)))
               for name, token in tokens.items()]
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + DEADLINE_S
    try:
        # Everyone signed in (or stopped) before anyone judges, so that all twenty contend.
        while (len(list(folder.glob("*.ready"))) + len(list(folder.glob("*.json"))) < WORKERS
               and any(w.is_alive() for w in workers) and time.monotonic() < deadline):
            time.sleep(0.05)
        (folder / "go").touch()
        for worker in workers:
            worker.join(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.kill()
    codes = {name: worker.exitcode for name, worker in zip(tokens, workers)}
    assert all(code == 0 for code in codes.values()), f"annotator exit codes: {codes}"
    missing = [name for name in tokens if not (folder / f"{name}.json").is_file()]
    assert not missing, f"annotators that reported nothing: {missing}"
    reported = {name: json.loads((folder / f"{name}.json").read_text(encoding="utf-8")) for name in tokens}
    failed = {name: votes for name, votes in reported.items() if isinstance(votes, str)}
    assert not failed, f"annotators stopped with errors: {failed}"

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
