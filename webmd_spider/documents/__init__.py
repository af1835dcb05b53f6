"""PDF and DOCX documents (and Markdown given to ``webmd convert``) to Markdown, text
and metadata, as pages.

Pure package: no Scrapy or Twisted (checked by import-linter). The crawl
(``offload.page_work``), ``webmd convert`` and ``api.convert`` all call
:func:`convert_document`; :func:`sniff` and :func:`document_kind`
(``documents.detect``) tell which bodies are documents.

* ``pdf``: pypdf's text runs rebuilt into paragraphs and font-size headings, one
  ``<!-- page N -->`` marker line before each page's content (the convention is in
  ``documents/pdf.py``'s docstring and the README).
* ``docx``: mammoth to HTML, then ``extract()`` on the whole body.
* ``markdown_input``: Markdown or plain text passed through as the page's Markdown,
  its other columns read from it rendered (``webmd convert README.md``; never chosen by
  the crawl, which converts HTML and the two document kinds).
* A file that cannot be converted gives :attr:`Converted.unsupported`, the reason: the
  crawl writes it as an ``unsupported`` diagnostic row.
"""

from __future__ import annotations

from webmd_spider.documents.detect import (
    DOCUMENT_KINDS,
    DOCX,
    MARKDOWN,
    MIME_TYPES,
    PDF,
    declared_kind,
    document_kind,
    is_markdown,
    sniff,
)
from webmd_spider.documents.result import Converted
from webmd_spider.extract import ExtractOptions

#: the ``page_type`` of every converted document (PDF, DOCX, Markdown)
DOCUMENT_PAGE_TYPE = "other"


def convert_document(
    body: bytes, url: str, kind: str, options: ExtractOptions | None = None
) -> Converted:
    """Convert a document of ``kind`` (``"pdf"``, ``"docx"`` or ``"markdown"``) found at
    ``url``, with the content options of ``options``. Never raises for any input: a
    file that is not what ``kind`` says, or cannot be read, is ``unsupported`` with the
    reason. Raises ValueError for any other ``kind``.

    The document's ``page_type`` is ``other``, with the evidence ``document:KIND``
    (:data:`DOCUMENT_PAGE_TYPE`), whatever its content looks like."""
    converted = _convert(body, url, kind, options)
    # The page-type step reads a web page (its JSON-LD, its cards, its chrome); a
    # document has none of those, and a DOCX rendered to HTML or a Markdown file full
    # of links must not pass for a listing (skip_page_types would drop it, the
    # frontier would queue its links last).
    converted.document.page_type = DOCUMENT_PAGE_TYPE
    converted.document.page_type_evidence = [f"document:{converted.kind}"]
    return converted


def _convert(body: bytes, url: str, kind: str, options: ExtractOptions | None) -> Converted:
    """:func:`convert_document` without the page type."""
    # imported here: pypdf, mammoth and markdown-it load only when a document comes
    if kind == PDF:
        from webmd_spider.documents.pdf import convert_pdf

        return convert_pdf(body, url, options)
    if kind == DOCX:
        from webmd_spider.documents.docx import convert_docx

        return convert_docx(body, url, options)
    if kind == MARKDOWN:
        from webmd_spider.documents.markdown_input import convert_markdown

        return convert_markdown(body, url, options)
    kinds = (*DOCUMENT_KINDS, MARKDOWN)
    raise ValueError(f"unknown document kind {kind!r}; expected one of {kinds}")


__all__ = [
    "DOCUMENT_KINDS",
    "DOCUMENT_PAGE_TYPE",
    "DOCX",
    "MARKDOWN",
    "MIME_TYPES",
    "PDF",
    "Converted",
    "convert_document",
    "declared_kind",
    "document_kind",
    "is_markdown",
    "sniff",
]
