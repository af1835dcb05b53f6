"""Rendering rules found by the site-generator audit (Hugo, MkDocs Material, rustdoc,
javadoc, Medium, vBulletin): each is a structural rule, tested here on its template's
shape and on the near misses that must keep rendering as before."""

from __future__ import annotations

import lxml.html

from webmd_spider.extract.markdown import Rendered, render_strict
from webmd_spider.extract.tables import classify, extract_tables

from ..work_count import lines_of

PAGE = "https://www.example.com/docs/page.html"


def conv(html: str) -> Rendered:
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    return render_strict(root, base_url=PAGE, page_site="example.com", keep_links=False)  # type: ignore[arg-type]


def md(html: str) -> str:
    return conv(html).markdown


def table_kind(html: str) -> str:
    return classify(lxml.html.fragment_fromstring(html))


# --- code tables with a line-number column ----------------------------------------

# Hugo's Chroma with lineNumbersInTable (PaperMod and most Hugo themes)
CHROMA_TABLE = (
    '<div class="highlight"><div class="chroma"><table class="lntable"><tr>'
    '<td class="lntd"><pre tabindex="0" class="chroma"><code>'
    '<span class="lnt">1\n</span><span class="lnt">2\n</span></code></pre></td>'
    '<td class="lntd"><pre tabindex="0" class="chroma"><code class="language-go" data-lang="go">'
    '<span class="line"><span class="cl">ctx, cancel := ctx()\n</span></span>'
    '<span class="line"><span class="cl">defer cancel()\n</span></span></code></pre></td>'
    "</tr></table></div></div>"
)


def test_chroma_line_number_table_is_one_code_block_without_the_numbers() -> None:
    out = conv(CHROMA_TABLE)
    assert out.markdown == "```go\nctx, cancel := ctx()\ndefer cancel()\n```"
    assert out.tables == []


def test_a_number_column_beside_code_is_a_gutter_whatever_its_classes() -> None:
    html = (
        "<table><tr><td><pre>1\n2\n3</pre></td>"
        '<td><pre class="language-python">a = 1\nb = 2\nprint(a + b)</pre></td></tr></table>'
    )
    assert table_kind(html) == "gutter"
    assert md(html) == "```python\na = 1\nb = 2\nprint(a + b)\n```"


def test_chroma_inline_line_numbers_are_dropped_from_the_code() -> None:
    html = (
        '<pre class="chroma"><code class="language-sh">'
        '<span class="line"><span class="ln">1</span><span class="cl">make\n</span></span>'
        '<span class="line"><span class="ln">2</span><span class="cl">make test\n</span></span>'
        "</code></pre>"
    )
    assert md(html) == "```sh\nmake\nmake test\n```"


def test_tables_that_only_look_like_numbered_code_stay_data() -> None:
    # numbers beside words (no code), two rows of code, numbers that are not alone
    assert table_kind("<table><tr><td>1</td><td>Install</td></tr></table>") == "data"
    rows = "<tr><td><pre>1</pre></td><td><pre>a</pre></td></tr>" * 3
    assert table_kind(f"<table>{rows}</table>") == "data"
    assert (
        table_kind("<table><tr><td><code>v1</code></td><td><code>x()</code></td></tr></table>")
        == "data"
    )


def test_the_file_name_of_a_pygments_table_is_a_line_before_the_code() -> None:
    # MkDocs Material: <th class="filename"> above the number and code cells
    html = (
        '<div class="language-yaml highlight"><table class="highlighttable">'
        '<tr><th colspan="2" class="filename"><span class="filename">myproj.yml</span></th></tr>'
        '<tr><td class="linenos"><div class="linenodiv"><pre><span class="normal">1</span>\n'
        '<span class="normal">2</span></pre></div></td><td class="code"><div><pre><span></span>'
        "<code>site_name: x\ntheme: light\n</code></pre></div></td></tr></table></div>"
    )
    assert md(html) == "myproj.yml\n\n```yaml\nsite_name: x\ntheme: light\n```"


# --- code languages ---------------------------------------------------------------------


def test_a_bare_language_class_on_the_pre_names_the_language() -> None:
    # rustdoc: <pre class="rust item-decl">
    assert md('<pre class="rust item-decl"><code>pub struct S;</code></pre>') == (
        "```rust\npub struct S;\n```"
    )
    assert md('<pre><code class="python">x = 1\ny = 2</code></pre>').startswith("```python\n")


