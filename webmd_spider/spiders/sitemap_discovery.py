"""Sitemap discovery for the ``site`` spider: declared or well-known sitemaps → page requests.

A mixin of :class:`webmd_spider.spiders.site.SiteSpider`, kept apart so each file holds
one idea. Declared sitemaps (robots.txt ``Sitemap:`` lines) are all read; otherwise the
well-known paths are tried one after another until one gives URLs. Indexes are followed
:data:`MAX_SITEMAP_DEPTH` levels deep, at most :data:`MAX_SITEMAP_FILES` files per site.
When every sitemap request has answered and none gave a URL, the site falls back to a
link crawl from its home page. Sitemap requests bypass the dupefilter (``dont_filter``)
because the mixin dedups them itself: a dropped request would leave the pending count
stuck and stall discovery.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scrapy import Request
from scrapy.http import Response
from twisted.python.failure import Failure

from webmd_spider.ledger import RunLedger, SiteState
from webmd_spider.sitemaps import SitemapEntry, parse_sitemap
from webmd_spider.spiders.failures import classify_failure
from webmd_spider.urls import canonicalize, site_key

#: Tried in order when robots.txt names no sitemap.
WELL_KNOWN_SITEMAPS = (
    "sitemap.xml",
    "sitemap_index.xml",
    "sitemap-index.xml",
    "sitemap/sitemap.xml",
)
MAX_SITEMAP_FILES = 50
#: Levels below the first sitemap: index → child index → grandchild index → urlset.
MAX_SITEMAP_DEPTH = 3
PRIORITY_SITEMAP = 500


class SitemapDiscovery:
    """Sitemap reading; expects the attributes and methods the ``site`` spider defines."""

    ledger: RunLedger
    options: Any

    def _schedule(
        self, site: SiteState, url: str, depth: int, via: str, typed: bool = False
    ) -> Iterator[Any]:
        raise NotImplementedError  # provided by the spider

    def _robots_allows(self, site: SiteState, url: str) -> bool:
        raise NotImplementedError  # provided by the spider

    def _start_sitemaps(self, site: SiteState, declared: list[str]) -> Iterator[Any]:
        """Begin sitemap discovery for a whole-website crawl."""
        assert site.root is not None
        if declared:
            for url in declared:
                yield from self._sitemap_request(site, url, 0)
        else:
            site.sitemap_guesses = [site.root + path for path in WELL_KNOWN_SITEMAPS]
        if site.pending_sitemaps == 0:
            yield from self._finish_sitemaps(site)

    def _sitemap_request(self, site: SiteState, url: str, level: int) -> Iterator[Request]:
        canonical = canonicalize(url)
        if canonical in site.sitemap_seen:
            self.ledger.reject(url, "duplicate_sitemap", site.website)
            return
        site.sitemap_seen.add(canonical)
        if site.sitemap_files >= MAX_SITEMAP_FILES:
            self.ledger.reject(url, "sitemap_file_limit", site.website)
            return
        if not self._robots_allows(site, url):
            return
        site.sitemap_files += 1
        site.pending_sitemaps += 1
        yield Request(
            url,
            callback=self.parse_sitemap,
            errback=self.sitemap_failed,
            priority=PRIORITY_SITEMAP,
            dont_filter=True,
            meta={
                "webmd_site": site.website,
                "webmd_kind": "sitemap",
                "webmd_level": level,
                "download_slot": site.website,
            },
        )

    def parse_sitemap(self, response: Response) -> Iterator[Any]:
        """A sitemap or sitemap index answered: schedule its pages or its children."""
        site = self.ledger.sites[response.meta["webmd_site"]]
        site.pending_sitemaps -= 1
        level = response.meta["webmd_level"]
        if response.status == 200 and site.stop_reason is None:
            doc = parse_sitemap(response.body, response.url)
            if doc.error:
                self.ledger.warn(f"sitemap {response.url} unusable: {doc.error}")
            if doc.truncated:
                self.ledger.warn(
                    f"sitemap {response.url} holds more than {len(doc.entries):,} entries "
                    "(the sitemaps.org limit is 50,000): the rest were not read"
                )
            if doc.bad_entries:
                self.ledger.warn(f"sitemap {response.url}: {doc.bad_entries} entries skipped")
            if doc.kind == "sitemapindex":
                for entry in doc.entries:
                    if level + 1 > MAX_SITEMAP_DEPTH:
                        self.ledger.reject(entry.loc, "sitemap_depth_limit", site.website)
                    else:
                        yield from self._sitemap_request(site, entry.loc, level + 1)
            elif doc.kind == "urlset":
                yield from self._sitemap_pages(site, doc.entries)
        elif response.status != 200 and not response.meta.get("webmd_guess"):
            self.ledger.warn(f"sitemap {response.url} answered HTTP {response.status}")
        if site.pending_sitemaps == 0:
            yield from self._finish_sitemaps(site)

    def sitemap_failed(self, failure: Failure) -> Iterator[Any]:
        """A sitemap could not be fetched: note it and carry on."""
        request = failure.request  # type: ignore[attr-defined]
        site = self.ledger.sites[request.meta["webmd_site"]]
        site.pending_sitemaps -= 1
        if not request.meta.get("webmd_rejected"):
            self.ledger.warn(f"sitemap {request.url} not fetched: {classify_failure(failure)[1]}")
        if site.pending_sitemaps == 0:
            yield from self._finish_sitemaps(site)

    def _sitemap_pages(self, site: SiteState, entries: list[SitemapEntry]) -> Iterator[Any]:
        limit = self.options.max_sitemap_urls
        for entry in entries:
            if site.sitemap_url_count >= limit:
                self.ledger.skip(entry.loc, "max_sitemap_urls", site.website)
                continue
            if site_key(entry.loc) != site.website:
                self.ledger.reject(entry.loc, "offsite_sitemap_entry", site.website)
                continue
            before = len(site.seen)
            requests = list(self._schedule(site, entry.loc, 0, "sitemap"))
            if len(site.seen) > before:
                site.sitemap_url_count += 1
                if entry.lastmod:
                    site.lastmod[canonicalize(entry.loc)] = entry.lastmod
            yield from requests

    def _finish_sitemaps(self, site: SiteState) -> Iterator[Any]:
        """Every sitemap request answered: try the next guess, or fall back to links."""
        if site.sitemap_url_count:
            site.discovery = "sitemap"
            return
        while site.sitemap_guesses and site.pending_sitemaps == 0:
            guess = site.sitemap_guesses.pop(0)
            for request in self._sitemap_request(site, guess, 0):
                request.meta["webmd_guess"] = True
                yield request
        if site.pending_sitemaps:
            return
        assert site.root is not None
        site.discovery = "links"
        yield from self._schedule(site, site.root, 0, "input", typed=True)
