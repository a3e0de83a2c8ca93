"""The judging queue: k independent votes per item, leases that expire, gold items mixed in.

Each annotator is served items in their own seeded shuffled order (:meth:`Store.queue_rank`), not
by run or recording time, so the attack items of NatLog and of the peer systems recorded beside it
are interleaved and neither order nor position tells an annotator which system made an item.

Gold items are source pairs (P, H) of the attacks. So that nobody judges an H* right after its H
(or H right after H*), a gold item is served only when its premise is not that of an attack item
among the annotator's last :data:`WINDOW` items or the next :data:`WINDOW` in their order, and an
attack item is held back while a gold item with its premise is among the annotator's last
:data:`WINDOW` (served later, or, when every open item is held back, at once).

An attack item a person wrote (:mod:`engine.attack.authored`) is never served to its author.

An attack item needs k votes; when its k votes tie, it needs one more vote at
a time until the tie breaks. A served item is leased to the annotator for
``Store.lease_s`` seconds; a live lease holds one of the item's open slots,
an expired one releases it. Every read-decide-write step runs inside one
``BEGIN IMMEDIATE`` transaction, so concurrent annotators never overfill an item.
"""

from __future__ import annotations

from datetime import timedelta

from annotations.records import Fluency, NLILabel, Progress, QueueItem
from annotations.store import Store, iso
from engine.attack.authored import AUTHOR_PREFIX
from engine.core.errors import InputError

# Open slots of each attack item, seen by annotator :me at time :now.
_OPEN_ITEMS = """
WITH counts AS (
    SELECT item_id, label, COUNT(*) AS c FROM judgments GROUP BY item_id, label
), tally AS (
    SELECT item_id, SUM(c) AS votes, MAX(c) AS top FROM counts GROUP BY item_id
), leaders AS (
    SELECT t.item_id, t.votes,
           (SELECT COUNT(*) FROM counts c WHERE c.item_id = t.item_id AND c.c = t.top) AS n
    FROM tally t
), held AS (
    SELECT item_id, COUNT(*) AS n FROM assignments
    WHERE expires_at > :now AND annotator_id != :me GROUP BY item_id
)
SELECT i.id, i.premise, i.hypothesis FROM items i
LEFT JOIN leaders l ON l.item_id = i.id
LEFT JOIN held h ON h.item_id = i.id
WHERE i.kind = 'attack'
  AND (:item IS NULL OR i.id = :item)
  AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.item_id = i.id AND j.annotator_id = :me)
  AND NOT EXISTS (SELECT 1 FROM skips s WHERE s.item_id = i.id AND s.annotator_id = :me)
  AND NOT EXISTS (SELECT 1 FROM attacks a JOIN runs r ON r.id = a.run_id WHERE a.id = i.attack_id
                  AND json_extract(r.config, '$.system.name') =
                      :author_prefix || (SELECT name FROM annotators WHERE id = :me))
  AND COALESCE(l.votes, 0) + COALESCE(h.n, 0) < CASE
        WHEN COALESCE(l.votes, 0) < i.k THEN i.k
        WHEN l.n > 1 THEN l.votes + 1
        ELSE l.votes END
ORDER BY queue_rank(:me, i.id), i.id
"""
#: Items on either side of a gold item that must not share its premise.
WINDOW = 20
#: Open items read per request, to find one no recent gold item rules out.
CANDIDATES = 200


def _params(store: Store, annotator_id: int, item_id: int | None = None) -> dict:
    return {"now": store.now(), "me": annotator_id, "item": item_id, "author_prefix": AUTHOR_PREFIX}


