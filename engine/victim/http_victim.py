"""The HTTP victim kind: a classifier served at an ``http://`` or ``https://`` URL speaking a small
JSON protocol (``docs/victims.md``), asked with the standard library alone.

Request, one ``POST`` per batch: ``{"pairs": [{"premise": "…", "hypothesis": "…"}, …]}``.
Response (status 200): ``{"labels": ["entailment", "neutral", "contradiction"], "probs": [[…], …],
"model": "an-id"}``: ``labels`` names each column (the same list in every response), ``probs``
has one row per pair in request order, each of ``len(labels)`` numbers in [0, 1] summing to 1
(within :data:`SUM_TOLERANCE`); ``model`` is optional and, when given, the same in every response.
When the victim is loaded it sends an empty batch, so the server must answer ``{"pairs": []}``
with its labels (and model id) and no rows: that is how labels and identity are known before any
query. Anything else (another status, no JSON, a wrong shape or length, rows that are not
probabilities, labels that change or cannot be mapped, no answer within the timeout) is a one-line
error naming the endpoint.
"""

from __future__ import annotations

import http.client
import json
import math
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from engine.core.errors import InputError
from engine.core.resources import ResourceError
from engine.victim.base import CachedVictim, Pair, resolve_labels

#: Seconds one request may take, connection included.
TIMEOUT_S = 30.0
#: How far a row's sum may be from 1.
SUM_TOLERANCE = 1e-3
#: The largest response read (bytes).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024


def check_url(url: str) -> str:
    """``url`` if it is an http(s) URL with a host and no credentials (they would be stored with
    every run), else an InputError."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise InputError(f"victim {url!r}: not an http:// or https:// URL with a host")
    if parts.username or parts.password:
        raise InputError(f"victim {url!r}: a victim URL must not carry credentials (it is stored with every run)")
    try:
        _ = parts.port  # a port that is not a number raises here
    except ValueError:
        raise InputError(f"victim {url!r}: the port is not a number from 0 to 65535") from None
    return url


@dataclass(frozen=True)
class Answer:
    """One validated response: the server's column labels, one row per pair, its model id (or None)."""

    labels: tuple[str, ...]
    rows: list[tuple[float, ...]]
    model: str | None


def _one_line(text: str, width: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[:width - 1] + "…"


def ask(url: str, batch: Sequence[Pair], timeout_s: float = TIMEOUT_S) -> Answer:
    """POST ``batch`` to ``url`` and validate the answer strictly (ResourceError naming the endpoint)."""

    def fail(problem: str) -> ResourceError:
        return ResourceError(_one_line(f"victim endpoint {url}: {problem}", 400))

    body = json.dumps({"pairs": [{"premise": p, "hypothesis": h} for p, h in batch]}, ensure_ascii=False).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json; charset=utf-8", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            raw = response.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as exc:
        detail = _one_line(exc.read(300).decode("utf-8", "replace")) if exc.fp is not None else ""
        raise fail(f"HTTP {exc.code} {exc.reason}" + (f" ({detail})" if detail else "")) from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise fail(f"no answer within {timeout_s:g} s") from None
        raise fail(f"cannot reach it ({exc.reason})") from None
    except TimeoutError:
        raise fail(f"no answer within {timeout_s:g} s") from None
    except (OSError, http.client.HTTPException) as exc:
        raise fail(f"the connection failed ({type(exc).__name__}: {exc})") from None
    if len(raw) > MAX_RESPONSE_BYTES:
        raise fail(f"the response is larger than {MAX_RESPONSE_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise fail(f"the response is not JSON ({_one_line(raw[:80].decode('utf-8', 'replace')) or 'empty'})") from None
    if not isinstance(data, dict):
        raise fail(f"the response must be a JSON object with labels and probs, not {type(data).__name__}")
    labels, probs, model = data.get("labels"), data.get("probs"), data.get("model")
    if not isinstance(labels, list) or not labels or not all(isinstance(label, str) for label in labels):
        raise fail("'labels' must be a non-empty list of strings")
    if not isinstance(probs, list):
        raise fail("'probs' must be a list with one row per pair")
    if len(probs) != len(batch):
        raise fail(f"'probs' has {len(probs)} rows for {len(batch)} pairs")
    if model is not None and not isinstance(model, str):
        raise fail("'model' must be a string when given")
    rows = []
    for k, row in enumerate(probs):
        if not isinstance(row, list) or len(row) != len(labels):
            raise fail(f"row {k} of 'probs' must be a list of {len(labels)} numbers (one per label)")
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and 0 <= x <= 1
                   for x in row):
            raise fail(f"row {k} of 'probs' holds a value that is not a probability: {row}")
        if abs(sum(row) - 1) > SUM_TOLERANCE:
            raise fail(f"row {k} of 'probs' sums to {sum(row):.6g}, not 1")
        rows.append(tuple(float(x) for x in row))
    return Answer(tuple(labels), rows, model)


class HTTPVictim(CachedVictim):
    """A victim served over HTTP (see the module docstring for the protocol)."""

    kind = "http"

    def __init__(self, url: str, label_map: str | None = None, timeout_s: float = TIMEOUT_S,
                 batch_size: int = 32, cache_size: int = 200_000) -> None:
        self.url = check_url(url)
        self.timeout_s = timeout_s
        hello = ask(self.url, [], timeout_s)  # labels and model id, before any query
        self.server_labels, self.server_model = hello.labels, hello.model
        labels = resolve_labels(dict(enumerate(hello.labels)), len(hello.labels), label_map,
                                where=f"victim endpoint {self.url}")
        super().__init__(self.url, labels, batch_size=batch_size, cache_size=cache_size)

    def probabilities(self, batch: list[Pair]) -> Sequence[Sequence[float]]:
        answer = ask(self.url, batch, self.timeout_s)
        if answer.labels != self.server_labels:
            raise ResourceError(f"victim endpoint {self.url}: its labels changed from {list(self.server_labels)} "
                                f"to {list(answer.labels)} since it was loaded")
        if answer.model != self.server_model:
            raise ResourceError(f"victim endpoint {self.url}: it now serves model {answer.model!r}, not "
                                f"{self.server_model!r} as when it was loaded")
        return answer.rows

    def model_identity(self) -> str | None:
        return self.server_model


def http_model_identity(url: str, model: str | None) -> str:
    """One string naming a served model: ``ID@URL``, or the URL when the server names none."""
    return f"{model}@{url}" if model else url


def endpoint_labels(url: str, label_map: str | None = None, timeout_s: float = TIMEOUT_S) -> tuple[str, ...]:
    """The NLI label of each column the endpoint answers, from one empty batch."""
    hello = ask(check_url(url), [], timeout_s)
    return resolve_labels(dict(enumerate(hello.labels)), len(hello.labels), label_map, where=f"victim endpoint {url}")


def endpoint_model(url: str, timeout_s: float = TIMEOUT_S) -> str | None:
    """The model id the endpoint reports (None when it reports none), from one empty batch."""
    return ask(check_url(url), [], timeout_s).model
