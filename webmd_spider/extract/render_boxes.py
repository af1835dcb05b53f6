"""The boxes the renderer writes into, and how their blocks join.

A box collects finished blocks (Markdown, text, kind) and an inline buffer (parallel
Markdown and text pieces) of the paragraph it has open. Text is appended with its
white space collapsed; a block boundary flushes the buffer into a block, or, in an
inline-only box (a heading, a bold line, a table cell), leaves a separator pending so
that its content stays on one line. When a list, an item or a quote closes, its blocks
join into one block of its parent, indented or prefixed (`close_item`, `close_list`,
`close_quote`); the region's top-level blocks join into the page (`join_blocks`).
"""

from __future__ import annotations

from typing import Any

from webmd_spider.extract.inline import escape_line_start, escape_text, may_need_escape
from webmd_spider.extract.render_wraps import after_wrap

#: <br> and block boundaries inside a table cell: GFM cells are one line, and an inline
#: <br> is the line break GFM renders there ("; " read as ".;" after a sentence)
CELL_BREAK = "<br>"

# Box kinds; kinds >= HEADING_BOX are inline-only (their content is one line).
ROOT_BOX, LIST_BOX, ITEM_BOX, QUOTE_BOX, HEADING_BOX, BOLD_BOX, CELL_BOX = range(7)
# Block kinds.
PARA, LIST, LIST_LOOSE, ITEM, CODE, TABLE, HEADING, RULE, QUOTE = range(9)
_BARE_FIRST = frozenset(
    {CODE, TABLE, LIST, LIST_LOOSE, QUOTE, HEADING}
)  # item marker on its own line

Block = tuple[str, str, int]
_INVISIBLE_BREAKS = {0xAD: None, 0x200B: None}


class Box:
    """One open box of the renderer's stack: its finished blocks and its inline buffer."""

    __slots__ = (
        "blocks", "code", "content", "gen", "kind", "level", "marker", "md", "merge", "number",
        "ordered", "sep", "space", "start", "tx", "width", "wrap",
    )  # fmt: skip

    def __init__(self, kind: int) -> None:
        self.kind = kind
        self.blocks: list[Block] = []
        self.md: list[str] = []  # inline Markdown pieces of the open paragraph
        self.tx: list[str] = []  # the same pieces as plain text
        self.gen = 0  # bumped whenever the inline buffer is flushed
        self.space = True  # the buffer ends in whitespace (or is empty)
        self.content = False  # the buffer holds non-whitespace
        self.sep = False  # inline boxes: a block boundary is pending
        self.level = 0  # heading level
        self.marker = ""  # list item marker
        self.number = 1  # next number of an ordered list
        self.start = 1
        self.ordered = False
        self.width = 2  # marker width of the list's last item
        # The emphasis piece that ends the buffer, when its closing marker ends it:
        # (index in md, gen, category, text before the opening marker, core, piece).
        # What comes next decides whether that marker can close (see `render_wraps.after_wrap`).
        self.wrap: tuple[Any, ...] | None = None
        # `wrap`, for the next emphasis opened right after it, which joins it when of
        # the same kind ("**a**" + "**b**" is "**ab**"); any other opening takes it away.
        self.merge: tuple[Any, ...] | None = None
        # The code span that ends the buffer: (index in md, gen, code), for the next
        # one to join ("`a`" + "`b`" is the one span "a``b"); an opening wrap clears it.
        self.code: tuple[int, int, str] | None = None

    # --- inline buffer --------------------------------------------------------

    def text(self, text: str, in_link: bool) -> None:
        """Append the words of a text node (`in_link`: inside a link's text)."""
        if "\xad" in text or "\u200b" in text:
            # a soft hyphen or zero-width space is a line-break hint, never a visible
            # character: "Mit&shy;tel&shy;al&shy;ter" reads (and is searched) "Mittelalter"
            text = text.translate(_INVISIBLE_BREAKS)
        words = text.split()
        if not words:
            if not self.space:
                self.md.append(" ")
                self.tx.append(" ")
                self.space = True
            return
        if self.sep:
            self.separate()
        plain = words[0] if len(words) == 1 else " ".join(words)
        # most runs need no escaping: the pre-check here saves a call per text node
        md = escape_text(plain, in_link) if may_need_escape(plain) else plain
        if not self.space and text[0].isspace():
            md = " " + md
            plain = " " + plain
        if self.wrap is not None:
            after_wrap(self, md[0])
        self.space = text[-1].isspace()
        if self.space:
            md += " "
            plain += " "
        self.md.append(md)
        self.tx.append(plain)
        self.content = True

    def emit(self, md: str, tx: str) -> None:
        """Append non-whitespace inline content."""
        if self.sep:
            self.separate()
        if self.wrap is not None:
            after_wrap(self, md[0])
        self.md.append(md)
        self.tx.append(tx)
        self.space = False
        self.content = True

    def soft_space(self) -> None:
        if not self.space:
            self.md.append(" ")
            self.tx.append(" ")
            self.space = True

    def separate(self) -> None:
        """Inline boxes: put the pending block separator before new content."""
        self.sep = False
        if not self.content:
            return
        if self.kind == CELL_BOX:  # "a<br>b": a line break of a table cell
            if self.space and self.md[-1].endswith(" "):
                self.md[-1] = self.md[-1][:-1]
            self.md.append(CELL_BREAK)
        elif not self.space:
            self.md.append(" ")
        if not self.space:
            self.tx.append(" ")
        self.space = True

    def line_break(self) -> None:
        if self.kind >= HEADING_BOX:
            self.sep = self.sep or self.content
            return
        self.md.append("\n")
        self.tx.append("\n")
        self.space = True

    def block_break(self) -> None:
        if self.kind >= HEADING_BOX:
            self.sep = self.sep or self.content
        else:
            self.flush()

    def flush(self) -> None:
        """End the open paragraph of a block box: its inline buffer becomes block(s)."""
        if not self.md:
            return
        md = "".join(self.md)
        tx = "".join(self.tx)
        self.md = []
        self.tx = []
        self.gen += 1
        self.space = True
        self.content = False
        if "\n" not in md:
            md = md.strip()
            if md:
                self.blocks.append((escape_line_start(md), tx.strip(), PARA))
            return
        # hard line breaks: one <br> -> backslash break, two or more -> new paragraph
        groups: list[list[str]] = [[]]
        for line in md.split("\n"):
            line = line.strip()
            if line:
                groups[-1].append(escape_line_start(line))
            elif groups[-1]:
                groups.append([])
        text = "\n".join(line for line in (part.strip() for part in tx.split("\n")) if line)
        for group in groups:
            if group:
                self.blocks.append(("\\\n".join(group), text, PARA))
                text = ""


