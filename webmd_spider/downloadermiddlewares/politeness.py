"""Per-website politeness on top of Scrapy's download slots.

* Crawl-delay: the spider records robots.txt's Crawl-delay per website in
  the run context's ``crawl_delays``; every request of that website raises its slot's delay so
  that even the lowest jittered interval is the Crawl-delay (jitter only upward), and
  tells AutoThrottle not to lower it (``autothrottle_dont_adjust_delay``).
* 429 / 503: Retry-After (seconds or HTTP date) or exponential backoff, bounded by the
  run budget; the whole website rests (every request of it waits in ``process_request``
  until the "not before" time, whatever DOWNLOAD_DELAY is) and the request is retried. A URL refused
  MAX_REFUSALS_PER_URL times, a wait past the budget, or a website refusing
  MAX_REFUSALS_PER_SITE times in a row is given up: the response goes to the spider
  marked ``webmd_refused`` (a ``blocked`` row, also when this very refusal stopped the
  website: it was fetched), and the website stops (``stop_reason: blocked``; the spider
  is told through ``site_stopped``). A retry carries ``webmd_refusals`` (how many times
  its URL was refused) and ``webmd_refused_status`` (the last refusal's status): one
  still queued when its website stops is a fetched URL too, which the spider reports
  with a ``blocked`` row rather than as not fetched.

* A robots.txt probe whose failure names a cause that an immediate retry cannot change
  (``network_causes``: no such host, nothing listening, plain HTTP answering TLS) is
  marked ``dont_retry``: Scrapy's RetryMiddleware, below, would only ask again.

* A download given up on time (DOWNLOAD_TIMEOUT) frees Scrapy's slot at once, but the
  server is still working on it: the next request went out beside it, and five were in
  flight to a website whose ``max_concurrency`` is 4 (issue 16 item 8). The abandoned
  request keeps its place: the slot's concurrency is one lower for twice the time the
  download was given (a server that answers within that has finished), then restored.
  Lowered just before the timeout fires (SLOT_HOLD_MARGIN): Scrapy frees the slot and
  starts the next transfer before any middleware hears of the timeout.

Reads the run context's ``ledger``, ``options`` (max_run_secs), ``crawl_delays`` and
``fleet`` (``webmd_spider.run_context``); a website it stops is announced with the
``run_context.site_stopped`` signal.
Scrapy's RetryMiddleware must not also retry 429/503 (settings drop them from
RETRY_HTTP_CODES).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import Any, Self

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import DownloadTimeoutError, IgnoreRequest
from scrapy.http import Response
from twisted.internet import error as tx_error

from webmd_spider.downloadermiddlewares.network_causes import network_cause
from webmd_spider.policy.politeness import (
    MAX_REFUSALS_PER_SITE,
    MAX_REFUSALS_PER_URL,
    MAX_WAIT_SECS,
    backoff,
    delay_for_floor,
    parse_retry_after,
)
from webmd_spider.run_context import run_context, site_stopped

REFUSAL_STATUSES = (429, 503)
#: the exceptions of a download given up on time (spiders/failures.py classifies them)
TIMEOUTS = (DownloadTimeoutError, tx_error.TimeoutError, TimeoutError)
#: how long before a download's timeout its slot place is held (at most a quarter of
#: the timeout)
SLOT_HOLD_MARGIN = 0.25


class PolitenessMiddleware:
    """Crawl-delay floors and Retry-After handling per website."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        #: website -> time.monotonic() before which none of its requests is sent
        self.not_before: dict[str, float] = {}
        self.timeout = crawler.settings.getfloat("DOWNLOAD_TIMEOUT", 180)
        #: website -> when its robots.txt answered (until its first page is sent)
        self.robots_answered: dict[str, float] = {}
        #: requests whose slot holds a place for them (lowered concurrency) -> the slot
        self._held: weakref.WeakKeyDictionary[Request, Any] = weakref.WeakKeyDictionary()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _slot(self, request: Request) -> Any:
        key = request.meta.get("download_slot") or request.meta.get("webmd_site")
        return self.crawler.engine.downloader.slots.get(key) if key else None

    async def process_request(self, request: Request) -> None:
        site = request.meta.get("webmd_site")
        if not site:
            return
        if request.meta.get("webmd_kind") != "summary":
            self._watch_timeout(request)
        context = run_context(self.crawler)
        wait = self.not_before.get(site, 0.0) - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
            ledger = context.ledger
            stopped = ledger.stop_reason
            if stopped and request.meta.get("webmd_kind") != "summary":
                request.meta["webmd_rejected"] = stopped
                ledger.skip(request.url, stopped, site)
                raise IgnoreRequest(f"not fetched: {stopped}")
        # in a distributed crawl the fleet's shared gate applies the floor
        floor = None if context.fleet else context.crawl_delays.get(site)
        if not floor:
            return
        answered = self.robots_answered.pop(site, None)
        if answered is not None:
            # The slot counts the delay from when robots.txt was sent, and that first
            # request of the website also opened the connection: the first page came
            # 1.98 s after robots.txt under a Crawl-delay of 2 (issue 16 item 12).
            # The website's requests wait for the delay counted from robots.txt's answer
            # instead (this one here, the others at the not_before check above).
            at = answered + floor
            self.not_before[site] = max(self.not_before.get(site, 0.0), at)
            wait = at - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        request.meta["autothrottle_dont_adjust_delay"] = True
        slot = self._slot(request)
        if slot is not None:
            wanted = delay_for_floor(floor, slot.jitter)
            if slot.delay < wanted:
                slot.delay = wanted

    def _watch_timeout(self, request: Request) -> None:
        """Lower the slot's concurrency just before ``request`` would time out, if it is
        still being transferred then (see the module docstring)."""
        timeout = float(request.meta.get("download_timeout", self.timeout))
        slot_key = str(request.meta.get("download_slot") or request.meta.get("webmd_site"))
        engine = self.crawler.engine

        def lower() -> None:
            slot = engine.downloader.slots.get(slot_key) if engine is not None else None
            if slot is None or request not in slot.transferring or slot.concurrency <= 1:
                return  # answered (or redirected) meanwhile, or one at a time anyway
            slot.concurrency -= 1
            self._held[request] = slot

        margin = min(SLOT_HOLD_MARGIN, timeout / 4)
        asyncio.get_running_loop().call_later(max(0.0, timeout - margin), lower)

    def _release_slot(self, request: Request, after: float) -> None:
        slot = self._held.pop(request, None)
        if slot is None:
            return

        def restore() -> None:
            slot.concurrency += 1

        if after <= 0:
            restore()
        else:
            asyncio.get_running_loop().call_later(after, restore)

    def process_exception(self, request: Request, exception: Exception) -> None:
        """A timed-out download keeps its place in its slot a while (module docstring);
        RetryMiddleware (below) still decides about retrying it. A robots.txt probe that
        failed for a cause that cannot change at once (no such host, nothing listening,
        plain HTTP answering TLS: ``network_causes``) is not retried: the spider tries
        the next root of the ladder or stops the website now (issue 31)."""
        if request.meta.get("webmd_kind") == "robots" and network_cause(exception, request.url):
            request.meta["dont_retry"] = True
        if not isinstance(exception, TIMEOUTS):
            self._release_slot(request, 0)
            return
        if request in self._held and self.crawler.stats is not None:
            self.crawler.stats.inc_value("webmd/timeouts_held_in_slot")
        self._release_slot(request, 2 * float(request.meta.get("download_timeout", self.timeout)))

    def process_response(self, request: Request, response: Response) -> Request | Response:
        self._release_slot(request, 0)  # answered just before its timeout: no hold
        site_key = request.meta.get("webmd_site")
        if request.meta.get("webmd_kind") == "robots" and site_key:
            self.robots_answered[site_key] = time.monotonic()
        context = run_context(self.crawler)
        ledger = context.ledger
        site = ledger.sites.get(site_key) if site_key else None
        if site is None:
            return response
        if response.status not in REFUSAL_STATUSES:
            site.refusals = 0
            return response
        site.refusals += 1
        tries = int(request.meta.get("webmd_refusals", 0)) + 1
        header = response.headers.get(b"Retry-After")
        wait = parse_retry_after(header.decode("latin-1") if header else None)
        wait = backoff(tries) if wait is None else wait
        remaining = context.options.max_run_secs - ledger.elapsed()
        reason = None
        if tries > MAX_REFUSALS_PER_URL:
            reason = f"the server refused {tries} times (HTTP {response.status})"
        elif site.refusals > MAX_REFUSALS_PER_SITE:
            reason = f"the website refused {site.refusals} requests in a row"
        elif wait > min(MAX_WAIT_SECS, remaining - 1):
            reason = (
                f"the server asked to wait {wait:.0f} s (HTTP {response.status}), "
                "past the run budget"
            )
        if reason is not None:
            request.meta["webmd_refused"] = reason
            if site.refusals > MAX_REFUSALS_PER_SITE and site.stop_reason is None:
                site.stop_reason = "blocked"
                # its queued requests are taken out at once
                self.crawler.signals.send_catch_log(site_stopped, website=site.website)
            return response
        self.not_before[site.website] = max(
            self.not_before.get(site.website, 0.0), time.monotonic() + wait
        )
        if context.fleet is not None:
            context.fleet.rest(site.website, wait)  # every worker of a distributed crawl rests
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value("webmd/retry_after")
        retry = request.replace(dont_filter=True)
        retry.meta["webmd_refusals"] = tries
        retry.meta["webmd_refused_status"] = response.status
        return retry
