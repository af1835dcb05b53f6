"""Sitemap parsing: urlset and sitemap index documents, gzip, plain text.

Pure module: standard library, w3lib and lxml only, no Scrapy.

Why our own parser: Scrapy's ``scrapy.utils.sitemap.Sitemap`` raises on a
relative ``<loc>`` and so loses every later entry of that sitemap, and it
does not report how many entries it skipped. This one is a small streaming
pass over lxml's ``iterparse`` that

* costs a bad entry only that entry (no loc, empty loc, non-http(s) loc),
* resolves relative locs against the sitemap's own URL,
* matches local names only, so any (or no, or a wrong) namespace works,
* never expands entities (no XXE, no billion laughs) and never touches the
  network, and recovers from broken markup instead of dropping the file,
* caps the inflated size of gzip bodies (no decompression bombs) and the
  number of entries per document,
* also accepts a plain-text sitemap (one URL per line) and a simple RSS or
  Atom feed used as a sitemap (their item/entry links),
* never raises on any bytes: a hopeless document is ``kind == "invalid"``
  with a plain-language ``error``.
"""

from __future__ import annotations

import io
import re
import zlib
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from lxml import etree
from w3lib.url import safe_url_string

MAX_SITEMAP_BYTES = 50 * 1024 * 1024
"""Uncompressed size cap per sitemap file (the sitemaps.org limit)."""
MAX_SITEMAP_ENTRIES = 50_000
"""Entry cap per sitemap file (the sitemaps.org limit)."""

GZIP_MAGIC = b"\x1f\x8b"
# Inflate in bounded steps so a bomb is noticed after at most this much extra.
_INFLATE_STEP = 1024 * 1024

#: Root element local name -> document kind reported.
ROOT_KINDS: dict[str, str] = {
    "urlset": "urlset",
    "sitemapindex": "sitemapindex",
    "rss": "urlset",  # RSS 2.0 feed used as a sitemap (allowed by sitemaps.org)
    "rdf": "urlset",  # RSS 1.0
    "feed": "urlset",  # Atom
}
#: Root local name -> local name of the elements that are entries.
ENTRY_ELEMENTS: dict[str, str] = {
    "urlset": "url",
    "sitemapindex": "sitemap",
    "rss": "item",
    "rdf": "item",
    "feed": "entry",
}
#: Root local name -> local name of the entry child whose text is the URL
#: (Atom is special: ``<link href=...>``).
LOC_ELEMENTS: dict[str, str] = {
    "urlset": "loc",
    "sitemapindex": "loc",
    "rss": "link",
    "rdf": "link",
}
#: Child local names carrying the last-modified date, by preference.
LASTMOD_ELEMENTS: tuple[str, ...] = ("lastmod", "updated", "pubdate", "date", "published")
#: Atom ``<link rel=...>`` values that point at the entry's page.
ATOM_PAGE_RELS: frozenset[str] = frozenset({"", "alternate"})

_WEB_SCHEMES = frozenset({"http", "https"})


class SitemapError(ValueError):
    """A sitemap body that cannot be read at all (corrupt gzip, ...)."""


class SitemapTooLarge(SitemapError):
    """A sitemap body bigger than the size cap once inflated."""


@dataclass(frozen=True, slots=True)
class SitemapEntry:
    """One ``<url>`` (or ``<sitemap>``) of a sitemap: absolute http(s) loc."""

    loc: str
    lastmod: str | None = None


@dataclass(slots=True)
class SitemapDoc:
    """A parsed sitemap.

    ``kind`` is ``"urlset"`` (pages, also used for plain-text and feed
    sitemaps), ``"sitemapindex"`` (locs are further sitemaps) or
    ``"invalid"`` (``error`` says why; ``entries`` is empty). ``entries`` are
    absolute http(s) URLs in document order; ``bad_entries`` counts entry
    elements (or text lines) skipped because their loc was missing or
    unusable; ``truncated`` is True when more than ``max_entries`` usable
    entries were present and the rest was not read.
    """

    kind: str
    entries: list[SitemapEntry] = field(default_factory=list)
    bad_entries: int = 0
    error: str | None = None
    truncated: bool = False


