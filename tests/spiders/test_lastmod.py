"""Incremental recrawls that trust the sitemap's lastmod under a sample (issue 34), on
real local sites with counted requests: skipped pages are not requested, the sample is
taken, a site whose dates lie is caught and remembered, uniform and future dates are not
trusted, and pages whose date moved are fetched."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer

from ..crawling import by_type, crawl_with_stats, summary_of

Serve = Callable[[Path], SiteServer]

PAGES = 30


def page(title: str, words: str) -> str:
    prose = " ".join(f"{words} sentence {i} about {title.lower()}." for i in range(10))
    return (
        f"<html><head><title>{title}</title></head><body>"
        f"<main><h1>{title}</h1><p>{prose}</p></main></body></html>"
    )


def names() -> list[str]:
    return [f"p{i:02d}.html" for i in range(PAGES)]


def write_site(root: Path, lastmod: Callable[[str], str], words: str = "Text") -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.html").write_text(page("Home", "Welcome"), "utf-8")
    for name in names():
        (root / name).write_text(page(name.removesuffix(".html"), f"{words} of {name}"), "utf-8")
    write_sitemap(root, lastmod)


def write_sitemap(root: Path, lastmod: Callable[[str], str]) -> None:
    entries = "".join(
        f"<url><loc>/{name}</loc><lastmod>{lastmod(name)}</lastmod></url>"
        for name in ["", *names()]
    )
    (root / "sitemap.xml").write_text(
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>', "utf-8"
    )
    (root / "robots.txt").write_text("User-agent: *\nAllow: /\nSitemap: /sitemap.xml\n", "utf-8")


def old_dates(name: str) -> str:
    """Distinct dates, all long before any crawl of the test."""
    return f"2025-01-{1 + len(name) % 9 + sum(map(ord, name)) % 19:02d}"


def settings(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "WEBMD_INCREMENTAL": True,
        "WEBMD_STATE_DIR": str(tmp_path / "state"),
        "WEBMD_STATE": "site",
        "WEBMD_MAX_PAGES": 200,
        **extra,
    }


def page_requests(server: SiteServer) -> list[str]:
    return [r.path for r in server.requests if r.path.endswith((".html", "/"))]


def rows_by_evidence(rows: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in by_type(rows, "page"):
        key = f"{row['change']}:{row['change_evidence']}"
        counts[key] = counts.get(key, 0) + 1
    return counts


@deferred_f_from_coro_f
async def test_an_unchanged_site_is_read_from_its_sitemap_and_a_sample(
    serve_site: Serve, tmp_path: Path
) -> None:
    write_site(tmp_path / "site", old_dates)
    server = serve_site(tmp_path / "site")
    rows, _ = await crawl_with_stats(tmp_path / "r1", settings(tmp_path), start=server.url("/"))
    assert len(by_type(rows, "page")) == PAGES + 1

    server.clear_requests()
    rows, _ = await crawl_with_stats(tmp_path / "r2", settings(tmp_path), start=server.url("/"))
    # the sample: at least 5 (2 % of 31 is less), asked conditionally; nothing else
    requested = page_requests(server)
    assert len(requested) == 5 and len(set(requested)) == 5
    assert {r.status for r in server.requests if r.path in requested} == {304}
    assert rows_by_evidence(rows) == {
        "unchanged:sitemap-lastmod": PAGES + 1 - 5,
        "unchanged:not-modified": 5,
    }
    skipped = [r for r in by_type(rows, "page") if r["change_evidence"] == "sitemap-lastmod"]
    assert all(r["content_hash"].startswith("sha256:") and r["markdown"] is None for r in skipped)
    assert all(r["sitemap_lastmod"] for r in skipped)
    site = by_type(rows, "site")[0]
    assert site["lastmod_skipped"] == PAGES + 1 - 5 and site["lastmod_distrust"] is None


@deferred_f_from_coro_f
async def test_the_stored_links_of_skipped_pages_are_walked(
    serve_site: Serve, tmp_path: Path
) -> None:
    """A page only a skipped page links to (not in the sitemap) is still reached by that
    link, at that page's depth + 1, from the links the state stored for it: the skipped
    page is not fetched, and the linked one is not left to the orphan pass."""
    write_site(tmp_path / "site", old_dates)
    extra = page("Extra", "Only linked from p05")
    (tmp_path / "site" / "extra.html").write_text(extra, "utf-8")
    p05 = (tmp_path / "site" / "p05.html").read_text("utf-8")
    (tmp_path / "site" / "p05.html").write_text(
        p05.replace("</main>", "<p><a href='/extra.html'>More</a></p></main>"), "utf-8"
    )
    server = serve_site(tmp_path / "site")
    first, _ = await crawl_with_stats(tmp_path / "r1", settings(tmp_path), start=server.url("/"))
    depth = {r["url"]: r["depth"] for r in by_type(first, "page")}
    assert depth[server.url("/extra.html")] == depth[server.url("/p05.html")] + 1

    server.clear_requests()
    rows, _ = await crawl_with_stats(tmp_path / "r2", settings(tmp_path), start=server.url("/"))
    again = {r["url"]: r for r in by_type(rows, "page")}
    found = again[server.url("/extra.html")]
    # a known page is re-checked "from the state"; its depth is the link's (the orphan
    # pass would have asked it at max_depth)
    assert (found["discovered_via"], found["depth"]) == ("state", depth[server.url("/extra.html")])
    assert (found["change"], found["change_evidence"]) == ("unchanged", "not-modified")
    if "/p05.html" not in page_requests(server):  # p05 skipped on its date (not sampled)
        assert again[server.url("/p05.html")]["change_evidence"] == "sitemap-lastmod"
    assert page_requests(server).count("/extra.html") == 1


@deferred_f_from_coro_f
async def test_pages_whose_lastmod_moved_are_fetched_with_the_sample(
    serve_site: Serve, tmp_path: Path
) -> None:
    write_site(tmp_path / "site", old_dates)
    server = serve_site(tmp_path / "site")
    await crawl_with_stats(tmp_path / "r1", settings(tmp_path), start=server.url("/"))

    later = (datetime.now(UTC) + timedelta(seconds=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    edited = {"p03.html", "p17.html"}
    for name in edited:
        (tmp_path / "site" / name).write_text(page(name, "Edited words"), "utf-8")
    write_sitemap(tmp_path / "site", lambda n: later if n in edited else old_dates(n))
    server.clear_requests()
    rows, stats = await crawl_with_stats(tmp_path / "r2", settings(tmp_path), start=server.url("/"))
    changed = {r["url"].removeprefix(server.base_url) for r in by_type(rows, "page")}
    changed = {u for u in changed if any(u.endswith(n) for n in edited)}
    assert changed == {f"/{n}" for n in edited}
    assert rows_by_evidence(rows)["changed:content-hash"] == 2
    # the two, plus the sample of the pages the dates let us skip
    assert stats["webmd/extractions"] == 2
    assert len(page_requests(server)) == 2 + 5


@deferred_f_from_coro_f
async def test_a_site_whose_dates_lie_is_caught_by_the_sample_and_remembered(
    serve_site: Serve, tmp_path: Path
) -> None:
    write_site(tmp_path / "site", old_dates)
    server = serve_site(tmp_path / "site")
    await crawl_with_stats(tmp_path / "r1", settings(tmp_path), start=server.url("/"))

    # every page changes, the sitemap keeps its old dates
    write_site(tmp_path / "site", old_dates, words="Rewritten")
    rows, _ = await crawl_with_stats(tmp_path / "r2", settings(tmp_path), start=server.url("/"))
    pages = by_type(rows, "page")
    # no changed page is reported unchanged: the sample caught the lie first
    assert {r["change"] for r in pages if r["url"] != server.url("/")} == {"changed"}
    assert not any(r["change_evidence"] == "sitemap-lastmod" for r in pages)
    site = by_type(rows, "site")[0]
    assert "changed although its sitemap lastmod" in site["lastmod_distrust"]
    assert any("sitemap lastmod not trusted" in w for w in summary_of(tmp_path / "r2")["warnings"])

    # the next run remembers: every page is asked (conditionally), none skipped
    server.clear_requests()
    rows, _ = await crawl_with_stats(tmp_path / "r3", settings(tmp_path), start=server.url("/"))
    assert len(page_requests(server)) == PAGES + 1
    assert rows_by_evidence(rows) == {"unchanged:not-modified": PAGES + 1}
    assert by_type(rows, "site")[0]["lastmod_distrust"] == site["lastmod_distrust"]


@deferred_f_from_coro_f
async def test_uniform_or_future_dates_are_not_trusted(serve_site: Serve, tmp_path: Path) -> None:
    write_site(tmp_path / "site", lambda _: "2025-03-01")
    server = serve_site(tmp_path / "site")
    await crawl_with_stats(tmp_path / "r1", settings(tmp_path), start=server.url("/"))
    server.clear_requests()
    rows, _ = await crawl_with_stats(tmp_path / "r2", settings(tmp_path), start=server.url("/"))
    assert len(page_requests(server)) == PAGES + 1  # a build stamp: every page asked
    assert "every one of its" in by_type(rows, "site")[0]["lastmod_distrust"]

    future = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%d")
    write_sitemap(tmp_path / "site", lambda n: future if n == "p05.html" else old_dates(n))
    other = settings(tmp_path, WEBMD_STATE="other")
    await crawl_with_stats(tmp_path / "r3", other, start=server.url("/"))
    server.clear_requests()
    rows, _ = await crawl_with_stats(tmp_path / "r4", other, start=server.url("/"))
    asked = page_requests(server)
    assert "/p05.html" in asked and len(asked) == 1 + 5
    lastmod_rows = [r for r in by_type(rows, "page") if r["change_evidence"] == "sitemap-lastmod"]
    assert len(lastmod_rows) == PAGES - 5


@deferred_f_from_coro_f
async def test_never_asks_every_page_and_a_removed_page_is_confirmed(
    serve_site: Serve, tmp_path: Path
) -> None:
    write_site(tmp_path / "site", old_dates)
    server = serve_site(tmp_path / "site")
    await crawl_with_stats(tmp_path / "r1", settings(tmp_path), start=server.url("/"))
    (tmp_path / "site" / "p09.html").unlink()
    write_sitemap(tmp_path / "site", old_dates)  # still listed: asked, 404, removed
    (tmp_path / "site" / "sitemap.xml").write_text(
        (tmp_path / "site" / "sitemap.xml")
        .read_text("utf-8")
        .replace(
            "<url><loc>/p10.html</loc><lastmod>" + old_dates("p10.html") + "</lastmod></url>", ""
        ),
        "utf-8",
    )  # p10 is no longer listed: asked once, still there, kept
    server.clear_requests()
    rows, _ = await crawl_with_stats(
        tmp_path / "r2", settings(tmp_path, WEBMD_TRUST_LASTMOD="never"), start=server.url("/")
    )
    assert len(page_requests(server)) == PAGES + 1
    changes = {r["url"].removeprefix(server.base_url): r["change"] for r in rows if r["url"]}
    assert changes["/p09.html"] == "removed" and changes["/p10.html"] == "unchanged"
    assert not any(r["change_evidence"] == "sitemap-lastmod" for r in by_type(rows, "page"))


@deferred_f_from_coro_f
async def test_emit_unchanged_false_writes_only_changes_and_still_counts(
    serve_site: Serve, tmp_path: Path
) -> None:
    write_site(tmp_path / "site", old_dates)
    server = serve_site(tmp_path / "site")
    quiet = settings(tmp_path, WEBMD_EMIT_UNCHANGED=False)
    await crawl_with_stats(tmp_path / "r1", quiet, start=server.url("/"))
    (tmp_path / "site" / "p04.html").write_text(page("p04", "Edited words"), "utf-8")
    later = (datetime.now(UTC) + timedelta(seconds=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    write_sitemap(tmp_path / "site", lambda n: later if n == "p04.html" else old_dates(n))
    rows, _ = await crawl_with_stats(tmp_path / "r2", quiet, start=server.url("/"))
    pages = by_type(rows, "page")
    assert [(r["url"], r["change"]) for r in pages] == [(server.url("/p04.html"), "changed")]
    summary = summary_of(tmp_path / "r2")
    assert summary["rows"]["page"] == PAGES + 1  # counted, not written
    assert by_type(rows, "site")[0]["pages_extracted"] == PAGES + 1


@deferred_f_from_coro_f
async def test_a_jobdir_run_classifies_pages_as_a_single_run_does(
    serve_site: Serve, tmp_path: Path
) -> None:
    """A resumable run (JOBDIR) does not hold pages back on their lastmod (a held page
    could be lost to a kill): every known page is asked, and each page's change is what
    a single run reports."""
    write_site(tmp_path / "site", old_dates)
    server = serve_site(tmp_path / "site")
    for state in ("single", "jobdir"):
        await crawl_with_stats(
            tmp_path / f"first-{state}",
            settings(tmp_path, WEBMD_STATE=state),
            start=server.url("/"),
        )
    (tmp_path / "site" / "p07.html").write_text(page("p07", "Edited words"), "utf-8")
    later = (datetime.now(UTC) + timedelta(seconds=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    write_sitemap(tmp_path / "site", lambda n: later if n == "p07.html" else old_dates(n))
    single, _ = await crawl_with_stats(
        tmp_path / "single", settings(tmp_path, WEBMD_STATE="single"), start=server.url("/")
    )
    server.clear_requests()
    resumable, _ = await crawl_with_stats(
        tmp_path / "jobdir",
        settings(tmp_path, WEBMD_STATE="jobdir", JOBDIR=str(tmp_path / "job")),
        start=server.url("/"),
    )
    assert len(page_requests(server)) == PAGES + 1
    changes = {r["url"]: r["change"] for r in by_type(single, "page")}
    assert changes == {r["url"]: r["change"] for r in by_type(resumable, "page")}
    assert changes[server.url("/p07.html")] == "changed"
    assert set(changes.values()) == {"changed", "unchanged"}
