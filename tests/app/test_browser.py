"""The served app in a real headless Chromium: health endpoint, parse page, screenshots."""

from __future__ import annotations

import sqlite3
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser import ARTIFACTS, chromium_page, sign_in_page, streamlit_server, wait_idle

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app_url(tmp_path_factory) -> str:
    data = tmp_path_factory.mktemp("browser-data")
    with streamlit_server(env={"NATLOG_DB_PATH": str(data / "natlog.sqlite")}) as url:
        yield url


def test_health_endpoint(app_url: str) -> None:
    with urllib.request.urlopen(f"{app_url}/_stcore/health", timeout=5) as reply:
        assert reply.status == 200
        assert reply.read().strip() == b"ok"


def test_parse_page_in_chromium(app_url: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    with chromium_page() as page:
        page.goto(app_url, wait_until="networkidle")
        page.get_by_role("heading", name="Parse & polarity inspector").wait_for(timeout=60_000)
        box = page.get_by_label("Sentence")
        box.fill("No dog barked at the mailman")
        page.get_by_role("button", name="Parse").click()
        # Polarity marks: under "no", "dog" and the predicate are downward.
        page.locator(".natlog-token", has_text="mailman").first.wait_for(timeout=90_000)
        assert page.locator(".natlog-token", has_text="dog").first.inner_text().strip() == "dog↓"
        page.get_by_text("restrictor").first.wait_for(timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "inspector-polarity.png"), full_page=True)
        # The dependency tree (displaCy SVG) on its tab.
        page.get_by_role("tab", name="Dependency parse").click()
        page.locator("svg text", has_text="mailman").first.wait_for(timeout=30_000)
        assert page.locator("svg text", has_text="obl").count() >= 1
        page.screenshot(path=str(ARTIFACTS / "inspector-parse.png"), full_page=True)

        box.fill("One. Two sentences here.")
        page.get_by_role("button", name="Parse").click()
        page.get_by_text("expected one sentence, found 2").wait_for(timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "parse-page-error.png"), full_page=True)


def test_annotator_judges_with_the_keyboard_in_chromium(tmp_path) -> None:
    """A real annotator session: sign in, read the pair, say it reads odd with key w, answer with key 3,
    see progress move."""
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from tests.annotations.test_annotations_store import make_record, start

    db = tmp_path / "judging.sqlite"
    settings = get_settings().with_overrides(db_path=db, annotations_gold_percent=0)
    with Store.open(db, settings) as store:
        run = start(store)
        for index in range(2):
            store.record_attack(run, make_record(index))
        token = auth.add_annotator(store, "alice")
    env = {"NATLOG_DB_PATH": str(db), "NATLOG_ANNOTATIONS_GOLD_PERCENT": "0"}
    ARTIFACTS.mkdir(exist_ok=True)
    with streamlit_server(env=env) as url, chromium_page() as page:
        page.goto(f"{url}/annotate", wait_until="networkidle")
        sign_in_page(page, "alice", token)
        page.get_by_text("0 judged · 2 left").wait_for(timeout=60_000)
        page.get_by_text("A man is not playing an instrument").first.wait_for(timeout=30_000)
        body = page.get_by_test_id("stMain").inner_text().lower()
        assert "target" not in body and "victim" not in body  # judging is blind
        html = page.content()
        for secret in ("run-a", "E2C", "snli_test", "queries", "perplexity"):
            assert secret not in html, secret  # nor the system, setup, operator or run, even in the HTML
        page.screenshot(path=str(ARTIFACTS / "annotate-page.png"), full_page=True)
        expect(page.get_by_text("How the hypothesis reads: OK")).to_be_visible(timeout=30_000)  # ok unless changed
        wait_idle(page)  # a key pressed while the script still runs can land before the shortcuts are bound
        page.locator("body").press("w")  # keys q / w / e: ok, odd, broken
        expect(page.get_by_text("How the hypothesis reads: Odd")).to_be_visible(timeout=30_000)
        wait_idle(page)
        page.locator("body").press("3")
        page.get_by_text("1 judged · 1 left").wait_for(timeout=30_000)
        with sqlite3.connect(db) as connection:
            assert connection.execute("SELECT label, fluency, not_fluent FROM judgments").fetchall() == [
                ("contradiction", "odd", 0)]
        expect(page.get_by_text("How the hypothesis reads: OK")).to_be_visible(timeout=30_000)  # the next pair
        # A reload keeps the sign-in (a signed session cookie; nothing secret in the URL); undo works.
        assert "session=" not in page.url and token not in page.url
        assert any(c["name"] == "natlog_session" and c["httpOnly"] for c in page.context.cookies())
        page.reload(wait_until="networkidle")
        page.get_by_text("1 judged · 1 left").wait_for(timeout=60_000)
        assert page.get_by_label("Access token").count() == 0
        page.get_by_role("button", name="Undo my last vote").click()
        page.get_by_text("0 judged · 2 left").wait_for(timeout=30_000)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT label FROM judgments").fetchall() == []


