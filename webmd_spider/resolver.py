"""A DNS resolver that refuses names resolving to addresses we must never contact.

Setting: ``DNS_RESOLVER = "webmd_spider.resolver.GuardedResolver"``. Scrapy installs it
on the reactor, and Twisted connects to the address this resolver returns, so the
address that was checked is the one connected to: no DNS-rebinding window between the
check and the connection. The policy (``webmd_spider.netguard.AddressPolicy``) comes
from the running spider (``spider.ssrf_policy``, which includes ``-a ssrf_allowlist``)
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

from webmd_spider.netguard import AddressPolicy, parse_numeric_host


class GuardedResolver(CachingThreadedResolver):
    """CachingThreadedResolver plus the SSRF address policy."""

    crawler: Crawler | None = None
    fallback_policy: AddressPolicy = AddressPolicy.from_allowlist(None)

    @classmethod
    def from_crawler(cls, crawler: Crawler, reactor: ReactorBase) -> Self:
        resolver = super().from_crawler(crawler, reactor)
        resolver.crawler = crawler
        resolver.fallback_policy = AddressPolicy.from_allowlist(
            crawler.settings.get("WEBMD_SSRF_ALLOWLIST") or None
        )
        return resolver

    def _policy(self) -> AddressPolicy:
        spider = getattr(self.crawler, "spider", None)
        policy = getattr(spider, "ssrf_policy", None)
        return policy if isinstance(policy, AddressPolicy) else self.fallback_policy

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> Deferred[str]:
        deferred = super().getHostByName(name, timeout)
        if parse_numeric_host(name) is not None:
            # An address written in the URL was checked, with its port, by the SSRF
            # middleware before the request got here.
            return deferred

        def check(address: Any) -> Any:
            refusal = self._policy().refusal_for_ip(str(address), host=name)
            if refusal:
                raise DNSLookupError(f"refused: {name} resolves to {refusal}")
            return address

        deferred.addCallback(check)
        return deferred
