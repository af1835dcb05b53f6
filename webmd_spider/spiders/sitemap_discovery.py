"""Sitemap discovery for the ``site`` spider: declared or well-known sitemaps → page requests.

A collaborator of :class:`webmd_spider.spiders.site.SiteSpider`: the spider builds one
:class:`SitemapDiscovery` with what it needs from the crawl (the ledger, the options,
scheduling a page, the robots rules, the links held while sitemaps are read) and keeps
four one-line callbacks that hand the answers over (a JOBDIR queue stores a request's
callback by its name on the spider).

Declared sitemaps (robots.txt ``Sitemap:`` lines, relative values resolved against
the robots.txt URL, unusable ones skipped with one warning) are all read;
otherwise the well-known paths are tried one after another until one gives URLs.
Indexes are followed :data:`MAX_SITEMAP_DEPTH` levels deep, at most
:data:`MAX_SITEMAP_FILES` files per site. When every sitemap request has answered and
none gave a URL, the site falls back to a link crawl from its home page.

Bounded work per website:

* sitemap files wait in a per-site queue and at most :data:`SITEMAP_WINDOW` are in
  flight; once the site has ``max_sitemap_urls`` URLs (or its page budget is filled, or
  the run stops) no further file is requested: the queued ones are counted in the run
  summary as not fetched (``sitemap_not_read:<reason>``), and one that arrives after
  the cap is not read (counted the same way);
* a sitemap is read lazily (:class:`webmd_spider.discovery.sitemaps.SitemapReader`) and reading
  stops at the cap: the entries left are counted approximately under
  ``max_sitemap_urls`` (entry tags in the file minus those read), with a warning.
  Reading one file is bounded (entry, unusable-entry and element caps of the reader).

Other hosts (sitemaps.org, "Sitemap index files" and "Sitemaps & Cross Submits"):

* a sitemap index may list sitemaps of its own site only: an entry on another website
  (neither the crawled website nor the index's own host) is refused, ``offsite_sitemap``;
* a robots.txt ``Sitemap:`` line may name a file on another host (cross-submission,
  e.g. sitemaps kept on a CDN): that host's robots.txt is read first and obeyed
  (RFC 9309 §2.3: rules belong to the host that serves the file, with the same
  policies as for a crawled website: 4xx allow all, 5xx or unreachable disallow all),
  and the pages it lists must still be on the crawled website
  (``offsite_sitemap_entry``). Why fetch rather than refuse: refusing would lose the
  sitemaps many sites keep on a CDN or an object store, which sitemaps.org documents;
  fetching without that host's robots.txt would break RFC 9309; one robots.txt request
  per host (cached for the run) keeps both. A sitemap that redirects is followed here
  (not by Scrapy's redirect middleware) so its target goes through the same checks.

Sitemap requests bypass the dupefilter (``dont_filter``) because discovery dedups them
itself: a dropped request would leave the pending count stuck and stall discovery.

Why one file of over 500 lines: the per-website sitemap window, the rules for other
hosts and the fall-back to links are one state machine per website.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.http import Response
from twisted.python.failure import Failure

from webmd_spider.crew import Crew, SoloCrew
from webmd_spider.discovery.sitemaps import (
    MAX_SITEMAP_BYTES,
    MAX_SITEMAP_ENTRIES,
    SitemapReader,
    usable_url,
)
from webmd_spider.options import JobOptions
from webmd_spider.policy.robots import RobotsRules, sitemap_url
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.rows.page_rows import FOLLOWED_REDIRECTS
from webmd_spider.spiders.failures import classify_failure
from webmd_spider.urls import canonicalize, site_key

#: Tried in order when robots.txt names no usable sitemap.
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
#: Sitemap files of one website in flight at once: two, so one slow file does not hold
#: discovery up, and at most one file is downloaded in vain once the cap is reached.
SITEMAP_WINDOW = 2
#: Redirects followed from one sitemap URL (as many as for robots.txt, RFC 9309 §2.3.1.2).
MAX_SITEMAP_REDIRECTS = 5
#: RFC 9309 §2.3.1.2: follow at least five consecutive redirects for a robots.txt.
ROBOTS_MAX_REDIRECTS = 5
#: How many unusable ``Sitemap:`` values one warning quotes.
QUOTED_BAD_LINES = 5


class _Sitemap(NamedTuple):
    """A sitemap file to fetch."""

    url: str
    level: int  # 0: declared or guessed; n: listed by an index of level n - 1
    guess: bool = False  # a well-known path: a 404 is expected, not worth a warning
    hops: int = 0  # redirects followed to get here


@dataclass(slots=True)
class _SiteSitemaps:
    """One website's sitemap work besides what ``SiteState`` holds (``pending_sitemaps``
    counts its sitemap requests in flight)."""

    queue: deque[_Sitemap] = field(default_factory=deque)
    #: files waiting for the robots.txt of the other host that serves them
    parked: int = 0


class Schedule(Protocol):
    """The spider's page scheduling: scope, trap and budget checks; yields requests."""

    def __call__(
        self, site: SiteState, url: str, depth: int, via: str, typed: bool = False
    ) -> Iterator[Any]: ...


