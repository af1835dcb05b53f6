"""select_content: root steps with their fall-throughs, and boilerplate rules with their guards."""

from __future__ import annotations

import lxml.html
import pytest

from webmd_spider.extract.chrome_names import CHROME, NOT_CHROME, name_verdict
from webmd_spider.extract.clean import remove_never_content
from webmd_spider.extract.parse import parse_html
from webmd_spider.extract.root import Selection, select_content

PROSE = (
    "Glaciers move slowly because ice deforms under its own weight. "
    "Scientists measure that flow with stakes, satellites and patience. "
)
NAV = (
    "<nav><ul><li><a href='/'>Home</a></li><li><a href='/a'>About</a></li>"
    "<li><a href='/b'>Blog</a></li><li><a href='/c'>Contact</a></li></ul></nav>"
)
FOOTER = "<footer><p>Copyright 2025 Example Inc.</p><a href='/privacy'>Privacy</a></footer>"


def prose(n: int = 4, word: str = "") -> str:
    return "<p>" + (word + " " if word else "") + PROSE * n + "</p>"


def select(body: str, title: str = "Page") -> Selection:
    root = parse_html(f"<html><head><title>{title}</title></head><body>{body}</body></html>")
    assert root is not None
    remove_never_content(root)
    return select_content(root)


def words(selection: Selection) -> str:
    return " ".join(" ".join(selection.root.itertext()).split())


# --- class / id words -------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        *("nav", "site-footer", "main-nav", "mainNav", "post-share", "share-buttons"),
        *("sidebar", "related-posts", "cookie-banner", "breadcrumbs", "ad", "ad-slot"),
        *("sr-only", "toc", "mood", "mood_title", "contentBreadcrumbs2", "breadcrumb-content"),
    ],
)
def test_chrome_names(name: str) -> None:
    assert name_verdict(name) == CHROME


@pytest.mark.parametrize(
    "name",
    [
        *("social-security", "related-work", "menu-planning", "ad-hoc", "socialSecurity"),
        *("content-header", "comment-body", "entry-content", "nav-tabs", "download"),
        "header-image",
    ],
)
def test_content_names(name: str) -> None:
    assert name_verdict(name) == NOT_CHROME


def test_class_words_remove_chrome_but_keep_content_compounds() -> None:
    sel = select(
        "<article><h1>Benefits</h1>"
        + prose()
        + "<div class='social-security'><p>Social Security pays at 67.</p></div>"
        + "<section class='related-work'><p>Smith (2020) measured the same.</p></section>"
        + "<div class='menu-planning'><p>Plan the week's dinners on Sunday.</p></div>"
        + "<p class='ad-hoc'>An ad-hoc committee decided.</p>"
        + "<div class='post-share'><a href='/fb'>Facebook</a> <a href='/tw'>Twitter</a></div>"
        + "<div class='ad-slot'>Buy now</div>"
        + "<span class='sr-only'>Skip to content</span></article>"
    )
    text = words(sel)
    for kept in ("Social Security pays", "Smith (2020)", "dinners on Sunday", "ad-hoc committee"):
        assert kept in text
    for gone in ("Facebook", "Buy now", "Skip to content"):
        assert gone not in text


def test_class_rule_never_removes_element_with_h1_or_most_text() -> None:
    sel = select(
        NAV + "<div class='page-header'><h1>The Title</h1></div>"
        "<div class='widget'>" + prose(8) + "</div>" + FOOTER
    )
    text = words(sel)
    assert "The Title" in text
    assert "Glaciers move slowly" in text


def test_tag_list_label_goes_with_its_links() -> None:
    sel = select(
        "<article><h1>The Title</h1>" + prose(4) + "<div class='x'><span class='label'>Tags</span>"
        "<div class='items'><ul><li><a href='/t/ice'>Ice</a></li>"
        "<li><a href='/t/flow'>Flow</a></li></ul></div></div>"
        "<p>Tags: a word that opens a sentence stays here.</p></article>"
    )
    text = words(sel)
    assert "Glaciers move slowly" in text
    assert "Ice" not in text and "Flow" not in text
    assert "a word that opens a sentence stays" in text


