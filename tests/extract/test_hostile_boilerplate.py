"""Boilerplate and root rules on the shapes site generators really emit.

Each rule has its positive case (content that an older rule cut) and the negative
cases it must not break (chrome that still goes). The pages are small and inline;
the audit's full-size pages are the golden cases `sphinx-section-ids` and
`article-further-reading`.
"""

from __future__ import annotations

import pytest

from webmd_spider.extract import extract
from webmd_spider.extract.chrome_names import (
    CHROME,
    COMMENTS,
    NOT_CHROME,
    _is_heading_anchor,
    element_verdict,
)
from webmd_spider.extract.clean import remove_never_content
from webmd_spider.extract.link_hosts import _link_host
from webmd_spider.extract.parse import parse_html
from webmd_spider.extract.root import select_content

PROSE = (
    "Glaciers move slowly because ice deforms under its own weight. "
    "Scientists measure that flow with stakes, satellites and patience. "
)
NAV = (
    "<nav><a href='/'>Home</a> <a href='/a'>About</a> <a href='/b'>Blog</a>"
    " <a href='/c'>Contact</a></nav>"
)


def page(body: str, title: str = "Glaciers", head: str = "") -> str:
    return f"<html><head><title>{title}</title>{head}</head><body>{body}</body></html>"


def markdown(body: str, url: str = "https://ice.example/post", **kw: str) -> str:
    return extract(page(body, **kw), url).markdown


def element(html: str, xpath: str):  # type: ignore[no-untyped-def]
    root = parse_html(page(html))
    assert root is not None
    return root.xpath(xpath)[0]


# --- 1. a heading, or a section named by its own heading, is not chrome -----------


def test_sphinx_sections_with_chrome_word_ids_are_kept() -> None:
    # Sphinx and Pandoc wrap every section as <section id="slug-of-heading">: a page
    # documenting a theme's "Navigation" or "Footer" options has such ids
    sections = "".join(
        f"<section id='{slug}'><h2>{title}<a class='headerlink' href='#{slug}'>¶</a></h2>"
        f"<p>The {title.lower()} option of the theme. {PROSE}</p>"
        "<pre><code>html_theme_options = {}</code></pre></section>"
        for slug, title in (
            ("navigation", "Navigation"),
            ("sidebar", "Sidebar"),
            ("footer", "Footer"),
            ("social-links", "Social links"),
            ("cookie_banner", "Cookie banner"),
        )
    )
    md = markdown(
        f"{NAV}<div role='main'><section id='theme-options'><h1>Theme options</h1>"
        f"<p>{PROSE}</p>{sections}</section></div>",
        title="Theme options",
    )
    for title in ("Navigation", "Sidebar", "Footer", "Social links", "Cookie banner"):
        assert f"## {title}" in md
        assert f"The {title.lower()} option of the theme." in md
    assert md.count("html_theme_options") == 5


def test_headings_are_not_judged_by_their_own_class_or_id() -> None:
    # Markdown generators give headings id="comments"; themes class them
    # "section-header" (rustdoc), "page-header", "card-header"
    md = markdown(
        "<article><h1>Code comments</h1>"
        f"<p>{PROSE}</p>"
        f"<h2 id='comments'>Comments</h2><p>Explain why, not what. {PROSE}</p>"
        f"<h2 id='tags'>Tags</h2><p>Use TODO tags sparingly. {PROSE}</p>"
        f"<h2 id='menu'>Menu</h2><p>Items in a menu need labels. {PROSE}</p>"
        f"<h2 class='section-header'>Implementations</h2><p>{PROSE}</p>"
        f"<h2 class='page-header'>Configuration</h2><p>{PROSE}</p>"
        f"<h3 class='card-header'>Limits</h3><p>{PROSE}</p></article>",
        title="Code comments",
    )
    for heading in ("## Comments", "## Tags", "## Menu", "## Implementations"):
        assert heading in md
    assert "## Configuration" in md and "### Limits" in md


def test_a_chrome_box_titled_by_its_role_still_goes() -> None:
    # <div id="footer"><h3>Footer</h3>: a landmark heading (Archive of Our Own) on a
    # box that is no documentation section
    md = markdown(
        f"<article><h1>Glaciers</h1><p>{PROSE * 3}</p>"
        "<div id='footer'><h3>Footer</h3><ul><li><a href='/about'>About us</a></li>"
        "<li><a href='/terms'>Terms of service</a></li></ul>"
        "<p>Copyright 2024 Example Media, all rights reserved worldwide.</p></div></article>"
    )
    assert "Footer" not in md and "Copyright" not in md


