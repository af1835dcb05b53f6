"""Fault injection: one crawl of a hostile fault site spread over several local ports
(each port is a website of its own), then one test per fault on its rows, counters,
the servers' request logs, how the run ended and the child process's peak memory.

Already covered elsewhere, not repeated here: robots.txt 5xx (test_robots), redirect
chains over REDIRECT_MAX_TIMES and hanging servers past the budget (test_crawl_edges),
redirects to private addresses (test_ssrf), sitemap gzip-bomb parsing in isolation
(test_sitemaps), traps (test_content_checks).

Websites (one SiteServer each):
``main``  robots 200 + sitemap index (fault pages, a gzip-bomb child), every page fault;
``r404``  no robots.txt (404: allow all);  ``rhop`` robots.txt behind 2 redirects;
``rdrop`` robots.txt answered by a closed connection;  ``big`` a 60,000-URL sitemap;
``other`` never in the input: the target of an off-site redirect, must see no request.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from webmd_spider.demo.server import SiteServer
from webmd_spider.spiders.sitemap_discovery import WELL_KNOWN_SITEMAPS

from ..crawling import REPO, by_type, read_rows

WORDS = " ".join(f"word{i}" for i in range(40))
MAX_SITEMAP_URLS = 30
BIG_SITEMAP_URLS = 60_000
#: max_run_secs: the crawl must end on its own well before (about 11 s on a 2-core
#: machine; room for a busy one, issue 16). Under robots_retry_secs (30) + the spider's
#: ROBOTS_RETRY_MARGIN_SECS (10): rdrop's robots.txt is not asked again in the run.
RUN_BUDGET_SECS = 35
#: Measured 136-318 MB on this 2-core machine, once 462 MB, and 647 MB on a CI run that
#: shared the machine with other test runs (the 60,000-URL sitemap and the 50 MB capped
#: sitemap bomb dominate, more when they are handled at the same time: sitemaps are read
#: lazily, two in flight, so both bodies can be alive together, which a slow machine makes
#: likelier). An uncapped inflation of either 1 GiB bomb alone would need over 1,000 MB.
PEAK_RSS_LIMIT_MB = 850

#: Run the crawl in a child process and report its own peak RSS (ru_maxrss, KiB).
WRAPPER = """
import resource, sys
from scrapy.cmdline import execute
try:
    execute(["scrapy", "crawl", "site", *sys.argv[1:]])
finally:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"PEAK_RSS_KB={peak}", file=sys.stderr)
"""


def page(*links: str, title: str = "Page") -> str:
    anchors = "".join(f'<a href="{link}">{link}</a>' for link in links)
    return (
        f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{WORDS}</p>"
        f"{anchors}</body></html>"
    )


def urlset(*locs: str) -> str:
    body = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</urlset>'


def gzip_of_zeros(path: Path, megabytes: int) -> None:
    """A gzip bomb: ``megabytes`` MiB of zeros, compressed (~1 KiB per MiB)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = b"\0" * (1 << 20)
    with path.open("wb") as out:
        for _ in range(megabytes):
            out.write(compressor.compress(chunk))
        out.write(compressor.flush())


def write(root: Path, files: dict[str, str | bytes], routes: dict[str, Any] | None = None) -> Path:
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    if routes:
        (root / "_routes.json").write_text(json.dumps(routes), encoding="utf-8")
    return root


LATIN1_TEXT = "Café crème, naïve façade, Ångström"
CP1252_TEXT = "“Smart quotes” cost 5 € — café"
SJIS_TEXT = "日本語のテキストです"

#: The main site's fault pages, all listed in its sitemap: path -> what it must become.
FAULT_PAGES = {
    "/": "page",
    "/chain": "page (3 redirects)",
    "/loop-a": "row or rejection",
    "/away": "offsite_redirect",
    "/big-cl": "too-large",
    "/big-stream": "too-large",
    "/drip": "timeout",
    "/bomb": "too-large",
    "/binary": "not-html",
    "/latin1": "page",
    "/cp1252": "page",
    "/sjis": "page",
}