def test_comment_thread_in_a_lone_wrapper_is_not_its_containers_majority() -> None:
    comments = "<div class='comments'>" + prose(2, "Anonymous wrote:") + "</div>"
    sel = select(
        "<article><h1>The Title</h1>"
        + prose(4)
        + "<div class='pane-x'>"
        + comments
        + "</div></article>"
    )
    text = words(sel)
    assert "The Title" in text
    assert "Anonymous wrote" not in text
    # a forum thread that is the page's content stays
    sel = select("<h1>The Title</h1><div class='comments'>" + prose(6, "Bob wrote:") + "</div>")
    assert "Bob wrote" in words(sel)


# --- landmarks ----------------------------------------------------------------------


def test_landmarks_go_but_article_header_stays() -> None:
    sel = select(
        "<header><a href='/'>Logo</a>" + NAV + "</header>"
        "<main><article><header><h1>Ice Flow</h1><p>By Ann</p></header>"
        + prose()
        + "<aside><h3>Popular</h3><a href='/x'>X</a> <a href='/y'>Y</a></aside>"
        "</article></main>" + FOOTER
    )
    text = words(sel)
    assert sel.method == "article"
    assert "Ice Flow" in text and "By Ann" in text
    assert "Logo" not in text and "Popular" not in text and "Copyright" not in text


def test_note_aside_and_prose_aside_stay() -> None:
    sel = select(
        "<article><h1>Guide</h1>"
        + prose()
        + "<aside class='note'><p>Back up first.</p></aside>"
        + "<aside><p>"
        + PROSE * 3
        + "</p></aside>"
        + "<aside class='ads'><p>Sponsored</p></aside></article>"
    )
    text = words(sel)
    assert "Back up first." in text
    assert text.count("Glaciers move slowly") == 7
    assert "Sponsored" not in text


def test_role_marked_section_with_heading_and_prose_stays() -> None:
    sel = select(
        "<main><h1>Report</h1>"
        + prose()
        + "<div role='complementary'><h2>Method</h2>"
        + prose(3)
        + "</div><div role='navigation'><a href='/1'>1</a> <a href='/2'>2</a></div></main>"
    )
    text = words(sel)
    assert "Method" in text
    assert text.count("Glaciers move slowly") == 7


def test_forum_comment_bodies_stay() -> None:
    posts = "".join(
        f"<div class='comment'><a href='/u/{i}'>user{i}</a>{prose(2)}</div>" for i in range(4)
    )
    sel = select(NAV + f"<main><h1>Thread: ice</h1><div class='comments'>{posts}</div></main>")
    text = words(sel)
    assert text.count("Glaciers move slowly") == 8


def test_blog_comment_widget_goes() -> None:
    comments = "".join(
        f"<li class='comment'><a href='/u/{i}'>reader{i}</a><p>Great post, thanks a lot for "
        "this, really helpful.</p><a href='#reply'>Reply</a></li>"
        for i in range(3)
    )
    sel = select(
        "<article><h1>Post</h1>"
        + prose(6)
        + f"<div id='comments' class='comments-area'><h3>3 comments</h3><ol>{comments}</ol>"
        "</div></article>"
    )
    text = words(sel)
    assert "Glaciers move slowly" in text
    assert "Great post" not in text and "3 comments" not in text


# --- text-recognised chrome ---------------------------------------------------------


def test_cookie_banner_recognised_by_its_words() -> None:
    sel = select(
        "<main><h1>Cookies in HTTP</h1>"
        + prose()
        + "<p>Servers set cookies with Set-Cookie; browsers accept them by default.</p>"
        "<div class='box'><p>We use cookies to improve your experience. "
        "<a href='/privacy'>Learn more</a></p><a href='#'>Accept all</a></div></main>"
    )
    text = words(sel)
    assert "We use cookies" not in text and "Accept all" not in text
    assert "Servers set cookies" in text


def test_link_farm_goes() -> None:
    farm = "".join(f"<a href='/t/{i}'>Topic number {i}</a> " for i in range(6))
    sel = select("<article><h1>Story</h1>" + prose(6) + f"<div class='x'>{farm}</div></article>")
    text = words(sel)
    assert "Topic number" not in text
    assert "Glaciers" in text