def test_a_section_whose_id_is_not_its_heading_is_judged_by_it() -> None:
    md = markdown(
        f"<article><h1>Glaciers</h1><p>{PROSE * 3}</p>"
        "<section id='sidebar'><h2>Popular now</h2><p>Ten glaciers you must see.</p>"
        "<p>Why ice is blue, explained.</p></section></article>"
    )
    assert "Popular now" not in md


def test_visually_hidden_headings_still_go() -> None:
    md = markdown(
        f"<article><h1>Glaciers</h1><p>{PROSE * 3}</p>"
        "<h2 class='screen-reader-text'>Post navigation</h2></article>"
    )
    assert "Post navigation" not in md


TREE = "<section id='options'><h1>Options</h1>{}</section>"


@pytest.mark.parametrize(
    ("html", "xpath", "anchor"),
    [
        (TREE.format("<section id='social-links'><h2>Social links</h2></section>"),
         "//section[@id='social-links']", True),
        (TREE.format("<section id='social_links'><h2>Social Links</h2></section>"),
         "//section[@id='social_links']", True),
        (TREE.format("<section id='footer'><h2>2.3 Footer</h2></section>"),
         "//section[@id='footer']", True),
        # a section outside a tree of sections, with its heading's permalink to it
        ("<div class='section' id='footer-1'><span id='x'></span>"
         "<h2>Footer<a class='headerlink' href='#footer-1'>¶</a></h2></div>", "//div", True),
        ("<h2 id='comments'>Comments</h2>", "//h2", True),
        # chrome boxes titled by their role
        ("<div id='footer'><h3>Footer</h3></div>", "//div", False),
        ("<section id='newsletter'><h2>Newsletter</h2></section>", "//section", False),
        (TREE.format("<section id='footer'><p>Text first.</p><h2>Footer</h2></section>"),
         "//section[@id='footer']", False),
        (TREE.format("<section id='sidebar'><h2>Popular</h2></section>"),
         "//section[@id='sidebar']", False),
    ],
)  # fmt: skip
def test_heading_anchor_ids(html: str, xpath: str, anchor: bool) -> None:
    found = element(html, xpath)
    assert _is_heading_anchor(found, found.get("id")) is anchor


def test_element_verdict_of_headings_and_anchored_sections() -> None:
    assert element_verdict(element("<h2 class='section-header'>Impl</h2>", "//h2")) == NOT_CHROME
    assert element_verdict(element("<h2 class='sr-only'>Menu</h2>", "//h2")) == CHROME
    anchored = element(TREE.format("<section id='comments'><h2>Comments</h2></section>"),
                       "//section[@id='comments']")  # fmt: skip
    assert element_verdict(anchored) == NOT_CHROME
    thread = element(TREE.format("<section id='comments'><h2>4 replies</h2></section>"),
                     "//section[@id='comments']")  # fmt: skip
    assert element_verdict(thread) == COMMENTS


# --- 2. a visually hidden <h1> is not the page's title ------------------------------


def test_screen_reader_h1_in_chrome_does_not_pull_chrome_into_the_root() -> None:
    # GitHub titles every repository page with <h1 class="sr-only"> above its file table
    md = markdown(
        f"{NAV}<main><div class='repo'><h1 class='sr-only'>tidewater/fjord</h1>"
        "<table><tr><td><a href='/tidewater/fjord/tree/main/src'>src</a></td>"
        "<td><a href='/c/1'>Initial commit</a></td></tr>"
        "<tr><td><a href='/tidewater/fjord/blob/main/Cargo.toml'>Cargo.toml</a></td>"
        "<td><a href='/c/2'>Bump version</a></td></tr></table>"
        "<article class='markdown-body'><h1>fjord</h1>"
        f"<p>A JSON schema validator. {PROSE * 2}</p><p>{PROSE * 2}</p></article></div></main>",
        title="GitHub - tidewater/fjord: A JSON schema validator",
    )
    assert md.startswith("# fjord")
    assert "Cargo.toml" not in md and "tidewater/fjord" not in md


def test_a_page_whose_only_h1_is_hidden_still_finds_its_content() -> None:
    md = markdown(
        f"<h1 class='visually-hidden'>Site</h1>{NAV}<article><h2>Glaciers</h2>"
        f"<p>{PROSE * 3}</p></article>"
    )
    assert "Glaciers move slowly" in md and "Site" not in md


