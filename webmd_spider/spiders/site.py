"""The ``site`` spider: start URLs → robots.txt → sitemaps or links → one row per page.

``scrapy crawl site -a start=URL [-a name=value ...]``; every option is listed in
``webmd_spider.options`` and the README. Settings read: all ``WEBMD_*`` (through
options), ``FEEDS`` (a default JSONL feed is added when none is given),
``DOWNLOAD_TIMEOUT`` (how long in-flight downloads may finish after the time budget).

Flow per website (URLs on one host, ``www.`` folded, are one website):
1. robots.txt is fetched first; for a bare domain it is also the probe of the discovery
   ladder (https://host, https://www.host, http://host).
2. whole-site inputs read the sitemaps (see ``sitemap_discovery``); with no usable
   sitemap the home page starts a breadth-first link crawl.
3. each page response becomes a ``page`` row or a ``diagnostic`` row; links on the page
   are followed (same website, shallowest first, down to ``max_depth``). With
   extraction processes a page is converted in one of them (one of 64 KiB or more
   waits for one rather than being converted here); a page past ``extract_timeout_secs``
   there is an ``extraction-timeout`` row.
4. when the crawl goes idle, one ``site`` row per website is written: always the last
   row of its website, its counts those of the rows before it.

Where each part lives (this module only wires them and yields what they make):

* robots.txt and Crawl-delay: ``spiders/robots_flow.py``;
* sitemaps: ``spiders/sitemap_discovery.py``, and whether they stay ahead of the
  links: ``spiders/sitemap_judge.py``;
* what is queued (scope, robots, priorities, links, resume, orphans):
  ``spiders/frontier.py``;
* what an answer becomes: ``spiders/page_answers.py`` (its pure decisions:
  ``page_flow``), with extraction processes through ``spiders/offloading.py``;
* the budgets per website (``max_pages`` page rows, ``max_pages`` fetched pages without
  one, the queue bound): ``spiders/budgets.py``;
* a website's stop and the run's time budget (its queued requests taken out, the close
  after ``clock.STOP_GRACE_SECS``): ``spiders/stopping.py``, ``spiders/clock.py``;
* every row counted once as it is made: ``spiders/recorder.py``;
* the end of the run (orphans, the site rows, a fleet's last worker):
  ``spiders/run_end.py``.

Within one website and run a page is written once: a redirect to a spelling of a URL of
its own chain bypasses the dupefilter (a loop back to the very URL of an earlier hop is
a ``redirect loop`` diagnostic); a discovered page (not a URL the user typed) whose
``content_hash`` equals a written page's, or in an incremental run a still-known page's
of an earlier run, is rejected as ``duplicate:content of URL`` (its links are still
followed). Links with ``user:password@`` are rejected (``userinfo``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Self

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.http import Response
from twisted.python.failure import Failure

from webmd_spider.crew import Crew, SoloCrew
from webmd_spider.extract import ExtractOptions
from webmd_spider.items import Row, diagnostic_row
from webmd_spider.offload.gc_tuning import GcState, restore_gc, tune_gc
from webmd_spider.offload.pool import ExtractPool, default_processes
from webmd_spider.options import (
    EXTRACT_AUTO,
    EXTRACT_TIMEOUT_DEFAULT,
    JobOptions,
    OptionsError,
    build_options,
)
from webmd_spider.policy.netguard import AddressPolicy
from webmd_spider.policy.politeness import parse_host_delay
from webmd_spider.policy.robots import RobotsRules
from webmd_spider.policy.traps import TrapDetector, TrapPolicy
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.run_context import ResumeClaims, RunContext, attach
from webmd_spider.run_context import site_stopped as site_stopped_signal
from webmd_spider.spiders.budgets import SiteBudgets
from webmd_spider.spiders.clock import RunClock
from webmd_spider.spiders.frontier import Frontier, bypass_own_chain
from webmd_spider.spiders.incremental_state import IncrementalState, state_name
from webmd_spider.spiders.offloading import PageOffload
from webmd_spider.spiders.page_answers import PageAnswers
from webmd_spider.spiders.recorder import RowRecorder
from webmd_spider.spiders.responses import root_of
from webmd_spider.spiders.robots_flow import RobotsFlow
from webmd_spider.spiders.run_end import RunEnd
from webmd_spider.spiders.sitemap_discovery import SitemapCallbacks, SitemapDiscovery
from webmd_spider.spiders.sitemap_judge import SitemapJudge
from webmd_spider.spiders.startup import (
    discard_stale_queue,
    ensure_feed,
    quiet_asyncio_about,
    quiet_probe_failures,
    read_start_file,
    set_pace,
)
from webmd_spider.spiders.stopping import QueuePurge, TimeBudget
from webmd_spider.state.completion import PageCompletion, done_key
from webmd_spider.state.journal import CrawlJournal
from webmd_spider.urls import (
    PatternError,
    StartInput,
    UrlFilter,
    canonicalize,
    compile_pattern,
    discovery_candidates,
    parse_start_inputs,
    site_key,
    split_patterns,
)

logger = logging.getLogger(__name__)


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
        #: robots.txt Crawl-delay per website, read by the politeness middleware
        self.crawl_delays: dict[str, float] = {}
        self.ssrf_policy = AddressPolicy.from_allowlist(None)
        self.traps = TrapDetector()  # calendar pages, session ids, endless query variants
        self._inputs: list[StartInput] = []
        self._startup_rows: list[Row] = []
        self._gc_state: GcState | None = None
        self.incremental = IncrementalState()
        #: the JOBDIR resume journal (None without JOBDIR)
        self.journal: CrawlJournal | None = None
        self._run_id = uuid.uuid4().hex[:12]
        #: what the components of this crawl share (built at the end of _configure)
        self.context = RunContext()
        #: a distributed crawl's shared state (None when WEBMD_REDIS_URL is not set)
        self.fleet: Any = None
        #: who shares the crawl: alone (SoloCrew), or the fleet of a distributed crawl
        self.crew: Crew = SoloCrew()
        #: when a page is done, for the resume journal and the fleet (else None)
        self.completion: PageCompletion | None = None
        self.host_floor = 0.0  # the lower host_delay bound, for the fleet's shared gate
        self._assemble(None)

    def _assemble(self, pool: ExtractPool | None) -> None:
        """Build the spider's parts from what ``_configure`` decided (with defaults
        before it). Each gets what it works with, not the spider."""
        crawler: Crawler | None = getattr(self, "crawler", None)  # set by from_crawler
        self.clock = RunClock(self.ledger)
        self.offload = PageOffload(pool, self.ledger, self.clock)
        self.budgets = SiteBudgets(
            self.options, self.ledger, self.crew, self._run_id, self._stop_site
        )
        self.purge = QueuePurge(crawler, self.ledger, self.budgets, self.offload)
        self.time_budget = TimeBudget(
            crawler, self.ledger, self.clock, self.purge, self.offload, self.options.max_run_secs
        )
        self.judge = SitemapJudge(self.options, self.ledger, self.purge.demote_sitemap_pages)
        self.recorder = RowRecorder(self.ledger, self.crew, self.judge)
        self.robots_flow = RobotsFlow(
            self.options,
            self.ledger,
            self.recorder,
            self.robots,
            self.crawl_delays,
            (self.parse_robots, self.robots_failed),
            self._begin_site,
            crawler,
        )
        self.frontier = Frontier(
            self.options,
            self.ledger,
            self.robots,
            self.url_filter,
            self.traps,
            self.incremental,
            self.journal,
            ResumeClaims(self.journal, self._run_id),
            self.budgets,
            self.judge,
            self.recorder,
            self.crew,
            self.clock,
            (self.parse_page, self.page_failed),
        )
        self.answers = PageAnswers(
            self.options,
            self.extract_options,
            self.ledger,
            self.recorder,
            self.judge,
            self.budgets,
            self.incremental,
            self.journal,
            self.crew,
            self.clock,
            self.frontier,
            crawler,
        )
        #: sitemap reading (spiders/sitemap_discovery.py)
        self.discovery = SitemapDiscovery(
            self.ledger,
            self.options,
            SitemapCallbacks(
                self.parse_sitemap,
                self.sitemap_failed,
                self.parse_sitemap_host_robots,
                self.sitemap_host_robots_failed,
            ),
            self.frontier.schedule,
            self.frontier.robots_allows,
            self.frontier.follow_held_links,
            crawler=crawler,
            crew=self.crew,
        )
        self.run_end = RunEnd(
            crawler,
            self,
            self.options,
            self.ledger,
            self.recorder,
            self.frontier,
            self.incremental,
            self.robots_flow,
            self.fleet,
            self._orphan_requests,
        )

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
        # last: it takes the state's lock, which only spider_closed releases
        self.incremental = IncrementalState.open(
            opts, self._input_urls(), self.extract_options, self.ledger
        )
        manifest = Path(opts.out_dir) / ".webmd" / "manifest.json"
        if opts.out_dir and self.incremental.enabled and not manifest.exists():
            # a folder tree added to an existing incremental job: unchanged pages must
            # still be fetched whole and written once
            self.incremental.fill_tree = True
        self._assemble(self._new_pool(opts))
        self.context = RunContext(
            options=opts,
            ledger=self.ledger,
            robots=self.robots,
            crawl_delays=self.crawl_delays,
            host_floor=self.host_floor,
            ssrf_policy=self.ssrf_policy,
            claims=self.frontier.claims,
            completion=self.completion,
            fleet=self.fleet,
        )
        attach(crawler, self.context)

    def _new_pool(self, opts: JobOptions) -> ExtractPool | None:
        """The extraction processes (``extract_processes``), or None. Started in
        start(), from the event loop; pages are extracted here until they are ready."""
        processes = opts.extract_processes
        if processes == EXTRACT_AUTO:
            processes = default_processes()
        if not processes:
            return None
        # the default timeout is left to the pool: its EXTRACT_DEADLINE_SECS, the same
        # 30 s (a constant tests can lower)
        timeout = opts.extract_timeout_secs
        return ExtractPool(
            processes,
            self.extract_options,
            opts.chunk_budget,
            opts.gc_threshold,
            deadline=None if timeout == EXTRACT_TIMEOUT_DEFAULT else timeout,
        )

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
            self.run_end.start_heartbeat()
        self.time_budget.start(budget)
        # everything of the start-up is alive now: frozen, not scanned until the close
        self._gc_state = tune_gc(self.options.gc_threshold)
        self.offload.start()
        for row in self._startup_rows:
            yield self.recorder.record(row)
        for site, candidates, pages in self._plan_websites():
            yield self.robots_flow.request(site, candidates, pages)

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

    # -- callbacks: spider methods, which a JOBDIR queue stores by name ----------------
    def parse_robots(self, response: Response) -> Iterator[Any]:
        return self.robots_flow.answered(response)

    def robots_failed(self, failure: Failure) -> Iterator[Any]:
        return self.robots_flow.failed(failure)

    def parse_sitemap(self, response: Response) -> Iterator[Any]:
        return self.discovery.parse_sitemap(response)

    def sitemap_failed(self, failure: Failure) -> Iterator[Any]:
        return self.discovery.sitemap_failed(failure)

    def parse_sitemap_host_robots(self, response: Response) -> Iterator[Any]:
        return self.discovery.parse_sitemap_host_robots(response)

    def sitemap_host_robots_failed(self, failure: Failure) -> Iterator[Any]:
        return self.discovery.sitemap_host_robots_failed(failure)

    def page_failed(self, failure: Failure) -> Iterator[Row]:
        return self.answers.failed(failure)

    def _orphan_requests(self, response: Response) -> Iterator[Any]:
        return self.frontier.orphans(response.meta["webmd_sites"])

    async def parse_page(self, response: Response) -> AsyncIterator[Any]:
        """A page answered: write its row and follow its links. With extraction
        processes, the page is converted in one of them first (off Scrapy's thread);
        every decision about the page is still taken after that (``PageAnswers``)."""
        self.budgets.release(response.meta)
        work = None
        if self.offload.pool is not None and self.answers.needs_extraction(response):
            work = await self.offload.extract(response, self.crawler.stats)
        clock = self.clock
        completion = self.completion
        if completion is None:
            for output in self.answers.rows(response, work):
                yield output
                if clock.closing:
                    break  # the run is closing: the rest of its links are not wanted
            return
        # Done when this output is read to its end, its rows are written and its page
        # requests are queued: not before (see webmd_spider.state.completion).
        key = canonicalize(response.meta["webmd_url"])
        completion.hold(key)
        try:
            for output in self.answers.rows(response, work):
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
                if clock.closing:
                    break  # the run is closing: the rest of its links are not wanted
        finally:
            completion.release(key)

    # -- a website begins and stops ----------------------------------------------------
    def _begin_site(
        self, site: SiteState, rules: RobotsRules, pages: list[StartInput]
    ) -> Iterator[Any]:
        """Robots rules known (``RobotsFlow``): schedule the typed pages and start
        discovery."""
        schedule = self.frontier.schedule
        if self.journal is not None and self.journal.resumed:
            yield from self.frontier.resume(site)
        if not self.crew.seeder:
            return  # another worker discovers; this one takes pages from the shared queue
        for page in pages:
            assert page.url is not None
            yield from schedule(site, page.url, 0, "input", typed=True)
        if site.mode != "site":
            return
        # A whole website (issue 16 item 2, as the crawl modes of the products we
        # replace): the start page first, then the sitemaps' URLs (ahead of links in the
        # queue: depth 0), then links breadth-first (priority -depth) to fill the gaps.
        assert site.root is not None
        yield from schedule(site, site.root, 0, "input", typed=True)
        if self.options.discovery == "links":
            site.discovery = "links"
            return
        if (
            self.options.discovery == "sitemaps+links"
            and self.completion is None
            and not self.incremental.enabled
        ):
            # Links found before the sitemaps are read wait for them (follow_links), so
            # that a page both list is a sitemap page (depth 0). Not in a resumable or
            # distributed crawl: a page is done there once its links are queued, and a
            # link held past a kill would be lost. Not in an incremental run: its known
            # pages are queued at once (behind new ones) and would take the budget from
            # the new links held. Either way sitemap URLs still go ahead of links in
            # the queue (priority 0 against -depth).
            site.held_links = []
        yield from self.discovery.start(site, rules.sitemaps())

    def _stop_site(self, site: SiteState, reason: str) -> None:
        site.stop_reason = reason
        self.site_stopped(site.website)

    def site_stopped(self, website: str) -> None:
        """``run_context.site_stopped`` (or a budget here): take its queued requests out."""
        self.purge.site_stopped(website)

    # -- signals -----------------------------------------------------------------------
    def _on_scheduled(self, request: Request, spider: Spider) -> None:
        bypass_own_chain(request)

    def _on_dropped(self, request: Request, spider: Spider) -> None:
        self.answers.dropped(request)

    def _page_done(self, key: str, row: Row | None) -> None:
        """A page's row is written and its links are queued (PageCompletion): mark it
        done in the journal (when it has a row, with a page's content hash: a resumed
        run still knows its content duplicates) and take it off the in-flight list."""
        if self.journal is not None and row is not None:
            content = row.content_hash if row.row_type == "page" else None
            self.journal.finish(key, row.row_type, content)
        self.crew.finished(key)  # no longer in flight: a dead worker's rescue skips it

    # -- end of run ----------------------------------------------------------------------
    def _on_idle(self, spider: Spider) -> None:
        self.run_end.idle()  # raises DontCloseSpider while there is work left

    def _on_closed(self, spider: Spider, reason: str) -> None:
        self.time_budget.cancel()
        self.robots_flow.cancel()
        self.offload.close()  # first: nothing below may leave workers behind
        self.incremental.close()
        if reason == "shutdown" and self.ledger.stop_reason is None:
            self.ledger.stop_reason = "shutdown"
        # Ctrl-C / SIGTERM or another early close: the site rows still reach the feeds
        # (this handler runs before the feed exporter's, which was connected later).
        self.run_end.closed()
        if self.journal is not None:
            self.journal.close()
        restore_gc(self._gc_state)
        self._gc_state = None
