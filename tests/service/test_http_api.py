"""``POST /web/crawl`` (webmd_spider/service/http_api.py), served for real: uvicorn on a
free 127.0.0.1 port in a thread, called with httpx, crawling local sites.

Each crawl costs a child process (seconds), so the field tests share two crawls of one
site whose options are opposite (``content_crawls``), and the other tests crawl only
where the path needs it (cache, timeout, SSRF). The rest (validation, token, body size,
queue) never reaches a crawl. The pure parts (the field mapping, the urlRegex pattern,
data: URIs, the answer cache, the limiter) are tested directly at the end.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fpdf import FPDF

from webmd_spider.demo.server import SiteServer
from webmd_spider.items import Row, page_row, site_row
from webmd_spider.service import serve
from webmd_spider.service.http_api import (
    LOOPBACK_HOSTS,
    ClientLimiter,
    CrawlJob,
    QueueFull,
    ServiceConfig,
    create_app,
    include_pattern,
    parse_request,
    shorten_data_uris,
)
from webmd_spider.state.result_cache import CACHE_FILE, MAX_AGE_MS, ResultCache, cache_key
from webmd_spider.urls import compile_pattern

#: our own local servers: no politeness delay between two requests
FAST = {"host_delay": "0"}
#: a token long enough for the server (serve.MIN_TOKEN_CHARS)
TOKEN = "t0ken-for-the-tests-only"
#: the base64 payload of the data: URI on the home page (longer than what is kept)
B64 = base64.b64encode(bytes(range(256)) * 2).decode()
#: how long a client waits for an answer (a crawl under load takes seconds)
CLIENT_TIMEOUT = 180.0


def _prose(title: str) -> str:
    """Distinct prose per page (the crawl drops pages whose content repeats)."""
    return " ".join(f"{title} keeps sentence number {i} of its own words." for i in range(10))


def _page(title: str, body: str = "", *, footer: str = "") -> str:
    return (
        f"<!doctype html><html lang='en'><head><title>{title}</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/docs/a.html'>Docs</a></nav>"
        f"<main><h1>{title}</h1><p>{_prose(title)}</p>{body}</main>"
        f"<footer><p>{footer or 'Footer of the harbor site.'}</p></footer></body></html>"
    )


def _pdf(path: Path) -> None:
    """A small one-page PDF with a text layer."""
    document = FPDF()
    document.add_page()
    document.set_font("Helvetica", size=12)
    document.multi_cell(0, 8, "Harbor report. " + _prose("Report"))
    path.parent.mkdir(parents=True, exist_ok=True)
    document.output(str(path))


def write_harbor_site(root: Path, sub_origin: str) -> Path:
    """The site of the field tests. The home page holds one observable per field: text
    links, an image, a base64 data: URI (in a code sample: the extractor keeps no data:
    image), a footer; it links the blog, the docs (a chain of depth 1, 2 and 3), a PDF
    under /docs/ and a page on a subdomain (``sub_origin``)."""
    home = (
        "<p><img src='/img/pic.png' alt='Harbor picture'></p>"
        "<p>Read <a href='/blog/b.html'>the blog</a>, <a href='/docs/report.pdf'>the report</a>"
        f" or <a href='{sub_origin}/sub.html'>the sub site</a>.</p>"
        f'<pre><code>&lt;img src="data:image/png;base64,{B64}"&gt;</code></pre>'
        "<iframe src='/embed/map.html' title='Harbor map'></iframe>"
    )
    files = {
        "robots.txt": "User-agent: *\nAllow: /\n",
        "index.html": _page("Harbor Home", home, footer="Footer words FOOTERMARK."),
        "docs/a.html": _page("Docs A", "<p><a href='/docs/deep.html'>deeper</a></p>"),
        "docs/deep.html": _page("Docs Deep", "<p><a href='/docs/deeper.html'>deeper</a></p>"),
        "docs/deeper.html": _page("Docs Deeper"),
        "blog/b.html": _page("Blog B"),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "img").mkdir(exist_ok=True)
    (root / "img" / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    _pdf(root / "docs" / "report.pdf")
    return root


# -- the server under test ---------------------------------------------------------------


class ApiServer:
    """create_app(config) under uvicorn in a thread, on a free 127.0.0.1 port."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}/web/crawl"
        self._server = uvicorn.Server(
            uvicorn.Config(create_app(config), log_level="warning", lifespan="on")
        )
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def start(self) -> ApiServer:
        self._thread.start()
        for _ in range(2000):  # bounded by count: the server starts in well under that
            if self._server.started:
                return self
            time.sleep(0.01)
        raise RuntimeError("the API server did not start")

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join()
        self._socket.close()

    def post(
        self, body: Any, token: str | None = None, headers: dict[str, str] | None = None
    ) -> httpx.Response:
        sent = {"Authorization": f"Bearer {token}"} if token else {}
        sent.update(headers or {})
        return httpx.post(self.url, json=body, headers=sent, timeout=CLIENT_TIMEOUT)


