"""Generated API reference (issue 30): declarations kept as code, widgets gone, titles,
and the guards that keep the open web as it was. Each page is written here in the
markup its generator writes (trimmed), so that a rule is checked on its structure."""

from __future__ import annotations

from webmd_spider.extract import extract

URL = "https://docs.example.org/api/page.html"
PROSE = (
    "This paragraph describes the member in enough words to be the text of the page, "
    "with a second sentence that says what it returns and when it raises an error."
)


def _page(body: str, head: str = "<title>Page</title>") -> str:
    return f"<html><head>{head}</head><body><main>{body}</main></body></html>"


def test_a_declaration_block_after_a_member_heading_is_code() -> None:
    body = (
        "<h1>Class Widget</h1>" + f"<p>{PROSE}</p>"
        "<h3>resize</h3>"
        "<div><span>public</span> <span>void</span> <span>resize</span>(<span>int</span> w, "
        "<span>int</span> h)</div>" + f"<div>{PROSE}</div>"
    )
    markdown = extract(_page(body), URL).markdown
    assert "```\npublic void resize(int w, int h)\n```" in markdown


def test_a_sentence_after_a_heading_is_not_a_declaration() -> None:
    body = (
        "<h1>Enums</h1>" + f"<p>{PROSE}</p><h3>Auto numbering</h3>"
        "<p>Using an auto-numbering <code>__new__()</code> would look like:</p>"
        "<h3>Types</h3><p>class names are written in CamelCase by convention here</p>"
    )
    markdown = extract(_page(body), URL).markdown
    assert "```" not in markdown
    assert "would look like:" in markdown and "CamelCase" in markdown


def test_javadoc_signatures_and_grids() -> None:
    head = '<title>Optional (Java SE 17)</title><meta name="generator" content="javadoc/X">'
    body = (
        '<h1 class="title">Class Optional&lt;T&gt;</h1>'
        '<div class="type-signature"><span class="modifiers">public final class </span>'
        '<span class="element-name">Optional&lt;T&gt;</span></div>' + f"<div>{PROSE}</div>"
        "<h2>Method Summary</h2>"
        '<div class="summary-table three-column-summary">'
        '<div class="table-header col-first">Modifier and Type</div>'
        '<div class="table-header col-second">Method</div>'
        '<div class="table-header col-last">Description</div>'
        '<div class="col-first"><code>T</code></div><div class="col-second">'
        '<code><a href="#get()">get</a>()</code></div><div class="col-last">Returns it.</div>'
        "</div>"
        '<section class="detail"><h3>get</h3><div class="member-signature">'
        '<span class="modifiers">public</span>&nbsp;<span class="return-type">T</span>'
        '&nbsp;<span class="element-name">get</span>()</div>'
        f'<div class="block">{PROSE}</div></section>'
    )
    markdown = extract(_page(body, head), URL).markdown
    assert markdown.startswith("# Class Optional\\<T>")
    assert "```java\npublic final class Optional<T>\n```" in markdown
    assert "```java\npublic T get()\n```" in markdown
    assert "| Modifier and Type | Method | Description |" in markdown
    assert "| `T` | `get()` | Returns it. |" in markdown


def test_doxygen_signature_table_is_one_line_once() -> None:
    head = (
        '<title>Lib: ns::Vec Class Reference</title><meta name="generator" content="Doxygen 1.9">'
    )
    proto = (
        '<div class="memproto"><table class="mlabels"><tr><td class="mlabels-left">'
        '<table class="memname"><tr><td class="memname">double ns::Vec::length </td>'
        '<td>(</td><td class="paramname"></td><td>)</td><td> const</td></tr></table>'
        '</td><td class="mlabels-right"><span class="mlabel">inline</span></td></tr>'
        "</table></div>"
    )
    body = (
        '<div class="header"><div class="headertitle"><div class="title">ns::Vec Class '
        'Reference</div></div></div><div class="contents">' + f"<p>{PROSE}</p>"
        '<h2 class="memtitle">length()</h2><div class="memitem">'
        f'{proto}<div class="memdoc"><p>{PROSE}</p></div></div></div>'
    )
    doc = extract(_page(body, head), URL)
    assert doc.markdown.startswith("# ns::Vec Class Reference\n")
    assert doc.markdown.count("double ns::Vec::length () const") == 1
    assert "```\ndouble ns::Vec::length () const\n```" in doc.markdown
    assert doc.removed is not None and doc.removed["table"] == 0  # moved into the code
    assert doc.removed["moved"].get("table") == 2


