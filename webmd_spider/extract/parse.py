"""Bytes or str to one lxml HTML tree, with charset detection.

The page is parsed exactly once here (twice only for nesting deeper than libxml2
builds, see `parse_html`); every other module works on this tree.

Before parsing, what is never content is removed from the page text, so that no
later stage has to think about it: C0/DEL/C1 control characters, raw or written as
numeric character references, and stray byte order marks (U+FEFF).

Why one file of over 500 lines: decoding, the scrub of control characters and attribute
floods, and the depth fallback are the steps of the one parse, in the order they run;
each works on what the step before it left.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree
from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    to_unicode,
)

# libxml2 rejects a str that carries its own encoding declaration, and the
# declaration is meaningless once the text is decoded, so it is dropped.
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
# C0 controls (except tab, newline, carriage return) and DEL are not allowed in lxml
# strings and carry no text; NUL in particular makes libxml2 stop reading.
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
# C1 controls (U+0080-U+009F) as UTF-8: never text, and libxml2 keeps them. In valid
# UTF-8, 0xC2 is always the lead byte of a two-byte character, so this matches
# exactly those characters.
_C1_UTF8 = re.compile(rb"\xc2[\x80-\x9f]")
# A byte order mark inside the page (PHP includes saved "with BOM" put one before
# each included fragment) is U+FEFF, a zero-width no-break space that is never
# content there; libxml2 would make it a text node, hence a paragraph and a "word".
_BOM_UTF8 = b"\xef\xbb\xbf"
_BOM_SEARCH = re.compile(re.escape(_BOM_UTF8))  # a literal-prefix search: no slow memmem
# Numeric character references libxml2 turns into a control character (it follows
# WHATWG HTML § 13.2.5.80 "numeric character reference end state"): C0 but tab and
# line feed, DEL, and the five C1 code points that the Windows-1252 table of that
# state leaves alone (0x81, 0x8D, 0x8F, 0x90, 0x9D; 0x80-0x9F otherwise become
# Windows-1252 characters, which is kept). Also NUL, which becomes U+FFFD. Hex or
# decimal, leading zeros, with or without the ";" (the digits must end there, so
# "&#x1b9;" or "&#271;" are not touched). They are removed, but for carriage return
# (group 1), which is whitespace ("a&#13;b" is two words): it becomes a line feed,
# taking the line feed that follows it along, as the input stream's own CR and CRLF
# do (WHATWG HTML § 13.2.3.5 "preprocessing the input stream").
_CONTROL_REFERENCE = re.compile(
    rb"&#(?:"
    rb"((?:[xX]0*[dD](?![0-9a-fA-F])|0*13(?![0-9]));?"
    rb"(?:\n|&#(?:[xX]0*[aA](?![0-9a-fA-F])|0*10(?![0-9]));?)?)"
    rb"|[xX]0*(?:[0-8bBcCeEfF]|1[0-9a-fA-F]|7[fF]|8[1dDfF]|9[0dD])(?![0-9a-fA-F]);?"
    rb"|0*(?:[0-8]|1[124-9]|2[0-9]|3[01]|127|129|14[134]|157)(?![0-9]);?"
    rb")"
)
# Removing a reference can join its neighbours into a new one ("&&#1;#27;"): the
# removal is repeated this many times, then what is left is escaped instead.
_REFERENCE_PASSES = 4

# UTF-8 is fixed because the input handed to libxml2 is always UTF-8 text we made or
# checked ourselves, never bytes in the page's own charset.
# collect_ids=False: libxml2 would otherwise index every id attribute in a hash table
# (and unindex it when the element is dropped), which only XPath's id() reads: no code
# here does.
# huge_tree=True raises libxml2's nesting limit from 256 to 2048 levels: at the limit
# libxml2 stops reading (ERR_RESOURCE_LIMIT, a fatal error) and keeps only what came
# before, so an unclosed <div> per forum post lost every post after the 254th.
_PARSER = etree.HTMLParser(
    encoding="utf-8", remove_comments=True, remove_pis=True, collect_ids=False, huge_tree=True
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
_RESOURCE_LIMIT = etree.ErrorTypes.ERR_RESOURCE_LIMIT

# ---------------------------------------------------------------------------------------
# Charset

# Python codec names (as w3lib's resolve_encoding gives them) of UTF-16 and UTF-32.
_WIDE = frozenset({"utf-16", "utf-16-be", "utf-16-le", "utf-32", "utf-32-be", "utf-32-le"})
# How much of the body the UTF-16/32 sniffing looks at (WHATWG HTML § 13.2.3.2 has
# the <meta> prescan look at the first 1024 bytes too).
_SNIFF_BYTES = 1024


def _sniff_wide(body: bytes) -> str | None:
    """UTF-16/32 and its byte order, from where the NUL bytes of a body without BOM are.

    Markup is ASCII, and ASCII in UTF-16 has a NUL in every other byte (odd positions
    for little-endian), in UTF-32 three NULs in four. None when the first KB has no NUL
    or no such pattern (ASCII-compatible text never has NULs; binary has them anywhere).
    """
    sample = body[:_SNIFF_BYTES]
    if b"\x00" not in sample:
        return None
    size = len(sample) - len(sample) % 4
    quarter = size // 4
    if not quarter:
        return None
    l0, l1, l2, l3 = (sample[i:size:4].count(0) for i in range(4))
    # UTF-32 of any BMP character has two NUL high bytes; the lowest byte is NUL only
    # for U+xx00 characters.
    if l2 + l3 > 1.8 * quarter and l0 * 10 < quarter:
        return "utf-32-le"
    if l0 + l1 > 1.8 * quarter and l3 * 10 < quarter:
        return "utf-32-be"
    even, odd = l0 + l2, l1 + l3
    if odd > quarter // 2 and even * 8 < odd:
        return "utf-16-le"
    if even > quarter // 2 and odd * 8 < even:
        return "utf-16-be"
    return None


def _utf8(body: bytes) -> tuple[str, bytes | None]:
    """`body` decoded as UTF-8, and the UTF-8 bytes for libxml2 when `body` is them.

    Valid UTF-8 (nearly every page) is decoded once and handed to libxml2 as it came;
    invalid bytes become U+FFFD and the text is re-encoded later.
    """
    try:
        return body.decode("utf-8"), body
    except UnicodeDecodeError:
        return body.decode("utf-8", "replace"), None


#: WHATWG HTML § 13.2.3.2 (step 9, "suggested default encodings" by locale): the
#: legacy encoding of a page whose language is one of these, when it declares none
_LOCALE_DEFAULTS = {
    **dict.fromkeys(("ru", "uk", "bg", "be", "sr", "mk", "kk", "ky", "tg"), "windows-1251"),
    **dict.fromkeys(("pl", "cs", "sk", "hu", "sl", "hr", "ro", "bs"), "windows-1250"),
    "ja": "shift_jis",
    "zh-cn": "gb18030",
    "zh": "gb18030",
    "zh-tw": "big5",
    "zh-hk": "big5",
    "ko": "euc-kr",
    "el": "windows-1253",
    "tr": "windows-1254",
    "he": "windows-1255",
    "iw": "windows-1255",
    "ar": "windows-1256",
    "fa": "windows-1256",
    "lt": "windows-1257",
    "lv": "windows-1257",
    "et": "windows-1257",
    "vi": "windows-1258",
    "th": "windows-874",
}
_LANG = re.compile(rb"<html\b[^>]*?\blang\s*=\s*[\"']?([A-Za-z]{2,3}(?:[-_][A-Za-z]{2,4})?)", re.I)
#: what the detector reads of a page (it is only asked when nothing is declared and
#: the bytes are not UTF-8: a rare path)
_DETECT_BYTES = 32 * 1024
_DETECT_MIN_NON_ASCII = 24
_ASCII = bytes(range(128))
#: Detector answers taken as they are: scripts whose single-byte or multi-byte legacy
#: encodings cannot be told from windows-1252 by a default. A Latin answer (cp1250,
#: latin-1, mac-roman...) is not trusted over windows-1252, WHATWG's default.
_DETECTED_SCRIPTS = (
    "cp1251", "koi8", "iso8859_5", "mac_cyrillic", "cp866", "cp855",
    "shift_jis", "cp932", "euc_j", "iso2022_jp", "gb", "hz", "big5", "cp950",
    "euc_kr", "cp949", "johab", "iso2022_kr",
    "cp1253", "iso8859_7", "cp1255", "iso8859_8", "cp1256", "iso8859_6",
    "cp874", "tis_620", "iso8859_11",
)  # fmt: skip


def _legacy_encoding(body: bytes) -> str:
    """The legacy encoding of a page with no declared charset that is not UTF-8: what
    charset-normalizer detects when it is a non-Latin script's encoding, else the
    locale default of the page's ``<html lang>`` when the bytes decode in it, else
    windows-1252."""
    # The statistics of which bytes form which script are charset-normalizer's (a
    # well-kept library; w3lib's html_to_unicode only calls a detector it is given).
    import charset_normalizer

    sample = body[:_DETECT_BYTES]
    # a few non-ASCII bytes are too little to tell scripts apart ("Да" in windows-1251
    # comes out as Big5): then only the language hint decides
    if len(sample.translate(None, _ASCII)) >= _DETECT_MIN_NON_ASCII:  # non-ASCII bytes
        best = charset_normalizer.from_bytes(sample).best()
        if best is not None and best.encoding.startswith(_DETECTED_SCRIPTS):
            return str(best.encoding)
    found = _LANG.search(body[:4096])
    if found:
        lang = found.group(1).decode("ascii").lower().replace("_", "-")
        default = _LOCALE_DEFAULTS.get(lang) or _LOCALE_DEFAULTS.get(lang.split("-")[0])
        if default is not None:
            try:
                sample.decode(default)
            except UnicodeDecodeError as exc:
                if exc.start < len(sample) - 4:  # more than the sample's cut character
                    return "cp1252"
            return default
    return "cp1252"


def _detect(body: bytes) -> tuple[str, bytes | None]:
    """Decode a body that declares no charset (no BOM, header charset or <meta>).

    UTF-16/32 when the NUL bytes say so; otherwise what Scrapy's TextResponse does
    and WHATWG HTML § 13.2.3.2 "determining the character encoding" allows (frequency
    analysis, then a locale default): UTF-8 when the bytes are valid UTF-8, else the
    page language's locale default or a detected non-Latin encoding
    (:func:`_legacy_encoding`, issue 16 item 6: windows-1251 and Shift_JIS pages came
    out as mojibake), else windows-1252, that section's default for most locales.
    Valid UTF-8 costs one decode.
    """
    wide = _sniff_wide(body)
    if wide is not None:
        return to_unicode(body, wide), None
    try:
        return body.decode("utf-8"), body
    except UnicodeDecodeError as exc:
        # Still UTF-8 when the text before the first bad byte was valid UTF-8 with
        # non-ASCII in it (windows-1252 prose almost never forms valid multi-byte
        # UTF-8): a UTF-8 page with a stray byte, or cut inside its last character.
        if not body[: exc.start].isascii():
            return body.decode("utf-8", "replace"), None
    return to_unicode(body, _legacy_encoding(body)), None


def _decode(body: bytes | str, encoding: str | None) -> tuple[str, bytes | None]:
    """`decode()`, plus the UTF-8 bytes of the text when they are `body` itself."""
    if isinstance(body, str):
        return body, None
    # WHATWG Encoding § 6 "decode": a BOM wins over every label.
    bom_encoding, bom = read_bom(body)
    if bom_encoding is not None and bom is not None:
        content = body[len(bom) :]
        if bom_encoding == "utf-8":
            return _utf8(content)
        return to_unicode(content, bom_encoding), None
    declared = http_content_type_encoding(f"text/html; charset={encoding}") if encoding else None
    if declared in _WIDE:
        # A header saying UTF-16/32 over a body without a BOM and without NUL bytes
        # (a server default, or "Unicode" picked in a CMS) is wrong: such a body is
        # ASCII-compatible, so the <meta> and detection below decide. With NULs, their
        # positions give the byte order (the bare "utf-16" label means UTF-16LE in
        # WHATWG Encoding § 4.2, where w3lib would pick big-endian).
        if b"\x00" in body[:_SNIFF_BYTES]:
            declared = _sniff_wide(body) or (
                declared if declared.endswith(("-le", "-be")) else declared + "-le"
            )
        else:
            declared = None
    if declared is None:
        declared = html_body_declared_encoding(body)
        # WHATWG HTML § 13.2.3.2 prescan ("get an encoding" then "if charset is UTF-16BE/LE,
        # set it to UTF-8"): a <meta> could be read from these bytes only because they are
        # ASCII-compatible, so it cannot be right. UTF-32 is no WHATWG encoding at all.
        if declared in _WIDE:
            declared = "utf-8"
    if declared is None:
        return _detect(body)
    if declared == "utf-8":
        return _utf8(body)
    return to_unicode(body, declared), None


def _decode_safely(body: bytes | str, encoding: str | None) -> tuple[str, bytes | None]:
    """`_decode`, falling back to UTF-8 on a charset Python cannot apply."""
    try:
        return _decode(body, encoding)
    except (LookupError, ValueError):
        # An unknown or broken charset name must not lose the page.
        if isinstance(body, str):
            return body, None
        return body.decode("utf-8", "replace"), None


def decode(body: bytes | str, encoding: str | None = None) -> str:
    """Return the page as text.

    `encoding` is the charset of the HTTP Content-Type header (or None). Bytes are
    decoded from, in order: their BOM; the header (a UTF-16/32 one only when the body
    has NUL bytes); <meta charset> or the XML declaration (a UTF-16/32 one means
    UTF-8); else detection: UTF-16/32 by their NUL bytes, UTF-8 when valid, else
    windows-1252. Undecodable bytes become U+FFFD. A str is returned unchanged.
    """
    return _decode_safely(body, encoding)[0]


# ---------------------------------------------------------------------------------------
# What is never content


def _without_declaration(text: str) -> str:
    # `match`, not `sub`: the pattern is anchored, yet `sub` would try it at every
    # position of the page
    declaration = _XML_DECLARATION.match(text)
    return text[declaration.end() :] if declaration else text


def _without_control_references(data: bytes) -> bytes:
    """`data` without numeric references to control characters (see _CONTROL_REFERENCE).

    A removal can make a new reference of its neighbours ("&#&#1;x1b;"): removal is
    repeated a few times, then any left are escaped ("&amp;#x1b;", shown as written),
    which cannot make new ones, so hostile input costs a few linear passes at most.
    """
    for _ in range(_REFERENCE_PASSES):
        data = _CONTROL_REFERENCE.sub(_replace_reference, data)
        if not _CONTROL_REFERENCE.search(data):
            return data
    return _CONTROL_REFERENCE.sub(lambda m: b"&amp;" + m[0][1:], data)


def _replace_reference(reference: re.Match[bytes]) -> bytes:
    return b"\n" if reference[1] else b""


def _clean(data: bytes, ascii_only: bool) -> bytes:
    """The UTF-8 page without control characters (raw or as references) and BOMs.

    `ascii_only` says the text has no non-ASCII character (no C1 or BOM to look for).
    Each removal is guarded by a search that costs a few microseconds on a page without
    what it looks for (most of them). `data` itself is returned when nothing was removed
    (bytes.translate returns its input when it deletes nothing).
    """
    # C0/DEL: a C-speed delete, each is one byte in UTF-8 (a value no multi-byte
    # sequence uses)
    data = data.translate(None, _CONTROL_BYTES)
    if not ascii_only:
        if _C1_UTF8.search(data):
            data = _C1_UTF8.sub(b"", data)
        if b"\xef" in data and _BOM_SEARCH.search(data):
            data = data.replace(_BOM_UTF8, b"")
    # last: the removals above can join the halves of a reference ("&#\x01x1b;")
    if _CONTROL_REFERENCE.search(data):
        data = _without_control_references(data)
    return data


def clean_source(text: str) -> str:
    """Remove what libxml2 cannot take from a str or what is never text: XML declaration,
    control characters (raw or as numeric references), byte order marks."""
    text = _without_declaration(text)
    return _clean(text.encode("utf-8", "replace"), text.isascii()).decode("utf-8")


# ---------------------------------------------------------------------------------------
# Tags with attributes by the thousand

# libxml2's time grows with the square of one tag's attribute count (each attribute is
# checked against the ones before it). Measured (libxml2 2.14; parse / whole extract()
# of a page of one such tag): 250 attributes 0.2 / 2 ms, 500 0.7 / 2.3 ms, 1,000 1.7 /
# 6 ms, 2,000 5 / 17 ms, 5,000 30 / 100 ms, 10,000 0.1 / 0.4 s, 80,000 25 s / a minute.
# Per byte, a page of tags of 500 attributes each extracts at 1.5 times the cost of one
# of 50-attribute tags, of 1,000 at 2.2 times: a start tag with more than this loses
# them all (no page has tags of hundreds of attributes for its content).
_MAX_TAG_ATTRIBUTES = 500
# One attribute as the HTML tokenizer reads it (WHATWG HTML § 13.2.5.32-39 "before
# attribute name" to "after attribute value (quoted)", which libxml2 2.14 follows): a
# name (its first character may be "=", "<" or a quote; the others are anything but
# whitespace, "/", ">" and "="), then maybe "=" and a value: double- or single-quoted
# (">" and "<" inside are value, not markup), unquoted (up to whitespace or ">"), or
# none before ">". A quote that never closes fails it: the page then ends inside the
# tag, which libxml2 drops. Every part is possessive or atomic: no backtracking.
_ATTRIBUTE = (
    rb"[^\s/>][^\s/>=]*+"
    rb"""(?>="[^"]*+"|\s*+=\s*+(?>"[^"]*+"|'[^']*+'|[^\s>"'][^\s>]*+|(?=>)|\Z)|(?!\s*+=))"""
)
# Attributes after the tag name: the first after whitespace or "/", each next one after
# those or directly after a quoted value.
_FIRST_ATTRIBUTE = rb"[\s/]++" + _ATTRIBUTE
_NEXT_ATTRIBUTE = rb"[\s/]*+" + _ATTRIBUTE
# How many attributes in a row make the cheap search below hand the page to the exact
# pass (no tag of the PostgreSQL or Python documentation has 12).
_SUSPECT_ATTRIBUTES = 16
# The cheap search, over every page: a start tag with _SUSPECT_ATTRIBUTES attributes, read
# as the tokenizer reads them from any "<" and a letter (unrolled: faster than a counted
# repeat). The tag name stops at a "<" followed by a letter, where the search tries again
# (a name such as "p<q" is the same attributes after "<q"): a failed try then never covers
# another's name, and each try reads at most _SUSPECT_ATTRIBUTES attributes, so the
# search stays linear however the "<" and quotes are placed.
_SUSPECT_TAG = re.compile(
    rb"<[A-Za-z][^\s/<>]*+(?:<(?![A-Za-z])[^\s/<>]*+)*+"
    + _FIRST_ATTRIBUTE
    + _NEXT_ATTRIBUTE * (_SUSPECT_ATTRIBUTES - 1)
)
_TAG_NAME_PART = rb"[A-Za-z][^\s/>]*+"
_FEWER = (
    rb"(?:"
    + _FIRST_ATTRIBUTE
    + rb"(?:"
    + _NEXT_ATTRIBUTE
    + rb"){0,%d}+)?+" % (_MAX_TAG_ATTRIBUTES - 1)
)
# Elements whose content is text up to their end tag (libxml2 2.14: not <noscript>).
_RAW_TEXT_NAMES = rb"script|style|xmp|iframe|noembed|noframes|textarea|title"
# The exact pass, on a suspect page only: the page read token by token, from where it is
# matched, as the tokenizer reads it (text, comments, raw-text elements, start tags of at
# most _MAX_TAG_ATTRIBUTES attributes, end tags, doctype and bogus comments, a "<" that
# opens nothing) up to the first start tag with more (`flood`, its name `name`). One
# possessive loop, read once: linear, never tried again from a later start. No match:
# no flood.
_FLOOD = re.compile(
    rb"(?:[^<]++"
    rb"|<!--(?>-?>|(?:[^-]++|-(?!-!?>))*+(?:--!?>|\Z))"
    rb"|<(?i:plaintext)(?=[\s/>])" + _FEWER + rb"[\s/]*+>[\s\S]*+"
    rb"|<(?i:(?P<raw>" + _RAW_TEXT_NAMES + rb"))(?=[\s/>])" + _FEWER + rb"[\s/]*+>"
    rb"(?:[^<]++|<(?!/(?i:(?P=raw))[\s/>]))*+"
    rb"|<" + _TAG_NAME_PART + _FEWER + rb"[\s/]*+>"
    rb"|</" + _TAG_NAME_PART + rb"(?:" + _NEXT_ATTRIBUTE + rb")*+[\s/]*+>"
    rb"|<[!/?][^>]*+>"
    rb"|<(?![A-Za-z!/?])"
    rb")*+"
    rb"(?P<flood><(?P<name>"
    + _TAG_NAME_PART
    + rb")"
    + _FIRST_ATTRIBUTE
    + rb"(?:"
    + _NEXT_ATTRIBUTE
    + rb"){%d})" % _MAX_TAG_ATTRIBUTES
)
# The rest of a flood tag: its other attributes, then ">" (none: the page ends inside it).
_TAG_REST = re.compile(rb"(?:" + _NEXT_ATTRIBUTE + rb")*+[\s/]*+(>?)")
# A raw-text element's text, up to its end tag, by name.
_RAW_TEXT_END = {
    name: re.compile(rb"(?:[^<]++|<(?!/" + name + rb"[\s/>]))*+", re.IGNORECASE)
    for name in _RAW_TEXT_NAMES.split(b"|")
}


def _without_attribute_floods(data: bytes) -> bytes:
    """`data` with every start tag of more than `_MAX_TAG_ATTRIBUTES` attributes reduced
    to its bare name (``<p>``), the attributes counted as libxml2's tokenizer reads them
    (quoted ">" and "<" included, values or not).

    `data` itself comes back when nothing is cut. The common case is one search
    (`_SUSPECT_TAG`, linear); a page with a tag of many attributes is then read once,
    token by token (`_FLOOD`, linear): what is no start tag in HTML (comments, script
    text, "< b", attribute values) is never cut. A flood tag that never ends (the page
    ends inside it) takes the rest of the page with it, as it does in libxml2.
    """
    if _SUSPECT_TAG.search(data) is None:
        return data
    kept: list[bytes] = []
    start = read = 0  # what is copied from, where the reading goes on
    while (found := _FLOOD.match(data, read)) is not None:
        name = found["name"]
        rest = _TAG_REST.match(data, found.end())
        assert rest is not None  # every part of it can match nothing
        kept += (data[start : found.start("flood")], b"<" + name + b">")
        start = read = rest.end() if rest[1] else len(data)
        lower = name.lower()
        if lower == b"plaintext":  # the rest of the page is its text
            break
        text = _RAW_TEXT_END.get(lower)
        if text is not None:  # its text is no markup: read on after it
            read = text.match(data, read).end()  # type: ignore[union-attr]
    if not kept:
        return data
    kept.append(data[start:])
    return b"".join(kept)


# ---------------------------------------------------------------------------------------
# Nesting deeper than libxml2 builds

# The depth the flattened page is cut to (libxml2 builds 2048 levels with huge_tree;
# the estimate below misses implied elements and some end-tag rules, hence the margin),
# and a second, lower one should the first still be too deep.
_FLAT_DEPTHS = (1024, 256)
# Elements whose content is raw text, taken whole (and never dropped: a dropped
# <script> start tag would turn its code into page text).
_RAW_TEXT = b"script|style|textarea|title|xmp|iframe|noembed|noframes|noscript"
# The page in the estimate's simple terms: comments and raw-text elements, whole, then
# start and end tags (a name, anything up to ">"; a quoted ">" ends a tag early, which
# an estimate can live with). Each alternative consumes what it reads: linear.
_TAG = re.compile(
    rb"<!--.*?(?:-->|\Z)"
    rb"|<(" + _RAW_TEXT + rb")(?=[\s/>])[^>]*>.*?(?:</\1|\Z)"
    rb"|<(/?)([a-z][^\s/>]*)[^>]*>?",
    re.DOTALL | re.IGNORECASE,
)
# Elements that never hold child elements.
_VOID = frozenset(
    b"area base basefont bgsound br col embed frame hr image img input keygen link meta "
    b"param source track wbr".split()
)
# A start tag of these closes an open one of the same name directly above it.
_SELF_CLOSING_SIBLINGS = frozenset(b"p li dt dd option tr td th a".split())
# Dropped tags of these elements become a line break, so that their text does not run
# into the next block's; other dropped tags become nothing.
_BLOCKS = frozenset(
    b"address article aside blockquote caption center details dd dir div dl dt fieldset "
    b"figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup li main menu nav ol p "
    b"pre section summary table tbody td tfoot th thead tr ul".split()
)


def _flatten(data: bytes, max_depth: int) -> bytes:
    """`data` with the start and end tags that would nest deeper than `max_depth` removed.

    A linear estimate of libxml2's tree (a stack of open elements, end tags closing up
    to their element), used only for pages libxml2 could not build whole: their
    content is kept, as flat text under the deepest kept element, instead of lost.
    A page that never nests that deep comes back unchanged.
    """
    out: list[bytes] = []
    stack: list[bytes] = []
    open_count: dict[bytes, int] = {}
    dropped: dict[bytes, int] = {}
    last = 0
    for tag in _TAG.finditer(data):
        name = tag[3]
        if name is None:  # a comment or a raw-text element
            continue
        name = name.lower()
        if not tag[2]:  # start tag
            if name in _VOID or data.endswith(b"/>", 0, tag.end()):  # libxml2 closes <div/>
                continue
            if name in _SELF_CLOSING_SIBLINGS and stack and stack[-1] == name:
                stack.pop()
                open_count[name] -= 1
            if len(stack) < max_depth:
                stack.append(name)
                open_count[name] = open_count.get(name, 0) + 1
                continue
            dropped[name] = dropped.get(name, 0) + 1
        elif dropped.get(name):  # closes a dropped start tag: the innermost ones went
            dropped[name] -= 1
        else:
            if open_count.get(name):
                while (top := stack.pop()) != name:
                    open_count[top] -= 1
                open_count[name] -= 1
            continue
        out += (data[last : tag.start()], b"<br>" if name in _BLOCKS else b"")
        last = tag.end()
    if not out:
        return data
    out.append(data[last:])
    return b"".join(out)


def _too_deep() -> bool:
    """Whether the last parse stopped at libxml2's nesting limit.

    The log is the parser's, so with threads sharing `_PARSER` another page's parse
    could be read: `_flatten` leaves a page that is not that deep unchanged, so a wrong
    answer costs time, or (the other way) the content past the limit, never a page.
    """
    log = _PARSER.error_log
    return bool(log) and any(error.type == _RESOURCE_LIMIT for error in log)


def parse_html(body: bytes | str, encoding: str | None = None) -> lxml.html.HtmlElement | None:
    """Parse a page into an lxml `<html>` element; None when there is nothing to parse.

    Never raises: empty input, whitespace only, or anything libxml2 refuses gives None.
    Control characters (raw, or as numeric references such as ``&#x1b;``) and stray
    byte order marks are removed before parsing: they are never text. A start tag with
    thousands of attributes loses them (`_without_attribute_floods`): libxml2's time
    grows with the square of their count.

    Nesting: libxml2 builds up to 2048 levels (``huge_tree``) and, at that limit, stops
    reading the page. Such a page is parsed again with the tags that nest deeper than
    1024 levels (by a linear estimate) removed, block tags becoming ``<br>``: every
    text is kept, the innermost structure is not, and no error is reported. The tree
    handed on is therefore never deeper than about 2048, which the later (iterative)
    walks and lxml's own recursive C code take in their stride.
    """
    text, data = _decode_safely(body, encoding)
    declaration = _XML_DECLARATION.match(text)
    if declaration is not None:
        if data is not None:  # the bytes are the text's: cut the declaration's bytes
            data = data[len(text[: declaration.end()].encode("utf-8", "replace")) :]
        text = text[declaration.end() :]
    if data is None:
        # Lone surrogates in a str cannot be encoded; "replace" turns them into "?".
        data = text.encode("utf-8", "replace")
    clean = _without_attribute_floods(_clean(data, text.isascii()))
    if clean is not data:  # rare: the blank test below needs the cleaned str
        text = clean.decode("utf-8", "replace")
        data = clean
    if not text or text.isspace():
        return None
    try:
        root = etree.fromstring(data, parser=_PARSER)
        for depth in _FLAT_DEPTHS:
            if not _too_deep():
                break
            root = etree.fromstring(_flatten(data, depth), parser=_PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None
    return root if isinstance(root, lxml.html.HtmlElement) else None