def next_item(store: Store, annotator_id: int) -> QueueItem | None:
    """The item this annotator should judge now (leased to them), or None when done."""
    with store.transaction() as db:
        now = store.now()
        held = next(db.query(
            "SELECT i.id, i.premise, i.hypothesis FROM assignments a "
            "JOIN items i ON i.id = a.item_id "
            "WHERE a.annotator_id = ? AND a.expires_at > ? ORDER BY a.assigned_at DESC, a.id DESC LIMIT 1",
            [annotator_id, now],
        ), None)
        if held is not None:
            return QueueItem(item_id=held["id"], premise=held["premise"],
                             hypothesis=held["hypothesis"])
        candidates = list(db.query(_OPEN_ITEMS + f" LIMIT {CANDIDATES}", _params(store, annotator_id)))
        if not candidates:
            return None
        recent = list(db.query(
            "SELECT i.kind, i.premise FROM judgments j JOIN items i ON i.id = j.item_id WHERE j.annotator_id = ? "
            "ORDER BY j.id DESC LIMIT ?", [annotator_id, WINDOW]))
        recent_gold = {r["premise"] for r in recent if r["kind"] == "gold"}
        row = next((c for c in candidates if c["premise"] not in recent_gold), candidates[0])
        if _gold_due(store, annotator_id):
            near = {r["premise"] for r in recent if r["kind"] == "attack"} | {c["premise"] for c in candidates[:WINDOW]}
            gold = next((g for g in db.query(
                "SELECT id, premise, hypothesis FROM items i WHERE kind = 'gold' AND NOT EXISTS "
                "(SELECT 1 FROM judgments j WHERE j.item_id = i.id AND j.annotator_id = ?) "
                "ORDER BY queue_rank(?, id), id", [annotator_id, annotator_id]) if g["premise"] not in near), None)
            row = gold or row
        expires = iso(store.clock() + timedelta(seconds=store.lease_s))
        db.execute(
            "INSERT INTO assignments (item_id, annotator_id, assigned_at, expires_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (item_id, annotator_id) "
            "DO UPDATE SET assigned_at = excluded.assigned_at, expires_at = excluded.expires_at",
            [row["id"], annotator_id, now, expires],
        )
    return QueueItem(item_id=row["id"], premise=row["premise"], hypothesis=row["hypothesis"])


def _gold_due(store: Store, annotator_id: int) -> bool:
    """Whether the next item should be gold: gold votes would trail the rate after one more vote
    (so with 10 % the 1st, 11th, 21st... item is gold: checks start with the first item)."""
    row = next(store.db.query(
        "SELECT COUNT(*) AS n, COALESCE(SUM(i.kind = 'gold'), 0) AS gold FROM judgments j "
        "JOIN items i ON i.id = j.item_id WHERE j.annotator_id = ?",
        [annotator_id],
    ))
    return row["gold"] * 100 < (row["n"] + 1) * store.gold_percent


def check_label(label: str) -> NLILabel:
    """The label as an :class:`NLILabel` (any case), or InputError naming the three allowed."""
    return NLILabel.parse(label, "label")


def check_fluency(fluency: str | None = None, not_fluent: bool | None = None) -> Fluency:
    """A vote's fluency: ``fluency`` (ok, odd or broken, any case), else from the older two-level flag
    ``not_fluent`` (True: broken, False: ok), else ok. InputError for another value, or for a flag
    that contradicts the level given with it."""
    if fluency is None:
        return Fluency.BROKEN if not_fluent else Fluency.OK
    level = Fluency.parse(fluency)
    if not_fluent is not None and (level == Fluency.BROKEN) != bool(not_fluent):
        raise InputError(f"fluency {level!r} contradicts not_fluent={bool(not_fluent)}; give only the fluency")
    return level


