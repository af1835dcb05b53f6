"""Refuse requests to addresses we must never contact (SSRF guard), on every request
and every redirect (redirected requests come through the middlewares again).

Reads the run context's ``ssrf_policy`` (``webmd_spider.policy.netguard.AddressPolicy`` built from
``WEBMD_SSRF_ALLOWLIST`` / ``-a ssrf_allowlist``). Here the URL itself is checked: the
scheme (http and https only) and hosts written as IP addresses in any spelling
(decimal, hex, octal, IPv6, IPv4-mapped...). Host names are checked after DNS
resolution by ``webmd_spider.transport.resolver.GuardedResolver``. A refusal raises
``IgnoreRequest("refused: ...")``: the spider writes a ``blocked`` row naming the reason.
"""

from __future__ import annotations

from typing import Self

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest

from webmd_spider.run_context import run_context


class SsrfGuardMiddleware:
    """Refuse loopback, private, link-local... destinations unless allow-listed."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        if request.url.startswith("data:"):
            return  # the spider's own data: request (no network)
        # no run context raises: a crawl without its policy must not fetch anything
        policy = run_context(self.crawler).ssrf_policy
        refusal = policy.refusal_for_url(request.url)
        if refusal:
            if self.crawler.stats is not None:
                self.crawler.stats.inc_value("webmd/ssrf_refused")
            raise IgnoreRequest(f"refused: {refusal}")
