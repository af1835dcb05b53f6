"""Markdown given to ``webmd convert``: told from HTML (``detect.is_markdown``) and
passed through as a page (``markdown_input.convert_markdown``, ``api.convert``)."""

from __future__ import annotations

import pytest

from webmd_spider.api import convert
from webmd_spider.documents import MARKDOWN, convert_document, is_markdown
from webmd_spider.documents.markdown_input import convert_markdown
from webmd_spider.extract import ExtractOptions


@pytest.mark.parametrize(
    ("body", "name", "expected"),
    [
        (b"# Title\n\nSome *text*.", None, True),
        (b"just a line of plain text", None, True),
        # not tags: generics, an autolink, a mail autolink, a comparison
        (b"Use List<String> or <https://x.example/> or <me@example.org>; a < b > c", None, True),
        (b"<!DOCTYPE html><title>x</title>", None, False),
        (b"<p>one paragraph</p>", None, False),
        # Markdown lines with some inline HTML: Markdown (a README piped in)
        (b"# Title\n\n<details><summary>more</summary>hidden</details>", None, True),
        (b'# Title\n\n<p align="center"><img src="logo.png"></p>', None, True),
        # tags written about in code are not markup
        (b"Set the `<title>` and keep `<dt>` terms.\n\n```\n<div>x</div>\n```\n", None, True),
        # a whole page is HTML whatever lines it has
        (b"<!DOCTYPE html>\n<html><body>\n# not a heading\n</body></html>", None, False),
        (b"<html><body><ul>\n- x\n</ul></body></html>", None, False),
        (b"<!-- a comment -->text", None, False),
        # the name decides: a README with inline HTML is still Markdown
        (b'# Title\n\n<p align="center"><img src="logo.png"></p>', "README.md", True),
        (b"text", "notes.MARKDOWN", True),
        (b"", None, False),  # nothing: HTML conversion reports it
        (b"   \n", None, False),
        (b"\xff\xfe\x00t\x00e\x00x\x00t", None, False),  # not UTF-8
        (b"text\x00with a NUL", None, False),
    ],
)
def test_is_markdown(body: bytes, name: str | None, expected: bool) -> None:
    assert is_markdown(body, name) is expected


def test_a_cut_inside_a_character_at_the_sniff_limit_is_still_utf8() -> None:
    body = b"a" * ((1 << 20) - 1) + "é".encode()  # é's 2 bytes straddle the limit
    assert is_markdown(body)


def test_title_is_the_first_heading_setext_or_atx_else_the_front_matter() -> None:
    setext = convert_markdown("Intro text.\n\nThe `webmd` guide\n=================\n\nBody.", "")
    assert setext.document.title == "The webmd guide"
    front = convert_markdown("---\ntitle: 'From front matter'\n---\nNo heading here.", "")
    assert front.document.title == "From front matter"
    assert front.document.markdown == "No heading here."
    plain = convert_document(b"No heading at all.", "", MARKDOWN).document
    assert plain.title is None and plain.extraction_method == "markdown"


def test_max_chars_cuts_at_a_top_level_block() -> None:
    blocks = [f"Paragraph {i} " + "word " * 20 for i in range(6)]
    whole = "\n\n".join(b.strip() for b in blocks)
    doc = convert_markdown(whole, "", ExtractOptions(max_chars=300)).document
    assert doc.truncated and len(doc.markdown) <= 300
    assert whole.startswith(doc.markdown) and doc.markdown.endswith("word")
    assert doc.word_count < doc.total_words == len(whole.split())
    assert doc.content_hash == convert_markdown(whole, "").document.content_hash


def test_links_resolve_against_a_base_in_the_columns_only() -> None:
    doc = convert_markdown("# T\n\nSee [a](a.md) and ![pic](img/p.png).", "https://x.example/d/")
    assert doc.document.markdown == "# T\n\nSee [a](a.md) and ![pic](img/p.png)."  # as written
    assert [link.url for link in doc.document.links] == ["https://x.example/d/a.md"]
    assert [image.src for image in doc.document.images] == ["https://x.example/d/img/p.png"]


def test_api_convert_gives_a_markdown_page_row_or_an_empty_diagnostic() -> None:
    row = convert("# Handbook\n\n" + "The levee holds. " * 300, markdown=True, chunk_tokens=150)
    assert row.row_type == "page" and row.extraction_method == "markdown"
    assert row.title == "Handbook" and row.url is None
    assert row.chunks and row.chunk_count == len(row.chunks)
    empty = convert(b"\n\n", markdown=True)
    assert empty.row_type == "diagnostic" and empty.error_type == "empty"
    assert empty.error == "the Markdown holds no text"
    latin = convert("# Café\n\ncrème".encode("latin-1"), markdown=True, encoding="latin-1")
    assert latin.title == "Café" and "crème" in (latin.text or "")
