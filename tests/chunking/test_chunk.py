"""Tests for webmd_spider.chunking.markdown_chunks: options, the block scan, each chunking rule on
hand-written Markdown, and hypothesis properties over generated documents."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webmd_spider.chunking.markdown_chunks import (
    BlockSpan,
    Chunk,
    ChunkOptionsError,
    chunk_budget,
    chunk_markdown,
    scan_blocks,
)

URL = "https://example.com/page"

# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #

_FENCE_LINE = re.compile(r"^[ \t>]*(`{3,}|~{3,})(.*)$")


def fences_balanced(text: str) -> bool:
    """Every fence opened in `text` is closed in it (same char, at least as long)."""
    fence = ""
    for line in text.split("\n"):
        match = _FENCE_LINE.match(line)
        if not match:
            continue
        mark, rest = match.group(1), match.group(2)
        if not fence:
            if mark[0] == "`" and "`" in rest:
                continue
            fence = mark
        elif mark[0] == fence[0] and len(mark) >= len(fence) and not rest.strip():
            fence = ""
    return not fence


def kinds(markdown: str) -> list[tuple[str, str]]:
    return [(b.kind, markdown[b.start : b.end]) for b in scan_blocks(markdown)]


def expected_id(chunk: Chunk, occurrence: int = 1, url: str = URL) -> str:
    key = f"{url}\0{chunk.heading_path_text}\0{chunk.text}"
    if occurrence > 1:
        key += f"\0{occurrence}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def headings_only(text: str) -> bool:
    """`text` holds headings and whitespace only."""
    return all(block.kind == "heading" for block in scan_blocks(text))


def closing_headings(markdown: str) -> int:
    """Where the headings that close the page begin (they join the last chunk), or
    the page's length when it does not end with headings."""
    blocks = scan_blocks(markdown)
    at = len(markdown)
    for block in reversed(blocks):
        if block.kind != "heading":
            break
        at = block.start
    return at


def check_invariants(
    markdown: str, chunks: list[Chunk], size: int, overlap: int, balanced: bool = True
) -> None:
    """Offsets exact, order, coverage, overlap bounds, fences, size bound, fields,
    ids unique, no whitespace-only chunk, no headings-only chunk but a run of empty
    sections the next heading would take past the size. `balanced`: the page closes all
    its fences."""
    assert chunks or headings_only(markdown), "non-blank markdown gives chunks"
    if not chunks:
        return
    seen: dict[tuple[str, str], int] = {}
    assert chunks[0].char_start == 0
    assert not markdown[chunks[-1].char_end :].strip()  # at most the page's last blanks
    for i, chunk in enumerate(chunks):
        assert chunk.index == i
        piece = markdown[chunk.char_start : chunk.char_end]
        if chunk.split is None:
            assert chunk.text == piece
        else:  # the header rows or fence lines around the slice
            assert chunk.split in ("table-rows", "code-lines")
            assert piece in chunk.text and chunk.char_count <= 2 * size
        assert chunk.char_count == len(chunk.text) > 0
        assert chunk.token_estimate == -(-chunk.char_count // 4)
        assert chunk.url == URL
        assert chunk.heading_path_text == " > ".join(chunk.heading_path)
        key = (chunk.heading_path_text, chunk.text)
        seen[key] = seen.get(key, 0) + 1
        assert chunk.chunk_id == expected_id(chunk, seen[key])
        assert chunk.text.strip(), f"whitespace-only chunk {chunk.index}: {chunk.text!r}"
        if headings_only(chunk.text):
            # only a run of empty sections that the next heading would take past the size
            after = chunks[i + 1] if i + 1 < len(chunks) else None
            assert after is not None and after.char_start == chunk.char_end, chunk.text
            nxt = scan_blocks(markdown[after.char_start : after.char_end])[0]
            assert chunk.char_count + nxt.end > size, chunk.text
        if balanced:
            assert fences_balanced(chunk.text), chunk.text
        measured = chunk.char_count
        closing = closing_headings(markdown)
        if chunk is chunks[-1] and chunk.char_start < closing < chunk.char_end:
            # headings that close the page join the last chunk: its text is measured
            measured = len(markdown[chunk.char_start : closing].rstrip())
        if chunk.split is not None:
            continue  # bounded above
        body = [b for b in scan_blocks(chunk.text) if b.kind != "heading"]
        if body and chunk.char_count > size + overlap:
            # headings with nothing beside them in the size ride over it with their block
            measured -= body[0].start
        if measured > size + overlap:
            # the one exception: a code block or table between size + overlap and twice
            # the size (longer ones are split), or a fence nested in a list item or
            # quote, alone (after the headings it opens with)
            body = [b for b in scan_blocks(chunk.text) if b.kind != "heading"]
            assert len(body) == 1, chunk.text[:200]
            first_line = chunk.text[body[0].start :].split("\n", 1)[0]
            # a fence of a list item or quote: indented, or under its item's marker
            nested = _FENCE_LINE.match(first_line) and (
                body[0].kind not in ("code", "table") or first_line[:1] in " \t>"
            )
            assert body[0].kind in ("code", "table") or nested, chunk.text[:200]
            if not nested:
                assert len(chunk.text[body[0].start :].strip()) <= size + overlap
    assert len({c.chunk_id for c in chunks}) == len(chunks), "ids unique within a page"
    for prev, chunk in itertools.pairwise(chunks):
        assert chunk.char_end > prev.char_end
        assert prev.char_start <= chunk.char_start
        gap = markdown[prev.char_end : chunk.char_start]
        assert not gap.strip(), "only whitespace between two chunks"
        back = prev.char_end - chunk.char_start
        assert back <= overlap
        if back > 0:  # overlap starts at a word start
            assert chunk.char_start > 0 and markdown[chunk.char_start - 1].isspace()
            assert not markdown[chunk.char_start].isspace()
    if overlap == 0:  # the slices, and the whitespace between them, give back the page
        rebuilt = []
        reach = 0
        for chunk in chunks:
            rebuilt.append(markdown[reach : chunk.char_end])
            reach = chunk.char_end
        rebuilt.append(markdown[reach:])
        assert "".join(rebuilt) == markdown


# --------------------------------------------------------------------------- #
# chunk_budget
# --------------------------------------------------------------------------- #


def test_budget_off_by_default() -> None:
    assert chunk_budget() == (0, 0)
    assert chunk_budget(0, 0, 0, 0) == (0, 0)


def test_budget_chars_and_tokens() -> None:
    assert chunk_budget(chunk_size=500) == (500, 0)
    assert chunk_budget(chunk_size=10_000, chunk_overlap=5_000) == (10_000, 5_000)
    assert chunk_budget(chunk_tokens=125) == (500, 0)
    assert chunk_budget(chunk_tokens=2_500) == (10_000, 0)
    assert chunk_budget(chunk_tokens=300, chunk_overlap_tokens=50) == (1_200, 200)
    assert chunk_budget(chunk_size=1_000, chunk_overlap_tokens=125) == (1_000, 500)
    assert chunk_budget(chunk_tokens=200, chunk_overlap=100) == (800, 100)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"chunk_size": 499}, r"chunk_size must be 500\.\.10000 characters.*got 499"),
        ({"chunk_size": 10_001}, r"chunk_size must be 500\.\.10000 characters"),
        ({"chunk_size": -1}, r"500\.\.10000"),
        ({"chunk_tokens": 124}, r"chunk_tokens must be 125\.\.2500 tokens.*got 124"),
        ({"chunk_tokens": 2_501}, r"125\.\.2500"),
        ({"chunk_size": 800, "chunk_tokens": 200}, r"500\.\.10000 characters.*not both"),
        ({"chunk_size": 800, "chunk_overlap": 401}, r"chunk_overlap must be 0\.\.400 characters"),
        ({"chunk_size": 800, "chunk_overlap": -5}, r"0\.\.400"),
        ({"chunk_tokens": 200, "chunk_overlap_tokens": 101}, r"must be 0\.\.100 tokens"),
        ({"chunk_size": 800, "chunk_overlap": 10, "chunk_overlap_tokens": 5}, r"not both"),
        ({"chunk_overlap": 100}, r"need chunk_size \(500\.\.10000 characters\)"),
        ({"chunk_overlap_tokens": 10}, r"chunk_tokens \(125\.\.2500 tokens\)"),
        ({"chunk_size": "800"}, r"whole number"),
        ({"chunk_size": True}, r"whole number"),
    ],
)
def test_budget_errors_name_the_range(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ChunkOptionsError, match=message):
        chunk_budget(**kwargs)  # type: ignore[arg-type]