def test_related_heading_with_links_goes_but_with_prose_stays() -> None:
    links = "".join(f"<li><a href='/p{i}'>Another story {i}</a></li>" for i in range(3))
    sel = select(
        "<article><h1>Story</h1>"
        + prose(6)
        + "<h2>Read next</h2><p>"
        + PROSE
        + "</p>"
        + f"<h3>Related posts</h3><ul>{links}</ul></article>"
    )
    text = words(sel)
    assert "Read next" in text
    assert "Related posts" not in text and "Another story" not in text


def test_permalink_anchors_and_edit_links_go() -> None:
    sel = select(
        "<article><h1>Doc <a class='headerlink' href='#doc'>¶</a></h1>"
        "<h2 id='s'>Setup <a href='#s' aria-label='link'>#</a></h2>"
        + prose()
        + "<h2><a href='#u'>Usage</a></h2><p>Run it.</p>"
        "<a href='https://github.com/x/y/edit/main/doc.md'>Edit this page</a>"
        "<a href='https://github.com/x/y/blob/main/doc.md'>Edit on GitHub</a></article>"
    )
    text = words(sel)
    assert "¶" not in text and "#" not in text
    assert "Edit this page" not in text and "Edit on GitHub" not in text
    assert "Doc" in text and "Setup" in text and "Usage" in text


# --- root steps -----------------------------------------------------------------------


def test_article_step() -> None:
    sel = select(NAV + "<div class='wrap'><article><h1>A</h1>" + prose() + "</article></div>")
    assert sel.method == "article" and sel.root.tag == "article"


def test_main_step() -> None:
    sel = select(NAV + "<div role='main'><h1>M</h1>" + prose() + "</div>" + FOOTER)
    assert sel.method == "main"
    assert "Home" not in words(sel)


def test_container_step() -> None:
    sel = select(
        NAV + "<div id='wrap'><h1>C</h1><div class='entry-content'>" + prose() + "</div>"
        "<div class='sidebar-box'><p>Other things.</p></div></div>" + FOOTER
    )
    assert sel.method == "container"
    assert "Glaciers" in words(sel) and "Home" not in words(sel)


def test_density_step_widens_to_h1() -> None:
    sel = select(
        NAV
        + "<div class='x'><div class='y'><h1>Dense</h1><div class='z'>"
        + prose(2)
        + prose(2)
        + "</div></div><div class='w'><a href='/1'>one</a></div></div>"
    )
    assert sel.method == "density"
    text = words(sel)
    assert "Dense" in text and "Glaciers" in text and "Home" not in text


def test_body_fallback_and_ratio() -> None:
    sel = select("<p>Short.</p>")
    assert sel.method == "body"
    assert sel.boilerplate_ratio == 0.0


def test_small_article_falls_through() -> None:
    sel = select("<article><p>Tiny teaser.</p></article><main><h1>Real</h1>" + prose() + "</main>")
    assert sel.method == "main"


def test_article_without_h1_and_little_prose_is_not_accepted() -> None:
    sel = select(
        "<article>"
        + prose(1)
        + "</article><div id='content'><h1>Main story</h1>"
        + prose(8)
        + "</div>"
    )
    assert sel.method == "container"
    assert "Main story" in words(sel)


def test_article_with_30_percent_prose_is_accepted_without_h1() -> None:
    sel = select("<article>" + prose(4) + "</article><div>" + prose(4) + "</div>")
    assert sel.method == "article"


def test_cards_listing_keeps_all_cards() -> None:
    cards = "".join(
        f"<article class='card'><header><h2><a href='/p{i}'>Post {i}</a></h2></header>"
        f"<p>Summary {i}: {PROSE}</p></article>"
        for i in range(5)
    )
    sel = select(NAV + f"<main><h1>Blog</h1>{cards}</main>" + FOOTER)
    assert sel.method == "main"
    text = words(sel)
    for i in range(5):
        assert f"Post {i}" in text and f"Summary {i}" in text


def test_content_header_class_is_found() -> None:
    sel = select(
        "<div class='site-header'>" + NAV + "</div>"
        "<div class='content-header'><h1>Inside a header class</h1>" + prose() + "</div>"
        "<div class='site-footer'><p>Footer text</p></div>"
    )
    text = words(sel)
    assert "Inside a header class" in text and "Glaciers" in text
    assert "Footer text" not in text and "Home" not in text


