"""Word files made with python-docx to Markdown (``documents.docx``): mammoth's HTML
through our own renderer, so headings, lists and tables follow the web page rules; and
the files that cannot be converted giving a reason."""

from __future__ import annotations

import io
import zipfile

from webmd_spider.documents.detect import OLE_MAGIC
from webmd_spider.documents.docx import MAX_XML_BYTES, convert_docx
from webmd_spider.extract import ExtractOptions
from webmd_spider.offload.page_work import extract_page

from .samples import BULLETS, PROSE, SECOND, TITLE, report_docx


def test_headings_lists_and_tables_follow_the_renderer() -> None:
    converted = convert_docx(report_docx(), "https://harbor.example/notes.docx")
    assert converted.unsupported is None and converted.page_count is None
    doc = converted.document
    assert doc.markdown.split("\n\n")[:3] == [f"# {TITLE}", "# Tides and Queues", PROSE]
    assert "## Crew Duties" in doc.markdown
    assert f"- {BULLETS[0]}\n- {BULLETS[1]}" in doc.markdown
    assert "1. Walk the breakwater.\n2. Note the lamps." in doc.markdown
    assert (
        "| Pier | Berths | Depth |\n| --- | --- | --- |\n| North | 12 | 9.5 m |\n"
        "| South | 7 | 6.0 m |"
    ) in doc.markdown
    assert doc.markdown.endswith(SECOND)
    assert doc.tables and doc.tables[0]["rows"][0] == ["North", "12", "9.5 m"]
    assert [(h.level, h.text) for h in doc.headings][:3] == [
        (1, TITLE), (1, "Tides and Queues"), (2, "Crew Duties"),
    ]  # fmt: skip
    assert doc.title == TITLE and doc.author == "Ada Field"
    assert doc.extraction_method == "docx" and doc.word_count > 50
    assert "#" not in doc.text and PROSE in doc.text


def test_title_from_properties_else_the_first_heading() -> None:
    named = convert_docx(report_docx(title=None, core_title="Harbor Handbook")).document
    assert named.title == "Harbor Handbook"
    assert convert_docx(report_docx(core_title=None)).document.title == TITLE
    untitled = convert_docx(report_docx(title=None, core_title=None)).document
    assert untitled.title == "Tides and Queues"


def test_images_are_never_inlined() -> None:
    doc = convert_docx(report_docx(picture=True), "https://harbor.example/n.docx").document
    assert "data:" not in doc.markdown and "base64" not in doc.markdown
    assert PROSE in doc.markdown


def test_content_options_apply() -> None:
    doc = convert_docx(report_docx(), options=ExtractOptions(max_chars=120)).document
    assert doc.truncated is True and len(doc.markdown) <= 120


def test_files_that_are_no_readable_docx_are_unsupported() -> None:
    body = report_docx()
    ole = convert_docx(OLE_MAGIC + b"\x00" * 600)
    assert ole.unsupported is not None and "password-protected Word document" in ole.unsupported
    cut = convert_docx(body[: len(body) // 2])
    assert cut.unsupported is not None
    assert cut.unsupported.startswith("the DOCX is damaged or truncated")
    assert convert_docx(b"<html></html>").unsupported == (
        "the body is not a DOCX file (it starts with '<html></html>', not a ZIP archive)"
    )
    plain_zip = io.BytesIO()
    with zipfile.ZipFile(plain_zip, "w") as archive:
        archive.writestr("notes.txt", "just text")
    other = convert_docx(plain_zip.getvalue())
    assert other.unsupported == "the ZIP archive is not a Word document (it has no word/ part)"
    for result in (ole, cut, other):
        assert result.document.markdown == "" and result.document.extraction_method == "docx"


def test_a_zip_bomb_is_refused_before_anything_is_inflated() -> None:
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b" " * (MAX_XML_BYTES + 1))
    body = bomb.getvalue()
    assert len(body) < MAX_XML_BYTES // 100  # small on the wire
    result = convert_docx(body)
    assert result.unsupported is not None
    assert result.unsupported.startswith("the DOCX's text would inflate to 33,554,")


def test_the_page_work_of_a_docx() -> None:
    work = extract_page(report_docx(), "https://harbor.example/n.docx", None, ExtractOptions(), 500)
    assert work.kind == "docx" and work.columns is not None
    assert work.columns["page_count"] is None and work.columns["title"] == TITLE
    markdown = work.columns["markdown"]
    assert work.chunks and work.chunks[-1]["char_end"] == len(markdown)
    for chunk in work.chunks:
        assert chunk["heading_path"][0] == TITLE
