"""A DNS resolver that refuses names resolving to addresses we must never contact.

Setting: ``TWISTED_DNS_RESOLVER = "webmd_spider.transport.resolver.GuardedResolver"``
(``scrapy crawl`` installs it on the reactor; an in-process ``CrawlerRunner`` does not).
The policy (``webmd_spider.policy.netguard.AddressPolicy``) comes from the crawl's run
context (``ssrf_policy``, which includes ``-a ssrf_allowlist``) or, before the spider
exists, from ``WEBMD_SSRF_ALLOWLIST``. A refused name fails with
``DNSLookupError("refused: ...")``, which the spider reports as a ``blocked`` row.
Allow-list entries of the ``host:port`` form cannot apply here (a resolver sees no
port): allow a name by name or its addresses by CIDR.

What is checked, and why this interface
---------------------------------------
Twisted offers two resolver interfaces. ``IResolverSimple.getHostByName`` returns ONE
address; ``IHostnameResolver`` (Scrapy's experimental ``CachingHostnameResolver``) hands
``HostnameEndpoint`` several, which it races (happy eyeballs). This resolver stays an
``IResolverSimple`` (a ``CachingThreadedResolver``): installed with ``installResolver``,
Twisted wraps it so that ``HostnameEndpoint`` (Scrapy's HTTP/1.1 agent) and
``connectTCP`` get exactly the one address returned here and connect to it, as an IP
address, with no second lookup. So the address returned is the address connected to.

What it returns is decided on the name's WHOLE answer, not on one address:

* every address of the answer is looked up, IPv4 and IPv6 (the A and AAAA records, or
  every ``getaddrinfo`` result), and every one is checked. A name is refused when any
  of its addresses is refused, even if another is public ("mixed" answers are the
  classic rebinding set-up: a public address to pass a check, a private one to use);
  the reason names the refused address. An allow-list entry (CIDR or the name) that
  covers the refused address lets the name through.
* an allowed name gives its first IPv4 address (the crawler connects over IPv4, as
  Scrapy's default resolver does); a name with only IPv6 addresses fails as "not
  found" (a ``DNSLookupError`` without ``refused:``), after its addresses were checked.
* the answer (all its addresses) is cached under the name with Scrapy's semantics
  (``DNSCACHE_ENABLED``, ``DNSCACHE_SIZE`` entries, no TTL, for the whole run), and
  checked again on every lookup, cache hit or not: the policy can differ between
  crawls of one process. Lookups of a name already in flight wait for that one
  answer. So a rebinding name keeps its first answer for the run: a later, different
  answer is never used for a connection. With ``DNSCACHE_ENABLED = False`` every
  lookup asks again and its new answer is checked again before it is used; the
  connection still uses the address its own lookup checked.

Where the answers come from
---------------------------
* default: the system resolver, ``socket.getaddrinfo`` in the reactor's thread pool
  (the same source as Scrapy's ``gethostbyname``, but every address, both families),
  with ``DNS_TIMEOUT`` as the deadline.
* ``GUARDED_DNS_SERVERS = "127.0.0.1:5353"`` (IPv4 ``address[:port]`` entries, port
  53 by default, separated by commas or spaces): Twisted's own DNS client
  (``twisted.names``) asks those servers (the next one when one does not answer) for
  the A and AAAA records, with ``DNS_TIMEOUT`` spread over its retransmissions;
  ``/etc/hosts`` and ``/etc/resolv.conf`` are not read. CNAME records without their
  target's addresses in the answer are followed (at most 8). The system resolver can
  only ask port 53 of the servers in ``/etc/resolv.conf``; this setting points the
  crawler at another server (a test's, or a filtering one). If one of the two queries
  fails and the other gives addresses, those addresses are the answer (they are the
  ones checked and connected to). The name is not ``WEBMD_*``: those settings are the
  job options (``webmd_spider.options``), and this one belongs to the process's resolver.

Hosts written as IP addresses are not looked up as names: the SSRF middleware checked
them, with their port, before the request got here.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence
from typing import Any, Self, cast

from scrapy.crawler import Crawler
from scrapy.resolver import CachingThreadedResolver
from scrapy.utils.datatypes import LocalCache
from twisted.internet import defer, threads
from twisted.internet.base import ReactorBase
from twisted.internet.defer import Deferred
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IReactorFromThreads
from twisted.names import client, dns
from twisted.python.failure import Failure

from webmd_spider.policy.netguard import AddressPolicy, parse_numeric_host
from webmd_spider.run_context import MissingRunContext, run_context

#: The setting that points the resolver at given DNS servers (empty: the system's).
DNS_SERVERS_SETTING = "GUARDED_DNS_SERVERS"

Answer = tuple[str, ...]

# twisted.names' default retransmission schedule, cut to DNS_TIMEOUT in total
_RETRANSMIT = (1.0, 3.0, 11.0, 45.0)
_MAX_CNAME_HOPS = 8


def parse_dns_servers(value: str | Sequence[str] | None) -> list[tuple[str, int]]:
    """``"127.0.0.1:5353, 10.0.0.53"`` (or a list of such entries) as (address, port)
    pairs; raises ``ValueError`` naming the first entry that is not an IPv4 address
    with an optional port."""
    if not value:
        return []
    entries = value.replace(",", " ").split() if isinstance(value, str) else list(value)
    servers = []
    for entry in entries:
        host, colon, port_text = str(entry).strip().partition(":")
        try:
            address = ipaddress.IPv4Address(host)
            port = int(port_text) if colon else 53
        except ValueError:
            port = 0
        if not 1 <= port <= 65535:
            raise ValueError(
                f"bad {DNS_SERVERS_SETTING} entry {entry!r}: "
                "expected an IPv4 address with an optional port (127.0.0.1:5353)"
            )
        servers.append((str(address), port))
    return servers


def _retransmissions(total: float) -> tuple[float, ...]:
    """twisted.names' retransmission delays, summing to ``total`` seconds."""
    delays: list[float] = []
    left = total
    for delay in _RETRANSMIT:
        if left <= 0:
            break
        delays.append(min(delay, left))
        left -= delay
    return tuple(delays) or (_RETRANSMIT[0],)


