"""Helpers that run the real ``site`` spider against a local server and read its rows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.settings import Settings

from webmd_spider.demo.server import SiteServer
from webmd_spider.offload import pool as extract_pool
from webmd_spider.spiders.site import SiteSpider

REPO = Path(__file__).resolve().parent.parent

#: Test servers are our own: no politeness delay, no throttling, quiet logs.
FAST = {
    "WEBMD_HOST_DELAY": "0",
    # the test servers are ours, on loopback: allow them past the SSRF guard
    "WEBMD_SSRF_ALLOWLIST": "127.0.0.0/8,localhost",
    # ask an unavailable robots.txt again after half a second, not 30 s
    "WEBMD_ROBOTS_RETRY_SECS": 0.5,
    "AUTOTHROTTLE_ENABLED": False,
    "LOG_LEVEL": "WARNING",
    "WEBMD_PROGRESS_SECS": 0,
}


def project_settings(**overrides: Any) -> Settings:
    """The project's settings with test overrides."""
    settings = Settings()
    settings.setmodule("webmd_spider.settings", priority="project")
    for key, value in {**FAST, **overrides}.items():
        settings.set(key, value, priority="cmdline")
    return settings


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSONL feed."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


async def crawl(
    tmp_path: Path, settings: dict[str, Any] | None = None, **args: Any
) -> list[dict[str, Any]]:
    """Run the spider in process (asyncio reactor) and return the feed's rows."""
    out = tmp_path / "rows.jsonl"
    merged = {"FEEDS": {str(out): {"format": "jsonl"}}, **(settings or {})}
    runner = AsyncCrawlerRunner(project_settings(**merged))
    await runner.crawl(SiteSpider, **args)
    return read_rows(out) if out.exists() else []


def summary_of(tmp_path: Path) -> dict[str, Any]:
    """The run summary written beside the in-process feed."""
    data: dict[str, Any] = json.loads((tmp_path / "rows.jsonl.summary.json").read_text("utf-8"))
    return data


def scrapy_crawl(
    *args: str, cwd: Path = REPO, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``scrapy crawl site ARGS`` as a user would, in a subprocess."""
    env = dict(os.environ, **{"SCRAPY_SETTINGS_MODULE": "webmd_spider.settings"})
    command = [sys.executable, "-m", "scrapy", "crawl", "site", *args]
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def write_site(root: Path, files: dict[str, str], routes: dict[str, Any] | None = None) -> Path:
    """Write a test site under ``root``: ``files`` (relative path -> text) and, when given,
    ``routes`` as the SiteServer's ``_routes.json`` (status, headers, delays per path)."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if routes:
        (root / "_routes.json").write_text(json.dumps(routes), encoding="utf-8")
    return root


def urlset(*locs: str) -> str:
    """A sitemap (``urlset``) listing ``locs``."""
    body = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'


def prose_page(title: str, *links: str) -> str:
    """A small HTML page with enough prose to be a page row, linking ``links``."""
    prose = " ".join(f"{title} holds sentence number {i} of its own text." for i in range(8))
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    return (
        f"<html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
        f"<p>{prose}</p><ul>{anchors}</ul></main></body></html>"
    )


def page_urls(rows: list[dict[str, Any]]) -> list[str]:
    """The ``url`` of every page row, in feed order."""
    return [r["url"] for r in rows if r["row_type"] == "page"]


def by_type(rows: list[dict[str, Any]], row_type: str) -> list[dict[str, Any]]:
    """Rows of one row_type."""
    return [r for r in rows if r["row_type"] == row_type]


def page_paths(server: SiteServer, rows: list[dict[str, Any]]) -> list[str]:
    """The paths (below ``server``'s base URL) of the page rows, sorted."""
    return sorted(r["url"].removeprefix(server.base_url) for r in by_type(rows, "page"))


async def crawl_with_stats(
    tmp_path: Path, settings: dict[str, Any] | None = None, feed: str = "rows.jsonl", **args: Any
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Like :func:`crawl` (feed ``tmp_path/feed``, overwritten) but also returns the
    crawler's stats."""
    out = tmp_path / feed
    merged = {"FEEDS": {str(out): {"format": "jsonl", "overwrite": True}}, **(settings or {})}
    runner = AsyncCrawlerRunner(project_settings(**merged))
    crawler = runner.create_crawler(SiteSpider)
    await runner.crawl(crawler, **args)
    stats = crawler.stats.get_stats() if crawler.stats is not None else {}
    return (read_rows(out) if out.exists() else []), stats


def record_workers(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[bytes]]:
    """Record the processes ``subprocess.Popen`` starts from now on (for the rest of the
    test; in an in-process crawl: its extraction processes), in start order. Their
    ``returncode`` tells how each ended: ``-SIGKILL`` killed by the pool (what it does to
    a worker still on a page at its close or past its deadline), 0 it ran out of work and
    exited. How a worker ended is counted evidence; how long the close took is not
    (issue 16: the suite must hold on a busy machine)."""
    started: list[subprocess.Popen[bytes]] = []

    class Recorded(subprocess.Popen[bytes]):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(extract_pool.subprocess, "Popen", Recorded)
    return started
