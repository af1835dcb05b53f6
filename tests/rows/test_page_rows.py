"""Tests for webmd_spider.rows.page_rows: which responses are pages, and the page row figures."""

from __future__ import annotations

import hashlib
import re
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webmd_spider.extract import Document, Heading, Link, extract
from webmd_spider.items import COLUMNS, ERROR_TYPES, Row
from webmd_spider.rows.page_rows import (
    COPIED_COLUMNS,
    MIN_WORDS,
    READING_WPM,
    build_page_row,
    classify_response,
    document_columns,
)

URL = "https://www.example.com/guides/soil.html"

PARAGRAPH = (
    "Healthy soil holds water, feeds roots and shelters the small creatures that keep a "
    "garden alive, so every season starts with a careful look at what lies underground."
)

ARTICLE = f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Caring for Garden Soil</title>
  <meta name="description" content="A short guide to garden soil.">
</head>
<body>
  <article>
    <h1>Caring for Garden Soil</h1>
    <p>{PARAGRAPH} <a href="/guides/compost.html">Read the compost guide</a>.</p>
    <h2>Testing</h2>
    <p>{PARAGRAPH} <a href="https://other.example.org/ph">An outside pH chart</a>.</p>
    <img src="/img/soil.jpg" alt="Dark crumbly soil">
    <p>{PARAGRAPH}</p>
    <h2>Feeding</h2>
    <p>{PARAGRAPH}</p>
    <p>{PARAGRAPH}</p>
  </article>
