"""The row schema as JSON Schema (draft 2020-12), generated from the item definitions.

:class:`webmd_spider.items.Row` is the one place the columns are defined: their names,
their order and their Python types. :func:`row_schema` reads it (field order and type
hints) and adds what a type alone cannot say: the shape of the list and object columns
(``headings``, ``links``, ``images``, ``chunks``, ``tables``, ``removed``), the
vocabularies of the enumerated columns, and which columns each row kind fills.

``docs/schema/row.schema.json`` is this function's output, written by
``python -m webmd_spider.rows.row_schema`` (``--check`` exits 1 when the file differs);
a test keeps the committed file equal to the generated one, so neither can drift.

Pure module: standard library, the items and the extractor's record types; no Scrapy.
"""

from __future__ import annotations

import argparse
import json
import sys
import types
import typing
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from webmd_spider.extract.audit import KINDS
from webmd_spider.extract.document import Heading, Image, Link
from webmd_spider.extract.page_type import PAGE_TYPES
from webmd_spider.items import COLUMNS, ERROR_TYPES, ROW_TYPES, Row
from webmd_spider.rows.removed_totals import WATCHED_KINDS

#: Where the generated schema is committed, relative to the repository root.
SCHEMA_PATH = Path("docs/schema/row.schema.json")

#: Values of ``discovered_via``: a start entry, a sitemap, a link, or the incremental
#: state (a known page re-checked). The frontier sets them (spiders/frontier.py).
DISCOVERED_VIA = ("input", "sitemap", "link", "state")
#: Values of ``change`` (with ``incremental``); ``state/changes.py`` names the same.
CHANGES = ("new", "changed", "unchanged", "removed")
#: Values of a site row's ``discovery`` (``rows.ledger.SiteState.discovery``).
DISCOVERY_MODES = ("sitemap", "links", "list")
#: Values of a chunk's ``split`` besides null (``chunking.markdown_chunks.Chunk``).
CHUNK_SPLITS = ("table-rows", "code-lines")

#: The columns only a site row fills: the site-row section of :class:`Row`.
SITE_COLUMNS: tuple[str, ...] = COLUMNS[
    COLUMNS.index("pages_extracted") : COLUMNS.index("error_type")
]
#: The columns only a diagnostic row fills.
DIAGNOSTIC_COLUMNS = ("error_type", "error")
#: The page-row section of :class:`Row` that a site row leaves null (``removed`` is
#: the exception: a site row sums its pages' loss audits).
PAGE_ONLY_COLUMNS: tuple[str, ...] = tuple(
    name
    for name in COLUMNS[COLUMNS.index("final_url") : COLUMNS.index("pages_extracted")]
    if name != "removed"
)

_COUNT = {"type": "integer", "minimum": 0}
_RATIO = {"type": "number", "minimum": 0, "maximum": 1}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_JSON_TYPES: dict[type, str] = {str: "string", bool: "boolean", int: "integer", float: "number"}


def _type_schema(hint: Any) -> dict[str, Any]:
    """The JSON Schema of a column's Python type: ``str``, ``int``, ``float``,
    ``bool``, ``list[str]``, each optionally ``| None`` (then ``null`` is allowed).
    Integers are counts here, so they are at least 0. Raises TypeError for a type
    it cannot express (a dict, a list of dicts: those need an entry in ``_REFINED``)."""
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        inner = [arg for arg in args if arg is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"cannot express {hint!r} in the row schema")
        schema = _type_schema(inner[0])
        if len(inner) != len(args):
            schema["type"] = [schema["type"], "null"]
        return schema
    if hint in _JSON_TYPES:
        plain: dict[str, Any] = {"type": _JSON_TYPES[hint]}
        if hint is int:
            plain["minimum"] = 0
        return plain
    if typing.get_origin(hint) is list and args == (str,):
        return {"type": "array", "items": {"type": "string"}}
    raise TypeError(f"cannot express {hint!r} in the row schema: describe it in _REFINED")


