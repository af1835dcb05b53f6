"""Politeness against local servers: per-host spacing, Crawl-delay, Retry-After, refusals."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.policy.politeness import (
    backoff,
    delay_and_jitter,
    parse_host_delay,
    parse_retry_after,
)
from webmd_spider.transport.downloader import SlotLimitedDownloader

from ..crawling import by_type, crawl, crawl_with_stats, summary_of

WORDS = " ".join(f"w{i}" for i in range(40))
Serve = Callable[[Path], SiteServer]


def site(root: Path, robots: str, pages: int, routes: dict[str, Any] | None = None) -> Path:
    root.mkdir(parents=True)
    links = "".join(f'<a href="/p{i}.html">p{i}</a>' for i in range(pages))
    (root / "index.html").write_text(f"<html><body><p>{WORDS}</p>{links}</body></html>")
    for i in range(pages):
        (root / f"p{i}.html").write_text(f"<html><body><p>{WORDS} page {i}</p></body></html>")
    (root / "robots.txt").write_text(robots)
    if routes:
        (root / "_routes.json").write_text(json.dumps(routes))
    return root


#: A wait may end this much before its deadline (asyncio runs a timer due within its
#: clock's resolution): the resolution of the clocks compared, not a margin for a busy
#: machine (a busy machine only makes every request later).
RESOLUTION = 1e-6


def served(server: SiteServer, path: str) -> float:
    """When the server answered ``path`` (the first time): its own clock, stamped before
    the answer went out, so before the crawler could act on it."""
    return next(r.at for r in server.requests if r.path == path)


def early_requests(server: SiteServer, after: float, delay: float, first: int) -> list[str]:
    """The requests the server saw too early for a crawl that spaces its requests by
    ``delay``: the k-th request (from 0) after ``after`` in the server's own log, in
    order, may not come before ``after + (first + k) * delay``. Nothing is timed against a
    margin: ``after`` is robots.txt's answer, stamped by the server before it went out,
    so before the crawler could ask for anything that robots.txt allows; every wait of
    the crawler lies between two events in this order, and a busy machine only makes the
    requests later. A crawl sending them sooner than its delay lists them here."""
    later = sorted((r.at, r.path) for r in server.requests if r.at > after)
    return [
        f"{path}: request {k} came {at - after:.3f} s after, before {first + k} x {delay:g} s"
        for k, (at, path) in enumerate(later)
        if at < after + (first + k) * delay - RESOLUTION
    ]


#: (slot, when it let a request go, URL) for every request, in order: the download slot's
#: own record (``slot.lastseen``, its clock), the one its delay is counted from
RELEASED: list[tuple[str, float, str]] = []


class RecordingDownloader(SlotLimitedDownloader):
    """The crawl's downloader, noting each request as its slot lets it go."""

    def _wait_for_download(self, slot: Any, request: Any, queue_dfd: Any) -> Any:
        RELEASED.append((str(request.meta.get("download_slot")), slot.lastseen, request.url))
        return super()._wait_for_download(slot, request, queue_dfd)


def test_pure_arithmetic() -> None:
    assert parse_host_delay("0.25-0.6") == (0.25, 0.6)
    assert parse_host_delay("0") == (0.0, 0.0)
    delay, jitter = delay_and_jitter(0.25, 0.6)
    assert abs(delay * (1 - jitter) - 0.25) < 1e-9 and abs(delay * (1 + jitter) - 0.6) < 1e-9
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert parse_retry_after("soon") is None
    assert [backoff(n) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]


