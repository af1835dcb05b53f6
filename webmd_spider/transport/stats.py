"""Scrapy's stats collector and downloader stats without their per-call overheads.

Both are counted on every request, response and row: an unchanged page's 304 alone
updates the stats about twenty times. Measured with valgrind's instruction counts on
the all-304 recrawl of the PostgreSQL docs (``bench/recrawl_cost.py --instructions``),
each class here takes a few per cent off that path; see ``docs/BENCHMARKS.md``.

* :class:`FastStatsCollector` (``STATS_CLASS``): Scrapy 2.19's ``StatsCollector``
  defines ``__getattribute__`` to wrap its methods in a deprecation check of the
  ``spider`` argument, so every attribute read on a collector (its own ``_stats``
  inside ``inc_value`` included) builds a name and catches an ``AttributeError``. This
  subclass reads attributes the normal way; the methods are the same, so only the
  warning for a caller still passing ``spider=`` is gone (nothing here passes it).
* :class:`CountingDownloaderStats` (in place of Scrapy's ``DownloaderStats``): the same
  ``downloader/*`` counts, bytes of responses included, but no
  ``downloader/request_bytes``, which Scrapy measures by serialising every request
  again (``request_httprepr``) only to take its length.
"""

from __future__ import annotations

from scrapy import Request, Spider
from scrapy.downloadermiddlewares.stats import DownloaderStats
from scrapy.statscollectors import MemoryStatsCollector


class FastStatsCollector(MemoryStatsCollector):
    """``MemoryStatsCollector`` with plain attribute access (see the module doc)."""

    __getattribute__ = object.__getattribute__


class CountingDownloaderStats(DownloaderStats):
    """``DownloaderStats`` without ``downloader/request_bytes`` (see the module doc)."""

    # `spider` stays in the signature only to match the method replaced (optional, so
    # Scrapy does not pass it); no caller gives it
    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        stats = self.stats
        stats.inc_value("downloader/request_count")
        stats.inc_value(f"downloader/request_method_count/{request.method}")
