"""Index-like pages (``rows.index_pages``): by URL and by structure."""

from __future__ import annotations

import pytest

from webmd_spider.items import page_row
from webmd_spider.rows.index_pages import index_like_row, links_dominate, url_names_index

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
