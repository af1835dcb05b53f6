"""Which responses are documents: PDF and DOCX, by their magic bytes or their
``Content-Type`` (links are judged by their extension in ``urls.follow_rejection``);
and which input of ``webmd convert`` is Markdown rather than HTML (:func:`is_markdown`).

Pure module: standard library only. Every check here is cheap (a prefix compare; for a
ZIP body, a read of its central directory), because :func:`sniff` runs on every page
the crawl extracts: an HTML page costs it two ``bytes.startswith`` calls.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import PurePath

PDF = "pdf"
DOCX = "docx"
#: The document kinds, also the ``extraction_method`` of their page rows.
DOCUMENT_KINDS = (PDF, DOCX)

#: The kind, and the ``extraction_method`` of its page rows.
MARKDOWN = "markdown"
#: File name endings that say Markdown whatever the content holds.
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mkdn"})

#: A tag of an HTML document, or of an element of one. Only element names HTML defines
#: count, so that ``List<String>`` or ``Vec<T>`` in prose about generics, ``<https://x>``
#: (a Markdown autolink) or ``<me@example.org>`` leave a text Markdown; a doctype, a
#: comment or a processing instruction make it HTML.
_HTML_TAG = re.compile(
    r"<(?:!doctype\b|!--|\?xml\b|/?(?:a|abbr|address|article|aside|audio|b|base|bdi|bdo|"
    r"blockquote|body|br|button|canvas|caption|center|cite|code|col|colgroup|dd|del|"
    r"details|dfn|dialog|div|dl|dt|em|embed|fieldset|figcaption|figure|font|footer|form|"
    r"frame|frameset|h[1-6]|head|header|hr|html|i|iframe|img|input|ins|kbd|label|legend|"
    r"li|link|main|mark|menu|meta|meter|nav|noscript|object|ol|optgroup|option|output|p|"
    r"param|picture|pre|progress|q|s|samp|script|section|select|small|source|span|strong|"
    r"style|sub|summary|sup|svg|table|tbody|td|template|textarea|tfoot|th|thead|time|"
    r"title|tr|track|tt|u|ul|var|video|wbr)(?=[\s/>]))",
    re.IGNORECASE,
)
#: a fenced code block and an inline code span (their text is code, not markup)
_FENCED_CODE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}\1[ \t]*$|\Z)", re.M | re.S)
_INLINE_CODE = re.compile(r"(`+)[^`\n]+?\1")
#: what only a whole HTML page has
_DOCUMENT_TAG = re.compile(r"<(?:!doctype\b|html[\s>]|head[\s>]|body[\s>])", re.IGNORECASE)
#: a line only Markdown writes: an ATX heading, a list item, a setext underline, a
#: fence, a reference-style link definition
_MARKDOWN_LINE = re.compile(
    r"^(?: {0,3}#{1,6}[ \t]+\S| {0,3}[-*+][ \t]+\S| {0,3}\d{1,9}[.)][ \t]+\S| {0,3}(?:=+|-+)[ \t]*$"
    r"| {0,3}```| {0,3}\[[^\]\n]+\]:[ \t]*\S)",
    re.MULTILINE,
)
#: How many bytes are looked at to tell Markdown from HTML: a page's first tags are
#: near its start, and a long file need not be scanned to the end.
_SNIFF_BYTES = 1 << 20

#: The media type each kind is served as.
MIME_TYPES: dict[str, str] = {
    PDF: "application/pdf",
    DOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
#: Content types that declare a document (older spellings of the PDF type included).
DECLARED: dict[str, str] = {
    "application/pdf": PDF,
    "application/x-pdf": PDF,
    "application/acrobat": PDF,
    MIME_TYPES[DOCX]: DOCX,
}

PDF_MAGIC = b"%PDF-"
ZIP_MAGIC = b"PK\x03\x04"
#: An OLE2 compound file: a legacy .doc, or a password-protected Word file (Office
#: encrypts a .docx into one of these), which mammoth cannot read.
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: Leading bytes a PDF reader skips before ``%PDF-`` (blanks some servers prepend).
_LEADING = b" \t\r\n\x00"


def sniff(body: bytes) -> str | None:
    """The document kind the bytes themselves say, or None: ``"pdf"`` for a body that
    starts (after blanks) with ``%PDF-``; ``"docx"`` for a ZIP archive holding a
    ``word/`` part (a Word document; other ZIP files, XLSX and PPTX included, are not
    documents here). Never raises."""
    if body[:5] == PDF_MAGIC or body[:64].lstrip(_LEADING)[:5] == PDF_MAGIC:
        return PDF
    if body[:4] == ZIP_MAGIC and _is_word_zip(body):
        return DOCX
    return None


def _is_word_zip(body: bytes) -> bool:
    """Whether a ZIP body is a Word document: it has ``[Content_Types].xml`` and a part
    under ``word/`` (reads the central directory only, nothing is inflated)."""
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError):
        return False
    return "[Content_Types].xml" in names and any(n.startswith("word/") for n in names)


def declared_kind(content_type: str | None) -> str | None:
    """The document kind a ``Content-Type`` header declares (parameters ignored), or
    None."""
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    return DECLARED.get(mime)


def document_kind(content_type: str | None, body: bytes) -> str | None:
    """The kind to convert a response as, or None when it is no document: what the
    bytes say first (a PDF served as ``application/octet-stream`` is a PDF), else what
    the ``Content-Type`` declares (a body that then turns out not to be one is an
    ``unsupported`` row that says so, never text read from the wrong format)."""
    return sniff(body) or declared_kind(content_type)


def is_markdown(body: bytes, name: str | None = None) -> bool:
    """Whether ``body`` is to be converted as Markdown rather than HTML: ``name`` (a
    file name, None for stdin) ends in ``.md``, ``.markdown``... ; or ``body`` is UTF-8
    text with some non-blank character and no HTML tag (see ``_HTML_TAG``: plain text
    counts as Markdown, because Markdown is what plain text already is). Binary,
    non-UTF-8 and empty input is not Markdown (HTML conversion reports on it). Never
    raises."""
    if name is not None and PurePath(name).suffix.lower() in MARKDOWN_SUFFIXES:
        return True
    head = body[:_SNIFF_BYTES]
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # the prefix may end inside a character (up to 4 bytes): that is still UTF-8
        if exc.start < len(head) - 3:
            return False
        text = head[: exc.start].decode("utf-8-sig")
    if not text.strip() or "\x00" in text:
        return False
    # tags written about inside code are not markup: `<title>` in a README's prose
    prose = _INLINE_CODE.sub(" ", _FENCED_CODE.sub(" ", text))
    if _DOCUMENT_TAG.search(prose):
        return False  # a page: <!doctype>, <html>, <head>, <body>
    if _MARKDOWN_LINE.search(prose):
        return True  # Markdown with some inline HTML (<br>, <img>, <details>) is Markdown
    return _HTML_TAG.search(prose) is None
