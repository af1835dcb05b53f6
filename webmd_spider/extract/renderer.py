"""The converter: ONE iterative walk over a content region that builds the
Markdown and the plain text side by side, and collects headings, links,
images and data tables on the way.

Model: a stack of boxes. A box collects finished blocks (Markdown, text, kind)
and an inline buffer (parallel Markdown and text pieces). Block elements end
the current paragraph (`_block_break`); lists, items and quotes open boxes whose
blocks are indented or prefixed when they close (a list that lays out sections,
`_layout_list`, is plain blocks); headings, bold lines (dt, summary, unless
they hold a heading) and table cells open "inline" boxes where every block construct
degrades to a separator, so their content stays on one line. Inline wrappers
(emphasis, links) remember where their content starts in the buffer and wrap
it when they close, unless a block boundary came in between; an emphasis piece
that ends the buffer is remembered too, so that the next piece can join it
(same kind) or move its edge punctuation out (see `Renderer._after_wrap`).

No recursion over the tree (explicit stacks): any nesting depth is fine.
Nesting of lists, quotes and inline wrappers that is deeper than a browser
reader would ever see is rendered flat, which keeps the work linear.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from webmd_spider.extract.document import Heading, Image, Link
from webmd_spider.extract.inline import (
    GUTTER_CLASS,
    char_before_marker,
    close_emphasis,
    code_fence,
    code_language,
    code_span,
    code_text,
    escape_line_start,
    escape_text,
    image_source,
    is_http,
    markdown_url,
    may_need_escape,
    open_emphasis,
    resolve,
    tidy_code,
)
from webmd_spider.extract.tables import (
    bound_repeats,
    build_grid,
    caption_of,
    classify,
    fill,
    line_numbers,
    merge_headers,
    row_cells,
    table_record,
    table_rows,
)
from webmd_spider.urls import site_key

MAX_IMAGES = 100
MAX_LIST_NESTING = 16  # deeper lists / items are rendered as plain blocks
MAX_QUOTE_NESTING = 16
MAX_WRAPS = 32  # deeper emphasis / links keep their text only
TAB_ATTR = "data-webmd-tab"
#: <br> and block boundaries inside a table cell: GFM cells are one line, and an inline
#: <br> is the line break GFM renders there ("; " read as ".;" after a sentence)
CELL_BREAK = "<br>"
CAPTION_MAX_CHARS = 200  # a code table's label cell longer than this is not a file name

# Box kinds; kinds >= HEADING_BOX are inline-only (their content is one line).
ROOT_BOX, LIST_BOX, ITEM_BOX, QUOTE_BOX, HEADING_BOX, BOLD_BOX, CELL_BOX = range(7)
# Block kinds.
PARA, LIST, LIST_LOOSE, ITEM, CODE, TABLE, HEADING, RULE, QUOTE = range(9)
_BARE_FIRST = frozenset(
    {CODE, TABLE, LIST, LIST_LOOSE, QUOTE, HEADING}
)  # item marker on its own line

Block = tuple[str, str, int]

# Element categories.
(
    INLINE, SKIP, BLOCK, HEAD, LISTS, LI, BQ, PRE, CODE_SPAN, STRONG, EM, STRIKE, ANCHOR,
    IMG, BR, HR, TABLE_EL, ROW, CELL, BOLD_LINE, MATH,
) = range(21)  # fmt: skip
_CATEGORY: dict[str, int] = {
    **dict.fromkeys(
        (
            *("script", "style", "noscript", "template", "head", "title", "svg", "canvas"),
            *("iframe", "object", "embed", "video", "audio", "map", "button", "select"),
            *("datalist", "meta", "link", "base"),
            # ruby annotations (furigana, pinyin) sit above the text they read: the
            # base text is the sentence, and "子こども" would break every word
            *("rt", "rp"),
        ),
        SKIP,
    ),
    **dict.fromkeys(
        (
            *("address", "article", "aside", "center", "details", "dialog", "dir", "div"),
            *("dl", "dd", "fieldset", "figcaption", "figure", "footer", "form", "header"),
            *("hgroup", "main", "nav", "p", "section", "caption", "legend", "body", "html"),
            *("tbody", "thead", "tfoot", "search", "article", "option", "optgroup"),
        ),
        BLOCK,
    ),
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), HEAD),
    **dict.fromkeys(("ul", "ol", "menu"), LISTS),
    "li": LI,
    "blockquote": BQ,
    **dict.fromkeys(("pre", "xmp", "listing", "plaintext"), PRE),
    **dict.fromkeys(("code", "kbd", "samp", "tt"), CODE_SPAN),
    **dict.fromkeys(("strong", "b"), STRONG),
    **dict.fromkeys(("em", "i"), EM),
    **dict.fromkeys(("del", "s", "strike"), STRIKE),
    "a": ANCHOR,
    "img": IMG,
    "br": BR,
    "hr": HR,
    "table": TABLE_EL,
    "tr": ROW,
    **dict.fromkeys(("td", "th"), CELL),
    **dict.fromkeys(("dt", "summary"), BOLD_LINE),
    "math": MATH,
}
_MARKERS = {STRONG: "**", EM: "*", STRIKE: "~~"}
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Children of a <dt>/<summary> that are or may hold a heading (see `_holds_heading`).
_HEADING_HOSTS = frozenset({*_HEADING_TAGS, "section", "article", "div", "header", "hgroup"})
_SECTIONS_IN_LIST = ("h1", "h2", "h3", "h4", "section", "article")  # see `_layout_list`
# End-of-element actions (first item of the record pushed at the element's start).
END_BREAK, END_WRAP, END_LINK, END_BOX = range(4)
_BREAK = (END_BREAK,)
_STRING = etree.XPath("string()")
# An inline `display` style makes a block element (div, span-like p...) flow inline.
_INVISIBLE_BREAKS = {0xAD: None, 0x200B: None}
_WORDY = re.compile(r"\w").search
_INLINE_DISPLAY = re.compile(r"display\s*:\s*(?:-[a-z]+-)?inline(?!-table)", re.I).search


class _Box:
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
        # What comes next decides whether that marker can close (see `_after_wrap`).
        self.wrap: tuple[Any, ...] | None = None
        # `wrap`, for the next emphasis opened right after it, which joins it when of
        # the same kind ("**a**" + "**b**" is "**ab**"); any other opening takes it away.
        self.merge: tuple[Any, ...] | None = None
        # The code span that ends the buffer: (index in md, gen, code), for the next
        # one to join ("`a`" + "`b`" is the one span "a``b"); an opening wrap clears it.
        self.code: tuple[int, int, str] | None = None


def _strip_ws(content: str) -> tuple[str, str, str]:
    """(leading whitespace, core, trailing whitespace) of an inline run."""
    core = content.strip(" \n")
    if not core:
        return content, "", ""
    left = len(content) - len(content.lstrip(" \n"))
    right = len(content.rstrip(" \n"))
    return content[:left], core, content[right:]


def _int_attr(element: etree._Element, name: str, default: int) -> int:
    raw = (element.get(name) or "").strip()
    if raw[:1] == "-" or not raw.isdigit():
        return default
    return min(int(raw[:9]), 999_999_999)


class Renderer:
    """One use: `run(region)`, then read `blocks`, `headings`, `links`, `images`, `tables`."""

    def __init__(
        self,
        *,
        base_url: str,
        page_site: str,
        keep_links: bool,
        keep_images: bool,
        cell_sep: str = "\t",
        tab_labels: bool = True,
    ) -> None:
        self.base_url = base_url
        self.page_url = base_url.split("#", 1)[0]
        self.page_site = page_site
        self.keep_links = keep_links
        self.keep_images = keep_images
        self.cell_sep = cell_sep
        #: False when no element carries TAB_ATTR: the walk need not read it
        self.tab_labels = tab_labels
        self.headings: list[Heading] = []
        self.links: list[Link] = []
        self.images: list[Image] = []
        self.tables: list[dict[str, Any]] = []
        self._seen_links: set[str] = set()
        self._seen_images: set[str] = set()
        self._sites: dict[str, str] = {}
        self.root = _Box(ROOT_BOX)
        self.box = self.root
        self.boxes = [self.root]
        self.inline = 0  # > 0 inside inline-only boxes
        self.open_wraps = {STRONG: 0, EM: 0, STRIKE: 0}
        self.wraps = 0
        self.links_open = 0
        self.list_depth = 0
        self.quote_depth = 0
        self._layout_lists: set[etree._Element] = set()  # lists rendered as plain blocks

    # --- the walk -------------------------------------------------------------

    def run(self, region: etree._Element) -> list[Block]:
        self.walk(region)
        self._flush(self.root)
        return self.root.blocks

    def walk(self, top: etree._Element) -> None:
        """Render `top` and its subtree (not its tail) into the current box."""
        descend, record = self._start(top)
        if not descend:
            self._end(record)
            return
        if top.text:
            self._text(top.text)
        # children as slices (one C call each) walked by list iterators: cheaper than
        # lxml's child iterators, which cost a call per child (lxml-stubs type only
        # integer indexes, hence the ignores)
        iterators = [iter(top[:])]  # type: ignore[index]
        elements = [top]
        ends = [record]
        # most elements need nothing at their end (record None): no call for them
        while iterators:
            child = next(iterators[-1], None)
            if child is None:
                iterators.pop()
                done = elements.pop()
                record = ends.pop()
                if record is not None:
                    self._end(record)
                if iterators and done.tail:
                    self._text(done.tail)
                continue
            if not isinstance(child.tag, str):  # comment, processing instruction
                if child.tail:
                    self._text(child.tail)
                continue
            descend, record = self._start(child)
            if descend:
                if child.text:
                    self._text(child.text)
                iterators.append(iter(child[:]))  # type: ignore[index]
                elements.append(child)
                ends.append(record)
            else:
                if record is not None:
                    self._end(record)
                if child.tail:
                    self._text(child.tail)

    def _start(self, el: etree._Element) -> tuple[bool, tuple[Any, ...] | None]:
        """Open `el`: (walk its children?, record for its end)."""
        tag = el.tag
        if tag == "dl" and _link_tree(el):
            _tree_to_list(el)
            tag = "ul"
        category = _CATEGORY.get(tag, INLINE)
        if self.tab_labels:
            label = el.get(TAB_ATTR)
            if label is not None and category != SKIP:
                self._tab_label(label)
        if category == INLINE:
            return True, None
        if category == SKIP:
            return False, None
        if category == CODE_SPAN:  # the most frequent element of documentation: test it early
            self._inline_code(el)
            return False, None
        inline = self.inline > 0
        if category == BLOCK and (style := el.get("style")) and _INLINE_DISPLAY(style):
            # <div style="display:inline-block">: no line break around it; an empty
            # one (a widget's shell) is skipped with its empty block children
            empty = not str(_STRING(el)).strip() and next(el.iter("img"), None) is None
            return not empty, None
        if category in (BLOCK, ROW) or (inline and category in (HEAD, LISTS, LI, BQ, HR, TABLE_EL)):
            self._block_break()
            return True, _BREAK
        if category in (STRONG, EM, STRIKE):
            if self.open_wraps[category] or self.wraps >= MAX_WRAPS:
                return True, None
            self.open_wraps[category] += 1
            self.wraps += 1
            box = self.box
            if box.sep:  # a pending cell/heading separator goes before the markup
                self._separate(box)
            if box.wrap is not None and box.wrap[2] != category:
                # a marker of another kind follows the last one ("**" after "*" joins
                # its run; "~~" after "**" does not): decide whether the last can close
                other = _MARKERS[category][0]
                if other != _MARKERS[box.wrap[2]][0]:
                    self._after_wrap(box, other)
            merge, box.merge, box.code = box.merge, None, None
            if merge is not None and (
                merge[2] != category or merge[0] != len(box.md) - 1 or merge[1] != box.gen
            ):
                merge = None
            return True, (END_WRAP, box, box.gen, len(box.md), category, merge)
        if category == ANCHOR:
            return True, self._start_link(el)
        if category == IMG:
            self._image(el)
            return False, None
        if category == BR:
            self._line_break()
            return False, None
        if category == CELL:
            if inline:
                self._soft_space()
                return True, None
            self._block_break()
            return True, _BREAK
        if category == PRE:
            self._pre(el)
            return False, None
        if category == HEAD:
            box = self._open(HEADING_BOX)
            box.level = int(str(el.tag)[1])
            return True, (END_BOX,)
        if category == BOLD_LINE:
            if inline or _holds_heading(el):
                # a <summary>/<dt> holding a heading (rustdoc's method signatures) is a
                # block: the heading stays a heading, not words of one bold line
                self._block_break()
                return True, _BREAK
            self._open(BOLD_BOX)
            self.open_wraps[STRONG] += 1
            return True, (END_BOX,)
        if category == LISTS:
            if self.list_depth >= MAX_LIST_NESTING:
                self._block_break()
                return True, _BREAK
            if _layout_list(el):
                self._layout_lists.add(el)
                self._block_break()
                return True, _BREAK
            box = self._open(LIST_BOX)
            self.list_depth += 1
            box.ordered = el.tag == "ol"
            box.start = box.number = _int_attr(el, "start", 1)
            return True, (END_BOX,)
        if category == LI:
            if (
                self.list_depth > MAX_LIST_NESTING
                or len(self.boxes) > 4 * MAX_LIST_NESTING
                or (self._layout_lists and el.getparent() in self._layout_lists)
            ):
                self._block_break()
                return True, _BREAK
            parent = self.box
            if parent.kind == LIST_BOX:
                number = _int_attr(el, "value", parent.number)
                parent.number = number + 1
                marker = f"{number}. " if parent.ordered else "- "
            else:
                marker = "- "
            self._open(ITEM_BOX).marker = marker
            return True, (END_BOX,)
        if category == BQ:
            if self.quote_depth >= MAX_QUOTE_NESTING:
                self._block_break()
                return True, _BREAK
            self._open(QUOTE_BOX)
            self.quote_depth += 1
            return True, (END_BOX,)
        if category == HR:
            self._block_break()
            self.box.blocks.append(("---", "", RULE))
            return False, None
        if category == TABLE_EL:
            kind = classify(el)
            if kind == "data":
                self._data_table(el)
                return False, None
            if kind == "gutter":
                self._gutter_table(el)
                return False, None
            self._block_break()
            return True, _BREAK
        if category == MATH:
            self._math(el)
            return False, None
        return True, None

    def _end(self, record: tuple[Any, ...] | None) -> None:
        if record is None:
            return
        action = record[0]
        if action == END_BREAK:
            self._block_break()
        elif action == END_WRAP:
            self._end_wrap(record)
        elif action == END_LINK:
            self._end_link(record)
        else:
            self._close()

    # --- inline buffer --------------------------------------------------------

    def _text(self, text: str) -> None:
        box = self.box
        if "\xad" in text or "\u200b" in text:
            # a soft hyphen or zero-width space is a line-break hint, never a visible
            # character: "Mit&shy;tel&shy;al&shy;ter" reads (and is searched) "Mittelalter"
            text = text.translate(_INVISIBLE_BREAKS)
        words = text.split()
        if not words:
            if not box.space:
                box.md.append(" ")
                box.tx.append(" ")
                box.space = True
            return
        if box.sep:
            self._separate(box)
        plain = words[0] if len(words) == 1 else " ".join(words)
        # most runs need no escaping: the pre-check here saves a call per text node
        md = escape_text(plain, self.links_open > 0) if may_need_escape(plain) else plain
        if not box.space and text[0].isspace():
            md = " " + md
            plain = " " + plain
        if box.wrap is not None:
            self._after_wrap(box, md[0])
        box.space = text[-1].isspace()
        if box.space:
            md += " "
            plain += " "
        box.md.append(md)
        box.tx.append(plain)
        box.content = True

    def _emit(self, md: str, tx: str) -> None:
        """Append non-whitespace inline content."""
        box = self.box
        if box.sep:
            self._separate(box)
        if box.wrap is not None:
            self._after_wrap(box, md[0])
        box.md.append(md)
        box.tx.append(tx)
        box.space = False
        box.content = True

    def _soft_space(self) -> None:
        box = self.box
        if not box.space:
            box.md.append(" ")
            box.tx.append(" ")
            box.space = True

    def _separate(self, box: _Box) -> None:
        """Inline boxes: put the pending block separator before new content."""
        box.sep = False
        if not box.content:
            return
        if box.kind == CELL_BOX:  # "a<br>b": a line break of a table cell
            if box.space and box.md[-1].endswith(" "):
                box.md[-1] = box.md[-1][:-1]
            box.md.append(CELL_BREAK)
        elif not box.space:
            box.md.append(" ")
        if not box.space:
            box.tx.append(" ")
        box.space = True

    def _line_break(self) -> None:
        box = self.box
        if box.kind >= HEADING_BOX:
            box.sep = box.sep or box.content
            return
        box.md.append("\n")
        box.tx.append("\n")
        box.space = True

    def _block_break(self) -> None:
        box = self.box
        if box.kind >= HEADING_BOX:
            box.sep = box.sep or box.content
        else:
            self._flush(box)

    def _flush(self, box: _Box) -> None:
        """End the open paragraph of a block box: its inline buffer becomes block(s)."""
        if not box.md:
            return
        md = "".join(box.md)
        tx = "".join(box.tx)
        box.md = []
        box.tx = []
        box.gen += 1
        box.space = True
        box.content = False
        if "\n" not in md:
            md = md.strip()
            if md:
                box.blocks.append((escape_line_start(md), tx.strip(), PARA))
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
                box.blocks.append(("\\\n".join(group), text, PARA))
                text = ""

    # --- boxes ----------------------------------------------------------------

    def _open(self, kind: int) -> _Box:
        self._block_break()
        box = _Box(kind)
        self.boxes.append(box)
        self.box = box
        if kind >= HEADING_BOX:
            self.inline += 1
        return box

    def _close(self) -> None:
        box = self.boxes.pop()
        parent = self.box = self.boxes[-1]
        kind = box.kind
        if kind >= HEADING_BOX:
            self.inline -= 1
            if kind == BOLD_BOX:
                self.open_wraps[STRONG] -= 1
            md = "".join(box.md).strip()
            if not md:
                return
            tx = " ".join("".join(box.tx).split())
            if kind == HEADING_BOX:
                if md[-1] == "#" and (md.rstrip("#")[-1:] in ("", " ")):
                    cut = len(md.rstrip("#"))  # not a closing sequence: "Sub \\####"
                    md = f"{md[:cut]}\\{md[cut:]}"
                self.headings.append(Heading(level=box.level, text=tx))
                parent.blocks.append((f"{'#' * box.level} {md}", tx, HEADING))
            else:  # bold line
                parent.blocks.append((f"**{md}**", tx, PARA))
            return
        self._flush(box)
        if kind == ITEM_BOX:
            self._close_item(box, parent)
        elif kind == LIST_BOX:
            self.list_depth -= 1
            self._close_list(box, parent)
        elif kind == QUOTE_BOX:
            self.quote_depth -= 1
            md, tx = _join(box.blocks, "\n\n", tight=False)
            if md:
                quoted = "\n".join(f"> {line}" if line else ">" for line in md.split("\n"))
                parent.blocks.append((quoted, tx, QUOTE))

    def _close_item(self, box: _Box, parent: _Box) -> None:
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

    def _close_list(self, box: _Box, parent: _Box) -> None:
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

    # --- elements -------------------------------------------------------------

    def _tab_label(self, label: str) -> None:
        label = " ".join(label.split())
        if not label:
            return
        if self.inline:
            self._emit(escape_text(label), label)
            self._soft_space()
            return
        self._block_break()
        self.box.blocks.append((f"**{escape_text(label)}**", label, PARA))

    def _end_wrap(self, record: tuple[Any, ...]) -> None:
        _, box, gen, pos, category, merge = record
        self.open_wraps[category] -= 1
        self.wraps -= 1
        if box.gen != gen or box is not self.box or len(box.md) <= pos:
            return
        lead, core, trail = _strip_ws("".join(box.md[pos:]))
        if not core:
            return
        box.code = None  # pieces are replaced: a code span may no longer end the buffer
        marker = _MARKERS[category]
        head = lead
        if not lead and merge is not None and box.md[pos - 1] is merge[5]:
            # <b>a</b><b>b</b> is "**ab**": "**a****b**" would be literal asterisks (a run
            # of four neither closes "a" nor opens "b"), likewise for * and ~~
            pos -= 1
            head, core = merge[3], merge[4] + core
        elif not lead:
            before = char_before_marker(box.md[pos - 1], marker[0]) if pos else ""
            opened = open_emphasis(before, core, marker[0])
            if opened is None:  # it could not open: the words without the markers
                inner = box.wrap
                box.md[pos:] = [core + trail]
                box.wrap = box.merge = None
                if not trail and inner is not None and inner[1] == gen and core.endswith(inner[5]):
                    # emphasis ending ours now ends the buffer: what follows still decides
                    outside = core[: len(core) - len(inner[5])]
                    box.wrap = (pos, gen, inner[2], outside + inner[3], inner[4], core)
                return
            head, core = opened  # "a" + "**(x)**" could not open: "a(" + "**x)**"
        piece = f"{head}{marker}{core}{marker}{trail}"
        box.md[pos:] = [piece]
        box.wrap = box.merge = None if trail else (pos, gen, category, head, core, piece)

    def _after_wrap(self, box: _Box, first: str) -> None:
        """`first` (a character) is about to follow the buffer: when the emphasis
        piece `box.wrap` ends the buffer and its closing marker could not close before
        `first` (punctuation inside, a letter outside: CommonMark §6.2
        right-flanking), move that punctuation after the marker, or drop the markers."""
        last = box.wrap
        assert last is not None
        box.wrap = None  # after `first`, it no longer ends the buffer
        index, gen, category, head, core, _ = last
        if index != len(box.md) - 1 or gen != box.gen:
            return
        marker = _MARKERS[category]
        closed = close_emphasis(core, first, marker[0])
        if closed is not None and not closed[1]:
            return
        box.merge = None
        if closed is None:  # it could not close: the words without the markers
            box.md[index] = head + _close_nested(core, first)
        else:  # "**Note:**" + "text" -> "**Note**:" + "text"
            box.md[index] = f"{head}{marker}{closed[0]}{marker}{closed[1]}"

    def _site(self, url: str) -> str:
        cut = url.find("/", url.find("//") + 2)
        origin = url if cut < 0 else url[:cut]
        site = self._sites.get(origin)
        if site is None:
            try:
                site = site_key(origin)
            except ValueError:
                site = ""
            self._sites[origin] = site
        return site

    def _start_link(self, el: etree._Element) -> tuple[Any, ...] | None:
        href = el.get("href")
        if not href:
            return None
        in_page = href.lstrip()[:1] == "#"
        if in_page:
            # a same-page reference ("see Defining Functions") keeps its target: the page's
            # URL and the fragment. Not a link of the page (`links`): never a crawl target.
            fragment = href.strip()[1:]
            if not fragment or not self.page_url or not self.keep_links:
                return None
            if not _WORDY(str(_STRING(el))):
                return None  # a back-reference mark ("^", "↑"): a control, no reference
            url: str | None = f"{self.page_url.partition('#')[0]}#{fragment}"
        else:
            url = resolve(self.base_url, href)
        if url is None:
            return None
        page, _, fragment = url.partition("#")
        in_page = in_page or bool(fragment and page == self.page_url)
        listed: Link | None = None
        if not in_page and is_http(page) and page not in self._seen_links:
            self._seen_links.add(page)
            site = self._site(page)
            listed = Link(text="", url=page, internal=bool(site) and site == self.page_site)
            self.links.append(listed)
        wrap = self.keep_links and not self.links_open and self.wraps < MAX_WRAPS
        if not wrap and listed is None:
            return None
        box = self.box
        if wrap:
            self.links_open += 1
            self.wraps += 1
            if box.sep:
                self._separate(box)
            if box.wrap is not None:  # "[" follows it: the last marker can close
                self._after_wrap(box, "[")
            box.merge = box.code = None
        return (END_LINK, box, box.gen, len(box.md), len(box.tx), url if wrap else None, listed, el)

    def _end_link(self, record: tuple[Any, ...]) -> None:
        _, box, gen, pos, pos_tx, url, listed, el = record
        same_run = box.gen == gen and box is self.box
        if listed is not None:
            if same_run:
                listed.text = " ".join("".join(box.tx[pos_tx:]).split())
            else:  # the link spans blocks: its text nodes, space-separated
                listed.text = " ".join(" ".join(el.itertext()).split())
        if url is None:
            return
        self.links_open -= 1
        self.wraps -= 1
        if not same_run or len(box.md) <= pos:
            return
        lead, core, trail = _strip_ws("".join(box.md[pos:]))
        if core:
            if not lead and pos and box.md[pos - 1][-1:] == "!":
                # "Hi!" + "[x](u)" would be an image ("![x](u)"); text never escapes "!"
                box.md[pos - 1] = box.md[pos - 1][:-1] + "\\!"
            box.md[pos:] = [f"{lead}[{core}]({markdown_url(url)}){trail}"]
            box.wrap = box.merge = box.code = None

    def _image(self, el: etree._Element) -> None:
        raw = image_source(el)
        url = resolve(self.base_url, raw) if raw else None
        if not url or not is_http(url):
            return
        alt = " ".join((el.get("alt") or "").split())
        if url not in self._seen_images and len(self.images) < MAX_IMAGES:
            self._seen_images.add(url)
            self.images.append(Image(src=url, alt=alt))
        if not self.keep_images:
            return
        box = self.box
        if box.sep:
            self._separate(box)
        image = f"![{escape_text(alt, True)}]({markdown_url(url)})"
        # the text has no image: keep its spacing right by not ending in a word
        box.md.append(image + " " if box.space else image)
        box.content = True

    def _inline_code(self, el: etree._Element) -> None:
        # most code spans hold one text node: its string value without an XPath call
        raw = (el.text or "") if not len(el) else str(_STRING(el))
        core = raw.strip()
        if not core:
            if raw:
                self._text(raw)
            return
        if "\n" in core and not self.inline and _alone(el):
            self._code_block(tidy_code(raw), code_language(el))
            return
        if "  " in core or "\n" in core or "\r" in core or "\t" in core:
            # inline code is inline: white-space runs collapse to one space, as a browser
            # shows them (`timestamp without time      zone` was a source line break)
            core = " ".join(core.split())
        if raw[0].isspace():
            self._soft_space()
        box = self.box
        code = box.code
        if code is not None and code[0] == len(box.md) - 1 and code[1] == box.gen and not box.sep:
            # <code>a</code><code>b</code> is "`ab`": "`a``b`" is the one span "a``b"
            joined = code[2] + core
            box.md[-1] = code_span(joined)
            box.tx.append(core)
        else:
            joined = core
            self._emit(code_span(core), core)
        box.code = (len(box.md) - 1, box.gen, joined)
        if raw[-1].isspace():
            self._soft_space()

    def _pre(self, el: etree._Element, language: str = "") -> None:
        code = code_text(el)
        if code.strip():
            self._code_block(code, code_language(el) or language)

    def _code_block(self, code: str, language: str) -> None:
        if self.inline:  # a table cell or heading: one code span per line
            self.box.sep = True  # a block: apart from the words before it
            for line in code.split("\n"):
                line = line.strip()
                if line:
                    self._emit(code_span(line), line)
                    self.box.sep = True
            return
        self._block_break()
        fence = code_fence(code)
        self.box.blocks.append((f"{fence}{language}\n{code}\n{fence}", code, CODE))

    def _math(self, el: etree._Element) -> None:
        text = el.get("alttext")
        if not text:
            annotation = next(el.iter("annotation"), None)
            text = str(_STRING(annotation if annotation is not None else el))
        self._text(f" {text} ")

    def _render_cell(self, cell: etree._Element) -> tuple[str, str]:
        """(Markdown, text) of a table cell on one line, `|` escaped."""
        if not len(cell) and (not self.tab_labels or cell.get(TAB_ATTR) is None):
            # text only: the common case
            plain = " ".join((cell.text or "").split())
            md = escape_text(plain)
            return (md.replace("|", "\\|") if "|" in md else md), plain
        box = _Box(CELL_BOX)
        outer = self.box
        self.boxes.append(box)
        self.box = box
        self.inline += 1
        self.walk(cell)
        self.inline -= 1
        self.boxes.pop()
        self.box = outer
        md = "".join(box.md)
        if md.endswith(CELL_BREAK):  # left by markup that stayed empty
            md = md[: -len(CELL_BREAK)]
        md = md.strip()
        if "|" in md:
            md = md.replace("|", "\\|")
        if "\n" in md:
            md = md.replace("\n", " ")
        return md, " ".join("".join(box.tx).split())

    def _data_table(self, table: etree._Element) -> None:
        self._block_break()
        grid = build_grid(table)
        if not grid.rows or not grid.width:
            return
        md_cells: dict[etree._Element, str] = {}
        tx_cells: dict[etree._Element, str] = {}
        for row in grid.rows:
            for cell in row:
                if cell is not None and cell not in md_cells:
                    md_cells[cell], tx_cells[cell] = self._render_cell(cell)
        if not any(md_cells.values()):
            return
        if grid.spanned:  # repeats of spanned cells within a budget (tables.bound_repeats)
            sizes = {cell: max(len(md), len(tx_cells[cell])) for cell, md in md_cells.items()}
            grid = bound_repeats(grid, sizes)
        caption_el = caption_of(table)
        if caption_el is not None:
            caption_md, caption_tx = self._render_cell(caption_el)
            if caption_md:
                self.box.blocks.append((escape_line_start(caption_md), caption_tx, PARA))
        else:
            caption_tx = ""
        md_grid = fill(grid, md_cells, "")
        tx_grid = fill(grid, tx_cells, "")
        head = grid.header_count
        width = grid.width
        labels = merge_headers(md_grid.rows[:head], width) if head else [""] * width
        lines = ["| " + " | ".join(labels) + " |", "|" + " --- |" * width]
        lines.extend("| " + " | ".join(row) + " |" for row in md_grid.rows[head:])
        text_rows = [self.cell_sep.join(v for v in merge_headers(tx_grid.rows[:head], width) if v)]
        for cells, values in zip(grid.rows[head:], tx_grid.rows[head:], strict=True):
            distinct = [
                v for i, v in enumerate(values) if v and (i == 0 or cells[i] is not cells[i - 1])
            ]
            text_rows.append(self.cell_sep.join(distinct))
        self.box.blocks.append(("\n".join(lines), "\n".join(r for r in text_rows if r), TABLE))
        self.tables.append(table_record(len(self.tables), caption_tx or None, tx_grid))

    def _gutter_table(self, table: etree._Element) -> None:
        """A code block laid out as a table with a line-number column: the code only,
        after the file name that a cell without code may show (MkDocs' "filename")."""
        language = code_language(table)
        code_cells: list[etree._Element] = []
        for row in table_rows(table)[0]:
            cells = row_cells(row)
            for index, cell in enumerate(cells):
                if GUTTER_CLASS.search(cell.get("class") or ""):
                    continue
                if index == 0 and len(cells) > 1 and line_numbers(cell):
                    continue  # a number column without a class (tables._numbered_code)
                code_cells.append(cell)
        pres = [pre for cell in code_cells for pre in cell.iter("pre")]
        if pres:
            for cell in code_cells:
                if next(cell.iter("pre"), None) is None:
                    self._caption_line(cell)
            for pre in pres:
                self._pre(pre, language)
            return
        lines = [code_text(cell, tidy=False).rstrip("\n") for cell in code_cells]
        code = tidy_code("\n".join(lines))
        if code.strip():
            self._code_block(code, language)

    def _caption_line(self, cell: etree._Element) -> None:
        """A short label cell (a file name) as a line of its own."""
        md, tx = self._render_cell(cell)
        if md and len(tx) <= CAPTION_MAX_CHARS:
            self._block_break()
            self.box.blocks.append((escape_line_start(md), tx, PARA))


def _link_tree(dl: etree._Element) -> bool:
    """`dl` is a tree of links, not a list of definitions: each term is one link and
    nothing else, each description only nested lists (DocBook's tables of contents:
    ``<dt><a>Part I</a></dt><dd><dl>...</dl></dd>``)."""
    terms = 0
    for child in dl.iterchildren(etree.Element):
        if child.tag == "dt":
            links = child.findall(".//a")
            if len(links) != 1:
                return False
            if " ".join(str(_STRING(child)).split()) != " ".join(str(_STRING(links[0])).split()):
                return False
            terms += 1
        elif child.tag == "dd":
            if (child.text or "").strip() or any(
                c.tag not in ("dl", "ul", "ol") or (c.tail or "").strip()
                for c in child.iterchildren(etree.Element)
            ):
                return False
        else:
            return False
    return terms > 0


def _tree_to_list(dl: etree._Element) -> None:
    """Rewrite a `_link_tree` in place as the nested list it is: each term an item,
    each description's lists moved into the item before it."""
    dl.tag = "ul"
    item: etree._Element | None = None
    for child in list(dl.iterchildren(etree.Element)):
        if child.tag == "dt":
            child.tag = "li"
            item = child
        else:  # dd: its lists go into the term's item
            if item is not None:
                for nested in list(child.iterchildren(etree.Element)):
                    item.append(nested)
            dl.remove(child)


def _close_nested(markdown: str, first: str) -> str:
    """`markdown` ending in the closing marker of nested emphasis, before the character
    `first`: with its punctuation moved out when that marker could not close there."""
    char = markdown[-1:]
    if char not in ("*", "~"):
        return markdown
    run = len(markdown) - len(markdown.rstrip(char))
    closed = close_emphasis(markdown[:-run], first, char)
    if closed is None:
        # it cannot close either: when its opening run is plain to see (nothing that
        # could be a marker in between), drop that pair as well
        opening = markdown.rfind(markdown[-run:], 0, len(markdown) - run)
        inside = markdown[opening + run : -run]
        if opening < 0 or not inside or "*" in inside or "~" in inside:
            return markdown
        if markdown[opening - 1 : opening] == char:
            return markdown
        return markdown[:opening] + inside
    if not closed[1]:
        return markdown
    return closed[0] + markdown[-run:] + closed[1]


def _holds_heading(el: etree._Element) -> bool:
    """A heading is a child of `el` or inside a block child. (Most <dt> hold a few inline
    children: a look at them is cheaper than a search of the subtree, and a heading
    inside inline markup is not valid HTML.)"""
    for child in el:
        if child.tag in _HEADING_HOSTS:
            return next(el.iter(*_HEADING_TAGS), None) is not None
    return False


def _layout_list(lst: etree._Element) -> bool:
    """A list used to lay out a page (javadoc's member lists, one item per section; card
    grids): an item holds a <section>/<article>, or opens with a heading h1-h4 that
    content follows (a section's title, then its body). A heading after the item's
    words (an admonition's "Note" in a step), alone or last in its item (a title, a
    caption), and h5/h6 (small labels) are parts of a real list's items."""
    for el in lst.iter(*_SECTIONS_IN_LIST):
        if el.tag == "section" or el.tag == "article":
            return True
        if _opens_item(el, lst):
            return True
    return False


def _opens_item(heading: etree._Element, lst: etree._Element) -> bool:
    """No text comes before `heading` in its list item, and some comes after it."""
    follows = False
    node = heading
    while node is not lst and node.tag != "li":
        parent = node.getparent()
        if parent is None:
            return False
        if parent.text and not parent.text.isspace():
            return False
        for before in node.itersiblings(preceding=True):
            if _text_in(before):
                return False
        if not follows:
            follows = any(_text_in(after) for after in node.itersiblings()) or bool(
                node.tail and not node.tail.isspace()
            )
        node = parent
    return follows


def _text_in(el: etree._Element) -> bool:
    """`el` (a sibling) or the text after it holds words."""
    if el.tail and not el.tail.isspace():
        return True
    return isinstance(el.tag, str) and _has_text(el)


def _has_text(el: etree._Element) -> bool:
    """`el` holds words (stops at the first)."""
    return any(not text.isspace() for text in el.itertext())


def _alone(el: etree._Element) -> bool:
    """`el` is the only content of its parent (a <code> used as a code block)."""
    parent = el.getparent()
    return (
        parent is not None
        and len(parent) == 1
        and not (parent.text or "").strip()
        and not (el.tail or "").strip()
    )


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
