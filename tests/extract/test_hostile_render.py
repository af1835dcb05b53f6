"""The Markdown renderer on hostile pages: bounded table spans, tildes that would open
a code fence, emphasis markers CommonMark would not read as such, backslashes in
URLs. (Each expected Markdown here was checked to render, with a CommonMark parser,
to the same text as `Document.text`.)"""

from __future__ import annotations

import json
from typing import Any

import lxml.html
import pytest

from webmd_spider.extract import extract, inline, renderer
from webmd_spider.extract.inline import (
    escape_line_start,
    escape_text,
    join_href,
    join_url,
    markdown_url,
    resolve,
)
from webmd_spider.extract.markdown import Rendered, render_strict, truncate_blocks
from webmd_spider.extract.tables import (
    REPEAT_MIN_CHARS,
    bound_repeats,
    build_grid,
    extract_tables,
)

PAGE = "https://example.com/docs/page.html"
COLON = "\uff1a"  # full-width, as in CJK text: no space follows it
PROSE = "<p>This is a real paragraph of prose, with enough words to count. It has sentences.</p>"


def conv(html: str) -> Rendered:
    region = lxml.html.fragment_fromstring(html, create_parent="div")
    return render_strict(region, base_url=PAGE, page_site="example.com")


def md(html: str) -> str:
    return conv(html).markdown


def page(body: str) -> str:
    return f"<html><head><title>T</title></head><body><article>{PROSE}{body}</article></body>"


# --- table spans ------------------------------------------------------------------


def _colspan_table(rows: int, text: str) -> str:
    return (
        "<table><tr><th>a</th><th>b</th></tr>"
        + "".join(f"<tr><td colspan=999>{text}</td><td>x{i}</td></tr>" for i in range(rows))
        + "</table>"
    )


def test_a_wide_colspan_of_much_text_is_not_repeated_without_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # was: 396 MB of Markdown (and as much in `tables`) for a 404 KB page of 100 such rows
    # (90 here: the grid keeps MAX_CELLS slots, a 101st row of 1000 would not fit)
    html = page(_colspan_table(90, "word " * 800))
    rendered: list[object] = []
    built: list[tuple[int, int, int]] = []
    render_cell, lay_out = renderer.Renderer._render_cell, renderer.pipe_table

    def counted(self: renderer.Renderer, cell: Any) -> tuple[str, str]:
        rendered.append(cell)
        return render_cell(self, cell)

    def measured(*args: Any) -> Any:
        md, tx, grid = lay_out(*args)
        built.append((len(md), len(tx), sum(len(value) for row in grid.rows for value in row)))
        return md, tx, grid

    monkeypatch.setattr(renderer.Renderer, "_render_cell", counted)
    monkeypatch.setattr(renderer, "pipe_table", measured)
    doc = extract(html, PAGE)
    # the work is counted, not timed (issue 35): each cell is rendered once, whatever it
    # spans (2 headers and 90 rows of 2 cells), and the table is laid out (its Markdown,
    # its text, the cells of its record) in a small multiple of the page's characters each
    assert len(rendered) == len({id(cell) for cell in rendered}) == 2 + 90 * 2
    ((md, text, cells),) = built
    assert max(md, text, cells) < 3 * len(html), built
    assert len(doc.markdown) < 3 * len(html)
    assert len(json.dumps(doc.tables)) < 3 * len(html)
    assert all(f"x{i} |" in doc.markdown for i in range(90))  # no row is lost
    # the columns where no cell begins (998 of them) are gone
    assert doc.markdown.split("\n")[4] == "| a | b |  |"  # after "# T" and the prose
    assert len(doc.tables[0]["rows"][0]) == 3


def test_many_small_span_tables_stay_a_small_multiple_of_the_page() -> None:
    html = page(_colspan_table(100, "x") * 30)
    doc = extract(html, PAGE)
    assert len(doc.markdown) < 3 * len(html)
    assert len(json.dumps(doc.tables)) < 3 * len(html)
    assert len(doc.tables) == 30


def test_a_long_rowspan_repeats_within_the_budget_then_stays_empty() -> None:
    big = "word " * 400
    html = (
        f"<table><tr><th>k</th><th>v</th></tr><tr><td rowspan=500>{big}</td><td>r0</td></tr>"
        + "".join(f"<tr><td>r{i}</td></tr>" for i in range(1, 500))
        + "</table>"
    )
    out = conv(html)
    assert len(out.markdown) < 2 * REPEAT_MIN_CHARS + 3 * len(html)
    rows = out.tables[0]["rows"]
    assert [row[1] for row in rows] == [f"r{i}" for i in range(500)]
    assert rows[0][0] == big.strip() and rows[-1][0] == ""
    repeated = sum(len(row[0]) for row in rows[1:])
    assert 0 < repeated <= REPEAT_MIN_CHARS


