"""The ``site`` spider: start URLs → robots.txt → sitemaps or links → one row per page.

``scrapy crawl site -a start=URL [-a name=value ...]``; every option is listed in
``webmd_spider.options`` and the README. Settings read: all ``WEBMD_*`` (through
options), ``FEEDS`` (a default JSONL feed is added when none is given),
``DOWNLOAD_TIMEOUT`` (how long in-flight downloads may finish after the time budget).

Flow per website (URLs on one host, ``www.`` folded, are one website):
1. robots.txt is fetched first; for a bare domain it is also the probe of the discovery
   ladder (https://host, https://www.host, http://host). Its body is read up to the
   parse limit (``MAX_ROBOTS_BYTES``, ``extensions/robots_body.py``) and cut there,
   whatever its size; a redirect to another website gives the rules (RFC 9309
   §2.3.1.2), while the website, its root and its sitemaps stay on the input's host
   (``robots_root``).
2. whole-site inputs read the sitemaps (see ``sitemap_discovery``); with no usable
   sitemap the home page starts a breadth-first link crawl.
3. each page response becomes a ``page`` row or a ``diagnostic`` row; links on the page
   are followed (same website, shallowest first, down to ``max_depth``). With
   extraction processes a page is converted in one of them (one of 64 KiB or more
   waits for one rather than being converted here); a page past ``extract_timeout_secs``
   there is an ``extraction-timeout`` row.
4. when the crawl goes idle, one ``site`` row per website is written: always the last
   row of its website, its counts those of the rows before it.

Budgets per website (``spiders/budgets.py``):

* ``max_pages`` page rows, then ``stop_reason: page_budget``;
* ``max_pages`` fetched pages that gave no page row (a diagnostic row of the page; a
  duplicate found after the fetch: same final URL, rel=canonical already written, same
  ``content_hash`` as a page written; a redirect refused or dropped as a duplicate),
  then ``stop_reason: failure_budget``. Per worker in a distributed crawl;
* new page requests are not made while those made and not finished reach
  ``budgets.QUEUE_FACTOR`` times what the two budgets can still use (each fetch ends as a
  page row or counts against the failure budget); the URLs over it are counted as not
  fetched (``page_budget``), not remembered, and the links of a page are then not even
  canonicalized. So a website costs about 2 x ``max_pages`` page fetches at most (the
  answers still in flight when it stops are counted as not fetched, not written).

When a website stops, its requests waiting in the scheduler's memory queue and in its
download slot are taken out at once, and its pages out at an extraction process are
given up (a JOBDIR's disk queue and a distributed crawl's shared queue are left to the
budget middleware, which refuses them one by one as they come out). At the time budget
every website's are; after the grace period (``STOP_GRACE_SECS``, also read on the
clock) no row is made any more, and the site rows are written at the close, after every
row made before them.

Within one website and run a page is written once: a redirect to a spelling of a URL of
its own chain bypasses the dupefilter (a loop back to the very URL of an earlier hop is
a ``redirect loop`` diagnostic); a discovered page (not a URL the user typed) whose
``content_hash`` equals a written page's, or in an incremental run a still-known page's
of an earlier run, is rejected as ``duplicate:content of URL`` (its links are still
followed). Links with ``user:password@`` are rejected (``userinfo``).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.http import Response
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.base import DelayedCall
from twisted.python.failure import Failure

from webmd_spider.crew import Crew, SoloCrew
from webmd_spider.extract import ExtractOptions
from webmd_spider.items import Row, diagnostic_row, page_row
from webmd_spider.offload.gc_tuning import GcState, restore_gc, tune_gc
from webmd_spider.offload.page_work import PageWork, extract_page
from webmd_spider.offload.pool import (
    ExtractionTimeout,
    ExtractPool,
    PoolClosed,
    default_processes,
)
from webmd_spider.options import (
    EXTRACT_AUTO,
    EXTRACT_TIMEOUT_DEFAULT,
    JobOptions,
    OptionsError,
    build_options,
)
from webmd_spider.page_flow import (
    DIAGNOSTIC,
    DUPLICATE,
    NOT_MODIFIED,
    SKIP,
    Answer,
    WebsiteView,
    canonical_duplicate,
    content_refusal,
    decide_answer,
)
from webmd_spider.policy.netguard import AddressPolicy
from webmd_spider.policy.politeness import MAX_REFUSALS_PER_SITE, parse_host_delay
from webmd_spider.policy.robots import RobotsRules
from webmd_spider.policy.traps import TrapDetector, TrapPolicy
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.rows.page_rows import (
    UNTYPED,
    build_page_row,
    classify_response,
    robots_directives,
)
from webmd_spider.run_context import ResumeClaims, RunContext, attach
from webmd_spider.run_context import site_stopped as site_stopped_signal
from webmd_spider.spiders.budgets import SiteBudgets
from webmd_spider.spiders.failures import classify_failure
from webmd_spider.spiders.incremental_state import (
    IncrementalState,
    state_name,
    validators_of,
)
from webmd_spider.spiders.responses import (
    charset_of,
    content_key,
    content_type_of,
    has_userinfo,
    location_of,
    loop_message,
    response_ms,
    robots_root,
    root_of,
    thin_loop_row,
)
from webmd_spider.spiders.sitemap_discovery import (
    ROBOTS_MAX_REDIRECTS,
    SitemapCallbacks,
    SitemapDiscovery,
)
from webmd_spider.spiders.startup import (
    call_later,
    discard_stale_queue,
    ensure_feed,
    quiet_asyncio_about,
    quiet_probe_failures,
    read_start_file,
    set_pace,
)
from webmd_spider.state.changes import NEW, REMOVED, UNCHANGED
from webmd_spider.state.completion import PageCompletion, done_key
from webmd_spider.state.journal import CrawlJournal, QueuedUrl
from webmd_spider.state.store import PageState
from webmd_spider.transport.downloader import SlotLimitedDownloader
from webmd_spider.transport.scheduler import TakesRequests
from webmd_spider.urls import (
    PatternError,
    StartInput,
    UrlFilter,
    canonicalize,
    compile_pattern,
    discovery_candidates,
    follow_rejection,
    parse_start_inputs,
    site_key,
    split_patterns,
)

logger = logging.getLogger(__name__)

PRIORITY_ROBOTS = 1000
#: After the time budget, downloads in flight get this long before the spider writes its
#: site rows and closes (the run must end within seconds of its budget).
STOP_GRACE_SECS = 3.0
#: A robots.txt retry is only worth it when the site then still has this long to crawl.
ROBOTS_RETRY_MARGIN_SECS = 10.0
#: Known pages (incremental state) queue behind every newly discovered page: re-checks
#: use what is left of the page budget and never keep a new page from being found.
KNOWN_PRIORITY_OFFSET = 1000
#: Link origins whose site key is remembered (see SiteSpider._site_of).
MAX_CACHED_ORIGINS = 4096
#: A website stopped for one of these writes nothing more: answers in flight are skipped
#: (counted as not fetched), except its refusals once it stopped as ``blocked``: a URL
#: the server refused (429/503) has its ``blocked`` row (see ``_page_rows``).
#: see SiteSpider._sitemap_outcome: after this many sitemap-listed pages without a real
#: page row (at most half the page budget), with under this share of them good, the
#: sitemaps' remaining pages are queued behind the links
#: pages whose links wait while the sitemaps are read (beyond: followed at once)
MAX_HELD_PAGES = 64
SITEMAP_JUNK_AFTER = 20
SITEMAP_GOOD_SHARE = 0.2
HARD_STOPS = frozenset({"page_budget", "failure_budget", "crawl_delay", "blocked"})

#: What an extraction process made of a page (see SiteSpider._extract_elsewhere).
Extracted = PageWork | ExtractionTimeout | PoolClosed | None


class SiteSpider(Spider):
    """Crawl one or more websites into page, site and diagnostic rows."""

    name = "site"

    def __init__(self, start: str | None = None, **kwargs: Any) -> None:
        # `start` must not reach Spider.__init__: it would replace the start() method.
        super().__init__()
        self._arguments: dict[str, Any] = dict(kwargs)
        if start is not None:
            self._arguments["start"] = start
        self.options = JobOptions()
        self.ledger = RunLedger()
        self.url_filter = UrlFilter.from_strings([], [])
        self.robots: dict[str, RobotsRules] = {}
        self.extract_options = ExtractOptions()
        self.chunk_budget: tuple[int, int] = (0, 0)  # (size, overlap) in characters
        #: robots.txt Crawl-delay per website, read by the politeness middleware
        self.crawl_delays: dict[str, float] = {}
        self.ssrf_policy = AddressPolicy.from_allowlist(None)
        self.traps = TrapDetector()  # calendar pages, session ids, endless query variants
        self._inputs: list[StartInput] = []
        self._startup_rows: list[Row] = []
        self._summary_written = False
        self._timer: DelayedCall | None = None
        self._gc_state: GcState | None = None
        self._robots_retries: set[DelayedCall] = set()
        self.incremental = IncrementalState()
        #: the JOBDIR resume journal (None without JOBDIR)
        self.journal: CrawlJournal | None = None
        self._run_id = uuid.uuid4().hex[:12]
        #: what the components of this crawl share (built at the end of _configure)
        self.context = RunContext()
        self._orphans_checked = False
        #: extraction worker processes (extract_processes > 0), else None
        self._extract_pool: ExtractPool | None = None
        #: a distributed crawl's shared state (None when WEBMD_REDIS_URL is not set)
        self.fleet: Any = None
        #: who shares the crawl: alone (SoloCrew), or the fleet of a distributed crawl
        self.crew: Crew = SoloCrew()
        #: websites whose octet-stream HTML pages were told about (_note_untyped)
        self._untyped_noted: set[str] = set()
        #: when a page is done, for the resume journal and the fleet (else None)
        self.completion: PageCompletion | None = None
        self.host_floor = 0.0  # the lower host_delay bound, for the fleet's shared gate
        self._heartbeat: Any = None
        #: websites whose queued requests were taken out at their stop (once each)
        self._purged: set[str] = set()
        self._deadline = float("inf")  # time.monotonic() of the time budget
        #: site keys of link origins (scheme://netloc/), see _site_of
        self._origins: dict[str, str] = {}
        #: pages out at an extraction process, per website (given up when it stops)
        self._extracting: dict[str, set[asyncio.Future[PageWork | None]]] = {}
        #: the site rows were written (``_emit_site_rows``)
        self._site_rows_written = False
        #: the time budget's grace is over: no row is written any more (the site rows
        #: follow at the close, after every row already made)
        self._closing = False
        #: sitemap reading (spiders/sitemap_discovery.py), built again in _configure
        self.discovery = self._new_discovery()
        #: the websites' page and failure budgets (spiders/budgets.py), the same
        self.budgets = self._new_budgets()

    # -- set-up ------------------------------------------------------------------
    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> Self:
        spider = super().from_crawler(crawler, *args, **kwargs)
        try:
            spider._configure(crawler)
        except OptionsError as exc:
            # Said once, plainly; Scrapy then exits non-zero (bootstrap failed). The
            # exception still has to propagate for that, and asyncio would print it
            # again with a traceback ("Task exception was never retrieved").
            logger.error("Cannot start the crawl: %s", exc)
            quiet_asyncio_about(exc)
            raise
        quiet_probe_failures()
        crawler.signals.connect(spider.site_stopped, signal=site_stopped_signal)
        crawler.signals.connect(spider._on_idle, signal=signals.spider_idle)
        crawler.signals.connect(spider._on_dropped, signal=signals.request_dropped)
        crawler.signals.connect(spider._on_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(spider._on_closed, signal=signals.spider_closed)
        return spider

    def _configure(self, crawler: Crawler) -> None:
        """Validate options and inputs; raise OptionsError when nothing can be fetched."""
        settings = crawler.settings
        self.options = opts = build_options(settings.copy_to_dict(), self._arguments)
        raw_inputs = list(opts.start)
        if opts.start_file:
            raw_inputs.extend(read_start_file(opts.start_file))
        self._inputs = parse_start_inputs(" ".join(raw_inputs))
        for bad in (i for i in self._inputs if i.kind == "invalid"):
            self._startup_rows.append(
                diagnostic_row("invalid-input", bad.error or "unusable start URL", input=bad.raw)
            )
        self.url_filter = self._compile_filter(opts)
        # a listing or product page (?id=N) legitimately has as many variants as the budget
        self.traps = TrapDetector(
            TrapPolicy(max_query_variants_per_path=max(50, 2 * opts.max_pages))
        )
        if not any(i.kind != "invalid" for i in self._inputs):
            problems = (
                "; ".join(f"{i.raw!r}: {i.error}" for i in self._inputs) or "no start URL given"
            )
            raise OptionsError(
                f"nothing to crawl ({problems}). Give -a start=URL (or a domain), "
                "-a start_file=PATH or -a input=job.json"
            )
        self.chunk_budget = opts.chunk_budget  # validated with the options
        self.extract_options = ExtractOptions(
            keep_links=opts.keep_links,
            keep_images=opts.keep_images,
            include_html=opts.include_html,
            max_chars=opts.max_chars,
            keep_frames=opts.keep_frames,
            keep_captions=opts.keep_captions,
        )
        jobdir = settings.get("JOBDIR")
        if jobdir:
            self.journal = CrawlJournal(jobdir)
            if self.journal.resumed and not self.journal.clean:
                discard_stale_queue(Path(jobdir))
            if self.journal.resumed:
                logger.info(
                    "Resuming from %s: %d page URLs done, %d queued before",
                    jobdir,
                    len(self.journal.done),
                    len(self.journal.queued),
                )
        try:
            self.ssrf_policy = AddressPolicy.from_allowlist(opts.ssrf_allowlist or None)
        except ValueError as exc:
            raise OptionsError(f"ssrf_allowlist: {exc}") from None
        try:
            low, high = parse_host_delay(opts.host_delay)
        except ValueError as exc:
            raise OptionsError(str(exc)) from None
        self.host_floor = low
        set_pace(settings, opts.max_concurrency, self._inputs, low, high)
        if opts.redis_url:
            self._configure_fleet(settings, opts)
        if self.journal is not None or self.fleet is not None:
            # a page is marked done (journal, in-flight list) only when its row is
            # written and its links are queued (webmd_spider.state.completion)
            self.completion = PageCompletion(self._page_done)
        ensure_feed(settings, opts.output_dir, self._inputs)
        processes = opts.extract_processes
        if processes == EXTRACT_AUTO:
            processes = default_processes()
        if processes:
            # started in start(), from the event loop; pages are extracted here until
            # its workers are ready
            # the default timeout is left to the pool: its EXTRACT_DEADLINE_SECS, the
            # same 30 s (a constant tests can lower)
            timeout = opts.extract_timeout_secs
            self._extract_pool = ExtractPool(
                processes,
                self.extract_options,
                self.chunk_budget,
                opts.gc_threshold,
                deadline=None if timeout == EXTRACT_TIMEOUT_DEFAULT else timeout,
            )
        # last: it takes the state's lock, which only spider_closed releases
        self.incremental = IncrementalState.open(
            opts, self._input_urls(), self.extract_options, self.ledger
        )
        manifest = Path(opts.out_dir) / ".webmd" / "manifest.json"
        if opts.out_dir and self.incremental.enabled and not manifest.exists():
            # a folder tree added to an existing incremental job: unchanged pages must
            # still be fetched whole and written once
            self.incremental.fill_tree = True

        self.discovery = self._new_discovery()
        self.budgets = self._new_budgets()
        self.context = RunContext(
            options=opts,
            ledger=self.ledger,
            robots=self.robots,
            crawl_delays=self.crawl_delays,
            host_floor=self.host_floor,
            ssrf_policy=self.ssrf_policy,
            claims=ResumeClaims(self.journal, self._run_id),
            completion=self.completion,
            fleet=self.fleet,
        )
        attach(crawler, self.context)

    def _new_budgets(self) -> SiteBudgets:
        return SiteBudgets(self.options, self.ledger, self.crew, self._run_id, self._stop_site)

    def _new_discovery(self) -> SitemapDiscovery:
        return SitemapDiscovery(
            self.ledger,
            self.options,
            SitemapCallbacks(
                self.parse_sitemap,
                self.sitemap_failed,
                self.parse_sitemap_host_robots,
                self.sitemap_host_robots_failed,
            ),
            self._schedule,
            self._robots_allows,
            self._follow_held_links,
            crawler=getattr(self, "crawler", None),  # set by from_crawler, before _configure
            crew=self.crew,
        )

    # -- sitemap callbacks: spider methods, which a JOBDIR queue stores by name ----------
    def parse_sitemap(self, response: Response) -> Iterator[Any]:
        return self.discovery.parse_sitemap(response)

    def sitemap_failed(self, failure: Failure) -> Iterator[Any]:
        return self.discovery.sitemap_failed(failure)

    def parse_sitemap_host_robots(self, response: Response) -> Iterator[Any]:
        return self.discovery.parse_sitemap_host_robots(response)

    def sitemap_host_robots_failed(self, failure: Failure) -> Iterator[Any]:
        return self.discovery.sitemap_host_robots_failed(failure)

    def _input_urls(self) -> list[str]:
        """The usable start URLs (what names this job's state and distributed crawl)."""
        return [i.url for i in self._inputs if i.url and i.kind != "invalid"]

    def _configure_fleet(self, settings: Any, opts: JobOptions) -> None:
        """WEBMD_REDIS_URL: join a distributed crawl (see ``webmd_spider.distributed``)."""
        try:
            from webmd_spider import distributed
        except ImportError as exc:
            raise OptionsError(
                f"redis_url needs scrapy-redis: pip install 'webmd-spider[distributed]' ({exc})"
            ) from None
        name = state_name(opts, self._input_urls())
        try:
            self.fleet = self.crew = distributed.Fleet(opts.redis_url, name)
        except Exception as exc:  # redis-py raises its own ConnectionError family
            raise OptionsError(f"redis_url: cannot reach {opts.redis_url!r}: {exc}") from None
        distributed.configure(settings, opts.redis_url, name)
        logger.info(
            "Distributed crawl %r on %s (worker %s)", name, opts.redis_url, self.fleet.worker
        )

    def _compile_filter(self, opts: JobOptions) -> UrlFilter:
        """Compile each pattern; one that does not compile is a row, the others still apply."""
        kept: dict[str, list[str]] = {"include": [], "exclude": []}
        for kind, values in (
            ("include", opts.include_patterns),
            ("exclude", opts.exclude_patterns),
        ):
            for pattern in (p for value in values for p in split_patterns(value)):
                try:
                    compile_pattern(pattern)
                except PatternError as exc:
                    self._startup_rows.append(
                        diagnostic_row("invalid-input", str(exc), input=pattern)
                    )
                else:
                    kept[kind].append(pattern)
        return UrlFilter.from_strings(kept["include"], kept["exclude"])

    # -- start -------------------------------------------------------------------
    async def start(self) -> AsyncIterator[Any]:
        """Yield start-up diagnostics, then one robots.txt probe per website."""
        budget = self.options.max_run_secs
        if self.fleet is not None:
            seeder = self.fleet.join()
            logger.info("Worker %s %s", self.fleet.worker, "seeds the crawl" if seeder else "joins")
            budget = max(1.0, budget - self.fleet.elapsed())  # per crawl, not per worker
            from twisted.internet.task import LoopingCall

            from webmd_spider.distributed import HEARTBEAT_SECS

            self._heartbeat = LoopingCall(self.fleet.keep_alive)
            self._heartbeat.start(HEARTBEAT_SECS, now=False)
        self._timer = call_later(budget, self._on_time_budget)
        self._deadline = time.monotonic() + budget
        # everything of the start-up is alive now: frozen, not scanned until the close
        self._gc_state = tune_gc(self.options.gc_threshold)
        self._start_extract_pool()
        for row in self._startup_rows:
            yield self._row(row)
        for site, candidates, pages in self._plan_websites():
            yield self._robots_request(site, candidates, pages)

    def _start_extract_pool(self) -> None:
        """Start the extraction processes now: they get ready while robots.txt and the
        sitemaps are read (pages that come before are extracted here)."""
        if self._extract_pool is None:
            return
        try:
            self._extract_pool.start()
        except RuntimeError as exc:  # no running asyncio loop (another reactor)
            logger.warning("extraction processes need the asyncio reactor (%s)", exc)
            self._extract_pool = None

    def _plan_websites(self) -> Iterator[tuple[SiteState, list[str], list[StartInput]]]:
        """Group the valid inputs by website: (state, root candidates, page inputs)."""
        groups: dict[str, list[StartInput]] = {}
        for item in self._inputs:
            if item.url is not None and item.kind != "invalid":
                groups.setdefault(site_key(item.url), []).append(item)
        for key, items in groups.items():
            whole = [i for i in items if i.kind in ("domain", "root")]
            pages = [i for i in items if i.kind == "page"]
            first = whole[0] if whole else items[0]
            assert first.url is not None
            if first.kind == "domain":
                candidates = discovery_candidates(first.url)
            else:
                candidates = [root_of(first.url)]
            mode, discovery = ("site", "links") if whole else ("list", "list")
            site = SiteState(key, first.raw, mode, root=candidates[0], discovery=discovery)
            yield self.ledger.add_site(site), candidates, pages

    # -- robots.txt ------------------------------------------------------------------
    def _robots_request(
        self, site: SiteState, candidates: list[str], pages: list[StartInput]
    ) -> Request:
        return Request(
            candidates[0] + "robots.txt",
            callback=self.parse_robots,
            errback=self.robots_failed,
            dont_filter=True,
            priority=PRIORITY_ROBOTS,
            # uncompressed, so that a file past the parse limit is cut on the wire: a
            # compressed one may inflate only to DOWNLOAD_MAXSIZE (then `too-large`)
            headers={"Accept-Encoding": "identity"},
            meta={
                "webmd_site": site.website,
                "webmd_kind": "robots",
                "webmd_candidates": candidates,
                "webmd_pages": pages,
                "download_slot": site.website,
                # RFC 9309 §2.3.1.2: follow at least five consecutive redirects
                "redirect_ttl": ROBOTS_MAX_REDIRECTS,
                # the body is cut at MAX_ROBOTS_BYTES (extensions/robots_body.py): no warning
                # for a large one
                "download_warnsize": 0,
            },
        )

    def parse_robots(self, response: Response) -> Iterator[Any]:
        """robots.txt answered: record the rules and the site root, then begin the site."""
        site = self.ledger.sites[response.meta["webmd_site"]]
        pages: list[StartInput] = response.meta["webmd_pages"]
        site.root = robots_root(site.website, response)
        if self.options.respect_robots:
            rules = RobotsRules.from_response(
                response.status, response.body, self.options.robots_token
            )
        else:
            rules = RobotsRules.allow_all()
        if rules.policy == "disallow-all":
            # RFC 9309 §2.3.1.4: an unreachable robots.txt (5xx) means complete disallow,
            # for now: it is asked again once later in the run.
            why = f"HTTP {response.status}"
            if self._retry_robots_later(site, site.root + "robots.txt", pages, why):
                return
            site.stop_reason = "robots_unavailable"
            message = (
                f"robots.txt answered HTTP {response.status}; RFC 9309 treats the whole "
                "website as disallowed until it answers"
            )
            yield from self._fail_site(
                site, response.url, pages, "blocked", message, response.status
            )
            return
        yield from self._begin_site(site, rules, pages)

    def _begin_site(
        self, site: SiteState, rules: RobotsRules, pages: list[StartInput]
    ) -> Iterator[Any]:
        """Robots rules known: schedule the typed pages and start discovery."""
        self.robots[site.website] = rules
        yield from self._apply_crawl_delay(site, rules)
        if self.journal is not None and self.journal.resumed:
            yield from self._resume_site(site)
        if not self.crew.seeder:
            return  # another worker discovers; this one takes pages from the shared queue
        for page in pages:
            assert page.url is not None
            yield from self._schedule(site, page.url, 0, "input", typed=True)
        if site.mode != "site":
            return
        # A whole website (issue 16 item 2, as the crawl modes of the products we
        # replace): the start page first, then the sitemaps' URLs (ahead of links in the
        # queue: depth 0), then links breadth-first (priority -depth) to fill the gaps.
        assert site.root is not None
        yield from self._schedule(site, site.root, 0, "input", typed=True)
        if self.options.discovery == "links":
            site.discovery = "links"
            return
        if (
            self.options.discovery == "sitemaps+links"
            and self.completion is None
            and not self.incremental.enabled
        ):
            # Links found before the sitemaps are read wait for them (_follow_links), so
            # that a page both list is a sitemap page (depth 0). Not in a resumable or
            # distributed crawl: a page is done there once its links are queued, and a
            # link held past a kill would be lost. Not in an incremental run: its known
            # pages are queued at once (behind new ones) and would take the budget from
            # the new links held. Either way sitemap URLs still go ahead of links in
            # the queue (priority 0 against -depth).
            site.held_links = []
        yield from self.discovery.start(site, rules.sitemaps())

    def _apply_crawl_delay(self, site: SiteState, rules: RobotsRules) -> Iterator[Row]:
        """Crawl-delay (not in RFC 9309, widely used) becomes the website's minimum
        interval; one over max_crawl_delay allows a single page, with a diagnostic."""
        delay = rules.crawl_delay()
        if not delay:
            return
        limit = self.options.max_crawl_delay
        self.crawl_delays[site.website] = min(delay, limit)
        if delay > limit:
            site.page_limit = 1
            message = (
                f"robots.txt asks for {delay:g} s between requests (max_crawl_delay is "
                f"{limit:g} s): one page is fetched, the rest of the website is skipped"
            )
            logger.warning("%s: %s", site.website, message)
            self.ledger.warn(f"{site.website}: {message}")
            yield self._row(
                diagnostic_row(
                    "blocked", message, input=site.input, website=site.website, url=site.root
                )
            )

    def robots_failed(self, failure: Failure) -> Iterator[Any]:
        """robots.txt fetch failed: try the next ladder candidate, else report the site."""
        request = failure.request  # type: ignore[attr-defined]
        site = self.ledger.sites[request.meta["webmd_site"]]
        pages: list[StartInput] = request.meta["webmd_pages"]
        if request.meta.get("webmd_rejected"):
            for page in pages:
                self.ledger.skip(page.url or page.raw, request.meta["webmd_rejected"], site.website)
            return
        error_type, message = self._classify(failure)
        if error_type == "http-error" and "redirects" in message:
            # RFC 9309 §2.3.1.2: past five redirects the file may be taken as unavailable,
            # which §2.3.1.3 treats like a 4xx: everything is allowed.
            site.root = root_of(request.meta.get("redirect_urls", [request.url])[0])
            yield from self._begin_site(
                site, RobotsRules.allow_all(self.options.robots_token), pages
            )
            return
        candidates: list[str] = request.meta["webmd_candidates"][1:]
        if candidates:
            yield self._robots_request(site, candidates, pages)
            return
        if error_type in ("unreachable", "timeout") and self._retry_robots_later(
            site, request.url, pages, message
        ):
            return
        site.stop_reason = "unreachable"
        yield from self._fail_site(
            site, request.url, pages, error_type, f"could not reach the website: {message}"
        )

    def _classify(self, failure: Failure) -> tuple[str, str]:
        """classify_failure, plus the SSRF resolver's refusals: Twisted reports a
        refused name only as a failed lookup, the resolver records why in the stats."""
        error_type, message = classify_failure(failure)
        if error_type == "unreachable":
            host = (urlsplit(failure.request.url).hostname or "").rstrip(".")  # type: ignore[attr-defined]
            reason = self.crawler.stats.get_value(f"webmd/ssrf_refused/{host}")
            if reason:
                return "blocked", f"refused by the SSRF guard: {reason}"
        return error_type, message

    def _retry_robots_later(
        self, site: SiteState, robots_url: str, pages: list[StartInput], why: str
    ) -> bool:
        """Ask an unavailable robots.txt once more later in the run (RFC 9309 §2.3.1.4:
        disallow all while unreachable); False when that does not fit the budget."""
        wait = self.options.robots_retry_secs
        remaining = self.options.max_run_secs - self.ledger.elapsed()
        if site.robots_retries >= 1 or wait <= 0 or wait + ROBOTS_RETRY_MARGIN_SECS > remaining:
            return False
        site.robots_retries += 1
        root = root_of(robots_url)
        message = f"{site.website}: robots.txt unavailable ({why}); asking again in {wait:g} s"
        logger.warning(message)
        self.ledger.warn(message)

        def again() -> None:
            self._robots_retries.discard(timer)
            self.crawler.engine.crawl(self._robots_request(site, [root], pages))

        timer = call_later(wait, again)
        self._robots_retries.add(timer)
        return True

    def _fail_site(
        self,
        site: SiteState,
        url: str,
        pages: list[StartInput],
        error_type: str,
        message: str,
        status: int | None = None,
    ) -> Iterator[Row]:
        """One diagnostic for the website and one for each page the user typed on it."""
        yield self._row(
            diagnostic_row(
                error_type,
                message,
                input=site.input,
                website=site.website,
                url=url,
                status_code=status,
            )
        )
        for page in pages:
            yield self._row(
                diagnostic_row(
                    error_type,
                    message,
                    input=page.raw,
                    website=site.website,
                    url=page.url,
                    depth=0,
                    discovered_via="input",
                )
            )

    # -- pages -----------------------------------------------------------------------
    def _schedule(
        self,
        site: SiteState,
        url: str,
        depth: int,
        via: str,
        typed: bool = False,
        walk: deque[tuple[PageState, int]] | None = None,
    ) -> Iterator[Any]:
        """Yield a page request unless the URL is known, out of scope or refused.

        ``typed`` marks URLs the user gave (or the site root): include/exclude patterns
        never apply to them, and a robots refusal is a ``blocked`` row, not only a count.
        """
        if url in site.seen_raw:  # navigation links repeat on every page: skip cheaply
            return
        canonical = canonicalize(url)
        if canonical in site.seen:
            site.seen_raw.add(url)
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
            reason = follow_rejection(url) if via == "link" else None
            reason = reason or self.url_filter.rejection(url) or self.traps.refusal(url)
            if reason is None and "@" in url and has_userinfo(url):
                reason = "userinfo"  # user:password@ in a found link: not followed
            if reason:
                self.ledger.reject(url, reason, site.website)
                return
        if not self._robots_allows(site, url):
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
                yield self._row(row)
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
            yield self._page_request(site, url, canonical, depth, via, counted=via != "sitemap")
            return
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
        yield self._page_request(
            site,
            url,
            canonical,
            depth,
            via if typed else "state",
            priority=-depth - KNOWN_PRIORITY_OFFSET,
            validators=validators,
            counted=False,  # known pages: bounded by the state, queued behind new ones
        )
        if stored is None or not (site.mode == "site" or self.options.crawl_links):
            return
        # Walk on through the links stored last time right away, breadth-first (so
        # depths are the shortest ones): pages new since then are found, and fetched
        # first, without waiting for the re-checks.
        if walk is not None:
            walk.append((stored, depth))
            return
        walk = deque([(stored, depth)])
        while walk:
            state, at = walk.popleft()
            for link in state.links:
                if site_key(link) == site.website:
                    yield from self._schedule(site, link, at + 1, "link", walk=walk)

    def _page_request(
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
    ) -> Request:
        """The request of one page; journaled for resume when JOBDIR is set. A
        ``counted`` request is in ``site.queued`` until it finishes (``_release``)."""
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
            meta["webmd_queued"] = self._run_id
            site.queued += 1
        if validators is not None:
            meta["webmd_validators"] = validators
        if self.journal is not None:
            meta["webmd_claim"] = self.context.claims.new_claim()
            if not resumed:
                self.journal.queue(QueuedUrl(canonical, url, depth, via, site.website))
        if priority is None:
            priority = -depth
            if via == "sitemap" and site.sitemap_abandoned:
                priority = self._demoted_priority()  # junk sitemaps: behind the links
        return Request(
            url,
            callback=self.parse_page,
            errback=self.page_failed,
            priority=priority,
            dont_filter=resumed,
            meta=meta,
        )

    def _resume_site(self, site: SiteState) -> Iterator[Any]:
        """JOBDIR resume: what earlier runs queued is known, what they finished is not
        fetched again, and what they left pending is scheduled again (Scrapy's own queue
        does not survive a kill; see ``journal``)."""
        assert self.journal is not None
        for canonical, queued in self.journal.queued.items():
            if queued.website == site.website:
                site.seen.add(canonical)
                site.seen_raw.add(queued.url)
                if canonical in self.journal.done:
                    site.emitted.add(canonical)
                    # issue 16 item 4: /index.html was written again after a resume as a
                    # copy of / (same content_hash), the duplicate check had forgotten /
                    self._remember_content(site, self.journal.content.get(canonical), canonical)
                    if self.journal.done[canonical] == "diagnostic":
                        site.misses += 1  # the failure budget spans the resumed runs
        site.resumed_pages = self.journal.done_pages(site.website)
        pending = self.journal.pending(site.website)
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
            yield self._page_request(
                site,
                queued.url,
                queued.canonical,
                queued.depth,
                queued.via,
                priority=-queued.depth,
                resumed=True,
            )

    def _stop_site(self, site: SiteState, reason: str) -> None:
        site.stop_reason = reason
        self.site_stopped(site.website)

    def site_stopped(self, website: str) -> None:
        """A website stopped (its budgets, or a refusal decided elsewhere: the budget and
        politeness middlewares send the ``run_context.site_stopped`` signal): its
        requests still waiting in the scheduler's memory queue and in its download slot
        are taken out at once, on the next turn of the event loop (not from inside the
        callback or middleware that stopped it)."""
        if website in self._purged:
            return
        self._purged.add(website)
        for future in self._extracting.pop(website, ()):
            future.cancel()
        call_later(0, partial(self._purge, website))

    def _purge(self, website: str | None, reason: str | None = None) -> int:
        """Take out of the scheduler's memory queue and the download slots the page
        requests of ``website`` (None: of every website), counting each as not fetched;
        for None, every waiting download (of any kind) is failed as well."""
        site = self.ledger.sites.get(website) if website is not None else None
        reason = reason or (site.stop_reason if site is not None else None)
        if reason is None or self.crawler.engine is None:
            return 0
        count = self._purge_scheduler(reason, website)
        count += self._drain_download_queues(reason, website)
        if count:
            logger.info(
                "%s: %d queued requests dropped (%s)", website or "every website", count, reason
            )
        return count

    def _purge_scheduler(self, reason: str, website: str | None) -> int:
        """Page requests in the scheduler's memory queues, taken out at once
        (``transport.scheduler``). A JOBDIR's disk queue (it must stay resumable) and a
        distributed crawl's shared queue (the other workers' too) are left alone: the
        budget middleware refuses what comes out."""

        def wanted(meta: dict[str, Any]) -> bool:
            return (
                meta.get("webmd_kind") == "page"
                and website in (None, meta["webmd_site"])
                # a retry of a refused URL goes on to its errback (a blocked row)
                and not (reason == "blocked" and bool(meta.get("webmd_refusals")))
            )

        taken = self._take_queued(wanted)
        for request in taken:
            self._not_fetched(request, reason)
        return len(taken)

    def _take_queued(self, wanted: Callable[[dict[str, Any]], bool]) -> list[Request]:
        """The requests waiting in the scheduler whose meta is ``wanted``, taken out."""
        scheduler = self.crawler.engine.scheduler if self.crawler.engine else None
        return scheduler.take(wanted) if isinstance(scheduler, TakesRequests) else []

    def _not_fetched(self, request: Request, reason: str) -> None:
        """Count a request taken out before its download (as BudgetMiddleware does)."""
        meta = request.meta
        meta["webmd_rejected"] = reason
        self.budgets.release(meta)
        self.ledger.skip(request.url, reason, meta.get("webmd_site"))
        self.crawler.stats.inc_value(f"webmd/not_fetched/{reason}")

    def _robots_allows(self, site: SiteState, url: str) -> bool:
        rules = self.robots.get(site.website)
        if rules is None or rules.allowed(url):
            return True
        site.robots_blocked += 1
        self.crew.count_row(site.website, {"robots_blocked": 1})
        self.ledger.reject(url, "robots", site.website)
        return False

    async def parse_page(self, response: Response) -> AsyncIterator[Any]:
        """A page answered: write its row and follow its links. With extraction
        processes, the page is converted in one of them first (off Scrapy's thread);
        every decision about the page is still taken here, after that."""
        self.budgets.release(response.meta)
        work = None
        if self._extract_pool is not None and self._needs_extraction(response):
            work = await self._extract_elsewhere(response)
        completion = self.completion
        if completion is None:
            for output in self._page_rows(response, work):
                yield output
                if self._closing:
                    break  # the run is closing: the rest of its links are not wanted
            return
        # Done when this output is read to its end, its rows are written and its page
        # requests are queued: not before (see webmd_spider.state.completion).
        key = canonicalize(response.meta["webmd_url"])
        completion.hold(key)
        try:
            for output in self._page_rows(response, work):
                if isinstance(output, Row):
                    row_key = done_key(output)
                    if row_key is not None:
                        completion.hold(row_key)
                elif (
                    self.crew.shared
                    and isinstance(output, Request)
                    and output.meta.get("webmd_kind") == "page"
                ):
                    # released by FleetScheduler once the request is in Redis
                    output.meta["webmd_parent"] = key
                    completion.hold(key)
                yield output
                if self._closing:
                    break  # the run is closing: the rest of its links are not wanted
        finally:
            completion.release(key)

    def _needs_extraction(self, response: Response) -> bool:
        """The cheap checks of ``_page_rows`` that come before extraction, so that no
        page is sent to a worker for nothing. ``_page_rows`` takes them again after the
        await, where they decide: meanwhile the page budget may have been reached, or
        another URL of the same page written."""
        meta = response.meta
        if meta.get("webmd_refused") or response.status == 304:
            return False
        site = self.ledger.sites.get(meta.get("webmd_site", ""))
        if site is None or self._stopped(site) is not None:
            return False
        problem = classify_response(
            response.status, content_type_of(response), response.body, location_of(response)
        )
        return problem is None and canonicalize(response.url) not in site.emitted

    async def _extract_elsewhere(self, response: Response) -> Extracted:
        """The page converted by an extraction process (``ExtractPool.extract``: a page
        of ``WAIT_FOR_WORKER_BYTES`` or more waits for a worker, starting or busy,
        instead of being converted here, where a hostile one would hold the event loop
        for minutes). Returns the ``PageWork``; or None: extract the page here (a small
        page no worker can take now, no worker left, the page failed in its worker) or,
        when its website stopped meanwhile, skip it (``site_stopped`` gives up the pages
        still out, so that the run does not wait for conversions it will throw away);
        or the exception that ``_page_rows`` turns into what the page gets: an
        ``ExtractionTimeout`` (an ``extraction-timeout`` row; the page is not converted
        here either) or ``PoolClosed`` (the run is ending: not written)."""
        pool = self._extract_pool
        assert pool is not None
        # a task of its own, which site_stopped can cancel without touching Scrapy's
        task = asyncio.ensure_future(
            pool.extract(response.body, response.url, charset_of(response))
        )
        website = response.meta["webmd_site"]
        out = self._extracting.setdefault(website, set())
        out.add(task)
        try:
            return await task
        except ExtractionTimeout as exc:
            self.crawler.stats.inc_value("webmd/extraction_timeouts")
            return exc
        except PoolClosed as exc:
            return exc
        except asyncio.CancelledError:
            site = self.ledger.sites.get(website)
            if site is not None and self._stopped(site) is not None:
                return None  # given up by site_stopped: _page_rows skips the page
            raise
        finally:
            out.discard(task)

    def _page_rows(self, response: Response, work: Extracted = None) -> Iterator[Any]:
        meta = response.meta
        site = self.ledger.sites[meta["webmd_site"]]
        content_type = content_type_of(response)
        final = canonicalize(response.url)
        loop = loop_message(meta, response.url) if meta.get("webmd_redirect_loop") else None
        answer = Answer(
            url=response.url,
            status=response.status,
            content_type=content_type,
            body=response.body,
            location=location_of(response),
            refused=meta.get("webmd_refused"),
            conditional=bool(meta.get("webmd_conditional")),
            redirected=bool(meta.get("redirect_urls")),
            redirect_loop=loop,
        )
        view = WebsiteView(
            stopped=self._stopped(site),
            past_grace=self._past_grace(),
            run_stop_reason=self.ledger.stop_reason,
            written=final in site.emitted,
            pool_closed=isinstance(work, PoolClosed),
            timeout_secs=work.seconds if isinstance(work, ExtractionTimeout) else None,
        )
        outcome = decide_answer(answer, view)
        if outcome.kind == SKIP:
            self.ledger.skip(response.url, outcome.message or "", site.website)
            return
        common = self._row_context(site, meta)
        key = canonicalize(meta["webmd_url"])
        if outcome.kind == NOT_MODIFIED:
            yield from self._not_modified(site, response, common, key)
            return
        served = (content_type or "").split(";")[0].strip().lower()
        untyped = outcome.html and served in UNTYPED
        if untyped:
            self._note_untyped(site, response.url, served)
        if outcome.kind == DUPLICATE:
            self._duplicate(site, meta, key, outcome.message or "")
            return
        if outcome.kind == DIAGNOSTIC:
            if outcome.mark_written:
                site.emitted.add(final)  # another URL of this page is not converted again
            row = diagnostic_row(
                outcome.error_type or "", outcome.message or "", **common,
                status_code=response.status,
            )  # fmt: skip
            if outcome.gone and key in self.incremental.known(site.website):
                row.change = REMOVED  # a tombstone: the page is gone and leaves the state
                self.incremental.forget(key, site.website)
            self._row(row)
            self.budgets.missed(site)
            yield row
            return
        if isinstance(work, PageWork):
            self.crawler.stats.inc_value("webmd/extractions_in_workers")
        else:  # the same work as an extraction process's (offload.page_work), done here
            work = extract_page(
                response.body, response.url, charset_of(response), self.extract_options,
                *self.chunk_budget,
            )  # fmt: skip
        doc, columns, chunks = work.document, work.columns, work.chunks
        self.crawler.stats.inc_value("webmd/extractions")
        headers = response.headers.getlist(b"X-Robots-Tag")
        x_robots = "\n".join(h.decode("latin-1") for h in headers) or None
        token = self.options.robots_token
        directives = robots_directives(doc.meta_robots, x_robots, token=token)
        if canonical_duplicate(doc.canonical, site.website, final, site.emitted, site.declared):
            # Not written again, but its links are still followed: paginated lists and
            # sites that point every page's canonical at the home page hide the rest.
            self._duplicate(site, meta, key, f"canonical is {doc.canonical}")
            yield from self._follow_links(site, doc, directives, meta["webmd_depth"])
            return
        refusal = content_refusal(directives, doc.word_count, doc.title, response.body)
        if refusal is not None:
            site.emitted.add(final)
            row = self._row(diagnostic_row(*refusal, **common, status_code=response.status))
            self.budgets.missed(site)
            yield row
            return
        row = build_page_row(
            doc,
            columns,
            **common,
            final_url=response.url,
            status_code=response.status,
            content_type=content_type,
            response_time_ms=response_ms(meta),
            sitemap_lastmod=site.lastmod.get(key),
        )
        if untyped and row.row_type == "page":
            row.notes = [f"served as {served}; the body is an HTML document, read as HTML"]
        if meta.get("webmd_redirect_loop") and row.row_type == "page" and row.thin:
            # a page refreshing (meta refresh) in a loop with next to no text of its own
            # ("moved"): a redirect stub, not a page (and no content to deduplicate)
            row = thin_loop_row(row)
        if row.row_type == "page":
            # same content as a page written (a soft 404, /a/ and /a/index.html): not
            # written again; its links are followed like a canonical duplicate's (the
            # failure budget bounds a soft-404 maze that links ever new URLs)
            earlier = self._content_duplicate(site, row.content_hash, meta, final)
            if earlier is not None:
                self._duplicate(site, meta, key, f"content of {earlier}")
                yield from self._follow_links(site, doc, directives, meta["webmd_depth"])
                return
            if not self.budgets.claim_page(site, response.url):
                return
        if chunks is not None and row.row_type == "page":
            row.chunks, row.chunk_count = chunks, len(chunks)
        site.emitted.add(final)
        if row.row_type == "page" and self.incremental.enabled:
            nofollow = doc.nofollow or bool(directives & {"nofollow", "none"})
            self._compare_with_state(site, row, doc, response, key, nofollow)
        elif row.row_type == "page" and self.incremental.requested:
            row.change = NEW  # the state is unusable: every page is new (see the warning)
        if row.row_type == "page":
            row.noindex = bool(directives & {"noindex", "none"})
            self._remember_content(site, row.content_hash, final)
            if doc.canonical and site_key(doc.canonical) == site.website:
                # A later page declaring the same canonical URL is a duplicate. The URL
                # itself is not marked as seen or written: nothing was fetched there, and
                # a page may name any other page (when it was a true copy of this one,
                # its content hash says so once it is fetched).
                canonical = canonicalize(doc.canonical)
                if canonical != final:
                    site.declared.add(canonical)
        if row.row_type != "page" and meta.get("webmd_redirect_loop"):
            # a page refreshing (meta refresh) in a loop, too thin to be a page
            row.error = f"{loop_message(meta, response.url)}; {row.error}"
        self._row(row)  # counted before it is handed on: the budgets act at once
        if row.row_type != "page":
            self.budgets.missed(site)
            yield row
            return
        if row.chunks is not None and row.markdown:
            # the chunks the row carries (an unchanged page's were dropped with its text)
            self.crawler.stats.inc_value("webmd/chunks", len(row.chunks))
        self.budgets.check_page_budget(site)
        yield row
        yield from self._follow_links(site, doc, directives, meta["webmd_depth"])

    def _stopped(self, site: SiteState) -> str | None:
        """Why an answer of this website must not be written now, or None: the website
        stopped for good (HARD_STOPS), or the run is past its time budget's grace (read
        on the clock too: a callback that held the event loop delays the timer)."""
        if site.stop_reason in HARD_STOPS:
            return site.stop_reason
        if self._past_grace():
            return self.ledger.stop_reason or "time_budget"
        return None

    def _past_grace(self) -> bool:
        """The run is past its time budget's grace: no row is made any more."""
        return self._closing or time.monotonic() >= self._deadline + STOP_GRACE_SECS

    def _duplicate(self, site: SiteState, meta: dict[str, Any], key: str, what: str) -> None:
        """A fetched page is not written: it duplicates a page written (``what``)."""
        self.ledger.reject(meta["webmd_url"], f"duplicate:{what}", site.website)
        self._finished_without_row(key)
        self.budgets.missed(site)
        if meta.get("webmd_via") == "sitemap":
            self._sitemap_outcome(site, good=False)

    def _sitemap_outcome(self, site: SiteState, good: bool) -> None:
        """A page the sitemaps listed was fetched: a real page row (``good``), or no row,
        a diagnostic or a thin page. When the sitemaps keep giving junk
        (SITEMAP_JUNK_AFTER outcomes, under SITEMAP_GOOD_SHARE of them good), their pages
        still waiting go behind the links (issue 16 item 2: a sitemap of junk must not
        spend the website's budgets before links from real pages are tried)."""
        if good:
            site.sitemap_good += 1
            return
        site.sitemap_junk += 1
        after = min(SITEMAP_JUNK_AFTER, max(1, self.options.max_pages // 2))
        outcomes = site.sitemap_good + site.sitemap_junk
        if (
            site.sitemap_abandoned
            or site.sitemap_junk < after
            or site.sitemap_good >= SITEMAP_GOOD_SHARE * outcomes
        ):
            return
        site.sitemap_abandoned = True
        message = (
            f"{site.website}: {site.sitemap_junk} of the first {outcomes} pages the sitemaps "
            "list gave no page row or a thin one: the rest of them go behind the links"
        )
        logger.warning(message)
        self.ledger.warn(message)
        call_later(0, partial(self._demote_sitemap_pages, site.website))

    def _demote_sitemap_pages(self, website: str) -> None:
        """Queue the sitemap-listed page requests of ``website`` still in Scrapy's
        memory queue again, behind every link (priority below the deepest link's). A
        JOBDIR's disk queue and a distributed crawl's shared queue are left as they are
        (new sitemap pages are still queued behind the links: ``_page_request``)."""
        if self.crawler.engine is None:
            return
        low = self._demoted_priority()
        taken = self._take_queued(
            lambda meta: meta.get("webmd_site") == website and meta.get("webmd_via") == "sitemap"
        )
        for request in taken:
            self.crawler.engine.crawl(request.replace(priority=low, dont_filter=True))
        if taken:
            logger.info("%s: %d sitemap pages queued behind the links", website, len(taken))

    def _demoted_priority(self) -> int:
        return -(self.options.max_depth + 1)

    def _content_duplicate(
        self, site: SiteState, content_hash: str | None, meta: dict[str, Any], final: str
    ) -> str | None:
        """The URL of the page written with this content hash, or None. A URL the user
        typed always gets its row (as patterns never apply to it): only discovered pages
        are checked. An incremental run also checks the pages earlier runs wrote (still
        known), so the same one of two copies is kept run after run: a new copy found
        before the known one is re-checked (known pages queue last) is not written."""
        digest = content_key(content_hash)
        if digest is None or meta["webmd_via"] == "input":
            return None
        earlier = site.content.get(digest)
        if earlier is None and self.incremental.enabled:
            stored = self.incremental.stored_content(site).get(digest)
            if (
                stored is not None
                and stored != final
                and stored in self.incremental.known(site.website)
                and stored != canonicalize(meta["webmd_url"])
            ):
                earlier = stored
        return earlier

    def _remember_content(self, site: SiteState, content_hash: str | None, url: str) -> None:
        """A page row is written: its content hash (128 bits) is kept, with its
        canonical URL (the string ``site.emitted`` holds already)."""
        digest = content_key(content_hash)
        if digest is not None:
            site.content.setdefault(digest, url)

    def _compare_with_state(
        self, site: SiteState, row: Row, doc: Any, response: Response, key: str, nofollow: bool
    ) -> None:
        """The row's ``change`` against the stored page, and the page stored as it is now
        (``IncrementalState.compare``)."""
        links = [] if nofollow else [u for u in doc.page_links if self._site_of(u) == site.website]
        final_key = canonicalize(response.url)
        validators = validators_of(response.headers)
        self.incremental.compare(site.website, row, key, final_key, links, validators)

    def _not_modified(
        self, site: SiteState, response: Response, common: dict[str, Any], key: str
    ) -> Iterator[Row]:
        """A 304 to our conditional request: an ``unchanged`` row, no extraction. The
        page's links were already followed from the state when it was scheduled."""
        stored = self.incremental.lookup(key)
        content_hash = stored.content_hash if stored is not None else None
        final = canonicalize(response.url)
        earlier = self._content_duplicate(site, content_hash, response.meta, final)
        if earlier is not None:
            self._duplicate(site, response.meta, key, f"content of {earlier}")
            return
        if not self.budgets.claim_page(site, response.url):
            return
        self.incremental.record(
            key, site.website, None, validators_of(response.headers), previous=stored
        )
        site.emitted.add(final)
        self._remember_content(site, content_hash, final)
        row = page_row(
            **common,
            final_url=response.url,
            status_code=response.status,
            response_time_ms=response_ms(response.meta),
            content_hash=content_hash,
            change=UNCHANGED,
        )
        self._row(row)
        self.budgets.check_page_budget(site)
        yield row

    def _follow_links(
        self, site: SiteState, doc: Any, directives: set[str], depth: int
    ) -> Iterator[Any]:
        """Schedule the page's same-website links unless the page says nofollow."""
        nofollow = doc.nofollow or bool(directives & {"nofollow", "none"})
        if not (site.mode == "site" or self.options.crawl_links):
            return
        if site.mode == "site" and self.options.discovery == "sitemaps":
            return  # the sitemaps' URLs only
        if doc.nofollow_links:
            # rel="nofollow" links: discovered, refused (README: every discovered URL
            # ends as a row or a counted rejection)
            self.ledger.rejected_counts["nofollow"] += doc.nofollow_links
        held = site.held_links
        if held is not None and len(held) < MAX_HELD_PAGES:
            # the sitemaps are still being read: their URLs go first (discovery.start)
            held.append((doc.page_links, nofollow, depth))
            return
        yield from self._follow(site, doc.page_links, nofollow, depth)

    def _follow_held_links(self, site: SiteState) -> Iterator[Any]:
        """The sitemaps are read: follow the links held meanwhile, in the order found."""
        held, site.held_links = site.held_links, None
        for links, nofollow, depth in held or ():
            yield from self._follow(site, links, nofollow, depth)

    def _follow(
        self, site: SiteState, links: list[str], nofollow: bool, depth: int
    ) -> Iterator[Any]:
        """Schedule same-website ``links`` found at ``depth`` (refused when nofollow)."""
        website, seen_raw = site.website, site.seen_raw
        if nofollow:
            # the page says nofollow (meta robots, X-Robots-Tag): its site links are
            # counted as refused, not followed
            for link in links:
                if self._site_of(link) == website and link not in seen_raw:
                    self.ledger.reject(link, "nofollow", website)
            return
        for index, link in enumerate(links):
            if self._site_of(link) != website or link in seen_raw:
                continue
            if not index & 255 and time.monotonic() >= self._deadline:
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
            yield from self._schedule(site, link, depth + 1, "link")

    def _site_of(self, url: str) -> str:
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

    def page_failed(self, failure: Failure) -> Iterator[Row]:
        """A page request failed: one diagnostic row, unless it was refused on purpose."""
        request = failure.request  # type: ignore[attr-defined]
        meta = request.meta
        self.budgets.release(meta)
        site = self.ledger.sites[meta["webmd_site"]]
        if self._refused_before(site, meta):
            yield from self._refused_retry(site, request)
            return
        stopped = None if meta.get("webmd_rejected") else self._stopped(site)
        if meta.get("webmd_rejected") or stopped is not None:
            if stopped is not None:
                self.ledger.skip(request.url, stopped, site.website)
            elif meta.get("redirect_times") and self._stopped(site) is None:
                # refused after a redirect (off-site, robots): that page was fetched
                self.budgets.missed(site)
            self.crew.finished(canonicalize(meta["webmd_url"]))
            return
        error_type, message = self._classify(failure)
        row = self._row(diagnostic_row(error_type, message, **self._row_context(site, meta)))
        self.budgets.missed(site)
        yield row

    def _refused_before(self, site: SiteState, meta: dict[str, Any]) -> bool:
        """A retry of a URL the server refused (429/503), dropped because the website
        then stopped for refusals (``blocked``): that URL was fetched, and refused."""
        return (
            meta.get("webmd_rejected") == "blocked"
            and bool(meta.get("webmd_refusals"))
            and site.stop_reason == "blocked"
            and not self._past_grace()
        )

    def _refused_retry(self, site: SiteState, request: Request) -> Iterator[Row]:
        """The ``blocked`` row of a refused URL whose retry was dropped when its website
        stopped (see ``_refused_before``); whoever dropped it counted it as not fetched,
        which is taken back."""
        meta = request.meta
        self.ledger.unskip(request.url, "blocked")
        self.crawler.stats.inc_value("webmd/not_fetched/blocked", -1)
        status = meta.get("webmd_refused_status")
        message = (
            f"the server refused this URL (HTTP {status or 'refusal'}) and the website "
            f"then refused more than {MAX_REFUSALS_PER_SITE} requests in a row: not "
            "asked again"
        )
        row = self._row(
            diagnostic_row("blocked", message, **self._row_context(site, meta), status_code=status)
        )
        self.budgets.missed(site)
        yield row

    # -- rows and end of run -------------------------------------------------------------
    def _row_context(self, site: SiteState, meta: dict[str, Any]) -> dict[str, Any]:
        return {
            "input": site.input,
            "website": site.website,
            "url": meta["webmd_url"],
            "depth": meta["webmd_depth"],
            "discovered_via": meta["webmd_via"],
        }

    def _row(self, row: Row) -> Row:
        self.ledger.record_row(row)
        if row.discovered_via == "sitemap" and row.website in self.ledger.sites:
            good = row.row_type == "page" and not row.thin
            self._sitemap_outcome(self.ledger.sites[row.website], good)
        if self.crew.shared:  # alone, the ledger just counted it: no fields to build
            fields: dict[str, float] = {}
            if row.row_type == "page":
                fields = {
                    "total_words": row.word_count or 0,
                    "total_tokens": row.token_estimate or 0,
                    "boilerplate_sum": float(row.boilerplate_ratio or 0.0),
                }
            elif row.row_type == "diagnostic":
                fields = {"failures": 1}
            self.crew.count_row(row.website, fields, row.row_type, row.error_type)
        return row

    def _on_scheduled(self, request: Request, spider: Spider) -> None:
        """A redirect to a spelling of a URL of its own chain (``/track`` →
        ``/track?utm_source=x``, ``/o?b=2&a=1`` → ``/o?a=1&b=2``: one canonical URL)
        would match that URL in the dupefilter, and the page would be lost though no
        copy of it was fetched: such a request bypasses the dupefilter. A redirect back
        to the very URL of an earlier hop is a loop: that URL is fetched once more with
        redirects off, and its answer is the row (a 3xx is a ``redirect loop``
        diagnostic; a page that refreshes to itself is written as it is). Other chains
        end at REDIRECT_MAX_TIMES like any."""
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

    def _on_dropped(self, request: Request, spider: Spider) -> None:
        """The dupefilter dropped a request: a redirect onto a page already queued."""
        meta = request.meta
        if meta.get("webmd_kind") == "page":
            self.budgets.release(meta)
            website = meta.get("webmd_site")
            original = meta.get("webmd_url", request.url)
            self.ledger.reject(original, f"duplicate:redirects to {request.url}", website)
            self._finished_without_row(canonicalize(original))
            site = self.ledger.sites.get(website or "")
            if site is not None and meta.get("redirect_urls") and self._stopped(site) is None:
                self.budgets.missed(site)  # its URL was fetched (and redirected)

    def _note_untyped(self, site: SiteState, url: str, content_type: str) -> None:
        """An HTML page served as application/octet-stream is read as HTML: its row
        keeps the served content_type, the run summary says so once per website."""
        self.crawler.stats.inc_value("webmd/untyped_html")
        if site.website in self._untyped_noted:
            return
        self._untyped_noted.add(site.website)
        self.ledger.warn(
            f"{site.website}: {url} is served as {content_type}, but its body is an HTML "
            "document: read as HTML (so is any other such page of this website)"
        )

    def _page_done(self, key: str, row: Row | None) -> None:
        """A page's row is written and its links are queued (PageCompletion): mark it
        done in the journal (when it has a row, with a page's content hash: a resumed
        run still knows its content duplicates) and take it off the in-flight list."""
        if self.journal is not None and row is not None:
            content = row.content_hash if row.row_type == "page" else None
            self.journal.finish(key, row.row_type, content)
        self.crew.finished(key)  # no longer in flight: a dead worker's rescue skips it

    def _finished_without_row(self, key: str) -> None:
        """A page request ended in a rejection: a resumed run must not fetch it again."""
        if self.journal is not None:
            self.journal.finish(key, "none")

    def _on_time_budget(self) -> None:
        self._timer = None
        if self.ledger.stop_reason is None:
            self.ledger.stop_reason = "time_budget"
        dropped = self._purge(None, "time_budget")
        logger.warning(
            "Time budget of %ss reached: no new fetches (%d queued requests dropped); "
            "finishing the downloads in flight",
            self.options.max_run_secs,
            dropped,
        )
        self._timer = call_later(STOP_GRACE_SECS, self._force_close)

    def _drain_download_queues(self, reason: str, website: str | None = None) -> int:
        """Fail the requests waiting in the downloader's per-slot queues: every request
        of every slot, or (``website``) the page requests of that website's slot
        (``transport.downloader.SlotLimitedDownloader.take_waiting``)."""
        downloader = self.crawler.engine.downloader
        if not isinstance(downloader, SlotLimitedDownloader):
            return 0
        failed = downloader.take_waiting(website)
        for request, deferred in failed:
            # the errback runs page_failed, which releases the request
            request.meta["webmd_rejected"] = reason
            self.ledger.skip(request.url, reason, request.meta.get("webmd_site"))
            deferred.errback(Failure(IgnoreRequest(f"not fetched: {reason}")))
        return len(failed)

    def _force_close(self) -> None:
        """Downloads still in flight after the grace period: close now. No row is made
        any more (the answers still to come are counted as not fetched, the callbacks
        still running stop at their next output, the extraction processes are stopped);
        the site rows are written at the close (``_on_closed``), after every row made
        before, so each is its website's last row and its counts are the rows written."""
        self._timer = None
        message = "downloads still in flight after the time budget's grace period: closing"
        logger.warning(message)
        self.ledger.warn(message)
        self._closing = True
        if self._extract_pool is not None:
            # pages still out would hold the close for as long as their worker takes
            self._extract_pool.close()
            self._extract_pool = None
        self._purge(None, self.ledger.stop_reason or "time_budget")
        deferred_from_coro(self.crawler.engine.close_spider_async(reason="time_budget"))

    def _emit_site_rows(self, rows: Iterable[Row]) -> None:
        """The one door of site rows: straight to the feeds, through the item_scraped
        signal the feed exporter listens to. No item pipeline has anything to do with a
        site row, and at the close no request could carry one any more."""
        self._site_rows_written = True
        for row in rows:
            self.crawler.signals.send_catch_log(
                signals.item_scraped, item=row, response=None, spider=self
            )

    def _write_site_rows_now(self) -> None:
        """Write the site rows when the crawl ends without going idle."""
        if self._site_rows_written:
            return
        if self.fleet is not None:
            self._site_rows_written = self._summary_written = True
            if self._heartbeat is not None and self._heartbeat.running:
                self._heartbeat.stop()
            # stopped early (budget, Ctrl-C): this worker's unfinished pages stay in
            # flight for the others to take over when its heartbeat lapses
            return
        self._summary_written = True
        self._emit_site_rows(self._site_rows())

    def _on_idle(self, spider: Spider) -> None:
        """Nothing left to fetch: write the site rows once, then let the spider close."""
        if self._summary_written:
            return
        if self._robots_retries and self.ledger.stop_reason is None:
            raise DontCloseSpider  # a robots.txt will be asked again
        if self.fleet is not None:
            self._fleet_idle()  # raises DontCloseSpider while the crawl goes on
            return
        if self._schedule_orphans():
            raise DontCloseSpider
        self._summary_written = True
        for site in self.ledger.sites.values():
            for url in site.too_deep.values():
                self.ledger.reject(url, "max_depth", site.website)
            why = site.final_stop_reason(self.ledger.stop_reason)
            for links, _, _ in site.held_links or ():
                # the sitemaps were never all read (the run stopped): counted, not lost
                for link in links:
                    if self._site_of(link) == site.website and link not in site.seen_raw:
                        self.ledger.skip(link, why, site.website)
            site.held_links = None
        self._emit_site_rows(self._site_rows())

    def _fleet_idle(self) -> None:
        """Idle worker of a distributed crawl: wait while the crawl goes on; the last
        worker out writes the site rows and clears the crawl's keys."""
        fleet = self.fleet
        queue_key = fleet.key("requests")
        fleet.idle = True
        fleet.set_idle(True)
        fleet.rescue_dead(queue_key)
        if self.ledger.stop_reason is None and not fleet.crawl_done(queue_key):
            raise DontCloseSpider
        self._summary_written = True
        if fleet.seeder:
            fleet.share_site_info(self.ledger.sites.values())
        if self._heartbeat is not None and self._heartbeat.running:
            self._heartbeat.stop()  # a heartbeat after leave() would register us again
        if fleet.leave():
            self._emit_site_rows(self._fleet_site_rows())
            fleet.summarize_crawl(self.ledger)
            fleet.clear()
        else:
            fleet.summarize_worker(self.ledger)

    def _fleet_site_rows(self) -> Iterator[Row]:
        """Site rows of a distributed crawl, from the counters every worker kept."""
        for site in self.ledger.sites.values():
            self.fleet.settle_site(site, self.options.max_pages)
            yield self._row(site.to_row(self.ledger.stop_reason))

    def _schedule_orphans(self) -> bool:
        """Incremental whole-site crawls: known pages that this run did not find again
        (no longer linked or listed) are re-checked once the new ones are done, so that a
        deleted page gives its ``removed`` row. True when that queued something."""
        if self._orphans_checked or not self.incremental.enabled or self.ledger.stop_reason:
            return False
        self._orphans_checked = True
        sites = [
            site
            for site in self.ledger.sites.values()
            if site.mode == "site" and site.stop_reason is None and site.website in self.robots
        ]
        if not any(self.incremental.known(s.website) - s.seen for s in sites):
            return False
        request = Request(
            "data:,",
            callback=self._orphan_requests,
            dont_filter=True,
            meta={"webmd_kind": "summary", "webmd_sites": [s.website for s in sites]},
        )
        self.crawler.engine.crawl(request)
        return True

    def _orphan_requests(self, response: Response) -> Iterator[Any]:
        for website in response.meta["webmd_sites"]:
            site = self.ledger.sites[website]
            for canonical in sorted(self.incremental.known(website) - site.seen):
                # depth max_depth: the page itself is checked, its links are not followed
                yield from self._schedule(site, canonical, self.options.max_depth, "state")

    def _site_rows(self) -> Iterator[Row]:
        for site in self.ledger.sites.values():
            yield self._row(site.to_row(self.ledger.stop_reason))

    def _on_closed(self, spider: Spider, reason: str) -> None:
        for timer in [self._timer, *self._robots_retries]:
            if timer is not None and timer.active():
                timer.cancel()
        if self._extract_pool is not None:  # first: nothing below may leave workers behind
            self._extract_pool.close()
            self._extract_pool = None
        self.incremental.close()
        if self._heartbeat is not None and self._heartbeat.running:
            self._heartbeat.stop()
        if reason == "shutdown" and self.ledger.stop_reason is None:
            self.ledger.stop_reason = "shutdown"
        # Ctrl-C / SIGTERM or another early close: the site rows still reach the feeds
        # (this handler runs before the feed exporter's, which was connected later).
        self._write_site_rows_now()
        if self.journal is not None:
            self.journal.close()
        restore_gc(self._gc_state)
        self._gc_state = None
