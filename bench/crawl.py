"""Crawl throughput on real documentation sites, side by side in one run: Scrapy's own
ceiling, our full crawl, and trafilatura (its own crawler, and Scrapy calling it).

    .venv/bin/python bench/crawl.py                          # both sites, 3 repeats
    .venv/bin/python bench/crawl.py --sites postgres --repeats 5
    .venv/bin/python bench/crawl.py --variants bare-ci16,webmd --nagle   # the stalling server

Sites (Debian packages, installed with apt-get when missing, like bench/docs_speed.sh):
``postgres`` = ``postgresql-doc-15`` (1,169 pages), ``python`` = ``python3.11-doc``
(530 heavier pages). Each is copied with a generated robots.txt and sitemap index
(``bench/docsite.py``) and served on 127.0.0.1 by the project's SiteServer, in this
process, with ``TCP_NODELAY`` on its sockets (see ``--nagle``).

Variants, each its own subprocess started through ``bench/measure.py`` (wall time, CPU =
user + system of that child from ``wait4``, peak RSS = that child's ``ru_maxrss``,
checked against its polled ``VmHWM``):

* ``bare-items``: the same spider yielding each page as one item (url + decoded HTML)
  into a JSONL feed: Scrapy's item path and feed export with no extraction;
* ``bare-ciN``: ``bench/bare_spider.py``, a plain Scrapy ``SitemapSpider`` that fetches
  every sitemap page and does nothing, with the settings our spider runs with
  (8 concurrent requests, no delay, AutoThrottle off, asyncio reactor) and
  ``CONCURRENT_ITEMS=N``;
* ``webmd`` / ``webmd-ciN``: ``scrapy crawl site -a start=ROOT -a chunk_tokens=512`` with
  :data:`WEBMD_FLAGS` (politeness floors off; everything else as shipped, including
  ``extract_processes=auto``, ``CONCURRENT_ITEMS=16``, INFO logging and the JSONL feed
  ``-O``), or with ``-s CONCURRENT_ITEMS=N``;
* ``webmd-pN`` / ``webmd-pN-ciM``: the same with ``-s WEBMD_EXTRACT_PROCESSES=N`` (``p0``:
  every page extracted in the crawl process), and ``-s CONCURRENT_ITEMS=M``;
* ``webmd-noextract`` / ``webmd-noextract-ciN``: the same crawl with the extraction
  replaced by a lookup of results computed before the run (``bench/stub_extract.py``):
  what the rest of the crawl costs (not in the default set);
* ``webmd-stubworker`` / ``webmd-stubworker-ciN``: the shipped crawl with one extraction
  process whose answers were computed before the run (``bench/stub_worker.py``): the
  crawl process's own ceiling, i.e. what a machine with a free core per worker allows
  (a projection; not in the default set);
* ``scrapy-trafilatura``: the bare spider calling ``trafilatura.extract(html,
  output_format="markdown", with_metadata=True, include_tables=True)`` per page and
  writing one JSONL row per page (``.bench-venv2``);
* ``trafilatura-cli``: trafilatura's own fetch-and-extract crawler, ``trafilatura --explore
  ROOT --markdown --with-metadata`` (sitemaps from robots.txt, then every page fetched and
  extracted; tables are on by default) with ``SLEEP_TIME = 0`` and ``SSRF_PROTECTION = off``
  in its config file (its politeness floor off too), through ``bench/trafilatura_cli.py``
  (the site is served as ``docs.localhost`` for it: courlan finds no domain in an IP
  address). Not ``--sitemap``: with trafilatura 2.3.1 / courlan 1.4.0 that mode keeps its
  URLs in a compressed ``UrlStore`` whose ``get_url`` never stores the visited mark, so
  it fetches the first URL forever. ``--explore`` uses the plain store. Like every
  trafilatura download queue it takes one URL per host at a time: one connection.

trafilatura is installed only in ``.bench-venv2`` (created here when missing, with the
same Scrapy, Twisted and lxml versions as ``.venv``), never in the project.

With extraction processes, "CPU ms/page" is the crawl process's and its workers': the
workers are its children and it waits for them, so ``wait4`` counts them. (The crawl
process's own share is in ``bench/profile_crawl.py``'s profile.)

Pages/s = HTML pages the server answered with 200 during the run / wall time of the
subprocess (start-up included); "steady pages/s" = pages between the first and the last
page answer. Server CPU is this process's CPU over the run (the server threads). Prints
Markdown tables of medians; the raw runs go to ``bench/results/crawl-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docsite import prepare_site

from webmd_spider.demo.server import SiteServer

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
VENV_PY = REPO / ".venv" / "bin" / "python"
PEER_VENV = REPO / ".bench-venv2"
PEER_PY = PEER_VENV / "bin" / "python"
TRAFILATURA_VERSION = "2.3.1"

SITES = {
    "postgres": (Path("/usr/share/doc/postgresql-doc-15/html"), "postgresql-doc-15"),
    "python": (Path("/usr/share/doc/python3.11-doc/html"), "python3.11-doc"),
}

POSTGRES = SITES["postgres"][0]

#: Politeness floors off for a benchmark against our own server; nothing else changed.
WEBMD_FLAGS = [
    "-s", "WEBMD_HOST_DELAY=0",
    "-s", "AUTOTHROTTLE_ENABLED=False",
    "-s", "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8",
    "-s", "WEBMD_MAX_PAGES=100000",
    "-s", "WEBMD_MAX_RUN_SECS=3600",
]  # fmt: skip

ALL_VARIANTS = [
    "bare-ci100", "bare-ci16", "bare-ci4", "bare-items",
    "webmd-ci100", "webmd", "webmd-ci4", "webmd-p0",
    "scrapy-trafilatura", "trafilatura-cli",
]  # fmt: skip
#: Precomputed extraction results of the ``webmd-noextract`` variants (bench/stub_extract.py)
DOCS_PICKLE = "docs.pickle"
#: The host name trafilatura's CLI is given (courlan rejects IP addresses).
TRAFILATURA_HOST = "docs.localhost"


@dataclass
class Run:
    site: str
    variant: str
    repeat: int
    wall_s: float
    cpu_s: float
    maxrss_mb: float
    vmhwm_mb: float
    pages: int
    other_responses: int
    steady_pages_s: float
    server_cpu_s: float
    outputs: int
    returncode: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def pages_s(self) -> float:
        return self.pages / self.wall_s if self.wall_s else 0.0

    @property
    def cpu_ms_page(self) -> float:
        return 1000 * self.cpu_s / self.pages if self.pages else 0.0


# -- set-up ---------------------------------------------------------------------------
def ensure_docs(names: list[str]) -> None:
    """apt-get install the documentation packages whose folder is missing."""
    missing = [SITES[n][1] for n in names if not SITES[n][0].is_dir()]
    if not missing:
        return
    print(f"installing {' '.join(missing)} with apt-get", file=sys.stderr)
    install = ["apt-get", "install", "-y", "-qq", *missing]
    if subprocess.run(install, check=False).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(install, check=True)


def _venv_version(package: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    done = subprocess.run([str(VENV_PY), "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def ensure_peer_venv() -> None:
    """``.bench-venv2``: Scrapy, Twisted and lxml as in ``.venv``, plus trafilatura."""
    check = "import scrapy, trafilatura, lxml_html_clean"
    if (
        PEER_PY.exists()
        and subprocess.run([str(PEER_PY), "-c", check], check=False).returncode == 0
    ):
        return
    print(f"creating {PEER_VENV} (trafilatura {TRAFILATURA_VERSION} + Scrapy)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
    pins = [f"{p}=={_venv_version(p)}" for p in ("scrapy", "twisted", "lxml")]
    subprocess.run(
        [str(PEER_PY), "-m", "pip", "install", "-q", *pins,
         f"trafilatura=={TRAFILATURA_VERSION}", "lxml_html_clean"],
        check=True,
    )  # fmt: skip


def trafilatura_config(path: Path) -> Path:
    """trafilatura's own settings.cfg with its per-host sleep and SSRF guard off."""
    code = "import trafilatura, pathlib; print(pathlib.Path(trafilatura.__file__).parent)"
    done = subprocess.run([str(PEER_PY), "-c", code], capture_output=True, text=True, check=True)
    text = (Path(done.stdout.strip()) / "settings.cfg").read_text("utf-8")
    lines = []
    for line in text.splitlines():
        if line.startswith("SLEEP_TIME"):
            line = "SLEEP_TIME = 0"
        elif line.startswith("SSRF_PROTECTION"):
            line = "SSRF_PROTECTION = off"
        lines.append(line)
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def no_delay(server: SiteServer) -> None:
    """TCP_NODELAY on the server's sockets. http.server writes the headers and the body
    in two send() calls; with Nagle's algorithm the body waits for the client's delayed
    ACK (40 ms on Linux), which caps every crawler at about 8 / 0.047 s = 170 pages/s
    with 8 connections whatever its own speed. (A private attribute: the bench's own
    business; the handler reads ``disable_nagle_algorithm`` on every connection.)"""
    httpd = server._httpd
    assert httpd is not None
    httpd.RequestHandlerClass.disable_nagle_algorithm = True  # type: ignore[attr-defined]