def submit(store: Store, annotator_id: int, item_id: int, label: str, fluency: str | None = None,
           seconds: float | None = None, source: str = "app", comment: str | None = None, *,
           not_fluent: bool | None = None) -> int:
    """Store one vote and release the lease; return the judgment id.

    In: the NLI label and how H* reads (``fluency``: ok, the default, odd or broken; the older
    ``not_fluent=True`` means broken). Out: the new judgment's id. Refused (InputError) for an
    unknown item, a label or fluency outside its values, a second vote by the same annotator, an
    item never served to them (app votes), and an item whose open slots are all taken.
    """
    label = check_label(label)
    level = check_fluency(fluency, not_fluent)
    if seconds is not None and not seconds >= 0:
        raise InputError(f"time spent must be >= 0 seconds, got {seconds!r}")
    with store.transaction() as db:
        item = next(db.query("SELECT id, kind FROM items WHERE id = ?", [item_id]), None)
        if item is None:
            raise InputError(f"unknown item {item_id}")
        if next(db.query("SELECT 1 FROM judgments WHERE item_id = ? AND annotator_id = ?",
                         [item_id, annotator_id]), None) is not None:
            raise InputError(f"duplicate vote: item {item_id} already has this annotator's vote")
        if source == "app" and next(db.query(
            "SELECT 1 FROM assignments WHERE item_id = ? AND annotator_id = ?",
            [item_id, annotator_id],
        ), None) is None:
            raise InputError(f"item {item_id} was not served to you")
        if item["kind"] == "attack" and next(
            db.query(_OPEN_ITEMS, _params(store, annotator_id, item_id)), None
        ) is None:
            raise InputError(f"item {item_id} already has all the votes it needs")
        judgment_id = db.table("judgments").insert({
            "item_id": item_id, "annotator_id": annotator_id, "label": label,
            "fluency": level.value, "not_fluent": int(level == Fluency.BROKEN), "seconds": seconds, "source": source,
            "created_at": store.now(), "comment": _comment(comment),
        }).last_pk
        assert judgment_id is not None  # set by every insert
        db.execute("DELETE FROM assignments WHERE item_id = ? AND annotator_id = ?",
                   [item_id, annotator_id])
    return int(judgment_id)


COMMENT_CHARS = 500


def _comment(comment: str | None) -> str | None:
    text = " ".join((comment or "").split())
    if len(text) > COMMENT_CHARS:
        raise InputError(f"a comment is at most {COMMENT_CHARS} characters; this one has {len(text)}")
    return text or None


def skip(store: Store, annotator_id: int, item_id: int) -> None:
    """Pass on an item served to this annotator: it is not served to them again, and its slot is
    free for someone else at once."""
    with store.transaction() as db:
        if next(db.query("SELECT 1 FROM assignments WHERE item_id = ? AND annotator_id = ?",
                         [item_id, annotator_id]), None) is None:
            raise InputError(f"item {item_id} was not served to you")
        db.execute("DELETE FROM assignments WHERE item_id = ? AND annotator_id = ?", [item_id, annotator_id])
        db.execute("INSERT OR IGNORE INTO skips (item_id, annotator_id, created_at) VALUES (?, ?, ?)",
                   [item_id, annotator_id, store.now()])


UNDO_WINDOW_S = 600


def undo_last(store: Store, annotator_id: int) -> int:
    """Take back this annotator's last vote given in the app within the last ten minutes; the item
    is leased to them again so that it comes back next. Returns the item id."""
    with store.transaction() as db:
        last = next(db.query(
            "SELECT id, item_id, created_at FROM judgments WHERE annotator_id = ? AND source = 'app' "
            "ORDER BY id DESC LIMIT 1", [annotator_id]), None)
        newest = next(db.query("SELECT MAX(id) AS id FROM judgments WHERE annotator_id = ?", [annotator_id]))["id"]
        if last is None or last["id"] != newest:
            raise InputError("there is no vote of yours to undo")
        if last["created_at"] < iso(store.clock() - timedelta(seconds=UNDO_WINDOW_S)):
            raise InputError(f"your last vote is older than {UNDO_WINDOW_S // 60} minutes and stays")
        db.execute("DELETE FROM judgments WHERE id = ?", [last["id"]])
        now = store.now()
        expires = iso(store.clock() + timedelta(seconds=store.lease_s))
        db.execute(
            "INSERT INTO assignments (item_id, annotator_id, assigned_at, expires_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (item_id, annotator_id) DO UPDATE SET assigned_at = excluded.assigned_at, "
            "expires_at = excluded.expires_at", [last["item_id"], annotator_id, now, expires])
    return int(last["item_id"])


def progress(store: Store, annotator_id: int) -> Progress:
    """Votes this annotator gave, and attack items still open to them."""
    done = next(store.db.query("SELECT COUNT(*) AS n FROM judgments WHERE annotator_id = ?",
                               [annotator_id]))["n"]
    remaining = next(store.db.query(
        f"SELECT COUNT(*) AS n FROM ({_OPEN_ITEMS})", _params(store, annotator_id)
    ))["n"]
    return Progress(done=done, remaining=remaining)
