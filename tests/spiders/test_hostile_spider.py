"""The site spider against hostile servers: the extraction deadline in a crawl, websites
that refuse every page (429/503), a robots.txt far over the parse limit, and a
robots.txt redirecting to another website.

Crawls run the real spider in process against :class:`RawServer` routes (see
``tests/transport/test_hostile_transport.py``), which write whatever bytes they like.
"""

from __future__ import annotations

import asyncio
import gzip
import signal
from pathlib import Path
from typing import Any

import pytest
from scrapy import Request
from scrapy.http import Response
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.offload import pool as extract_pool
from webmd_spider.options import EXTRACT_TIMEOUT_DEFAULT, OptionsError, build_options
from webmd_spider.policy.politeness import MAX_REFUSALS_PER_SITE
from webmd_spider.policy.robots import MAX_ROBOTS_BYTES
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.spiders.responses import robots_root
from webmd_spider.spiders.site import SiteSpider

from ..crawling import by_type, crawl, crawl_with_stats, prose_page, record_workers, summary_of
from ..transport.test_hostile_transport import WORDS, Handler, RawServer, rows_by_path, send

# -- 1. the extraction deadline ----------------------------------------------------------


def test_extract_timeout_secs_is_an_option_with_the_pools_default() -> None:
    assert build_options({}, {}).extract_timeout_secs == EXTRACT_TIMEOUT_DEFAULT
    assert EXTRACT_TIMEOUT_DEFAULT == extract_pool.EXTRACT_DEADLINE_SECS
    assert build_options({"WEBMD_EXTRACT_TIMEOUT_SECS": "5"}, {}).extract_timeout_secs == 5.0
    assert build_options({}, {"extract_timeout_secs": "2.5"}).extract_timeout_secs == 2.5
    for bad in ("0", "0.5", "3601", "nan", "inf", "soon", "-1"):
        with pytest.raises(OptionsError, match="extract_timeout_secs"):
            build_options({}, {"extract_timeout_secs": bad})


#: A page the stand-in worker (SLOW_WORKER) never finishes converting.
SLOW_MARK = b"<!-- webmd-test: convert me slowly -->"
#: The real extraction worker, except that a page holding SLOW_MARK takes it ten
#: minutes: a page slow to convert whatever the extractor's defences against hostile
#: HTML (attribute floods and the like are cut before parsing by now).
SLOW_WORKER = f"""
import sys, time
from webmd_spider.offload import worker as extract_worker
real = extract_worker.extract_page
def extract_page(body, *args):
    if {SLOW_MARK!r} in body:
        time.sleep(600)
    return real(body, *args)
extract_worker.extract_page = extract_page
sys.exit(extract_worker.main())
"""


