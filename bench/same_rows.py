"""Same rows before and after a refactor: crawl fixed sites with one code tree, write
the rows with times and durations removed, and compare two such runs.

Issue 17 asks that a change of structure leave every row unchanged. This script is
the proof: run it on a checkout of the old code and on the new one, then compare::

    git worktree add /tmp/before <old commit>
    .venv/bin/python bench/same_rows.py run --tree /tmp/before --out /tmp/rows-before
    .venv/bin/python bench/same_rows.py run --out /tmp/rows-after      # this tree
    .venv/bin/python bench/same_rows.py compare /tmp/rows-before /tmp/rows-after

``run`` crawls, each in its own ``scrapy crawl site`` subprocess with ``PYTHONPATH``
set to the tree (so the tree's code is what runs, whatever ``.venv`` has installed):

* ``demo``: the bundled demo site;
* ``postgres`` / ``python``: the whole PostgreSQL 15 and Python 3.11 documentation
  (Debian doc packages, apt-get installed when missing), served by ``bench/docsite.py``;
* ``incremental``: the demo site twice with one state store; the second run's rows;
* ``distributed``: the PostgreSQL documentation by three workers sharing a real
  ``redis-server`` (a site large enough that every worker joins before the crawl ends:
  on the 14 pages of the demo site a worker that starts late can find the crawl over,
  its keys cleared, and crawl the site again on its own);
  compared as a set of rows (which worker wrote a row is not part of it), without what
  depends on which worker fetched what (``WORKER_DEPENDENT`` columns, and the pages that
  share their content with another URL: ``_worker_independent``); two runs of one tree
  differ there.

Every site is served on 127.0.0.1 on a fixed port per scenario, so URLs (and the ids
derived from them) are equal between runs. Normalising drops ``scraped_at`` and
``response_time_ms`` (times), and sorts the rows (the crawl's order depends on timing).
``compare`` exits 1 and names the first differing rows when two runs differ.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crawl import REPO, SITES, VENV_PY, WEBMD_FLAGS, ensure_docs
from docsite import prepare_site

from webmd_spider.demo.server import SiteServer, demo_site_path

#: columns that hold a time or a duration: never equal between two runs
VOLATILE = ("scraped_at", "response_time_ms")
#: columns of a distributed crawl that depend on how the pages fell to the workers: a
#: page's sitemap lastmod is known to the worker that read the sitemap; its depth and
#: discovered_via are those of whichever worker queued the URL first (the seeder from a
#: sitemap, or another worker from a link); a site row's robots_blocked counts the links
#: its writer's peers found too or not. Two runs of one tree differ in each of them.
WORKER_DEPENDENT = ("sitemap_lastmod", "robots_blocked", "depth", "discovered_via")
#: a site row's sums over its pages (see _worker_independent)
SITE_SUMS = ("pages_extracted", "total_words", "total_tokens", "avg_boilerplate_ratio")
SCENARIOS = ("demo", "postgres", "python", "incremental", "distributed")
#: one fixed port per scenario (ids and URLs hold the origin)
PORTS = {name: 18470 + number for number, name in enumerate(SCENARIOS)}
COMMON = [*WEBMD_FLAGS, "-a", "chunk_tokens=400", "-s", "LOG_LEVEL=WARNING"]


def normalise(lines: list[str]) -> list[str]:
    """The rows of a JSONL feed as sorted canonical JSON lines, volatile columns removed."""
    rows = []
    for line in lines:
        if not line.strip():
            continue
        row = json.loads(line)
        for key in VOLATILE:
            row.pop(key, None)
        rows.append(json.dumps(row, sort_keys=True, ensure_ascii=False))
    return sorted(rows)


def _crawl(tree: Path, root: str, feed: Path, extra: list[str]) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [
        str(VENV_PY), "-m", "scrapy", "crawl", "site", "-a", f"start={root}/",
        *COMMON, *extra, "-O", f"{feed}:jsonl",
    ]  # fmt: skip
    return subprocess.Popen(command, cwd=tree, env=env)


def _run(tree: Path, root: str, feed: Path, extra: list[str] | None = None) -> list[str]:
    process = _crawl(tree, root, feed, extra or [])
    if process.wait() != 0:
        raise SystemExit(f"crawl of {root} exited with {process.returncode}")
    return feed.read_text("utf-8").splitlines()


@contextmanager
def _served(folder: Path, port: int) -> Iterator[str]:
    with SiteServer(folder, port=port) as server:
        yield server.base_url


@contextmanager
def _redis() -> Iterator[str]:
    redis = shutil.which("redis-server")
    if redis is None:
        raise SystemExit("redis-server is not installed (make system-deps)")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            [redis, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", folder],
            stdout=subprocess.DEVNULL,
        )
        try:
            for _ in range(200):  # bounded: 200 connection attempts
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait()


def scenario(name: str, tree: Path, work: Path) -> list[str]:
    """The normalised rows of one scenario crawled with the code of `tree`."""
    port = PORTS[name]
    if name in ("postgres", "python", "distributed"):
        docs = "python" if name == "python" else "postgres"
        ensure_docs([docs])
        site = work / "site"
        prepare_site(SITES[docs][0], site)
        with _served(site, port) as root:
            if name != "distributed":
                return normalise(_run(tree, root, work / "rows.jsonl"))
            return _distributed(tree, root, work)
    with _served(demo_site_path(), port) as root:
        if name == "demo":
            return normalise(_run(tree, root, work / "rows.jsonl"))
        if name == "incremental":
            state = ["-a", "incremental=true", "-a", f"state_dir={work / 'state'}"]
            _run(tree, root, work / "first.jsonl", state)
            return normalise(_run(tree, root, work / "second.jsonl", state))
        raise SystemExit(f"unknown scenario {name!r}")


def _distributed(tree: Path, root: str, work: Path) -> list[str]:
    """Three workers of one distributed crawl of `root`: the rows of all three."""
    with _redis() as url:
        feeds = [work / f"worker-{n}.jsonl" for n in range(3)]
        workers = [_crawl(tree, root, feed, ["-s", f"WEBMD_REDIS_URL={url}"]) for feed in feeds]
        if any(worker.wait() != 0 for worker in workers):
            raise SystemExit("a distributed worker failed")
        return normalise([line for feed in feeds for line in feed.read_text().splitlines()])


def cmd_run(args: argparse.Namespace) -> int:
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    for name in args.scenarios.split(","):
        if name not in SCENARIOS:
            raise SystemExit(f"unknown scenario {name!r}; choose from {', '.join(SCENARIOS)}")
        with tempfile.TemporaryDirectory() as work:
            rows = scenario(name, args.tree.resolve(), Path(work))
        (out / f"{name}.jsonl").write_text("".join(f"{r}\n" for r in rows), "utf-8")
        print(f"{name}: {len(rows)} rows", file=sys.stderr)
    return 0


def _worker_independent(old: list[str], new: list[str]) -> tuple[list[str], list[str]]:
    """Both runs of a distributed crawl without what depends on how pages fell to the
    workers: the WORKER_DEPENDENT columns, and the pages whose content another URL of
    the crawl also has. A worker finds content duplicates among the pages it fetched
    itself, so two copies (``/`` and ``/index.html``) are both written when two workers
    fetch them and one is when a single worker does (two runs of one tree differ so);
    the site row's sums over its pages go with them."""
    runs = [[json.loads(line) for line in lines] for lines in (old, new)]
    # a content written under two URLs in one run: the race decides how many copies
    # each run keeps. Counted within each run, so one page written under another URL
    # in the other run (one copy each) is still a difference.
    shared: set[str] = set()
    for rows in runs:
        copies: dict[str, set[str]] = {}
        for row in rows:
            if row.get("row_type") == "page" and row.get("content_hash"):
                copies.setdefault(row["content_hash"], set()).add(row.get("url") or "")
        shared |= {digest for digest, urls in copies.items() if len(urls) > 1}
    kept: list[list[str]] = []
    for rows in runs:
        out = []
        for row in rows:
            if row.get("content_hash") in shared:
                continue
            for column in WORKER_DEPENDENT:
                row.pop(column, None)
            if row.get("row_type") == "site":
                for column in SITE_SUMS:
                    row.pop(column, None)
            out.append(json.dumps(row, sort_keys=True, ensure_ascii=False))
        kept.append(sorted(out))
    return kept[0], kept[1]


