"""A test-only Scrapy extension: the crawl process kills itself (SIGKILL, no clean-up)
right after the row of a chosen page is written (``KILL_AFTER_ROW`` = a URL path).

Connected to ``item_scraped`` after the project's own extensions (``EXTENSIONS`` order
1000), so it fires after the feed wrote the row and the resume bookkeeping saw it: the
moment a page's links may still be on their way to the queue.
"""

from __future__ import annotations

import os
import signal
from typing import Any, Self
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured


class KillAfterRow:
    def __init__(self, path: str) -> None:
        self.path = path

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        path = crawler.settings.get("KILL_AFTER_ROW")
        if not path:
            raise NotConfigured
        ext = cls(path)
        crawler.signals.connect(ext.item_scraped, signal=signals.item_scraped)
        return ext

    def item_scraped(self, item: Any) -> None:
        url = getattr(item, "url", None)
        if getattr(item, "row_type", None) == "page" and url and urlsplit(url).path == self.path:
            os.kill(os.getpid(), signal.SIGKILL)
