"""The HTML -> Markdown + text converter (webmd_spider.extract.markdown): real HTML strings."""

from __future__ import annotations

import re

import lxml.html
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lxml import etree

from webmd_spider.extract.document import Heading, Image, Link
from webmd_spider.extract.markdown import (
    Rendered,
    render,
    render_strict,
    to_markdown,
    to_text,
    truncate_blocks,
)
from webmd_spider.extract.parse import parse_html

PAGE = "https://www.example.com/docs/guide/page.html"
SITE = "example.com"


def fragment(html: str) -> lxml.html.HtmlElement:
    return lxml.html.fragment_fromstring(html, create_parent="div")


def conv(html: str, **options: object) -> Rendered:
    return render_strict(fragment(html), base_url=PAGE, page_site=SITE, **options)  # type: ignore[arg-type]


def md(html: str, **options: object) -> str:
    return conv(html, **options).markdown


_INLINE_SYNTAX = re.compile(r"[\\*~`\[\]]")


def words(text: str) -> list[str]:
    """Lower-case words, ignoring the characters Markdown uses as inline syntax
    (backslash, * ~ ` [ ]) on both sides of a comparison: "**a**b" and "ab",
    "\\_x" and "_x" have the same words."""
    return [w.lower() for w in re.findall(r"[^\W_]+", _INLINE_SYNTAX.sub("", text))]


def markdown_words(markdown: str) -> list[str]:
    """Words of Markdown minus syntax: images, link targets, fence lines, numbers
    of ordered items (outside code blocks)."""
    markdown = re.sub(r"!\[(?:\\.|[^\]\\])*\]\(https?:[^)\s]*\)", "", markdown)
    # a "]" after an even number of backslashes (none, or escaped backslashes) closes a
    # link text; after an odd number it is an escaped "]"
    markdown = re.sub(r"(?<!\\)((?:\\\\)*)\]\((?:https?|mailto):[^)\s]*\)", r"\1]", markdown)
    lines = markdown.split("\n")
    kept: list[str] = []
    for number, inside in fence_lines(markdown):
        line = lines[number]
        if not inside and re.match(r"^[ >]*`{3,}[^`]*$", line):
            continue  # a fence line
        if not inside:
            line = re.sub(r"^([ >]*)\d{1,9}\.(?= |$)", r"\1", line)
        kept.append(_CODE_PADDING.sub(r"\1\2\1", line) if not inside else line)
    return words("\n".join(kept))


# A code span whose content starts or ends with a backtick is padded with one space on
# each side ("0```` ```0 ````" is "0" then the code "```0"): the padding is not a word
# break (CommonMark strips it).
_CODE_PADDING = re.compile(r"(?<!`)(`+) ((?:(?!\1).)+?) \1(?!`)")


_FENCE_OPEN = re.compile(r"^(`{3,})[^`]*$")


def fence_lines(markdown: str) -> list[tuple[int, bool]]:
    """(line number, inside a code block) for every line; CommonMark-style fences,
    after dropping list indentation and quote markers."""
    out: list[tuple[int, bool]] = []
    fence = ""
    for number, line in enumerate(markdown.split("\n")):
        bare = line.lstrip(" >")
        if fence:
            if bare.strip().startswith(fence) and not bare.strip().strip("`"):
                fence = ""
                out.append((number, False))
            else:
                out.append((number, True))
            continue
        match = _FENCE_OPEN.match(bare)
        if match:
            fence = match.group(1)
        out.append((number, False))
    assert not fence, f"unclosed fence in {markdown!r}"
    return out


def assert_well_formed(markdown: str) -> None:
    lines = markdown.split("\n")
    assert markdown == markdown.strip("\n")
    blank_run = 0
    for number, inside in fence_lines(markdown):
        line = lines[number]
        if inside:
            blank_run = 0
            continue
        assert line == line.rstrip(), f"trailing space on {line!r}"
        blank_run = blank_run + 1 if not line.strip() else 0
        assert blank_run <= 1, f"two blank lines in {markdown!r}"


# --- blocks -------------------------------------------------------------------


def test_headings_paragraphs_and_blank_lines() -> None:
    out = conv(
        "<h1>Main <em>title</em></h1>\n\n<div><div><p>One</p></div></div>\n<p>Two</p>"
        "<h3>Sub ####</h3><h6>Six</h6>"
    )
    assert out.markdown == "# Main *title*\n\nOne\n\nTwo\n\n### Sub \\####\n\n###### Six"
    assert out.headings == [
        Heading(1, "Main title"),
        Heading(3, "Sub ####"),
        Heading(6, "Six"),
    ]
    assert out.text == "Main title\n\nOne\n\nTwo\n\nSub ####\n\nSix"


