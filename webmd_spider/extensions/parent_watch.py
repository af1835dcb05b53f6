"""Stop a crawl whose starter is gone: ``webmd crawl``, the Python API, ``webmd serve``
and ``webmd mcp`` start ``scrapy crawl site`` in a session of its own (so that a
terminal's Ctrl-C reaches only them, and they stop it cleanly), which also means that
nothing ends the crawl when they die (SIGTERM, SIGKILL, a closed terminal).

Environment: ``WEBMD_PARENT_PID`` (set by ``crawl_process.start_crawl``); without it the
extension is off (``scrapy crawl`` typed by a person). Once a second the process checks
that its parent is still that process (when a parent dies, its children are given to
another); if not, it stops as Ctrl-C would (SIGINT: open pages are finished and written,
the site rows and summary too), and a second SIGINT after the grace period forces it.
"""

from __future__ import annotations

import logging
import os
import signal
from typing import Any, Self

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from twisted.internet.task import LoopingCall

logger = logging.getLogger(__name__)

#: the environment variable naming the process that started the crawl
PARENT_ENV = "WEBMD_PARENT_PID"
#: seconds between two looks at the parent (os.getppid costs a system call)
CHECK_SECS = 1.0
#: seconds the crawl has to finish its open pages before a second SIGINT forces it
GRACE_SECS = 20.0


class ParentWatch:
    """Stop the crawl when the process named by ``WEBMD_PARENT_PID`` is gone."""

    def __init__(self, parent: int) -> None:
        self.parent = parent
        self._task: LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        value = os.environ.get(PARENT_ENV, "")
        if not value.isdigit():
            raise NotConfigured(f"{PARENT_ENV} is not set: started by a person")
        watch = cls(int(value))
        crawler.signals.connect(watch.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(watch.spider_closed, signal=signals.spider_closed)
        return watch

    def spider_opened(self, spider: Spider) -> None:
        self._task = LoopingCall(self.check)
        self._task.start(CHECK_SECS, now=True)

    def check(self) -> None:
        """Stop the crawl (once) when the parent is no longer the starter."""
        if os.getppid() == self.parent:
            return
        logger.warning(
            "The process that started this crawl (pid %d) is gone: stopping", self.parent
        )
        if self._task is not None and self._task.running:
            self._task.stop()
        os.kill(os.getpid(), signal.SIGINT)
        # imported here: at module level it would install the default reactor before
        # Scrapy installs the asyncio one
        from twisted.internet import reactor

        clock: Any = reactor
        clock.callLater(GRACE_SECS, os.kill, os.getpid(), signal.SIGINT)

    def spider_closed(self, spider: Spider) -> None:
        if self._task is not None and self._task.running:
            self._task.stop()
