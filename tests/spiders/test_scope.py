"""The scope of a start path (issue 31 item 2), crawled on a real local server: a start
at a directory crawls that directory, a start at a page crawls it and what it links in
its directory, ``scope=site`` crawls the whole website; what is left out is counted and
listed as ``out-of-scope`` and never requested."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer

from ..crawling import by_type, crawl, page_paths, prose_page, summary_of, urlset, write_site

Serve = Callable[[Path], SiteServer]

SITE = {
    "index.html": prose_page("Home", "/guide/", "/blog/", "/about.html"),
    "about.html": prose_page("About", "/"),
    "guide/index.html": prose_page("Guide", "a.html", "b.html", "/blog/", "/about.html"),
    "guide/a.html": prose_page("Guide A", "b.html", "/blog/post.html", "/about.html"),
    "guide/b.html": prose_page("Guide B", "c.html", "sub/d.html"),
    "guide/c.html": prose_page("Guide C"),
    "guide/sub/d.html": prose_page("Guide D", "/blog/post.html"),
    "blog/index.html": prose_page("Blog", "post.html"),
    "blog/post.html": prose_page("Post", "/guide/"),
}
GUIDE = ["/guide/", "/guide/a.html", "/guide/b.html", "/guide/c.html", "/guide/sub/d.html"]
OUTSIDE = ["/", "/about.html", "/blog/", "/blog/post.html"]


def out_of_scope(tmp_path: Path, server: SiteServer) -> list[str]:
    """The paths the run summary lists as out-of-scope, sorted."""
    listed = summary_of(tmp_path)["rejected"]
    return sorted(
        r["url"].removeprefix(server.base_url) for r in listed if r["reason"] == "out-of-scope"
    )


@deferred_f_from_coro_f
async def test_a_start_at_a_directory_crawls_that_directory(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = serve_site(write_site(tmp_path / "site", SITE))
    rows = await crawl(tmp_path, start=server.base_url + "/guide/")
    assert page_paths(server, rows) == GUIDE
    # the rest is counted once per URL and listed, and never requested
    assert out_of_scope(tmp_path, server) == ["/about.html", "/blog/", "/blog/post.html"]
    assert summary_of(tmp_path)["rejected_counts"]["out-of-scope"] == 3
    assert sum(server.hits(path) for path in OUTSIDE) == 0
    assert by_type(rows, "diagnostic") == []


@deferred_f_from_coro_f
async def test_a_start_at_a_page_crawls_it_and_what_it_links_in_its_directory(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = serve_site(write_site(tmp_path / "site", SITE))
    rows = await crawl(tmp_path, start=server.base_url + "/guide/a.html")
    # a.html and b.html, which it links; not c.html nor sub/d.html, which b.html links
    assert page_paths(server, rows) == ["/guide/a.html", "/guide/b.html"]
    assert out_of_scope(tmp_path, server) == [
        "/about.html",
        "/blog/post.html",
        "/guide/c.html",
        "/guide/sub/d.html",
    ]
    assert server.hits("/guide/c.html") == 0 and server.hits("/guide/") == 0


@deferred_f_from_coro_f
async def test_scope_directory_on_a_page_crawls_its_whole_directory(
    serve_site: Serve, tmp_path: Path
) -> None:
    server = serve_site(write_site(tmp_path / "site", SITE))
    rows = await crawl(tmp_path, start=server.base_url + "/guide/a.html", scope="directory")
    # /guide/ itself is linked by no page of the directory but the blog's
    assert page_paths(server, rows) == [
        "/guide/a.html",
        "/guide/b.html",
        "/guide/c.html",
        "/guide/sub/d.html",
    ]


@deferred_f_from_coro_f
async def test_scope_site_crawls_the_whole_website(serve_site: Serve, tmp_path: Path) -> None:
    server = serve_site(write_site(tmp_path / "site", SITE))
    rows = await crawl(tmp_path, start=server.base_url + "/guide/", scope="site")
    assert page_paths(server, rows) == sorted(GUIDE + OUTSIDE)
    assert "out-of-scope" not in summary_of(tmp_path)["rejected_counts"]


@deferred_f_from_coro_f
async def test_two_starts_crawl_both_scopes(serve_site: Serve, tmp_path: Path) -> None:
    server = serve_site(write_site(tmp_path / "site", SITE))
    starts = f"{server.base_url}/guide/b.html,{server.base_url}/blog/"
    rows = await crawl(tmp_path, start=starts)
    # b.html (a page: what it links in /guide/) and /blog/ (a directory); the post's
    # link back to /guide/ is outside both
    assert page_paths(server, rows) == [
        "/blog/",
        "/blog/post.html",
        "/guide/b.html",
        "/guide/c.html",
        "/guide/sub/d.html",
    ]
    assert "/guide/" in out_of_scope(tmp_path, server)


@deferred_f_from_coro_f
async def test_sitemap_entries_outside_the_scope_are_rejected(
    serve_site: Serve, tmp_path: Path
) -> None:
    files = {
        **SITE,
        "robots.txt": "User-agent: *\nAllow: /\nSitemap: {{origin}}/sitemap.xml\n",
        "sitemap.xml": urlset("/", "/guide/c.html", "/blog/post.html"),
    }
    server = serve_site(write_site(tmp_path / "site", files))
    # the root with scope=page: the home page and what it links; the sitemap is read
    # (found at the root as always), its other entries are out of scope
    rows = await crawl(tmp_path, start=server.base_url + "/", scope="page")
    assert page_paths(server, rows) == ["/", "/about.html", "/blog/", "/guide/"]
    assert server.hits("/sitemap.xml") == 1
    listed = out_of_scope(tmp_path, server)
    assert "/guide/c.html" in listed and "/blog/post.html" in listed
    assert server.hits("/guide/c.html") == 0 and server.hits("/blog/post.html") == 0


@deferred_f_from_coro_f
async def test_a_start_that_redirects_moves_its_scope(serve_site: Serve, tmp_path: Path) -> None:
    """``/guide`` answers 301 to ``/guide/``: the start's directory is where it landed."""
    server = serve_site(write_site(tmp_path / "site", SITE))
    rows = await crawl(tmp_path, start=server.base_url + "/guide")  # 301 -> /guide/
    got = sorted(
        (r["final_url"] or r["url"]).removeprefix(server.base_url) for r in by_type(rows, "page")
    )
    assert got == GUIDE
    assert sum(server.hits(path) for path in OUTSIDE) == 0