def test_budget_error_is_a_value_error() -> None:
    assert issubclass(ChunkOptionsError, ValueError)


# --------------------------------------------------------------------------- #
# scan_blocks
# --------------------------------------------------------------------------- #


def test_scan_basic_blocks() -> None:
    md = (
        "# Title\n\nFirst paragraph\nstill first.\n\n## Sub ##\n\n"
        "| a | b |\n| --- | --- |\n| 1 | 2 |\n\n> quoted\n>\n> more\n\n---\n\nlast"
    )
    assert kinds(md) == [
        ("heading", "# Title"),
        ("paragraph", "First paragraph\nstill first."),
        ("heading", "## Sub ##"),
        ("table", "| a | b |\n| --- | --- |\n| 1 | 2 |"),
        ("quote", "> quoted\n>\n> more"),
        ("other", "---"),
        ("paragraph", "last"),
    ]
    headings = [b for b in scan_blocks(md) if b.kind == "heading"]
    assert [(h.level, h.text) for h in headings] == [(1, "Title"), (2, "Sub")]


def test_scan_hash_lines_inside_fences_are_code() -> None:
    md = (
        "# Real\n\n```bash\n# not a heading\n\n## nor this\n```\n\n"
        "~~~~\n# still code\n~~~\n```\n# code\n~~~~\n\n## Also real"
    )
    blocks = scan_blocks(md)
    assert [b.kind for b in blocks] == ["heading", "code", "code", "heading"]
    assert md[blocks[1].start : blocks[1].end] == "```bash\n# not a heading\n\n## nor this\n```"
    # a ~~~~ fence is not closed by ~~~ nor by ```: runs to the ~~~~ line
    assert md[blocks[2].start : blocks[2].end].endswith("# code\n~~~~")
    assert [b.text for b in blocks if b.kind == "heading"] == ["Real", "Also real"]


def test_scan_longer_fence_holds_shorter_one() -> None:
    md = "`````md\n```python\n# comment\n```\n`````\n\ntext"
    code = "`````md\n```python\n# comment\n```\n`````"
    assert kinds(md) == [("code", code), ("paragraph", "text")]


def test_scan_unclosed_fence_runs_to_the_end() -> None:
    md = "intro\n\n```\n# code\n\nmore code\n\n\n"
    assert kinds(md) == [("paragraph", "intro"), ("code", "```\n# code\n\nmore code")]


def test_scan_inline_triple_backticks_are_not_a_fence() -> None:
    md = "```inline``` code at a line start\n\n# Heading"
    assert [k for k, _ in kinds(md)] == ["paragraph", "heading"]


def test_scan_list_items_with_nested_fence() -> None:
    md = (
        "- first item\n  continued\n- second\n  ```python\n  # comment, not a heading\n\n"
        "  x = 1\n  ```\n  after code\n1. numbered\n\n   loose paragraph\n\nafter the list"
    )
    assert kinds(md) == [
        ("list_item", "- first item\n  continued"),
        (
            "list_item",
            "- second\n  ```python\n  # comment, not a heading\n\n  x = 1\n  ```\n  after code",
        ),
        ("list_item", "1. numbered\n\n   loose paragraph"),
        ("paragraph", "after the list"),
    ]


def test_scan_unclosed_fence_in_item_ends_with_the_item() -> None:
    # as in CommonMark: an unindented line ends the item, and the item ends its fence
    md = "- item\n  ```\n  # code\n# Heading"
    assert kinds(md) == [("list_item", "- item\n  ```\n  # code"), ("heading", "# Heading")]


def test_scan_heading_forms() -> None:
    md = "#hashtag is text\n\n####### seven\n\n#\n\n###### Six \\# escaped #"
    blocks = scan_blocks(md)
    assert [b.kind for b in blocks] == ["paragraph", "paragraph", "heading", "heading"]
    assert (blocks[2].level, blocks[2].text) == (1, "")
    assert (blocks[3].level, blocks[3].text) == (6, "Six # escaped")


def test_scan_heading_interrupts_paragraph() -> None:
    md = "text line\n# Heading\nmore text"
    assert [k for k, _ in kinds(md)] == ["paragraph", "heading", "paragraph"]


