"""Tests for webmd_spider.discovery.sitemaps: real sitemap bytes in, SitemapDoc out."""

from __future__ import annotations

import gzip
import tracemalloc
import types
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webmd_spider.discovery import sitemaps
from webmd_spider.discovery.sitemaps import (
    MAX_SITEMAP_BYTES,
    MAX_SITEMAP_ENTRIES,
    SitemapDoc,
    SitemapEntry,
    SitemapError,
    SitemapTooLarge,
    maybe_gunzip,
    parse_sitemap,
)

SM_NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
IMAGE_NS = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
XHTML_NS = 'xmlns:xhtml="http://www.w3.org/1999/xhtml"'


def urlset(*urls: str, ns: str = SM_NS) -> bytes:
    body = "".join(f"<url><loc>{u}</loc></url>" for u in urls)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {ns}>{body}</urlset>'.encode()


@dataclass
class Work:
    """What a parse cost, counted (issue 16: the suite must hold on a busy machine, so
    work is bounded by counting it, never by timing it)."""

    #: elements lxml handed to the reader
    elements: int = 0
    #: the most children the document's root held at once while it was read
    most_children: int = 0
    #: bytes gzip inflation produced
    inflated: int = 0


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Work:
    """Count the work of the parses in the test: elements read (lxml's ``iterparse``
    as webmd_spider.discovery.sitemaps calls it) and bytes inflated (its ``zlib``)."""
    counted = Work()
    iterparse = sitemaps.etree.iterparse

    def counting_iterparse(*args: Any, **kwargs: Any) -> Iterator[tuple[str, Any]]:
        for event, element in iterparse(*args, **kwargs):
            counted.elements += 1
            root = element.getroottree().getroot()
            counted.most_children = max(counted.most_children, len(root))
            yield event, element

    class CountingInflater:
        def __init__(self, *args: Any) -> None:
            self._real = zlib.decompressobj(*args)

        def decompress(self, data: bytes, max_length: int = 0) -> bytes:
            out = self._real.decompress(data, max_length)
            counted.inflated += len(out)
            return out

        def flush(self, *args: Any) -> bytes:
            out = self._real.flush(*args)
            counted.inflated += len(out)
            return out

        def __getattr__(self, name: str) -> Any:
            return getattr(self._real, name)

    counting_zlib = types.SimpleNamespace(**vars(zlib))
    counting_zlib.decompressobj = CountingInflater
    monkeypatch.setattr(sitemaps.etree, "iterparse", counting_iterparse)
    monkeypatch.setattr(sitemaps, "zlib", counting_zlib)
    return counted


def gzip_bomb(uncompressed_mb: int) -> bytes:
    """Gzip of ``uncompressed_mb`` MiB of zeros, built without holding them in memory."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1024 * 1024)
    parts = [compressor.compress(zeros) for _ in range(uncompressed_mb)]
    parts.append(compressor.flush())
    return b"".join(parts)


# --------------------------------------------------------------------------- #
# urlset / sitemapindex
# --------------------------------------------------------------------------- #


def test_namespaced_urlset_with_lastmod() -> None:
    body = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset {SM_NS} {IMAGE_NS} {XHTML_NS}>
  <url>
    <loc>https://example.com/</loc>
    <lastmod> 2024-05-01T10:00:00+00:00 </lastmod>
    <changefreq>daily</changefreq>
    <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/"/>
  </url>
  <url>
    <loc>
      https://example.com/docs/a?x=1&amp;y=2
    </loc>
    <image:image><image:loc>https://cdn.example.com/pic.png</image:loc></image:image>
  </url>
</urlset>""".encode()
    doc = parse_sitemap(body, "https://example.com/sitemap.xml")
    assert doc == SitemapDoc(
        kind="urlset",
        entries=[
            SitemapEntry("https://example.com/", "2024-05-01T10:00:00+00:00"),
            SitemapEntry("https://example.com/docs/a?x=1&y=2", None),
        ],
        bad_entries=0,
        error=None,
        truncated=False,
    )


def test_urlset_without_namespace_and_with_wrong_namespace() -> None:
    plain = urlset("https://a.example/1", "https://a.example/2", ns="")
    odd = urlset("https://a.example/1", ns='xmlns="http://www.google.com/schemas/sitemap/0.84"')
    prefixed = (
        b'<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<sm:url><sm:loc>https://a.example/p</sm:loc></sm:url></sm:urlset>"
    )
    assert [e.loc for e in parse_sitemap(plain, "https://a.example/s.xml").entries] == [
        "https://a.example/1",
        "https://a.example/2",
    ]
    assert [e.loc for e in parse_sitemap(odd, "https://a.example/s.xml").entries] == [
        "https://a.example/1"
    ]
    assert [e.loc for e in parse_sitemap(prefixed, "https://a.example/s.xml").entries] == [
        "https://a.example/p"
    ]


