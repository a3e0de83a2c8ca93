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
        if next(db.query("SELECT 1 FROM annotators WHERE name = ?", [name]), None):
            raise InputError(f"an annotator named {name!r} already exists")
        db.table("annotators").insert({
            "name": name, "role": role, "token_hash": token_hash, "source": "local",
            "created_at": store.now(), "revoked_at": None,
        })
    return token


def reissue_token(store: Store, name: str) -> str:
    """A new token for an existing local annotator or admin (revoked or not), returned once: the
    old token stops signing in, and a revoked person is active again. Revoke first to also end
    the sessions opened with the old token. Imported crowd workers have no sign-in."""
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


#: How long a sign-in link (``?session=...``) keeps a person signed in across reloads.
SESSION_TTL_S = 12 * 3600
SESSION_EXPIRED = "your sign-in has expired or was revoked; sign in again"


def _app_key(store: Store) -> bytes:
    """The store's secret for signing sessions, made on first use (kept in the store file)."""
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


def session_token(store: Store, annotator_id: int, ttl_s: int = SESSION_TTL_S) -> str:
    """A signed, expiring session for a signed-in person (put in the URL, so reloads and copied
    links keep them signed in until it expires, their token is re-issued or revoked, or they sign out)."""
    row = next(store.db.query("SELECT token_hash FROM annotators WHERE id = ? AND revoked_at IS NULL",
                              [annotator_id]), None)
    if row is None or not row["token_hash"]:
        raise AuthError(SESSION_EXPIRED)
    payload = f"{annotator_id}.{int(store.clock().timestamp()) + ttl_s}"
    return f"{payload}.{_signature(store, payload, row['token_hash'])}"


def resume_session(store: Store, token: str) -> Annotator:
    """The person a session token names, if it is genuine, unexpired and their token still
    stands; AuthError otherwise (one message for every failure)."""
    try:
        annotator_id, expires, signature = token.strip().split(".")
        person, deadline = int(annotator_id), int(expires)
    except ValueError:
        raise AuthError(SESSION_EXPIRED) from None
    row = next(store.db.query("SELECT * FROM annotators WHERE id = ?", [person]), None)
    if (row is None or not row["token_hash"] or row["revoked_at"] is not None
            or deadline < store.clock().timestamp()
            or not hmac.compare_digest(signature, _signature(store, f"{person}.{deadline}", row["token_hash"]))):
        raise AuthError(SESSION_EXPIRED)
    return _annotator(row)
