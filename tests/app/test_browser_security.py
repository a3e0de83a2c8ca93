"""Study security in the served app and a real headless Chromium: sign-in links leave no secret in
the tab's history, sessions end everywhere on sign-out and on a re-issued token, the session cookie
is the server's (HttpOnly), hostile data text stays text on every page and chart, and the Annotate
page's HTML names no item."""

from __future__ import annotations

import re
import sqlite3

import pytest

from tests.browser import ARTIFACTS, chromium_browser, sign_in_page, streamlit_server, wait_idle

pytestmark = pytest.mark.browser

#: Markdown, HTML, plotly's HTML subset, Streamlit's colour, icon and emoji directives, a formula.
HOSTILE = ('A <b>person</b> is :red[bowling] :material/warning: :smile: **at** '
           '<a href="http://evil.example/x">the alley</a> =HYPERLINK("http://evil.example") &amp;')


def _study(tmp_path, premise: str = "A man is playing guitar.", run_name: str = "run-a"):
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from tests.annotations.test_annotations_store import make_record, start

    db = tmp_path / "study.sqlite"
    settings = get_settings().with_overrides(db_path=db, annotations_gold_percent=0)
    with Store.open(db, settings) as store:
        run = start(store, name=run_name)
        for index in range(2):  # whichever item an annotator is served first shows the premise
            store.record_attack(run, make_record(index, premise=premise, adversarial_hypothesis=premise))
        tokens = {"alice": auth.add_annotator(store, "alice"), "root": auth.add_annotator(store, "root", "admin")}
        ids = {a.name: a.id for a in auth.annotators(store)}
    env = {"NATLOG_DB_PATH": str(db), "NATLOG_ANNOTATIONS_GOLD_PERCENT": "0"}
    return db, env, tokens, ids


def introduced_elements(locator) -> list[str]:  # noqa: ANN001 - a Playwright locator
    """Elements under ``locator`` whose whole text is a piece of :data:`HOSTILE` that markup or a
    directive would have split off: "person" in bold, "bowling" in red, a "warning" icon, a "the
    alley" link, "at" in bold."""
    pieces = locator.locator("*").evaluate_all("els => els.map(e => e.textContent.trim())")
    return [p for p in pieces if p in ("person", "bowling", "warning", "the alley", "at", "is", "guitar", "😄")]


def _signed_out(page) -> None:  # noqa: ANN001 - a Playwright page
    page.get_by_label("Access token").wait_for(timeout=60_000)
    assert page.get_by_text("Signed in as").count() == 0


def _session_ended(page) -> None:  # noqa: ANN001 - a Playwright page
    """The page says the session ended, and shows the sign-in form again."""
    page.get_by_text("your sign-in has expired or was revoked").wait_for(timeout=30_000)
    _signed_out(page)


def test_links_leave_no_secret_in_history_and_sessions_end_everywhere(tmp_path) -> None:
    """Link -> signed in -> no history entry holds the secret -> Sign out -> Back and reload stay
    signed out; an open session in a second browser ends at its next key press when the token is
    re-issued or revoked (Annotate) and at its next interaction when it is re-issued (Admin), and a
    reload of another admin page (Results) finds its cookie refused; nothing is stored."""
    from annotations import Store, auth
    from engine.core.settings import get_settings

    db, env, tokens, ids = _study(tmp_path)
    with streamlit_server(env=env) as url, chromium_browser() as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(f"{url}/inspector", wait_until="networkidle")  # somewhere for Back to go
        link = f"{url}/annotate?signin={ids['alice']}.{tokens['alice']}"
        page.goto(link, wait_until="networkidle")
        page.get_by_text("Signed in as alice").wait_for(timeout=60_000)
        assert page.url == f"{url}/annotate"
        (cookie,) = [c for c in page.context.cookies() if c["name"] == "natlog_session"]
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert "natlog_session" not in page.evaluate("document.cookie")  # no page script can read it
        assert page.evaluate("history.length") == 3  # the blank tab, the inspector, /annotate: no link entry
        page.go_back(wait_until="networkidle")
        assert tokens["alice"] not in page.url and "signin" not in page.url
        page.goto(f"{url}/annotate", wait_until="networkidle")  # the cookie keeps the sign-in
        page.get_by_text("Signed in as alice").wait_for(timeout=60_000)
        wait_idle(page)
        page.get_by_role("button", name="Sign out").click()
        _signed_out(page)
        page.wait_for_load_state("networkidle")
        assert not [c for c in page.context.cookies() if c["name"] == "natlog_session"]
        page.reload(wait_until="networkidle")
        _signed_out(page)
        for _ in range(page.evaluate("history.length")):  # every entry of the tab's history
            page.go_back(wait_until="networkidle")
            assert tokens["alice"] not in page.url and "signin" not in page.url
        page.goto(f"{url}/annotate", wait_until="networkidle")
        _signed_out(page)

        # A second browser: alice by link, root on an admin page; both tokens re-issued meanwhile.
        other = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        other.goto(link, wait_until="networkidle")
        other.get_by_text("0 judged · 2 left").wait_for(timeout=60_000)
        wait_idle(other)
        admin = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        admin.goto(f"{url}/admin?signin={ids['root']}.{tokens['root']}", wait_until="networkidle")
        admin.get_by_role("tab", name="Progress").wait_for(timeout=60_000)
        wait_idle(admin)
        with Store.open(db, get_settings().with_overrides(db_path=db)) as store:
            auth.reissue_token(store, "alice")
            auth.reissue_token(store, "root")
        other.locator("body").press("3")
        _session_ended(other)
        admin.get_by_role("tab", name="Progress").click()
        _session_ended(admin)

        # Revoke ends an open session as well; and on another admin page (Results) a re-issue does.
        with Store.open(db, get_settings().with_overrides(db_path=db)) as store:
            fresh = {name: auth.reissue_token(store, name) for name in ("alice", "root")}
        other.goto(f"{url}/annotate?signin={ids['alice']}.{fresh['alice']}", wait_until="networkidle")
        other.get_by_text("0 judged · 2 left").wait_for(timeout=60_000)
        wait_idle(other)
        admin.goto(f"{url}/results?signin={ids['root']}.{fresh['root']}", wait_until="networkidle")
        admin.get_by_text("Signed in as root").wait_for(timeout=60_000)
        wait_idle(admin)
        with Store.open(db, get_settings().with_overrides(db_path=db)) as store:
            auth.revoke(store, "alice")
            auth.reissue_token(store, "root")
        other.locator("body").press("1")
        _session_ended(other)
        admin.reload(wait_until="networkidle")  # its cookie is the old session's: refused, and dropped
        _signed_out(admin)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM judgments").fetchone() == (0,)


