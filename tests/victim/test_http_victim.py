"""The Victim protocol and its registry of kinds: a real (tiny) BERT classifier served over HTTP by
the test itself, answering as the Hugging Face victim does; malformed answers are one-line errors
naming the endpoint; and the served victim attacked end to end through ``python -m engine attack``,
its identity stored with the run."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.victim.identity import model_identity, victim_identity
from engine.victim.model import CachedVictim, HFVictim, HTTPVictim, Victim, load_victim, victim_labels, victim_location
from engine.victim.registry import VICTIM_KINDS, victim_kind
from tests.tiny_models import build_tiny_classifier

PAIRS = [
    ("A man is playing a guitar on stage.", "A man plays music."),
    ("Two dogs run through a field.", "Animals are outside."),
    ("A woman in a red dress is dancing at a long party with many friends.", "Nobody dances."),
    ("Kids.", "Children are asleep in the back of the car."),
]
SERVER_LABELS = ["CONTRADICTION", "ENTAILMENT", "NEUTRAL"]  # the served model's output order
MODEL_ID = "tiny-bert-v1"

Reply = Callable[[list[tuple[str, str]]], tuple[int, bytes]]


class Served:
    """A classifier behind ``http.server``. ``reply`` (None: the protocol's answer) answers each POST,
    ``batch_reply`` each POST but the empty batch a victim sends when it loads."""

    def __init__(self, victim: HFVictim) -> None:
        self.victim = victim
        self.requests: list[list[tuple[str, str]]] = []
        self.reply: Reply | None = None
        self.batch_reply: Reply | None = None
        self.model: str | None = MODEL_ID
        self.url = ""

    def answer(self, pairs: list[tuple[str, str]]) -> tuple[int, bytes]:
        if self.reply is not None:
            return self.reply(pairs)
        if self.batch_reply is not None and pairs:
            return self.batch_reply(pairs)
        probs = [list(row) for row in self.victim.probabilities(pairs)] if pairs else []
        return 200, json.dumps({"labels": SERVER_LABELS, "probs": probs, "model": self.model}).encode()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_classifier(tmp_path_factory.mktemp("served") / "tiny", dict(enumerate(SERVER_LABELS)), seed=2,
                                 initializer_range=0.5)


@pytest.fixture(scope="module")
def served(folder: Path, settings) -> Iterator[Served]:
    victim = load_victim(str(folder), settings=settings)
    assert isinstance(victim, HFVictim)
    state = Served(victim)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            pairs = [(p["premise"], p["hypothesis"]) for p in body["pairs"]]
            state.requests.append(pairs)
            status, payload = state.answer(pairs)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/nli"
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def plain_server(served: Served, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with the protocol's answers, and no proxy between the test and its server."""
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    served.reply, served.batch_reply, served.model = None, None, MODEL_ID
    yield
    served.reply, served.batch_reply, served.model = None, None, MODEL_ID


def test_both_kinds_satisfy_the_protocol_and_answer_alike(served: Served, folder: Path, settings) -> None:
    hf = load_victim(str(folder), settings=settings)
    remote = load_victim(served.url, settings=settings)
    assert isinstance(hf, HFVictim) and isinstance(remote, HTTPVictim)
    assert isinstance(hf, Victim) and isinstance(remote, Victim) and isinstance(remote, CachedVictim)
    assert not isinstance(object(), Victim)
    assert hf.labels == remote.labels == ("contradiction", "entailment", "neutral")
    before = len(served.requests)
    counter = remote.counter()
    over_http = counter.predict(PAIRS + PAIRS[:1])
    assert [(p.premise, p.hypothesis) for p in over_http] == PAIRS + PAIRS[:1]
    for direct, remote_pred in zip(hf.predict(PAIRS), over_http):
        assert remote_pred.probs == pytest.approx(direct.probs, abs=1e-6) and remote_pred.label == direct.label
    assert (counter.queries, counter.cache_hits) == (4, 1)
    assert (remote.evaluations, remote.forward_passes) == (4, 1) and remote.cached(PAIRS[0])
    assert served.requests[before:] == [sorted(PAIRS, key=lambda pair: len(pair[0]) + len(pair[1]))]
    remote.predict(PAIRS)  # all cached: nothing is sent
    assert len(served.requests) == before + 1
    assert remote.identity() == {"kind": "http", "location": served.url, "labels": list(remote.labels),
                                 "model": MODEL_ID}
    assert hf.identity()["kind"] == "huggingface" and hf.identity()["model"].startswith("tiny@sha256:")


def test_batches_follow_batch_size(served: Served) -> None:
    remote = HTTPVictim(served.url, batch_size=3)
    before = len(served.requests)
    remote.predict([(f"A dog number {k} barks.", "A dog barks.") for k in range(7)])
    assert [len(batch) for batch in served.requests[before:]] == [3, 3, 1]
    assert (remote.evaluations, remote.forward_passes) == (7, 3)


def test_the_registry_chooses_the_kind_from_the_spec(served: Served, folder: Path, settings) -> None:
    assert list(VICTIM_KINDS.names()) == ["huggingface", "http"]
    assert victim_kind("offline").name == victim_kind(str(folder)).name == victim_kind("org/model").name == "huggingface"
    assert victim_kind(served.url).name == victim_kind("HTTPS://example.org/nli").name == "http"
    assert victim_location(served.url, settings) == served.url
    assert victim_labels(served.url) == ("contradiction", "entailment", "neutral")
    assert victim_labels(served.url, "neutral,entailment,contradiction") == ("neutral", "entailment", "contradiction")
    assert model_identity(served.url) == f"{MODEL_ID}@{served.url}"
    assert victim_identity(served.url, "contradiction,entailment,neutral") == {
        "kind": "http", "location": served.url, "model": MODEL_ID, "label_map": "contradiction,entailment,neutral"}
    # A Hugging Face victim's stored identity keeps its shape: by weights, not path, kind or location.
    hf = victim_identity(str(folder), "contradiction,entailment,neutral")
    assert set(hf) == {"model", "label_map"} and hf["model"] == model_identity(str(folder))
    served.model = None  # a server that names no model is identified by its URL
    assert model_identity(served.url) == served.url and victim_identity(served.url)["model"] is None


@pytest.mark.parametrize("spec, message", [
    ("ftp://example.org/nli", r"^victim 'ftp://example.org/nli': no victim kind takes it; give 'offline', .*http://"),
    ("http:///nli", "not an http:// or https:// URL with a host"),
    ("http://user:secret@example.org/nli", "must not carry credentials"),
    ("http://example.org:99999/nli", "port"),
])
def test_unknown_and_bad_specs_are_one_line_input_errors(spec: str, message: str, settings) -> None:
    with pytest.raises(InputError, match=message) as caught:
        load_victim(spec, settings=settings)
    assert "\n" not in str(caught.value)


def _json(value: Any, status: int = 200) -> Reply:
    return lambda pairs: (status, json.dumps(value).encode())


def _rows(make: Callable[[int], Any], **extra: Any) -> Reply:
    return lambda pairs: (200, json.dumps({"labels": SERVER_LABELS, "probs": [make(k) for k in range(len(pairs))],
                                           **extra}).encode())


MALFORMED: dict[str, tuple[Reply, str]] = {
    "not JSON": (lambda pairs: (200, b"<html>oops</html>"), "the response is not JSON"),
    "a list": (_json([[0.2, 0.3, 0.5]]), "must be a JSON object"),
    "no labels": (_json({"probs": [[0.2, 0.3, 0.5]]}), "'labels' must be a non-empty list of strings"),
    "no probs": (_json({"labels": SERVER_LABELS}), "'probs' must be a list"),
    "too few rows": (lambda pairs: (200, json.dumps({"labels": SERVER_LABELS, "probs": []}).encode()),
                     "'probs' has 0 rows for 1 pairs"),
    "short row": (_rows(lambda k: [0.5, 0.5]), "row 0 of 'probs' must be a list of 3 numbers"),
    "not a sum of 1": (_rows(lambda k: [0.5, 0.5, 0.5]), "row 0 of 'probs' sums to 1.5, not 1"),
    "negative": (_rows(lambda k: [-0.5, 0.5, 1.0]), "not a probability"),
    "a string": (_rows(lambda k: ["0.2", 0.3, 0.5]), "not a probability"),
    "server error": (lambda pairs: (500, b"CUDA out of memory\nat line 3"), r"HTTP 500 .*\(CUDA out of memory at line 3\)"),
    "labels change": (lambda pairs: (200, json.dumps({"labels": ["ENTAILMENT", "NEUTRAL", "CONTRADICTION"],
                                                      "probs": [[0.2, 0.3, 0.5]] * len(pairs)}).encode()),
                      "its labels changed"),
    "model changes": (_rows(lambda k: [0.2, 0.3, 0.5], model="another-model"), "now serves model 'another-model'"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_answers_are_one_line_errors_naming_the_endpoint(served: Served, case: str) -> None:
    remote = HTTPVictim(served.url)  # the empty batch at load is answered as the protocol says
    reply, message = MALFORMED[case]
    served.batch_reply = reply
    with pytest.raises(ResourceError, match=message) as caught:
        remote.predict(PAIRS[:1])
    text = str(caught.value)
    assert "\n" not in text and text.startswith(f"victim endpoint {served.url}: ")
    assert not remote.cached(PAIRS[0]) and remote.evaluations == 0


def test_labels_no_kind_can_map_are_refused_at_load(served: Served) -> None:
    served.reply = _json({"labels": ["yes", "no", "maybe"], "probs": []})
    with pytest.raises(InputError, match=r"victim endpoint http://127\.0\.0\.1:\d+/nli: cannot map") as caught:
        HTTPVictim(served.url)
    assert "\n" not in str(caught.value)
    # ... unless a label map names them in column order, as for a model that says LABEL_0..2
    served.reply = lambda pairs: (200, json.dumps({"labels": ["LABEL_0", "LABEL_1", "LABEL_2"],
                                                   "probs": [[0.7, 0.2, 0.1]] * len(pairs)}).encode())
    mapped = HTTPVictim(served.url, label_map="neutral,entailment,contradiction")
    assert mapped.predict(PAIRS[:1])[0].prob("neutral") == pytest.approx(0.7) and mapped.identity()["model"] is None


def test_an_unreachable_or_slow_endpoint_is_one_line(served: Served, settings) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ResourceError, match=rf"^victim endpoint http://127.0.0.1:{port}/nli: cannot reach it"):
        load_victim(f"http://127.0.0.1:{port}/nli", settings=settings)
    remote = HTTPVictim(served.url, timeout_s=0.3)

    def slow(pairs: list[tuple[str, str]]) -> tuple[int, bytes]:
        time.sleep(1.0)
        return 200, b"{}"

    served.reply = slow
    with pytest.raises(ResourceError, match=r"no answer within 0\.3 s") as caught:
        remote.predict(PAIRS[:1])
    assert "\n" not in str(caught.value)
    time.sleep(1.0)  # let the server finish the slow answer before the next test


@pytest.mark.slow
def test_a_served_victim_is_attacked_end_to_end_and_named_in_its_run(served: Served, tmp_path: Path, capsys) -> None:
    """``python -m engine attack --victim http://…``: the attack's queries go over HTTP, and the run
    stores the kind, the URL and the model the server reports; a resume against a server that now
    serves another model is refused in one line."""
    from engine.cli import main
    from engine.store.store import RunStore

    remote = HTTPVictim(served.url)
    predicted = remote.predict(PAIRS[:2])
    label = predicted[0].label
    data = tmp_path / "served.tsv"
    data.write_text("".join(f"{k}\t{p.premise}\t{p.hypothesis}\t{p.label.upper()}\n" for k, p in enumerate(predicted)),
                    encoding="utf-8")
    setup = {"entailment": "E2E", "contradiction": "C2C", "neutral": "N2N"}[label]
    db = tmp_path / "runs.sqlite"
    command = ["attack", "--data", str(data), "--format", "tsv", "--setup", setup, "--victim", served.url,
               "--limit", "1", "--budget", "5", "--top", "3", "--no-alt-lm", "--db", str(db), "--run-name", "served"]
    before = len(served.requests)
    assert main(command) == 0, capsys.readouterr().err
    asked = [batch for batch in served.requests[before:] if batch]
    assert asked and all(len(pair) == 2 for batch in asked for pair in batch)
    with RunStore.open(db) as store:
        run = store.run("served")
        attacks = store.attacks(run.id, with_trace=False)
    assert run.victim == served.url
    assert run.config["victim"] == {"kind": "http", "location": served.url, "model": MODEL_ID,
                                    "label_map": "contradiction,entailment,neutral"}
    assert len(attacks) == 1 and attacks[0].record.queries >= 1
    served.model = "tiny-bert-v2"
    capsys.readouterr()
    assert main(command) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "cannot resume" in err and "victim.model" in err
