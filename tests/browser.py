"""A real Streamlit server and a real headless Chromium for browser tests."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from engine.core.settings import PROJECT_ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = PROJECT_ROOT / "test-artifacts"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(env: dict[str, str] | None = None, timeout: float = 90.0, console: Path | None = None,
                     command: list[str] | None = None, port: int | None = None) -> Iterator[str]:
    """Start ``streamlit run app/server.py`` (the served app, as ``make run``; or ``command``, which must listen on ``port``) on a free
    port; yield its base URL once healthy. ``console``: a file that receives the server's console
    output as it runs (what a person at the terminal reads)."""
    port = port or free_port()
    command = command or [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "app" / "server.py"),
                          "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true"]
    output = console.open("w", encoding="utf-8") if console is not None else subprocess.PIPE
    proc = subprocess.Popen(
        command, cwd=PROJECT_ROOT, env={**os.environ, **(env or {})},
        stdout=output, stderr=subprocess.STDOUT, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                printed = proc.stdout.read() if proc.stdout else console.read_text() if console else ""
                raise RuntimeError(f"streamlit exited early:\n{printed}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.read().strip() == b"ok":
                        break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError("streamlit did not become healthy in time")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        if console is not None and not isinstance(output, int):
            output.close()


@contextmanager
def chromium_browser():
    """Debian's headless Chromium under Playwright (``new_context()`` gives separate people)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (make test installs it as root)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def chromium_page(width: int = 1400, height: int = 1000):
    """A Playwright page in Debian's headless Chromium."""
    with chromium_browser() as browser:
        yield browser.new_page(viewport={"width": width, "height": height})


def sign_in_page(page, name: str, token: str, timeout_s: float = 60.0) -> None:  # noqa: ANN001 - a Playwright page
    """Fill the app's sign-in form on ``page``, submit it, and wait until the server has set the
    session cookie (the page hands the session over in a page load through ``/natlog/session``) and
    that load has finished, so that the next navigation does not cut it short."""
    import time

    page.get_by_label("Name").fill(name)
    page.get_by_label("Access token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    deadline = time.monotonic() + timeout_s
    while not any(c["name"] == "natlog_session" for c in page.context.cookies()):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no session cookie {timeout_s:.0f} s after signing in as {name}")
        page.wait_for_timeout(200)
    page.wait_for_load_state("networkidle")


def wait_idle(page, timeout_ms: float = 30_000) -> None:  # noqa: ANN001 - a Playwright page
    """Wait until the page's script run has finished (Streamlit marks its root with the run state),
    so that a click lands on the widgets of the finished page, not on ones a rerun replaces."""
    page.locator('[data-test-script-state="notRunning"]').first.wait_for(state="attached", timeout=timeout_ms)