def build_main(root: Path, other: SiteServer) -> Path:
    root.mkdir(parents=True)
    gzip_of_zeros(root / "bomb-page.gz", 1024)  # 1 GiB -> ~1 MiB: cap is 5 MB
    gzip_of_zeros(root / "bomb-sitemap.xml.gz", 1024)  # 1 GiB -> ~1 MiB: cap is 50 MB
    filler = "<p>" + WORDS + "</p>"
    files: dict[str, str | bytes] = {
        "robots.txt": "User-agent: *\nAllow: /\nSitemap: {{origin}}/sitemap-index.xml\n",
        "sitemap-index.xml": (
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            "<sitemap><loc>{{origin}}/faults.xml</loc></sitemap>"
            "<sitemap><loc>{{origin}}/bomb-sitemap.xml.gz</loc></sitemap>"
            "</sitemapindex>"
        ),
        "faults.xml": urlset(*(f"{{{{origin}}}}{path}" for path in FAULT_PAGES)),
        "index.html": page(title="Home"),
        "target.html": page(title="Target"),
        "blob.bin": bytes(range(256)) * 64,
        "latin1.html": (
            f"<html><head><title>L</title></head><body><p>{LATIN1_TEXT} {WORDS}</p></body></html>"
        ).encode("iso-8859-1"),
        "cp1252.html": (
            '<html><head><meta charset="windows-1252"><title>W</title></head>'
            f"<body><p>{CP1252_TEXT} {WORDS}</p></body></html>"
        ).encode("cp1252"),
        "sjis.html": (
            '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
            f"<title>S</title></head><body><p>{SJIS_TEXT} {WORDS}</p></body></html>"
        ).encode("shift_jis"),
    }
    routes: dict[str, Any] = {
        "/chain": {"status": 301, "location": "/hop2"},
        "/hop2": {"status": 302, "location": "/hop3"},
        "/hop3": {"status": 307, "location": "/target.html"},
        "/loop-a": {"status": 302, "location": "/loop-b"},
        "/loop-b": {"status": 302, "location": "/loop-a"},
        "/away": {"status": 302, "location": other.url("/forbidden.html")},
        # 6 MB with a Content-Length, and 6 MB streamed with no Content-Length
        "/big-cl": {"body": filler, "repeat_body": 6_000_000 // len(filler)},
        "/big-stream": {"body": filler, "repeat_body": 6_000_000 // len(filler), "chunked": True},
        # 64 pieces, 0.1 s apart: ~6 s for the whole body, DOWNLOAD_TIMEOUT is 2 s
        "/drip": {"body": page().ljust(64 * 64), "drip": 0.1},
        "/bomb": {
            "file": "bomb-page.gz",
            "content_type": "text/html",
            "headers": {"Content-Encoding": "gzip"},
        },
        "/binary": {"file": "blob.bin", "content_type": "text/html"},
        "/latin1": {"file": "latin1.html", "content_type": "text/html; charset=ISO-8859-1"},
        "/cp1252": {"file": "cp1252.html", "content_type": "text/html"},
        "/sjis": {"file": "sjis.html", "content_type": "text/html"},
    }
    return write(root, files, routes)


@dataclass
class Run:
    servers: dict[str, SiteServer]
    rows: list[dict[str, Any]]
    summary: dict[str, Any]
    peak_rss_mb: float
    returncode: int
    stderr: str

    def website(self, name: str) -> str:
        return self.servers[name].base_url.removeprefix("http://")

    def rows_of(self, name: str, row_type: str | None = None) -> dict[str, dict[str, Any]]:
        """Rows of one website by path of ``url``."""
        base = self.servers[name].base_url
        return {
            r["url"].removeprefix(base): r
            for r in self.rows
            if r["website"] == self.website(name)
            and (row_type is None or r["row_type"] == row_type)
        }

    def site_row(self, name: str) -> dict[str, Any]:
        (row,) = [r for r in by_type(self.rows, "site") if r["website"] == self.website(name)]
        return row

    def rejected(self, name: str) -> dict[str, str]:
        base = self.servers[name].base_url
        entries = self.summary["rejected"] + self.summary["not_fetched"]
        return {
            e["url"].removeprefix(base): e["reason"] for e in entries if e["url"].startswith(base)
        }

    def paths(self, name: str) -> list[str]:
        return [record.path for record in self.servers[name].requests]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    base = tmp_path_factory.mktemp("faults")
    servers: dict[str, SiteServer] = {}
    try:
        other = servers["other"] = SiteServer(
            write(base / "other", {"forbidden.html": page(title="Forbidden")})
        ).start()
        servers["main"] = SiteServer(build_main(base / "main", other)).start()
        servers["r404"] = SiteServer(
            write(base / "r404", {"index.html": page("/b1.html"), "b1.html": page()})
        ).start()
        servers["rhop"] = SiteServer(
            write(
                base / "rhop",
                {
                    "index.html": page("/public.html", "/private.html"),
                    "public.html": page(),
                    "private.html": page(),
                    "real-robots.txt": "User-agent: *\nDisallow: /private.html\n",
                },
                {
                    "/robots.txt": {"status": 301, "location": "/robots-hop"},
                    "/robots-hop": {"status": 302, "location": "{{origin}}/real-robots.txt"},
                },
            )
        ).start()
        servers["rdrop"] = SiteServer(
            write(base / "rdrop", {"index.html": page()}, {"/robots.txt": {"drop": True}})
        ).start()
        big_files: dict[str, str | bytes] = {
            "sitemap.xml": urlset(*(f"/f/{i}.html" for i in range(BIG_SITEMAP_URLS))),
            "robots.txt": "User-agent: *\nSitemap: {{origin}}/sitemap.xml\n",
        }
        big_files.update({f"f/{i}.html": page(title=f"F{i}") for i in range(MAX_SITEMAP_URLS)})
        servers["big"] = SiteServer(write(base / "big", big_files)).start()
        starts = " ".join(
            servers[n].base_url + "/" for n in ("main", "r404", "rhop", "rdrop", "big")
        )
        out = base / "rows.jsonl"
        env = dict(os.environ, SCRAPY_SETTINGS_MODULE="webmd_spider.settings")
        command = [
            sys.executable, "-c", WRAPPER,
            "-a", f"start={starts}",
            "-a", f"max_run_secs={RUN_BUDGET_SECS}",
            "-a", f"max_sitemap_urls={MAX_SITEMAP_URLS}",
            "-a", "max_pages=100",
            "-a", "host_delay=0",
            "-a", "ssrf_allowlist=127.0.0.0/8",
            "-a", "progress_secs=0",
            "-s", "DOWNLOAD_TIMEOUT=2",
            "-s", "RETRY_TIMES=0",
            "-s", "AUTOTHROTTLE_ENABLED=False",
            "-s", "LOG_LEVEL=WARNING",
            "-O", str(out),
        ]  # fmt: skip
        done = subprocess.run(
            command, cwd=REPO, env=env, capture_output=True, text=True, timeout=90, check=False
        )
        peak = [ln for ln in done.stderr.splitlines() if ln.startswith("PEAK_RSS_KB=")]
        summary_path = out.with_name(out.name + ".summary.json")
        yield Run(
            servers=servers,
            rows=read_rows(out) if out.exists() else [],
            summary=json.loads(summary_path.read_text("utf-8")) if summary_path.exists() else {},
            peak_rss_mb=int(peak[-1].split("=")[1]) / 1024 if peak else float("inf"),
            returncode=done.returncode,
            stderr=done.stderr,
        )
    finally:
        for server in servers.values():
            server.stop()


# -- the run as a whole --------------------------------------------------------------


def test_the_run_ends_on_its_own_within_budget_and_memory(run: Run) -> None:
    assert run.returncode == 0, run.stderr[-3000:]
    # ended on its own, not by the time budget: said by the summary and every site row,
    # not by the run's time (issue 16: the suite must hold on a busy machine)
    assert run.summary["stop_reason"] == "finished"
    assert run.summary["spider_close_reason"] == "finished"
    assert "time_budget" not in run.summary["not_fetched_counts"]
    for name in ("main", "r404", "rhop", "rdrop", "big"):
        assert run.site_row(name)["stop_reason"] != "time_budget", name
    assert run.peak_rss_mb < PEAK_RSS_LIMIT_MB
    assert "Traceback" not in run.stderr, run.stderr[-3000:]


def test_every_fault_url_ends_as_a_row_or_a_counted_rejection(run: Run) -> None:
    for name in ("main", "r404", "rhop", "rdrop", "big"):
        server = run.servers[name]
        accounted = {
            r[key]
            for r in run.rows
            if r["website"] == run.website(name)
            for key in ("url", "final_url")
            if r[key]
        }
        accounted |= {server.url(p) for p in run.rejected(name)}
        infrastructure = {"/robots.txt", "/robots-hop", "/real-robots.txt", "/sitemap.xml",
                          "/sitemap-index.xml", "/faults.xml", "/bomb-sitemap.xml.gz",
                          *("/" + p.lstrip("/") for p in WELL_KNOWN_SITEMAPS)}  # fmt: skip
        hops = {"/hop2", "/hop3", "/target.html", "/loop-b"}
        for path in run.paths(name):
            if path in infrastructure or (name == "main" and path in hops):
                continue
            assert server.url(path) in accounted, f"{name}{path} fetched but no row or count"
    main = run.rows_of("main")
    rejected = run.rejected("main")
    for path in FAULT_PAGES:
        assert path in main or path in rejected, f"main{path} has neither a row nor a count"
    assert run.servers["other"].requests == []


# -- robots.txt faults ---------------------------------------------------------------


def test_robots_404_allows_everything(run: Run) -> None:
    pages = run.rows_of("r404", "page")
    assert set(pages) == {"/", "/b1.html"}
    assert run.site_row("r404")["stop_reason"] == "finished"
    assert run.site_row("r404")["robots_blocked"] == 0


def test_robots_behind_two_redirects_is_followed_and_obeyed(run: Run) -> None:
    assert run.paths("rhop")[:3] == ["/robots.txt", "/robots-hop", "/real-robots.txt"]
    assert set(run.rows_of("rhop", "page")) == {"/", "/public.html"}
    assert "/private.html" not in run.paths("rhop")
    assert run.rejected("rhop")["/private.html"] == "robots"
    assert run.site_row("rhop")["robots_blocked"] == 1


def test_robots_answering_nothing_stops_the_website(run: Run) -> None:
    (diag,) = run.rows_of("rdrop", "diagnostic").values()
    assert diag["error_type"] in ("unreachable", "blocked")
    assert run.site_row("rdrop")["stop_reason"] in ("unreachable", "robots_unavailable")
    assert run.paths("rdrop") == ["/robots.txt"], "nothing but robots.txt was requested"
    assert run.rows_of("rdrop", "page") == {}


# -- redirect faults -----------------------------------------------------------------


def test_three_hop_redirect_chain_is_followed(run: Run) -> None:
    row = run.rows_of("main", "page")["/chain"]
    assert row["final_url"] == run.servers["main"].url("/target.html")
    assert row["title"] == "Target"
    for hop in ("/chain", "/hop2", "/hop3", "/target.html"):
        assert run.servers["main"].hits(hop) >= 1


def test_redirect_loop_ends_as_a_row_or_a_counted_rejection(run: Run) -> None:
    main = run.servers["main"]
    diag = run.rows_of("main", "diagnostic").get("/loop-a")
    reason = run.rejected("main").get("/loop-a", "")
    assert (diag is not None and diag["error_type"] == "http-error") or reason.startswith(
        "duplicate"
    ), (diag, reason)
    assert main.hits("/loop-a") + main.hits("/loop-b") <= 12  # REDIRECT_MAX_TIMES + 1, no spin


def test_redirect_to_another_port_is_refused_without_contacting_it(run: Run) -> None:
    # issue 16 item 7: a blocked row says so (it was only a count in the summary)
    row = run.rows_of("main")["/away"]
    assert row["row_type"] == "diagnostic" and row["error_type"] == "blocked"
    assert row["error"].startswith("offsite redirect to " + run.servers["other"].base_url)
    assert "/away" not in run.rejected("main")
    assert run.servers["other"].requests == []


# -- size, time and encoding faults ----------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/big-cl",
        "/big-stream",
        "/bomb",
    ],
)
def test_oversized_pages_are_too_large(run: Run, path: str) -> None:
    row = run.rows_of("main", "diagnostic")[path]
    assert row["error_type"] == "too-large"


