"""What a signed-in person may do. The app reaches the store only through these sessions.

An :class:`AnnotatorSession` sees its own queue, progress and votes, and
nothing about the victim, the target label or other people's votes. An
:class:`AdminSession` also manages annotators and reads results. Every call
re-checks the sign-in: a session resumed from a signed session token
(:func:`resume_token`, as the app's are) ends at its next call once the person
signs out anywhere, or their token is revoked or re-issued.
"""

from __future__ import annotations

from dataclasses import replace

from annotations import assignment, auth
from annotations.aggregation import agreement, hvasr, item_results, open_items, resolution_warning
from annotations.export import export_rows
from annotations.records import (
    AgreementReport,
    Annotator,
    HvasrRow,
    ItemResult,
    Judgment,
    OpenItem,
    Progress,
    QueueItem,
    StoredAttack,
)
from annotations.store import Store, check_k
from engine.attack.authored import AuthoredRun, author_system
from engine.core.errors import InputError
from engine.store.records import AttackRecord


class AnnotatorSession:
    """A signed-in annotator: their own queue and votes only."""

    def __init__(self, store: Store, annotator: Annotator, session_token: str | None = None) -> None:
        self._store = store
        self._annotator_id = annotator.id
        self._session_token = session_token

    @property
    def annotator(self) -> Annotator:
        """The signed-in person, re-read (AuthError once revoked or signed out)."""
        return self._check()

    @property
    def session_token(self) -> str | None:
        """The signed session this one was resumed from (None for a name-and-token sign-in)."""
        return self._session_token

    def _check(self) -> Annotator:
        if self._session_token is None:
            return auth.active_annotator(self._store, self._annotator_id)
        person = auth.resume_session(self._store, self._session_token)
        if person.id != self._annotator_id:
            raise auth.AuthError(auth.SESSION_EXPIRED)
        return person

    def sign_out(self) -> None:
        """End every session of this person, here and in every other browser."""
        auth.end_sessions(self._store, self._check().id)

    def next_item(self) -> QueueItem | None:
        """The item to judge now (premise and H* only), or None when the queue is empty."""
        return assignment.next_item(self._store, self._check().id)

    def submit(self, item_id: int, label: str, fluency: str | None = None,
               seconds: float | None = None, comment: str | None = None, *,
               not_fluent: bool | None = None) -> int:
        """Vote on an item that was served to this annotator: its label, how its hypothesis reads
        (``fluency``: ok by default, odd or broken; ``not_fluent=True`` is the older spelling of
        broken) and an optional comment."""
        return assignment.submit(self._store, self._check().id, item_id, label, fluency,
                                 seconds, comment=comment, not_fluent=not_fluent)

    def skip(self, item_id: int) -> None:
        """Pass on the item served now; it is not served to this annotator again."""
        assignment.skip(self._store, self._check().id, item_id)

    def undo_last(self) -> int:
        """Take back the last vote (within ten minutes); its item comes back next."""
        return assignment.undo_last(self._store, self._check().id)

    def progress(self) -> Progress:
        return assignment.progress(self._store, self._check().id)

    def study_complete(self) -> bool:
        """Whether every attack item of the study has all the votes it needs (resolved), so that an
        annotator with an empty queue can be told the study is done, not only their part."""
        self._check()
        return all(r.state == "resolved" for r in item_results(self._store).values())


class AuthorSession(AnnotatorSession):
    """A signed-in author: judges the others' items as an annotator does, and writes attacks against
    the victim (:mod:`engine.attack.authored`) that enter the same blind queue, never served back to
    them. Their own submissions only: nothing about other people's votes."""

    def _check(self) -> Annotator:
        person = super()._check()
        if not person.may_write:
            raise auth.AuthError("only authors and admins may write attacks")
        return person

    def submit_attack(self, run: AuthoredRun, record: AttackRecord) -> int:
        """Store an authored attack (``record``, numbered here) in the author's ``run`` (created on
        the first submission; its system must be this author's), in one transaction with its
        annotation item when it fooled the victim; returns the attack id."""
        person = self._check()
        if run.config.get("system", {}).get("name") != author_system(person.name):
            raise auth.AuthError(f"a submission of {person.name} goes into their own run, not {run.name!r}")
        stored = self._store.start_run(run.name, run.setup, run.victim, run.data_path, run.data_format, 0, run.config)
        with self._store.transaction() as db:
            # numbered within the run; the UNIQUE (run, pair index) of the store refuses a race
            row = next(db.query("SELECT COALESCE(MAX(p.pair_index) + 1, 0) AS n FROM pairs p WHERE p.run_id = ?",
                                [stored.id]))
        return self._store.record_attack(stored.id, replace(record, pair_index=int(row["n"])))

    def authored(self) -> list[StoredAttack]:
        """This author's submitted attacks, newest first."""
        system = author_system(self._check().name)
        runs = [r.id for r in self._store.runs() if r.system == system]
        found = [a for run_id in runs for a in self._store.attacks(run_id, with_trace=False)]
        return sorted(found, key=lambda a: a.id, reverse=True)


