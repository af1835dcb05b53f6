"""Conditional requests for pages the incremental state already knows.

The spider puts a known page's stored validators in the request's meta
(``webmd_validators``: ETag and Last-Modified as the server sent them); this middleware
turns them into ``If-None-Match`` / ``If-Modified-Since`` (RFC 9110 §13.1.2, §13.1.3)
and marks the request ``webmd_conditional``, so that the spider knows a ``304`` is an
answer to its question and not a server error. Without validators (a new page, or
state written with other extraction settings) requests are left alone.
"""

from __future__ import annotations

from typing import Self

from scrapy import Request
from scrapy.crawler import Crawler

from webmd_spider.state.changes import conditional_headers
from webmd_spider.state.store import PageState


class ConditionalRequestMiddleware:
    """Add the stored validators to page requests (see the module docstring)."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        validators = request.meta.get("webmd_validators")
        if not validators or request.meta.get("webmd_kind") != "page":
            return
        if request.meta.get("redirect_urls"):
            # a redirect copies headers and meta: the validators belong to the URL that
            # redirected, not to this one (its 304 would claim the wrong page unchanged)
            for name in ("If-None-Match", "If-Modified-Since"):
                request.headers.pop(name, None)
            request.meta.pop("webmd_conditional", None)
            return
        etag, last_modified = validators
        headers = conditional_headers(
            PageState(url=request.url, etag=etag, last_modified=last_modified)
        )
        for name, value in headers.items():
            request.headers.setdefault(name, value)
        request.meta["webmd_conditional"] = True
