"""Annotators and their access tokens: random tokens, stored only as salted argon2 hashes."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from annotations.records import ROLES, Annotator
from annotations.store import Store
from engine.core.errors import InputError

# Tokens carry 192 random bits, so moderate argon2id costs are plenty.
_HASHER = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)
# Verified against when the name is unknown, so both failures cost the same time.
_DUMMY_HASH = _HASHER.hash(secrets.token_urlsafe(24))
_NAME = re.compile(r"^[\w.@+-]{1,64}$")
SIGN_IN_FAILED = "sign-in failed: unknown name or wrong token"


class AuthError(InputError):
    """Sign-in failed, or the signed-in person may not do this."""


def _annotator(row: dict) -> Annotator:
    return Annotator(id=row["id"], name=row["name"], role=row["role"],
                     created_at=row["created_at"], revoked_at=row["revoked_at"],
                     source=row["source"])


def check_name(name: str) -> str:
    """A valid annotator name (letters, digits, ``_.@+-``; at most 64) or InputError."""
    name = name.strip()
    if not _NAME.match(name):
        raise InputError(f"annotator name {name!r} must be 1-64 letters, digits or _.@+-")
    return name


def add_annotator(store: Store, name: str, role: str = "annotator") -> str:
    """Create an annotator and return their token (shown once; only its hash is stored)."""
    name = check_name(name)
    if role not in ROLES:
        raise InputError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    token = secrets.token_urlsafe(24)
    token_hash = _HASHER.hash(token)
    with store.transaction() as db:
        same = next(db.query("SELECT name FROM annotators WHERE lower(name) = lower(?)", [name]), None)
        if same is not None:  # "alice" and "ALICE" would be one person to every reader
            raise InputError(f"an annotator named {same['name']!r} already exists (names ignore case)")
        db.table("annotators").insert({
            "name": name, "role": role, "token_hash": token_hash, "source": "local",
            "created_at": store.now(), "revoked_at": None,
        })
    return token


def reissue_token(store: Store, name: str) -> str:
    """A new token for an existing local annotator or admin (revoked or not), returned once: the
    old token stops signing in, every session opened with it ends at its next request, and a revoked
    person is active again. Imported crowd workers have no sign-in."""
    token = secrets.token_urlsafe(24)
    with store.transaction() as db:
        row = next(db.query("SELECT source FROM annotators WHERE name = ?", [name.strip()]), None)
        if row is None:
            raise InputError(f"no annotator named {name.strip()!r}")
        if row["source"] != "local":
            raise InputError(f"{name.strip()!r} was imported from a crowd batch and has no sign-in")
        db.execute("UPDATE annotators SET token_hash = ?, revoked_at = NULL WHERE name = ?",
                   [_HASHER.hash(token), name.strip()])
    return token


BOOTSTRAP_KEY = "bootstrap"
BOOTSTRAP_REFUSED = ("the bootstrap code is wrong or used up: the server prints a new one on its console "
                     "when it starts, or run `python -m annotations bootstrap-code`")


def _bootstrap_digest(code: str) -> str:
    return hashlib.sha256(code.strip().encode()).hexdigest()


def issue_bootstrap_code(store: Store) -> str:
    """A new one-time code that lets whoever holds it create the first admin (as Jupyter's start-up
    token: the server prints it on its console, so only someone at the machine can read it). Only
    its hash is stored; a new code replaces the last. Refused once the store has an admin."""
    code = "-".join(secrets.token_hex(3) for _ in range(3))
    with store.transaction() as db:
        if has_admin(store):
            raise AuthError("this store already has an admin; ask them for an account")
        db.execute("INSERT INTO app_keys (name, value) VALUES (?, ?) "
                   "ON CONFLICT (name) DO UPDATE SET value = excluded.value", [BOOTSTRAP_KEY, _bootstrap_digest(code)])
    return code


def bootstrap_admin(store: Store, name: str, code: str) -> str:
    """Create the first admin of an empty store with the one-time ``code`` (:func:`issue_bootstrap_code`)
    and return their token; refused once an admin exists, and without the right code (used once)."""
    with store.transaction() as db:
        if has_admin(store):
            raise AuthError("this store already has an admin; ask them for an account")
        row = next(db.query("SELECT value FROM app_keys WHERE name = ?", [BOOTSTRAP_KEY]), None)
        if row is None or not code.strip() or not hmac.compare_digest(str(row["value"]), _bootstrap_digest(code)):
            raise AuthError(BOOTSTRAP_REFUSED)
        token = add_annotator(store, name, "admin")
        db.execute("DELETE FROM app_keys WHERE name = ?", [BOOTSTRAP_KEY])
        return token


def has_admin(store: Store) -> bool:
    """Whether any admin that is not revoked exists."""
    query = "SELECT 1 FROM annotators WHERE role = 'admin' AND revoked_at IS NULL"
    return next(store.db.query(query), None) is not None


def revoke(store: Store, name: str) -> None:
    """Revoke an annotator's token; their votes stay."""
    with store.transaction() as db:
        cursor = db.execute(
            "UPDATE annotators SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
            [store.now(), name],
        )
        if cursor.rowcount == 0:
            raise InputError(f"no active annotator named {name!r}")


