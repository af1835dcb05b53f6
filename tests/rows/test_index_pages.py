"""Index-like pages (``rows.index_pages``): by page type, by URL and by structure."""

from __future__ import annotations

import pytest

from webmd_spider.extract.page_type import PAGE_TYPES
from webmd_spider.items import SKIPPED, diagnostic_row, page_row
from webmd_spider.rows.index_pages import (
    INDEX_PAGE_TYPES,
    OWN_CONTENT_TYPES,
    index_like_row,
    links_dominate,
    url_names_index,
)

B = "https://example.com"


@pytest.mark.parametrize(
    ("url", "named"),
    [
        (f"{B}/genindex.html", True),
        (f"{B}/3/genindex-A.html", True),
        (f"{B}/py-modindex.html", True),
        (f"{B}/search.html?q=x", True),
        (f"{B}/blog/tag/python/", True),
        (f"{B}/category/news/page-title.html", True),
        (f"{B}/blog/page/2/", True),
        (f"{B}/", False),
        (f"{B}/library/os.html", False),
        (f"{B}/tagging-guide.html", False),
        (f"{B}/docs/page/intro.html", False),
        (f"{B}/x?next=/tag/a", False),
    ],
)
def test_url_names_index(url: str, named: bool) -> None:
    assert url_names_index(url) is named


def links(count: int, text: str, internal: bool = True) -> list[dict[str, object]]:
    return [{"text": text, "url": f"{B}/p{i}.html", "internal": internal} for i in range(count)]


def test_a_page_that_is_mostly_links_to_its_site_is_index_like() -> None:
    entries = links(40, "entry name")  # 400 characters of link text
    assert links_dominate(entries, 500)
    assert not links_dominate(entries, 5000)  # an article that links a lot
    assert not links_dominate(links(40, "partner", internal=False), 300)  # a link farm out
    assert not links_dominate(links(10, "entry name"), 100)  # a short list
    row = page_row(url=f"{B}/all.html", links=entries, text="x" * 500, char_count=5000)
    assert index_like_row(row)  # the text, not the Markdown with its URLs, is measured
    assert not index_like_row(page_row(url=f"{B}/a.html", links=[], text="prose"))


def test_listings_and_collections_are_index_like_by_their_page_type() -> None:
    for kind in ("listing", "collection"):
        assert index_like_row(page_row(url=f"{B}/courses.html", page_type=kind, text="x"))
    for kind in ("article", "forum", "product", "documentation", "service", "other", None):
        assert not index_like_row(page_row(url=f"{B}/a.html", page_type=kind, text="prose"))
    assert {"listing", "collection"} == INDEX_PAGE_TYPES
    assert set(PAGE_TYPES) >= INDEX_PAGE_TYPES | OWN_CONTENT_TYPES
    assert not INDEX_PAGE_TYPES & OWN_CONTENT_TYPES


def test_a_page_of_its_own_at_a_listing_url_is_content() -> None:
    # a blog post filed under /category/: the URL names a listing, the type step an article
    url = f"{B}/category/news/page-title.html"
    assert url_names_index(url)
    assert not index_like_row(page_row(url=url, page_type="article", text="prose"))
    assert not index_like_row(page_row(url=url, page_type="product", text="prose"))
    # without a type of its own (a generated index of a documentation site), the URL counts
    for kind in ("documentation", "other", None):
        assert index_like_row(page_row(url=f"{B}/genindex-A.html", page_type=kind, text="x"))
    # the structure counts whatever the type says
    row = page_row(url=f"{B}/all.html", page_type="article", links=links(40, "entry name"))
    row.text = "x" * 500
    assert index_like_row(row)


def test_a_skipped_row_keeps_its_type_and_other_diagnostics_are_not_index_like() -> None:
    skipped = diagnostic_row(
        SKIPPED, "skipped: page type listing (skip_page_types)", url=f"{B}/shop/",
        page_type="listing", page_type_evidence=["json-ld:ItemList"],
    )  # fmt: skip
    assert index_like_row(skipped)
    assert not index_like_row(diagnostic_row("empty", "no text", url=f"{B}/genindex.html"))
    assert not index_like_row(
        diagnostic_row(
            SKIPPED, "skipped: page type product", url=f"{B}/p.html", page_type="product"
        )
    )
