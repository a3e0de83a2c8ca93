"""NatLog Studio as served: ``streamlit run app/server.py`` (what ``make run`` does).

Streamlit's ASGI app around the pages of :mod:`app.main`, with the sign-in exchange of
:mod:`app.session_http` in front of every page (links and cookies handled by the server, never by
page script), and, at start-up, the first-admin bootstrap code printed on the console of a store
that has no admin.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import streamlit as st
from starlette.middleware import Middleware

from app.session_http import ROUTES, SignInLinkMiddleware


@asynccontextmanager
async def announce_at_start(_app: Any) -> AsyncIterator[None]:
    """Print the bootstrap code when the server starts (not at the first page request)."""
    from app import cached

    cached.announce_bootstrap_code()
    yield


app = st.App(str(Path(__file__).with_name("main.py")), routes=ROUTES,
             middleware=[Middleware(SignInLinkMiddleware)], lifespan=announce_at_start)
