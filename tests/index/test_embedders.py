"""The embedders (webmd_spider/index/embedders.py), run for real.

* wordllama: the model bundled in its wheel, loaded offline.
* http: a real HTTP server on 127.0.0.1 (``http.server`` in a thread) speaking the
  OpenAI embeddings API, scripted per test (statuses, Retry-After, malformed answers).
  Retry waits go through the embedder's ``sleep`` hook, which records what the policy
  asked for; nothing here reads or asserts on the clock.
* sentence-transformers and fastembed are not installed here and would fetch their
  models from a hub by name: only their error paths (missing library, missing folder)
  can be tested.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from webmd_spider.index.embedders import (
    ACCEPTED_SPECS,
    PROBE_TEXT,
    Embedder,
    EmbedderError,
    HttpEmbedder,
    WordLlamaEmbedder,
    open_embedder,
    retry_after_seconds,
)

DIM = 8

# -- wordllama --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wordllama() -> Embedder:
    return open_embedder()


def test_wordllama_is_the_default_with_its_identity(wordllama: Embedder) -> None:
    assert isinstance(wordllama, WordLlamaEmbedder)
    assert isinstance(wordllama, Embedder)
    assert wordllama.name == "wordllama:l2_supercat:256"
    assert wordllama.dim == 256


def test_wordllama_embeds_normalised_float32_rows(wordllama: Embedder) -> None:
    texts = [
        "How do I create a virtual environment?",
        "venv creates isolated Python environments",
        "The array module defines compact arrays",
    ]
    vectors = wordllama.embed(texts)
    assert vectors.shape == (3, 256)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    related = float(vectors[0] @ vectors[1])
    unrelated = float(vectors[0] @ vectors[2])
    assert related > unrelated + 0.1
    assert np.array_equal(wordllama.embed(texts), vectors)


def test_wordllama_blank_texts_are_zero_rows_and_no_texts_no_rows(wordllama: Embedder) -> None:
    vectors = wordllama.embed(["", "a real sentence", " \n\t "])
    assert vectors.shape == (3, 256)
    assert not vectors[0].any() and not vectors[2].any()
    assert math.isclose(float(np.linalg.norm(vectors[1])), 1.0, abs_tol=1e-5)
    assert wordllama.embed([]).shape == (0, 256)
    assert wordllama.embed([]).dtype == np.float32


def test_wordllama_rows_do_not_depend_on_their_batch(wordllama: Embedder) -> None:
    # texts are sorted by length and cut into batches by count and padded size; each
    # row must still be the text's own vector, in the caller's order
    texts = [f"word{i} " * (1 + (i * 37) % 400) for i in range(150)]
    texts[7] = "an enormous chunk " * 9000  # over the padded-size budget alone
    together = open_embedder(batch=16).embed(texts)
    for i in (0, 7, 42, 149):
        alone = wordllama.embed([texts[i]])[0]
        assert np.allclose(together[i], alone, atol=1e-5)


def test_wordllama_loads_once_and_truncates_to_smaller_dimensions() -> None:
    assert open_embedder()._model is open_embedder("wordllama")._model  # type: ignore[attr-defined]
    small = open_embedder("wordllama:64")
    assert (small.name, small.dim) == ("wordllama:l2_supercat:64", 64)
    vectors = small.embed(["sixty-four dimensions"])
    assert vectors.shape == (1, 64)
    assert math.isclose(float(np.linalg.norm(vectors[0])), 1.0, abs_tol=1e-5)


def test_import_costs_no_numpy_nor_model() -> None:
    code = (
        "import sys, webmd_spider.index.embedders; "
        "print(sorted(m for m in ('numpy', 'wordllama') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# -- specs ------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["word2vec", "wordllama:100", "http:x", "fastembed:", ""])
def test_an_unknown_spec_lists_the_accepted_forms(spec: str) -> None:
    with pytest.raises(ValueError) as info:
        open_embedder(spec)
    for form in ACCEPTED_SPECS:
        assert form in str(info.value)


def test_http_without_a_url_is_an_embedder_error() -> None:
    with pytest.raises(EmbedderError, match="embed_url"):
        open_embedder("http")


# -- local model folders: only the error paths can run here ---------------------------


@pytest.mark.parametrize("kind", ["sentence-transformers", "fastembed"])
def test_a_missing_model_folder_is_named(kind: str, tmp_path: Path) -> None:
    folder = tmp_path / "no-such-model"
    with pytest.raises(EmbedderError) as info:
        open_embedder(f"{kind}:{folder}", embed_model="BAAI/bge-small-en-v1.5")
    message = str(info.value)
    assert kind in message and str(folder) in message and "does not exist" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("kind", "module", "package"),
    [
        ("sentence-transformers", "sentence_transformers", "pip install sentence-transformers"),
        ("fastembed", "fastembed", "pip install fastembed"),
    ],
)
def test_a_missing_library_names_the_package_to_install(
    kind: str, module: str, package: str, tmp_path: Path
) -> None:
    if importlib.util.find_spec(module) is not None:
        pytest.skip(f"{module} is installed here")
    with pytest.raises(EmbedderError) as info:
        open_embedder(f"{kind}:{tmp_path}", embed_model="BAAI/bge-small-en-v1.5")
    assert package in str(info.value)


def test_fastembed_needs_the_model_name_its_folder_holds(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match="embed_model"):
        open_embedder(f"fastembed:{tmp_path}")


# -- an OpenAI-compatible endpoint, served for real ---------------------------------------


def vector_of(text: str, dim: int = DIM) -> list[float]:
    """The test server's embedding of ``text``: deterministic, not normalised."""
    digest = hashlib.sha256(text.encode()).digest()
    return [float(b) - 127.5 for b in digest[:dim]]


