"""What a recrawl costs with issue 34's cheap recrawls: pages skipped on the sitemap's
``<lastmod>`` (under a sample fetched anyway), and conditional GETs answered 304.

    .venv/bin/python bench/recrawl_cost.py                 # PostgreSQL 15 docs, 3 repeats
    .venv/bin/python bench/recrawl_cost.py --repeats 3 --lies ""      # runs 1-4 only
    .venv/bin/python bench/recrawl_cost.py --report bench/results/recrawl-cost-T.json
    .venv/bin/python bench/recrawl_cost.py --profile /tmp/recrawl304.prof  # run 3, cProfile
    .venv/bin/python bench/recrawl_cost.py --profile /tmp/r2.prof --profile-run unchanged
    .venv/bin/python bench/recrawl_cost.py --instructions    # valgrind instruction counts

The PostgreSQL 15 docs (``postgresql-doc-15``, 1,169 pages; installed with apt-get when
missing, ``bench/crawl.py``'s ``ensure_docs``) are copied with a robots.txt and a sitemap
index (``bench/docsite.py``) whose entries carry a ``<lastmod>``: a pseudo-random time in
2025 seeded by the page's path (distinct, plausible, before any crawl), and served on
127.0.0.1 by the project's SiteServer (ETag and Last-Modified; it answers conditional
requests with 304 and logs every request). One server for the whole benchmark (the
state is keyed by URL, port included). Every run is a real subprocess::

    scrapy crawl site -a start=ROOT -a incremental=true -a state=bench \\
        -a max_pages=100000 -s WEBMD_STATE_DIR=STATE [WEBMD_FLAGS] -O FEED:jsonl

with :data:`crawl.WEBMD_FLAGS` (politeness floors off for our own server; extraction
processes, INFO logging and everything else as shipped), no Markdown tree (``out_dir``
fills a tree, and a run that fills one does not skip on lastmod).

Runs (each of 2 to 5 starts from a fresh copy of run 1's state, so they are independent):

1. ``first``: a first crawl, empty state;
2. ``unchanged``: the same site again; ``unchanged-quiet``: the same with
   ``-a emit_unchanged=false``;
3. ``no-lastmod``: the sitemap without ``<lastmod>``: every page a conditional GET
   (304); ``never``: the sitemap with lastmod and ``-a trust_lastmod=never``;
4. ``edited-5%``: 5 % of the pages (a fixed seeded sample) edited (a sentence added to
   their first paragraph) and their lastmod moved to the time of the edit;
5. ``lies-N%`` then ``lies-N%-next``: N % of the pages edited with their lastmod left
   old (a site whose dates lie), then the next run on the state that run left (its
   distrust remembered when the sample caught the lie); ``--trials`` trials, each from
   a fresh copy of run 1's state. The chance that a sample of k among n candidates
   catches at least one of m liars is 1 - C(n-m, k) / C(n, k).

CPU = user + system of the crawl process and of its children (the extraction worker
processes it waits for): ``getrusage(RUSAGE_CHILDREN)`` deltas around each subprocess,
one run at a time. Start-up = the same command on a one-page site (a first crawl, and a
recrawl of it on its own state); per-page CPU = (run - start-up of the same kind) ÷ the
site's pages. Page requests = the requests the server logged, robots.txt and sitemaps
excepted. Extractions = the ``webmd/extractions`` stat (every extraction, in a worker
or not; ``webmd/extractions_in_workers`` counts those done in a worker).

Before each run the benchmark waits (``--max-wait`` seconds at most) until no other
``bench/index_*`` Python process runs and the machine is idle (``/proc/stat``); a run
beside which one started, or during which other processes used more than max(0.5 s,
10 % of its wall time) of CPU, runs again from the same state (``--retries``), and any
left are recorded. The server has ``TCP_NODELAY`` on, as in ``bench/crawl.py``. Prints
Markdown tables (medians and minima); the raw runs go to
``bench/results/recrawl-cost-<UTC time>.json``.

``--instructions``: runs 1 to 3 and their start-ups once each under valgrind
(``cachegrind``, no cache simulation), with ``-a extract_processes=0`` so that one
process does all the work; per page = (instructions of the run - those of its
start-up) / pages. Unlike CPU seconds, the count does not move with the machine's
load or clock (repeats agree within about 0.2 %); the CPU tables remain the figures
the issue asks for, this one says how much work each page costs.

``--profile FILE``: a first crawl of the site without lastmod, then its recrawl (every
page a 304) under ``python -m cProfile`` with ``-a extract_processes=0``; prints the
functions with the largest cumulative and own time. ``--profile-run unchanged`` profiles
run 2 instead (the sitemaps dated: the pages skipped on them but the sample).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crawl import SITES, WEBMD_FLAGS, ensure_docs, no_delay
from docsite import SITEMAP_CHUNK, prepare_site

from webmd_spider.demo.server import SiteServer
from webmd_spider.state.lastmod import sample_size

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
STAMP = "%Y-%m-%dT%H:%M:%SZ"
EDIT = " An edited sentence about recrawls."
SAMPLE_MAX = 50  # the lastmod_sample_max default
#: the machine is quiet under this many cores busy (over 2 s, before a run) ...
QUIET = 0.15
#: ... and a run ran beside others when they used more CPU than this during it
FOREIGN_MIN_S, FOREIGN_SHARE = 0.5, 0.1


# -- the site ---------------------------------------------------------------------------
def old_lastmod(path: str) -> str:
    """A time in 2025, pseudo-random and seeded by the page's path."""
    seconds = int.from_bytes(hashlib.sha256(path.encode()).digest()[:8], "big") % (365 * 86400)
    return (datetime(2025, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)).strftime(STAMP)


