"""A page's Markdown split into embedding-ready chunks for RAG.

Pure module: standard library only, nothing from Scrapy, Twisted or the rest of the
project. The crawl calls `chunk_markdown()` on each page's Markdown, with the block
spans of the renderer when it has them (`BlockSpan`), else `scan_blocks()` finds them.

The rules, in order of strength:

* Offsets are exact: ``chunk.text == markdown[chunk.char_start:chunk.char_end]``, but
  for the pieces of a cut block (``chunk.split``, below), whose text adds the block's
  header rows or fence lines around that slice.
* Chunks follow the page and cover all of it: between two chunks there is nothing but
  the whitespace a size bound cut off (the blank lines after a block belong to the
  chunk holding the block while they fit).
* Every heading starts a chunk, so ``heading_path`` (the H1 > H2 > ... the chunk
  sits under) is right for the whole chunk; a heading with no block of its own before
  the next heading rides into that heading's first chunk, headings that close the page
  join the chunk before them, and a page of nothing but headings has no chunk: a chunk
  is never only headings, but for a run of empty sections too long to ride along, which
  is cut into chunks of up to the size (under the heading path above the run). With
  ``title`` every path starts with the page title (the page's first line, ``# Title``,
  is its root; other H1s are its children). Entries are
  the headings' plain text (code-span backticks, emphasis, strikethrough, link and
  image syntax, inline HTML and backslash escapes removed); an empty heading ends the
  deeper levels but adds no entry.
* A section longer than the budget splits at block boundaries; a block longer than the
  budget at sentence ends (and line breaks); a sentence at word boundaries; a word at
  the budget (CJK full stops, exclamation and question marks, U+3002 U+FF01 U+FF1F
  U+FF0E, end sentences too; a word is cut between grapheme-ish
  clusters: never inside a surrogate pair, before a combining mark, ZWJ or variation
  selector, nor after a ZWJ). A fenced code block or a table up to ``size + overlap``
  is never split (one longer than ``size`` is a chunk of its own); a longer one is cut
  into pieces of at most ``size``: a table by rows, its header rows repeated before
  each later piece (``split="table-rows"``), code at line boundaries, each piece inside
  the block's fence lines with its language (``split="code-lines"``), fences nested
  in list items or quotes too. No chunk exceeds twice the size.
* The size bound ``size + overlap`` holds on the whole chunk, ``char_count`` with its
  whitespace (a piece that fits but for its blank lines ends at the bound).
* Line endings may be ``\n`` or ``\r\n``; offsets are always into the Markdown as
  given.
* Overlap repeats the tail of the previous chunk from a word boundary; it never reaches
  back to the chunk's own heading (so the first chunk of a section has none) and never
  starts inside a code fence (nor mid-row of a table).
* No crumbs: a piece under a tenth of the budget joins the piece before it in the same
  section when the merged chunk stays within ``size + overlap``, else the piece after
  it under the same condition; never a piece across a heading, never an oversized one.
* Ids are unique within a page and stable across runs (see `chunk_id()`).

Everything runs in time linear in the page: regular expressions and ``str.find``
over ranges, no per-character Python loops.

Why one file of over 500 lines: the block scan, the packing and the cutting of a large
block keep one set of offset invariants (above), which the property tests check
together.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

#: Bounds of the chunk options (characters; 1 token is taken as 4 characters).
MIN_CHUNK_CHARS = 500
MAX_CHUNK_CHARS = 10_000
CHARS_PER_TOKEN = 4
MIN_CHUNK_TOKENS = MIN_CHUNK_CHARS // CHARS_PER_TOKEN  # 125
MAX_CHUNK_TOKENS = MAX_CHUNK_CHARS // CHARS_PER_TOKEN  # 2_500

#: A section's last piece shorter than size // CRUMB_DIVISOR joins the piece before it.
CRUMB_DIVISOR = 10

BLOCK_KINDS = ("heading", "code", "table", "paragraph", "list_item", "quote", "other")
_UNSPLITTABLE = frozenset({"code", "table"})


@dataclass(frozen=True, slots=True)
class BlockSpan:
    """One top-level block of the Markdown: ``markdown[start:end]`` (no blank lines
    around it). `level` and `text` (plain heading text) are set for headings."""

    kind: str  # one of BLOCK_KINDS
    start: int
    end: int
    level: int = 0
    text: str = ""


@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk of a page; ``text == markdown[char_start:char_end]``."""

    index: int
    chunk_id: str
    url: str
    heading_path: list[str]
    heading_path_text: str
    text: str
    char_start: int
    char_end: int
    char_count: int
    token_estimate: int
    #: None, or how an oversized block was cut: "table-rows" (its header rows repeat
    #: before ``markdown[char_start:char_end]`` in `text`) or "code-lines" (the fence
    #: lines are added around the slice where it does not hold them)
    split: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, keys in field order."""
        return {
            "index": self.index,
            "chunk_id": self.chunk_id,
            "url": self.url,
            "heading_path": list(self.heading_path),
            "heading_path_text": self.heading_path_text,
            "text": self.text,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "char_count": self.char_count,
            "token_estimate": self.token_estimate,
            "split": self.split,
        }


class ChunkOptionsError(ValueError):
    """A chunk option out of its allowed range (the message names the range)."""


# --------------------------------------------------------------------------- #
# options
# --------------------------------------------------------------------------- #


def _whole(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ChunkOptionsError(f"{name} must be a whole number, got {value!r}")
    return value


def chunk_budget(
    chunk_size: int = 0,
    chunk_tokens: int = 0,
    chunk_overlap: int = 0,
    chunk_overlap_tokens: int = 0,
) -> tuple[int, int]:
    """The chunk budget ``(size_chars, overlap_chars)`` from the user's options.

    Size: `chunk_size` characters (500..10000) or `chunk_tokens` tokens (125..2500,
    4 characters each), not both; both 0 means chunking is off: ``(0, 0)``. Overlap:
    `chunk_overlap` characters or `chunk_overlap_tokens` tokens, not both; default 0,
    at most half the size. Out-of-range values raise `ChunkOptionsError` naming the
    allowed range; nothing is clamped.
    """
    chunk_size = _whole("chunk_size", chunk_size)
    chunk_tokens = _whole("chunk_tokens", chunk_tokens)
    chunk_overlap = _whole("chunk_overlap", chunk_overlap)
    chunk_overlap_tokens = _whole("chunk_overlap_tokens", chunk_overlap_tokens)
    if chunk_size and chunk_tokens:
        raise ChunkOptionsError(
            f"give chunk_size ({MIN_CHUNK_CHARS}..{MAX_CHUNK_CHARS} characters) or "
            f"chunk_tokens ({MIN_CHUNK_TOKENS}..{MAX_CHUNK_TOKENS} tokens), not both"
        )
    if chunk_overlap and chunk_overlap_tokens:
        raise ChunkOptionsError("give chunk_overlap (characters) or chunk_overlap_tokens, not both")
    if chunk_size:
        if not MIN_CHUNK_CHARS <= chunk_size <= MAX_CHUNK_CHARS:
            raise ChunkOptionsError(
                f"chunk_size must be {MIN_CHUNK_CHARS}..{MAX_CHUNK_CHARS} characters "
                f"(or 0 for no chunking), got {chunk_size}"
            )
        size = chunk_size
    elif chunk_tokens:
        if not MIN_CHUNK_TOKENS <= chunk_tokens <= MAX_CHUNK_TOKENS:
            raise ChunkOptionsError(
                f"chunk_tokens must be {MIN_CHUNK_TOKENS}..{MAX_CHUNK_TOKENS} tokens "
                f"(or 0 for no chunking), got {chunk_tokens}"
            )
        size = chunk_tokens * CHARS_PER_TOKEN
    else:
        size = 0
    if size == 0:
        if chunk_overlap or chunk_overlap_tokens:
            raise ChunkOptionsError(
                "chunk_overlap / chunk_overlap_tokens need chunk_size "
                f"({MIN_CHUNK_CHARS}..{MAX_CHUNK_CHARS} characters) or chunk_tokens "
                f"({MIN_CHUNK_TOKENS}..{MAX_CHUNK_TOKENS} tokens)"
            )
        return 0, 0
    half = size // 2
    if chunk_overlap_tokens:
        most = half // CHARS_PER_TOKEN
        if not 0 <= chunk_overlap_tokens <= most:
            raise ChunkOptionsError(
                f"chunk_overlap_tokens must be 0..{most} tokens (at most half the chunk "
                f"size of {size // CHARS_PER_TOKEN} tokens), got {chunk_overlap_tokens}"
            )
        return size, chunk_overlap_tokens * CHARS_PER_TOKEN
    if not 0 <= chunk_overlap <= half:
        raise ChunkOptionsError(
            f"chunk_overlap must be 0..{half} characters (at most half the chunk size "
            f"of {size} characters), got {chunk_overlap}"
        )
    return size, chunk_overlap


# --------------------------------------------------------------------------- #
# block scan (fallback when the renderer gives no spans)
# --------------------------------------------------------------------------- #

_HEADING_CLOSE = re.compile(r"(?:^|[ \t]+)#+$")
_UNESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")

#: a line that starts another block (so it cannot continue a paragraph lazily)
_STARTS = (
    r" {0,3}(?:#{1,6}(?:[ \t\r]|$)|`{3,}[^`\n]*$|~{3,}|[|>]"
    r"|(?:[-*+]|\d{1,9}[.)])(?:[ \t\r]|$)"
    r"|(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})\r?$)"
)
#: the next line that is not blank; the block starts at the line start
_NEXT_LINE = re.compile(r"^[^\S\n]*\S", re.MULTILINE)
#: fenced code: a closing fence of the same character at least as long, or the end
_FENCE_CODE = {
    char: re.compile(
        rf" {{0,3}}({char}{{3,}})(?!{char}){info}(?=\n|\Z)"
        rf"(?:\n(?:.*\n)*?[ \t]*\1{char}*[ \t]*(?=\r?\n|\Z)|(?P<open>(?:\n.*)*))"
    )
    for char, info in (("`", "[^`\n]*"), ("~", ".*"))
}
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?=\r?\n|\Z)")
_TABLE = re.compile(r" {0,3}\|.*(?:\n *\|.*)*")
_QUOTE = re.compile(rf" {{0,3}}>.*(?:\n(?=.*\S)(?: *>|(?!{_STARTS})).*)*", re.MULTILINE)
_RULE = re.compile(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})(?=\r?\n|\Z)")
#: a list item: the marker line, then indented lines (blank lines allowed before an
#: indented line), indented fences with whatever they hold, and lazy continuations.
#: A fence's lines are blank or indented and its closing fence is indented: the item
#: ends at its first unindented line, and an unclosed fence ends with the item.
_ITEM = re.compile(
    r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t\r].*)?(?=\n|\Z)"
    r"(?:\n[ \t]+(`{3,})(?!`)[^`\n]*(?:\n(?:[ \t\r].*)?)*?\n[ \t]+\1`*[ \t]*\r?(?=\n|\Z)"
    r"|\n[ \t]+(~{3,})(?!~).*(?:\n(?:[ \t\r].*)?)*?\n[ \t]+\2~*[ \t]*\r?(?=\n|\Z)"
    r"|(?:\n[^\S\n]*)*\n[ \t]+\S.*"
    rf"|\n(?=.*\S)(?!{_STARTS}).*)*",
    re.MULTILINE,
)
_PARAGRAPH = re.compile(rf".*(?:\n(?=.*\S)(?!{_STARTS}).*)*", re.MULTILINE)


#: inline markup in heading text (see `_plain()`)
_MARKUP = re.compile(r"[\\`*_~\[<]")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_LINK = re.compile(r"!?\[([^\]]*)\](?:\((?:[^()\s]|\([^()]*\))*(?:\s+[^)]*)?\)|\[[^\]]*\])")
_CODE_LINK = re.compile(r"!?\[([^\[\]]*`[^\[\]]*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+[^)]*)?\)")
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto):[^<>\s]*)>")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_EMPHASIS = (
    re.compile(r"(\*{1,3})(?=[^\s*])(.+?)(?<=[^\s*])\1"),
    re.compile(r"(?<!\w)(_{1,3})(?=[^\s_])(.+?)(?<=[^\s_])\1(?!\w)"),
    re.compile(r"(~{1,2})(?=[^\s~])(.+?)(?<=[^\s~])\1"),
)
#: an escaped ASCII punctuation character is held as U+F0000 + its code meanwhile
_HELD = re.compile("[\U000f0000-\U000f007f]")


def _hold(match: re.Match[str]) -> str:
    return chr(0xF0000 + ord(match.group(1)))


def _release(match: re.Match[str]) -> str:
    return chr(ord(match.group(0)) - 0xF0000)


def _plain_inline(text: str) -> str:
    """Inline markup removed from text outside code spans (escapes held first)."""
    held = "\\" in text
    if held:
        text = _UNESCAPE.sub(_hold, text)
    if "<" in text:
        text = _HTML_TAG.sub("", _AUTOLINK.sub(r"\1", text))
    if "[" in text:
        text = _LINK.sub(r"\1", text)
    for pattern in _EMPHASIS:
        for _ in range(3):  # nested emphasis: "***a** b*"
            text, count = pattern.subn(r"\2", text)
            if not count:
                break
    return _HELD.sub(_release, text) if held else text


def _plain(text: str) -> str:
    """A heading's plain text: code spans keep their content verbatim, the rest loses
    emphasis, strikethrough, link/image syntax (keeping the text), inline HTML tags
    and backslash escapes; runs of whitespace become one space."""
    if _MARKUP.search(text) is None:
        return text
    if "`" in text and "](" in text:
        # a link around a code span ("[`stat()`](url)"): the link goes first, or the code
        # span would cut it in two and its syntax stay
        text = _CODE_LINK.sub(r"\1", text)
    parts: list[str] = []
    pos = 0
    for match in _CODE_SPAN.finditer(text):
        parts.append(_plain_inline(text[pos : match.start()]))
        code = match.group(2)
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        parts.append(code)
        pos = match.end()
    parts.append(_plain_inline(text[pos:]))
    return " ".join("".join(parts).split())


def _heading_text(raw: str | None) -> str:
    text = (raw or "").strip()
    if text.endswith("#"):  # closing sequence: "## Title ##"
        text = _HEADING_CLOSE.sub("", text).rstrip()
    return _plain(text)


#: a block as the chunker keeps it: (kind, start, end, level, text)
_Block = tuple[str, int, int, int, str]


def scan_blocks(markdown: str) -> list[BlockSpan]:
    """The top-level blocks of `markdown`, for when the renderer gives no spans.

    Fence-aware (``` and ~~~ fences of any length >= 3, closed by a fence of the same
    character at least as long; a "#" line inside a fence is code, not a heading; an
    unclosed fence runs to the end). Finds ATX headings, GFM tables (consecutive lines
    starting with "|"), list items (the marker line plus its indented or lazy
    continuation lines, blank lines before an indented line, and indented fences with
    their blank lines), block quotes, thematic breaks ("other") and paragraphs. A
    heading, fence, table, quote or list item also ends a paragraph without a blank
    line. Regular expressions over the whole string: no per-line Python loop.
    """
    return [BlockSpan(*block) for block in _scan(markdown)]


def _scan(markdown: str) -> list[_Block]:
    """`scan_blocks()` as plain tuples (building dataclasses costs more than the scan)."""
    blocks: list[_Block] = []
    append = blocks.append
    pos = 0
    next_line = _NEXT_LINE.search
    while True:
        found = next_line(markdown, pos)
        if found is None:
            return blocks
        start = found.start()
        first = found.end() - 1
        char = markdown[first]
        match: re.Match[str] | None = None
        kind = "paragraph"
        if first - start <= 3:
            if char in "`~":
                match = _FENCE_CODE[char].match(markdown, start)
                if match:
                    end = match.end()
                    if match.group("open") is not None:  # unclosed: to the last word
                        end = start + len(markdown[start:end].rstrip())
                    append(("code", start, end, 0, ""))
                    pos = end
                    continue
            elif char == "#":
                match = _HEADING.match(markdown, start)
                if match:
                    level = len(match.group(1))
                    append(("heading", start, match.end(), level, _heading_text(match.group(2))))
                    pos = match.end()
                    continue
            elif char == "|":
                match, kind = _TABLE.match(markdown, start), "table"
            elif char == ">":
                match, kind = _QUOTE.match(markdown, start), "quote"
            elif char in "-*_+" or char.isdigit():
                match = _RULE.match(markdown, start)
                if match:
                    kind = "other"
                else:
                    match = _ITEM.match(markdown, start)
                    kind = "list_item"
        if match is None:
            match, kind = _PARAGRAPH.match(markdown, start), "paragraph"
        end = match.end() if match else len(markdown)
        append((kind, start, end, 0, ""))
        pos = end


# --------------------------------------------------------------------------- #
# chunking
# --------------------------------------------------------------------------- #

#: sentence-level cut points (cut after the match): a sentence end and its spaces,
#: and a line break and the indentation after it (two patterns: one alternation
#: would be scanned three times slower)
_SENTENCE_END = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]*_]*\s+")
#: CJK sentence ends need no space after them (searched only in non-ASCII pages)
_CJK_END = re.compile(r"[\u3002\uff01\uff1f\uff0e][\u300d\u300f\u3011\uff09\"'\u201d\u2019)\]]*\s*")
#: a line break and the blank lines and indentation after it
_LINE_BREAK = re.compile(r"\n\s*")
_SPACES = re.compile(r"\s+")
_NON_SPACE = re.compile(r"\S")
#: fence lines inside a block (list item, quote): any indentation or ">" prefix
_NESTED_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})(.*)$", re.MULTILINE)


