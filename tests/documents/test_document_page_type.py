"""A converted document's page type (issue 32): always ``other``, with the evidence
``document:KIND``, whatever its content looks like (a Markdown file of nothing but
links is not a listing)."""

from __future__ import annotations

import pytest

from webmd_spider.documents import DOCUMENT_PAGE_TYPE, convert_document
from webmd_spider.rows.page_rows import build_page_row

from .samples import report_docx, report_pdf

LINKS = "\n".join(f"- [Entry {n}](https://example.com/e{n}.html)" for n in range(40))


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("pdf", report_pdf()),
        ("docx", report_docx()),
        ("markdown", f"# A list of links\n\n{LINKS}\n".encode()),
    ],
)
def test_a_document_is_of_type_other_with_its_kind_as_evidence(kind: str, body: bytes) -> None:
    converted = convert_document(body, f"https://example.com/file.{kind}", kind)
    assert converted.unsupported is None
    row = build_page_row(converted.document, url=f"https://example.com/file.{kind}")
    assert row.row_type == "page"
    assert (row.page_type, row.page_type_evidence) == (DOCUMENT_PAGE_TYPE, [f"document:{kind}"])
    assert DOCUMENT_PAGE_TYPE == "other"


def test_an_unreadable_document_is_typed_too() -> None:
    converted = convert_document(b"%PDF-1.7 not really", "https://example.com/x.pdf", "pdf")
    assert converted.unsupported
    assert converted.document.page_type == "other"
