# ruff: noqa: E501  (HTML fixtures: one element a line)
"""The product profile (issue 32): a product page's name, description and
specifications; its reviews and "you may also like" blocks out; the JSON-LD
description of its Product when the page does not show one."""

from __future__ import annotations

import json

import lxml.html

from webmd_spider.extract import ExtractOptions, extract
from webmd_spider.extract.metadata import json_ld_product_description, page_tags
from webmd_spider.extract.profiles import PROFILES
from webmd_spider.extract.profiles.product import (
    add_ld_description,
    product_profile,
    remove_off_product,
)

URL = "https://shop.example/p/trail-lantern"
DESCRIPTION = (
    "The Trail lantern throws a warm light across a whole camp table and runs for "
    "forty hours on one charge of its sealed battery."
)


def _ld(description: str | None = DESCRIPTION, kind: str = "Product") -> str:
    entity: dict[str, object] = {
        "@context": "https://schema.org",
        "@type": kind,
        "name": "Trail Lantern",
    }
    if description is not None:
        entity["description"] = description
    return f'<script type="application/ld+json">{json.dumps(entity)}</script>'


def _page(body: str, head: str = "") -> str:
    return f"""<html><head><title>Trail Lantern | Shop</title>{head}</head><body>
<header><nav><a href="/">Home</a> <a href="/lanterns">Lanterns</a> <a href="/sale">Sale</a></nav></header>
<main>{body}</main>
<footer><p>© 2026 Shop Example. <a href="/privacy">Privacy</a></p></footer>
</body></html>"""


_SPECS = """<h2>Specifications</h2>
<table><tr><th>Weight</th><td>310 g</td></tr><tr><th>Run time</th><td>40 hours</td></tr>
<tr><th>Brightness</th><td>300 lumens</td></tr></table>"""

_REVIEWS = """<section><h2>Customer Reviews</h2>
<div><h3>Bright and light</h3><p>I took it on a two week canoe trip and charged it only once; the whole tent was lit.</p></div>
<div><h3>Handle feels cheap</h3><p>The light is great but the folding handle bent after a season of being clipped to my pack.</p></div>
</section>"""

_ALSO = """<section><h2>Customers also viewed</h2><ul>
<li><a href="/p/head-torch">Ridge Head Torch</a> <span>£19</span></li>
<li><a href="/p/tent-light">Tent Light String</a> <span>£14</span></li>
<li><a href="/p/solar-panel">Fold Solar Panel</a> <span>£49</span></li></ul></section>"""


def _product(text: str, body_extra: str = "", head: str = "") -> str:
    return _page(f"<h1>Trail Lantern</h1><p>£32.00</p>{text}{_SPECS}{body_extra}", head or _ld())


def _markdown(html: str, page_type: str = "product") -> str:
    return extract(html, URL, options=ExtractOptions(page_type=page_type)).markdown


def test_product_is_registered() -> None:
    assert PROFILES["product"] is product_profile


def test_description_only_in_json_ld_is_added_after_the_title() -> None:
    md = _markdown(_product(""))
    assert md.startswith("# Trail Lantern\n\n" + DESCRIPTION)
    assert "| Run time | 40 hours |" in md


def test_visible_description_is_not_doubled() -> None:
    visible = f"<div class='description'><p>{DESCRIPTION}</p></div>"
    md = _markdown(_product(visible))
    assert md.count("forty hours on one charge") == 1


def test_meta_description_paragraph_stays_as_text() -> None:
    """A product's description paragraph equal to the meta description is its text,
    not a deck to move into a field."""
    head = f'<meta name="description" content="{DESCRIPTION}">' + _ld(None)
    md = _markdown(_product(f"<p>{DESCRIPTION}</p>", head=head))
    assert "forty hours on one charge" in md


def test_reviews_and_recommendations_go_and_specifications_stay() -> None:
    md = _markdown(_product(f"<p>{DESCRIPTION}</p>", _REVIEWS + _ALSO))
    assert "Customer Reviews" not in md
    assert "two week canoe trip" not in md
    assert "Customers also viewed" not in md
    assert "Ridge Head Torch" not in md
    assert "| Brightness | 300 lumens |" in md
    assert "forty hours on one charge" in md


def test_review_blocks_named_by_class_or_microdata_go() -> None:
    blocks = (
        "<div class='product-reviews'><p>Five stars from a happy customer who camps every weekend.</p></div>"
        "<div itemprop='review'><p>Another happy customer says it is the best lantern they have owned.</p></div>"
    )
    md = _markdown(_product(f"<p>{DESCRIPTION}</p>", blocks))
    assert "happy customer" not in md


def test_a_review_heading_after_an_unheaded_description_takes_only_its_section() -> None:
    """The description holder's first heading is "Reviews": the holder is not the
    reviews section (text comes before the heading)."""
    html = _page(
        f"""<h1>Trail Lantern</h1>
<div class="details"><p>{DESCRIPTION}</p><p>Made of recycled aluminium in a small workshop.</p>
<div><h3>Reviews</h3><p>Nobody has reviewed this lantern yet, be the first to write one today.</p></div></div>"""
    )
    root = lxml.html.document_fromstring(html)
    remove_off_product(root)
    text = root.text_content()
    assert "recycled aluminium" in text
    assert "Nobody has reviewed" not in text


def test_a_block_holding_the_title_or_most_of_the_page_stays() -> None:
    html = _page(
        f"<div class='reviews'><h1>Trail Lantern</h1><p>{DESCRIPTION}</p><p>More text of the page.</p></div>"
    )
    root = lxml.html.document_fromstring(html)
    remove_off_product(root)
    assert "forty hours" in root.text_content()


def test_add_ld_description_without_a_title_goes_first() -> None:
    content = lxml.html.fragment_fromstring("<div>lead<p>Weight 310 g</p></div>")
    assert add_ld_description(
        content, "<p>First line of the text.</p><p>Second line of the description here.</p>"
    )
    paragraphs = [p.text for p in content.iter("p")]
    assert paragraphs == [
        "First line of the text.",
        "Second line of the description here.",
        "Weight 310 g",
    ]
    assert "lead" in content.text_content()


def test_a_short_ld_description_is_not_added() -> None:
    content = lxml.html.fragment_fromstring("<div><p>Weight 310 g</p></div>")
    assert not add_ld_description(content, "Buy the Trail Lantern online")
    assert not add_ld_description(content, None)


def test_json_ld_product_description_reads_products_only() -> None:
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {
                "@type": "WebPage",
                "description": "A page of the shop, longer than the product's own text by far.",
            },
            {"@type": ["Product", "Thing"], "description": DESCRIPTION},
        ],
    }
    html = f'<html><head><script type="application/ld+json">{json.dumps(graph)}</script></head><body></body></html>'
    assert (
        json_ld_product_description(page_tags(lxml.html.document_fromstring(html))) == DESCRIPTION
    )
    article = _page("<p>x</p>", _ld(kind="Article"))
    assert json_ld_product_description(page_tags(lxml.html.document_fromstring(article))) is None


def test_other_types_do_not_get_the_json_ld_description() -> None:
    md = _markdown(_product(""), page_type="article")
    assert "forty hours on one charge" not in md