def write_sitemaps(site: Path, pages: list[str], lastmod: dict[str, str] | None) -> None:
    """Rewrite docsite's child sitemaps (same names, same chunks) with ``<lastmod>``
    from `lastmod` (path -> value), or without any when None."""
    for number, start in enumerate(range(0, len(pages), SITEMAP_CHUNK)):
        body = "".join(
            f"<url><loc>{{{{origin}}}}{path}</loc>"
            + (f"<lastmod>{lastmod[path]}</lastmod>" if lastmod else "")
            + "</url>"
            for path in pages[start : start + SITEMAP_CHUNK]
        )
        (site / f"sitemap-{number}.xml").write_text(
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'
        )


def edit_pages(site: Path, paths: list[str]) -> dict[str, bytes]:
    """Add a sentence to the first paragraph of each page (visible text); return the
    original bytes, for :func:`restore`."""
    originals = {}
    for path in paths:
        file = site / path.lstrip("/")
        originals[path] = file.read_bytes()
        text = originals[path].decode("utf-8", "replace")
        edited = text.replace("</p>", EDIT + "</p>", 1)
        if edited == text:
            edited = text.replace("</body>", f"<p>{EDIT}</p></body>", 1)
        file.write_text(edited, "utf-8")
    return originals


def restore(site: Path, originals: dict[str, bytes]) -> None:
    for path, data in originals.items():
        (site / path.lstrip("/")).write_bytes(data)


def pick(pages: list[str], percent: float, seed: str) -> list[str]:
    return sorted(random.Random(seed).sample(pages, round(len(pages) * percent / 100)))


def one_page_site(dest: Path) -> None:
    """A site of one page (text, no links) with a robots.txt and a dated sitemap."""
    dest.mkdir(parents=True)
    prose = " ".join(f"Sentence {i} of the only page of this site." for i in range(40))
    (dest / "index.html").write_text(
        "<html><head><title>One page</title></head><body><main><h1>One page</h1>"
        f"<p>{prose}</p><p>{prose}</p></main></body></html>"
    )
    (dest / "sitemap.xml").write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{{{{origin}}}}/</loc><lastmod>{old_lastmod('/')}</lastmod></url></urlset>"
    )
    (dest / "robots.txt").write_text("User-agent: *\nAllow: /\nSitemap: {{origin}}/sitemap.xml\n")