def test_boilerplate_ratio_counts_what_was_cut() -> None:
    root = parse_html(
        "<html><body>" + NAV + "<article><h1>T</h1>" + prose() + "</article></body></html>"
    )
    assert root is not None
    body = root.find("body")
    assert body is not None
    page_chars = len(" ".join(body.text_content().split()))
    remove_never_content(root)
    sel = select_content(root, page_chars)
    assert 0.0 < sel.boilerplate_ratio < 0.2


def test_empty_body() -> None:
    root = lxml.html.document_fromstring("<html><body></body></html>")
    remove_never_content(root)
    sel = select_content(root)
    assert sel.method == "body" and sel.boilerplate_ratio == 0.0


def test_deep_nesting() -> None:
    root = lxml.html.document_fromstring("<html><body></body></html>")
    node = root.find("body")
    assert node is not None
    lxml.html.etree.SubElement(node, "h1").text = "Deep"
    for _ in range(20_000):
        node = lxml.html.etree.SubElement(node, "div", {"class": "wrap"})
    lxml.html.etree.SubElement(node, "p").text = PROSE * 3
    lxml.html.etree.SubElement(node, "nav").text = "menu"
    remove_never_content(root)
    sel = select_content(root)
    text = words(sel)
    assert "Glaciers" in text and "Deep" in text and "menu" not in text


# --- teaser cards, media players, link masses, overlays -----------------------------


def _card(i: int, heading: str = "h3") -> str:
    return (
        f"<li><div class='c'><{heading}><a href='/story-{i}'>Other story number {i}</a>"
        f"</{heading}><p>A short blurb about story {i}, to make you click.</p>"
        f"<span>News desk</span></div></li>"
    )


def test_teaser_cards_after_the_article_go() -> None:
    cards = "<ul class='stream'>" + "".join(_card(i) for i in range(5)) + "</ul>"
    sel = select(f"<article><h1>Title</h1>{prose(6)}{cards}</article>", title="Title")
    text = words(sel)
    assert "Glaciers move slowly" in text
    assert "Other story number" not in text
    assert "blurb" not in text


def test_teaser_cards_with_a_kicker_outside_the_link_go() -> None:
    cards = "".join(
        f"<div class='item'><h4><span>Opinion</span> <a href='/c{i}'>A column title {i}</a>"
        f"</h4><p>COLUMNIST The columnist writes about things {i}.</p></div>"
        for i in range(4)
    )
    sel = select(f"<article><h1>Title</h1>{prose(6)}<div>{cards}</div></article>", title="Title")
    assert "A column title" not in words(sel)


def test_fewer_than_three_teaser_cards_stay() -> None:
    cards = "<ul>" + "".join(_card(i) for i in range(2)) + "</ul>"
    sel = select(f"<article><h1>Title</h1>{prose(6)}{cards}</article>", title="Title")
    assert "Other story number 1" in words(sel)


def test_bare_linked_headings_between_paragraphs_are_sections() -> None:
    body = "".join(f"<h3><a href='/game-{i}'>Game {i}</a></h3>{prose(1)}" for i in range(5))
    sel = select(f"<article><h1>Best games</h1>{prose(2)}{body}</article>", title="Best games")
    assert "Game 3" in words(sel)


def test_a_listing_page_keeps_its_cards() -> None:
    cards = "<ul>" + "".join(_card(i) for i in range(8)) + "</ul>"
    sel = select(f"<main><h1>Latest news</h1><p>Intro.</p>{cards}</main>", title="Latest news")
    assert "Other story number 7" in words(sel)


def test_cards_beside_a_titled_article_go_even_when_they_are_the_bigger_part() -> None:
    cards = "<ul>" + "".join(_card(i) for i in range(20)) + "</ul>"
    sel = select(
        f"<div role='main'><div class='story'><h1>Title</h1>{prose(10)}</div>{cards}</div>",
        title="Title",
    )
    text = words(sel)
    assert "Glaciers move slowly" in text
    assert "Other story number" not in text


def test_media_player_chrome_goes() -> None:
    player = (
        "<div class='vjs-control-bar'><div>Play</div><div>Mute</div>"
        "<div>Playback Rate</div><div>Captions</div></div>"
    )
    labelled = "<div aria-label='Video Player'><div>Video Quality</div><div>Auto</div></div>"
    sel = select(f"<article><h1>T</h1>{prose(5)}{player}{labelled}</article>", title="T")
    text = words(sel)
    assert "Glaciers" in text
    assert "Mute" not in text and "Playback" not in text and "Video Quality" not in text


