"""Which answers and links are documents: ``documents.detect``, the ``documents`` switch
of ``urls.follow_rejection`` and of ``page_rows.classify_response``, and the
``unsupported`` row ``page_rows.build_page_row`` makes of a failed conversion."""

from __future__ import annotations

import io
import zipfile

import pytest

from webmd_spider.documents.detect import declared_kind, document_kind, sniff
from webmd_spider.extract import Document
from webmd_spider.items import ERROR_TYPES, Row
from webmd_spider.rows.page_rows import build_page_row, classify_response
from webmd_spider.urls import follow_rejection

from .samples import report_docx, report_pdf

PDF = report_pdf()
DOCX = report_docx()
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def _zip(*names: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in names:
            archive.writestr(name, "<x/>")
    return out.getvalue()


def test_sniff_reads_the_bytes() -> None:
    assert sniff(PDF) == "pdf" and sniff(b"\r\n  " + PDF) == "pdf"
    assert sniff(DOCX) == "docx"
    assert sniff(_zip("[Content_Types].xml", "xl/workbook.xml")) is None  # a spreadsheet
    assert sniff(_zip("notes.txt")) is None
    assert sniff(b"PK\x03\x04 not really a zip") is None
    html = b"<html><body>The %PDF- magic, quoted in a page</body></html>"
    assert sniff(html) is None and sniff(b"") is None


def test_kinds_from_the_content_type() -> None:
    assert declared_kind("application/pdf") == "pdf"
    assert declared_kind("Application/PDF; qs=0.9") == "pdf"
    assert declared_kind(DOCX_TYPE) == "docx"
    assert declared_kind("text/html") is None and declared_kind(None) is None
    # the bytes first, then what the header declares
    assert document_kind("application/octet-stream", PDF) == "pdf"
    assert document_kind("text/html", DOCX) == "docx"
    assert document_kind("application/pdf", b"<html>an error page</html>") == "pdf"
    assert document_kind("text/html", b"<html></html>") is None


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://example.com/files/report.pdf", None),
        ("https://example.com/files/Notes.DOCX", None),
        ("https://example.com/files/old.doc", "asset:.doc"),
        ("https://example.com/files/sheet.xlsx", "asset:.xlsx"),
        ("https://example.com/logo.png", "asset:.png"),
    ],
)
def test_document_links_are_followed_only_when_documents_are_parsed(
    url: str, reason: str | None
) -> None:
    assert follow_rejection(url, documents=True) == reason
    if url.lower().endswith((".pdf", ".docx")):
        assert follow_rejection(url) == "document:" + url[url.rindex(".") :].lower()


def test_classify_response_lets_documents_through_only_when_asked() -> None:
    assert classify_response(200, "application/pdf", PDF) == (
        "not-html",
        "the body is a binary file (served as application/pdf)",
    )
    assert classify_response(200, "application/pdf", PDF, documents=True) is None
    assert classify_response(200, "application/octet-stream", DOCX, documents=True) is None
    assert classify_response(200, "application/zip", _zip("a.txt"), documents=True) == (
        "not-html",
        "the body is a binary file (served as application/zip)",
    )
    # a status is judged first, whatever the body
    assert classify_response(404, "application/pdf", PDF, documents=True) == (
        "http-error",
        "the server answered HTTP 404",
    )


def test_a_failed_conversion_is_an_unsupported_row() -> None:
    assert "unsupported" in ERROR_TYPES
    failed = Document(extraction_method="pdf", error="the PDF is encrypted: it needs a password")
    row = build_page_row(failed, None, url="https://example.com/a.pdf")
    assert isinstance(row, Row) and row.row_type == "diagnostic" and row.ok is False
    assert (row.error_type, row.error) == ("unsupported", failed.error)
    assert row.url == "https://example.com/a.pdf"
    # an HTML page with no text stays `empty`, as before
    empty = build_page_row(Document(extraction_method="body"), None, url="https://example.com/")
    assert empty.error_type == "empty"
    blank_docx = build_page_row(Document(extraction_method="docx"), None)
    assert blank_docx.error_type == "empty"  # a Word file with no text: empty, not broken
