"""Bytes or str to one lxml HTML tree, with charset detection.

The page is parsed exactly once here; every other module works on this tree.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree
from w3lib.encoding import html_to_unicode

# libxml2 rejects a str that carries its own encoding declaration, and the
# declaration is meaningless once the text is decoded, so it is dropped.
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
# C0 controls (except tab, newline, carriage return) are not allowed in lxml
# strings and carry no text; NUL in particular makes libxml2 stop reading.
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])

# UTF-8 is fixed because the input handed to libxml2 is always our own
# re-encoding of the decoded text, never the raw bytes.
# collect_ids=False: libxml2 would otherwise index every id attribute in a hash table
# (and unindex it when the element is dropped), which only XPath's id() reads: no code
# here does.
_PARSER = etree.HTMLParser(
    encoding="utf-8", remove_comments=True, remove_pis=True, collect_ids=False
)
# lxml.html's own parser picks each element's Python class in a Python method
# (HtmlElementClassLookup: special classes for forms and inputs, which we never use),
# called for every element proxy the extractor creates (~8% of parse + walk time on
# documentation pages). A default-class lookup gives the same HtmlElement API from C.
_PARSER.set_element_class_lookup(
    etree.ElementDefaultClassLookup(
        element=lxml.html.HtmlElement,
        comment=lxml.html.HtmlComment,
        pi=lxml.html.HtmlProcessingInstruction,
        entity=lxml.html.HtmlEntity,
    )
)


def decode(body: bytes | str, encoding: str | None = None) -> str:
    """Return the page as text.

    `encoding` is the charset of the HTTP Content-Type header (or None). Bytes
    are decoded by w3lib: BOM first, then the header, then <meta charset>, then
    UTF-8 with replacement characters. A str is returned unchanged.
    """
    if isinstance(body, str):
        return body
    header = f"text/html; charset={encoding}" if encoding else None
    try:
        return html_to_unicode(header, body)[1]
    except (LookupError, ValueError):
        # An unknown or broken charset name must not lose the page.
        return body.decode("utf-8", "replace")


def _without_declaration(text: str) -> str:
    # `match`, not `sub`: the pattern is anchored, yet `sub` would try it at every
    # position of the page
    declaration = _XML_DECLARATION.match(text)
    return text[declaration.end() :] if declaration else text


def clean_source(text: str) -> str:
    """Remove what libxml2 cannot take from a str: XML declaration, control chars."""
    return _CONTROL_CHARS.sub("", _without_declaration(text))


def parse_html(body: bytes | str, encoding: str | None = None) -> lxml.html.HtmlElement | None:
    """Parse a page into an lxml `<html>` element; None when there is nothing to parse.

    Never raises: empty input, whitespace only, or anything libxml2 refuses
    gives None. Nesting deeper than libxml2's limit (256) is flattened by the
    parser itself, which keeps later recursive walks safe.
    """
    text = _without_declaration(decode(body, encoding))
    # Lone surrogates in a str cannot be encoded; "replace" turns them into "?".
    data = text.encode("utf-8", "replace")
    # The control characters are dropped from the UTF-8 bytes (each is one byte there,
    # a value no multi-byte sequence uses): a C-speed delete, where the regular
    # expression over the str costs a few percent of a whole extraction. The bytes
    # are those of `clean_source(text)` encoded.
    clean = data.translate(None, _CONTROL_BYTES)
    if len(clean) != len(data):  # rare: the blank test below needs the cleaned str
        text = _CONTROL_CHARS.sub("", text)
        data = clean
    if not text.strip():
        return None
    try:
        root = etree.fromstring(data, parser=_PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None
    return root if isinstance(root, lxml.html.HtmlElement) else None