def test_texinfo_definitions_see_also_and_menu() -> None:
    head = '<title>Bits (Manual (version 1))</title><meta name="Generator" content="makeinfo">'
    body = (
        '<div class="header"><p>Next: <a href="n.html">N</a>, Up: <a href="u.html">U</a></p>'
        '</div><hr><span id="Bits-1"></span><h4 class="section">4.5 Bits</h4>'
        f"<p>{PROSE}</p>"
        '<dl class="def"><dt id="index-f"><span class="category">: </span><span><em>y =</em> '
        "<strong>bitand</strong> <em>(x)</em><a href='#index-f' class='copiable-anchor'> "
        '&para;</a></span></dt><dt id="index-f-1"><span class="category">: </span><span>'
        "<em>y =</em> <strong>bitand</strong> <em>(x, n)</em></span></dt>"
        f"<dd><p>{PROSE}</p><p><strong>See also:</strong> <a href='#a'>bitor</a>, "
        "<a href='#b'>bitxor</a>, <a href='c.html#c'>bitshift</a>.</p></dd></dl>"
    )
    markdown = extract(_page(body, head), URL).markdown
    assert markdown.startswith("# 4.5 Bits\n")  # the node's own heading, not <title>
    assert "```\ny = bitand (x)\ny = bitand (x, n)\n```" in markdown
    assert "See also:" in markdown and "bitshift" in markdown
    assert "¶" not in markdown and "Next:" not in markdown


def test_a_menu_after_a_nodes_heading_is_its_contents() -> None:
    head = '<title>Expressions (Manual)</title><meta name="Generator" content="makeinfo">'
    body = (
        '<h3 class="section">8.5 Expressions</h3><span id="index-a"></span><span id="index-b">'
        '</span><ul class="section-toc"><li><a href="one.html">Element-by-element operators'
        '</a></li><li><a href="two.html">Short-circuit operators</a></li></ul>'
    )
    markdown = extract(_page(body, head), URL).markdown
    assert "Element-by-element operators" in markdown and "Short-circuit" in markdown


def test_rustdoc_headers_and_widgets() -> None:
    head = '<title>Thing in krate - Rust</title><meta name="generator" content="rustdoc">'
    body = (
        '<div class="main-heading"><h1 class="fqn"><span class="in-band">Struct '
        '<a class="struct" href="#">Thing</a></span></h1><span class="out-of-band">'
        '<span class="since">1.0.0</span> · <a class="srclink" href="../src/t.rs.html">source</a>'
        ' · <a id="toggle-all-docs" href="javascript:void(0)">[<span class="inner">&#x2212;'
        "</span>]</a></span></div>"
        '<details class="rustdoc-toggle top-doc" open><summary class="hideme"><span>Expand '
        f'description</span></summary><div class="docblock"><p>{PROSE}</p>'
        '<div class="example-wrap"><pre class="rust">let t = Thing::new();</pre>'
        '<a class="test-arrow" href="https://play.example/?code=x">Run</a></div></div></details>'
        '<h2 id="implementations" class="small-section-header">'
        '<a href="#implementations">Implementations</a></h2>'
        '<details open><summary><section id="impl-Clone" class="impl"><span class="rightside">'
        '<span class="since" title="const unstable">const: <a href="https://x">unstable</a>'
        '</span> · <a class="srclink" href="../src/t.rs.html#9">source</a></span>'
        '<h3 class="code-header">impl <a href="c.html">Clone</a> for <a href="#">Thing</a></h3>'
        '</section></summary><div class="impl-items"><section class="method">'
        '<h4 class="code-header">fn <a href="#m">clone</a>(&amp;self) -&gt; Thing'
        '<span class="notable-traits"><span class="notable-traits-tooltip">ⓘ<span '
        'class="notable-traits-tooltiptext">Notable traits for Thing</span></span></span>'
        f'</h4></section><div class="docblock"><p>{PROSE}</p></div></div></details>'
    )
    doc = extract(_page(body, head), URL)
    markdown = doc.markdown
    assert markdown.startswith("# Struct Thing\n")
    assert "## Implementations\n" in markdown  # its own anchor's link unwrapped
    assert "### `impl Clone for Thing`" in markdown
    assert "#### `fn clone(&self) -> Thing`" in markdown
    for chrome in ("source](", "[-]", "\u2212", "1.0.0", "unstable", "Run](", "Expand", "ⓘ"):
        assert chrome not in markdown, chrome
    assert doc.removed is not None and doc.removed["by_rule"]["widget"]["blocks"] >= 6


def test_a_heading_linking_another_page_keeps_its_link() -> None:
    body = (
        f"<h1>News</h1><p>{PROSE}</p><h3><a href='/other-story'>Other story</a></h3><p>{PROSE}</p>"
    )
    markdown = extract(_page(body), URL).markdown
    assert "[Other story](https://docs.example.org/other-story)" in markdown