def test_scan_spans_have_no_blank_lines_around() -> None:
    md = "\n\n  para one  \n\n\n- item\n\n\n```\ncode\n```\n\n\n"
    for block in scan_blocks(md):
        text = md[block.start : block.end]
        assert text.strip("\n") == text and text.strip()


def test_scan_empty() -> None:
    assert scan_blocks("") == []
    assert scan_blocks(" \n\n\t\n") == []


# --------------------------------------------------------------------------- #
# chunk_markdown: rules on hand-written Markdown
# --------------------------------------------------------------------------- #


def words(n: int, word: str = "word") -> str:
    return " ".join(f"{word}{i}" for i in range(n))


def sentences(n: int, length: int = 60) -> str:
    """n sentences of about `length` characters each."""
    out = []
    for i in range(n):
        body = f"Sentence {i} says"
        while len(body) < length - 1:
            body += " more"
        out.append(body + ".")
    return " ".join(out)


def test_empty_and_off() -> None:
    assert chunk_markdown("", URL, 500) == []
    assert chunk_markdown(" \n\n\t ", URL, 500) == []
    assert chunk_markdown("# Title\n\ntext", URL, 0) == []


def test_small_page_is_one_chunk() -> None:
    md = "Intro text.\n\nMore text.\n"
    chunks = chunk_markdown(md, URL, 500)
    assert len(chunks) == 1
    assert chunks[0].text == md and chunks[0].heading_path == []
    assert chunks[0].heading_path_text == ""


def test_heading_paths_and_every_heading_starts_a_chunk() -> None:
    md = (
        "Preamble.\n\n# A\n\nunder a\n\n## B\n\nunder b\n\n### C\n\nunder c\n\n"
        "## D\n\nunder d\n\n#### E\n\nunder e\n\n# F\n\nunder f\n"
    )
    chunks = chunk_markdown(md, URL, 500)
    assert [c.heading_path for c in chunks] == [
        [],
        ["A"],
        ["A", "B"],
        ["A", "B", "C"],
        ["A", "D"],
        ["A", "D", "E"],
        ["F"],
    ]
    assert chunks[3].heading_path_text == "A > B > C"
    assert [c.text.split("\n", 1)[0] for c in chunks[1:]] == [
        "# A",
        "## B",
        "### C",
        "## D",
        "#### E",
        "# F",
    ]
    check_invariants(md, chunks, 500, 0)


def test_hash_lines_in_code_do_not_start_chunks() -> None:
    md = "# Setup\n\n```bash\n# install\npip install x\n## configure\n```\n\nDone.\n"
    chunks = chunk_markdown(md, URL, 500)
    assert len(chunks) == 1
    assert chunks[0].heading_path == ["Setup"]


def test_sections_split_at_block_boundaries() -> None:
    paras = [sentences(4, 70) for _ in range(6)]  # ~280 chars each
    md = "# T\n\n" + "\n\n".join(paras) + "\n"
    chunks = chunk_markdown(md, URL, 500)
    check_invariants(md, chunks, 500, 0)
    for chunk in chunks[1:]:
        assert chunk.text.startswith("Sentence 0 says")  # a paragraph start
        assert chunk.text.rstrip().endswith(".")


def test_long_paragraph_splits_at_sentence_ends() -> None:
    md = sentences(40, 60) + "\n"
    chunks = chunk_markdown(md, URL, 500)
    assert len(chunks) >= 5
    check_invariants(md, chunks, 500, 0)
    for chunk in chunks:
        assert chunk.text.rstrip().endswith(".")
        assert chunk.text.startswith("Sentence ")


def test_giant_sentence_splits_at_words() -> None:
    md = words(400) + "."
    chunks = chunk_markdown(md, URL, 500)
    check_invariants(md, chunks, 500, 0)
    assert len(chunks) >= 5
    for chunk in chunks:
        assert re.fullmatch(r"(word\d+ )*word\d+\.?\s*", chunk.text), chunk.text


def test_giant_word_is_cut_at_the_budget() -> None:
    md = "x" * 2_345
    chunks = chunk_markdown(md, URL, 500)
    assert [c.char_count for c in chunks] == [500, 500, 500, 500, 345]
    check_invariants(md, chunks, 500, 0)
    # with overlap: no word boundary to start an overlap at, so none; still terminates
    chunks = chunk_markdown(md, URL, 500, 100)
    check_invariants(md, chunks, 500, 100)


def test_oversized_code_block_is_a_chunk_of_its_own() -> None:
    code = "```python\n" + "\n".join(f"# line {i}\nx = {i}" for i in range(80)) + "\n```"
    assert len(code) > 1_000
    md = f"# Code\n\nBefore the code.\n\n{code}\n\nAfter the code.\n"
    for overlap in (0, 100):
        chunks = chunk_markdown(md, URL, 500, overlap)
        check_invariants(md, chunks, 500, overlap)
        # cut at its lines into fenced pieces of at most the size (issue 15)
        pieces = [c for c in chunks if c.split == "code-lines"]
        assert len(pieces) >= 3 and all(c.char_count <= 500 for c in pieces)
        assert all(c.text.startswith("```python\n") for c in pieces)
        assert all(c.text.rstrip().endswith("```") for c in pieces)
        lines = [ln for c in pieces for ln in c.text.split("\n") if ln and ln[0] != "`"]
        assert lines == [ln for ln in code.split("\n") if ln[0] != "`"]
        assert all(c.heading_path == ["Code"] for c in chunks)


def test_code_block_that_fits_is_never_split() -> None:
    code = "```\n" + "\n".join(f"line {i}" for i in range(40)) + "\n```"  # ~300
    md = sentences(6, 60) + "\n\n" + code + "\n\n" + sentences(2, 60)
    chunks = chunk_markdown(md, URL, 500)
    check_invariants(md, chunks, 500, 0)
    assert sum(code in c.text for c in chunks) == 1


def test_table_kept_whole() -> None:
    table = "| name | value |\n| --- | --- |\n" + "\n".join(
        f"| row {i} | {i * 7} |" for i in range(18)
    )
    assert 300 < len(table) < 500
    md = f"# Data\n\n{sentences(4, 60)}\n\n{table}\n\n{sentences(2, 60)}\n"
    chunks = chunk_markdown(md, URL, 500)
    check_invariants(md, chunks, 500, 0)
    assert sum(table in c.text for c in chunks) == 1


