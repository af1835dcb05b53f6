"""``webmd crawl``: the front door, run as a user runs it (the installed console script,
in a folder outside the checkout) against a real site on 127.0.0.1."""

from __future__ import annotations

import csv
import itertools
import os
import pty
import re
import select
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from webmd_spider.crawl_command import FLAGS, hints, summary_lines
from webmd_spider.demo.server import SiteServer

from .crawling import by_type, read_rows, write_site
from .front_door import WEBMD, run_webmd, write_front_site

FAST = ("-s", "WEBMD_HOST_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False")


@pytest.fixture
def site(serve_site: Callable[[Path], SiteServer], tmp_path: Path) -> SiteServer:
    return serve_site(write_front_site(tmp_path / "site"))


def test_every_flag_has_an_effect_on_the_rows(site: SiteServer, tmp_path: Path) -> None:
    work = tmp_path / "run"
    work.mkdir()
    done = run_webmd(
        "crawl", f"{site.base_url}/", "--allow-local", "--quiet", "--out", "rows.jsonl",
        "--max-depth", "1", "--exclude", "*/blog/*", "--chunk-tokens", "150",
        "--overlap-tokens", "30", "--out-dir", "md", "--llms-txt", "llms",
        "--combined", "all.md", "--discovery", "links", *FAST, cwd=work,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = read_rows(work / "rows.jsonl")
    pages = by_type(rows, "page")
    urls = {p["url"].removeprefix(site.base_url) for p in pages}
    # --max-depth 1: the home page and what it links, not /deep/2.html; --exclude: no blog
    assert urls == {"/", "/docs/guide.html", "/docs/install.html", "/deep/1.html"}
    assert max(p["depth"] for p in pages) == 1
    # --discovery links: the sitemap named in robots.txt is not read
    (site_row,) = by_type(rows, "site")
    assert site_row["discovery"] == "links" and not site_row["sitemap_url_count"]
    # --chunk-tokens / --overlap-tokens: the long guide is several chunks that overlap
    guide = next(p for p in pages if p["url"].endswith("/docs/guide.html"))
    markers = [set(re.findall(r"s\d+p\d+", chunk["text"])) for chunk in guide["chunks"]]
    assert len(markers) >= 3
    assert any(one & two for one, two in itertools.pairwise(markers))
    # --out-dir, --llms-txt, --combined
    assert len(list((work / "md").rglob("*.md"))) == len(pages)
    llms = (work / "llms" / "llms.txt").read_text("utf-8")
    assert llms.startswith("# ") and f"({site.base_url}/docs/guide.html)" in llms
    assert (work / "llms" / "llms-full.txt").read_text("utf-8").count("Source: ") == len(pages)
    assert (work / "all.md").read_text("utf-8").count('\nurl: "') == len(pages)
    # --quiet: the summary alone on stdout; the allow-local warning alone on stderr
    assert done.stdout.startswith("Crawl finished")
    assert f"  pages        {len(pages)}" in done.stdout
    assert "rows.jsonl" in done.stdout and "llms-full.txt" in done.stdout
    assert done.stderr.splitlines() == [
        "webmd crawl: warning: --allow-local lets loopback and private addresses through "
        "the SSRF guard (link-local stays refused)"
    ]
    assert "Enabled downloader middlewares" in (work / "rows.log").read_text("utf-8")


def test_max_pages_include_and_a_csv_feed(site: SiteServer, tmp_path: Path) -> None:
    done = run_webmd(
        "crawl", f"{site.base_url}/", "--allow-local", "--out", "rows.csv",
        "--include", "*/docs/*", "--include", f"{site.base_url}/", "--max-pages", "2",
        *FAST, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "rows.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    pages = [r for r in rows if r["row_type"] == "page"]
    assert len(pages) == 2  # --max-pages
    assert all(r["url"] == f"{site.base_url}/" or "/docs/" in r["url"] for r in pages)
    # not a terminal: Scrapy's lines are in the log file, not on the screen
    assert "[scrapy" not in done.stderr
    assert "[scrapy.core.engine]" in (tmp_path / "rows.log").read_text("utf-8")
    assert "Crawl stopped" in done.stdout and "page budget" in done.stdout


def test_incremental_and_state(site: SiteServer, tmp_path: Path) -> None:
    args = ("crawl", f"{site.base_url}/", "--allow-local", "-q", "--incremental")
    first = run_webmd(*args, "--state", "harbor", "--out", "one.jsonl", *FAST, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = run_webmd(*args, "--state", "harbor", "--out", "two.jsonl", *FAST, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    changes = {r["change"] for r in by_type(read_rows(tmp_path / "two.jsonl"), "page")}
    assert changes == {"unchanged"}
    fresh = run_webmd(*args, "--state", "other", "--out", "three.jsonl", *FAST, cwd=tmp_path)
    assert fresh.returncode == 0, fresh.stderr
    assert {r["change"] for r in by_type(read_rows(tmp_path / "three.jsonl"), "page")} == {"new"}
    listed = run_webmd("state", "list", cwd=tmp_path)
    assert "harbor" in listed.stdout and "other" in listed.stdout


def test_a_local_site_without_allow_local_ends_with_the_hint(
    site: SiteServer, tmp_path: Path
) -> None:
    done = run_webmd("crawl", f"{site.base_url}/", "--out", "rows.jsonl", *FAST, cwd=tmp_path)
    assert done.returncode == 3, done.stderr  # no website gave a page (issue 31)
    (row,) = by_type(read_rows(tmp_path / "rows.jsonl"), "diagnostic")
    assert row["error_type"] == "blocked"
    assert "  pages        0" in done.stdout
    assert "hint: the address is loopback or private" in done.stdout
    assert "--allow-local" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--bogus",), "webmd crawl: unrecognized arguments: --bogus"),
        (("--max-pages", "0"), "webmd crawl: max_pages must be in the range 1..inf, got '0'"),
        (("--max-depth", "deep"), "webmd crawl: max_depth must be a whole number"),
        (("--discovery", "all"), "webmd crawl: discovery must be one of sitemaps+links"),
        (("--out", "rows.txt"), "webmd crawl: out: 'rows.txt' must end in .jsonl, .csv, .json"),
        (("-a", "max_pagez=3"), "webmd crawl: unknown argument 'max_pagez'"),
        (("-s", "NOVALUE"), "webmd crawl: -s takes NAME=VALUE, got 'NOVALUE'"),
    ],
)
def test_a_bad_flag_is_one_line_and_exit_2(
    args: tuple[str, ...], message: str, tmp_path: Path
) -> None:
    done = run_webmd("crawl", "http://127.0.0.1:9/", *args, cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(message), done.stderr
    assert done.stdout == "" and not list(tmp_path.iterdir())  # nothing started


def test_no_url_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = run_webmd("crawl", cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "webmd crawl: nothing to crawl: give a start URL (or start_file)\n"


def test_an_unusable_start_is_one_line_and_exit_1(tmp_path: Path) -> None:
    done = run_webmd("crawl", "ftp://x", "--out", "rows.jsonl", cwd=tmp_path, timeout=60)
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1
    assert "unsupported address type 'ftp:'" in done.stderr and "Traceback" not in done.stderr


def test_verbose_puts_scrapy_lines_on_the_screen(site: SiteServer, tmp_path: Path) -> None:
    done = run_webmd(
        "crawl", f"{site.base_url}/", "--allow-local", "-v", "--max-pages", "1",
        "--out", "rows.jsonl", *FAST, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "[scrapy.core.engine]" in done.stderr
    assert not (tmp_path / "rows.log").exists()
    assert "Crawl stopped" in done.stdout


def _under_a_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``webmd ARGS`` on a pseudo-terminal; (exit code, what the screen got)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: becomes webmd on the terminal
        os.chdir(cwd)
        os.execv(WEBMD, [WEBMD, *args])
    screen = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 120)
        if not ready:
            break
        try:
            data = os.read(fd, 65536)
        except OSError:  # the terminal closed: the child is done
            break
        if not data:
            break
        screen += data
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), screen.decode("utf-8", "replace")


def test_the_progress_bar_on_a_terminal(site: SiteServer, tmp_path: Path) -> None:
    code, screen = _under_a_terminal(
        ["crawl", f"{site.base_url}/", "--allow-local", "--out", "rows.jsonl", *FAST], tmp_path
    )
    assert code == 0, screen
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen)
    pages = len(by_type(read_rows(tmp_path / "rows.jsonl"), "page"))
    # the bar's last drawing shows every page, then the summary
    assert "crawling" in plain and f"{pages}/{pages} pages" in plain
    assert "Crawl finished" in plain
    assert "[scrapy" not in plain
    assert "[scrapy.core.engine]" in (tmp_path / "rows.log").read_text("utf-8")


def test_the_flags_are_views_on_spider_options() -> None:
    from webmd_spider.options import OPTION_NAMES

    assert {flag.option for flag in FLAGS} <= set(OPTION_NAMES)
    help_text = subprocess.run(
        [WEBMD, "crawl", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert all(flag.flag in help_text for flag in FLAGS)
    # a list flag gathers its values into the option, as -a name=a,b does
    from webmd_spider.crawl_command import build_parser, option_values

    args = build_parser().parse_args(
        ["https://example.org/", "--skip-page-types", "listing", "--skip-page-types", "collection"]
    )
    assert option_values(args)["skip_page_types"] == ["listing", "collection"]


def test_summary_and_hints_on_plain_data() -> None:
    summary: dict[str, Any] = {
        "stop_reason": "page_budget",
        "elapsed_secs": 3.25,
        "rows": {"page": 0, "diagnostic": 2, "site": 1},
        "errors": {"blocked": 2},
        "rejected_counts": {"robots": 1, "duplicate": 3},
        "not_fetched_counts": {},
    }
    lines = summary_lines(summary, [("rows", "r.jsonl")], ["disallowed by robots.txt"])
    assert lines[0] == "Crawl stopped in 3.2s: page budget"
    assert "  rejected     4  (duplicate 3, robots 1)" in lines
    assert "  diagnostics  2  (blocked 2)" in lines
    found = hints(summary, ["disallowed by robots.txt"])
    assert any("robots.txt" in h for h in found) and any("--max-pages" in h for h in found)
    assert hints({**summary, "rows": {"page": 3}}) == []


def test_summary_names_what_extraction_removed() -> None:
    removed = {
        "blocks": 7,
        "code": 2,
        "table": 1,
        "signature": 0,
        "pages": [{"url": "https://a.example/x", "code": 2, "table": 1, "signature": 0}],
    }
    summary: dict[str, Any] = {
        "stop_reason": "finished",
        "rows": {"page": 3},
        "websites": {"a.example": {"removed": removed}, "b.example": {"removed": None}},
    }
    lines = summary_lines(summary, [])
    (line,) = [x for x in lines if x.lstrip().startswith("removed")]
    assert "7 blocks" in line and "code 2, table 1, signature 0" in line
    assert line.endswith("https://a.example/x (3)")
    assert not any("removed" in x for x in summary_lines({**summary, "websites": {}}, []))


def _slow_site(serve_site: Callable[[Path], SiteServer], root: Path) -> SiteServer:
    """A home page linking 30 pages that each take half a second to answer."""
    words = " ".join(f"w{i}" for i in range(40))
    links = "".join(f'<a href="/p{i}.html">p</a>' for i in range(30))
    routes = {f"/p{i}.html": {"delay": 0.5, "body": f"<p>{words}</p>"} for i in range(30)}
    index = f"<html><body><p>{words}</p>{links}</body></html>"
    return serve_site(write_site(root, {"index.html": index}, routes))


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a mask is inherited too


def _start_slow_crawl(server: SiteServer, out: Path, cwd: Path) -> subprocess.Popen[str]:
    """``webmd crawl`` of the slow site, returned once a page row is in the feed (polled,
    not a fixed sleep)."""
    webmd = subprocess.Popen(
        [WEBMD, "crawl", f"{server.base_url}/", "--allow-local", "-q", "--out", str(out),
         "-a", "max_concurrency=1", *FAST],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # as a terminal starts it: Ctrl-C delivered. A process inherits an ignored (or
        # blocked) SIGINT, and some earlier test of the suite leaves the test process
        # so (full loaded runs then saw the crawl finish: webmd never heard the Ctrl-C)
        preexec_fn=_default_sigint,
    )  # fmt: skip
    for _ in range(1200):
        if out.exists() and '"row_type":"page"' in out.read_text("utf-8"):
            break
        if webmd.poll() is not None:
            break
        select.select([], [], [], 0.05)
    return webmd


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_kill_stops_the_crawl_and_keeps_every_row(
    sent: signal.Signals, serve_site: Callable[[Path], SiteServer], tmp_path: Path
) -> None:
    server = _slow_site(serve_site, tmp_path / "slow")
    out = tmp_path / "rows.jsonl"
    webmd = _start_slow_crawl(server, out, tmp_path)
    webmd.send_signal(sent)  # SIGINT: what Ctrl-C sends; SIGTERM: `kill`
    stdout, stderr = webmd.communicate(timeout=120)
    assert webmd.returncode == 0, stderr
    rows = read_rows(out)
    assert 1 <= len(by_type(rows, "page")) < 31
    (site_row,) = by_type(rows, "site")
    assert site_row["stop_reason"] == "shutdown"
    assert "Crawl stopped" in stdout and "shutdown" in stdout


def _crawls_writing(feed: Path) -> list[int]:
    """Processes whose command line names ``feed`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if str(feed).encode() in command and b"scrapy" in command:
                found.append(int(entry.name))
    return found


def test_a_crawl_whose_starter_is_killed_stops_itself(
    serve_site: Callable[[Path], SiteServer], tmp_path: Path
) -> None:
    server = _slow_site(serve_site, tmp_path / "slow")
    out = tmp_path / "rows.jsonl"
    webmd = _start_slow_crawl(server, out, tmp_path)
    assert _crawls_writing(out)  # the crawl runs in a child of its own session
    webmd.kill()  # SIGKILL: webmd itself cannot stop its child
    webmd.wait()
    for _ in range(1200):  # the child looks for its parent once a second
        if not _crawls_writing(out):
            break
        select.select([], [], [], 0.05)
    assert _crawls_writing(out) == []
    (site_row,) = by_type(read_rows(out), "site")  # it stopped cleanly: its site row
    assert site_row["stop_reason"] == "shutdown"