def test_whitespace_collapses_outside_code() -> None:
    assert md("<p>  a \n\t b   <span> c </span>d </p>") == "a b c d"


def test_br_is_a_hard_break_and_two_make_a_paragraph() -> None:
    assert md("<p>line one<br>line two<br><br>next para<br></p>") == (
        "line one\\\nline two\n\nnext para"
    )
    assert conv("<p>a<br>b</p>").text == "a\nb"


def test_hr_and_blockquotes() -> None:
    out = md("<p>a</p><hr><blockquote><p>q1</p><blockquote>q2</blockquote><p>q3</p></blockquote>")
    assert out == "a\n\n---\n\n> q1\n>\n> > q2\n>\n> q3"


def test_nested_lists_with_start_and_indentation() -> None:
    html = (
        "<ol start='3'><li>three<ul><li>child</li><li>child two"
        "<ol><li>deep</li></ol></li></ul></li><li>four</li></ol>"
    )
    assert md(html) == "3. three\n   - child\n   - child two\n     1. deep\n4. four"
    assert conv(html).text == "three\nchild\nchild two\ndeep\nfour"


def test_ordered_sub_list_not_starting_at_one_is_separated() -> None:
    # "5." may not interrupt a paragraph in CommonMark: a blank line comes first
    assert md("<ul><li>a<ol start='5'><li>five</li></ol></li></ul>") == "- a\n\n  5. five"


def test_list_item_with_two_paragraphs_and_code() -> None:
    html = (
        "<ol><li><p>First para.</p><p>Second para.</p>"
        "<pre><code class='language-sh'>make   test\n  indented  </code></pre></li>"
        "<li>next</li></ol>"
    )
    assert md(html) == (
        "1. First para.\n\n   Second para.\n\n   ```sh\n   make   test\n     indented  \n   ```"
        "\n2. next"
    )


def test_list_item_starting_with_code_puts_marker_alone() -> None:
    assert md("<ul><li><pre>x = 1</pre></li></ul>") == "-\n  ```\n  x = 1\n  ```"


def test_list_item_image_only_first_paragraph_joins_the_next_one() -> None:
    # <li><figure><img><figcaption>: the marker line leads into the item's words
    html = (
        "<ul><li><figure><img src='a.png' alt='Shot'><figcaption>Caption one</figcaption>"
        "</figure><p>More.</p></li>"
        "<li><p><a href='/x'><img src='b.png'></a></p><p>Caption two</p></li></ul>"
    )
    assert md(html) == (
        "- ![Shot](https://www.example.com/docs/guide/a.png)\n  Caption one\n\n  More.\n"
        "- [![](https://www.example.com/docs/guide/b.png)](https://www.example.com/x)\n"
        "  Caption two"
    )
    assert conv(html).text == "Caption one\nMore.\nCaption two"


def test_list_item_image_paragraph_with_words_or_before_a_heading_stays_apart() -> None:
    out = md("<ul><li><p><img src='a.png'> Photo</p><p>Caption</p></li></ul>")
    assert out == "- ![](https://www.example.com/docs/guide/a.png) Photo\n\n  Caption"
    out = md("<ul><li><p><img src='a.png'></p><h2>Title</h2></li></ul>")
    assert out == "- ![](https://www.example.com/docs/guide/a.png)\n\n  ## Title"


def test_backslash_ending_a_text_run_is_escaped() -> None:
    # "[\\](url)" would escape the bracket and break the link; "a\\" + newline a hard break
    assert md("<a href='/x'>\\</a>") == "[\\\\](https://www.example.com/x)"
    assert md("<p>C:\\<br>next</p>") == "C:\\\\\\\nnext"


def test_inline_display_block_element_does_not_break_the_paragraph() -> None:
    # a browser widget's empty inline-block shell inside a citation
    html = (
        "<ol><li><cite><a href='https://x.org/a'>Title</a><div style='display: -webkit-inline-box'>"
        "<div><div></div></div></div>. 24 August 2021.</cite></li></ol>"
    )
    assert md(html) == "1. [Title](https://x.org/a). 24 August 2021."
    html = "<div>a <div style='DISPLAY:inline-block'>b</div> c</div><div style='color:red'>d</div>"
    assert md(html) == "a b c\n\nd"
    assert md("<div>a<div style='display:inline-table'>b</div>c</div>") == "a\n\nb\n\nc"


def test_list_directly_inside_list_nests_under_previous_item() -> None:
    assert md("<ul><li>a</li><ul><li>sub</li></ul><li>b</li></ul>") == "- a\n  - sub\n- b"


