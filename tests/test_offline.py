"""No network where an offline copy exists: provisioning, an attack, an inspection and a probe run
make no connection to another machine.

A socket guard replaces ``socket.socket.connect``/``connect_ex``, ``socket.create_connection`` and
the name look-ups (``getaddrinfo``, ``gethostbyname``): a connection to a non-loopback address or a
look-up of a host name is recorded (with the calling code) and refused with :class:`NetworkAttempt`.
Unix sockets and loopback addresses stay allowed (some libraries talk to themselves that way).

Models are cached per process (``lru_cache``), so the attack, inspection and probe scenarios run in
a fresh interpreter that installs the guard before importing anything of the project; it prints a
JSON summary, attempts included. ``HF_HUB_OFFLINE``/``TRANSFORMERS_OFFLINE`` are removed from its
environment: the code itself must not reach out, not merely be stopped by a flag.

This module imports only the standard library and pytest at the top, so that the scenario
interpreter can import it before anything of the project is loaded.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULT_MARK = "OFFLINE-SCENARIO-RESULT "
OFFLINE_FLAGS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
PREMISE, HYPOTHESIS = "A man is playing a guitar on stage.", "Nobody is playing a guitar."


GUARD_FRAMES = frozenset({"_refuse", "_check_address", "guarded_connect", "guarded_connect_ex",
                          "guarded_create_connection", "guarded_getaddrinfo", "guarded_gethostbyname",
                          "guarded_gethostbyname_ex"})


class NetworkAttempt(ConnectionError):
    """Raised by the socket guard for a connection (or name look-up) beyond this machine."""


def _is_local_host(host: object) -> bool:
    """Loopback, unspecified (``''``, ``0.0.0.0``: this machine on Linux) or a local name."""
    if host is None:
        return True
    text = host.decode() if isinstance(host, bytes) else str(host)
    if text == "" or text.lower() in LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False  # a host name: looking it up may already go to a DNS server
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def _is_numeric(host: object) -> bool:
    text = host.decode() if isinstance(host, bytes) else str(host)
    try:
        ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    return True


class SocketGuard:
    """Refuse and record every attempt to reach another machine."""

    def __init__(self) -> None:
        self.attempts: list[dict[str, Any]] = []

    def _refuse(self, call: str, target: object) -> None:
        stack = [f"{f.filename}:{f.lineno} {f.name}: {(f.line or '').strip()}"
                 for f in traceback.extract_stack() if not (f.filename == __file__ and f.name in GUARD_FRAMES)]
        self.attempts.append({"call": call, "target": repr(target), "stack": stack[-12:]})
        raise NetworkAttempt(f"network access refused in an offline test: {call}({target!r})")

    def _check_address(self, call: str, family: int, address: object) -> None:
        if family not in (socket.AF_INET, socket.AF_INET6):
            return  # AF_UNIX, AF_NETLINK ...: this machine only
        host = address[0] if isinstance(address, tuple) and address else address
        if not _is_local_host(host):
            self._refuse(call, address)

    def install(self, setattr_: Callable[[object, str, object], None] = setattr) -> SocketGuard:
        """Patch the socket module (``monkeypatch.setattr`` undoes it after a test; plain
        ``setattr`` keeps it for the life of a scenario interpreter)."""
        connect, connect_ex = socket.socket.connect, socket.socket.connect_ex
        create_connection, getaddrinfo = socket.create_connection, socket.getaddrinfo
        gethostbyname, gethostbyname_ex = socket.gethostbyname, socket.gethostbyname_ex
        guard = self

        def guarded_connect(sock: socket.socket, address: Any) -> None:
            guard._check_address("socket.connect", sock.family, address)
            return connect(sock, address)

        def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
            guard._check_address("socket.connect_ex", sock.family, address)
            return connect_ex(sock, address)

        def guarded_create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
            guard._check_address("socket.create_connection", socket.AF_INET, address)
            return create_connection(address, *args, **kwargs)

        def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            if not (_is_local_host(host) or _is_numeric(host)):  # numeric addresses are caught at connect
                guard._refuse("socket.getaddrinfo", host)
            return getaddrinfo(host, *args, **kwargs)

        def guarded_gethostbyname(host: Any) -> Any:
            if not (_is_local_host(host) or _is_numeric(host)):
                guard._refuse("socket.gethostbyname", host)
            return gethostbyname(host)

        def guarded_gethostbyname_ex(host: Any) -> Any:
            if not (_is_local_host(host) or _is_numeric(host)):
                guard._refuse("socket.gethostbyname_ex", host)
            return gethostbyname_ex(host)

        setattr_(socket.socket, "connect", guarded_connect)
        setattr_(socket.socket, "connect_ex", guarded_connect_ex)
        setattr_(socket, "create_connection", guarded_create_connection)
        setattr_(socket, "getaddrinfo", guarded_getaddrinfo)
        setattr_(socket, "gethostbyname", guarded_gethostbyname)
        setattr_(socket, "gethostbyname_ex", guarded_gethostbyname_ex)
        return self


def describe(attempts: list[dict[str, Any]]) -> str:
    return "\n".join(f"{a['call']}({a['target']}) from\n    " + "\n    ".join(a["stack"]) for a in attempts)


@pytest.fixture()
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[SocketGuard]:
    """The socket guard for one test; the test fails if anything tried to connect."""
    guard = SocketGuard().install(monkeypatch.setattr)
    yield guard
    assert guard.attempts == [], f"network access attempted:\n{describe(guard.attempts)}"


# --- the scenarios, run in a fresh interpreter behind the guard ----------------------------------

def _scenario_settings(work: Path):
    from engine.core.settings import get_settings

    # The default models folder keeps the dequantized SmolLM2 between runs (as the other tests do);
    # every operator is on, as in the other tests (conftest), whatever the calling environment says.
    return get_settings().with_overrides(db_path=work / "natlog.sqlite", disabled_operators="none")


def _tiny_victim(work: Path, settings):
    from engine.victim.model import load_victim
    from tests.tiny_models import build_tiny_classifier

    folder = build_tiny_classifier(work / "victim", bias=(0.0, 0.0, 3.0))
    return str(folder), load_victim(str(folder), settings=settings)


def scenario_attack(work: Path) -> dict[str, Any]:
    from engine.attack.search import Target, attack_pair
    from engine.natlog.setups import get_setup
    from tests.attacking import attack_of

    settings = _scenario_settings(work)
    _, victim = _tiny_victim(work, settings)
    attack = attack_of(settings.with_overrides(query_budget=10, top_k=5))
    result = attack_pair(attack, Target.of(PREMISE, HYPOTHESIS, "contradiction", get_setup("C2C")), victim)
    return {"status": result.status, "reason": result.reason, "rounds": len(result.rounds),
            "queries": result.queries, "original": result.original.label,
            "candidates": sum(len(r.candidates) for r in result.rounds)}


def scenario_inspect(work: Path) -> dict[str, Any]:
    from engine.natlog.polarity import polarize
    from engine.parse import load_parser, parse

    settings = _scenario_settings(work)
    parser = load_parser(settings.parser, settings.spacy_model, settings.nltk_data)
    polarized = polarize(parse("Every dog sees some cat", parser=parser, settings=settings))
    return {"parser": parser.name, "marked": polarized.marked,
            "polarity": {t.token.text: t.polarity.name for t in polarized.tokens}}


def scenario_probe(work: Path) -> dict[str, Any]:
    from engine.probes import get_suite
    from engine.probes.runner import run_probe
    from engine.store.store import RunStore

    settings = _scenario_settings(work)
    suite = get_suite("equivalence")
    assert suite.generate is not None
    items = suite.generate(6, 0)
    name, victim = _tiny_victim(work, settings)
    with RunStore.open(work / "probe.sqlite") as store:
        run = run_probe(store, "offline", suite.name, items, victim, name, "generated:n=6", 0, batch=4)
    with RunStore.open(work / "probe.sqlite") as store:  # read back from the file
        results = store.probe_results(store.probe_run("offline").id)
    return {"items": len(items), "stored": [r.item_index for r in results], "finished": run.finished_at is not None,
            "predicted": sorted({r.predicted_label for r in results})}


SCENARIOS: dict[str, Callable[[Path], dict[str, Any]]] = {
    "attack": scenario_attack, "inspect": scenario_inspect, "probe": scenario_probe,
}


def scenario_main(name: str, work: str) -> None:
    """Entry point of the scenario interpreter: guard first, then the scenario; one JSON line."""
    guard = SocketGuard().install()
    summary: dict[str, Any] = {"offline_flags": {k: os.environ.get(k) for k in OFFLINE_FLAGS}}
    try:
        summary["result"], summary["error"] = SCENARIOS[name](Path(work)), None
    except BaseException:  # noqa: B036 - reported to the test, with the attempts so far
        summary["result"], summary["error"] = None, traceback.format_exc()
    summary["attempts"] = guard.attempts
    print(RESULT_MARK + json.dumps(summary), flush=True)


def run_scenario(name: str, work: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE_FLAGS}
    script = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
              f"from tests.test_offline import scenario_main; scenario_main({name!r}, {str(work)!r})")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith(RESULT_MARK)]
    if not lines:
        pytest.fail(f"scenario {name!r} printed no summary (exit {done.returncode}):\n{done.stderr[-4000:]}")
    summary = json.loads(lines[-1][len(RESULT_MARK):])
    assert summary["offline_flags"] == dict.fromkeys(OFFLINE_FLAGS)
    assert summary["attempts"] == [], f"scenario {name!r} tried the network:\n{describe(summary['attempts'])}"
    assert summary["error"] is None, summary["error"]
    return summary["result"]


# --- the guard itself -------------------------------------------------------------------------

def test_guard_refuses_other_machines_and_allows_loopback(no_network: SocketGuard) -> None:
    with pytest.raises(NetworkAttempt):
        socket.create_connection(("93.184.216.34", 80), timeout=1)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(NetworkAttempt):
        sock.connect_ex(("93.184.216.34", 80))
    with pytest.raises(NetworkAttempt):
        socket.getaddrinfo("huggingface.co", 443)
    assert [a["call"] for a in no_network.attempts] == [
        "socket.create_connection", "socket.connect_ex", "socket.getaddrinfo"]
    # Each attempt names the code that made it (here: this test).
    assert "test_guard_refuses_other_machines_and_allows_loopback" in no_network.attempts[0]["stack"][-1]
    no_network.attempts.clear()  # expected: the fixture's own check must pass
    # Loopback (IPv4, by name) and Unix sockets still work.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(("localhost", server.getsockname()[1]), timeout=5):
            pass
    left, right = socket.socketpair(socket.AF_UNIX)
    left.close()
    right.close()
    assert no_network.attempts == []


# --- provisioning ---------------------------------------------------------------------------

@pytest.fixture()
def empty_nltk_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """NLTK sees no WordNet anywhere until provisioning puts one in the test's folder."""
    import nltk

    monkeypatch.setattr(nltk.data, "path", [])


