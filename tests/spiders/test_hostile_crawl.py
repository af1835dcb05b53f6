"""Crawls of hostile sites on real local servers: redirects to a spelling of the page
itself, a rel=canonical pointing at another page, hub pages with tens of thousands of
links against a small page budget, the time budget with pages still being processed,
dead-link floods, identical pages and soft-404 mazes, loops and links with credentials.

Each test asserts the rows, the counters of the site row and the run summary, and that
the run ends, bounded by counted work (requests, queued requests, rows), never by its
time (issue 16: the suite must hold on a busy machine). Static sites use ``SiteServer``;
sites whose pages are generated (hubs, mazes) use :class:`ScenarioServer`, a handler
function on a ``ThreadingHTTPServer``."""

from __future__ import annotations

import random
import signal
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.offload.pool import WAIT_FOR_WORKER_BYTES
from webmd_spider.offload.worker import SLOW_PAGE_MARKER_ENV, SLOW_PAGE_SECS_ENV
from webmd_spider.spiders.budgets import QUEUE_FACTOR

from ..crawling import by_type, crawl, crawl_with_stats, page_urls, record_workers, summary_of
from ..crawling import write_site as write

Serve = Callable[[Path], SiteServer]
Answer = tuple[int, dict[str, str], str]


def prose(title: str, sentences: int = 8) -> str:
    return " ".join(f"{title} holds sentence number {i} of its own text." for i in range(sentences))


def page(title: str, *links: str, head: str = "", nav: str = "") -> str:
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    return (
        f"<html><head><title>{title}</title>{head}</head><body>{nav}<main><h1>{title}</h1>"
        f"<p>{prose(title)}</p><ul>{anchors}</ul></main></body></html>"
    )


def html(body: str, status: int = 200, **headers: str) -> Answer:
    return status, {"Content-Type": "text/html; charset=utf-8", **headers}, body


NOT_FOUND: Answer = (404, {"Content-Type": "text/plain"}, "not found")


class ScenarioServer:
    """``handler(path_with_query) -> (status, headers, body)`` served on 127.0.0.1;
    every request path is logged in ``requests``."""

    def __init__(self, handler: Callable[[str], Answer]) -> None:
        self.handler = handler
        self.requests: list[str] = []
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                with lock:
                    outer.requests.append(self.path)
                status, headers, body = outer.handler(self.path)
                data = body.encode("utf-8")
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return self.base_url + path

    def page_requests(self) -> list[str]:
        """Requests other than robots.txt and the well-known sitemap guesses."""
        return [p for p in self.requests if p != "/robots.txt" and "sitemap" not in p]

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def scenario() -> Iterator[Callable[[Callable[[str], Answer]], ScenarioServer]]:
    servers: list[ScenarioServer] = []

    def start(handler: Callable[[str], Answer]) -> ScenarioServer:
        server = ScenarioServer(handler)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def reasons(tmp_path: Path) -> dict[str, str]:
    """``rejected`` and ``not_fetched`` entries of the summary: path?query -> reason."""
    summary = summary_of(tmp_path)
    entries = summary["rejected"] + summary["not_fetched"]
    return {"/" + e["url"].split("/", 3)[3]: e["reason"] for e in entries}


