"""Scrapy's per-page DEBUG records, not made when nobody will read them.

Scrapy's own log configuration (``scrapy.utils.log.configure_logging``) sets the root
logger to DEBUG and filters at the handler by ``LOG_LEVEL``, so its "Crawled (200)" and
"Scraped from" records are built for every response and every row, then thrown away
at the default ``INFO``. On a recrawl answered by 304s that is a measurable share of
each page's CPU (``docs/BENCHMARKS.md``, "Cheap recrawls"). A ``LogFormatter`` method
that returns None makes Scrapy log nothing for that action (its documented way to
omit one), so these two return None unless ``LOG_LEVEL`` lets DEBUG through.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Self

from scrapy.logformatter import LogFormatter, LogFormatterResult

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure


class QuietLogFormatter(LogFormatter):
    """Scrapy's formatter, without its DEBUG "Crawled" and "Scraped" records when the
    log level (``LOG_LEVEL``) is above DEBUG."""

    def __init__(self, debug: bool = True) -> None:
        self.debug = debug

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        level = crawler.settings.get("LOG_LEVEL", "DEBUG")
        number = level if isinstance(level, int) else logging.getLevelName(str(level).upper())
        return cls(debug=not isinstance(number, int) or number <= logging.DEBUG)

    def crawled(  # type: ignore[override]
        self, request: Request, response: Response, spider: Spider
    ) -> LogFormatterResult | None:
        return super().crawled(request, response, spider) if self.debug else None

    def scraped(  # type: ignore[override]
        self, item: Any, response: Response | Failure | None, spider: Spider
    ) -> LogFormatterResult | None:
        return super().scraped(item, response, spider) if self.debug else None