def test_sitemap_index() -> None:
    body = f"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex {SM_NS}>
  <sitemap><loc>https://example.com/sitemap-posts.xml.gz</loc><lastmod>2024-01-02</lastmod></sitemap>
  <sitemap><loc>sitemap-pages.xml</loc></sitemap>
</sitemapindex>""".encode()
    doc = parse_sitemap(body, "https://example.com/sitemap_index.xml")
    assert doc.kind == "sitemapindex"
    assert doc.entries == [
        SitemapEntry("https://example.com/sitemap-posts.xml.gz", "2024-01-02"),
        SitemapEntry("https://example.com/sitemap-pages.xml", None),
    ]
    assert doc.error is None and doc.bad_entries == 0


def test_relative_locs_resolve_against_sitemap_url() -> None:
    body = urlset("/root-relative", "sibling.html", "../up", "//cdn.example.net/x")
    doc = parse_sitemap(body, "https://example.com/blog/sitemap.xml")
    assert [e.loc for e in doc.entries] == [
        "https://example.com/root-relative",
        "https://example.com/blog/sibling.html",
        "https://example.com/up",
        "https://cdn.example.net/x",
    ]


def test_bad_entries_cost_only_themselves() -> None:
    body = f"""<urlset {SM_NS}>
  <url><loc>https://example.com/1</loc></url>
  <url><lastmod>2024-01-01</lastmod></url>
  <url><loc>   </loc></url>
  <url><loc>mailto:someone@example.com</loc></url>
  <url><loc>javascript:alert(1)</loc></url>
  <url><loc>ftp://example.com/file</loc></url>
  <url><loc>https://example.com/2</loc></url>
  <url><loc>https://example.com/3</lo></url>
  <url><loc>https://example.com/4</loc></url>