def test_empty_items_and_lists_vanish() -> None:
    assert md("<ul><li> </li><li></li></ul><p>x</p>") == "x"


def test_definition_list_with_code_in_dd() -> None:
    out = md("<dl><dt>Term <b>bold</b></dt><dd>Meaning.<pre>call()</pre></dd></dl>")
    assert out == "**Term bold**\n\nMeaning.\n\n```\ncall()\n```"


def test_details_summary_and_figure() -> None:
    out = md(
        "<details><summary>More info</summary><p>Hidden text</p></details>"
        "<figure><img src='/a.png' alt='A cat'><figcaption>The cat.</figcaption></figure>"
    )
    assert out == (
        "**More info**\n\nHidden text\n\n![A cat](https://www.example.com/a.png)\n\nThe cat."
    )


def test_tab_panels_are_labelled() -> None:
    html = (
        "<div class='tabs'><div data-webmd-tab='Python'><pre class='language-python'>print(1)</pre>"
        "</div><div data-webmd-tab='Rust'><pre class='language-rust'>println!();</pre></div></div>"
    )
    out = conv(html)
    assert out.markdown == (
        "**Python**\n\n```python\nprint(1)\n```\n\n**Rust**\n\n```rust\nprintln!();\n```"
    )
    assert out.text == "Python\n\nprint(1)\n\nRust\n\nprintln!();"


def test_unknown_and_skipped_elements() -> None:
    out = md(
        "<custom-el>Custom <x-y>words</x-y></custom-el><script>var x;</script><style>p{}</style>"
        "<svg><title>icon</title></svg><template><p>t</p></template><p>end<!-- c -->ing</p>"
    )
    assert out == "Custom words\n\nending"


def test_entities_sup_sub() -> None:
    assert md("<p>A &amp; B &lt;3 &copy; x<sup>2</sup> H<sub>2</sub>O&nbsp;ok</p>") == (
        "A & B <3 © x2 H2O ok"
    )


# --- code ---------------------------------------------------------------------


def test_pre_keeps_whitespace_exactly() -> None:
    code = "def f():\n    return 1   \n\n\n\tx = '  '\n"
    out = conv(f"<pre>\n{code}\n\n</pre>")
    assert out.markdown == f"```\n{code.rstrip(chr(10))}\n```"
    assert out.text == code.rstrip("\n")


def test_fence_longer_than_inner_backtick_runs() -> None:
    assert md("<pre>a ``` b\n````\n</pre>") == "`````\na ``` b\n````\n`````"


@pytest.mark.parametrize(
    ("html", "language"),
    [
        ("<pre><code class='hljs language-python'>x</code></pre>", "python"),
        ("<pre class='lang-js'>x</pre>", "js"),
        ("<pre class='highlight-ruby'>x</pre>", "ruby"),
        ("<div class='highlight highlight-source-go'><pre>x</pre></div>", "go"),
        ("<pre class='brush: php; gutter: false'>x</pre>", "php"),
        ("<pre data-lang='Kotlin'>x</pre>", "kotlin"),
        ("<pre><code data-language='c++'>x</code></pre>", "c++"),
        ("<div class='highlight-py x'><div class='highlight'><pre>x</pre></div></div>", "py"),
        ("<div class='language-bash'><pre>x</pre></div>", "bash"),
        ("<pre class='sourceCode haskell'>x</pre>", "haskell"),
        ("<pre class='language-none'>x</pre>", ""),
        ("<pre>x</pre>", ""),
    ],
)  # fmt: skip
def test_code_language_detection(html: str, language: str) -> None:
    assert md(html) == f"```{language}\nx\n```"


def test_gutter_table_becomes_one_code_block() -> None:
    html = (
        "<div class='highlight-python'><table class='highlighttable'><tr>"
        "<td class='linenos'><div class='linenodiv'><pre>1\n2</pre></div></td>"
        "<td class='code'><div class='highlight'><pre>a = 1\nb = 2</pre></div></td>"
        "</tr></table></div>"
    )
    out = conv(html)
    assert out.markdown == "```python\na = 1\nb = 2\n```"
    assert out.tables == []


def test_gutter_table_with_one_row_per_line() -> None:
    html = (
        "<table class='js-file-line-container'>"
        "<tr><td class='blob-num'>1</td><td class='blob-code'>  if x:</td></tr>"
        "<tr><td class='blob-num'>2</td><td class='blob-code'>      go()</td></tr></table>"
    )
    assert md(html) == "```\n  if x:\n      go()\n```"


