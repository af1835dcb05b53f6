"""A script's shell of an article with the text in its JSON-LD (`extractor._shell_of`,
issue 14): the publisher's ``articleBody`` is the body; a page whose HTML holds the
article keeps its own extraction."""

from __future__ import annotations

import json

from webmd_spider.extract import extract

URL = "https://news.example/2026/05/ferry"
LINE = "The ferry to the outer islands will run twice a day from June, the operator said. "
BODY = "\n\n".join(LINE * 3 for _ in range(4))


def page(body_html: str, article_body: object) -> str:
    data = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Ferry"}
    data["articleBody"] = article_body
    ld = json.dumps(data).replace("</", "<\\/")  # as publishers write it inside <script>
    return (
        "<html><head><title>Ferry | Island Post</title>"
        f"<script type='application/ld+json'>{ld}</script></head>"
        f"<body><div id='app'><h1>Ferry timetable doubles</h1>{body_html}</div>"
        "<script src='/bundle.js'></script></body></html>"
    )


def test_a_shell_page_takes_its_body_from_json_ld() -> None:
    doc = extract(page("<p>Loading the story...</p>", BODY), URL)
    assert doc.extraction_method == "json-ld"
    assert doc.markdown.startswith("# Ferry timetable doubles\n\nThe ferry to the outer")
    assert doc.text.count("The ferry to the outer islands") == 12
    assert len(doc.text.split("\n\n")) == 4, "its paragraphs stay paragraphs"


def test_markup_in_the_article_body_is_read_as_markup() -> None:
    markup = "".join(f"<p>{LINE * 3}</p>" for _ in range(4)) + "<script>alert(1)</script>"
    doc = extract(page("", markup), URL)
    assert doc.extraction_method == "json-ld"
    assert "<p>" not in doc.text and "alert" not in doc.text
    assert doc.text.count("The ferry to the outer islands") == 12


def test_a_page_that_holds_its_article_keeps_its_own_body() -> None:
    html_body = "".join(f"<p>{LINE * 3} Paragraph {i}.</p>" for i in range(4))
    doc = extract(page(html_body, BODY), URL)
    assert doc.extraction_method != "json-ld"
    assert "Paragraph 3." in doc.text


def test_an_article_body_that_is_no_string_or_short_changes_nothing() -> None:
    for value in ({"text": BODY}, ["a", "b"], 42, "Too short to be an article."):
        doc = extract(page("<p>Loading the story...</p>", value), URL)
        assert doc.extraction_method != "json-ld"
        assert doc.error is None


def test_an_article_body_of_markup_without_text_leaves_the_page_as_it_was() -> None:
    for value in ("<div>" * 5000 + "</div>" * 5000, "<br>" * 1000):
        doc = extract(page("<p>Loading the story...</p>", value), URL)
        assert doc.extraction_method != "json-ld"
        assert "Loading the story" in doc.text
