"""Where the CPU of a full ``scrapy crawl site`` goes, on the PostgreSQL documentation.

    .venv/bin/python bench/profile_crawl.py                 # py-spy (from .bench-venv2) + cProfile
    .venv/bin/python bench/profile_crawl.py --no-cprofile   # py-spy only
    .venv/bin/python bench/profile_crawl.py --variant webmd-noextract --no-cprofile
    .venv/bin/python bench/profile_crawl.py --variant webmd-p1 --no-cprofile   # the crawl process

Serves the site like ``bench/crawl.py`` (SiteServer, TCP_NODELAY), runs the crawl of
one of ``bench/crawl.py``'s variants (``--variant``, default ``webmd``: the full crawl)

* under ``py-spy record --format raw`` (sampling at 250 Hz: what the process really
  spends, with little distortion), summarised into the categories below, each sample
  counted once, in the first category of :data:`CATEGORIES` that one of its frames
  matches; and
* under ``python -m cProfile -o crawl.prof`` (deterministic; it inflates code made of
  many small calls, like the extraction), printing the functions with the largest
  cumulative and own time.

With extraction processes (``webmd``, whose default is ``extract_processes=auto``, or
``webmd-pN``), both profile the crawl process only (py-spy without ``--subprocesses``;
cProfile runs in that process): that is the process whose CPU per page limits the
crawl once extraction runs elsewhere. Pages it extracts itself (before the workers are
ready, or when they fall behind) show up under "extraction". py-spy counts a thread
that is runnable but waiting for a core as busy: on a loaded machine a system call that
wakes another process (a socket send to the local server) looks expensive; the CPU
figures of ``bench/crawl.py`` are the reference.

py-spy is installed into ``.bench-venv2`` (``pip install py-spy``) when missing; without
it only cProfile runs.
"""

from __future__ import annotations

import argparse
import collections
import os
import pstats
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crawl import (
    BENCH,
    DOCS_PICKLE,
    PEER_PY,
    POSTGRES,
    REPO,
    VENV_PY,
    command_of,
    no_delay,
    prepare_site,
)

from webmd_spider.demo.server import SiteServer

#: (category, regex on one frame); a sample goes to the first category that matches.
CATEGORIES = [
    ("idle (thread pool / select waits)", r"^(Condition\.wait|.*select \(selectors\.py)"),
    ("start-up: imports", r"_find_and_load"),
    ("extraction: extract.extract()", r"^extract \(webmd_spider/extract/extractor\.py"),
    ("extraction processes: jobs out, results in", r"webmd_spider/offload/pool\.py"),
    ("chunks: chunk_markdown", r"webmd_spider/chunking/markdown_chunks\.py"),
    (
        "feed export: JSON encode + write",
        r"(scrapy/(extensions/feedexport|exporters)|webmd_spider/feeds/exporters)\.py",
    ),
    ("page row: build_page_row", r"build_page_row"),
    ("links: follow_links/schedule", r"(follow_links|schedule) \(webmd_spider"),
    ("sitemaps: parse_sitemap", r"parse_sitemap \(webmd_spider"),
    ("rest of parse_page (classify, robots directives...)", r"parse_page \(webmd_spider"),
    ("our downloader middlewares", r"webmd_spider/downloadermiddlewares/"),
    ("our extensions (progress, summary, journal)", r"webmd_spider/extensions/"),
    ("item pipeline machinery (Scrapy)", r"scrapy/pipelines/"),
    (
        "Scrapy: spider output / CONCURRENT_ITEMS tasks",
        r"scrapy/(core/scraper|core/spidermw|utils/asyncio)\.py",
    ),
    ("Scrapy: download (HTTP client, downloader mws)", r"scrapy/core/downloader/"),
    ("Scrapy: scheduler + dupefilter", r"scrapy/(core/scheduler|dupefilters|squeues|pqueues)"),
    ("Scrapy/Twisted/asyncio: everything else", r"."),
]


def summarise_spy(raw: Path) -> str:
    counts: collections.Counter[str] = collections.Counter()
    total = 0
    patterns = [(name, re.compile(rx)) for name, rx in CATEGORIES]
    for line in raw.read_text("utf-8", "replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit():
            continue
        frames = stack.split(";")
        total += int(n)
        for name, pattern in patterns:
            if any(pattern.search(f) for f in frames):
                counts[name] += int(n)
                break
    busy = total - counts[CATEGORIES[0][0]]
    lines = ["| category | share of busy samples |", "|---|---:|"]
    for name, _ in CATEGORIES[1:]:
        if counts[name]:
            lines.append(f"| {name} | {100 * counts[name] / busy:.1f}% |")
    lines.append(f"\n{busy} busy samples of {total} (250 Hz)")
    return "\n".join(lines)


def summarise_cprofile(path: Path, top: int) -> str:
    import io

    out = io.StringIO()
    stats = pstats.Stats(str(path), stream=out)
    stats.sort_stats("cumulative").print_stats(r"webmd_spider|feedexport|exporters", top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--variant",
        default="webmd",
        help="a bench/crawl.py variant: webmd (default), webmd-noextract, bare-ci16, ...",
    )
    parser.add_argument("--no-cprofile", action="store_true")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "crawl-profile")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    spy = PEER_PY.parent / "py-spy"
    if not spy.exists() and PEER_PY.exists():
        subprocess.run([str(PEER_PY), "-m", "pip", "install", "-q", "py-spy"], check=False)
    variant = args.variant
    bare = variant.startswith("bare")
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")
    if bare:
        env.pop("SCRAPY_SETTINGS_MODULE")
    with tempfile.TemporaryDirectory(prefix="crawlprof-") as tmp:
        site = Path(tmp) / "site"
        prepare_site(POSTGRES, site)
        with SiteServer(site) as server:
            no_delay(server)
            if variant.startswith(("webmd-noextract", "webmd-stubworker")):
                subprocess.run(
                    [str(VENV_PY), str(BENCH / "stub_extract.py"), "build", str(site),
                     server.base_url, str(Path(tmp) / DOCS_PICKLE)],
                    cwd=REPO, check=True,
                )  # fmt: skip
            command, _ = command_of(variant, server.url("/"), Path(tmp), Path())
            command += ["-s", "LOG_LEVEL=WARNING"] if not bare else ["--log-level", "WARNING"]
            if spy.exists():
                raw = args.out / f"{variant}.spy.txt"
                subprocess.run(
                    [str(spy), "record", "-r", "250", "-f", "raw", "-o", str(raw), "--", *command],
                    cwd=REPO, env=env, check=True, capture_output=True,
                )  # fmt: skip
                print(f"## py-spy, {variant}\n\n{summarise_spy(raw)}\n")
            if not args.no_cprofile:
                prof = args.out / f"{variant}.prof"
                # python -m cProfile -o X (-m scrapy crawl ... | bench/bare_spider.py ...)
                profiled = [command[0], "-m", "cProfile", "-o", str(prof), *command[1:]]
                subprocess.run(profiled, cwd=REPO, env=env, check=True, capture_output=True)
                print(f"## cProfile, {variant} ({prof})\n\n{summarise_cprofile(prof, args.top)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