# -- variants ---------------------------------------------------------------------------
def command_of(variant: str, root: str, work: Path, cfg: Path) -> tuple[list[str], Path]:
    """(command, output file) of one variant."""
    feed = work / f"{variant}.out"
    if variant == "bare-items":  # one page-sized item per page, JSONL feed, no extraction
        return [
            str(VENV_PY), str(BENCH / "bare_spider.py"), root, "--extract", "items",
            "-o", str(feed),
        ], feed  # fmt: skip
    if variant.startswith("bare-ci"):
        items = variant.removeprefix("bare-ci")
        return [
            str(VENV_PY),
            str(BENCH / "bare_spider.py"),
            root,
            "--concurrent-items",
            items,
        ], feed
    if variant.startswith("webmd"):
        launcher = [str(VENV_PY), "-m", "scrapy"]
        if variant.startswith(("webmd-noextract", "webmd-stubworker")):
            launcher = [
                str(VENV_PY),
                str(BENCH / "stub_extract.py"),
                "run" if variant.startswith("webmd-noextract") else "run-workers",
                str(work / DOCS_PICKLE),
            ]
        command = [
            *launcher, "crawl", "site", "-a", f"start={root}",
            "-a", "chunk_tokens=512", *WEBMD_FLAGS, "-O", f"{feed}:jsonl",
        ]  # fmt: skip
        base, _, items = variant.partition("-ci")
        if items:
            command += ["-s", f"CONCURRENT_ITEMS={items}"]
        if base.startswith("webmd-p"):  # webmd-pN[-ciM]: extraction in N worker processes
            command += ["-s", f"WEBMD_EXTRACT_PROCESSES={base.removeprefix('webmd-p')}"]
        return command, feed
    if variant == "scrapy-trafilatura":
        return [
            str(PEER_PY), str(BENCH / "bare_spider.py"), root, "--extract", "trafilatura",
            "-o", str(feed),
        ], feed  # fmt: skip
    if variant == "trafilatura-cli":
        return [
            str(PEER_PY), str(BENCH / "trafilatura_cli.py"), "--explore", root,
            "--markdown", "--with-metadata", "--config-file", str(cfg),
        ], feed  # fmt: skip
    raise ValueError(f"unknown variant {variant!r}")


