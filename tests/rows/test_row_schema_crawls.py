"""Every row of real crawls against docs/schema/row.schema.json, with ``jsonschema``:
the bundled demo site (twice, incrementally, so ``change`` rows are seen too) and the
fault site of tests/spiders/test_faults.py. The rows' keys come in COLUMNS order."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from scrapy.utils.defer import deferred_f_from_coro_f

from webmd_spider.demo.server import SiteServer, demo_site_path
from webmd_spider.items import COLUMNS
from webmd_spider.rows.row_schema import SCHEMA_PATH

from ..crawling import REPO, crawl
from ..spiders.test_faults import Run, run  # noqa: F401  (the fault crawl, as a fixture)


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    """The committed schema file, as a user would load it."""
    return Draft202012Validator(json.loads((REPO / SCHEMA_PATH).read_text("utf-8")))


@pytest.fixture(scope="module")
def demo() -> Iterator[SiteServer]:
    with SiteServer(demo_site_path()) as server:
        yield server


def invalid(validator: Draft202012Validator, rows: list[dict[str, Any]]) -> list[str]:
    """One line per schema error: the row's type and URL, where and what."""
    return [
        f"{row['row_type']} {row['url']}: {'/'.join(map(str, error.path))}: {error.message}"
        for row in rows
        for error in validator.iter_errors(row)
    ]


def raw_key_orders(path: Path) -> set[tuple[str, ...]]:
    """The key order of every line of a JSONL file (json keeps the file's order)."""
    return {
        tuple(json.loads(line)) for line in path.read_text("utf-8").splitlines() if line.strip()
    }


@deferred_f_from_coro_f
async def test_demo_crawl_rows_match_the_schema_in_column_order(
    validator: Draft202012Validator, demo: SiteServer, tmp_path: Path
) -> None:
    state = {"WEBMD_INCREMENTAL": True, "WEBMD_STATE_DIR": str(tmp_path / "state")}
    first = await crawl(tmp_path / "1", state, start=demo.base_url + "/")
    second = await crawl(tmp_path / "2", state, start=demo.base_url + "/")
    kinds = Counter(row["row_type"] for row in first)
    assert kinds["page"] >= 5 and kinds["site"] == 1 and kinds["diagnostic"] >= 1, kinds
    assert any(row["chunks"] for row in first), "chunks are on by default"
    assert {row["change"] for row in first if row["row_type"] == "page"} == {"new"}
    assert "unchanged" in {row["change"] for row in second}
    assert invalid(validator, first + second) == []
    for out in (tmp_path / "1" / "rows.jsonl", tmp_path / "2" / "rows.jsonl"):
        assert raw_key_orders(out) == {COLUMNS}


def test_fault_crawl_rows_match_the_schema_in_column_order(
    validator: Draft202012Validator,
    run: Run,  # noqa: F811
) -> None:
    errors = Counter(row["error_type"] for row in run.rows if row["row_type"] == "diagnostic")
    # the faults give diagnostics of several kinds, and every website a site row
    assert {"too-large", "timeout", "not-html"} <= set(errors), errors
    assert sum(row["row_type"] == "site" for row in run.rows) == 5
    assert invalid(validator, run.rows) == []
    assert {tuple(row) for row in run.rows} == {COLUMNS}
