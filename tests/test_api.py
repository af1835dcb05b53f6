"""The Python API: ``crawl`` yields the rows the CLI writes, stops its child when the
loop is left, and ``convert`` gives a page row of the crawl's schema."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from webmd_spider import CrawlOptions, OptionsError, convert, crawl
from webmd_spider.demo.server import SiteServer
from webmd_spider.items import COLUMNS, Row

from .crawling import read_rows
from .front_door import run_webmd, write_front_site

#: columns that differ between two crawls of one site (times)
TIMES = {"scraped_at", "response_time_ms"}


@pytest.fixture
def site(serve_site: Callable[[Path], SiteServer], tmp_path: Path) -> SiteServer:
    return serve_site(write_front_site(tmp_path / "site"))


def _comparable(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted((k, repr(v)) for k, v in row.items() if k not in TIMES))


def test_crawl_yields_the_rows_of_the_cli_feed(site: SiteServer, tmp_path: Path) -> None:
    options = CrawlOptions(max_pages=20, chunk_tokens=150, host_delay="0")
    rows = list(crawl(f"{site.base_url}/", options, allow_local=True))
    assert all(isinstance(row, Row) for row in rows)
    assert {row.row_type for row in rows} == {"page", "site"}
    done = run_webmd(
        "crawl", f"{site.base_url}/", "--allow-local", "--chunk-tokens", "150", "-q",
        "--max-pages", "20", "-a", "host_delay=0", "--out", "rows.jsonl", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    from_cli = read_rows(tmp_path / "rows.jsonl")
    assert sorted(map(_comparable, from_cli)) == sorted(_comparable(r.to_dict()) for r in rows)


def _children_running(command_part: str) -> list[int]:
    """Our child processes whose command line holds ``command_part`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parent = next(line for line in status.splitlines() if line.startswith("PPid:"))
        if int(parent.split()[1]) == os.getpid() and command_part in command:
            found.append(int(entry.name))
    return found


def test_leaving_the_loop_ends_the_child(site: SiteServer) -> None:
    seen = []
    for row in crawl(f"{site.base_url}/", allow_local=True, host_delay="0"):
        seen.append(row)
        assert _children_running("scrapy crawl site")  # the crawl runs in a child
        break
    assert len(seen) == 1
    # the generator was closed when the loop was left: its child is stopped and reaped
    assert _children_running("scrapy crawl site") == []


def test_bad_options_raise_before_a_process_starts() -> None:
    with pytest.raises(OptionsError, match=r"max_pages must be in the range 1\.\.inf"):
        crawl("http://127.0.0.1:9/", max_pages=0)
    with pytest.raises(OptionsError, match="unknown argument 'max_pagez'"):
        crawl("http://127.0.0.1:9/", max_pagez=3)
    with pytest.raises(OptionsError, match="nothing to crawl"):
        crawl()
    assert _children_running("scrapy crawl site") == []


@pytest.mark.parametrize(
    "start",
    ["{base}/", "http://localhost:{port}/docs/", "localhost:{port}", "http://[::1]:{port}/",
     "http://10.0.0.7/", "http://192.168.1.20:8080/", "http://[fd12:3456::1]/"],
)  # fmt: skip
def test_a_local_start_without_allow_local_is_refused_before_anything_starts(
    site: SiteServer, start: str
) -> None:
    port = site.base_url.rsplit(":", 1)[1]
    url = start.format(base=site.base_url, port=port)
    with pytest.raises(OptionsError, match=r"pass allow_local=True") as raised:
        crawl(url, max_pages=2)
    assert "refused by the SSRF guard" in str(raised.value)
    assert _children_running("scrapy crawl site") == []  # no child was started
    assert site.requests == []  # not even robots.txt was asked for


def test_an_allowlisted_local_start_is_crawled(site: SiteServer) -> None:
    """WEBMD_SSRF_ALLOWLIST (what the test crawls use) or ssrf_allowlist lets a local
    start through without allow_local, as the spider's guard does."""
    allow = {"WEBMD_SSRF_ALLOWLIST": "127.0.0.0/8,localhost", "WEBMD_HOST_DELAY": "0"}
    rows = list(crawl(f"{site.base_url}/", settings=allow, max_pages=2))
    assert [r.row_type for r in rows].count("page") == 2
    port = site.base_url.rsplit(":", 1)[1]
    rows = list(crawl(f"{site.base_url}/", ssrf_allowlist=f"127.0.0.1:{port}", max_pages=1))
    assert [r.row_type for r in rows].count("page") == 1


def test_allow_local_false_given_keeps_the_guards_blocked_row(site: SiteServer) -> None:
    """A service crawling for others says allow_local=False: its caller gets the
    start's blocked row (the guard's answer), not an error about an argument it cannot
    pass."""
    rows = list(crawl(f"{site.base_url}/", allow_local=False, max_pages=2))
    blocked = [r for r in rows if r.row_type == "diagnostic"]
    assert blocked and all(r.error_type == "blocked" for r in blocked)
    assert "SSRF guard" in (blocked[0].error or "")
    assert site.requests == []


def test_an_address_allow_local_cannot_open_is_left_to_the_guard() -> None:
    """Link-local (cloud metadata) stays refused with allow_local: no advice to pass it;
    and a public name is never resolved here."""
    for url in ("http://169.254.169.254/", "http://example.com/"):
        crawl(url, max_pages=1).close()  # no OptionsError; the child never started


def test_a_start_the_child_refuses_is_an_options_error(tmp_path: Path) -> None:
    with pytest.raises(OptionsError, match="unsupported address type 'ftp:'"):
        list(crawl("ftp://x"))


PAGE = (
    "<html><head><title>Valley notes</title><meta name='author' content='Ada Field'></head>"
    "<body><nav><a href='/'>Home</a></nav><article><h1>Valley notes</h1>"
    + "".join(
        f"<h2>Part {i}</h2><p>{'The levee holds the river back. ' * 30}</p>" for i in range(4)
    )
    + "</article></body></html>"
)


def test_convert_gives_a_page_row_of_the_crawl_schema() -> None:
    row = convert(PAGE, "https://valley.example/notes", chunk_tokens=150)
    assert row.row_type == "page" and row.ok
    assert list(row.to_dict()) == list(COLUMNS)
    assert row.title == "Valley notes" and row.author == "Ada Field"
    assert row.markdown.startswith("# Valley notes") and "## Part 2" in row.markdown
    assert not row.text.startswith("Valley notes")  # text is the body alone
    assert row.chunks and row.chunk_count == len(row.chunks)
    assert row.chunks[0]["url"] == "https://valley.example/notes"
    assert row.status_code is None and row.depth is None  # crawl-only columns
    assert row.content_hash and row.url == "https://valley.example/notes"


def test_convert_takes_options_and_bytes() -> None:
    plain = convert(PAGE.encode("utf-8"), "https://valley.example/", CrawlOptions(keep_links=False))
    assert plain.row_type == "page" and plain.chunks  # chunked by default (400 tokens)
    empty = convert("<html><body><div id='root'></div><script>x()</script></body></html>")
    assert empty.row_type == "diagnostic" and empty.error_type == "empty"
    with pytest.raises(OptionsError, match="chunk_tokens must be"):
        convert(PAGE, chunk_tokens=10)
