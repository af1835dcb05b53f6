"""End-to-end crawls of the fixture sites with the real spider, checked row by row."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.items import COLUMNS
from webmd_spider.options import OptionsError

from ..crawling import by_type, crawl, summary_of

SITES = Path(__file__).resolve().parents[1] / "sites"


def expected(site: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SITES / site / "_expected.json").read_text("utf-8"))
    return data


def path_of(server: SiteServer, url: str | None) -> str:
    assert url is not None
    return url.removeprefix(server.base_url)


@deferred_f_from_coro_f
async def test_basic_site_rows_match_the_sitemap_crawl(
    basic_site: SiteServer, tmp_path: Path
) -> None:
    spec = expected("basic")
    before = len(basic_site.requests)
    rows = await crawl(tmp_path, start=basic_site.base_url + "/")
    requested = [r.path for r in basic_site.requests][before:]
    assert requested[0] == "/robots.txt", "robots.txt is read before anything else"

    assert all(list(r) == list(COLUMNS) for r in rows), "every row carries every column"
    pages = by_type(rows, "page")
    got = {path_of(basic_site, r["final_url"]): (r["depth"], r["discovered_via"]) for r in pages}
    want = {p["path"]: (p["depth"], p["discovered_via"]) for p in spec["pages"]}
    assert got == want
    assert all(r["ok"] and r["status_code"] == 200 and r["word_count"] >= 20 for r in pages)
    assert all(
        r["markdown"] and r["text"] and r["content_hash"].startswith("sha256:") for r in pages
    )

    diagnostics = {path_of(basic_site, r["url"]): r for r in by_type(rows, "diagnostic")}
    for diag in spec["diagnostics"]:
        row = diagnostics.pop(diag["path"])
        assert row["error_type"] == diag["error_type"]
        assert row["ok"] is False and row["error"]
    assert diagnostics == {}

    # Two URLs redirecting to one page give one row; the other is a listed duplicate.
    news = [r for r in pages if r["final_url"].endswith("/news/latest.html")]
    assert len(news) == 1
    assert path_of(basic_site, news[0]["url"]) in ("/moved-a", "/moved-b")
    summary = summary_of(tmp_path)
    duplicates = [r for r in summary["rejected"] if r["reason"].startswith("duplicate")]
    assert {path_of(basic_site, r["url"]) for r in duplicates} == {"/moved-a", "/moved-b"} - {
        path_of(basic_site, news[0]["url"])
    }

    # robots.txt is obeyed for sitemap URLs: the disallowed page is never requested.
    assert basic_site.hits("/private/secret.html") == 0
    assert any(r["reason"] == "robots" for r in summary["rejected"])

    (site,) = by_type(rows, "site")
    assert rows[-1] is site or rows[-1] == site, "the site row comes after its pages"
    assert site["discovery"] == "sitemap"
    assert site["sitemap_url_count"] == spec["sitemap_url_count"]
    assert site["robots_blocked"] == 1
    assert site["pages_extracted"] == len(pages)
    assert site["failures"] == len(spec["diagnostics"])
    assert site["total_words"] == sum(r["word_count"] for r in pages)
    assert site["stop_reason"] == "finished"
    assert summary["rows"] == {"page": len(pages), "site": 1, "diagnostic": 3}
    assert summary["stop_reason"] == "finished"


@deferred_f_from_coro_f
async def test_links_site_is_crawled_breadth_first_to_max_depth(
    links_site: SiteServer, tmp_path: Path
) -> None:
    spec = expected("links")
    before = len(links_site.requests)
    # one request at a time, so the order rows are written is the order of fetching
    rows = await crawl(tmp_path, start=links_site.base_url + "/", max_concurrency="1")
    pages = by_type(rows, "page")
    got = {path_of(links_site, r["final_url"]): r["depth"] for r in pages}
    want = {p["path"]: p["depth"] for p in spec["pages"]}
    assert got == want
    assert max(got.values()) == 3
    assert pages[0]["discovered_via"] == "input"
    assert all(r["discovered_via"] == "link" for r in pages[1:])
    # shallowest first: depths never decrease in fetch order
    depths = [r["depth"] for r in pages]
    assert depths == sorted(depths)

    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "http-error" and diag["status_code"] == 404

    requested = [r.path for r in links_site.requests][before:]
    assert requested[0] == "/robots.txt", "robots.txt is read before anything else"
    # canonical dedup: tracking parameters, fragments and query order fold into one fetch
    assert sum(1 for p in requested if p.startswith("/b/compare.html")) == 1
    assert sum(1 for p in requested if p.startswith("/b/overview.html")) == 1
    for never in ("/static/app.css", "/img/logo.png", "/feed.xml", "/api/v1/items"):
        assert never not in requested
    summary = summary_of(tmp_path)
    too_deep = {
        path_of(links_site, r["url"]) for r in summary["rejected"] if r["reason"] == "max_depth"
    }
    assert "/a/one/two/three/" in too_deep
    assert "/a/one/two/three/" not in requested
    (site,) = by_type(rows, "site")
    assert site["discovery"] == "links" and site["sitemap_url_count"] == 0


@deferred_f_from_coro_f
async def test_page_budget_stops_the_site(basic_site: SiteServer, tmp_path: Path) -> None:
    # 5, not 3: the site's sitemap lists 3 URLs that give diagnostics, and max_pages of
    # those would stop it on failure_budget first when they happen to come first
    rows = await crawl(tmp_path, start=basic_site.base_url + "/", max_pages="5")
    assert len(by_type(rows, "page")) == 5
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "page_budget" and site["pages_extracted"] == 5
    summary = summary_of(tmp_path)
    assert summary["stop_reason"] == "page_budget"
    # what the budget left: queued URLs are listed as not fetched, and URLs already
    # sent when it stopped end as aborted rows naming it (issue 31: nothing without a
    # row); with 8 requests in flight either may take all of them
    aborted = [r for r in by_type(rows, "diagnostic") if r["error_type"] == "aborted"]
    assert all(r["error"].startswith("aborted: page budget") for r in aborted)
    assert summary["not_fetched_counts"].get("page_budget", 0) + len(aborted) >= 1


@deferred_f_from_coro_f
async def test_time_budget_ends_the_run_and_keeps_rows(
    serve_site: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "slow"
    root.mkdir()
    words = " ".join(f"word{i}" for i in range(60))
    links = "".join(f'<a href="/p{i}.html">p{i}</a>' for i in range(40))
    (root / "index.html").write_text(f"<html><body><p>{words}</p>{links}</body></html>")
    routes = {f"/p{i}.html": {"delay": 0.6, "body": f"<p>{words}</p>"} for i in range(40)}
    (root / "_routes.json").write_text(json.dumps(routes))
    server = serve_site(root)
    out = tmp_path / "out"
    out.mkdir()
    caplog.set_level("INFO", logger="webmd_spider")
    rows = await crawl(
        out,
        start=server.base_url + "/",
        max_run_secs="2",
        max_concurrency="2",
        max_pages="100",
        progress_secs="0.5",
    )
    assert any(r.getMessage().startswith("progress: ") for r in caplog.records)
    pages = by_type(rows, "page")
    assert 1 <= len(pages) < 41
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "time_budget"
    summary = summary_of(out)
    assert summary["stop_reason"] == "time_budget"
    # issue 16: the suite must hold on a busy machine, so the end of the run is checked
    # by what the server was asked, not by the run's time: fetching every leaf takes 12 s
    # (40 x 0.6 s, two at a time), and the 2 s budget dropped the leaves never asked for
    served = sum(server.hits(f"/p{i}.html") for i in range(40))
    not_fetched = summary["not_fetched_counts"].get("time_budget", 0)
    assert served < 40 and not_fetched >= 1
    # every leaf is a page row, a duplicate of one (their bodies are alike) or counted as
    # not fetched, once
    duplicates = summary["rejected_counts"].get("duplicate", 0)
    assert len(pages) - 1 + duplicates + not_fetched == 40


@deferred_f_from_coro_f
async def test_patterns_apply_to_discovered_urls_not_typed_ones(
    links_site: SiteServer, tmp_path: Path
) -> None:
    rows = await crawl(
        tmp_path,
        start=links_site.base_url + "/",
        exclude_patterns="*/b/*",
        include_patterns="/\\/(a|b|c)\\//",
    )
    paths = {path_of(links_site, r["final_url"]) for r in by_type(rows, "page")}
    assert "/" in paths, "the start URL is never filtered"
    assert not any(p.startswith("/b/") for p in paths)
    assert any(p.startswith("/a/") for p in paths)
    assert "/about.html" not in paths
    reasons = {r["reason"] for r in summary_of(tmp_path)["rejected"]}
    assert any("excluded" in r for r in reasons)


@deferred_f_from_coro_f
async def test_bad_pattern_is_a_diagnostic_row_not_a_crash(
    links_site: SiteServer, tmp_path: Path
) -> None:
    rows = await crawl(tmp_path, start=links_site.base_url + "/", exclude_patterns="/a(b/")
    (bad,) = [r for r in by_type(rows, "diagnostic") if r["error_type"] == "invalid-input"]
    assert "a(b" in bad["error"]
    assert len(by_type(rows, "page")) == 15


@deferred_f_from_coro_f
async def test_page_input_with_and_without_links(links_site: SiteServer, tmp_path: Path) -> None:
    alone = await crawl(tmp_path / "1", start=links_site.base_url + "/a/", crawl_links="false")
    assert [path_of(links_site, r["final_url"]) for r in by_type(alone, "page")] == ["/a/"]
    assert by_type(alone, "site")[0]["discovery"] == "list"
    followed = await crawl(tmp_path / "2", start=links_site.base_url + "/a/", max_depth="1")
    paths = {path_of(links_site, r["final_url"]) for r in by_type(followed, "page")}
    assert {"/a/", "/a/intro.html", "/a/one/"} <= paths
    assert by_type(followed, "page")[0]["discovered_via"] == "input"


@deferred_f_from_coro_f
async def test_bare_domain_walks_the_discovery_ladder(
    links_site: SiteServer, tmp_path: Path
) -> None:
    # https:// fails against a plain-HTTP server, so the probe falls through to http://.
    port = links_site.base_url.rsplit(":", 1)[1]
    rows = await crawl(tmp_path, start=f"localhost:{port}", max_pages="2")
    pages = by_type(rows, "page")
    assert len(pages) == 2
    assert all(r["final_url"].startswith(f"http://localhost:{port}/") for r in pages)
    (site,) = by_type(rows, "site")
    assert site["url"] == f"http://localhost:{port}/"


@deferred_f_from_coro_f
async def test_unreachable_site_gives_diagnostic_and_site_row(tmp_path: Path) -> None:
    rows = await crawl(tmp_path, start="http://127.0.0.1:9/")
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "unreachable"
    (site,) = by_type(rows, "site")
    assert site["stop_reason"] == "unreachable" and site["pages_extracted"] == 0


@deferred_f_from_coro_f
async def test_job_file_and_start_file(links_site: SiteServer, tmp_path: Path) -> None:
    start_file = tmp_path / "urls.txt"
    start_file.write_text(f"# one URL per line\n{links_site.base_url}/c/\n")
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"start_file": str(start_file), "crawl_links": False}))
    rows = await crawl(tmp_path, input=str(job))
    assert [path_of(links_site, r["final_url"]) for r in by_type(rows, "page")] == ["/c/"]


@deferred_f_from_coro_f
async def test_invalid_inputs_are_rows_and_nothing_fetchable_is_an_error(
    links_site: SiteServer, tmp_path: Path
) -> None:
    rows = await crawl(
        tmp_path, start=f"someone@example.com,{links_site.base_url}/c/", crawl_links="0"
    )
    bad = [r for r in by_type(rows, "diagnostic") if r["error_type"] == "invalid-input"]
    assert [r["input"] for r in bad] == ["someone@example.com"]
    assert len(by_type(rows, "page")) == 1
    with pytest.raises(OptionsError, match="nothing to crawl"):
        await crawl(tmp_path / "x", start="ftp://example.com/file")
    with pytest.raises(OptionsError, match="valid names"):
        await crawl(tmp_path / "y", start=links_site.base_url, max_pagez="3")


@deferred_f_from_coro_f
async def test_timeout_and_too_large_diagnostics(serve_site: Any, tmp_path: Path) -> None:
    root = tmp_path / "faults"
    root.mkdir()
    words = " ".join(f"word{i}" for i in range(40))
    links = '<a href="/slow.html">s</a><a href="/big.html">b</a>'
    (root / "index.html").write_text(f"<html><body><p>{words}</p>{links}</body></html>")
    (root / "big.html").write_text("<html><body><p>" + "big " * 5000 + "</p></body></html>")
    routes = {"/slow.html": {"delay": 3, "body": f"<p>{words}</p>"}}
    (root / "_routes.json").write_text(json.dumps(routes))
    server = serve_site(root)
    out = tmp_path / "out"
    out.mkdir()
    rows = await crawl(
        out,
        {"DOWNLOAD_TIMEOUT": 1, "RETRY_TIMES": 0, "DOWNLOAD_MAXSIZE": 8000},
        start=server.base_url + "/",
    )
    errors = {path_of(server, r["url"]): r["error_type"] for r in by_type(rows, "diagnostic")}
    assert errors == {"/slow.html": "timeout", "/big.html": "too-large"}
    assert len(by_type(rows, "page")) == 1


@deferred_f_from_coro_f
async def test_robots_5xx_blocks_the_site(serve_site: Any, tmp_path: Path) -> None:
    root = tmp_path / "robots5xx"
    root.mkdir()
    (root / "index.html").write_text("<p>" + "word " * 50 + "</p>")
    (root / "_routes.json").write_text(json.dumps({"/robots.txt": {"status": 503}}))
    server = serve_site(root)
    out = tmp_path / "out"
    out.mkdir()
    rows = await crawl(out, {"RETRY_TIMES": 0}, start=server.base_url + "/")
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "blocked" and diag["status_code"] == 503
    assert server.hits("/") == 0, "RFC 9309 §2.3.1.4: nothing is fetched"
    assert by_type(rows, "site")[0]["stop_reason"] == "robots_unavailable"


@deferred_f_from_coro_f
async def test_csv_export_is_a_rectangle(links_site: SiteServer, tmp_path: Path) -> None:
    out = tmp_path / "rows.csv"
    await crawl(
        tmp_path,
        {"FEEDS": {str(out): {"format": "csv"}}},
        start=links_site.base_url + "/a/",
        crawl_links="false",
    )
    with out.open(newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    assert table[0] == list(COLUMNS)
    assert len(table) == 3 and all(len(line) == len(COLUMNS) for line in table)


@deferred_f_from_coro_f
async def test_extraction_options_reach_the_rows(links_site: SiteServer, tmp_path: Path) -> None:
    rows = await crawl(
        tmp_path,
        start=links_site.base_url + "/b/",
        crawl_links="false",
        max_chars="200",
        include_html="true",
        keep_links="false",
    )
    (row,) = by_type(rows, "page")
    assert row["truncated"] is True and len(row["markdown"]) <= 200
    assert row["html"] and row["html"].lstrip().startswith("<")
    assert "](" not in row["markdown"]


@deferred_f_from_coro_f
async def test_extraction_in_worker_processes_gives_the_same_rows(
    basic_site: SiteServer, tmp_path: Path
) -> None:
    # (tests/offload/test_extract_pool.py checks this with every page extracted in the worker)
    here = await crawl(tmp_path / "here", {"WEBMD_EXTRACT_PROCESSES": 0}, start=basic_site.url("/"))
    pooled = await crawl(
        tmp_path / "pool", {"WEBMD_EXTRACT_PROCESSES": 1}, start=basic_site.url("/")
    )

    def pages(rows: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
        # keyed by final URL: which of two URLs of one page (a redirect and a direct
        # link) is written first depends on timing, in both modes
        return {
            r["final_url"]: (r["markdown"], r["text"], r["title"], r["content_hash"])
            for r in rows
            if r["row_type"] == "page"
        }

    assert pages(pooled) == pages(here) and len(pages(here)) >= 5
    assert len(pooled) == len(here)
