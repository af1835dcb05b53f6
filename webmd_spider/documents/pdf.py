"""A PDF file to Markdown and text: paragraphs, headings by font size, page markers.

Pure module (pypdf and the standard library; nothing from Scrapy or Twisted).

The library: pypdf, chosen over pdfminer.six by measuring both on four real PDFs
(Debian's libtasn1, shared-mime-info, camlidl and docbook-xsl manuals, 17 to 95 pages)
and on fpdf2 reports of 2 and 40 pages. CPU: pdfminer.six's layout analysis took 1.6x
to 3.7x the time of this module (73 to 225 ms a page against 40 to 97 ms on the
manuals; this module costs pypdf's own text extraction plus 0 to 15 %). Quality:
pdfminer's text boxes are paragraphs on the manuals (108 to 121 characters on
average, ours 117 to 175 with whole lists as one block) but one box per line on the
fpdf2 reports (48 characters; ours joins them: 115), and it marks no headings. Safety:
pdfminer inflates every stream with an unbounded ``zlib.decompress`` (a 5 MB PDF can
hold a stream that inflates to gigabytes); pypdf bounds every decoder
(``pypdf.Configuration``, tightened below) and reads encrypted files. Its text visitor
gives each run of text with its position and font size, from which this module
rebuilds lines, paragraphs (not hard-wrapped) and headings where the font size says
so.

The Markdown convention:

* Each converted page starts with a marker line ``<!-- page N -->`` (N counts from 1,
  the page's position in the file, not its printed label), then the page's blocks.
  A page with no text still has its marker. The markers are HTML comments: Markdown
  renderers show nothing for them, and a chunk or a quote can be traced to its page.
* A line set in a font clearly larger than the body text (at least 15 % and 1 pt
  larger, under 200 characters) is a heading. The largest such size is ``#``, the
  next ``##`` and so on (at most ``######``); consecutive lines of one heading size
  are one heading. There is no ``# {title}`` line added: the document's own headings
  stay where they are, as for a DOCX.
* Lines of the body are joined into paragraphs (a hyphen at a line's end that splits
  a word is removed). A paragraph ends at a vertical gap wider than the usual line
  spacing of its font size (the gap most pairs of lines have), at an indented first
  line, at a change to or from a heading size, and before a line that starts with a
  bullet (``•`` and its kin), which becomes a ``- `` list item.
* Running headers and footers are left out: a line in the top or bottom 8 % of the
  page that repeats (digits aside) on at least 3 pages and half of them, and a page
  number alone in those bands.
* ``text`` holds the same blocks as plain text, without markers.

A PDF is ``unsupported`` (:attr:`Converted.unsupported` says why) when it is not a
PDF at all, truncated (no ``%%EOF`` in its last 1,024 bytes), damaged past reading,
too large (a stream that inflates past :data:`MAX_STREAM_BYTES`),
encrypted with a password (one that opens with the empty password, as many
"protected" PDFs do, is converted), without pages, without a text layer (scanned or
image-only pages: no OCR here), or when its text cannot be decoded (fonts that map
glyphs to no characters: what would come out is garbage).

Work per document is bounded by counts, not by time: at most :data:`MAX_PAGES` pages
and :data:`MAX_TEXT_CHARS` characters of text are converted (the row is then
``truncated``, with a note), at most :data:`MAX_LINKS` links are read, and pypdf's
decoders stop at :data:`_PYPDF_LIMITS`.

Why one file of over 500 lines: reading text runs, rebuilding lines, paragraphs and
headings from them, and the unsupported reasons share one page model and one set of
bounds.
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pypdf import PasswordType, PdfReader, apply_configuration
from pypdf.errors import LimitReachedError

from webmd_spider.documents.detect import PDF, PDF_MAGIC
from webmd_spider.documents.result import Converted, finish, metadata_title, unsupported
from webmd_spider.extract import Document, ExtractOptions, Heading, Link
from webmd_spider.extract.inline import escape_line_start, escape_text
from webmd_spider.extract.languages import guess_language
from webmd_spider.urls import site_key

logger = logging.getLogger(__name__)

#: Pages converted at most; the rest of a longer PDF is left out (``truncated``).
MAX_PAGES = 500
#: Characters of text converted at most: conversion stops after the page that passes it.
MAX_TEXT_CHARS = 1_000_000
#: Link annotations read at most (their URLs become the row's ``links``).
MAX_LINKS = 1_000
#: Bytes one stream of the file may inflate to.
MAX_STREAM_BYTES = 32 * 1024 * 1024
#: pypdf's own bounds, tightened: no stream inflates past MAX_STREAM_BYTES, no
#: decoding work past 64 MiB a stream, and never the external ``jbig2dec`` program.
_PYPDF_LIMITS: dict[str, Any] = {
    "zlib_maximum_output_length": MAX_STREAM_BYTES,
    "lzw_maximum_output_length": MAX_STREAM_BYTES,
    "run_length_maximum_output_length": MAX_STREAM_BYTES,
    "brotli_maximum_output_length": MAX_STREAM_BYTES,
    "stream_decoding_work_maximum_length": 64 * 1024 * 1024,
    "jbig2dec_binary": None,
}

#: A heading's font is at least this much larger than the body's, both ways.
HEADING_RATIO = 1.15
HEADING_MIN_POINTS = 1.0
HEADING_MAX_CHARS = 200
#: Share of the page height, at the top and at the bottom, where running headers and
#: footers are looked for.
MARGIN_BAND = 0.08
#: A running header or footer repeats on at least this many pages, and half of them.
REPEAT_MIN_PAGES = 3
#: Text whose share of undecodable characters passes this is garbage, not text.
MAX_UNREADABLE_SHARE = 0.3

#: Characters that start a bulleted line: bullets, circles, squares, and the en dash
_BULLETS = "\u2022\u25e6\u25aa\u25ab\u2023\u2219\u25cf\u25cb\u25a0\u25a1\u2013"
_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
     "\ufb05": "st", "\ufb06": "st", "\u00a0": " "}
)  # fmt: skip
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b\ufeff]")
_PAGE_NUMBER = re.compile(
    r"(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|[-\u2013\u2014]\s*\d{1,4}\s*[-\u2013\u2014]|[ivx]{1,5}",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(?:-[a-z0-9]{1,8})*")


@dataclass(slots=True)
class _Line:
    """One line of text on a page: its baseline ``y`` (PDF units, up is larger), its
    left ``x``, the font size most of its characters have, and its text."""

    y: float
    x: float
    size: float
    text: str


@dataclass(slots=True)
class _Page:
    lines: list[_Line] = field(default_factory=list)
    height: float = 0.0
    bottom: float = 0.0
    has_images: bool = False


def convert_pdf(
    body: bytes,
    url: str = "",
    options: ExtractOptions | None = None,
    *,
    max_pages: int = MAX_PAGES,
    max_text_chars: int = MAX_TEXT_CHARS,
) -> Converted:
    """Convert the bytes of a PDF file (see the module docstring for the Markdown
    convention and what is ``unsupported``). ``url`` is where it was found (links in
    it are judged internal against it); ``options.max_chars`` cuts the Markdown as it
    cuts a page's. Never raises for any input."""
    opts = options or ExtractOptions()
    problem = _precheck(body)
    if problem is not None:
        return unsupported(PDF, problem)
    try:
        with apply_configuration(**_PYPDF_LIMITS):
            return _convert(body, url, opts, max_pages, max_text_chars)
    except LimitReachedError:
        return unsupported(PDF, _too_large("its structure"))
    except Exception as exc:  # pypdf raises many kinds on damaged files: all are "damaged"
        logger.debug("PDF %s could not be read", url, exc_info=True)
        return unsupported(PDF, f"the PDF is damaged and cannot be read ({_brief(exc)})")


