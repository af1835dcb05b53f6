"""Hostile robots.txt files: unusable ``Sitemap:`` lines and infinite ``Crawl-delay``.

Unit tests of ``webmd_spider.policy.robots`` and crawls of the real ``site`` spider against
small local sites (``tests/crawling.py``): a bad line in robots.txt costs only itself,
the website is still crawled, and what was skipped is counted and told.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.policy.robots import MAX_SITEMAP_URL_CHARS, RobotsRules, sitemap_url

from ..crawling import by_type, crawl, page_paths, prose_page, summary_of, urlset, write_site

Serve = Callable[[Path], SiteServer]
ROBOTS_URL = "https://example.com/robots.txt"


# --------------------------------------------------------------------------- #
# Sitemap: values (unit)
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("https://example.com/sitemap.xml", "https://example.com/sitemap.xml"),
        ("/sitemap.xml", "https://example.com/sitemap.xml"),
        ("sitemap.xml", "https://example.com/sitemap.xml"),
        ("/maps/../sitemap.xml", "https://example.com/sitemap.xml"),
        ("//cdn.example.net/s.xml", "https://cdn.example.net/s.xml"),
        ("http://other.example/s.xml", "http://other.example/s.xml"),
        ("https:s.xml", "https://example.com/s.xml"),
    ],
)
def test_sitemap_values_resolve_against_the_robots_url(value: str, expected: str) -> None:
    assert sitemap_url(value, ROBOTS_URL) == expected


@pytest.mark.parametrize(
    "value",
    [
        "",
        "not a url",
        "javascript:alert(1)",
        "ftp://example.com/s.xml",
        "mailto:a@example.com",
        "data:text/xml,<urlset/>",
        "http://[::1/x.xml",
        "http://example.com:99999/s.xml",
        "http://",
        "#top",
        "https://example.com/a\tb.xml",
        "https://example.com/" + "x" * MAX_SITEMAP_URL_CHARS,
    ],
)
def test_unusable_sitemap_values_give_none(value: str) -> None:
    assert sitemap_url(value, ROBOTS_URL) is None


def test_sitemaps_are_still_listed_as_written() -> None:
    rules = RobotsRules.parse("Sitemap: /s.xml\nSitemap: not a url\nUser-agent: *\nDisallow:\n")
    assert rules.sitemaps() == ["/s.xml", "not a url"]


# --------------------------------------------------------------------------- #
# Crawl-delay (unit)
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("value", ["inf", "1e999", "Infinity", "+inf"])
def test_infinite_crawl_delay_is_kept(value: str) -> None:
    assert RobotsRules.parse(f"User-agent: *\nCrawl-delay: {value}\n").crawl_delay() == math.inf


@pytest.mark.parametrize("value", ["nan", "-inf", "-1", "-1e999", "soon", ""])
def test_nan_negative_and_junk_crawl_delays_are_ignored(value: str) -> None:
    assert RobotsRules.parse(f"User-agent: *\nCrawl-delay: {value}\n").crawl_delay() is None


def test_an_infinite_delay_wins_over_a_finite_one_of_a_merged_group() -> None:
    text = "User-agent: webmd\nCrawl-delay: 2\n\nUser-agent: webmd\nCrawl-delay: inf\n"
    assert RobotsRules.parse(text).crawl_delay() == math.inf


# --------------------------------------------------------------------------- #
# crawls
# --------------------------------------------------------------------------- #


def small_site(root: Path, robots: str, extra: dict[str, str] | None = None) -> Path:
    """Home linking /a /b /c (and /private, disallowed), plus ``extra`` files."""
    files = {
        "index.html": prose_page("Home", "/a.html", "/b.html", "/c.html", "/private/x.html"),
        "a.html": prose_page("Page A"),
        "b.html": prose_page("Page B"),
        "c.html": prose_page("Page C"),
        "private/x.html": prose_page("Private"),
        "robots.txt": robots,
        **(extra or {}),
    }
    return write_site(root, files)


@pytest.mark.parametrize(
    "line",
    ["not a url", "javascript:alert(1)", "http://[::1/x.xml", "ftp://x/y.xml", "http://"],
)
@deferred_f_from_coro_f
async def test_an_unusable_sitemap_line_costs_only_itself(
    serve_site: Serve, tmp_path: Path, line: str
) -> None:
    robots = f"User-agent: *\nDisallow: /private/\nSitemap: {line}\n"
    server = serve_site(small_site(tmp_path / "s", robots))
    rows = await crawl(tmp_path, start=server.base_url + "/")
    # the website is crawled: the guessed sitemaps are asked, then the links; robots.txt
    # once (the bad line is not a reason to ask again) and every page once: counted, not
    # timed (issue 16: the suite must hold on a busy machine)
    assert server.hits("/sitemap.xml") == 1
    assert server.hits("/robots.txt") == 1
    for path in ("/", "/a.html", "/b.html", "/c.html"):
        assert server.hits(path) == 1, path
    assert page_paths(server, rows) == ["/", "/a.html", "/b.html", "/c.html"]
    (site_row,) = by_type(rows, "site")
    assert site_row["discovery"] == "links" and site_row["stop_reason"] == "finished"
    assert site_row["pages_extracted"] == 4 and site_row["robots_blocked"] == 1
    summary = summary_of(tmp_path)
    assert summary["rejected_counts"]["unusable_sitemap_line"] == 1
    assert [r["url"] for r in summary["rejected"] if r["reason"] == "unusable_sitemap_line"] == [
        line
    ]
    (warning,) = [w for w in summary["warnings"] if "Sitemap line" in w]
    assert repr(line) in warning
    assert not by_type(rows, "diagnostic")


@pytest.mark.parametrize("line", ["/maps/s.xml", "maps/s.xml", "SCHEME-RELATIVE"])
@deferred_f_from_coro_f
async def test_a_relative_sitemap_line_is_resolved_against_robots_txt(
    serve_site: Serve, tmp_path: Path, line: str
) -> None:
    root = tmp_path / "s"
    root.mkdir()
    server = serve_site(root)
    if line == "SCHEME-RELATIVE":
        line = server.base_url.removeprefix("http:") + "/maps/s.xml"
    robots = f"User-agent: *\nDisallow: /private/\nSitemap: {line}\n"
    small_site(root, robots, {"maps/s.xml": urlset("/a.html", "{{origin}}/b.html")})
    # the sitemap's pages only (and the start page): links would find /c.html too
    rows = await crawl(tmp_path, start=server.base_url + "/", discovery="sitemaps")
    assert server.hits("/maps/s.xml") == 1 and server.hits("/sitemap.xml") == 0
    assert page_paths(server, rows) == ["/", "/a.html", "/b.html"]
    (site_row,) = by_type(rows, "site")
    assert site_row["discovery"] == "sitemap" and site_row["sitemap_url_count"] == 2
    summary = summary_of(tmp_path)
    assert "unusable_sitemap_line" not in summary["rejected_counts"]
    assert not any("Sitemap line" in w for w in summary["warnings"])


@deferred_f_from_coro_f
async def test_many_bad_sitemap_lines_one_warning_and_the_good_ones_read(
    serve_site: Serve, tmp_path: Path
) -> None:
    bad = ["not a url", "ftp://x/y.xml", "javascript:alert(1)", "http://[::1/x.xml"] * 2
    lines = "".join(f"Sitemap: {v}\n" for v in [*bad, "/good.xml", "rel.xml"])
    robots = f"User-agent: *\nDisallow: /private/\n{lines}"
    extra = {"good.xml": urlset("/a.html"), "rel.xml": urlset("/c.html")}
    server = serve_site(small_site(tmp_path / "s", robots, extra))
    rows = await crawl(tmp_path, start=server.base_url + "/", discovery="sitemaps")
    assert page_paths(server, rows) == ["/", "/a.html", "/c.html"]
    summary = summary_of(tmp_path)
    assert summary["rejected_counts"]["unusable_sitemap_line"] == len(bad)
    (warning,) = [w for w in summary["warnings"] if "Sitemap line" in w]
    assert f"{len(bad)} Sitemap line(s)" in warning and "and 3 more" in warning


@pytest.mark.parametrize("value", ["inf", "1e999"])
@deferred_f_from_coro_f
async def test_an_infinite_crawl_delay_fetches_one_page_and_stops(
    serve_site: Serve, tmp_path: Path, value: str
) -> None:
    robots = f"User-agent: *\nCrawl-delay: {value}\nDisallow: /private/\n"
    server = serve_site(small_site(tmp_path / "s", robots))
    # a small maximum keeps the test short: the one page waits max_crawl_delay
    rows = await crawl(tmp_path, start=server.base_url + "/", max_crawl_delay="0.5")
    # the run ends on its own, with one page fetched and the rest never asked for
    # (counted, not timed: issue 16, the suite must hold on a busy machine)
    assert server.hits("/") == 1
    assert page_paths(server, rows) == ["/"]
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "blocked" and "inf s between requests" in diag["error"]
    (site_row,) = by_type(rows, "site")
    assert site_row["stop_reason"] == "crawl_delay" and site_row["pages_extracted"] == 1
    assert any("max_crawl_delay" in w for w in summary_of(tmp_path)["warnings"])
    assert sum(server.hits(p) for p in ("/a.html", "/b.html", "/c.html")) == 0