def count_outputs(variant: str, feed: Path) -> int:
    """Pages with extracted content in the variant's output."""
    if not feed.exists():
        return 0
    if variant.startswith("bare"):
        return 0
    if variant == "trafilatura-cli":
        # one YAML front matter (--- ... ---) per extracted document
        with feed.open("rb") as handle:
            return sum(1 for line in handle if line == b"---\n") // 2
    count = 0
    with feed.open("rb") as handle:
        for line in handle:
            row = json.loads(line)
            if variant.startswith("webmd"):
                count += row.get("row_type") == "page"
            else:
                count += bool(row.get("markdown"))
    return count


def run_variant(
    server: SiteServer, site: str, variant: str, repeat: int, work: Path, cfg: Path
) -> Run:
    port = server.port
    host = TRAFILATURA_HOST if variant == "trafilatura-cli" else "127.0.0.1"
    server.base_url = f"http://{host}:{port}"  # {{origin}} in robots.txt and sitemaps
    root = server.base_url + "/"
    command, feed = command_of(variant, root, work, cfg)
    result_file = work / f"{variant}.measure.json"
    env = dict(os.environ)
    if variant.startswith("webmd"):
        env["SCRAPY_SETTINGS_MODULE"] = "webmd_spider.settings"
    else:
        env.pop("SCRAPY_SETTINGS_MODULE", None)
    wrapper = [
        sys.executable, str(BENCH / "measure.py"), "--json", str(result_file),
        "--stderr", str(work / f"{variant}.log"),
    ]  # fmt: skip
    if variant == "trafilatura-cli":
        wrapper += ["--stdout", str(feed)]
    server.clear_requests()
    cpu_before = time.process_time()
    subprocess.run([*wrapper, "--", *command], cwd=REPO, env=env, check=False)
    server_cpu = time.process_time() - cpu_before
    measured = json.loads(result_file.read_text("utf-8"))
    records = list(server.requests)
    pages = sorted(
        r.at for r in records if r.status == 200 and r.path.split("?")[0].endswith(".html")
    )
    steady = (len(pages) - 1) / (pages[-1] - pages[0]) if len(pages) > 1 else 0.0
    run = Run(
        site=site,
        variant=variant,
        repeat=repeat,
        wall_s=measured["wall_s"],
        cpu_s=measured["cpu_s"],
        maxrss_mb=measured["maxrss_mb"],
        vmhwm_mb=measured["vmhwm_polled_mb"],
        pages=len(pages),
        other_responses=len(records) - len(pages),
        steady_pages_s=steady,
        server_cpu_s=server_cpu,
        outputs=count_outputs(variant, feed),
        returncode=measured["returncode"],
    )
    if run.returncode != 0:
        tail = (work / f"{variant}.log").read_text("utf-8", "replace")[-2000:]
        print(f"!! {site} {variant} exited {run.returncode}:\n{tail}", file=sys.stderr)
    feed.unlink(missing_ok=True)
    return run