# --- 3. the items of one comment / review list share one verdict --------------------

SHORT_REVIEW = "Great pack, but the side pockets are hard to reach while wearing it."
LONG_REVIEW = (
    "Carried it across the fells for four days. The hip belt is the most comfortable "
    "I have used, and the lid-as-hip-pack trick is genuinely useful on day walks."
)


def review(n: int, classes: str, text: str) -> str:
    # WooCommerce: li with even / odd classes around div#comment-N.comment_container
    return (
        f"<li class='review {classes} depth-1' id='li-comment-{n}'>"
        f"<div id='comment-{n}' class='comment_container'><div class='comment-text'>"
        f"<p class='meta'><strong>Reviewer {n}</strong></p>"
        f"<div class='description'><p>{text}</p></div></div></div></li>"
    )


@pytest.mark.parametrize("texts", [(LONG_REVIEW, SHORT_REVIEW), (SHORT_REVIEW, LONG_REVIEW)])
def test_every_review_of_a_product_is_kept(texts: tuple[str, str]) -> None:
    md = markdown(
        "<div class='product'><h1>Trailhead 38L</h1>"
        f"<div class='summary'><p>{PROSE}</p></div>"
        "<div id='reviews'><div id='comments'><h2>2 reviews for Trailhead 38L</h2>"
        "<ol class='commentlist'>"
        + review(120, "byuser comment-author-jw even thread-even", texts[0])
        + review(121, "odd alt thread-odd thread-alt", texts[1])
        + "</ol></div></div></div>",
        title="Trailhead 38L",
    )
    assert SHORT_REVIEW in md and LONG_REVIEW in md


def test_a_comment_thread_under_a_long_article_goes_whole() -> None:
    # the same list shape as a product's reviews, but a minority of the page
    comments = "".join(
        f"<li id='comment-{n}' class='comment {parity} depth-1'><article class='comment-body'>"
        f"<p>{text}</p></article></li>"
        for n, parity, text in (
            (1, "even thread-even", LONG_REVIEW),
            (2, "odd alt thread-odd", SHORT_REVIEW),
            (3, "even thread-even", "Thanks, this helped me a lot with my own trip."),
        )
    )
    md = markdown(
        f"<article><h1>Glaciers</h1><p>{PROSE * 6}</p><p>{PROSE * 6}</p>"
        f"<ol class='commentlist'>{comments}</ol></article>"
    )
    assert "Glaciers move slowly" in md
    assert LONG_REVIEW not in md and SHORT_REVIEW not in md and "Thanks" not in md


def test_a_sidebar_column_is_not_grouped_with_its_content_sibling() -> None:
    md = markdown(
        "<div class='row'><div class='col sidebar'><h3>About me</h3>"
        f"<p>I write about ice. {PROSE}</p></div>"
        f"<div class='col main'><h1>Glaciers</h1><p>{PROSE * 4}</p></div></div>"
    )
    assert "About me" not in md and "Glaciers move slowly" in md


# --- 4. link lists under headings of the text ---------------------------------------

EXTERNAL = (
    "<ul><li><a href='https://www.vintagecalculators.com/'>Vintage Calculators</a></li>"
    "<li><a href='https://en.wikipedia.org/wiki/Calculator'>Calculator</a></li>"
    "<li><a href='https://www.computerhistory.org/'>Computer History Museum</a></li>"
    "<li><a href='https://archive.org/details/calc'>Pocket Calculators (1975)</a></li></ul>"
)
SAME_SITE = (
    "<ul><li><a href='/slide-rules'>Slide rules</a></li><li><a href='/hp-35'>The HP-35</a></li>"
    "<li><a href='/sinclair'>The Sinclair Executive</a></li>"
    "<li><a href='/casio-mini'>The Casio Mini</a></li></ul>"
)


def article(tail: str, head: str = "") -> str:
    return markdown(
        f"{NAV}<article class='post'><h1>Calculators</h1><div class='entry-content'>"
        f"<p>{PROSE * 2}</p><h2>The chips</h2><p>{PROSE * 2}</p>{tail}</div></article>",
        url="https://gadgets.example/calculators",
        title="Calculators",
        head=head,
    )


def test_further_reading_of_other_sites_is_kept() -> None:
    md = article(f"<h2>Further reading</h2>{EXTERNAL}")
    assert "## Further reading" in md and "[Vintage Calculators]" in md


