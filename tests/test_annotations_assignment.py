"""The judging queue: k votes per item, no second vote, oldest first, leases, gold, ties."""

from __future__ import annotations

from datetime import timedelta

import pytest

from annotations import Store, auth
from annotations.access import AnnotatorSession, _judgments, sign_in
from annotations.aggregation import agreement, item_results
from engine.errors import InputError
from engine.settings import Settings
from tests.test_annotations_store import make_record, start


def seeded(settings: Settings, items: int, **overrides: object) -> Store:
    """A store with ``items`` successful attacks (hence attack items) and their gold pairs."""
    store = Store.open(settings=settings.with_overrides(**overrides))
    run_id = start(store)
    for index in range(items):
        store.record_attack(run_id, make_record(index))
    return store


def people(store: Store, count: int) -> list[AnnotatorSession]:
    sessions = []
    for number in range(count):
        token = auth.add_annotator(store, f"ann{number}")
        sessions.append(sign_in(store, f"ann{number}", token))
    return sessions


def test_each_item_gets_k_votes_and_never_twice_from_one_person(tmp_settings: Settings) -> None:
    store = seeded(tmp_settings, 2, annotations_gold_percent=0)
    a, b, c, d = people(store, 4)
    served = {}
    for session in (a, b, c, d):
        votes = []
        while (item := session.next_item()) is not None:
            session.submit(item.item_id, "contradiction", seconds=1.5)
            votes.append(item.item_id)
        served[session.annotator.name] = votes
    # Two items x k=3 votes: the first three people judge both (oldest first), the fourth none.
    first, second = sorted(served["ann0"])
    assert served["ann0"] == served["ann1"] == served["ann2"] == [first, second]
    assert served["ann3"] == []
    assert all(r.votes["contradiction"] == 3 and r.state == "resolved"
               for r in item_results(store).values())
    assert a.progress().done == 2 and a.progress().remaining == 0


def test_refresh_serves_the_same_leased_item(tmp_settings: Settings) -> None:
    store = seeded(tmp_settings, 3, annotations_gold_percent=0)
    (a,) = people(store, 1)
    first = a.next_item()
    assert a.next_item() == first
    a.submit(first.item_id, "neutral")
    assert a.next_item().item_id != first.item_id


def test_abandoned_item_returns_to_queue_after_timeout(tmp_settings: Settings) -> None:
    store = seeded(tmp_settings, 1, annotations_gold_percent=0, annotations_lease_s=60)
    t0 = store.clock()
    store.clock = lambda: t0
    a, b, c, d = people(store, 4)
    item = a.next_item()
    assert b.next_item() == item and c.next_item() == item
    assert d.next_item() is None  # all k slots are leased
    store.clock = lambda: t0 + timedelta(seconds=61)
    assert d.next_item() == item  # leases of a, b, c expired
    a.submit(item.item_id, "entailment")  # late but a slot is still free
    b.submit(item.item_id, "entailment")
    with pytest.raises(InputError, match="already has all the votes"):
        c.submit(item.item_id, "entailment")
    d.submit(item.item_id, "entailment")
    assert item_results(store)[1].votes["entailment"] == 3


def test_gold_items_mixed_in_at_rate_and_scored(tmp_settings: Settings) -> None:
    store = seeded(tmp_settings, 4, annotations_gold_percent=50)
    (a,) = people(store, 1)
    kinds = []
    while (item := a.next_item()) is not None:
        kind, gold = next(store.db.query("SELECT kind, gold_label FROM items WHERE id = ?",
                                         [item.item_id])).values()
        kinds.append(kind)
        a.submit(item.item_id, gold or "contradiction")
    # One vote in two is gold; gold is never served once the attack items are done.
    assert kinds == ["attack", "gold"] * 3 + ["attack"]
    (row,) = agreement(store).annotators
    assert (row.gold_votes, row.gold_accuracy) == (3, 1.0)


def test_tie_stays_open_until_another_vote_breaks_it(tmp_settings: Settings) -> None:
    store = seeded(tmp_settings, 1, annotations_gold_percent=0)
    a, b, c, d, e = people(store, 5)
    for session, label in zip((a, b, c), ("entailment", "neutral", "contradiction")):
        session.submit(session.next_item().item_id, label)
    (result,) = item_results(store).values()
    assert result.state == "tie" and result.majority is None
    item = d.next_item()
    assert item is not None
    d.submit(item.item_id, "neutral")
    (result,) = item_results(store).values()
    assert result.state == "resolved" and result.majority == "neutral"
    assert e.next_item() is None


def test_bad_votes_are_refused_and_earlier_votes_kept(tmp_settings: Settings) -> None:
    store = seeded(tmp_settings, 2, annotations_gold_percent=0)
    a, b = people(store, 2)
    item = a.next_item()
    a.submit(item.item_id, "Entailment", not_fluent=True, seconds=3.0)
    with pytest.raises(InputError, match="unknown item 999"):
        a.submit(999, "entailment")
    with pytest.raises(InputError, match="unknown label 'yes'; use one of: entailment, neutral, contradiction"):
        a.submit(item.item_id, "yes")
    with pytest.raises(InputError, match="duplicate vote"):
        a.submit(item.item_id, "neutral")
    with pytest.raises(InputError, match="not served to you"):
        b.submit(item.item_id + 1, "neutral")
    with pytest.raises(InputError, match=">= 0 seconds"):
        b.submit(b.next_item().item_id, "neutral", seconds=-1)
    (vote,) = _judgments(store, a.annotator.id)
    assert (vote.label, vote.not_fluent, vote.seconds) == ("entailment", True, 3.0)
    assert _judgments(store, b.annotator.id) == []
    assert a.next_item() is not None
