"""What the crawl will fetch next: the page requests of each website, from its inputs,
its sitemaps, the links of its pages, an earlier run's state and a resumed JOBDIR.

A URL becomes a page request once per website and run, unless it is outside the
start URLs' scope (``policy.scope``: ``out-of-scope``, counted once per URL), too deep,
refused (``urls.follow_rejection``, include/exclude patterns, ``policy.traps``,
``user:password@``), disallowed by robots.txt (RFC 9309 §2.2.2), past a stop, or over
the queue bound of ``spiders/budgets.py``. Every refusal is counted in the ledger (a
URL the user typed that robots.txt refuses is a ``blocked`` row instead). Priorities:
the sitemaps' URLs and the inputs at 0, links at ``-depth`` (breadth-first), an
index-like page (``rows.index_pages``: a URL that names one, or any link found on a
page that is one) one step behind the content pages of its depth, known pages of an
incremental run behind every new one, junk sitemaps' pages behind the links
(``SitemapJudge``). With ``follow_subdomains`` a link to another host of the
website's domain is followed onto that website, which joins the crawl
(``spiders/subdomains.py``).

Why one file of over 500 lines: what may be queued is one decision over one set of
per-website records (seen, held, too deep, robots, budgets); scope, robots, priorities
and resume all read and write them.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Literal

from scrapy import Request
from scrapy.http import Response

from webmd_spider.crew import Crew
from webmd_spider.extract import Document
from webmd_spider.items import Row, diagnostic_row
from webmd_spider.options import JobOptions
from webmd_spider.policy.robots import RobotsRules
from webmd_spider.policy.scope import OUT_OF_SCOPE, StartScopes
from webmd_spider.policy.traps import TrapDetector
from webmd_spider.rows.index_pages import index_like_row, url_names_index
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.run_context import ResumeClaims
from webmd_spider.spiders.budgets import SiteBudgets
from webmd_spider.spiders.clock import RunClock
from webmd_spider.spiders.incremental_state import IncrementalState
from webmd_spider.spiders.job_setup import start_scopes
from webmd_spider.spiders.lastmod_gate import LastmodGate
from webmd_spider.spiders.recorder import RowRecorder
from webmd_spider.spiders.responses import has_userinfo, remember_content, root_of
from webmd_spider.spiders.sitemap_judge import SitemapJudge
from webmd_spider.spiders.subdomains import SubdomainSites
from webmd_spider.state.changes import REMOVED
from webmd_spider.state.journal import CrawlJournal, QueuedUrl
from webmd_spider.state.store import PageState
from webmd_spider.urls import UrlFilter, canonicalize, follow_rejection, site_key

logger = logging.getLogger("webmd_spider.spiders.site")

#: Known pages (incremental state) queue behind every newly discovered page: re-checks
#: use what is left of the page budget and never keep a new page from being found.
KNOWN_PRIORITY_OFFSET = 1000
#: Link origins whose site key is remembered (see Frontier.site_of).
MAX_CACHED_ORIGINS = 4096
#: pages whose links wait while the sitemaps are read (beyond: followed at once)
MAX_HELD_PAGES = 64
#: An index-like page (a generated index, a search page, a tag or archive listing)
#: queues this many steps behind the content pages of its depth: a page budget fills
#: with content first. One step, not more: a link found on an index page is demoted
#: too, and a bigger step would let deeper pages overtake a whole level (the crawl
#: would no longer be breadth-first).
INDEX_PRIORITY_STEP = 1


class Frontier:
    """Turns the URLs found for a website into its page requests."""

    def __init__(
        self,
        options: JobOptions,
        ledger: RunLedger,
        robots: dict[str, RobotsRules],
        url_filter: UrlFilter,
        traps: TrapDetector,
        incremental: IncrementalState,
        journal: CrawlJournal | None,
        claims: ResumeClaims,
        budgets: SiteBudgets,
        judge: SitemapJudge,
        recorder: RowRecorder,
        crew: Crew,
        clock: RunClock,
        callbacks: tuple[Callable[..., Any], Callable[..., Any]],
        subdomains: SubdomainSites | None = None,
        open_website: Callable[[SiteState], None] | None = None,
        scopes: StartScopes | None = None,
    ) -> None:
        self.options = options
        self.ledger = ledger
        self.robots = robots
        self.url_filter = url_filter
        self.traps = traps
        self.incremental = incremental
        self.journal = journal
        self.claims = claims
        self.budgets = budgets
        self.judge = judge
        self.recorder = recorder
        self.crew = crew
        self.clock = clock
        # the spider's parse_page and page_failed (a JOBDIR queue stores them by name)
        self._callback, self._errback = callbacks
        #: follow_subdomains (else None): the websites links add to the crawl, and
        #: the robots.txt request that begins one (``RobotsFlow.added``)
        self.subdomains = subdomains
        self._open_website = open_website
        #: site keys of link origins (scheme://netloc/), see site_of
        self._origins: dict[str, str] = {}
        #: what each start URL lets in (``policy.scope``), from the options' inputs
        self.scopes = scopes if scopes is not None else start_scopes(options)
        #: per website, URLs (as found and canonical) refused as out-of-scope whatever
        #: page links them: counted once, skipped cheaply after
        self._outside: dict[str, set[str]] = {}
        #: per website, URLs inside a ``page`` start's directory refused because no
        #: start page linked them (counted once; a start page may still link them)
        self._hop_counted: dict[str, set[str]] = {}
        #: ids of held link lists (``SiteState.held_links``) found on index-like pages
        self._held_on_index: set[int] = set()
        #: known pages held while the sitemaps are read, skipped on their lastmod
        self.lastmod = LastmodGate(options, ledger, incremental, recorder, budgets, budgets.run_id)

    # -- one URL -------------------------------------------------------------------
    def schedule(
        self,
        site: SiteState,
        url: str,
        depth: int,
        via: str,
        typed: bool = False,
        walk: deque[tuple[PageState, int]] | None = None,
        index_like: bool = False,
    ) -> Iterator[Any]:
        """Yield a page request unless the URL is known, out of scope or refused.

        ``typed`` marks URLs the user gave (or the site root): include/exclude patterns
        and the scope never apply to them, and a robots refusal is a ``blocked`` row,
        not only a count. ``index_like``: found on an index-like page (queued one step
        behind the content pages of its depth).
        """
        if url in site.seen_raw:  # navigation links repeat on every page: skip cheaply
            return
        outside = self._outside.get(site.website)
        if outside is not None and url in outside:
            return
        canonical = canonicalize(url)
        if canonical in site.seen:
            site.seen_raw.add(url)
            return
        if not typed and self.scopes.restricted(site.website):
            # before the depth check: a URL outside the scope is out-of-scope, not deep
            from_start = via == "link" and depth == 1
            if not self.scopes.admits(site.website, canonical, from_start):
                self._out_of_scope(site, url, canonical)
                return
        if depth > self.options.max_depth:
            site.too_deep.setdefault(canonical, url)
            return
        site.too_deep.pop(canonical, None)
        site.seen.add(canonical)
        site.seen_raw.add(url)
        known = self.incremental.enabled and canonical in self.incremental.known(site.website)
        if not typed:
            # A sitemap declares its URLs as pages: a PDF listed there is fetched and
            # reported (`not-html`); links to assets, feeds and APIs are not followed.
            reason = follow_rejection(url, self.options.parse_documents) if via == "link" else None
            reason = reason or self.url_filter.rejection(url) or self.traps.refusal(url)
            if reason is None and "@" in url and has_userinfo(url):
                reason = "userinfo"  # user:password@ in a found link: not followed
            if reason:
                self.ledger.reject(url, reason, site.website)
                return
        if not self.robots_allows(site, url):
            if known or typed:
                row = diagnostic_row(
                    "blocked",
                    f"robots.txt {'now ' if known else ''}disallows this URL for our user agent",
                    input=site.input,
                    website=site.website,
                    url=url,
                    depth=depth,
                    discovered_via="state" if known else via,
                )
                if known:
                    # now disallowed: a tombstone, and the page leaves the state
                    self.incremental.forget(canonical, site.website)
                    row.change = REMOVED
                yield self.recorder.record(row)
            return
        stopped = self.ledger.stop_reason or site.stop_reason
        if stopped:
            self.ledger.skip(url, stopped, site.website)
            return
        if not known:
            if self.budgets.queue_full(site):
                # More requests wait than the budgets can use: this URL is not fetched,
                # and not remembered either (a hub of 50,000 links must not cost their
                # memory); a sitemap's URLs stay known (max_sitemap_urls bounds them,
                # and sitemap_url_count counts them).
                if via != "sitemap":
                    site.seen.discard(canonical)
                    site.seen_raw.discard(url)
                self.ledger.skip(url, "page_budget", site.website)
                return
            # sitemap URLs are bounded by max_sitemap_urls: they do not fill the queue
            # that bounds link fan-out (a sitemap of junk would keep every link out)
            index_like = index_like or url_names_index(canonical)
            yield self.page_request(
                site, url, canonical, depth, via, counted=via != "sitemap", index_like=index_like
            )
            return
        yield from self._schedule_known(site, url, canonical, depth, via, typed, walk)

    def _schedule_known(
        self,
        site: SiteState,
        url: str,
        canonical: str,
        depth: int,
        via: str,
        typed: bool,
        walk: deque[tuple[PageState, int]] | None,
    ) -> Iterator[Any]:
        """A page an earlier run stored: held while the sitemaps are read (the lastmod
        gate), else re-checked at once (:meth:`schedule_known_now`)."""
        if self.lastmod.hold(site, (url, canonical, depth, via, typed)):
            return
        yield from self.schedule_known_now(site, url, canonical, depth, via, typed, walk)

    def schedule_known_now(
        self,
        site: SiteState,
        url: str,
        canonical: str,
        depth: int,
        via: str,
        typed: bool,
        walk: deque[tuple[PageState, int]] | None = None,
        priority: int | None = None,
        follow: bool = True,
        stored: PageState | Literal[False] | None = False,
    ) -> Iterator[Any]:
        """A known page re-checked (conditionally when it can be), behind every new
        page unless a `priority` is given (a lastmod sample goes first), and its stored
        links walked at once (not when `follow` is false: walked already). `stored`:
        what the state holds for `canonical` when the caller read it already (False:
        read it here)."""
        if stored is False:
            stored = self.incremental.lookup(canonical)
        validators = None
        # validators only for a page converted with today's settings: a 304 keeps its
        # stored hash, which must be comparable with this run's output
        comparable = stored is not None and (
            stored.settings_fingerprint == self.incremental.fingerprint
            and not self.incremental.fill_tree
        )
        if stored is not None and comparable and (stored.etag or stored.last_modified):
            validators = (stored.etag, stored.last_modified)
        yield self.page_request(
            site,
            url,
            canonical,
            depth,
            via if typed else "state",
            priority=-depth - KNOWN_PRIORITY_OFFSET if priority is None else priority,
            validators=validators,
            counted=False,  # known pages: bounded by the state, queued behind new ones
            # a 304 is answered from this hash, without reading the state again
            stored_hash=stored.content_hash if validators is not None and stored else None,
        )
        if follow:
            yield from self.walk_stored(site, stored, depth, walk)

    def walk_stored(
        self,
        site: SiteState,
        stored: PageState | None,
        depth: int,
        walk: deque[tuple[PageState, int]] | None = None,
    ) -> Iterator[Any]:
        """Walk on through the links a known page had last time, breadth-first (so
        depths are the shortest ones): pages new since then are found, and fetched
        first, without waiting for the re-checks."""
        if stored is None or not (site.mode == "site" or self.options.crawl_links):
            return
        if walk is not None:
            walk.append((stored, depth))
            return
        walk = deque([(stored, depth)])
        while walk:
            state, at = walk.popleft()
            for link in state.links:
                if site_key(link) == site.website:
                    yield from self.schedule(site, link, at + 1, "link", walk=walk)

    # -- the lastmod gate (spiders/lastmod_gate.py) ---------------------------------------
    def release_known(self, site: SiteState) -> Iterator[Any]:
        """The website's sitemaps are read: its held known pages decided (skipped on
        lastmod and waiting for the sample, sampled, or re-checked), the stored links of
        the skipped ones walked."""
        yield from self.lastmod.release(site, self.schedule_known_now, self.walk_stored)

    def resolve_lastmod(self, websites: list[str]) -> Iterator[Any]:
        """The crawl is idle: every website's waiting lastmod candidates written as
        unchanged, or requested when the sample found a change."""
        for website in websites:
            site = self.ledger.sites[website]
            if site.known_held is not None:
                yield from self.release_known(site)
            yield from self.lastmod.resolve(site, self.schedule_known_now)

    def page_request(
        self,
        site: SiteState,
        url: str,
        canonical: str,
        depth: int,
        via: str,
        priority: int | None = None,
        validators: tuple[str | None, str | None] | None = None,
        resumed: bool = False,
        counted: bool = True,
        index_like: bool = False,
        stored_hash: str | None = None,
    ) -> Request:
        """The request of one page; journaled for resume when JOBDIR is set. A
        ``counted`` request is in ``site.queued`` until it finishes
        (``SiteBudgets.release``). Without an explicit ``priority``: ``-depth``, one
        step less for an ``index_like`` page."""
        meta: dict[str, Any] = {
            "webmd_site": site.website,
            "webmd_kind": "page",
            "webmd_depth": depth,
            "webmd_via": via,
            "webmd_url": url,
            "download_slot": site.website,
        }
        if counted and not self.crew.shared:
            # this run's id: a request restored from an earlier run's queue is not ours
            meta["webmd_queued"] = self.budgets.run_id
            site.queued += 1
        if validators is not None:
            meta["webmd_validators"] = validators
        if stored_hash is not None:
            meta["webmd_stored_hash"] = stored_hash
        if self.journal is not None:
            meta["webmd_claim"] = self.claims.new_claim()
            if not resumed:
                self.journal.queue(QueuedUrl(canonical, url, depth, via, site.website))
        if priority is None:
            priority = -depth
            if via == "sitemap" and site.sitemap_abandoned:
                priority = self.judge.demoted_priority()  # junk sitemaps: behind the links
            elif index_like:
                priority -= INDEX_PRIORITY_STEP  # content of its depth first
        return Request(
            url,
            callback=self._callback,
            errback=self._errback,
            priority=priority,
            dont_filter=resumed,
            meta=meta,
        )

    def robots_allows(self, site: SiteState, url: str) -> bool:
        """robots.txt allows ``url`` (no rules yet: allowed); a refusal is counted."""
        rules = self.robots.get(site.website)
        if rules is None or rules.allowed(url):
            return True
        site.robots_blocked += 1
        self.crew.count_row(site.website, {"robots_blocked": 1})
        self.ledger.reject(url, "robots", site.website)
        return False

    # -- a resumed JOBDIR ------------------------------------------------------------
    def resume(self, site: SiteState) -> Iterator[Any]:
        """JOBDIR resume: what earlier runs queued is known, what they finished is not
        fetched again, and what they left pending is scheduled again (Scrapy's own queue
        does not survive a kill; see ``state.journal``)."""
        journal = self.journal
        assert journal is not None
        for canonical, queued in journal.queued.items():
            if queued.website == site.website:
                site.seen.add(canonical)
                site.seen_raw.add(queued.url)
                if canonical in journal.done:
                    site.emitted.add(canonical)
                    # issue 16 item 4: /index.html was written again after a resume as a
                    # copy of / (same content_hash), the duplicate check had forgotten /
                    remember_content(site, journal.content.get(canonical), canonical)
                    if journal.done[canonical] == "diagnostic":
                        site.misses += 1  # the failure budget spans the resumed runs
        site.resumed_pages = journal.done_pages(site.website)
        pending = journal.pending(site.website)
        logger.info(
            "%s: resumed with %d pages written before, %d queued again",
            site.website,
            site.resumed_pages,
            len(pending),
        )
        self.budgets.check_page_budget(site)
        if site.stop_reason is None and site.misses >= self.options.max_pages:
            site.stop_reason = "failure_budget"
        if site.stop_reason is not None:
            for queued in pending:
                self.ledger.skip(queued.url, site.stop_reason, site.website)
            return
        for queued in pending:
            yield self.page_request(
                site,
                queued.url,
                queued.canonical,
                queued.depth,
                queued.via,
                priority=-queued.depth,
                resumed=True,
            )

    # -- the links of a page -----------------------------------------------------------
    def follow_links(
        self,
        site: SiteState,
        doc: Document,
        directives: set[str],
        depth: int,
        response: Response | None = None,
        row: Row | None = None,
    ) -> Iterator[Any]:
        """Schedule the page's same-website links unless the page says nofollow.

        ``response``: the page's answer (a start page that redirected moves its scope,
        see :meth:`start_answered`); ``row``: its page row, or its ``skipped`` row,
        when it has one (the links of an index-like page queue one step behind,
        ``rows.index_pages``: by the row's ``page_type``, its links and its URL)."""
        if response is not None and depth == 0 and response.meta.get("webmd_via") == "input":
            self.start_answered(site, response.meta.get("webmd_url", response.url), response.url)
        nofollow = doc.nofollow or bool(directives & {"nofollow", "none"})
        if not (site.mode == "site" or self.options.crawl_links):
            return
        if site.mode == "site" and self.options.discovery == "sitemaps":
            return  # the sitemaps' URLs only
        if doc.nofollow_links:
            # rel="nofollow" links: discovered, refused (README: every discovered URL
            # ends as a row or a counted rejection)
            self.ledger.reject_all(doc.nofollow_links, "nofollow", site.website)
        # a start page's links are the crawl's way in, whatever the page looks like (a
        # home page is often mostly links): never queued behind the rest
        start = depth == 0 and response is not None and response.meta.get("webmd_via") == "input"
        index_like = row is not None and not start and index_like_row(row)
        held = site.held_links
        if held is not None and len(held) < MAX_HELD_PAGES:
            # the sitemaps are still being read: their URLs go first (discovery.start)
            held.append((doc.page_links, nofollow, depth))
            if index_like:
                self._held_on_index.add(id(doc.page_links))  # alive while held
            return
        yield from self._follow(site, doc.page_links, nofollow, depth, index_like)

    def follow_held_links(self, site: SiteState) -> Iterator[Any]:
        """The sitemaps are read: follow the links held meanwhile, in the order found."""
        held, site.held_links = site.held_links, None
        for links, nofollow, depth in held or ():
            on_index = id(links) in self._held_on_index
            self._held_on_index.discard(id(links))
            yield from self._follow(site, links, nofollow, depth, on_index)

    def start_answered(self, site: SiteState, start_url: str, final_url: str) -> None:
        """A start page's answer came from ``final_url``: when that is not where it was
        asked (a redirect, ``/docs`` → ``/docs/``), the start's scope moves there
        (``StartScopes.moved``), before its links are followed."""
        if start_url == final_url or not self.scopes.moved(start_url, final_url):
            return
        self._outside.pop(site.website, None)  # judged against the old scope
        self._hop_counted.pop(site.website, None)
        logger.info(
            "%s: the start %s redirected to %s: the crawl's scope is now %s",
            site.website,
            start_url,
            final_url,
            self.scopes.describe(site.website),
        )

    def _out_of_scope(self, site: SiteState, url: str, canonical: str) -> None:
        """Count ``url`` as out-of-scope; remember it when no page could let it in
        (a ``page`` start lets in what the start page links: the same URL linked from
        a start page may still come)."""
        if self.scopes.admits(site.website, canonical, True):
            counted = self._hop_counted.setdefault(site.website, set())
            if canonical not in counted:  # counted once, still let in from a start page
                counted.add(canonical)
                self.ledger.reject(url, OUT_OF_SCOPE, site.website)
            return
        outside = self._outside.setdefault(site.website, set())
        if canonical not in outside:  # else the same URL spelled another way
            self.ledger.reject(url, OUT_OF_SCOPE, site.website)
        outside.add(url)
        outside.add(canonical)

    def _follow(
        self,
        site: SiteState,
        links: list[str],
        nofollow: bool,
        depth: int,
        index_like: bool = False,
    ) -> Iterator[Any]:
        """Schedule same-website ``links`` found at ``depth`` (refused when nofollow;
        one step behind when found on an ``index_like`` page)."""
        website, seen_raw, subdomains = site.website, site.seen_raw, self.subdomains
        if nofollow:
            # the page says nofollow (meta robots, X-Robots-Tag): its site links are
            # counted as refused, not followed
            for link in links:
                key = self.site_of(link)
                if (key == website and link not in seen_raw) or (
                    subdomains is not None and key != website and subdomains.covers(website, key)
                ):
                    self.ledger.reject(link, "nofollow", website)
            return
        for index, link in enumerate(links):
            key = self.site_of(link)
            if key != website:
                if subdomains is not None:  # follow_subdomains
                    yield from self._other_website(site, link, key, depth + 1)
                continue
            if link in seen_raw:
                continue
            if not index & 255 and self.clock.past_deadline():
                # past the time budget (its timer cannot fire while this loop runs)
                self.ledger.stop_reason = self.ledger.stop_reason or "time_budget"
            stopped = self.ledger.stop_reason or site.stop_reason
            if stopped is None and self.budgets.queue_full(site):
                stopped = "page_budget"
            if stopped is not None:
                # Not even looked at (canonical form, filters): it will not be fetched,
                # and a hub of 50,000 links must cost neither CPU nor memory for them.
                # (A URL linked again from another page counts again.)
                self.ledger.skip(link, stopped, website)
                continue
            yield from self.schedule(site, link, depth + 1, "link", index_like=index_like)

    def _other_website(self, site: SiteState, link: str, key: str, depth: int) -> Iterator[Any]:
        """follow_subdomains: a link of ``site`` to the website ``key``, for ``depth``.
        Not followed unless ``key`` is a host of the website's domain; a new such
        website joins the crawl (its robots.txt is asked, the link waits for it), at
        most MAX_SUBDOMAIN_WEBSITES per domain (``subdomain_limit``)."""
        subdomains = self.subdomains
        assert subdomains is not None
        if not subdomains.covers(site.website, key):
            return  # another website: not followed, as without the option
        target = self.ledger.sites.get(key)
        if target is None:
            self._add_website(site, link, key, depth)
            return
        stopped = self.ledger.stop_reason or target.stop_reason
        if stopped is None and target.website not in self.robots:
            subdomains.hold(target, link, depth)  # its robots.txt is being read
            return
        if link in target.seen_raw:
            return
        if stopped is None and self.budgets.queue_full(target):
            stopped = "page_budget"
        if stopped is not None:
            self.ledger.skip(link, stopped, target.website)
            return
        yield from self.schedule(target, link, depth, "link")

    def _add_website(self, site: SiteState, link: str, key: str, depth: int) -> None:
        """A link of ``site`` to a host of its domain not crawled yet: unless the link
        itself is refused, that host becomes a website and its robots.txt is asked (the
        link waits for it)."""
        assert self.subdomains is not None and self._open_website is not None
        if depth > self.options.max_depth:
            self.ledger.reject(link, "max_depth", site.website)
            return
        if self.ledger.stop_reason:
            self.ledger.skip(link, self.ledger.stop_reason, site.website)
            return
        documents = self.options.parse_documents
        reason = follow_rejection(link, documents) or self.url_filter.rejection(link)
        if reason is None and "@" in link and has_userinfo(link):
            reason = "userinfo"
        if reason:
            self.ledger.reject(link, reason, site.website)
            return
        target = self.subdomains.add(site, key, root_of(canonicalize(link)))
        if target is None:
            self.ledger.reject(link, "subdomain_limit", site.website)
            return
        self.subdomains.hold(target, link, depth)
        self._open_website(target)

    def release_held(self, site: SiteState) -> Iterator[Any]:
        """``site``'s robots.txt is known: schedule the links of other websites that
        waited for it (follow_subdomains)."""
        if self.subdomains is None:
            return
        for url, depth in self.subdomains.release(site.website):
            yield from self.schedule(site, url, depth, "link")

    def site_of(self, url: str) -> str:
        """``site_key(url)``, cached on the URL's ``scheme://netloc/`` (the key depends
        on nothing else): a page's links share a few origins, and ``urlsplit`` per link
        was a third of the cost of following one."""
        end = url.find("/", url.find("//") + 2) if "//" in url else -1
        if end < 0:
            return site_key(url)
        origin = url[: end + 1]
        key = self._origins.get(origin)
        if key is None:
            key = site_key(origin)
            if len(self._origins) < MAX_CACHED_ORIGINS:
                self._origins[origin] = key
        return key

    # -- the end of an incremental run ----------------------------------------------------
    def orphans(self, websites: list[str]) -> Iterator[Any]:
        """Known pages of an earlier run that this run did not find again (no longer
        linked or listed): re-checked, so that a deleted page gives its ``removed``
        row. At depth max_depth: the page itself is checked, its links are not
        followed."""
        for website in websites:
            site = self.ledger.sites[website]
            for canonical in sorted(self.incremental.known(website) - site.seen):
                yield from self.schedule(site, canonical, self.options.max_depth, "state")

    def orphan_sites(self) -> list[str]:
        """The whole-site websites with known pages not found again in this run."""
        sites = [
            site
            for site in self.ledger.sites.values()
            if site.mode == "site" and site.stop_reason is None and site.website in self.robots
        ]
        if not any(self.incremental.known(s.website) - s.seen for s in sites):
            return []
        return [s.website for s in sites]


def bypass_own_chain(request: Request) -> None:
    """``request_scheduled``: a redirect to a spelling of a URL of its own chain
    (``/track`` → ``/track?utm_source=x``, ``/o?b=2&a=1`` → ``/o?a=1&b=2``: one
    canonical URL) would match that URL in the dupefilter, and the page would be lost
    though no copy of it was fetched: such a request bypasses the dupefilter. A redirect
    back to the very URL of an earlier hop is a loop: that URL is fetched once more with
    redirects off, and its answer is the row (a 3xx is a ``redirect loop`` diagnostic; a
    page that refreshes to itself is written as it is). Other chains end at
    REDIRECT_MAX_TIMES like any."""
    meta = request.meta
    chain = meta.get("redirect_urls")
    if not chain or request.dont_filter or meta.get("webmd_kind") != "page":
        return
    if request.url in chain:
        request.dont_filter = True
        meta["dont_redirect"] = True  # Redirect- and MetaRefreshMiddleware pass it
        meta["webmd_redirect_loop"] = True
        return
    canonical = canonicalize(request.url)
    if any(canonicalize(url) == canonical for url in chain):
        request.dont_filter = True