def test_oversized_table_is_a_chunk_of_its_own() -> None:
    table = "| a | b |\n| --- | --- |\n" + "\n".join(f"| {i} | {i * i} |" for i in range(100))
    md = f"Intro.\n\n{table}\n\nOutro."
    chunks = chunk_markdown(md, URL, 500, 100)
    check_invariants(md, chunks, 500, 100)
    # cut by rows, the header rows repeated in every piece (issue 15)
    pieces = [c for c in chunks if c.split == "table-rows"]
    assert len(pieces) >= 3 and all(c.char_count <= 500 for c in pieces)
    assert all(c.text.startswith("| a | b |\n| --- | --- |\n") for c in pieces)
    rows = [r for c in pieces for r in c.text.strip().split("\n")[2:]]
    assert rows == table.split("\n")[2:]


def test_list_item_fence_never_split() -> None:
    code = "  ```\n" + "\n".join(f"  # step {i}" for i in range(30)) + "\n  ```"
    item = f"- {sentences(5, 60)}\n{code}\n  {sentences(5, 60)}"
    md = f"# Steps\n\n{item}\n"
    for overlap in (0, 100):
        chunks = chunk_markdown(md, URL, 500, overlap)
        check_invariants(md, chunks, 500, overlap)
        assert sum(code in c.text for c in chunks) == 1


def test_overlap_repeats_the_tail_from_a_word_boundary() -> None:
    md = "# Title\n\n" + sentences(30, 60) + "\n"
    chunks = chunk_markdown(md, URL, 500, 100)
    check_invariants(md, chunks, 500, 100)
    assert chunks[0].char_start == 0  # the first chunk after a heading has no overlap
    for prev, chunk in itertools.pairwise(chunks):
        assert 0 < prev.char_end - chunk.char_start <= 100
        assert prev.text.endswith(md[chunk.char_start : prev.char_end])


def test_overlap_never_crosses_a_heading() -> None:
    md = "# One\n\n" + sentences(12, 60) + "\n\n## Two\n\n" + sentences(12, 60) + "\n"
    chunks = chunk_markdown(md, URL, 500, 200)
    check_invariants(md, chunks, 500, 200)
    two = md.index("## Two")
    firsts = [c for c in chunks if c.text.startswith("## Two")]
    assert len(firsts) == 1 and firsts[0].char_start == two
    for chunk in chunks:
        assert not chunk.char_start < two < chunk.char_end
        # nor reaches back onto its own heading line
        assert not chunk.text.startswith("# One") or chunk.index == 0


def test_overlap_never_starts_inside_a_fence() -> None:
    code = "```\n" + "\n".join(f"# code line {i}" for i in range(20)) + "\n```"  # ~300
    md = f"# T\n\n{sentences(2, 60)}\n\n{code}\n\n{sentences(10, 60)}\n"
    chunks = chunk_markdown(md, URL, 500, 200)
    check_invariants(md, chunks, 500, 200)
    after = [c for c in chunks if c.char_start > md.index(code)]
    assert after
    for chunk in after:
        assert chunk.char_start >= md.index(code) + len(code)


def test_overlap_inside_a_list_fence_shrinks_to_after_it() -> None:
    code = "  ```\n" + "\n".join(f"  # step {i}" for i in range(20)) + "\n  ```"
    md = f"# S\n\n- {sentences(2, 60)}\n{code}\n  {sentences(12, 60)}\n"
    chunks = chunk_markdown(md, URL, 500, 200)
    check_invariants(md, chunks, 500, 200)
    start, end = md.index(code), md.index(code) + len(code)
    for chunk in chunks:
        assert not start < chunk.char_start < end


def test_crumb_joins_the_piece_before() -> None:
    first = "a" * 485 + "."
    md = f"# T\n\n{first}\n\nShort end.\n"  # last piece ~11 chars < 10% of 500
    assert len(chunk_markdown(md, URL, 500, 0)) == 2  # would not fit size + 0
    chunks = chunk_markdown(md, URL, 500, 100)
    assert len(chunks) == 1
    check_invariants(md, chunks, 500, 100)
    # a last piece of 10% or more stays a chunk of its own
    md = f"# T\n\n{first}\n\n{sentences(1, 60)}\n"
    chunks = chunk_markdown(md, URL, 500, 100)
    assert len(chunks) == 2
    check_invariants(md, chunks, 500, 100)


def test_crumb_never_joins_across_a_heading() -> None:
    # "Tiny." would fit both the piece before it and the section after it; it joins
    # the piece before, in its own section, and "## U" (a crumb too) stays separate
    head = f"# T\n\n{'a' * 440}.\n\n"
    md = f"{head}Tiny.\n\n## U\n\nShort.\n"
    chunks = chunk_markdown(md, URL, 500, 100)
    assert [c.text for c in chunks] == [f"{head}Tiny.\n\n", "## U\n\nShort.\n"]
    assert [c.heading_path for c in chunks] == [["T"], ["T", "U"]]
    # a crumb that opens a section (its heading alone before an oversized block) can
    # join neither the section before it nor the oversized block
    code = "```\n" + "\n".join(f"line {i} of code" for i in range(33)) + "\n```"
    assert 500 < len(code) < 600  # oversized, but within size + overlap: kept whole
    md = f"# T\n\nshort.\n\n## U\n\n{code}\n"
    chunks = chunk_markdown(md, URL, 500, 100)
    # its heading rides with the oversized block: a chunk is never only headings
    assert [c.text for c in chunks] == ["# T\n\nshort.\n\n", f"## U\n\n{code}\n"]
    check_invariants(md, chunks, 500, 100)


def test_crumb_before_an_oversized_block_joins_the_piece_before() -> None:
    code = "  ```\n" + "\n".join(f"  line {i} of code" for i in range(60)) + "\n  ```"
    intro = sentences(7, 60)  # ~420 chars
    md = f"# T\n\n{intro}\n\n- item\n{code}\n\nAfter.\n"
    for overlap in (0, 100):
        chunks = chunk_markdown(md, URL, 500, overlap)
        check_invariants(md, chunks, 500, overlap)
        assert chunks[0].text == f"# T\n\n{intro}\n\n- item\n"
        assert chunks[1].text.startswith("  ```")
    # with no piece before it, the crumb joins the piece after it when that fits
    md = f"- item\n\n{intro}\n"
    assert len(chunk_markdown(md, URL, 500)) == 1


