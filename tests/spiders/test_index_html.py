"""``dir/`` and ``dir/index.html`` are one page (issue 31 item 8).

A site whose pages link both spellings of a directory's index gets one row for it: the
two answers' Markdown differs only in the targets of their links (a link to an anchor of
the page resolves against each URL), which the content check leaves out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer

from ..crawling import by_type, crawl, page_paths, prose_page, summary_of, write_site

Serve = Callable[[Path], SiteServer]


def guide_page() -> str:
    """A directory's index with a table of contents (links to its own anchors)."""
    prose = " ".join(f"The guide explains step {i} of the setup in detail." for i in range(10))
    return (
        "<html><head><title>Guide</title></head><body><main><h1>Guide</h1>"
        '<ul><li><a href="#install">Install</a></li><li><a href="#use">Use</a></li></ul>'
        f'<h2 id="install">Install</h2><p>{prose}</p><h2 id="use">Use</h2><p>{prose}</p>'
        '<p>Back <a href="../">home</a>.</p></main></body></html>'
    )


@deferred_f_from_coro_f
async def test_a_directory_and_its_index_html_are_one_page(
    serve_site: Serve, tmp_path: Path
) -> None:
    files = {
        "index.html": prose_page("Home", "/guide/", "/other.html"),
        "other.html": prose_page("Other", "/guide/index.html"),
        "guide/index.html": guide_page(),
    }
    server = serve_site(write_site(tmp_path / "site", files))
    rows = await crawl(tmp_path, start=server.url("/"), discovery="links")
    paths = page_paths(server, rows)
    assert paths == ["/", "/guide/", "/other.html"], paths
    rejected = {
        e["url"].removeprefix(server.base_url): e["reason"]
        for e in summary_of(tmp_path)["rejected"]
    }
    assert rejected["/guide/index.html"] == f"duplicate:content of {server.url('/guide/')}"
    assert not by_type(rows, "diagnostic")


@deferred_f_from_coro_f
async def test_pages_whose_text_differs_are_both_written(serve_site: Serve, tmp_path: Path) -> None:
    # the guard: the same links, a different text, two pages
    files = {
        "index.html": prose_page("Home", "/a.html", "/b.html"),
        "a.html": prose_page("Alpha", "/b.html"),
        "b.html": prose_page("Beta", "/a.html"),
    }
    server = serve_site(write_site(tmp_path / "site", files))
    rows = await crawl(tmp_path, start=server.url("/"), discovery="links")
    assert page_paths(server, rows) == ["/", "/a.html", "/b.html"]
