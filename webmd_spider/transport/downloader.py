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

:meth:`SlotLimitedDownloader.take_waiting` gives back the requests waiting in slot
queues (the requests a stopped website or run will not fetch): downloader middlewares,
where the budget middleware refuses new work, run before a request joins its slot's
queue, and with a download delay that queue can hold many requests. Scrapy has no public
way to cancel them.
"""

from __future__ import annotations

from collections import deque
from time import monotonic
from typing import Any

from scrapy import Request
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

    def take_waiting(self, website: str | None) -> list[tuple[Request, Any]]:
        """Take out of the slot queues every waiting request (`website` None), or the
        page requests waiting in that website's slot (requests carry ``download_slot =
        website``). Returns (request, deferred) pairs: the caller fails each deferred,
        which runs the request's errback."""
        if website is None:
            chosen = list(self.slots.values())
        else:
            chosen = [self.slots[website]] if website in self.slots else []
        taken: list[tuple[Request, Any]] = []
        for slot in chosen:
            kept: deque[Any] = deque()
            while slot.queue:
                request, deferred = slot.queue.popleft()
                if website is None or request.meta.get("webmd_kind") == "page":
                    taken.append((request, deferred))
                else:
                    kept.append((request, deferred))
            slot.queue.extend(kept)
        return taken