def site_row_is_last_and_true(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The site row ends the feed and counts the rows before it."""
    assert rows and rows[-1]["row_type"] == "site", [r["row_type"] for r in rows[-3:]]
    site = rows[-1]
    assert site["pages_extracted"] == len(by_type(rows, "page"))
    assert site["failures"] == len(by_type(rows, "diagnostic"))
    return site


# -- 1. a redirect to a spelling of the page itself --------------------------------------


@deferred_f_from_coro_f
async def test_a_redirect_to_a_spelling_of_itself_is_fetched_once(
    serve_site: Serve, tmp_path: Path
) -> None:
    routes = {
        "/track": {"status": 302, "location": "/track?utm_source=redirect"},
        "/track?utm_source=redirect": {"body": page("Tracked page")},
        "/order": {"status": 301, "location": "/order?a=1&b=2"},
        "/order?a=1&b=2": {"body": page("Order page")},
        # a redirect onto a page of its own: still a duplicate
        "/old": {"status": 301, "location": "/ok.html"},
    }
    files = {
        "index.html": page("Home", "/track", "/order?b=2&a=1", "/ok.html", "/old"),
        "ok.html": page("Ok page"),
    }
    server = serve_site(write(tmp_path / "s", files, routes))
    rows = await crawl(tmp_path, start=server.url("/"))
    pages = {r["url"].removeprefix(server.base_url): r for r in by_type(rows, "page")}
    assert set(pages) == {"/", "/track", "/order?b=2&a=1", "/ok.html"}
    assert pages["/track"]["final_url"] == server.url("/track?utm_source=redirect")
    assert pages["/track"]["title"] == "Tracked page"
    assert pages["/order?b=2&a=1"]["final_url"] == server.url("/order?a=1&b=2")
    assert server.hits("/track") == 1 and server.hits("/track?utm_source=redirect") == 1
    assert server.hits("/order?b=2&a=1") == 1 and server.hits("/order?a=1&b=2") == 1
    assert reasons(tmp_path) == {"/old": f"duplicate:redirects to {server.url('/ok.html')}"}
    site_row_is_last_and_true(rows)


@deferred_f_from_coro_f
async def test_redirect_loops_end_as_rows_and_links_with_credentials_are_refused(
    serve_site: Serve, tmp_path: Path
) -> None:
    def refresh(target: str, title: str = "R", words: str = "moved") -> str:
        return (
            f'<html><head><meta http-equiv="refresh" content="0; url={target}">'
            f"<title>{title}</title></head><body><p>{words}</p></body></html>"
        )

    files = {
        "ok.html": page("Ok page"),
        "ra.html": refresh("/rb.html"),
        "rb.html": refresh("/ra.html"),
        "self.html": refresh("/self.html"),
        # a real page that reloads itself (an explicit URL within METAREFRESH_MAXDELAY)
        "news.html": refresh("/news.html", "News", prose("News")),
    }
    routes = {
        "/loop-a": {"status": 302, "location": "/loop-b"},
        "/loop-b": {"status": 302, "location": "/loop-a"},
    }
    server = serve_site(write(tmp_path / "s", files, routes))
    with_credentials = server.url("/ok.html").replace("http://", "http://user:secret@")
    links = ["/ra.html", "/self.html", "/loop-a", "/news.html", with_credentials, "/ok.html"]
    write(tmp_path / "s", {"index.html": page("Home", *links)})
    rows = await crawl(tmp_path, start=server.url("/"))
    diagnostics = {r["url"].removeprefix(server.base_url): r for r in by_type(rows, "diagnostic")}
    assert set(diagnostics) == {"/ra.html", "/self.html", "/loop-a"}
    for row in diagnostics.values():
        assert row["error"].startswith("redirect loop: "), row["error"]
    assert diagnostics["/loop-a"]["error_type"] == "http-error"
    assert diagnostics["/loop-a"]["status_code"] == 302
    assert diagnostics["/loop-a"]["error"] == "redirect loop: " + " -> ".join(
        server.url(p) for p in ("/loop-a", "/loop-b", "/loop-a")
    )
    assert diagnostics["/ra.html"]["error_type"] == "empty"  # "moved" is all it says
    # each loop costs its hops and one more, not REDIRECT_MAX_TIMES
    assert server.hits("/ra.html") == 2 and server.hits("/rb.html") == 1
    assert server.hits("/self.html") == 2 and server.hits("/news.html") == 2
    assert server.hits("/loop-a") == 2 and server.hits("/loop-b") == 1
    # and nothing else was asked: the loops end by what they cost, counted (issue 16: the
    # suite must hold on a busy machine, so no test times a run)
    asked = [r.path for r in server.requests if r.path != "/robots.txt" and "sitemap" not in r.path]
    assert len(asked) == 1 + 2 + 2 + 1 + 2 + 2 + 1 + 1, asked  # / ra rb self news loops ok
    assert sorted(page_urls(rows)) == [server.url(p) for p in ("/", "/news.html", "/ok.html")]
    rejected = summary_of(tmp_path)["rejected"]
    assert [(e["url"], e["reason"]) for e in rejected] == [(with_credentials, "userinfo")]
    site_row_is_last_and_true(rows)


# -- 2. rel=canonical pointing at a page not yet seen -----------------------------------


@deferred_f_from_coro_f
async def test_a_canonical_pointing_at_an_unseen_page_does_not_hide_it(
    serve_site: Serve, tmp_path: Path
) -> None:
    files = {
        "index.html": page("Home", "/p1.html", "/p5.html"),
        # p1 names p2 as its canonical URL; p2 is another page, linked only from p3
        "p1.html": page("Page one", "/p3.html", head='<link rel="canonical" href="/p2.html">'),
        "p3.html": page("Page three", "/p2.html"),
        "p2.html": page("Page two", "/p4.html"),
        "p4.html": page("Page four, below two"),
        # p5 names p2 too: p1 was written with that canonical, so p5 is a duplicate
        "p5.html": page("Page five", head='<link rel="canonical" href="/p2.html">'),
    }
    server = serve_site(write(tmp_path / "s", files))
    # one request at a time: p1 is written before p5 (the first to declare p2 is kept)
    rows = await crawl(
        tmp_path, {"CONCURRENT_REQUESTS": 1}, start=server.url("/"), max_depth="4",
        max_concurrency="1",
    )  # fmt: skip
    paths = {u.removeprefix(server.base_url) for u in page_urls(rows)}
    assert paths == {"/", "/p1.html", "/p3.html", "/p2.html", "/p4.html"}
    assert server.hits("/p2.html") == 1
    assert reasons(tmp_path) == {"/p5.html": f"duplicate:canonical is {server.url('/p2.html')}"}
    site_row_is_last_and_true(rows)


# -- 3. the page budget bounds the queue -------------------------------------------------


def hubs(count: int, links: int) -> Callable[[str], Answer]:
    """Home links ``count`` hubs; each hub links ``links`` distinct leaf pages."""

    def handler(path: str) -> Answer:
        if path == "/robots.txt" or "sitemap" in path:
            return NOT_FOUND
        if path == "/":
            return html(page("Home", *(f"/hub{i}" for i in range(count))))
        if path.startswith("/hub"):
            hub = path[4:]
            anchors = " ".join(f'<a href="/h{hub}/{i}">d{i}</a>' for i in range(links))
            body = f"<h1>Hub {hub}</h1><p>{prose('Hub')}</p>{anchors}"
            return html(f"<html><body><main>{body}</main></body></html>")
        return html(page(f"Leaf {path}"))

    return handler


@deferred_f_from_coro_f
async def test_the_page_budget_bounds_the_queue_of_a_hub_site(
    scenario: Callable[[Callable[[str], Answer]], ScenarioServer], tmp_path: Path
) -> None:
    server = scenario(hubs(5, 8000))
    rows, stats = await crawl_with_stats(
        tmp_path, {"WEBMD_EXTRACT_PROCESSES": 0}, start=server.url("/"), max_pages="20"
    )
    assert len(by_type(rows, "page")) == 20
    site = site_row_is_last_and_true(rows)
    assert site["stop_reason"] == "page_budget"
    # never more requests waiting than the budgets can use, whatever the links
    room = 20 + 20  # page rows + fetched pages without one
    assert stats["scheduler/enqueued"] <= QUEUE_FACTOR * room + 10, stats["scheduler/enqueued"]
    assert len(server.page_requests()) <= 20 + 8 + 5 + 1
    summary = summary_of(tmp_path)
    assert summary["stop_reason"] == "page_budget"
    # each link of a hub read was queued or counted as not fetched
    hubs_read = sum(1 for p in page_urls(rows) if "/hub" in p)
    skipped = summary["not_fetched_counts"]["page_budget"]
    assert skipped + stats["scheduler/enqueued"] >= hubs_read * 8000
    # the 40,000 links cost a bounded queue and the requests above, counted rather than
    # timed (issue 16: the suite must hold on a busy machine)


@deferred_f_from_coro_f
async def test_a_stopped_website_takes_its_queued_requests_out_at_once(
    scenario: Callable[[Callable[[str], Answer]], ScenarioServer], tmp_path: Path
) -> None:
    # the requests waiting when the budget is reached never leave the scheduler
    server = scenario(hubs(1, 500))
    rows, stats = await crawl_with_stats(
        tmp_path,
        {"WEBMD_EXTRACT_PROCESSES": 0, "DOWNLOAD_DELAY": 0.05, "DOWNLOAD_DELAY_JITTER": 0},
        start=server.url("/"),
        max_pages="5",
        max_concurrency="1",
    )
    assert len(by_type(rows, "page")) == 5
    site_row_is_last_and_true(rows)
    assert stats["scheduler/enqueued"] - stats["scheduler/dequeued"] >= 10, stats
    assert stats["webmd/not_fetched/page_budget"] >= 10, stats
    assert len(server.page_requests()) <= 5 + 1


# -- 4. the time budget: the site row is the last row and counts what was written -------


@deferred_f_from_coro_f
async def test_at_the_time_budget_the_site_row_is_last_and_the_run_ends(
    scenario: Callable[[Callable[[str], Answer]], ScenarioServer], tmp_path: Path
) -> None:
    # big hubs converted in the crawl process keep it busy past the budget's grace
    server = scenario(hubs(6, 20000))
    rows, _ = await crawl_with_stats(
        tmp_path,
        {"WEBMD_EXTRACT_PROCESSES": 0},
        start=server.url("/"),
        max_run_secs="3",
        max_pages="100000",
    )
    site = site_row_is_last_and_true(rows)
    assert site["stop_reason"] == "time_budget"
    summary = summary_of(tmp_path)
    assert summary["websites"][site["website"]]["pages"] == site["pages_extracted"]
    assert summary["rows"]["page"] == site["pages_extracted"]
    not_fetched = summary["not_fetched_counts"]["time_budget"]
    assert not_fetched > 0
    # a page sent before the stop and answered after it has an aborted row (issue 31)
    not_fetched += summary["errors"].get("aborted", 0)
    # the run ends at the budget: what it did not fetch is counted, nothing is fetched
    # later without a row. Checked by counting, not by the run's time (issue 16: the
    # suite must hold on a busy machine): every link of a hub read is a row or counted
    # as not fetched, and so is every hub (a hub not read, or read too late for a row)
    hubs_read = sum(1 for p in page_urls(rows) if "/hub" in p)
    leaf_rows = site["pages_extracted"] - 1 - hubs_read
    assert hubs_read * 20000 <= leaf_rows + not_fetched <= hubs_read * 20000 + 6 - hubs_read
    leaves_asked = [p for p in server.page_requests() if p.startswith("/h") and "/hub" not in p]
    assert len(leaves_asked) <= leaf_rows + not_fetched


@deferred_f_from_coro_f
async def test_a_conversion_still_running_after_the_grace_does_not_hold_the_close(
    serve_site: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the extraction process sleeps two minutes on this page before extracting it (the
    # worker's test-only hook, set before the crawl starts its worker), which arrives
    # after the process is ready; large (over WAIT_FOR_WORKER_BYTES), so it waits for
    # the worker rather than being converted in the crawl process
    monkeypatch.setenv(SLOW_PAGE_MARKER_ENV, "webmd-test-slow-page-9e2a")
    monkeypatch.setenv(SLOW_PAGE_SECS_ENV, "120")
    filler = "".join(f"<p>Paragraph {i} of the slow page, in words.</p>" for i in range(2000))
    slow = (
        "<html><head><title>S</title></head><body><main>"
        f"<p>webmd-test-slow-page-9e2a</p>{filler}</main>"
    )
    assert len(slow) > WAIT_FOR_WORKER_BYTES
    leaves = [f"/p{i}.html" for i in range(5)]
    files = {"index.html": page("Home", "/slow.html", *leaves)}
    files |= {leaf.lstrip("/"): page(f"Leaf {leaf}") for leaf in leaves}
    routes = {"/slow.html": {"delay": 1.0, "body": slow + "</body></html>"}}
    server = serve_site(write(tmp_path / "s", files, routes))
    workers = record_workers(monkeypatch)
    rows = await crawl(
        tmp_path, {"WEBMD_EXTRACT_PROCESSES": 1}, start=server.url("/"), max_run_secs="2.5"
    )
    summary = summary_of(tmp_path)
    assert any("grace period" in w for w in summary["warnings"]), summary["warnings"]
    # the close did not wait for the conversion: the one extraction process, still on
    # /slow.html, was killed (SIGKILL, what the close does to a busy worker) rather than
    # left to finish it and exit. Said by its exit status, not by the run's time (issue
    # 16: the suite must hold on a busy machine)
    assert [w.returncode for w in workers] == [-signal.SIGKILL]
    site = site_row_is_last_and_true(rows)
    assert site["stop_reason"] == "time_budget" and site["pages_extracted"] == 6
    # /slow.html was fetched: a row naming the stop, not a not-fetched entry (issue 31)
    assert summary["not_fetched"] == []
    (slow,) = [r for r in rows if r["url"] == server.url("/slow.html")]
    assert slow["error_type"] == "aborted" and slow["error"].startswith("aborted: time budget")


@deferred_f_from_coro_f
async def test_the_time_budget_with_slow_pages_keeps_the_site_row_last(
    serve_site: Serve, tmp_path: Path
) -> None:
    leaves = [f"/p{i}.html" for i in range(40)]
    routes = {leaf: {"delay": 0.4, "body": page(f"Slow page {leaf}")} for leaf in leaves}
    server = serve_site(write(tmp_path / "s", {"index.html": page("Home", *leaves)}, routes))
    rows = await crawl(
        tmp_path, start=server.url("/"), max_run_secs="2", max_concurrency="4", max_pages="100"
    )
    site = site_row_is_last_and_true(rows)
    assert site["stop_reason"] == "time_budget"
    summary = summary_of(tmp_path)
    written = len(by_type(rows, "page"))
    # every leaf is a row or counted as not fetched (once)
    assert written - 1 + summary["not_fetched_counts"]["time_budget"] == 40
    # the run ended at the budget, not after every leaf (4 s of them, four at a time):
    # some were never asked for (counted, not timed: issue 16)
    assert sum(server.hits(leaf) for leaf in leaves) < 40


# -- 5. dead-link floods stop at the failure budget --------------------------------------


def dead_links(count: int, mode: str) -> Callable[[str], Answer]:
    def handler(path: str) -> Answer:
        if path == "/robots.txt" or "sitemap" in path:
            return NOT_FOUND
        if path == "/":
            return html(page("Home", *(f"/dead/{i}" for i in range(count))))
        if mode == "empty":  # a JavaScript shell: a page with no row of its own
            return html(
                "<html><head><title>x</title></head><body><div id='root'></div>"
                "<script src='/app.js'></script></body></html>"
            )
        return html("<html><body>Not found</body></html>", status=404)

    return handler


@pytest.mark.parametrize("mode", ["404", "empty"])
@deferred_f_from_coro_f
async def test_dead_links_stop_the_website_at_the_failure_budget(
    scenario: Callable[[Callable[[str], Answer]], ScenarioServer], tmp_path: Path, mode: str
) -> None:
    server = scenario(dead_links(2000, mode))
    rows = await crawl(tmp_path, start=server.url("/"), max_pages="10")
    diagnostics = by_type(rows, "diagnostic")
    # the answers after the stop are aborted rows (issue 31): 10 before it
    answered = [d for d in diagnostics if d["error_type"] != "aborted"]
    assert len(answered) == 10
    assert {d["error_type"] for d in answered} == {"http-error" if mode == "404" else "empty"}
    assert len(by_type(rows, "page")) == 1
    site = site_row_is_last_and_true(rows)
    assert site["stop_reason"] == "failure_budget"
    summary = summary_of(tmp_path)
    assert summary["stop_reason"] == "failure_budget"
    assert summary["websites"][site["website"]]["stop_reason"] == "failure_budget"
    # about 2 x max_pages pages fetched: the 10 diagnostics, and at most the requests
    # made (fewer than QUEUE_FACTOR x what the budgets could still use) when they stopped
    assert len(server.page_requests()) <= 1 + 10 + QUEUE_FACTOR * 10
    # every link is a row or counted
    counted = sum(summary["not_fetched_counts"].values())
    assert len(diagnostics) + counted == 2000


# -- 6. identical content is written once ------------------------------------------------


@deferred_f_from_coro_f
async def test_identical_pages_are_written_once(serve_site: Serve, tmp_path: Path) -> None:
    files = {
        "index.html": page("Home", "/a/", "/a/index.html", "/b.html", "/c.html"),
        "a/index.html": page("Page A"),
        "b.html": page("Page B"),
        "c.html": page("Page B"),  # the same page under another name
    }
    server = serve_site(write(tmp_path / "s", files))
    rows = await crawl(tmp_path, start=server.url("/"))
    pages = by_type(rows, "page")
    hashes = Counter(r["content_hash"] for r in pages)
    assert len(pages) == 3 and max(hashes.values()) == 1
    site = site_row_is_last_and_true(rows)
    assert site["pages_extracted"] == 3
    duplicates = {
        path: reason
        for path, reason in reasons(tmp_path).items()
        if reason.startswith("duplicate:content of ")
    }
    assert len(duplicates) == 2
    written = {r["url"] for r in pages}
    for reason in duplicates.values():
        assert reason.removeprefix("duplicate:content of ") in written
    assert summary_of(tmp_path)["rejected_counts"] == {"duplicate": 2}


@deferred_f_from_coro_f
async def test_a_soft_404_maze_is_written_once_and_ends(
    scenario: Callable[[Callable[[str], Answer]], ScenarioServer], tmp_path: Path
) -> None:
    rng = random.Random(7)

    def handler(path: str) -> Answer:
        if path == "/robots.txt":
            return NOT_FOUND
        if path == "/":
            return html(page("Home", "/real.html", "/missing-1"))
        if path == "/real.html":
            return html(page("A real page"))
        # every other URL: the same "not found" page, its navigation links ever new URLs
        nav = "".join(f'<a href="/r{rng.randrange(10**12)}">more</a>' for _ in range(10))
        return html(page("Page not found", nav=f"<nav>{nav}</nav>"))

    server = scenario(handler)
    rows = await crawl(tmp_path, start=server.url("/"), max_pages="10", max_depth="50")
    titles = Counter(r["title"] for r in by_type(rows, "page"))
    assert titles == {"Home": 1, "A real page": 1, "Page not found": 1}
    site = site_row_is_last_and_true(rows)
    assert site["stop_reason"] == "failure_budget"
    summary = summary_of(tmp_path)
    assert summary["rejected_counts"]["duplicate"] == 10
    # bounded by the rules, not by one run's scheduling (27 against 25 on a busy machine):
    # the 3 real pages, the 10 duplicates the failure budget counts, at most the queue the
    # budgets allow when they stop (QUEUE_FACTOR x max_pages), and the sitemap guesses
    assert len(server.page_requests()) <= 3 + 10 + QUEUE_FACTOR * 10 + 4


@deferred_f_from_coro_f
async def test_content_duplicates_in_incremental_runs_and_the_tree(
    serve_site: Serve, tmp_path: Path
) -> None:
    files = {
        "index.html": page("Home", "/a/", "/a/index.html", "/b.html"),
        "a/index.html": page("Page A"),
        "b.html": page("Page B"),
    }
    server = serve_site(write(tmp_path / "s", files))
    out = tmp_path / "tree"
    settings = {
        "WEBMD_INCREMENTAL": True,
        "WEBMD_STATE_DIR": str(tmp_path / "state"),
        "WEBMD_STATE": "dups",
        "WEBMD_OUT_DIR": str(out),
    }
    first, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    kept = {r["url"] for r in by_type(first, "page") if r["title"] == "Page A"}
    assert len(kept) == 1
    files_first = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md"))
    assert len(files_first) == 3

    # second run: the known copy comes last (known pages queue behind new ones), yet the
    # same copy is kept: the other one is still the duplicate
    second, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    pages = {r["url"]: r for r in by_type(second, "page")}
    assert set(pages) == {r["url"] for r in by_type(first, "page")}
    assert {r["change"] for r in pages.values()} == {"unchanged"}
    (duplicate,) = [
        e for e in summary_of(tmp_path)["rejected"] if e["reason"].startswith("duplicate:content")
    ]
    assert duplicate["reason"] == f"duplicate:content of {next(iter(kept))}"
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md")) == files_first
    site_row_is_last_and_true(second)
