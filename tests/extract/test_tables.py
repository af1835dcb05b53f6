"""Table grids (webmd_spider.extract.tables): spans, headers, data-or-layout, records."""

from __future__ import annotations

import lxml.html
import pytest
from lxml import etree

from webmd_spider.extract import tables as tables_module
from webmd_spider.extract.tables import (
    MAX_CELLS,
    MAX_COLUMNS,
    build_grid,
    classify,
    extract_tables,
    fill,
    merge_headers,
)

from ..work_count import lines_of


def table(html: str) -> etree._Element:
    element = lxml.html.fragment_fromstring(html)
    assert element.tag == "table"
    return element


def texts(html: str) -> tuple[list[list[str]], int]:
    grid = build_grid(table(html))
    rows = [
        ["".join(str(t) for t in c.itertext()).strip() if c is not None else "-" for c in row]
        for row in grid.rows
    ]
    return rows, grid.header_count


def test_colspan_and_rowspan_repeat_the_cell() -> None:
    rows, head = texts(
        "<table><tr><th>A</th><th colspan=2>B</th></tr>"
        "<tr><td rowspan=3>x</td><td>1</td><td>2</td></tr>"
        "<tr><td colspan=2>3</td></tr>"
        "<tr><td>4</td></tr></table>"
    )
    assert head == 1
    assert rows == [["A", "B", "B"], ["x", "1", "2"], ["x", "3", "3"], ["x", "4", "-"]]


def test_rowspan_in_the_middle_column() -> None:
    rows, _ = texts(
        "<table><tr><td>a</td><td rowspan=2>m</td><td>b</td></tr>"
        "<tr><td>c</td><td>d</td></tr></table>"
    )
    assert rows == [["a", "m", "b"], ["c", "m", "d"]]


def test_rowspan_zero_spans_to_the_end_and_long_spans_stop_at_the_last_row() -> None:
    rows, _ = texts(
        "<table><tr><td rowspan=0>z</td><td>1</td></tr><tr><td>2</td></tr>"
        "<tr><td rowspan=50>y</td><td>3</td></tr></table>"
    )
    assert rows == [["z", "1", "-"], ["z", "2", "-"], ["z", "y", "3"]]


def test_bad_span_values_count_as_one() -> None:
    rows, _ = texts(
        "<table><tr><td colspan='x'>a</td><td colspan='-2'>b</td><td colspan=' 2 '>c</td>"
    )
    assert rows == [["a", "b", "c", "c"]]


def test_short_rows_are_padded() -> None:
    rows, _ = texts("<table><tr><td>a</td><td>b</td><td>c</td></tr><tr><td>d</td></tr></table>")
    assert rows == [["a", "b", "c"], ["d", "-", "-"]]


@pytest.mark.parametrize(
    ("html", "header_count"),
    [
        ("<table><thead><tr><td>h</td></tr><tr><td>h2</td></tr></thead><tr><td>b</td></tr>", 2),
        ("<table><tr><th>a</th><th>b</th></tr><tr><th>c</th><th>d</th></tr><tr><td>1</td>", 2),
        ("<table><tr><th>a</th><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>", 0),
        ("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>", 1),
        ("<table><tr><th>only</th><th>th</th></tr></table>", 1),
        ("<table></table>", 0),
    ],
)
def test_header_rows(html: str, header_count: int) -> None:
    assert build_grid(table(html)).header_count == header_count


def test_full_width_cells_are_shown_once() -> None:
    grid = build_grid(
        table(
            "<table><tr><th colspan=3>Sizes</th></tr><tr><th>S</th><th>M</th><th>L</th></tr>"
            "<tr><td>1</td><td>2</td><td>3</td></tr><tr><td colspan=3>wide</td></tr></table>"
        )
    )
    assert grid.header_count == 2
    values = {
        c: "".join(str(t) for t in c.itertext()) for row in grid.rows for c in row if c is not None
    }
    filled = fill(grid, values, "")
    assert filled.rows[0] == ["Sizes", "", ""]
    assert filled.rows[3] == ["wide", "", ""]
    assert merge_headers(filled.rows[:2], 3) == ["Sizes / S", "M", "L"]