#: the content type of a JSON body sent as raw bytes
JSON = {"content-type": "application/json"}


@contextlib.contextmanager
def api_server(state_dir: Path, **config: Any) -> Iterator[ApiServer]:
    server = ApiServer(ServiceConfig(state_dir=state_dir, **config)).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def local_api(tmp_path: Path) -> Iterator[ApiServer]:
    """A server started with allow-local (the local test sites are on loopback)."""
    with api_server(tmp_path / "state", allow_local=True, crawl_options=FAST) as server:
        yield server


def _paths(answer: dict[str, Any], origin: str) -> dict[str, dict[str, Any]]:
    """The results by URL path (below ``origin``)."""
    return {r["metadata"]["url"].removeprefix(origin): r for r in answer["results"]}


def _check_counts(answer: dict[str, Any]) -> None:
    """The counts agree with the results."""
    results, meta = answer["results"], answer["metadata"]
    succeeded = sum(r["metadata"]["success"] for r in results)
    assert meta["numUrls"] == len(results)
    assert meta["numSucceeded"] == succeeded
    assert meta["numFailed"] == len(results) - succeeded
    depths = [r["metadata"]["crawlDepth"] for r in results]
    assert meta["maxCrawlDepth"] == max(depths, default=0)


# -- every field has an effect: two crawls with opposite options -------------------------


#: the first crawl: the fields away from their defaults where the defaults would hide them
NARROW = {
    "maxDepth": 1,
    "urlRegex": "/docs/",
    "includeLinks": False,
    "includeImages": True,
    "shortenBase64Images": False,
    "useMainContentOnly": True,
    "parsePDF": False,
    "followSubdomains": False,
    "includeFrames": True,
    "waitForMs": 500,
}
#: the second crawl: the other value of each
WIDE = {"maxDepth": 2, "parsePDF": True, "followSubdomains": True}


@pytest.fixture(scope="module")
def content_crawls(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, SiteServer, dict[str, Any], dict[str, Any]]]:
    """(origin, site, narrow answer, wide answer), the site started at
    ``http://localhost:PORT`` so that ``sub.localhost`` is a subdomain of it. The PDF is
    counted between the two crawls (per-crawl hits)."""
    root = tmp_path_factory.mktemp("harbor")
    (root / "index.html").write_text("placeholder", encoding="utf-8")
    with SiteServer(root) as site:
        port = site.base_url.rsplit(":", 1)[1]
        origin = f"http://localhost:{port}"
        write_harbor_site(root, f"http://sub.localhost:{port}")
        state = tmp_path_factory.mktemp("state")
        with api_server(state, allow_local=True, crawl_options=FAST) as api:
            narrow = api.post({"url": origin + "/", **NARROW})
            assert narrow.status_code == 200, narrow.text
            narrow_pdf_hits = site.hits("/docs/report.pdf")
            wide = api.post({"url": origin + "/", **WIDE})
            assert wide.status_code == 200, wide.text
            site.narrow_pdf_hits = narrow_pdf_hits  # type: ignore[attr-defined]
            yield origin, site, narrow.json(), wide.json()


def test_the_answer_has_the_hosted_api_shape(content_crawls: Any) -> None:
    origin, _, narrow, wide = content_crawls
    for answer in (narrow, wide):
        _check_counts(answer)
        assert answer["metadata"]["timedOut"] is False
        for result in answer["results"]:
            assert set(result) == {"markdown", "metadata"}
            assert {"url", "title", "crawlDepth", "statusCode", "success"} <= set(
                result["metadata"]
            )
    home = _paths(narrow, origin)["/"]
    assert home["metadata"] == {
        "url": origin + "/",
        "title": "Harbor Home",
        "crawlDepth": 0,
        "statusCode": 200,
        "success": True,
    }
    assert home["markdown"].startswith("# Harbor Home")