def test_line_number_spans_inside_pre_are_dropped() -> None:
    html = (
        "<pre><span class='linenos'>1</span>first\n<span class='linenos'>2</span>  second\n</pre>"
    )
    assert md(html) == "```\nfirst\n  second\n```"


def test_br_inside_pre_is_a_newline() -> None:
    assert md("<pre><code>a<br>b<br/>  c</code></pre>") == "```\na\nb\n  c\n```"


def test_inline_code_with_backticks() -> None:
    out = conv(
        "<p>Use <code>ls -l</code>, <code>a`b</code>, <code>`x`</code> and <kbd>Ctrl</kbd>.</p>"
    )
    assert out.markdown == "Use `ls -l`, ``a`b``, `` `x` `` and `Ctrl`."
    assert out.text == "Use ls -l, a`b, `x` and Ctrl."


def test_inline_code_keeps_markdown_characters_verbatim() -> None:
    assert md("<p><code>*args, **kw, [x](y) _a_</code></p>") == "`*args, **kw, [x](y) _a_`"


def test_multiline_code_alone_in_a_block_is_fenced() -> None:
    assert md("<div><code>line1\n  line2</code></div>") == "```\nline1\n  line2\n```"


# --- inline -------------------------------------------------------------------


def test_emphasis_markers_inside_spaces() -> None:
    out = md(
        "<p>a<b> bold </b>b <em>it</em> <i> </i> <del>gone</del> <s>x</s> <strong></strong>z</p>"
    )
    assert out == "a **bold** b *it* ~~gone~~ ~~x~~ z"


def test_nested_same_emphasis_is_not_doubled() -> None:
    assert md("<p><b>a <strong>b</strong> c</b> <em>x <b>y</b></em></p>") == "**a b c** *x **y***"


def test_links() -> None:
    out = conv(
        "<p><a href='/docs/other.html#sec'>Other</a> <a href='https://cdn.example.org/x'>Ext</a>"
        " <a href='javascript:void(0)'>Script</a> <a href='#top'>Top</a> <a href=''>Empty</a>"
        " <a href='page.html#here'>Here</a> <a href='mailto:me@example.com'>Mail</a>"
        " <a href='/docs/other.html'>Again</a> <a href='/a (1).html'>Paren</a></p>"
    )
    assert out.markdown == (
        "[Other](https://www.example.com/docs/other.html#sec) [Ext](https://cdn.example.org/x)"
        " Script [Top](https://www.example.com/docs/guide/page.html#top) Empty"
        " [Here](https://www.example.com/docs/guide/page.html#here) [Mail](mailto:me@example.com) "
        "[Again](https://www.example.com/docs/other.html) "
        "[Paren](https://www.example.com/a%20%281%29.html)"
    )
    # same-page references keep their target (issue 15) but are not links of the page:
    # never crawl targets
    assert out.links == [
        Link("Other", "https://www.example.com/docs/other.html", True),
        Link("Ext", "https://cdn.example.org/x", False),
        Link("Paren", "https://www.example.com/a (1).html", True),
    ]
    assert out.text == "Other Ext Script Top Empty Here Mail Again Paren"


def test_keep_links_false_keeps_text_but_lists_links() -> None:
    out = conv("<p>See <a href='/x'>the <b>guide</b></a>.</p>", keep_links=False)
    assert out.markdown == "See the **guide**."
    assert out.links == [Link("the guide", "https://www.example.com/x", True)]


def test_link_around_blocks_keeps_text() -> None:
    out = conv("<a href='/card'><h3>Card title</h3><p>Card text</p></a>")
    assert out.markdown == "### Card title\n\nCard text"
    assert out.links == [Link("Card title Card text", "https://www.example.com/card", True)]


def test_link_with_image_and_brackets() -> None:
    out = md("<a href='/big.jpg'><img src='/small.jpg' alt='Pic [1]'></a> <a href='/n'>[1]</a>")
    assert out == (
        "[![Pic \\[1\\]](https://www.example.com/small.jpg)](https://www.example.com/big.jpg) "
        "[\\[1\\]](https://www.example.com/n)"
    )


