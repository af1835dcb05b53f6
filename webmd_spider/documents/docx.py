"""A Word (DOCX) file to Markdown and text, through mammoth and our own extractor.

Pure module (mammoth, lxml and the standard library; nothing from Scrapy or Twisted).

mammoth turns the document into plain semantic HTML (headings from the Heading
styles, lists, tables, links; the ``Title`` style becomes a ``<h1>`` too). That HTML
goes through ``extract()`` with ``main_content_only=False``: the whole body rendered
by our renderer, nothing removed as chrome, so headings, lists and tables follow the
same rules as on web pages. Images are kept out (mammoth would inline each as a base64
``data:`` URI; only their alt text could be of use, and the renderer keeps http(s)
images only). The title is the document property ``title`` (``docProps/core.xml``),
else the first heading. Author, description, keywords, dates and language come from
the same properties.

A DOCX is ``unsupported`` when it is not a ZIP holding a Word document (a
password-protected Word file is an OLE2 file, not a ZIP: it says so), when its XML
parts would inflate past :data:`MAX_XML_BYTES` or it has more than
:data:`MAX_ENTRIES` parts (a ZIP bomb), or when mammoth cannot read it. Those bounds
are read from the ZIP's central directory before anything is inflated; Python's
``zipfile`` never inflates an entry past its declared size.
"""

from __future__ import annotations

import html
import io
import logging
import zipfile
from dataclasses import replace

import mammoth
from lxml import etree

from webmd_spider.documents.detect import DOCX, OLE_MAGIC, ZIP_MAGIC
from webmd_spider.documents.result import Converted, metadata_title, unsupported
from webmd_spider.extract import ExtractOptions, extract

logger = logging.getLogger(__name__)

#: Parts of a DOCX at most (a Word document has a few dozen).
MAX_ENTRIES = 10_000
#: Bytes the XML parts of a DOCX may inflate to, all together (mammoth reads them into
#: a DOM; a long book is a few megabytes).
MAX_XML_BYTES = 32 * 1024 * 1024
#: ``docProps/core.xml`` is read only up to this size.
MAX_CORE_BYTES = 1024 * 1024
#: mammoth's style map, added to its defaults: the Title style is a heading.
STYLE_MAP = "p[style-name='Title'] => h1:fresh\np[style-name='Subtitle'] => p:fresh"

_CORE_FIELDS = {
    "title": "{http://purl.org/dc/elements/1.1/}title",
    "author": "{http://purl.org/dc/elements/1.1/}creator",
    "description": "{http://purl.org/dc/elements/1.1/}description",
    "subject": "{http://purl.org/dc/elements/1.1/}subject",
    "language": "{http://purl.org/dc/elements/1.1/}language",
    "keywords": "{http://schemas.openxmlformats.org/package/2006/metadata/core-properties}keywords",
    "created": "{http://purl.org/dc/terms/}created",
    "modified": "{http://purl.org/dc/terms/}modified",
}


def convert_docx(body: bytes, url: str = "", options: ExtractOptions | None = None) -> Converted:
    """Convert the bytes of a DOCX file (see the module docstring). ``url`` is where it
    was found (its links resolve and are judged internal against it); the content
    options of ``options`` apply as to a page (``max_chars``, ``keep_links``...), but
    always on the whole document. Never raises for any input."""
    opts = replace(options or ExtractOptions(), main_content_only=False)
    problem = _precheck(body)
    if problem is not None:
        return unsupported(DOCX, problem)
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            core = _core_properties(archive)
        result = mammoth.convert_to_html(
            io.BytesIO(body),
            style_map=STYLE_MAP,
            # no image is read or encoded: an <img> with its alt text only
            convert_image=mammoth.images.img_element(lambda image: {}),
        )
    except Exception as exc:  # mammoth and zipfile raise many kinds on damaged files
        logger.debug("DOCX %s could not be read", url, exc_info=True)
        message = " ".join(str(exc).split())[:160]
        return unsupported(
            DOCX, f"the DOCX is damaged and cannot be read ({type(exc).__name__}: {message})"
        )
    for message in result.messages[:20]:
        logger.debug("DOCX %s: %s", url, message.message)
    page = _page(result.value, core)
    doc = extract(page, url, encoding="utf-8", options=opts)
    if doc.error:
        return unsupported(DOCX, f"the DOCX could not be converted ({doc.error})")
    doc.extraction_method = DOCX
    doc.title = metadata_title(core.get("title")) or (
        doc.headings[0].text if doc.headings else None
    )
    return Converted(DOCX, doc)