def test_see_also_in_the_text_is_kept() -> None:
    md = article(f"<h2>See also</h2>{SAME_SITE}")
    assert "## See also" in md and "[The HP-35]" in md


@pytest.mark.parametrize("heading", ["Related posts", "You might also like", "Tags"])
def test_related_posts_of_the_same_site_go_with_their_heading(heading: str) -> None:
    md = article(f"<h2>{heading}</h2>{SAME_SITE}")
    assert heading not in md and "HP-35" not in md
    assert "## The chips" in md


def test_same_site_absolute_links_are_told_by_the_canonical() -> None:
    absolute = SAME_SITE.replace("href='/", "href='https://www.gadgets.example/")
    md = article(
        f"<h2>Related posts</h2>{absolute}",
        head="<link rel='canonical' href='https://gadgets.example/calculators'>",
    )
    assert "Related posts" not in md and "HP-35" not in md


def test_without_a_canonical_one_host_of_absolute_links_is_the_site() -> None:
    # WordPress writes its own links absolute; the related list names one host,
    # further reading several
    absolute = SAME_SITE.replace("href='/", "href='https://gadgets.example/")
    md = article(f"<h2>Further reading</h2>{EXTERNAL}<h3>Related posts</h3>{absolute}")
    assert "[Vintage Calculators]" in md
    assert "Related posts" not in md and "HP-35" not in md


def test_the_callers_site_tells_the_site_links_of_several_hosts() -> None:
    links = (
        "<ul><li><a href='https://shop.example/a'>Boots for winter walks</a></li>"
        "<li><a href='https://blog.shop.example/b'>Caring for leather</a></li>"
        "<li><a href='https://www.shop.example/c'>Socks that last</a></li>"
        "<li><a href='https://help.shop.example/d'>Returns and sizes</a></li></ul>"
    )
    html = page(
        f"<article><h1>Boots</h1><div><p>{PROSE * 3}</p><h2>Related posts</h2>{links}"
        "</div></article>",
        title="Boots",
    )

    def words(site: str | None) -> str:
        root = parse_html(html)
        assert root is not None
        remove_never_content(root)
        return " ".join(select_content(root, site=site).root.itertext())

    assert "Caring for leather" in words(None)  # several hosts, none known: other sites
    assert "Caring for leather" not in words("shop.example")


def test_share_and_follow_lists_go_though_they_lead_off_site() -> None:
    social = (
        "<ul><li><a href='https://twitter.com/intent/tweet'>Twitter</a></li>"
        "<li><a href='https://www.facebook.com/sharer.php'>Facebook</a></li>"
        "<li><a href='https://www.linkedin.com/share'>LinkedIn</a></li>"
        "<li><a href='https://reddit.com/submit'>Reddit</a></li></ul>"
    )
    md = article(f"<h3>Share this article</h3>{social}")
    assert "Share this" not in md and "Facebook" not in md


def test_a_table_of_contents_and_its_heading_go() -> None:
    toc = "".join(f"<li><a href='#s{n}'>Section number {n}</a></li>" for n in range(5))
    md = article(f"<h2>Contents</h2><ul>{toc}</ul><h2>History</h2><p>{PROSE}</p>")
    assert "Contents" not in md and "Section number" not in md and "## History" in md


def test_a_link_box_beside_the_text_is_not_in_its_flow() -> None:
    # a widget holding a heading and links, without prose of its own
    md = article(f"<div><h3>Elsewhere</h3>{EXTERNAL}</div>")
    assert "Vintage Calculators" not in md and "Elsewhere" not in md


def test_a_heading_with_its_own_text_left_is_kept() -> None:
    md = article(f"<h2>Links</h2><p>Two notes on sources. {PROSE}</p>{SAME_SITE}")
    assert "## Links" in md


# --- 5. the h1's column, reading times, counters ------------------------------------


def test_the_h1_column_wins_over_a_prose_sidebar_of_a_page_of_notes() -> None:
    md = markdown(
        "<div class='inner'><div class='left'><div class='box'><h3>About Ben</h3>"
        f"<p>I have been baking since 2009. {PROSE * 2}</p></div></div>"
        "<div class='right'><h1>Hydration notes</h1><p>Hydration is water over flour.</p>"
        "<ul><li>Flour: 450 g and half the starter</li><li>Water: 330 g and half the"
        " starter</li></ul><pre>hydration = water / flour</pre><table><tr><th>Hydration</th>"
        "<th>Feel</th></tr><tr><td>65%</td><td>Stiff, easy to shape</td></tr><tr><td>75%</td>"
        "<td>Soft, open crumb</td></tr></table></div></div>",
        title="Hydration notes - Ben's Bakehouse",
    )
    assert md.startswith("# Hydration notes") and "About Ben" not in md
    assert "| 75% | Soft, open crumb |" in md


