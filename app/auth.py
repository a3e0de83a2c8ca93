"""Token sign-in for the app: the signed-in person's id lives in the server-side session state."""

from __future__ import annotations

import streamlit as st

from annotations import Store
from annotations.access import AdminSession, AnnotatorSession, resume, sign_in
from annotations.auth import AuthError, resume_session, session_token
from app import cached
from app.text import md_escape

SESSION_KEY = "natlog_annotator_id"
#: The URL parameter holding the signed session (a reload or a copied link keeps the sign-in).
SESSION_PARAM = "session"


def open_store() -> Store:
    """The annotation store named by the settings (opened per script run; SQLite is cheap)."""
    settings = cached.settings()
    return Store.open(settings.db_path, settings)


def current_role() -> str | None:
    """The signed-in person's role (``annotator`` or ``admin``), or None when nobody is signed in."""
    try:
        with open_store() as store:
            _from_link(store)
            annotator_id = st.session_state.get(SESSION_KEY)
            if annotator_id is None:
                return None
            return resume(store, annotator_id).annotator.role
    except AuthError:
        return None


def sign_out() -> None:
    st.session_state.pop(SESSION_KEY, None)
    st.query_params.pop(SESSION_PARAM, None)


def start_session(store: Store, annotator_id: int) -> None:
    """Sign this person in for the browser session, with a signed link that survives reloads."""
    st.session_state[SESSION_KEY] = annotator_id
    st.query_params[SESSION_PARAM] = session_token(store, annotator_id)


def _from_link(store: Store) -> None:
    """Sign in from the URL's signed session after a reload or from a link (once per session)."""
    token = st.query_params.get(SESSION_PARAM)
    if not token or st.session_state.get(SESSION_KEY) is not None:
        return
    try:
        st.session_state[SESSION_KEY] = resume_session(store, token).id
    except AuthError as exc:
        st.query_params.pop(SESSION_PARAM, None)
        st.error(md_escape(str(exc)))


def signed_in(store: Store, form_key: str) -> AnnotatorSession | None:
    """The signed-in person's session, or a sign-in form (name + token) and None."""
    _from_link(store)
    annotator_id = st.session_state.get(SESSION_KEY)
    if annotator_id is not None:
        try:
            session = resume(store, annotator_id)
            if SESSION_PARAM not in st.query_params:  # page changes drop it; reloads need it
                st.query_params[SESSION_PARAM] = session_token(store, annotator_id)
            return session
        except AuthError as exc:
            sign_out()
            st.error(md_escape(str(exc)))
    with st.form(form_key):
        name = st.text_input("Name")
        token = st.text_input("Access token", type="password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if not submitted:
        return None
    try:
        session = sign_in(store, name, token)
    except AuthError as exc:
        st.error(md_escape(str(exc)))
        return None
    start_session(store, session.annotator.id)
    st.rerun()


def sign_out_button(session: AnnotatorSession) -> None:
    """Who is signed in, and a button to sign out."""
    left, right = st.columns([4, 1])
    left.caption(f"Signed in as **{session.annotator.name}** ({session.annotator.role})")
    if right.button("Sign out", key="sign-out"):
        sign_out()
        st.rerun()


def admin_session(store: Store, form_key: str) -> AdminSession:
    """The signed-in admin's session; otherwise a sign-in form or a refusal, and the page stops."""
    session = signed_in(store, form_key)
    if session is None:
        st.stop()
    sign_out_button(session)
    if not isinstance(session, AdminSession):
        st.error("Only admins may open this page.")
        st.stop()
    return session
