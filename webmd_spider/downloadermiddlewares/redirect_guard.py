"""Check redirect targets like any other URL: same website, and allowed by robots.txt.

Scrapy's RedirectMiddleware sends the redirected request back through the scheduler and
every downloader middleware, so this one sees it before it is fetched. Requests carry
``redirect_times`` (set by Scrapy) and our ``webmd_site`` / ``webmd_kind`` meta. Reads
the run context's ``robots`` rules and ledger (``webmd_spider.run_context``); refused
targets are recorded in the ledger (``robots`` or ``offsite_redirect``), marked
``webmd_rejected`` and dropped with ``IgnoreRequest``. A page (typed or discovered)
that redirects to another website gets a ``blocked`` row saying so instead (that
website's robots.txt was never read).

Every kind of request is checked (pages, sitemaps, and any kind added later) except
robots.txt files, whose redirects to another website RFC 9309 §2.3.1.2 allows (they
are followed at most five times; the file found applies to the host asked), and the
spider's own ``data:`` request of kind ``summary`` (``UNGUARDED_KINDS``). A sitemap that Scrapy
redirects to another website is refused without contacting it: that website's
robots.txt was never read. (``sitemap_discovery`` now fetches sitemaps with
``dont_redirect`` and follows their redirects itself, reading the target host's
robots.txt first; this check is what still applies if a sitemap request is ever
redirected by Scrapy.)
"""

from __future__ import annotations

from typing import Self

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest

from webmd_spider.run_context import run_context
from webmd_spider.urls import site_key

#: Request kinds whose redirects are not checked here: robots.txt files (a website's
#: own, and ``sitemap_robots``: the robots.txt of a host serving cross-submitted
#: sitemaps), which may redirect to another website (RFC 9309 §2.3.1.2), and the
#: spider's own ``data:`` request (``summary``). Every other kind is, including kinds added
#: later.
UNGUARDED_KINDS = ("robots", "sitemap_robots", "summary")
#: the start of the refusal of a discovered page redirected to another website: the
#: spider's errback writes it as a ``blocked`` row (spiders/failures.py)
OFFSITE_REDIRECT = "offsite redirect to"


class RedirectGuardMiddleware:
    """Refuse redirects that leave the website or land on a robots-disallowed URL."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        meta = request.meta
        if not meta.get("redirect_times") or meta.get("webmd_kind") in UNGUARDED_KINDS:
            return
        context = run_context(self.crawler)
        ledger = context.ledger
        website = meta.get("webmd_site", "")
        if website not in ledger.sites:
            return
        # pages carry the URL as discovered; other kinds: the first URL of the chain
        original = meta.get("webmd_url") or (meta.get("redirect_urls") or [request.url])[0]
        reason = None
        if site_key(request.url) != website:
            if meta.get("webmd_kind") == "page" and meta.get("webmd_via") == "input":
                # A URL the user typed: say so in a row (its target's robots.txt was
                # never read, so it is not fetched here).
                raise IgnoreRequest(
                    f"it redirects to another website ({request.url}); "
                    "start a crawl of that website instead"
                )
            if meta.get("webmd_kind") == "page":
                # a discovered page: a `blocked` row too (issue 16 item 7: it was only
                # a count in the summary, the page seemed to vanish)
                raise IgnoreRequest(f"{OFFSITE_REDIRECT} {request.url}")
            reason = f"offsite_redirect:{request.url}"
        else:
            rules = context.robots.get(website)
            if rules is not None and not rules.allowed(request.url):
                ledger.sites[website].robots_blocked += 1
                reason = f"robots:redirect to {request.url}"
        if reason is None:
            return
        ledger.reject(original, reason, website)
        meta["webmd_rejected"] = reason
        raise IgnoreRequest(f"redirect refused: {reason}")