Answer = tuple[int, dict[str, str], bytes]


def embeddings_answer(texts: list[str], *, reverse: bool = False) -> Answer:
    data = [
        {"object": "embedding", "index": i, "embedding": vector_of(t)} for i, t in enumerate(texts)
    ]
    if reverse:
        data.reverse()
    body = {"object": "list", "data": data, "model": "m", "usage": {"prompt_tokens": 1}}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


class EmbeddingsServer:
    """A real HTTP server on 127.0.0.1. ``script(texts, attempt)`` makes each answer
    (``attempt`` counts the requests so far, from 0); ``requests`` records each one's
    headers and JSON body."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []
        self.script: Callable[[list[str], int], Answer] = lambda texts, _: embeddings_answer(texts)
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                payload = json.loads(self.rfile.read(length))
                attempt = len(server.requests)
                server.requests.append((dict(self.headers.items()), payload))
                status, headers, body = server.script(payload["input"], attempt)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/embeddings"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def inputs(self) -> list[list[str]]:
        return [payload["input"] for _, payload in self.requests]

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def server() -> Iterator[EmbeddingsServer]:
    running = EmbeddingsServer()
    try:
        yield running
    finally:
        running.stop()


def http_embedder(server: EmbeddingsServer, **kwargs: Any) -> tuple[HttpEmbedder, list[float]]:
    """An embedder on ``server`` whose waits are recorded, not slept."""
    waits: list[float] = []
    kwargs.setdefault("model", "m")
    return HttpEmbedder(server.url, sleep=waits.append, **kwargs), waits


def test_http_probes_its_dimension_on_open(server: EmbeddingsServer) -> None:
    embedder = open_embedder("http", embed_url=server.url, embed_model="text-embedding-3-small")
    assert isinstance(embedder, Embedder)
    assert embedder.dim == DIM
    assert embedder.name == f"http:{server.url}:text-embedding-3-small:{DIM}"
    assert server.inputs == [[PROBE_TEXT]]
    assert server.requests[0][1]["model"] == "text-embedding-3-small"


def test_http_with_a_known_dimension_sends_nothing_on_open(server: EmbeddingsServer) -> None:
    embedder = open_embedder("http", embed_url=server.url, embed_model="m", embed_dim=DIM)
    assert embedder.name == f"http:{server.url}:m:{DIM}"
    assert server.requests == []
    embedder.embed(["one"])
    assert server.inputs == [["one"]]


def test_http_batches_in_order_and_normalises(server: EmbeddingsServer) -> None:
    server.script = lambda texts, _: embeddings_answer(texts, reverse=True)  # index order
    embedder, _ = http_embedder(server, batch=4, dim=DIM)
    texts = [f"text number {i}" for i in range(10)]
    vectors = embedder.embed(texts)
    assert server.inputs == [texts[0:4], texts[4:8], texts[8:10]]
    assert vectors.shape == (10, DIM) and vectors.dtype == np.float32
    expected = np.array([vector_of(t) for t in texts])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)


def test_http_never_sends_blank_texts(server: EmbeddingsServer) -> None:
    embedder, _ = http_embedder(server, dim=DIM)
    vectors = embedder.embed(["", "words", "   "])
    assert server.inputs == [["words"]]
    assert not vectors[0].any() and not vectors[2].any()
    assert embedder.embed(["", " "]).shape == (2, DIM)
    assert len(server.requests) == 1


def test_http_sends_the_key_from_the_environment(
    server: EmbeddingsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_EMBED_KEY", "s3cret")
    embedder, _ = http_embedder(server, dim=DIM, key_env="TEST_EMBED_KEY")
    embedder.embed(["with a key"])
    monkeypatch.delenv("TEST_EMBED_KEY")
    embedder.embed(["without"])
    headers = [{k.lower(): v for k, v in h.items()} for h, _ in server.requests]
    assert headers[0]["authorization"] == "Bearer s3cret"
    assert "authorization" not in headers[1]
    assert "s3cret" not in embedder.name


def test_http_429_is_retried_after_retry_after(server: EmbeddingsServer) -> None:
    def script(texts: list[str], attempt: int) -> Answer:
        if attempt == 0:
            return 429, {"Retry-After": "0"}, b'{"error": "rate limited"}'
        return embeddings_answer(texts)

    server.script = script
    # the real sleep (of 0 s): the path callers take
    embedder = open_embedder("http", embed_url=server.url, embed_model="m", embed_dim=DIM)
    vectors = embedder.embed(["after a 429"])
    assert len(server.requests) == 2
    assert server.inputs[0] == server.inputs[1] == ["after a 429"]
    assert math.isclose(float(np.linalg.norm(vectors[0])), 1.0, abs_tol=1e-5)


@pytest.mark.parametrize(
    ("retry_after", "waits"),
    [
        ("7", [7.0]),  # delay-seconds
        ("3600", [60.0]),  # capped at max_wait
        (None, [0.5, 1.0]),  # no header: exponential backoff
        ("soon", [0.5, 1.0]),  # neither form: as if absent
    ],
)
def test_http_503_waits_what_the_policy_says(
    server: EmbeddingsServer, retry_after: str | None, waits: list[float]
) -> None:
    def script(texts: list[str], attempt: int) -> Answer:
        if attempt < len(waits):
            headers = {"Retry-After": retry_after} if retry_after is not None else {}
            return 503, headers, b"busy"
        return embeddings_answer(texts)

    server.script = script
    embedder, asked = http_embedder(server, dim=DIM, max_wait=60.0, backoff=0.5)
    embedder.embed(["patience"])
    assert asked == waits
    assert len(server.requests) == len(waits) + 1


def test_http_keeps_failing_500_gives_up_after_max_retries(server: EmbeddingsServer) -> None:
    server.script = lambda texts, _: (500, {}, b"model crashed\nTraceback ...")
    embedder, asked = http_embedder(server, dim=DIM, max_retries=3)
    with pytest.raises(EmbedderError) as info:
        embedder.embed(["doomed"])
    assert len(server.requests) == 4
    assert len(asked) == 3
    message = str(info.value)
    assert "\n" not in message
    assert f"embedding endpoint {server.url} answered 500" in message
    assert "model crashed" in message


def test_http_a_client_error_is_not_retried(server: EmbeddingsServer) -> None:
    server.script = lambda texts, _: (401, {}, b'{"error": "bad key"}')
    embedder, asked = http_embedder(server, dim=DIM)
    with pytest.raises(EmbedderError, match="answered 401"):
        embedder.embed(["no entry"])
    assert len(server.requests) == 1 and asked == []


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_http_unreachable_endpoint_is_one_line() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1/embeddings"
    with pytest.raises(EmbedderError) as info:
        open_embedder("http", embed_url=url, max_retries=0)
    message = str(info.value)
    assert message.startswith(f"embedding endpoint {url} unreachable: ")
    assert "\n" not in message


def test_http_unreachable_is_retried_then_given_up() -> None:
    waits: list[float] = []
    url = f"http://127.0.0.1:{free_port()}/v1/embeddings"
    with pytest.raises(EmbedderError, match=r"unreachable.*\(3 attempts\)"):
        HttpEmbedder(url, "m", max_retries=2, sleep=waits.append)
    assert waits == [0.5, 1.0]


def test_http_a_silent_server_times_out_as_unreachable(server: EmbeddingsServer) -> None:
    def script(texts: list[str], attempt: int) -> Answer:
        server.release.wait()  # answers only when the test is over
        return embeddings_answer(texts)

    server.script = script
    embedder, _ = http_embedder(server, dim=DIM, timeout=0.2, max_retries=0)
    with pytest.raises(EmbedderError, match="unreachable"):
        embedder.embed(["anyone there?"])


def data_of(*embeddings: Any) -> bytes:
    return json.dumps(
        {"data": [{"index": i, "embedding": e} for i, e in enumerate(embeddings)]}
    ).encode()


GOOD = [0.5] * DIM


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"<html>gateway</html>", "not JSON"),
        (b'{"embeddings": []}', "'data' list"),
        (b"[1, 2]", "'data' list"),
        (data_of(GOOD, GOOD, GOOD), "3 embeddings for 2 texts"),
        (data_of(GOOD, [0.5] * (DIM - 1)), f"{DIM - 1} dimensions, not {DIM}"),
        (data_of(GOOD, ["0.5"] * DIM), "not a list of numbers"),
        (data_of(GOOD, [True] * DIM), "not a list of numbers"),
        (data_of(GOOD, None), "not a list of numbers"),
        (data_of(GOOD, []), "empty embedding"),
        (data_of(GOOD, GOOD).replace(b"0.5]", b"NaN]", 1), "not JSON"),
        (json.dumps({"data": [{"index": 0, "embedding": GOOD}] * 2}).encode(), "indexes"),
        (json.dumps({"data": [GOOD, GOOD]}).encode(), "not an object"),
    ],
)
def test_http_malformed_answers_are_errors(
    server: EmbeddingsServer, body: bytes, says: str
) -> None:
    server.script = lambda texts, _: (200, {"Content-Type": "application/json"}, body)
    embedder, asked = http_embedder(server, dim=DIM)
    with pytest.raises(EmbedderError) as info:
        embedder.embed(["first", "second"])
    assert says in str(info.value)
    assert "\n" not in str(info.value)
    assert len(server.requests) == 1 and asked == []


def test_http_answers_without_indexes_are_in_input_order(server: EmbeddingsServer) -> None:
    def script(texts: list[str], _: int) -> Answer:
        body = {"data": [{"embedding": vector_of(t)} for t in texts]}
        return 200, {}, json.dumps(body).encode()

    server.script = script
    embedder, _ = http_embedder(server)
    vectors = embedder.embed(["a", "b"])
    assert np.allclose(vectors[1] * np.linalg.norm(vector_of("b")), vector_of("b"), atol=1e-4)


def test_http_name_and_messages_hide_credentials(server: EmbeddingsServer) -> None:
    port = server.httpd.server_address[1]
    url = f"http://127.0.0.1:{port}/v1/embeddings?api_key=hunter2&api-version=2024"
    embedder = HttpEmbedder(url, "m")
    assert "hunter2" not in embedder.name
    assert "api_key=***&api-version=2024" in embedder.name
    assert server.requests[0][0]["Host"] == f"127.0.0.1:{port}"
    server.script = lambda texts, _: (400, {}, b"no")
    with pytest.raises(EmbedderError) as info:
        embedder.embed(["x"])
    assert "hunter2" not in str(info.value)
    with pytest.raises(EmbedderError, match="WEBMD_EMBED_KEY") as info:
        HttpEmbedder(f"http://user:pw@127.0.0.1:{port}/v1/embeddings", "m")
    assert "pw" not in str(info.value)
    assert len(server.requests) == 2


def test_http_rejects_a_url_that_is_not_http() -> None:
    with pytest.raises(EmbedderError, match="not an http"):
        open_embedder("http", embed_url="file:///etc/passwd")


# -- Retry-After (RFC 9110 §10.2.3), pure ---------------------------------------------

NOW = datetime(2026, 12, 6, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, None),
        ("0", 0.0),
        ("45", 45.0),
        (" 5 ", 5.0),
        ("99999", 60.0),  # capped
        ("-5", None),
        ("1.5", None),
        ("tomorrow", None),
        (format_datetime(NOW + timedelta(seconds=30), usegmt=True), 30.0),  # IMF-fixdate
        ("Sunday, 06-Dec-26 12:00:45 GMT", 45.0),  # obsolete RFC 850 form
        ("Sun Dec  6 12:00:10 2026", 10.0),  # obsolete asctime form (GMT)
        (format_datetime(NOW - timedelta(hours=1), usegmt=True), 0.0),  # past: at once
    ],
)
def test_retry_after_both_forms(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, now=NOW, cap=60.0) == seconds