def test_confidence_explorer_opens_the_attack_in_the_stepper(tmp_path, victim, contradictions) -> None:
    """An admin opens the confidence explorer on a run of real attacks, sees one attack's path, and
    follows its link to the stepper, which holds that attack's pair."""
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from engine.natlog.setups import get_setup
    from engine.runs.runner import RunHooks, RunSpec, run_attacks
    from tests.attacking import attack_of

    db = tmp_path / "explore.sqlite"
    data = tmp_path / "pairs.tsv"
    pair = contradictions[1]
    data.write_text(f"1\t{pair.premise}\t{pair.hypothesis}\tCONTRADICTION\n", encoding="utf-8")
    settings = get_settings().with_overrides(db_path=db, query_budget=15, top_k=6)
    with Store.open(db, settings) as store:
        run_attacks(store, RunSpec("c2c-run", data, "tsv", get_setup("C2C"), "offline"), attack_of(settings), victim,
                    hooks=RunHooks(progress=False))
        attack_id = store.attacks()[0].id
        token = auth.add_annotator(store, "root", "admin")
    ARTIFACTS.mkdir(exist_ok=True)

    with streamlit_server(env={"NATLOG_DB_PATH": str(db)}) as url, chromium_page() as page:
        page.goto(f"{url}/confidence", wait_until="networkidle")
        sign_in_page(page, "root", token)
        page.get_by_text("Candidates queried").wait_for(timeout=90_000)
        page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
        page.screenshot(path=str(ARTIFACTS / "confidence-run.png"), full_page=True)
        page.get_by_role("tab", name="One attack").click()
        link = page.get_by_role("link", name=f"Open attack {attack_id} in the stepper")
        link.wait_for(timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "confidence-attack.png"), full_page=True)
        link.click()  # the stepper opens in this tab, still signed in
        stepper = page
        stepper.wait_for_url(f"**/attack?attack={attack_id}", timeout=30_000)
        stepper.get_by_text(f"Opened attack {attack_id}").wait_for(timeout=90_000)
        assert stepper.get_by_label("Access token").count() == 0
        # (The page streams in: wait for the field to carry the value rather than read it once.)
        expect(stepper.get_by_label("Hypothesis")).to_have_value(pair.hypothesis, timeout=30_000)
        stepper.screenshot(path=str(ARTIFACTS / "stepper-opened.png"), full_page=True)


def test_a_run_started_from_the_runs_page_finishes(tmp_path) -> None:
    """An admin queues a run on the Runs page; the worker process attacks the pairs while the page
    shows its progress, and the run ends done, with its pairs in the store."""
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from tests.tiny_models import build_tiny_classifier

    victim = build_tiny_classifier(tmp_path / "victim", bias=(3.0, 0.0, 0.0))  # always "entailment"
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "pairs.tsv").write_text(
        "1\tA man is sleeping on a couch.\tA man sleeps.\tENTAILMENT\n"
        "2\tTwo dogs run across a field.\tDogs run.\tENTAILMENT\n", encoding="utf-8")
    db = tmp_path / "runs.sqlite"
    with Store.open(db, get_settings().with_overrides(db_path=db)) as store:
        token = auth.add_annotator(store, "root", "admin")
    env = {"NATLOG_DB_PATH": str(db), "NATLOG_SHARED_DATA_DIR": str(shared),
           "NATLOG_VICTIM": str(victim), "NATLOG_QUERY_BUDGET": "10", "NATLOG_TOP_K": "6"}
    ARTIFACTS.mkdir(exist_ok=True)
    with streamlit_server(env=env) as url, chromium_page() as page:
        page.goto(f"{url}/runs", wait_until="networkidle")
        sign_in_page(page, "root", token)
        page.get_by_role("button", name="Queue runs").click()
        page.get_by_text("Queued 1 run(s)").wait_for(timeout=60_000)
        page.get_by_text("2 / 2 pairs").wait_for(timeout=240_000)
        page.get_by_text("2 attacked, 2 successful").wait_for(timeout=60_000)
        page.screenshot(path=str(ARTIFACTS / "runs-page.png"), full_page=True)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT status FROM jobs").fetchall() == [("done",)]
        assert connection.execute("SELECT COUNT(*) FROM attacks WHERE status = 'success'").fetchone() == (2,)