def test_hostile_data_text_stays_text_and_nothing_in_the_page_names_an_item(tmp_path) -> None:
    """One hostile string as a premise, an H* and a run name: Annotate shows the stored text byte for
    byte, with no element, link, colour or icon it introduced and no item id in its HTML; Results
    draws the run name on its chart axes as text; the typed H on Candidates stays text too."""
    db, env, tokens, _ = _study(tmp_path, premise=HOSTILE, run_name=HOSTILE)
    with sqlite3.connect(db) as connection:
        item_ids = [i for (i,) in connection.execute("SELECT id FROM items")]
    with streamlit_server(env=env) as url, chromium_browser() as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        frames: list[str] = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(
            payload if isinstance(payload, str) else payload.decode("latin-1"))))
        page.goto(f"{url}/annotate", wait_until="networkidle")
        sign_in_page(page, "alice", tokens["alice"])
        page.get_by_text("0 judged · 2 left").wait_for(timeout=60_000)
        wait_idle(page)
        main = page.get_by_test_id("stMain")
        shown = [t for t in main.locator("p").all_inner_texts() if "person" in t]
        assert HOSTILE in shown, shown  # byte for byte: premise (and H*, the same string here)
        assert main.locator("a[href*='evil']").count() == 0 and not introduced_elements(main)
        assert "😄" not in main.inner_text()
        html = page.content()
        # Widget keys reach the HTML as st-key-... classes, and element ids are the other names a
        # script could read: neither names an item (ids are sequential per run).
        keyed = re.findall(r"st-key-[\w-]+", html)
        named = keyed + re.findall(r'\sid="([^"]*)"', html)
        assert keyed and not [k for k in named for item in item_ids if re.search(rf"(?<![0-9a-f]){item}$", k)], named
        assert not [f for f in frames if re.search(r'"(?:comment|entailment|neutral|contradiction|skip)-\d+"', f)]
        page.screenshot(path=str(ARTIFACTS / "hostile-annotate.png"), full_page=True)

        admin = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        admin.goto(f"{url}/results", wait_until="networkidle")
        sign_in_page(admin, "root", tokens["root"])
        admin.locator(".js-plotly-plot").first.wait_for(timeout=90_000)
        admin.wait_for_timeout(3_000)  # charts draw
        svg = admin.locator(".js-plotly-plot svg")
        assert svg.locator("a").count() == 0  # no link from data text in any chart
        drawn = " ".join(admin.locator(".js-plotly-plot").evaluate_all("els => els.map(e => e.textContent)"))
        assert "<b>person</b>" in drawn and 'href="http://evil.example/x"' in drawn  # the run name, as text
        # Markup from data would split its text into its own tspan ("person" in bold, "the alley" a link).
        pieces = svg.locator("tspan").evaluate_all("els => els.map(e => e.textContent.trim())")
        assert "person" not in pieces and "the alley" not in pieces
        admin.screenshot(path=str(ARTIFACTS / "hostile-results.png"), full_page=True)

        admin.goto(f"{url}/admin", wait_until="networkidle")  # the open items' table holds the pair text
        admin.get_by_role("tab", name="Progress").click()
        admin.get_by_text("Items still waiting for votes").wait_for(timeout=60_000)
        wait_idle(admin)
        main = admin.get_by_test_id("stMain")
        assert main.locator("a[href*='evil']").count() == 0 and not introduced_elements(main)

        admin.goto(f"{url}/candidates", wait_until="networkidle")
        admin.get_by_label("Hypothesis H").fill("A man :red[is] playing a <b>guitar</b> at :material/warning: :smile:")
        admin.get_by_role("button", name="Generate candidates").click()
        admin.get_by_text("Derivation of candidate #").first.wait_for(state="attached", timeout=120_000)
        wait_idle(admin)
        main = admin.get_by_test_id("stMain")
        assert main.locator("a[href*='evil']").count() == 0 and not introduced_elements(main)
        text = main.inner_text().replace("\u2060", "")
        assert ":red[is]" in text and ":material/warning:" in text and ":smile:" in text, text[-800:]
        assert "<b>guitar</b>" in text or "<b>" in text


