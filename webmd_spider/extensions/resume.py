"""Mark a page as done in the resume journal once its row is in the feeds.

Enabled when ``JOBDIR`` is set (the spider then keeps a ``CrawlJournal``). It listens
to ``item_scraped`` and, being an extension created after Scrapy's ``FeedExporter``,
runs after the feed has written the row (receivers run in connection order), so a
URL is never journaled as done before its row is on disk. A kill between the two
writes means one page fetched again on resume, never a page lost.
"""

from __future__ import annotations

from typing import Any, Self

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from webmd_spider.items import Row
from webmd_spider.urls import canonicalize


class ResumeJournal:
    """Write the journal's "done" lines (see the module docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.get("JOBDIR"):
            raise NotConfigured  # no message: Scrapy would log it as a warning
        ext = cls(crawler)
        crawler.signals.connect(ext.item_scraped, signal=signals.item_scraped)
        return ext

    def item_scraped(self, item: Any, spider: Spider) -> None:
        journal = getattr(spider, "journal", None)
        if journal is None or not isinstance(item, Row) or item.row_type == "site":
            return
        if item.url and item.discovered_via is not None:
            journal.finish(canonicalize(item.url), item.row_type)
