"""Mark a page as done once its row is in the feeds: in the resume journal (``JOBDIR``)
and, in a distributed crawl (``WEBMD_REDIS_URL``), in the worker's in-flight list.

Enabled when ``JOBDIR`` or ``WEBMD_REDIS_URL`` is set. It listens
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
        if not crawler.settings.get("JOBDIR") and not crawler.settings.get("WEBMD_REDIS_URL"):
            raise NotConfigured  # no message: Scrapy would log it as a warning
        ext = cls(crawler)
        crawler.signals.connect(ext.item_scraped, signal=signals.item_scraped)
        return ext

    def item_scraped(self, item: Any, spider: Spider) -> None:
        if not isinstance(item, Row) or item.row_type == "site":
            return
        if not item.url or item.discovered_via is None:
            return
        key = canonicalize(item.url)
        journal = getattr(spider, "journal", None)
        if journal is not None:
            journal.finish(key, item.row_type)
        fleet = getattr(spider, "fleet", None)
        if fleet is not None:
            fleet.finished(key)  # no longer in flight: a dead worker's rescue skips it