def test_tour_of_every_page(tmp_path, victim, contradictions) -> None:
    """Every page renders in Chromium for a signed-in admin on a store with a run, without an
    error box; the screenshots are the README tour's (``make screenshots`` copies them to docs/)."""
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from engine.natlog.setups import get_setup
    from engine.runs.runner import RunHooks, RunSpec, run_attacks
    from tests.attacking import attack_of

    db = tmp_path / "tour.sqlite"
    data = tmp_path / "pairs.tsv"
    data.write_text("".join(f"{p.pair_id}\t{p.premise}\t{p.hypothesis}\tCONTRADICTION\n" for p in contradictions[:2]),
                    encoding="utf-8")
    settings = get_settings().with_overrides(db_path=db, query_budget=12, top_k=6)
    with Store.open(db, settings) as store:
        for setup in ("C2E", "C2C"):
            run_attacks(store, RunSpec(f"{setup.lower()}-tour", data, "tsv", get_setup(setup), "offline"),
                        attack_of(settings), victim, hooks=RunHooks(progress=False))
        token = auth.add_annotator(store, "root", "admin")
    ARTIFACTS.mkdir(exist_ok=True)
    pages = {"candidates": "Candidates", "attack": "Attack stepper", "results": "Attack results",
             "confidence": "Confidence explorer", "admin": "Admin"}
    with streamlit_server(env={"NATLOG_DB_PATH": str(db)}) as url, chromium_page() as page:
        page.goto(f"{url}/results", wait_until="networkidle")
        sign_in_page(page, "root", token)
        page.get_by_text("Signed in as").wait_for(timeout=60_000)
        for path, heading in pages.items():  # the session cookie keeps the sign-in on every page
            page.goto(f"{url}/{path}", wait_until="networkidle")
            page.get_by_role("heading", name=heading).first.wait_for(timeout=90_000)
            page.wait_for_timeout(3_000)  # charts draw
            assert page.get_by_test_id("stException").count() == 0, path
            page.screenshot(path=str(ARTIFACTS / f"tour-{path}.png"), full_page=True)


def test_markdown_and_html_in_a_data_file_show_as_text(tmp_path) -> None:
    """A data file whose premise holds a markdown image and whose hypothesis holds an HTML tag:
    the stepper shows both as the text they are, and the page loads no image from them."""
    from annotations import Store, auth
    from engine.core.settings import get_settings

    shared = tmp_path / "shared"
    shared.mkdir()
    evil = shared / "evil.tsv"
    evil.write_text("1\tA man ![x](http://127.0.0.1/x.png) plays.\tA man <img src=x onerror=alert(1)> plays.\t"
                    "ENTAILMENT\n", encoding="utf-8")
    db = tmp_path / "evil.sqlite"
    with Store.open(db, get_settings().with_overrides(db_path=db)) as store:
        token = auth.add_annotator(store, "root", "admin")
    env = {"NATLOG_DB_PATH": str(db), "NATLOG_SHARED_DATA_DIR": str(shared)}
    with streamlit_server(env=env) as url, chromium_page() as page:
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(f"{url}/attack", wait_until="networkidle")
        sign_in_page(page, "root", token)
        box = page.get_by_role("textbox", name="Data file")
        box.wait_for(timeout=60_000)
        box.fill(str(evil))
        box.press("Enter")
        try:
            page.get_by_text("A man ![x](").first.wait_for(timeout=60_000)
        finally:
            page.screenshot(path=str(ARTIFACTS / "stepper-escaped.png"), full_page=True)
        main = page.get_by_test_id("stMain")
        # What a reader sees (an invisible word joiner keeps the bare URL from being linked).
        shown = main.inner_text().replace("\u2060", "")
        assert "A man ![x](http://127.0.0.1/x.png) plays." in shown
        assert "A man <img src=x onerror=alert(1)> plays." in shown
        assert main.locator("img[src='x']").count() == 0
        assert main.locator("img[src*='127.0.0.1']").count() == 0
        assert main.locator("a[href*='x.png']").count() == 0  # no autolink of the bare URL either
    assert dialogs == [] and not [u for u in requested if u.endswith("/x.png") or u.endswith("/x")]


def test_probes_page_charts_a_stored_run_and_drills_down(tmp_path, victim) -> None:
    """An admin opens the Probes page on a stored equivalence run: per-category chart, the
    both-direction table, and the items of one category with the victim's probabilities."""
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from engine.probes.equivalence import generate
    from engine.probes.runner import run_probe

    db = tmp_path / "probes.sqlite"
    settings = get_settings().with_overrides(db_path=db)
    with Store.open(db, settings) as store:
        run_probe(store, "eq-tiny", "equivalence", generate(60, 0), victim, "tiny", "generated:n=60", 0)
        token = auth.add_annotator(store, "root", "admin")
    ARTIFACTS.mkdir(exist_ok=True)
    with streamlit_server(env={"NATLOG_DB_PATH": str(db)}) as url, chromium_page() as page:
        page.goto(f"{url}/probes", wait_until="networkidle")
        sign_in_page(page, "root", token)
        page.get_by_text("All probe runs").wait_for(timeout=90_000)
        page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
        page.get_by_text("Both directions").wait_for(timeout=30_000)
        page.get_by_text("Only items the victim gets wrong").wait_for(timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "probes-page.png"), full_page=True)


