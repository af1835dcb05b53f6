"""Stopping: a website's queued requests taken out when it stops, and the run's time
budget (no new fetches at the budget, the close after its grace period).

When a website stops, its requests waiting in the scheduler's memory queue and in its
download slot are taken out at once, each counted as not fetched, and its pages out at
an extraction process are given up. A JOBDIR's disk queue (it must stay resumable) and
a distributed crawl's shared queue (the other workers' too) are left alone: the budget
middleware refuses what comes out of them one by one. At the time budget every
website's are taken out; after the grace period (``clock.STOP_GRACE_SECS``) the spider
closes, and no row is made any more.

Only public interfaces of our own Scrapy components are used:
``transport.scheduler.TakingScheduler.take`` and
``transport.downloader.SlotLimitedDownloader.take_waiting``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.base import DelayedCall
from twisted.internet.task import LoopingCall
from twisted.python.failure import Failure

from webmd_spider.rows.ledger import RunLedger
from webmd_spider.spiders.budgets import SiteBudgets
from webmd_spider.spiders.clock import STOP_GRACE_SECS, RunClock
from webmd_spider.spiders.offloading import PageOffload
from webmd_spider.spiders.page_answers import sent_before
from webmd_spider.spiders.startup import call_later
from webmd_spider.transport.downloader import SlotLimitedDownloader
from webmd_spider.transport.scheduler import TakesRequests

logger = logging.getLogger("webmd_spider.spiders.site")

#: How often the run looks whether Scrapy began a graceful stop (``TimeBudget``).
SHUTDOWN_POLL_SECS = 0.25


class QueuePurge:
    """Takes the requests of a stopped website (or of every website) out of the queues."""

    def __init__(
        self,
        crawler: Crawler | None,
        ledger: RunLedger,
        budgets: SiteBudgets,
        offload: PageOffload,
    ) -> None:
        self.crawler = crawler
        self.ledger = ledger
        self.budgets = budgets
        self.offload = offload
        #: websites whose queued requests were taken out at their stop (once each)
        self._purged: set[str] = set()
        #: writes the ``aborted`` row of a request taken out of the queue whose URL was
        #: sent before (a redirect's next hop, a retry); set by the spider
        self.aborted: Callable[[Request, str], None] | None = None

    def site_stopped(self, website: str) -> None:
        """A website stopped (its budgets, or a refusal decided elsewhere: the budget and
        politeness middlewares send the ``run_context.site_stopped`` signal): its
        requests still waiting are taken out at once, on the next turn of the event loop
        (not from inside the callback or middleware that stopped it)."""
        if website in self._purged:
            return
        self._purged.add(website)
        self.offload.give_up(website)
        call_later(0, partial(self.purge, website))

    def purge(self, website: str | None, reason: str | None = None) -> int:
        """Take out of the scheduler's memory queue and the download slots the page
        requests of ``website`` (None: of every website), counting each as not fetched;
        for None, every waiting download (of any kind) is failed as well."""
        site = self.ledger.sites.get(website) if website is not None else None
        reason = reason or (site.stop_reason if site is not None else None)
        if reason is None or self.crawler is None or self.crawler.engine is None:
            return 0
        count = self._purge_scheduler(reason, website)
        count += self._drain_download_queues(reason, website)
        if count:
            logger.info(
                "%s: %d queued requests dropped (%s)", website or "every website", count, reason
            )
        return count

    def _purge_scheduler(self, reason: str, website: str | None) -> int:
        """Page requests in the scheduler's memory queues, taken out at once."""

        def wanted(meta: dict[str, Any]) -> bool:
            return (
                meta.get("webmd_kind") == "page"
                and website in (None, meta["webmd_site"])
                # a retry of a refused URL goes on to its errback (a blocked row)
                and not (reason == "blocked" and bool(meta.get("webmd_refusals")))
            )

        taken = self.take_queued(wanted)
        for request in taken:
            self._not_fetched(request, reason)
            if self.aborted is not None and sent_before(request.meta):
                # its URL was sent already (issue 31): it ends as a row, not only as
                # a not-fetched entry (aborted_request takes the retry's entry back)
                self.aborted(request, reason)
        return len(taken)

    def take_queued(self, wanted: Callable[[dict[str, Any]], bool]) -> list[Request]:
        """The requests waiting in the scheduler whose meta is ``wanted``, taken out."""
        engine = self.crawler.engine if self.crawler is not None else None
        scheduler = engine.scheduler if engine is not None else None
        return scheduler.take(wanted) if isinstance(scheduler, TakesRequests) else []

    def _not_fetched(self, request: Request, reason: str) -> None:
        """Count a request taken out before its download (as BudgetMiddleware does)."""
        assert self.crawler is not None and self.crawler.stats is not None
        meta = request.meta
        meta["webmd_rejected"] = reason
        self.budgets.release(meta)
        self.ledger.skip(request.url, reason, meta.get("webmd_site"))
        self.crawler.stats.inc_value(f"webmd/not_fetched/{reason}")

    def _drain_download_queues(self, reason: str, website: str | None = None) -> int:
        """Fail the requests waiting in the downloader's per-slot queues: every request
        of every slot, or (``website``) the page requests of that website's slot."""
        assert self.crawler is not None and self.crawler.engine is not None
        downloader = self.crawler.engine.downloader
        if not isinstance(downloader, SlotLimitedDownloader):
            return 0
        failed = downloader.take_waiting(website)
        for request, deferred in failed:
            # the errback runs page_failed, which releases the request
            request.meta["webmd_rejected"] = reason
            self.ledger.skip(request.url, reason, request.meta.get("webmd_site"))
            deferred.errback(Failure(IgnoreRequest(f"not fetched: {reason}")))
        return len(failed)

    def demote_sitemap_pages(self, website: str, priority: int) -> None:
        """Queue the sitemap-listed page requests of ``website`` still in Scrapy's
        memory queue again at ``priority``, behind every link (``SitemapJudge``). A
        JOBDIR's disk queue and a distributed crawl's shared queue are left as they are
        (new sitemap pages are still queued behind the links: ``Frontier``)."""
        if self.crawler is None or self.crawler.engine is None:
            return
        taken = self.take_queued(
            lambda meta: meta.get("webmd_site") == website and meta.get("webmd_via") == "sitemap"
        )
        for request in taken:
            self.crawler.engine.crawl(request.replace(priority=priority, dont_filter=True))
        if taken:
            logger.info("%s: %d sitemap pages queued behind the links", website, len(taken))


