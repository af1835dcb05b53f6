"""The work on one page that needs no crawl state: extraction, the row's document
columns and the chunks, as one picklable result.

Pure module (no Scrapy, no Twisted): it is what an extraction process runs
(``webmd_spider.offload.pool``), so that the crawl process receives plain data (str,
numbers, lists, dicts: unpickled by C code) instead of a ``Document`` full of small
dataclass objects that it would then convert itself. The crawl process runs the same
function for the pages it extracts itself, so every page takes one path: one
extraction, one set of row columns, chunked once, here.

A PDF or DOCX body (by its magic bytes, or the kind the caller names) is converted by
``documents.convert_document`` instead of ``extract()``, and then takes the same path:
the same row columns (plus ``page_count``), chunked the same way. An HTML page pays two
``bytes.startswith`` calls for that check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webmd_spider.chunking.markdown_chunks import BlockSpan, chunk_markdown
from webmd_spider.documents import convert_document, sniff
from webmd_spider.extract import Document, ExtractOptions, extract
from webmd_spider.rows.page_rows import document_columns, is_empty

#: ``extract_page(document=HTML)``: convert as HTML whatever the bytes look like
HTML = "html"


@dataclass
class PageWork:
    """The result of :func:`extract_page`.

    ``document`` is the extracted ``Document`` without its content: ``markdown``,
    ``text``, ``html``, ``headings``, ``links``, ``images`` and ``tables`` are emptied
    when ``columns`` is set, because ``columns`` (``page_rows.document_columns``)
    holds them in row form; every other attribute (title, canonical, page links,
    robots directives, word counts, error...) is as extracted. ``columns`` is None
    when the page is ``empty`` (it gives a diagnostic row, not a page row).
    ``chunks`` are the row's ``chunks`` (``Chunk.to_dict()``) when a chunk size was
    given and the page has Markdown, else None. ``kind`` is ``"pdf"`` or ``"docx"``
    for a document, None for an HTML page.
    """

    document: Document
    columns: dict[str, Any] | None
    chunks: list[dict[str, Any]] | None
    kind: str | None = None


def extract_page(
    body: bytes,
    url: str,
    encoding: str | None,
    options: ExtractOptions,
    chunk_size: int = 0,
    chunk_overlap: int = 0,
    document: str | None = None,
) -> PageWork:
    """Extract one page and prepare its row columns and chunks (see :class:`PageWork`).

    ``url`` is the page's final URL (what the row's ``final_url`` and the chunks'
    ``url`` are). ``document`` names the document kind the response declared
    (``"pdf"``, ``"docx"``), or ``"html"`` for a body known to be HTML; without it a
    body whose bytes say PDF or DOCX is converted as one, anything else as HTML. Never
    raises for any page (``extract()`` and ``convert_document()`` do not).
    """
    # "html": the caller knows it is HTML (text handed to api.convert, an MCP tool's
    # argument): a body that merely starts with %PDF- is not parsed as a PDF
    kind = None if document == HTML else (document or sniff(body))
    spans = None
    if kind is not None:
        converted = convert_document(body, url, kind, options)
        doc = converted.document
        extra: dict[str, Any] = {"page_count": converted.page_count}
        if converted.notes:
            extra["notes"] = list(converted.notes)
        if converted.spans is not None:
            spans = [BlockSpan(*span) for span in converted.spans]
    else:
        doc = extract(body, url, encoding=encoding, options=options)
        extra = {}
    if is_empty(doc):
        return PageWork(doc, None, None, kind)
    columns = document_columns(doc)
    columns.update(extra)
    chunks = None
    if chunk_size > 0 and doc.markdown:
        # the one place pages are chunked: here, in whichever process extracts them
        found = chunk_markdown(
            doc.markdown, url, chunk_size, chunk_overlap, blocks=spans, title=doc.title
        )
        chunks = [c.to_dict() for c in found]
    # the content travels once, in `columns`
    doc.markdown = doc.text = ""
    doc.html = None
    doc.headings, doc.links, doc.images, doc.tables = [], [], [], []
    return PageWork(doc, columns, chunks, kind)
