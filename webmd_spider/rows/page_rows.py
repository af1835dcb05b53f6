"""Turn a fetched response and its extracted document into a row.

Pure module: decides which responses are pages (status, content type, a sniff of the
first bytes) and fills the page row's derived figures. No Scrapy imports.
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any

from webmd_spider.documents.detect import DOCUMENT_KINDS, document_kind
from webmd_spider.extract import Document
from webmd_spider.items import COLUMNS, Row, diagnostic_row, page_row

#: A page with fewer words than this after extraction is `thin` (a contact page, a
#: status page, a stub); it is an `empty` diagnostic only with no text at all or with
#: positive evidence of a JavaScript shell (`Document.js_shell`).
MIN_WORDS = 20
#: Words per minute for `reading_time_min` (a common estimate for adult silent reading).
READING_WPM = 230
HTML_TYPES = ("text/html", "application/xhtml+xml")
#: Magic numbers of binary formats that servers sometimes label text/html.
BINARY_MAGIC = (b"%PDF-", b"PK\x03\x04", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"\x1f\x8b")


#: Redirect statuses Scrapy follows when their Location is an http(s) URL.
FOLLOWED_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def classify_response(
    status: int,
    content_type: str | None,
    body: bytes,
    location: str | None = None,
    documents: bool = False,
) -> tuple[str, str] | None:
    """``(error_type, message)`` when the response cannot be a page, else ``None``.

    ``location`` is the response's Location header, if any: a followed redirect status
    that reaches the spider has one Scrapy would not follow (``data:``, ``file:``,
    ``ftp:``... anything but http and https), which the message names. With
    ``documents`` (the ``parse_documents`` option) a 2xx PDF or DOCX, by its bytes or
    its ``Content-Type`` (``documents.detect.document_kind``), is a page too; without
    it, it is ``not-html``.
    """
    if not 200 <= status < 300:
        # Only 2xx is a page. 1xx never arrives (the HTTP client skips it); 0, 99 or
        # 600+ are not HTTP statuses at all.
        if status in FOLLOWED_REDIRECTS and location and _non_http(location):
            return "http-error", f"redirect to a non-http URL ({location[:200]})"
        if 100 <= status < 600:
            return "http-error", f"the server answered HTTP {status}"
        return "http-error", f"the server answered with an invalid HTTP status ({status})"
    if documents and document_kind(content_type, body) is not None:
        return None
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    if is_binary(body):
        return "not-html", f"the body is a binary file (served as {mime or 'no content type'})"
    if mime in UNTYPED and looks_like_html(body):
        return None  # a server that labels everything octet-stream (issue 16 item 6)
    if mime and mime not in HTML_TYPES:
        return "not-html", f"the response is {mime}, not an HTML page"
    start = body.lstrip().removeprefix(b"\xef\xbb\xbf").lstrip()[:1]  # skip a UTF-8 BOM
    if not mime and start != b"<":
        return "not-html", "the response has no content type and does not look like HTML"
    return None


#: Content types that say "some bytes" rather than what they are
UNTYPED = ("application/octet-stream", "binary/octet-stream", "application/unknown")
_HTML_START = re.compile(rb"\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head)[\s>]", re.I | re.S)


def looks_like_html(body: bytes) -> bool:
    """Whether ``body`` plainly is an HTML document: it starts (after a UTF-8 byte order
    mark, blanks and comments) with ``<!DOCTYPE html``, ``<html`` or ``<head``."""
    return bool(_HTML_START.match(body[:4096].removeprefix(b"\xef\xbb\xbf")))


def _non_http(location: str) -> bool:
    """Whether a Location names a scheme other than http(s) (``javascript:``, ``data:``)."""
    scheme = location.strip().partition(":")[0].lower()
    return (
        ":" in location
        and scheme not in ("http", "https")
        and scheme.isascii()
        and scheme[:1].isalpha()
        and all(c.isalnum() or c in "+-." for c in scheme)
    )


def is_binary(body: bytes) -> bool:
    """Whether ``body`` is a binary file (a known magic number, or NUL bytes near the
    start), which no HTML page is."""
    return body[:16].startswith(BINARY_MAGIC) or _looks_binary(body)


def _looks_binary(body: bytes) -> bool:
    """NUL bytes near the start: no HTML in an 8-bit or UTF-8 encoding has them (UTF-16
    pages, which do, start with a byte order mark)."""
    if body[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return False
    return b"\x00" in body[:1024]


def is_empty(doc: Document) -> bool:
    """Whether the document gives an ``empty`` diagnostic instead of a page row: no
    text at all, or a short page that shows a JavaScript shell's marks. A page with
    text is a page (issue 16: pages of 5, 6 or 17 real words were lost)."""
    words = _content_words(doc)
    return words == 0 or (words < MIN_WORDS and doc.js_shell)


def _content_words(doc: Document) -> int:
    """Words of the whole content: a max_chars cut neither hides nor creates an empty
    or thin page."""
    return max(doc.total_words, doc.word_count)


#: Page-row columns filled otherwise than by copying the document's field of the same
#: name: headings, links and images become plain dicts; ``error`` and ``total_words``
#: are diagnostic-row and site-row columns.
_NOT_COPIED = frozenset({"headings", "links", "images", "error", "total_words"})
#: The columns a page row takes as they are from the document's field of the same name,
#: in row order: the item schema and the Document share the names, so a field added to
#: both reaches the rows without a line here.
_DOCUMENT_FIELDS = frozenset(f.name for f in fields(Document))
COPIED_COLUMNS: tuple[str, ...] = tuple(
    name for name in COLUMNS if name in _DOCUMENT_FIELDS and name not in _NOT_COPIED
)


def document_columns(doc: Document) -> dict[str, Any]:
    """The columns of a page row that come from the document alone (no crawl context):
    the :data:`COPIED_COLUMNS` as they are, then the ones computed from the document.

    Pure and picklable (str, numbers, lists, dicts): an extraction process computes
    them next to the extraction, so the crawl process only adds its own columns.
    """
    columns = {name: getattr(doc, name) for name in COPIED_COLUMNS}
    internal = sum(1 for link in doc.links if link.internal)
    columns.update(
        token_estimate=doc.char_count // 4,
        reading_time_min=round(doc.word_count / READING_WPM, 1),
        thin=_content_words(doc) < MIN_WORDS,
        headings=[{"level": h.level, "text": h.text, "anchor": h.anchor} for h in doc.headings],
        links=[{"text": ln.text, "url": ln.url, "internal": ln.internal} for ln in doc.links],
        internal_link_count=internal,
        external_link_count=len(doc.links) - internal,
        images=[{"src": im.src, "alt": im.alt} for im in doc.images[:100]],
    )
    return columns


def build_page_row(doc: Document, columns: dict[str, Any] | None = None, **context: Any) -> Row:
    """A ``page`` row from an extracted document, or an ``empty`` diagnostic; for a PDF
    or DOCX that could not be converted (``extraction_method`` ``pdf`` or ``docx``
    with an ``error``: ``documents.Converted.unsupported``), an ``unsupported`` one.

    ``context`` holds the crawl columns (input, website, url, final_url, status_code,
    content_type, response_time_ms, depth, discovered_via, sitemap_lastmod).
    ``columns`` are ``document_columns(doc)`` when they were computed already (in an
    extraction process, whose ``doc`` no longer carries the content); else they are
    computed here.
    """
    if is_empty(doc):
        if doc.error and doc.extraction_method in DOCUMENT_KINDS:
            return diagnostic_row("unsupported", doc.error, **context)
        if doc.error:
            reason = doc.error
        elif doc.word_count:
            words = f"{doc.word_count} word{'s' if doc.word_count != 1 else ''}"
            reason = (
                f"only {words} of content, and the page is a JavaScript shell (it asks "
                "for JavaScript or mounts an empty app root): its content is rendered in "
                "the browser"
            )
        else:
            reason = "no text after extraction"
            if doc.js_shell:
                reason += ": the page is a JavaScript shell, its content is rendered in the browser"
        return diagnostic_row("empty", reason, **context)
    return page_row(**context, **(columns if columns is not None else document_columns(doc)))


#: Robots directives (meta robots, X-Robots-Tag) that opt a page out of AI use.
AI_OPT_OUT = frozenset({"noai", "noimageai"})
#: Text of anti-bot challenge pages served with 200 instead of the page (Cloudflare,
#: DDoS-Guard, Sucuri, Akamai...). Matched in the title or the first characters.
INTERSTITIAL_TITLES = (
    "just a moment...",
    "checking your browser",
    "attention required! | cloudflare",
    "ddos-guard",
    "sucuri website firewall - access denied",
)
#: Markup only challenge pages carry (scripts and forms of the challenge platforms).
INTERSTITIAL_MARKUP = (
    "cf-browser-verification",
    "/cdn-cgi/challenge-platform/",
    "cf_chl_opt",
    "__ddg",
    "sucuri_cloudproxy",
)


def robots_directives(*values: str | None, token: str = "webmd") -> set[str]:
    """Lower-cased directives of meta robots / X-Robots-Tag values ("noai, noindex").

    An X-Robots-Tag value may start with a user agent ("googlebot: noindex"): such a
    value applies only when the agent is our product token.
    """
    found: set[str] = set()
    for value in values:
        for header in (value or "").lower().split("\n"):
            agent, sep, rest = header.partition(":")
            if sep and agent.strip() and " " not in agent.strip() and "," not in agent:
                if agent.strip() != token.lower():
                    continue
                header = rest
            for part in header.replace(";", ",").split(","):
                if part.strip():
                    found.add(part.strip())
    return found


def interstitial(title: str | None, body_start: bytes) -> bool:
    """Whether a 200 answer is an anti-bot challenge page instead of the page."""
    title_text = (title or "").strip().lower()
    if any(title_text.startswith(marker) for marker in INTERSTITIAL_TITLES):
        return True
    head = body_start[:8000].decode("utf-8", "replace").lower()
    return any(marker in head for marker in INTERSTITIAL_MARKUP)
