"""Request fingerprints on our canonical URL, so the dupefilter dedups as we do.

Setting: ``REQUEST_FINGERPRINTER_CLASS =
"webmd_spider.transport.fingerprint.CanonicalUrlFingerprinter"``.
Scrapy's default ignores query order and fragments but keeps ``:80``, ``utm_*`` and
similar tracking variants apart; ``webmd_spider.urls.canonicalize`` folds those too.
Redirected requests pass through the dupefilter again, so two URLs redirecting to one
page are fetched once. A redirect to a spelling of a URL of its own chain (``/track`` →
``/track?utm_source=x``) has that URL's fingerprint: the spider marks such requests
``dont_filter`` (``SiteSpider._on_scheduled``), or the page would be lost as a duplicate
of itself.
"""

from __future__ import annotations

import hashlib
from typing import Self

from scrapy import Request
from scrapy.crawler import Crawler

from webmd_spider.urls import canonicalize


class CanonicalUrlFingerprinter:
    """SHA-1 of method, canonical URL and body."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls()

    def fingerprint(self, request: Request) -> bytes:
        digest = hashlib.sha1(request.method.encode("ascii"), usedforsecurity=False)
        digest.update(b"\0")
        digest.update(canonicalize(request.url).encode("utf-8"))
        digest.update(b"\0")
        digest.update(request.body or b"")
        return digest.digest()
