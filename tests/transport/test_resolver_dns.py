"""The SSRF guard's DNS check, on the product's resolver (``transport/resolver.py``).

A real DNS server (dnslib) runs on 127.0.0.1 on a free UDP port for each test, answering
from a zone written in the test; ``GuardedResolver`` is pointed at it with the
``GUARDED_DNS_SERVERS`` setting and asked for names whose answers mix a public and a
private address, answer private addresses only, change between two lookups
(rebinding), or give an IPv4-mapped IPv6 loopback. docs/SAFETY.md says what must
happen: a name is refused when any of its addresses is refused, and the address a
connection uses is the one that was checked. One crawl per case goes through the real
spider with the resolver installed on the reactor, as ``scrapy crawl`` installs it.
"""

from __future__ import annotations

import ipaddress
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from dnslib import AAAA, CNAME, QTYPE, RCODE, RR, A, DNSRecord
from dnslib.server import BaseResolver, DNSHandler, DNSLogger, DNSServer
from scrapy.crawler import AsyncCrawlerRunner, Crawler
from scrapy.utils.defer import deferred_f_from_coro_f, maybe_deferred_to_future
from scrapy.utils.test import get_crawler
from twisted.internet.base import ReactorBase
from twisted.internet.error import DNSLookupError

from webmd_spider.demo.server import SiteServer
from webmd_spider.spiders.site import SiteSpider
from webmd_spider.transport.resolver import (
    DNS_SERVERS_SETTING,
    GuardedResolver,
    parse_dns_servers,
)

from ..crawling import by_type, project_settings, prose_page, read_rows, write_site

PUBLIC = "93.184.216.34"

#: name -> its successive answers (each one the addresses of one lookup; the last
#: one repeats). A queries get the IPv4 addresses, AAAA queries the IPv6 ones.
ZONE: dict[str, list[list[str]]] = {
    "public.test": [[PUBLIC]],
    "mixed.test": [[PUBLIC, "10.0.0.1"]],
    "private.test": [["192.168.1.10", "169.254.169.254"]],
    "rebind.test": [[PUBLIC], ["127.0.0.1"]],
    "mapped.test": [["::ffff:127.0.0.1"]],
    "mapped-mixed.test": [[PUBLIC, "::ffff:127.0.0.1"]],
    "v6only.test": [["2606:2800:220:1:248:1893:25c8:1946"]],
    "alias.test": [["cname:mixed.test"]],
    # for the crawls, where a test server listens on 127.0.0.1
    "site.test": [["127.0.0.1"]],
    "site-mixed.test": [["127.0.0.1", "10.0.0.1"]],
    "site-rebind.test": [["127.0.0.1"], ["10.0.0.1"]],
}


class ZoneResolver(BaseResolver):
    """Answers from :data:`ZONE`; counts the A and AAAA queries per name."""

    def __init__(self, zone: dict[str, list[list[str]]]) -> None:
        self.zone = zone
        self.queries: Counter[tuple[str, str]] = Counter()

    def resolve(self, request: DNSRecord, handler: DNSHandler) -> DNSRecord:
        reply = request.reply()
        name = str(request.q.qname).rstrip(".").lower()
        qtype = QTYPE[request.q.qtype]
        answers = self.zone.get(name)
        if answers is None:
            reply.header.rcode = RCODE.NXDOMAIN
            return reply
        seen = self.queries[(name, qtype)]
        self.queries[(name, qtype)] += 1
        for value in answers[min(seen, len(answers) - 1)]:
            if value.startswith("cname:"):
                target = value.removeprefix("cname:")
                reply.add_answer(RR(name, QTYPE.CNAME, rdata=CNAME(target), ttl=60))
                continue
            address = ipaddress.ip_address(value)
            if qtype == "A" and address.version == 4:
                reply.add_answer(RR(name, QTYPE.A, rdata=A(value), ttl=60))
            elif qtype == "AAAA" and address.version == 6:
                rdata = AAAA(list(cast(ipaddress.IPv6Address, address).packed))
                reply.add_answer(RR(name, QTYPE.AAAA, rdata=rdata, ttl=60))
        return reply

    def lookups(self, name: str) -> int:
        """How many times ``name`` was asked for (its A queries)."""
        return self.queries[(name, "A")]