def _nested_fences(markdown: str, start: int, end: int) -> list[tuple[int, int]]:
    """Fenced stretches inside ``markdown[start:end]``: from the start of the opening
    fence line to just after the closing fence line (its "\\n" included when inside)."""
    if markdown.find("```", start, end) < 0 and markdown.find("~~~", start, end) < 0:
        return []
    ranges: list[tuple[int, int]] = []
    open_at = -1
    mark = ""
    for match in _NESTED_FENCE.finditer(markdown, start, end):
        fence, rest = match.group(1), match.group(2)
        if open_at < 0:
            if fence[0] == "`" and "`" in rest:
                continue
            open_at, mark = match.start(), fence
        elif fence[0] == mark[0] and len(fence) >= len(mark) and not rest.strip():
            close = match.end()
            if close < end and markdown[close] == "\n":
                close += 1
            ranges.append((open_at, close))
            open_at = -1
    if open_at >= 0:
        ranges.append((open_at, end))
    return ranges


#: characters a cut must not precede (beyond combining marks): ZWJ, variation
#: selectors, emoji modifiers and tags, low surrogates
_EXTEND = re.compile(
    "[\u200d\ufe00-\ufe0f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f"
    "\U000e0100-\U000e01ef\udc00-\udfff]"
)


def _joined(before: str, after: str) -> bool:
    """Whether a cut between these two characters would split a grapheme-ish cluster."""
    return (
        before == "\u200d"
        or _EXTEND.match(after) is not None
        or unicodedata.category(after)[0] == "M"
    )