def _precheck(body: bytes) -> str | None:
    """Why the bytes cannot be a whole PDF file, or None."""
    if body[:64].lstrip(b" \t\r\n\x00")[:5] != PDF_MAGIC:
        start = body[:16].decode("latin-1").strip() or "nothing"
        return f"the body is not a PDF file (it starts with {start!r}, not %PDF-)"
    if b"%%EOF" not in body[-1024:]:
        return (
            "the PDF is truncated: it does not end with the %%EOF marker of a complete "
            f"file ({len(body):,} bytes received)"
        )
    return None


def _convert(
    body: bytes, url: str, opts: ExtractOptions, max_pages: int, max_text_chars: int
) -> Converted:
    reader = PdfReader(io.BytesIO(body), strict=False)
    if reader.is_encrypted:
        try:
            opened = reader.decrypt("")
        except Exception as exc:  # an encryption method pypdf cannot undo
            return unsupported(
                PDF, f"the PDF is encrypted in a way that cannot be read ({_brief(exc)})"
            )
        if opened == PasswordType.NOT_DECRYPTED:
            return unsupported(PDF, "the PDF is encrypted: it needs a password to open")
    page_count = len(reader.pages)
    if page_count == 0:
        return unsupported(PDF, "the PDF has no pages", page_count=0)
    pages: list[_Page] = []
    failed: list[str] = []
    chars = 0
    notes: list[str] = []
    cut_short = page_count > max_pages  # pages left out: the row is `truncated`
    for index in range(min(page_count, max_pages)):
        try:
            page = _read_page(reader.pages[index])
        except LimitReachedError:
            return unsupported(PDF, _too_large(f"page {index + 1}"), page_count)
        except Exception as exc:  # one damaged page: the others are still worth having
            failed.append(f"{index + 1} ({_brief(exc)})")
            page = _Page()
        pages.append(page)
        chars += sum(len(line.text) for line in page.lines)
        if chars > max_text_chars and index + 1 < page_count:
            cut_short = True
            notes.append(
                f"only the first {index + 1} of {page_count} pages were converted: they "
                f"hold over {max_text_chars:,} characters of text"
            )
            break
    else:
        if page_count > max_pages:
            notes.append(f"only the first {max_pages} of {page_count} pages were converted")
    if failed:
        notes.append("pages that could not be read: " + ", ".join(failed[:10]))
    if not any(page.lines for page in pages):
        if failed and len(failed) == len(pages):
            return unsupported(
                PDF, f"the PDF is damaged: no page could be read (page {failed[0]})", page_count
            )
        if any(page.has_images for page in pages):
            reason = (
                "the PDF has no text layer: its pages are images (a scan?); text "
                "recognition (OCR) is not done"
            )
        else:
            reason = "the PDF has no text layer: its pages hold no text"
        return unsupported(PDF, reason, page_count)
    unreadable = _unreadable_share(pages)
    if unreadable > MAX_UNREADABLE_SHARE:
        return unsupported(
            PDF,
            f"the PDF's text cannot be decoded: {unreadable:.0%} of its characters map to no "
            "readable character (fonts without a Unicode map)",
            page_count,
        )
    doc = Document(extraction_method=PDF)
    blocks = _render(pages)
    kept = finish(doc, [b.markdown for b in blocks], [b.text for b in blocks], opts.max_chars)
    # the headings of the Markdown kept, as the HTML renderer lists them
    doc.headings = [Heading(b.level, b.text) for b in blocks[:kept] if b.kind == "heading"]
    _apply_metadata(reader, doc)
    if doc.title is None:
        doc.title = next((b.text for b in blocks if b.kind == "heading"), None)
    if doc.language is None:
        doc.language = guess_language(doc.text)
    links = _links(reader, len(pages))
    page_site = site_key(url) if url else ""
    doc.links = [
        Link(text=u, url=u, internal=bool(url) and site_key(u) == page_site) for u in links
    ]
    doc.page_links = links
    doc.truncated = doc.truncated or cut_short
    spans = _spans(blocks[:kept], len(doc.markdown))
    return Converted(PDF, doc, page_count=page_count, notes=notes, spans=spans)