class AdminSession(AuthorSession):
    """A signed-in admin: annotators, everyone's votes, agreement, HVASR, export; an admin may also
    write attacks."""

    def _check(self) -> Annotator:
        person = AnnotatorSession._check(self)  # signed in; an admin may write too, so no author check first
        if not person.is_admin:
            raise auth.AuthError("only admins may do this")
        return person

    def add_annotator(self, name: str, role: str = "annotator") -> str:
        """Create an annotator; returns the token, which is shown once."""
        self._check()
        return auth.add_annotator(self._store, name, role)

    def revoke(self, name: str) -> None:
        self._check()
        auth.revoke(self._store, name)

    def reissue_token(self, name: str) -> str:
        """A new token for ``name`` (shown once); the old one stops signing in."""
        self._check()
        return auth.reissue_token(self._store, name)

    def annotators(self) -> list[Annotator]:
        self._check()
        return auth.annotators(self._store)

    def judgments(self, annotator_id: int | None = None) -> list[Judgment]:
        """Everyone's votes (or one person's)."""
        self._check()
        return _judgments(self._store, annotator_id)

    def item_results(self) -> dict[int, ItemResult]:
        self._check()
        return item_results(self._store)

    def agreement(self) -> AgreementReport:
        self._check()
        return agreement(self._store)

    def open_items(self) -> list[OpenItem]:
        """Items not resolved yet with their pair text, stuck ones first (:func:`aggregation.open_items`)."""
        self._check()
        return open_items(self._store)

    def hvasr(self, group: str = "run") -> list[HvasrRow]:
        self._check()
        return hvasr(self._store, group)

    def resolution_warning(self) -> str | None:
        self._check()
        return resolution_warning(self._store)

    @property
    def k(self) -> int:
        """Judgments each item needs in this study (``annotations_k``, or what an admin set)."""
        return self._store.k

    def set_k(self, k: int) -> None:
        """Judgments per item for this study (>= 1); refused while fewer annotators are active."""
        self._check()
        check_k(k)
        active = next(self._store.db.query(
            "SELECT COUNT(*) AS n FROM annotators WHERE role IN ('annotator', 'author') AND revoked_at IS NULL"))["n"]
        if k > active:
            raise InputError(f"k = {k} needs at least {k} active annotators and the study has {active}: "
                             "no item could ever resolve. Add annotators first, or choose a smaller k.")
        self._store.set_k(k)

    def export_rows(self, run_name: str | None = None) -> list[dict]:
        self._check()
        return export_rows(self._store, run_name)


def _session_class(person: Annotator) -> type[AnnotatorSession]:
    return AdminSession if person.is_admin else AuthorSession if person.may_write else AnnotatorSession


def sign_in(store: Store, name: str, token: str) -> AnnotatorSession:
    """A session for the person whose name and token match (AdminSession for admins, AuthorSession
    for authors)."""
    person = auth.authenticate(store, name, token)
    return _session_class(person)(store, person)


def resume_token(store: Store, session_token: str) -> AnnotatorSession:
    """The session a signed session token stands for (:func:`auth.session_token`), re-checked on
    every call; AuthError when it no longer resumes."""
    person = auth.resume_session(store, session_token)
    return _session_class(person)(store, person, session_token)


def resume(store: Store, annotator_id: int) -> AnnotatorSession:
    """The session of someone already signed in (the app keeps their id server-side);
    AuthError once their token is revoked."""
    person = auth.active_annotator(store, annotator_id)
    return _session_class(person)(store, person)


def writer(session: AnnotatorSession) -> "AuthorSession":
    """``session`` as one that may write attacks (authors and admins), or AuthError."""
    if not isinstance(session, AuthorSession):
        raise auth.AuthError("only authors and admins may write attacks")
    session._check()  # re-checked now: revoked, signed out or no longer an author
    return session


def _judgments(store: Store, annotator_id: int | None) -> list[Judgment]:
    where, params = ("", []) if annotator_id is None else ("WHERE j.annotator_id = ?",
                                                             [annotator_id])
    rows = store.db.query(
        "SELECT j.id, j.item_id, j.annotator_id, a.name AS annotator, j.label, j.fluency, "
        f"j.seconds, j.source, j.created_at FROM judgments j "
        f"JOIN annotators a ON a.id = j.annotator_id {where} ORDER BY j.id",
        params,
    )
    return [Judgment(**row) for row in rows]
