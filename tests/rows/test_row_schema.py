"""The row schema (docs/schema/row.schema.json): generated from items.py, committed
as generated, and strict enough to refuse rows that break the contract."""

from __future__ import annotations

import copy
import json
from dataclasses import fields
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from webmd_spider import api
from webmd_spider.chunking.markdown_chunks import Chunk
from webmd_spider.extract import extract
from webmd_spider.items import COLUMNS, ERROR_TYPES, diagnostic_row, page_row
from webmd_spider.rows import row_schema as schema_module
from webmd_spider.rows.ledger import SiteState
from webmd_spider.rows.page_rows import build_page_row
from webmd_spider.rows.row_schema import row_schema, schema_text
from webmd_spider.state import changes

from ..crawling import REPO

HTML = """<html lang="en"><head><title>Guide</title></head><body><main>
<h1>Guide</h1><p>Some words about the guide, enough of them to be a real page of
text that a reader would want to keep, with a <a href="/other">link</a>.</p>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
<img src="/x.png" alt="x"></main></body></html>"""


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    return Draft202012Validator(row_schema())


def jsonable(row: Any) -> dict[str, Any]:
    """A row as a JSONL line reads back."""
    data: dict[str, Any] = json.loads(json.dumps(row.to_dict()))
    return data


def errors(validator: Draft202012Validator, data: dict[str, Any]) -> list[str]:
    return [error.message for error in validator.iter_errors(data)]


def a_page() -> dict[str, Any]:
    doc = extract(HTML, "http://example.com/guide")
    row = build_page_row(doc, url="http://example.com/guide", final_url="http://example.com/guide")
    assert row.row_type == "page"
    row.chunks = [
        Chunk(
            0, "c0", "http://example.com/guide", ["Guide"], "Guide", "# Guide", 0, 7, 7, 1
        ).to_dict()
    ]
    row.chunk_count = 1
    return jsonable(row)


def test_the_committed_schema_is_the_generated_one() -> None:
    committed = (REPO / schema_module.SCHEMA_PATH).read_text("utf-8")
    assert committed == schema_text(), (
        "docs/schema/row.schema.json is stale: run python -m webmd_spider.rows.row_schema"
    )
    assert schema_module.main(["--check", "--out", str(REPO / schema_module.SCHEMA_PATH)]) == 0


def test_check_mode_reports_a_stale_file(tmp_path: Any) -> None:
    stale = tmp_path / "row.schema.json"
    stale.write_text("{}\n", "utf-8")
    assert schema_module.main(["--check", "--out", str(stale)]) == 1
    assert schema_module.main(["--out", str(stale)]) == 0
    assert stale.read_text("utf-8") == schema_text()


def test_the_schema_is_valid_2020_12_with_every_column_in_order() -> None:
    schema = row_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert list(schema["properties"]) == list(COLUMNS)
    assert schema["required"] == list(COLUMNS)
    assert schema["additionalProperties"] is False


def test_the_vocabularies_are_the_code_s() -> None:
    props = row_schema()["properties"]
    assert props["error_type"]["enum"] == [*ERROR_TYPES, None]
    assert set(props["change"]["enum"]) == {
        changes.NEW,
        changes.CHANGED,
        changes.UNCHANGED,
        changes.REMOVED,
        None,
    }
    chunk = props["chunks"]["items"]
    assert list(chunk["properties"]) == [f.name for f in fields(Chunk)]
    assert list(chunk["properties"]) == list(Chunk(0, "i", "u", [], "", "", 0, 0, 0, 0).to_dict())


def test_rows_built_by_the_code_validate(validator: Draft202012Validator) -> None:
    page = a_page()
    assert page["tables"] and page["links"] and page["images"] and page["removed"]
    assert errors(validator, page) == []
    site = SiteState("example.com", "http://example.com/", "site", root="http://example.com/")
    site.removed.add(page["removed"], page["url"])
    site.pages = 1
    assert errors(validator, jsonable(site.to_row(None))) == []
    for error_type in ERROR_TYPES:
        row = diagnostic_row(error_type, "why", url="http://example.com/x", status_code=404)
        assert errors(validator, jsonable(row)) == [], error_type
    empty = build_page_row(extract("<html><body></body></html>", "http://example.com/e"))
    assert empty.row_type == "diagnostic"
    assert errors(validator, jsonable(empty)) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"extra": 1}, "Additional properties"),
        ({"ok": False}, "True was expected"),
        ({"error_type": "timeout"}, "'timeout' is not of type 'null'"),
        ({"pages_extracted": 3}, "3 is not of type 'null'"),
        ({"word_count": -1}, "less than the minimum"),
        ({"discovered_via": "guess"}, "is not one of"),
        ({"scraped_at": "2026-01-01 00:00:00"}, "does not match"),
        ({"content_hash": "md5:1"}, "does not match"),
    ],
)
def test_a_broken_page_row_is_refused(
    validator: Draft202012Validator, change: dict[str, Any], expected: str
) -> None:
    found = errors(validator, a_page() | change)
    assert any(expected in message for message in found), found


def test_broken_nested_values_and_missing_columns_are_refused(
    validator: Draft202012Validator,
) -> None:
    page = a_page()
    for column, mutate in (
        ("chunks", lambda v: v[0].pop("chunk_id")),
        ("chunks", lambda v: v[0].update(split="words")),
        ("links", lambda v: v[0].update(internal="yes")),
        ("tables", lambda v: v[0].update(rows=[[1]])),
        ("removed", lambda v: v.update(code=-1)),
    ):
        broken = copy.deepcopy(page)
        mutate(broken[column])
        assert errors(validator, broken), column
    missing = {k: v for k, v in page.items() if k != "notes"}
    assert any("'notes' is a required property" in m for m in errors(validator, missing))


def test_a_diagnostic_row_needs_a_known_error_type(validator: Draft202012Validator) -> None:
    row = jsonable(diagnostic_row("timeout", "slow", url="http://example.com/"))
    assert errors(validator, row | {"error_type": "gremlins"})
    assert errors(validator, row | {"error": None})
    assert errors(validator, row | {"ok": True})


def test_a_page_row_constructor_row_is_a_page(validator: Draft202012Validator) -> None:
    assert errors(validator, jsonable(page_row(url="http://example.com/"))) == []


def test_convert_rows_validate(validator: Draft202012Validator) -> None:
    """``webmd convert --format json`` writes api.convert's row: with a URL, without
    one (``url`` null, relative links), and for Markdown input."""
    rows = [
        api.convert(HTML, "http://example.com/guide"),
        api.convert(HTML),
        api.convert("# Notes\n\nSome words about the notes, in a paragraph.\n", markdown=True),
    ]
    assert rows[1].url is None
    assert rows[2].extraction_method == "markdown"
    for row in rows:
        assert row.row_type == "page"
        assert row.chunks, "convert chunks by default"
        assert errors(validator, jsonable(row)) == []
        assert list(row.to_dict()) == list(COLUMNS)
