"""The output schema: one row per page, one per website, one per URL that gave no page.

This module is the single definition of the JSONL/CSV columns; README.md documents it.
Every row kind carries every column (``None`` where a column does not apply), so a
CSV export is a rectangle and a JSONL consumer can rely on every key being present.

Pure module: standard library only, no Scrapy. Scrapy exports dataclass items
directly, in field declaration order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

ROW_TYPES = ("page", "site", "diagnostic")

#: Error types of diagnostic rows, with what each means (README lists the same).
ERROR_TYPES: dict[str, str] = {
    "unreachable": "the server could not be reached (DNS, connection refused or reset)",
    "blocked": "robots.txt or the server refused the fetch",
    "timeout": "the server did not answer in time",
    "invalid-input": "an argument or start URL could not be used",
    "not-html": "the response is not an HTML page",
    "http-error": "the server answered with an HTTP error status",
    "too-large": "the response is larger than the page size limit",
    "empty": "the page holds no text after extraction, or it is a JavaScript shell (a "
    "<noscript> asking for JavaScript, an empty #root / #app mount point with scripts)",
    "opted-out": "the page asks AI systems not to use it (noai / noimageai)",
    "extraction-timeout": "converting the page took longer than the extraction deadline",
    "unsupported": "a PDF or Word (DOCX) document that cannot be converted: encrypted with "
    "a password, damaged or truncated, without a text layer (scanned pages), or not the "
    "format its type says; the error names which",
    "skipped": "a page of a type the crawl was told to leave out (skip_page_types): "
    "extracted and classified, not written as a page; its links are still followed",
    "aborted": "the request was sent, then the crawl stopped (a budget, Ctrl-C, a shutdown "
    "signal) before its answer was written; the error names the stop",
}

#: the error type of a page left out for its type (``skip_page_types``): the one
#: diagnostic that is no failure (a site row's ``failures`` does not count it)
SKIPPED = "skipped"


# (second, its text): every row and every 304's state update asks for the time, many
# within the same second; formatting a datetime costs more than the rest of the call
_now_text: tuple[int, str] = (-1, "")


def utc_now_iso() -> str:
    """Current time in UTC as ISO 8601 with a ``Z`` suffix, second precision."""
    global _now_text
    second = time.time_ns() // 1_000_000_000  # exact: no float rounding at the boundary
    cached = _now_text  # read once: the HTTP API's threads may replace it meanwhile
    if second == cached[0]:
        return cached[1]
    text = datetime.fromtimestamp(second, UTC).isoformat().replace("+00:00", "Z")
    _now_text = (second, text)
    return text


@dataclass(slots=True)
class Row:
    """Every column of every row kind, in export order.

    Use the constructors :func:`page_row`, :func:`site_row` and :func:`diagnostic_row`
    rather than building a ``Row`` by hand: they set ``row_type`` and ``ok``.
    """

    row_type: str = "page"
    ok: bool = True
    input: str | None = None
    website: str | None = None
    url: str | None = None
    # -- page rows -------------------------------------------------------------
    final_url: str | None = None
    status_code: int | None = None
    content_type: str | None = None
    #: pages of a PDF document (all of them, also past the conversion bound); null for
    #: HTML pages and DOCX documents
    page_count: int | None = None
    response_time_ms: int | None = None
    depth: int | None = None
    discovered_via: str | None = None  # input | sitemap | link
    sitemap_lastmod: str | None = None
    title: str | None = None
    description: str | None = None
    site_name: str | None = None
    author: str | None = None
    published_at: str | None = None
    modified_at: str | None = None
    language: str | None = None
    canonical: str | None = None
    image: str | None = None
    keywords: list[str] | None = None
    json_ld_types: list[str] | None = None
    markdown: str | None = None
    text: str | None = None
    html: str | None = None
    word_count: int | None = None
    char_count: int | None = None
    truncated: bool | None = None
    token_estimate: int | None = None
    reading_time_min: float | None = None
    thin: bool | None = None  # a real page with under 20 words (a contact or status page)
    headings: list[dict[str, Any]] | None = None
    links: list[dict[str, Any]] | None = None
    internal_link_count: int | None = None
    external_link_count: int | None = None
    images: list[dict[str, Any]] | None = None
    extraction_method: str | None = None
    #: what kind of page this is (issue 32: one of ``extract.page_type.PAGE_TYPES``:
    #: article, forum, product, collection, listing, documentation, service, other) and
    #: the evidence the type step read it from, as short strings ("json-ld:Product");
    #: null on an incremental run's unchanged (304) rows, which are not extracted
    page_type: str | None = None
    page_type_evidence: list[str] | None = None
    boilerplate_ratio: float | None = None
    #: the loss audit: what extraction removed from inside the content root, per kind
    #: and per rule (page rows); summed per website with the pages that lost the most
    #: code, tables and signatures (site rows). README "Output schema" documents it.
    removed: dict[str, Any] | None = None
    content_hash: str | None = None
    noindex: bool | None = None  # the page asks not to be indexed (meta robots / X-Robots-Tag)
    # reserved for later stages (chunking, structured tables, change detection)
    chunks: list[dict[str, Any]] | None = None
    chunk_count: int | None = None
    tables: list[dict[str, Any]] | None = None
    change: str | None = None
    #: what an incremental run's ``change`` rests on: "sitemap-lastmod" (not requested:
    #: the sitemap dates the page no later than our last fetch), "not-modified" (a 304
    #: to our conditional request), "content-hash" (fetched, its Markdown hash compared);
    #: null outside incremental runs and for new or removed pages
    change_evidence: str | None = None
    #: how the row's page was read when that is worth knowing (an HTML page served as
    #: application/octet-stream); null when there is nothing to say
    notes: list[str] | None = None
    # -- site rows -------------------------------------------------------------
    pages_extracted: int | None = None
    discovery: str | None = None  # sitemap | links | list
    sitemap_url_count: int | None = None
    robots_blocked: int | None = None
    total_words: int | None = None
    total_tokens: int | None = None
    avg_boilerplate_ratio: float | None = None
    failures: int | None = None
    stop_reason: str | None = None
    #: incremental runs: pages written unchanged without a request on the sitemap's
    #: lastmod, and why the website's lastmod is not trusted (null when it is, or unused)
    lastmod_skipped: int | None = None
    lastmod_distrust: str | None = None
    # -- diagnostic rows -------------------------------------------------------
    error_type: str | None = None
    error: str | None = None
    # -- every row -------------------------------------------------------------
    scraped_at: str = field(default_factory=utc_now_iso)

    def to_dict(self) -> dict[str, Any]:
        """The row as a plain dict with every column, in export order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Row))


def page_row(**values: Any) -> Row:
    """A ``page`` row (``ok`` true). Unknown keyword names raise ``TypeError``."""
    return Row(row_type="page", ok=True, **values)


def site_row(**values: Any) -> Row:
    """A ``site`` row (``ok`` true), written once per website after its pages."""
    return Row(row_type="site", ok=True, **values)


def diagnostic_row(error_type: str, error: str, **values: Any) -> Row:
    """A ``diagnostic`` row (``ok`` false) for a URL or input that produced no page.

    ``error_type`` must be one of :data:`ERROR_TYPES`; ``error`` is a plain-language
    sentence a user can act on.
    """
    if error_type not in ERROR_TYPES:
        raise ValueError(f"unknown error_type {error_type!r}; expected one of {list(ERROR_TYPES)}")
    return Row(row_type="diagnostic", ok=False, error_type=error_type, error=error, **values)