def test_a_player_with_a_long_description_stays() -> None:
    player = f"<div class='video-player'>{prose(4)}</div>"
    sel = select(f"<article><h1>T</h1>{prose(5)}{player}</article>", title="T")
    assert words(sel).count("Glaciers move slowly") == 9


def test_a_big_mass_of_links_beside_the_article_goes() -> None:
    names = ", ".join(f"<a href='/u/{i}'>reader_name_{i}</a>" for i in range(300))
    kudos = f"<div role='complementary'><p>{names} left kudos on this work!</p></div>"
    sel = select(f"<div role='main'><h1>Work</h1>{prose(8)}{kudos}</div>", title="Work")
    text = words(sel)
    assert "Glaciers" in text and "reader_name_5" not in text


def test_a_modal_goes_despite_its_prose() -> None:
    modal = f"<div class='modal fade'><div class='modal-body'>{prose(3)}</div></div>"
    sel = select(f"<article><h1>T</h1>{prose(5, 'Main')}{modal}</article>", title="T")
    assert words(sel).count("Glaciers move slowly") == 5


def test_ai2html_chart_labels_go() -> None:
    chart = "<div class='ai2html'><p>$915</p><p>billion</p><p>'17</p><p>'28</p></div>"
    sel = select(f"<article><h1>T</h1>{prose(5)}{chart}</article>", title="T")
    assert "billion" not in words(sel)


def test_sns_share_buttons_go() -> None:
    bar = "<div class='snsButton'><a href='/t'>Tweet</a><a href='/f'>Share</a></div>"
    sel = select(f"<article><h1>T</h1>{bar}{prose(5)}</article>", title="T")
    assert "Tweet" not in words(sel)


def test_density_keeps_the_sibling_sections_of_a_reference_page() -> None:
    # DocBook-style reference page (no <article>, <main>, container class or <h1>): the
    # longest section wins the density score, and its siblings (synopsis, description,
    # notes) are kept because what they add is text, not links; the navigation tables
    # around the entry are mostly links and stay out.
    prose = "This sentence explains the command in plain words, with detail. " * 6
    params = "".join(f"<dt>param{i}</dt><dd><p>{prose}</p></dd>" for i in range(12))
    body = (
        '<div class="navheader"><table><tr><td><a href="/p">Prev</a></td>'
        '<td><a href="/u">Up</a></td><td><a href="/n">Next</a></td></tr></table></div>'
        '<div class="refentry"><div class="refnamediv"><h2>CREATE THING</h2>'
        "<p>CREATE THING — define a new thing</p></div>"
        '<div class="refsynopsisdiv"><h2>Synopsis</h2><pre>CREATE THING name ( ... )</pre></div>'
        f'<div class="refsect1"><h2>Description</h2><p>{prose}</p></div>'
        f'<div class="refsect1"><h2>Parameters</h2><dl>{params}</dl></div>'
        f'<div class="refsect1"><h2>Notes</h2><p>{prose}</p></div></div>'
        '<div class="navfooter"><table><tr><td><a href="/p">Prev</a></td>'
        '<td><a href="/h">Home</a></td><td><a href="/n">Next</a></td></tr></table></div>'
    )
    selection = select(body)
    text = selection.root.text_content()
    assert selection.method == "density"
    for kept in ("CREATE THING — define", "Synopsis", "Description", "Notes", "param11"):
        assert kept in text
    assert "Prev" not in text and "Home" not in text


def test_byline_blocks_go_but_author_bios_and_headings_stay() -> None:
    prose = "The council approved the new budget after a long debate on Tuesday night. " * 8
    body = (
        "<article><h1>Budget approved</h1>"
        '<div class="entry-meta">By Jane Doe | March 3, 2024</div>'
        '<h5 class="article-posted-date">Posted 3/3/2024</h5>'
        f"<p>{prose}</p>"
        '<div class="author-bio">Jane Doe covers city hall for the paper.</div>'
        "</article>"
    )
    text = select(body).root.text_content()
    assert "By Jane Doe" not in text
    assert "Posted 3/3/2024" in text, "a heading is never removed as a byline"
    assert "covers city hall" in text, "a bio written in sentences is prose"


