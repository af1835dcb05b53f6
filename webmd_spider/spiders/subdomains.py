"""``follow_subdomains``: links to the other hosts of a start website's domain become
websites of the crawl (``docs.example.com`` and ``blog.example.com`` from
``example.com``).

The rule. A start website's *domain* is its registrable domain: the name just below its
public suffix in the Public Suffix List, its private section included (``example.com``
for ``www.example.com`` and ``docs.example.com``, ``example.co.uk``, but
``alice.github.io``: ``bob.github.io`` belongs to someone else). A host under no known
public suffix (``localhost``, intranet names) is its own domain (``*.localhost`` from
``localhost``, ``*.docs.corp.internal`` from ``docs.corp.internal``); an IP address or
a public suffix itself has none. A link on a page of a website is followed onto another
website when that website's host is the domain or ends with ``"." + domain``
(``example.com.evil.net`` and ``badexample.com`` do not), on the same port as the start
website: a site key carries a non-default port, and another port is another service,
not followed without the option either (http and https on their default ports are the
same). Websites found this way inherit the domain of the start website they were found
from, so the option never joins two unrelated start websites.

Each such website is a website of the crawl like a start website: its robots.txt is
fetched and obeyed first (its links wait here until then, ``hold``), it has its own
download slot and Crawl-delay, its own budgets and its own site row (``input`` is the
start entry it was found from). Only its linked pages are fetched, at their link depth:
neither its home page nor its sitemaps are added (depth and ``max_depth`` keep their
meaning). At most :data:`MAX_SUBDOMAIN_WEBSITES` per domain. The run's total
concurrency stays what the start websites set (``startup.set_pace``): a domain's hosts
often share one origin server, which gets no more parallel requests for having
several names.

Not followed onto another host, as before: redirects (``redirect_guard``), sitemap
entries, and the stored links an incremental run walks for an unchanged (304) page
(same-website links only). A distributed crawl refuses the option (``job_setup``).

The Public Suffix List is the snapshot bundled with ``tldextract`` (a dependency of
Scrapy's cookie middleware), read offline: nothing is downloaded or cached at run time.
"""

from __future__ import annotations

import ipaddress
import logging
from functools import cache

from tldextract import TLDExtract

from webmd_spider.rows.ledger import RunLedger, SiteState

logger = logging.getLogger("webmd_spider.spiders.site")

#: Websites one domain may add to the crawl through its links. Each costs a robots.txt,
#: a download slot, up to 2 x max_pages fetches and a site row, and a site that links
#: thousands of subdomains (user pages, tenants, generated hosts) must not grow the crawl
#: without bound: past it a link to a new subdomain is refused (``subdomain_limit`` in
#: the run summary's rejected reasons). Websites already in the crawl stay followed.
MAX_SUBDOMAIN_WEBSITES = 20


@cache
def _suffixes() -> TLDExtract:
    """The Public Suffix List, from the snapshot in the package (no network, no disk
    cache); parsed once per process (~0.2 s), only when the option is on."""
    return TLDExtract(cache_dir=None, suffix_list_urls=(), include_psl_private_domains=True)


def split_key(key: str) -> tuple[str, str]:
    """A site key's host and port part (``"docs.x.org:8080"`` -> ``("docs.x.org",
    ":8080")``). An IPv6 key (``::1:8080``, several colons) is returned whole."""
    if key.count(":") > 1:
        return key, ""
    host, colon, port = key.partition(":")
    return host, colon + port


def domain_of(key: str) -> tuple[str, str] | None:
    """The domain and port of a start website's key (see the module docstring), or None
    when it has none (an IP address, a public suffix)."""
    host, port = split_key(key)
    host = host.rstrip(".")
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    if not host or ":" in host:
        return None
    parts = _suffixes()(host)
    if not parts.suffix:
        return host, port  # under no known public suffix: the host itself
    registrable = parts.top_domain_under_public_suffix
    return (registrable, port) if registrable else None