def annotators(store: Store) -> list[Annotator]:
    return [_annotator(row) for row in store.db.query("SELECT * FROM annotators ORDER BY id")]


def active_annotator(store: Store, annotator_id: int) -> Annotator:
    """The annotator, or AuthError when revoked or gone (checked on every session call)."""
    row = next(store.db.query("SELECT * FROM annotators WHERE id = ?", [annotator_id]), None)
    if row is None or row["revoked_at"] is not None or row["token_hash"] is None:
        raise AuthError("your access has been revoked; ask an admin for a new token")
    return _annotator(row)


def authenticate(store: Store, name: str, token: str) -> Annotator:
    """The annotator whose name and token match; one identical error for every failure."""
    row = next(store.db.query("SELECT * FROM annotators WHERE name = ?", [name.strip()]), None)
    stored = row["token_hash"] if row is not None and row["token_hash"] else _DUMMY_HASH
    try:
        _HASHER.verify(stored, token.strip())
        verified = True
    except (VerificationError, InvalidHashError):
        verified = False
    if not verified or row is None or row["token_hash"] is None or row["revoked_at"] is not None:
        raise AuthError(SIGN_IN_FAILED)
    return _annotator(row)


#: How long a session (the browser's cookie after a sign-in) lasts at most.
SESSION_TTL_S = 12 * 3600
SESSION_EXPIRED = "your sign-in has expired or was revoked; sign in again"
#: How long the one-time code that hands a session to the browser's cookie is good for.
HANDOFF_TTL_S = 60


def _app_key(store: Store) -> bytes:
    """The store's secret for signing sessions, made on first use (kept in the store file). Read
    without a write transaction once it exists: every call of a resumed session checks a signature."""
    found = next(store.db.query("SELECT value FROM app_keys WHERE name = 'session'"), None)
    if found is not None:
        return str(found["value"]).encode()
    with store.transaction() as db:
        row = next(db.query("SELECT value FROM app_keys WHERE name = 'session'"), None)
        if row is None:
            value = secrets.token_hex(32)
            db.execute("INSERT INTO app_keys (name, value) VALUES ('session', ?)", [value])
            return value.encode()
    return str(row["value"]).encode()


def _signature(store: Store, payload: str, token_hash: str) -> str:
    # The token's hash is signed too: re-issuing or revoking a token ends its sessions.
    return hmac.new(_app_key(store), f"{payload}.{token_hash}".encode(), hashlib.sha256).hexdigest()[:40]


def _now_ms(store: Store) -> int:
    return int(store.clock().timestamp() * 1000)


def _generation_key(annotator_id: int) -> str:
    return f"sessions:{int(annotator_id)}"


def _generation(store: Store, annotator_id: int) -> int:
    """How many times the person signed out: a session carries the count it was issued under."""
    row = next(store.db.query("SELECT value FROM app_keys WHERE name = ?", [_generation_key(annotator_id)]), None)
    return int(row["value"]) if row is not None else 0


