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