def test_a_link_list_with_a_sentence_is_not_a_link_farm() -> None:
    bugs = "".join(
        f"<li><a href='/bug/{i}'>Bug {i} - fix the window placement</a></li>" for i in range(5)
    )
    body = (
        "<article><h1>Weekly notes</h1>" + prose(6) + "<h4>Picture-in-Picture</h4>"
        "<ul><li>We have the green light for another round of students hacking on this next"
        " semester, with two mentors who know the code and the tests well.</li>"
        f"<li>In progress:<ul>{bugs}</ul></li></ul>" + prose(6) + "</article>"
    )
    text = select(body).root.text_content()
    assert "green light" in text and "Bug 3" in text
    farm = "".join(f"<li><a href='/t/{i}'>Topic {i}</a></li>" for i in range(6))
    text = select(
        "<article><h1>Story</h1>" + prose(6) + f"<ul>{farm}</ul></article>"
    ).root.text_content()
    assert "Topic 3" not in text, "a bare list of links is still a link farm"


def test_chrome_classed_links_inside_a_paragraph_stay() -> None:
    body = (
        "<article><h1>Bartleby</h1><p>I am a <a class='popup' href='#g1'>rather elderly</a>"
        " man. The nature of my <a class='popup' href='#g2'>avocations</a> for the last thirty"
        " years has brought me into more than ordinary contact with law-copyists.</p>"
        + prose(6)
        + "<div><span class='share'>Share</span></div></article>"
    )
    text = select(body).root.text_content()
    assert "rather elderly" in text and "avocations" in text
    assert "Share" not in text, "a chrome-classed span outside prose still goes"


def _slides(n: int) -> str:
    return "".join(
        f"<li><h2><span>{i}/{n}</span> Headline number {i}</h2><p>Caption for slide {i}: the"
        f" company posted results that surprised analysts and moved shares sharply.</p></li>"
        for i in range(1, n + 1)
    )


def test_a_slideshow_beside_the_article_goes() -> None:
    body = (
        "<article><h1>Hotel secrets</h1>"
        + prose(8)
        + "<div class='full-gallery'><h2>News in pictures</h2>"
        + f"<ul class='legends'>{_slides(12)}</ul>"
        "</div></article>"
    )
    text = select(body).root.text_content()
    assert "Glaciers move slowly" in text
    assert "Caption for slide" not in text and "News in pictures" not in text


def test_a_slideshow_that_is_the_page_and_a_small_gallery_stay() -> None:
    body = f"<article><h1>Photos</h1><div class='slideshow'><ul>{_slides(8)}</ul></div></article>"
    assert "Caption for slide 3" in select(body).root.text_content()
    small = "<li><img src='a.jpg'><p>Rural scene</p></li>" * 5
    body = "<article><h1>Land</h1>" + prose(12) + f"<ul class='gallery'>{small}</ul></article>"
    assert "Rural scene" in select(body).root.text_content(), "a few pictures in the text stay"


def test_a_dateline_opening_the_lead_sentence_stays_but_a_byline_block_goes() -> None:
    body = (
        "<article><h1>Story</h1><p class='byline'>By Jane Roe | March 3, 2025</p>"
        "<p><span class='dateline'>CAIRO \u2014 </span>Gunmen opened fire on visitors at the "
        "museum on Wednesday, killing at least 19 people.</p>" + prose(4) + "</article>"
    )
    text = " ".join(select(body).root.text_content().split())
    assert "CAIRO \u2014 Gunmen opened fire" in text
    assert "Jane Roe" not in text


def test_a_byline_block_of_up_to_160_characters_goes() -> None:
    meta = (
        "<div class='entry-meta'><time>14. Dezember 2021</time> | "
        "<a href='/autor/jana'>Jana Beispielautorin</a> | "
        "<a href='/c/rezension'>Rezensionen und Kritiken</a>, "
        "<a href='/t/m'>Melancholie und Heimweh</a> | <a href='#comments'>3 Kommentare</a></div>"
    )
    body = "<article><h1>Heimweh</h1>" + meta + prose(4) + "</article>"
    text = select(body).root.text_content()
    assert 60 < len(" ".join(lxml.html.fromstring(meta).text_content().split())) <= 160
    assert "Beispielautorin" not in text and "Melancholie" not in text