def test_hostile_hypothesis_stays_text_in_the_stepper_chart_and_the_confidence_page(
        tmp_path, victim) -> None:  # noqa: ANN001 - pytest fixtures
    """A data file whose hypothesis holds HTML, a colour and an icon directive: after a round in the
    stepper, the candidates' chart (plotly) and table show it as text; the Confidence page of a run
    on the same file introduces no element, link or icon either."""
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from engine.natlog.setups import get_setup
    from engine.runs.runner import RunHooks, RunSpec, run_attacks
    from tests.attacking import attack_of

    hypothesis = "A <b>man</b> is playing :red[music] near a <a href='http://evil.example'>shop</a>"
    shared = tmp_path / "shared"
    shared.mkdir()
    data = shared / "hostile.tsv"
    data.write_text(f"1\tA woman is sleeping in a bed.\t{hypothesis}\tCONTRADICTION\n", encoding="utf-8")
    db = tmp_path / "hostile.sqlite"
    settings = get_settings().with_overrides(db_path=db, query_budget=8, top_k=6)
    with Store.open(db, settings) as store:
        run_attacks(store, RunSpec("hostile-run", data, "tsv", get_setup("C2C"), "offline"), attack_of(settings), victim,
                    hooks=RunHooks(progress=False))
        token = auth.add_annotator(store, "root", "admin")
    env = {"NATLOG_DB_PATH": str(db), "NATLOG_SHARED_DATA_DIR": str(shared), "NATLOG_VICTIM": str(victim.name),
           "NATLOG_QUERY_BUDGET": "8", "NATLOG_TOP_K": "6"}
    with streamlit_server(env=env) as url, chromium_browser() as browser:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.goto(f"{url}/confidence", wait_until="networkidle")
        sign_in_page(page, "root", token)
        page.locator(".js-plotly-plot").first.wait_for(timeout=90_000)
        wait_idle(page)
        main = page.get_by_test_id("stMain")
        assert main.locator("a[href*='evil']").count() == 0 and not introduced_elements(main)
        page.goto(f"{url}/attack", wait_until="networkidle")
        box = page.get_by_role("textbox", name="Data file")
        box.wait_for(timeout=60_000)
        box.fill(str(data))
        box.press("Enter")
        page.get_by_role("button", name="Start attack").wait_for(timeout=60_000)
        wait_idle(page)
        page.get_by_role("button", name="Start attack").click()
        page.get_by_role("button", name="Next round").wait_for(timeout=90_000)
        wait_idle(page)
        page.get_by_role("button", name="Next round").click()
        page.get_by_text("Victim on the candidates").first.wait_for(state="attached", timeout=120_000)
        wait_idle(page)
        page.screenshot(path=str(ARTIFACTS / "hostile-stepper.png"), full_page=True)
        main = page.get_by_test_id("stMain")
        svg = main.locator(".js-plotly-plot svg")
        assert svg.locator("a").count() == 0
        drawn = " ".join(main.locator(".js-plotly-plot").evaluate_all("els => els.map(e => e.textContent)"))
        assert "<b>" in drawn, drawn[:500]  # the candidates' texts on the chart's axis, as text
        pieces = svg.locator("tspan").evaluate_all("els => els.map(e => e.textContent.trim())")
        assert "man" not in pieces and "shop" not in pieces
        assert main.locator("a[href*='evil']").count() == 0 and not introduced_elements(main)
        # No element of its own for a piece the markup or directive would have split off.
        alone = main.locator("*").evaluate_all("els => els.map(e => e.textContent.trim())")
        assert not [t for t in alone if t in ("man", "music", "shop")], [t for t in alone if t in ("man", "music", "shop")]