def test_images_lazy_sources_beacons_and_data_uris() -> None:
    out = conv(
        "<p><img src='data:image/gif;base64,R0lGOD' data-src='/lazy.jpg' alt='Lazy'>"
        "<img src='/img/spacer.gif' data-lazy-src='/lazy2.jpg' alt='L2'>"
        "<img data-original='https://cdn.example.net/orig.jpg'>"
        "<img srcset='/s.jpg 320w, /l.jpg 1024w, /m.jpg 640w' alt='Set'>"
        "<img src='/track.gif' width='1' height='1'>"
        "<img src='data:image/png;base64,iVBOR' alt='Blob'>"
        "<img src='/img/blank.gif'><img alt='none'>"
        "<img src='/lazy.jpg' alt='Duplicate'></p>"
    )
    assert out.images == [
        Image("https://www.example.com/lazy.jpg", "Lazy"),
        Image("https://www.example.com/lazy2.jpg", "L2"),
        Image("https://cdn.example.net/orig.jpg", ""),
        Image("https://www.example.com/l.jpg", "Set"),
    ]
    assert "data:" not in out.markdown and "track" not in out.markdown
    assert out.markdown.startswith("![Lazy](https://www.example.com/lazy.jpg)")
    assert "![Set](https://www.example.com/l.jpg)" in out.markdown
    assert out.text == ""


def test_keep_images_false_and_image_cap() -> None:
    html = "<p>x " + "".join(f"<img src='/i{n}.png'>" for n in range(150)) + " y</p>"
    out = conv(html, keep_images=False)
    assert out.markdown == "x y"
    assert len(out.images) == 100


def test_escaping_only_where_needed() -> None:
    html = (
        "<p># not a heading</p><p>- not a bullet</p><p>+ nor this</p><p>* nor this</p>"
        "<p>1. not a list</p><p>2) nor</p><p>> not a quote</p><p>---</p><p>===</p>"
        "<p>a *b* c, 2 * 3, snake_case, _under_ and __dunder__</p>"
        "<p>[text](url) and [ref]: x, &lt;div> tag, &amp;amp; entity, ~~strike~~ and `tick`</p>"
    )
    assert md(html) == (
        "\\# not a heading\n\n\\- not a bullet\n\n\\+ nor this\n\n\\* nor this\n\n"
        "1\\. not a list\n\n2\\) nor\n\n\\> not a quote\n\n\\---\n\n\\===\n\n"
        "a \\*b\\* c, 2 * 3, snake_case, \\_under\\_ and \\_\\_dunder\\_\\_\n\n"
        "[text\\](url) and [ref\\]: x, \\<div> tag, \\&amp; entity, \\~~strike\\~~ and \\`tick\\`"
    )


def test_ordinary_punctuation_is_not_escaped() -> None:
    text = (
        "Hello, world! It's 5 - 3 = 2 (really); costs $4.50 + tax #1 at 10:30. "
        "Use a.b.c/d?e=f&g=h, C# or C++ 50% [sic] {braces} a|b x > y"
    )
    assert md(f"<p>{text.replace('&', '&amp;').replace('>', '&gt;')}</p>") == text


def test_escaped_markdown_round_trips_the_words() -> None:
    out = conv("<p>* [x](y) _a_ `b` #c</p><h2>## d</h2>")
    assert markdown_words(out.markdown) == words(out.text)


# --- tables -------------------------------------------------------------------


def test_simple_table_without_th_uses_first_row_as_header() -> None:
    out = conv(
        "<table><tr><td>Fruit</td><td>Colour</td></tr><tr><td>Apple</td><td>Red</td></tr></table>"
    )
    assert out.markdown == "| Fruit | Colour |\n| --- | --- |\n| Apple | Red |"
    assert out.text == "Fruit\tColour\nApple\tRed"
    assert out.tables == [
        {
            "index": 0,
            "caption": None,
            "headers": ["Fruit", "Colour"],
            "header_rows": [["Fruit", "Colour"]],
            "rows": [["Apple", "Red"]],
        }
    ]


def test_spans_expand_by_repetition_and_header_rows_merge() -> None:
    html = (
        "<table><caption>Prices</caption><thead>"
        "<tr><th rowspan='2'>Item</th><th colspan='2'>Price</th></tr>"
        "<tr><th>Min</th><th>Max</th></tr></thead><tbody>"
        "<tr><td rowspan='2'>Tea</td><td>1</td><td>2</td></tr>"
        "<tr><td colspan='2'>3</td></tr></tbody></table>"
    )
    out = conv(html)
    assert out.markdown == (
        "Prices\n\n| Item | Price / Min | Price / Max |\n| --- | --- | --- |\n"
        "| Tea | 1 | 2 |\n| Tea | 3 | 3 |"
    )
    assert out.tables[0] == {
        "index": 0,
        "caption": "Prices",
        "headers": ["Item", "Price / Min", "Price / Max"],
        "header_rows": [["Item", "Price", "Price"], ["Item", "Min", "Max"]],
        "rows": [["Tea", "1", "2"], ["Tea", "3", "3"]],
    }
    # every cell's text sits on a table row
    for word in ("Item", "Min", "Max", "Tea", "3"):
        assert any(word in line and "|" in line for line in out.markdown.split("\n"))


