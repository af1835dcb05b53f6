"""The change feed's pure parts: the diff of one page, the URL a chunk cites, the plain
text of a chunk, and the heading anchors the extractor reads."""

from __future__ import annotations

from typing import Any

from webmd_spider.extract import extract
from webmd_spider.index.feed import (
    ChunkLedger,
    chunk_anchors,
    cite_url,
    page_changes,
    plain_text,
)


def chunk(cid: str, text: str, *path: str) -> dict[str, Any]:
    return {
        "chunk_id": cid,
        "text": text,
        "heading_path": list(path),
        "heading_path_text": " > ".join(path),
        "char_start": 0,
        "char_end": len(text),
    }


def test_a_page_diff_deletes_first_then_upserts_what_is_new_or_edited() -> None:
    kept, edited = chunk("a", "## A\n\nsame", "T", "A"), chunk("b", "## B\n\nnew words", "T", "B")
    (held,) = page_changes({}, [kept], url="u", title="T", crawled_at="then")
    previous = {"a": held["content_hash"], "b": "sha256:old", "gone": "x"}
    changes = page_changes(
        previous, [kept, edited, chunk("c", "fresh", "T")], url="u", title="T", crawled_at="now"
    )
    assert [(c["op"], c["chunk_id"]) for c in changes] == [
        ("delete", "gone"),
        ("upsert", "b"),
        ("upsert", "c"),
    ]
    assert (
        page_changes({"a": held["content_hash"]}, [kept], url="u", title="T", crawled_at="x") == []
    )
    # a chunk that only moved (an edit above it) is upserted again: its offsets changed
    moved = dict(kept, char_start=5, char_end=5 + len(kept["text"]))
    again = page_changes({"a": held["content_hash"]}, [moved], url="u", title="T", crawled_at="x")
    assert [(c["op"], c["chunk_id"]) for c in again] == [("upsert", "a")]


def test_the_cited_url_prefers_the_page_s_anchor_then_a_text_fragment() -> None:
    assert cite_url("https://d.org/p#old", "Set up, then run", "setup") == "https://d.org/p#setup"
    assert cite_url("https://d.org/p", "Set up, then run") == (
        "https://d.org/p#:~:text=Set%20up%2C%20then%20run"
    )
    assert cite_url("https://d.org/p", None) == "https://d.org/p"


def test_repeated_heading_names_get_their_own_anchors_in_page_order() -> None:
    headings = [
        {"level": 1, "text": "API", "anchor": None},
        {"level": 2, "text": "open()", "anchor": "open"},
        {"level": 3, "text": "Parameters", "anchor": "open-params"},
        {"level": 2, "text": "close()", "anchor": "close"},
        {"level": 3, "text": "Parameters", "anchor": "close-params"},
    ]
    chunks = [
        chunk("1", "intro", "API"),
        chunk("2", "x", "API", "open()", "Parameters"),
        chunk("3", "y", "API", "open()", "Parameters"),
        chunk("4", "z", "API", "close()", "Parameters"),
        chunk("5", "w", "API", "Missing"),
    ]
    assert chunk_anchors(chunks, headings) == [
        None,
        "open-params",
        "open-params",
        "close-params",
        None,
    ]


def test_plain_text_keeps_words_and_code_and_drops_markup() -> None:
    markdown = (
        "## Install **now**\n\n- see [the guide](https://x.org/g.png)\n\n"
        "```python\nprint('hi')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    )
    text = plain_text(markdown)
    assert text.splitlines()[0] == "Install now"
    assert "see the guide" in text and "https" not in text and "print('hi')" in text
    code = plain_text("Call `PyObject_Call` or `__init__` on snake_case_name, *not* __this__.")
    assert code == "Call PyObject_Call or __init__ on snake_case_name, not this."
    assert "#" not in text and "**" not in text and "```" not in text


def test_heading_anchors_from_sphinx_and_docbook_markup() -> None:
    html = (
        "<html><head><title>Guide</title></head><body><main><h1>Guide</h1>"
        '<section id="how-it-works"><span id="label"></span><h2>How it works</h2>'
        f"<p>{'Words of the section. ' * 20}</p></section>"
        '<div class="sect1" id="SETUP"><div class="titlepage"><div><div><h2>Setup</h2>'
        f"</div></div></div><p>{'Setup words here. ' * 20}</p></div>"
        f'<h2 id="own">Own id</h2><p>{"More. " * 30}</p>'
        f'<h2><a name="named"></a>Named</h2><p>{"Named text. " * 20}</p>'
        f"<div><p>{'Lead in. ' * 10}</p><h2>Nothing</h2><p>{'Plain. ' * 20}</p></div>"
        "</main></body></html>"
    )
    doc = extract(html, "https://d.org/guide")
    anchors = {h.text: h.anchor for h in doc.headings}
    assert anchors == {
        "Guide": None,
        "How it works": "how-it-works",
        "Setup": "SETUP",
        "Own id": "own",
        "Named": "named",
        "Nothing": None,
    }


def test_the_ledger_applies_a_page_in_one_transaction(tmp_path: Any) -> None:
    ledger = ChunkLedger(tmp_path / "feed.sqlite")
    ledger.apply([{"op": "upsert", "chunk_id": "a", "url": "u", "content_hash": "h1"}], {"u": "p1"})
    ledger.apply(
        [
            {"op": "delete", "chunk_id": "a", "url": "u"},
            {"op": "upsert", "chunk_id": "b", "url": "u", "content_hash": "h2"},
        ],
        {"u": "p2", "old": None},
    )
    assert ledger.manifest("u") == {"b": "h2"} and ledger.page_hashes() == {"u": "p2"}
    ledger.close()
    reopened = ChunkLedger(tmp_path / "feed.sqlite")
    assert reopened.manifest("u") == {"b": "h2"}
    reopened.close()
