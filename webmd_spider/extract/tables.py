"""HTML tables as grids: data-or-layout decision, colspan/rowspan expansion,
header rows, and the structured record of a data table.

Shared by the Markdown renderer (which fills the grid with rendered cells) and
`extract_tables` (plain text cells). Spans are expanded by REPEATING the cell
in every grid slot it covers, for colspan and rowspan alike, so every row is
self-contained and columns line up; except that a cell spanning the whole row
(a title, a section name, an infobox picture) is shown once, in the first
column.

Bounded on hostile input: a span counts at most MAX_SPAN slots, a grid at most
MAX_COLUMNS columns and MAX_CELLS slots (rows beyond that are dropped), and the
repetition of spanned cells at most REPEAT_FACTOR times the table's own text (or
REPEAT_MIN_CHARS): further slots a cell spans stay empty (`bound_repeats`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import Any, Generic, TypeVar

from lxml import etree

from webmd_spider.extract.inline import GUTTER_CLASS

MAX_SPAN = 1000
MAX_COLUMNS = 1000
MAX_CELLS = 100_000
# MAX_CELLS bounds the slots, not their bytes: 100 rows of a 4 KB cell with colspan=999
# were 400 MB of Markdown. A spanned cell is repeated into the other slots it covers
# while the table's repeated text stays within the larger of these two bounds.
REPEAT_MIN_CHARS = 20_000
REPEAT_FACTOR = 2  # times the table's own text (each cell counted once)
# A cell holding block content with at least this much text makes a th-less table layout.
LAYOUT_CELL_CHARS = 150
LONG_CELL_CHARS = 600

_SECTIONS = frozenset({"thead", "tbody", "tfoot"})
_CELLS = frozenset({"td", "th"})
_BLOCKY = (
    *("p", "div", "ul", "ol", "dl", "blockquote", "pre", "section", "article", "form"),
    *("h1", "h2", "h3", "h4", "h5", "h6", "figure", "table"),
)
_BLOCKY_TAGS = frozenset(_BLOCKY)
_CONTENT_BLOCKS = (
    *("p", "li", "dt", "dd", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"),
)

T = TypeVar("T")
_STRING = etree.XPath("string()")


def table_rows(table: etree._Element) -> tuple[list[etree._Element], int]:
    """The table's own rows (not those of nested tables) in display order:
    thead rows first, then body rows, tfoot rows last; and the thead row count."""
    head: list[etree._Element] = []
    body: list[etree._Element] = []
    foot: list[etree._Element] = []
    for child in table:
        tag = child.tag
        if tag == "tr":
            body.append(child)
        elif tag in _SECTIONS:
            rows = [row for row in child if row.tag == "tr"]
            (head if tag == "thead" else foot if tag == "tfoot" else body).extend(rows)
    return head + body + foot, len(head)


def row_cells(row: etree._Element) -> list[etree._Element]:
    return [cell for cell in row if cell.tag in _CELLS]


def _span(cell: etree._Element, attr: str, limit: int) -> int:
    """colspan/rowspan as an int in 1..limit (0 = to the end, like rowspan="0")."""
    raw = cell.get(attr)
    if not raw:
        return 1
    digits = raw.strip().split(".", 1)[0]
    if not digits.isdigit():
        return 1
    value = int(digits[:7])
    return limit if value == 0 else max(1, min(value, limit))


def classify(table: etree._Element) -> str:
    """ "data", "layout" or "gutter" (a code block with a line-number column: a cell
    of a gutter class, or the shape of one, see `_numbered_code`).

    Layout: no rows, a single column without a header row, or no <th> while a cell holds a nested
    table or block content with much text. (role="presentation" is not
    trusted: small two-cell boxes read fine as a table, big ones are caught
    by the content rule.)
    """
    rows, thead = table_rows(table)
    if not rows:
        return "layout"
    widest = 0
    has_th = thead > 0
    gutter = False
    for row in rows:
        cells = row_cells(row)
        widest = max(widest, len(cells))
        for cell in cells:
            if cell.tag == "th":
                has_th = True
            classes = cell.get("class")
            if classes and GUTTER_CLASS.search(classes):
                gutter = True
    if gutter and widest >= 2:
        return "gutter"
    if widest <= 1 and not (has_th and len(rows) >= 2):
        # one column: a box of the layout, unless a header row names it (PostgreSQL's
        # function tables: "Function / Description / Example" over one cell per row)
        return "layout"
    if len(rows) <= 2 and _numbered_code(rows):
        return "gutter"
    if has_th:
        return "data"
    for row in rows:
        for cell in row_cells(row):
            if next(cell.iter("table"), None) is not None:
                return "layout"
            if _holds_blocks(cell):
                return "layout"
    return "data"


def _holds_blocks(cell: etree._Element) -> bool:
    """The cell holds page content: two or more paragraphs, items, headings...
    with much text, or any block with a great deal of text. (A single <p> per
    cell is common in data tables exported from word processors.)

    Paragraphs are also what older pages (forums laid out in tables) make them of:
    a <div> of text with no block inside; and a blank line (<br><br>) or a rule (<hr>)
    stands between two paragraphs, so it counts as both."""
    if not len(cell):
        return False
    count = 0
    for el in cell.iter(*_CONTENT_BLOCKS, "div", "hr", "br"):
        tag = el.tag
        if tag == "br":
            # two <br> with only whitespace between: a blank line
            after = el.getnext()
            if after is None or after.tag != "br" or (el.tail and not el.tail.isspace()):
                continue
            count += 1
        elif tag == "hr":
            count += 1
        elif tag == "div" and (any(child.tag in _BLOCKY_TAGS for child in el) or not _has_text(el)):
            continue  # not a paragraph of text: a wrapper of other blocks, or empty
        count += 1
        if count >= 2:
            break
    if count == 0 and next(cell.iter(*_BLOCKY), None) is None:
        return False
    length = len(str(_STRING(cell)))
    return length >= LAYOUT_CELL_CHARS if count >= 2 else length >= LONG_CELL_CHARS


def _has_text(el: etree._Element) -> bool:
    """`el` holds non-whitespace text (its own first, which is the common case)."""
    if el.text and not el.text.isspace():
        return True
    return any(not text.isspace() for text in el.itertext())


def _numbered_code(rows: list[etree._Element]) -> bool:
    """A code block laid out as a table whose first column holds its line numbers:
    one row of two or more cells that each hold a <pre> or <code>, the first only
    digits and whitespace (Chroma's "lntable", many other highlighters' shape); another
    row may hold a single cell without code (a file name)."""
    code_row: list[etree._Element] | None = None
    for row in rows:
        cells = row_cells(row)
        if len(cells) >= 2:
            if code_row is not None:
                return False
            code_row = cells
        elif cells and next(cells[0].iter("pre", "code"), None) is not None:
            return False
    if code_row is None:
        return False
    if any(next(cell.iter("pre", "code"), None) is None for cell in code_row):
        return False
    return line_numbers(code_row[0])


def line_numbers(cell: etree._Element) -> bool:
    """The cell holds only line numbers: digits and whitespace, some digits."""
    raw = (cell.text or "") if not len(cell) else str(_STRING(cell))
    return "".join(raw.split()).isdigit()


@dataclass(slots=True)
class Grid(Generic[T]):
    """Expanded table: `rows[r][c]` is the value of the cell covering slot (r, c)."""

    rows: list[list[T]]
    header_count: int  # leading rows that form the header (0: no header row)
    width: int
    spanned: bool = False  # some cell covers more than one slot (repeats to bound)


def build_grid(table: etree._Element) -> Grid[etree._Element | None]:
    """The table's cells on a grid, spans repeated; None where no cell covers a slot.

    Header rows: thead rows, else
    leading rows made only of <th>; else none when the table has row headers
    (<th> in body rows: a key-value table), else the first row (Markdown needs
    a header row, and th-less tables usually start with their labels).
    """
    rows, thead = table_rows(table)
    grid: list[list[etree._Element | None]] = []
    kinds: list[int] = []  # per row: 2 = in thead, 1 = only <th>, 0 = other
    has_th = False
    carry: list[tuple[etree._Element | None, int]] = []  # per column: (cell, rows still covered)
    cells_total = 0
    width = 0
    spanned = False
    for index, row in enumerate(rows):
        remaining = len(rows) - index
        out: list[etree._Element | None] = []
        col = 0
        only_th = True
        cells = row_cells(row)
        for cell in cells:
            if cell.tag == "th":
                has_th = True
            else:
                only_th = False
            while col < len(carry) and carry[col][1] > 0:
                out.append(carry[col][0])
                col += 1
            colspan = _span(cell, "colspan", MAX_SPAN)
            rowspan = _span(cell, "rowspan", min(MAX_SPAN, remaining))
            if colspan > 1 or rowspan > 1:
                spanned = True
            for _ in range(min(colspan, MAX_COLUMNS - col)):
                out.append(cell)
                if col >= len(carry):
                    carry.append((None, 0))
                carry[col] = (cell, rowspan)
                col += 1
            if col >= MAX_COLUMNS:
                break
        while col < len(carry):  # spans from above after the last cell
            out.append(carry[col][0] if carry[col][1] > 0 else None)
            col += 1
        carry = [(cell, left - 1) for cell, left in carry]
        cells_total += len(out)
        if cells_total > MAX_CELLS:
            break
        grid.append(out)
        kinds.append(2 if index < thead else 1 if only_th and cells else 0)
        width = max(width, len(out))
    for out in grid:
        out.extend([None] * (width - len(out)))
    header_count = 0
    for kind in kinds:
        if kind != kinds[0] or kind == 0:
            break
        header_count += 1
    if header_count == len(grid) and len(grid) > 1 and kinds[0] == 1:
        header_count = 1  # every row is <th> only: the first is the header
    if not header_count and grid and not has_th:
        header_count = 1
    return Grid(rows=grid, header_count=header_count, width=width, spanned=spanned)


def _full_width(row: list[Any]) -> bool:
    """One cell covers the whole row."""
    return row[0] is not None and all(cell is row[0] for cell in row)


def fill(grid: Grid[etree._Element | None], values: dict[etree._Element, T], empty: T) -> Grid[T]:
    """The grid with each cell replaced by its value (`empty` for missing slots).

    A cell spanning the whole row (a title, a section name, an infobox picture)
    is shown once, in the first column."""
    rows: list[list[T]] = []
    for row in grid.rows:
        if len(row) > 1 and _full_width(row):
            first = row[0]
            assert first is not None
            rows.append([values[first], *([empty] * (len(row) - 1))])
        else:
            rows.append([values[c] if c is not None else empty for c in row])
    return Grid(
        rows=rows,
        header_count=grid.header_count,
        width=grid.width,
    )


def bound_repeats(
    grid: Grid[etree._Element | None], sizes: dict[etree._Element, int]
) -> Grid[etree._Element | None]:
    """The grid with the repetition of spanned cells bounded.

    `sizes` holds the rendered length of every cell of the grid. A cell's first slot
    (row by row) is always kept; every further slot it covers costs its size (a
    row-wide cell, shown once, once per row). A table whose repeats cost at most
    max(REPEAT_MIN_CHARS, REPEAT_FACTOR x the sum of `sizes`), every ordinary one, is
    returned as it is. Beyond that, first the columns where no cell begins are
    dropped (they only repeat cells begun to their left: a colspan=999 made 998 of
    them), then, row by row, the slots that would pass the budget become None
    (empty). So no table renders to more than a small multiple of its own text, in
    the Markdown and in the structured rows alike."""
    if not grid.spanned:
        return grid
    budget = max(REPEAT_MIN_CHARS, REPEAT_FACTOR * sum(sizes.values()))
    rows = grid.rows
    width = grid.width
    begins = [False] * width  # some cell begins in the column
    seen: set[etree._Element] = set()
    cost = 0
    for row in rows:
        if len(row) > 1 and _full_width(row):  # `fill` shows it once: one slot's worth
            first = row[0]
            assert first is not None
            if first in seen:
                cost += sizes.get(first, 0)
            else:
                seen.add(first)
                begins[0] = True
            continue
        col = 0
        for cell, slots in groupby(row):  # runs of one cell: colspans, in C
            count = len(list(slots))
            if cell is not None:
                if cell in seen:
                    cost += count * sizes.get(cell, 0)
                else:
                    seen.add(cell)
                    begins[col] = True
                    cost += (count - 1) * sizes.get(cell, 0)
            col += count
    if cost <= budget:
        return grid
    if not all(begins):
        kept = [col for col in range(width) if begins[col]]
        rows = [[row[col] for col in kept] for row in rows]
        width = len(kept)
    spent = 0
    seen.clear()
    bounded: list[list[etree._Element | None]] = []
    for row in rows:
        if len(row) > 1 and _full_width(row):
            first = row[0]
            assert first is not None
            if first not in seen:
                seen.add(first)
            elif spent + sizes.get(first, 0) <= budget:
                spent += sizes.get(first, 0)
            else:
                row = [None] * width
            bounded.append(row)
            continue
        out = row
        col = 0
        for cell, slots in groupby(row):
            count = len(list(slots))
            start = col
            col += count
            if cell is None:
                continue
            if cell not in seen:
                seen.add(cell)
                start += 1
            size = sizes.get(cell, 0)
            if not size:
                continue
            fits = min(col - start, (budget - spent) // size)
            spent += fits * size
            if start + fits < col:  # the rest of the run stays empty
                if out is row:
                    out = list(row)
                out[start + fits : col] = [None] * (col - start - fits)
        bounded.append(out)
    return Grid(rows=bounded, header_count=grid.header_count, width=width, spanned=True)


def merge_headers(header_rows: list[list[str]], width: int) -> list[str]:
    """One label per column from several header rows: distinct non-empty values
    top to bottom joined with " / " ("Price / Min")."""
    labels: list[str] = []
    for col in range(width):
        parts: list[str] = []
        for row in header_rows:
            value = row[col] if col < len(row) else ""
            if value and (not parts or parts[-1] != value):
                parts.append(value)
        labels.append(" / ".join(parts))
    return labels


def table_record(index: int, caption: str | None, grid: Grid[str]) -> dict[str, Any]:
    """The structured form of a data table (the `Document.tables` item); no
    header row (a key-value table) gives empty `headers` and `header_rows`."""
    header_rows = grid.rows[: grid.header_count]
    return {
        "index": index,
        "caption": caption or None,
        "headers": merge_headers(header_rows, grid.width) if header_rows else [],
        "header_rows": header_rows,
        "rows": grid.rows[grid.header_count :],
    }


def caption_of(table: etree._Element) -> etree._Element | None:
    return next((child for child in table if child.tag == "caption"), None)


def _plain(element: etree._Element) -> str:
    # a cell with one text node (the common case) needs no XPath call
    raw = (element.text or "") if not len(element) else str(_STRING(element))
    return " ".join(raw.split())


def extract_tables(region: etree._Element) -> list[dict[str, Any]]:
    """Every data table of `region` in document order, with plain-text cells
    (tables nested inside a data table's cells are part of that cell)."""
    records: list[dict[str, Any]] = []
    inside_data: set[etree._Element] = set()
    for table in region.iter("table"):
        if any(ancestor in inside_data for ancestor in table.iterancestors("table")):
            continue
        if classify(table) != "data":
            continue
        inside_data.add(table)
        grid = build_grid(table)
        values = {cell: _plain(cell) for row in grid.rows for cell in row if cell is not None}
        if grid.spanned:
            grid = bound_repeats(grid, {cell: len(value) for cell, value in values.items()})
        caption = caption_of(table)
        records.append(
            table_record(
                len(records),
                _plain(caption) if caption is not None else None,
                fill(grid, values, ""),
            )
        )
    return records
