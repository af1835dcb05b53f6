"""Hostile pages at the parse and page-facts stages (parse.py, metadata.py).

Deep nesting, control characters (raw, as character references, as JSON-LD escapes),
wrong or missing charsets, stray byte order marks, and metadata values that are no URL
or language. Each case comes from an audit repro (the pages are inlined, small).
"""

from __future__ import annotations

import codecs
import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import pytest
from lxml import etree

from webmd_spider.extract import Document, ExtractOptions, extract
from webmd_spider.extract import parse as parse_module
from webmd_spider.extract.parse import clean_source, decode, parse_html

URL = "https://example.com/p"
PROSE = "This is a real paragraph of prose, with enough words to count as content."

# ---------------------------------------------------------------------------------------
# 1. Nesting


def _depth(root: Any) -> int:
    """How many levels the tree has below `root`."""
    deepest = depth = 0
    for event, _ in etree.iterwalk(root, events=("start", "end")):
        depth += 1 if event == "start" else -1
        deepest = max(deepest, depth)
    return deepest - 1


def test_nesting_of_254_levels_keeps_the_rest_of_the_page() -> None:
    # deep_254.html: libxml2 stopped at depth 256 and dropped the nest and all after it
    page = (
        "<html><body><p>Before the nest.</p>"
        + "<div>" * 254
        + "<p>Deep paragraph.</p>"
        + "</div>" * 254
        + "<p>After the nest.</p></body></html>"
    )
    doc = extract(page, URL)
    assert doc.error is None
    assert doc.text.split("\n\n") == ["Before the nest.", "Deep paragraph.", "After the nest."]


def test_forum_of_unclosed_divs_keeps_every_post() -> None:
    # forum_unclosed_div.html: one unclosed <div> per post, posts 254-400 were lost
    posts = "".join(
        f"<div class=post><b>user{i}</b> wrote: this is post number {i} with a sentence.<br>"
        for i in range(400)
    )
    page = f"<html><head><title>Forum thread</title></head><body><h1>Forum thread</h1>{posts}"
    doc = extract(page, URL)
    assert doc.markdown.count(" wrote: ") == 400
    assert "post number 399 " in doc.text