def test_cells_escape_pipes_and_keep_inline_markup() -> None:
    out = md(
        "<table><tr><th>A</th><th>B</th></tr><tr><td>x | y</td>"
        "<td><code>a|b</code> <b>bold</b><br>next<p>para</p><a href='/l'>l|k</a></td></tr></table>"
    )
    assert out.split("\n")[2] == (
        "| x \\| y | `a\\|b` **bold**<br>next<br>para<br>[l\\|k](https://www.example.com/l) |"
    )


def test_code_block_in_a_cell_becomes_inline_code_per_line() -> None:
    out = md("<table><tr><th>K</th><th>V</th></tr><tr><td>c</td><td><pre>a\n  b</pre></td></tr>")
    assert out.split("\n")[2] == "| c | `a`<br>`b` |"


def test_layout_table_renders_as_its_content() -> None:
    long = "Lots of words in a column of a layout table. " * 5
    out = conv(
        f"<table><tr><td><p>{long}</p><p>More.</p><ul><li>item</li></ul></td>"
        "<td><p>Side bar</p></td></tr></table>"
    )
    assert "|" not in out.markdown
    assert out.markdown.endswith("More.\n\n- item\n\nSide bar")
    assert out.tables == []


def test_single_column_table_is_layout() -> None:
    assert md("<table><tr><td>one</td></tr><tr><td>two</td></tr></table>") == "one\n\ntwo"


def test_table_nested_in_data_cell_is_flattened() -> None:
    out = conv(
        "<table><tr><th>A</th><th>B</th></tr><tr><td>x</td><td>"
        "<table><tr><td>i1</td><td>i2</td></tr><tr><td>i3</td><td>i4</td></tr></table>"
        "</td></tr></table>"
    )
    assert out.markdown.split("\n")[2] == "| x | i1 i2<br>i3 i4 |"
    assert len(out.tables) == 1


def test_hostile_table_spans_are_bounded() -> None:
    html = (
        "<table><tr><td>x</td><td colspan='99999999'>a</td><td>b</td></tr>"
        "<tr><td rowspan='0'>c</td></tr>"
    )
    out = conv(html + "</table>")
    header = out.markdown.split("\n")[0]
    assert header.count("|") == 1001  # 1000 columns at most
    assert len(out.tables[0]["rows"]) == 1


def test_key_value_table_with_title_rows() -> None:
    out = conv(
        "<table class='infobox'><caption>Marrow Viaduct</caption>"
        "<tr><td colspan='2'><img src='/v.jpg' alt='The viaduct'><div>Seen in 2019</div></td></tr>"
        "<tr><th>Carries</th><td>Railway</td></tr><tr><th>Length</th><td>412 m</td></tr>"
        "<tr><th colspan='2'>History</th></tr><tr><th>Opened</th><td>1897</td></tr></table>"
    )
    assert out.markdown == (
        "Marrow Viaduct\n\n|  |  |\n| --- | --- |\n"
        "| ![The viaduct](https://www.example.com/v.jpg)<br>Seen in 2019 |  |\n"
        "| Carries | Railway |\n| Length | 412 m |\n| History |  |\n| Opened | 1897 |"
    )
    assert out.tables == [
        {
            "index": 0,
            "caption": "Marrow Viaduct",
            "headers": [],
            "header_rows": [],
            "rows": [
                ["Seen in 2019", ""],
                ["Carries", "Railway"],
                ["Length", "412 m"],
                ["History", ""],
                ["Opened", "1897"],
            ],
        }
    ]


# --- truncation ---------------------------------------------------------------

LONG = "".join(f"<p>Paragraph {n} " + "filler " * 12 + "</p>" for n in range(8))


def test_max_chars_cuts_at_a_block_boundary() -> None:
    full = conv(LONG)
    cut = conv(LONG, max_chars=250)
    assert cut.truncated and not full.truncated
    assert 0 < len(cut.markdown) <= 250
    assert full.markdown.startswith(cut.markdown)
    assert full.markdown[len(cut.markdown) :].startswith("\n\n")
    assert full.text.startswith(cut.text)
    assert conv(LONG, max_chars=10**6).markdown == full.markdown


def test_max_chars_never_cuts_inside_a_fence() -> None:
    html = "<p>intro</p><pre>" + "line of code\n" * 40 + "</pre><p>after</p>"
    cut = conv(html, max_chars=120)
    assert cut.truncated
    assert cut.markdown == "intro"
    fence_lines(cut.markdown)
    # a code block too long to fit first is closed after whole lines
    alone = conv("<pre>" + "line of code\n" * 40 + "</pre>", max_chars=60).markdown
    assert alone == "```\n" + "line of code\n" * 4 + "```"