def test_provision_copies_debian_wordnet_without_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network: SocketGuard, empty_nltk_path: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from engine.core import resources
    from engine.core.settings import get_settings

    missing = [n for n in resources.WORDNET_FILES if not (resources.WORDNET_DEBIAN_DIR / n).is_file()]
    if missing:
        pytest.skip(f"Debian WordNet files missing in {resources.WORDNET_DEBIAN_DIR}: {', '.join(missing)} "
                    f"(apt-get install {' '.join(resources.WORDNET_DEBIAN_PACKAGES)})")
    import nltk

    downloads: list[tuple[Any, ...]] = []

    def refuse_download(*args: Any, **kwargs: Any) -> bool:
        downloads.append(args)  # recorded too: a caller might swallow the error
        raise AssertionError(f"nltk.download called although an offline copy exists: {args} {kwargs}")

    monkeypatch.setattr(nltk, "download", refuse_download)
    settings = get_settings().with_overrides(
        data_dir=tmp_path, nltk_data=tmp_path / "nltk_data", db_path=tmp_path / "natlog.sqlite",
        models_dir=tmp_path / "models", pp_inventory=tmp_path / "pp_inventory.json",
    )
    assert not resources.check_wordnet(settings).found
    report = {r.name: r for r in resources.provision(settings)}
    target = resources.wordnet_dir(settings)
    assert report["wordnet"].found and Path(report["wordnet"].location) == target
    assert all((target / n).is_file() for n in resources.WORDNET_FILES)
    assert (target / "lexnames").read_text(encoding="ascii") == resources.lexnames_text()
    assert no_network.attempts == [] and downloads == []
    # Provisioning again finds the copy and copies nothing.
    stamp = (target / "data.noun").stat().st_mtime_ns
    assert resources.provision_wordnet(settings).found
    assert (target / "data.noun").stat().st_mtime_ns == stamp and downloads == []
    assert "nltk_data" not in capsys.readouterr().err