</urlset>""".encode()
    doc = parse_sitemap(body, "https://example.com/sitemap.xml")
    assert doc.kind == "urlset"
    assert [e.loc for e in doc.entries] == [
        "https://example.com/1",
        "https://example.com/2",
        "https://example.com/3",
        "https://example.com/4",
    ]
    assert doc.bad_entries == 5


def test_truncated_document_keeps_entries_read_so_far() -> None:
    whole = urlset("https://example.com/1", "https://example.com/2")
    # cut inside the second <loc>: recovery must not invent "https://exam"
    doc = parse_sitemap(whole[:-30], "https://example.com/sitemap.xml")
    assert doc.kind == "urlset"
    assert [e.loc for e in doc.entries] == ["https://example.com/1"]
    assert doc.bad_entries == 1
    # cut between entries: both complete entries are kept
    cut_after_url = whole[: whole.rindex(b"</urlset>")]
    doc = parse_sitemap(cut_after_url, "https://example.com/sitemap.xml")
    assert [e.loc for e in doc.entries] == ["https://example.com/1", "https://example.com/2"]
    assert doc.bad_entries == 0


def test_max_entries_truncation() -> None:
    body = urlset(*(f"https://example.com/p{i}" for i in range(10)))
    doc = parse_sitemap(body, "https://example.com/s.xml", max_entries=3)
    assert [e.loc for e in doc.entries] == [f"https://example.com/p{i}" for i in range(3)]
    assert doc.truncated is True
    exact = parse_sitemap(body, "https://example.com/s.xml", max_entries=10)
    assert len(exact.entries) == 10 and exact.truncated is False


def test_full_size_sitemap_streams(work: Work) -> None:
    count = 2 * MAX_SITEMAP_ENTRIES
    body = urlset(*(f"https://example.com/page/{i}" for i in range(count)))
    doc = parse_sitemap(body, "https://example.com/sitemap.xml")
    assert len(doc.entries) == MAX_SITEMAP_ENTRIES
    assert doc.truncated
    assert doc.entries[-1].loc == f"https://example.com/page/{MAX_SITEMAP_ENTRIES - 1}"
    # bounded work, counted: reading stops after the entry past the cap (a <url> and its
    # <loc> each), not at the end of the file, and what was read is let go as it goes:
    # the root never holds more than what lxml parsed ahead of the reader (one read
    # buffer, some hundreds of entries), not the 100,000 entries of the file
    assert work.elements <= 2 * (MAX_SITEMAP_ENTRIES + 1)
    assert work.most_children < 5_000


# --------------------------------------------------------------------------- #
# gzip
# --------------------------------------------------------------------------- #


def test_gzip_and_already_inflated_bodies_parse_the_same() -> None:
    raw = urlset("https://example.com/a", "https://example.com/b")
    url = "https://example.com/sitemap.xml.gz"
    inflated = parse_sitemap(raw, url)
    compressed = parse_sitemap(gzip.compress(raw), url)
    assert compressed == inflated
    assert [e.loc for e in compressed.entries] == ["https://example.com/a", "https://example.com/b"]


def test_maybe_gunzip() -> None:
    raw = b"<urlset/>"
    assert maybe_gunzip(raw) == raw
    assert maybe_gunzip(gzip.compress(raw)) == raw
    # concatenated gzip members are one stream
    assert maybe_gunzip(gzip.compress(b"ab") + gzip.compress(b"cd")) == b"abcd"
    with pytest.raises(SitemapError):
        maybe_gunzip(b"\x1f\x8b not really gzip")
    with pytest.raises(SitemapTooLarge):
        maybe_gunzip(b"x" * 101, max_bytes=100)
    with pytest.raises(SitemapTooLarge):
        maybe_gunzip(gzip.compress(b"x" * 101), max_bytes=100)
    assert maybe_gunzip(gzip.compress(b"x" * 100), max_bytes=100) == b"x" * 100


def test_truncated_gzip_keeps_what_inflated() -> None:
    raw = urlset(*(f"https://example.com/{i}" for i in range(200)))
    cut = gzip.compress(raw)[:-200]
    inflated = maybe_gunzip(cut)
    assert raw.startswith(inflated) and len(inflated) > 0
    doc = parse_sitemap(cut, "https://example.com/s.xml.gz")
    assert doc.kind == "urlset" and doc.entries[0].loc == "https://example.com/0"


def test_gzip_bomb_is_stopped_at_the_cap_quickly(work: Work) -> None:
    bomb = gzip_bomb(200)  # 200 MiB of zeros, about 200 KB compressed
    assert len(bomb) < 1024 * 1024
    tracemalloc.start()
    try:
        doc = parse_sitemap(bomb, "https://example.com/sitemap.xml.gz")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert doc.kind == "invalid"
    assert doc.error is not None and "larger than" in doc.error
    # quickly: inflation stopped just past the cap (bytes counted, not timed), never
    # read on to the end of the 200 MiB payload
    assert MAX_SITEMAP_BYTES < work.inflated < MAX_SITEMAP_BYTES * 1.5
    assert work.elements == 0  # nothing of it parsed
    # never more than the cap plus bookkeeping, far below the 200 MiB payload
    assert peak < MAX_SITEMAP_BYTES * 1.5

    with pytest.raises(SitemapTooLarge):
        maybe_gunzip(bomb, max_bytes=1024 * 1024)


# --------------------------------------------------------------------------- #
# garbage, hostile XML
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"   \n\t",
        b"\x00\x01\x02\xff\xfe",
        b"hello, this is not a sitemap",
        b"<<<>>>",
        b'<?xml version="1.0"?>',
        b"<html><head><title>404</title></head><body>Not found</body></html>",
        b"<!DOCTYPE html><html><body><a href='/x'>x</a></body></html>",
        b'{"urls": ["https://example.com/"]}',
        b"\x1f\x8b\x08\x00garbage",
    ],
)
def test_garbage_is_invalid_without_raising(body: bytes) -> None:
    doc = parse_sitemap(body, "https://example.com/sitemap.xml")
    assert doc.kind == "invalid"
    assert doc.entries == []
    assert doc.error


@given(st.binary(max_size=2000))
def test_parse_sitemap_never_raises_on_any_bytes(body: bytes) -> None:
    doc = parse_sitemap(body, "https://example.com/sitemap.xml")
    assert doc.kind in {"urlset", "sitemapindex", "invalid"}
    assert all(e.loc.startswith(("http://", "https://")) for e in doc.entries)


_XML_PIECES = st.sampled_from(
    [
        "<urlset>",
        "</urlset>",
        "<url>",
        "</url>",
        "<loc>",
        "</loc>",
        "<sitemapindex>",
        "<sitemap>",
        "https://example.com/a",
        "/rel",
        "&amp;",
        "&bogus;",
        "<![CDATA[x]]>",
        "<!-- c -->",
        "<lastmod>2024</lastmod>",
        " ",
        "\n",
        "<",
        ">",
    ]
)


@given(st.lists(_XML_PIECES, max_size=40).map(lambda parts: "".join(parts).encode()))
def test_parse_sitemap_never_raises_on_sitemap_like_fragments(body: bytes) -> None:
    doc = parse_sitemap(body, "https://example.com/sitemap.xml")
    assert doc.kind in {"urlset", "sitemapindex", "invalid"}
    assert doc.bad_entries >= 0


def test_external_entities_are_not_expanded() -> None:
    body = b"""<?xml version="1.0"?>
