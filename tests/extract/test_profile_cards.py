"""The listing and collection profile (issue 32, `extract.profiles.cards`): every item
card in order, the page's heading and intro kept, facets, sort boxes, pagers, menus
and "recently viewed" out; None (the ladder) when the page holds no cards."""

from __future__ import annotations

import lxml.html

from webmd_spider.extract import ExtractOptions, extract
from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.clean import remove_never_content
from webmd_spider.extract.document import Document
from webmd_spider.extract.page_type import PageType
from webmd_spider.extract.profiles import PROFILES, ProfileInput
from webmd_spider.extract.profiles.cards import Cover, cards_profile, covers

URL = "https://shop.example/garden/"


def _card(n: int, name: str = "Trowel") -> str:
    return (
        f'<li class="tile tile-{n}"><a href="/p/{n}"><img src="/i/{n}.jpg" alt=""></a>'
        f'<h3><a href="/p/{n}">{name} number {n}</a></h3>'
        f"<p>Forged steel blade number {n}, ash handle.</p>"
        f'<span class="price">${10 + n}.00</span> <button>Add to basket</button></li>'
    )


def _page(body: str) -> str:
    return f"<html><head><title>Garden tools</title></head><body>{body}</body></html>"


GRID = _page(
    '<header><nav><a href="/">Home</a> <a href="/garden/">Garden</a></nav></header>'
    "<main><h1>Garden tools</h1>"
    "<p>Hand tools for the allotment, forged by a family firm that has made them since 1890."
    " Each one is sharpened before it leaves the workshop.</p>"
    '<div class="layout"><form class="facets"><fieldset><legend>Material</legend>'
    '<label><input type="checkbox"> Steel (12)</label>'
    '<label><input type="checkbox"> Brass (4)</label>'
    '<label><input type="checkbox"> Wood (9)</label></fieldset></form>'
    '<div class="results"><label>Sort by <select><option>Price</option></select></label>'
    f'<ul class="grid">{"".join(_card(n) for n in range(1, 7))}</ul>'
    '<div class="pages"><a href="?p=1">1</a> <a href="?p=2">2</a> <a href="?p=3">3</a>'
    ' <a href="?p=2">Next</a></div></div></div>'
    '<section><h2>Recently viewed</h2><ul class="recent">'
    + "".join(
        f'<li class="r"><a href="/q/{n}">Watering can model {n}</a> <span>$9.00</span></li>'
        for n in range(3)
    )
    + "</ul></section></main><footer><p>Garden Shop Ltd, registered in England.</p></footer>"
)


def _extract(html: str, page_type: str = "collection") -> tuple[str, str]:
    doc = extract(html, URL, options=ExtractOptions(page_type=page_type))
    return doc.text, doc.extraction_method or ""


def test_every_card_in_order_with_title_blurb_and_price() -> None:
    text, method = _extract(GRID)
    assert method == "cards"
    positions = [text.index(f"Trowel number {n}") for n in range(1, 7)]
    assert positions == sorted(positions)
    assert "Forged steel blade number 6, ash handle." in text
    assert "$16.00" in text


def test_the_intro_above_the_cards_is_kept() -> None:
    text, _ = _extract(GRID)
    assert "forged by a family firm" in text
    assert text.index("forged by a family firm") < text.index("Trowel number 1")


def test_facets_sort_pager_and_controls_are_removed() -> None:
    text, _ = _extract(GRID)
    for chrome in ("Steel (12)", "Material", "Sort by", "Next", "Add to basket", "Home"):
        assert chrome not in text


def test_recently_viewed_is_removed() -> None:
    text, _ = _extract(GRID)
    assert "Watering can" not in text
    assert "Recently viewed" not in text


def test_listing_and_collection_are_registered() -> None:
    assert PROFILES["listing"] is cards_profile
    assert PROFILES["collection"] is cards_profile


def _input(html: str, evidence: tuple[str, ...] = ("given",)) -> ProfileInput:
    root = lxml.html.document_fromstring(html)
    remove_never_content(root, keep_frames=False)
    return ProfileInput(
        root=root,
        page_type=PageType("listing", evidence),
        doc=Document(),
        site="shop.example",
        generator="",
        options=ExtractOptions(),
        audit=LossAudit(),
    )


def test_no_cards_leaves_the_page_to_the_ladder() -> None:
    html = _page("<main><h1>About us</h1><p>" + "We sell tools. " * 30 + "</p></main>")
    assert cards_profile(_input(html)) is None


