"""Index-like pages are crawled after the content pages of their depth (issue 31 item
2): with a page budget smaller than the site, the budget fills with content first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer

from ..crawling import crawl, page_paths, prose_page, write_site

Serve = Callable[[Path], SiteServer]

CONTENT = [f"/doc{i}.html" for i in range(6)]
INDEXES = ["/genindex.html", "/genindex-A.html", "/tag/python/", "/search.html", "/page/2/"]


def index_page(title: str) -> str:
    """A generated index: nothing but links to the content pages."""
    anchors = "".join(
        f'<li><a href="{p}#e{n}">{title} entry {n}</a></li>' for n, p in enumerate(CONTENT)
    )
    head = f"<html><head><title>{title}</title></head>"
    return f"{head}<body><main><ul>{anchors}</ul></main></body></html>"


@deferred_f_from_coro_f
async def test_a_page_budget_fills_with_content_before_index_pages(
    serve_site: Serve, tmp_path: Path
) -> None:
    # the home page links the indexes first, then the content pages, all at depth 1
    files = {
        "index.html": prose_page("Home", *INDEXES, *CONTENT),
        "genindex.html": index_page("Index"),
        "genindex-A.html": index_page("Index A"),
        "tag/python/index.html": index_page("Tag: python"),
        "search.html": index_page("Search"),
        "page/2/index.html": index_page("Older posts"),
        **{p.lstrip("/"): prose_page(f"Doc {p}") for p in CONTENT},
    }
    server = serve_site(write_site(tmp_path / "site", files))
    # one request at a time: which pages get the budget is decided by the queue's order
    rows = await crawl(tmp_path, start=server.base_url + "/", max_pages="7", max_concurrency="1")
    assert page_paths(server, rows) == sorted(["/", *CONTENT])
    # at most the one download in flight when the budget was reached
    assert sum(server.hits(p) for p in INDEXES) <= 1
    # without a budget they are crawled too: behind, not refused
    rows = await crawl(tmp_path / "all", start=server.base_url + "/", max_concurrency="1")
    assert page_paths(server, rows) == sorted(["/", *CONTENT, *INDEXES])