def maybe_gunzip(body: bytes, max_bytes: int = MAX_SITEMAP_BYTES) -> bytes:
    """Return ``body`` inflated when it is gzip data, else unchanged.

    Decides by the gzip magic bytes, not by headers: servers often send
    ``sitemap.xml.gz`` with ``Content-Encoding: gzip`` so the body arrives
    inflated already, or without it so it arrives compressed. Inflation is
    done in bounded steps and stops as soon as the output would exceed
    ``max_bytes`` (raises :class:`SitemapTooLarge`), so a gzip bomb costs at
    most ``max_bytes`` plus one step of memory. A plain body larger than
    ``max_bytes`` also raises :class:`SitemapTooLarge`; corrupt gzip data
    raises :class:`SitemapError`. Concatenated gzip members are all inflated.
    """
    if not body.startswith(GZIP_MAGIC):
        if len(body) > max_bytes:
            raise SitemapTooLarge(f"sitemap is larger than {max_bytes} bytes")
        return body
    out = bytearray()
    data = body
    try:
        while data.startswith(GZIP_MAGIC):
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            while True:
                chunk = inflater.decompress(data, _INFLATE_STEP)
                out += chunk
                if len(out) > max_bytes:
                    raise SitemapTooLarge(
                        f"sitemap is larger than {max_bytes} bytes once uncompressed"
                    )
                data = inflater.unconsumed_tail
                if inflater.eof or (not chunk and not data):
                    break
            if not inflater.eof:
                # Truncated download: keep what inflated cleanly.
                tail = inflater.flush()
                out += tail
                if len(out) > max_bytes:
                    raise SitemapTooLarge(
                        f"sitemap is larger than {max_bytes} bytes once uncompressed"
                    )
                break
            data = inflater.unused_data
    except zlib.error as exc:
        raise SitemapError(f"corrupt gzip data: {exc}") from exc
    return bytes(out)


def _local_name(element: etree._Element) -> str:
    """Lower-case local tag name; "" for comments, PIs and entities."""
    tag = element.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2].rpartition(":")[2].lower()


def _usable_loc(raw: str | None, base_url: str) -> str | None:
    """Absolute http(s) URL for a loc text, or None when it is unusable."""
    if raw is None:
        return None
    text = raw.strip()
    if not text:
        return None
    try:
        absolute = safe_url_string(urljoin(base_url, text))
        parts = urlsplit(absolute)
        if parts.scheme.lower() not in _WEB_SCHEMES or not parts.hostname:
            return None
    except ValueError:
        return None
    return absolute


def _plain_text(element: etree._Element) -> str | None:
    """Text of an element that holds only text.

    None when it holds child nodes: an entity reference we refused to expand
    or nested markup means the value is not what the author meant.
    """
    if len(element):
        return None
    return element.text or ""


def _entry_values(entry: etree._Element, root_name: str) -> tuple[str | None, str | None]:
    """(loc text, lastmod text) from an entry element's direct children.

    Only direct children count: ``<image:loc>`` inside ``<image:image>`` is
    not the page's loc.
    """
    loc: str | None = None
    dates: dict[str, str] = {}
    for child in entry:
        name = _local_name(child)
        if not name:
            continue
        if root_name == "feed" and name == "link":
            rel = (child.get("rel") or "").strip().lower()
            if loc is None and rel in ATOM_PAGE_RELS:
                loc = child.get("href")
        elif name == LOC_ELEMENTS.get(root_name) and loc is None:
            # Empty string (not None) for a present-but-broken loc keeps the
            # entry counted as bad rather than silently ignored.
            loc = _plain_text(child) or ""
        elif name in LASTMOD_ELEMENTS and name not in dates:
            text = _plain_text(child)
            if text and text.strip():
                dates[name] = text.strip()
    lastmod = next((dates[n] for n in LASTMOD_ELEMENTS if n in dates), None)
    return loc, lastmod


def _ends_inside_entry(body: bytes, root_name: str, entry_name: str) -> bool:
    """True when the document was cut off inside its last entry element.

    Recovery closes the open elements of a truncated download, which would
    turn ``<loc>https://exam`` into an entry for a URL that does not exist.
    Only the last entry can be cut, and only when the root never closes.
    """
    tail = body[-4096:]
    root_close = rb"</\s*(?:[\w.-]+:)?" + re.escape(root_name.encode()) + rb"\s*>\s*$"
    if re.search(root_close, tail, re.IGNORECASE):
        return False
    name = re.escape(entry_name.encode())
    last_close = 0
    for match in re.finditer(rb"</\s*(?:[\w.-]+:)?" + name + rb"\s*>", body, re.IGNORECASE):
        last_close = match.end()
    opening = rb"<\s*(?:[\w.-]+:)?" + name + rb"[\s/>]"
    return re.search(opening, body[last_close:], re.IGNORECASE) is not None


