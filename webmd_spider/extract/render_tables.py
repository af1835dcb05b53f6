"""Tables in the renderer's output: a data table's GFM pipe table and text rows, laid out
from its grid and its cells once rendered, and the cells that hold the code of a code
block laid out as a table (a line-number column beside it).
"""

from __future__ import annotations

from lxml import etree

from webmd_spider.extract.inline import GUTTER_CLASS
from webmd_spider.extract.tables import (
    Grid,
    fill,
    line_numbers,
    merge_headers,
    row_cells,
    table_rows,
)


def pipe_table(
    grid: Grid[etree._Element | None],
    md_cells: dict[etree._Element, str],
    tx_cells: dict[etree._Element, str],
    cell_sep: str,
) -> tuple[str, str, Grid[str]]:
    """(Markdown, text, grid of the cells' texts) of a data table: `md_cells` and
    `tx_cells` are its cells rendered (Markdown on one line, `|` escaped; text);
    `cell_sep` joins the cells of a text row."""
    md_grid = fill(grid, md_cells, "")
    tx_grid = fill(grid, tx_cells, "")
    head = grid.header_count
    width = grid.width
    labels = merge_headers(md_grid.rows[:head], width) if head else [""] * width
    lines = ["| " + " | ".join(labels) + " |", "|" + " --- |" * width]
    lines.extend("| " + " | ".join(row) + " |" for row in md_grid.rows[head:])
    text_rows = [cell_sep.join(v for v in merge_headers(tx_grid.rows[:head], width) if v)]
    for cells, values in zip(grid.rows[head:], tx_grid.rows[head:], strict=True):
        distinct = [
            v for i, v in enumerate(values) if v and (i == 0 or cells[i] is not cells[i - 1])
        ]
        text_rows.append(cell_sep.join(distinct))
    return "\n".join(lines), "\n".join(r for r in text_rows if r), tx_grid


def code_cells(table: etree._Element) -> list[etree._Element]:
    """The cells of a code block laid out as a table (`tables.classify` "gutter") that
    are not its line numbers: the code, and a label cell (a file name) if any."""
    found: list[etree._Element] = []
    for row in table_rows(table)[0]:
        cells = row_cells(row)
        for index, cell in enumerate(cells):
            if GUTTER_CLASS.search(cell.get("class") or ""):
                continue
            if index == 0 and len(cells) > 1 and line_numbers(cell):
                continue  # a number column without a class (tables._numbered_code)
            found.append(cell)
    return found
