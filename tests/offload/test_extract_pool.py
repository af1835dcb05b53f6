"""Extraction in worker processes (``extract_processes``): same rows as in the crawl
process, no page lost when a worker dies, and every worker gone when the crawl ends."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scrapy import signals
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.http import Response
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.extract import ExtractOptions
from webmd_spider.offload.page_work import extract_page
from webmd_spider.offload.pool import (
    RESTARTS_PER_WORKER,
    ExtractPool,
    WorkerGone,
    default_processes,
)
from webmd_spider.spiders.site import SiteSpider

from ..crawling import REPO, crawl_with_stats, project_settings, prose_page, read_rows

SITES = Path(__file__).resolve().parents[1] / "sites"
#: Columns that depend on timing, not on where a page was extracted (which of two URLs
#: redirecting to one page is written, with its sitemap lastmod, is a race in both modes).
TIMING = ("scraped_at", "response_time_ms", "depth", "discovered_via", "url", "sitemap_lastmod")
CHUNKED = {"WEBMD_CHUNK_TOKENS": 200}
#: A wait for a state polls this often, and gives up after POLLS polls: at least 60 s
#: (each poll sleeps POLL at least), a bound only a hang reaches. Nothing is timed
#: (issue 35: no clock in tests).
POLL, POLLS = 0.02, 3000


def _poll(condition: Callable[[], bool]) -> bool:
    """Whether ``condition()`` came true within POLLS polls (in this thread)."""
    for _ in range(POLLS):
        if condition():
            return True
        time.sleep(POLL)
    return condition()


async def _until(condition: Callable[[], bool], what: str) -> None:
    """Wait on the event loop until ``condition()``; fail the test after POLLS polls."""
    for _ in range(POLLS):
        if condition():
            return
        await asyncio.sleep(POLL)
    if not condition():
        pytest.fail(f"{what} ({POLLS} polls of {POLL:g} s)")


async def _ready_pool(processes: int = 1) -> ExtractPool:
    pool = ExtractPool(processes, ExtractOptions(), (800, 0))
    pool.start()
    await _until(lambda: pool.ready >= processes, "the extraction processes never got ready")
    return pool


class RobotsWhenReady:
    """Hold robots.txt's answer (``hold``: for the crawls with extraction processes)
    until the extraction processes of the crawl (the last pool started) are all ready:
    every page comes after, whatever the machine's load. (It was answered 1 s late, and
    the processes were not always ready by then.) Gives up after POLLS polls, counted in
    ``gave_up``."""

    def __init__(self, server: SiteServer, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pools: list[ExtractPool] = []
        self.hold = False
        self.held = self.gave_up = 0
        start, respond = ExtractPool.start, server._respond

        def started(pool: ExtractPool) -> None:
            self.pools.append(pool)
            start(pool)

        def answer(path: str) -> Any:
            if path == "/robots.txt" and self.hold:
                self.held += 1
                self.gave_up += not _poll(self._ready)
            return respond(path)

        monkeypatch.setattr(ExtractPool, "start", started)
        monkeypatch.setattr(server, "_respond", answer)

    def _ready(self) -> bool:
        return bool(self.pools) and self.pools[-1].ready == self.pools[-1].processes


def _site(tmp_path: Path, serve_site: Callable[[Path], SiteServer]) -> SiteServer:
    root = tmp_path / "site"
    shutil.copytree(SITES / "basic", root)
    return serve_site(root)


def _pages(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    # keyed by final URL: which of two URLs of one page (a redirect and a direct link)
    # is written first depends on timing, in both modes
    return {
        r["final_url"]: {k: v for k, v in r.items() if k not in TIMING}
        for r in rows
        if r["row_type"] == "page"
    }


@deferred_f_from_coro_f
async def test_rows_are_the_same_when_workers_extract_the_pages(
    tmp_path: Path, serve_site: Callable[[Path], SiteServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _site(tmp_path, serve_site)
    robots = RobotsWhenReady(site, monkeypatch)
    here, here_stats = await crawl_with_stats(
        tmp_path / "here", {**CHUNKED, "WEBMD_EXTRACT_PROCESSES": 0}, start=site.url("/")
    )
    robots.hold = True
    pooled, stats = await crawl_with_stats(
        tmp_path / "pool", {**CHUNKED, "WEBMD_EXTRACT_PROCESSES": 1}, start=site.url("/")
    )
    assert (robots.held, robots.gave_up) == (1, 0)
    assert here_stats.get("webmd/extractions_in_workers") is None
    # the worker took the pages (on a busy machine a few small ones may still be
    # converted in the crawl process while the worker's queue is full: 9 of 11 once)
    assert stats["webmd/extractions"] >= stats["webmd/extractions_in_workers"] >= 5
    assert _pages(pooled) == _pages(here)
    assert all(p["chunks"] and p["chunk_count"] for p in _pages(pooled).values())
    assert len(pooled) == len(here)


@deferred_f_from_coro_f
async def test_a_killed_worker_loses_no_page(
    tmp_path: Path,
    serve_site: Callable[[Path], SiteServer],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = _site(tmp_path, serve_site)
    robots = RobotsWhenReady(site, monkeypatch)
    here, _ = await crawl_with_stats(tmp_path / "here", CHUNKED, start=site.url("/"))
    robots.hold = True

    out = tmp_path / "pool.jsonl"
    settings = {**CHUNKED, "WEBMD_EXTRACT_PROCESSES": 1, "FEEDS": {str(out): {"format": "jsonl"}}}
    runner = AsyncCrawlerRunner(project_settings(**settings))
    crawler = runner.create_crawler(SiteSpider)
    killed: list[int] = []

    def kill_workers(response: Response, **kwargs: Any) -> None:
        # the first page answer after the worker is ready: it dies with pages to do
        pool = crawler.spider.offload.pool if crawler.spider is not None else None
        if killed or pool is None or not pool.ready or response.meta.get("webmd_kind") != "page":
            return
        for worker in pool.workers:
            os.kill(worker.process.pid, signal.SIGKILL)
            killed.append(worker.process.pid)

    crawler.signals.connect(kill_workers, signal=signals.response_received)
    await runner.crawl(crawler, start=site.url("/"))
    assert (robots.held, robots.gave_up) == (1, 0)
    assert killed, "the worker was never ready"
    assert _pages(read_rows(out)) == _pages(here)
    assert "extraction process webmd-extract-1 stopped" in caplog.text


@deferred_f_from_coro_f
async def test_pool_results_and_close() -> None:
    body = prose_page("Pooled", "/a", "/b").encode()
    pool = await _ready_pool(2)
    workers = list(pool.workers)
    try:
        futures = [pool.submit(body, f"http://example.com/{n}", "utf-8") for n in range(4)]
        assert all(f is not None for f in futures)
        results = [await f for f in futures if f is not None]
    finally:
        pool.close()
    expected = extract_page(body, "http://example.com/3", "utf-8", ExtractOptions(), 800, 0)
    assert results[3] == expected
    assert results[3].columns and results[3].columns["markdown"].startswith("# Pooled")
    assert results[3].document.markdown == "" and results[3].document.page_links
    assert all(w.process.poll() is not None for w in workers) and not pool.workers
    pool.close()  # twice is fine
    assert pool.submit(body, "http://example.com/", None) is None


@deferred_f_from_coro_f
async def test_a_dead_worker_is_replaced_a_bounded_number_of_times() -> None:
    body = prose_page("Again", "/a").encode()
    pool = await _ready_pool()
    try:
        for round_ in range(RESTARTS_PER_WORKER + 1):
            (worker,) = pool.workers
            os.kill(worker.process.pid, signal.SIGKILL)
            # the loop notices the end of its result pipe
            await _until(
                lambda w=worker: w not in pool.workers, "the dead worker was never noticed"
            )
            if round_ == RESTARTS_PER_WORKER:
                break
            await _until(lambda: pool.ready >= 1, "no replacement got ready")
            (replacement,) = pool.workers
            assert replacement.process.pid != worker.process.pid
            future = pool.submit(body, "http://example.com/", "utf-8")
            assert future is not None
            assert (await future).columns is not None
        # out of replacements: no worker, pages are the caller's to extract
        await asyncio.sleep(0.3)
        assert not pool.workers and pool.submit(body, "http://example.com/", None) is None
    finally:
        pool.close()


@deferred_f_from_coro_f
async def test_a_page_out_when_the_pool_closes_fails_over() -> None:
    pool = await _ready_pool()
    future = pool.submit(prose_page("Late").encode(), "http://example.com/", None)
    pool.close()
    assert future is not None
    with pytest.raises(WorkerGone):
        await future


@deferred_f_from_coro_f
async def test_a_pool_that_cannot_start_workers_leaves_pages_to_the_caller(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sys, "executable", "/nonexistent/python3")
    pool = ExtractPool(2, ExtractOptions())
    pool.start()
    try:
        assert not pool.workers
        assert pool.submit(b"<p>x</p>", "http://example.com/", None) is None
        assert "could not start an extraction process" in caplog.text
    finally:
        pool.close()


def test_auto_is_one_worker_per_spare_core() -> None:
    assert default_processes(1) == 0
    assert default_processes(2) == 1
    assert default_processes(3) == 2
    assert default_processes(64) == 4  # the crawl process could not keep more busy


def _descendants(pid: int) -> set[int]:
    """Every live process under ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def _running(pid: int) -> bool:
    """Alive and not a zombie (an exited child its parent has not reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_ctrl_c_stops_the_crawl_and_its_workers(
    tmp_path: Path, serve_site: Callable[[Path], SiteServer]
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    pages = [f"/p{n}.html" for n in range(40)]
    (root / "index.html").write_text(prose_page("Home", *pages), "utf-8")
    routes = {p: {"body": prose_page(p), "delay": 0.3} for p in pages}
    (root / "_routes.json").write_text(json.dumps(routes), "utf-8")
    site = serve_site(root)
    out = tmp_path / "rows.jsonl"
    command = [
        sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start={site.url('/')}",
        "-s", "WEBMD_EXTRACT_PROCESSES=2", "-s", "WEBMD_HOST_DELAY=0",
        "-s", "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8", "-s", "AUTOTHROTTLE_ENABLED=False",
        "-s", "WEBMD_MAX_CONCURRENCY=2", "-O", str(out),
    ]  # fmt: skip
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")
    # a session of its own: Ctrl-C is sent to the whole process group, as a terminal does
    process = subprocess.Popen(
        command,
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    workers: set[int] = set()

    def started() -> bool:  # the 2 workers
        workers.update(_descendants(process.pid))
        return len(workers) >= 2

    assert _poll(started), "the extraction processes never started"
    # Ctrl-C once the crawl is under way: a page answered (40 pages of 0.3 s each, two at
    # a time, are left), polled for rather than slept for
    assert _poll(lambda: any(r.path.startswith("/p") for r in site.requests)), "no page asked"
    os.killpg(process.pid, signal.SIGINT)
    log, _ = process.communicate(timeout=30)
    assert process.returncode == 0, log
    assert "Traceback" not in log and "KeyboardInterrupt" not in log, log
    rows = read_rows(out)
    assert any(r["row_type"] == "site" and r["stop_reason"] == "shutdown" for r in rows)
    # the crawl waited for its workers (reaped them) before it exited: none is left now,
    # not after a pause
    alive = {pid for pid in workers if _running(pid)}
    assert not alive, f"processes left after the crawl: {alive}"


@deferred_f_from_coro_f
async def test_unchanged_pages_extracted_in_a_worker_carry_no_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    pages = [f"/p{n}.html" for n in range(4)]
    (root / "index.html").write_text(prose_page("Home", *pages), "utf-8")
    for page in pages:
        (root / page.lstrip("/")).write_text(prose_page(page), "utf-8")
    robots = {"body": "User-agent: *\nAllow: /\n", "content_type": "text/plain"}
    routes = {"/robots.txt": robots}
    (root / "_routes.json").write_text(json.dumps(routes), "utf-8")
    settings = {
        **CHUNKED,
        "WEBMD_EXTRACT_PROCESSES": 1,
        "WEBMD_INCREMENTAL": True,
        "WEBMD_STATE_DIR": str(tmp_path / "state"),
    }
    # without validators every page is fetched and extracted again: the hash decides
    with SiteServer(root, validators=False) as server:
        held = RobotsWhenReady(server, monkeypatch)
        held.hold = True
        first, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
        second, stats = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    assert (held.held, held.gave_up) == (2, 0)
    assert stats["webmd/extractions_in_workers"] == stats["webmd/extractions"] == 5
    assert {r["change"] for r in first if r["row_type"] == "page"} == {"new"}
    assert all(r["chunks"] for r in first if r["row_type"] == "page")
    unchanged = [r for r in second if r["row_type"] == "page"]
    assert len(unchanged) == 5 and {r["change"] for r in unchanged} == {"unchanged"}
    for row in unchanged:
        assert row["markdown"] is None and row["chunks"] is None and row["chunk_count"] is None
        assert row["content_hash"] and row["title"]
