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
* caps the inflated size of gzip bodies (no decompression bombs), and the
  usable entries, unusable entries and elements read per document, so the
  time one file can take is bounded whatever it holds (see
  :data:`MAX_SITEMAP_ELEMENTS`),
* is lazy: :class:`SitemapReader` hands out entries one by one, so a caller
  that has enough (its ``max_sitemap_urls``) stops reading there instead of
  parsing the rest of the file, and gets an estimate of what it left unread,
* also accepts a plain-text sitemap (one URL per line) and a simple RSS or
  Atom feed used as a sitemap (their item/entry links),
* never raises on any bytes: a hopeless document is ``kind == "invalid"``
  with a plain-language ``error``.

Why one file of over 500 lines: urlset, index, text and feed documents are read by one
streaming reader whose caps and counters they all share (the bounds above).
"""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import cast
from urllib.parse import urljoin, urlsplit

from lxml import etree
from w3lib.url import safe_url_string

MAX_SITEMAP_BYTES = 50 * 1024 * 1024
"""Uncompressed size cap per sitemap file (the sitemaps.org limit)."""
MAX_SITEMAP_ENTRIES = 50_000
"""Entry cap per sitemap file (the sitemaps.org limit). Unusable entries are capped at
the same number: a file of junk entries stops there."""
MAX_SITEMAP_ELEMENTS = 1_000_000
"""Elements read per sitemap file, of any kind (``<url>``, ``<loc>``, ``<lastmod>``,
extensions, junk). 20 per entry of a full 50,000-entry file: ``loc``, ``lastmod``,
``changefreq``, ``priority`` plus a dozen image or hreflang elements still fit. It bounds
the time of a file of junk elements (about 0.5 s of CPU here) where the entry caps do
not."""

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

#: A lower-case absolute http(s) URL, a port without leading zero, and a path made only
#: of characters that ``urljoin`` and ``safe_url_string`` keep as they are (no ``;``,
#: ``#`` or ``'``; no query without a path). Such a loc is returned unchanged by
#: :func:`_usable_loc` without the costly general path (a property test checks both
#: paths agree).
_PLAIN_URL = re.compile(
    r"https?://[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*"
    r"(?::(?P<port>[1-9][0-9]{0,4}))?(?:/[A-Za-z0-9\-._~!$&()*+,=:@/?%]*)?"
).fullmatch
#: A line of a plain-text sitemap.
_TEXT_LINE = re.compile(r"[^\r\n]+")


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
    unusable; ``truncated`` is True when reading stopped at a limit (more than
    ``max_entries`` usable entries, as many unusable ones, or more than
    :data:`MAX_SITEMAP_ELEMENTS` elements) and the rest was not read.
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
    plain = _PLAIN_URL(text)
    if plain and not text.endswith("?") and int(plain["port"] or 0) <= 65535:
        # Already absolute and safe: what the general path below would return, at a
        # twentieth of its cost (it dominated the parse of a large sitemap).
        return text
    try:
        absolute = safe_url_string(urljoin(base_url, text))
        parts = urlsplit(absolute)
        if parts.scheme.lower() not in _WEB_SCHEMES or not parts.hostname:
            return None
    except ValueError:
        return None
    return absolute


def usable_url(text: str, base_url: str = "") -> str | None:
    """``text`` as an absolute, safely encoded http(s) URL with a host (a relative one
    resolved against ``base_url``), or None when it cannot be one. Never raises."""
    return _usable_loc(text, base_url)


#: an entity reference other than XML's five predefined ones
_NAMED_REFERENCE = re.compile(r"&(?!(?:amp|lt|gt|quot|apos);)[A-Za-z_:][\w.:-]*;")


def _entity_bomb(root: etree._Element) -> bool:
    """True when the document's internal DTD declares an entity whose value refers to
    another entity: the nesting of "billion laughs" (each level multiplies the text).
    The sitemaps protocol needs no entity of its own, so nothing real is lost."""
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is None:
        return False
    entities = dtd.iterentities()  # type: ignore[attr-defined]  # lxml-stubs lack it
    return any(_NAMED_REFERENCE.search(e.content or "") for e in entities)


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


def _entry_tag(entry_name: str) -> re.Pattern[bytes]:
    """Start tags of ``entry_name`` elements in raw bytes (any prefix, any case)."""
    name = re.escape(entry_name.encode())
    return re.compile(rb"<\s*(?:[\w.-]+:)?" + name + rb"[\s/>]", re.IGNORECASE)


class SitemapReader:
    """One sitemap body, read lazily: iterate it for its entries, stop at any time.

    Construction inflates a gzip body, tells XML from plain text and reads up to the
    first element, so ``kind`` (``urlset``, ``sitemapindex`` or ``invalid``) and
    ``error`` are known at once. Iterating yields :class:`SitemapEntry` objects in
    document order (absolute http(s) locs, relative ones resolved against ``url``) and
    keeps ``bad_entries``, ``truncated`` and ``limit`` (which cap stopped the reading)
    up to date. At most ``max_entries`` usable entries, as many unusable ones and
    :data:`MAX_SITEMAP_ELEMENTS` elements are read, so one file costs a bounded time
    even when the caller reads it to the end.

    A caller that stops early (it has all the URLs it wants) calls :meth:`unread` for
    an estimate of the entries it left. Neither construction nor iteration raises.
    """

    def __init__(
        self,
        body: bytes,
        url: str,
        *,
        max_entries: int = MAX_SITEMAP_ENTRIES,
        max_elements: int = MAX_SITEMAP_ELEMENTS,
    ) -> None:
        self.kind = "invalid"
        self.error: str | None = None
        self.bad_entries = 0
        self.truncated = False
        #: why reading stopped before the end of the document, in words
        self.limit: str | None = None
        #: entries handed out so far
        self.read = 0
        self._data = b""
        self._text: str | None = None
        self._text_pos = 0
        self._entry_name = ""
        self._entries: Iterator[SitemapEntry] = iter(())
        try:
            data = maybe_gunzip(body)
        except SitemapError as exc:
            self.error = str(exc)
            return
        try:
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
            data = data.lstrip()
            if not data:
                self.error = "empty document"
                return
            self._data = data
            if data.startswith(b"<"):
                opened = self._xml_entries(url, max_entries, max_elements)
            else:
                opened = self._text_entries(max_entries)
            if next(opened, _END) is _END:
                self.kind = "invalid"  # ``error`` says why
                return
            self._entries = cast(Iterator[SitemapEntry], opened)
        except Exception as exc:
            # The contract is "never raises on any bytes"; a crawl must survive a
            # hostile sitemap even if lxml surprises us.
            self.kind = "invalid"
            self.error = f"unreadable sitemap: {exc}"

    def __iter__(self) -> SitemapReader:
        return self

    def __next__(self) -> SitemapEntry:
        try:
            return next(self._entries)
        except StopIteration:
            raise
        except Exception as exc:  # never raises: keep what was read before
            self._entries = iter(())
            self.error = f"unreadable sitemap: {exc}"
            self._stop("an unreadable part")
            raise StopIteration from None

    def unread(self) -> int:
        """Estimate of the entries after the last one handed out (for a caller that
        stopped early): entry start tags in the whole body (XML) or line breaks after
        the last line read (text), minus what was read. Approximate: unusable entries
        and tags inside comments or CDATA are counted too, and a text file with bare
        CR line ends counts by CRs."""
        if self.kind == "invalid":
            return 0
        if self._text is not None:
            text, pos = self._text, self._text_pos
            breaks = text.count("\n", pos) or text.count("\r", pos)
            return max(0, breaks - text.endswith(("\n", "\r")))
        total = len(_entry_tag(self._entry_name).findall(self._data))
        return max(0, total - self.read - self.bad_entries)

    def _stop(self, limit: str) -> None:
        self.truncated = True
        self.limit = limit

    def _xml_entries(
        self, url: str, max_entries: int, max_elements: int
    ) -> Iterator[SitemapEntry | None]:
        """Yields None once the root is known to be a sitemap root, then the entries.

        One entry is held back until the next one (or the end): a download cut inside
        the last entry is recovered by lxml as an entry for a URL that does not exist.
        """
        events = etree.iterparse(
            io.BytesIO(self._data),
            events=("end",),  # the root comes from the first element's tree
            recover=True,  # one broken tag must not lose the whole file
            resolve_entities=False,  # no XXE, no entity expansion bombs
            no_network=True,
            load_dtd=False,
            huge_tree=False,
            remove_comments=True,
            remove_pis=True,
        )
        root: etree._Element | None = None
        root_name = entry_name = ""
        names: dict[object, str] = {}  # tag -> local name: tags repeat, names are costly
        held: SitemapEntry | None = None
        held_is_last = False  # the held entry is the last entry element read
        good = elements = 0
        try:
            for _event, element in events:
                if root is None:
                    root = element.getroottree().getroot()
                    root_name = _local_name(root)
                    kind = ROOT_KINDS.get(root_name)
                    if kind is None:
                        self.error = f"not a sitemap: root element is <{root_name or '?'}>"
                        return
                    if _entity_bomb(root):
                        # libxml2 2.13+ refuses such entities for their amplification
                        # and then drops their references from the text (no child node
                        # is left to see): "https://example.com/&lol9;" reads as
                        # "https://example.com/". No loc of the file can be trusted.
                        self.error = "refused: its DTD declares an entity bomb (XML entities "
                        self.error += "that expand beyond the parser's amplification limit)"
                        return
                    self.kind = kind
                    self._entry_name = entry_name = ENTRY_ELEMENTS[root_name]
                    yield None
                elements += 1
                if elements > max_elements:
                    self._stop(f"more than {max_elements:,} elements")
                    break
                tag = element.tag
                name = names.get(tag)
                if name is None:
                    name = names[tag] = _local_name(element)
                parent = element.getparent()
                if name == entry_name:
                    raw_loc, lastmod = _entry_values(element, root_name)
                    loc = _usable_loc(raw_loc, url)
                    if loc is None:
                        self.bad_entries += 1
                        held_is_last = False
                        if self.bad_entries >= max_entries:
                            self._stop(f"more than {max_entries:,} unusable entries")
                            break
                    elif good >= max_entries:
                        self._stop(f"more than {max_entries:,} entries")
                        break
                    else:
                        good += 1
                        if held is not None:
                            self.read += 1
                            yield held
                        held, held_is_last = SitemapEntry(loc=loc, lastmod=lastmod), True
                elif parent is not root:
                    continue  # a child of an entry: kept until its entry is read
                # Free what has been read (entries, and junk between them) so a large
                # file stays small in memory.
                element.clear()
                while parent is not None and element.getprevious() is not None:
                    del parent[0]
        except (etree.LxmlError, ValueError, LookupError) as exc:
            # recover=True still gives up on some input (empty, unknown encoding);
            # keep whatever entries were read before that point.
            if root is None:
                self.error = f"not readable as XML: {exc}"
                return
        if root is None:
            self.error = "not readable as XML"
            return
        if held is None:
            return
        if (
            held_is_last
            and not self.truncated
            and _ends_inside_entry(self._data, root_name, entry_name)
        ):
            self.bad_entries += 1
            return
        self.read += 1
        yield held

    def _text_entries(self, max_entries: int) -> Iterator[SitemapEntry | None]:
        """A plain-text sitemap: one absolute http(s) URL per line. Yields None once a
        usable line is found, then the entries."""
        if b"\x00" in self._data:
            self.error = "binary data, not a sitemap"
            return
        self._text = text = self._data.decode("utf-8", errors="replace")
        good = 0
        for match in _TEXT_LINE.finditer(text):
            candidate = match.group().strip()
            if not candidate:
                continue
            # Relative lines are not resolved: in prose or junk almost any word
            # would resolve to a URL. The text format requires absolute URLs.
            loc = None
            if not any(ch.isspace() for ch in candidate) and "\ufffd" not in candidate:
                scheme = candidate.partition(":")[0].lower()
                loc = _usable_loc(candidate, "") if scheme in _WEB_SCHEMES else None
            if loc is None:
                self.bad_entries += 1
                if self.bad_entries >= max_entries:
                    self._stop(f"more than {max_entries:,} unusable lines")
                    break
                continue
            if good >= max_entries:
                self._stop(f"more than {max_entries:,} entries")
                break
            if not good:
                self.kind = "urlset"
                yield None
            good += 1
            self.read += 1
            self._text_pos = match.end()
            yield SitemapEntry(loc=loc)
        if not good:
            self.error = "not a sitemap: no XML and no URL lines"


#: Returned by ``next`` on a reader generator that ended before its first yield.
_END = object()


def parse_sitemap(body: bytes, url: str, *, max_entries: int = MAX_SITEMAP_ENTRIES) -> SitemapDoc:
    """Parse a whole sitemap body fetched from ``url``; never raises.

    The body may be gzip-compressed (detected by magic bytes, inflated up to
    :data:`MAX_SITEMAP_BYTES`). XML sitemaps (``urlset`` or
    ``sitemapindex``, any namespace) and simple RSS/Atom feeds are read with
    entities left unexpanded; relative locs resolve against ``url``; a bad
    entry is counted in ``bad_entries`` and skipped. A body that is not XML
    is read as a plain-text sitemap. At most ``max_entries`` entries are
    kept (``truncated`` then says more existed). :class:`SitemapReader` reads
    the same lazily.
    """
    reader = SitemapReader(body, url, max_entries=max_entries)
    entries = list(reader)
    if reader.kind == "invalid":
        return SitemapDoc(kind="invalid", bad_entries=reader.bad_entries, error=reader.error)
    return SitemapDoc(
        kind=reader.kind,
        entries=entries,
        bad_entries=reader.bad_entries,
        error=reader.error,
        truncated=reader.truncated,
    )
