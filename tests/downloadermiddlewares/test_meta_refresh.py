"""Meta refresh: the byte check in front of Scrapy's middleware never hides a refresh
Scrapy would follow, and a crawl still follows one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from scrapy.utils.defer import deferred_f_from_coro_f
from w3lib.html import get_meta_refresh

from webmd_spider.demo.server import SiteServer
from webmd_spider.downloadermiddlewares.meta_refresh import may_refresh

from ..crawling import by_type, crawl
from ..spiders.test_crawl_edges import WORDS, build, page

Serve = Callable[[Path], SiteServer]

ENCODINGS = ["utf-8", "utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252", "shift_jis", "gb18030"]
PIECES = st.sampled_from(
    [
        '<meta http-equiv="refresh" content="0;url=/b.html">',
        "<META HTTP-EQUIV=REFRESH CONTENT='5; URL=http://example.org/x'>",
        '<meta content="1;url=/c" http-equiv="Refresh">',
        "<script>var refresh = 1;</script>",
        "<noscript><meta http-equiv=refresh content='0;url=/n'></noscript>",
        "<p>ünïcödé text 日本語 </p>",
        "<p>plain words</p>",
        " " * 200,
    ]
)


@given(st.lists(PIECES, max_size=12), st.sampled_from(ENCODINGS))
def test_no_refresh_scrapy_would_find_is_ruled_out(pieces: list[str], encoding: str) -> None:
    _assert_kept("<html><head>" + "".join(pieces) + "</head><body>x</body></html>", encoding)


def _assert_kept(
    html: str, encoding: str, declared: str | None = None, *, must_find: bool = False
) -> None:
    """If Scrapy's middleware would find a refresh in ``html`` sent in ``encoding``,
    the byte check hands the page to it. ``must_find``: ``html`` always holds a refresh
    Scrapy finds and is always encodable (the check may not be skipped)."""
    try:
        body = html.encode(encoding)
    except UnicodeEncodeError:
        assert not must_find, f"{encoding} cannot encode the page"
        return
    # what Scrapy's get_meta_refresh scans: the first 4,096 characters
    _interval, url = get_meta_refresh(html[:4096], "http://example.org/", encoding)
    assert url is not None or not must_find, "the refresh is not where Scrapy looks"
    if url is not None:
        assert may_refresh(body, declared)


def test_pages_without_the_word_are_ruled_out_and_wide_encodings_never() -> None:
    assert not may_refresh(b"<html><p>" + b"x" * 50_000 + b"</p></html>")
    assert not may_refresh(b"<p>" + b"y" * (4 * 4096) + b'<meta http-equiv="refresh">')
    assert not may_refresh(b"<p>plain</p>", "utf-8")
    assert may_refresh("<p>nothing</p>".encode("utf-16"))
    assert may_refresh("<p>nothing</p>".encode("utf-16-le"))


def _refresh_after(prefix: str) -> str:
    return f"<html><head><title>{prefix}</title>" + REFRESH + "</head></html>"


REFRESH = '<meta http-equiv="refresh" content="0;url=/b.html">'


def test_encodings_that_do_not_spell_ascii_always_go_to_scrapy() -> None:
    # UTF-16 without a byte order mark, CJK first: no NUL byte in the first 512 bytes
    html = "日本語" * 200 + REFRESH
    assert b"\x00" not in html.encode("utf-16-le")[:512]
    assert may_refresh(html.encode("utf-16-le"), "utf-16le")
    # ISO-2022-JP: escape sequences take bytes without characters
    assert may_refresh(_refresh_after("日本語テキスト" * 2000).encode("iso-2022-jp"))
    # EBCDIC, declared in the Content-Type header
    assert may_refresh(_refresh_after("x").encode("cp500"), "cp500")
    assert may_refresh(b"<p>x</p>", "no-such-charset")


#: Characters all three encodings below can write (ASCII and JIS X 0208 kana and kanji),
#: so no draw is skipped as unencodable.
ENCODABLE = "ab \n日本語テキスト"


@given(
    st.text(alphabet=ENCODABLE, max_size=3000),
    st.sampled_from(["utf-16-le", "utf-16-be", "iso-2022-jp"]),
)
def test_a_refresh_scrapy_finds_in_any_encoding_is_kept(prefix: str, encoding: str) -> None:
    _assert_kept(_refresh_after(prefix), encoding, declared=encoding, must_find=True)


@deferred_f_from_coro_f
async def test_a_crawl_follows_a_meta_refresh(serve_site: Serve, tmp_path: Path) -> None:
    moved = (
        '<html><head><meta http-equiv="Refresh" content="0; url=/new.html"></head>'
        f"<body><p>{WORDS}</p></body></html>"
    )
    site = build(tmp_path / "s", {"index.html": page("/old.html"), "old.html": moved})
    (site / "new.html").write_text(
        f"<html><head><title>New</title></head><body><p>{WORDS} new</p></body></html>",
        encoding="utf-8",
    )
    server = serve_site(site)
    rows = await crawl(tmp_path, start=server.base_url + "/", max_pages="10")
    finals = {r["final_url"].removeprefix(server.base_url) for r in by_type(rows, "page")}
    assert "/new.html" in finals
    assert "/old.html" not in finals
    assert server.hits("/new.html") == 1
