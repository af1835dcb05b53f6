"""Incremental recrawl benchmark: the same real documentation site crawled three times
with ``-a incremental=true`` (and a Markdown folder tree): a first full run, a second
run of the unchanged site, and a third after one page was edited and one deleted.

    .venv/bin/python bench/incremental.py [DOC_DIR]     # default: PostgreSQL 15 docs

Each run is a real ``scrapy crawl site`` subprocess against the site served on
127.0.0.1 (``bench/docsite.py``), politeness floors off (``WEBMD_HOST_DELAY=0``,
AutoThrottle off: the server is ours). Prints a Markdown table: wall time, CPU time of
the crawl process, rows by change, and the HTTP statuses the server sent.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docsite import POSTGRES_DOCS, prepare_site

from webmd_spider.demo.server import SiteServer

REPO = Path(__file__).resolve().parent.parent


def crawl(url: str, work: Path, feed: Path) -> tuple[float, float, float]:
    """One crawl; (wall s, CPU s of the crawl process, peak RSS MB of children so far)."""
    command = [
        sys.executable, "-m", "scrapy", "crawl", "site", "-a", f"start={url}",
        "-a", "incremental=true", "-a", "state=bench", "-a", f"out_dir={work / 'tree'}",
        "-s", f"WEBMD_STATE_DIR={work / 'state'}", "-s", "WEBMD_HOST_DELAY=0",
        "-s", "AUTOTHROTTLE_ENABLED=False", "-s", "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8",
        "-s", "WEBMD_MAX_PAGES=5000", "-s", "WEBMD_MAX_RUN_SECS=3600", "-s", "LOG_LEVEL=WARNING",
        "-s", "WEBMD_PROGRESS_SECS=0", "-O", str(feed),
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"crawl failed:\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", type=Path, default=POSTGRES_DOCS)
    args = parser.parse_args(argv)
    lines = [
        "| run | wall s | CPU s | page rows | change | server answers |",
        "|---|---:|---:|---:|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        site, work = Path(tmp) / "site", Path(tmp) / "work"
        pages = prepare_site(args.source, site)
        with SiteServer(site) as server:
            for label in ("1 first crawl", "2 nothing changed", "3 one edited, one deleted"):
                if label.startswith("3"):
                    edited = site / pages[10].lstrip("/")
                    text = edited.read_text("utf-8", "replace")
                    edited.write_text(text.replace("</p>", " An edited sentence.</p>", 1))
                    (site / pages[20].lstrip("/")).unlink()
                server.clear_requests()
                feed = work / f"run{label[0]}.jsonl"
                wall, cpu, _ = crawl(server.url("/"), work, feed)
                rows = [json.loads(x) for x in feed.read_text("utf-8").splitlines()]
                change = Counter(r["change"] for r in rows if r["row_type"] != "site")
                page_rows = sum(1 for r in rows if r["row_type"] == "page")
                statuses = Counter(r.status for r in server.requests if r.path.endswith(".html"))
                lines.append(
                    f"| {label} | {wall:.1f} | {cpu:.1f} | {page_rows} | "
                    f"{dict(sorted(change.items(), key=str))} | {dict(sorted(statuses.items()))} |"
                )
                print(lines[-1], file=sys.stderr)
        files = sum(1 for _ in (work / "tree").rglob("*.md"))
    print(f"{len(pages)} pages served from {args.source}; {files} Markdown files in the tree\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
