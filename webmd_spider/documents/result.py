"""What a document conversion gives, and the finishing steps PDF and DOCX share.

Pure module (standard library and ``extract``'s result types).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from webmd_spider.extract import Document
from webmd_spider.extract.markdown import markdown_hash

#: Metadata titles that name the software or the file, not the document: PDF
#: printers write "Microsoft Word - report.docx", templates leave "Untitled".
_JUNK_TITLE = re.compile(
    r"(?:microsoft\s+(?:word|powerpoint|excel)\s+-\s.*|untitled\S*|title|document\d*|"
    r"slide\s*\d*|.*\.(?:docx?|pdf|odt|rtf|pptx?|xlsx?|indd|tex|dvi|ps|txt|html?))",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Converted:
    """One PDF or DOCX file converted.

    ``document`` is filled as ``extract()`` fills it for an HTML page (``markdown``,
    ``text``, ``title``, ``headings``, the counts, ``content_hash``, metadata), with
    ``extraction_method`` the document kind (``"pdf"`` or ``"docx"``). When
    ``unsupported`` is set the file could not be converted (encrypted, damaged,
    truncated, no text layer...): it is the reason, in one plain sentence, the
    document holds no content, and ``document.error`` is the same reason.
    ``page_count`` is the number of pages of a PDF (all of them, also when only the
    first ``MAX_PAGES`` were converted), None for a DOCX. ``notes`` say how the file
    was read when that is worth knowing (pages left out, pages that could not be read).
    """

    kind: str
    document: Document
    page_count: int | None = None
    unsupported: str | None = None
    notes: list[str] = field(default_factory=list)
    #: the Markdown's block spans for the chunker (``chunking.BlockSpan`` fields: kind,
    #: start, end, heading level, heading text), None to let it find them
    spans: list[tuple[str, int, int, int, str]] | None = None


def unsupported(kind: str, reason: str, page_count: int | None = None) -> Converted:
    """A conversion that failed for ``reason`` (a plain sentence a user can act on)."""
    doc = Document(extraction_method=kind, error=reason)
    return Converted(kind, doc, page_count=page_count, unsupported=reason)


def metadata_title(value: object) -> str | None:
    """A metadata title worth showing: stripped, spaces collapsed, at most 300
    characters; None for an empty one or one that names the software or the file
    (``Microsoft Word - x.docx``, ``Untitled``, ``report.pdf``)."""
    if not isinstance(value, str):
        return None
    title = " ".join(value.split())[:300]
    if not title or _JUNK_TITLE.fullmatch(title):
        return None
    return title


def cut_blocks(blocks: list[str], max_chars: int) -> tuple[str, int]:
    """``blocks`` joined by blank lines, cut at a block boundary so that the result holds
    at most ``max_chars`` characters (0: no cut). Returns ``(markdown, kept)``: how many
    blocks were kept whole; a first block longer than ``max_chars`` is cut inside and
    counts as kept."""
    whole = "\n\n".join(blocks)
    if not max_chars or len(whole) <= max_chars:
        return whole, len(blocks)
    size = 0
    for index, block in enumerate(blocks):
        size += len(block) + (2 if index else 0)
        if size > max_chars:
            if index == 0:
                return block[:max_chars].rstrip(), 1
            return "\n\n".join(blocks[:index]), index
    return whole, len(blocks)  # not reached: the whole text was longer than max_chars


def finish(doc: Document, blocks: list[str], text_blocks: list[str], max_chars: int) -> int:
    """Fill ``doc``'s Markdown, text and counts from rendered blocks, as the HTML
    renderer does: ``content_hash`` over the whole Markdown, then the ``max_chars`` cut
    at a block boundary (``truncated``), ``text`` of the blocks kept, ``word_count`` of
    that text and ``total_words`` of all of it. ``text_blocks[i]`` is the plain text of
    ``blocks[i]`` ("" for a block with none, such as a page marker). Returns how many
    blocks the Markdown kept (see :func:`cut_blocks`)."""
    whole = "\n\n".join(blocks)
    doc.content_hash = markdown_hash(whole) if whole else ""
    doc.markdown, kept = cut_blocks(blocks, max_chars)
    doc.truncated = len(doc.markdown) < len(whole)
    all_text = [t for t in text_blocks if t]
    doc.total_words = sum(len(t.split()) for t in all_text)
    doc.text = "\n\n".join(t for t in text_blocks[:kept] if t)
    doc.word_count = len(doc.text.split()) if doc.truncated else doc.total_words
    doc.char_count = len(doc.markdown)
    return kept