def _element(record: type) -> dict[str, Any]:
    """An object schema with the fields of a dataclass of plain types (``Heading``,
    ``Link``, ``Image``): the rows write those records as dicts of the same keys."""
    assert is_dataclass(record)
    hints = typing.get_type_hints(record)
    names = [f.name for f in fields(record)]
    return {
        "type": "object",
        "description": (record.__doc__ or "").split("\n\n")[0].strip(),
        "properties": {name: _type_schema(hints[name]) for name in names},
        "required": names,
        "additionalProperties": False,
    }


def _chunk() -> dict[str, Any]:
    """One entry of ``chunks``: ``chunking.markdown_chunks.Chunk.to_dict()``. Written
    here, not read from ``Chunk``: the chunking package is the rows' sibling layer
    (lint-imports); a test checks the keys against ``Chunk``'s fields."""
    properties: dict[str, Any] = {
        "index": _COUNT,
        "chunk_id": {"type": "string"},
        "url": {"type": "string"},
        "heading_path": _STRINGS,
        "heading_path_text": {"type": "string"},
        "text": {"type": "string"},
        "char_start": _COUNT,
        "char_end": _COUNT,
        "char_count": _COUNT,
        "token_estimate": _COUNT,
        "split": {"enum": [*CHUNK_SPLITS, None]},
    }
    return {
        "type": "object",
        "description": "One chunk of the page; text == markdown[char_start:char_end], "
        "with a table's header rows or a code fence added when split says so.",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _table() -> dict[str, Any]:
    """One entry of ``tables``: ``extract.tables.table_record``."""
    cells = {"type": "array", "items": _STRINGS}
    properties: dict[str, Any] = {
        "index": _COUNT,
        "caption": {"type": ["string", "null"]},
        "headers": _STRINGS,
        "header_rows": cells,
        "rows": cells,
    }
    return {
        "type": "object",
        "description": "A data table of the content: spans expanded, several header "
        "rows merged per column in headers.",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _removed() -> dict[str, Any]:
    """The ``removed`` column: ``extract.audit.Losses.summary()`` on a page row,
    ``rows.removed_totals.RemovedTotals.to_column()`` on a site row."""
    counts = {"type": "object", "additionalProperties": _COUNT}
    named_page = {
        "type": "object",
        "properties": {"url": {"type": "string"}, **dict.fromkeys(WATCHED_KINDS, _COUNT)},
        "required": ["url", *WATCHED_KINDS],
        "additionalProperties": False,
    }
    properties: dict[str, Any] = {
        **dict.fromkeys(KINDS, _COUNT),
        "blocks": _COUNT,
        "chars": _COUNT,
        "by_rule": {"type": "object", "additionalProperties": counts},
        "moved": counts,
        "pages": {"type": "array", "items": named_page},
    }
    return {
        "type": ["object", "null"],
        "description": "The loss audit: what extraction removed from inside the content "
        "root, per kind and per rule (moved: taken out of the body into a field, not "
        "lost). Site rows: summed over the website's pages, with pages, the pages that "
        "lost the most code, tables and signatures.",
        "properties": properties,
        "required": ["by_rule"],
        "additionalProperties": False,
    }


#: What a column's Python type cannot say: its vocabulary, range or element shape.
#: Every column whose type holds a dict must be here (:func:`row_schema` checks).
_REFINED: dict[str, dict[str, Any]] = {
    "row_type": {"enum": list(ROW_TYPES)},
    "error_type": {
        "enum": [*ERROR_TYPES, None],
        "description": "Diagnostic rows: "
        + "; ".join(f"{name}: {meaning}" for name, meaning in ERROR_TYPES.items()),
    },
    "discovered_via": {"enum": [*DISCOVERED_VIA, None]},
    "page_type": {
        "enum": [*PAGE_TYPES, None],
        "description": "What kind of page this is, read before its content is chosen "
        "(page rows; skipped rows name the type they were skipped for); null on an "
        "unchanged (304) row, which is not extracted.",
    },
    "page_type_evidence": {
        "type": ["array", "null"],
        "items": {"type": "string"},
        "description": "What the page type was read from, as short strings "
        "(json-ld:Product, document:pdf).",
    },
    "change": {"enum": [*CHANGES, None]},
    "discovery": {"enum": [*DISCOVERY_MODES, None]},
    "headings": {"type": ["array", "null"], "items": _element(Heading)},
    "links": {"type": ["array", "null"], "items": _element(Link)},
    "images": {"type": ["array", "null"], "items": _element(Image), "maxItems": 100},
    "chunks": {"type": ["array", "null"], "items": _chunk()},
    "tables": {"type": ["array", "null"], "items": _table()},
    "removed": _removed(),
    "boilerplate_ratio": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
    "avg_boilerplate_ratio": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
    "content_hash": {"type": ["string", "null"], "pattern": "^sha256:[0-9a-f]{64}$"},
    "scraped_at": {
        "type": "string",
        "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$",
        "description": "When the row was made: UTC, ISO 8601, second precision.",
    },
}


def _column(name: str, hint: Any) -> dict[str, Any]:
    """A column's schema: its refinement when it has one (type, nullability and
    vocabulary), else its Python type's."""
    refined = _REFINED.get(name)
    if refined is None:
        return _type_schema(hint)
    schema = dict(refined)
    if "type" not in schema and "enum" not in schema:
        schema = {**_type_schema(hint), **schema}
    return schema


def _nulls(names: tuple[str, ...]) -> dict[str, Any]:
    return {name: {"type": "null"} for name in names}


def _by_row_type() -> list[dict[str, Any]]:
    """What each row kind fills and leaves null (see the constructors in items.py)."""

    def when(row_type: str, then: dict[str, Any]) -> dict[str, Any]:
        return {"if": {"properties": {"row_type": {"const": row_type}}}, "then": then}

    filled = {"not": {"type": "null"}}
    return [
        when(
            "page",
            {
                "properties": {
                    "ok": {"const": True},
                    **_nulls(SITE_COLUMNS),
                    **_nulls(DIAGNOSTIC_COLUMNS),
                }
            },
        ),
        when(
            "site",
            {
                "properties": {
                    "ok": {"const": True},
                    **_nulls(PAGE_ONLY_COLUMNS),
                    **_nulls(DIAGNOSTIC_COLUMNS),
                    **dict.fromkeys(("pages_extracted", "discovery", "stop_reason"), filled),
                }
            },
        ),
        when(
            "diagnostic",
            {
                "properties": {
                    "ok": {"const": False},
                    "error_type": {"enum": list(ERROR_TYPES)},
                    "error": {"type": "string"},
                    **_nulls(SITE_COLUMNS),
                }
            },
        ),
    ]


def row_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one row of a crawl's JSONL output (and of
    ``webmd convert --format json``): every column of :data:`webmd_spider.items.COLUMNS`
    is required (null where it does not apply), no other key is allowed, and the
    per-kind rules say which columns each ``row_type`` fills. Raises TypeError when a
    column's type has no JSON form here (a new dict column with no description)."""
    hints = typing.get_type_hints(Row)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "webmd-spider row",
        "description": (
            "One row of the crawl output: a page, a site (one per website, after its "
            "pages) or a diagnostic (a URL or input that gave no page). Every row has "
            "every column, in the order of properties here. Generated from "
            "webmd_spider/items.py by python -m webmd_spider.rows.row_schema; README "
            "'Output schema' says what each column means."
        ),
        "type": "object",
        "properties": {name: _column(name, hints[name]) for name in COLUMNS},
        "required": list(COLUMNS),
        "additionalProperties": False,
        "allOf": _by_row_type(),
    }


def schema_text() -> str:
    """:func:`row_schema` as the committed file holds it: indented JSON, one final
    newline, keys in the order built (the column order)."""
    return json.dumps(row_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the schema to ``--out`` (default :data:`SCHEMA_PATH`); with ``--check``,
    write nothing and return 1 when the file differs from the generated schema."""
    parser = argparse.ArgumentParser(prog="python -m webmd_spider.rows.row_schema")
    parser.add_argument("--out", type=Path, default=SCHEMA_PATH)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = schema_text()
    if args.check:
        current = args.out.read_text("utf-8") if args.out.exists() else ""
        if current != text:
            sys.stderr.write(f"{args.out} is stale: run python -m webmd_spider.rows.row_schema\n")
            return 1
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, "utf-8")
    sys.stdout.write(f"wrote {args.out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