def _precheck(body: bytes) -> str | None:
    """Why the bytes cannot be converted as a DOCX, read from the ZIP's central
    directory alone, or None."""
    if body[:8] == OLE_MAGIC:
        return (
            "the file is not a DOCX but an OLE2 compound file: a password-protected Word "
            "document or a legacy .doc, which cannot be read"
        )
    if body[:4] != ZIP_MAGIC:
        start = body[:16].decode("latin-1").strip() or "nothing"
        return f"the body is not a DOCX file (it starts with {start!r}, not a ZIP archive)"
    try:
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, NotImplementedError) as exc:
        return f"the DOCX is damaged or truncated: its ZIP directory cannot be read ({exc})"
    if len(entries) > MAX_ENTRIES:
        return f"the DOCX has {len(entries):,} parts, more than {MAX_ENTRIES:,}"
    names = {entry.filename for entry in entries}
    if "[Content_Types].xml" not in names or not any(n.startswith("word/") for n in names):
        return "the ZIP archive is not a Word document (it has no word/ part)"
    if any(entry.flag_bits & 0x1 for entry in entries):
        return "the DOCX's parts are encrypted: it needs a password to open"
    # every part but the media counts: mammoth finds the main part through
    # _rels/.rels, whatever its name ends with (word/document.dat is read as XML too)
    inflated = sum(e.file_size for e in entries if not e.filename.startswith("word/media/"))
    if inflated > MAX_XML_BYTES:
        return (
            f"the DOCX's text would inflate to {inflated:,} bytes of XML, more than "
            f"{MAX_XML_BYTES:,}"
        )
    return None


def _core_properties(archive: zipfile.ZipFile) -> dict[str, str]:
    """The document properties of ``docProps/core.xml`` (title, author, dates...);
    empty when the part is absent, too large or not well-formed XML."""
    try:
        info = archive.getinfo("docProps/core.xml")
    except KeyError:
        return {}
    if info.file_size > MAX_CORE_BYTES:
        return {}
    # no DTD, no entities, no network: the part is untrusted XML
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(archive.read(info), parser)
    except etree.XMLSyntaxError:
        return {}
    found: dict[str, str] = {}
    for name, tag in _CORE_FIELDS.items():
        element = root.find(tag)
        text = " ".join((element.text or "").split()) if element is not None else ""
        if text:
            found[name] = text[:1000]
    return found


def _page(body_html: str, core: dict[str, str]) -> str:
    """mammoth's HTML as a page whose head carries the document properties, so that
    ``extract()`` reads them as it reads a web page's."""
    head = ['<meta charset="utf-8">']
    if core.get("title"):
        head.append(f"<title>{html.escape(core['title'])}</title>")
    metas = {
        "author": core.get("author"),
        "description": core.get("description") or core.get("subject"),
        "keywords": core.get("keywords"),
        "article:published_time": core.get("created"),
        "article:modified_time": core.get("modified"),
    }
    for name, value in metas.items():
        if value:
            head.append(f'<meta name="{name}" content="{html.escape(value)}">')
    lang = f' lang="{html.escape(core["language"])}"' if core.get("language") else ""
    return f"<!DOCTYPE html><html{lang}><head>{''.join(head)}</head><body>{body_html}</body></html>"