def test_ids_stable_and_url_dependent() -> None:
    md = "# A\n\n" + sentences(20, 60) + "\n\n## B\n\ntext\n"
    one = chunk_markdown(md, URL, 500, 100)
    two = chunk_markdown(md, URL, 500, 100)
    assert one == two
    assert [c.chunk_id for c in one] == [c.chunk_id for c in two]
    assert all(re.fullmatch(r"[0-9a-f]{16}", c.chunk_id) for c in one)
    other = chunk_markdown(md, "https://example.com/other", 500, 100)
    assert {c.chunk_id for c in one}.isdisjoint(c.chunk_id for c in other)
    key = f"{URL}\0{one[0].heading_path_text}\0{one[0].text}"
    assert one[0].heading_path_text == "A"
    assert one[0].chunk_id == hashlib.sha256(key.encode()).hexdigest()[:16]


def test_ids_unique_for_repeated_sections() -> None:
    md = (
        "# Product A\n\n## Details\n\nNo details yet.\n\n# Product B\n\n## Details\n\n"
        "No details yet.\n\n# Product C\n\ntext\n"
    )
    chunks = chunk_markdown(md, URL, 500)
    # a heading with no block of its own rides into the next one's chunk
    assert [c.heading_path for c in chunks] == [
        ["Product A", "Details"],
        ["Product B", "Details"],
        ["Product C"],
    ]
    assert chunks[0].text.endswith(chunks[1].text.split("\n\n", 1)[1])
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    # the heading path is part of the key, so no occurrence number is needed here
    assert chunks[1].chunk_id == expected_id(chunks[1])
    check_invariants(md, chunks, 500, 0)


def test_ids_unique_for_repeated_text_under_one_heading() -> None:
    chunks = chunk_markdown("x" * 2_345, URL, 500)
    assert [c.text for c in chunks[:4]] == ["x" * 500] * 4
    assert len({c.chunk_id for c in chunks}) == 5
    assert [c.chunk_id for c in chunks[:4]] == [expected_id(chunks[0], n) for n in (1, 2, 3, 4)]
    assert chunks == chunk_markdown("x" * 2_345, URL, 500)  # stable


def test_unclosed_fence_in_a_list_item_ends_with_the_item() -> None:
    md = (
        "- item\n  ```\n  unclosed code\n\n# Heading\n\nSome text under the heading.\n\n"
        "```\ncode\n```\n\n## Later\n\nmore\n"
    )
    assert [b.kind for b in scan_blocks(md)] == [
        "list_item",
        "heading",
        "paragraph",
        "code",
        "heading",
        "paragraph",
    ]
    chunks = chunk_markdown(md, URL, 500)
    assert [c.heading_path for c in chunks] == [[], ["Heading"], ["Heading", "Later"]]
    check_invariants(md, chunks, 500, 0, balanced=False)


def test_unclosed_tilde_fence_in_an_item_does_not_close_at_a_top_level_fence() -> None:
    md = "- item\n  ~~~~\n  code\n\n# Middle\n\n" + sentences(3) + "\n\n~~~~\nx\n~~~~\n\n# End\n"
    blocks = scan_blocks(md)
    assert [b.text for b in blocks if b.kind == "heading"] == ["Middle", "End"]
    assert md[blocks[0].start : blocks[0].end] == "- item\n  ~~~~\n  code"


def test_crlf_line_endings() -> None:
    md = (
        "# Title\r\n\r\nText para.\r\n\r\n```\r\n# not a heading\r\n```\r\n\r\n"
        "## Sub ##\r\n\r\n- item\r\n  ```\r\n  # code\r\n  ```\r\n\r\n#\r\n\r\nEnd.\r\n"
    )
    blocks = scan_blocks(md)
    assert [b.kind for b in blocks] == [
        "heading",
        "paragraph",
        "code",
        "heading",
        "list_item",
        "heading",
        "paragraph",
    ]
    assert [b.text for b in blocks if b.kind == "heading"] == ["Title", "Sub", ""]
    assert md[blocks[2].start : blocks[2].end] == "```\r\n# not a heading\r\n```"
    chunks = chunk_markdown(md, URL, 500)
    assert [c.heading_path for c in chunks] == [["Title"], ["Title", "Sub"], []]
    check_invariants(md, chunks, 500, 0)


def test_no_whitespace_only_chunks_and_no_pointless_tail() -> None:
    para = sentences(8, 62)[:499] + "."
    assert len(para) == 500
    md = f"# T\n\n{para}\n\n"
    chunks = chunk_markdown(md, URL, 500)
    # the heading takes the part of the paragraph that fits beside it: never alone
    assert chunks[0].text.startswith("# T\n\nSentence ") and len(chunks) == 2
    assert all(c.text.strip() and not headings_only(c.text) for c in chunks)
    check_invariants(md, chunks, 500, 0)
    md = para + "\n\n\n\n"
    # the size bound holds on the whole chunk: the page's blank lines past it are in none
    assert [c.text for c in chunk_markdown(md, URL, 500)] == [para]
    # blank lines after an oversized table or a nested fence join that chunk
    table = "\n".join(f"| {i} | {i * i} |" for i in range(80))
    code = "  ```\n" + "\n".join(f"  line {i} of code here" for i in range(40)) + "\n  ```"
    for md in (f"{table}\n\n\n# Next\n", f"- item\n{code}\n\n# Next\n", "\n\n\n" + "w" * 700):
        for overlap in (0, 100):
            chunks = chunk_markdown(md, URL, 500, overlap)
            check_invariants(md, chunks, 500, overlap)


def test_heading_path_is_plain_text() -> None:
    md = (
        "# Using `foo()` with *care* & [links](https://ex.com/x)\n\ntext\n\n"
        "## __Bold__ ~~old~~ ![logo](l.png) \\*star\\* snake_case `a*b*`\n\nmore\n\n"
        "### ###\n\nunder the empty heading\n"
    )
    chunks = chunk_markdown(md, URL, 500)
    first = "Using foo() with care & links"
    assert [c.heading_path for c in chunks] == [
        [first],
        [first, "Bold old logo *star* snake_case a*b*"],
        [first, "Bold old logo *star* snake_case a*b*"],
    ]
    check_invariants(md, chunks, 500, 0)


def test_cjk_sentence_ends() -> None:
    md = "这是一个没有空格的中文句子。" * 100
    chunks = chunk_markdown(md, URL, 500)
    check_invariants(md, chunks, 500, 0)
    assert all(c.text.endswith("。") for c in chunks)
    md = "数据\uff01" * 300 + "数据\uff1f" * 300
    assert all(c.text[-1] in "\uff01\uff1f" for c in chunk_markdown(md, URL, 500))


