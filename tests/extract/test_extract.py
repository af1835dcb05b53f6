"""Tests for the pure extraction package (webmd_spider.extract): real HTML, no mocks."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmd_spider.extract import Document, ExtractOptions, Heading, Image, Link, extract

URL = "https://www.example.com/blog/post.html"

FILLER = (
    "Readable prose keeps the extractor honest, so this sentence carries enough ordinary "
    "words, commas, and clauses to look like the body of a real article about gardening."
)

ARTICLE_PAGE = f"""<!DOCTYPE html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <title>Growing Tomatoes | Garden Blog</title>
  <meta name="description" content="How to grow tomatoes at home.">
  <meta name="keywords" content="tomatoes, gardening , , vegetables">
  <meta property="og:site_name" content="Garden Blog">
  <meta property="og:image" content="/img/cover.jpg">
  <meta property="article:published_time" content="2024-03-01T10:00:00Z">
  <meta property="article:modified_time" content="2024-03-05T12:00:00Z">
  <meta name="robots" content="INDEX, NoFollow">
  <link rel="canonical" href="/blog/growing-tomatoes">
</head>
<body>
  <header class="site-header">
    <nav class="menu">
      <a href="/">Homepage</a>
      <a href="/about">Aboutpage</a>
      <a href="/contact" rel="nofollow">Contactpage</a>
      <a href="mailto:me@example.com">Mailme</a>
      <a href="javascript:void(0)">Scripted</a>
      <a href="#main">Skiplink</a>
      <a href="https://twitter.com/garden#x">Tweetpage</a>
    </nav>
  </header>
  <main>
    <article class="post">
      <h1>Growing Tomatoes</h1>
      <p>{FILLER} Tomatoes need sun.</p>
      <p>{FILLER} Read the <a href="/blog/soil">soil guide</a> and the
         <a href="https://seeds.example.org/catalog">seed catalog</a>.</p>
      <h2>Watering</h2>
      <p>{FILLER} Water deeply but rarely.</p>
      <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/img/plant.jpg" alt="A plant">
      <img src="data:image/png;base64,iVBORw0KGgo=" alt="Inline blob">
      <p>{FILLER} Harvest when red.</p>
    </article>
  </main>
  <aside class="sidebar"><p>Sidebarword popular posts</p></aside>
  <footer class="site-footer"><p>Footerword copyright 2024 Garden Blog Incorporated</p></footer>
