"""A 100,000-URL frontier with ``-s JOBDIR=...``: peak memory of a real ``scrapy crawl
site`` run against a synthetic site generated on the fly on 127.0.0.1.

    .venv/bin/python bench/frontier.py                       # 100,000 URLs, JOBDIR, run cap 900 s
    .venv/bin/python bench/frontier.py --max-run-secs 120    # a shorter look
    .venv/bin/python bench/frontier.py --no-jobdir           # the same with Scrapy's memory queue

The site (:class:`FrontierSite`, ``http.server`` with keep-alive and ``TCP_NODELAY``):
``/robots.txt`` names ``/sitemap.xml``, a sitemap index of ``--urls / 10,000`` child
sitemaps, each listing 10,000 pages with a ``<lastmod>`` (under the sitemaps.org limit of
50,000 per file); ``/p/N.html`` is a small generated page (title, heading, three
paragraphs of about 70 words, a list, and links to the next pages and the home page).
All URLs come from the sitemaps, so the whole frontier is queued within seconds of the
start; the links are the usual navigation duplicates the dedup must absorb.

The crawl: ``scrapy crawl site -a start=ROOT -a chunk_tokens=512`` with the flag set of
``bench/crawl.py`` (politeness floors off), ``WEBMD_MAX_PAGES`` and
``WEBMD_MAX_SITEMAP_URLS`` = ``--urls``, ``WEBMD_MAX_RUN_SECS`` = ``--max-run-secs`` and
``-s JOBDIR=<tmp>``, run through ``bench/measure.py`` (peak RSS of that process from
``wait4``, checked against its polled VmHWM). Every 2 s this script records the
pages served, the page URLs queued so far (``Q`` lines of the resume journal that
``JOBDIR`` turns on) and the crawl's RSS; the table shows the RSS once the frontier was
complete and at every further quarter of the pages.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
PER_SITEMAP = 10_000
LINKS_PER_PAGE = 5
WORDS = [
    "crawler",
    "frontier",
    "queue",
    "request",
    "scheduler",
    "budget",
    "sitemap",
    "robots",
    "page",
    "markdown",
    "chunk",
    "heading",
    "paragraph",
    "table",
    "index",
    "memory",
    "disk",
    "journal",
    "resume",
    "website",
    "token",
    "extraction",
    "content",
    "boilerplate",
    "metadata",
    "language",
    "canonical",
    "redirect",
    "timeout",
    "politeness",
    "delay",
]


class FrontierSite:
    """Generates robots.txt, a sitemap index, child sitemaps and tiny pages."""

    def __init__(self, urls: int) -> None:
        self.urls = urls
        self.origin = ""
        self.lock = threading.Lock()
        self.pages_served = 0
        self.other_served = 0
        self._sitemaps: dict[int, bytes] = {}
        day = datetime(2026, 1, 1, tzinfo=UTC)
        self._lastmod = [(day + timedelta(days=d)).strftime("%Y-%m-%d") for d in range(365)]

    def sitemap_count(self) -> int:
        return (self.urls + PER_SITEMAP - 1) // PER_SITEMAP

    def answer(self, path: str) -> tuple[int, str, bytes]:
        """(status, content type, body) for a request path."""
        path = path.split("?", 1)[0]
        if path == "/robots.txt":
            body = f"User-agent: *\nAllow: /\nSitemap: {self.origin}/sitemap.xml\n"
            return 200, "text/plain; charset=utf-8", body.encode()
        if path == "/sitemap.xml":
            entries = "".join(
                f"<sitemap><loc>{self.origin}/sitemap-{n}.xml</loc></sitemap>"
                for n in range(self.sitemap_count())
            )
            body = (
                '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns='
                f'"http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</sitemapindex>'
            )
            return 200, "application/xml", body.encode()
        match = re.fullmatch(r"/sitemap-(\d+)\.xml", path)
        if match and int(match.group(1)) < self.sitemap_count():
            return 200, "application/xml", self._sitemap(int(match.group(1)))
        match = re.fullmatch(r"/p/(\d+)\.html", path)
        if match and int(match.group(1)) < self.urls:
            return 200, "text/html; charset=utf-8", self._page(int(match.group(1)))
        if path == "/":
            links = "".join(f'<li><a href="/p/{i}.html">Page {i}</a></li>' for i in range(20))
            body = f"<html><head><title>Frontier</title></head><body><ul>{links}</ul></body></html>"
            return 200, "text/html; charset=utf-8", body.encode()
        return 404, "text/html; charset=utf-8", b"<html><body>not found</body></html>"

    def _sitemap(self, number: int) -> bytes:
        with self.lock:
            cached = self._sitemaps.get(number)
        if cached is not None:
            return cached
        first = number * PER_SITEMAP
        entries = "".join(
            f"<url><loc>{self.origin}/p/{i}.html</loc>"
            f"<lastmod>{self._lastmod[i % len(self._lastmod)]}</lastmod></url>"
            for i in range(first, min(first + PER_SITEMAP, self.urls))
        )
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns='
            f'"http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
        ).encode()
        with self.lock:
            self._sitemaps[number] = body
        return body

    def _page(self, number: int) -> bytes:
        def sentence(seed: int, length: int) -> str:
            words = [WORDS[(seed * 7 + k * 13) % len(WORDS)] for k in range(length)]
            return " ".join(words).capitalize() + "."

        paragraphs = "".join(
            f"<p>{sentence(number + p, 12)} {sentence(number + p + 1, 11)} "
            f"Page {number} part {p}.</p>"
            for p in range(3)
        )
        items = "".join(f"<li>{sentence(number + k, 5)}</li>" for k in range(4))
        links = "".join(
            f'<a href="/p/{(number + k) % self.urls}.html">next {k}</a> '
            for k in range(1, LINKS_PER_PAGE + 1)
        )
        body = (
            f"<!DOCTYPE html><html lang=en><head><title>Page {number}</title>"
            f'<meta name="description" content="Generated page {number}"></head><body>'
            f'<nav><a href="/">Home</a></nav><main><h1>Page {number}</h1>{paragraphs}'
            f"<h2>Details</h2><ul>{items}</ul><p>{links}</p></main>"
            "<footer>Frontier benchmark site</footer></body></html>"
        )
        return body.encode()


def serve(site: FrontierSite) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall per response
        timeout = 30

        def do_GET(self) -> None:
            status, ctype, body = site.answer(self.path)
            with site.lock:
                if self.path.startswith("/p/") and status == 200:
                    site.pages_served += 1
                else:
                    site.other_served += 1
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    site.origin = f"http://127.0.0.1:{httpd.server_address[1]}"
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    return httpd


def _child_rss_mb(wrapper_pid: int) -> float | None:
    """RSS of the crawl process (the only child of the measure.py wrapper)."""
    try:
        children = Path(f"/proc/{wrapper_pid}/task/{wrapper_pid}/children").read_text().split()
        if not children:
            return None
        for line in Path(f"/proc/{children[0]}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _scrapy_stats(log: str) -> dict[str, int]:
    """Integer entries of the stats dump Scrapy logs at the end."""
    return {k: int(v) for k, v in re.findall(r"'([a-z_/]+[a-z0-9_/]*)': (\d+),?\n", log)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--urls", type=int, default=100_000)
    parser.add_argument("--max-run-secs", type=int, default=900)
    parser.add_argument("--no-jobdir", action="store_true", help="Scrapy's memory queue")
    parser.add_argument(
        "--concurrent-items", type=int, help="-s CONCURRENT_ITEMS (default: shipped)"
    )
    parser.add_argument(
        "--json", type=Path, help="raw result (default bench/results/frontier-DATE.json)"
    )
    args = parser.parse_args(argv)
    site = FrontierSite(args.urls)
    httpd = serve(site)
    root = site.origin + "/"
    with tempfile.TemporaryDirectory(prefix="frontier-") as tmp:
        work = Path(tmp)
        jobdir = work / "job"
        feed = work / "rows.jsonl"
        command = [
            str(REPO / ".venv" / "bin" / "python"), "-m", "scrapy", "crawl", "site",
            "-a", f"start={root}", "-a", "chunk_tokens=512",
            "-s", "WEBMD_HOST_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False",
            "-s", "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8",
            "-s", f"WEBMD_MAX_PAGES={args.urls}", "-s", f"WEBMD_MAX_SITEMAP_URLS={args.urls}",
            "-s", f"WEBMD_MAX_RUN_SECS={args.max_run_secs}", "-O", str(feed),
        ]  # fmt: skip
        if not args.no_jobdir:
            command += ["-s", f"JOBDIR={jobdir}"]
        if args.concurrent_items:
            command += ["-s", f"CONCURRENT_ITEMS={args.concurrent_items}"]
        measured_file, log_file = work / "measure.json", work / "crawl.log"
        env = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")
        wrapper = subprocess.Popen(
            [sys.executable, str(BENCH / "measure.py"), "--json", str(measured_file),
             "--stderr", str(log_file), "--sample-secs", "2", "--", *command],
            cwd=REPO, env=env,
        )  # fmt: skip
        started = time.monotonic()
        journal = jobdir / "webmd-journal.jsonl"
        queued, offset = 0, 0
        timeline: list[dict[str, float]] = []
        while wrapper.poll() is None:
            time.sleep(2)
            if journal.exists():
                with journal.open("rb") as handle:
                    handle.seek(offset)
                    chunk = handle.read()
                # count whole lines only; a torn last line is read next time
                whole = chunk[: chunk.rfind(b"\n") + 1]
                offset += len(whole)
                queued += whole.count(b'["Q",')
            rss = _child_rss_mb(wrapper.pid)
            with site.lock:
                pages = site.pages_served
            point = {"t": round(time.monotonic() - started, 1), "pages": pages, "queued": queued}
            if rss is not None:
                point["rss_mb"] = round(rss, 1)
            timeline.append(point)
            print(f"  {point}", file=sys.stderr)
        measured = json.loads(measured_file.read_text("utf-8"))
        log = log_file.read_text("utf-8", "replace")
        stats = _scrapy_stats(log)
        rows = {"page": 0, "diagnostic": 0, "site": 0}
        stop_reason, sitemap_urls = None, 0
        with feed.open("rb") as handle:
            for line in handle:
                row = json.loads(line)
                rows[row["row_type"]] += 1
                if row["row_type"] == "site":
                    stop_reason = row["stop_reason"]
                    sitemap_urls = row["sitemap_url_count"]
        jobdir_mb = (
            sum(p.stat().st_size for p in jobdir.rglob("*") if p.is_file()) / 2**20
            if jobdir.exists()
            else 0.0
        )
    httpd.shutdown()
    frontier = queued if not args.no_jobdir else stats.get("scheduler/enqueued", 0)
    result = {
        "urls": args.urls,
        "jobdir": not args.no_jobdir,
        "max_run_secs": args.max_run_secs,
        "wall_s": measured["wall_s"],
        "cpu_s": measured["cpu_s"],
        "maxrss_mb": measured["maxrss_mb"],
        "vmhwm_polled_mb": measured["vmhwm_polled_mb"],
        "returncode": measured["returncode"],
        "pages_served": site.pages_served,
        "other_served": site.other_served,
        "page_rows": rows["page"],
        "diagnostic_rows": rows["diagnostic"],
        "stop_reason": stop_reason,
        "sitemap_url_count": sitemap_urls,
        "frontier_queued": frontier,
        "scheduler_enqueued": stats.get("scheduler/enqueued"),
        "scheduler_enqueued_disk": stats.get("scheduler/enqueued/disk"),
        "jobdir_mb": round(jobdir_mb, 1),
        "timeline": timeline,
        "rss_series_mb": measured["rss_series_mb"],
    }
    out = args.json or REPO / "bench" / "results" / f"frontier-{datetime.now(UTC):%Y-%m-%d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1), "utf-8")
    print(report(result))
    print(f"\nraw result: {out}")
    return 0 if measured["returncode"] == 0 else 1


def report(result: dict[str, Any]) -> str:
    pages = max(result["pages_served"], 1)
    lines = [
        "| URLs in sitemaps | frontier queued | pages fetched | page rows | wall s | pages/s "
        "| CPU ms/page | peak RSS MB (VmHWM) | JOBDIR MB | stop reason |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        f"| {result['sitemap_url_count']:,} | {result['frontier_queued']:,} "
        f"| {result['pages_served']:,} | {result['page_rows']:,} | {result['wall_s']:.0f} "
        f"| {result['pages_served'] / result['wall_s']:.0f} "
        f"| {1000 * result['cpu_s'] / pages:.2f} "
        f"| {result['maxrss_mb']:.0f} ({result['vmhwm_polled_mb']:.0f}) "
        f"| {result['jobdir_mb']:.1f} | {result['stop_reason']} |",
    ]
    timeline = [p for p in result["timeline"] if "rss_mb" in p]
    if timeline:
        marks = []
        complete = next((p for p in timeline if p["queued"] >= result["frontier_queued"]), None)
        if complete is not None and result["jobdir"]:
            marks.append(("frontier complete", complete))
        for quarter in (0.25, 0.5, 0.75, 1.0):
            target = quarter * result["pages_served"]
            point = next((p for p in timeline if p["pages"] >= target), timeline[-1])
            marks.append((f"{int(quarter * 100)}% of the pages fetched", point))
        lines += [
            "",
            "| moment | t s | queued | pages fetched | RSS MB |",
            "|---|---:|---:|---:|---:|",
        ]
        for label, p in marks:
            lines.append(
                f"| {label} | {p['t']:.0f} | {p['queued']:,} | {p['pages']:,} | {p['rss_mb']:.0f} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
