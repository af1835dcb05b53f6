"""Read a robots.txt body up to the parse limit and cut it there, whatever its size.

RFC 9309 §2.5: a crawler must parse at least the first 500 KiB of a robots.txt
(``policy.robots.MAX_ROBOTS_BYTES``). A file over DOWNLOAD_MAXSIZE would otherwise be
refused outright, and a refused robots.txt takes the website down as unreachable. So
for the requests of a robots.txt (``webmd_kind`` ``robots``, and ``sitemap_robots`` for
another host serving sitemaps), on Scrapy's ``headers_received`` and ``bytes_received``
signals:

* with the headers of each answer (each hop of a redirect chain), the size cap is lifted
  (``download_maxsize = 0``: no Content-Length, however large, refuses it). Scrapy's
  download handler reads ``download_maxsize`` right after this signal;
* from the first body byte on, ``download_maxsize`` is read only by
  HttpCompressionMiddleware, so it is set back to DOWNLOAD_MAXSIZE (a compressed
  robots.txt inflates that far at most), and once MAX_ROBOTS_BYTES are in the download
  stops (``StopDownload(fail=False)``: the response keeps what came, flagged
  ``download_stopped``). ``RobotsRules.from_response`` cuts it at its last line end.

Settings read: DOWNLOAD_MAXSIZE.
"""

from __future__ import annotations

from typing import Any, Self

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import StopDownload

from webmd_spider.policy.robots import MAX_ROBOTS_BYTES

#: Requests of a robots.txt: the website's own, and a sitemap host's (sitemap_discovery).
ROBOTS_KINDS = frozenset({"robots", "sitemap_robots"})


class RobotsBodyLimit:
    """The robots.txt body limit (see the module docstring)."""

    def __init__(self, inflate_cap: int) -> None:
        #: how large a compressed robots.txt may inflate (DOWNLOAD_MAXSIZE)
        self.inflate_cap = inflate_cap

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        ext = cls(crawler.settings.getint("DOWNLOAD_MAXSIZE"))
        crawler.signals.connect(ext.headers_received, signal=signals.headers_received)
        crawler.signals.connect(ext.bytes_received, signal=signals.bytes_received)
        return ext

    def headers_received(
        self, headers: Any, body_length: int, request: Request, spider: Spider
    ) -> None:
        meta = request.meta
        if meta.get("webmd_kind") in ROBOTS_KINDS:
            meta["download_maxsize"] = 0
            meta["webmd_robots_bytes"] = 0  # this answer's; a redirect's body is not

    def bytes_received(self, data: bytes, request: Request, spider: Spider) -> None:
        meta = request.meta
        if meta.get("webmd_kind") not in ROBOTS_KINDS:
            return
        meta["download_maxsize"] = self.inflate_cap
        received = meta["webmd_robots_bytes"] = meta.get("webmd_robots_bytes", 0) + len(data)
        if received >= MAX_ROBOTS_BYTES:
            raise StopDownload(fail=False)
