"""The judging queue: k votes per item, no second vote, one seeded shuffled order, leases, gold, ties."""

from __future__ import annotations

from datetime import timedelta

import pytest

from annotations import Store, auth
from annotations.access import AnnotatorSession, _judgments, sign_in
from annotations.aggregation import agreement, item_results
from engine.core.errors import InputError
from engine.core.settings import Settings
from tests.annotations.test_annotations_store import make_record, start


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
    # Two items x k=3 votes: the first three people judge both (each in their own order), the fourth none.
    for number in range(3):
        me = next(s for s in (a, b, c) if s.annotator.name == f"ann{number}").annotator.id
        assert served[f"ann{number}"] == sorted(served["ann0"], key=lambda item: store.queue_rank(me, item))
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
    run_id = store.run("run-a").id
    for index in range(10, 14):  # source pairs of failed attacks: gold whose premises no attack item has
        store.record_attack(run_id, make_record(index, "failed"))
    (a,) = people(store, 1)
    kinds, gold_premises = [], []
    while (item := a.next_item()) is not None:
        kind, gold = next(store.db.query("SELECT kind, gold_label FROM items WHERE id = ?",
                                         [item.item_id])).values()
        kinds.append(kind)
        if kind == "gold":
            gold_premises.append(item.premise)
        a.submit(item.item_id, gold or "contradiction")
    # One vote in two is gold, from the very first item on (an annotator is checked from the start);
    # gold is never served once the attack items are done, and never shares a premise with them.
    assert kinds == ["gold", "attack"] * 4
    assert all(int(p.split()[-1].rstrip(".")) >= 10 for p in gold_premises)
    (row,) = agreement(store).annotators
    assert (row.gold_votes, row.gold_accuracy) == (4, 1.0)


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
    with pytest.raises(InputError, match="^unknown fluency 'meh'; use one of: ok, odd, broken$"):
        b.submit(b.next_item().item_id, "neutral", "meh")
    with pytest.raises(InputError, match="^fluency 'ok' contradicts not_fluent=True"):
        b.submit(b.next_item().item_id, "neutral", "ok", not_fluent=True)
    (vote,) = _judgments(store, a.annotator.id)
    # The older keyword still works: not fluent is the broken level.
    assert (vote.label, vote.fluency, vote.not_fluent, vote.seconds) == ("entailment", "broken", True, 3.0)
    assert _judgments(store, b.annotator.id) == []
    b.submit(b.next_item().item_id, "neutral", " Odd ")
    (vote,) = _judgments(store, b.annotator.id)
    assert (vote.fluency, vote.not_fluent) == ("odd", False)
    assert next(store.db.query("SELECT fluency, not_fluent FROM judgments WHERE id = ?", [vote.id])) == {
        "fluency": "odd", "not_fluent": 0}
    assert a.next_item() is not None


def test_skip_passes_an_item_on(tmp_settings: Settings) -> None:
    """A skipped item never comes back to the one who skipped it, and its slot is free at once."""
    store = seeded(tmp_settings, 2, annotations_gold_percent=0, annotations_k=1)
    a, b = people(store, 2)
    first = a.next_item()
    a.skip(first.item_id)
    second = a.next_item()
    assert second.item_id != first.item_id
    assert b.next_item().item_id == first.item_id  # free for someone else
    a.submit(second.item_id, "neutral")
    assert a.next_item() is None and a.progress().remaining == 0
    with pytest.raises(InputError, match="was not served to you"):
        a.skip(first.item_id)


def test_undo_takes_back_the_last_vote_within_ten_minutes(tmp_settings: Settings) -> None:
    store = seeded(tmp_settings, 2, annotations_gold_percent=0)
    (a,) = people(store, 1)
    with pytest.raises(InputError, match="no vote of yours to undo"):
        a.undo_last()
    first = a.next_item()
    a.submit(first.item_id, "neutral", comment="  the   hypothesis is odd ")
    assert [j.item_id for j in _judgments(store, None)] == [first.item_id]
    assert next(store.db.query("SELECT comment FROM judgments"))["comment"] == "the hypothesis is odd"
    a.next_item()  # the next pair is served (leased) ...
    assert a.undo_last() == first.item_id  # ... but the undone one comes back first
    assert a.next_item().item_id == first.item_id and _judgments(store, None) == []
    a.submit(first.item_id, "contradiction")
    later = store.clock() + timedelta(minutes=11)
    store.clock = lambda: later
    with pytest.raises(InputError, match="older than 10 minutes and stays"):
        a.undo_last()
    with pytest.raises(InputError, match="a comment is at most 500 characters"):
        a.submit(a.next_item().item_id, "neutral", comment="x" * 501)