def test_a_title_box_above_the_body_is_widened_to_the_body() -> None:
    deck = "A deck under the title that says what the story is about, at some length. " * 3
    md = markdown(
        f"<div class='wrap'><div class='head'><h1>Glaciers</h1><p>{deck}</p></div>"
        f"<div class='story'><p>{PROSE * 6}</p><p>{PROSE * 6}</p></div></div>"
    )
    assert "# Glaciers" in md and "Glaciers move slowly" in md


def test_a_title_box_as_long_as_a_short_story_is_no_column_of_its_own() -> None:
    # the title box holds more text than the story beside it, but no article body
    deck = "A deck under the title that says what the story is about, at some length. " * 4
    md = markdown(
        f"<div class='wrap'><div class='head'><h1>Glaciers</h1><p>{deck}</p>"
        "<p class='byline'>By Jane Doe, March 3</p></div>"
        f"<div class='story'><p>{PROSE}</p><p>{PROSE}</p></div></div>"
    )
    assert "# Glaciers" in md and "Glaciers move slowly" in md


def test_a_classless_byline_with_a_reading_time_goes() -> None:
    # Medium: obfuscated classes; the reading time marks the block
    md = markdown(
        "<article><h1>Microservices</h1><div><div><a href='/@alex'><img alt='Alex Kim'"
        " src='/a.jpg'></a></div><div><p><a href='/@alex'>Alex Kim</a></p><p><a"
        " href='/follow'>Follow</a></p><span>6 min read</span> · <span>Jan 20, 2024</span></div>"
        f"<div><p><span>1.2K</span></p></div></div><p>{PROSE * 4}</p></article>",
        title="Microservices",
    )
    assert "min read" not in md and "Alex Kim" not in md and "1.2K" not in md
    assert "Follow" not in md and "Glaciers move slowly" in md


def test_a_ghost_byline_with_the_author_name_heading_goes() -> None:
    md = markdown(
        "<article><header><h1>Queues in Postgres</h1><div class='article-byline'>"
        "<h4 class='author-name'><a href='/author/sam/'>Sam Ortiz</a></h4>"
        "<div class='byline-meta-content'><time>Mar 5, 2024</time>"
        "<span class='byline-reading-time'><span class='bull'>•</span> 7 min read</span>"
        f"</div></div></header><section><p>{PROSE * 4}</p><h2>The job table</h2>"
        f"<p>{PROSE}</p></section></article>",
        title="Queues in Postgres",
    )
    assert "Sam Ortiz" not in md and "min read" not in md and "## The job table" in md


def test_reading_times_and_counts_in_lists_and_tables_are_content() -> None:
    md = markdown(
        f"<article><h1>Course</h1><p>{PROSE * 3}</p>"
        "<ul><li><div>Lesson one</div><div>5 min read</div></li>"
        "<li><div>Lesson two</div><div>12 min read</div></li></ul>"
        "<table><tr><th>Package</th><th>Downloads</th></tr>"
        "<tr><td>left-pad</td><td><div>1.2M</div></td></tr></table>"
        "<ol><li><p>Views</p><p>3.4k</p></li></ol></article>",
        title="Course",
    )
    assert "12 min read" in md and "1.2M" in md and "3.4k" in md


def test_reaction_words_go_but_not_in_headings() -> None:
    md = markdown(
        f"<div class='topic'><h1>Backups fail</h1><div class='post'><p>{PROSE * 2}</p>"
        "<div class='actions'><div>2 Likes</div></div></div><h2>Follow</h2>"
        f"<p>{PROSE}</p></div>",
        title="Backups fail",
    )
    assert "2 Likes" not in md and "## Follow" in md


@pytest.mark.parametrize(
    ("href", "host"),
    [
        ("https://www.Example.com/a", "example.com"),
        ("//cdn.example.org/x.js", "cdn.example.org"),
        ("http://user@host.example:8080/p", "host.example"),
        ("/relative/path", ""),
        ("page.html?x=a:b", ""),
        ("#top", None),
        ("mailto:a@b.example", None),
        ("javascript:void(0)", None),
    ],
)
def test_link_host(href: str, host: str | None) -> None:
    assert _link_host(href) == host