@pytest.fixture(scope="module")
def zone_server() -> Iterator[tuple[str, ZoneResolver]]:
    """A DNS server on 127.0.0.1 (a free UDP port) answering :data:`ZONE`, for the
    module: (its ``host:port``, its resolver)."""
    zone = ZoneResolver(ZONE)
    server = DNSServer(zone, address="127.0.0.1", port=0, logger=DNSLogger(logf=lambda _: None))
    thread = threading.Thread(
        target=server.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    port = server.server.server_address[1]
    try:
        yield f"127.0.0.1:{port}", zone
    finally:
        server.stop()
        server.server.server_close()
        thread.join(10)


@pytest.fixture
def dns_server(zone_server: tuple[str, ZoneResolver]) -> tuple[str, ZoneResolver]:
    """:func:`zone_server` with its query counts (and rebinding answers) started over."""
    zone_server[1].queries.clear()
    return zone_server


def _reactor() -> ReactorBase:
    from twisted.internet import reactor

    return cast(ReactorBase, reactor)


def guarded(servers: str, **settings: Any) -> GuardedResolver:
    """The product's resolver as ``scrapy crawl`` builds it, pointed at ``servers``."""
    crawler = get_crawler(settings_dict={DNS_SERVERS_SETTING: servers, **settings})
    return GuardedResolver.from_crawler(crawler, _reactor())


async def lookup(resolver: GuardedResolver, name: str) -> str:
    return await maybe_deferred_to_future(resolver.getHostByName(name))


async def refusal(resolver: GuardedResolver, name: str) -> str:
    """The message of the lookup's DNSLookupError (fails if the lookup succeeds)."""
    with pytest.raises(DNSLookupError) as caught:
        await lookup(resolver, name)
    return str(caught.value)


# --------------------------------------------------------------------------- #
# At the resolver
# --------------------------------------------------------------------------- #


@deferred_f_from_coro_f
async def test_a_public_name_gives_its_address(dns_server: tuple[str, ZoneResolver]) -> None:
    servers, zone = dns_server
    resolver = guarded(servers)
    assert await lookup(resolver, "public.test") == PUBLIC
    # both families were asked, once
    assert zone.queries[("public.test", "A")] == 1
    assert zone.queries[("public.test", "AAAA")] == 1


@deferred_f_from_coro_f
async def test_a_name_mixing_public_and_private_addresses_is_refused(
    dns_server: tuple[str, ZoneResolver],
) -> None:
    resolver = guarded(dns_server[0])
    message = await refusal(resolver, "mixed.test")
    assert "refused: mixed.test resolves to private address 10.0.0.1" in message
    assert f"(one of {PUBLIC}, 10.0.0.1)" in message
    # refused again on a cache hit, the answer never handed out
    assert "refused: mixed.test" in await refusal(resolver, "mixed.test")
    # a CNAME to it is refused the same way
    assert "refused: alias.test resolves to private address 10.0.0.1" in await refusal(
        resolver, "alias.test"
    )


@deferred_f_from_coro_f
async def test_a_name_answering_private_addresses_only_is_refused(
    dns_server: tuple[str, ZoneResolver],
) -> None:
    message = await refusal(guarded(dns_server[0]), "private.test")
    assert "refused: private.test resolves to private address 192.168.1.10" in message


@deferred_f_from_coro_f
async def test_an_ipv4_mapped_loopback_is_refused(dns_server: tuple[str, ZoneResolver]) -> None:
    resolver = guarded(dns_server[0])
    message = await refusal(resolver, "mapped.test")
    assert "refused: mapped.test resolves to IPv4-mapped IPv6 ::ffff:127.0.0.1" in message
    assert "loopback address 127.0.0.1" in message
    # also beside a public IPv4 address, though the connection would use the IPv4 one
    assert "refused: mapped-mixed.test resolves to IPv4-mapped" in await refusal(
        resolver, "mapped-mixed.test"
    )


@deferred_f_from_coro_f
async def test_an_allowlist_entry_lets_the_refused_address_through(
    dns_server: tuple[str, ZoneResolver],
) -> None:
    by_cidr = guarded(dns_server[0], WEBMD_SSRF_ALLOWLIST="10.0.0.0/8")
    assert await lookup(by_cidr, "mixed.test") == PUBLIC
    by_name = guarded(dns_server[0], WEBMD_SSRF_ALLOWLIST="private.test")
    assert await lookup(by_name, "private.test") == "192.168.1.10"
    # an entry for another name or network does not
    other = guarded(dns_server[0], WEBMD_SSRF_ALLOWLIST="public.test,127.0.0.0/8")
    assert "refused: mixed.test" in await refusal(other, "mixed.test")
    # the resolver sees no port: a host:port entry does not allow the name's addresses
    with_port = guarded(dns_server[0], WEBMD_SSRF_ALLOWLIST="private.test:8000")
    assert "refused: private.test" in await refusal(with_port, "private.test")


@deferred_f_from_coro_f
async def test_a_rebinding_name_keeps_the_answer_that_was_checked(
    dns_server: tuple[str, ZoneResolver],
) -> None:
    """The first answer (public) is checked and cached for the run: the second answer
    (loopback) is never asked for, so never connected to."""
    servers, zone = dns_server
    resolver = guarded(servers)
    assert await lookup(resolver, "rebind.test") == PUBLIC
    assert await lookup(resolver, "rebind.test") == PUBLIC
    assert zone.lookups("rebind.test") == 1


@deferred_f_from_coro_f
async def test_lookups_in_flight_share_one_answer(dns_server: tuple[str, ZoneResolver]) -> None:
    """Two lookups started together (before the first answer) wait for one answer."""
    servers, zone = dns_server
    resolver = guarded(servers)
    first = resolver.getHostByName("rebind.test")
    second = resolver.getHostByName("rebind.test")
    assert await maybe_deferred_to_future(first) == PUBLIC
    assert await maybe_deferred_to_future(second) == PUBLIC
    assert zone.lookups("rebind.test") == 1


@deferred_f_from_coro_f
async def test_without_the_cache_the_second_answer_is_checked_again(
    dns_server: tuple[str, ZoneResolver],
) -> None:
    servers, zone = dns_server
    resolver = guarded(servers, DNSCACHE_ENABLED=False)
    assert await lookup(resolver, "rebind.test") == PUBLIC
    message = await refusal(resolver, "rebind.test")
    assert "refused: rebind.test resolves to loopback address 127.0.0.1" in message
    assert zone.lookups("rebind.test") == 2


@deferred_f_from_coro_f
async def test_names_without_an_ipv4_address_or_unknown_are_not_found(
    dns_server: tuple[str, ZoneResolver],
) -> None:
    resolver = guarded(dns_server[0])
    message = await refusal(resolver, "v6only.test")
    assert "refused" not in message
    assert "no IPv4 address (only 2606:2800:220:1:248:1893:25c8:1946)" in message
    message = await refusal(resolver, "nowhere.test")
    assert "refused" not in message
    assert "address 'nowhere.test' not found" in message


@deferred_f_from_coro_f
async def test_the_system_resolver_path_checks_every_address() -> None:
    """Without the setting, getaddrinfo answers: ``localhost`` (127.0.0.1, maybe ::1)
    is refused, and allowed by a CIDR entry covering all its addresses."""
    message = await refusal(guarded(""), "localhost")
    assert "refused: localhost resolves to loopback address" in message
    allowed = guarded("", WEBMD_SSRF_ALLOWLIST="127.0.0.0/8,::1/128")
    assert await lookup(allowed, "localhost") == "127.0.0.1"


def test_the_dns_servers_setting_is_validated() -> None:
    assert parse_dns_servers("127.0.0.1:5353, 10.0.0.53") == [
        ("127.0.0.1", 5353),
        ("10.0.0.53", 53),
    ]
    assert parse_dns_servers(["127.0.0.1:5353"]) == [("127.0.0.1", 5353)]
    assert parse_dns_servers("") == []
    for bad in ("dns.example:53", "127.0.0.1:0", "127.0.0.1:x", "[::1]:53"):
        with pytest.raises(ValueError, match="GUARDED_DNS_SERVERS"):
            parse_dns_servers(bad)


# --------------------------------------------------------------------------- #
# Through a crawl of the site spider
# --------------------------------------------------------------------------- #

SITE = {
    "index.html": prose_page("Home", "a.html", "b.html"),
    "a.html": prose_page("Page A", "b.html"),
    "b.html": prose_page("Page B", "index.html"),
}


async def crawl_through_guard(
    tmp_path: Path, servers: str, start: str, allowlist: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Crawl ``start`` in process with ``GuardedResolver`` installed on the reactor
    (the in-process runner installs none; ``scrapy crawl`` installs it); the reactor's
    resolvers are put back afterwards."""
    out = tmp_path / "rows.jsonl"
    settings = project_settings(
        FEEDS={str(out): {"format": "jsonl"}},
        WEBMD_SSRF_ALLOWLIST=allowlist,
        **{DNS_SERVERS_SETTING: servers},
    )
    runner = AsyncCrawlerRunner(settings)
    crawler: Crawler = runner.create_crawler(SiteSpider)
    reactor = cast(Any, _reactor())
    simple, named = reactor.resolver, reactor.nameResolver
    reactor.installResolver(GuardedResolver.from_crawler(crawler, reactor))
    try:
        await runner.crawl(crawler, start=start)
    finally:
        reactor.installNameResolver(named)
        reactor.resolver = simple
    stats = crawler.stats.get_stats() if crawler.stats is not None else {}
    return (read_rows(out) if out.exists() else []), stats


@deferred_f_from_coro_f
async def test_a_crawl_of_a_name_answering_a_private_address_too_is_blocked(
    dns_server: tuple[str, ZoneResolver], serve_site: Any, tmp_path: Path
) -> None:
    """site-mixed.test answers 127.0.0.1 (allowed, a server listens there) and
    10.0.0.1 (not allowed): the website is a `blocked` row, nothing is fetched."""
    server: SiteServer = serve_site(write_site(tmp_path / "site", SITE))
    start = f"http://site-mixed.test:{server.port}/"
    rows, stats = await crawl_through_guard(tmp_path, dns_server[0], start, "127.0.0.0/8")
    blocked = [r for r in by_type(rows, "diagnostic") if r["error_type"] == "blocked"]
    assert blocked, rows
    assert all(r["url"].startswith("http://site-mixed.test:") for r in blocked)
    assert any(
        "refused by the SSRF guard: site-mixed.test resolves to private address 10.0.0.1"
        in r["error"]
        for r in blocked
    ), blocked
    assert by_type(rows, "page") == []
    assert server.requests == []
    assert "webmd/ssrf_refused/site-mixed.test" in stats


@deferred_f_from_coro_f
async def test_a_crawl_of_a_rebinding_name_connects_to_the_checked_address(
    dns_server: tuple[str, ZoneResolver], serve_site: Any, tmp_path: Path
) -> None:
    """site-rebind.test answers 127.0.0.1 (allowed), then 10.0.0.1: the whole crawl
    (robots.txt and three pages) is fetched from the first, checked answer, and the
    name is asked for once."""
    servers, zone = dns_server
    server: SiteServer = serve_site(write_site(tmp_path / "site", SITE))
    start = f"http://site-rebind.test:{server.port}/"
    rows, _stats = await crawl_through_guard(tmp_path, servers, start, "127.0.0.0/8")
    base = f"http://site-rebind.test:{server.port}"
    assert sorted(r["url"].removeprefix(base) for r in by_type(rows, "page")) == [
        "/",
        "/a.html",
        "/b.html",
    ]
    assert by_type(rows, "blocked") == []
    assert zone.lookups("site-rebind.test") == 1
    assert server.hits("/a.html") == 1