def test_slow_drip_page_is_a_timeout(run: Run) -> None:
    row = run.rows_of("main", "diagnostic")["/drip"]
    assert row["error_type"] == "timeout"


def test_gzip_bomb_sitemap_child_is_skipped_with_a_warning(run: Run) -> None:
    bomb = run.servers["main"].url("/bomb-sitemap.xml.gz")
    assert any(bomb in warning for warning in run.summary["warnings"]), run.summary["warnings"]
    assert run.site_row("main")["discovery"] == "sitemap"


def test_binary_served_as_html_is_not_html(run: Run) -> None:
    assert "/binary" not in run.rows_of("main", "page")
    assert run.rows_of("main", "diagnostic")["/binary"]["error_type"] == "not-html"


@pytest.mark.parametrize(
    ("path", "text"), [("/latin1", LATIN1_TEXT), ("/cp1252", CP1252_TEXT), ("/sjis", SJIS_TEXT)]
)
def test_non_utf8_pages_are_decoded(run: Run, path: str, text: str) -> None:
    row = run.rows_of("main", "page")[path]
    assert text in row["text"], row["text"][:200]


# -- sitemap size --------------------------------------------------------------------


def test_60000_url_sitemap_collects_only_max_sitemap_urls(run: Run) -> None:
    site = run.site_row("big")
    assert site["sitemap_url_count"] == MAX_SITEMAP_URLS
    collected = {f"/f/{i}.html" for i in range(MAX_SITEMAP_URLS)}
    assert {p for p in run.paths("big") if p.startswith("/f/")} <= collected
    # each collected URL has a row: normally a page; under the reactor stall the sitemap
    # handling causes, some are `timeout` diagnostics (see the report)
    rows = run.rows_of("big")
    assert {p for p in rows if p.startswith("/f/")} == collected
    assert all(
        rows[p]["row_type"] == "page" or rows[p]["error_type"] == "timeout" for p in collected
    )


def test_60000_url_sitemap_counts_every_entry_it_skips(run: Run) -> None:
    counted = run.summary["not_fetched_counts"].get("max_sitemap_urls", 0)
    warned = any(
        "/sitemap.xml" in w and "50000" in w.replace(",", "") for w in run.summary["warnings"]
    )
    # nothing discovered vanishes: every other entry is counted, or the cut is warned about
    assert counted == BIG_SITEMAP_URLS - MAX_SITEMAP_URLS or warned, (
        counted,
        run.summary["warnings"],
    )