def test_word_cut_keeps_grapheme_clusters() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # ZWJ sequence, 5 code points
    for md in (family * 400, "e\u0301" * 700, "\u2764\ufe0f" * 700, "\U0001f44d\U0001f3fd" * 600):
        chunks = chunk_markdown(md, URL, 500)
        check_invariants(md, chunks, 500, 0)
        for prev, chunk in itertools.pairwise(chunks):
            assert prev.text[-1] != "\u200d"
            assert chunk.text[0] not in "\u200d\u0301\ufe0f\U0001f3fd"
    surrogates = "\ud83d\ude00" * 600  # a pair held as two code points
    chunks = chunk_markdown(surrogates, URL, 500)
    assert all(c.char_start % 2 == 0 for c in chunks)


def test_to_dict_is_json_ready_in_field_order() -> None:
    chunk = chunk_markdown("# H\n\nhello world\n", URL, 500)[0]
    data = chunk.to_dict()
    assert list(data) == [
        "index",
        "chunk_id",
        "url",
        "heading_path",
        "heading_path_text",
        "text",
        "char_start",
        "char_end",
        "char_count",
        "token_estimate",
        "split",
    ]
    assert json.loads(json.dumps(data)) == data
    assert data["split"] is None
    assert data["token_estimate"] == 5  # ceil(18 / 4)
    assert data["heading_path"] == ["H"] and data["heading_path"] is not chunk.heading_path


def test_renderer_spans_are_used() -> None:
    md = "Title line\n\nbody " + sentences(3, 60)
    spans = [
        BlockSpan("heading", 0, 10, 2, "Title line"),
        BlockSpan("paragraph", 12, len(md)),
    ]
    chunks = chunk_markdown(md, URL, 500, blocks=spans)
    assert [c.heading_path for c in chunks] == [["Title line"]]
    # unsorted and overlapping spans are tolerated
    chunks = chunk_markdown(md, URL, 500, blocks=[spans[1], spans[0], BlockSpan("other", 5, 20)])
    assert [c.heading_path for c in chunks] == [["Title line"]]
    check_invariants(md, chunks, 500, 0)


def test_scan_blocks_argument_equals_default() -> None:
    md = "# A\n\n```\n# x\n```\n\n- a\n- b\n\n| t |\n\n" + sentences(30, 60)
    for overlap in (0, 100):
        assert chunk_markdown(md, URL, 500, overlap, blocks=scan_blocks(md)) == chunk_markdown(
            md, URL, 500, overlap
        )


def test_whitespace_around_the_page_is_covered() -> None:
    md = "\n\n  # Title\n\ntext\n\n\n"
    chunks = chunk_markdown(md, URL, 500)
    assert "".join(c.text for c in chunks) == md
    assert chunks[0].heading_path == ["Title"]


# --------------------------------------------------------------------------- #
# hypothesis properties over generated documents
# --------------------------------------------------------------------------- #

VOCAB = [
    *("the", "a", "data", "page", "crawl", "spider", "markdown", "token", "chunk"),
    *("section", "heading", "table", "code", "list", "item", "quote", "retrieval"),
    *("embedding", "vector", "search", "index", "answer", "model", "fast", "slow"),
]


@dataclass
class Doc:
    markdown: str
    headings: list[tuple[int, int, str]]  # (offset, level, text); text "" when empty
    fences: list[tuple[int, int]]  # closed fences: opening line start, closing line end
    balanced: bool  # no unclosed fence


# Hypothesis draws the shape of a document (block kinds, sizes, a seed per block);
# the words come from random.Random(seed): drawing every word is too slow.


def gen_sentence(rng: random.Random) -> str:
    kind = rng.randrange(10)
    if kind == 0:  # a giant sentence: no sentence end for hundreds of words
        return " ".join(rng.choices(VOCAB, k=rng.randint(100, 900)))
    if kind == 1:  # a giant word
        return "w" * rng.choice([rng.randint(20, 600), rng.randint(600, 4_500)])
    if kind == 2:  # CJK without spaces, full-width sentence ends (or none at all)
        ends = rng.choice(["\u3002\uff01\uff1f\uff0e", ""])
        return "".join(
            "\u6570\u636e\u722c\u866b\u5206\u5757"[: rng.randint(1, 6)] * rng.randint(1, 40)
            + (rng.choice(ends) if ends else "")
            for _ in range(rng.randint(1, 30))
        )
    body = " ".join(rng.choices(VOCAB, k=rng.randint(1, 25)))
    return body.capitalize() + rng.choice(".!?..")


def gen_paragraph(rng: random.Random) -> str:
    return " ".join(gen_sentence(rng) for _ in range(rng.randint(1, 8)))


def gen_code(rng: random.Random, lines_max: int, indent: str = "", closed: bool = True) -> str:
    char = rng.choice("`~")
    length = rng.randint(3, 5)
    fence = char * length
    lines = []
    for i in range(rng.randint(0, lines_max)):
        pick = rng.randrange(8)
        if pick == 0:
            lines.append(f"# comment {i}")
        elif pick == 1:
            lines.append(f"## not a heading {i}")
        elif pick == 2:
            lines.append("")
        elif pick == 3:
            lines.append("| not | a table |")
        elif pick == 4 and length > 3:
            lines.append(char * 3)  # a shorter fence does not close
        elif pick == 5:
            lines.append(f"- not an item {i}")
        else:
            lines.append(f"value_{i} = compute({i}, 'x')  # note")
    body = [fence + rng.choice(["", "python", "bash"]), *lines] + ([fence] if closed else [])
    return "\n".join(indent + line if line else indent.rstrip() for line in body)


def gen_list(rng: random.Random) -> str:
    items = []
    ordered = rng.random() < 0.5
    for i in range(rng.randint(1, 6)):
        marker = f"{i + 1}. " if ordered else "- "
        item = marker + gen_paragraph(rng)
        pad = " " * len(marker)
        pick = rng.randrange(6)
        if pick <= 1:
            item += "\n" + gen_code(rng, 12, pad)
            if rng.random() < 0.5:
                item += "\n" + pad + gen_paragraph(rng)
        elif pick == 2:  # a heading inside the item: not a heading of the page
            item += f"\n{pad}{'#' * rng.randint(1, 3)} inside item\n{pad}" + gen_paragraph(rng)
        elif pick == 3:  # a quote holding a fence inside the item
            item += "\n" + gen_code(rng, 12, pad + "> ", closed=rng.random() < 0.7)
        items.append(item)
    return "\n".join(items)


