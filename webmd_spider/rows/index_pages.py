"""Index-like pages: listings, collections, generated indexes, search pages, tag and
archive listings.

Pure module (the row schema only).

Such a page is mostly links to other pages of its site. A crawl fetches it after the
content pages of its depth (``spiders/frontier.py``: a page budget fills with content
first), and ``llms.txt`` lists it under ``## Optional`` (``rows/single_files.py``).

One classifier, not two (issue 32): the page-type step of extraction
(``extract.page_type``) says what a page is, and a page it calls a ``listing`` or a
``collection`` (:data:`INDEX_PAGE_TYPES`) is index-like. Besides, from what the page's
row already holds (never a second parse), for what the type step does not see:

* by structure (:func:`links_dominate`): at least :data:`MIN_INDEX_LINKS` links to its
  own website inside the content, whose texts make at least :data:`INDEX_LINK_SHARE`
  of the content's characters (Sphinx's ``genindex-A.html``: thousands of one-word
  links; a tag page: a list of titles), whatever its type;
* by its URL alone (:func:`url_names_index`), which is all a crawl knows of a page
  before fetching it: a last path segment named like a generated index or a search
  page (``genindex``, ``genindex-A.html``, ``py-modindex.html``, ``search.html``), or
  a folder of listings (``/tag/``, ``/tags/``, ``/category/``, ``/archive/``,
  ``/search/``, WordPress' ``/page/2/``). After the fetch the URL counts only when the
  type step found no page of its own (:data:`OWN_CONTENT_TYPES`): a blog post filed
  under ``/category/news/`` that the type step calls an ``article`` is content.
"""

from __future__ import annotations

from typing import Any

from webmd_spider.items import SKIPPED, Row

#: page types whose pages are index-like: their content is cards linking other pages
INDEX_PAGE_TYPES = frozenset({"listing", "collection"})
#: page types whose content is the page's own (a post, a thread, a product, a service
#: page): the URL's name alone does not make such a page index-like. Not
#: ``documentation`` or ``other``: a documentation site's generated indexes and search
#: pages are of its kind, and still indexes.
OWN_CONTENT_TYPES = frozenset({"article", "forum", "product", "service"})

#: links to its own website inside the content, at least, for a page to be an index
MIN_INDEX_LINKS = 20
#: share of the content's characters that are link text, at least
INDEX_LINK_SHARE = 0.6
#: last path segments (without extension) of generated indexes and search pages
INDEX_NAMES = frozenset(
    {"genindex", "modindex", "py-modindex", "search", "searchindex", "tags", "categories"}
)
#: the same, as prefixes (``genindex-A``, ``genindex-all``)
INDEX_NAME_PREFIXES = ("genindex-",)
#: folders whose pages are listings
LISTING_FOLDERS = frozenset(
    {"tag", "tags", "category", "categories", "archive", "archives", "search", "label"}
)


def url_names_index(url: str) -> bool:
    """Whether the URL's path names an index-like page (see the module docstring).
    Runs once per page request: string operations only."""
    start = url.find("//")
    start = url.find("/", start + 2) if start >= 0 else -1
    if start < 0:
        return False
    end = len(url)
    for mark in ("?", "#"):
        at = url.find(mark, start)
        if 0 <= at < end:
            end = at
    segments = [s for s in url[start:end].lower().split("/") if s]
    if not segments:
        return False
    last = segments[-1]
    stem = last.rsplit(".", 1)[0] if "." in last else last
    if stem in INDEX_NAMES or stem.startswith(INDEX_NAME_PREFIXES):
        return True
    folders = segments if url[:end].endswith("/") else segments[:-1]
    if any(folder in LISTING_FOLDERS for folder in folders):
        return True
    # a listing's further pages: /page/2/, /blog/page/3
    return len(segments) >= 2 and segments[-2] == "page" and last.isdigit()


def links_dominate(links: list[dict[str, Any]] | None, text_chars: int | None) -> bool:
    """Whether a page with these content ``links`` (the row's ``links``: ``text``,
    ``url``, ``internal``) and ``text_chars`` characters of plain text (the row's
    ``text``: the Markdown would count the links' URLs too) is mostly links to its own
    website."""
    if not links or len(links) < MIN_INDEX_LINKS:
        return False
    internal = 0
    link_chars = 0
    for link in links:
        if link.get("internal"):
            internal += 1
        link_chars += len(link.get("text") or "")
    if internal < MIN_INDEX_LINKS:
        return False
    return link_chars >= INDEX_LINK_SHARE * max(text_chars or 0, 1)


def index_like_row(row: Row) -> bool:
    """Whether a page row (or a ``skipped`` row: a page left out for its type) is an
    index-like page: by its ``page_type``, its structure, or its URL (see the module
    docstring). Any other row is not."""
    if row.row_type != "page" and row.error_type != SKIPPED:
        return False
    if row.page_type in INDEX_PAGE_TYPES:
        return True
    chars = len(row.text) if row.text is not None else row.char_count
    if links_dominate(row.links, chars):
        return True
    url = row.final_url or row.url or ""
    return row.page_type not in OWN_CONTENT_TYPES and url_names_index(url)
