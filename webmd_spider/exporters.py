"""A JSON lines exporter that writes our rows without Scrapy's per-field machinery.

Setting: ``FEED_EXPORTERS`` maps ``jsonl`` and ``jsonlines`` to
:class:`RowJsonLinesExporter`. Scrapy's ``JsonLinesItemExporter`` wraps every item in an
``ItemAdapter`` and calls a serializer per field (57 columns per row), which cost about
as much as the JSON encoding itself. A :class:`~webmd_spider.items.Row` holds only JSON
types (str, numbers, bools, None, lists and dicts of them) and declares no field
serializers, so when no ``fields`` option is given the row is turned into a dict in
column order in one C call and encoded by the same encoder: the bytes written are
exactly Scrapy's. Anything else (other items, a ``fields`` list) goes through Scrapy's
code unchanged.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from scrapy.exporters import JsonLinesItemExporter

from webmd_spider.items import COLUMNS, Row

_row_values = attrgetter(*COLUMNS)


class RowJsonLinesExporter(JsonLinesItemExporter):
    """``JsonLinesItemExporter`` with a fast path for ``Row`` (see the module docstring)."""

    def export_item(self, item: Any) -> None:
        if type(item) is not Row or self.fields_to_export is not None:
            super().export_item(item)
            return
        data = self.encoder.encode(dict(zip(COLUMNS, _row_values(item), strict=True)))
        self.file.write((data + "\n").encode(self.encoding or "utf-8"))