def test_bare_class_words_that_are_no_language_or_on_a_wrapper_are_not_trusted() -> None:
    assert md('<pre class="screen">$ ls</pre>') == "```\n$ ls\n```"
    assert md('<pre class="programlisting literal">x</pre>') == "```\nx\n```"
    # a wrapper's bare word may mean anything ("python" as a tab, a theme, a topic)
    assert md('<div class="python"><pre>x = 1</pre></div>') == "```\nx = 1\n```"


def test_any_data_lang_attribute_of_the_code_names_the_language() -> None:
    # Medium: <pre><span data-code-block-lang="python">
    html = (
        '<pre class="pf pg"><span class="po" data-code-block-mode="1" '
        'data-code-block-lang="python">def f():<br>    return 1</span></pre>'
    )
    assert md(html) == "```python\ndef f():\n    return 1\n```"
    assert md('<pre data-language="ruby">puts 1</pre>') == "```ruby\nputs 1\n```"


def test_a_data_lang_attribute_of_a_wrapper_other_than_data_lang_is_not_trusted() -> None:
    # a page-language marker on a wrapper is no code language
    assert md('<div data-i18n-lang="en"><pre>x</pre></div>') == "```\nx\n```"


# --- headings inside <summary> and <dt> -----------------------------------------------------


def test_a_summary_holding_a_heading_keeps_the_heading() -> None:
    # rustdoc: <details><summary><section><a>source</a><h4>pub fn ...</h4></section></summary>
    html = (
        '<details open><summary><section id="method.compile" class="method">'
        '<a class="src" href="/src/x.rs.html#20">source</a>'
        '<h4 class="code-header">pub fn compile(source: &amp;str)</h4></section></summary>'
        "<div><p>Parses and compiles a schema.</p></div></details>"
    )
    out = conv(html)
    assert out.markdown == (
        "source\n\n#### pub fn compile(source: &str)\n\nParses and compiles a schema."
    )
    assert [(h.level, h.text) for h in out.headings] == [(4, "pub fn compile(source: &str)")]


def test_a_dt_holding_a_heading_keeps_the_heading() -> None:
    html = "<dl><dt><h3>Options</h3></dt><dd>What you may set.</dd></dl>"
    assert md(html) == "### Options\n\nWhat you may set."


def test_summary_and_dt_without_headings_stay_bold_lines() -> None:
    assert md("<details><summary>Why?</summary><p>Because.</p></details>") == (
        "**Why?**\n\nBecause."
    )
    assert md("<dl><dt>Since:</dt><dd>2.0</dd></dl>") == "**Since:**\n\n2.0"


# --- lists used for layout -----------------------------------------------------------------


def test_a_list_of_sections_is_layout_without_markers() -> None:
    # javadoc: <ul class="summary-list"><li><section><h2>Method Summary</h2>...
    html = (
        '<ul class="details-list"><li><section class="method-details"><h2>Method Details</h2>'
        '<ul class="member-list"><li><section class="detail"><h3>exponential</h3>'
        "<div>Exponential backoff.</div><dl><dt>Returns:</dt><dd>a new policy</dd></dl>"
        "</section></li></ul></section></li></ul>"
    )
    assert md(html) == (
        "## Method Details\n\n### exponential\n\nExponential backoff.\n\n"
        "**Returns:**\n\na new policy"
    )


def test_items_opening_with_a_heading_and_its_body_are_layout() -> None:
    # cards: picture, then title and text
    html = (
        '<ul><li><a href="/a"><img src="a.png" alt=""></a><h3>WebIDE</h3><p>Develop apps.</p></li>'
        "<li><h3>Valence</h3><p>Debug apps.</p></li></ul>"
    )
    assert md(html) == (
        "![](https://www.example.com/docs/a.png)\n\n### WebIDE\n\nDevelop apps.\n\n"
        "### Valence\n\nDebug apps."
    )


def test_real_lists_with_headings_in_their_items_stay_lists() -> None:
    # an admonition inside a step, after the step's words (PostgreSQL's procedures)
    html = (
        "<ol><li><p>Create the root table.</p><div class='note'><h3>Note</h3>"
        "<p>It holds no data.</p></div></li><li><p>Create the children.</p></li></ol>"
    )
    assert md(html) == (
        "1. Create the root table.\n\n   ### Note\n\n   It holds no data.\n2. Create the children."
    )
    # a heading alone or last in its item is the item's title; h5/h6 are small labels
    assert md("<ul><li><h3>One</h3></li><li><h3>Two</h3></li></ul>") == (
        "-\n  ### One\n-\n  ### Two"
    )
    assert md("<ul><li><h5>Tip</h5><p>Save often.</p></li></ul>") == (
        "-\n  ##### Tip\n\n  Save often."
    )


# --- forums laid out in tables ------------------------------------------------------------