# -- report -------------------------------------------------------------------------------
def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def table(runs: list[Run], sites: list[str], variants: list[str]) -> str:
    lines = []
    for site in sites:
        base = [r.pages_s for r in runs if r.site == site and r.variant == "bare-ci16"]
        base_rate = median(base)
        lines += [
            f"\n{site}: medians of {max(r.repeat for r in runs) + 1} runs\n",
            "| variant | pages | outputs | wall s | pages/s | x bare-ci16 | steady pages/s "
            "| CPU ms/page | peak RSS MB (VmHWM) | server CPU ms/page |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for variant in variants:
            mine = [r for r in runs if r.site == site and r.variant == variant]
            if not mine:
                continue
            rate = median([r.pages_s for r in mine])
            ratio = f"{rate / base_rate:.2f}" if base_rate else "-"
            server_ms = median([1000 * r.server_cpu_s / max(r.pages, 1) for r in mine])
            lines.append(
                f"| {variant} | {median([r.pages for r in mine]):.0f} "
                f"| {median([r.outputs for r in mine]):.0f} "
                f"| {median([r.wall_s for r in mine]):.2f} | {rate:.1f} | {ratio} "
                f"| {median([r.steady_pages_s for r in mine]):.1f} "
                f"| {median([r.cpu_ms_page for r in mine]):.2f} "
                f"| {median([r.maxrss_mb for r in mine]):.0f} "
                f"({median([r.vmhwm_mb for r in mine]):.0f}) | {server_ms:.2f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", default="postgres,python")
    parser.add_argument("--variants", default=",".join(ALL_VARIANTS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--nagle", action="store_true", help="leave Nagle's algorithm on (SiteServer as is)"
    )
    parser.add_argument(
        "--json", type=Path, help="raw runs (default bench/results/crawl-DATE.json)"
    )
    args = parser.parse_args(argv)
    sites = [s for s in args.sites.split(",") if s]
    variants = [v for v in args.variants.split(",") if v]
    for variant in variants:
        if variant not in ALL_VARIANTS and not variant.startswith(
            ("bare-ci", "webmd-ci", "webmd-noextract", "webmd-stubworker", "webmd-p")
        ):
            parser.error(f"unknown variant {variant!r}; known: {', '.join(ALL_VARIANTS)}")
    ensure_docs(sites)
    if any("trafilatura" in v for v in variants):
        ensure_peer_venv()
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="crawlbench-") as tmp:
        cfg = trafilatura_config(Path(tmp) / "trafilatura.cfg") if PEER_PY.exists() else Path()
        for site in sites:
            site_dir, work = Path(tmp) / site, Path(tmp) / f"{site}-work"
            work.mkdir()
            count = len(prepare_site(SITES[site][0], site_dir))
            with SiteServer(site_dir) as server:
                if not args.nagle:
                    no_delay(server)
                print(f"{site}: {count} pages at {server.base_url}/", file=sys.stderr)
                if any(v.startswith(("webmd-noextract", "webmd-stubworker")) for v in variants):
                    subprocess.run(
                        [str(VENV_PY), str(BENCH / "stub_extract.py"), "build", str(site_dir),
                         server.base_url, str(work / DOCS_PICKLE)],
                        cwd=REPO, check=True,
                    )  # fmt: skip
                for repeat in range(args.repeats):
                    # rotate the order so that no variant always runs first or last
                    shift = repeat % len(variants)
                    for variant in variants[shift:] + variants[:shift]:
                        run = run_variant(server, site, variant, repeat, work, cfg)
                        runs.append(run)
                        print(
                            f"  {site} #{repeat} {variant:<19} {run.pages:>5} pages "
                            f"{run.wall_s:6.2f} s {run.pages_s:7.1f} p/s "
                            f"cpu {run.cpu_ms_page:6.2f} ms/p rss {run.maxrss_mb:5.0f} MB "
                            f"(hwm {run.vmhwm_mb:.0f}) out {run.outputs} "
                            f"other {run.other_responses}",
                            file=sys.stderr,
                        )
    out = args.json or REPO / "bench" / "results" / f"crawl-{datetime.now(UTC):%Y-%m-%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    machine = {
        "nproc": os.cpu_count(),
        "python": sys.version.split()[0],
        "nagle": args.nagle,
    }
    payload = {"machine": machine, "runs": [r.__dict__ for r in runs]}
    out.write_text(json.dumps(payload, indent=1), "utf-8")
    print(table(runs, sites, variants))
    print(f"\nraw runs: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