def test_max_depth_and_url_regex_bound_the_pages(content_crawls: Any) -> None:
    origin, _, narrow, wide = content_crawls
    narrow_paths, wide_paths = _paths(narrow, origin), _paths(wide, origin)
    # maxDepth 1: the docs chain stops at depth 1; urlRegex /docs/: the blog is not
    # followed (the start URL is always crawled)
    assert {"/", "/docs/a.html"} <= set(narrow_paths)
    assert "/docs/deep.html" not in narrow_paths and "/blog/b.html" not in narrow_paths
    assert narrow["metadata"]["maxCrawlDepth"] == 1
    # maxDepth 2 and no urlRegex: depth 2 and the blog, not depth 3
    assert {"/", "/docs/a.html", "/docs/deep.html", "/blog/b.html"} <= set(wide_paths)
    assert wide_paths["/docs/deep.html"]["metadata"]["crawlDepth"] == 2
    assert "/docs/deeper.html" not in wide_paths
    assert wide["metadata"]["maxCrawlDepth"] == 2
    # the blog link urlRegex left out is counted as skipped (neither fetched nor failed)
    assert narrow["metadata"]["numSkipped"] >= 1


def test_content_fields_shape_the_markdown(content_crawls: Any) -> None:
    origin, _, narrow, wide = content_crawls
    narrow_home = _paths(narrow, origin)["/"]["markdown"]
    wide_home = _paths(wide, origin)["/"]["markdown"]
    # includeLinks
    assert "the blog" in narrow_home and "[the blog](" not in narrow_home
    assert f"[the blog]({origin}/blog/b.html)" in wide_home
    # includeImages
    assert f"![Harbor picture]({origin}/img/pic.png)" in narrow_home
    assert "Harbor picture" not in wide_home
    # shortenBase64Images
    assert f"data:image/png;base64,{B64}" in narrow_home
    assert f"data:image/png;base64,{B64[:32]}..." in wide_home and B64 not in wide_home
    # includeFrames: the embedded frame is named (never fetched) only when asked for
    assert "Embedded frame: Harbor map" in narrow_home
    assert "Embedded frame" not in wide_home
    # useMainContentOnly: the footer and the navigation only in the whole page
    assert "FOOTERMARK" not in narrow_home
    assert "FOOTERMARK" in wide_home and "[Docs](" in wide_home


def test_parse_pdf_false_neither_fetches_nor_fails_pdfs(content_crawls: Any) -> None:
    origin, site, narrow, _ = content_crawls
    assert site.narrow_pdf_hits == 0
    assert "/docs/report.pdf" not in _paths(narrow, origin)
    # counted as skipped with the blog link urlRegex left out: neither fetched nor failed
    assert narrow["metadata"]["numSkipped"] >= 2
    assert narrow["metadata"]["numFailed"] == 0


def test_parse_pdf_true_converts_a_linked_pdf(content_crawls: Any) -> None:
    origin, site, _, wide = content_crawls
    pdf = _paths(wide, origin)["/docs/report.pdf"]
    assert site.hits("/docs/report.pdf") >= 1
    assert pdf["metadata"]["success"] is True and "Harbor report" in pdf["markdown"]


def test_follow_subdomains_reaches_a_subdomain(content_crawls: Any) -> None:
    _, _, narrow, wide = content_crawls
    # *.localhost does not resolve in the crawl here: followed, it is a failed result
    assert not [r for r in narrow["results"] if "sub.localhost" in r["metadata"]["url"]]
    sub = [r for r in wide["results"] if "sub.localhost" in r["metadata"]["url"]]
    assert sub and not any(r["metadata"]["success"] for r in sub)


# -- maxPages and the cache (maxAgeMs) ---------------------------------------------------