# -- other benchmarks ---------------------------------------------------------------------
def others() -> list[str]:
    """Command lines of other running ``bench/index_*`` Python processes."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        line = " ".join(a.decode("utf-8", "replace") for a in argv if a)
        if "python" in line and "bench/index_" in line:
            found.append(line)
    return found


def busy_cpu_s() -> float:
    """CPU seconds the whole machine has spent busy since boot (``/proc/stat``: every
    state but idle and iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def machine_busy(seconds: float = 2.0) -> float:
    """Cores busy on average over the next `seconds` (this process sleeps)."""
    before = busy_cpu_s()
    time.sleep(seconds)
    return (busy_cpu_s() - before) / seconds


def wait_quiet(max_wait: float) -> tuple[float, list[str]]:
    """Wait (at most `max_wait` s) until no other ``bench/index_*`` benchmark runs and
    the machine is idle (under QUIET cores busy over 2 s): (waited s, what was still
    running when we gave up)."""
    start = time.monotonic()
    said = False
    while True:
        busy = others()
        load = 0.0 if busy else machine_busy()
        if not busy and load < QUIET:
            return time.monotonic() - start, []
        if time.monotonic() - start >= max_wait:
            return time.monotonic() - start, busy or [f"{load:.2f} cores busy"]
        if not said:
            print(f"waiting for {busy or f'{load:.2f} cores busy'}", file=sys.stderr)
            said = True
        time.sleep(3)


# -- one run ------------------------------------------------------------------------------
@dataclass
class Run:
    label: str
    repeat: int
    wall_s: float
    cpu_s: float
    server_cpu_s: float
    page_requests: int
    statuses: dict[str, int]
    rows: dict[str, int]
    extractions: int
    in_workers: int
    lastmod_skipped: int | None
    lastmod_distrust: str | None
    waited_s: float
    beside: list[str]
    foreign_cpu_s: float = 0.0  # CPU other processes used during the run (/proc/stat)
    extra: dict[str, Any] = field(default_factory=dict)


def is_page_request(path: str) -> bool:
    name = path.split("?", 1)[0].rsplit("/", 1)[-1]
    return not (name == "robots.txt" or (name.startswith("sitemap") and name.endswith(".xml")))


def stat(log: str, name: str) -> int:
    match = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(match.group(1)) if match else 0


#: the environment of every benchmarked crawl
CRAWL_ENV = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")


def crawl_command(
    server: SiteServer,
    state: Path,
    feed: Path,
    extra: list[str],
    python: tuple[str, ...] = (sys.executable,),
) -> list[str]:
    """The benchmarked crawl of `server` (see the module doc) with `extra` arguments,
    run by `python` (the interpreter, after whatever wraps it: cProfile, valgrind)."""
    return [
        *python, "-m", "scrapy", "crawl", "site", "-a", f"start={server.url('/')}",
        "-a", "incremental=true", "-a", "state=bench", "-a", "max_pages=100000",
        *extra, "-s", f"WEBMD_STATE_DIR={state}", *WEBMD_FLAGS, "-O", f"{feed}:jsonl",
    ]  # fmt: skip


def crawl(
    server: SiteServer,
    state: Path,
    feed: Path,
    label: str,
    repeat: int,
    max_wait: float,
    extra_args: list[str],
    retries: int,
) -> tuple[Run, list[dict[str, Any]]]:
    """One run (again from the same state, up to `retries` times, while another
    benchmark ran beside it)."""
    command = crawl_command(server, state, feed, extra_args)
    before_run = state.with_name(state.name + ".before-run")
    if before_run.exists():
        shutil.rmtree(before_run)
    if state.exists():
        shutil.copytree(state, before_run)
    beside: list[str] = []
    for attempt in range(retries + 1):
        if attempt:  # ran beside another benchmark: again, from the same state
            print(f"{label} #{repeat}: again, it ran beside {beside}", file=sys.stderr)
            shutil.rmtree(state, ignore_errors=True)
            if before_run.exists():
                shutil.copytree(before_run, state)
        waited, beside = wait_quiet(max_wait)
        server.clear_requests()
        before, own = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(0)
        machine, start = busy_cpu_s(), time.monotonic()
        done = subprocess.run(
            command,
            cwd=REPO,
            env=CRAWL_ENV,
            capture_output=True,
            text=True,
            check=False,
            timeout=1800,
        )
        wall, machine = time.monotonic() - start, busy_cpu_s() - machine
        after, own_after = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(0)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        server_cpu = (own_after.ru_utime - own.ru_utime) + (own_after.ru_stime - own.ru_stime)
        # CPU that other processes used during the run
        foreign = machine - cpu - server_cpu
        beside = sorted(set(beside) | set(others()))
        if foreign > max(FOREIGN_MIN_S, FOREIGN_SHARE * wall):
            beside.append(f"{foreign:.1f} CPU s of other processes")
        if not beside:
            break
    shutil.rmtree(before_run, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"{label}: crawl failed:\n{done.stderr[-3000:]}")
    rows = [json.loads(x) for x in feed.read_text("utf-8").splitlines()]
    pages = [r for r in rows if r["row_type"] == "page"]
    site: dict[str, Any] = next((r for r in rows if r["row_type"] == "site"), {})
    asked = [r for r in server.requests if is_page_request(r.path)]
    run = Run(
        label=label,
        repeat=repeat,
        wall_s=round(wall, 3),
        cpu_s=round(cpu, 3),
        server_cpu_s=round(server_cpu, 3),
        page_requests=len(asked),
        statuses={str(k): v for k, v in sorted(Counter(r.status for r in asked).items())},
        rows=dict(sorted(Counter(f"{r['change']}:{r['change_evidence']}" for r in pages).items())),
        extractions=stat(done.stderr, "webmd/extractions"),
        in_workers=stat(done.stderr, "webmd/extractions_in_workers"),
        lastmod_skipped=site.get("lastmod_skipped"),
        lastmod_distrust=site.get("lastmod_distrust"),
        waited_s=round(waited, 1),
        foreign_cpu_s=round(foreign, 2),
        beside=beside,
    )
    print(
        f"{label} #{repeat}: wall {wall:.1f} s, CPU {cpu:.2f} s, {len(asked)} page requests "
        f"{run.statuses}, rows {run.rows}, extractions {run.extractions}"
        + (f", BESIDE {beside}" if beside else ""),
        file=sys.stderr,
    )
    return run, pages


def fresh_state(base: Path, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(base, dest)
    return dest


def chance_caught(n: int, m: int, k: int) -> float:
    """The chance that a sample of k of n candidates holds at least one of m liars."""
    return 1 - math.comb(n - m, k) / math.comb(n, k) if k <= n else 1.0


# -- the benchmark --------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=SITES["postgres"][0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lies", default="5,20", help="percentages of lying pages")
    parser.add_argument("--trials", type=int, default=5, help="trials of each lying site")
    parser.add_argument(
        "--trial-wait", type=float, default=10, help="--max-wait of the lying-site trials"
    )
    parser.add_argument(
        "--retries", type=int, default=3, help="runs again of a run that ran beside another"
    )
    parser.add_argument("--edited", type=float, default=5.0, help="percent edited (run 4)")
    parser.add_argument(
        "--max-wait", type=float, default=3600, help="s to wait for other benchmarks per run"
    )
    parser.add_argument("--report", type=Path, help="print the tables of a results file")
    parser.add_argument(
        "--profile", type=Path, help="cProfile a recrawl (--profile-run) to this file"
    )
    parser.add_argument(
        "--profile-run",
        choices=("no-lastmod", "unchanged"),
        default="no-lastmod",
        help="the recrawl --profile profiles: run 3 (all 304s) or run 2 (lastmod skips)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions of runs 1-3 and their start-ups under valgrind",
    )
    args = parser.parse_args(argv)
    if args.instructions:
        return instructions(args.source)
    if args.report:
        report_file(args.report)
        return 0
    if args.profile:
        return profile(args.source, args.profile, args.max_wait, args.profile_run)
    if args.source == SITES["postgres"][0]:
        ensure_docs(["postgres"])
    source = args.source
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False
    ).stdout.strip()
    runs: list[Run] = []
    lies = [float(x) for x in args.lies.split(",") if x]
    with tempfile.TemporaryDirectory(prefix="recrawl-cost-") as tmp_name:
        tmp = Path(tmp_name)

        def go(server: SiteServer, state: Path, label: str, i: int, *extra: str) -> list[Any]:
            feed = tmp / "feeds" / f"{label}-{i}.jsonl"
            feed.parent.mkdir(exist_ok=True)
            lies = label.startswith("lies")  # the outcome matters more than the CPU
            wait = min(args.max_wait, args.trial_wait) if lies else args.max_wait
            retries = 0 if lies else args.retries
            run, pages = crawl(server, state, feed, label, i, wait, list(extra), retries)
            runs.append(run)
            return pages

        # Interleaved: repeat i runs every kind once (the start-up on a one-page site,
        # then runs 1-3), so that a drift of the machine's speed during the benchmark
        # reaches every kind alike instead of the kinds run last.
        one_page_site(tmp / "one")
        site = tmp / "site"
        pages = prepare_site(source, site)
        dated = {p: old_lastmod(p) for p in pages}
        assert len(set(dated.values())) > len(pages) * 0.99
        write_sitemaps(site, pages, dated)
        base = tmp / "base-state"
        with SiteServer(tmp / "one") as one, SiteServer(site) as server:
            no_delay(one)
            no_delay(server)
            for i in range(args.repeats):
                state = tmp / f"one-state-{i}"
                go(one, state, "startup-first", i)
                go(one, state, "startup-recrawl", i)
                rows = go(server, base if i == 0 else tmp / f"first-{i}", "first", i)
                if i == 0:
                    # the pages lastmod may skip: listed in the sitemap and written by run 1
                    # (not a duplicate of another page, which the state does not keep)
                    written = {r["url"].removeprefix(server.base_url) for r in rows}
                    candidates = sum(1 for p in pages if p in written)
                    end_of_first = datetime.now(UTC)  # base's last fetch: the edits follow it
                go(server, fresh_state(base, tmp / "s"), "unchanged", i)
                state = fresh_state(base, tmp / "s")
                go(server, state, "unchanged-quiet", i, "-a", "emit_unchanged=false")
                write_sitemaps(site, pages, None)
                go(server, fresh_state(base, tmp / "s"), "no-lastmod", i)
                write_sitemaps(site, pages, dated)
                state = fresh_state(base, tmp / "s")
                go(server, state, "never", i, "-a", "trust_lastmod=never")

            # 4: edited pages, their lastmod moved to the time of the edit
            edited = pick(pages, args.edited, "issue34-edited")
            time.sleep(max(0.0, 1.5 - (datetime.now(UTC) - end_of_first).total_seconds()))
            originals = edit_pages(site, edited)
            moved = datetime.now(UTC).strftime(STAMP)
            write_sitemaps(site, pages, {**dated, **dict.fromkeys(edited, moved)})
            label = f"edited-{args.edited:g}%"
            for i in range(args.repeats):
                rows = go(server, fresh_state(base, tmp / "s"), label, i)
                by_url = {r["url"].removeprefix(server.base_url): r for r in rows}
                runs[-1].extra = {
                    "edited": len(edited),
                    "edited_changed": sum(
                        1 for p in edited if by_url.get(p, {}).get("change") == "changed"
                    ),
                    "sample": sample_size(candidates - len(edited), SAMPLE_MAX),
                }
            restore(site, originals)
            write_sitemaps(site, pages, dated)

            # 5: a site that lies: edited pages, old lastmod
            for percent in lies:
                liars = pick(pages, percent, f"issue34-lies-{percent:g}")
                k = sample_size(candidates, SAMPLE_MAX)
                chance = chance_caught(candidates, len(liars), k)
                originals = edit_pages(site, liars)
                for i in range(args.trials):
                    state = fresh_state(base, tmp / "s")
                    refetched: set[str] = set()  # liars a run of this trial reported changed
                    for label in (f"lies-{percent:g}%", f"lies-{percent:g}%-next"):
                        rows = go(server, state, label, i)
                        by_url = {r["url"].removeprefix(server.base_url): r for r in rows}
                        mine = Counter(
                            f"{by_url[p]['change']}:{by_url[p]['change_evidence']}"
                            if p in by_url
                            else "no row"
                            for p in liars
                        )
                        now_changed = {
                            p for p in liars if by_url.get(p, {}).get("change") == "changed"
                        }
                        missed = [p for p in liars if p not in refetched | now_changed]
                        refetched |= now_changed
                        runs[-1].extra = {
                            "liars": len(liars),
                            "sample": k,
                            "candidates": candidates,
                            "chance_caught": round(chance, 4),
                            "liar_rows": dict(sorted(mine.items())),
                            # changed pages not reported changed in this run or before
                            "missed": len(missed),
                        }
                restore(site, originals)
    report(runs, len(pages))
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"recrawl-cost-{datetime.now(UTC):%Y-%m-%dT%H%M}.json"
    out.write_text(
        json.dumps(
            {
                "date": datetime.now(UTC).strftime(STAMP),
                "commit": commit,  # HEAD when the benchmark started
                "cpus": os.cpu_count(),
                "argv": sys.argv[1:],
                "pages": len(pages),
                "runs": [asdict(r) for r in runs],
            },
            indent=1,
        )
        + "\n"
    )
    print(f"\nraw runs: {out}", file=sys.stderr)
    return 0


def report(runs: list[Run], pages: int) -> None:
    """Markdown tables: per run, the CPU net of the start-up of the same kind, from the
    medians and from the minima (fastest repeat less fastest start-up: the figure least
    disturbed by a busy machine)."""

    def cpus(label: str) -> list[float]:
        return [r.cpu_s for r in runs if r.label == label]

    labels = list(dict.fromkeys(r.label for r in runs))
    up = {kind: cpus(f"startup-{kind}") for kind in ("first", "recrawl")}
    walls = {k: statistics.median(r.wall_s for r in runs if r.label == f"startup-{k}") for k in up}
    print(f"{pages} pages.\n\n| start-up (one-page site) | wall s | CPU s median (min-max) |")
    print("|---|---:|---:|")
    for kind, values in up.items():
        name = "first crawl" if kind == "first" else "recrawl, its own state"
        print(
            f"| {name} | {walls[kind]:.1f} | {statistics.median(values):.2f} "
            f"({min(values):.2f}-{max(values):.2f}) |"
        )
    print(
        "\n| run | wall s | CPU s median (min-max) | net CPU ms/page: median (minima) "
        "| less than run 1: median (minima) | page requests | answers | extractions | rows "
        "| skipped on lastmod | distrust |\n|---|---:|---:|---:|---:|---:|---|---:|---|---:|---|"
    )
    first = statistics.median(cpus("first")) - statistics.median(up["first"])
    first_min = min(cpus("first")) - min(up["first"])
    for label in labels:
        if label.startswith("startup"):
            continue
        mine = [r for r in runs if r.label == label]
        middle = sorted(mine, key=lambda r: r.cpu_s)[len(mine) // 2]
        base = up["first" if label == "first" else "recrawl"]
        values = cpus(label)
        net = statistics.median(values) - statistics.median(base)
        net_min = min(values) - min(base)
        ratio = ""
        if label != "first":
            ratio = " ".join(
                [
                    f"{first / net:.1f}x" if net > 0 else "net <= 0",
                    f"({first_min / net_min:.1f}x)" if net_min > 0 else "(net <= 0)",
                ]
            )
        wall = statistics.median(r.wall_s for r in mine)
        print(
            f"| {label} | {wall:.1f} | {statistics.median(values):.2f} "
            f"({min(values):.2f}-{max(values):.2f}) | {1000 * net / pages:.2f} "
            f"({1000 * net_min / pages:.2f}) | {ratio} | "
            f"{middle.page_requests} | {middle.statuses} | {middle.extractions} | "
            f"{middle.rows} | {middle.lastmod_skipped} | "
            f"{sum(1 for r in mine if r.lastmod_distrust)}/{len(mine)} |"
        )
    trials = [r for r in runs if r.label.startswith("lies")]
    if trials:
        print(
            "\n| run | trial | liars | sample | P(caught) | caught (distrust) | liar rows "
            "| missed |\n|---|---:|---:|---:|---:|---|---|---:|"
        )
        for r in trials:
            x = r.extra
            print(
                f"| {r.label} | {r.repeat} | {x['liars']} | {x['sample']} | "
                f"{x['chance_caught']:.3f} | {'yes' if r.lastmod_distrust else 'no'} | "
                f"{x['liar_rows']} | {x['missed']} |"
            )
    beside = [r for r in runs if r.beside]
    if beside:
        print(f"\n{len(beside)} of {len(runs)} runs ran beside other work:")
        for r in beside:
            print(f"- {r.label} #{r.repeat}: {r.beside}")


def instructions(source: Path) -> int:
    """Runs 1 to 3 and their start-ups once each under valgrind (see the module doc):
    prints the instructions per page and the ratios to the first crawl."""
    if shutil.which("valgrind") is None:
        print("recrawl_cost: --instructions needs valgrind (apt-get install valgrind)")
        return 2
    if source == SITES["postgres"][0]:
        ensure_docs(["postgres"])
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="recrawl-instructions-") as tmp_name:
        tmp = Path(tmp_name)
        one_page_site(tmp / "one")
        site = tmp / "site"
        pages = prepare_site(source, site)
        dated = {p: old_lastmod(p) for p in pages}
        write_sitemaps(site, pages, dated)

        def run(server: SiteServer, state: Path, label: str) -> None:
            out = tmp / f"cg-{label}"
            out.mkdir()
            valgrind = (
                "valgrind", "--tool=cachegrind", "--cache-sim=no", "--trace-children=yes",
                f"--cachegrind-out-file={out}/cg.%p", sys.executable,
            )  # fmt: skip
            # ~40x slower under valgrind: no timeout may cut a page short
            extra = ["-a", "extract_processes=0", "-s", "DOWNLOAD_TIMEOUT=900"]
            command = crawl_command(server, state, tmp / "feed.jsonl", extra, valgrind)
            done = subprocess.run(command, cwd=REPO, env=CRAWL_ENV, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{label}: crawl failed:\n{done.stderr[-3000:]}")
            total = 0
            for file in out.iterdir():
                match = re.search(r"^summary: (\d+)", file.read_text("utf-8"), re.M)
                total += int(match.group(1)) if match else 0
            counts[label] = total
            print(f"{label}: {total / 1e9:.3f} G instructions", file=sys.stderr)

        with SiteServer(tmp / "one") as one, SiteServer(site) as server:
            no_delay(one)
            no_delay(server)
            run(one, tmp / "one-state", "startup-first")
            run(one, tmp / "one-state", "startup-recrawl")
            base = tmp / "base-state"
            run(server, base, "first")
            run(server, fresh_state(base, tmp / "s"), "unchanged")
            write_sitemaps(site, pages, None)
            run(server, fresh_state(base, tmp / "s"), "no-lastmod")
    n = len(pages)
    first = (counts["first"] - counts["startup-first"]) / n
    print(f"{n} pages; instructions (valgrind cachegrind, Ir), extraction in the crawl process\n")
    print("| run | total G | start-up G | per page M | less than the first crawl |")
    print("|---|---:|---:|---:|---:|")
    for label in ("first", "unchanged", "no-lastmod"):
        up = counts["startup-first" if label == "first" else "startup-recrawl"]
        per = (counts[label] - up) / n
        ratio = "" if label == "first" else f"{first / per:.1f}x"
        total = counts[label] / 1e9
        print(f"| {label} | {total:.3f} | {up / 1e9:.3f} | {per / 1e6:.3f} | {ratio} |")
    return 0


def profile(source: Path, out: Path, max_wait: float, run: str = "no-lastmod") -> int:
    """Where a recrawl spends its CPU: a first crawl, then the recrawl under ``python -m
    cProfile`` with ``-a extract_processes=0`` (the crawl process alone; nothing is
    extracted but the start page). `run`: ``no-lastmod`` (run 3, every page a 304: the
    site's sitemaps without lastmod) or ``unchanged`` (run 2: the sitemaps dated, the
    pages skipped on them but the sample)."""
    import pstats

    with tempfile.TemporaryDirectory(prefix="recrawl-profile-") as tmp_name:
        tmp = Path(tmp_name)
        site = tmp / "site"
        pages = prepare_site(source, site)
        if run == "unchanged":
            write_sitemaps(site, pages, {p: old_lastmod(p) for p in pages})
        with SiteServer(site) as server:
            no_delay(server)
            state, feed = tmp / "state", tmp / "feed.jsonl"
            crawl(server, state, feed, "first", 0, max_wait, [], 0)
            profiled = (sys.executable, "-m", "cProfile", "-o", str(out))
            command = crawl_command(server, state, feed, ["-a", "extract_processes=0"], profiled)
            wait_quiet(max_wait)
            server.clear_requests()
            subprocess.run(command, cwd=REPO, env=CRAWL_ENV, capture_output=True, check=True)
            statuses = Counter(r.status for r in server.requests if is_page_request(r.path))
    print(f"{len(pages)} pages; the profiled recrawl's answers: {dict(statuses)}\n")
    stats = pstats.Stats(str(out))
    stats.sort_stats("cumulative").print_stats(60)
    stats.sort_stats("tottime").print_stats(40)
    return 0


def report_file(path: Path) -> None:
    data = json.loads(path.read_text("utf-8"))
    report([Run(**r) for r in data["runs"]], data["pages"])


if __name__ == "__main__":
    raise SystemExit(main())