@pytest.mark.parametrize(
    ("depth", "opening", "closing"),
    [
        (2_000, "<div>", "</div>"),
        (10_000, "<div>", "</div>"),
        (50_000, "<div>", "</div>"),
        (10_000, "<table><tr><td>", "</td></tr></table>"),
        (10_000, "<ul><li>", ""),
        (10_000, "<b>", ""),
    ],
    ids=["div-2000", "div-10000", "div-50000", "table-10000", "open-list-10000", "open-b-10000"],
)
def test_nesting_beyond_what_libxml2_builds_is_flattened_not_lost(
    depth: int, opening: str, closing: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (
        "<html><body><p>Before the nest, a sentence.</p>"
        + opening * depth
        + "<p>Bottom text of the nest, a sentence.</p>"
        + closing * depth
        + "<p>After the nest, a sentence.</p></body></html>"
    )
    root = parse_html(page)
    assert root is not None
    assert _depth(root) <= 2048  # what every later stage is handed
    # linear: the page is parsed at most three times (whole, then flattened to each of
    # _FLAT_DEPTHS), each time about as large as it is (a dropped tag of 3 bytes or more
    # becomes "<br>" or nothing); counted, not timed (issue 16)
    parsed: list[int] = []
    fromstring = parse_module.etree.fromstring

    def counted(data: bytes, parser: Any) -> Any:
        parsed.append(len(data))
        return fromstring(data, parser=parser)

    monkeypatch.setattr(parse_module.etree, "fromstring", counted)
    doc = extract(page, URL, options=ExtractOptions(include_html=True))
    assert 1 <= len(parsed) <= 1 + len(parse_module._FLAT_DEPTHS), parsed
    assert max(parsed) <= len(page.encode()) * 4 // 3, parsed
    assert doc.error is None
    for words in ("Before the nest", "Bottom text of the nest", "After the nest"):
        assert words in doc.text
    assert doc.html is not None and "Bottom text of the nest" in doc.html


def test_flattening_leaves_pages_within_the_limit_unchanged() -> None:
    page = b"<html><body><script>var s = '<div><div>';</script><div><p>a<p>b</div></body>"
    assert parse_module._flatten(page, 1024) is page
    flat = parse_module._flatten(b"<body><div><div><div>x</div>y</div>z</div>", 2)
    # html is implied: <body> and the first <div> are kept, the rest become line breaks
    assert flat == b"<body><div><br><br>x<br>y<br>z</div>"


# ---------------------------------------------------------------------------------------
# 2. Control characters

# Unicode Cc but tab and newline
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _controls_in(doc: Document) -> list[tuple[str, str]]:
    """(field, offending string) for every control character left in the Document."""
    return [
        (name, text)
        for name, value in dataclasses.asdict(doc).items()
        for text in _strings(value)
        if _CONTROLS.search(text)
    ]


CONTROL_PAGE = (
    "<html><head><title>T&#x1b;itle&#7;</title>"
    '<meta name="description" content="d&#127;esc&#x9D;">'
    '<meta name="author" content="A&#x1B;B&#7;C">'
    '<meta property="og:site_name" content="Site&#129;">'
    '<meta name="keywords" content="k&#1;1, k2&#x7f">'
    '<script type="application/ld+json">'
    '{"@type": "Art\\u0000icle", "datePublished": "2020\\u001b-01", '
    '"dateModified": "\\r2021\\u0085"}</script>'
    "</head><body><article><h1>H&#x1b;ead</h1>"
    "<p>Build log: &#x1b;[31mFAILED&#x1b;[0m at step 3, DEL &#127; here, bell &#7 and "
    "&#0000027; &#X1B &#x0001b; more words to make it a paragraph, \x85raw\x9f C1.</p>"
    '<p><a href="/a&#x1b;b" title="t&#8;">li&#x1b;nk</a> <img src="/i&#2;.png" alt="a&#7;b">'
    "<code>x&#x8f;y</code> &#x90;&#157;&#141;&#143;&#129; &#128;uro</p>"
    "<table><tr><th>h&#x1b;1</th><th>h2</th></tr><tr><td>c&#27;ell</td><td>2</td></tr>"
    "<tr><td>3</td><td>4</td></tr></table>"
    "</article></body></html>"
)


@pytest.mark.parametrize(
    "body",
    [CONTROL_PAGE, CONTROL_PAGE.encode("utf-8")],
    ids=["str", "bytes"],
)
def test_no_control_character_reaches_any_document_field(body: str | bytes) -> None:
    # ctrl_entities.html, ctrl_meta.html: &#x1b;, &#127;, &#7;, JSON-LD \u0007, raw C1
    doc = extract(body, URL, options=ExtractOptions(include_html=True))
    assert doc.error is None
    assert _controls_in(doc) == []
    assert doc.title == "Title"
    assert doc.author == "ABC"
    assert doc.description == "desc"
    assert doc.json_ld_types == ["Article"]
    assert doc.published_at == "2020-01"
    assert doc.modified_at == "2021"
    assert "[31mFAILED[0m at step 3, DEL here, bell and more words" in doc.text
    assert "raw C1." in doc.text
    assert "€uro" in doc.text  # &#128;-&#159; are Windows-1252 characters: kept
    assert doc.links[0].text == "link" and doc.links[0].url == "https://example.com/ab"
    assert doc.images[0].alt == "ab"
    assert doc.tables[0]["headers"] == ["h1", "h2"]
    assert doc.tables[0]["rows"] == [["cell", "2"], ["3", "4"]]


def test_raw_c1_characters_of_a_decoded_page_are_removed() -> None:
    # iso-8859-2 maps 0x80-0x9F to the C1 controls
    page = "<p>Za\u017c\u00f3\u0142\u0107 \x85g\u0119\u015bl\u0105 ja\u017a\x9a\u0144.</p>"
    doc = extract(page.encode("iso-8859-2"), URL, encoding="iso-8859-2")
    assert doc.text == "Zażółć gęślą jaźń."


def test_carriage_return_references_are_line_breaks_not_nothing() -> None:
    doc = extract("<p>one&#13;two</p><pre>x&#13;&#10;y&#xD;\nz&#13;w</pre>", URL)
    assert doc.text.split("\n\n")[0] == "one two"
    assert "x\ny\nz\nw" in doc.markdown


def test_control_references_are_matched_whole() -> None:
    # the digits must end where the control's do: &#x1b9; is U+01B9, &#271; U+010F
    doc = extract("<p>&#x1b9; &#271; &#x1bq &#27x &#9;tab&#10;</p>", URL)
    assert doc.text == "\u01b9 \u010f q x tab"


def test_removing_a_reference_cannot_build_a_new_one() -> None:
    nested = "&#" * 10 + "&#1;" + "x1b;" * 10
    for page in ("<p>a&#&#1;x1b;b &&#1;#27;c</p>", f"<p>{nested} end</p>"):
        doc = extract(page, URL)
        assert doc.error is None
        assert _controls_in(doc) == []


def test_clean_source_removes_what_parse_html_removes() -> None:
    assert clean_source('<?xml version="1.0"?><p>a\x01&#x1b;\ufeff\x85b</p>') == "<p>ab</p>"


# ---------------------------------------------------------------------------------------
# 3. A UTF-16/32 label on an ASCII-compatible body

CAFE = (
    "<html><head>{meta}<title>Caf\u00e9 menu</title></head><body><article><h1>Caf\u00e9 menu</h1>"
    "<p>Our caf\u00e9 serves cr\u00e8me br\u00fbl\u00e9e and other desserts every day of the "
    "week, all made in house.</p></article></body></html>"
)


@pytest.mark.parametrize(
    "meta",
    [
        '<meta http-equiv="Content-Type" content="text/html; charset=utf-16">',
        '<meta http-equiv="Content-Type" content="text/html; charset=utf-32">',
        '<meta charset="UTF-16LE">',
        '<meta charset="utf-16be">',
    ],
)
def test_meta_utf16_or_utf32_on_an_ascii_compatible_body_means_utf8(meta: str) -> None:
    # meta_utf16_utf8body.html, meta_utf32_utf8body.html (WHATWG HTML § 13.2.3.2)
    doc = extract(CAFE.format(meta=meta).encode("utf-8"), URL)
    assert doc.title == "Café menu"
    assert "Our café serves crème brûlée" in doc.text


@pytest.mark.parametrize("header", ["utf-16", "UTF-16LE", "utf-16be", "utf-32"])
def test_header_utf16_on_a_body_without_nul_bytes_is_not_utf16(header: str) -> None:
    doc = extract(CAFE.format(meta="").encode("utf-8"), URL, encoding=header)
    assert doc.title == "Café menu"
    # the <meta> decides then
    meta = '<meta charset="windows-1252">'
    doc = extract(CAFE.format(meta=meta).encode("cp1252"), URL, encoding=header)
    assert "Our café serves crème brûlée" in doc.text


@pytest.mark.parametrize(
    ("codec", "bom", "header"),
    [
        ("utf-16-le", codecs.BOM_UTF16_LE, None),
        ("utf-16-be", codecs.BOM_UTF16_BE, None),
        ("utf-32-le", codecs.BOM_UTF32_LE, None),
        ("utf-16-le", b"", "utf-16"),  # WHATWG: the bare "utf-16" label is little-endian
        ("utf-16-be", b"", "utf-16"),
        ("utf-16-le", b"", "utf-16le"),
        ("utf-16-le", b"", None),  # no label at all: the NUL bytes tell
        ("utf-16-be", b"", None),
        ("utf-32-le", b"", "utf-32"),
        ("utf-32-be", b"", None),
    ],
)
def test_real_utf16_and_utf32_pages_still_decode(
    codec: str, bom: bytes, header: str | None
) -> None:
    body = bom + CAFE.format(meta='<meta charset="utf-16">').encode(codec)
    doc = extract(body, URL, encoding=header)
    assert doc.title == "Café menu"
    assert "Our café serves crème brûlée" in doc.text


# ---------------------------------------------------------------------------------------
# 4. No declared charset


def test_undeclared_windows_1252_page_keeps_its_accents() -> None:
    # undeclared_cp1252.html: decoded as UTF-8, every accented character became U+FFFD
    page = (
        "<html><head><title>Caf\u00e9</title></head><body><article><h1>Caf\u00e9 cr\u00e8me</h1>"
        "<p>Un caf\u00e9 cr\u00e8me, s'il vous pla\u00eet. \u201cQuoted\u201d text \u2013 with a "
        "dash and enough words here.</p></article></body></html>"
    )
    doc = extract(page.encode("cp1252"), URL)
    assert doc.title == "Café"
    assert doc.markdown.startswith("# Café crème\n\n")  # the title: a field, not the body
    assert doc.text == (
        "Un café crème, s'il vous plaît. “Quoted” text \u2013 with a dash and enough words here."
    )
    assert decode(page.encode("cp1252")) == page


RUSSIAN = (
    "<html{lang}><head><title>Новости</title></head><body><article><h1>Главная страница</h1>"
    "<p>Это обычная страница на русском языке, в ней нет объявления кодировки. Мы "
    "проверяем, что текст читается правильно.</p></article></body></html>"
)
JAPANESE = (
    "<html{lang}><head><title>ニュース</title></head><body><article><h1>ホームページ</h1>"
    "<p>これは日本語のページです。文字コードの宣言がありません。正しく読めるか確認します。"
    "</p></article></body></html>"
)


@pytest.mark.parametrize(
    ("page", "encoding"),
    [
        (RUSSIAN, "windows-1251"),
        (RUSSIAN, "koi8-r"),
        (JAPANESE, "shift_jis"),
        (JAPANESE, "euc-jp"),
    ],
)
@pytest.mark.parametrize("lang", ["", ' lang="ru"', ' lang="ja"'])
def test_undeclared_legacy_encodings_are_detected(page: str, encoding: str, lang: str) -> None:
    # issue 16 item 6: a windows-1251 or Shift_JIS page with no charset anywhere came out
    # as mojibake (decoded as windows-1252); the same page with a charset was right
    html = page.format(lang=lang)
    assert decode(html.encode(encoding)) == html
    doc = extract(html.encode(encoding), URL)
    assert doc.title in ("Новости", "ニュース")


def test_a_language_hint_gives_the_locale_default_for_a_short_page() -> None:
    # too few bytes for statistics: WHATWG's locale default for the page's language
    html = '<html lang="ru"><p>Да</p></html>'
    assert decode(html.encode("windows-1251")) == html
    western = '<html lang="de"><p>Grüße</p></html>'
    assert decode(western.encode("cp1252")) == western


def test_undeclared_utf8_stays_utf8_even_with_a_stray_byte() -> None:
    page = "<p>Caf\u00e9 cr\u00e8me \u2013 na\u00efve \u65e5\u672c.</p>"
    assert extract(page.encode("utf-8"), URL).text == "Café crème \u2013 naïve 日本."
    # valid multi-byte UTF-8 before the first bad byte: a UTF-8 page, not windows-1252
    broken = page.encode("utf-8") + b"<p>bad \xe9 byte</p>"
    assert extract(broken, URL).text.startswith("Café crème \u2013 naïve 日本.")
    # cut inside its last character (a size-capped download)
    assert decode(page.encode("utf-8")[:-8] + "\u00e9".encode()[:1]).startswith("<p>Café")


def test_utf8_bytes_are_handed_to_libxml2_without_a_second_decode() -> None:
    body = CAFE.format(meta='<meta charset="utf-8">').encode("utf-8")
    for encoding in (None, "utf-8"):
        text, data = parse_module._decode(body, encoding)
        assert data is body  # no re-encoding of the decoded text
        assert text == body.decode("utf-8")


# ---------------------------------------------------------------------------------------
# 5. Stray byte order marks


def test_stray_bom_between_blocks_is_no_paragraph_or_word() -> None:
    # php_bom.html
    page = (
        "<html><body><p>Intro paragraph text.</p>\ufeff<div><p>Included file content with a "
        "sentence.</p></div></body></html>"
    )
    for body in (page, page.encode("utf-8"), b"\xef\xbb\xbf" + page.encode("utf-8")):
        doc = extract(body, URL)
        assert doc.text == "Intro paragraph text.\n\nIncluded file content with a sentence."
        assert doc.word_count == 9
        assert "\ufeff" not in doc.markdown


@pytest.mark.parametrize("body", ["\ufeff", b"\xef\xbb\xbf\xef\xbb\xbf", "\ufeff \n\ufeff"])
def test_a_body_of_only_byte_order_marks_is_empty(body: str | bytes) -> None:
    doc = extract(body, URL)
    assert doc.word_count == 0
    assert doc.error is not None  # like any other empty page


# ---------------------------------------------------------------------------------------
# 6. Metadata URLs and language


def test_meta_urls_and_language_are_validated() -> None:
    # meta_urls.html
    page = (
        '<html lang="&lt;script&gt;"><head><title>T</title>'
        '<meta property="og:image" content="javascript:alert(1)">'
        '<link rel="canonical" href="data:text/html,hi"></head><body><article><h1>T</h1>'
        "<p>Some words of prose to keep as the article body here, with a sentence.</p>"
        "</article></body></html>"
    )
    doc = extract(page, URL)
    assert doc.image is None
    assert doc.canonical is None
    assert doc.language == "en"  # the guess from the text


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("javascript:alert(1)", None),
        ("data:image/png;base64,AAAA", None),
        ("mailto:a@example.com", None),
        ("ftp://example.com/a.png", None),
        ("/img/a.png", "https://example.com/img/a.png"),
        ("//cdn.example.org/a.png", "https://cdn.example.org/a.png"),
        ("HTTP://Example.com/a.png", "HTTP://Example.com/a.png"),
    ],
)
def test_image_and_canonical_are_http_urls_only(href: str, expected: str | None) -> None:
    page = (
        f'<html><head><meta property="og:image" content="{href}">'
        f'<link rel="canonical" href="{href}"></head><body><p>{PROSE}</p></body></html>'
    )
    doc = extract(page, URL)
    assert doc.image == expected
    assert doc.canonical == expected


