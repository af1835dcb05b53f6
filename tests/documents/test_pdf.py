"""PDF files made with fpdf2 to Markdown (``documents.pdf``): paragraphs, headings by
font size, page markers, metadata, the bounds, and every file that cannot be converted
giving a reason instead of text."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webmd_spider.documents import convert_document
from webmd_spider.documents.pdf import convert_pdf
from webmd_spider.extract import ExtractOptions
from webmd_spider.offload.page_work import extract_page

from .samples import (
    BULLETS,
    PAGE_TWO_HEADING,
    PAGE_TWO_TEXT,
    PROSE,
    SECOND,
    TITLE,
    bomb_pdf,
    image_only_pdf,
    report_pdf,
    truncated,
)

REPORT = report_pdf(link="https://harbor.example/map.html")


def test_a_report_becomes_paragraphs_headings_and_page_markers() -> None:
    converted = convert_pdf(REPORT, "https://harbor.example/report.pdf")
    assert converted.unsupported is None and converted.page_count == 2
    doc = converted.document
    markdown = doc.markdown
    blocks = markdown.split("\n\n")
    # every page starts with its marker; the title (22 pt) is `#`, sections (15 pt) `##`
    assert blocks[:3] == ["<!-- page 1 -->", f"# {TITLE}", "## Tides and Queues"]
    assert blocks.index("<!-- page 2 -->") + 1 == blocks.index(f"## {PAGE_TWO_HEADING}")
    assert markdown.count("<!-- page ") == 2
    # paragraphs are joined, not hard-wrapped: each is one block, exactly as written
    for paragraph in (PROSE, SECOND, PAGE_TWO_TEXT):
        assert paragraph in blocks
    assert "- " + BULLETS[0] + "\n- " + BULLETS[1] in blocks  # one tight list
    for row in ("Pier Berths Depth", "North 12 9.5 m", "South 7 6.0 m"):
        assert row in blocks  # the table's rows, each cell kept in order
    assert "Page 1" not in markdown and "Page 2" not in markdown  # the running footer
    assert [(h.level, h.text) for h in doc.headings] == [
        (1, TITLE), (2, "Tides and Queues"), (2, "Berths by Pier"), (2, PAGE_TWO_HEADING),
    ]  # fmt: skip
    # text: the same blocks without markers or Markdown syntax
    assert "<!--" not in doc.text and "#" not in doc.text
    assert doc.text.startswith(f"{TITLE}\n\nTides and Queues\n\n{PROSE}")
    assert doc.word_count == doc.total_words == len(doc.text.split())
    assert doc.char_count == len(markdown) and doc.truncated is False
    assert doc.content_hash == "sha256:" + hashlib.sha256(markdown.encode()).hexdigest()


def test_metadata_and_links() -> None:
    doc = convert_pdf(REPORT, "https://harbor.example/report.pdf").document
    assert doc.title == TITLE and doc.author == "Ada Field"
    assert doc.description == "Harbor operations"
    assert doc.keywords == ["harbor", "queue", "tides"]
    assert doc.language == "en-gb" and doc.extraction_method == "pdf"
    assert doc.published_at and doc.published_at[:2] == "20"
    assert doc.page_links == ["https://harbor.example/map.html"]
    assert [(ln.url, ln.internal) for ln in doc.links] == [
        ("https://harbor.example/map.html", True)
    ]


def test_title_is_the_first_heading_without_a_usable_metadata_title() -> None:
    for metadata in (None, "Microsoft Word - report.docx", "untitled", "report.pdf"):
        doc = convert_pdf(report_pdf(metadata_title=metadata)).document
        assert doc.title == TITLE, metadata


def test_encrypted_pdfs() -> None:
    locked = convert_pdf(report_pdf(user_password="s3cret"))
    assert locked.unsupported == "the PDF is encrypted: it needs a password to open"
    assert locked.document.markdown == "" and locked.document.error == locked.unsupported
    # encrypted with the empty password (only permissions set): opens as readers do
    opened = convert_pdf(report_pdf(user_password=""))
    assert opened.unsupported is None
    assert PROSE in opened.document.markdown.split("\n\n")


def test_truncated_damaged_image_only_and_not_a_pdf_are_unsupported() -> None:
    cut = convert_pdf(truncated(REPORT))
    assert cut.unsupported is not None and cut.unsupported.startswith("the PDF is truncated")
    damaged = convert_pdf(b"%PDF-1.7\n" + b"\x8f garbage \x00" * 300 + b"\n%%EOF\n")
    assert damaged.unsupported is not None
    assert damaged.unsupported.startswith(("the PDF is damaged", "the PDF has no pages"))
    scan = convert_pdf(image_only_pdf())
    assert scan.page_count == 1
    assert scan.unsupported == (
        "the PDF has no text layer: its pages are images (a scan?); text recognition "
        "(OCR) is not done"
    )
    html = convert_pdf(b"<!DOCTYPE html><html><body>Not a PDF</body></html>")
    assert html.unsupported == (
        "the body is not a PDF file (it starts with '<!DOCTYPE html><', not %PDF-)"
    )
    for result in (cut, damaged, scan, html):
        doc = result.document
        assert doc.markdown == doc.text == "" and doc.word_count == 0
        assert doc.extraction_method == "pdf"


def test_a_decompression_bomb_stops_at_the_stream_bound() -> None:
    bomb = bomb_pdf()  # 40 MiB of content in a few kilobytes
    assert len(bomb) < 200_000
    result = convert_pdf(bomb)
    assert result.unsupported == (
        "the PDF is too large to convert: page 1 inflates past 32 MiB (a decompression bomb?)"
    )
    assert result.page_count == 1 and result.document.markdown == ""


def test_pages_and_characters_are_bounded() -> None:
    long = report_pdf(extra_pages=4)  # 6 pages
    by_pages = convert_pdf(long, max_pages=3)
    assert by_pages.page_count == 6 and by_pages.document.truncated is True
    assert by_pages.document.markdown.count("<!-- page ") == 3
    assert "<!-- page 4 -->" not in by_pages.document.markdown
    assert by_pages.notes == ["only the first 3 of 6 pages were converted"]
    by_chars = convert_pdf(long, max_text_chars=len(PROSE) * 2)
    assert by_chars.page_count == 6 and by_chars.document.truncated is True
    converted = by_chars.document.markdown.count("<!-- page ")
    assert 1 <= converted < 6
    assert by_chars.notes[0].startswith(f"only the first {converted} of 6 pages were converted")
    whole = convert_pdf(long)
    assert whole.document.markdown.count("<!-- page ") == 6 and not whole.notes


def test_max_chars_cuts_at_a_block_boundary_and_hashes_the_whole() -> None:
    whole = convert_pdf(REPORT).document
    cut = convert_pdf(REPORT, options=ExtractOptions(max_chars=300)).document
    assert cut.truncated is True and 0 < len(cut.markdown) <= 300
    assert whole.markdown.startswith(cut.markdown + "\n\n")
    assert cut.content_hash == whole.content_hash
    assert cut.word_count < cut.total_words == whole.total_words


def test_chunks_start_at_a_page_marker_never_hold_only_one() -> None:
    work = extract_page(REPORT, "https://harbor.example/report.pdf", None, ExtractOptions(), 500)
    assert work.kind == "pdf" and work.columns is not None and work.chunks
    markdown = work.columns["markdown"]
    assert work.columns["page_count"] == 2
    for chunk in work.chunks:
        assert chunk["text"] == markdown[chunk["char_start"] : chunk["char_end"]]
        assert chunk["text"].strip().replace("<!-- page 1 -->", "").replace("<!-- page 2 -->", "")
        assert chunk["heading_path"][0] == TITLE
    assert work.chunks[0]["char_start"] == 0 and work.chunks[-1]["char_end"] == len(markdown)
    second = next(c for c in work.chunks if "<!-- page 2 -->" in c["text"])
    assert second["text"].startswith("<!-- page 2 -->\n\n## " + PAGE_TWO_HEADING)
    assert second["heading_path"] == [TITLE, PAGE_TWO_HEADING]


def test_convert_document_dispatches_by_kind() -> None:
    assert convert_document(REPORT, "", "pdf").page_count == 2
    with pytest.raises(ValueError, match="unknown document kind 'odt'"):
        convert_document(REPORT, "", "odt")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=len(REPORT) - 1), st.binary(min_size=1, max_size=64))
def test_a_damaged_pdf_never_raises_and_never_gives_garbage(at: int, noise: bytes) -> None:
    body = REPORT[:at] + noise + REPORT[at + len(noise) :]
    result = convert_pdf(body)
    doc = result.document
    if result.unsupported is not None:
        assert result.unsupported.startswith("the ") and "PDF" in result.unsupported
        assert doc.markdown == "" and doc.error == result.unsupported
    else:
        assert doc.markdown.startswith("<!-- page 1 -->") and doc.error is None
        assert doc.word_count > 0
