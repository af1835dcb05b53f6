"""The chunk-level change feed (``-a changes=FILE``, ``-a index=FILE``): each row's chunk
changes, to the feed file and to the index.

Routes rows into the pure :class:`webmd_spider.index.sync.ChunkSync` that the spider's
job set-up opened (``run_context(crawler).chunk_sync``):

* a page row with chunks and ``change`` new or changed: its chunks against what the
  target holds for the page (upserts, deletes); an unchanged page sends nothing;
* a row with ``change == "removed"`` (a 404/410 tombstone, a page robots.txt now
  disallows): every chunk the target holds for the page is deleted;
* anything else passes. Every row passes through unchanged.

At the close the last batch is applied and the target closed; the report goes to the
stats (``webmd/index/*``), which the run summary reads. With neither option this
pipeline is not configured (``NotConfigured``): Scrapy leaves it out of the row path.
"""

from __future__ import annotations

import logging
from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from webmd_spider.index.sync import ChunkSync
from webmd_spider.items import Row
from webmd_spider.rows.index_pages import index_like_row
from webmd_spider.run_context import run_context
from webmd_spider.urls import canonicalize

logger = logging.getLogger(__name__)

_CONTENT_CHANGES = frozenset({"new", "changed"})


class ChunkSyncPipeline:
    """Feeds page rows to the run's :class:`ChunkSync`."""

    def __init__(self, crawler: Crawler, sync: ChunkSync | None) -> None:
        self.crawler = crawler
        self.sync = sync

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        sync = run_context(crawler).chunk_sync
        if sync is None:
            raise NotConfigured  # neither option: not a step of every row
        return cls(crawler, sync)

    def process_item(self, item: Any) -> Any:
        sync = self.sync
        if sync is None or not isinstance(item, Row):
            return item
        final = item.final_url or item.url
        if not final:
            return item
        try:
            self._feed(sync, item, final)
        except Exception as exc:  # the row must still reach the feeds
            # the target broke (a full disk, a damaged file): the rows go on; the next
            # run's reconcile fetches whatever the target missed
            logger.error("Change feed stopped: %s", exc)
            self.sync = None
            stats = self.crawler.stats
            if stats is not None:
                stats.set_value("webmd/index/failure", str(exc))
        return item

    def _feed(self, sync: ChunkSync, item: Row, final: str) -> None:
        keys = {canonicalize(u) for u in (item.url, final) if u}
        if item.change == "removed":
            sync.removed([u for u in (final, item.url) if u], keys)
        elif item.row_type == "page" and item.change in _CONTENT_CHANGES and item.chunks:
            url = str(item.chunks[0].get("url") or final)
            sync.page(
                url,
                keys,
                item.content_hash or "",
                item.chunks,
                item.title,
                item.scraped_at,
                item.headings or (),
                index_like_row(item),
            )
        elif item.row_type == "page" and item.change in _CONTENT_CHANGES:
            # a page with no text left (its chunks are none): what the target held goes
            sync.page(final, keys, item.content_hash or "", [], item.title, item.scraped_at)

    def close_spider(self) -> None:
        sync, self.sync = self.sync, None
        if sync is None:
            return
        report = sync.close()
        stats = self.crawler.stats
        if stats is not None:
            for name, value in report.to_dict().items():
                if name != "failures":
                    stats.set_value(f"webmd/index/{name}", value)
            if report.failures:
                stats.set_value("webmd/index/failure", report.failures[0])
        logger.info(
            "Change feed: %d pages changed: %d chunks upserted, %d deleted; "
            "%d embedded, %d reused, %d waiting for the embedder%s",
            report.pages,
            report.upserts,
            report.deletes,
            report.embedded,
            report.reused,
            report.pending,
            f" ({report.failures[0]})" if report.failures else "",
        )