def test_first_start_trains_the_victim_then_the_stepper_attacks(tmp_path, shared_data) -> None:
    """A fresh machine has no offline victim: the stepper queues its training (here on a tiny real
    backbone), shows the progress while the rest of the page works, and attacks once it is trained."""
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from tests.tiny_models import build_tiny_classifier

    backbone = build_tiny_classifier(tmp_path / "backbone", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    shared_data = head_of_training_data(shared_data, tmp_path / "data")
    db = tmp_path / "fresh.sqlite"
    with Store.open(db, get_settings().with_overrides(db_path=db)) as store:
        token = auth.add_annotator(store, "root", "admin")
    env = {"NATLOG_DB_PATH": str(db), "NATLOG_MODELS_DIR": str(tmp_path / "models"), "NATLOG_BACKBONE": str(backbone),
           "NATLOG_AUTO_TRAIN_VICTIM": "1", "NATLOG_QUERY_BUDGET": "8", "NATLOG_TOP_K": "4",
           "NATLOG_SHARED_DATA_DIR": str(shared_data)}
    ARTIFACTS.mkdir(exist_ok=True)
    with streamlit_server(env=env) as url, chromium_page() as page:
        page.goto(f"{url}/attack", wait_until="networkidle")
        sign_in_page(page, "root", token)
        page.get_by_text("The offline victim is being trained").wait_for(timeout=60_000)
        start = page.get_by_role("button", name="Start attack")
        expect(start).to_be_disabled()
        page.get_by_text("pairs of this file are hidden: the victim trained on them").or_(
            page.get_by_text("line ")).first.wait_for(timeout=30_000)  # choosing a pair works meanwhile
        page.get_by_role("progressbar").first.wait_for(timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "first-start-training.png"), full_page=True)
        expect(start).to_be_enabled(timeout=300_000)
        # Trained: the pairs it trained on are hidden from the pair picker, and an attack runs. The pair
        # is the first shown one the tiny victim answers right (one it gets wrong is skipped at once).
        page.get_by_text("pairs of this file are hidden: the victim trained on them").wait_for(timeout=30_000)
        index = first_pair_answered_right(tmp_path / "models" / "victim-offline", shared_data / "snli_test.tsv")
        box = page.get_by_role("spinbutton").first
        box.fill(str(index))
        box.press("Enter")
        expect(page.get_by_role("spinbutton").first).to_have_value(str(index), timeout=30_000)
        start = page.get_by_role("button", name="Start attack")
        expect(start).to_be_enabled(timeout=60_000)
        start.click()  # loads the language models in this fresh server
        run_to_end = page.get_by_role("button", name="Run to the end")
        expect(run_to_end).to_be_enabled(timeout=300_000)
        run_to_end.click()
        page.get_by_text("Round 1:").first.wait_for(timeout=300_000)
        page.get_by_text("The victim was fooled").or_(page.get_by_text("The attack failed")).first.wait_for(
            timeout=300_000)
        page.screenshot(path=str(ARTIFACTS / "first-start-attack.png"), full_page=True)
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT kind, status, done, total FROM jobs").fetchall()
    assert rows[0][:2] == ("train-victim", "done") and rows[0][2] == rows[0][3] > 0
    assert (tmp_path / "models" / "victim-offline" / "trained_pairs.txt").is_file()


def head_of_training_data(shared_data, folder, lines: int = 500):
    """``folder`` with the first ``lines`` lines of each file the offline victim's recipe trains and
    evaluates on (the same recipe, formats and splits on fewer pairs: training takes seconds instead
    of a minute, and minutes on a machine the suite's other worker keeps busy)."""
    from engine.victim.training import OFFLINE_EVAL, OFFLINE_TRAIN

    for spec in (*OFFLINE_TRAIN, *OFFLINE_EVAL):
        name = spec.split(",")[0]
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        with open(shared_data / name, encoding="utf-8") as source:
            head = [line for _, line in zip(range(lines), source)]
        (folder / name).write_text("".join(head), encoding="utf-8")
    return folder