def test_a_logo_needs_an_image() -> None:
    body = (
        f"<h1>Page</h1><p>{PROSE}</p><p>Made by <a class='logo-link' href='/'>the team</a> of "
        "volunteers who write it in their free time for everyone.</p>"
    )
    assert "the team" in extract(_page(body), URL).markdown


def test_sphinx_footnotes_stay_under_a_more_heading() -> None:
    body = (
        f"<h1>Guide</h1><p>{PROSE}</p><p>It lives here.<a class='footnote-reference' "
        "href='#f1' role='doc-noteref'>[1]</a></p><h2>More topics to be covered</h2>"
        "<ul><li><a href='a.html'>Static files</a></li><li><a href='b.html'>Themes</a></li></ul>"
        "<p class='rubric'>Footnotes</p><aside class='footnote-list brackets'>"
        "<aside class='footnote brackets' id='f1' role='note'><span class='label'>1</span>"
        "<p>This is the usual layout, though it can live elsewhere.</p></aside></aside>"
    )
    assert "This is the usual layout" in extract(_page(body), URL).markdown


def test_an_opening_paragraph_before_the_first_section_is_text() -> None:
    head = '<title>Plugins</title><meta name="author" content="The Team">'
    body = (
        "<h1>Plugins</h1><p>A guide to installing, using and creating plugins</p><hr>"
        f"<h2>Installing</h2><p>{PROSE}</p>"
    )
    markdown = extract(_page(body, head), URL).markdown
    assert "A guide to installing, using and creating plugins" in markdown


def test_a_list_the_text_introduces_is_the_texts() -> None:
    items = "".join(f"<li><a href='/config#{n}'>config.{n}</a></li>" for n in "abcdefgh")
    body = (
        f"<h1>Themes</h1><p>{PROSE}</p><p>The config variable holds the settings; while you "
        f"can use any option, some commonly used options include:</p><ul>{items}</ul>"
        f"<p>{PROSE}</p>"
    )
    assert "config.h" in extract(_page(body), URL).markdown


def test_a_noscript_notice_and_a_short_hierarchy_is_a_page() -> None:
    body = (
        "<noscript><div>JavaScript is disabled on your browser.</div></noscript>"
        "<h1>Hierarchy For Package p</h1><ul><li>java.lang.Object<ul><li>p.A</li>"
        "<li>p.B</li><li>p.C</li><li>p.D</li><li>p.E</li></ul></li></ul>"
    )
    doc = extract(_page(body), URL)
    assert not doc.js_shell and "p.B" in doc.markdown


def test_zero_width_spaces_are_no_characters_of_the_text() -> None:
    body = (
        f"<h1>Parser</h1><p>{PROSE}</p><p>Call <code>addArgument\u200b(String...)</code> "
        'first.</p><pre>parser.addArgument\u200b("-f")</pre>'
    )
    doc = extract(_page(body), URL)
    assert "\u200b" not in doc.markdown and "\u200b" not in doc.text
    assert "`addArgument(String...)`" in doc.markdown


def test_a_blogs_see_also_list_of_its_posts_is_still_promotion() -> None:
    posts = "<br>".join(
        f"<a href='/2012/0{i}/post-{i}/'>The longest headline of post number {i} on this blog</a>"
        for i in range(1, 7)
    )
    body = f"<h1>Antipoden</h1><p>{PROSE}</p><p>{PROSE}</p><p>Siehe auch<br>{posts}</p>"
    assert "post number 3" not in extract(_page(body), URL).markdown


def test_texinfo_footnotes_after_the_node_are_the_texts() -> None:
    head = '<title>Lists (Manual)</title><meta name="Generator" content="makeinfo">'
    body = (
        '<div class="section" id="Lists"><h3 class="section">6.4 Lists</h3>'
        f'<p>{PROSE}<a id="DOCF2" href="#FOOT2"><sup>2</sup></a></p></div>'
        '<div class="footnote"><hr><h4 class="footnotes-heading">Footnotes</h4>'
        '<h5><a id="FOOT2" href="#DOCF2">(2)</a></h5><p>Comma-separated lists are also '
        "informally called cs-lists.</p></div><hr><div class='header'><p>Previous: "
        "<a href='c.html'>Cells</a></p></div>"
    )
    page = f"<html><head>{head}</head><body>{body}</body></html>"  # as makeinfo writes
    markdown = extract(page, URL).markdown
    assert "informally called cs-lists" in markdown and "Previous:" not in markdown
