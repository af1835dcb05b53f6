"""PDF and DOCX files made by the tests themselves (fpdf2 and python-docx), so every
case is built from known content: headings in a larger font, paragraphs that wrap over
several lines, a table, bullets, a second page with a running footer, an encrypted
file, a truncated one and an image-only one."""

from __future__ import annotations

import io
import zlib
from typing import Any

from docx import Document as WordDocument
from fpdf import FPDF
from fpdf.enums import EncryptionMethod
from PIL import Image, ImageDraw
from pypdf import PdfWriter
from pypdf.generic import DictionaryObject, EncodedStreamObject, NameObject

TITLE = "Harbor Queue Field Report"
#: A paragraph long enough to wrap over several lines of an A4 page.
PROSE = (
    "The harbor queue keeps every delivery in the order it arrived, and the crews read "
    "it from the north pier at dawn. When a ship is late the queue waits for it, which "
    "is why the tide tables are printed on the first page of every report."
)
SECOND = (
    "Inspections happen twice a week. Each inspector walks the length of the breakwater "
    "and notes the state of the bollards, the lamps and the ladders in a small book."
)
TABLE = [("Pier", "Berths", "Depth"), ("North", "12", "9.5 m"), ("South", "7", "6.0 m")]
BULLETS = ("Check the mooring lines before sunrise.", "Log every arrival in the queue.")
PAGE_TWO_HEADING = "Second Page Findings"
PAGE_TWO_TEXT = (
    "On the second page the report turns to the winter storms, which moved the eastern "
    "buoys by almost forty meters and closed the channel for three days in February."
)


class _Report(FPDF):
    """A report with a running footer (a page number) on every page."""

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", size=8)
        self.cell(0, 10, f"Page {self.page_no()}", align="C")


def report_pdf(
    *,
    metadata_title: str | None = TITLE,
    user_password: str | None = None,
    extra_pages: int = 0,
    link: str | None = None,
) -> bytes:
    """A two-page report: a 22 pt title, 15 pt section headings, 11 pt paragraphs
    wrapped over several lines, bullets, a table, and a second page with its own
    heading; a running "Page N" footer. ``user_password`` encrypts it (AES-128);
    ``extra_pages`` adds pages of prose after the second; ``link`` is the URL of a link
    on the second page."""
    pdf = _Report(format="A4")
    pdf.core_fonts_encoding = "windows-1252"  # has the bullet, latin-1 has not
    if metadata_title:
        pdf.set_title(metadata_title)
    pdf.set_author("Ada Field")
    pdf.set_subject("Harbor operations")
    pdf.set_keywords("harbor, queue, tides")
    pdf.set_lang("en-GB")
    if user_password is not None:
        pdf.set_encryption(
            owner_password="owner-secret",
            user_password=user_password,
            encryption_method=EncryptionMethod.AES_128,
        )
    pdf.add_page()
    _heading(pdf, TITLE, 22)
    _heading(pdf, "Tides and Queues", 15)
    _paragraph(pdf, PROSE)
    _paragraph(pdf, SECOND)
    for bullet in BULLETS:
        pdf.set_font("Helvetica", size=11)
        pdf.multi_cell(0, 6, "\u2022 " + bullet, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    _heading(pdf, "Berths by Pier", 15)
    pdf.set_font("Helvetica", size=11)
    with pdf.table(col_widths=(40, 30, 30), width=100, align="LEFT") as table:
        for values in TABLE:
            row = table.row()
            for value in values:
                row.cell(value)
    pdf.add_page()
    _heading(pdf, PAGE_TWO_HEADING, 15)
    _paragraph(pdf, PAGE_TWO_TEXT)
    if link:
        pdf.cell(0, 6, "See the harbor map", link=link, new_x="LMARGIN", new_y="NEXT")
    for number in range(extra_pages):
        pdf.add_page()
        _heading(pdf, f"Appendix {number + 1}", 15)
        _paragraph(pdf, PROSE)
    return bytes(pdf.output())


def _heading(pdf: FPDF, text: str, size: int) -> None:
    pdf.set_font("Helvetica", "B", size)
    pdf.multi_cell(0, size * 0.6, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)


def _paragraph(pdf: FPDF, text: str) -> None:
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(5)


def image_only_pdf() -> bytes:
    """A scan: one page holding a picture of text, and no text layer."""
    picture = Image.new("RGB", (600, 200), "white")
    ImageDraw.Draw(picture).text((20, 80), "A scanned page of the harbor log", fill="black")
    png = io.BytesIO()
    picture.save(png, format="PNG")
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.image(io.BytesIO(png.getvalue()), x=10, y=10, w=180)
    return bytes(pdf.output())


def bomb_pdf(inflated: int = 40 * 1024 * 1024) -> bytes:
    """A page whose content stream is a few kilobytes that inflate to ``inflated``
    bytes (a decompression bomb), written with pypdf."""
    packer = zlib.compressobj(9)
    data = packer.compress(b"BT /F1 12 Tf 10 10 Td (bomb) Tj ET\n")
    chunk = b" " * (1024 * 1024)
    for _ in range(inflated // len(chunk)):
        data += packer.compress(chunk)
    data += packer.flush()
    writer = PdfWriter()
    page = writer.add_blank_page(200, 200)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    fonts = DictionaryObject({NameObject("/F1"): writer._add_object(font)})
    page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
    stream = EncodedStreamObject()
    stream._data = data  # already compressed: set_data would inflate it to check it
    stream[NameObject("/Filter")] = NameObject("/FlateDecode")
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def truncated(body: bytes) -> bytes:
    """The first 60 % of a file, as a connection that broke off would leave it."""
    return body[: len(body) * 6 // 10]


def report_docx(
    *, title: str | None = TITLE, core_title: str | None = TITLE, picture: bool = False
) -> bytes:
    """A Word document: a Title paragraph, Heading 1 and 2 sections, paragraphs, a
    bulleted and a numbered list, a table with a header row. ``core_title`` is the
    document property ``title`` (None: left empty); ``picture`` adds a PNG image."""
    document: Any = WordDocument()
    if core_title:
        document.core_properties.title = core_title
    document.core_properties.author = "Ada Field"
    if title:
        document.add_heading(title, level=0)
    document.add_heading("Tides and Queues", level=1)
    document.add_paragraph(PROSE)
    document.add_heading("Crew Duties", level=2)
    for bullet in BULLETS:
        document.add_paragraph(bullet, style="List Bullet")
    document.add_paragraph("Walk the breakwater.", style="List Number")
    document.add_paragraph("Note the lamps.", style="List Number")
    document.add_heading("Berths by Pier", level=1)
    table = document.add_table(rows=len(TABLE), cols=len(TABLE[0]))
    for r, values in enumerate(TABLE):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    document.add_paragraph(SECOND)
    if picture:
        png = io.BytesIO()
        Image.new("RGB", (40, 20), "navy").save(png, format="PNG")
        png.seek(0)
        document.add_picture(png)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