def first_pair_answered_right(victim_folder, data) -> int:
    """The stepper's index (pairs the victim trained on hidden, as the page shows them) of the first
    pair from index 1 on whose gold label the victim at ``victim_folder`` predicts."""
    from engine.core.settings import get_settings
    from engine.data.readers import pair_key, read_pairs
    from engine.victim.model import load_victim
    from engine.victim.training import trained_pair_keys

    trained = trained_pair_keys(victim_folder) or frozenset()
    shown = [p for p in read_pairs(data, "auto") if pair_key(p.premise, p.hypothesis) not in trained][:200]
    victim = load_victim(str(victim_folder), settings=get_settings())
    guesses = victim.predict([(p.premise, p.hypothesis) for p in shown])
    return next(k for k, (p, g) in enumerate(zip(shown, guesses)) if k >= 1 and g.label == p.label)


def listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (from /proc/net/tcp and tcp6)."""
    import ipaddress
    from pathlib import Path

    found = set()
    for table, width in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, hexport = fields[1].split(":")
            if int(hexport, 16) != port or fields[3] != "0A":  # 0A: LISTEN
                continue
            raw = bytes.fromhex(address)
            # The kernel writes each 32-bit word in host (little-endian) order.
            raw = b"".join(raw[k:k + 4][::-1] for k in range(0, len(raw), 4))
            found.add(str(ipaddress.ip_address(raw[:width])))
    return found


def other_address() -> str | None:
    """One of this machine's non-loopback IPv4 addresses, if it has one (no packet is sent)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_make_run_listens_on_this_machine_only(tmp_path) -> None:
    """The exact command `make run` starts (read with make -n) answers on 127.0.0.1 and listens
    on no other address."""
    import shlex
    import socket
    import subprocess

    from engine.core.settings import PROJECT_ROOT
    from tests.browser import free_port

    port = free_port()
    planned = subprocess.run(["make", "-n", "run", f"PORT={port}"], cwd=PROJECT_ROOT, capture_output=True,
                             text=True, check=True).stdout.splitlines()
    command = shlex.split(next(line for line in planned if "streamlit run" in line))
    with streamlit_server(env={"NATLOG_DB_PATH": str(tmp_path / "natlog.sqlite")}, command=command,
                          port=port) as url:
        assert url == f"http://127.0.0.1:{port}"
        assert listening_addresses(port) == {"127.0.0.1"}
        other = other_address()
        if other is not None:
            with pytest.raises(OSError), socket.create_connection((other, port), timeout=2):
                pass


def test_first_admin_from_the_console_code_in_chromium(tmp_path) -> None:
    """A fresh store: the server prints a one-time code on its console; the Admin page refuses a
    wrong code, takes the printed one, signs the new admin in and leaves no creation form behind."""
    import re
    import time

    db = tmp_path / "fresh.sqlite"
    console = tmp_path / "console.log"
    ARTIFACTS.mkdir(exist_ok=True)
    with streamlit_server(env={"NATLOG_DB_PATH": str(db)}, console=console) as url, chromium_page() as page:
        page.goto(f"{url}/admin", wait_until="networkidle")
        page.get_by_text("This store has no admin yet").wait_for(timeout=60_000)
        deadline = time.monotonic() + 30
        while not (found := re.search(r"bootstrap code:\s+(\S+)", console.read_text())) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert found, console.read_text()
        code = found.group(1)
        page.screenshot(path=str(ARTIFACTS / "first-run-admin.png"), full_page=True)
        page.get_by_label("Admin name").fill("root")
        page.get_by_label("Bootstrap code (from the server's console)").fill("abc-def-012")
        page.get_by_role("button", name="Create admin").click()
        page.get_by_text("bootstrap code is wrong").wait_for(timeout=30_000)
        page.get_by_label("Bootstrap code (from the server's console)").fill(code)
        page.get_by_role("button", name="Create admin").click()
        page.get_by_text("shown only this once").wait_for(timeout=30_000)
        page.get_by_role("tab", name="Annotators").wait_for(timeout=30_000)
        assert page.get_by_text("This store has no admin yet").count() == 0
        assert page.get_by_role("button", name="Create admin").count() == 0
        assert code not in page.content()
        page.screenshot(path=str(ARTIFACTS / "first-run-admin-created.png"), full_page=True)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT name, role FROM annotators").fetchall() == [("root", "admin")]
        assert connection.execute("SELECT COUNT(*) FROM app_keys WHERE name = 'bootstrap'").fetchone() == (0,)