VBULLETIN_POST = (
    '<table class="tborder"><tr><td class="thead">03-14-2024, 08:12 AM</td>'
    '<td class="thead">#1</td></tr>'
    '<tr valign="top"><td class="alt2"><div><a href="/u/812">skyhawk_sam</a></div>'
    '<div class="smallfont">Student Pilot</div></td>'
    '<td class="alt1"><div class="smallfont"><strong>Carburettor icing?</strong></div>'
    "<hr><div>On my last solo the engine started running rough at 2,000 ft on a humid "
    "morning. I pulled carb heat and it got worse for a few seconds.<br><br>Was that icing? "
    "My instructor says yes but I want to understand why it got worse first.</div></td></tr>"
    "</table>"
)


def test_a_forum_post_laid_out_in_a_table_is_layout() -> None:
    assert table_kind(VBULLETIN_POST) == "layout"
    out = md(VBULLETIN_POST)
    assert "|" not in out
    assert "Student Pilot\n\n**Carburettor icing?**\n\n---\n\nOn my last solo" in out
    assert "seconds.\n\nWas that icing?" in out


def test_blank_lines_rules_and_text_divs_count_as_paragraphs_of_a_cell() -> None:
    prose = "A sentence of a post that goes on for a while. " * 2
    for inner in (
        f"{prose}<br><br>{prose}",  # <br><br>
        f"<br> {prose}<br>\n<br>{prose}",  # whitespace between the two <br>
        f"{prose}<hr>{prose}",
        f"<div>{prose}</div><div>{prose}</div>",
    ):
        html = f"<table><tr><td>user</td><td>{inner}</td></tr></table>"
        assert table_kind(html) == "layout", inner


def test_short_cells_and_single_breaks_stay_data() -> None:
    # an address with line breaks, two short divs: a data table's cells
    address = "<td>1 Main St<br>Springfield<br>USA</td>"
    assert table_kind(f"<table><tr><td>Office</td>{address}</tr></table>") == "data"
    short = "<td><div>Red</div><div>Blue</div></td>"
    assert table_kind(f"<table><tr><td>Colours</td>{short}</tr></table>") == "data"
    # a wrapper div around paragraph divs counts its paragraphs, not itself
    prose = "Words of a long description that goes on. " * 2
    one = f"<td><div><div>{prose}{prose}</div></div></td>"
    assert table_kind(f"<table><tr><td>Item</td>{one}</tr></table>") == "data"


def test_a_table_with_headers_and_long_prose_cells_stays_data() -> None:
    prose = "A long explanation of the setting, in sentences. " * 4
    html = (
        "<table><thead><tr><th>Setting</th><th>Meaning</th></tr></thead><tbody>"
        f"<tr><td>retries</td><td>{prose}<br><br>{prose}<hr>{prose}</td></tr>"
        "</tbody></table>"
    )
    assert table_kind(html) == "data"
    assert len(extract_tables(lxml.html.fragment_fromstring(f"<div>{html}</div>"))) == 1


# --- bounded on hostile input -------------------------------------------------------------


def _cell_table(divs: int) -> str:
    return "<table><tr><td>" + "<div> </div><br>" * divs + "</td><td>b</td></tr></table>"


def _item_list(items: int) -> str:
    return "<ul>" + "<li><p>t</p><div><h3>n</h3><p>x</p></div></li>" * items + "</ul>"


def test_the_new_rules_stay_linear_on_big_cells_and_lists() -> None:
    # linear: twice the input runs at most 2.5 times the lines of webmd_spider (a walk
    # of the cell or the list per element would run 4 times). Counted, not timed (issue
    # 35): the lines of the rules alone, the HTML parsed beforehand
    tables = {n: lxml.html.fragment_fromstring(_cell_table(n)) for n in (10_000, 20_000)}
    small, large = (lines_of(lambda n=n: classify(tables[n])) for n in (10_000, 20_000))
    assert small < large <= 2.5 * small, (small, large)
    lists = {n: f"<div>{_item_list(n)}</div>" for n in (1500, 3000)}
    roots = {n: lxml.html.fragment_fromstring(html) for n, html in lists.items()}
    rendered: dict[int, Rendered] = {}

    def render(n: int) -> None:
        rendered[n] = render_strict(
            roots[n],  # type: ignore[arg-type]
            base_url=PAGE,
            page_site="example.com",
            keep_links=False,
        )

    small, large = (lines_of(lambda n=n: render(n)) for n in (1500, 3000))
    assert small < large <= 2.5 * small, (small, large)
    assert rendered[3000].markdown.startswith("- t")
