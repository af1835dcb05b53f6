"""Mark a page as done once its row is in the feeds: in the resume journal (``JOBDIR``)
and, in a distributed crawl (``WEBMD_REDIS_URL``), in the worker's in-flight list.

Enabled when ``JOBDIR`` or ``WEBMD_REDIS_URL`` is set. It listens to ``item_scraped``
and, being an extension created after Scrapy's ``FeedExporter``, runs after the feed
has written the row (receivers run in connection order), so a URL is never marked done
before its row is on disk. The mark itself waits, in the run context's
:class:`~webmd_spider.state.completion.PageCompletion`, until the page's links are queued
too. A kill between the two writes means one page fetched again on resume, never a
page lost. A row a pipeline dropped or failed on settles its page as well (it will
not be written by fetching the page again).
"""

from __future__ import annotations

from typing import Any, Self

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from webmd_spider.items import Row
from webmd_spider.run_context import run_context
from webmd_spider.state.completion import done_key


class ResumeJournal:
    """Settle a page's row in the spider's page completion (see the module docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        if not crawler.settings.get("JOBDIR") and not crawler.settings.get("WEBMD_REDIS_URL"):
            raise NotConfigured  # no message: Scrapy would log it as a warning
        ext = cls(crawler)
        crawler.signals.connect(ext.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(ext.item_not_written, signal=signals.item_dropped)
        crawler.signals.connect(ext.item_not_written, signal=signals.item_error)
        return ext

    def item_scraped(self, item: Any, spider: Spider) -> None:
        self._settle(item, written=True)

    def item_not_written(self, item: Any, spider: Spider) -> None:
        self._settle(item, written=False)

    def _settle(self, item: Any, written: bool) -> None:
        if not isinstance(item, Row):
            return
        key = done_key(item)
        completion = run_context(self.crawler).completion
        if key is None or completion is None:
            return
        completion.row_settled(key, item if written else None)