def test_a_study_from_a_fresh_store_with_sign_in_links(tmp_path, monkeypatch) -> None:
    """The whole first-run path with no token typed by hand: the console's bootstrap code makes the
    first admin, who creates two annotators and sets k = 2 on the Admin page; each annotator opens
    their sign-in link in a browser context of their own and judges every item by keyboard (bob
    splits from alice on one item); the agreeing items resolve, the split one stays a tie, and HVASR
    on Admin and Results is the hand computation from the stored votes."""
    import re
    import time
    from collections import Counter, defaultdict

    from streamlit.testing.v1 import AppTest

    from annotations import Store, auth
    from engine.core.settings import PROJECT_ROOT, get_settings
    from tests.annotations.test_annotations_store import make_record, start
    from tests.browser import chromium_browser, wait_idle

    db = tmp_path / "study.sqlite"
    env = {"NATLOG_DB_PATH": str(db), "NATLOG_ANNOTATIONS_GOLD_PERCENT": "0", "NATLOG_ANNOTATIONS_LEASE_S": "30"}
    settings = get_settings().with_overrides(db_path=db, annotations_gold_percent=0)
    with Store.open(db, settings) as store:
        assert store.k == 3  # the default, until the admin sets k for this study
        run = start(store)
        for index in range(4):
            store.record_attack(run, make_record(index))
        store.record_attack(run, make_record(4, "failed"))
    console = tmp_path / "console.log"
    links = {}
    with streamlit_server(env=env, console=console) as url, chromium_browser() as browser:
        admin = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        admin.goto(f"{url}/admin", wait_until="networkidle")
        admin.get_by_text("This store has no admin yet").wait_for(timeout=60_000)
        deadline = time.monotonic() + 30
        while not (found := re.search(r"bootstrap code:\s+(\S+)", console.read_text())) and time.monotonic() < deadline:
            time.sleep(0.5)
        admin.get_by_label("Admin name").fill("root")
        admin.get_by_label("Bootstrap code (from the server's console)").fill(found.group(1))
        admin.get_by_role("button", name="Create admin").click()
        admin.get_by_role("tab", name="Annotators").wait_for(timeout=30_000)
        for name in ("alice", "bob"):
            admin.get_by_label("Name", exact=True).fill(name)
            admin.get_by_role("button", name="Add annotator").click()
            admin.get_by_text(f"Created {name}").wait_for(timeout=30_000)
            deadline = time.monotonic() + 30
            while True:  # the page redraws: the last person's link may still be on screen for a moment
                shown = {t.strip() for t in admin.get_by_text("/annotate?signin=").all_inner_texts()}
                fresh = shown - set(links.values())
                if len(fresh) == 1 or time.monotonic() > deadline:
                    break
                time.sleep(0.3)
            (link,) = fresh
            assert link.startswith(url)
            links[name] = link
        admin.screenshot(path=str(ARTIFACTS / "study-links.png"), full_page=True)
        admin.get_by_role("tab", name="Progress").click()
        k_input = admin.get_by_label("Judgments per item (k)", exact=True).and_(admin.get_by_role("spinbutton"))
        k_input.fill("2")
        admin.get_by_role("button", name="Set k").click()
        admin.get_by_text("k = 2 per item").wait_for(timeout=30_000)
        admin.get_by_text("No votes yet. 2 annotators can judge").wait_for(timeout=30_000)
        admin.screenshot(path=str(ARTIFACTS / "study-k.png"), full_page=True)
        answers = {"alice": ["Contradiction (3)"] * 4, "bob": ["Contradiction (3)"] * 3 + ["Entailment (1)"]}
        for name, keys in answers.items():
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.goto(links[name], wait_until="networkidle")
            page.get_by_text(f"Signed in as {name}").wait_for(timeout=60_000)
            assert "signin=" not in page.url  # the secret left the address bar
            page.get_by_text("0 judged · 4 left").wait_for(timeout=60_000)
            wait_idle(page)
            page.screenshot(path=str(ARTIFACTS / f"study-{name}.png"), full_page=True)
            for judged, answer in enumerate(keys, 1):
                page.get_by_role("button", name=answer).last.click()
                page.get_by_text(f"{judged} judged · {4 - judged} left").wait_for(timeout=30_000)
                wait_idle(page)
    with sqlite3.connect(db) as connection:
        votes = connection.execute("SELECT i.attack_id, j.label FROM judgments j JOIN items i ON i.id = j.item_id "
                                   "WHERE i.kind = 'attack'").fetchall()
        ks = {k for (k,) in connection.execute("SELECT k FROM items")}
    assert len(votes) == 8 and ks == {2}
    by_attack = defaultdict(list)
    for attack, label in votes:
        by_attack[attack].append(label)
    assert sorted(Counter(labels).most_common(1)[0][1] for labels in by_attack.values()) == [1, 2, 2, 2]
    # valid / attacked: items whose two votes agree on the target (a 1-1 split is a tie, not valid),
    # over 5 attacked pairs (4 successes, 1 failed)
    expected = sum(labels == ["contradiction"] * 2 for labels in by_attack.values()) / 5
    assert expected == pytest.approx(3 / 5)
    with Store.open(db, settings) as store:
        token = auth.reissue_token(store, "root")
    import streamlit as st

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    st.cache_resource.clear()
    for page_file in ("admin.py", "results.py"):
        app = AppTest.from_file(str(PROJECT_ROOT / "pages" / page_file), default_timeout=60)
        app.run()
        app.text_input[0].input("root")
        app.text_input[1].input(token)
        app.button[0].click().run()
        frames = [f.value for f in app.dataframe if "hvasr" in f.value.columns]
        assert frames, (page_file, [e.value for e in app.error], [list(f.value.columns) for f in app.dataframe])
        assert float(frames[0]["hvasr"].iloc[0]) == pytest.approx(expected, abs=1e-3), page_file
    get_settings.cache_clear()  # nothing after this test reads the study's settings
    st.cache_resource.clear()