class SitemapCallbacks(NamedTuple):
    """The spider's callbacks of sitemap requests (spider methods: see the docstring)."""

    parse_sitemap: Callable[[Response], Any]
    sitemap_failed: Callable[[Failure], Any]
    parse_sitemap_host_robots: Callable[[Response], Any]
    sitemap_host_robots_failed: Callable[[Failure], Any]


class SitemapDiscovery:
    """Sitemap reading for the site spider's whole-website inputs.

    `schedule(site, url, depth, via)` schedules a page (the spider's scope, trap and
    budget checks; yields its requests), `robots_allows(site, url)` checks a URL
    against the website's robots rules, `follow_held_links(site)` follows the links
    pages found while the sitemaps were read. `crew` is who shares the crawl (a
    distributed crawl's fleet; alone by default), `crawler` Scrapy's crawler (its
    stats are read when counted: they exist only once the crawl starts).
    """

    def __init__(
        self,
        ledger: RunLedger,
        options: JobOptions,
        callbacks: SitemapCallbacks,
        schedule: Schedule,
        robots_allows: Callable[[SiteState, str], bool],
        follow_held_links: Callable[[SiteState], Iterator[Any]],
        release_known: Callable[[SiteState], Iterator[Any]] | None = None,
        crawler: Any = None,
        crew: Crew | None = None,
    ) -> None:
        self.ledger = ledger
        self.options = options
        self._callbacks = callbacks
        self._schedule = schedule
        self._robots_allows = robots_allows
        self._follow_held_links = follow_held_links
        #: the known pages an incremental run held while the sitemaps were read
        self._release_known = release_known
        self._crawler = crawler
        self._crew: Crew = crew if crew is not None else SoloCrew()
        #: per website: queued files
        self._sitemap_work: dict[str, _SiteSitemaps] = {}
        #: robots.txt rules of other hosts serving sitemaps, by origin (``scheme://host/``)
        self._sitemap_host_rules: dict[str, RobotsRules] = {}
        #: origin -> (website, file) waiting for that origin's robots.txt (a request is out)
        self._sitemap_host_waiting: dict[str, list[tuple[str, _Sitemap]]] = {}

    # -- start -------------------------------------------------------------------------
    def start(self, site: SiteState, declared: list[str]) -> Iterator[Any]:
        """Begin sitemap discovery for a whole-website crawl."""
        assert site.root is not None
        usable = self._declared_sitemaps(site, declared, site.root + "robots.txt")
        if usable:
            for url in usable:
                yield from self._queue_sitemap(site, _Sitemap(url, 0))
        else:
            site.sitemap_guesses = [site.root + path for path in WELL_KNOWN_SITEMAPS]
        yield from self._pump_sitemaps(site)

    def _declared_sitemaps(
        self, site: SiteState, declared: list[str], robots_url: str
    ) -> list[str]:
        """The usable URLs of robots.txt ``Sitemap:`` values; relative ones resolved
        against the robots.txt URL (see ``robots.sitemap_url``). Unusable ones are
        counted (``unusable_sitemap_line``) and told in one warning: a bad line costs
        only itself, the site still gets its sitemaps or its link crawl."""
        usable: list[str] = []
        bad: list[str] = []
        for value in declared:
            url = sitemap_url(value, robots_url)
            if url is not None:
                url = usable_url(url)  # safely encoded, as requests need it
            if url is None:
                bad.append(value)
                self.ledger.reject(value[:200], "unusable_sitemap_line", site.website)
            else:
                usable.append(url)
        if bad:
            self._stat("webmd/sitemaps/unusable_robots_lines", len(bad))
            quoted = ", ".join(repr(v[:80]) for v in bad[:QUOTED_BAD_LINES])
            more = f" and {len(bad) - QUOTED_BAD_LINES} more" if len(bad) > QUOTED_BAD_LINES else ""
            self._warn(
                f"{site.website}: {len(bad)} Sitemap line(s) of {robots_url} skipped, not an "
                f"http(s) URL even resolved against it: {quoted}{more}"
            )
        return usable

    # -- the queue ---------------------------------------------------------------------
    def _work(self, site: SiteState) -> _SiteSitemaps:
        work = self._sitemap_work.get(site.website)
        if work is None:
            work = self._sitemap_work[site.website] = _SiteSitemaps()
        return work

    def _queue_sitemap(self, site: SiteState, item: _Sitemap) -> Iterator[Request]:
        """Accept a sitemap URL into the site's queue, or refuse and count it. A file on
        another host waits for that host's robots.txt (whose request this may yield)."""
        url = usable_url(item.url)
        if url is None:
            self.ledger.reject(item.url[:200], "unusable_sitemap_url", site.website)
            return
        item = item._replace(url=url)
        canonical = canonicalize(url)
        if canonical in site.sitemap_seen:
            self.ledger.reject(url, "duplicate_sitemap", site.website)
            return
        site.sitemap_seen.add(canonical)
        if site.sitemap_files >= MAX_SITEMAP_FILES:
            self.ledger.reject(url, "sitemap_file_limit", site.website)
            return
        if site_key(url) == site.website:
            if self._robots_allows(site, url):
                self._admit_sitemap(site, item)
            return
        origin = _origin(url)
        rules = self._sitemap_host_rules.get(origin)
        if rules is None and not self.options.respect_robots:
            rules = RobotsRules.allow_all(self.options.robots_token)
        if rules is not None:
            if self._host_allows(site, rules, origin, url):
                self._admit_sitemap(site, item)
            return
        # RFC 9309 §2.3: that host's robots.txt governs the file; read it first.
        waiting = self._sitemap_host_waiting
        first = origin not in waiting
        waiting.setdefault(origin, []).append((site.website, item))
        self._work(site).parked += 1
        if first:
            yield self._host_robots_request(site, origin)

    def _admit_sitemap(self, site: SiteState, item: _Sitemap) -> None:
        if site.sitemap_files >= MAX_SITEMAP_FILES:  # files admitted while it waited
            self.ledger.reject(item.url, "sitemap_file_limit", site.website)
            return
        site.sitemap_files += 1
        self._work(site).queue.append(item)

    def _sitemap_stop(self, site: SiteState) -> str | None:
        """Why no further sitemap file of this website is wanted, or None."""
        if self.ledger.stop_reason or site.stop_reason:
            return self.ledger.stop_reason or site.stop_reason
        if site.sitemap_url_count >= self.options.max_sitemap_urls:
            return "max_sitemap_urls"
        return None

    def _send_sitemaps(self, site: SiteState) -> Iterator[Request]:
        """Request queued files while fewer than SITEMAP_WINDOW are in flight; once the
        site wants no more, count the queued ones as not read instead."""
        work = self._work(site)
        stop = self._sitemap_stop(site)
        if stop is not None:
            while work.queue:
                self.ledger.skip(work.queue.popleft().url, f"sitemap_not_read:{stop}", site.website)
            return
        while work.queue and site.pending_sitemaps < SITEMAP_WINDOW:
            item = work.queue.popleft()
            site.pending_sitemaps += 1
            yield self._sitemap_fetch(site, item)

    def _sitemaps_idle(self, site: SiteState) -> bool:
        work = self._work(site)
        return site.pending_sitemaps == 0 and not work.queue and not work.parked

    def _pump_sitemaps(self, site: SiteState) -> Iterator[Any]:
        """Send what the window allows; when nothing is left in flight, finish."""
        yield from self._send_sitemaps(site)
        if self._sitemaps_idle(site):
            yield from self._finish_sitemaps(site)

    def _sitemap_fetch(self, site: SiteState, item: _Sitemap) -> Request:
        meta: dict[str, Any] = {
            "webmd_site": site.website,
            "webmd_kind": "sitemap",
            "webmd_level": item.level,
            "webmd_hops": item.hops,
            # per host: a file on another host is not spaced with the website's pages
            "download_slot": site_key(item.url),
            # redirects are followed in parse_sitemap, through _queue_sitemap's checks
            "dont_redirect": True,
            "handle_httpstatus_all": True,
            # sitemaps.org allows 50 MB uncompressed per file, and a plain 50,000-URL
            # sitemap is 5-8 MB: the page size limit (DOWNLOAD_MAXSIZE) would refuse it
            "download_maxsize": MAX_SITEMAP_BYTES,
        }
        if item.guess:
            meta["webmd_guess"] = True
        return Request(
            item.url,
            callback=self._callbacks.parse_sitemap,
            errback=self._callbacks.sitemap_failed,
            priority=PRIORITY_SITEMAP,
            dont_filter=True,
            meta=meta,
        )

    # -- responses ---------------------------------------------------------------------
    def parse_sitemap(self, response: Response) -> Iterator[Any]:
        """A sitemap or sitemap index answered: schedule its pages or its children."""
        meta = response.meta
        site = self.ledger.sites[meta["webmd_site"]]
        # Scrapy consumes this generator lazily, so two sitemaps may be read in turns:
        # the file counts as in flight until it is read (no premature fallback).
        try:
            location = response.headers.get(b"Location")
            if response.status in FOLLOWED_REDIRECTS and location:
                yield from self._sitemap_redirect(site, response, location.decode("latin-1"))
            elif response.status == 200:
                stop = self._sitemap_stop(site)
                if stop is None:
                    yield from self._read_sitemap(site, response)
                else:
                    # requested before the site had enough: downloaded, but not read
                    self.ledger.skip(response.url, f"sitemap_not_read:{stop}", site.website)
            elif not meta.get("webmd_guess"):
                self._warn(f"sitemap {response.url} answered HTTP {response.status}")
        finally:
            site.pending_sitemaps -= 1
        yield from self._pump_sitemaps(site)

    def _read_sitemap(self, site: SiteState, response: Response) -> Iterator[Any]:
        reader = SitemapReader(response.body, response.url)
        if reader.kind == "invalid":
            self._warn(f"sitemap {response.url} unusable: {reader.error}")
        elif reader.kind == "sitemapindex":
            yield from self._index_children(site, response, reader)
        else:
            yield from self._sitemap_pages(site, reader, response.url)
        if reader.truncated:
            self._warn(
                f"sitemap {response.url}: reading stopped, it holds {reader.limit} "
                f"(sitemaps.org allows {MAX_SITEMAP_ENTRIES:,} URLs per file); the rest "
                "was not read"
            )
        if reader.bad_entries:
            self._warn(f"sitemap {response.url}: {reader.bad_entries} entries skipped")

    def _index_children(
        self, site: SiteState, response: Response, reader: SitemapReader
    ) -> Iterator[Any]:
        """Queue the sitemaps an index lists. sitemaps.org: "A Sitemap index file can
        only specify Sitemaps that are found on the same site as the Sitemap index
        file": a child on any other website than the index's or the crawled one is
        refused (``offsite_sitemap``), never fetched."""
        level = response.meta["webmd_level"] + 1
        own_sites = {site.website, site_key(response.url)}
        for entry in reader:
            if site_key(entry.loc) not in own_sites:
                self.ledger.reject(entry.loc, "offsite_sitemap", site.website)
            elif level > MAX_SITEMAP_DEPTH:
                self.ledger.reject(entry.loc, "sitemap_depth_limit", site.website)
            else:
                yield from self._queue_sitemap(site, _Sitemap(entry.loc, level))
            if site.sitemap_files >= MAX_SITEMAP_FILES:
                # no further child can be fetched: stop reading, count the rest
                self._count_unread(
                    reader,
                    self.ledger.rejected_counts,
                    "sitemap_file_limit",
                    f"sitemap index {response.url}: the limit of {MAX_SITEMAP_FILES} "
                    "sitemap files is reached",
                )
                return

    def _sitemap_pages(self, site: SiteState, reader: SitemapReader, url: str) -> Iterator[Any]:
        """Schedule a urlset's pages until the site has ``max_sitemap_urls``; then stop
        reading and count what is left (approximately, see ``SitemapReader.unread``)."""
        limit = self.options.max_sitemap_urls
        for entry in reader:
            if site_key(entry.loc) != site.website:
                # sitemaps.org: a sitemap lists URLs of its own site (cross-submitted
                # ones: of the website whose robots.txt declared it)
                self.ledger.reject(entry.loc, "offsite_sitemap_entry", site.website)
                continue
            key = canonicalize(entry.loc)
            if entry.lastmod and key not in site.lastmod:
                # before it is scheduled: a known page held back is decided on it
                site.lastmod[key] = entry.lastmod
            # the site root the user typed is never filtered (README: typed URLs are not
            # matched against include/exclude patterns), whichever way it is reached
            typed = site.root is not None and key == canonicalize(site.root)
            requests = list(self._schedule(site, entry.loc, 0, "sitemap", typed=typed))
            # counted when listed, not when first scheduled: a page that a link found
            # before its sitemap was read is still in the sitemap (the count was 1113,
            # 1148 or 1139 of 1,169 by how fast the pages' links came in)
            if key in site.seen and key not in site.sitemap_listed:
                site.sitemap_listed.add(key)
                site.sitemap_url_count += 1
                if entry.lastmod:
                    site.lastmod[key] = entry.lastmod
            yield from requests
            if site.sitemap_url_count >= limit:
                self._count_unread(
                    reader,
                    self.ledger.not_fetched_counts,
                    "max_sitemap_urls",
                    f"sitemap {url}: max_sitemap_urls ({limit:,}) reached",
                )
                return

    def _count_unread(
        self, reader: SitemapReader, counts: dict[str, int], key: str, why: str
    ) -> None:
        """A file no longer read: its entries left count under ``counts[key]``, with a
        warning that says ``why``."""
        unread = reader.unread()
        if unread:
            counts[key] += unread
            self._warn(f"{why}; about {unread:,} more entries not read")

    def _sitemap_redirect(
        self, site: SiteState, response: Response, location: str
    ) -> Iterator[Any]:
        """Follow a sitemap's redirect as a new sitemap URL (dedup, file limit, the
        target host's robots.txt)."""
        meta = response.meta
        hops = int(meta.get("webmd_hops", 0)) + 1
        target = usable_url(location, response.url)
        if target is None:
            self._warn(f"sitemap {response.url} redirects to an unusable URL: {location[:200]!r}")
            return
        if hops > MAX_SITEMAP_REDIRECTS:
            self._warn(f"sitemap {response.url}: more than {MAX_SITEMAP_REDIRECTS} redirects")
            return
        item = _Sitemap(target, meta["webmd_level"], bool(meta.get("webmd_guess")), hops)
        yield from self._queue_sitemap(site, item)

    def sitemap_failed(self, failure: Failure) -> Iterator[Any]:
        """A sitemap could not be fetched: note it and carry on."""
        request = failure.request  # type: ignore[attr-defined]
        site = self.ledger.sites[request.meta["webmd_site"]]
        site.pending_sitemaps -= 1
        if not request.meta.get("webmd_rejected"):
            self._warn(f"sitemap {request.url} not fetched: {classify_failure(failure)[1]}")
        yield from self._pump_sitemaps(site)

    def _finish_sitemaps(self, site: SiteState) -> Iterator[Any]:
        """Every sitemap request answered: try the next guess, or fall back to links."""
        if site.sitemap_url_count:
            site.discovery = "sitemap"
            yield from self._follow_held_links(site)
            yield from self._release(site)
            return
        while site.sitemap_guesses and self._sitemaps_idle(site):
            guess = site.sitemap_guesses.pop(0)
            yield from self._queue_sitemap(site, _Sitemap(guess, 0, guess=True))
            yield from self._send_sitemaps(site)
        if not self._sitemaps_idle(site):
            return
        assert site.root is not None
        if self.options.discovery == "sitemaps":
            site.discovery = "sitemap"
            self._warn(
                f"{site.website}: no sitemap lists a page, and discovery=sitemaps follows "
                "no links: only the start page is read"
            )
            yield from self._release(site)
            return
        site.discovery = "links"
        yield from self._schedule(site, site.root, 0, "input", typed=True)
        yield from self._follow_held_links(site)
        yield from self._release(site)

    def _release(self, site: SiteState) -> Iterator[Any]:
        if self._release_known is not None:
            yield from self._release_known(site)

    # -- robots.txt of other hosts -------------------------------------------------------
    def _host_robots_request(self, site: SiteState, origin: str) -> Request:
        return Request(
            origin + "robots.txt",
            callback=self._callbacks.parse_sitemap_host_robots,
            errback=self._callbacks.sitemap_host_robots_failed,
            dont_filter=True,
            priority=PRIORITY_SITEMAP + 1,
            meta={
                "webmd_site": site.website,
                "webmd_kind": "sitemap_robots",
                "webmd_origin": origin,
                "download_slot": site_key(origin),
                "redirect_ttl": ROBOTS_MAX_REDIRECTS,
            },
        )

    def _host_allows(self, site: SiteState, rules: RobotsRules, origin: str, url: str) -> bool:
        if rules.allowed(url):
            return True
        site.robots_blocked += 1
        self._crew.count_row(site.website, {"robots_blocked": 1})
        self.ledger.reject(url, f"robots:{origin}robots.txt", site.website)
        return False

    def parse_sitemap_host_robots(self, response: Response) -> Iterator[Any]:
        """The robots.txt of a host serving sitemaps answered: its rules decide (RFC 9309
        §2.3.1: 2xx parsed, 4xx allow all, 429/5xx disallow all)."""
        rules = RobotsRules.from_response(response.status, response.body, self.options.robots_token)
        yield from self._settle_host(
            response.meta["webmd_origin"], rules, f"HTTP {response.status}"
        )

    def sitemap_host_robots_failed(self, failure: Failure) -> Iterator[Any]:
        """That robots.txt could not be fetched: RFC 9309 §2.3.1.4, unreachable means
        complete disallow (not asked again: only sitemaps wait for it); past five
        redirects §2.3.1.2 allows taking it as unavailable (allow all)."""
        request = failure.request  # type: ignore[attr-defined]
        origin = request.meta["webmd_origin"]
        stopped = request.meta.get("webmd_rejected")
        if stopped:  # the run stopped before it was fetched: the files are not read
            for website, item in self._sitemap_host_waiting.pop(origin, []):
                self._work(self.ledger.sites[website]).parked -= 1
                self.ledger.skip(item.url, f"sitemap_not_read:{stopped}", website)
            return
        error_type, message = classify_failure(failure)
        token = self.options.robots_token
        if error_type == "http-error" and "redirects" in message:
            rules = RobotsRules.allow_all(token)
        else:
            rules = RobotsRules.unreachable(token)
        yield from self._settle_host(origin, rules, message)

    def _settle_host(self, origin: str, rules: RobotsRules, why: str) -> Iterator[Any]:
        """Rules of ``origin`` known: admit or refuse the files waiting for them."""
        self._sitemap_host_rules[origin] = rules
        if rules.policy == "disallow-all":
            self._warn(
                f"robots.txt of {origin} is unavailable ({why}): RFC 9309 §2.3.1.4 "
                "disallows that host, so the sitemaps it serves are not fetched"
            )
        touched: dict[str, SiteState] = {}
        for website, item in self._sitemap_host_waiting.pop(origin, []):
            site = touched[website] = self.ledger.sites[website]
            self._work(site).parked -= 1
            if self._host_allows(site, rules, origin, item.url):
                self._admit_sitemap(site, item)
        for site in touched.values():
            yield from self._pump_sitemaps(site)

    # -- small helpers -------------------------------------------------------------------
    def _warn(self, message: str) -> None:
        self.ledger.warn(message)

    def _stat(self, name: str, count: int = 1) -> None:
        if self._crawler is not None:
            self._crawler.stats.inc_value(name, count)


def _origin(url: str) -> str:
    """``scheme://host[:port]/`` of an absolute URL (robots.txt is per origin, RFC 9309
    §2.3); lower-case, default port and user information dropped."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = host if port is None or port == default else f"{host}:{port}"
    return f"{scheme}://{netloc}/"