#: atom kinds: kept whole and within the size / kept whole though oversized (a chunk
#: alone) / a single word longer than the size, cut anywhere to fill the chunks
_FIT, _BIG, _WORD, _SPLIT = 0, 1, 2, 3
#: a GFM delimiter row ("| --- | :-: |")
_DELIMITER_ROW = re.compile(r" {0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$", re.MULTILINE)
#: (start, end, kind): a contiguous stretch of the page
_Atom = tuple[int, int, int]
#: (start, end, oversized): a chunk before its overlap
_Piece = tuple[int, int, bool]


class _Chunker:
    """One page's chunking state (kept per call; nothing global)."""

    __slots__ = (
        "ascii",
        "block_ends",
        "block_starts",
        "fence_cache",
        "kinds",
        "md",
        "overlap",
        "size",
        "splits",
        "unit_ends",
        "unit_starts",
    )

    def __init__(self, markdown: str, size: int, overlap: int, blocks: list[_Block]):
        self.md = markdown
        self.size = size
        self.overlap = overlap
        count = len(blocks)
        # unit i: block i plus the gap up to the next block; the first starts at 0
        self.unit_starts = [0] + [blocks[i][1] for i in range(1, count)]
        self.unit_ends = [*self.unit_starts[1:], len(markdown)]
        self.kinds = [block[0] for block in blocks]
        self.block_ends = [block[2] for block in blocks]
        self.block_starts = [block[1] for block in blocks]
        self.fence_cache: dict[int, list[tuple[int, int]]] = {}
        self.ascii = markdown.isascii()
        #: piece start -> (split kind, text before the slice, text after it)
        self.splits: dict[int, tuple[str, str, str]] = {}

    def fences(self, unit: int) -> list[tuple[int, int]]:
        cached = self.fence_cache.get(unit)
        if cached is None:
            cached = _nested_fences(self.md, self.unit_starts[unit], self.unit_ends[unit])
            self.fence_cache[unit] = cached
        return cached

    # --- atoms: contiguous stretches, each within the size unless unsplittable ----

    def tight(self, start: int, end: int) -> int:
        """`end` less the whitespace before it (not before `start`)."""
        if end > start and self.md[end - 1].isspace():
            return start + len(self.md[start:end].rstrip())
        return end

    def cut(self, pos: int, low: int) -> int:
        """`pos`, moved back to a grapheme-ish boundary after `low` if need be."""
        if self.ascii:
            return pos
        md = self.md
        for back in range(pos, max(low, pos - 32), -1):
            if not _joined(md[back - 1], md[back]):
                return back
        return pos

    def atoms(self, unit: int, out: list[_Atom]) -> None:
        start, end = self.unit_starts[unit], self.unit_ends[unit]
        size = self.size
        block_end = self.block_ends[unit]
        # the blank lines after the block never count toward the size
        if end - start <= size or self.tight(block_end, end) - start <= size:
            out.append((start, end, _FIT))
            return
        if self.kinds[unit] in _UNSPLITTABLE:
            if self.tight(start, end) - start > size + self.overlap:
                self.split_block(unit, out)
            else:
                out.append((start, end, _BIG))
            return
        pos = start
        for fence_start, fence_end in self.fences(unit):
            if fence_start > pos:
                self.split_text(pos, fence_start, 0, out)
            length = self.tight(fence_start, fence_end) - fence_start
            if length > size + self.overlap:  # cut at its lines, each piece fenced again
                self.split_range(fence_start, fence_start, fence_end, fence_end, False, out)
            else:
                out.append((fence_start, fence_end, _BIG if length > size else _FIT))
            pos = fence_end
        if pos < end:
            self.split_text(pos, end, 0, out)

    def split_block(self, unit: int, out: list[_Atom]) -> None:
        """An oversized table or fenced code block as pieces of at most the size, each
        readable alone: a table by rows, its header rows repeated before each later
        piece; code by lines, each piece inside the fence lines of the block."""
        table = self.kinds[unit] == "table"
        self.split_range(
            self.unit_starts[unit], self.block_starts[unit], self.block_ends[unit],
            self.unit_ends[unit], table, out,
        )  # fmt: skip

    def split_range(
        self, start: int, block_start: int, block_end: int, end: int, table: bool, out: list[_Atom]
    ) -> None:
        """`split_block` on ``md[block_start:block_end]`` (a table, or a fence whose
        first line opens it, indented or quoted as it may be), the piece starting at
        `start` and the last one ending at `end`."""
        md = self.md
        lines: list[tuple[int, int]] = []  # (line start, line end after its "\n")
        pos = block_start
        while pos < block_end:
            newline = md.find("\n", pos, block_end)
            stop = block_end if newline < 0 else newline + 1
            lines.append((pos, stop))
            pos = stop
        fence = ""  # code: the fence line closing each piece but the last
        if table:
            kind = "table-rows"
            head = 2 if len(lines) > 1 and _DELIMITER_ROW.match(md, lines[1][0]) else 1
            lead = md[lines[0][0] : lines[head - 1][1]].rstrip("\r\n") + "\n"
        else:
            kind = "code-lines"
            opening = md[lines[0][0] : lines[0][1]].rstrip("\r\n")
            marks = opening.lstrip(" \t>")
            fence = (
                opening[: len(opening) - len(marks)]
                + marks[: len(marks) - len(marks.lstrip(marks[:1]))]
            )
            lead = opening + "\n"
        budget = max(1, self.size - len(lead) - len(fence) - 1)
        groups: list[list[int]] = []  # [start, end] of each piece
        for line_start, line_end in lines:
            if groups and line_end - groups[-1][0] <= budget:
                groups[-1][1] = line_end
                continue
            # a new piece; a line longer than the budget is cut at a space, else anywhere
            pos = line_start
            while line_end - pos > budget:
                space = md.rfind(" ", pos + 1, pos + budget)
                cut = space + 1 if space > pos else self.cut(pos + budget, pos + 1)
                groups.append([pos, cut])
                pos = cut
            groups.append([pos, line_end])
        groups[0][0] = start  # blank lines at the page's start ride along too
        groups[-1][1] = end  # and the blank lines after the block
        final = len(groups) - 1
        for number, (piece_start, piece_end) in enumerate(groups):
            before = "" if number == 0 else lead
            after = ""
            if fence and number < final:  # the last piece holds the block's own close
                after = ("" if md[piece_end - 1] == "\n" else "\n") + fence
            self.splits[piece_start] = (kind, before, after)
            out.append((piece_start, piece_end, _SPLIT))

    def split_text(self, start: int, end: int, level: int, out: list[_Atom]) -> None:
        """Cut ``md[start:end]`` into stretches within the size (trailing whitespace
        not counted): at sentence ends and line breaks (level 0), after spaces (1),
        before spaces (2); what is left is a word longer than the size, cut by the
        packer wherever the chunk is full."""
        size = self.size
        if end - start <= size or self.tight(start, end) - start <= size:
            out.append((start, end, _FIT))
            return
        if level >= 3:
            out.append((start, end, _WORD))
            return
        md = self.md
        if level == 0:
            cuts = [m.end() for m in _SENTENCE_END.finditer(md, start, end)]
            if not self.ascii:
                cuts.extend(m.end() for m in _CJK_END.finditer(md, start, end))
            if md.find("\n", start, end) >= 0:
                cuts.extend(m.end() for m in _LINE_BREAK.finditer(md, start, end))
            cuts = sorted(set(cuts))
        elif level == 1:
            cuts = [m.end() for m in _SPACES.finditer(md, start, end)]
        else:
            cuts = [m.start() for m in _SPACES.finditer(md, start, end)]
        pos = start
        for cut in cuts:
            if pos < cut < end:
                self.split_text(pos, cut, level + 1, out)
                pos = cut
        self.split_text(pos, end, level + 1, out)

    # --- pieces of a section -----------------------------------------------------

    def pieces(self, first: int, last: int, heads_end: int) -> list[_Piece]:
        """Units first..last (one section) packed greedily into pieces. A stretch of
        whitespace always joins the piece before it (or, at the page start, the one
        after it): no piece is whitespace only. The section's headings (up to
        `heads_end`) join the piece of the block after them, oversized or not."""
        atoms: list[_Atom] = []
        for unit in range(first, last + 1):
            self.atoms(unit, atoms)
        size = self.size
        md = self.md
        tight = self.tight
        pieces: list[_Piece] = []
        cur_start = cur_end = -1
        blank = False  # the current piece is whitespace only (page start)
        heads_start = self.unit_starts[first]
        queue = atoms[::-1]  # popped from the end: the atoms in order
        while queue:
            start, end, kind = queue.pop()
            if kind in (_BIG, _SPLIT):
                if cur_start >= 0:
                    # whitespace, or only the section's headings, go with the block: a
                    # chunk is never only headings
                    if blank or (cur_start == self.unit_starts[first] and cur_end <= heads_end):
                        if start in self.splits:  # a cut block's first piece: its key moves
                            self.splits[cur_start] = self.splits.pop(start)
                        start = cur_start
                    else:
                        pieces.append((cur_start, cur_end, False))
                    cur_start = -1
                pieces.append((start, end, True))
            elif kind == _WORD:  # fill the current piece, then whole pieces of the size
                pos = start
                if cur_start >= 0:
                    if blank:
                        pos = cur_start
                    else:
                        fill = self.cut(cur_start + size, start)
                        if fill > start:
                            pieces.append((cur_start, fill, False))
                            pos = fill
                        else:
                            pieces.append((cur_start, cur_end, False))
                while end - pos > size:
                    cut = self.cut(pos + size, pos)
                    pieces.append((pos, cut, False))
                    pos = cut
                cur_start, cur_end, blank = pos, end, False
            elif cur_start < 0:
                if md[start].isspace() and tight(start, end) == start:
                    if pieces:  # whitespace after an oversized block: joins it
                        last_start, _end, big = pieces[-1]
                        pieces[-1] = (last_start, end, big)
                        continue
                    blank = True
                else:
                    blank = False
                cur_start, cur_end = start, end
            elif end - cur_start <= size or blank:
                cur_end = end
                blank = blank and tight(start, end) == start
            else:
                fits = tight(start, end)
                if fits == start or fits - cur_start <= size:
                    cur_end = end
                elif cur_start == heads_start and cur_end <= heads_end:
                    # only the section's headings so far: they take the part of this
                    # block that fits beside them (a chunk is never only headings)
                    room = size - (cur_end - cur_start)
                    parts: list[_Atom] = []
                    unit = self.unit_at(start, first, last)
                    whole = self.kinds[unit] in _UNSPLITTABLE or bool(self.fences(unit))
                    if room * CRUMB_DIVISOR >= size and not whole:
                        self.size = room
                        try:
                            self.split_text(start, end, 0, parts)
                        finally:
                            self.size = size
                    if len(parts) > 1 and parts[0][2] == _FIT:
                        pieces.append((cur_start, parts[0][1], False))
                        cur_start = -1
                        queue.extend(reversed(parts[1:]))
                    else:  # nothing fits beside them: the headings ride over the size
                        cur_end = end
                else:
                    pieces.append((cur_start, cur_end, False))
                    cur_start, cur_end = start, end
        if cur_start >= 0:
            pieces.append((cur_start, cur_end, False))
        return pieces

    # --- overlap -------------------------------------------------------------------

    def unit_at(self, pos: int, first: int, last: int) -> int:
        """The unit in first..last holding offset `pos` (binary search)."""
        starts = self.unit_starts
        lo, hi = first, last
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def overlap_start(self, floor: int, end: int, first: int, last: int) -> int:
        """Where the overlap before a piece starting at `end` begins: at most
        `overlap` back, not before `floor`, at a word start, outside fences and
        table rows; `end` when there is no such place (no overlap)."""
        md = self.md
        pos = max(floor, end - self.overlap)
        for _ in range(64):  # each round moves forward; a handful of rounds at most
            if pos >= end:
                return end
            if pos and not md[pos - 1].isspace():  # mid-word: to the next word
                match = _SPACES.search(md, pos, end)
                if not match:
                    return end
                pos = match.end()
            match = _NON_SPACE.search(md, pos, end)
            if not match:
                return end
            pos = match.start()
            unit = self.unit_at(pos, first, last)
            kind = self.kinds[unit]
            if kind == "code":
                if pos < self.block_ends[unit]:  # inside the code block: after it
                    pos = self.block_ends[unit]
                    continue
                return pos
            if kind == "table":
                line_start = md.rfind("\n", 0, pos) + 1
                if line_start != pos and line_start >= self.unit_starts[unit]:
                    newline = md.find("\n", pos, end)
                    pos = end if newline < 0 else newline + 1
                    continue
                return pos
            inside = next(
                (
                    r
                    for r in self.fences(unit)
                    if r[0] < pos < r[1] and md[r[0] : pos].strip(" \t>")
                ),
                None,
            )
            if inside is None:  # outside nested fences (or right at one's opening line)
                return pos
            pos = inside[1]
        return end

    # --- all of it -------------------------------------------------------------------

    def run(self, blocks: list[_Block], title: str | None = None) -> list[_Out]:
        """(char_start, char_end, heading_path, big) of each chunk, in page order.

        With `title`, every path starts with it: the page's first block, when it is an
        H1, is that title line, and other H1s are its children. A heading with no
        block of its own before the next heading goes into the next section's first
        chunk (a chunk is never only headings); headings at the very end join the chunk
        before them, and a page of nothing but headings has no chunk."""
        out: list[_Out] = []
        kinds = self.kinds
        count = len(blocks)
        if title and count and kinds[0] == "heading" and blocks[0][3] == 1 and blocks[0][4]:
            title = blocks[0][4]  # the title as the page shows it on its first line
        path: list[tuple[int, str]] = [(0, title)] if title else []
        first = 0
        pending = -1  # the first unit of headings waiting for a block of their own
        pending_names: list[str] = []  # the heading path above the first of them
        while first < count:
            last = first
            while last + 1 < count and kinds[last + 1] != "heading":
                last += 1
            kind, _start, _end, level, text = blocks[first]
            if kind == "heading":
                starts = self.unit_starts
                if pending >= 0 and self.unit_ends[first] - starts[pending] > self.size:
                    # a run of empty sections that this heading would take past a chunk's
                    # size (rustdoc's 80 "impl Eq for fn(...)" headers): the run so far is
                    # a chunk of its own, not glued onto the next section past every size
                    out.append((starts[pending], starts[first], pending_names, False))
                    pending = -1
                above = [name for _, name in path]
                level = level if 1 <= level <= 6 else 1
                if not (title and first == 0 and level == 1):  # the title line is the root
                    while path and path[-1][0] >= level:
                        path.pop()
                    if text:  # an empty heading ends the deeper levels, adds no entry
                        path.append((level, text))
                # overlap never reaches back to the heading itself
                floor = heads_end = self.unit_ends[first]
                if last == first:
                    if pending < 0:
                        pending, pending_names = first, above
                    first = last + 1
                    continue
            else:
                floor = self.unit_starts[first]
                heads_end = -1
            start_unit = first if pending < 0 else pending
            pending = -1
            names = [name for _, name in path]
            self.section(start_unit, last, floor, heads_end, names, out)
            first = last + 1
        if pending >= 0 and out:
            start, _end, names, big = out[-1]
            out[-1] = (start, len(self.md), names, big)
        return out

    def section(
        self,
        first: int,
        last: int,
        floor: int,
        heads_end: int,
        names: list[str],
        out: list[_Out],
    ) -> None:
        pieces = self.pieces(first, last, heads_end)
        size, overlap = self.size, self.overlap
        limit = size + overlap
        tight = self.tight
        # [chunk start (with its overlap), end, oversized]
        chunks: list[list[Any]] = []
        carried = -1  # a crumb's chunk start, carried into the piece after it
        count = len(pieces)
        for number, (start, end, big) in enumerate(pieces):
            chunk_start = start
            if carried >= 0:
                chunk_start, carried = carried, -1
            elif overlap and chunks and not big:
                # a proper tail: never the whole previous chunk
                chunk_start = self.overlap_start(max(floor, chunks[-1][0] + 1), start, first, last)
            if not big and (tight(start, end) - start) * CRUMB_DIVISOR < size:
                # a crumb: into the previous piece, else into the next one
                if (
                    chunks
                    and not chunks[-1][2]
                    and tight(chunks[-1][0], end) - chunks[-1][0] <= limit
                ):
                    chunks[-1][1] = end
                    continue
                if (
                    number + 1 < count
                    and not pieces[number + 1][2]
                    and tight(chunk_start, pieces[number + 1][1]) - chunk_start <= limit
                ):
                    carried = chunk_start
                    continue
            chunks.append([chunk_start, end, big])
        for chunk_start, end, big in chunks:
            out.append((chunk_start, end, list(names), big))

    def bound(self, out: list[_Out]) -> None:
        """The size bound on whole chunks, `char_count` included: a chunk over `size +
        overlap` only by the whitespace after its text ends where the bound is (that
        whitespace, between two chunks, is in neither). Oversized blocks are exempt."""
        limit = self.size + self.overlap
        for number, (start, end, names, big) in enumerate(out):
            if big or end - start <= limit or self.tight(start, end) - start > limit:
                continue
            out[number] = (start, start + limit, names, big)