<!DOCTYPE urlset [
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
  <!ENTITY remote SYSTEM "http://127.0.0.1:1/evil.dtd">
  <!ENTITY internal "https://evil.example/injected">
]>
<urlset>
  <url><loc>https://example.com/&xxe;</loc></url>
  <url><loc>&remote;</loc></url>
  <url><loc>&internal;</loc></url>
  <url><loc>https://example.com/ok</loc></url>
</urlset>"""
    doc = parse_sitemap(body, "https://example.com/sitemap.xml")
    assert doc.kind == "urlset"
    assert [e.loc for e in doc.entries] == ["https://example.com/ok"]
    assert doc.bad_entries == 3
    assert not any("root:" in e.loc or "evil" in e.loc for e in doc.entries)


def test_billion_laughs_is_not_expanded(work: Work) -> None:
    levels = ['<!ENTITY lol0 "lol">']
    for i in range(1, 10):
        levels.append(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">')
    body = (
        '<?xml version="1.0"?>\n<!DOCTYPE urlset [' + "".join(levels) + "]>\n"
        "<urlset><url><loc>https://example.com/&lol9;</loc></url></urlset>"
    ).encode()
    tracemalloc.start()
    try:
        doc = parse_sitemap(body, "https://example.com/sitemap.xml")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # the work is what the 3 elements cost (counted, with the memory, not timed):
    # 10^9 "lol"s expanded would be gigabytes
    assert work.elements <= 3
    assert peak < 10 * 1024 * 1024
    assert doc.entries == []
    assert "lollol" not in repr(doc)


# --------------------------------------------------------------------------- #
# other sitemap formats
# --------------------------------------------------------------------------- #


def test_plain_text_sitemap() -> None:
    body = (
        b"\xef\xbb\xbfhttps://example.com/\r\n"
        b"https://example.com/docs/a\n"
        b"\n"
        b"   https://example.com/docs/b   \n"
        b"not a url\n"
        b"ftp://example.com/x\n"
        b"http://example.com/caf\xc3\xa9\n"
    )
    doc = parse_sitemap(body, "https://example.com/sitemap.txt")
    assert doc.kind == "urlset"
    assert [e.loc for e in doc.entries] == [
        "https://example.com/",
        "https://example.com/docs/a",
        "https://example.com/docs/b",
        "http://example.com/caf%C3%A9",
    ]
    assert doc.bad_entries == 2
    gz = parse_sitemap(gzip.compress(body), "https://example.com/sitemap.txt.gz")
    assert gz == doc


def test_plain_text_sitemap_truncation() -> None:
    body = "\n".join(f"https://example.com/{i}" for i in range(5)).encode()
    doc = parse_sitemap(body, "https://example.com/s.txt", max_entries=2)
    assert len(doc.entries) == 2 and doc.truncated


def test_rss_feed_as_sitemap() -> None:
    body = b"""<?xml version="1.0"?>
<rss version="2.0"><channel>
  <title>Blog</title><link>https://example.com/</link>
  <item><title>One</title><link>https://example.com/posts/1</link>
        <pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>
  <item><title>Two</title><link>/posts/2</link></item>
  <item><title>No link</title></item>
</channel></rss>"""
    doc = parse_sitemap(body, "https://example.com/feed.xml")
    assert doc.kind == "urlset"
    assert doc.entries == [
        SitemapEntry("https://example.com/posts/1", "Mon, 01 Jan 2024 00:00:00 GMT"),
        SitemapEntry("https://example.com/posts/2", None),
    ]
    assert doc.bad_entries == 1


def test_atom_feed_as_sitemap() -> None:
    body = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Blog</title><link href="https://example.com/"/>
  <entry><title>A</title><link rel="self" href="https://example.com/api/a.json"/>
    <link rel="alternate" href="https://example.com/a"/><updated>2024-02-03T00:00:00Z</updated>
  </entry>
  <entry><title>B</title><link href="b"/></entry>
</feed>"""
    doc = parse_sitemap(body, "https://example.com/blog/atom.xml")
    assert doc.kind == "urlset"
    assert doc.entries == [
        SitemapEntry("https://example.com/a", "2024-02-03T00:00:00Z"),
        SitemapEntry("https://example.com/blog/b", None),
    ]
