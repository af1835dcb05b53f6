"""Fail fast, with the cause (issue 31 item 1): a host that does not resolve, a port
where nothing listens, a plain-HTTP server asked for TLS. Each gives the start's
diagnostic row naming the cause at once: no robots.txt retry later in the run, no
immediate retry of the probe, no ladder candidate that cannot answer either. A start
typed without a scheme on a plain-HTTP port is crawled over http.

Real servers on 127.0.0.1, a port that was bound and closed (nothing listens), and a
``.invalid`` host (RFC 6761: never resolves; this machine's resolver answers at once).
The work is counted (requests sent, retries scheduled), never timed: a robots.txt retry
scheduled for a dead host fails the test whatever the clock says (``FAST`` asks again
after half a second, so such a retry would also be sent, and counted, within the run).
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer

from ..crawling import by_type, crawl_with_stats, prose_page, summary_of, write_site

Serve = Callable[[Path], SiteServer]


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens: bound, read, closed."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def plain_site(serve_site: Serve, root: Path) -> SiteServer:
    """A plain-HTTP site: a home page linking two pages under /library/."""
    files = {
        "robots.txt": "User-agent: *\nAllow: /\n",
        "index.html": prose_page("Home", "/library/", "/library/b.html"),
        "library/index.html": prose_page("Library", "/library/b.html"),
        "library/b.html": prose_page("Book"),
    }
    return serve_site(write_site(root, files))


def assert_no_retry(stats: dict[str, Any]) -> None:
    """Neither a robots.txt retry later in the run nor Scrapy's immediate retry."""
    assert stats.get("webmd/robots_retries", 0) == 0, "a robots.txt retry for a dead host"
    assert stats.get("retry/count", 0) == 0, "the probe was retried at once"


@deferred_f_from_coro_f
async def test_a_host_that_does_not_resolve_stops_its_website_at_once(tmp_path: Path) -> None:
    rows, stats = await crawl_with_stats(tmp_path, start="http://no-such-host.invalid/")
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "unreachable"
    assert "no such host: no-such-host.invalid" in diag["error"]
    assert diag["url"] == "http://no-such-host.invalid/robots.txt"
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "unreachable" and site["pages_extracted"] == 0
    assert stats["downloader/request_count"] == 1
    assert_no_retry(stats)
    assert not any("asking again" in w for w in summary_of(tmp_path)["warnings"])


@deferred_f_from_coro_f
async def test_a_bare_domain_that_does_not_resolve_is_not_asked_over_http(
    tmp_path: Path,
) -> None:
    # the ladder: https://no-such-host.invalid/ fails its lookup, https://www.… is
    # another name (asked), http://no-such-host.invalid/ is the same name (skipped)
    rows, stats = await crawl_with_stats(tmp_path, start="no-such-host.invalid")
    (diag,) = by_type(rows, "diagnostic")
    assert "no such host: www.no-such-host.invalid" in diag["error"]
    assert "also tried https://no-such-host.invalid/" in diag["error"]
    assert stats["downloader/request_count"] == 2
    assert_no_retry(stats)


@deferred_f_from_coro_f
async def test_nothing_listening_stops_the_website_and_its_typed_pages(tmp_path: Path) -> None:
    port = closed_port()
    start = f"http://127.0.0.1:{port}/ http://127.0.0.1:{port}/a.html"
    rows, stats = await crawl_with_stats(tmp_path, start=start)
    errors = {r["url"]: r["error"] for r in by_type(rows, "diagnostic")}
    assert set(errors) == {
        f"http://127.0.0.1:{port}/robots.txt",
        f"http://127.0.0.1:{port}/a.html",
    }
    assert all(f"nothing listening on 127.0.0.1:{port}" in e for e in errors.values())
    assert by_type(rows, "site")[0]["stop_reason"] == "unreachable"
    assert stats["downloader/request_count"] == 1  # robots.txt only, once
    assert_no_retry(stats)