def _too_large(where: str) -> str:
    """The reason for a file that passes pypdf's decoding bounds."""
    return (
        f"the PDF is too large to convert: {where} inflates past "
        f"{MAX_STREAM_BYTES // (1024 * 1024)} MiB (a decompression bomb?)"
    )


def _brief(exc: BaseException) -> str:
    """An exception as one short line: its type and the start of its message."""
    message = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


# -- one page --------------------------------------------------------------------------
def _read_page(page: Any) -> _Page:
    """The lines of one page, in the order pypdf extracts them, with the page's height
    and whether it draws images."""
    box = page.cropbox
    result = _Page(height=float(box.height), bottom=float(box.bottom))
    result.has_images = _draws_images(page)
    builder = _LineBuilder()
    page.extract_text(visitor_text=builder.visit)
    result.lines = builder.finish()
    return result


def _draws_images(page: Any) -> bool:
    """Whether the page's resources hold an image (or a form, which may draw one):
    read from the resource dictionary, nothing is decoded."""
    try:
        resources = page.get("/Resources")
        xobjects = resources.get_object().get("/XObject") if resources is not None else None
        if xobjects is None:
            return False
        for ref in xobjects.get_object().values():
            if ref.get_object().get("/Subtype") in ("/Image", "/Form"):
                return True
    except Exception:  # a damaged resource dictionary: no evidence of images
        return False
    return False