def close_item(box: Box, parent: Box) -> None:
    """The blocks of a closed list item, as one item block of `parent` behind its marker."""
    blocks = box.blocks
    if len(blocks) > 1 and blocks[0][2] == PARA == blocks[1][2] and not blocks[0][1]:
        # <li><figure><img><figcaption>..: an image-only first paragraph joins the
        # next one (soft break), so the marker line leads into the item's words
        blocks[:2] = [(f"{blocks[0][0]}\n{blocks[1][0]}", blocks[1][1], PARA)]
    md, tx = _join(blocks, "\n", tight=True)
    if not md:
        return
    marker = box.marker
    pad = " " * len(marker)
    lines = md.split("\n")
    if blocks[0][2] in _BARE_FIRST:
        head, rest = marker.rstrip(), lines
    else:
        head, rest = marker + lines[0], lines[1:]
    out = "\n".join([head, *(pad + line if line else "" for line in rest)])
    parent.blocks.append((out, tx, ITEM))
    parent.width = len(marker)


def close_list(box: Box, parent: Box) -> None:
    """The items of a closed list, as one list block of `parent`, or nested under
    `parent`'s last item when the list sits directly in another list."""
    md, tx = _join(box.blocks, "\n", tight=False)
    if not md:
        return
    first = md.split("\n", 1)[0]
    bare = first == "-" or (first[-1:] == "." and first[:-1].isdigit())
    kind = LIST_LOOSE if bare or (box.ordered and box.start != 1) else LIST
    if parent.kind == LIST_BOX and parent.blocks and parent.blocks[-1][2] == ITEM:
        # <ul><li>..</li><ul>..</ul></ul>: nest under the previous item
        prev_md, prev_tx, _ = parent.blocks[-1]
        pad = " " * parent.width
        nested = "\n".join(pad + line if line else "" for line in md.split("\n"))
        sep = "\n" if kind == LIST else "\n\n"
        parent.blocks[-1] = (f"{prev_md}{sep}{nested}", f"{prev_tx}\n{tx}", ITEM)
        return
    parent.blocks.append((md, tx, kind))


def close_quote(box: Box, parent: Box) -> None:
    """The blocks of a closed block quote, as one quote block of `parent`."""
    md, tx = _join(box.blocks, "\n\n", tight=False)
    if md:
        quoted = "\n".join(f"> {line}" if line else ">" for line in md.split("\n"))
        parent.blocks.append((quoted, tx, QUOTE))


def _join(blocks: list[Block], text_sep: str, *, tight: bool) -> tuple[str, str]:
    """Blocks as one Markdown string (blank line between blocks, none between list
    items, none between a paragraph and its sub-list when `tight`) and one text."""
    md_parts: list[str] = []
    tx_parts: list[str] = []
    prev = -1
    for md, tx, kind in blocks:
        if prev >= 0:
            if (kind == ITEM and prev == ITEM) or (tight and kind == LIST and prev == PARA):
                md_parts.append("\n")
            else:
                md_parts.append("\n\n")
        md_parts.append(md)
        if tx:
            tx_parts.append(tx)
        prev = kind
    return "".join(md_parts), text_sep.join(tx_parts)


def join_blocks(blocks: list[Block]) -> tuple[str, str]:
    """The region's top-level blocks as (Markdown, text)."""
    return _join(blocks, "\n\n", tight=False)


def separator(prev: int, kind: int) -> str:
    """Markdown between two top-level blocks of kinds `prev` and `kind`."""
    return "\n" if kind == ITEM and prev == ITEM else "\n\n"