@deferred_f_from_coro_f
async def test_host_delay_is_a_floor_whatever_the_concurrency(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = serve_site(site(tmp_path / "s", "User-agent: *\nAllow: /\n", 5))
    RELEASED.clear()
    downloader = f"{RecordingDownloader.__module__}.{RecordingDownloader.__name__}"
    rows = await crawl(
        tmp_path,
        {"AUTOTHROTTLE_ENABLED": True, "DOWNLOADER": downloader},
        start=server.base_url + "/",
        host_delay="0.3-0.4",
        max_concurrency="8",
    )
    assert len(by_type(rows, "page")) == 6
    # every request of the website waits 0.3 s at least after the one before, in the
    # download slot: the requests asked once robots.txt was answered come one floor
    # apart at least, by order in the server's log (issue 35: no margin in milliseconds)
    assert early_requests(server, served(server, "/robots.txt"), 0.3, first=0) == []
    # and the slot let each request go 0.3 s at least after the one before: its own
    # record, compared with the floor it was given (AutoThrottle may only widen it)
    assert len({name for name, _, _ in RELEASED}) == 1  # one website, one slot
    released = [at for _, at, _ in RELEASED]
    assert len(released) >= 7  # robots.txt and the 6 pages, at least
    assert [b - a for a, b in pairwise(released) if b - a < 0.3 - RESOLUTION] == []


@deferred_f_from_coro_f
async def test_crawl_delay_is_applied(serve_site: Serve, tmp_path: Path) -> None:
    server = serve_site(site(tmp_path / "s", "User-agent: *\nCrawl-delay: 1\n", 3))
    rows = await crawl(tmp_path, {"AUTOTHROTTLE_ENABLED": True}, start=server.base_url + "/")
    assert len(by_type(rows, "page")) == 4
    # the first request after robots.txt waits a Crawl-delay counted from its answer
    # (issue 16 item 12: it came 1.98 s after robots.txt under a Crawl-delay of 2), every
    # next one a Crawl-delay after the one before: the k-th (from 0) k + 1 delays after
    # robots.txt, by order in the server's log (issue 35: no margin in milliseconds)
    robots = served(server, "/robots.txt")
    assert early_requests(server, robots, 1.0, first=1) == []
    assert all(r.at > robots for r in server.requests if r.path != "/robots.txt")


@deferred_f_from_coro_f
async def test_crawl_delay_over_the_maximum_fetches_one_page(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = serve_site(site(tmp_path / "s", "User-agent: webmd\nCrawl-delay: 30\n", 3))
    rows = await crawl(tmp_path, start=server.base_url + "/", max_crawl_delay="0.5")
    assert len(by_type(rows, "page")) == 1
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "blocked" and "30 s between requests" in diag["error"]
    assert by_type(rows, "site")[0]["stop_reason"] == "crawl_delay"
    assert any("max_crawl_delay" in w for w in summary_of(tmp_path)["warnings"])
    assert server.hits("/p0.html") + server.hits("/p1.html") + server.hits("/p2.html") == 0


@deferred_f_from_coro_f
async def test_retry_after_is_honoured_then_the_page_is_fetched(
    serve_site: Serve, tmp_path: Path
) -> None:
    routes = {
        "/p0.html": [
            {"status": 429, "headers": {"Retry-After": "1"}},
            {"status": 503, "headers": {"Retry-After": "1"}},
            {"file": "p0.html"},
        ]
    }
    server = serve_site(site(tmp_path / "s", "User-agent: *\nAllow: /\n", 1, routes))
    rows = await crawl(tmp_path, start=server.base_url + "/p0.html", crawl_links="false")
    assert len(by_type(rows, "page")) == 1
    asked = [(r.status, r.at) for r in server.requests if r.path == "/p0.html"]
    assert [status for status, _ in asked] == [429, 503, 200]
    # each refusal asked for 1 s: the crawler counts it from the refusal's arrival, which
    # the server stamped before it sent it, so by order each next request comes 1 s after
    # the refusal before it in the server's log (issue 35: no margin in milliseconds)
    for (_, refused), (_, again) in pairwise(asked):
        assert again >= refused + 1.0 - RESOLUTION, (refused, again)


@deferred_f_from_coro_f
async def test_a_url_that_keeps_refusing_is_blocked(serve_site: Serve, tmp_path: Path) -> None:
    routes = {"/p0.html": {"status": 429, "headers": {"Retry-After": "0"}}}
    server = serve_site(site(tmp_path / "s", "User-agent: *\nAllow: /\n", 1, routes))
    rows = await crawl(tmp_path, start=server.base_url + "/p0.html", crawl_links="false")
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "blocked" and "refused" in diag["error"]
    assert server.hits("/p0.html") == 4  # first answer + 3 retries, then given up


@deferred_f_from_coro_f
async def test_robots_txt_answering_429_disallows_the_site(
    serve_site: Serve, tmp_path: Path
) -> None:
    routes = {"/robots.txt": {"status": 429, "headers": {"Retry-After": "0"}}}
    server = serve_site(site(tmp_path / "s", "unused", 2, routes))
    rows = await crawl(tmp_path, start=server.base_url + "/", robots_retry_secs="0")
    assert not by_type(rows, "page")
    assert server.hits("/") == 0 and server.hits("/p0.html") == 0
    assert by_type(rows, "diagnostic")[0]["error_type"] == "blocked"


class _CountingServer:
    """A site of linked pages whose handler counts the requests it is serving at once;
    with ``slow``, every page ending in 7 takes 1.5 s (past a 1 s download timeout)."""

    def __init__(self, slow: bool = True) -> None:
        import http.server
        import threading

        self.lock = threading.Lock()
        self.serving = self.peak = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                with outer.lock:
                    outer.serving += 1
                    outer.peak = max(outer.peak, outer.serving)
                try:
                    outer.answer(self)
                finally:
                    with outer.lock:
                        outer.serving -= 1

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.slow = slow

    def answer(self, handler: Any) -> None:
        import time

        path = handler.path
        time.sleep(1.5 if self.slow and path.endswith("7.html") else 0.05)
        if path == "/robots.txt" or path.startswith("/sitemap"):
            handler.send_response(404)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        number = 0 if path == "/" else int(path.strip("/").split(".")[0])
        links = "".join(f'<a href="/{number * 10 + i}.html">p</a>' for i in range(1, 11))
        body = (
            f"<html><head><title>P{number}</title></head><body><main><h1>P{number}</h1>"
            f"<p>{'word ' * 60}</p>{links if number < 6 else ''}</main></body></html>"
        ).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


@deferred_f_from_coro_f
async def test_a_timed_out_download_keeps_its_place_in_the_concurrency_limit(
    tmp_path: Path,
) -> None:
    # issue 16 item 8: five requests were being served at once for max_concurrency 4: a
    # download given up on time freed its slot while the server still worked on it
    server = _CountingServer()
    try:
        settings = {"DOWNLOAD_TIMEOUT": 1, "RETRY_TIMES": 0}
        rows, _ = await crawl_with_stats(
            tmp_path, settings, start=server.base_url + "/", max_concurrency="4", max_pages="40"
        )
    finally:
        server.server.shutdown()
    timeouts = [r for r in by_type(rows, "diagnostic") if r["error_type"] == "timeout"]
    assert timeouts, "the slow pages timed out"
    assert server.peak <= 4


@deferred_f_from_coro_f
async def test_each_website_keeps_its_concurrency_in_a_crawl_of_several(tmp_path: Path) -> None:
    # issue 16 item 8, the cause: with no download delay Scrapy 2.19 started every request
    # queued in a slot (scrapy/scrapy#6982), so one website could take the crawl's whole
    # CONCURRENT_REQUESTS (here 2 websites x 2 = 4)
    one, two = _CountingServer(slow=False), _CountingServer(slow=False)
    try:
        rows = await crawl(
            tmp_path, start=f"{one.base_url}/ {two.base_url}/", max_concurrency="2",
            max_pages="30",
        )  # fmt: skip
    finally:
        one.server.shutdown()
        two.server.shutdown()
    assert len(by_type(rows, "page")) == 60
    assert one.peak <= 2 and two.peak <= 2, (one.peak, two.peak)