def session_token(store: Store, annotator_id: int, ttl_s: int = SESSION_TTL_S) -> str:
    """A signed, expiring session for a signed-in person: ``ID.GENERATION.EXPIRES.SIGNATURE``
    (expiry in milliseconds). It stands until it expires, their token is re-issued or revoked, or
    they sign out anywhere (:func:`end_sessions`), whichever comes first; :func:`resume_session`
    checks all four."""
    row = next(store.db.query("SELECT token_hash FROM annotators WHERE id = ? AND revoked_at IS NULL",
                              [annotator_id]), None)
    if row is None or not row["token_hash"]:
        raise AuthError(SESSION_EXPIRED)
    payload = f"{int(annotator_id)}.{_generation(store, annotator_id)}.{_now_ms(store) + ttl_s * 1000}"
    return f"{payload}.{_signature(store, payload, row['token_hash'])}"


def resume_session(store: Store, token: str) -> Annotator:
    """The person a session token names, if it is genuine, unexpired, issued since their last
    sign-out, and their token still stands; AuthError otherwise (one message for every failure)."""
    try:
        annotator_id, generation_text, expires_ms, signature = token.strip().split(".")
        person, generation, deadline = int(annotator_id), int(generation_text), int(expires_ms)
    except ValueError:
        raise AuthError(SESSION_EXPIRED) from None
    row = next(store.db.query("SELECT * FROM annotators WHERE id = ?", [person]), None)
    if (row is None or not row["token_hash"] or row["revoked_at"] is not None
            or deadline < _now_ms(store) or generation != _generation(store, person)
            or not hmac.compare_digest(signature, _signature(store, f"{person}.{generation}.{deadline}",
                                                             row["token_hash"]))):
        raise AuthError(SESSION_EXPIRED)
    return _annotator(row)


def end_sessions(store: Store, annotator_id: int) -> None:
    """Sign a person out everywhere: every session issued to them until now stops resuming, in
    every browser and tab, at its next request (a sign-out; revoking and re-issuing a token do the
    same through the token's hash)."""
    with store.transaction() as db:
        db.execute("INSERT INTO app_keys (name, value) VALUES (?, '1') "
                   "ON CONFLICT (name) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
                   [_generation_key(annotator_id)])


LINK_REFUSED = "This sign-in link does not work (any more): ask an admin for a new one."


def link_session(store: Store, link: str) -> str:
    """The session a sign-in link's ``ID.TOKEN`` opens (its person's token checked as at the
    sign-in form); AuthError with :data:`LINK_REFUSED` for any link that does not sign in."""
    person, _, token = link.strip().partition(".")
    try:
        row = next(store.db.query("SELECT name FROM annotators WHERE id = ?", [int(person)]), None)
        annotator = authenticate(store, row["name"] if row else "", token)
    except (AuthError, ValueError):
        raise AuthError(LINK_REFUSED) from None
    return session_token(store, annotator.id)


def _handoff_key(code: str) -> str:
    return "handoff:" + hashlib.sha256(code.strip().encode()).hexdigest()


def handoff_code(store: Store, session: str) -> str:
    """A one-time code, good for :data:`HANDOFF_TTL_S`, that the server's session endpoint trades
    for ``session`` in an HttpOnly cookie (a page script cannot set one): the way a sign-in made
    in a page reaches the browser's cookie without the session itself passing through a URL."""
    code = secrets.token_urlsafe(24)
    now = _now_ms(store)
    with store.transaction() as db:
        for row in list(db.query("SELECT name, value FROM app_keys WHERE name LIKE 'handoff:%'")):
            if int(str(row["value"]).split(" ", 1)[0]) < now:
                db.execute("DELETE FROM app_keys WHERE name = ?", [row["name"]])
        db.execute("INSERT INTO app_keys (name, value) VALUES (?, ?)",
                   [_handoff_key(code), f"{now + HANDOFF_TTL_S * 1000} {session}"])
    return code


def redeem_handoff(store: Store, code: str) -> str:
    """The session a :func:`handoff_code` stands for, once (the code is used up), while the code is
    fresh and the session still resumes; AuthError otherwise."""
    with store.transaction() as db:
        row = next(db.query("SELECT value FROM app_keys WHERE name = ?", [_handoff_key(code)]), None)
        if row is None:
            raise AuthError(SESSION_EXPIRED)
        db.execute("DELETE FROM app_keys WHERE name = ?", [_handoff_key(code)])
    deadline, _, session = str(row["value"]).partition(" ")
    if int(deadline) < _now_ms(store):
        raise AuthError(SESSION_EXPIRED)
    resume_session(store, session)
    return session
