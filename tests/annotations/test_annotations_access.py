"""Access: hashed tokens, identical sign-in errors, revocation, blind judging, admin-only reads."""

from __future__ import annotations

import dataclasses

import pytest

from annotations import QueueItem, Store, auth
from annotations.access import AdminSession, AnnotatorSession, sign_in
from annotations.auth import SIGN_IN_FAILED, AuthError
from engine.core.errors import InputError
from engine.core.settings import Settings, get_settings
from tests.annotations.test_annotations_store import make_record, start

ADMIN_ONLY = ("judgments", "item_results", "agreement", "hvasr", "export_rows",
              "add_annotator", "revoke", "reissue_token", "annotators")


@pytest.fixture()
def store(tmp_settings: Settings):
    with Store.open(settings=tmp_settings.with_overrides(annotations_gold_percent=0)) as opened:
        run_id = start(opened)
        opened.record_attack(run_id, make_record(0))
        yield opened


def test_token_is_stored_only_as_salted_hash(store: Store) -> None:
    first = auth.add_annotator(store, "alice")
    second = auth.add_annotator(store, "bob")
    assert first != second and len(first) >= 32
    hashes = [row["token_hash"] for row in store.db.query("SELECT token_hash FROM annotators")]
    assert all(h.startswith("$argon2id$") for h in hashes) and len(set(hashes)) == 2
    store.db.execute("PRAGMA wal_checkpoint(FULL)")
    wal = store.path.with_name(store.path.name + "-wal")
    raw = store.path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert first.encode() not in raw and second.encode() not in raw


def test_wrong_token_and_unknown_name_fail_identically(store: Store) -> None:
    token = auth.add_annotator(store, "alice")
    with pytest.raises(AuthError) as wrong:
        sign_in(store, "alice", token[:-1] + ("A" if token[-1] != "A" else "B"))
    with pytest.raises(AuthError) as unknown:
        sign_in(store, "mallory", token)
    assert str(wrong.value) == str(unknown.value) == SIGN_IN_FAILED
    assert isinstance(sign_in(store, " alice ", f" {token} "), AnnotatorSession)


def test_revoked_token_fails_at_sign_in_and_in_open_sessions(store: Store) -> None:
    token = auth.add_annotator(store, "alice")
    session = sign_in(store, "alice", token)
    item = session.next_item()
    auth.revoke(store, "alice")
    with pytest.raises(AuthError, match=SIGN_IN_FAILED):
        sign_in(store, "alice", token)
    with pytest.raises(AuthError, match="revoked"):
        session.submit(item.item_id, "entailment")
    with pytest.raises(AuthError, match="revoked"):
        session.next_item()
    with pytest.raises(InputError, match="no active annotator"):
        auth.revoke(store, "alice")


def test_a_revoked_annotator_gets_a_new_token(store: Store) -> None:
    """Re-adding a revoked name is refused; re-issuing gives a new token, the old one stays dead,
    and the person's earlier votes stay theirs."""
    old = auth.add_annotator(store, "alice")
    session = sign_in(store, "alice", old)
    item = session.next_item()
    session.submit(item.item_id, "entailment")
    auth.revoke(store, "alice")
    with pytest.raises(InputError, match="already exists"):
        auth.add_annotator(store, "alice")
    new = auth.reissue_token(store, " alice ")
    assert new != old
    with pytest.raises(AuthError, match=SIGN_IN_FAILED):
        sign_in(store, "alice", old)
    again = sign_in(store, "alice", new)
    assert again.progress().done == 1
    with pytest.raises(InputError, match="no annotator named 'nobody'"):
        auth.reissue_token(store, "nobody")