def test_thead_comes_first_and_tfoot_last() -> None:
    rows, head = texts(
        "<table><tfoot><tr><td>foot</td></tr></tfoot><tbody><tr><td>body</td></tr></tbody>"
        "<thead><tr><th>head</th></tr></thead></table>"
    )
    assert rows == [["head"], ["body"], ["foot"]]
    assert head == 1


def test_nested_table_rows_are_not_the_outer_tables() -> None:
    rows, _ = texts(
        "<table><tr><td>o1</td><td><table><tr><td>i1</td><td>i2</td></tr></table></td></tr></table>"
    )
    assert len(rows) == 1 and rows[0][0] == "o1"


def test_merge_headers() -> None:
    assert merge_headers([["Item", "Price", "Price"], ["Item", "Min", "Max"]], 3) == [
        "Item",
        "Price / Min",
        "Price / Max",
    ]
    assert merge_headers([["a", ""], ["", "b"]], 3) == ["a", "b", ""]


def test_hostile_spans_are_bounded_and_fast() -> None:
    hostile = table(
        "<table><tr><td>x</td><td colspan=1000000>a</td><td colspan=5>b</td></tr>"
        + "<tr><td rowspan=1000000>c</td></tr>" * 300
        + "</table>"
    )
    grids = []
    lines = lines_of(lambda: grids.append(build_grid(hostile)), tables_module)
    (grid,) = grids
    slots = sum(len(row) for row in grid.rows)
    assert grid.width == MAX_COLUMNS
    assert slots <= MAX_CELLS
    # fast: the work is counted, not timed (issue 35). A few lines of tables.py a slot
    # of the grid (about 4), whatever the spans ask for: a loop over a colspan of a
    # million would run a million times more
    assert lines <= 10 * slots, (lines, slots)


@pytest.mark.parametrize(
    ("html", "kind"),
    [
        ("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>", "data"),
        ("<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>", "data"),
        ("<table><tr><td>one column</td></tr><tr><td>only</td></tr></table>", "layout"),
        ("<table></table>", "layout"),
        (
            "<table><tr><td><p>" + "long text " * 20 + "</p><p>more</p></td><td>side</td></tr>"
            "</table>",
            "layout",
        ),
        (
            "<table><tr><td><p>" + "one paragraph per cell " * 10 + "</p></td><td><p>x</p></td>"
            "</tr></table>",
            "data",
        ),
        ("<table><tr><td><table><tr><td>i</td></tr></table></td><td>x</td></tr></table>", "layout"),
        (
            "<table role='presentation'><tr><td><img src='i.png'></td><td>Short note</td></tr>"
            "</table>",
            "data",
        ),
        (
            "<table><tr><td class='gutter'><pre>1</pre></td><td class='code'><pre>x</pre></td>"
            "</tr></table>",
            "gutter",
        ),
    ],
)
def test_classify(html: str, kind: str) -> None:
    assert classify(table(html)) == kind


def test_extract_tables_records_in_document_order() -> None:
    region = lxml.html.fragment_fromstring(
        "<div><table><caption> Sizes </caption><tr><th>S</th><th>M</th></tr>"
        "<tr><td>1</td><td>2 <b>cm</b></td></tr></table>"
        "<table><tr><td>layout</td></tr></table>"
        "<table><tr><td>k</td><td><table><tr><td>i</td><td>j</td></tr></table></td></tr></table>"
        "<table><tr><td>x</td><td>y</td></tr><tr><td>z</td><td>w</td></tr></table></div>"
    )
    records = extract_tables(region)
    assert records == [
        {
            "index": 0,
            "caption": "Sizes",
            "headers": ["S", "M"],
            "header_rows": [["S", "M"]],
            "rows": [["1", "2 cm"]],
        },
        # the layout table holding a nested table is skipped; the nested one is data
        {
            "index": 1,
            "caption": None,
            "headers": ["i", "j"],
            "header_rows": [["i", "j"]],
            "rows": [],
        },
        {
            "index": 2,
            "caption": None,
            "headers": ["x", "y"],
            "header_rows": [["x", "y"]],
            "rows": [["z", "w"]],
        },
    ]