def test_download_is_the_last_resort(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, empty_nltk_path: None) -> None:
    import nltk

    from engine.core import resources
    from engine.core.settings import Settings

    if not (resources.WORDNET_DEBIAN_DIR / "data.noun").is_file():
        pytest.skip(f"Debian WordNet is not installed in {resources.WORDNET_DEBIAN_DIR}")
    settings = Settings(nltk_data=tmp_path / "nltk_data")
    calls: list[str] = []
    real_install = resources.install_wordnet_from_debian

    def no_debian(settings: Settings, source: Path = resources.WORDNET_DEBIAN_DIR) -> Path:
        calls.append("debian")
        raise resources.ResourceError(f"WordNet files missing in {tmp_path / 'empty'}: data.noun")

    def download(package: str, download_dir: str, **kwargs: Any) -> bool:
        calls.append("download")
        assert package == "wordnet" and download_dir == str(settings.nltk_data) and kwargs["quiet"]
        real_install(settings)  # stands in for the files the download brings
        return True

    monkeypatch.setattr(resources, "install_wordnet_from_debian", no_debian)
    monkeypatch.setattr(nltk, "download", download)
    assert resources.provision_wordnet(settings).found
    assert calls == ["debian", "download"]


def test_failed_download_is_one_line_and_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network: SocketGuard, empty_nltk_path: None,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The real ``nltk.download`` with the network refused: no traceback, no ``[nltk_data]``
    line, one ``ResourceError`` line naming both failures."""
    from engine.core import resources
    from engine.core.settings import Settings

    def no_debian(settings: Settings, source: Path = resources.WORDNET_DEBIAN_DIR) -> Path:
        raise resources.ResourceError(f"WordNet files missing in {tmp_path / 'empty'}: data.noun")

    monkeypatch.setattr(resources, "install_wordnet_from_debian", no_debian)
    settings = Settings(nltk_data=tmp_path / "nltk_data")
    with pytest.raises(resources.ResourceError) as failure:
        resources.provision_wordnet(settings)
    message = str(failure.value)
    assert "\n" not in message
    assert "files missing" in message and "nltk.download('wordnet') failed" in message
    assert no_network.attempts, "the real nltk.download should have tried the network (and been refused)"
    no_network.attempts.clear()  # expected here: the download is the last resort
    out, err = capfd.readouterr()
    assert out == "" and err == ""


# --- the pipeline, in a fresh interpreter ------------------------------------------------------

@pytest.mark.slow
def test_attack_makes_no_connection(tmp_path: Path) -> None:
    result = run_scenario("attack", tmp_path)
    assert result["original"] == "contradiction"  # the tiny victim's bias
    assert result["status"] in {"success", "failed"} and result["rounds"] >= 1
    assert result["candidates"] > 0 and 1 < result["queries"] <= 10


@pytest.mark.slow
def test_inspection_makes_no_connection(tmp_path: Path) -> None:
    result = run_scenario("inspect", tmp_path)
    assert result["parser"].startswith("spacy")
    assert result["polarity"]["dog"] == "DOWN" and result["polarity"]["cat"] == "UP", result["marked"]


@pytest.mark.slow
def test_probe_run_makes_no_connection(tmp_path: Path) -> None:
    result = run_scenario("probe", tmp_path)
    assert result["items"] >= 1 and result["stored"] == list(range(result["items"]))
    assert result["finished"] and result["predicted"] == ["contradiction"]