def test_ad_labels_go() -> None:
    body = (
        "<article><h1>Story</h1>"
        + prose(4)
        + "<div class='x1'><div class='x2'><p>Advertisement</p></div></div>"
        + "<div>STORY CONTINUES BELOW</div>"
        + prose(4)
        + "<p>Advertisement revenue fell, the report said.</p></article>"
    )
    text = select(body).root.text_content()
    assert "STORY CONTINUES" not in text
    assert text.count("Advertisement") == 1, "a sentence about ads is text"


def test_ad_labels_in_other_languages_go_and_a_split_sentence_joins() -> None:
    body = (
        "<article><h1>Story</h1>"
        + prose(4)
        + "<p>- Anzeige -</p><div><span>Reklama</span></div><div>PUBLICIDAD</div>"
        + prose(4)
        + "<p>Die Werbung der Stadt kostet viel.</p></article>"
    )
    text = select(body).root.text_content()
    assert "Anzeige" not in text and "Reklama" not in text and "PUBLICIDAD" not in text
    assert "Die Werbung der Stadt" in text, "a sentence about ads is text"


def test_a_label_word_in_a_data_table_cell_stays_in_its_column() -> None:
    rows = "".join(
        f"<tr><td>{n}</td><td>{topic}</td><td>S. {n * 10}</td></tr>"
        for n, topic in enumerate(["Marketing", "Werbung", "Advertisement", "Vertrieb"], 1)
    )
    body = (
        "<article><h1>Contents</h1>"
        + prose(4)
        + f"<table><tr><th>No.</th><th>Chapter</th><th>Page</th></tr>{rows}</table>"
        + "</article>"
    )
    root = select(body).root
    cells = [[c.text_content() for c in tr.iter("td", "th")] for tr in root.iter("tr")]
    assert cells[2] == ["2", "Werbung", "S. 20"]
    assert cells[3] == ["3", "Advertisement", "S. 30"]


def test_an_h2_opening_the_title_beats_a_section_banner_h1() -> None:
    title = "Babies Who Eat Peanuts Early May Avoid Allergy"
    side = "".join(
        f"<li><a href='/p{i}'>Promo {i}</a><p>Short blurb {i}.</p></li>" for i in range(6)
    )
    body = (
        "<div id='bg'><div id='top'><h1>Allergies Health Center</h1></div>"
        f"<div id='middle'><h2>{title}</h2>" + prose(8) + "</div>"
        f"<div id='third'><h3>Today on the site</h3><ul>{side}</ul></div></div>"
    )
    text = select(body, title=title).root.text_content()
    assert title in text
    assert "Promo 3" not in text and "Allergies Health Center" not in text


def test_highlighted_code_tokens_are_never_chrome() -> None:
    prose = "Compile the file with the flags below and run the output with a runtime. " * 5
    body = (
        f"<article><h1>Standalone Wasm</h1><p>{prose}</p>"
        '<pre><code><span class="token comment">// add.c</span>\n'
        '<span class="token keyword">int</span> add(int a, int b) { return a + b; }'
        '\n<span class="share">share(x);</span></code></pre></article>'
    )
    text = select(body).root.text_content()
    assert "// add.c" in text and "share(x);" in text


def test_ui_word_blocks_go() -> None:
    controls = (
        "<div class='x1'><div class='x2'><span>Full Screen</span></div></div>"
        "<div><button>Autoplay</button></div>"
        "<div>1 of 24</div>"
        "<p><a href='/buy'>Buy Photo</a></p>"
        "<div>Font Size <a href='#'>A</a> <a href='#'>A</a> <a href='#'>A</a></div>"
        "<ul><li><a href='#'>Print</a></li><li><a href='#'>Email</a></li>"
        "<li><a href='#'>Share</a></li><li><a href='#'>Tweet</a></li></ul>"
        "<div><span>Comments (12)</span></div>"
        "<div>Show more</div><div>Skip ad</div><div>Replay</div><div>Close</div>"
    )
    body = "<article><h1>Story</h1>" + prose(4) + controls + prose(4) + "</article>"
    text = " ".join(select(body).root.text_content().split())
    for word in ("Full Screen", "Autoplay", "1 of 24", "Buy Photo", "Font"):
        assert word not in text, word
    for word in ("Print", "Tweet", "Comments", "Show more", "Skip ad", "Replay", "Close"):
        assert word not in text, word
    assert "Glaciers move slowly" in text


