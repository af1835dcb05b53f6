"""JOBDIR resume, the hard way: ``scrapy crawl`` subprocesses against a real local
server, stopped with SIGINT (Scrapy's graceful pause) or killed with SIGKILL in the
middle, then run again with the same JOBDIR. The union of the rows must hold every page
of the site exactly once, and no page may be fetched twice except those in flight at
the kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from webmd_spider.demo.server import SiteServer

from ..crawling import REPO, page_urls, prose_page, read_rows, scrapy_crawl

SECTIONS = 30
LEAVES_PER_SECTION = 2
PAGE_DELAY = 0.06  # seconds per page answer: the crawl lasts a few seconds
ARGS = [
    *("-s", "LOG_LEVEL=INFO", "-s", "WEBMD_HOST_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False"),
    *("-s", "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8", "-s", "WEBMD_MAX_CONCURRENCY=2"),
    *("-s", "WEBMD_MAX_PAGES=1000", "-s", "WEBMD_MAX_DEPTH=3", "-s", "WEBMD_PROGRESS_SECS=0"),
]


@pytest.fixture
def slow_site(tmp_path: Path) -> Any:
    root = tmp_path / "site"
    root.mkdir()
    routes: dict[str, Any] = {}
    sections = [f"/s{i}.html" for i in range(SECTIONS)]
    (root / "index.html").write_text(prose_page("Home", *sections))
    for i in range(SECTIONS):
        leaves = [f"/s{i}/leaf{j}.html" for j in range(LEAVES_PER_SECTION)]
        (root / f"s{i}.html").write_text(prose_page(f"Section {i}", *leaves))
        (root / f"s{i}").mkdir()
        for j, leaf in enumerate(leaves):
            (root / f"s{i}" / f"leaf{j}.html").write_text(prose_page(f"Leaf {i}-{j}"))
            routes[leaf] = {"file": leaf, "delay": PAGE_DELAY}
        routes[f"/s{i}.html"] = {"file": f"s{i}.html", "delay": PAGE_DELAY}
    (root / "_routes.json").write_text(json.dumps(routes))
    with SiteServer(root) as server:
        yield server


def all_pages(server: SiteServer) -> set[str]:
    urls = {server.url("/")}
    for i in range(SECTIONS):
        urls.add(server.url(f"/s{i}.html"))
        urls.update(server.url(f"/s{i}/leaf{j}.html") for j in range(LEAVES_PER_SECTION))
    return urls


def start_crawl(server: SiteServer, jobdir: Path, feed: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")
    command = [
        sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start={server.url('/')}",
        "-s", f"JOBDIR={jobdir}", "-o", str(feed), *ARGS,
    ]  # fmt: skip
    return subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def wait_for_rows(feed: Path, count: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if feed.exists() and feed.read_bytes().count(b"\n") >= count:
            return
        assert process.poll() is None, "the crawl ended before it could be interrupted"
        time.sleep(0.02)
    raise AssertionError(f"no {count} rows in {feed} after 60 s")


def fetched(server: SiteServer, since: int = 0, until: int | None = None) -> Counter[str]:
    return Counter(
        server.base_url + r.path
        for r in server.requests[since:until]
        if r.path.endswith(".html") or r.path == "/"
    )


def test_kill_9_mid_crawl_then_resume(slow_site: SiteServer, tmp_path: Path) -> None:
    jobdir, first, second = tmp_path / "job", tmp_path / "run1.jsonl", tmp_path / "run2.jsonl"
    process = start_crawl(slow_site, jobdir, first)
    wait_for_rows(first, 20, process)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    time.sleep(0.3)  # requests in flight at the kill reach the server's log
    rows1 = read_rows(first)
    run1_fetches = fetched(slow_site)
    split = len(slow_site.requests)
    assert 20 <= len(page_urls(rows1)) < len(all_pages(slow_site))

    done = scrapy_crawl("-a", f"start={slow_site.url('/')}", "-s", f"JOBDIR={jobdir}",
                        "-o", str(second), *ARGS)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Resuming from" in done.stderr
    rows2 = read_rows(second)

    union = Counter(page_urls(rows1) + page_urls(rows2))
    assert set(union) == all_pages(slow_site)
    # The row is written to the feed, then marked done in the journal (resume.py): a kill
    # between the two writes leaves the first run's last row unmarked, and that page
    # alone is fetched and written again. Any other page is written once.
    unmarked = {rows1[-1]["url"]}
    twice = {u for u, n in union.items() if n > 1}
    assert twice <= unmarked, twice
    # fetched again: only pages that had no row yet (in flight at the kill), at most a few
    again = set(run1_fetches) & set(fetched(slow_site, split))
    assert not (again & set(page_urls(rows1))) - unmarked
    assert len(again) <= 4, again


def test_ctrl_c_then_resume_into_the_same_feed(slow_site: SiteServer, tmp_path: Path) -> None:
    jobdir, feed = tmp_path / "job", tmp_path / "rows.jsonl"
    process = start_crawl(slow_site, jobdir, feed)
    wait_for_rows(feed, 15, process)
    process.send_signal(signal.SIGINT)  # once: Scrapy's graceful stop
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr[-3000:]
    first_rows = len(page_urls(read_rows(feed)))
    assert first_rows < len(all_pages(slow_site))
    split = len(slow_site.requests)

    done = scrapy_crawl("-a", f"start={slow_site.url('/')}", "-s", f"JOBDIR={jobdir}",
                        "-o", str(feed), *ARGS)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    pages = Counter(page_urls(read_rows(feed)))
    assert set(pages) == all_pages(slow_site)
    assert max(pages.values()) == 1, [u for u, n in pages.items() if n > 1]
    # a graceful stop lets the downloads in flight finish: no page is fetched twice
    # (the home page is, and must be: it is the start of the link crawl)
    again = set(fetched(slow_site, 0, split)) & set(fetched(slow_site, split))
    assert again <= {slow_site.url("/")}, again


def test_a_resume_remembers_the_content_of_pages_written_before(tmp_path: Path) -> None:
    # issue 16 item 4: after kill -9 and a resume, /index.html came out as a second page
    # row with the content_hash of /, written by the first run (2 of 4 trials)
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text(prose_page("Home", "/a.html", "/b.html", "/index.html"))
    (root / "a.html").write_text(prose_page("Page A"))
    (root / "b.html").write_text(prose_page("Page B"))
    jobdir, first, second = tmp_path / "job", tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    one_at_a_time = ["-s", "CONCURRENT_REQUESTS=1", "-s", f"JOBDIR={jobdir}"]
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="tests.kill_settings")
    with SiteServer(root) as server:
        # the first run dies right after the row of /a.html: / is done, /index.html not
        killed = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start={server.url('/')}",
             "-O", str(first), *ARGS, *one_at_a_time, "-s", "KILL_AFTER_ROW=/a.html"],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
        assert server.url("/") in page_urls(read_rows(first))
        assert server.url("/index.html") not in page_urls(read_rows(first))
        done = scrapy_crawl(
            "-a", f"start={server.url('/')}", "-o", str(second), *ARGS, *one_at_a_time
        )
        assert done.returncode == 0, done.stderr[-2000:]
    rows = [*read_rows(first), *read_rows(second)]
    hashes = Counter(r["content_hash"] for r in rows if r["row_type"] == "page")
    assert max(hashes.values()) == 1, hashes
    assert sorted(page_urls(rows)) == sorted(server.url(p) for p in ("/", "/a.html", "/b.html"))