#: a chunk before its text is built: (char_start, char_end, heading_path, oversized)
_Out = tuple[int, int, list[str], bool]


def _normalize(blocks: list[BlockSpan], length: int) -> list[_Block]:
    """Spans in page order, inside the page, non-empty and not overlapping."""
    ordered = sorted(blocks, key=lambda block: (block.start, block.end))
    kept: list[_Block] = []
    reach = 0
    for block in ordered:
        if block.start < reach or block.start >= block.end or block.end > length:
            continue
        kept.append((block.kind, block.start, block.end, block.level, block.text))
        reach = block.end
    return kept


def chunk_id(url: str, heading_path_text: str, text: str, occurrence: int = 1) -> str:
    """First 16 hex digits of sha256(url + "\\0" + heading_path_text + "\\0" + text),
    with "\\0" + str(occurrence) appended for the 2nd, 3rd, ... chunk of a page with
    the same heading path and text: unique within a page, stable across runs."""
    key = f"{url}\0{heading_path_text}\0{text}"
    if occurrence > 1:
        key = f"{key}\0{occurrence}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def chunk_markdown(
    markdown: str,
    url: str,
    size: int,
    overlap: int = 0,
    blocks: list[BlockSpan] | None = None,
    title: str | None = None,
) -> list[Chunk]:
    """`markdown` as chunks of at most `size` characters plus `overlap` (see the
    module docstring for the rules). `blocks` are the renderer's top-level block
    spans; without them `scan_blocks()` finds them. `title` (the page's title, whose
    ``# Title`` line opens a page's Markdown) starts every chunk's heading path. Empty
    or blank Markdown, Markdown of headings only, or `size` 0 (chunking off), gives []."""
    if size <= 0 or not markdown or markdown.isspace():
        return []
    overlap = max(0, min(overlap, size))
    spans = _scan(markdown) if blocks is None else _normalize(blocks, len(markdown))
    if not spans:
        first = _NON_SPACE.search(markdown)
        start = first.start() if first else 0
        spans = [("other", start, len(markdown.rstrip()), 0, "")]
    chunker = _Chunker(markdown, size, overlap, spans)
    found = chunker.run(spans, title or None)
    chunker.bound(found)
    chunks: list[Chunk] = []
    seen: dict[tuple[str, str], int] = {}
    splits = chunker.splits
    for index, (start, end, names, _big) in enumerate(found):
        text = markdown[start:end]
        split = splits.get(start)
        if split is not None:
            text = split[1] + text + split[2]
        count = len(text)
        path_text = " > ".join(names)
        occurrence = seen[path_text, text] = seen.get((path_text, text), 0) + 1
        chunks.append(
            Chunk(  # positional: index, chunk_id, url, heading_path, heading_path_text,
                # text, char_start, char_end, char_count, token_estimate
                index,
                chunk_id(url, path_text, text, occurrence),
                url,
                names,
                path_text,
                text,
                start,
                end,
                count,
                -(-count // CHARS_PER_TOKEN),
                None if split is None else split[0],
            )
        )
    return chunks
