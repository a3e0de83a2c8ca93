"""Sign-in for the app: the signed-in person's id lives in the server-side session state.

- A **sign-in link** (``?signin=ID.TOKEN``, made on the Admin page) signs its person in with one
  click; the app takes the secret out of the address bar at once.
- The session then lives in the browser as a cookie holding a signed, expiring session token
  (:func:`annotations.auth.session_token`): a reload or a link to another page keeps the sign-in,
  and it ends on sign-out, on expiry (``SESSION_TTL_S``), and when the person's token is revoked or
  re-issued. No secret stays in the URL or the browser history.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import streamlit as st

from annotations import Store
from annotations.access import AdminSession, AnnotatorSession, resume, sign_in
from annotations.auth import SESSION_TTL_S, AuthError, resume_session, session_token
from app import cached
from app.text import md_escape

SESSION_KEY = "natlog_annotator_id"
#: The cookie holding the signed session.
SESSION_COOKIE = "natlog_session"
#: The URL parameter of a sign-in link: ``ID.TOKEN``.
SIGNIN_PARAM = "signin"
#: Set after a sign-out: the browser's cookie is only dropped on its next request, so it is ignored.
SIGNED_OUT_KEY = "natlog_signed_out"
#: The signed session token of this browser session, written to the cookie on each page it shows.
COOKIE_TOKEN_KEY = "natlog_session_token"


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


def _set_cookie(value: str, max_age: int) -> None:
    """Set (or with ``max_age`` 0 drop) the session cookie in this browser, for this site only."""
    cookie = f"{SESSION_COOKIE}={value}; Path=/; Max-Age={int(max_age)}; SameSite=Strict"
    # Our own constant text and a signed token of digits, hex and dots: no data text reaches the script.
    st.html(f"<script>document.cookie = {json.dumps(cookie)};</script>", unsafe_allow_javascript=True)


def sign_out() -> None:
    st.session_state.pop(SESSION_KEY, None)
    st.session_state.pop(COOKIE_TOKEN_KEY, None)
    st.session_state[SIGNED_OUT_KEY] = True
    _set_cookie("", 0)


def start_session(store: Store, annotator_id: int) -> None:
    """Sign this person in for the browser session; the cookie keeps them signed in across reloads."""
    st.session_state[SESSION_KEY] = annotator_id
    st.session_state.pop(SIGNED_OUT_KEY, None)
    st.session_state[COOKIE_TOKEN_KEY] = session_token(store, annotator_id)
    _keep_cookie()


def _keep_cookie() -> None:
    """Write this session's cookie (again): a page that reruns at once after a sign-in still sets it."""
    token = st.session_state.get(COOKIE_TOKEN_KEY)
    if token:
        _set_cookie(token, SESSION_TTL_S)


def signin_link(annotator_id: int, token: str, page_url: str | None = None) -> str:
    """The one-click sign-in link of a person, to the Annotate page of the server ``page_url`` (the
    page being shown; default: this one) is on. Their token is inside: shown once, like the token."""
    parts = urlsplit(page_url if page_url is not None else (st.context.url or ""))
    base = f"{parts.scheme}://{parts.netloc}{parts.path.rsplit('/', 1)[0]}" if parts.netloc else ""
    return f"{base}/annotate?{SIGNIN_PARAM}={int(annotator_id)}.{token}"


def _from_link(store: Store) -> None:
    """Sign in from a sign-in link (its secret then leaves the address bar) or from the session
    cookie of an earlier visit (once per browser session)."""
    link = st.query_params.get(SIGNIN_PARAM)
    if link:
        st.query_params.pop(SIGNIN_PARAM, None)
        try:
            person, _, token = link.partition(".")
            row = next(store.db.query("SELECT name FROM annotators WHERE id = ?", [int(person)]), None)
            session = sign_in(store, row["name"] if row else "", token)
        except (AuthError, ValueError):
            st.error("This sign-in link does not work (any more): ask an admin for a new one.")
            return
        start_session(store, session.annotator.id)
        return
    if st.session_state.get(SIGNED_OUT_KEY):
        if st.context.cookies.get(SESSION_COOKIE):
            _set_cookie("", 0)  # until the browser's next request no longer carries it
        return
    if st.session_state.get(SESSION_KEY) is not None:
        return
    cookie = st.context.cookies.get(SESSION_COOKIE)
    if not cookie:
        return
    try:
        st.session_state[SESSION_KEY] = resume_session(store, cookie).id
        st.session_state[COOKIE_TOKEN_KEY] = cookie
    except AuthError as exc:
        _set_cookie("", 0)
        st.session_state[SIGNED_OUT_KEY] = True
        st.error(md_escape(str(exc)))


def signed_in(store: Store, form_key: str) -> AnnotatorSession | None:
    """The signed-in person's session, or a sign-in form (name + token) and None."""
    _from_link(store)
    annotator_id = st.session_state.get(SESSION_KEY)
    if annotator_id is not None:
        try:
            session = resume(store, annotator_id)
            _keep_cookie()
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
    left.caption(f"Signed in as **{md_escape(session.annotator.name)}** ({session.annotator.role})")
    if right.button("Sign out", key="sign-out"):
        sign_out()
        st.rerun()


def admin_session(store: Store, form_key: str) -> AdminSession:
    """The signed-in admin's session; otherwise a sign-in form or a refusal, and the page stops."""
    from annotations.auth import has_admin

    if not has_admin(store) and st.session_state.get(SESSION_KEY) is None:
        st.info("This store has no admin yet. Open the **Admin** page and create the first one with the bootstrap "
                "code the server printed on its console; then sign in here.")
    session = signed_in(store, form_key)
    if session is None:
        st.stop()
    sign_out_button(session)
    if not isinstance(session, AdminSession):
        st.error("Only admins may open this page.")
        st.stop()
    return session
