"""Garbage collector settings for a long crawl: fewer, cheaper collections.

Pure module (standard library only): the crawl process and the extraction workers call
:func:`tune_gc` once they are set up.

Why: a crawl allocates a burst of short-lived container objects per page (the
response, Scrapy's Deferreds and coroutines, our rows, the pickled results of the
workers), and CPython's default threshold (700 net allocations) starts a young
collection every few hundred objects; every tenth one also scans the middle
generation, and now and then a full collection scans every object of the process
(Scrapy, Twisted, lxml, the ledger's URL sets). Measured on the PostgreSQL
documentation (1,169 pages, the crawl process): 530-590 collections, 280-480 ms of
CPU, about 8% of all the process does; with a young threshold of 10,000 and the
start-up objects frozen: 15 collections, about 45 ms. Objects that die young are
freed by reference counting in either case, so the only cost is that cyclic garbage
waits for 10,000 allocations instead of 700 before it is freed: a few MB at most.

``gc.freeze()`` moves every object alive at that point (modules, classes, settings,
the spider) to a generation the collector never scans again: they live as long as the
process anyway. That is done once per process, at the first call: a process that runs
crawl after crawl (a test suite, a script with several crawlers) must not freeze the
objects of its earlier crawls, which would then never be collected.
"""

from __future__ import annotations

import gc

#: The default young-generation threshold of a crawl (CPython's own is 700).
DEFAULT_THRESHOLD = 10_000
_frozen = False


def tune_gc(threshold: int = DEFAULT_THRESHOLD) -> bool:
    """Freeze the objects alive now (at the first call in this process only) and set
    the young threshold to ``threshold`` (the older generations keep theirs); 0 leaves
    the collector as it is. Returns whether anything was changed."""
    global _frozen
    if threshold <= 0:
        return False
    if not _frozen:
        _frozen = True
        gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(threshold, middle, old)
    return True
