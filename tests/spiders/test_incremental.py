"""Incremental recrawls against real local servers: conditional requests and 304s,
content-hash comparison, tombstones for removed pages, budget order, settings changes
and an unusable store."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer
from webmd_spider.state.backends import open_store

from ..crawling import by_type, crawl_with_stats, summary_of

Serve = Callable[[Path], SiteServer]


def article(title: str, body: str, *links: str) -> str:
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    prose = " ".join(f"{body} sentence {i} about the {title.lower()} topic." for i in range(12))
    return (
        f"<html><head><title>{title}</title></head><body>"
        f"<nav><ul>{anchors}</ul></nav>"
        f"<main><h1>{title}</h1><p>{prose}</p></main>"
        f"<footer>Rendered at a different time on every request? No: static.</footer>"
        "</body></html>"
    )


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def make_site(root: Path, pages: list[str]) -> None:
    """A link-crawled site: the home page links every page."""
    links = [f"/{name}" for name in pages]
    files = {"index.html": article("Home", "Welcome", *links)}
    for name in pages:
        files[name] = article(name.removesuffix(".html").title(), f"Text of {name}", "/")
    write(root, files)


def incremental(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {
        "WEBMD_INCREMENTAL": True,
        "WEBMD_STATE_DIR": str(tmp_path / "state"),
        "WEBMD_STATE": "testsite",
        **extra,
    }


def changes(rows: list[dict[str, Any]], server: SiteServer) -> dict[str, str]:
    return {
        r["url"].removeprefix(server.base_url): r["change"]
        for r in rows
        if r["row_type"] != "site" and r["url"]
    }


def page_requests(server: SiteServer) -> list[tuple[str, int]]:
    return [
        (r.path, r.status)
        for r in server.requests
        if r.path.endswith((".html", "/")) and "robots" not in r.path
    ]


@deferred_f_from_coro_f
async def test_second_run_is_all_unchanged_304s_without_extraction(
    serve_site: Serve, tmp_path: Path
) -> None:
    make_site(tmp_path / "site", ["a.html", "b.html", "c.html"])
    server = serve_site(tmp_path / "site")
    settings = incremental(tmp_path)
    rows, stats = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    assert changes(rows, server) == {
        "/": "new",
        "/a.html": "new",
        "/b.html": "new",
        "/c.html": "new",
    }
    assert stats["webmd/extractions"] == 4
    assert all(r["content_hash"].startswith("sha256:") for r in by_type(rows, "page"))
    first_hashes = {r["url"]: r["content_hash"] for r in by_type(rows, "page")}

    server.clear_requests()
    rows, stats = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    pages = by_type(rows, "page")
    assert {r["change"] for r in pages} == {"unchanged"} and len(pages) == 4
    assert stats.get("webmd/extractions", 0) == 0
    assert all(r["markdown"] is None and r["text"] is None for r in pages)
    assert {r["url"]: r["content_hash"] for r in pages} == first_hashes
    # every page was asked conditionally and the server answered 304 every time
    answered = page_requests(server)
    assert len(answered) == 4 and {status for _, status in answered} == {304}
    sent = [r for r in server.requests if r.path.endswith(".html")]
    assert all("If-None-Match" in r.headers for r in sent)
    # known pages come back through the state
    assert {r["discovered_via"] for r in pages if r["url"] != server.url("/")} == {"state"}


@deferred_f_from_coro_f
async def test_one_changed_and_one_removed_page(serve_site: Serve, tmp_path: Path) -> None:
    site = tmp_path / "site"
    make_site(site, ["a.html", "b.html", "c.html"])
    server = serve_site(site)
    settings = incremental(tmp_path)
    await crawl_with_stats(tmp_path, settings, start=server.url("/"))

    write(site, {"a.html": article("A", "Rewritten text of a.html", "/")})
    (site / "b.html").unlink()
    rows, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    got = changes(rows, server)
    assert got == {
        "/": "unchanged",
        "/a.html": "changed",
        "/b.html": "removed",
        "/c.html": "unchanged",
    }
    removed = [r for r in rows if r["change"] == "removed"]
    assert removed[0]["row_type"] == "diagnostic" and removed[0]["status_code"] == 404
    changed = next(r for r in rows if r["change"] == "changed")
    assert "Rewritten text" in changed["markdown"]

    # the removed page left the state: the home page still links it, so a third run
    # reports a plain 404 (no second tombstone)
    rows, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    got = changes(rows, server)
    assert got.pop("/b.html") is None
    assert set(got.values()) == {"unchanged"}


@deferred_f_from_coro_f
async def test_without_validators_the_content_hash_decides(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    make_site(site, ["a.html", "b.html"])
    with SiteServer(site, validators=False) as server:
        settings = incremental(tmp_path)
        await crawl_with_stats(tmp_path, settings, start=server.url("/"))
        # only the chrome changes: not a change of the page
        text = (site / "a.html").read_text().replace("No: static.", "Yes: 12:01:07.")
        write(site, {"a.html": text})
        server.clear_requests()
        rows, stats = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    assert {r["change"] for r in by_type(rows, "page")} == {"unchanged"}
    assert {status for _, status in page_requests(server)} == {200}
    assert stats["webmd/extractions"] == 3


@deferred_f_from_coro_f
async def test_new_pages_are_fetched_before_known_ones_within_the_budget(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    make_site(site, ["a.html", "b.html", "c.html", "d.html"])
    server = serve_site(site)
    settings = incremental(tmp_path, WEBMD_MAX_PAGES=5, CONCURRENT_REQUESTS=1)
    await crawl_with_stats(tmp_path, settings, start=server.url("/"))

    make_site(site, ["a.html", "b.html", "c.html", "d.html", "new1.html", "new2.html"])
    rows, _ = await crawl_with_stats(
        tmp_path, {**settings, "WEBMD_MAX_CONCURRENCY": 1}, start=server.url("/")
    )
    got = changes(rows, server)
    pages = by_type(rows, "page")
    assert len(pages) == 5  # the budget still holds
    # the home page changed (two new links); both new pages made it in, re-checks took the rest
    assert got["/new1.html"] == "new" and got["/new2.html"] == "new"
    assert sum(1 for r in pages if r["discovered_via"] == "state") == 2


@deferred_f_from_coro_f
async def test_changed_extraction_settings_convert_every_page_again(
    serve_site: Serve, tmp_path: Path
) -> None:
    make_site(tmp_path / "site", ["a.html"])
    server = serve_site(tmp_path / "site")
    await crawl_with_stats(tmp_path, incremental(tmp_path), start=server.url("/"))
    server.clear_requests()
    _, stats = await crawl_with_stats(
        tmp_path, incremental(tmp_path, WEBMD_KEEP_LINKS=False), start=server.url("/")
    )
    assert stats["webmd/extractions"] == 2
    assert {status for _, status in page_requests(server)} == {200}
    assert not any("If-None-Match" in r.headers for r in server.requests)
    warnings = summary_of(tmp_path)["warnings"]
    assert any("other extraction or chunk settings" in w for w in warnings)


@deferred_f_from_coro_f
async def test_changed_chunk_options_rechunk_every_page(serve_site: Serve, tmp_path: Path) -> None:
    # issue 15: a rerun with chunk_tokens=300 instead of 400 gave "unchanged" rows with
    # no chunks and no warning
    make_site(tmp_path / "site", ["a.html", "b.html"])
    server = serve_site(tmp_path / "site")
    first, _ = await crawl_with_stats(
        tmp_path, incremental(tmp_path, WEBMD_CHUNK_TOKENS=400), start=server.url("/")
    )
    assert all(r["chunks"] for r in by_type(first, "page"))
    again, _ = await crawl_with_stats(
        tmp_path, incremental(tmp_path, WEBMD_CHUNK_TOKENS=400), start=server.url("/")
    )
    assert set(changes(again, server).values()) == {"unchanged"}
    rows, stats = await crawl_with_stats(
        tmp_path, incremental(tmp_path, WEBMD_CHUNK_TOKENS=300), start=server.url("/")
    )
    pages = by_type(rows, "page")
    assert len(pages) == 3 and {r["change"] for r in pages} == {"changed"}
    assert all(r["chunks"] and r["markdown"] for r in pages)
    assert stats["webmd/extractions"] == 3
    warnings = summary_of(tmp_path)["warnings"]
    assert any("chunked again" in w for w in warnings)


@deferred_f_from_coro_f
async def test_a_damaged_store_warns_and_treats_every_page_as_new(
    serve_site: Serve, tmp_path: Path
) -> None:
    make_site(tmp_path / "site", ["a.html"])
    server = serve_site(tmp_path / "site")
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    (state_dir / "testsite.sqlite").write_bytes(b"this is not a database" * 100)
    rows, _ = await crawl_with_stats(tmp_path, incremental(tmp_path), start=server.url("/"))
    assert {r["change"] for r in by_type(rows, "page")} == {"new"}
    assert len(by_type(rows, "page")) == 2
    assert any("every page is treated as new" in w for w in summary_of(tmp_path)["warnings"])


@deferred_f_from_coro_f
async def test_a_page_now_disallowed_by_robots_is_removed(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    make_site(site, ["a.html", "private.html"])
    server = serve_site(site)
    settings = incremental(tmp_path)
    await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    write(site, {"robots.txt": "User-agent: *\nDisallow: /private.html\n"})
    rows, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    removed = [r for r in rows if r["change"] == "removed"]
    assert [r["url"] for r in removed] == [server.url("/private.html")]
    assert removed[0]["error_type"] == "blocked"
    with open_store("sqlite", tmp_path / "state", "testsite") as store:
        assert store.get(server.url("/private.html")) is None
        assert store.get(server.url("/a.html")) is not None


def test_state_is_shared_by_name_and_derived_otherwise(tmp_path: Path) -> None:
    # job names are files in the state dir: a derived one is readable and stable
    from webmd_spider.state.store import job_key

    key = job_key(["https://www.example.com/"], {"max_depth": 3})
    assert key.startswith("example.com-")
    assert key == job_key(["https://www.example.com/"], {"max_depth": 3})
    assert key != job_key(["https://www.example.com/"], {"max_depth": 4})


@deferred_f_from_coro_f
async def test_the_tree_keeps_unchanged_files_and_drops_removed_ones(
    serve_site: Serve, tmp_path: Path
) -> None:
    import yaml

    site, out = tmp_path / "site", tmp_path / "tree"
    make_site(site, ["a.html", "b.html", "c.html"])
    server = serve_site(site)
    settings = incremental(tmp_path, WEBMD_OUT_DIR=str(out))
    await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    files = {p.relative_to(out).as_posix(): p for p in out.rglob("*.md")}
    assert set(files) == {"index.md", "a.md", "b.md", "c.md"}
    before = {name: path.stat().st_mtime_ns for name, path in files.items()}
    head = files["c.md"].read_text("utf-8").split("---\n")[1]
    assert yaml.safe_load(head)["url"] == server.url("/c.html")

    write(site, {"a.html": article("A", "Rewritten text of a.html", "/")})
    (site / "b.html").unlink()
    rows, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    assert changes(rows, server)["/b.html"] == "removed"
    now = {p.relative_to(out).as_posix(): p for p in out.rglob("*.md")}
    assert set(now) == {"index.md", "a.md", "c.md"}
    # unchanged pages were not rewritten; the changed one was
    assert now["c.md"].stat().st_mtime_ns == before["c.md"]
    assert now["index.md"].stat().st_mtime_ns == before["index.md"]
    assert "Rewritten text" in now["a.md"].read_text("utf-8")


def test_a_second_run_on_the_same_state_fails_clearly(tmp_path: Path) -> None:
    from ..crawling import scrapy_crawl

    with open_store("sqlite", tmp_path / "state", "busy"):
        done = scrapy_crawl(
            "-a", "start=http://127.0.0.1:9/", "-a", "incremental=true", "-a", "state=busy",
            "-s", f"WEBMD_STATE_DIR={tmp_path / 'state'}", "-O", str(tmp_path / "rows.jsonl"),
        )  # fmt: skip
    assert done.returncode != 0
    assert "state 'busy' is in use by another run" in done.stderr
    assert not (tmp_path / "rows.jsonl").exists() or not (tmp_path / "rows.jsonl").read_text()


def test_content_hash_is_taken_before_truncation() -> None:
    from webmd_spider.extract import ExtractOptions, extract
    from webmd_spider.extract.markdown import markdown_hash

    html = (
        "<main><h1>T</h1>"
        + "".join(f"<p>Paragraph {i} " + "word " * 40 + "</p>" for i in range(30))
        + "</main>"
    )
    whole = extract(html, "http://example.com/")
    cut = extract(html, "http://example.com/", options=ExtractOptions(max_chars=500))
    assert cut.truncated and len(cut.markdown) <= 500
    assert cut.content_hash == whole.content_hash == markdown_hash(whole.markdown)


@deferred_f_from_coro_f
async def test_a_known_page_that_now_redirects_is_not_taken_for_unchanged(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    make_site(site, ["a.html", "b.html"])
    server = serve_site(site)
    settings = incremental(tmp_path)
    await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    # /a.html now redirects to a new page; its old validators must not reach the target
    write(site, {"fresh.html": article("Fresh", "A page that did not exist before", "/")})
    (site / "_routes.json").write_text(
        json.dumps({"/a.html": {"status": 301, "location": "/fresh.html"}})
    )
    server.clear_requests()
    rows, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    row = next(r for r in by_type(rows, "page") if r["final_url"] == server.url("/fresh.html"))
    assert row["change"] == "changed" and "did not exist before" in row["markdown"]
    to_target = [r for r in server.requests if r.path == "/fresh.html"]
    assert to_target and not any("If-None-Match" in r.headers for r in to_target)


@deferred_f_from_coro_f
async def test_stored_links_are_walked_breadth_first_and_nofollow_is_kept(
    serve_site: Serve, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    # home -> a, b, hidden(nofollow page) ; a -> c ; c -> b ; b -> d (new in run 2)
    write(
        site,
        {
            "index.html": article("Home", "Welcome", "/a.html", "/b.html", "/nf.html"),
            "a.html": article("A", "Text of a", "/c.html"),
            "b.html": article("B", "Text of b", "/"),
            "c.html": article("C", "Text of c", "/b.html"),
            "nf.html": article("NF", "Text of nf", "/secret.html").replace(
                "<head>", '<head><meta name="robots" content="nofollow">'
            ),
            "secret.html": article("Secret", "Never followed"),
        },
    )
    server = serve_site(site)
    settings = incremental(tmp_path, WEBMD_MAX_DEPTH=2)
    rows, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    assert "/secret.html" not in changes(rows, server)
    write(
        site, {"b.html": article("B", "Text of b", "/", "/d.html"), "d.html": article("D", "New d")}
    )
    rows, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    got = changes(rows, server)
    assert got["/d.html"] == "new"  # b is at depth 1, so d (depth 2) is within max_depth
    assert "/secret.html" not in got
    depth = {r["url"].removeprefix(server.base_url): r["depth"] for r in by_type(rows, "page")}
    assert depth["/b.html"] == 1


@deferred_f_from_coro_f
async def test_a_tree_added_to_an_existing_state_is_filled(
    serve_site: Serve, tmp_path: Path
) -> None:
    make_site(tmp_path / "site", ["a.html"])
    server = serve_site(tmp_path / "site")
    await crawl_with_stats(tmp_path, incremental(tmp_path), start=server.url("/"))
    out = tmp_path / "tree"
    rows, _ = await crawl_with_stats(
        tmp_path, incremental(tmp_path, WEBMD_OUT_DIR=str(out)), start=server.url("/")
    )
    assert {r["change"] for r in by_type(rows, "page")} == {"unchanged"}
    assert sorted(p.name for p in out.rglob("*.md")) == ["a.md", "index.md"]


@deferred_f_from_coro_f
async def test_a_renamed_page_is_written_under_its_new_url_in_the_same_run(
    serve_site: Serve, tmp_path: Path
) -> None:
    """The new URL is fetched first (new pages go before known ones) and its content is
    the known old page's: refused as a copy while the old URL may still be there. The
    old URL's 404 then makes the copy the page: it is fetched again and written, so the
    run ends as a fresh crawl of the site would (issue 33's change feed relies on it)."""
    site = tmp_path / "site"
    write(site, {"index.html": article("Home", "Welcome", "/old.html")})
    write(site, {"old.html": article("Moved", "The words of the moved page", "/")})
    server = serve_site(site)
    settings = incremental(tmp_path)
    await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    write(site, {"index.html": article("Home", "Welcome", "/new.html")})
    (site / "new.html").write_text((site / "old.html").read_text("utf-8"), "utf-8")
    (site / "old.html").unlink()
    # the old URL's 404 comes late: the copy is fetched and refused first
    (site / "_routes.json").write_text(json.dumps({"/old.html": {"status": 404, "delay": 2}}))
    server.clear_requests()
    rows, _ = await crawl_with_stats(tmp_path, settings, start=server.url("/"))
    got = changes(rows, server)
    assert got["/old.html"] == "removed" and got["/new.html"] == "new"
    fetched = [path for path, _ in page_requests(server)]
    assert fetched.count("/new.html") == 2  # the copy, then the page once the old one is gone