@deferred_f_from_coro_f
async def test_a_scheme_less_start_on_a_closed_port_asks_that_port_once(tmp_path: Path) -> None:
    # https://localhost:PORT/ is refused: http:// on the same port would be refused too
    port = closed_port()
    rows, stats = await crawl_with_stats(tmp_path, start=f"localhost:{port}/library/")
    errors = [r["error"] for r in by_type(rows, "diagnostic")]
    assert errors and all(f"nothing listening on localhost:{port}" in e for e in errors)
    assert stats["downloader/request_count"] == 1
    assert_no_retry(stats)


@deferred_f_from_coro_f
async def test_https_to_a_plain_http_port_names_the_http_url(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = plain_site(serve_site, tmp_path / "site")
    port = server.base_url.rsplit(":", 1)[1]
    rows, stats = await crawl_with_stats(tmp_path, start=f"https://127.0.0.1:{port}/")
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "unreachable"
    assert diag["error"].startswith("could not reach the website: plain HTTP on this port")
    assert diag["error"].endswith(f"use http://127.0.0.1:{port}/")
    assert stats["downloader/request_count"] == 1
    assert_no_retry(stats)
    assert server.hits("/robots.txt") == 0  # the https scheme was typed: not changed


@deferred_f_from_coro_f
async def test_a_scheme_less_host_and_port_falls_back_to_http_and_says_so(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = plain_site(serve_site, tmp_path / "site")
    port = server.base_url.rsplit(":", 1)[1]
    rows, stats = await crawl_with_stats(tmp_path, start=f"127.0.0.1:{port}/")
    pages = {r["url"] for r in by_type(rows, "page")}
    assert pages == {server.url("/"), server.url("/library/"), server.url("/library/b.html")}
    assert not by_type(rows, "diagnostic")
    (site,) = by_type(rows, "site")
    assert site["url"] == f"http://127.0.0.1:{port}/"  # the scheme used
    assert site["input"] == f"127.0.0.1:{port}/"  # the port kept
    warnings = summary_of(tmp_path)["warnings"]
    assert any(
        w.startswith(f"127.0.0.1:{port}: crawling http://127.0.0.1:{port}/")
        and "plain HTTP on this port" in w
        for w in warnings
    ), warnings
    # the https probe once (not retried), then robots.txt over http, then the pages
    assert server.hits("/robots.txt") == 1
    assert stats.get("retry/count", 0) == 0


@deferred_f_from_coro_f
async def test_a_scheme_less_page_on_a_plain_http_port_is_fetched_over_http(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = plain_site(serve_site, tmp_path / "site")
    port = server.base_url.rsplit(":", 1)[1]
    rows, _ = await crawl_with_stats(
        tmp_path, start=f"localhost:{port}/library/", crawl_links="false"
    )
    (page,) = by_type(rows, "page")
    assert page["url"] == f"http://localhost:{port}/library/"
    assert page["input"] == f"localhost:{port}/library/"
    assert not by_type(rows, "diagnostic")


@deferred_f_from_coro_f
async def test_a_robots_txt_answering_503_is_still_asked_once_more(
    serve_site: Serve, tmp_path: Path
) -> None:
    # RFC 9309 §2.3.1.4: 5xx is unreachable (complete disallow); the server is there,
    # so it is asked again once later in the run, then the website is blocked
    root = write_site(
        tmp_path / "site", {"index.html": prose_page("Home")}, {"/robots.txt": {"status": 503}}
    )
    server = serve_site(root)
    rows, stats = await crawl_with_stats(tmp_path, {"RETRY_TIMES": 0}, start=server.base_url + "/")
    assert stats["webmd/robots_retries"] == 1
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "blocked" and diag["status_code"] == 503
    assert by_type(rows, "site")[0]["stop_reason"] == "robots_unavailable"
    assert server.hits("/") == 0