def gen_table(rng: random.Random, rows: int) -> str:
    cols = rng.randint(1, 4)
    head = "| " + " | ".join(f"col {c}" for c in range(cols)) + " |"
    sep = "| " + " | ".join("---" for _ in range(cols)) + " |"
    body = [
        "| " + " | ".join(rng.choice(VOCAB) + f" r{r}c{c}" for c in range(cols)) + " |"
        for r in range(rows)
    ]
    return "\n".join([head, sep, *body])


def gen_quote(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 3)):
        pick = rng.randrange(4)
        if pick == 0:  # a fence inside the quote, closed or not
            parts.append(gen_code(rng, 12, "> ", closed=rng.random() < 0.7))
        elif pick == 1:  # a heading inside the quote: not a heading of the page
            parts.append(f"> ## quoted heading\n> {gen_paragraph(rng)}")
        else:
            parts.append("> " + gen_paragraph(rng))
    return "\n>\n".join(parts)


BLOCK = st.tuples(
    st.sampled_from(
        ["heading"] * 3 + ["paragraph"] * 3 + ["list", "code", "table", "quote", "unclosed"]
    ),
    st.integers(0, 250),  # heading level seed, code lines, table rows
    st.integers(0, 2**32 - 1),  # content seed
)


@st.composite
def documents(draw: st.DrawFn) -> Doc:
    parts: list[str] = []
    headings: list[tuple[int, int, str]] = []
    fences: list[tuple[int, int]] = []
    balanced = True
    offset = 0
    for kind, number, seed in draw(st.lists(BLOCK, min_size=1, max_size=25)):
        rng = random.Random(seed)
        if kind == "heading":
            level = number % 4 + 1
            if number % 17 == 0:  # an empty heading: ends deeper levels, adds no entry
                text, block = "", "#" * level + " " + "#" * (number % 3)
            else:
                text = " ".join(rng.choices(VOCAB, k=rng.randint(1, 5))) + f" {len(headings)}"
                block = "#" * level + " " + text
            headings.append((offset, level, text))
        elif kind == "paragraph":
            block = gen_paragraph(rng)
        elif kind == "list":
            block = gen_list(rng)
            balanced = False  # fences in quotes in items may be left open
        elif kind == "code":
            block = gen_code(rng, number)
            fences.append((offset, offset + len(block)))
        elif kind == "unclosed":  # an unclosed fence in a list item ends with the item
            block = "- item\n" + gen_code(rng, number % 20, "  ", closed=False)
            balanced = False
        elif kind == "table":
            block = gen_table(rng, max(1, number * 2 // 3))
        else:
            block = gen_quote(rng)
            balanced = False
        parts.append(block)
        offset += len(block) + 2
    markdown = "\n\n".join(parts) + draw(st.sampled_from(["", "\n", "\n\n"]))
    if draw(st.booleans()):  # CRLF line endings: offsets move by the "\r"s before them

        def moved(pos: int) -> int:
            return pos + markdown.count("\n", 0, pos)

        headings = [(moved(pos), level, text) for pos, level, text in headings]
        fences = [(moved(a), moved(b)) for a, b in fences]
        markdown = markdown.replace("\n", "\r\n")
    return Doc(markdown, headings, fences, balanced)


def reference_path(doc: Doc, pos: int) -> list[str]:
    path: list[tuple[int, str]] = []
    for offset, level, text in doc.headings:
        if offset > pos:
            break
        while path and path[-1][0] >= level:
            path.pop()
        if text:
            path.append((level, text))
    return [text for _, text in path]


def check_document(doc: Doc, size: int, overlap: int) -> None:
    md = doc.markdown
    chunks = chunk_markdown(md, URL, size, overlap)
    check_invariants(md, chunks, size, overlap, balanced=doc.balanced)
    for chunk in chunks:  # no chunk starts or ends inside a closed top-level fence
        if chunk.split == "code-lines":
            continue  # an oversized block cut at its lines, each piece fenced again
        for start, end in doc.fences:
            assert not start < chunk.char_start < end
            assert not start < chunk.char_end < end
    heading_offsets = [offset for offset, _, _ in doc.headings]
    for chunk in chunks:
        # heading path: the reference at the chunk's last character (before the
        # headings that close the page, which join the last chunk)
        last = chunk.char_end - 1
        if chunk is chunks[-1]:
            last = min(last, max(chunk.char_start, closing_headings(md) - 1))
        assert chunk.heading_path == reference_path(doc, last)
        # headings inside a chunk open it (headings with no block of their own ride into
        # the next block's chunk), or close the page (they join the chunk before)
        for offset in heading_offsets:
            if chunk.char_start < offset < chunk.char_end:
                assert headings_only(md[chunk.char_start : offset]) or headings_only(md[offset:]), (
                    chunk.text[:200],
                    offset,
                )
    # stable ids; the scan fallback equals passing its spans
    again = chunk_markdown(md, URL, size, overlap, blocks=scan_blocks(md))
    assert again == chunks


def _property_test(size: int, overlap: int) -> Callable[[], None]:
    """One hypothesis test per (size, overlap): pytest-twisted re-wraps the inner test
    of a parametrized @given test once per parameter set, so no parametrize here."""

    @settings(
        max_examples=150,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(doc=documents())
    def test(doc: Doc) -> None:
        check_document(doc, size, overlap)

    name = f"test_properties_size_{size}_overlap_{overlap}"
    test.__name__ = test.__qualname__ = name
    return test


for _size, _overlap in (
    (500, 0),
    (500, 100),
    (500, 250),
    (800, 0),
    (800, 160),
    (800, 400),
    (1_500, 300),
    (1_500, 750),
    (4_000, 0),
    (4_000, 800),
):
    _test = _property_test(_size, _overlap)
    globals()[_test.__name__] = _test


# Line soup: Markdown-looking lines in any order, malformed included (unclosed fences,
# lazy lines, stray markers). The scan must give valid spans and the chunker its
# offsets and coverage; fences may legitimately be unbalanced here.
SOUP_LINE = st.sampled_from(
    [
        *("", "", " ", "text here", "more. words! and? so", "# h", "## h2 ##", "#no"),
        *("```", "```py", "````", "~~~", "~~~~", "```x```", "- item", "* item", "1. one"),
        *("2) two", "  indented", "    deep", "  ```", "  ~~~", "| a | b |", " | c |"),
        *("> q", ">", "---", "***", "- - -", "\t tab", "  - sub", "+ plus", "w" * 700),
        *("> ```", "> ~~~~", "  > ~~~", "### ###", "# `c` *e*", "\u6570\u636e\u3002" * 200),
    ]
)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(SOUP_LINE, max_size=40))
def test_line_soup(lines: list[str]) -> None:
    md = "\n".join(lines)
    if lines and lines[0] == "":  # CRLF soup as well
        md = md.replace("\n", "\r\n")
    blocks = scan_blocks(md)
    reach = 0
    for block in blocks:
        assert reach <= block.start < block.end <= len(md)
        text = md[block.start : block.end]
        assert text.strip() and text[0] != "\n" and text[-1] != "\n"
        assert md[reach : block.start].isspace() or reach == block.start
        assert (block.kind == "heading") == (1 <= block.level <= 6)
        reach = block.end
    assert not md[reach:].strip()
    for overlap in (0, 100):
        chunks = chunk_markdown(md, URL, 500, overlap)
        if headings_only(md):  # blank, or nothing but headings: nothing to embed
            assert chunks == []
            continue
        assert chunks[0].char_start == 0 and not md[chunks[-1].char_end :].strip()
        for prev, chunk in itertools.pairwise(chunks):
            if chunk.split is None:
                assert chunk.text == md[chunk.char_start : chunk.char_end]
            assert chunk.text.strip() and "" not in chunk.heading_path
            assert prev.char_start <= chunk.char_start and prev.char_end < chunk.char_end
            assert not md[prev.char_end : chunk.char_start].strip()


# --------------------------------------------------------------------------- #
# issue 15: paths rooted at the title, no headings-only chunks, cut blocks
# --------------------------------------------------------------------------- #


def test_every_path_starts_with_the_title() -> None:
    # a DocBook reference page: its sections are H2s like its command name
    md = (
        "# CREATE TABLE\n\nCREATE TABLE — define a new table\n\n## Synopsis\n\n"
        + sentences(3, 60)
        + "\n\n## Description\n\n"
        + sentences(12, 60)
        + "\n\n# A second H1\n\nunder it\n"
    )
    chunks = chunk_markdown(md, URL, 500, 0, title="CREATE TABLE")
    check_invariants(md, chunks, 500, 0)
    assert all(c.heading_path[0] == "CREATE TABLE" for c in chunks)
    assert ["CREATE TABLE", "Description"] in [c.heading_path for c in chunks]
    assert chunks[-1].heading_path == ["CREATE TABLE", "A second H1"]
    # the title as the page's first line shows it wins over the given one
    shown = chunk_markdown("# Shown title\n\ntext\n", URL, 500, title="Site | Shown title")
    assert shown[0].heading_path == ["Shown title"]
    # without a title line, the given title still roots the paths
    bare = chunk_markdown("## Usage\n\ntext\n", URL, 500, title="Tool")
    assert bare[0].heading_path == ["Tool", "Usage"]


def test_heading_path_drops_a_link_around_code() -> None:
    md = "# stat\n\n## stat — Interpreting [`stat()`](http://x/os.html#os.stat) results\n\ntext\n"
    assert chunk_markdown(md, URL, 500)[-1].heading_path == [
        "stat",
        "stat — Interpreting stat() results",
    ]


def test_a_heading_never_stands_alone() -> None:
    md = "# T\n\n## Examples\n\n### First\n\n" + sentences(20, 60) + "\n\n## Last\n"
    chunks = chunk_markdown(md, URL, 500, 100, title="T")
    check_invariants(md, chunks, 500, 100)
    assert chunks[0].text.startswith("# T\n\n## Examples\n\n### First\n\nSentence")
    assert chunks[0].heading_path == ["T", "Examples", "First"]
    assert chunks[-1].text.rstrip().endswith("## Last")  # the page's closing heading
    assert chunk_markdown("# Only\n\n## headings\n", URL, 500) == []


def test_a_chunk_is_at_most_size_plus_overlap_whitespace_included() -> None:
    # the off-by-one of issue 15: a 1,499-character paragraph and its blank line after
    # 150 characters of overlap made a 1,651-character chunk at 1500 / 150
    para = (sentences(40, 70) + " ")[:1_498] + "."
    md = f"# T\n\n{sentences(30, 70)}\n\n{para}\n\n{sentences(3, 70)}\n"
    chunks = chunk_markdown(md, URL, 1_500, 150)
    check_invariants(md, chunks, 1_500, 150)
    assert max(c.char_count for c in chunks) <= 1_650


def _titled_property(size: int, overlap: int) -> Callable[[], None]:
    @settings(
        max_examples=120,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(doc=documents(), title=st.sampled_from(["Page title", "CREATE TABLE", "x"]))
    def test(doc: Doc, title: str) -> None:
        md = f"# {title}\n\n{doc.markdown}"
        chunks = chunk_markdown(md, URL, size, overlap, title=title)
        check_invariants(md, chunks, size, overlap, balanced=doc.balanced)
        for chunk in chunks:
            assert chunk.heading_path[0] == title  # every path starts with the title
            # no chunk over twice the size (but the headings that close the page, with
            # the chunk before them)
            assert chunk.char_count <= 2 * size or chunk is chunks[-1]

    test.__name__ = test.__qualname__ = f"test_titled_properties_size_{size}_overlap_{overlap}"
    return test


for _size, _overlap in ((500, 0), (500, 250), (1_500, 150), (1_600, 400)):
    _test = _titled_property(_size, _overlap)
    globals()[_test.__name__] = _test


def test_a_run_of_empty_sections_is_bounded_not_glued() -> None:
    # rustdoc lists 80 "impl Eq for fn(...)" headers with no text of their own: they
    # used to ride, all of them, into the next section's first chunk (1,978 tokens)
    heads = "\n\n".join(f"### `impl<Ret> Eq for fn(_: A{i}) -> Ret`" for i in range(80))
    markdown = f"# Page\n\nIntro text.\n\n## Trait Implementations\n\n{heads}\n\nLast words."
    chunks = chunk_markdown(markdown, "https://x.example/p", 500, 0, title="Page")
    assert max(len(c.text) for c in chunks) <= 2 * 500
    assert chunks[0].char_start == 0 and chunks[-1].char_end == len(markdown)
    assert all(c.text == markdown[c.char_start : c.char_end] for c in chunks)
    assert all(a.char_end == b.char_start for a, b in itertools.pairwise(chunks))
    assert chunks[-1].text.rstrip().endswith("Last words.")
