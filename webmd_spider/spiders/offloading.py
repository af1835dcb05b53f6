"""Pages converted in extraction processes (``WEBMD_EXTRACT_PROCESSES``), seen from the
spider: start the pool, send a page, give up a stopped website's pages, close.

The pool itself is ``offload/pool.py``; this is the Scrapy-side bookkeeping around it:
which pages are out per website (so that a website that stops does not keep the run
waiting for conversions it will throw away) and what a page's conversion came to.
"""

from __future__ import annotations

import asyncio
import logging

from scrapy.http import Response
from scrapy.statscollectors import StatsCollector

from webmd_spider.offload.page_work import PageWork
from webmd_spider.offload.pool import ExtractionTimeout, ExtractPool, PoolClosed
from webmd_spider.rows.ledger import RunLedger
from webmd_spider.spiders.clock import RunClock
from webmd_spider.spiders.responses import charset_of

logger = logging.getLogger("webmd_spider.spiders.site")

#: What an extraction process made of a page (see PageOffload.extract).
Extracted = PageWork | ExtractionTimeout | PoolClosed | None


class PageOffload:
    """The extraction processes of a crawl, or none (``pool`` is None)."""

    def __init__(
        self, pool: ExtractPool | None, ledger: RunLedger, clock: RunClock, repeated: bool = False
    ) -> None:
        self.pool = pool
        self.ledger = ledger
        self.clock = clock
        #: ``remove_repeated_blocks``: each page goes with its website's repeated paragraphs
        self.repeated = repeated
        #: pages out at an extraction process, per website (given up when it stops)
        self._out: dict[str, set[asyncio.Future[PageWork | None]]] = {}

    def start(self) -> None:
        """Start the extraction processes now: they get ready while robots.txt and the
        sitemaps are read (pages that come before are extracted here)."""
        if self.pool is None:
            return
        try:
            self.pool.start()
        except RuntimeError as exc:  # no running asyncio loop (another reactor)
            logger.warning("extraction processes need the asyncio reactor (%s)", exc)
            self.pool = None

    async def extract(self, response: Response, stats: StatsCollector | None) -> Extracted:
        """The page converted by an extraction process (``ExtractPool.extract``: a page
        of ``WAIT_FOR_WORKER_BYTES`` or more waits for a worker, starting or busy,
        instead of being converted here, where a hostile one would hold the event loop
        for minutes). Returns the ``PageWork``; or None: extract the page here (a small
        page no worker can take now, no worker left, the page failed in its worker) or,
        when its website stopped meanwhile, skip it (``give_up`` cancels the pages still
        out); or the exception that the page's answer turns into what the page gets: an
        ``ExtractionTimeout`` (an ``extraction-timeout`` row; the page is not converted
        here either) or ``PoolClosed`` (the run is ending: not written)."""
        pool = self.pool
        assert pool is not None
        # a task of its own, which give_up can cancel without touching Scrapy's
        website = response.meta["webmd_site"]
        site = self.ledger.sites.get(website)
        repeated = site.repeated.repeated() if self.repeated and site is not None else None
        task = asyncio.ensure_future(
            pool.extract(response.body, response.url, charset_of(response), repeated)
        )
        out = self._out.setdefault(website, set())
        out.add(task)
        try:
            return await task
        except ExtractionTimeout as exc:
            if stats is not None:
                stats.inc_value("webmd/extraction_timeouts")
            return exc
        except PoolClosed as exc:
            return exc
        except asyncio.CancelledError:
            site = self.ledger.sites.get(website)
            if site is not None and self.clock.stopped(site) is not None:
                return None  # given up: the page's answer skips it
            raise
        finally:
            out.discard(task)

    def give_up(self, website: str) -> None:
        """A website stopped: its pages still out are not waited for."""
        for future in self._out.pop(website, ()):
            future.cancel()

    def close(self) -> None:
        """Stop the extraction processes (pages still out end as ``PoolClosed``)."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None