def test_image_falls_back_to_the_next_usable_og_image() -> None:
    page = (
        '<html><head><meta property="og:image" content="javascript:x()">'
        '<meta property="og:image:secure_url" content="https://cdn.example.org/i.png">'
        f"</head><body><p>{PROSE}</p></body></html>"
    )
    assert extract(page, URL).image == "https://cdn.example.org/i.png"


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        (' lang="xx-invalid-1234"', "en"),  # the shape of a tag, no such language
        (' lang="&lt;script&gt;"', "en"),
        (' lang="' + "a" * 5000 + '"', "en"),
        (' lang="e"', "en"),
        (' lang="en_US"', "en-us"),  # a locale name, read as the tag it means
        (' lang="  PT-br , en"', "pt-br"),
        (' lang="zh-Hant-TW"', "zh-hant-tw"),
        (' lang="gsw"', "gsw"),  # three-letter codes are taken on their shape
        (' lang="bogus tag" xml:lang="de"', "de"),  # the next source is tried
    ],
)
def test_language_only_when_it_is_a_language_tag(attributes: str, expected: str) -> None:
    page = f"<html{attributes}><head><title>T</title></head><body><p>{PROSE}</p></body></html>"
    assert extract(page, URL).language == expected


def test_content_language_meta_is_validated_too() -> None:
    page = (
        '<html><head><meta http-equiv="Content-Language" content="javascript:1">'
        f"</head><body><p>{PROSE}</p></body></html>"
    )
    assert extract(page, URL).language == "en"