def test_max_chars_inside_a_long_list_cuts_between_items() -> None:
    html = "<ul>" + "".join(f"<li>item number {n}</li>" for n in range(100)) + "</ul>"
    cut = conv(html, max_chars=60)
    assert cut.markdown == "- item number 0\n- item number 1\n- item number 2"


def test_truncate_blocks_compat() -> None:
    text = "aaa\n\n```\nb\n\nc\n```\n\nddd"
    assert truncate_blocks(text, 12) == ("aaa", True)
    assert truncate_blocks(text, 100) == (text, False)


# --- whole documents ----------------------------------------------------------

ARTICLE = """<html><body><article>
<h1>Install guide</h1>
<p>Read the <a href="/docs/setup">setup notes</a> first; it's <em>short</em>.</p>
<h2>Steps</h2>
<ol><li>Download the <strong>archive</strong>.</li>
<li>Unpack it:<pre><code class="language-sh">tar xf app.tgz</code></pre></li>
<li>Run <code>./app --help</code>.</li></ol>
<blockquote><p>Tip: keep a backup.</p></blockquote>
<table><thead><tr><th>OS</th><th>Status</th></tr></thead>
<tbody><tr><td>Linux</td><td>OK</td></tr><tr><td>Mac</td><td>Beta</td></tr></tbody></table>
<figure><img src="/shot.png" alt="Screenshot"><figcaption>The main window.</figcaption></figure>
<dl><dt>Config</dt><dd>Lives in <code>~/.app</code>.</dd></dl>
</article></body></html>"""


def article() -> Rendered:
    root = parse_html(ARTICLE)
    assert root is not None
    return render(root.find("body"), base_url=PAGE, page_site=SITE)


def test_whole_article() -> None:
    out = article()
    assert out.markdown == (
        "# Install guide\n\n"
        "Read the [setup notes](https://www.example.com/docs/setup) first; it's *short*.\n\n"
        "## Steps\n\n"
        "1. Download the **archive**.\n"
        "2. Unpack it:\n\n   ```sh\n   tar xf app.tgz\n   ```\n"
        "3. Run `./app --help`.\n\n"
        "> Tip: keep a backup.\n\n"
        "| OS | Status |\n| --- | --- |\n| Linux | OK |\n| Mac | Beta |\n\n"
        "![Screenshot](https://www.example.com/shot.png)\n\nThe main window.\n\n"
        "**Config**\n\nLives in `~/.app`."
    )
    assert out.headings == [Heading(1, "Install guide"), Heading(2, "Steps")]
    assert out.tables[0]["headers"] == ["OS", "Status"]
    assert not out.truncated


def test_markdown_and_text_have_the_same_words() -> None:
    out = article()
    assert markdown_words(out.markdown) == words(out.text)
    assert "```" not in out.text and "|" not in out.text and "](" not in out.text
    assert "tar xf app.tgz" in out.text


def test_compat_wrappers() -> None:
    root = parse_html(ARTICLE)
    assert root is not None
    body = root.find("body")
    body.make_links_absolute(PAGE)
    assert to_markdown(body, True, True) == article().markdown
    assert "Linux OK\nMac Beta" in to_text(body)
    assert "[setup notes]" not in to_markdown(body, False, False)
    assert "```\na\n\nb\n```" in to_markdown(fragment("<pre>a\n\n\n\nb</pre>"), True, True)


# --- robustness ---------------------------------------------------------------


def deep_tree(tags: list[str], depth: int) -> etree._Element:
    root = etree.Element("div")
    node = root
    for n in range(depth):
        node = etree.SubElement(node, tags[n % len(tags)])
        node.text = f"w{n} "
        node.set("href", "/x")
    return root


@pytest.mark.parametrize(
    "tags",
    [["div"], ["ul", "li"], ["blockquote"], ["b", "i", "a", "span"], ["table", "tr", "td"]],
)
def test_twenty_thousand_deep_nesting(tags: list[str]) -> None:
    out = render_strict(deep_tree(tags, 20_000), base_url=PAGE, page_site=SITE)
    assert "w19999" in out.text
    assert_well_formed(out.markdown)


def test_render_never_raises_on_odd_input() -> None:
    for html in ("", "   ", "<p></p>", "<table></table>", "<ul></ul>", "<pre></pre>", "<a></a>"):
        out = render(fragment(html), base_url="http://[broken", page_site="")
        assert out.markdown == "" and out.text == ""
    out = render(
        fragment("<a href='http://[x'>t</a><img src='http://[y'>"), base_url="", page_site=""
    )
    assert out.markdown == "t"


