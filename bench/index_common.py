"""Shared parts of the search-index benchmarks (issue 33): serve a documentation site on
127.0.0.1, crawl it into an index in a measured subprocess, read the index back.

Used by ``bench/index_retrieval.py``, ``bench/index_sync.py``, ``bench/index_build.py``
and ``bench/index_scale.py``; not run alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crawl import REPO, SITES, VENV_PY, WEBMD_FLAGS, ensure_docs, no_delay
from docsite import prepare_site

from webmd_spider.demo.server import SiteServer

BENCH = REPO / "bench"
RESULTS = BENCH / "results"

__all__ = [
    "REPO",
    "RESULTS",
    "SITES",
    "crawl_index",
    "ensure_docs",
    "index_rows",
    "page_path",
    "page_rows",
    "served",
]


@contextlib.contextmanager
def served(site: str, dest: Path) -> Iterator[tuple[SiteServer, list[str]]]:
    """A copy of the site's documentation (robots.txt and sitemaps added) served on
    127.0.0.1 by the project's SiteServer with TCP_NODELAY; (server, page paths)."""
    ensure_docs([site])
    pages = prepare_site(SITES[site][0], dest)
    with SiteServer(dest) as server:
        no_delay(server)
        yield server, pages


def crawl_index(
    starts: list[str],
    index: Path,
    work: Path,
    label: str,
    *,
    state: str = "bench",
    extra: list[str] | None = None,
) -> dict[str, Any]:
    """One ``scrapy crawl site -a start=... -a index=INDEX`` (the shipped crawl,
    politeness floors off as in ``bench/crawl.py``) through ``bench/measure.py``:
    wall s, CPU s and peak RSS MB of that child, its return code, and the run summary's
    ``change_feed`` section. The rows go to ``work/<label>.jsonl``."""
    work.mkdir(parents=True, exist_ok=True)
    feed = work / f"{label}.jsonl"
    command = [
        str(VENV_PY), "-m", "scrapy", "crawl", "site", "-a", f"start={' '.join(starts)}",
        "-a", f"index={index}", "-a", f"state={state}", *WEBMD_FLAGS,
        "-s", f"WEBMD_STATE_DIR={work / 'state'}", "-s", "LOG_LEVEL=INFO",
        "-O", f"{feed}:jsonl", *(extra or []),
    ]  # fmt: skip
    measured_file = work / f"{label}.measure.json"
    log = work / f"{label}.log"
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")
    wrapper = [
        sys.executable, str(BENCH / "measure.py"), "--json", str(measured_file),
        "--stderr", str(log), "--",
    ]  # fmt: skip
    subprocess.run([*wrapper, *command], cwd=REPO, env=env, check=False)
    measured = json.loads(measured_file.read_text("utf-8"))
    if measured["returncode"] != 0:
        tail = log.read_text("utf-8", "replace")[-3000:]
        raise SystemExit(f"crawl {label} exited {measured['returncode']}:\n{tail}")
    summary_file = feed.with_name(feed.name + ".summary.json")
    summary = json.loads(summary_file.read_text("utf-8"))
    return {
        "label": label,
        "wall_s": round(measured["wall_s"], 2),
        "cpu_s": round(measured["cpu_s"], 2),
        "maxrss_mb": round(measured["maxrss_mb"], 1),
        "vmhwm_mb": round(measured["vmhwm_polled_mb"], 1),
        "rows": summary.get("rows", {}),
        "change_feed": summary.get("change_feed", {}),
        "feed": str(feed),
    }


def page_path(url: str) -> str:
    """A page URL's path relative to its site's root ("/" -> "index.html")."""
    path = urlsplit(url).path.lstrip("/")
    return path or "index.html"


def index_rows(index: Path) -> dict[str, tuple[str, str]]:
    """chunk_id -> (content_hash, url) of every chunk the index file holds (read-only)."""
    with contextlib.closing(sqlite3.connect(f"file:{index}?mode=ro", uri=True)) as db:
        rows = db.execute("select chunk_id, content_hash, url from chunks").fetchall()
    return {cid: (digest, url) for cid, digest, url in rows}


def page_rows(feed: Path) -> list[dict[str, Any]]:
    """The page rows (with content) of a crawl's JSONL feed."""
    rows = []
    with feed.open("rb") as handle:
        for line in handle:
            row = json.loads(line)
            if row.get("row_type") == "page" and row.get("ok"):
                rows.append(row)
    return rows