def test_extract_tables_is_bounded_the_same_way() -> None:
    region = lxml.html.fragment_fromstring(_colspan_table(50, "word " * 800), create_parent="div")
    (record,) = extract_tables(region)
    assert len(json.dumps(record)) < 3 * len(lxml.html.tostring(region))
    assert [row[-1] for row in record["rows"]] == [f"x{i}" for i in range(50)]


def test_ordinary_spans_still_repeat_exactly() -> None:
    html = (
        "<table><thead><tr><th rowspan='2'>Item</th><th colspan='2'>Price</th></tr>"
        "<tr><th>Min</th><th>Max</th></tr></thead><tbody>"
        "<tr><td rowspan='2'>Tea</td><td>1</td><td>2</td></tr>"
        "<tr><td colspan='2'>3</td></tr><tr><td colspan='5'>all</td></tr></tbody></table>"
    )
    table = lxml.html.fragment_fromstring(html)
    grid = build_grid(table)
    assert grid.spanned
    sizes = {cell: 10 for row in grid.rows for cell in row if cell is not None}
    assert bound_repeats(grid, sizes) is grid  # within the budget: untouched
    assert md(html).split("\n")[2:] == [
        "| Tea | 1 | 2 |  |  |",
        "| Tea | 3 | 3 |  |  |",
        "| all |  |  |  |  |",
    ]


# --- tildes -------------------------------------------------------------------------


def test_a_tilde_before_a_strikethrough_does_not_open_a_code_fence() -> None:
    # "~" + "~~$100~~" was the line "~~~$100~~ ...": an unclosed fence to the end
    doc = extract(
        page(
            "<p>~<del>$100</del> now $80 only.</p><h2>Details</h2><p>Everything after the price"
            " line should stay ordinary prose, with <a href='/terms'>a link</a>.</p>"
        ),
        PAGE,
    )
    lines = doc.markdown.split("\n")
    assert "\\~~~$100~~ now $80 only." in lines
    assert "## Details" in lines
    assert not any(line.startswith("~~~") for line in lines)


def test_tildes_touching_strikethrough_markers_are_escaped() -> None:
    assert md("<p><s>~a</s> and b~<del>c</del></p>") == "~~\\~a~~ and b\\~~~c~~"
    assert md("<p>~~~ not a fence</p>") == "\\~\\~~ not a fence"


def test_escape_text_escapes_tildes_at_the_edges_of_a_run() -> None:
    assert escape_text("~a") == "\\~a"
    assert escape_text("a~") == "a\\~"
    assert escape_text("a ~ b, ~/x") == "a ~ b, ~/x"
    assert escape_text("a~~b") == "a\\~~b"
    assert escape_text("~x", in_link=True) == "\\~x"


def test_a_line_starting_with_three_tildes_is_escaped() -> None:
    assert escape_line_start("~~~x~~") == "\\~~~x~~"
    assert escape_line_start("~~x~~") == "~~x~~"
    assert escape_line_start("~/.bashrc") == "~/.bashrc"


def test_truncation_knows_tilde_fences() -> None:
    markdown = "intro\n\n~~~python\none\n\ntwo\n~~~\n\nafter"
    assert truncate_blocks(markdown, 25) == ("intro", True)  # not "intro ~~~python one"
    assert truncate_blocks(markdown, 32) == ("intro\n\n~~~python\none\n\ntwo\n~~~", True)
    # a cut inside the one block that does not fit closes the fence with its own kind
    assert truncate_blocks("~~~\ncode line\nmore code\n~~~", 20) == ("~~~\ncode line\n~~~", True)


# --- emphasis and code markers --------------------------------------------------------


def test_adjacent_emphasis_case_from_the_audit() -> None:
    html = (
        f"<p><strong>注意{COLON}</strong>这是一个测试。 <b>Note:</b>text <b>bold</b><b>again</b>"
        " and <code>x</code><code>y</code> end.</p>"
    )
    assert md(html) == f"**注意**{COLON}这是一个测试。 **Note**:text **boldagain** and `xy` end."


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        # a closing marker after punctuation, before a letter: the punctuation moves out
        ("<p><b>Note:</b>text</p>", "**Note**:text"),
        ("<p><b>「注意」</b>这是</p>", "**「注意**」这是"),
        ("<p><b>a <i>b:</i></b>x</p>", "**a *b***:x"),
        # an opening marker after a letter, before punctuation: likewise
        ("<p>a<b>(x)</b>b</p>", "a(**x**)b"),
        ("<p>x<b>「引用」</b>y</p>", "x「**引用**」y"),
        ("<p><i>a</i><b>&quot;q&quot;</b></p>", '*a*"**q"**'),
        # nothing to move (code, links): the words stay, without the markers
        ("<p><em><code>N</code></em>th</p>", "`N`th"),
        ("<p><b>Byte<i><code>n</code></i></b></p>", "**Byte`n`**"),
        # flanking already right: unchanged
        ("<p><b>Note:</b> text</p>", "**Note:** text"),
        ("<p><b>Hi!</b><a href='/x'>link</a></p>", "**Hi!**[link](https://example.com/x)"),
        # adjacent runs of one kind are one run
        ("<p><b>bold</b><b>again</b></p>", "**boldagain**"),
        ("<p><i>a</i><i>b</i> <s>c</s><s>d</s></p>", "*ab* ~~cd~~"),
        ("<p><b>a</b><i><b>c</b></i></p>", "**a*****c***"),
        ("<p><code>x</code><code>y</code> <code>z</code></p>", "`xy` `z`"),
        ("<p><code>a</code><b><code>b</code></b></p>", "`a`**`b`**"),
        # "!" right before a link would make it an image
        ("<p>Hi!<a href='/x'>link</a></p>", "Hi\\![link](https://example.com/x)"),
    ],
)
def test_markers_commonmark_reads_as_markers(html: str, markdown: str) -> None:
    assert md(html) == markdown