def test_urls_addresses_and_markdown_in_candidates_stay_text(tmp_path) -> None:
    """The Candidates page lists H* as HTML: a bare URL, an e-mail address and *emphasis* in the
    hypothesis stay text there (no link, no italics), as in every other place data text is shown."""
    hypothesis = "A man at www.example.org is writing to bob@example.org about *art*"
    with streamlit_server(env={"NATLOG_DB_PATH": str(tmp_path / "natlog.sqlite")}) as url, chromium_page() as page:
        page.goto(f"{url}/candidates", wait_until="networkidle")
        page.get_by_label("Hypothesis H").fill(hypothesis)
        page.get_by_role("button", name="Generate candidates").click()
        page.get_by_text("Derivation of candidate #").first.wait_for(timeout=120_000)
        page.wait_for_function("() => document.querySelector('[data-testid=stMain]').innerText.includes('example')",
                               timeout=60_000)  # the ranked H* are drawn
        page.wait_for_timeout(2_000)
        main = page.get_by_test_id("stMain")
        assert main.locator("a[href*='example']").count() == 0
        assert main.locator("em", has_text="art").count() == 0
        shown = main.inner_text().replace("\u2060", "")
        assert "example.org" in shown and "bob@example.org" in shown and "* art" in shown, shown[-600:]
        page.screenshot(path=str(ARTIFACTS / "candidates-escaped.png"), full_page=True)


