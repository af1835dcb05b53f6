"""The JSON lines exporter of our rows (webmd_spider/feeds/exporters.py): orjson for UTF-8
feeds, Scrapy's own encoder for everything it cannot or should not take."""

from __future__ import annotations

import io
import json

from hypothesis import given
from hypothesis import strategies as st
from scrapy.exporters import JsonLinesItemExporter

from webmd_spider.feeds.exporters import RowJsonLinesExporter
from webmd_spider.items import COLUMNS, diagnostic_row, page_row


def _export(item: object, **kwargs: object) -> bytes:
    out = io.BytesIO()
    exporter = RowJsonLinesExporter(out, **kwargs)
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    return out.getvalue()


def _scrapy(item: object, **kwargs: object) -> bytes:
    out = io.BytesIO()
    exporter = JsonLinesItemExporter(out, **kwargs)
    exporter.export_item(item)
    return out.getvalue()


def _rich_row() -> object:
    return page_row(
        url="https://example.org/ü?q=1",
        title='Quotes " and \\ backslashes\u2028and a line separator',
        markdown="# Ünïcödé\n\n```py\nprint('\\t')\n```\n\x00\x1f control",
        text="日本語のテキスト 🙂",
        word_count=7,
        reading_time_min=0.05,
        boilerplate_ratio=1 / 3,
        headings=[{"level": 1, "text": "Ünïcödé", "anchor": None}],
        chunks=[{"index": 0, "text": "x", "token_estimate": 1}],
        truncated=False,
    )


def test_utf8_row_is_one_compact_line_with_every_column_in_order() -> None:
    row = _rich_row()
    data = _export(row, encoding="utf-8")
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert b'", "' not in data  # compact separators
    decoded = json.loads(data)
    assert list(decoded) == list(COLUMNS)
    assert decoded == json.loads(_scrapy(row, encoding="utf-8"))
    assert "日本語".encode() in data  # UTF-8, not \u escapes


@given(
    st.text(st.characters(exclude_categories=["Cs"])),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
)
def test_any_row_decodes_to_what_scrapys_exporter_writes(text: str, ratio: float, n: int) -> None:
    row = page_row(markdown=text, title=text, boilerplate_ratio=ratio, word_count=n)
    assert json.loads(_export(row, encoding="utf-8")) == json.loads(_scrapy(row, encoding="utf-8"))


def test_a_row_orjson_refuses_is_written_by_scrapys_encoder() -> None:
    huge = page_row(word_count=2**70)  # beyond 64 bits
    assert _export(huge, encoding="utf-8") == _scrapy(huge, encoding="utf-8")


def test_other_encodings_and_other_items_keep_scrapys_bytes() -> None:
    row = diagnostic_row("timeout", "no answer in 20 s", url="https://example.org/é")
    assert _export(row, encoding=None) == _scrapy(row, encoding=None)
    assert b"\\u00e9" in _export(row, encoding=None)
    assert _export(row, encoding="latin-1") == _scrapy(row, encoding="latin-1")
    plain = {"url": "https://example.org/", "n": 1}
    assert _export(plain, encoding="utf-8") == _scrapy(plain, encoding="utf-8")
    assert _export(row, encoding="utf-8", fields_to_export=["url"]) == _scrapy(
        row, encoding="utf-8", fields_to_export=["url"]
    )


def test_encoder_options_of_the_feed_are_honoured() -> None:
    row = _rich_row()
    for options in ({"sort_keys": True}, {"ensure_ascii": True}):
        assert _export(row, encoding="utf-8", **options) == _scrapy(
            row, encoding="utf-8", **options
        )
    assert _export(row, encoding="utf-8", sort_keys=True).startswith(b'{"author": null')
