"""Annotators and their access tokens: random tokens, stored only as salted argon2 hashes."""

from __future__ import annotations

import re
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from annotations.records import ROLES, Annotator
from annotations.store import Store
from engine.errors import InputError

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


def bootstrap_admin(store: Store, name: str) -> str:
    """Create the first admin of an empty store and return the token; refused once one exists."""
    with store.transaction():
        if has_admin(store):
            raise AuthError("this store already has an admin; ask them for an account")
        return add_annotator(store, name, "admin")


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
