"""The sign-in exchange over HTTP, before any page is drawn (served by :mod:`app.server`).

A browser session is an HttpOnly cookie that only the server sets and drops; page scripts never see
it. Three ways in and one way out:

- **A sign-in link** (``/annotate?signin=ID.TOKEN``, made on the Admin page): the middleware checks
  it and answers ``303 See Other`` to the same page without the secret, setting the cookie. The
  link's address never becomes a page, so it is in neither the address bar nor the tab's history
  (Back cannot return to it). A link that does not sign in redirects to ``?signin=refused``.
- **The sign-in form and the first-admin form** sign in inside the page, which then sends the
  browser to ``/natlog/session?code=...`` with a one-time code (:func:`annotations.auth.handoff_code`,
  good for a minute, used once); the endpoint sets the cookie and redirects back.
- **Sign out** ends every session of the person in the store first (the page calls
  :meth:`annotations.access.AnnotatorSession.sign_out`), then sends the browser to
  ``/natlog/signout``, which drops the cookie.

The cookie is ``HttpOnly; SameSite=Strict; Path=/`` and ``Secure`` when the request came over HTTPS
(directly, or as a reverse proxy says in ``X-Forwarded-Proto``). Every redirect carries
``Cache-Control: no-store`` and ``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from annotations import Store
from annotations.auth import SESSION_TTL_S, AuthError, link_session, redeem_handoff
from engine.api import get_settings

#: The cookie holding the signed session.
SESSION_COOKIE = "natlog_session"
#: The URL parameter of a sign-in link (``ID.TOKEN``); ``refused`` after a link that did not sign in.
SIGNIN_PARAM = "signin"
REFUSED = "refused"
SESSION_PATH = "/natlog/session"
SIGNOUT_PATH = "/natlog/signout"


def _open_store() -> Store:
    settings = get_settings()
    return Store.open(settings.db_path, settings)


def local_path(value: str | None) -> str:
    """``value`` when it is a path on this site (``/annotate``), else ``/``: a redirect target
    taken from a request never leads off the site (``//evil.example``, ``https://...``, ``\\\\``)."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value or "\n" in value:
        return "/"
    return value


def _secure(request: Request) -> bool:
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def _redirect(request: Request, target: str, session: str | None) -> Response:
    """303 to ``target``, setting the session cookie (``session``), or dropping it (``""``), or
    leaving it (None)."""
    response = RedirectResponse(target, status_code=303)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    if session is not None:
        response.set_cookie(SESSION_COOKIE, session, max_age=SESSION_TTL_S if session else 0, path="/",
                            httponly=True, samesite="strict", secure=_secure(request))
    return response


def _link_signin(link: str) -> str:
    with _open_store() as store:
        return link_session(store, link)


def _redeem(code: str) -> str:
    with _open_store() as store:
        return redeem_handoff(store, code)


class SignInLinkMiddleware:
    """Trades a sign-in link for the session cookie before the page is served (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        link = request.query_params.get(SIGNIN_PARAM)
        if not link or link == REFUSED:
            await self.app(scope, receive, send)
            return
        rest = [(k, v) for k, v in request.query_params.multi_items() if k != SIGNIN_PARAM]
        path = local_path(request.url.path)
        try:
            session: str | None = await run_in_threadpool(_link_signin, link)
            target = path + (f"?{urlencode(rest)}" if rest else "")
        except AuthError:
            session = None
            target = path + "?" + urlencode([*rest, (SIGNIN_PARAM, REFUSED)])
        await _redirect(request, target, session)(scope, receive, send)


async def session_endpoint(request: Request) -> Response:
    """``/natlog/session?code=...&next=/page``: the one-time code's session as the cookie."""
    target = local_path(request.query_params.get("next"))
    try:
        session = await run_in_threadpool(_redeem, request.query_params.get("code", ""))
    except AuthError:
        return _redirect(request, target, "")
    return _redirect(request, target, session)


async def signout_endpoint(request: Request) -> Response:
    """``/natlog/signout?next=/page``: drop the cookie (the page ended the sessions in the store)."""
    return _redirect(request, local_path(request.query_params.get("next")), "")


ROUTES = [Route(SESSION_PATH, session_endpoint, methods=["GET"]),
          Route(SIGNOUT_PATH, signout_endpoint, methods=["GET"])]
