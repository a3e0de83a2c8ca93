"""Sign-in for the app: the signed-in person's session lives in the server-side session state,
re-checked at every rerun of every page.

- The browser keeps a session as an HttpOnly cookie that only the server sets and drops
  (:mod:`app.session_http`): a sign-in link (``?signin=ID.TOKEN``, made on the Admin page) is traded
  for the cookie before any page is drawn, so the secret is never in the address bar or the tab's
  history; a sign-in in a page's form hands its session to the cookie through a one-time code.
- Each rerun resumes the session from its signed token (:func:`annotations.access.resume_token`):
  signing out (anywhere), revoking or re-issuing the person's token, or expiry
  (``SESSION_TTL_S``) ends it at the next key press or click, on every page.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode, urlsplit

import streamlit as st

from annotations import Store
from annotations.access import AdminSession, AnnotatorSession, AuthorSession, resume_token, sign_in
from annotations.auth import LINK_REFUSED, AuthError, handoff_code, session_token
from app import cached
from app.session_http import REFUSED, SESSION_COOKIE, SESSION_PATH, SIGNIN_PARAM, SIGNOUT_PATH
from app.text import md_escape

#: The signed session token of this browser session (server-side session state only).
SESSION_KEY = "natlog_session_token"
#: Set after a sign-out in this tab: the cookie the tab still sends until its next page load is not
#: offered again (it no longer resumes anyway), and no "expired" message is shown for it.
SIGNED_OUT_KEY = "natlog_signed_out"


def open_store() -> Store:
    """The annotation store named by the settings (opened per script run; SQLite is cheap)."""
    settings = cached.settings()
    return Store.open(settings.db_path, settings)


def current_role() -> str | None:
    """The signed-in person's role (``annotator`` or ``admin``), or None when nobody is signed in."""
    with open_store() as store:
        session = _resumed(store)
        if session is None:
            return None
        try:
            return session.annotator.role
        except AuthError:
            return None


def _go(path: str, **params: str) -> None:
    """Send the browser to a path of this site (a page load, so the server's reply sets or drops
    the cookie). Our own constant paths and URL-encoded codes: no data text reaches the script."""
    target = path + (f"?{urlencode(params)}" if params else "")
    st.html(f"<script>window.location.replace({json.dumps(target)});</script>", unsafe_allow_javascript=True)


def _page_path() -> str:
    """The path of the page being shown (``/annotate``), to come back to after a redirect."""
    path = urlsplit(st.context.url or "").path
    return path if path.startswith("/") and not path.startswith("//") else "/"


def start_session(store: Store, annotator_id: int, remember: bool = True) -> None:
    """Sign this person in for the tab; with ``remember``, hand the session to the browser's
    HttpOnly cookie (a page load through the server's session endpoint) so that reloads keep it."""
    token = session_token(store, annotator_id)
    st.session_state[SESSION_KEY] = token
    st.session_state.pop(SIGNED_OUT_KEY, None)
    if remember:
        _go(SESSION_PATH, code=handoff_code(store, token), next=_page_path())


#: Set by the Sign out button: the next run sends the browser to the server to drop the cookie.
SIGNING_OUT_KEY = "natlog_signing_out"


def _sign_out_clicked() -> None:
    """The Sign out button's callback (before the page is drawn again): end the person's sessions
    everywhere in the store, forget this tab's, and have the next run drop the cookie."""
    token = st.session_state.pop(SESSION_KEY, None)
    if token:
        with open_store() as store:
            try:
                resume_token(store, token).sign_out()
            except AuthError:
                pass  # already ended
    st.session_state[SIGNED_OUT_KEY] = True
    st.session_state[SIGNING_OUT_KEY] = True


def _resumed(store: Store) -> AnnotatorSession | None:
    """This tab's session, re-checked now; None (with a one-line reason) when it has ended."""
    token = st.session_state.get(SESSION_KEY)
    if token is None and not st.session_state.get(SIGNED_OUT_KEY):
        token = st.context.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    try:
        session = resume_token(store, token)
    except AuthError as exc:
        st.session_state.pop(SESSION_KEY, None)
        st.session_state[SIGNED_OUT_KEY] = True
        st.error(md_escape(str(exc)))
        return None
    st.session_state[SESSION_KEY] = token
    return session


def signin_link(annotator_id: int, token: str, page_url: str | None = None) -> str:
    """The one-click sign-in link of a person, to the Annotate page of the server ``page_url`` (the
    page being shown; default: this one) is on. Their token is inside: shown once, like the token."""
    parts = urlsplit(page_url if page_url is not None else (st.context.url or ""))
    base = f"{parts.scheme}://{parts.netloc}{parts.path.rsplit('/', 1)[0]}" if parts.netloc else ""
    return f"{base}/annotate?{SIGNIN_PARAM}={int(annotator_id)}.{token}"


def signed_in(store: Store, form_key: str) -> AnnotatorSession | None:
    """The signed-in person's session (re-checked at every rerun), or a sign-in form (name + token) and None."""
    if st.query_params.get(SIGNIN_PARAM) == REFUSED:
        st.query_params.pop(SIGNIN_PARAM, None)
        st.error(LINK_REFUSED)
    if st.session_state.pop(SIGNING_OUT_KEY, False):
        _go(SIGNOUT_PATH, next=_page_path())
    session = _resumed(store)
    if session is not None:
        return session
    slot = st.empty()  # the form goes once the person is signed in
    with slot.form(form_key):
        name = st.text_input("Name")
        token = st.text_input("Access token", type="password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if not submitted:
        return None
    try:
        person = sign_in(store, name, token).annotator
    except AuthError as exc:
        st.error(md_escape(str(exc)))
        return None
    slot.empty()
    start_session(store, person.id)
    return _resumed(store)


def sign_out_button(session: AnnotatorSession) -> None:
    """Who is signed in, and a button to sign out."""
    left, right = st.columns([4, 1])
    # A name is letters, digits and _.@+- (annotations.auth.check_name): a code span shows it as typed.
    left.caption(f"Signed in as `{session.annotator.name}` ({session.annotator.role})")
    right.button("Sign out", key="sign-out", on_click=_sign_out_clicked)


def admin_session(store: Store, form_key: str) -> AdminSession:
    """The signed-in admin's session; otherwise a sign-in form or a refusal, and the page stops."""
    from annotations.auth import has_admin

    if not has_admin(store) and SESSION_KEY not in st.session_state:
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


def author_session(store: Store, form_key: str) -> AuthorSession:
    """The signed-in author's (or admin's) session; otherwise a sign-in form or a refusal, and the
    page stops."""
    session = signed_in(store, form_key)
    if session is None:
        st.caption("Sign in with the name and access token your study's admin gave you as an author.")
        st.stop()
    sign_out_button(session)
    if not isinstance(session, AuthorSession):
        st.error("Only authors and admins may write attacks: ask your study's admin for an author account.")
        st.stop()
    return session


def resumed_author(store: Store) -> AuthorSession:
    """This tab's author session on ``store``, re-checked now (no form drawn): AuthError once it has
    ended or the person may not write."""
    session = _resumed(store)
    if not isinstance(session, AuthorSession):
        raise AuthError("your session has ended or may not write attacks: sign in again")
    return session