def in_domain(key: str, domain: tuple[str, str]) -> bool:
    """``key`` (a site key) is a host of ``domain`` (the domain itself or a subdomain of
    it) on the domain's port."""
    host, port = split_key(key)
    name, want = domain
    return port == want and (host == name or host.endswith("." + name))


class SubdomainSites:
    """The domain of each website, the websites links added, and the links waiting for
    a new website's robots.txt."""

    def __init__(self, ledger: RunLedger, held_limit: int) -> None:
        self.ledger = ledger
        #: links kept per website while its robots.txt is read (beyond: not fetched)
        self.held_limit = held_limit
        #: website -> its domain (None: none); start websites are looked up when first
        #: needed, added websites inherit theirs
        self._domains: dict[str, tuple[str, str] | None] = {}
        #: websites added through links, per domain
        self._added: dict[tuple[str, str], list[str]] = {}
        self._added_sites: set[str] = set()
        #: website -> {URL: depth} of links waiting for its robots.txt
        self._held: dict[str, dict[str, int]] = {}
        #: websites that will not be crawled (robots.txt unreachable or refused) -> why
        self._dropped: dict[str, str] = {}

    def domain(self, website: str) -> tuple[str, str] | None:
        if website not in self._domains:
            self._domains[website] = domain_of(website)
        return self._domains[website]

    def covers(self, website: str, key: str) -> bool:
        """A link of ``website`` to the website ``key`` is followed."""
        domain = self.domain(website)
        return domain is not None and in_domain(key, domain)

    def added(self, website: str) -> bool:
        """``website`` joined the crawl through a link (it is not a start website)."""
        return website in self._added_sites

    def add(self, parent: SiteState, key: str, root: str) -> SiteState | None:
        """Make ``key`` a website of the crawl, found from ``parent``; None when its
        domain has reached MAX_SUBDOMAIN_WEBSITES."""
        domain = self.domain(parent.website)
        assert domain is not None
        sites = self._added.setdefault(domain, [])
        if len(sites) >= MAX_SUBDOMAIN_WEBSITES:
            return None
        sites.append(key)
        self._added_sites.add(key)
        self._domains[key] = domain
        site = SiteState(key, parent.input, parent.mode, root=root, discovery="links")
        logger.info("%s: follow_subdomains: %s joins the crawl", parent.website, key)
        return self.ledger.add_site(site)

    def hold(self, site: SiteState, url: str, depth: int) -> None:
        """Keep a link to ``site`` until its robots.txt is known (the shallowest depth
        found wins); past ``held_limit`` links it is not fetched (``page_budget``)."""
        dropped = self._dropped.get(site.website)
        if dropped is not None:
            self.ledger.skip(url, dropped, site.website)
            return
        held = self._held.setdefault(site.website, {})
        if url in held:
            held[url] = min(held[url], depth)
        elif len(held) < self.held_limit:
            held[url] = depth
        else:
            self.ledger.skip(url, "page_budget", site.website)

    def release(self, website: str) -> list[tuple[str, int]]:
        """The links held for ``website``, shallowest first (then in the order found);
        forgotten here."""
        return sorted(self._held.pop(website, {}).items(), key=lambda item: item[1])

    def drop(self, site: SiteState, reason: str) -> None:
        """``site`` will not be crawled (robots.txt unreachable or refused, the run
        stopped): its held links, and those found later, are counted as not fetched
        for ``reason``."""
        self._dropped[site.website] = reason
        for url in self._held.pop(site.website, {}):
            self.ledger.skip(url, reason, site.website)

    def drop_all(self, run_stop_reason: str | None) -> None:
        """The crawl ends: links still held (their robots.txt was never answered) are
        counted as not fetched."""
        for website in list(self._held):
            site = self.ledger.sites[website]
            self.drop(site, site.stop_reason or run_stop_reason or "robots_unanswered")
