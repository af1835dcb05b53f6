"""A progress line every few seconds: pages done, queued, failed, budget and rate.

Setting / option: ``WEBMD_PROGRESS_SECS`` (``-a progress_secs=N``; 0 turns it off).
Reads the run context's ledger and options, and Scrapy's scheduler stats.
"""

from __future__ import annotations

import logging
from typing import Self

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from twisted.internet.task import LoopingCall

from webmd_spider.run_context import run_context

logger = logging.getLogger(__name__)


class ProgressLog:
    """Log crawl progress at a fixed interval while the spider runs."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._task: LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        ext = cls(crawler)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Spider) -> None:
        interval = float(run_context(self.crawler).options.progress_secs)
        if interval <= 0:
            return
        self._task = LoopingCall(self.log_progress)
        self._task.start(interval, now=False)

    def log_progress(self) -> None:
        """Write one progress line."""
        context = run_context(self.crawler)
        ledger = context.ledger
        stats = self.crawler.stats
        queued = (stats.get_value("scheduler/enqueued", 0) or 0) - (
            stats.get_value("scheduler/dequeued", 0) or 0
        )
        pages = ledger.row_counts.get("page", 0)
        failed = ledger.row_counts.get("diagnostic", 0)
        elapsed = max(ledger.elapsed(), 1e-6)
        budget = context.options.max_pages
        logger.info(
            "progress: %d pages, %d failed, %d queued, budget %s pages/site, %.1f pages/s, %.0fs",
            pages,
            failed,
            queued,
            budget,
            pages / elapsed,
            elapsed,
        )

    def spider_closed(self, spider: Spider) -> None:
        if self._task is not None and self._task.running:
            self._task.stop()
