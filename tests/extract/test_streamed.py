"""Streamed server rendering (React's ``$RC`` / ``$RS``): the segments a page's inline
script moves into place are read where a browser shows them, not dropped as hidden."""

from __future__ import annotations

import lxml.html

from webmd_spider.extract import extract
from webmd_spider.extract.streamed import place_segments, streamed_calls

# A page as a streaming server sends it: the shell with boundaries and their loading
# skeletons, then the segments at the end, each placed by an inline call.
STREAMED = """<html><head><title>Plans</title></head><body>
<header><nav><a href="/">Home</a> <a href="/pricing">Pricing</a></nav></header>
<main><h1>Plans for every team</h1>
<!--$?--><template id="B:0"></template><div class="skeleton"></div><!--/$-->
<p>Questions? Write to us any time of the day.</p></main>
<div hidden id="S:0"><section><h2>Starter</h2>
<p>The starter plan holds three projects and a shared workspace for a small team.</p>
<template id="P:1"></template></section></div>
<script>$RC=function(b,c,e){};$RC("B:0","S:0")</script>
<div hidden id="S:1"><p>Every plan is billed monthly and can be cancelled at any time.</p></div>
<script>$RS=function(a,b){};$RS("S:1","P:1")</script>
</body></html>"""


def test_streamed_calls_are_read_in_document_order() -> None:
    page = lxml.html.fromstring(STREAMED)
    assert streamed_calls(page.iter("script")) == [("C", "B:0", "S:0"), ("S", "S:1", "P:1")]


def test_segments_take_their_boundary_and_placeholder_places() -> None:
    page = lxml.html.fromstring(STREAMED)
    assert place_segments(page, streamed_calls(page.iter("script"))) == 2
    main = page.find(".//main")
    assert [child.tag for child in main if isinstance(child.tag, str)] == [
        "h1",
        "section",
        "div",
        "p",
    ]
    section = main.find("section")
    assert [child.tag for child in section] == ["h2", "p", "p"]
    assert section[2].text.startswith("Every plan is billed monthly")
    assert page.find(".//template") is None
    assert not [e for e in page.iter("div") if e.get("hidden") is not None]


def test_a_call_naming_an_absent_id_is_skipped() -> None:
    page = lxml.html.fromstring(STREAMED)
    calls = [("C", "B:9", "S:0"), ("S", "S:1", "P:7"), ("C", "B:0", "S:0")]
    assert place_segments(page, calls) == 1
    # the segment whose placeholder never came stays as the page had it: hidden
    assert page.get_element_by_id("S:1").get("hidden") is not None


def test_extract_reads_the_streamed_sections() -> None:
    doc = extract(STREAMED, "https://example.com/plans")
    assert "The starter plan holds three projects" in doc.text
    assert "billed monthly" in doc.text
    assert doc.text.index("three projects") < doc.text.index("billed monthly")
    assert doc.text.index("billed monthly") < doc.text.index("Questions?")


def test_without_the_script_a_hidden_segment_stays_hidden() -> None:
    """Only the runtime's calls move a segment: a hidden div named like one is hidden."""
    page = STREAMED.replace('$RC("B:0","S:0")', "").replace('$RS("S:1","P:1")', "")
    doc = extract(page, "https://example.com/plans")
    assert "three projects" not in doc.text
    assert "Questions?" in doc.text