HTML_TOKENS = st.sampled_from(
    [
        "<p>", "</p>", "<div>", "</div>", "<br>", "<hr>", "<ul>", "</ul>", "<ol start='3'>",
        "</ol>", "<li>", "</li>", "<h2>", "</h2>", "<blockquote>", "</blockquote>",
        "<pre>", "</pre>", "<pre class='language-py'><code>", "</code></pre>", "<code>", "</code>",
        "<table>", "</table>", "<tr>", "</tr>", "<td>", "<td colspan='3'>", "<th rowspan='2'>",
        "</td>", "<th>", "</th>", "<thead>", "</thead>", "<a href='/x'>", "<a href='#y'>",
        "</a>", "<b>", "</b>", "<em>", "</em>", "<del>", "</del>", "<img src='/a.png' alt='a'>",
        "<img data-src='/b.png'>", "<dl>", "<dt>", "<dd>", "</dl>", "<details>", "<summary>",
        "</summary>", "</details>", "<figure>", "<figcaption>", "</figure>",
        "<div data-webmd-tab='Go'>", "<span class='linenos'>1</span>", "\n", "\n\n\n", "   ",
        "```", "`", "*", "_", "#", "- ", "1. ", "> ", "|", "[", "](", "\\", "<", "&amp;",
        "&lt;", "~~", "word", "two words", "x_y",
    ]
)  # fmt: skip
HTML = st.lists(st.one_of(HTML_TOKENS, st.text(max_size=8)), max_size=60).map("".join)


def parse_fragment(html: str) -> etree._Element | None:
    try:
        return lxml.html.fragment_fromstring(html, create_parent="div")
    except (etree.ParserError, ValueError):
        return None


@settings(max_examples=300, deadline=None)
@given(html=HTML)
@example(html="0<code>```0")  # a padded code span right after a word
@example(html="<a href='/x'>\\")  # a link whose text is an escaped backslash: [\\](url)
def test_property_well_formed_and_same_words(html: str) -> None:
    region = parse_fragment(html)
    if region is None:
        return
    out = render_strict(region, base_url=PAGE, page_site=SITE, keep_images=False)
    assert_well_formed(out.markdown)
    assert set(markdown_words(out.markdown)) == set(words(out.text))


@settings(max_examples=200, deadline=None)
@given(html=HTML, limit=st.integers(min_value=1, max_value=400))
@example(html="00000\n0", limit=6)  # a cut right after a word left a trailing space
def test_property_truncation_keeps_fences_balanced(html: str, limit: int) -> None:
    region = parse_fragment(html)
    if region is None:
        return
    full = render_strict(region, base_url=PAGE, page_site=SITE)
    cut = render_strict(region, base_url=PAGE, page_site=SITE, max_chars=limit)
    assert len(cut.markdown) <= limit
    assert cut.truncated == (len(full.markdown) > limit)
    assert_well_formed(cut.markdown)


@settings(max_examples=100, deadline=None)
@given(html=st.text(max_size=200), as_document=st.booleans())
def test_property_never_raises_on_any_text(html: str, as_document: bool) -> None:
    root = parse_html(html) if as_document else parse_fragment(html)
    if root is None:
        return
    out = render(root, base_url=PAGE, page_site=SITE, max_chars=100)
    assert isinstance(out, Rendered)
    assert_well_formed(out.markdown)


def test_pre_inside_a_heading_stays_apart_from_the_heading_words() -> None:
    # found by hypothesis: "<h2>0<pre>```0" glued the heading word to the code in text
    out = render_strict(
        lxml.html.fragment_fromstring("<h2>0<pre>```0</pre></h2>", create_parent="div"),
        base_url="http://x/",
        page_site="x",
    )
    assert out.text == "0 ```0"
    assert out.markdown.startswith("## 0 ")


def test_soft_hyphens_and_ruby_readings_are_not_text() -> None:
    from webmd_spider.extract import extract

    html = (
        "<html><body><article><h1>T</h1><p>Im Mit&shy;tel&shy;al&shy;ter war der Wein be"
        "\u200bkannt. <ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの虐待をなくす"
        "ための法律ができました。 Enough words here to make this a paragraph of text.</p>"
        "</article></body></html>"
    )
    doc = extract(html, "https://example.org/a")
    assert "Im Mittelalter war der Wein bekannt." in doc.text
    assert "子どもへの" in doc.text and "こ" not in doc.text and "(" not in doc.text