def test_menu_columns_are_not_cards() -> None:
    column = (
        '<li class="col"><span>Tools</span><ul>'
        + "".join(f'<li><a href="/c/{n}">Category {n}</a></li>' for n in range(8))
        + "</ul></li>"
    )
    html = _page(f'<div class="mega"><ul class="cols">{column * 4}</ul></div>')
    assert cards_profile(_input(html)) is None


def test_a_layouts_second_copy_of_a_card_line_is_dropped() -> None:
    cards = "".join(
        f'<div class="story"><a href="/s/{n}">Storm warning for the coast, day {n}</a>'
        f"<div><span>By Ana Ruiz, on the coast desk {n}</span>"
        f"<span>By Ana Ruiz, on the coast desk {n}</span></div></div>"
        for n in range(4)
    )
    text, _ = _extract(_page(f'<main><div class="stories">{cards}</div></main>'), "listing")
    assert text.count("By Ana Ruiz, on the coast desk 2") == 1


def test_sections_of_cards_on_a_home_page_are_all_kept() -> None:
    def section(name: str) -> str:
        items = "".join(
            f'<li class="item"><a href="/{name}/{n}">{name} story number {n} of the day</a>'
            f"<span> by Kim Lee</span></li>"
            for n in range(4)
        )
        return f'<section class="block"><h2>{name}</h2><ul class="items">{items}</ul></section>'

    html = _page(f"<main>{section('News')}{section('Features')}{section('Opinion')}</main>")
    text, _ = _extract(html, "collection")
    for name in ("News", "Features", "Opinion"):
        assert f"{name} story number 3 of the day" in text


def test_a_cards_call_to_action_links_go_and_a_sentence_with_one_stays() -> None:
    """ "Enrol" / "Add to cart" standing alone in a card is a button of the grid, the
    same on every card; the same words inside a sentence are the card's text."""
    cards = "".join(
        f'<div class="course"><h2><a href="/c/{n}">Soil science part {n}</a></h2>'
        f"<p>Six weeks of field work on soil number {n}, taught by a working scientist.</p>"
        f'<a class="btn" href="/c/{n}/enrol">Enrol</a>'
        f'<div><a href="/c/{n}/cart">Add to cart</a></div>'
        f'<p>Questions? <a href="/c/{n}/faq">Learn more</a> in the course notes.</p></div>'
        for n in range(1, 6)
    )
    html = _page(f"<main><h1>Courses</h1><div class='grid'>{cards}</div></main>")
    doc = extract(html, URL, options=ExtractOptions(page_type="listing"))
    assert doc.text.count("Soil science part") == 5
    assert "Enrol" not in doc.text and "Add to cart" not in doc.text
    assert doc.text.count("Learn more in the course notes") == 5


#: the page type as the model alone says it (no schema.org list type, no rule)
MODEL = ("model:0.9", "cards:6")


def test_a_grid_on_the_models_word_alone_gets_its_cards() -> None:
    """The cards outweigh the intro beside them many times over: the page's items."""
    html = _page(
        "<main><h1>Garden tools</h1><p>Hand tools for the allotment, forged by a family"
        " firm.</p>"
        f'<ul class="grid">{"".join(_card(n) for n in range(1, 25))}</ul></main>'
    )
    chosen = cards_profile(_input(html, MODEL))
    assert chosen is not None
    assert chosen.selection.method == "cards"
    text = chosen.selection.root.text_content()
    assert "Trowel number 1" in text and "Trowel number 24" in text


def test_a_grid_the_model_was_unsure_of_goes_to_the_ladder() -> None:
    """The type step's fallback for a page of cards whose best guess was another type
    below the confidence a type needs (evidence ``model:forum:0.36``) is a label, not
    enough to take the content away: the same grid the model called a listing gets its
    cards (the test above), this one goes to the ladder untouched."""
    html = _page(
        "<main><h1>Garden tools</h1><p>Hand tools for the allotment, forged by a family"
        " firm.</p>"
        f'<ul class="grid">{"".join(_card(n) for n in range(1, 25))}</ul></main>'
    )
    given = _input(html, ("model:forum:0.36", "cards:24"))
    before = lxml.html.tostring(given.root)
    assert cards_profile(given) is None
    assert lxml.html.tostring(given.root) == before