def _parse_xml(body: bytes, url: str, max_entries: int) -> SitemapDoc:
    parser_events = etree.iterparse(
        io.BytesIO(body),
        events=("start", "end"),
        recover=True,  # one broken tag must not lose the whole file
        resolve_entities=False,  # no XXE, no entity expansion bombs
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    doc: SitemapDoc | None = None
    root_name = ""
    entry_name = ""
    last_appended = False
    try:
        for event, element in parser_events:
            if doc is None:
                root_name = _local_name(element)
                kind = ROOT_KINDS.get(root_name)
                if kind is None:
                    return SitemapDoc(
                        kind="invalid",
                        error=f"not a sitemap: root element is <{root_name or '?'}>",
                    )
                doc = SitemapDoc(kind=kind)
                entry_name = ENTRY_ELEMENTS[root_name]
                continue
            if event != "end" or _local_name(element) != entry_name:
                continue
            raw_loc, lastmod = _entry_values(element, root_name)
            loc = _usable_loc(raw_loc, url)
            last_appended = False
            if loc is None:
                doc.bad_entries += 1
            elif len(doc.entries) >= max_entries:
                doc.truncated = True
                break
            else:
                doc.entries.append(SitemapEntry(loc=loc, lastmod=lastmod))
                last_appended = True
            # Free what has been read so a 50k-entry file stays small.
            element.clear()
            parent = element.getparent()
            while parent is not None and element.getprevious() is not None:
                del parent[0]
    except (etree.LxmlError, ValueError, LookupError) as exc:
        # recover=True still gives up on some input (empty, unknown encoding);
        # keep whatever entries were read before that point.
        if doc is None:
            return SitemapDoc(kind="invalid", error=f"not readable as XML: {exc}")
    if doc is None:
        return SitemapDoc(kind="invalid", error="not readable as XML")
    if last_appended and not doc.truncated and _ends_inside_entry(body, root_name, entry_name):
        doc.entries.pop()
        doc.bad_entries += 1
    return doc


def _parse_text(body: bytes, max_entries: int) -> SitemapDoc:
    """A plain-text sitemap: one absolute http(s) URL per line."""
    if b"\x00" in body:
        return SitemapDoc(kind="invalid", error="binary data, not a sitemap")
    text = body.decode("utf-8", errors="replace")
    doc = SitemapDoc(kind="urlset")
    for line in text.splitlines():
        candidate = line.strip()
        if not candidate:
            continue
        # Relative lines are not resolved: in prose or junk almost any word
        # would resolve to a URL. The text format requires absolute URLs.
        loc = None
        if not any(ch.isspace() for ch in candidate) and "\ufffd" not in candidate:
            scheme = candidate.partition(":")[0].lower()
            loc = _usable_loc(candidate, "") if scheme in _WEB_SCHEMES else None
        if loc is None:
            doc.bad_entries += 1
        elif len(doc.entries) >= max_entries:
            doc.truncated = True
            break
        else:
            doc.entries.append(SitemapEntry(loc=loc))
    if not doc.entries:
        return SitemapDoc(
            kind="invalid",
            bad_entries=doc.bad_entries,
            error="not a sitemap: no XML and no URL lines",
        )
    return doc


def parse_sitemap(body: bytes, url: str, *, max_entries: int = MAX_SITEMAP_ENTRIES) -> SitemapDoc:
    """Parse a sitemap body fetched from ``url``; never raises.

    The body may be gzip-compressed (detected by magic bytes, inflated up to
    :data:`MAX_SITEMAP_BYTES`). XML sitemaps (``urlset`` or
    ``sitemapindex``, any namespace) and simple RSS/Atom feeds are read with
    entities left unexpanded; relative locs resolve against ``url``; a bad
    entry is counted in ``bad_entries`` and skipped. A body that is not XML
    is read as a plain-text sitemap. At most ``max_entries`` entries are
    kept (``truncated`` then says more existed).
    """
    try:
        data = maybe_gunzip(body)
    except SitemapError as exc:
        return SitemapDoc(kind="invalid", error=str(exc))
    try:
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        data = data.lstrip()
        if not data:
            return SitemapDoc(kind="invalid", error="empty document")
        if data.startswith(b"<"):
            return _parse_xml(data, url, max_entries)
        return _parse_text(data, max_entries)
    except Exception as exc:
        # The contract is "never raises on any bytes"; a crawl must survive a
        # hostile sitemap even if lxml surprises us.
        return SitemapDoc(kind="invalid", error=f"unreadable sitemap: {exc}")