class TimeBudget:
    """``max_run_secs``: at the budget no new fetches; after the grace period, close."""

    def __init__(
        self,
        crawler: Crawler | None,
        ledger: RunLedger,
        clock: RunClock,
        purge: QueuePurge,
        offload: PageOffload,
        max_run_secs: float,
    ) -> None:
        self.crawler = crawler
        self.ledger = ledger
        self.clock = clock
        self.purge = purge
        self.offload = offload
        self.max_run_secs = max_run_secs
        self._timer: DelayedCall | None = None
        self._watch: LoopingCall | None = None

    def start(self, budget: float) -> None:
        """The crawl starts now with ``budget`` seconds; a graceful stop (Ctrl-C, a
        shutdown signal) is watched for from now on (``_check_shutdown``)."""
        self._timer = call_later(budget, self._reached)
        self.clock.deadline = time.monotonic() + budget
        if self.crawler is not None:
            self._watch = LoopingCall(self._check_shutdown)
            self._watch.start(SHUTDOWN_POLL_SECS, now=False)

    def cancel(self) -> None:
        """The spider closes: the timer must not fire after it, nor the watch run."""
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        if self._watch is not None and self._watch.running:
            self._watch.stop()
        self._watch = None

    def _check_shutdown(self) -> None:
        """Scrapy's graceful stop (the first Ctrl-C, SIGTERM; ``Crawler.stop_async``)
        sends no signal before the engine's close, which waits for the downloads in
        flight and then drops the scheduler's memory queue silently. Seen here within
        SHUTDOWN_POLL_SECS (``Crawler.crawling`` turns False): the run's stop reason is
        ``shutdown`` at once, so that links found meanwhile and the queued requests
        are listed as not fetched (``QueuePurge.purge``); the answers still coming in
        are written as usual."""
        if self.crawler is None or self.crawler.crawling:
            return
        if self._watch is not None and self._watch.running:
            self._watch.stop()
        if self.ledger.stop_reason is not None:
            return  # stopping already (the time budget): its reason stands
        if self.crawler.settings.get("JOBDIR"):
            # A resumable crawl: Scrapy keeps its queue in JOBDIR at the close and the
            # next run takes it up, so the links of the pages still finishing must join
            # that queue (not be listed as lost: their pages are journaled as done and
            # would never be read again for them).
            logger.info("Stopping (shutdown): the queue stays in JOBDIR for the next run")
            return
        self.ledger.stop_reason = "shutdown"
        dropped = self.purge.purge(None, "shutdown")
        logger.warning(
            "Stopping (shutdown): no new fetches (%d queued requests dropped); "
            "finishing the downloads in flight",
            dropped,
        )

    def _reached(self) -> None:
        self._timer = None
        if self.ledger.stop_reason is None:
            self.ledger.stop_reason = "time_budget"
        dropped = self.purge.purge(None, "time_budget")
        logger.warning(
            "Time budget of %ss reached: no new fetches (%d queued requests dropped); "
            "finishing the downloads in flight",
            self.max_run_secs,
            dropped,
        )
        self._timer = call_later(STOP_GRACE_SECS, self._force_close)

    def _force_close(self) -> None:
        """Downloads still in flight after the grace period: close now. No row is made
        any more (the answers still to come are counted as not fetched, the callbacks
        still running stop at their next output, the extraction processes are stopped);
        the site rows are written at the close, after every row made before, so each is
        its website's last row and its counts are the rows written."""
        self._timer = None
        message = "downloads still in flight after the time budget's grace period: closing"
        logger.warning(message)
        self.ledger.warn(message)
        self.clock.closing = True
        # pages still out would hold the close for as long as their worker takes
        self.offload.close()
        self.purge.purge(None, self.ledger.stop_reason or "time_budget")
        assert self.crawler is not None and self.crawler.engine is not None
        deferred_from_coro(self.crawler.engine.close_spider_async(reason="time_budget"))