</body>
</html>
"""

SHELL = """<!DOCTYPE html>
<html><head><title>App</title></head>
<body><div id="root">Loading the app now</div><script src="/app.js"></script></body></html>
"""

CONTEXT = {
    "input": "example.com",
    "website": "example.com",
    "url": URL,
    "final_url": URL,
    "status_code": 200,
    "content_type": "text/html; charset=utf-8",
    "response_time_ms": 123,
    "depth": 1,
    "discovered_via": "link",
    "sitemap_lastmod": "2024-05-01",
}


# --------------------------------------------------------------------------- #
# classify_response
# --------------------------------------------------------------------------- #

HTML_BODY = b"<!DOCTYPE html><html><body><p>Hello</p></body></html>"
PDF_BODY = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"


def test_200_html_is_a_page() -> None:
    assert classify_response(200, "text/html; charset=utf-8", HTML_BODY) is None
    assert classify_response(200, "TEXT/HTML", HTML_BODY) is None


def test_xhtml_is_accepted() -> None:
    assert classify_response(200, "application/xhtml+xml", HTML_BODY) is None
    assert classify_response(200, "application/xhtml+xml; charset=utf-8", HTML_BODY) is None


@pytest.mark.parametrize("status", [404, 410, 500, 503, 400])
def test_error_status_is_http_error(status: int) -> None:
    result = classify_response(status, "text/html", HTML_BODY)
    assert result is not None
    error_type, message = result
    assert error_type == "http-error"
    assert str(status) in message


@pytest.mark.parametrize("status", [301, 302, 304, 307, 308])
def test_redirect_status_is_http_error(status: int) -> None:
    result = classify_response(status, "text/html", b"")
    assert result is not None
    assert result[0] == "http-error"
    assert str(status) in result[1]


def test_pdf_content_type_is_not_html() -> None:
    result = classify_response(200, "application/pdf", PDF_BODY)
    assert result is not None
    assert result[0] == "not-html"


def test_other_content_types_are_not_html() -> None:
    for mime in ("application/json", "text/plain", "image/png", "text/xml"):
        result = classify_response(200, f"{mime}; charset=utf-8", b"<x>looks like markup</x>")
        assert result is not None
        assert result[0] == "not-html"
        assert mime in result[1]


def test_pdf_bytes_served_as_html_are_not_html() -> None:
    result = classify_response(200, "text/html", PDF_BODY)
    assert result is not None
    assert result[0] == "not-html"
    assert "binary" in result[1]
    assert "text/html" in result[1]


@pytest.mark.parametrize(
    "magic",
    [b"PK\x03\x04", b"\x89PNG\r\n\x1a\n", b"GIF89a", b"\xff\xd8\xff\xe0", b"\x1f\x8b\x08"],
)
def test_other_binary_magic_served_as_html(magic: bytes) -> None:
    result = classify_response(200, "text/html", magic + b"\x00" * 40)
    assert result is not None
    assert result[0] == "not-html"


def test_no_content_type_with_html_body_is_a_page() -> None:
    assert classify_response(200, None, HTML_BODY) is None
    assert classify_response(200, "", b"\n\n   <html><body>x</body></html>") is None


def test_no_content_type_with_bom_before_html_is_a_page() -> None:
    assert classify_response(200, None, b"\xef\xbb\xbf<!DOCTYPE html><html></html>") is None


def test_no_content_type_with_binary_body_is_not_html() -> None:
    for body in (PDF_BODY, b"\x00\x01\x02\x03binary", b"just some words", b""):
        result = classify_response(200, None, body)
        assert result is not None, body
        assert result[0] == "not-html"


@given(st.integers(min_value=300, max_value=599), st.binary(max_size=64))
def test_any_status_from_300_is_http_error(status: int, body: bytes) -> None:
    result = classify_response(status, "text/html", body)
    assert result is not None
    assert result[0] == "http-error"


@given(st.sampled_from([None, "text/html", "application/pdf", "", "image/png"]), st.binary())
def test_classification_is_a_known_error_type_or_none(ctype: str | None, body: bytes) -> None:
    result = classify_response(200, ctype, body)
    assert result is None or (result[0] in ERROR_TYPES and result[1])


# --------------------------------------------------------------------------- #
# build_page_row
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def article_row_and_doc() -> tuple[Row, Document]:
    doc = extract(ARTICLE.encode("utf-8"), URL)
    return build_page_row(doc, **CONTEXT), doc


def test_article_document_is_real(article_row_and_doc: tuple[Row, Document]) -> None:
    _, doc = article_row_and_doc
    assert doc.word_count >= 100
    assert doc.error is None
    assert doc.links and doc.images


def test_page_row_basics(article_row_and_doc: tuple[Row, Document]) -> None:
    row, doc = article_row_and_doc
    assert row.row_type == "page"
    assert row.ok is True
    assert row.error_type is None
    assert row.error is None
    assert row.title == "Caring for Garden Soil"
    assert row.description == "A short guide to garden soil."
    assert row.markdown == doc.markdown
    assert row.text == doc.text
    assert row.word_count == doc.word_count
    assert row.char_count == doc.char_count == len(doc.markdown)
    assert row.extraction_method == doc.extraction_method
    assert row.boilerplate_ratio == doc.boilerplate_ratio


def test_page_row_figures(article_row_and_doc: tuple[Row, Document]) -> None:
    row, doc = article_row_and_doc
    assert row.token_estimate == row.char_count // 4
    assert row.reading_time_min == round(doc.word_count / READING_WPM, 1)
    assert row.reading_time_min > 0
    assert row.content_hash is not None
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", row.content_hash)
    expected = hashlib.sha256(doc.markdown.encode("utf-8")).hexdigest()
    assert row.content_hash == "sha256:" + expected


def test_page_row_links_and_images(article_row_and_doc: tuple[Row, Document]) -> None:
    row, _ = article_row_and_doc
    assert row.links is not None and row.images is not None and row.headings is not None
    for link in row.links:
        assert set(link) == {"text", "url", "internal"}
        assert isinstance(link["internal"], bool)
    urls = {link["url"]: link["internal"] for link in row.links}
    assert urls["https://www.example.com/guides/compost.html"] is True
    assert urls["https://other.example.org/ph"] is False
    assert row.internal_link_count == sum(1 for link in row.links if link["internal"])
    assert row.external_link_count == sum(1 for link in row.links if not link["internal"])
    assert row.internal_link_count + row.external_link_count == len(row.links)
    assert row.images == [
        {"src": "https://www.example.com/img/soil.jpg", "alt": "Dark crumbly soil"}
    ]
    for heading in row.headings:
        assert set(heading) == {"level", "text", "anchor"}
    assert {"level": 2, "text": "Testing", "anchor": None} in row.headings


def test_context_columns_pass_through(article_row_and_doc: tuple[Row, Document]) -> None:
    row, _ = article_row_and_doc
    data = row.to_dict()
    for key, value in CONTEXT.items():
        assert data[key] == value


def test_page_row_has_every_column(article_row_and_doc: tuple[Row, Document]) -> None:
    row, _ = article_row_and_doc
    assert tuple(row.to_dict()) == COLUMNS


def test_reading_time_rounds_to_one_decimal() -> None:
    words = " ".join(["word"] * 460)
    doc = extract(f"<html><body><article><p>{words}</p></article></body></html>", URL)
    row = build_page_row(doc, **CONTEXT)
    assert doc.word_count == 460
    assert row.reading_time_min == 2.0


def test_a_javascript_shell_is_an_empty_diagnostic() -> None:
    doc = extract(SHELL, URL)
    assert doc.word_count < MIN_WORDS and doc.js_shell
    row = build_page_row(doc, **CONTEXT)
    assert row.row_type == "diagnostic"
    assert row.ok is False
    assert row.error_type == "empty"
    assert row.error and "JavaScript shell" in row.error
    assert f"{doc.word_count} word" in row.error
    assert row.markdown is None
    assert row.content_hash is None
    for key, value in CONTEXT.items():
        assert getattr(row, key) == value
    assert tuple(row.to_dict()) == COLUMNS


def test_unparseable_document_keeps_extract_error() -> None:
    doc = extract(b"", URL)
    assert doc.error
    row = build_page_row(doc, url=URL)
    assert row.error_type == "empty"
    assert row.error == doc.error


def test_word_threshold_boundary() -> None:
    def page(n: int) -> str:
        words = " ".join(f"w{i}" for i in range(n))
        return f"<html><body><article><p>{words}</p></article></body></html>"

    below = extract(page(MIN_WORDS - 1), URL)
    at = extract(page(MIN_WORDS), URL)
    assert below.word_count == MIN_WORDS - 1
    assert at.word_count == MIN_WORDS
    # a short page is a page (issue 16), marked thin below the threshold
    short = build_page_row(below, url=URL)
    assert short.row_type == "page" and short.thin is True
    long = build_page_row(at, url=URL)
    assert long.row_type == "page" and long.thin is False


@pytest.mark.parametrize(
    "body",
    [
        "<main><h1>Contact</h1><p>Call us on 0123 456 789.</p></main>",  # 7 words
        "<p>All systems operational.</p>",
        "<article><h1>Stub</h1><p>This page is a stub.</p></article><script src='/a.js'></script>",
    ],
)
def test_a_short_real_page_is_a_thin_page_row(body: str) -> None:
    doc = extract(f"<html><head><title>Page</title></head><body>{body}</body></html>", URL)
    assert 0 < doc.word_count < MIN_WORDS and not doc.js_shell
    row = build_page_row(doc, url=URL)
    assert row.row_type == "page" and row.thin is True and row.markdown


@pytest.mark.parametrize(
    "shell",
    [
        "<body><noscript>You need to enable JavaScript to run this app.</noscript>"
        "<div id='root'></div><script src='/static/js/main.js'></script></body>",
        "<body><div id='__next'></div><script src='/_next/static/chunks/main.js'></script></body>",
        "<body><app-root></app-root><script src='main.js'></script><p>Loading</p></body>",
        "<body><noscript>Please turn on JavaScript.</noscript><p>A few words here.</p></body>",
    ],
)
def test_only_positive_evidence_makes_a_short_page_a_shell(shell: str) -> None:
    doc = extract(f"<html><head><title>App</title></head>{shell}</html>", URL)
    assert doc.js_shell
    assert build_page_row(doc, url=URL).error_type == "empty"


@pytest.mark.parametrize("words", [12, 50])
def test_a_noscript_notice_beside_real_content_is_a_page(words: int) -> None:
    # a Javadoc package-tree page: a class hierarchy and the generator's notice
    items = "".join(f"<li>java.util.function.Type{i}</li>" for i in range(words - 2))
    html = (
        "<html><head><title>Hierarchy</title></head><body>"
        "<noscript><div>JavaScript is disabled on your browser.</div></noscript>"
        f"<main><h1>Hierarchy For Package</h1><ul>{items}</ul></main>"
        "<script src='script.js'></script></body></html>"
    )
    doc = extract(html, URL)
    assert doc.total_words >= words - 2 and not doc.js_shell
    row = build_page_row(doc, url=URL)
    assert row.row_type == "page" and "Type0" in (row.markdown or "")


def test_unknown_context_name_is_refused() -> None:
    doc = extract(ARTICLE, URL)
    with pytest.raises(TypeError):
        build_page_row(doc, not_a_column=1)


def test_document_columns_are_row_columns_copied_by_name_or_computed() -> None:
    """One row type filled from the document's fields: every column a page row takes
    from the document is a Row column, the same-named ones are copied as they are, and
    the diagnostic and site columns the Document shares a name with are never copied."""
    doc = extract(
        b"<html><head><title>T</title></head><body><h1>T</h1><p>Some words here.</p>"
        b"<a href='/x'>x</a></body></html>",
        "https://example.com/",
    )
    columns = document_columns(doc)
    assert set(columns) <= set(COLUMNS)
    assert {"error", "total_words"}.isdisjoint(columns)
    shared = {f.name for f in fields(Document)} & set(COLUMNS)
    assert set(COPIED_COLUMNS) == shared - {"headings", "links", "images", "error", "total_words"}
    assert all(columns[name] == getattr(doc, name) for name in COPIED_COLUMNS)
    assert isinstance(doc.headings[0], Heading) and isinstance(doc.links[0], Link)
    assert columns["headings"] == [{"level": 1, "text": "T", "anchor": None}]
    assert columns["links"] == [{"text": "x", "url": "https://example.com/x", "internal": True}]
