"""Chunk every page row's Markdown for embedding (``chunks``, ``chunk_count``).

Reads the run context's ``chunk_budget`` (size and overlap in characters, validated from
the ``chunk_size`` / ``chunk_tokens`` / ``chunk_overlap`` / ``chunk_overlap_tokens``
options, settings ``WEBMD_CHUNK_*``); chunking is off (the columns stay null) when the
size is 0, the default. The work itself is the pure
``webmd_spider.chunking.markdown_chunks`` module.
Rows whose page was converted in an extraction process come chunked already (the
same call, made there: ``webmd_spider.offload.page_work``); their chunks are kept.
"""

from __future__ import annotations

from typing import Any, Self

from scrapy.crawler import Crawler

from webmd_spider.chunking.markdown_chunks import chunk_markdown
from webmd_spider.items import Row
from webmd_spider.run_context import run_context


class ChunkPipeline:
    """Fill ``chunks`` and ``chunk_count`` on page rows."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_item(self, item: Any) -> Any:
        if not isinstance(item, Row) or item.row_type != "page" or not item.markdown:
            return item
        size, overlap = run_context(self.crawler).chunk_budget
        if size <= 0:
            return item
        if item.chunks is None:  # else chunked already, in an extraction process
            url = item.final_url or item.url or ""
            chunks = chunk_markdown(item.markdown, url, size, overlap, title=item.title)
            item.chunks = [chunk.to_dict() for chunk in chunks]
            item.chunk_count = len(chunks)
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value("webmd/chunks", len(item.chunks))
        return item