def test_annotator_sees_only_own_queue_and_votes_never_results(store: Store) -> None:
    alice = sign_in(store, "alice", auth.add_annotator(store, "alice"))
    bob = sign_in(store, "bob", auth.add_annotator(store, "bob"))
    assert type(alice) is AnnotatorSession
    for name in ADMIN_ONLY:
        assert not hasattr(alice, name)
    item = alice.next_item()
    # Blind judging: the served item holds the pair to judge and nothing else.
    assert {f.name for f in dataclasses.fields(QueueItem)} == {"item_id", "premise", "hypothesis"}
    assert item.hypothesis == "A man is not playing an instrument 0."
    alice.submit(item.item_id, "contradiction")
    bob.submit(bob.next_item().item_id, "neutral")
    root = sign_in(store, "root", auth.add_annotator(store, "root", "admin"))
    assert [(j.annotator, j.label) for j in root.judgments(alice.annotator.id)] == [("alice", "contradiction")]
    assert [(j.annotator, j.label) for j in root.judgments(bob.annotator.id)] == [("bob", "neutral")]
    # A non-admin wrapped as an admin session is still refused.
    forged = AdminSession(store, alice.annotator)
    for call in (forged.judgments, forged.agreement, forged.item_results, forged.hvasr,
                 forged.export_rows, forged.annotators):
        with pytest.raises(AuthError, match="only admins"):
            call()
    with pytest.raises(AuthError, match="only admins"):
        forged.add_annotator("eve")


def test_admin_reads_everyone_and_manages_people(store: Store) -> None:
    with pytest.raises(AuthError):
        sign_in(store, "root", "nothing yet")
    code = auth.issue_bootstrap_code(store)
    admin_token = auth.bootstrap_admin(store, "root", code)
    with pytest.raises(AuthError, match="already has an admin"):
        auth.bootstrap_admin(store, "root2", code)
    with pytest.raises(AuthError, match="already has an admin"):
        auth.issue_bootstrap_code(store)
    admin = sign_in(store, "root", admin_token)
    assert isinstance(admin, AdminSession)
    alice = sign_in(store, "alice", admin.add_annotator("alice"))
    alice.submit(alice.next_item().item_id, "neutral")
    assert [(j.annotator, j.label) for j in admin.judgments()] == [("alice", "neutral")]
    assert [a.name for a in admin.annotators()] == ["root", "alice"]
    admin.revoke("alice")
    assert admin.annotators()[1].revoked_at is not None
    assert admin.export_rows()[0]["votes"] == [
        {"annotator": "alice", "label": "neutral", "fluency": "ok", "not_fluent": False}]


def test_the_first_admin_needs_the_console_bootstrap_code(store: Store) -> None:
    """A fresh store refuses to create an admin without the one-time code the server prints; a new
    code replaces the last; a used code is gone; only its hash is stored."""
    with pytest.raises(AuthError, match="bootstrap code is wrong"):
        auth.bootstrap_admin(store, "eve", "")  # no code issued yet
    first = auth.issue_bootstrap_code(store)
    second = auth.issue_bootstrap_code(store)
    assert first != second and len(second) >= 17
    stored = [row["value"] for row in store.db.query("SELECT value FROM app_keys WHERE name = 'bootstrap'")]
    assert stored and second not in stored[0]
    for wrong in ("", "nope", first):
        with pytest.raises(AuthError, match="bootstrap code is wrong"):
            auth.bootstrap_admin(store, "eve", wrong)
    assert not auth.has_admin(store)
    token = auth.bootstrap_admin(store, "root", f"  {second} ")
    assert auth.authenticate(store, "root", token).role == "admin"
    assert not list(store.db.query("SELECT 1 FROM app_keys WHERE name = 'bootstrap'"))


def test_an_admin_sets_k_for_the_study(store: Store) -> None:
    """k is the study's: kept in the store (it outlives a restart and wins over the setting),
    any whole k >= 1, never above the active annotators; items with k agreeing votes resolve at once."""
    from annotations.aggregation import item_results

    admin = sign_in(store, "root", auth.add_annotator(store, "root", "admin"))
    alice = sign_in(store, "alice", admin.add_annotator("alice"))
    item = alice.next_item()
    alice.submit(item.item_id, "contradiction")
    assert item_results(store)[next(iter(item_results(store)))].state == "pending"  # k = 3 by default
    with pytest.raises(InputError, match="needs at least 3 active annotators and the study has 1"):
        admin.set_k(3)
    with pytest.raises(InputError, match="needs at least 2 active annotators"):
        admin.set_k(2)
    with pytest.raises(InputError, match="whole number of at least 1"):
        admin.set_k(0)
    admin.set_k(1)
    assert admin.k == store.k == 1
    assert {r.state for r in item_results(store).values() if r.item_id == item.item_id} == {"resolved"}
    reopened = Store.open(store.path, get_settings().with_overrides(db_path=store.path, annotations_k=5))
    try:
        assert reopened.k == 1
    finally:
        reopened.close()