def _system_addresses(name: str) -> Answer:
    """Every address ``getaddrinfo`` gives for ``name`` (both families), in its order."""
    found: list[str] = []
    for family, _type, _proto, _canon, sockaddr in socket.getaddrinfo(
        name, None, type=socket.SOCK_STREAM
    ):
        if family in (socket.AF_INET, socket.AF_INET6):
            address = str(sockaddr[0])
            if address not in found:
                found.append(address)
    return tuple(found)


def _is_ipv4(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).version == 4
    except ValueError:
        return False


class GuardedResolver(CachingThreadedResolver):
    """CachingThreadedResolver plus the SSRF address policy, applied to every address
    of a name's answer (see the module docstring)."""

    crawler: Any = None  # a Crawler, or the CrawlerProcess that lists them
    fallback_policy: AddressPolicy = AddressPolicy.from_allowlist(None)

    def __init__(
        self,
        reactor: ReactorBase,
        cache_size: int,
        timeout: float,
        servers: Sequence[tuple[str, int]] = (),
    ) -> None:
        super().__init__(reactor, cache_size, timeout)
        #: name -> every address of its answer (checked again on each lookup)
        self.answers: LocalCache[str, Answer] = LocalCache(cache_size)
        self._in_flight: dict[str, list[Deferred[Answer]]] = {}
        self.servers = list(servers)
        self._dns: client.Resolver | None = (
            client.Resolver(servers=self.servers, reactor=reactor) if self.servers else None
        )

    @classmethod
    def from_crawler(cls, crawler: Crawler, reactor: ReactorBase) -> Self:
        settings = crawler.settings
        cache_size = settings.getint("DNSCACHE_SIZE") if settings.getbool("DNSCACHE_ENABLED") else 0
        resolver = cls(
            reactor,
            cache_size,
            settings.getfloat("DNS_TIMEOUT"),
            parse_dns_servers(settings.get(DNS_SERVERS_SETTING)),
        )
        resolver.crawler = crawler
        resolver.fallback_policy = AddressPolicy.from_allowlist(
            settings.get("WEBMD_SSRF_ALLOWLIST") or None
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

    # ------------------------------------------------------------------ #

    def getHostByName(self, name: str, timeout: Sequence[int] = ()) -> Deferred[str]:
        if parse_numeric_host(name) is not None:
            # An address written in the URL was checked, with its port, by the SSRF
            # middleware before the request got here.
            return super().getHostByName(name, timeout)
        cached = self.answers.get(name)
        answer = defer.succeed(cached) if cached is not None else self._answer(name)
        return answer.addCallback(self._vetted, name)

    def _vetted(self, answer: Answer, name: str) -> str:
        """The address to connect to for ``name``, once every address of its answer
        passed; ``DNSLookupError("refused: ...")`` when one did not."""
        refusals = [self._refusal(policy, answer, name) for policy in self._policies()]
        if all(refusals):  # allowed when any running crawl allows every address
            reason = str(refusals[0])
            self._record(name, reason)
            raise DNSLookupError(f"refused: {reason}")
        for address in answer:
            if _is_ipv4(address):
                return address
        raise DNSLookupError(
            f"address {name!r} not found: no IPv4 address (only {', '.join(answer)})"
        )

    @staticmethod
    def _refusal(policy: AddressPolicy, answer: Answer, name: str) -> str | None:
        for address in answer:
            refusal = policy.refusal_for_ip(address, host=name)
            if refusal is not None:
                among = f" (one of {', '.join(answer)})" if len(answer) > 1 else ""
                return f"{name} resolves to {refusal}{among}"
        return None

    def _answer(self, name: str) -> Deferred[Answer]:
        """A fresh answer for ``name`` (every address), cached; lookups of a name in
        flight share its one answer."""
        waiting = self._in_flight.get(name)
        if waiting is not None:
            shared: Deferred[Answer] = Deferred()
            waiting.append(shared)
            return shared
        self._in_flight[name] = waiting = []

        def settle(result: Answer | Failure) -> Answer | Failure:
            del self._in_flight[name]
            if not isinstance(result, Failure) and self.answers.limit:
                self.answers[name] = result
            for other in waiting:
                if isinstance(result, Failure):
                    other.errback(result)
                else:
                    other.callback(result)
            return result

        lookup = self._ask_servers(name, 0) if self._dns else self._ask_system(name)
        return lookup.addBoth(settle)

    def _ask_system(self, name: str) -> Deferred[Answer]:
        reactor = cast(Any, self.reactor)
        lookup: Deferred[Answer] = threads.deferToThreadPool(
            cast(IReactorFromThreads, reactor), reactor.getThreadPool(), _system_addresses, name
        )

        def timed_out(_result: object, _timeout: float) -> Answer:
            raise DNSLookupError(f"address {name!r} not found: timeout error")

        def failed(failure: Failure) -> Failure:
            if failure.check(DNSLookupError):
                return failure
            return Failure(DNSLookupError(f"address {name!r} not found: {failure.value}"))

        lookup.addTimeout(self.timeout, reactor, onTimeoutCancel=timed_out)
        return lookup.addErrback(failed)

    def _ask_servers(self, name: str, hops: int) -> Deferred[Answer]:
        assert self._dns is not None
        delays = _retransmissions(self.timeout)
        queries = [self._dns.lookupAddress(name, delays), self._dns.lookupIPV6Address(name, delays)]
        both = defer.DeferredList(queries, consumeErrors=True)

        def gathered(results: list[tuple[bool, Any]]) -> Answer | Deferred[Answer]:
            addresses: list[str] = []
            aliases: list[str] = []
            failures: list[Failure] = []
            for ok, value in results:
                if not ok:
                    failures.append(value)
                    continue
                for record in value[0]:  # the answer section
                    if record.type == dns.A:
                        address = socket.inet_ntop(socket.AF_INET, record.payload.address)
                    elif record.type == dns.AAAA:
                        address = socket.inet_ntop(socket.AF_INET6, record.payload.address)
                    else:
                        if record.type == dns.CNAME:
                            aliases.append(record.payload.name.name.decode("ascii"))
                        continue
                    if address not in addresses:
                        addresses.append(address)
            if addresses:
                return tuple(addresses)
            if aliases and not failures and hops < _MAX_CNAME_HOPS:
                return self._ask_servers(aliases[0], hops + 1)
            why = failures[0].getErrorMessage() if failures else "no A or AAAA record"
            raise DNSLookupError(f"address {name!r} not found: {why}")

        return both.addCallback(gathered)