def test_max_pages_and_the_answer_cache(
    serve_site: Callable[[Path], SiteServer], tmp_path: Path
) -> None:
    root = write_harbor_site(tmp_path / "site", "http://sub.localhost:1")
    site = serve_site(root)
    request = {"url": site.base_url + "/", "maxPages": 2}
    state = tmp_path / "state"
    with api_server(state, allow_local=True, crawl_options=FAST) as api:
        first = api.post(request)
        assert first.status_code == 200 and first.headers["X-Webmd-Cache"] == "miss"
        answer = first.json()
        # maxPages 2 of the 5 pages within reach
        assert answer["metadata"]["numSucceeded"] == 2
        assert sum(r["metadata"]["success"] for r in answer["results"]) == 2
        home = (root / "index.html").read_text(encoding="utf-8")
        (root / "index.html").write_text(home.replace("Harbor Home", "Harbor Renamed"))
        hits = len(site.requests)
        # the same parameters (waitForMs is ignored) inside maxAgeMs: the stored answer
        again = api.post({**request, "waitForMs": 1000})
        assert again.headers["X-Webmd-Cache"] == "hit" and again.json() == answer
        assert len(site.requests) == hits  # no crawl
        # maxAgeMs 0: a fresh crawl, which sees the change
        fresh = api.post({**request, "maxAgeMs": 0})
        assert fresh.headers["X-Webmd-Cache"] == "miss"
        assert len(site.requests) > hits
        titles = {r["metadata"]["title"] for r in fresh.json()["results"]}
        assert "Harbor Renamed" in titles and "Harbor Home" not in titles
    # a restarted server keeps the cache (the state folder): the fresh answer
    with api_server(state, allow_local=True, crawl_options=FAST) as restarted:
        hits = len(site.requests)
        kept = restarted.post(request)
        assert kept.headers["X-Webmd-Cache"] == "hit" and kept.json() == fresh.json()
        assert len(site.requests) == hits


# -- timeoutMS and the per-client limit --------------------------------------------------


def test_timeout_returns_what_the_crawl_has_and_a_full_queue_is_429(
    serve_site: Callable[[Path], SiteServer], tmp_path: Path
) -> None:
    root = tmp_path / "slow"
    slow = "".join(f"<li><a href='/slow/{i}.html'>slow {i}</a></li>" for i in range(6))
    (root / "slow").mkdir(parents=True)
    (root / "index.html").write_text(_page("Slow Home", f"<ul>{slow}</ul>"), encoding="utf-8")
    # answered long after the request's timeout (and the crawl's download timeout)
    routes = {f"/slow/{i}.html": {"delay": 60, "body": "<p>late</p>"} for i in range(6)}
    (root / "_routes.json").write_text(json.dumps(routes), encoding="utf-8")
    site = serve_site(root)
    state = tmp_path / "state"
    config = {"allow_local": True, "crawl_options": FAST, "per_client": 1, "queue_per_client": 0}
    with api_server(state, **config) as api, ThreadPoolExecutor(1) as pool:
        request = {"url": site.base_url + "/", "timeoutMS": 20_000, "maxAgeMs": 0}
        pending: Future[httpx.Response] = pool.submit(api.post, request)
        # once the crawl fetched the home page, it holds this client's one slot (the
        # site records a request when it has answered it: the slow ones come later)
        for _ in range(12_000):  # bounded by count, not by a clock
            if site.hits("/") or pending.done():
                break
            time.sleep(0.01)
        assert site.hits("/") == 1 and not pending.done()
        refused = api.post({"url": site.base_url + "/other"})
        assert refused.status_code == 429
        assert refused.json()["error"] == "TOO_MANY_REQUESTS"
        answer = pending.result()
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["metadata"]["timedOut"] is True
    _check_counts(body)
    paths = _paths(body, site.base_url)
    assert paths["/"]["metadata"]["success"] is True
    assert not [p for p in paths if p.startswith("/slow/")]  # none could have finished
    # an answer cut short is not kept for the next request
    assert len(ResultCache(state)) == 0


# -- safety ------------------------------------------------------------------------------