def _article_with_teasers() -> str:
    teasers = "".join(
        f'<div class="teaser"><a href="/n/{n}">Another story from the desk, number {n}</a>'
        f"<span>3 min read</span></div>"
        for n in range(6)
    )
    prose = "".join(
        f"<p>The council met on Tuesday to hear the harbour plan, part {n}; the vote was"
        f" put off until the spring, when the survey of the sea wall is due.</p>"
        for n in range(8)
    )
    return _page(
        f"<main><article><h1>Harbour plan delayed</h1>{prose}</article>"
        f'<div class="more">{teasers}</div></main>'
    )


def test_an_article_with_teasers_on_the_models_word_goes_to_the_ladder_untouched() -> None:
    """The model's listing call on an article: its prose outweighs the teaser cards, so
    the profile leaves the page to the ladder, and the ladder reads the page as it was
    (the check ran on a copy)."""
    given = _input(_article_with_teasers(), MODEL)
    before = lxml.html.tostring(given.root)
    assert cards_profile(given) is None
    assert lxml.html.tostring(given.root) == before


def test_the_same_article_given_as_a_listing_gets_the_cards() -> None:
    # a type the caller gives is decisive: no check, the cards are the content
    assert cards_profile(_input(_article_with_teasers())) is not None


def test_layout_boxes_on_the_models_word_go_to_the_ladder() -> None:
    """Sibling boxes of a site's layout (a menu, the main column, a sidebar), each with
    links, are a "card group" whose region is the whole body with no title heading
    beside it: not the page's items."""
    boxes = "".join(
        f'<div class="block"><a href="/b/{n}">Block {n} heading link</a>'
        f"<p>{'Some words of this box, with a link or two. ' * (2 + 4 * (n == 1))}</p></div>"
        for n in range(4)
    )
    html = _page(f'<div class="page">{boxes}</div>')
    assert cards_profile(_input(html, MODEL)) is None


def test_covers_weighs_cards_against_prose_and_the_whole_body() -> None:
    assert covers(Cover(card_chars=5000, prose=300, headed=True, whole_body=False))
    assert not covers(Cover(card_chars=1600, prose=300, headed=True, whole_body=False))
    assert covers(Cover(card_chars=1600, prose=0, headed=True, whole_body=True))
    assert not covers(Cover(card_chars=1600, prose=0, headed=False, whole_body=True))


def test_a_filter_panel_without_a_form_goes_with_its_controls_cleaned_away() -> None:
    """Checkboxes outside a form: once the controls are cleaned away, what is left is
    their labels (``label for=...``) and a list of "[ ] " items; neither is content."""
    options = "".join(
        f'<div class="opt"><input type="checkbox" id="d{n}">'
        f'<label for="d{n}">{level} level courses</label></div>'
        for n, level in enumerate(("Introductory", "Intermediate", "Advanced"))
    )
    ticks = "".join(
        f'<li><input type="checkbox"> <a href="?s={n}">School of {name}</a></li>'
        for n, name in enumerate(("Law", "Medicine", "Design"))
    )
    html = _page(
        "<main><h1>Courses</h1>"
        f'<div class="filters"><div class="difficulty">{options}</div>'
        f'<ul class="schools">{ticks}</ul></div>'
        f'<ul class="grid">{"".join(_card(n) for n in range(1, 7))}</ul></main>'
    )
    text, method = _extract(html, "listing")
    assert method == "cards"
    assert "Trowel number 6" in text
    for facet in ("Introductory level", "Advanced level", "School of Law", "School of Design"):
        assert facet not in text


def test_a_title_a_card_shows_twice_apart_is_kept_once() -> None:
    """A card's title over its image and again in its body (not siblings): the later
    copy goes; the same line on two different cards stays on each."""
    cards = "".join(
        f'<div class="post"><div class="media"><a href="/p/{n}"><span>Kiln repair'
        f" diary, week {n}</span></a></div>"
        f'<div class="body"><h2><a href="/p/{n}">Kiln repair diary, week {n}</a></h2>'
        f"<p>Bricks, mortar and a new element for the old kiln, part {n}.</p>"
        "<p>Filed under studio notes</p></div></div>"
        for n in range(1, 5)
    )
    text, _ = _extract(_page(f'<main><div class="posts">{cards}</div></main>'), "listing")
    assert text.count("Kiln repair diary, week 3") == 1
    assert text.count("Filed under studio notes") == 4
