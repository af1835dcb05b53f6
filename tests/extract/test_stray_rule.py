"""Issue 31: "the Markdown of some pages opens with a stray ``---`` right after the
title". A thematic break (``<hr>``) that opens or closes the content separated it from
chrome or from the title heading, which are not in the body: the Markdown must go
straight from the ``# title`` line to the text, and end on the text."""

from __future__ import annotations

import pytest

from webmd_spider.extract import extract

WORDS = " ".join(f"word{i}" for i in range(40))
PROSE = f"<p>{WORDS}</p>"


def page(body: str, title: str = "Guide") -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


@pytest.mark.parametrize(
    "body",
    [
        f"<main><hr>{PROSE}<h2>More</h2>{PROSE}</main>",
        f"<main><h1>Guide</h1><hr>{PROSE}<h2>More</h2>{PROSE}</main>",
        f"<main><hr><h1>Guide</h1><hr/><hr>{PROSE}<hr></main>",
        f"<article><h1>Guide</h1><div><hr class='sep'></div>{PROSE}<div><hr></div></article>",
        f"<main><header><h1>Guide</h1><hr></header><section><hr>{PROSE}</section></main>",
        # Sphinx (the Python docs): the title, then a rule under it
        f"<div class='body' role='main'><section id='guide'><h1>Guide<a class='headerlink' "
        f"href='#guide'>¶</a></h1><hr class='docutils'/>{PROSE}</section></div>",
        f"<article><h1>Guide</h1><p class='byline'>By Jane Doe</p><hr>{PROSE}</article>",
    ],
    ids=["hr-first", "hr-after-h1", "hr-around", "hr-in-divs", "hr-in-header", "sphinx", "byline"],
)
def test_no_rule_opens_or_closes_the_markdown(body: str) -> None:
    markdown = extract(page(body), "http://example.com/guide").markdown
    assert markdown.startswith(f"# Guide\n\n{WORDS}"), markdown[:80]
    assert markdown.rstrip().endswith("word39"), markdown[-80:]
    assert not markdown.rstrip().endswith("---")


def test_a_rule_between_sections_stays() -> None:
    markdown = extract(
        page(f"<main><h1>Guide</h1><hr>{PROSE}<hr><p>Second part {WORDS}</p></main>"),
        "http://example.com/guide",
    ).markdown
    assert markdown.startswith(f"# Guide\n\n{WORDS}")
    assert f"{WORDS}\n\n---\n\nSecond part" in markdown