def _summary(line: str) -> str:
    row: dict[str, Any] = json.loads(line)
    return f"{row.get('row_type')} {row.get('url') or row.get('website')}"


def cmd_compare(args: argparse.Namespace) -> int:
    differ = 0
    names = {p.name for p in args.before.glob("*.jsonl")}
    others = {p.name for p in args.after.glob("*.jsonl")}
    if not names:
        print(f"no scenario rows in {args.before}")
        return 1
    for name in sorted(others - names):
        print(f"{name.removesuffix('.jsonl')}: missing in {args.before}")
        differ += 1
    for before in sorted(args.before.glob("*.jsonl")):
        after = args.after / before.name
        if not after.exists():
            print(f"{before.stem}: missing in {args.after}")
            differ += 1
            continue
        old, new = before.read_text("utf-8").splitlines(), after.read_text("utf-8").splitlines()
        if before.stem == "distributed":
            old, new = _worker_independent(old, new)
        if old == new:
            print(f"{before.stem}: {len(old)} rows, identical")
            continue
        differ += 1
        gone, added = sorted(set(old) - set(new)), sorted(set(new) - set(old))
        print(f"{before.stem}: {len(old)} vs {len(new)} rows, {len(gone)} differ")
        for line in gone[:3]:
            print(f"  only before: {_summary(line)}")
        for line in added[:3]:
            print(f"  only after:  {_summary(line)}")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="crawl the scenarios with one code tree")
    run.add_argument("--tree", type=Path, default=REPO, help="checkout whose code runs")
    run.add_argument("--out", type=Path, required=True, help="folder for <scenario>.jsonl")
    run.add_argument("--scenarios", default=",".join(SCENARIOS))
    compare = sub.add_parser("compare", help="compare two run folders")
    compare.add_argument("before", type=Path)
    compare.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    return cmd_run(args) if args.command == "run" else cmd_compare(args)


if __name__ == "__main__":
    sys.exit(main())
