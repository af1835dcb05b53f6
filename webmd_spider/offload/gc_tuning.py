"""Garbage collector settings for a crawl: fewer, cheaper collections while it runs.

Pure module (standard library only): the crawl process calls :func:`tune_gc` when the
crawl starts and :func:`restore_gc` when it closes; an extraction worker tunes its own
collector for its whole life.

Why: a crawl allocates a burst of short-lived container objects per page (the
response, Scrapy's Deferreds and coroutines, our rows, the pickled results of the
workers), and CPython's default threshold (700 net allocations) starts a young
collection every few hundred objects; every tenth one also scans the middle
generation, and now and then a full collection scans every object of the process
(Scrapy, Twisted, lxml, the ledger's URL sets). Measured on the PostgreSQL
documentation (1,169 pages, the crawl process): 530-590 collections, 280-480 ms of
CPU, about 8% of all the process does; with a young threshold of 10,000 and the
start-up objects frozen: about 60 ms. Objects that die young are freed by reference
counting in either case; only cyclic garbage waits longer (10,000 allocations instead
of 700) before it is freed. Peak memory of a 100,000-page crawl did not move (163 MB
with, 161 MB without; docs/BENCHMARKS.md).

``gc.freeze()`` moves every object alive at that point (modules, classes, settings,
the spider) to a generation the collector never scans. :func:`restore_gc` unfreezes
them and puts the thresholds back, so a program that runs crawl after crawl (a test
suite, a script with several crawlers) gets every object of a finished crawl collected
as usual. Two crawls running at once in one process share the collector: the first to
close restores it for both (the other one only runs slower).
"""

from __future__ import annotations

import gc
from dataclasses import dataclass

#: The default young-generation threshold of a crawl (CPython's own is 700).
DEFAULT_THRESHOLD = 10_000


@dataclass(frozen=True, slots=True)
class GcState:
    """The collector's thresholds before :func:`tune_gc` changed them."""

    thresholds: tuple[int, int, int]


def tune_gc(threshold: int = DEFAULT_THRESHOLD) -> GcState | None:
    """Freeze the objects alive now and set the young threshold to ``threshold`` (the
    older generations keep theirs). Returns what :func:`restore_gc` needs, or None
    when ``threshold`` is 0 or less (the collector is left as it is)."""
    if threshold <= 0:
        return None
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(threshold, before[1], before[2])
    return GcState(before)


def restore_gc(state: GcState | None) -> None:
    """Undo :func:`tune_gc`: unfreeze and put the thresholds back (None: nothing)."""
    if state is None:
        return
    gc.unfreeze()
    gc.set_threshold(*state.thresholds)
