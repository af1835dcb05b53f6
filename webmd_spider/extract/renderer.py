"""The converter: ONE iterative walk over a content region that builds the
Markdown and the plain text side by side, and collects headings, links,
images and data tables on the way.

Model: a stack of boxes (`render_boxes.Box`). A box collects finished blocks
(Markdown, text, kind) and an inline buffer (parallel Markdown and text pieces).
Block elements end the current paragraph (`Box.block_break`); lists, items and quotes
open boxes whose blocks are indented or prefixed when they close (a list that lays out
sections, `render_elements._layout_list`, is plain blocks); headings, bold lines (dt,
summary, unless they hold a heading) and table cells open "inline" boxes where every
block construct degrades to a separator, so their content stays on one line. Inline
wrappers (emphasis, links) remember where their content starts in the buffer and wrap
it when they close, unless a block boundary came in between; an emphasis piece
that ends the buffer is remembered too, so that the next piece can join it
(same kind) or move its edge punctuation out (see `render_wraps.after_wrap`).

This module is the walk: what each element opens and closes (its category and the
tests of its shape are in `render_elements.py`), with links, images, code, math and
tables. The boxes and the joining of their blocks are in `render_boxes.py`, the
emphasis and link markup in `render_wraps.py`, where links and images lead in
`render_links.py`, and the layout of a table's rendered cells in `render_tables.py`.

No recursion over the tree (explicit stacks): any nesting depth is fine.
Nesting of lists, quotes and inline wrappers that is deeper than a browser
reader would ever see is rendered flat, which keeps the work linear.

Why one file of over 500 lines: the element handlers of the walk share its box stack,
its open-wrap counters and what it collects, as one state machine.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from webmd_spider.extract.document import Heading
from webmd_spider.extract.inline import (
    code_fence,
    code_language,
    code_span,
    code_text,
    escape_line_start,
    escape_text,
    markdown_url,
    tidy_code,
)
from webmd_spider.extract.render_boxes import (
    BOLD_BOX,
    CELL_BOX,
    CELL_BREAK,
    CODE,
    HEADING,
    HEADING_BOX,
    ITEM_BOX,
    LIST_BOX,
    PARA,
    QUOTE_BOX,
    ROOT_BOX,
    RULE,
    TABLE,
    Block,
    Box,
    close_item,
    close_list,
    close_quote,
)
from webmd_spider.extract.render_elements import (
    _CATEGORY,
    _INLINE_DISPLAY,
    ANCHOR,
    BLOCK,
    BOLD_LINE,
    BQ,
    BR,
    CELL,
    CODE_SPAN,
    EM,
    HEAD,
    HR,
    IMG,
    INLINE,
    LI,
    LISTS,
    MATH,
    PRE,
    ROW,
    SKIP,
    STRIKE,
    STRONG,
    TABLE_EL,
    _alone,
    _holds_heading,
    _int_attr,
    _layout_list,
    _link_tree,
    _tree_to_list,
    heading_anchor,
    math_tex,
)
from webmd_spider.extract.render_links import Targets
from webmd_spider.extract.render_tables import code_cells, pipe_table
from webmd_spider.extract.render_wraps import end_emphasis, end_link, start_emphasis, start_link
from webmd_spider.extract.tables import (
    bound_repeats,
    build_grid,
    caption_of,
    classify,
    table_record,
)

MAX_LIST_NESTING = 16  # deeper lists / items are rendered as plain blocks
MAX_QUOTE_NESTING = 16
MAX_WRAPS = 32  # deeper emphasis / links keep their text only
TAB_ATTR = "data-webmd-tab"
CAPTION_MAX_CHARS = 200  # a code table's label cell longer than this is not a file name

# End-of-element actions (first item of the record pushed at the element's start).
END_BREAK, END_WRAP, END_LINK, END_BOX = range(4)
_BREAK = (END_BREAK,)
_STRING = etree.XPath("string()")


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
        #: the links and images of the region, resolved and listed once
        self.targets = Targets(base_url=base_url, page_site=page_site, keep_links=keep_links)
        self.keep_links = keep_links
        self.keep_images = keep_images
        self.cell_sep = cell_sep
        #: False when no element carries TAB_ATTR: the walk need not read it
        self.tab_labels = tab_labels
        self.headings: list[Heading] = []
        #: the open headings' anchors (heading_anchor), innermost last
        self.anchors: list[str | None] = []
        self.links = self.targets.links
        self.images = self.targets.images
        self.tables: list[dict[str, Any]] = []
        self.root = Box(ROOT_BOX)
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
        self.root.flush()
        blocks = self.root.blocks
        # a thematic break that opens or closes the content separated it from chrome
        # that is gone (a manual's navigation header above its <hr>): nothing to part
        while blocks and blocks[0][2] == RULE:
            del blocks[0]
        while blocks and blocks[-1][2] == RULE:
            del blocks[-1]
        return blocks

    def walk(self, top: etree._Element) -> None:
        """Render `top` and its subtree (not its tail) into the current box."""
        descend, record = self._start(top)
        if not descend:
            self._end(record)
            return
        if top.text:
            self.box.text(top.text, self.links_open > 0)
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
                    self.box.text(done.tail, self.links_open > 0)
                continue
            if not isinstance(child.tag, str):  # comment, processing instruction
                if child.tail:
                    self.box.text(child.tail, self.links_open > 0)
                continue
            descend, record = self._start(child)
            if descend:
                if child.text:
                    self.box.text(child.text, self.links_open > 0)
                iterators.append(iter(child[:]))  # type: ignore[index]
                elements.append(child)
                ends.append(record)
            else:
                if record is not None:
                    self._end(record)
                if child.tail:
                    self.box.text(child.tail, self.links_open > 0)

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
            self.box.block_break()
            return True, _BREAK
        if category in (STRONG, EM, STRIKE):
            if self.open_wraps[category] or self.wraps >= MAX_WRAPS:
                return True, None
            self.open_wraps[category] += 1
            self.wraps += 1
            box = self.box
            merge = start_emphasis(box, category)
            return True, (END_WRAP, box, box.gen, len(box.md), category, merge)
        if category == ANCHOR:
            return True, self._start_link(el)
        if category == IMG:
            self._image(el)
            return False, None
        if category == BR:
            self.box.line_break()
            return False, None
        if category == CELL:
            if inline:
                self.box.soft_space()
                return True, None
            self.box.block_break()
            return True, _BREAK
        if category == PRE:
            self._pre(el)
            return False, None
        if category == HEAD:
            box = self._open(HEADING_BOX)
            box.level = int(str(el.tag)[1])
            self.anchors.append(heading_anchor(el))
            return True, (END_BOX,)
        if category == BOLD_LINE:
            if inline or _holds_heading(el):
                # a <summary>/<dt> holding a heading (rustdoc's method signatures) is a
                # block: the heading stays a heading, not words of one bold line
                self.box.block_break()
                return True, _BREAK
            self._open(BOLD_BOX)
            self.open_wraps[STRONG] += 1
            return True, (END_BOX,)
        if category == LISTS:
            if self.list_depth >= MAX_LIST_NESTING:
                self.box.block_break()
                return True, _BREAK
            if _layout_list(el):
                self._layout_lists.add(el)
                self.box.block_break()
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
                self.box.block_break()
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
                self.box.block_break()
                return True, _BREAK
            self._open(QUOTE_BOX)
            self.quote_depth += 1
            return True, (END_BOX,)
        if category == HR:
            self.box.block_break()
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
            self.box.block_break()
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
            self.box.block_break()
        elif action == END_WRAP:
            self._end_wrap(record)
        elif action == END_LINK:
            self._end_link(record)
        else:
            self._close()

    # --- boxes ----------------------------------------------------------------

    def _open(self, kind: int) -> Box:
        self.box.block_break()
        box = Box(kind)
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
            anchor = self.anchors.pop() if kind == HEADING_BOX else None
            md = "".join(box.md).strip()
            if not md:
                return
            tx = " ".join("".join(box.tx).split())
            if kind == HEADING_BOX:
                if md[-1] == "#" and (md.rstrip("#")[-1:] in ("", " ")):
                    cut = len(md.rstrip("#"))  # not a closing sequence: "Sub \\####"
                    md = f"{md[:cut]}\\{md[cut:]}"
                self.headings.append(Heading(box.level, tx, anchor))
                parent.blocks.append((f"{'#' * box.level} {md}", tx, HEADING))
            else:  # bold line
                parent.blocks.append((f"**{md}**", tx, PARA))
            return
        box.flush()
        if kind == ITEM_BOX:
            close_item(box, parent)
        elif kind == LIST_BOX:
            self.list_depth -= 1
            close_list(box, parent)
        elif kind == QUOTE_BOX:
            self.quote_depth -= 1
            close_quote(box, parent)

    # --- elements -------------------------------------------------------------

    def _tab_label(self, label: str) -> None:
        label = " ".join(label.split())
        if not label:
            return
        if self.inline:
            self.box.emit(escape_text(label), label)
            self.box.soft_space()
            return
        self.box.block_break()
        self.box.blocks.append((f"**{escape_text(label)}**", label, PARA))

    def _end_wrap(self, record: tuple[Any, ...]) -> None:
        _, box, gen, pos, category, merge = record
        self.open_wraps[category] -= 1
        self.wraps -= 1
        if box.gen != gen or box is not self.box or len(box.md) <= pos:
            return
        end_emphasis(box, gen, pos, category, merge)

    def _start_link(self, el: etree._Element) -> tuple[Any, ...] | None:
        target = self.targets.link(el)
        if target is None:
            return None
        url, listed = target
        wrap = self.keep_links and not self.links_open and self.wraps < MAX_WRAPS
        if not wrap and listed is None:
            return None
        box = self.box
        if wrap:
            self.links_open += 1
            self.wraps += 1
            start_link(box)
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
        end_link(box, pos, url)

    def _image(self, el: etree._Element) -> None:
        target = self.targets.image(el)
        if target is None:
            return
        url, alt = target
        if not self.keep_images:
            return
        box = self.box
        if box.sep:
            box.separate()
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
                self.box.text(raw, self.links_open > 0)
            return
        if "\n" in core and not self.inline and _alone(el):
            self._code_block(tidy_code(raw), code_language(el))
            return
        if "  " in core or "\n" in core or "\r" in core or "\t" in core:
            # inline code is inline: white-space runs collapse to one space, as a browser
            # shows them (`timestamp without time      zone` was a source line break)
            core = " ".join(core.split())
        if raw[0].isspace():
            self.box.soft_space()
        box = self.box
        code = box.code
        if code is not None and code[0] == len(box.md) - 1 and code[1] == box.gen and not box.sep:
            # <code>a</code><code>b</code> is "`ab`": "`a``b`" is the one span "a``b"
            joined = code[2] + core
            box.md[-1] = code_span(joined)
            box.tx.append(core)
        else:
            joined = core
            box.emit(code_span(core), core)
        box.code = (len(box.md) - 1, box.gen, joined)
        if raw[-1].isspace():
            self.box.soft_space()

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
                    self.box.emit(code_span(line), line)
                    self.box.sep = True
            return
        self.box.block_break()
        fence = code_fence(code)
        self.box.blocks.append((f"{fence}{language}\n{code}\n{fence}", code, CODE))

    def _math(self, el: etree._Element) -> None:
        """A formula: its TeX raw between ``$`` (inline) or as a ``$$`` block of its own
        (``display="block"``), in the Markdown and the text alike; without TeX, the
        words of its MathML on a line, unmarked (they are no TeX)."""
        tex = math_tex(el)
        display = (el.get("display") or "").strip().lower() == "block"
        box = self.box
        if tex is None:
            linear = " ".join(str(_STRING(el)).split())
            if linear and display and not self.inline:
                box.block_break()
                box.text(linear, self.links_open > 0)
                box.block_break()
            elif linear:
                box.text(f" {linear} ", self.links_open > 0)
            return
        if not display:
            inline = f"${' '.join(tex.split())}$"
            box.emit(inline, inline)
            return
        if self.inline:  # a heading or a table cell: one line, apart from its words
            one_line = f"$${' '.join(tex.split())}$$"
            box.sep = True
            box.emit(one_line, one_line)
            box.sep = True
            return
        lines = "\n".join(line for line in (part.strip() for part in tex.splitlines()) if line)
        block = f"$$\n{lines}\n$$"
        box.block_break()
        box.blocks.append((block, block, PARA))

    def _render_cell(self, cell: etree._Element) -> tuple[str, str]:
        """(Markdown, text) of a table cell on one line, `|` escaped."""
        if not len(cell) and (not self.tab_labels or cell.get(TAB_ATTR) is None):
            # text only: the common case
            plain = " ".join((cell.text or "").split())
            md = escape_text(plain)
            return (md.replace("|", "\\|") if "|" in md else md), plain
        box = Box(CELL_BOX)
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
        self.box.block_break()
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
        md, tx, tx_grid = pipe_table(grid, md_cells, tx_cells, self.cell_sep)
        self.box.blocks.append((md, tx, TABLE))
        self.tables.append(table_record(len(self.tables), caption_tx or None, tx_grid))

    def _gutter_table(self, table: etree._Element) -> None:
        """A code block laid out as a table with a line-number column: the code only,
        after the file name that a cell without code may show (MkDocs' "filename")."""
        language = code_language(table)
        cells = code_cells(table)
        pres = [pre for cell in cells for pre in cell.iter("pre")]
        if pres:
            for cell in cells:
                if next(cell.iter("pre"), None) is None:
                    self._caption_line(cell)
            for pre in pres:
                self._pre(pre, language)
            return
        lines = [code_text(cell, tidy=False).rstrip("\n") for cell in cells]
        code = tidy_code("\n".join(lines))
        if code.strip():
            self._code_block(code, language)

    def _caption_line(self, cell: etree._Element) -> None:
        """A short label cell (a file name) as a line of its own."""
        md, tx = self._render_cell(cell)
        if md and len(tx) <= CAPTION_MAX_CHARS:
            self.box.block_break()
            self.box.blocks.append((escape_line_start(md), tx, PARA))