def test_ui_words_in_text_headings_tables_and_code_stay() -> None:
    body = (
        "<article><h1>Story</h1>"
        + prose(4)
        + "<p>Print the form and sign it.</p>"
        + "<h2>Share</h2>"
        + prose(2)
        + "<table><tr><th><p>Comment</p></th><th>Status</th></tr>"
        + "<tr><td>ok</td><td>done</td></tr></table>"
        + "<p><a href='/next'>Next</a></p><p><a href='/prev'>Previous</a></p>"
        + "<p>Read more:</p><p><a href='/x'>The other story</a></p>"
        + "<div>Image</div><div>Facebook</div><div>1 / 5</div>"
        + "<pre><code>print\n</code></pre>"
        + prose(4)
        + "</article>"
    )
    text = select(body).root.text_content()
    for kept in ("Print the form and sign it.", "Share", "Comment", "Next", "Previous"):
        assert kept in text, kept
    for kept in ("Read more:", "Image", "Facebook", "1 / 5", "print\n"):
        assert kept in text, kept


def test_previous_next_pager_links_go_but_a_labelled_next_page_stays() -> None:
    sel = select(
        "<article><h1>The Title</h1>" + prose(4) + "<div id='prevlink'><a href='/old'>"
        "← <strong>Previous</strong>: Chasing Quick Fixes</a></div>"
        "<div class='row'><div><a href='/p'>Previous<br> Chapter</a></div>"
        "<div><a href='/n'>Next<br> Chapter</a></div></div>"
        "<p><b>Next page</b>: <a href='/2'>Security</a></p>"
        "<p><a href='/w'>Next, the flow of ice is measured again by satellites.</a></p></article>"
    )
    text = words(sel)
    assert "Glaciers move slowly" in text
    assert "Chasing Quick Fixes" not in text and "Chapter" not in text
    assert "Next page : Security" in text
    assert "Next, the flow of ice is measured again" in text


def test_previous_and_next_post_heading_goes_with_its_links() -> None:
    sel = select(
        "<article><h1>The Title</h1>" + prose(4) + "<div><h5>上一篇文章與下一篇文章</h5>"
        "<ul><li><a href='/a'>愛上喜翁露營</a></li><li><a href='/b'>走進莫內遇見落羽松</a></li>"
        "</ul></div></article>"
    )
    text = words(sel)
    assert "Glaciers move slowly" in text
    assert "上一篇" not in text and "愛上喜翁露營" not in text


def test_the_article_holding_the_h1_beats_a_bigger_listing_of_cards() -> None:
    cards = "".join(
        f"<div class='card'><a href='/s/{i}'>Headline {i}</a><p>{PROSE}</p></div>" for i in range(8)
    )
    body = (
        f"<article class='story'><h1>Podolski retires</h1>{prose(3, 'STORY')}</article>"
        f"<article class='author-materials'><h2>More by this author</h2>{cards}</article>"
    )
    selection = select(body, "Podolski retires")
    assert selection.method == "article"
    assert selection.root.get("class") == "story"
    assert "STORY" in words(selection) and "Headline 3" not in words(selection)


def test_a_title_only_article_does_not_become_the_root() -> None:
    # the h1's article is a header: the text is beside it
    body = (
        "<article class='head'><h1>Glaciers</h1><p>By A. Writer</p></article>"
        f"<div class='content'>{prose(4, 'BODY')}{prose(4)}</div>"
    )
    selection = select(body, "Glaciers")
    assert "BODY" in words(selection)


def test_a_post_nested_in_an_unclosed_header_is_kept() -> None:
    # a forum's attribution <header> never closed: the parser puts the post inside it
    post = "".join(f"<li>{PROSE} Change {i}.</li>" for i in range(6))
    reply = f"<div class='message'><div class='message-body'>{prose(12)}</div></div>"
    body = (
        f"{NAV}<main><h1>Patch notes 4.47</h1><div class='message'>"
        "<header class='message-attribution'><a href='/u/1'>Tiberius</a>"
        f"<div class='opposite'><div class='message-body'><ul>{post}</ul></div></div>"
        f"</header></div>{reply}</main>{FOOTER}"
    )
    selection = select(body, "Patch notes 4.47")
    assert "Change 3." in words(selection)
