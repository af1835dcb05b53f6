"""Scrapy's downloader with its per-slot concurrency limit enforced (setting DOWNLOADER).

Scrapy 2.19's ``Downloader._process_queue`` starts requests of a slot while
``slot.free_transfer_slots() > 0``, but with the asyncio reactor each start is a task
(``loop.create_task``) that adds its request to ``slot.transferring`` only when it
runs: within one call the count never moves, and with no download delay the loop
starts every request queued in the slot. A website's ``max_concurrency``
(CONCURRENT_REQUESTS_PER_DOMAIN on its slot) then did not hold: only the crawl-wide
CONCURRENT_REQUESTS did (issue 16 item 8; upstream scrapy/scrapy#6982). Here a request
is counted as transferring the moment it is taken from the slot's queue, so the limit
holds. Written by hand because the upstream fix is not released.
"""

from __future__ import annotations

from time import monotonic

from scrapy.core.downloader import Downloader, Slot
from scrapy.utils.asyncio import call_later
from scrapy.utils.defer import _schedule_coro


class SlotLimitedDownloader(Downloader):
    """``Downloader`` whose slots never transfer more than their concurrency."""

    def _process_queue(self, slot: Slot) -> None:
        # the same steps as Scrapy's, but the request is reserved in `transferring`
        # before its task is scheduled (Downloader._download adds it again, a no-op,
        # and removes it when the download ends)
        if slot.latercall:
            return
        now = monotonic()
        delay = slot.download_delay()
        if delay:
            penalty = delay - now + slot.lastseen
            if penalty > 0:
                slot.latercall = call_later(penalty, self._latercall, slot)
                return
        while slot.queue and slot.free_transfer_slots() > 0:
            slot.lastseen = now
            request, queue_dfd = slot.queue.popleft()
            slot.transferring.add(request)
            _schedule_coro(self._wait_for_download(slot, request, queue_dfd))
            if delay:
                self._process_queue(slot)
                break
