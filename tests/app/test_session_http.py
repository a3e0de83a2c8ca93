"""The sign-in exchange over HTTP (app.session_http), on a real store file, through Starlette's
test client: links and one-time codes become an HttpOnly cookie set by the server, the secret never
reaches a page's address, redirects stay on the site, and ended sessions do not resume."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from annotations import Store, auth
from annotations.access import resume_token
from app.session_http import ROUTES, SESSION_COOKIE, SignInLinkMiddleware, local_path
from engine.core.settings import get_settings


@pytest.fixture()
def store_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "study.sqlite"
    monkeypatch.setenv("NATLOG_DB_PATH", str(path))
    get_settings.cache_clear()
    yield path
    get_settings.cache_clear()


def client() -> TestClient:
    async def page(request):  # noqa: ANN001, ANN202 - a stand-in for a Streamlit page
        return PlainTextResponse("page")

    app = Starlette(routes=[*ROUTES, Route("/annotate", page), Route("/admin", page)],
                    middleware=[Middleware(SignInLinkMiddleware)])
    return TestClient(app, base_url="http://127.0.0.1:8501", follow_redirects=False)


def cookie_header(response) -> str:  # noqa: ANN001 - an httpx response
    (header,) = [v for k, v in response.headers.multi_items() if k == "set-cookie" and v.startswith(SESSION_COOKIE)]
    return header


def test_a_sign_in_link_becomes_an_http_only_cookie_and_leaves_no_secret(store_path: Path) -> None:
    with Store.open(store_path, get_settings()) as store:
        token = auth.add_annotator(store, "alice")
        alice = auth.annotators(store)[0].id
    web = client()
    reply = web.get(f"/annotate?signin={alice}.{token}&tab=2")
    assert reply.status_code == 303
    assert reply.headers["location"] == "/annotate?tab=2"  # the secret is gone, other parameters stay
    assert reply.headers["cache-control"] == "no-store" and reply.headers["referrer-policy"] == "no-referrer"
    header = cookie_header(reply)
    assert "HttpOnly" in header and "samesite=strict" in header.lower() and "Secure" not in header
    session = header.split(";")[0].split("=", 1)[1]
    with Store.open(store_path, get_settings()) as store:
        assert resume_token(store, session).annotator.name == "alice"
    # Behind a reverse proxy serving HTTPS, the cookie is Secure.
    proxied = web.get(f"/annotate?signin={alice}.{token}", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" in cookie_header(proxied)
    # A wrong, revoked or malformed link sets no cookie and says so on the page.
    for bad in (f"{alice}.{token}x", "x.y", f"{alice}.", "."):
        refused = web.get(f"/annotate?signin={bad}")
        assert refused.status_code == 303 and refused.headers["location"] == "/annotate?signin=refused"
        assert not [v for k, v in refused.headers.multi_items() if k == "set-cookie"]
    assert web.get("/annotate?signin=refused").status_code == 200  # the page itself shows the message
    assert web.get("/admin").text == "page"  # pages without a link pass through


def test_a_one_time_code_hands_a_session_to_the_cookie_once(store_path: Path) -> None:
    with Store.open(store_path, get_settings()) as store:
        auth.add_annotator(store, "bob")
        bob = auth.annotators(store)[0].id
        session = auth.session_token(store, bob)
        code = auth.handoff_code(store, session)
    web = client()
    reply = web.get(f"/natlog/session?code={code}&next=/admin")
    assert reply.status_code == 303 and reply.headers["location"] == "/admin"
    assert cookie_header(reply).startswith(f"{SESSION_COOKIE}={session};")
    again = web.get(f"/natlog/session?code={code}&next=/admin")  # used up: the cookie is dropped
    assert "Max-Age=0" in cookie_header(again)
    # Redirects never leave the site.
    for target in ("//evil.example/x", "https://evil.example", "/\\evil.example", "", "admin"):
        assert web.get("/natlog/signout", params={"next": target}).headers["location"] == "/"
        assert local_path(target) == "/"
    out = web.get("/natlog/signout?next=/annotate")
    assert out.headers["location"] == "/annotate" and "Max-Age=0" in cookie_header(out)


def test_sign_out_reissue_and_revoke_end_every_session(store_path: Path) -> None:
    with Store.open(store_path, get_settings()) as store:
        token = auth.add_annotator(store, "carol")
        carol = auth.annotators(store)[0].id
        first, second = auth.session_token(store, carol), auth.session_token(store, carol)
        resume_token(store, first).sign_out()  # in one browser: the other ends too
        for ended in (first, second):
            with pytest.raises(auth.AuthError):
                resume_token(store, ended)
        later = auth.session_token(store, carol)
        assert resume_token(store, later).annotator.name == "carol"  # a new sign-in works
        session = resume_token(store, later)
        auth.reissue_token(store, "carol")
        with pytest.raises(auth.AuthError):
            session.next_item()  # an open session ends at its next call
        token = auth.reissue_token(store, "carol")
        fresh = auth.session_token(store, carol)
        auth.revoke(store, "carol")
        with pytest.raises(auth.AuthError):
            resume_token(store, fresh)
        with pytest.raises(auth.AuthError):
            auth.link_session(store, f"{carol}.{token}")
        with pytest.raises(auth.AuthError):
            auth.redeem_handoff(store, "no-such-code")
