"""Hostile sitemaps: files on other websites, and more sitemap URLs than a crawl wants.

Crawls of the real ``site`` spider against local servers (``tests/crawling.py``), and
unit tests of the lazy :class:`webmd_spider.discovery.sitemaps.SitemapReader`:

* a sitemap index entry on another website is refused and counted, never fetched;
* a robots.txt ``Sitemap:`` line (or a sitemap redirect) to another host is fetched only
  after that host's robots.txt allows it, and its pages must be on the crawled website;
* once a website has ``max_sitemap_urls`` URLs (or its page budget is filled) no further
  sitemap file is requested, and a sitemap is not parsed past the cap;
* the work one sitemap file can cost is bounded (in elements and entries read) whatever
  it holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scrapy.utils.defer import deferred_f_from_coro_f
from w3lib.url import safe_url_string

from webmd_spider.demo.server import SiteServer
from webmd_spider.discovery.sitemaps import (
    MAX_SITEMAP_ELEMENTS,
    MAX_SITEMAP_ENTRIES,
    SitemapReader,
    usable_url,
)
from webmd_spider.spiders.sitemap_discovery import MAX_SITEMAP_FILES, SITEMAP_WINDOW

from ..crawling import by_type, crawl, page_paths, prose_page, summary_of, urlset
from ..crawling import write_site as build

Serve = Callable[[Path], SiteServer]
SM_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def index(*locs: str) -> str:
    body = "".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in locs)
    return f"<sitemapindex {SM_NS}>{body}</sitemapindex>"


def paths_asked(server: SiteServer) -> list[str]:
    return [r.path for r in server.requests]


def home(*links: str) -> dict[str, str]:
    return {
        "index.html": prose_page("Home", *links),
        "p1.html": prose_page("Page one"),
        "p2.html": prose_page("Page two"),
    }


# --------------------------------------------------------------------------- #
# other websites
# --------------------------------------------------------------------------- #


@deferred_f_from_coro_f
async def test_an_index_entry_on_another_website_is_refused(
    serve_site: Serve, tmp_path: Path
) -> None:
    other = serve_site(
        build(
            tmp_path / "b",
            {"robots.txt": "User-agent: *\nDisallow: /\n", "private/foreign.xml": urlset()},
        )
    )
    foreign = other.url("/private/foreign.xml")
    site = serve_site(
        build(
            tmp_path / "a",
            {
                **home(),
                "robots.txt": "User-agent: *\nAllow: /\nSitemap: {{origin}}/idx.xml\n",
                "idx.xml": index(foreign, "{{origin}}/s1.xml"),
                "s1.xml": urlset("{{origin}}/p1.html"),
            },
        )
    )
    rows = await crawl(tmp_path, start=site.base_url + "/")
    assert paths_asked(other) == [], "nothing at all is asked of the other website"
    assert page_paths(site, rows) == ["/", "/p1.html"]  # the start page is always read
    (site_row,) = by_type(rows, "site")
    assert site_row["discovery"] == "sitemap" and site_row["sitemap_url_count"] == 1
    assert site_row["stop_reason"] == "finished" and site_row["robots_blocked"] == 0
    summary = summary_of(tmp_path)
    assert summary["rejected_counts"]["offsite_sitemap"] == 1
    assert {"url": foreign, "reason": "offsite_sitemap", "website": site_row["website"]} in (
        summary["rejected"]
    )


@deferred_f_from_coro_f
async def test_a_sitemap_line_to_a_host_whose_robots_disallows_it_is_not_fetched(
    serve_site: Serve, tmp_path: Path
) -> None:
    other = serve_site(
        build(
            tmp_path / "b",
            {"robots.txt": "User-agent: *\nDisallow: /\n", "private/foreign.xml": urlset()},
        )
    )
    foreign = other.url("/private/foreign.xml")
    site = serve_site(
        build(tmp_path / "a", {**home("/p1.html"), "robots.txt": f"Sitemap: {foreign}\n"})
    )
    rows = await crawl(tmp_path, start=site.base_url + "/")
    assert paths_asked(other) == ["/robots.txt"]
    # no usable declared sitemap: the website is crawled by its links
    assert page_paths(site, rows) == ["/", "/p1.html"]
    (site_row,) = by_type(rows, "site")
    assert site_row["discovery"] == "links" and site_row["robots_blocked"] == 1
    summary = summary_of(tmp_path)
    assert summary["rejected_counts"]["robots"] == 1
    (rejected,) = [r for r in summary["rejected"] if r["url"] == foreign]
    assert rejected["reason"] == f"robots:{other.base_url}/robots.txt"
    assert not by_type(rows, "diagnostic")


@deferred_f_from_coro_f
async def test_a_cross_submitted_sitemap_is_read_after_its_hosts_robots_txt(
    serve_site: Serve, tmp_path: Path
) -> None:
    # sitemaps.org cross-submission: the website's robots.txt names its sitemap on a CDN
    cdn = serve_site(
        build(tmp_path / "cdn", {"robots.txt": "User-agent: *\nDisallow: /private/\n"})
    )
    site = serve_site(build(tmp_path / "a", home()))
    build(
        tmp_path / "cdn",
        {
            "maps/a.xml": urlset(
                site.url("/p1.html"), site.url("/p2.html"), cdn.url("/page-on-the-cdn")
            ),
        },
    )
    build(tmp_path / "a", {"robots.txt": f"Sitemap: {cdn.url('/maps/a.xml')}\n"})
    rows = await crawl(tmp_path, start=site.base_url + "/")
    assert paths_asked(cdn) == ["/robots.txt", "/maps/a.xml"]
    assert page_paths(site, rows) == ["/", "/p1.html", "/p2.html"]
    (site_row,) = by_type(rows, "site")
    assert site_row["discovery"] == "sitemap" and site_row["sitemap_url_count"] == 2
    summary = summary_of(tmp_path)
    # the pages it lists must be on the crawled website
    assert summary["rejected_counts"] == {"offsite_sitemap_entry": 1}
    assert summary["rejected"][0]["url"] == cdn.url("/page-on-the-cdn")


@deferred_f_from_coro_f
async def test_a_sitemap_host_with_an_unavailable_robots_txt_is_not_fetched(
    serve_site: Serve, tmp_path: Path
) -> None:
    cdn = serve_site(
        build(tmp_path / "cdn", {"maps/a.xml": urlset()}, {"/robots.txt": {"status": 500}})
    )
    site = serve_site(
        build(
            tmp_path / "a",
            {**home("/p2.html"), "robots.txt": f"Sitemap: {cdn.url('/maps/a.xml')}\n"},
        )
    )
    rows = await crawl(tmp_path, {"RETRY_TIMES": 0}, start=site.base_url + "/")
    assert cdn.hits("/maps/a.xml") == 0 and cdn.hits("/robots.txt") == 1
    assert page_paths(site, rows) == ["/", "/p2.html"]
    summary = summary_of(tmp_path)
    assert any("RFC 9309 §2.3.1.4" in w and cdn.base_url in w for w in summary["warnings"])
    assert by_type(rows, "site")[0]["robots_blocked"] == 1


@deferred_f_from_coro_f
async def test_a_sitemap_redirecting_to_another_host_obeys_that_hosts_robots_txt(
    serve_site: Serve, tmp_path: Path
) -> None:
    other = serve_site(
        build(
            tmp_path / "b",
            {
                "robots.txt": "User-agent: *\nDisallow: /private/\n",
                "private/s.xml": urlset(),
                "open/s.xml": urlset("{{origin}}/x.html"),
            },
        )
    )
    site = serve_site(
        build(
            tmp_path / "a",
            {
                **home(),
                "robots.txt": "Sitemap: {{origin}}/one.xml\nSitemap: {{origin}}/two.xml\n",
                "s.xml": urlset("/p1.html"),
            },
            {
                "/one.xml": {"status": 301, "location": other.url("/private/s.xml")},
                "/two.xml": {"status": 302, "location": other.url("/open/s.xml")},
            },
        )
    )
    # the open one lists a page of the other host: refused as an off-site entry
    rows = await crawl(tmp_path, start=site.base_url + "/")
    assert sorted(paths_asked(other)) == ["/open/s.xml", "/robots.txt"]
    summary = summary_of(tmp_path)
    reasons = {r["url"]: r["reason"] for r in summary["rejected"]}
    assert reasons[other.url("/private/s.xml")].startswith("robots:")
    assert reasons[other.url("/x.html")] == "offsite_sitemap_entry"
    assert by_type(rows, "site")[0]["discovery"] == "links"


@deferred_f_from_coro_f
async def test_sitemap_redirects_on_the_website_are_followed_and_loops_end(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = serve_site(
        build(
            tmp_path / "s",
            {**home(), "maps/real.xml": urlset("/p1.html", "/p2.html")},
            {
                # a sitemap moved elsewhere, as sites do
                "/sitemap.xml": {"status": 301, "location": "/maps/real.xml"},
                "/loop-a.xml": {"status": 302, "location": "/loop-b.xml"},
                "/loop-b.xml": {"status": 302, "location": "/loop-a.xml"},
                "/robots.txt": {
                    "body": "Sitemap: {{origin}}/loop-a.xml\nSitemap: {{origin}}/sitemap.xml\n",
                    "content_type": "text/plain",
                },
            },
        )
    )
    rows = await crawl(tmp_path, start=server.base_url + "/")
    assert page_paths(server, rows) == ["/", "/p1.html", "/p2.html"]
    assert server.hits("/loop-a.xml") == 1 and server.hits("/loop-b.xml") == 1
    assert server.hits("/maps/real.xml") == 1
    (site_row,) = by_type(rows, "site")
    assert site_row["discovery"] == "sitemap" and site_row["sitemap_url_count"] == 2
    rejected = summary_of(tmp_path)["rejected"]
    assert {"url": server.url("/loop-a.xml"), "reason": "duplicate_sitemap"} in [
        {k: r[k] for k in ("url", "reason")} for r in rejected
    ]


# --------------------------------------------------------------------------- #
# the sitemap URL cap and the page budget
# --------------------------------------------------------------------------- #


def many_sitemaps(root: Path, files: int, entries: int, pages: int) -> dict[str, str]:
    """robots.txt declaring ``files`` sitemaps of ``entries`` URLs each; the first
    ``pages`` URLs of every sitemap exist as pages."""
    content = {
        "index.html": prose_page("Home"),
        "robots.txt": "User-agent: *\nAllow: /\n"
        + "".join(f"Sitemap: {{{{origin}}}}/sm{i}.xml\n" for i in range(files)),
    }
    for i in range(files):
        content[f"sm{i}.xml"] = urlset(*(f"/s{i}/p{j}.html" for j in range(entries)))
        for j in range(pages):
            content[f"s{i}/p{j}.html"] = prose_page(f"Sitemap {i} page {j}")
    build(root, content)
    return content


def sitemap_hits(server: SiteServer) -> list[str]:
    return [p for p in paths_asked(server) if re.fullmatch(r"/sm\d+\.xml", p)]


@deferred_f_from_coro_f
async def test_no_sitemap_is_fetched_or_parsed_past_the_url_cap(
    serve_site: Serve, tmp_path: Path
) -> None:
    files, entries, cap = 6, 3000, 100
    many_sitemaps(tmp_path / "s", files, entries, pages=12)
    server = serve_site(tmp_path / "s")
    rows = await crawl(
        tmp_path, start=server.base_url + "/", max_sitemap_urls=str(cap), max_pages="10"
    )
    # the work is bounded by counting what was asked and read below, not by timing the
    # run (issue 16: the suite must hold on a busy machine)
    fetched = sitemap_hits(server)
    assert len(fetched) == SITEMAP_WINDOW, fetched  # the first read, one in flight
    (site_row,) = by_type(rows, "site")
    assert site_row["sitemap_url_count"] == cap
    assert site_row["pages_extracted"] == 10 and site_row["stop_reason"] == "page_budget"
    assert len(by_type(rows, "page")) == 10
    summary = summary_of(tmp_path)
    counts = summary["not_fetched_counts"]
    # the files never asked for are counted and listed; the one in flight is either
    # read up to the cap too (Scrapy may read two callbacks' output in turns) or, when
    # it arrives after the cap, counted as not read
    not_read = {
        r["url"].removeprefix(server.base_url)
        for r in summary["not_fetched"]
        if r["reason"] == "sitemap_not_read:max_sitemap_urls"
    }
    assert {f"/sm{i}.xml" for i in range(SITEMAP_WINDOW, files)} <= not_read
    assert len(not_read) == counts["sitemap_not_read:max_sitemap_urls"]
    files_read = files - len(not_read)
    assert files_read in (1, 2)
    # entries past the cap in the files read: not parsed, counted (exactly, here)
    assert counts["max_sitemap_urls"] == files_read * entries - cap
    assert any("max_sitemap_urls (100) reached" in w for w in summary["warnings"])


@deferred_f_from_coro_f
async def test_a_plain_sitemap_over_the_page_size_limit_is_read(
    serve_site: Serve, tmp_path: Path
) -> None:
    # a 50,000-URL sitemap without gzip is several MB: over DOWNLOAD_MAXSIZE (a page's
    # limit, 5 MB) yet within sitemaps.org's 50 MB
    site = tmp_path / "s"
    pages = {f"p{i}.html": prose_page(f"Page {i}") for i in range(3)}
    filler = "/" + "x" * 200
    locs = ["{{origin}}" + f"/p{i}.html" for i in range(3)]
    locs += ["{{origin}}" + f"{filler}/{i}.html" for i in range(30_000)]
    build(site, {**pages, "sitemap.xml": urlset(*locs), "robots.txt": "User-agent: *\nAllow: /\n"})
    assert (site / "sitemap.xml").stat().st_size > 6 * 1024 * 1024
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/", max_pages="3", max_sitemap_urls="3")
    (site_row,) = by_type(rows, "site")
    assert site_row["discovery"] == "sitemap", site_row
    assert {r["url"].removeprefix(server.base_url) for r in by_type(rows, "page")} == {
        f"/p{i}.html" for i in range(3)
    }


@deferred_f_from_coro_f
async def test_no_sitemap_is_fetched_once_the_page_budget_is_filled(
    serve_site: Serve, tmp_path: Path
) -> None:
    many_sitemaps(tmp_path / "s", 6, 20, pages=20)
    # the later sitemaps are slow: the first one's pages fill the budget meanwhile
    slow = {f"/sm{i}.xml": {"file": f"sm{i}.xml", "delay": 1.5} for i in range(1, 6)}
    build(tmp_path / "s", {}, slow)
    server = serve_site(tmp_path / "s")
    rows = await crawl(tmp_path, start=server.base_url + "/", max_pages="3")
    assert len(by_type(rows, "page")) == 3
    (site_row,) = by_type(rows, "site")
    assert site_row["stop_reason"] == "page_budget"
    # sm0 read; sm1 and sm2 were in flight (the window) when the budget filled
    assert sorted(sitemap_hits(server)) == ["/sm0.xml", "/sm1.xml", "/sm2.xml"]
    summary = summary_of(tmp_path)
    assert summary["not_fetched_counts"]["sitemap_not_read:page_budget"] == 5
    not_read = {
        r["url"].removeprefix(server.base_url)
        for r in summary["not_fetched"]
        if r["reason"] == "sitemap_not_read:page_budget"
    }
    assert not_read == {f"/sm{i}.xml" for i in range(1, 6)}


@deferred_f_from_coro_f
async def test_an_index_past_the_file_limit_is_not_read_further(
    serve_site: Serve, tmp_path: Path
) -> None:
    children = {f"c/{i}.xml": urlset("/p1.html") for i in range(80)}
    server = serve_site(
        build(
            tmp_path / "s",
            {**home(), **children, "sitemap.xml": index(*(f"/c/{i}.xml" for i in range(80)))},
        )
    )
    rows = await crawl(tmp_path, start=server.base_url + "/")
    asked = [p for p in paths_asked(server) if p.startswith("/c/")]
    assert len(asked) == MAX_SITEMAP_FILES - 1  # the index is the first of the 50
    assert page_paths(server, rows) == ["/", "/p1.html"]
    summary = summary_of(tmp_path)
    assert summary["rejected_counts"]["sitemap_file_limit"] == 80 - len(asked)
    assert any("limit of 50 sitemap files" in w for w in summary["warnings"])


@deferred_f_from_coro_f
async def test_huge_sitemaps_and_a_short_run_budget_still_give_pages(
    serve_site: Serve, tmp_path: Path
) -> None:
    # the audit's case, smaller: 8 full-size sitemaps. The run budget is generous: on a
    # CI machine busy with other work a 6 s budget ran out while the 50 pages were
    # fetched (7 URLs counted as time_budget). The bound under test is the work, counted.
    many_sitemaps(tmp_path / "s", 8, MAX_SITEMAP_ENTRIES, pages=60)
    server = serve_site(tmp_path / "s")
    rows = await crawl(tmp_path, start=server.base_url + "/", max_run_secs="120")
    assert len(sitemap_hits(server)) <= SITEMAP_WINDOW
    assert len(by_type(rows, "page")) == 50  # the default page budget
    (site_row,) = by_type(rows, "site")
    # the page budget ended the website, not the time budget: the sitemaps cost their
    # first 5,000 entries (the default max_sitemap_urls), not 400,000. Counted, not timed
    # (issue 16: the suite must hold on a busy machine)
    assert site_row["stop_reason"] == "page_budget" and site_row["sitemap_url_count"] == 5000
    counts = summary_of(tmp_path)["not_fetched_counts"]
    assert "time_budget" not in counts
    files_read = 8 - counts.get("sitemap_not_read:page_budget", 0)
    files_read -= counts.get("sitemap_not_read:max_sitemap_urls", 0)
    assert 1 <= files_read <= SITEMAP_WINDOW
    # entries past the cap in the files read: not parsed, counted (exactly, here)
    assert counts["max_sitemap_urls"] == files_read * MAX_SITEMAP_ENTRIES - 5000


# --------------------------------------------------------------------------- #
# the lazy reader (unit)
# --------------------------------------------------------------------------- #

BASE = "https://example.com"


def test_a_reader_stops_where_its_caller_stops_and_estimates_the_rest() -> None:
    body = urlset(*(f"{BASE}/p{i}" for i in range(1000))).encode()
    reader = SitemapReader(body, f"{BASE}/s.xml")
    assert reader.kind == "urlset"
    taken = [entry.loc for _, entry in zip(range(10), reader, strict=False)]
    assert taken == [f"{BASE}/p{i}" for i in range(10)]
    assert reader.unread() == 990 and not reader.truncated
    # the rest can still be read
    assert len(list(reader)) == 990 and reader.unread() == 0


def test_a_text_reader_estimates_the_lines_left() -> None:
    body = "\n".join(f"{BASE}/p{i}" for i in range(100)).encode()
    reader = SitemapReader(body, f"{BASE}/s.txt")
    assert [e.loc for _, e in zip(range(3), reader, strict=False)][-1] == f"{BASE}/p2"
    assert reader.unread() == 97


def test_an_invalid_body_has_nothing_to_read() -> None:
    reader = SitemapReader(b"<html><body>no</body></html>", f"{BASE}/s.xml")
    assert reader.kind == "invalid" and "root element is <html>" in (reader.error or "")
    assert list(reader) == [] and reader.unread() == 0


def test_a_reader_that_fails_midway_keeps_what_it_read(monkeypatch: pytest.MonkeyPatch) -> None:
    import webmd_spider.discovery.sitemaps as sitemaps

    real = sitemaps._entry_values
    calls = iter(range(10**6))

    def flaky(entry: Any, root_name: str) -> tuple[str | None, str | None]:
        if next(calls) == 5:
            raise RuntimeError("lxml surprised us")
        return real(entry, root_name)

    monkeypatch.setattr(sitemaps, "_entry_values", flaky)
    reader = SitemapReader(urlset(*(f"{BASE}/p{i}" for i in range(10))).encode(), BASE)
    assert [e.loc for e in reader] == [f"{BASE}/p{i}" for i in range(4)]  # 5th held back
    assert reader.truncated and reader.error and "lxml surprised us" in reader.error
    assert list(reader) == []


@pytest.mark.parametrize(
    ("name", "body", "limit"),
    [
        (
            "unusable entries",
            b"<urlset>" + b"<url><loc>ftp://x/y</loc></url>" * 1_000_000 + b"</urlset>",
            f"more than {MAX_SITEMAP_ENTRIES:,} unusable entries",
        ),
        (
            "junk elements",
            b"<urlset>" + b"<x>y</x>" * 5_000_000 + b"</urlset>",
            f"more than {MAX_SITEMAP_ELEMENTS:,} elements",
        ),
        (
            "entries",
            urlset(*(f"{BASE}/p{i}" for i in range(400_000))).encode(),
            f"more than {MAX_SITEMAP_ENTRIES:,} entries",
        ),
        (
            "unusable lines",
            b"ftp://x/y\n" * 4_000_000,
            f"more than {MAX_SITEMAP_ENTRIES:,} unusable lines",
        ),
    ],
)
def test_the_work_one_file_takes_is_bounded(name: str, body: bytes, limit: str) -> None:
    # each was 4-15 s of CPU when every element was read; the caps stop the reading
    # (work is bounded by counting what is read, never by timing it on a shared machine)
    reader = SitemapReader(body, f"{BASE}/s.xml")
    entries = list(reader)
    assert reader.truncated and reader.limit == limit, name
    assert len(entries) <= MAX_SITEMAP_ENTRIES
    assert reader.read <= MAX_SITEMAP_ENTRIES and reader.bad_entries <= MAX_SITEMAP_ENTRIES + 1


def general_path(raw: str, base_url: str) -> str | None:
    """The loc check as it was before its fast path (urljoin + safe_url_string)."""
    text = raw.strip()
    if not text:
        return None
    try:
        absolute = safe_url_string(urljoin(base_url, text))
        parts = urlsplit(absolute)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            return None
    except ValueError:
        return None
    return absolute


@given(
    st.sampled_from(["http://", "https://", "HTTP://", "", "/", "//"]),
    st.sampled_from(["example.com", "a.b-c.d", "127.0.0.1:8080", "x..y", "-x.y", "ex.com:0", ""]),
    st.text(alphabet="abcAB09-._~!$&'()*+,;=:@/?%#[]{}| \"<>^`\\é\t", max_size=30),
)
def test_the_fast_path_of_locs_gives_what_the_general_path_gives(
    scheme: str, host: str, tail: str
) -> None:
    text = f"{scheme}{host}{tail}"
    base = f"{BASE}/dir/s.xml"
    assert usable_url(text, base) == general_path(text, base)


# --------------------------------------------------------------------------- #
# discovery order (issue 16 item 2): the start page, the sitemaps, then links
# --------------------------------------------------------------------------- #
REAL = [f"/real/{i}.html" for i in range(5)]


#: The judge counts a sitemap page's outcome when its row is made, after extraction;
#: with Scrapy's default backlog (5 MB of responses waiting for the spider) a busy CI
#: machine lets the downloader run 40 pages ahead of the rows, past the verdict and the
#: page budget (a race, not a rule: the judge would demote them a moment later). Holding
#: new downloads while a response waits (Scrapy's own backout) bounds the lead by the
#: requests in flight, whatever the machine's load: the rule is tested, not the race.
ROWS_KEEP_UP: dict[str, Any] = {"SCRAPER_SLOT_MAX_ACTIVE_SIZE": 1}


def junk_site(root: Path, junk: list[str], files: dict[str, str] | None = None) -> Path:
    """A home page linking five real pages, and a sitemap listing only ``junk``."""
    pages = {p.lstrip("/"): prose_page(f"Real page {p}") for p in REAL}
    return build(
        root,
        {
            "index.html": prose_page("Home", *REAL),
            **pages,
            **(files or {}),
            "sitemap.xml": urlset(*junk),
        },
    )


@deferred_f_from_coro_f
async def test_a_sitemap_of_dead_links_does_not_keep_the_crawl_from_the_start_pages_links(
    serve_site: Serve, tmp_path: Path
) -> None:
    junk = [f"/gone/{i}.html" for i in range(300)]  # every one a 404
    server = serve_site(junk_site(tmp_path / "s", junk))
    rows = await crawl(tmp_path, start=server.base_url + "/")
    assert page_paths(server, rows) == sorted(["/", *REAL])
    hits = [r.path for r in server.requests]
    assert hits.count("/") == 1  # the start page is read (it is not in the sitemap)
    # the junk went behind the links once it proved to be junk: the real pages were
    # fetched before the website's failure budget (50 pages without a row) ended it
    (site_row,) = by_type(rows, "site")
    # (requests in flight at the stop end as aborted rows, diagnostics too: issue 31)
    aborted = [r for r in by_type(rows, "diagnostic") if r["error_type"] == "aborted"]
    assert all(r["error"].startswith("aborted: failure budget") for r in aborted)
    assert site_row["stop_reason"] == "failure_budget"
    assert site_row["failures"] - len(aborted) == 50
    summary = summary_of(tmp_path)
    assert any("go behind the links" in w for w in summary["warnings"]), summary["warnings"]


@deferred_f_from_coro_f
async def test_a_sitemap_of_thin_pages_does_not_spend_the_page_budget_before_links(
    serve_site: Serve, tmp_path: Path
) -> None:
    junk = [f"/stub/{i}.html" for i in range(120)]
    stubs = {
        p.lstrip("/"): f"<html><body><p>Stub {i}.</p></body></html>" for i, p in enumerate(junk)
    }
    server = serve_site(junk_site(tmp_path / "s", junk, stubs))
    rows = await crawl(tmp_path, ROWS_KEEP_UP, start=server.base_url + "/", max_pages="50")
    paths = page_paths(server, rows)
    assert set(REAL) | {"/"} <= set(paths)
    assert len(paths) <= 50
    thin = [r for r in by_type(rows, "page") if r["thin"]]
    assert thin and all("/stub/" in r["url"] for r in thin)


@deferred_f_from_coro_f
async def test_discovery_sitemaps_reads_no_links_and_links_reads_no_sitemap(
    serve_site: Serve, tmp_path: Path
) -> None:
    listed = {"listed.html": prose_page("Listed page")}
    server = serve_site(junk_site(tmp_path / "s", ["/listed.html"], listed))
    rows = await crawl(tmp_path / "a", start=server.base_url + "/", discovery="sitemaps")
    assert page_paths(server, rows) == ["/", "/listed.html"]
    assert by_type(rows, "site")[0]["discovery"] == "sitemap"
    server.clear_requests()
    rows = await crawl(tmp_path / "b", start=server.base_url + "/", discovery="links")
    assert page_paths(server, rows) == sorted(["/", *REAL])
    assert by_type(rows, "site")[0]["discovery"] == "links"
    assert not [r.path for r in server.requests if r.path.endswith(".xml")]