class _LineBuilder:
    """Collects pypdf's text runs (``visitor_text``) into lines. A line ends at a
    newline in a run, or where a run sits on another baseline (pypdf starts new lines
    in its own output without always telling the visitor). A line's position is that
    of its first visible run, its size the size most of its characters have."""

    def __init__(self) -> None:
        self.lines: list[_Line] = []
        self._parts: list[str] = []
        self._sizes: Counter[float] = Counter()
        self._at: tuple[float, float] | None = None
        #: the last visible run: x, baseline, size, where its text ends (an estimate)
        self._run: tuple[float, float, float, float] | None = None
        self._last: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def visit(self, text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        """pypdf's ``visitor_text``: one run of text, its matrices and font size."""
        if not text:
            return
        # the text matrix times the current transformation matrix: where the run sits
        # on the page, and how much the font size is scaled
        _a, _b, c, d, e, f = tm
        ca, cb, cc, cd, ce, cf = cm
        x = e * ca + f * cc + ce
        y = e * cb + f * cd + cf
        scale = (c * ca + d * cc) ** 2 + (c * cb + d * cd) ** 2
        points = round(abs(size) * scale**0.5 * 2) / 2  # to the half point
        pieces = text.split("\n")
        for index, piece in enumerate(pieces):
            if index:
                self._end_line()
                if index < len(pieces) - 1 or piece.strip():
                    # a line that begins inside this run: no position of its own,
                    # one line below the last
                    x, y = self._last[0], self._last[1] - 1.2 * max(points, 1.0)
            if piece.strip():
                self._place(piece, x, y, points)
            self._parts.append(piece)

    def _place(self, piece: str, x: float, y: float, points: float) -> None:
        """Start a new line for a visible run on another baseline; separate a run that
        starts well right of where the last one ended (a table's next cell) by a
        space."""
        run = self._run
        if run is not None and self._at is not None:
            height = max(points, run[2], 1.0)
            if abs(y - run[1]) > 0.5 * height:
                self._end_line()  # superscripts (a third of the size up) stay on the line
            elif (
                x > run[3] + 0.8 * height
                and not piece[:1].isspace()
                and self._parts
                and not self._parts[-1][-1:].isspace()
            ):
                self._parts.append(" ")
        if self._at is None:
            self._at = (x, y)
        self._sizes[points] += len(piece.strip())
        # glyphs are about half as wide as the font is high: a rough end, enough to
        # tell a word continued from a cell further right
        self._run = (x, y, points, x + 0.5 * points * len(piece))

    def _end_line(self) -> None:
        text = _clean("".join(self._parts))
        if text and self._at is not None:
            size = self._sizes.most_common(1)[0][0]
            self.lines.append(_Line(y=self._at[1], x=self._at[0], size=size, text=text))
            self._last = (self._at[0], self._at[1], size)
        self._parts = []
        self._sizes = Counter()
        self._at = None

    def finish(self) -> list[_Line]:
        """The lines collected, the last one ended."""
        self._end_line()
        return self.lines


def _clean(text: str) -> str:
    """A line's text: ligatures spelled out, control characters dropped, spaces
    collapsed."""
    return " ".join(_CONTROL.sub("", text.translate(_LIGATURES)).split())


def _unreadable_share(pages: list[_Page]) -> float:
    """The share of characters (of the first 50,000) that are private-use, unassigned
    or replacement characters: what fonts without a Unicode map extract as."""
    total = bad = 0
    for page in pages:
        for line in page.lines:
            for char in line.text:
                if char == " ":
                    continue
                total += 1
                if char == "\ufffd" or unicodedata.category(char) in ("Co", "Cn", "Cs"):
                    bad += 1
            if total >= 50_000:
                return bad / total
    return bad / total if total else 0.0


# -- the document's layout ------------------------------------------------------------
@dataclass(slots=True)
class _Block:
    """One Markdown block: ``kind`` is ``marker`` (a page marker), ``heading``,
    ``paragraph`` or ``list`` (the lines of a tight list); ``text`` is its plain text
    ("" for a marker)."""

    kind: str
    markdown: str
    text: str
    level: int = 0


def _render(pages: list[_Page]) -> list[_Block]:
    """The Markdown blocks of the converted pages (see the module docstring for the
    rules)."""
    body = _body_size(pages)
    _drop_running_lines(pages, body)
    levels = _heading_levels(pages, body)
    leading = _leading(pages)
    blocks: list[_Block] = []
    for number, page in enumerate(pages, 1):
        blocks.append(_Block("marker", f"<!-- page {number} -->", ""))
        for kind, level, text in _page_blocks(page.lines, levels, leading):
            if kind == "item":
                item = "- " + escape_line_start(escape_text(text))
                if blocks[-1].kind == "list":  # a tight list: one item a line
                    blocks[-1].markdown += "\n" + item
                    blocks[-1].text += "\n" + text
                else:
                    blocks.append(_Block("list", item, text))
            elif kind == "heading":
                blocks.append(_Block("heading", "#" * level + " " + escape_text(text), text, level))
            else:
                blocks.append(_Block("paragraph", escape_line_start(escape_text(text)), text))
    return blocks


def _spans(blocks: list[_Block], length: int) -> list[tuple[str, int, int, int, str]]:
    """The chunker's block spans (``chunking.BlockSpan`` fields: kind, start, end,
    level, heading text) of the Markdown ``blocks`` make, cut at ``length``. A page
    marker is no block of its own: it joins the block after it (the last ones, the
    block before them), so no chunk is a marker alone and a page's first heading still
    starts its chunk."""
    spans: list[tuple[str, int, int, int, str]] = []
    offset = 0
    waiting: int | None = None  # where the markers not yet joined to a block start
    for block in blocks:
        start, end = offset, min(offset + len(block.markdown), length)
        offset += len(block.markdown) + 2
        if start >= length:
            break
        if block.kind == "marker":
            waiting = start if waiting is None else waiting
            continue
        first = start if waiting is None else waiting
        waiting = None
        if block.kind == "list":
            position = start
            for index, line in enumerate(block.markdown.split("\n")):
                line_end = min(position + len(line), length)
                if position < line_end:
                    spans.append(("list_item", first if index == 0 else position, line_end, 0, ""))
                position += len(line) + 1
        elif block.kind == "heading":
            spans.append(("heading", first, end, block.level, block.text))
        else:
            spans.append(("paragraph", first, end, 0, ""))
    if waiting is not None and spans:
        kind, start, _end, level, text = spans[-1]
        spans[-1] = (kind, start, length, level, text)
    return spans


def _body_size(pages: list[_Page]) -> float:
    """The font size most characters have (0 for no text)."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _heading_size(size: float, body: float) -> bool:
    return size >= body * HEADING_RATIO and size >= body + HEADING_MIN_POINTS


def _drop_running_lines(pages: list[_Page], body: float) -> None:
    """Remove running headers and footers (see the module docstring) from ``pages``.
    A line set in a heading size is never one (a chapter title at the top of every
    page is content)."""

    def band(page: _Page, line: _Line) -> bool:
        if page.height <= 0 or _heading_size(line.size, body):
            return False
        position = (line.y - page.bottom) / page.height
        return position < MARGIN_BAND or position > 1 - MARGIN_BAND

    seen: Counter[str] = Counter()
    for page in pages:
        keys = {_DIGITS.sub("#", line.text.lower()) for line in page.lines if band(page, line)}
        seen.update(keys)
    threshold = max(REPEAT_MIN_PAGES, (len(pages) + 1) // 2)
    running = {key for key, count in seen.items() if count >= threshold}
    for page in pages:
        page.lines = [
            line
            for line in page.lines
            if not band(page, line)
            or not (
                _PAGE_NUMBER.fullmatch(line.text) or _DIGITS.sub("#", line.text.lower()) in running
            )
        ]


def _heading_levels(pages: list[_Page], body: float) -> dict[float, int]:
    """Font size -> heading level: the sizes clearly larger than the body's, the
    largest ``1``."""
    sizes = {line.size for page in pages for line in page.lines}
    larger = sorted((s for s in sizes if _heading_size(s, body)), reverse=True)
    return {size: min(index + 1, 6) for index, size in enumerate(larger)}


def _leading(pages: list[_Page]) -> dict[float, float]:
    """Font size -> the baseline distance most pairs of consecutive lines of that size
    have (to the half point): the size's line spacing, which a paragraph break exceeds
    (a document may add only a few points between paragraphs)."""
    gaps: dict[float, Counter[float]] = {}
    for page in pages:
        for previous, line in zip(page.lines, page.lines[1:], strict=False):
            gap = previous.y - line.y
            if line.size == previous.size and 0 < gap <= 2 * line.size:
                gaps.setdefault(line.size, Counter())[round(gap * 2) / 2] += 1
    return {size: counter.most_common(1)[0][0] for size, counter in gaps.items()}


def _page_blocks(
    lines: list[_Line], levels: dict[float, int], leading: dict[float, float]
) -> Iterator[tuple[str, int, str]]:
    """``(kind, level, text)`` for each block of a page's lines: ``heading`` (level
    1-6), ``item`` (a bulleted line and its continuation) or ``paragraph``."""
    kind, level = "", 0
    parts: list[str] = []
    previous: _Line | None = None
    for line in lines:
        line_level = levels.get(line.size, 0)
        if len(line.text) > HEADING_MAX_CHARS or not any(c.isalpha() for c in line.text):
            line_level = 0
        bullet = line.text[0] in _BULLETS and (len(line.text) == 1 or line.text[1] == " ")
        if (
            previous is not None
            and parts
            and _continues(kind, level, previous, line, line_level, bullet, leading)
        ):
            parts.append(line.text)
            previous = line
            continue
        if parts:
            yield kind, level, _join(parts)
        if line_level:
            kind, level, parts = "heading", line_level, [line.text]
        elif bullet:
            kind, level, parts = "item", 0, [line.text[1:].strip()]
        else:
            kind, level, parts = "paragraph", 0, [line.text]
        previous = line
    if parts:
        yield kind, level, _join(parts)


def _continues(
    kind: str,
    level: int,
    previous: _Line,
    line: _Line,
    line_level: int,
    bullet: bool,
    leading: dict[float, float],
) -> bool:
    """Whether ``line`` goes on the block ``previous`` is the last line of."""
    gap = previous.y - line.y
    spacing = max(previous.size, line.size)
    if kind == "heading":
        # a heading set on two lines: same size, the next line just below
        return line_level == level and 0 < gap <= 2.0 * spacing
    if line_level or bullet:
        return False
    usual = leading.get(line.size, 1.2 * line.size)
    if not 0 < gap <= min(1.6 * spacing, max(1.15 * usual, usual + 1.5)):
        return False  # more space than between lines, a column, or a step back up
    # an indented first line starts a new paragraph
    return not (kind == "paragraph" and line.x > previous.x + spacing)


def _join(parts: list[str]) -> str:
    """A block's lines as one line: a word broken by a hyphen at a line's end is joined
    again, lines of CJK text are joined without a space."""
    out = parts[0]
    for part in parts[1:]:
        if not out:
            out = part
        elif (
            len(out) > 1
            and out[-1] in "-\u00ad"
            and out[-2].isalpha()
            and out[-2].islower()
            and part[:1].islower()
        ):
            out = out[:-1] + part
        elif _cjk(out[-1]) and _cjk(part[0]):
            out += part
        else:
            out += " " + part
    return out


def _cjk(char: str) -> bool:
    return (
        "\u2e80" <= char <= "\u9fff" or "\uac00" <= char <= "\ud7af" or "\uff00" <= char <= "\uffef"
    )


# -- metadata and links ---------------------------------------------------------------
def _apply_metadata(reader: PdfReader, doc: Document) -> None:
    """Title, author, subject, keywords, dates and language from the document
    information dictionary and the catalog; a damaged entry is skipped."""
    try:
        info = reader.metadata
    except Exception:
        info = None
    if info is not None:
        doc.title = metadata_title(_field(info, "/Title"))
        doc.author = _short(_field(info, "/Author"))
        doc.description = _short(_field(info, "/Subject"), 1000)
        words = _field(info, "/Keywords")
        if isinstance(words, str):
            doc.keywords = list(
                dict.fromkeys(w.strip() for w in re.split(r"[,;]", words) if w.strip())
            )[:50]
        doc.published_at = _date(info, "creation_date")
        doc.modified_at = _date(info, "modification_date")
    lang: Any = None
    try:
        root: Any = reader.trailer["/Root"].get_object()
        lang = root.get("/Lang")
    except Exception:  # a damaged catalog: no language from it
        lang = None
    if isinstance(lang, str):
        tag = lang.strip().lower().replace("_", "-")
        if _LANGUAGE_TAG.fullmatch(tag):
            doc.language = tag


def _field(info: Any, key: str) -> Any:
    try:
        value = info.get(key)
        return value.get_object() if value is not None else None
    except Exception:
        return None


def _short(value: Any, limit: int = 300) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(_CONTROL.sub("", value).split())[:limit]
    return text or None


def _date(info: Any, name: str) -> str | None:
    """An information-dictionary date as ISO 8601, or None (absent or malformed)."""
    try:
        value = getattr(info, name)
    except Exception:
        return None
    return value.isoformat() if isinstance(value, datetime) else None


def _links(reader: PdfReader, pages: int) -> list[str]:
    """The http(s) URLs of the link annotations of the first ``pages`` pages, in order,
    deduplicated, at most :data:`MAX_LINKS`."""
    found: dict[str, None] = {}
    for index in range(pages):
        try:
            annotations = reader.pages[index].get("/Annots")
            items = annotations.get_object() if annotations is not None else []
            for item in items:
                action = item.get_object().get("/A")
                uri = action.get_object().get("/URI") if action is not None else None
                if isinstance(uri, bytes):
                    uri = uri.decode("latin-1")
                if isinstance(uri, str) and uri.strip().lower().startswith(("http://", "https://")):
                    found.setdefault(uri.strip())
                if len(found) >= MAX_LINKS:
                    return list(found)
        except Exception:  # a damaged annotation list: the page's links are skipped
            continue
    return list(found)