def test_a_loopback_target_without_allow_local_fails_without_a_fetch(
    serve_site: Callable[[Path], SiteServer], tmp_path: Path
) -> None:
    site = serve_site(write_harbor_site(tmp_path / "site", "http://sub.localhost:1"))
    with api_server(tmp_path / "state", crawl_options=FAST) as api:  # no allow-local
        answer = api.post({"url": site.base_url + "/"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    _check_counts(body)
    assert body["metadata"]["numSucceeded"] == 0 and body["metadata"]["numFailed"] >= 1
    assert "SSRF" in body["results"][0]["metadata"]["error"]
    assert site.requests == []  # nothing reached the site


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "url"),
        ({"url": "ftp://example.com/"}, "url"),
        ({"url": "http://"}, "url"),
        ({"url": 5}, "url"),
        ({"url": "http://x.example/", "maxPages": 0}, "maxPages"),
        ({"url": "http://x.example/", "maxPages": 501}, "maxPages"),
        ({"url": "http://x.example/", "maxPages": 2.5}, "maxPages"),
        ({"url": "http://x.example/", "maxPages": "10"}, "maxPages"),
        ({"url": "http://x.example/", "maxDepth": -1}, "maxDepth"),
        ({"url": "http://x.example/", "urlRegex": "(unclosed"}, "urlRegex"),
        ({"url": "http://x.example/", "urlRegex": 3}, "urlRegex"),
        ({"url": "http://x.example/", "includeLinks": "yes"}, "includeLinks"),
        ({"url": "http://x.example/", "includeImages": 1}, "includeImages"),
        ({"url": "http://x.example/", "shortenBase64Images": "false"}, "shortenBase64Images"),
        ({"url": "http://x.example/", "useMainContentOnly": None, "parsePDF": 0}, "parsePDF"),
        ({"url": "http://x.example/", "followSubdomains": []}, "followSubdomains"),
        ({"url": "http://x.example/", "includeFrames": "true"}, "includeFrames"),
        ({"url": "http://x.example/", "maxAgeMs": MAX_AGE_MS + 1}, "maxAgeMs"),
        ({"url": "http://x.example/", "timeoutMS": 999}, "timeoutMS"),
        ({"url": "http://x.example/", "waitForMs": 30_001}, "waitForMs"),
        ({"url": "http://x.example/", "maxPagez": 3}, "maxPagez"),
        (["http://x.example/"], "body"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(local_api: ApiServer, body: Any, field: str) -> None:
    answer = local_api.post(body)
    assert answer.status_code == 400
    data = answer.json()
    assert data["error"] == data["error_code"] == "INPUT_VALIDATION_ERROR"
    assert field in data["message"]


def test_a_body_that_is_not_json_is_a_400(local_api: ApiServer) -> None:
    answer = httpx.post(local_api.url, content=b"{url: nope", headers=JSON, timeout=CLIENT_TIMEOUT)
    assert answer.status_code == 400 and "not JSON" in answer.json()["message"]


def test_a_body_not_sent_as_json_is_a_415(local_api: ApiServer) -> None:
    # what a web page can POST anywhere without asking first (no CORS preflight)
    body = b'{"url": "http://x.example/"}'
    for headers in ({"content-type": "text/plain"}, {}):
        answer = httpx.post(local_api.url, content=body, headers=headers, timeout=CLIENT_TIMEOUT)
        assert answer.status_code == 415
        assert answer.json()["error"] == "UNSUPPORTED_MEDIA_TYPE"


def test_a_loopback_server_answers_only_loopback_host_names(tmp_path: Path) -> None:
    # DNS rebinding: a page's own name resolved to 127.0.0.1 carries that name as Host
    with api_server(tmp_path / "state", allowed_hosts=LOOPBACK_HOSTS) as api:
        rebound = api.post({"url": "http://x.example/"}, headers={"host": "evil.example"})
        local = api.post({"url": "http://x.example/", "maxPages": 0})
    assert rebound.status_code == 400 and "maxPages" not in rebound.text
    assert local.status_code == 400 and "maxPages" in local.json()["message"]


def test_a_token_is_required_when_configured(tmp_path: Path) -> None:
    with api_server(tmp_path / "state", token=TOKEN) as api:
        missing = api.post({"url": "http://x.example/"})
        wrong = api.post({"url": "http://x.example/"}, token=TOKEN + "x")
        # the right token passes (to the validation: no crawl is started)
        right = api.post({"url": "http://x.example/", "maxPages": 0}, token=TOKEN)
    for refused in (missing, wrong):
        assert refused.status_code == 401
        assert refused.json()["error"] == "UNAUTHORIZED"
        assert refused.headers["WWW-Authenticate"] == "Bearer"
    assert right.status_code == 400 and "maxPages" in right.json()["message"]


def test_a_too_large_body_is_413(tmp_path: Path) -> None:
    with api_server(tmp_path / "state", max_body_bytes=1000) as api:
        declared = api.post({"url": "http://x.example/", "urlRegex": "a" * 2000})
        # a chunked body declares no length: refused once too much has arrived
        chunks = (b"x" * 400 for _ in range(10))
        streamed = httpx.post(api.url, content=chunks, headers=JSON, timeout=CLIENT_TIMEOUT)
        small = api.post({"url": "http://x.example/", "maxPages": 0})
    for refused in (declared, streamed):
        assert refused.status_code == 413
        assert refused.json()["error"] == "PAYLOAD_TOO_LARGE"
    assert small.status_code == 400  # under the cap: read and validated


# -- webmd serve ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--host", "0.0.0.0"], "give a bearer token"),
        (["--host", "192.168.1.10", "--token", "short"], "at least 16 characters"),
        (["--port", "http"], "--port"),
        (["--port", "70000"], "--port must be from 0 to 65535"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_serve_refuses_bad_flags_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    monkeypatch.delenv(serve.TOKEN_ENV, raising=False)
    assert serve.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("webmd serve: error: ") and message in err


def test_serve_refuses_an_unusable_state_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert serve.main(["--state-dir", str(blocker / "state")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot open the answer cache" in err


def test_serve_runs_the_api_and_takes_the_token_from_the_environment(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, **{serve.TOKEN_ENV: TOKEN})
    command = [sys.executable, "-m", "webmd_spider.service.serve", "--port", str(port),
               "--state-dir", str(tmp_path / "state")]  # fmt: skip
    child = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/web/crawl"
    try:
        answer = None
        for _ in range(600):  # bounded by count: until it listens, or it exited
            if child.poll() is not None:
                break
            with contextlib.suppress(httpx.TransportError):
                answer = httpx.post(url, json={"url": "http://x.example/"}, timeout=10)
                break
            time.sleep(0.05)
        assert answer is not None, child.stderr.read() if child.stderr else ""
        assert answer.status_code == 401
        headers = {"Authorization": f"Bearer {TOKEN}"}
        checked = httpx.post(url, json={"maxPages": 1}, headers=headers, timeout=10)
        assert checked.status_code == 400 and "url is required" in checked.json()["message"]
        assert (tmp_path / "state" / CACHE_FILE).exists()
    finally:
        child.terminate()
        child.communicate(timeout=60)


# -- the pure parts --------------------------------------------------------------------------


def test_each_field_maps_onto_its_crawl_option() -> None:
    request = parse_request({"url": "HTTP://Docs.Example.org/a?utm_source=x", **NARROW})
    assert request.url == "http://docs.example.org/a"
    assert request.crawl_values() == {
        "max_pages": 100,
        "max_depth": 1,
        "include_patterns": [r"/\/docs\//"],
        "keep_links": False,
        "keep_images": True,
        "keep_frames": True,
        "main_content_only": True,
        "follow_subdomains": False,
        "parse_documents": False,
        "discovery": "links",
        "max_run_secs": 300.0,
    }
    defaults = parse_request({"url": "https://x.example/", "timeoutMS": 1500})
    values = defaults.crawl_values()
    assert values["keep_links"] and not values["keep_images"] and values["parse_documents"]
    assert not values["main_content_only"] and values["include_patterns"] == []
    assert values["max_run_secs"] == 1.5 and defaults.max_age_ms == 86_400_000
    # waitForMs and timeoutMS do not change which answer is the right one
    assert (
        defaults.cache_parameters()
        == parse_request({"url": "https://x.example/", "waitForMs": 900}).cache_parameters()
    )


@pytest.mark.parametrize(
    ("regex", "matches", "misses"),
    [
        ("^https?://[^/]+/blog/", "https://x.org/blog/a", "https://x.org/docs/blog/"),
        ("a/i,b", "https://x.org/a/i,b", "https://x.org/a/i"),
        ("query=a b", "https://x.org/?query=a b", "https://x.org/?query=ab"),
        (r"x\ y|\/z", "https://x.org/x y", "https://x.org/xy"),
    ],
)
def test_url_regex_is_one_include_pattern_that_means_the_same(
    regex: str, matches: str, misses: str
) -> None:
    pattern = compile_pattern(include_pattern(regex))
    assert not pattern.is_glob
    assert pattern.match(matches) and re.search(regex, matches)
    assert not pattern.match(misses) and not re.search(regex, misses)


def test_data_uris_are_shortened() -> None:
    text = f"![a](data:image/png;base64,{B64}) and data:image/gif;base64,R0lG"
    short = shorten_data_uris(text)
    assert short == f"![a](data:image/png;base64,{B64[:32]}...) and data:image/gif;base64,R0lG"


def test_the_answer_cache_serves_by_age_and_forgets_the_oldest(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path, max_entries=2)
    key = cache_key({"url": "https://x.example/", "maxPages": 3})
    assert key == cache_key({"maxPages": 3, "url": "https://x.example/"})  # order-free
    cache.put(key, {"answer": 1}, now=1_000)
    assert cache.get(key, max_age_ms=500, now=1_400) == {"answer": 1}
    assert cache.get(key, max_age_ms=500, now=1_501) is None  # older than asked
    assert cache.get(key, max_age_ms=0, now=1_000) is None  # 0: always fresh
    assert cache.get(key, max_age_ms=MAX_AGE_MS, now=1_000 + MAX_AGE_MS + 1) is None
    cache.put("b", {"answer": 2}, now=2_000)
    cache.put("c", {"answer": 3}, now=3_000)
    assert len(cache) == 2 and cache.get(key, 10_000, now=3_000) is None  # oldest dropped
    # another instance on the same folder (a restarted server) reads the same entries
    assert ResultCache(tmp_path).get("c", 10_000, now=3_000) == {"answer": 3}


def test_the_limiter_queues_then_refuses() -> None:
    async def scenario() -> list[str]:
        limiter = ClientLimiter(per_client=1, queue=1, total=10)
        events: list[str] = []
        await limiter.acquire("a", timeout=1)
        waiting = asyncio.ensure_future(limiter.acquire("a", timeout=30))
        await asyncio.sleep(0)  # let it start waiting
        with pytest.raises(QueueFull):
            await limiter.acquire("a", timeout=1)
        await limiter.acquire("b", timeout=1)  # another client has its own slots
        events.append(f"waiting done: {waiting.done()}")
        limiter.release("a")
        await waiting
        events.append("second runs")
        with pytest.raises(TimeoutError):
            await limiter.acquire("a", timeout=0.01)  # queued, never served in time
        limiter.release("a")
        limiter.release("b")
        await limiter.acquire("a", timeout=1)  # all slots back
        return events

    # in a thread of its own: the test process runs Twisted's asyncio loop
    with ThreadPoolExecutor(1) as pool:
        events = pool.submit(asyncio.run, scenario()).result()
    assert events == ["waiting done: False", "second runs"]


def test_the_answer_holds_at_most_max_pages_and_then_stops_the_crawl() -> None:
    # with followSubdomains up to 20 websites join, each with its own page budget
    stop = threading.Event()
    handed: list[str] = []

    def rows() -> Generator[Row, None, dict[str, Any]]:
        for i in range(5):
            handed.append(f"p{i}")
            yield page_row(url=f"http://a.example/p{i}")
        yield site_row(url="http://a.example/")
        return {"rows": {"page": 5, "site": 1}}

    async def run() -> CrawlJob:
        loop = asyncio.get_running_loop()
        job = CrawlJob(rows(), loop, lambda: None, stop, max_pages=2)
        job.start()
        await job.done.wait()
        return job

    # a loop of its own in a thread: the test thread's loop is pytest-twisted's
    with ThreadPoolExecutor(1) as pool:
        job = pool.submit(lambda: asyncio.run(run())).result(timeout=60)
    kept = job.rows()
    pages = [r.url for r in kept if r.row_type == "page"]
    assert pages == ["http://a.example/p0", "http://a.example/p1"]
    assert [r.row_type for r in kept][-1] == "site"  # the site row still comes through
    assert stop.is_set() and job.summary == {"rows": {"page": 5, "site": 1}}
