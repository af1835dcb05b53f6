"""``webmd serve --index FILE``: ``POST /search``, served for real (uvicorn on a free
127.0.0.1 port, ``test_http_api.api_server``) and called with httpx, over a real index
built with the real wordllama model (``test_search_mcp.build_index``). One test runs the
``webmd serve`` command itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from webmd_spider.index.searching import MAX_K, MAX_QUERY_CHARS
from webmd_spider.service import serve
from webmd_spider.service.mcp_tools import SEARCH_HIT_CHARS

from .test_http_api import JSON, TOKEN, ApiServer, api_server
from .test_search_mcp import DOCS, LONG_TEXT, RETRY_QUERY, RETRY_URL, build_index

#: a safety net against a hung server, not a measure of anything
CLIENT_TIMEOUT = 120.0
HIT_FIELDS = {
    "chunk_id",
    "url",
    "fragment",
    "title",
    "heading_path",
    "score",
    "snippet",
    "text",
    "truncated",
}


def search_url(server: ApiServer) -> str:
    return server.url.replace("/web/crawl", "/search")


def post(
    server: ApiServer, body: Any, *, token: str | None = None, raw: bytes | None = None
) -> httpx.Response:
    """POST ``body`` as JSON (or ``raw`` bytes as application/json) to /search."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if raw is not None:
        return httpx.post(
            search_url(server), content=raw, headers={**JSON, **headers}, timeout=CLIENT_TIMEOUT
        )
    return httpx.post(search_url(server), json=body, headers=headers, timeout=CLIENT_TIMEOUT)


@pytest.fixture(scope="module")
def index_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_index(tmp_path_factory.mktemp("search-index") / "site.idx")


@pytest.fixture(scope="module")
def search_api(tmp_path_factory: pytest.TempPathFactory, index_file: Path) -> Iterator[ApiServer]:
    """A server started with an index."""
    with api_server(tmp_path_factory.mktemp("state"), index=index_file) as server:
        yield server