def test_an_author_writes_an_attack_and_another_person_judges_it_blind(tmp_path) -> None:
    """Issue 49 in a real Chromium: an author signs in, types an edit of H into H* (no button, no
    Enter), sees natural logic's verdict and the victim's probabilities change, submits; an annotator
    in another browser context is served that H* with nothing saying who or what wrote it, and judges
    it by keyboard; the author is never served it."""
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from tests.app.test_app_write import H, P, victim_folder
    from tests.browser import chromium_browser, wait_idle

    db = tmp_path / "write.sqlite"
    settings = get_settings().with_overrides(db_path=db, annotations_gold_percent=0)
    with Store.open(db, settings) as store:
        tokens = {"wendy": auth.add_annotator(store, "wendy", "author"),
                  "ann": auth.add_annotator(store, "ann", "annotator")}
    victim = victim_folder(tmp_path)
    env = {"NATLOG_DB_PATH": str(db), "NATLOG_ANNOTATIONS_GOLD_PERCENT": "0"}
    ARTIFACTS.mkdir(exist_ok=True)
    with streamlit_server(env=env) as url, chromium_browser() as browser:
        author = browser.new_context(viewport={"width": 1400, "height": 1600}).new_page()
        author.goto(f"{url}/write", wait_until="networkidle")
        sign_in_page(author, "wendy", tokens["wendy"])
        author.get_by_text("Type a pair").click()
        wait_idle(author)
        author.get_by_label("Premise", exact=True).fill(P)
        author.get_by_label("Hypothesis", exact=True).fill(H)
        author.get_by_label("Victim (offline, hub id or folder)").fill(str(victim))
        author.get_by_label("Victim (offline, hub id or folder)").press("Enter")
        # this victim (not the offline one) answers contradiction to (P, H): the page has reloaded for it
        author.get_by_text("The victim already gets (P, H) wrong").wait_for(timeout=60_000)
        wait_idle(author)
        editor = author.locator("textarea[aria-label='H*: edit the hypothesis']")
        editor.click()
        editor.press("Control+a")
        editor.press_sequentially("A person is playing an instrument.", delay=20)  # typed, nothing clicked
        try:
            author.get_by_text("is entailment, as you intend").wait_for(timeout=60_000)
        finally:
            author.screenshot(path=str(ARTIFACTS / "write-page.png"), full_page=True)
        expect(author.get_by_text("1 distinct H* asked")).to_be_visible(timeout=30_000)
        delta = author.get_by_test_id("stMetricDelta").first
        expect(delta).to_contain_text("from H", timeout=30_000)
        assert "0.000" not in delta.inner_text()  # P(target) of (P, H*) beside (P, H)'s
        first = author.get_by_test_id("stMetricValue").first.inner_text()
        assert author.locator("ins.natlog-in").first.inner_text() == "person"
        # a second edit: a modifier inserted makes H* stronger, so (P, H*) need not be entailed any more
        editor.press("Control+a")
        editor.press_sequentially("A man is playing an instrument on stage.", delay=20)
        expect(author.get_by_text("2 distinct H* asked")).to_be_visible(timeout=60_000)
        expect(author.get_by_text("is neutral, not entailment as you intend")).to_be_visible(timeout=30_000)
        assert author.get_by_test_id("stMetricValue").first.inner_text() != first
        editor.press("Control+a")
        editor.press_sequentially("A person is playing an instrument.", delay=20)
        expect(author.get_by_text("is entailment, as you intend")).to_be_visible(timeout=60_000)
        author.get_by_role("button", name="Submit H* to the study").click()
        author.get_by_text("Submitted: the H* fooled the victim").wait_for(timeout=30_000)

        judge = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        judge.goto(f"{url}/annotate", wait_until="networkidle")
        sign_in_page(judge, "ann", tokens["ann"])
        judge.get_by_text("A person is playing an instrument.").first.wait_for(timeout=60_000)
        html = judge.content()
        for secret in ("wendy", "human:", "E2E", "typed pairs", "HumanEdit", "author"):
            assert secret not in html, secret
        wait_idle(judge)  # a key pressed while the script still runs can land before the shortcuts are bound
        judge.locator("body").press("1")
        judge.get_by_text("1 judged").wait_for(timeout=30_000)

        author.goto(f"{url}/annotate", wait_until="networkidle")
        author.get_by_text("Nothing to judge yet").or_(author.get_by_text("You have judged every pair")).or_(
            author.get_by_text("The study is complete")).first.wait_for(timeout=60_000)
        assert "A person is playing an instrument." not in author.get_by_test_id("stMain").inner_text()
    with Store.open(db, settings) as store:
        (attack,) = store.attacks()
        votes = list(store.db.query("SELECT a.name, j.label FROM judgments j JOIN annotators a ON a.id = j.annotator_id"))
    assert attack.record.status == "success" and [tuple(v.values()) for v in votes] == [("ann", "entailment")]


def test_report_card_compares_two_victims_and_opens_an_example_in_the_stepper(tmp_path) -> None:
    """Issue 50 in a real Chromium: an admin opens the Report card of a store with two victims'
    profiles, sees a heatmap per victim and their difference, and an example opens in the stepper in
    the same tab with the pair filled in and the sign-in kept."""
    from annotations import Store, auth
    from engine.core.settings import get_settings
    from tests.profile.test_profile import two_victims

    db = tmp_path / "card.sqlite"
    two_victims(db)
    with Store.open(db, get_settings().with_overrides(db_path=db)) as store:
        token = auth.add_annotator(store, "root", "admin")
    ARTIFACTS.mkdir(exist_ok=True)
    with streamlit_server(env={"NATLOG_DB_PATH": str(db)}) as url, chromium_page(height=1600) as page:
        page.goto(f"{url}/report_card", wait_until="networkidle")
        sign_in_page(page, "root", token)
        page.get_by_text("Victims side by side").wait_for(timeout=60_000)
        wait_idle(page)
        smallest = page.get_by_label("Cells need at least this many pairs to be shown")
        smallest.fill("1")
        smallest.press("Enter")
        page.locator(".js-plotly-plot").nth(2).wait_for(timeout=60_000)
        expect(page.get_by_text("Victim victim-a", exact=True)).to_be_visible()
        expect(page.get_by_text("victim-b against victim-a")).to_be_visible()
        assert page.locator(".js-plotly-plot").count() >= 3  # two heatmaps and the difference bars
        page.screenshot(path=str(ARTIFACTS / "report-card.png"), full_page=True)
        page.get_by_text("Examples of a cell").first.click()
        page.get_by_role("link", name="Attack pair 1 in the stepper").first.click()
        page.get_by_text("Opened pair 1 (E2E) of profile run profile-victim-a").wait_for(timeout=60_000)
        # the note is written before the pair chooser renders: wait for the filled field, not just the note
        expect(page.get_by_label("Hypothesis", exact=True)).to_have_value("An animal runs 1.", timeout=60_000)
        assert page.get_by_label("Access token").count() == 0  # still signed in
