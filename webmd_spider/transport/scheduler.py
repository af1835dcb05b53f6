"""Scrapy's scheduler, able to give back the requests that wait in its memory queues
(setting SCHEDULER).

When a website stops (its budget, a refusal), or the run does, the site spider takes the
website's queued page requests out at once and counts each as not fetched, instead of
letting every one of them come out and be refused in turn. Scrapy has no public way to
remove a request from its scheduler, so the scheduler does it for its own queues: the
in-memory FIFO queues under its priority queue (``ScrapyPriorityQueue``, or
``DownloaderAwarePriorityQueue``'s one per download slot). A JOBDIR's disk queue is left
as it is (it must stay resumable): the budget middleware refuses what comes out of it.

Written by hand: no released Scrapy or plugin exposes this. The distributed crawl's
scheduler (``distributed.FleetScheduler``) answers the same :meth:`take` with nothing,
since its shared queue is every worker's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from scrapy import Request
from scrapy.core.scheduler import Scheduler

#: Chooses requests by their meta.
Wanted = Callable[[dict[str, Any]], bool]


@runtime_checkable
class TakesRequests(Protocol):
    """A scheduler that can give back waiting requests (this project's both do)."""

    def take(self, wanted: Wanted) -> list[Request]: ...


class TakingScheduler(Scheduler):
    """``Scheduler`` with :meth:`take`."""

    def take(self, wanted: Wanted) -> list[Request]:
        """Take the requests whose meta is `wanted` out of the memory queues, in queue
        order, and return them (the caller accounts for them)."""
        memory: Any = getattr(self, "mqs", None)
        per_slot = getattr(memory, "pqueues", None)  # DownloaderAwarePriorityQueue
        if not isinstance(per_slot, dict):
            return _take_from_priority_queue(memory, wanted)
        taken: list[Request] = []
        for slot, queue in list(per_slot.items()):
            taken += _take_from_priority_queue(queue, wanted)
            if not len(queue):
                del per_slot[slot]
                queue.close()
        return taken


def _take_from_priority_queue(memory: Any, wanted: Wanted) -> list[Request]:
    """One ``ScrapyPriorityQueue`` of in-memory FIFO queues: the wanted requests out,
    emptied queues closed, and the current priority set again (``pop`` assumes the
    queue of the current priority holds a request)."""
    taken: list[Request] = []
    for queues in (getattr(memory, "queues", None), getattr(memory, "_start_queues", None)):
        if not isinstance(queues, dict):
            continue
        for priority, queue in list(queues.items()):
            waiting = getattr(queue, "q", None)
            if not isinstance(waiting, deque):
                continue
            kept: deque[Any] = deque()
            for request in waiting:
                (taken if wanted(request.meta) else kept).append(request)
            if len(kept) != len(waiting):
                waiting.clear()
                waiting.extend(kept)
            if not waiting:
                del queues[priority]
                queue.close()
    if taken and hasattr(memory, "_update_curprio"):
        memory._update_curprio()
    return taken
