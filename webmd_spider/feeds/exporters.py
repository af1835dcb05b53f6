"""A JSON lines exporter that writes our rows without Scrapy's per-field machinery.

Setting: ``FEED_EXPORTERS`` maps ``jsonl`` and ``jsonlines`` to
:class:`RowJsonLinesExporter`. Scrapy's ``JsonLinesItemExporter`` wraps every item in an
``ItemAdapter`` and calls a serializer per field (57 columns per row), then encodes with
the standard library's JSON encoder; for a documentation page's row (about 27 KB:
Markdown, text and chunks) that encoder alone cost the crawl process 0.15 ms, a tenth
of what Scrapy spends on the whole request. A :class:`~webmd_spider.items.Row` holds
only JSON types (str, numbers, bools, None, lists and dicts of them) and declares no
field serializers, so when no ``fields`` option is given, the feed is UTF-8 (our
default) and no encoder options were given (the feed option ``item_export_kwargs``,
e.g. ``sort_keys``), the row is turned into a dict in column order in one C call and
encoded by orjson (20 times faster on these rows): compact JSON (no space after ``,``
and ``:``), the same values, keys in column order, UTF-8. A row orjson refuses (an
integer beyond 64 bits, a type it does not know) is written by Scrapy's encoder, as is
anything else (other items, a ``fields`` list, encoder options, another
``FEED_EXPORT_ENCODING``). The values a row can hold (str, int, finite floats, bools,
None, lists and dicts of them) come out the same either way; orjson would differ only
on types no row holds (NaN and infinities become null; enums, UUIDs and dataclasses
are encoded where Scrapy's encoder raises). A lone surrogate in a string fails in both.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import orjson
from scrapy.exporters import JsonLinesItemExporter

from webmd_spider.items import COLUMNS, Row

_row_values = attrgetter(*COLUMNS)
_LINE = orjson.OPT_APPEND_NEWLINE


class RowJsonLinesExporter(JsonLinesItemExporter):
    """``JsonLinesItemExporter`` with a fast path for ``Row`` (see the module docstring)."""

    def __init__(self, file: Any, **kwargs: Any) -> None:
        super().__init__(file, **kwargs)
        utf8 = (self.encoding or "").lower().replace("_", "-") in ("utf-8", "utf8")
        # Scrapy's JsonLinesItemExporter always sets ensure_ascii (False for UTF-8);
        # any other encoder option is the user's, and only Scrapy's encoder honours it
        self._fast = utf8 and self._kwargs == {"ensure_ascii": False}

    def export_item(self, item: Any) -> None:
        if type(item) is not Row or self.fields_to_export is not None:
            super().export_item(item)
            return
        row = dict(zip(COLUMNS, _row_values(item), strict=True))
        if self._fast:
            try:
                self.file.write(orjson.dumps(row, option=_LINE))
                return
            except (orjson.JSONEncodeError, TypeError):
                pass  # the standard encoder below, as Scrapy would
        data = self.encoder.encode(row)
        self.file.write((data + "\n").encode(self.encoding or "utf-8"))
