"""A DNS resolver that refuses names resolving to addresses we must never contact.

Setting: ``TWISTED_DNS_RESOLVER = "webmd_spider.transport.resolver.GuardedResolver"``.
Scrapy installs it on the reactor, and Twisted connects to the address this resolver returns, so the
address that was checked is the one connected to: no DNS-rebinding window between the
check and the connection. The policy (``webmd_spider.policy.netguard.AddressPolicy``) comes
from the crawl's run context (``ssrf_policy``, which includes ``-a ssrf_allowlist``)
or, before the spider exists, from ``WEBMD_SSRF_ALLOWLIST``. A refused name fails with
``DNSLookupError("refused: ...")``, which the spider reports as a ``blocked`` row.
Allow-list entries of the ``host:port`` form cannot apply here (a resolver sees no
port): allow a name by name or its addresses by CIDR.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.resolver import CachingThreadedResolver
from twisted.internet.base import ReactorBase
from twisted.internet.defer import Deferred
from twisted.internet.error import DNSLookupError

from webmd_spider.policy.netguard import AddressPolicy, parse_numeric_host
from webmd_spider.run_context import MissingRunContext, run_context


class GuardedResolver(CachingThreadedResolver):
    """CachingThreadedResolver plus the SSRF address policy."""

    crawler: Any = None  # a Crawler, or the CrawlerProcess that lists them
    fallback_policy: AddressPolicy = AddressPolicy.from_allowlist(None)

    @classmethod
    def from_crawler(cls, crawler: Crawler, reactor: ReactorBase) -> Self:
        resolver = super().from_crawler(crawler, reactor)
        resolver.crawler = crawler
        resolver.fallback_policy = AddressPolicy.from_allowlist(
            crawler.settings.get("WEBMD_SSRF_ALLOWLIST") or None
        )
        return resolver

    def _policies(self) -> list[AddressPolicy]:
        """The running spiders' policies. Scrapy builds the resolver with the
        CrawlerProcess (which lists its crawlers) or with a single Crawler."""
        crawlers = getattr(self.crawler, "crawlers", None) or [self.crawler]
        found = []
        for crawler in crawlers:
            try:
                found.append(run_context(crawler).ssrf_policy)
            except MissingRunContext:  # its spider is not configured yet
                continue
        return found or [self.fallback_policy]

    def _record(self, name: str, reason: str) -> None:
        """Tell the crawlers why a name failed: Twisted reports a refused lookup only as
        "no results", and the spider must write a `blocked` row, not `unreachable`."""
        for crawler in getattr(self.crawler, "crawlers", None) or [self.crawler]:
            stats = getattr(crawler, "stats", None)
            if stats is not None:
                stats.set_value(f"webmd/ssrf_refused/{name.rstrip('.').lower()}", reason)

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> Deferred[str]:
        deferred = super().getHostByName(name, timeout)
        if parse_numeric_host(name) is not None:
            # An address written in the URL was checked, with its port, by the SSRF
            # middleware before the request got here.
            return deferred

        def check(address: Any) -> Any:
            refusals = [p.refusal_for_ip(str(address), host=name) for p in self._policies()]
            if all(refusals):  # allowed when any running crawl allows it
                reason = f"{name} resolves to {refusals[0]}"
                self._record(name, reason)
                raise DNSLookupError(f"refused: {reason}")
            return address

        deferred.addCallback(check)
        return deferred
