"""Crawl edge cases on small sites built per test: budgets with delays, odd sitemaps,
redirects that leave scope, robots failures, depth races."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from scrapy import Request, signals
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.downloadermiddlewares.budget import BUDGET_SLACK_SECS
from webmd_spider.spiders.clock import STOP_GRACE_SECS
from webmd_spider.spiders.site import SiteSpider

from ..crawling import by_type, crawl, project_settings, prose_page, read_rows, summary_of, urlset
from ..crawling import write_site as build

WORDS = " ".join(f"w{i}" for i in range(40))
Serve = Callable[[Path], SiteServer]


def page(*links: str) -> str:
    anchors = "".join(f'<a href="{link}">{link}</a>' for link in links)
    return f"<html><body><p>{WORDS}</p>{anchors}</body></html>"


def index(*locs: str) -> str:
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return (
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</sitemapindex>'
    )


def paths(server: SiteServer, rows: list[dict[str, Any]], row_type: str = "page") -> list[str]:
    return [
        (r["final_url"] or r["url"]).removeprefix(server.base_url) for r in by_type(rows, row_type)
    ]


@deferred_f_from_coro_f
async def test_time_budget_drops_requests_waiting_for_a_download_delay(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = build(tmp_path / "s", {f"p{i}.html": page() for i in range(20)})
    server = serve_site(site)
    starts = ",".join(f"{server.base_url}/p{i}.html" for i in range(20))
    # robots.txt at 0 s, then one page every 1.2 s: two or three pages before the budget
    slow = {"DOWNLOAD_DELAY": 1.2, "DOWNLOAD_DELAY_JITTER": 0}
    rows = await crawl(tmp_path, slow, start=starts, max_run_secs="3")
    assert 1 <= len(by_type(rows, "page")) <= 3
    # the requests waiting for their delay were dropped at the budget, not sent one by
    # one through its grace: the server saw only the pages sent before it (counted, not
    # timed: issue 16, the suite must hold on a busy machine)
    assert sum(server.hits(f"/p{i}.html") for i in range(20)) <= 3
    (site_row,) = by_type(rows, "site")
    assert site_row["stop_reason"] == "time_budget"
    summary = summary_of(tmp_path)
    # every typed URL is a row or a counted not-fetched entry
    assert len(by_type(rows, "page")) + summary["not_fetched_counts"]["time_budget"] == 20


@deferred_f_from_coro_f
async def test_sitemap_index_listing_a_child_twice_and_itself(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = build(
        tmp_path / "s",
        {
            "index.html": page("/a.html"),
            "a.html": page(),
            "sitemap.xml": index("{{origin}}/sitemap.xml", "/child.xml", "/child.xml"),
            "child.xml": urlset("/a.html", "/"),
        },
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    assert sorted(paths(server, rows)) == ["/", "/a.html"]
    (site_row,) = by_type(rows, "site")
    assert site_row["discovery"] == "sitemap" and site_row["sitemap_url_count"] == 2
    assert server.hits("/child.xml") == 1
    reasons = [r["reason"] for r in summary_of(tmp_path)["rejected"]]
    assert reasons.count("duplicate_sitemap") == 2


@deferred_f_from_coro_f
async def test_three_levels_of_sitemap_indexes(serve_site: Serve, tmp_path: Path) -> None:
    site = build(
        tmp_path / "s",
        {
            "index.html": prose_page("Home"),  # the start page is read too (issue 16)
            "p.html": page(),
            "robots.txt": "User-agent: *\nAllow: /\nSitemap: {{origin}}/i0.xml\n",
            "i0.xml": index("/i1.xml"),
            "i1.xml": index("/i2.xml"),
            "i2.xml": index("/u.xml"),
            "u.xml": urlset("/p.html"),
        },
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    assert sorted(paths(server, rows)) == ["/", "/p.html"]
    assert by_type(rows, "site")[0]["discovery"] == "sitemap"


@deferred_f_from_coro_f
async def test_empty_guessed_sitemap_falls_back_to_links(serve_site: Serve, tmp_path: Path) -> None:
    site = build(
        tmp_path / "s",
        {"index.html": page("/a.html"), "a.html": page(), "sitemap_index.xml": urlset()},
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    assert sorted(paths(server, rows)) == ["/", "/a.html"]
    assert by_type(rows, "site")[0]["discovery"] == "links"
    for guess in ("/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml"):
        assert server.hits(guess) == 1


#: Javadoc 17's index.html: a script redirect, a refresh inside <noscript>, and a link.
REDIRECT_PAGE = (
    '<html><head><title>Java SE 17</title><meta name="generator" '
    'content="javadoc/IndexRedirectWriter"><script>window.location.replace('
    "'api/module-summary.html')</script><noscript><meta http-equiv=\"Refresh\" "
    'content="0;api/module-summary.html"></noscript></head><body><main><noscript>'
    "<p>JavaScript is disabled on your browser.</p></noscript><p><a href="
    '"api/module-summary.html">api/module-summary.html</a></p></main></body></html>'
)


@deferred_f_from_coro_f
async def test_a_script_redirect_page_is_empty_but_its_links_are_followed(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = build(
        tmp_path / "s",
        {"index.html": REDIRECT_PAGE, "api/module-summary.html": prose_page("Module java.base")},
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/", discovery="links")
    assert paths(server, rows) == ["/api/module-summary.html"]
    (empty,) = [r for r in by_type(rows, "diagnostic") if r["error_type"] == "empty"]
    assert empty["url"] == server.base_url + "/"
    assert server.hits("/api/module-summary.html") == 1


@deferred_f_from_coro_f
async def test_redirects_are_checked_against_robots_and_scope(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = build(
        tmp_path / "s",
        {
            "index.html": page("/go", "/out"),
            "robots.txt": "User-agent: *\nDisallow: /private/\n",
            "private/x.html": page(),
        },
        routes={
            "/go": {"status": 302, "location": "/private/x.html"},
            "/out": {"status": 302, "location": "http://localhost:1/elsewhere.html"},
        },
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    assert paths(server, rows) == ["/"]
    assert server.hits("/private/x.html") == 0
    reasons = {
        r["url"].removeprefix(server.base_url): r["reason"]
        for r in summary_of(tmp_path)["rejected"]
    }
    assert reasons["/go"].startswith("robots")
    (out,) = by_type(rows, "diagnostic")
    assert out["url"] == server.url("/out") and out["error_type"] == "blocked"
    assert out["error"] == "offsite redirect to http://localhost:1/elsewhere.html"
    assert by_type(rows, "site")[0]["robots_blocked"] == 1


@deferred_f_from_coro_f
async def test_page_inputs_get_rows_when_their_site_is_unreachable(tmp_path: Path) -> None:
    rows = await crawl(tmp_path, start="http://127.0.0.1:9/a.html http://127.0.0.1:9/b.html")
    urls = {r["url"] for r in by_type(rows, "diagnostic")}
    assert {"http://127.0.0.1:9/a.html", "http://127.0.0.1:9/b.html"} <= urls
    assert all(r["error_type"] == "unreachable" for r in by_type(rows, "diagnostic"))


@deferred_f_from_coro_f
async def test_typed_url_disallowed_by_robots_is_a_blocked_row(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = build(
        tmp_path / "s",
        {"robots.txt": "User-agent: *\nDisallow: /private/\n", "private/a.html": page()},
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/private/a.html")
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "blocked" and diag["url"].endswith("/private/a.html")
    assert server.hits("/private/a.html") == 0


@deferred_f_from_coro_f
async def test_a_shallower_path_rescues_a_page_first_found_too_deep(
    serve_site: Serve, tmp_path: Path
) -> None:
    # The fast chain b -> c -> d finds x at depth 4 first; the slow page a finds it at 2.
    site = build(
        tmp_path / "s",
        {
            "index.html": page("/a.html", "/b.html"),
            "b.html": page("/c.html"),
            "c.html": page("/d.html"),
            "d.html": page("/x.html"),
            "x.html": page(),
        },
        routes={"/a.html": {"delay": 1.5, "body": page("/x.html")}},
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/", max_depth="3")
    depth = {p: r["depth"] for p, r in zip(paths(server, rows), by_type(rows, "page"), strict=True)}
    assert depth["/x.html"] == 2
    assert not any(r["reason"] == "max_depth" for r in summary_of(tmp_path)["rejected"])


@deferred_f_from_coro_f
async def test_redirect_chain_too_long_is_an_http_error(serve_site: Serve, tmp_path: Path) -> None:
    routes = {f"/r{i}": {"status": 302, "location": f"/r{i + 1}"} for i in range(15)}
    site = build(tmp_path / "s", {"index.html": page("/r0")}, routes=routes)
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    (diag,) = by_type(rows, "diagnostic")
    assert diag["error_type"] == "http-error" and "redirects" in diag["error"]


@deferred_f_from_coro_f
async def test_a_hanging_server_cannot_hold_the_end_of_the_run(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = build(
        tmp_path / "s",
        {"index.html": page("/hang.html", "/ok.html"), "ok.html": page()},
        routes={"/hang.html": {"delay": 40, "body": page()}},
    )
    server = serve_site(site)
    runner = AsyncCrawlerRunner(
        project_settings(FEEDS={str(tmp_path / "rows.jsonl"): {"format": "jsonl"}})
    )
    crawler = runner.create_crawler(SiteSpider)
    timeouts: dict[str, float] = {}

    def reached(request: Request) -> None:
        timeouts[request.url.removeprefix(server.base_url)] = request.meta["download_timeout"]

    crawler.signals.connect(reached, signal=signals.request_reached_downloader)
    await runner.crawl(crawler, start=server.base_url + "/", max_run_secs="2")
    rows = read_rows(tmp_path / "rows.jsonl")
    assert {p for p in paths(server, rows)} == {"/", "/ok.html"}
    (site_row,) = by_type(rows, "site")
    assert site_row["stop_reason"] == "time_budget"
    # the end comes within seconds of the budget, not after DOWNLOAD_TIMEOUT (which alone
    # would hold the run past the budget and its grace): checked by the timeout the
    # download was given, not by the run's time (issue 16: the suite must hold on a busy
    # machine)
    assert crawler.settings.getfloat("DOWNLOAD_TIMEOUT") > 2 + STOP_GRACE_SECS
    assert timeouts["/hang.html"] <= 2 + BUDGET_SLACK_SECS
    assert server.hits("/hang.html") == 0  # never answered: given up, not waited for
    # it was sent: a row naming the stop, not a not-fetched entry (issue 31)
    (hang,) = [r for r in rows if r["url"] == server.url("/hang.html")]
    assert hang["error_type"] == "aborted" and hang["error"].startswith("aborted: time budget")
    assert server.url("/hang.html") not in [e["url"] for e in summary_of(tmp_path)["not_fetched"]]


@deferred_f_from_coro_f
async def test_an_unavailable_robots_txt_is_asked_again(serve_site: Serve, tmp_path: Path) -> None:
    robots_then_ok = [{"status": 500}, {"body": "User-agent: *\nDisallow: /private/\n"}]
    site = build(
        tmp_path / "s",
        {
            "index.html": page("/a.html", "/private/x.html"),
            "a.html": page(),
            "private/x.html": page(),
        },
        routes={"/robots.txt": robots_then_ok},
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, {"RETRY_TIMES": 0}, start=server.base_url + "/")
    assert sorted(paths(server, rows)) == ["/", "/a.html"]
    assert server.hits("/robots.txt") == 2 and server.hits("/private/x.html") == 0
    assert not by_type(rows, "diagnostic")
    warnings = summary_of(tmp_path)["warnings"]
    assert any("asking again" in w for w in warnings), warnings


@deferred_f_from_coro_f
async def test_robots_redirects_are_followed_five_hops_only(
    serve_site: Serve, tmp_path: Path
) -> None:
    hops = {f"/r{i}.txt": {"status": 301, "location": f"/r{i + 1}.txt"} for i in range(6)}
    hops["/robots.txt"] = {"status": 301, "location": "/r0.txt"}
    hops["/r6.txt"] = {"body": "User-agent: *\nDisallow: /\n", "content_type": "text/plain"}
    site = build(tmp_path / "s", {"index.html": page("/a.html"), "a.html": page()}, routes=hops)
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    # seven hops to the file: past five the file counts as unavailable (allow all)
    assert server.hits("/r6.txt") == 0 and server.hits("/r4.txt") == 1
    assert sorted(paths(server, rows)) == ["/", "/a.html"]


@deferred_f_from_coro_f
async def test_sitemap_url_count_counts_pages_a_link_found_first(
    serve_site: Serve, tmp_path: Path
) -> None:
    # issue 15: the count was that of sitemap pages not yet seen through a link, so it
    # changed with how fast pages came in (1113, 1148, 1139 of 1,169 in three runs)
    site = build(
        tmp_path / "s",
        {
            "index.html": page(),
            "p1.html": prose_page("One", "/p2.html", "/p3.html"),
            "p2.html": prose_page("Two"),
            "p3.html": prose_page("Three"),
            "sitemap.xml": index("/a.xml", "/b.xml"),
            "a.xml": urlset("/p1.html"),
            "b.xml": urlset("/p2.html", "/p3.html"),
        },
        # b.xml answers after p1.html has been fetched and its links scheduled
        routes={"/b.xml": {"file": "b.xml", "delay": 1.5}},
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    assert sorted(paths(server, rows)) == ["/", "/p1.html", "/p2.html", "/p3.html"]
    (site_row,) = by_type(rows, "site")
    assert site_row["sitemap_url_count"] == 3


@deferred_f_from_coro_f
async def test_short_real_pages_are_thin_page_rows(serve_site: Serve, tmp_path: Path) -> None:
    # issue 16: pages of 5, 6 or 17 words (a contact page, a page that recovered after a
    # 503) were "empty" diagnostics; only a JavaScript shell is
    site = build(
        tmp_path / "s",
        {
            "index.html": prose_page("Home", "/contact.html", "/status.html", "/app.html"),
            "contact.html": "<html><body><h1>Contact</h1><p>Call 0123 456 789.</p></body></html>",
            "status.html": "<html><body><p>All systems operational.</p></body></html>",
            "app.html": "<html><body><div id='app'></div><script src='/a.js'></script></body>",
        },
        routes={"/status.html": [{"status": 503}, {"file": "status.html"}]},
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    pages = {r["url"].removeprefix(server.base_url): r for r in by_type(rows, "page")}
    assert pages["/contact.html"]["thin"] is True and pages["/status.html"]["thin"] is True
    assert pages["/"]["thin"] is False
    (shell,) = [r for r in by_type(rows, "diagnostic") if r["url"].endswith("/app.html")]
    assert shell["error_type"] == "empty" and "JavaScript shell" in shell["error"]


@deferred_f_from_coro_f
async def test_a_typed_site_root_listed_in_the_sitemap_is_never_filtered(
    serve_site: Serve, tmp_path: Path
) -> None:
    # issue 16 item 9: in sitemap mode, start=http://host/ with include patterns rejected
    # "/" as "not matched by any include pattern", and the start page got no row
    site = build(
        tmp_path / "s",
        {
            "index.html": prose_page("Home", "/library/a.html"),
            "library/a.html": prose_page("Library A"),
            "other.html": prose_page("Other"),
            "sitemap.xml": urlset("/", "/library/a.html", "/other.html"),
        },
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/", include_patterns="*/library/*")
    assert sorted(paths(server, rows)) == ["/", "/library/a.html"]
    reasons = {
        r["url"].removeprefix(server.base_url): r["reason"]
        for r in summary_of(tmp_path)["rejected"]
    }
    assert "/" not in reasons and "/other.html" in reasons


@deferred_f_from_coro_f
async def test_links_not_followed_for_nofollow_are_counted(
    serve_site: Serve, tmp_path: Path
) -> None:
    # issue 16 item 10: every discovered URL is a row or a counted rejection
    marked = '<a rel="nofollow" href="/n1.html">1</a><a rel="nofollow ugc" href="/n2.html">2</a>'
    quiet = prose_page("Quiet", "/q1.html", "/q2.html").replace(
        "<head>", '<head><meta name="robots" content="nofollow">'
    )
    site = build(
        tmp_path / "s",
        {
            "index.html": prose_page("Home", "/quiet.html").replace("</ul>", f"</ul>{marked}"),
            "quiet.html": quiet,
            "n1.html": prose_page("N1"),
            "n2.html": prose_page("N2"),
            "q1.html": prose_page("Q1"),
            "q2.html": prose_page("Q2"),
        },
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    assert sorted(paths(server, rows)) == ["/", "/quiet.html"]
    summary = summary_of(tmp_path)
    assert summary["rejected_counts"]["nofollow"] == 4  # 2 rel=nofollow, 2 under meta nofollow
    refused = {r["url"].removeprefix(server.base_url) for r in summary["rejected"]}
    assert {"/q1.html", "/q2.html"} <= refused


@deferred_f_from_coro_f
async def test_a_link_with_encoded_dot_segments_is_fetched_without_them(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = build(
        tmp_path / "s",
        {
            "index.html": prose_page("Home", "/%2e%2e/%2e%2e/p.html"),
            "p.html": prose_page("P"),
        },
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    assert sorted(paths(server, rows)) == ["/", "/p.html"]
    assert not any(".." in r.path or "%2e" in r.path.lower() for r in server.requests)


@deferred_f_from_coro_f
async def test_undeclared_legacy_encodings_and_octet_stream_html_are_read(
    serve_site: Serve, tmp_path: Path
) -> None:
    # issue 16 item 6: a windows-1251 page with no charset anywhere was mojibake, and an
    # HTML page served as application/octet-stream was a not-html row
    russian = (
        "<html><head><title>Новости</title></head><body><main><h1>Новости</h1><p>Это "
        "обычная страница на русском языке, в ней нет объявления кодировки. Мы проверяем, "
        "что текст читается правильно, слово за словом.</p></main></body></html>"
    )
    site = build(
        tmp_path / "s",
        {"index.html": page("/ru", "/octet"), "ru.bin": "", "octet.bin": prose_page("Octet")},
        routes={
            "/ru": {"file": "ru.bin", "content_type": "text/html"},
            "/octet": {"file": "octet.bin", "content_type": "application/octet-stream"},
        },
    )
    (site / "ru.bin").write_bytes(russian.encode("windows-1251"))
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/")
    pages = {r["url"].removeprefix(server.base_url): r for r in by_type(rows, "page")}
    assert pages["/ru"]["title"] == "Новости"
    assert "на русском языке" in pages["/ru"]["text"]
    assert pages["/octet"]["content_type"] == "application/octet-stream"
    assert pages["/octet"]["notes"] == [
        "served as application/octet-stream; the body is an HTML document, read as HTML"
    ]
    assert pages["/ru"]["notes"] is None
    assert pages["/octet"]["title"] == "Octet"
    warnings = summary_of(tmp_path)["warnings"]
    assert any("served as application/octet-stream" in w and "/octet" in w for w in warnings)