</body>
</html>
"""


def words(text: str) -> set[str]:
    """Lower-case alphanumeric words of a text."""
    return {w.lower() for w in re.findall(r"[^\W_]+", text)}


def outside_code(markdown: str) -> str:
    """Markdown with fenced code blocks removed (code keeps its blank lines exactly)."""
    return re.sub(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[ \t]*$", "CODE", markdown, flags=re.M | re.S)


def markdown_words(markdown: str) -> set[str]:
    """Words of Markdown with image syntax and link targets removed."""
    markdown = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", markdown)
    markdown = re.sub(r"\]\([^)]*\)", "] ", markdown)
    markdown = re.sub(r"^```\w*$", " ", markdown, flags=re.MULTILINE)
    return words(markdown)


@pytest.fixture(scope="module")
def article() -> Document:
    return extract(ARTICLE_PAGE.encode("utf-8"), URL)


# --- metadata ---------------------------------------------------------------


def test_title_prefers_og_title_then_title_then_h1() -> None:
    head = '<meta property="og:title" content="OG Title"><title>Tag Title</title>'
    body = "<body><h1>Heading Title</h1></body>"
    assert extract(f"<html><head>{head}</head>{body}</html>", URL).title == "OG Title"
    assert extract(f"<html><head><title> Tag \n Title </title></head>{body}</html>", URL).title == (
        "Tag Title"
    )
    assert extract(f"<html><head></head>{body}</html>", URL).title == "Heading Title"


ENTRY_PROSE = "<p>" + "The entry's own words, long enough to be a body of text. " * 8 + "</p>"


def titled_page(title: str, links: str) -> str:
    """A page of `title`, the `links` markup, then a body of prose."""
    return f"<html><head><title>{title}</title></head><body>{links}{ENTRY_PROSE}</body></html>"


@pytest.mark.parametrize(
    ("title", "url", "href"),
    [
        # a forum topic: "Site :: Section - Topic" over the topic's link to itself
        (
            "Kettle Forums :: View topic - Paddle stuck - any tips?",
            "https://forum.example/viewtopic.php?t=48213",
            "viewtopic.php?t=48213",
        ),
        # an old blog theme: the entry's title an <h2> linked to its permalink
        (
            "Garden notes » Pruning roses in March",
            "https://blog.example/2020/03/roses/x.html",
            "/2020/03/roses/x.html",
        ),
    ],
)
def test_without_an_h1_the_title_is_the_part_a_link_to_the_page_itself_shows(
    title: str, url: str, href: str
) -> None:
    own = title.split(" - ", 1)[1] if "::" in title else title.split(" » ")[1]
    html = (
        f"<html><head><title>{title}</title></head><body>"
        f"<div><a href='/'>{title.split(' ')[0]}</a> <a href='/other.html'>View topic</a></div>"
        f"<h2><a href='{href}'>{own}</a></h2>{ENTRY_PROSE}</body></html>"
    )
    assert extract(html, url).title == own


def test_a_permalink_ending_in_a_slash_names_its_entry() -> None:
    html = titled_page(
        "Pruning roses in March | Garden notes",
        "<h2><a href='https://blog.example/2020/03/pruning-roses/'>Pruning roses in March</a></h2>",
    )
    assert extract(html, "https://blog.example/2020/03/pruning-roses/").title == (
        "Pruning roses in March"
    )


@pytest.mark.parametrize(
    ("url", "title", "logo"),
    [
        # a home page links to itself from its logo, with the site's name
        (
            "https://acme.example/index.html",
            "Welcome | Acme Corp",
            "<a href='/index.html'>Acme Corp</a>",
        ),
        ("https://acme.example/home", "Home - Acme Widgets", "<a href='/home'>Acme Widgets</a>"),
        # a page's link to itself whose text names the site (its host's name)
        (
            "https://acmewidgets.example/products/list",
            "Products - Acme Widgets",
            "<a href='list'>AcmeWidgets</a>",
        ),
    ],
)
def test_a_link_to_itself_with_the_sites_name_does_not_title_a_page(
    url: str, title: str, logo: str
) -> None:
    html = titled_page(title, logo)
    found = extract(html, url).title
    assert found is not None and found not in ("Acme Corp", "Acme Widgets", "AcmeWidgets")


def test_an_unparseable_link_does_not_cost_the_page_its_title() -> None:
    html = titled_page(
        "Topic title - Forum",
        "<a href='http://[bad#x'>Topic title</a><a href='topic-5'>Topic title</a>",
    )
    doc = extract(html, "https://ex.example/t/topic-5")
    assert doc.error is None and doc.title == "Topic title"


def test_a_link_to_another_page_does_not_name_the_page() -> None:
    # the same words, but the link leads elsewhere: the <title> is not cut on its word
    html = titled_page(
        "Kettle Forums :: Paddle stuck", "<a href='viewtopic.php?t=1'>Paddle stuck</a>"
    )
    assert extract(html, "https://forum.example/viewtopic.php?t=2").title == (
        "Kettle Forums :: Paddle stuck"
    )


def test_description_prefers_meta_description_over_og() -> None:
    both = (
        '<head><meta property="og:description" content="From OG">'
        '<meta name="Description" content="From meta"></head>'
    )
    og_only = '<head><meta property="og:description" content="From OG"></head>'
    assert extract(f"<html>{both}<body><p>x</p></body></html>", URL).description == "From meta"
    assert extract(f"<html>{og_only}<body><p>x</p></body></html>", URL).description == "From OG"


def test_head_metadata(article: Document) -> None:
    assert article.error is None
    assert article.site_name == "Garden Blog"
    assert article.language == "en-gb"
    assert article.canonical == "https://www.example.com/blog/growing-tomatoes"
    assert article.image == "https://www.example.com/img/cover.jpg"
    assert article.keywords == ["tomatoes", "gardening", "vegetables"]
    assert article.published_at == "2024-03-01T10:00:00Z"
    assert article.modified_at == "2024-03-05T12:00:00Z"
    assert article.meta_robots == "index, nofollow"
    assert article.nofollow is True


JSON_LD_PAGE = """<html><head>
<script type="application/ld+json">
{"@context": "https://schema.org", "@graph": [
  {"@type": "WebSite", "name": "Site"},
  {"@type": ["BlogPosting", "Article"], "headline": "H",
   "author": [{"@type": "Person", "name": "Ada Lovelace"}, {"@type": "Person", "name": "Alan"}],
   "datePublished": "2023-12-24", "dateModified": "2024-01-02"}
]}
</script>
<script type="application/ld+json">{"@type": "BreadcrumbList", "broken": </script>
<script type="application/ld+json"><!-- {"@type": "Organization", "name": "Org"} --></script>
</head><body><p>Short page.</p><time datetime="1999-01-01">old</time></body></html>"""


def test_json_ld_author_dates_and_types_including_graph() -> None:
    doc = extract(JSON_LD_PAGE, URL)
    assert doc.author == "Ada Lovelace, Alan"
    assert doc.published_at == "2023-12-24"
    assert doc.modified_at == "2024-01-02"
    assert doc.json_ld_types == ["WebSite", "BlogPosting", "Article", "Person", "Organization"]


def test_author_sources_in_priority_order() -> None:
    meta = '<meta name="author" content="Meta Author">'
    rel = '<a rel="author" href="/me">Rel Author</a>'
    assert extract(f"<html><head>{meta}</head><body>{rel}</body></html>", URL).author == (
        "Meta Author"
    )
    assert extract(f"<html><body>{rel}</body></html>", URL).author == "Rel Author"


def test_published_at_falls_back_to_time_element() -> None:
    doc = extract('<p>Posted <time datetime="2020-05-06">May 6</time></p>', URL)
    assert doc.published_at == "2020-05-06"
    assert doc.modified_at is None


def test_language_from_content_language_meta() -> None:
    page = '<html><head><meta http-equiv="Content-Language" content="DE-at, en"></head></html>'
    assert extract(page, URL).language == "de-at"


def test_nofollow_from_bot_meta_name() -> None:
    page = '<html><head><meta name="webmd" content="nofollow"></head><body>x</body></html>'
    doc = extract(page, URL)
    assert doc.nofollow is True
    assert doc.meta_robots == "nofollow"  # our own bot's meta counts as robots meta


# --- links ------------------------------------------------------------------


def test_page_links_cover_whole_page_but_only_http(article: Document) -> None:
    # /contact is rel="nofollow": never followed
    assert article.page_links == [
        "https://www.example.com/",
        "https://www.example.com/about",
        "https://twitter.com/garden",
        "https://www.example.com/blog/soil",
        "https://seeds.example.org/catalog",
    ]


def test_links_resolve_against_base_href() -> None:
    page = """<html><head><base href="https://cdn.example.net/docs/"></head><body>
    <p><a href="intro.html#top">Intro</a> <a href="../up.html">Up</a>
    <a href="intro.html">Again</a> <a href="  spaced.html ">Spaced</a></p></body></html>"""
    doc = extract(page, URL)
    assert doc.page_links == [
        "https://cdn.example.net/docs/intro.html",
        "https://cdn.example.net/up.html",
        "https://cdn.example.net/docs/spaced.html",
    ]
    assert "(https://cdn.example.net/docs/intro.html#top)" in doc.markdown


def test_content_links_are_absolute_with_internal_flag(article: Document) -> None:
    assert article.links == [
        Link(text="soil guide", url="https://www.example.com/blog/soil", internal=True),
        Link(text="seed catalog", url="https://seeds.example.org/catalog", internal=False),
    ]
    assert "[soil guide](https://www.example.com/blog/soil)" in article.markdown


def test_keep_links_false_keeps_only_link_text() -> None:
    doc = extract(ARTICLE_PAGE, URL, options=ExtractOptions(keep_links=False))
    assert "soil guide" in doc.markdown
    assert "](" not in doc.markdown.replace("![A plant](", "")


# --- images -----------------------------------------------------------------


def test_images_use_lazy_src_and_skip_data_uris(article: Document) -> None:
    assert article.images == [Image(src="https://www.example.com/img/plant.jpg", alt="A plant")]
    assert "![A plant](https://www.example.com/img/plant.jpg)" in article.markdown
    assert "data:" not in article.markdown


def test_keep_images_false_removes_image_syntax() -> None:
    doc = extract(ARTICLE_PAGE, URL, options=ExtractOptions(keep_images=False))
    assert "![" not in doc.markdown
    assert doc.images  # the list still reports them


def test_images_capped_at_100() -> None:
    imgs = "".join(f'<img src="/i/{n}.png" alt="image {n}">' for n in range(150))
    doc = extract(f"<html><body><p>{FILLER}</p>{imgs}<p>{FILLER}</p></body></html>", URL)
    assert len(doc.images) == 100
    assert doc.images[0].src == "https://www.example.com/i/0.png"


# --- content and Markdown ---------------------------------------------------


def test_navigation_and_footer_are_not_content(article: Document) -> None:
    assert article.extraction_method == "article"
    for chrome in ("Homepage", "Aboutpage", "Footerword", "Sidebarword", "Skiplink"):
        assert chrome not in article.markdown
        assert chrome not in article.text
    assert "Water deeply but rarely." in article.markdown
    assert article.headings == [
        Heading(level=1, text="Growing Tomatoes"),
        Heading(level=2, text="Watering"),
    ]
    assert "# Growing Tomatoes" in article.markdown
    assert "\n## Watering\n" in article.markdown


def test_boilerplate_ratio_counts_removed_chrome(article: Document) -> None:
    assert 0.0 < article.boilerplate_ratio < 1.0
    assert article.boilerplate_ratio == round(article.boilerplate_ratio, 3)


def test_markdown_and_text_hold_the_same_words(article: Document) -> None:
    # the Markdown is the document: its title line, then the body that `text` holds
    title, _, body = article.markdown.partition("\n\n")
    assert title == "# Growing Tomatoes"  # the page's h1, not its <title>
    assert markdown_words(body) == words(article.text)
    assert "](" not in article.text and "#" not in article.text
    assert article.word_count == len(article.text.split())
    assert article.char_count == len(article.markdown)


CODE_PAGE = f"""<html><body><article>
<p>{FILLER}</p>
<pre><code class="hljs language-python">def greet(name):
    return f"hi {{name}}"


print(greet("x"))</code></pre>
<pre class="brush: js; gutter: false">let a = "``` inside";</pre>
<div class="highlight-rust"><pre data-lang="Rust">fn main() {{}}</pre></div>
<table>
  <tr><td>Fruit</td><td>Colour</td></tr>
  <tr><td>Apple</td><td>Red</td></tr>
  <tr><td>Banana</td><td>Yellow</td></tr>
</table>
<ul><li>Short</li><li>List</li></ul>
<p>{FILLER}</p>
</article></body></html>"""


def test_code_blocks_are_fenced_with_language() -> None:
    doc = extract(CODE_PAGE, URL)
    assert '```python\ndef greet(name):\n    return f"hi {name}"\n\n\nprint(greet("x"))\n```' in (
        doc.markdown
    )
    assert '````js\nlet a = "``` inside";\n````' in doc.markdown
    assert "```rust\nfn main() {}\n```" in doc.markdown
    # text keeps the code verbatim, without fences
    assert '    return f"hi {name}"' in doc.text
    assert "```python" not in doc.text


def test_table_becomes_pipe_table_and_short_lists_survive() -> None:
    doc = extract(CODE_PAGE, URL)
    assert "| Fruit | Colour |\n| --- | --- |\n| Apple | Red |\n| Banana | Yellow |" in doc.markdown
    assert "- Short\n- List" in doc.markdown
    assert "Apple\tRed\nBanana\tYellow" in doc.text


def test_include_html_returns_region_html() -> None:
    doc = extract(ARTICLE_PAGE, URL, options=ExtractOptions(include_html=True))
    assert doc.html is not None
    assert "Water deeply but rarely." in doc.html
    assert "Footerword" not in doc.html
    assert extract(ARTICLE_PAGE, URL).html is None


def test_max_chars_cuts_at_block_boundary() -> None:
    full = extract(ARTICLE_PAGE, URL)
    doc = extract(ARTICLE_PAGE, URL, options=ExtractOptions(max_chars=400))
    assert doc.truncated is True
    assert 0 < len(doc.markdown) <= 400
    assert full.markdown.startswith(doc.markdown)
    assert full.markdown[len(doc.markdown) :].startswith("\n\n")
    assert doc.char_count == len(doc.markdown)
    assert extract(ARTICLE_PAGE, URL, options=ExtractOptions(max_chars=10**6)).truncated is False


def test_body_fallback_when_readability_finds_a_stub() -> None:
    spans = " ".join(f"<span>Catalog entry {n} with a price</span>" for n in range(30))
    page = f"""<html><body><nav><a href="/">Navword</a></nav>
    <div id="content" class="article"><p>This short article says hello, and little else.</p></div>
    <section>{spans}</section><footer>Footerword</footer></body></html>"""
    doc = extract(page, URL)
    assert doc.extraction_method == "body"
    assert "This short article says hello" in doc.markdown
    assert "Catalog entry 29 with a price" in doc.markdown
    assert "Navword" not in doc.markdown
    assert "Footerword" not in doc.text


def test_body_fallback_when_readability_returns_the_whole_body() -> None:
    items = "".join(f"<li>Product number {n} is cheap</li>" for n in range(30))
    page = f"""<html><body><nav><a href="/">Navword</a></nav>
    <p>Welcome to our little shop, friend.</p><ul>{items}</ul></body></html>"""
    doc = extract(page, URL)
    assert doc.extraction_method == "body"
    assert "- Product number 29 is cheap" in doc.markdown
    assert "Navword" not in doc.markdown


def test_encoding_from_header_and_meta() -> None:
    latin = "<html><body><p>Caf\xe9 cr\xe8me br\xfbl\xe9e</p></body></html>".encode("latin-1")
    assert "Café crème brûlée" in extract(latin, URL, encoding="iso-8859-1").text
    meta = b'<html><head><meta charset="windows-1252"></head><body><p>\x93quoted\x94</p></body>'
    assert "\u201cquoted\u201d" in extract(meta, URL).text
    assert extract(latin, URL, encoding="no-such-charset").error is None


# --- robustness -------------------------------------------------------------

XHTML = (
    '<?xml version="1.0" encoding="iso-8859-1"?>\n'
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n'
    '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="fr"><head><title>Caf\xe9</title></head>'
    "<body><p>Un caf\xe9 cr\xe8me, s'il vous pla\xeet.</p></body></html>"
)


@pytest.mark.parametrize("body", [XHTML, XHTML.encode("iso-8859-1")], ids=["str", "bytes"])
def test_xhtml_with_xml_declaration_parses(body: str | bytes) -> None:
    doc = extract(body, URL)
    assert doc.error is None
    assert doc.title == "Café"
    assert doc.language == "fr"
    assert "Un café crème" in doc.markdown


def test_empty_input_sets_error() -> None:
    for body in (b"", "", b"   \n\t"):
        doc = extract(body, URL)
        assert doc.error is not None
        assert doc.extraction_method == "none"
        assert doc.markdown == ""


@pytest.mark.parametrize(
    "body",
    [
        b"\x00\xff garbage",
        bytes(range(256)) * 4,
        b"<html><head><title>Cut",
        b"<html><body><div><p>Truncated <b>mark<a href='/x",
        "<p>lone \ud800 surrogate</p>",
        '<a href="http://[broken">bad</a><img src="http://[x"><link rel=canonical href="http://[">',
        "<table><tr><td>" * 500,
        "<html><body>" + "<div>" * 20_000 + "deep" + "</div>" * 20_000 + "</body></html>",
        "<svg><title>icon</title></svg><script>var x = '<p>';</script>",
        '<script type="application/ld+json">' + "[" * 5000 + "</script><p>x</p>",
    ],
    ids=[
        "nul-ff",
        "all-bytes",
        "cut-title",
        "cut-tag",
        "surrogate",
        "bad-urls",
        "open-tables",
        "deep-divs",
        "svg-script",
        "deep-json",
    ],
)
def test_never_raises(body: bytes | str) -> None:
    doc = extract(body, URL)
    assert isinstance(doc, Document)
    assert "\n\n\n" not in outside_code(doc.markdown)
    assert 0.0 <= doc.boilerplate_ratio <= 1.0


def test_bad_page_url_does_not_raise() -> None:
    doc = extract('<a href="/x">x</a><p>text</p>', "http://[::1")
    assert isinstance(doc, Document)


HTMLISH = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "<p>", "</p>", "<div>", "</div>", "<pre>", "</pre>", "<br>", "<ul><li>", "</li>",
                "<h2>", "</h2>", "<table><tr><td>", "</td><td>", "<a href='/x'>", "</a>",
                "<img src='a.png' alt='a'>", "<code class='language-go'>", "<script>", "\n\n\n",
                "<?xml version='1.0'?>", "<!--", "-->", "&amp;", "&#0;", "   ", "\t",
            ]
        ),
        st.text(max_size=20),
    ),
    max_size=40,
).map("".join)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(html=HTMLISH, as_bytes=st.booleans())
def test_property_never_raises_and_no_triple_newline(html: str, as_bytes: bool) -> None:
    body: bytes | str = html.encode("utf-8", "surrogatepass") if as_bytes else html
    doc = extract(body, URL)
    assert isinstance(doc, Document)
    assert "\n\n\n" not in outside_code(doc.markdown)
    assert doc.markdown == doc.markdown.strip("\n")
    assert 0.0 <= doc.boilerplate_ratio <= 1.0


@pytest.mark.parametrize(
    ("title", "h1", "site_name", "expected"),
    [
        ("Mozilla - Wikipedia", "Mozilla", None, "Mozilla"),
        ("Post title | Garden Blog", None, "Garden Blog", "Post title"),
        ("Garden Blog | Post title", None, "Garden Blog", "Post title"),
        ("Acme | Acme", None, "Acme", "Acme"),  # never empty
        ("Contact us | Acme", "Acme", None, "Contact us | Acme"),  # the h1 is the logo
        ("Input / Output in C | Acme", None, "Acme", "Input / Output in C"),
        ("Rock | Paper | Scissors | Acme", None, "Acme", "Rock | Paper | Scissors"),
        ("ページタイトル\uff5cサイト名", None, "サイト名", "ページタイトル"),
        ("A - B - C", None, None, "A - B - C"),
    ],
)
def test_title_loses_only_its_site_name(
    title: str, h1: str | None, site_name: str | None, expected: str
) -> None:
    head = f"<title>{title}</title>"
    if site_name:
        head += f'<meta property="og:site_name" content="{site_name}">'
    body = f"<h1>{h1}</h1>" if h1 else ""
    assert extract(f"<html><head>{head}</head><body>{body}<p>x</p></body></html>", URL).title == (
        expected
    )


def test_max_chars_neither_hides_nor_creates_an_empty_page() -> None:
    shell = "<html><body><p>Loading, please wait while the app starts up now.</p></body></html>"
    doc = extract(shell, URL, options=ExtractOptions(max_chars=200))
    assert doc.total_words < 20
    long_page = "<html><body><h1>Title here</h1><p>" + "word " * 300 + "</p></body></html>"
    cut = extract(long_page, URL, options=ExtractOptions(max_chars=200))
    assert cut.truncated and cut.total_words >= 300 > cut.word_count


def test_include_html_has_no_internal_markers() -> None:
    page = (
        "<html><body><article><h1>Install</h1><p>" + "words " * 40 + "</p>"
        '<div role="tablist"><button role="tab" aria-controls="p1">Linux</button></div>'
        '<div role="tabpanel" id="p1" hidden><pre>apt install x</pre></div></article></body></html>'
    )
    doc = extract(page, URL, options=ExtractOptions(include_html=True))
    assert doc.html and "data-webmd" not in doc.html


def test_tab_labels_reach_the_markdown_whoever_set_them() -> None:
    """The renderer reads tab labels only when the survey of the page saw one: a panel
    labelled by the cleaner and an attribute the page itself carries both count."""
    hidden = (
        "<html><body><article><h1>Install</h1><p>" + "words " * 40 + "</p>"
        '<div role="tablist"><button role="tab" aria-controls="p1">Linux</button></div>'
        '<div role="tabpanel" id="p1" hidden><pre>apt install x</pre></div></article></body></html>'
    )
    assert "**Linux**" in extract(hidden, URL).markdown
    native = (
        "<html><body><article><h1>Install</h1><p>" + "words " * 40 + "</p>"
        "<div data-webmd-tab='Rust'><pre>cargo build</pre></div></article></body></html>"
    )
    assert "**Rust**" in extract(native, URL).markdown
    plain = native.replace(" data-webmd-tab='Rust'", "")
    assert "Rust" not in extract(plain, URL).markdown
