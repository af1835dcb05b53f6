"""The README's row schema table names every column once, in the rows' order (issue 31:
the README said rows keep the table's order while they did not)."""

from __future__ import annotations

import re
from pathlib import Path

from webmd_spider.items import COLUMNS

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_schema_table_lists_the_columns_in_row_order() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("### The row schema", 1)[1].split("\n\n")
    rows = next(block for block in table if block.startswith("| column | rows | meaning |"))
    named: list[str] = []
    for line in rows.splitlines()[2:]:
        first_cell = line.split("|")[1]
        named += re.findall(r"`([a-z_]+)`", first_cell)
    assert named == list(COLUMNS)
