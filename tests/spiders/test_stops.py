"""Nothing without a row, at any stop (issue 31 item 8).

A local site whose home page links a page that hangs (never answers until the test
ends), one that drips its bytes, pages that fail (404) and good pages. At each stop
(the failure budget, the page budget, the time budget, SIGINT, SIGTERM) every URL the
server received a request for has a row (its answer, or an ``aborted`` diagnostic
naming the stop), and every linked URL that was not sent is a listed ``not-fetched``
entry with the stop's reason. Work is counted, never timed: the crawl is stopped once
the server has received the hanging request, not after a fixed sleep.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer

from ..crawling import REPO, by_type, crawl, prose_page, read_rows, summary_of, write_site

Serve = Callable[[Path], SiteServer]

#: the links of the home page, in the order they are queued (FIFO at one depth)
HANG, DRIP = "/hang", "/drip"
MISSING = ["/missing-1", "/missing-2", "/missing-3"]
GOOD = [f"/p{i}.html" for i in range(6)]
#: Downloads are cut after this long: the hanging request ends (as a timeout) within
#: the test instead of at the 20 s default. Bounded work, not a clock assertion.
TIMEOUT = {"DOWNLOAD_TIMEOUT": 2}


def stop_site(root: Path, links: list[str]) -> Path:
    """The site: a home page linking ``links``, a hanging and a dripping page, good
    pages (prose) and 404s for the rest."""
    files = {"index.html": prose_page("Home", *links)}
    files |= {p.lstrip("/"): prose_page(f"Good {p}") for p in GOOD}
    routes: dict[str, Any] = {
        HANG: {"hang": True},
        # 64-byte pieces 0.1 s apart: ~8 s for the whole body, over DOWNLOAD_TIMEOUT
        DRIP: {"body": prose_page("Drip").ljust(80 * 64), "drip": 0.1},
    }
    return write_site(root, files, routes)


def asked(server: SiteServer) -> set[str]:
    """The page paths the server received a request for (robots.txt aside)."""
    return {r.path for r in server.requests if r.path != "/robots.txt"}


def account(server: SiteServer, rows: list[dict[str, Any]], summary: dict[str, Any],
            links: list[str]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:  # fmt: skip
    """Check that every URL is accounted for: each path the server was asked for has
    exactly one row; each linked path never asked for is a listed not-fetched entry (and
    the counts cover the list). Returns (rows by path, not-fetched reason by path)."""
    base = server.base_url
    by_path: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["row_type"] in ("page", "diagnostic"):
            path = row["url"].removeprefix(base)
            assert path not in by_path, f"two rows for {path}"
            by_path[path] = row
    skipped = {e["url"].removeprefix(base): e["reason"] for e in summary["not_fetched"]}
    assert sum(summary["not_fetched_counts"].values()) == len(summary["not_fetched"])
    received = asked(server)
    assert received - set(by_path) == set(), f"asked without a row: {received - set(by_path)}"
    assert not received & set(skipped), f"asked, yet not fetched: {received & set(skipped)}"
    never = {"/", *links} - received
    rejected = {e["url"].removeprefix(base) for e in summary["rejected"]}
    assert never - set(skipped) - rejected - set(by_path) == set(), (never, skipped)
    return by_path, skipped


@deferred_f_from_coro_f
async def test_the_failure_budget_gives_the_requests_in_flight_a_row(
    serve_site: Serve, tmp_path: Path
) -> None:
    links = [HANG, DRIP, *MISSING, *GOOD]
    server = serve_site(stop_site(tmp_path / "site", links))
    # four at a time: /hang, /drip and two 404s go first; the 404s spend the failure
    # budget (max_pages=2) while /hang and /drip are still in flight
    rows = await crawl(
        tmp_path, TIMEOUT, start=server.url("/"), max_pages="2", max_concurrency="4",
        discovery="links",
    )  # fmt: skip
    summary = summary_of(tmp_path)
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "failure_budget"
    assert rows[-1] is not None and rows[-1]["row_type"] == "site"
    found, skipped = account(server, rows, summary, links)
    assert {HANG, DRIP} <= asked(server)
    for path in (HANG, DRIP):
        assert found[path]["error_type"] == "aborted", found[path]
        assert found[path]["error"].startswith("aborted: failure budget"), found[path]
    # the good pages linked after them: never sent (queued, or not even queued once the
    # queue held what the budgets could still use: page_budget)
    assert set(GOOD) - asked(server) <= set(skipped)
    assert set(skipped.values()) <= {"failure_budget", "page_budget"}


@deferred_f_from_coro_f
async def test_the_page_budget_gives_the_requests_in_flight_a_row(
    serve_site: Serve, tmp_path: Path
) -> None:
    links = [HANG, DRIP, *GOOD]
    server = serve_site(stop_site(tmp_path / "site", links))
    # four at a time: /hang, /drip, /p0.html and /p1.html; the home page and one good
    # page reach the page budget (max_pages=2) while the others are in flight
    rows = await crawl(
        tmp_path, TIMEOUT, start=server.url("/"), max_pages="2", max_concurrency="4",
        discovery="links",
    )  # fmt: skip
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "page_budget" and site["pages_extracted"] == 2
    assert rows[-1]["row_type"] == "site"
    found, skipped = account(server, rows, summary_of(tmp_path), links)
    for path in (HANG, DRIP):
        assert found[path]["error"].startswith("aborted: page budget"), found[path]
    aborted = [p for p, r in found.items() if r.get("error_type") == "aborted"]
    assert len(aborted) >= 3  # /hang, /drip and the good page answered after the budget
    assert set(GOOD) - asked(server) <= set(skipped)


@deferred_f_from_coro_f
async def test_the_time_budget_gives_the_requests_in_flight_a_row(
    serve_site: Serve, tmp_path: Path
) -> None:
    links = [HANG, DRIP, *GOOD]
    server = serve_site(stop_site(tmp_path / "site", links))
    # two at a time: /hang and /drip hold both until DOWNLOAD_TIMEOUT, past the budget
    rows = await crawl(
        tmp_path, TIMEOUT, start=server.url("/"), max_run_secs="1", max_concurrency="2",
        discovery="links",
    )  # fmt: skip
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "time_budget"
    assert rows[-1]["row_type"] == "site"
    found, skipped = account(server, rows, summary_of(tmp_path), links)
    for path in (HANG, DRIP):
        assert found[path]["error"].startswith("aborted: time budget"), found[path]
    never = set(GOOD) - asked(server)
    assert never and {skipped[p] for p in never} == {"time_budget"}


# -- a graceful stop of a crawl in its own process: SIGINT (Ctrl-C) and SIGTERM ----------

#: The test settings of tests/crawling.py's FAST, for a ``scrapy crawl`` subprocess.
SUBPROCESS_SETTINGS = [
    *("-s", "LOG_LEVEL=INFO", "-s", "WEBMD_HOST_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False"),
    *("-s", "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8", "-s", "WEBMD_PROGRESS_SECS=0"),
    *("-s", "DOWNLOAD_TIMEOUT=2"),
]


def wait_until_asked(server: SiteServer, path: str, process: subprocess.Popen[str]) -> None:
    """Return once the server has received a request for ``path`` (polled: the crawl's
    own pace decides, not a fixed sleep); fail if the crawl ends first."""
    for _ in range(1200):  # at most a minute on a very busy machine
        if path in asked(server):
            return
        assert process.poll() is None, process.communicate()[1][-3000:]
        select.select([], [], [], 0.05)
    raise AssertionError(f"{path} was never asked for")


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM])
def test_a_graceful_stop_gives_the_requests_in_flight_a_row(
    sent: signal.Signals, serve_site: Serve, tmp_path: Path
) -> None:
    links = [HANG, DRIP, *GOOD]
    server = serve_site(stop_site(tmp_path / "site", links))
    feed = tmp_path / "rows.jsonl"
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")
    command = [
        sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start={server.url('/')}",
        "-a", "max_concurrency=2", "-a", "discovery=links", "-o", str(feed),
        *SUBPROCESS_SETTINGS,
    ]  # fmt: skip
    process = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        wait_until_asked(server, HANG, process)
        process.send_signal(sent)  # once: Scrapy's graceful stop (SIGTERM: the same)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr[-3000:]
    rows = read_rows(feed)
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "shutdown"
    assert rows[-1]["row_type"] == "site"
    summary = summary_of_feed(feed)
    found, skipped = account(server, rows, summary, links)
    assert found[HANG]["error"].startswith("aborted: shutdown"), found[HANG]
    never = set(GOOD) - asked(server)
    assert never and {skipped[p] for p in never} == {"shutdown"}


def summary_of_feed(feed: Path) -> dict[str, Any]:
    """The run summary written beside ``feed``."""
    data: dict[str, Any] = json.loads(feed.with_name(feed.name + ".summary.json").read_text())
    return data
