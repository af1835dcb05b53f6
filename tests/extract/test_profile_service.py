# ruff: noqa: E501  (HTML fixtures: one element a line)
"""The service profile (issue 32): every section of a service page's main area, in
order; the site's banner, menus and footer out; a page without a main area left to
the ladder."""

from __future__ import annotations

import pytest

from webmd_spider.extract import ExtractOptions, extract
from webmd_spider.extract.profiles import PROFILES
from webmd_spider.extract.profiles.service import service_profile

_SECTIONS = [
    '<section class="hero"><h1>Gutter cleaning that lasts</h1>'
    "<p>We clear, flush and guard your gutters in one visit.</p>"
    '<a href="/quote">Get a quote</a></section>',
    '<section class="features"><h2>Why us</h2>'
    '<div class="card"><h3><a href="/f/1">Same-day visits</a></h3><p>Booked by noon, done by dusk.</p></div>'
    '<div class="card"><h3><a href="/f/2">Insured crews</a></h3><p>Every ladder, every roof.</p></div>'
    '<div class="card"><h3><a href="/f/3">Photo reports</a></h3><p>Before and after, sent to you.</p></div>'
    "</section>",
    '<section class="testimonials"><h2>What neighbours say</h2>'
    "<blockquote>They found a bird nest I never knew about. Spotless work.</blockquote>"
    "<p>Dana, Riverside</p></section>",
    '<section class="pricing"><h2>Pricing</h2><ul><li>Single storey: $129</li>'
    "<li>Two storeys: $189</li><li>Gutter guards: from $9 per foot</li></ul></section>",
    '<section class="faq"><h2>Questions</h2><h3>Do I need to be home?</h3>'
    "<p>No. We send photos when the job is done.</p></section>",
    '<section class="cta"><h2>Book your visit</h2><p>Call 555-0100 or book online today.</p></section>',
]


def _page(main: bool) -> str:
    inner = "".join(_SECTIONS)
    area = f"<main><div class='wrap'>{inner}</div></main>" if main else f"<div>{inner}</div>"
    return f"""<html><head><title>Gutter cleaning | ClearFlow</title></head><body>
<header><a href="/">ClearFlow</a><nav><a href="/services">Services</a> <a href="/about">About</a>
<a href="/blog">Blog</a> <a href="/contact">Contact</a></nav></header>
{area}
<footer><ul><li><a href="/privacy">Privacy policy</a></li><li><a href="/terms">Terms</a></li></ul>
<p>ClearFlow Gutters Ltd, 12 Mill Lane.</p></footer></body></html>"""


@pytest.fixture(autouse=True)
def _registered(monkeypatch: pytest.MonkeyPatch) -> None:
    # not registered yet: on WCXB dev it lowers both hash halves (see the report)
    monkeypatch.setitem(PROFILES, "service", service_profile)


def test_every_section_of_the_main_area_in_order() -> None:
    doc = extract(
        _page(main=True), "https://clearflow.example/", options=ExtractOptions(page_type="service")
    )
    assert doc.extraction_method == "service"
    marks = [
        "We clear, flush and guard",
        "Same-day visits",
        "Photo reports",
        "bird nest",
        "Two storeys: $189",
        "Do I need to be home?",
        "Call 555-0100",
    ]
    positions = [doc.text.find(mark) for mark in marks]
    assert all(p >= 0 for p in positions), doc.text
    assert positions == sorted(positions)
    for chrome in ("Privacy policy", "About", "12 Mill Lane"):
        assert chrome not in doc.text


def test_no_main_area_is_left_to_the_ladder() -> None:
    doc = extract(
        _page(main=False), "https://clearflow.example/", options=ExtractOptions(page_type="service")
    )
    assert doc.extraction_method != "service"


def _service(sections: str) -> str:
    doc = extract(
        f"""<html><head><title>Gutter cleaning | ClearFlow</title></head><body>
<header><nav><a href="/services">Services</a> <a href="/about">About</a></nav></header>
<main>{sections}</main><footer><p>ClearFlow Gutters Ltd, 12 Mill Lane.</p></footer></body></html>""",
        "https://clearflow.example/",
        options=ExtractOptions(page_type="service"),
    )
    assert doc.extraction_method == "service"
    return doc.text


def test_a_closed_dialog_is_not_content() -> None:
    # a modal form a button opens: not shown, its labels and options are no text
    text = _service(
        "".join(_SECTIONS[:3])
        + "<section><h2>Talk to an expert</h2><p>Our crews answer within the hour, every day of the week, rain or shine.</p>"
        "<button>Contact us</button><dialog><div><span>First name: *</span><span>Job level: *</span>"
        "<div><span>Afghanistan</span><span>Albania</span><span>Algeria</span></div></div></dialog></section>"
    )
    assert "Our crews answer within the hour" in text
    for field in ("First name", "Job level", "Albania"):
        assert field not in text


def test_testimonial_cards_of_a_slider_are_kept() -> None:
    # testimonials in a slider: cards of the section, not a slideshow beside an article
    quotes = "".join(
        f'<div class="slide"><h3>What our customers say</h3><blockquote>Quote {n}: the crew arrived on time, '
        f"cleared every gutter and sent photos of the work before they left the street.</blockquote>"
        f"<p>Customer {n}, Riverside</p></div>"
        for n in range(5)
    )
    story = "".join(
        f"<p>Paragraph {n} of our story: we have cleaned gutters in this town for twenty years, "
        "with the same family crews and the same care for every roof we climb.</p>"
        for n in range(6)
    )
    text = _service(
        f'<section class="about"><h2>Our story</h2>{story}</section>'
        f'<section class="testimonials"><div class="carousel slider">{quotes}</div></section>'
    )
    for n in range(5):
        assert f"Quote {n}: the crew" in text


def test_a_blurb_named_description_is_text_a_picture_description_a_caption() -> None:
    # the ladder (no profile): "value-prop-description" is a feature's blurb, kept;
    # "image-description" beside its picture is the picture's caption, dropped
    story = "".join(
        f"<p>Paragraph {n}: every crew member is trained for roof work, insured and vetted, "
        "and every visit ends with photos of the gutters before and after.</p>"
        for n in range(4)
    )
    blurbs = "".join(
        f'<div class="feature"><h3>Feature {n}</h3><div class="text-lg value-prop-description">'
        f"Blurb {n}: our crews clear the gutters, flush the downpipes and check every bracket.</div></div>"
        for n in range(3)
    )
    html = f"""<html><head><title>Gutter cleaning | ClearFlow</title></head><body>
<main><h1>Gutter cleaning</h1>{story}{blurbs}
<div class="shot"><img src="/crew.jpg" alt="crew"><div class="image-description">The crew on a roof in Riverside</div></div>
</main></body></html>"""
    doc = extract(html, "https://clearflow.example/", options=ExtractOptions(page_type="article"))
    for n in range(3):
        assert f"Blurb {n}: our crews" in doc.text
    assert "The crew on a roof" not in doc.text