def test_a_search_answers_hits_with_the_url_to_cite(search_api: ApiServer) -> None:
    answer = post(search_api, {"query": f"  {RETRY_QUERY} ", "k": 2, "mode": "hybrid"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {"success", "data"} and body["success"] is True
    data = body["data"]
    assert (data["query"], data["mode"]) == (RETRY_QUERY, "hybrid")
    assert len(data["hits"]) == 2
    best = data["hits"][0]
    assert set(best) == HIT_FIELDS
    assert best["fragment"] == RETRY_URL and best["url"] == f"{DOCS}/retries"
    assert (best["title"], best["heading_path"]) == ("Retries", ["Retries", "Retry policy"])
    assert "five times" in best["text"] and best["truncated"] is False
    assert best["score"] >= data["hits"][1]["score"]


def test_defaults_and_the_other_modes(search_api: ApiServer) -> None:
    plain = post(search_api, {"query": RETRY_QUERY})
    assert plain.status_code == 200, plain.text
    data = plain.json()["data"]
    # k is 5 and the mode hybrid when not given
    assert data["mode"] == "hybrid" and len(data["hits"]) == 5
    assert data["hits"][0]["fragment"] == RETRY_URL
    keyword = post(search_api, {"query": "sourdough", "mode": "keyword", "k": MAX_K})
    assert keyword.status_code == 200, keyword.text
    # keyword mode: only the chunks holding the word
    assert [h["fragment"] for h in keyword.json()["data"]["hits"]] == [f"{DOCS}/baking#bread"]
    vector = post(search_api, {"query": "installing the package with pip", "mode": "vector"})
    assert vector.status_code == 200, vector.text
    assert vector.json()["data"]["hits"][0]["fragment"] == f"{DOCS}/install#installing"


def test_a_long_hit_is_cut(search_api: ApiServer) -> None:
    answer = post(search_api, {"query": "configuration reference options", "k": 1})
    assert answer.status_code == 200, answer.text
    (hit,) = answer.json()["data"]["hits"]
    assert hit["fragment"] == f"{DOCS}/reference#all-options"
    assert hit["truncated"] is True
    assert len(hit["text"]) <= SEARCH_HIT_CHARS < len(LONG_TEXT)
    assert LONG_TEXT.startswith(hit["text"]) and hit["text"].endswith("harbor reference.")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "query is required"),
        ({"k": 3}, "query is required"),
        ({"query": ""}, "query must be a non-empty string"),
        ({"query": "   "}, "query must be a non-empty string"),
        ({"query": 42}, "query must be a non-empty string, got 42"),
        ({"query": "x" * (MAX_QUERY_CHARS + 1)}, "query must be at most 1000 characters"),
        ({"query": "retries", "k": 0}, "k must be a whole number from 1 to 50"),
        ({"query": "retries", "k": MAX_K + 1}, "k must be a whole number from 1 to 50"),
        ({"query": "retries", "k": "5"}, "k must be a whole number"),
        ({"query": "retries", "k": True}, "k must be a whole number"),
        ({"query": "retries", "k": 2.5}, "k must be a whole number"),
        ({"query": "retries", "mode": "fuzzy"}, "mode must be one of hybrid, keyword, vector"),
        ({"query": "retries", "limit": 3}, "unknown field 'limit'"),
        (["retries"], "the body must be a JSON object, got list"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(
    search_api: ApiServer, body: Any, message: str
) -> None:
    answer = post(search_api, body)
    assert answer.status_code == 400, answer.text
    error = answer.json()
    assert error["error"] == error["error_code"] == "INPUT_VALIDATION_ERROR"
    assert message in error["message"], error["message"]


def test_a_body_that_is_not_json_is_a_400_and_one_not_sent_as_json_a_415(
    search_api: ApiServer,
) -> None:
    broken = post(search_api, None, raw=b'{"query": ')
    assert broken.status_code == 400 and broken.json()["message"].startswith("body is not JSON")
    text = httpx.post(
        search_url(search_api),
        content=json.dumps({"query": "retries"}),
        headers={"content-type": "text/plain"},
        timeout=CLIENT_TIMEOUT,
    )
    assert text.status_code == 415 and text.json()["error"] == "UNSUPPORTED_MEDIA_TYPE"


def test_without_an_index_search_is_404_disabled(tmp_path: Path) -> None:
    with api_server(tmp_path / "state") as server:
        answer = post(server, {"query": "retries"})
    assert answer.status_code == 404
    error = answer.json()
    assert error["error"] == error["error_code"] == "SEARCH_DISABLED"
    assert "webmd serve --index FILE" in error["message"]


def test_an_unusable_index_is_a_503(tmp_path: Path) -> None:
    missing = tmp_path / "missing.idx"
    damaged = tmp_path / "damaged.idx"
    damaged.write_bytes(b"this is not an index " * 100)
    for path, cause in ((missing, "no such file"), (damaged, "cannot be opened")):
        with api_server(tmp_path / f"state-{path.stem}", index=path) as server:
            answer = post(server, {"query": "retries"})
        assert answer.status_code == 503, answer.text
        error = answer.json()
        assert error["error"] == "INDEX_UNAVAILABLE"
        assert error["message"].startswith(f"the index cannot be searched: index {path}")
        assert cause in error["message"]


def test_a_token_is_required_when_configured(tmp_path: Path, index_file: Path) -> None:
    with api_server(tmp_path / "state", index=index_file, token=TOKEN) as server:
        refused = post(server, {"query": RETRY_QUERY})
        wrong = post(server, {"query": RETRY_QUERY}, token="not-the-token-at-all")
        answered = post(server, {"query": RETRY_QUERY, "k": 1}, token=TOKEN)
    for answer in (refused, wrong):
        assert answer.status_code == 401 and answer.json()["error"] == "UNAUTHORIZED"
        assert answer.headers["WWW-Authenticate"] == "Bearer"
    assert answered.status_code == 200, answered.text
    assert answered.json()["data"]["hits"][0]["fragment"] == RETRY_URL


def test_a_too_large_body_is_413(tmp_path: Path, index_file: Path) -> None:
    with api_server(tmp_path / "state", index=index_file, max_body_bytes=2048) as server:
        answer = post(server, {"query": "x" * 4000})
    assert answer.status_code == 413 and answer.json()["error"] == "PAYLOAD_TOO_LARGE"


def test_serve_flags_for_the_index(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.delenv(serve.TOKEN_ENV, raising=False)
    assert serve.main(["--embed-url", "http://127.0.0.1:9/v1/embeddings"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("webmd serve: error: --embedder, --embed-url and --embed-model go")


def test_webmd_serve_index_serves_search(tmp_path: Path, index_file: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != serve.TOKEN_ENV}
    command = [sys.executable, "-m", "webmd_spider.service.serve", "--port", str(port),
               "--state-dir", str(tmp_path / "state"), "--index", str(index_file)]  # fmt: skip
    child = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/search"
    try:
        answer = None
        for _ in range(600):  # bounded by count: until it listens, or it exited
            if child.poll() is not None:
                break
            with contextlib.suppress(httpx.TransportError):
                answer = httpx.post(url, json={"query": RETRY_QUERY, "k": 1}, timeout=60)
                break
            time.sleep(0.05)
        assert answer is not None, child.stderr.read() if child.stderr else ""
        assert answer.status_code == 200, answer.text
        assert answer.json()["data"]["hits"][0]["fragment"] == RETRY_URL
    finally:
        child.terminate()
        child.communicate(timeout=60)