def test_session_links_expire_and_die_with_the_token(tmp_settings: Settings) -> None:
    store = seeded(tmp_settings, 1)
    token = auth.add_annotator(store, "ann")
    person = sign_in(store, "ann", token).annotator
    link = auth.session_token(store, person.id, ttl_s=60)
    assert auth.resume_session(store, link).name == "ann"
    for forged in (link[:-1] + ("0" if link[-1] != "0" else "1"), link.replace(f"{person.id}.", "99.", 1), "x.y",
                   ""):
        with pytest.raises(auth.AuthError, match="expired or was revoked"):
            auth.resume_session(store, forged)
    now = store.clock()
    store.clock = lambda: now + timedelta(seconds=61)
    with pytest.raises(auth.AuthError, match="expired or was revoked"):
        auth.resume_session(store, link)
    store.clock = lambda: now
    auth.reissue_token(store, "ann")  # a new token ends the sessions of the old one
    with pytest.raises(auth.AuthError, match="expired or was revoked"):
        auth.resume_session(store, link)
    fresh = auth.session_token(store, person.id)
    auth.revoke(store, "ann")
    with pytest.raises(auth.AuthError, match="expired or was revoked"):
        auth.resume_session(store, fresh)


def test_the_queue_interleaves_runs_in_a_seeded_order(tmp_settings: Settings) -> None:
    """Items of two runs (a NatLog run and a peer system's, recorded one after the other) are served
    mixed, not run by run; the same seed gives the same order, another seed another."""

    opened = iter(range(100))

    def served(seed: int) -> list[str]:
        path = tmp_settings.db_path.with_name(f"queue-{seed}-{next(opened)}.sqlite")
        settings = tmp_settings.with_overrides(db_path=path,
                                               annotations_gold_percent=0, annotations_queue_seed=seed)
        with Store.open(settings=settings) as store:
            for name in ("natlog", "natlog-pwws"):
                run_id = start(store, name)
                for index in range(8):
                    store.record_attack(run_id, make_record(index))
            runs = {a.item_id: a.run_name for a in store.attacks(with_trace=False)}
            (session,) = people(store, 1)
            order = []
            while (item := session.next_item()) is not None:
                session.submit(item.item_id, "neutral")
                order.append(runs[item.item_id])
            return order

    first = served(0)
    assert sorted(first) == ["natlog"] * 8 + ["natlog-pwws"] * 8
    assert first != sorted(first) and first != sorted(first, reverse=True)  # interleaved
    assert served(0) != [] and first == served(0)
    assert served(0) != served(1) or served(0) != served(2)


def test_no_gold_item_sits_near_an_attack_item_with_its_premise(tmp_settings: Settings) -> None:
    """60 attack items over 15 premises (4 H* each) and their 15 source pairs as gold, plus 15 gold
    pairs of other premises; two annotators at a 25 % gold rate: nobody gets a gold item within 20
    items (either side) of an attack item with the same premise, and their orders differ."""
    from dataclasses import replace

    store = Store.open(settings=tmp_settings.with_overrides(annotations_gold_percent=25))
    run_id = start(store)
    index = 0
    for premise in range(15):
        for variant in range(4):
            record = make_record(index, premise=f"A man is playing guitar number {premise}.",
                                 adversarial_hypothesis=f"A man is not playing instrument {premise}-{variant}.")
            store.record_attack(run_id, replace(record, hypothesis=f"A man is playing an instrument {premise}."))
            index += 1
    for premise in range(100, 115):
        store.record_attack(run_id, make_record(index, "failed", premise=f"A woman sings song {premise}."))
        index += 1
    orders = []
    for session in people(store, 2):
        served = []
        while (item := session.next_item()) is not None:
            kind = next(store.db.query("SELECT kind FROM items WHERE id = ?", [item.item_id]))["kind"]
            served.append((kind, item.premise, item.item_id))
            session.submit(item.item_id, "neutral")
        orders.append(served)
        golds = [k for k, (kind, _, _) in enumerate(served) if kind == "gold"]
        assert len(golds) >= 5
        for k in golds:
            window = served[max(0, k - 20):k] + served[k + 1:k + 21]
            assert all(premise != served[k][1] for kind, premise, _ in window if kind == "attack"), k
    first, second = ([item for kind, _, item in order if kind == "attack"] for order in orders)
    assert first != second  # each annotator has their own order