def test_merged_and_moved_markers_keep_the_text() -> None:
    out = conv(f"<p><code>PGDATA</code><code>/base</code> and <b>注意{COLON}</b>这是</p>")
    assert out.markdown == f"`PGDATA/base` and **注意**{COLON}这是"
    assert out.text == f"PGDATA/base and 注意{COLON}这是"


# --- URLs -----------------------------------------------------------------------------


def test_an_href_ending_in_a_backslash_keeps_its_link() -> None:
    html = (
        "<p>See <a href='/files\\'>the folder</a> and <a href='/next'>the next page</a>.</p>"
        "<p>Windows path <a href='file.html?p=C:\\dir\\'>download</a> here.</p>"
    )
    assert md(html) == (
        "See [the folder](https://example.com/files/) and "
        "[the next page](https://example.com/next).\n\n"
        "Windows path [download](https://example.com/docs/file.html?p=C:%5Cdir%5C) here."
    )


def test_markdown_url_percent_encodes_backslashes() -> None:
    assert markdown_url("https://e.com/a?b=c\\)") == "https://e.com/a?b=c%5C%29"


@pytest.mark.parametrize(
    ("href", "url"),
    [
        ("/\\evil.com", "https://evil.com/"),
        ("\\\\evil.com/x", "https://evil.com/x"),
        ("http:\\\\evil.com", "http://evil.com/"),
        ("http:\\\\evil.com?q=\\", "http://evil.com/?q=\\"),
        ("https://a.com\\@evil.com/", "https://a.com/@evil.com/"),
        ("a\\b.html#x\\y", "https://example.com/docs/a/b.html#x\\y"),
        ("?p=C:\\dir", "https://example.com/docs/page.html?p=C:\\dir"),
        ("mailto:a\\b", "mailto:a\\b"),  # not a special scheme: as it is
    ],
)
def test_backslashes_read_as_browsers_do(href: str, url: str) -> None:
    assert resolve(PAGE, href) == url
    assert join_href(PAGE, href) == url


def test_a_backslash_link_to_another_site_is_external() -> None:
    out = conv("<p><a href='/\\evil.com'>x</a></p>")
    assert out.markdown == "[x](https://evil.com/)"
    assert [(link.url, link.internal) for link in out.links] == [("https://evil.com/", False)]


def test_join_url_itself_is_still_urljoin() -> None:
    assert join_url(PAGE, "/\\evil.com") == "https://example.com/\\evil.com"


def test_each_link_of_a_big_page_is_joined_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # an LRU of 4096 (base, href) pairs was emptied of a page's links before the
    # second pass (the Markdown) once the page had more: each link was joined twice.
    # Counted at `_join`, the join without its memory (a root path like these skips
    # urllib itself, so counting urljoin would count nothing)
    calls = []
    real = inline._join

    def counting(base: str, href: str) -> str:
        calls.append(href)
        return real(base, href)

    monkeypatch.setattr(inline, "_join", counting)
    monkeypatch.setattr(inline, "_joined", ("", {}))
    links = "".join(f"<p>Text <a href='/p/{i}'>link {i}</a> more.</p>" for i in range(6000))
    doc = extract(page(links), PAGE)
    assert len(doc.links) >= 6000
    assert len(calls) == len(set(calls)) >= 6000


def test_the_join_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inline, "JOIN_CACHE_SIZE", 100)
    monkeypatch.setattr(inline, "_joined", ("", {}))
    for i in range(1000):
        assert join_url(PAGE, f"/q/{i}") == f"https://example.com/q/{i}"
    assert len(inline._joined[1]) <= 100
    join_url("https://other.example/", "x")
    assert inline._joined[0] == "https://other.example/" and len(inline._joined[1]) == 1