@pytest.fixture
def slow_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Extraction processes run SLOW_WORKER (``python -c``: the pool adds the pipes)."""
    monkeypatch.setattr(extract_pool, "WORKER_ARGV", ["-c", SLOW_WORKER])


def slow_page() -> bytes:
    """A large page (it waits for a worker rather than being converted in the crawl
    process) that the stand-in worker never finishes."""
    filler = "".join(
        f"<p>{WORDS} {i}</p>" for i in range(extract_pool.WAIT_FOR_WORKER_BYTES // 200)
    )
    body = f"<html><head><title>Slow</title></head><body>{filler}</body></html>".encode()
    return body.replace(b"<body>", b"<body>" + SLOW_MARK)


@pytest.mark.usefixtures("slow_worker")
@deferred_f_from_coro_f
async def test_extract_timeout_secs_gives_up_a_slow_page_with_a_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    routes = {
        "/": send(200, prose_page("Home", "/g1")),
        "/slow": send(200, slow_page()),
        "/g1": send(200, prose_page("G1")),
    }
    workers = record_workers(monkeypatch)
    with RawServer(routes) as server:
        rows, stats = await crawl_with_stats(
            tmp_path,
            {"WEBMD_EXTRACT_PROCESSES": 1, "WEBMD_EXTRACT_TIMEOUT_SECS": 1},
            start=f"{server.url('/')} {server.url('/slow')}",
        )
    # the 1 s deadline, not the 600 s the page takes nor the 30 s default, gave it up:
    # said by the row, the counter and the worker the deadline killed, not by the run's
    # time (issue 16: the suite must hold on a busy machine)
    found = rows_by_path(rows, server)
    slow = found["/slow"]
    assert (slow["row_type"], slow["error_type"], slow["status_code"]) == (
        "diagnostic",
        "extraction-timeout",
        200,
    )
    assert slow["error"] == "converting the page took longer than 1 s; it was given up"
    assert {p for p, r in found.items() if r["row_type"] == "page"} == {"/", "/g1"}
    assert stats["webmd/extraction_timeouts"] == 1
    # the worker stuck on /slow was killed at the deadline and replaced; none is left
    assert len(workers) == 2 and workers[0].returncode == -signal.SIGKILL
    assert all(w.returncode is not None for w in workers)
    (site,) = by_type(rows, "site")
    assert site["failures"] == 1 and site["stop_reason"] == "finished"
    assert summary_of(tmp_path)["errors"] == {"extraction-timeout": 1}


@pytest.mark.usefixtures("slow_worker")
@deferred_f_from_coro_f
async def test_a_website_stopping_gives_up_its_page_at_an_extraction_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def late(writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(2.0)  # after /slow has reached a worker, with the other ready
        await send(200, prose_page("G1"))(writer)

    routes: dict[str, Handler] = {
        "/": send(200, prose_page("Home", "/slow", "/g1")),
        "/slow": send(200, slow_page()),  # 10 minutes at its worker, deadline 30 s
        "/g1": late,
    }
    workers = record_workers(monkeypatch)
    with RawServer(routes) as server:
        rows, stats = await crawl_with_stats(
            tmp_path, {"WEBMD_EXTRACT_PROCESSES": 2}, start=server.url("/"), max_pages="2"
        )
    # the page budget is reached with /g1: /slow is given up at once, not waited for.
    # Said by how it ended, not by the run's time (issue 16: the suite must hold on a busy
    # machine): waited for, it would have run into the 30 s deadline (an extraction
    # timeout); given up, its worker was killed at the close
    assert "webmd/extraction_timeouts" not in stats
    assert len(workers) == 2 and all(w.returncode is not None for w in workers)
    assert -signal.SIGKILL in [w.returncode for w in workers]
    found = rows_by_path(rows, server)
    assert {p for p, r in found.items() if r["row_type"] == "page"} == {"/", "/g1"}
    # it was fetched: a row naming the stop, not a not-fetched entry (issue 31)
    assert found["/slow"]["error_type"] == "aborted"
    assert found["/slow"]["error"].startswith("aborted: page budget")
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "page_budget"
    not_fetched = summary_of(tmp_path)["not_fetched"]
    assert server.url("/slow") not in [e["url"] for e in not_fetched]


@deferred_f_from_coro_f
async def test_redirects_to_non_http_urls_say_so(tmp_path: Path) -> None:
    targets = {
        "/to-data": "data:text/html,hi",
        "/to-file": "file:///etc/passwd",
        "/to-ftp": "ftp://example.com/x",
    }
    routes = {path: send(302, b"", headers=(("Location", to),)) for path, to in targets.items()}
    with RawServer({"/": send(200, prose_page("Home", *routes)), **routes}) as server:
        rows = await crawl(tmp_path, {"RETRY_TIMES": 0}, start=server.url("/"))
    found = rows_by_path(rows, server)
    for path, to in targets.items():
        row = found[path]
        assert (row["error_type"], row["status_code"]) == ("http-error", 302), row
        assert row["error"] == f"redirect to a non-http URL ({to})"


# -- 2. a website that refuses every page ------------------------------------------------


def test_unskip_takes_back_one_skip() -> None:
    ledger = RunLedger()
    ledger.skip("http://a/1", "blocked", "a")
    ledger.skip("http://a/2", "blocked", "a")
    ledger.skip("http://a/1", "page_budget", "a")
    ledger.unskip("http://a/1", "blocked")
    assert ledger.not_fetched_counts == {"blocked": 1, "page_budget": 1}
    assert [(e["url"], e["reason"]) for e in ledger.not_fetched] == [
        ("http://a/2", "blocked"),
        ("http://a/1", "page_budget"),
    ]
    ledger.unskip("http://a/2", "blocked")
    ledger.unskip("http://a/2", "blocked")  # nothing left to take back
    assert ledger.not_fetched_counts == {"page_budget": 1}


def refusing_site(status: int, retry_after: str, pages: int) -> dict[str, Handler]:
    links = [f"/p{i}" for i in range(pages)]
    busy = send(status, prose_page("Busy"), headers=(("Retry-After", retry_after),))
    return {"/": send(200, prose_page("Home", *links)), **{link: busy for link in links}}


def every_fetched_url_has_a_row(
    rows: list[dict[str, Any]], server: RawServer, tmp_path: Path
) -> dict[str, dict[str, Any]]:
    """Each page URL the server was asked for has exactly one row; each one it was never
    asked for is counted as not fetched; nothing is both."""
    found = rows_by_path(rows, server)
    assert len(found) == len([r for r in rows if r["row_type"] != "site"])  # one per URL
    asked = {path for path in server.log if path.startswith("/p")}
    written = {path for path in found if path.startswith("/p")}
    summary = summary_of(tmp_path)
    skipped = {e["url"].removeprefix(server.url("")) for e in summary["not_fetched"]}
    assert written == asked
    assert not skipped & asked, skipped & asked
    assert sum(summary["not_fetched_counts"].values()) == len(skipped)
    return found


@deferred_f_from_coro_f
async def test_refusals_in_a_row_give_every_fetched_url_a_blocked_row(tmp_path: Path) -> None:
    with RawServer(refusing_site(503, "0", 12)) as server:
        rows = await crawl(tmp_path, start=server.url("/"), max_run_secs="60")
    found = every_fetched_url_has_a_row(rows, server, tmp_path)
    pages = {f"/p{i}" for i in range(12)}
    # the 12 pages were all asked (some twice: Retry-After 0 then a retry) and refused
    assert set(found) == {"/", *pages}
    for path in pages:
        row = found[path]
        assert (row["error_type"], row["status_code"]) == ("blocked", 503), row
    assert any(
        f"refused {MAX_REFUSALS_PER_SITE + 1} requests in a row" in found[p]["error"] for p in pages
    )
    (site,) = by_type(rows, "site")
    assert (site["stop_reason"], site["failures"], site["pages_extracted"]) == ("blocked", 12, 1)
    summary = summary_of(tmp_path)
    assert summary["errors"] == {"blocked": 12}
    assert summary["not_fetched_counts"] == {}


@deferred_f_from_coro_f
async def test_a_wait_past_the_budget_on_every_page_ends_blocked_with_rows_and_counts(
    tmp_path: Path,
) -> None:
    # Retry-After: 100 s with a 10 s budget: each refusal is final; past 8 in a row the
    # website stops: what was asked has its row, the rest is counted as not fetched
    with RawServer(refusing_site(429, "100", 20)) as server:
        rows = await crawl(
            tmp_path, {"DOWNLOAD_TIMEOUT": 5}, start=server.url("/"), max_run_secs="10"
        )
    found = every_fetched_url_has_a_row(rows, server, tmp_path)
    refused = [r for p, r in found.items() if p != "/"]
    assert len(refused) > MAX_REFUSALS_PER_SITE
    assert all((r["error_type"], r["status_code"]) == ("blocked", 429) for r in refused)
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "blocked" and site["failures"] == len(refused)
    summary = summary_of(tmp_path)
    assert summary["not_fetched_counts"].get("blocked", 0) == 20 - len(refused)


# -- 3. a robots.txt far over the parse limit --------------------------------------------

#: 7 MB: the rules up front, comments, then a rule past the parse limit (not read)
BIG_ROBOTS = (
    b"User-agent: *\nDisallow: /private\n"
    + b"# a comment line that makes this robots.txt very large indeed\n" * 115_000
    + b"Disallow: /late\n"
)


def chunked(body: bytes, ctype: str = "text/plain") -> Handler:
    """200 with a chunked body (no Content-Length), 64 KiB a chunk."""

    async def route(writer: asyncio.StreamWriter) -> None:
        head = f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nTransfer-Encoding: chunked\r\n\r\n"
        writer.write(head.encode())
        for start in range(0, len(body), 65536):
            piece = body[start : start + 65536]
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    return route


@pytest.mark.parametrize("framing", ["content-length", "chunked"])
@deferred_f_from_coro_f
async def test_a_huge_robots_txt_is_read_up_to_the_parse_limit(
    tmp_path: Path, framing: str
) -> None:
    assert len(BIG_ROBOTS) > 7_000_000
    robots = chunked(BIG_ROBOTS) if framing == "chunked" else send(200, BIG_ROBOTS, "text/plain")
    routes = {
        "/robots.txt": robots,
        "/": send(200, prose_page("Home", "/a", "/private", "/late")),
        "/a": send(200, prose_page("A")),
        "/private": send(200, prose_page("Private")),
        "/late": send(200, prose_page("Late")),
    }
    with RawServer(routes) as server:
        rows, stats = await crawl_with_stats(
            tmp_path, start=f"{server.url('/')} {server.url('/private')}"
        )
    found = rows_by_path(rows, server)
    # the rule in the first 512 KiB is obeyed (a typed URL it disallows is a row saying
    # so), the one past it is not read
    assert {p for p, r in found.items() if r["row_type"] == "page"} == {"/", "/a", "/late"}
    assert found["/private"]["error_type"] == "blocked"
    assert "robots.txt" in found["/private"]["error"]
    assert not server.hits("/private")
    assert server.hits("/robots.txt") == 1
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "finished" and site["pages_extracted"] == 3
    # the download stopped near the parse limit: not 7 MB on the wire
    assert stats["downloader/response_bytes"] < MAX_ROBOTS_BYTES + 512 * 1024, stats


@deferred_f_from_coro_f
async def test_a_compressed_robots_txt_still_inflates_only_to_the_size_limit(
    tmp_path: Path,
) -> None:
    # sent compressed although we ask for it uncompressed: 64 MB of comments in ~64 KB
    # of gzip. Inflating stops at DOWNLOAD_MAXSIZE (the wire's limit is lifted for
    # robots.txt, not this one): the website cannot be read (`too-large`)
    bomb = gzip.compress(b"User-agent: *\nDisallow: /private\n" + b"#" * (64 << 20))
    robots = send(200, bomb, "text/plain", headers=(("Content-Encoding", "gzip"),))
    with RawServer({"/robots.txt": robots, "/": send(200, prose_page("Home"))}) as server:
        rows = await crawl(tmp_path, start=server.url("/"))
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "unreachable"
    (row,) = by_type(rows, "diagnostic")
    assert row["error_type"] == "too-large" and row["url"] == server.url("/robots.txt")
    assert not server.hits("/")


@deferred_f_from_coro_f
async def test_a_huge_robots_txt_of_a_sitemap_host_is_read_up_to_the_parse_limit(
    tmp_path: Path,
) -> None:
    # a Sitemap: line naming another host (a CDN) is read once that host's robots.txt
    # allows it: a 7 MB one is read up to the parse limit too, not refused
    cdn_robots = b"User-agent: *\nDisallow: /private-maps/\n" + BIG_ROBOTS
    with RawServer({"/robots.txt": send(200, cdn_robots, "text/plain")}) as cdn:
        main_routes: dict[str, Handler] = {
            "/robots.txt": send(
                200, f"User-agent: *\nSitemap: {cdn.url('/map.xml')}\n", "text/plain"
            ),
            "/a": send(200, prose_page("A")),
            "/b": send(200, prose_page("B")),
        }
        with RawServer(main_routes) as main:
            cdn.routes["/map.xml"] = send(
                200, urlset(main.url("/a"), main.url("/b")), "application/xml"
            )
            rows = await crawl(tmp_path, start=main.url("/"))
    assert cdn.log == ["/robots.txt", "/map.xml"]
    found = rows_by_path(rows, main)
    assert {p for p, r in found.items() if r["row_type"] == "page"} == {"/a", "/b"}
    (site,) = by_type(rows, "site")
    assert site["discovery"] == "sitemap" and site["sitemap_url_count"] == 2


# -- 4. a robots.txt redirecting to another website ---------------------------------------


def urlset(*urls: str) -> str:
    entries = "".join(f"<url><loc>{u}</loc></url>" for u in urls)
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'


@deferred_f_from_coro_f
async def test_a_robots_txt_redirected_to_another_website_keeps_the_crawl_home(
    tmp_path: Path,
) -> None:
    other_robots = "User-agent: *\nDisallow: /secret\nSitemap: /map.xml\n"
    with RawServer(
        {
            "/robots.txt": send(200, other_robots, "text/plain"),
            "/": send(200, prose_page("Other home", "/o1")),
            "/o1": send(200, prose_page("Other one")),
            "/map.xml": send(200, "<urlset/>", "application/xml"),
        }
    ) as other:
        main_routes: dict[str, Handler] = {
            "/robots.txt": send(
                301, b"", "text/plain", headers=(("Location", other.url("/robots.txt")),)
            ),
            "/": send(200, prose_page("Main home", "/a", "/secret", other.url("/o1"))),
            "/a": send(200, prose_page("Main A")),
            "/secret": send(200, prose_page("Main secret")),
        }
        with RawServer(main_routes) as main:
            main_routes["/map.xml"] = send(
                200, urlset(main.url("/"), main.url("/a"), main.url("/secret")), "application/xml"
            )
            rows = await crawl(tmp_path, start=main.url("/"))
    # the other website gave the rules (RFC 9309 §2.3.1.2) and nothing else
    assert other.log == ["/robots.txt"]
    assert not [r for r in rows if r["website"] == other.website]
    assert not [r for r in rows if (r["url"] or "").startswith(other.url(""))]
    (site,) = by_type(rows, "site")
    assert site["website"] == main.website and site["url"] == main.url("/")
    # its sitemap line is resolved on the main website, its rules apply to it
    assert site["discovery"] == "sitemap" and site["sitemap_url_count"] == 3
    found = rows_by_path(rows, main)
    assert {p for p, r in found.items() if r["row_type"] == "page"} == {"/", "/a"}
    assert not main.hits("/secret")
    assert site["robots_blocked"] == 1


def test_the_root_comes_from_the_last_hop_on_the_website() -> None:
    def answer(*chain: str) -> Response:
        request = Request(chain[-1], meta={"redirect_urls": list(chain[:-1])})
        return Response(chain[-1], request=request)

    assert robots_root("a.com", answer("http://a.com/robots.txt")) == "http://a.com/"
    upgraded = answer("http://a.com/robots.txt", "https://www.a.com/robots.txt")
    assert robots_root("a.com", upgraded) == "https://www.a.com/"
    away = answer(
        "http://a.com/robots.txt", "https://www.a.com/robots.txt", "https://b.com/robots.txt"
    )
    assert robots_root("a.com", away) == "https://www.a.com/"
    assert robots_root("a.com", answer("http://a.com/robots.txt", "http://b.com/r")) == (
        "http://a.com/"
    )


def test_robots_txt_is_asked_for_uncompressed() -> None:
    # a compressed file could inflate only to DOWNLOAD_MAXSIZE: uncompressed, it is cut
    # at the parse limit on the wire, however large
    spider = SiteSpider()
    site = SiteState("a.com", "a.com", "site", root="https://a.com/")
    request = spider.robots_flow.request(site, ["https://a.com/"], [])
    assert request.headers.get("Accept-Encoding") == b"identity"
    assert request.meta["download_warnsize"] == 0
