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
   are followed (same website, shallowest first, down to ``max_depth``; with
   ``follow_subdomains`` also onto the other hosts of its domain, which become websites
   of the crawl: ``spiders/subdomains.py``). With
   extraction processes a page is converted in one of them (one of 64 KiB or more
   waits for one rather than being converted here); a page past ``extract_timeout_secs``
   there is an ``extraction-timeout`` row.
4. when the crawl goes idle, one ``site`` row per website is written: always the last
   row of its website, its counts those of the rows before it.

Where each part lives (this module only wires them and yields what they make):

* the job as the options decide it (inputs, filter, pace, journal, fleet, state,
  extraction processes): ``spiders/job_setup.py``;
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
from typing import Any, Self

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.http import Response
from twisted.python.failure import Failure

from webmd_spider.extract.page_type import warm_up
from webmd_spider.items import Row
from webmd_spider.offload.gc_tuning import GcState, restore_gc, tune_gc
from webmd_spider.offload.pool import ExtractPool
from webmd_spider.options import (
    OptionsError,
)
from webmd_spider.policy.robots import RobotsRules
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.run_context import ResumeClaims, RunContext, attach
from webmd_spider.run_context import site_stopped as site_stopped_signal
from webmd_spider.spiders.budgets import QUEUE_FACTOR, SiteBudgets
from webmd_spider.spiders.clock import RunClock
from webmd_spider.spiders.frontier import Frontier, bypass_own_chain
from webmd_spider.spiders.job_setup import JobSetup, configure
from webmd_spider.spiders.offloading import PageOffload
from webmd_spider.spiders.page_answers import PageAnswers
from webmd_spider.spiders.recorder import RowRecorder
from webmd_spider.spiders.responses import root_of
from webmd_spider.spiders.robots_flow import RobotsFlow
from webmd_spider.spiders.run_end import RunEnd
from webmd_spider.spiders.sitemap_discovery import SitemapCallbacks, SitemapDiscovery
from webmd_spider.spiders.sitemap_judge import SitemapJudge
from webmd_spider.spiders.startup import (
    quiet_asyncio_about,
    quiet_probe_failures,
)
from webmd_spider.spiders.stopping import QueuePurge, TimeBudget
from webmd_spider.spiders.subdomains import SubdomainSites
from webmd_spider.state.completion import PageCompletion, done_key
from webmd_spider.urls import (
    StartInput,
    canonicalize,
    site_key,
    start_candidates,
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
        self.ledger = RunLedger()
        #: the job as configured (spiders/job_setup.py); defaults until from_crawler
        self.job = JobSetup()
        self.robots: dict[str, RobotsRules] = {}
        #: robots.txt Crawl-delay per website, read by the politeness middleware
        self.crawl_delays: dict[str, float] = {}
        self._gc_state: GcState | None = None
        self._run_id = uuid.uuid4().hex[:12]
        #: what the components of this crawl share (built at the end of _configure)
        self.context = RunContext()
        #: when a page is done, for the resume journal and the fleet (else None)
        self.completion: PageCompletion | None = None
        self._assemble(None)

    def _assemble(self, pool: ExtractPool | None) -> None:
        """Build the spider's parts from what ``_configure`` decided (with defaults
        before it). Each gets what it works with, not the spider."""
        job = self.job
        crawler: Crawler | None = getattr(self, "crawler", None)  # set by from_crawler
        self.clock = RunClock(self.ledger)
        self.offload = PageOffload(
            pool, self.ledger, self.clock, repeated=job.options.remove_repeated_blocks
        )
        self.budgets = SiteBudgets(
            job.options, self.ledger, job.crew, self._run_id, self._stop_site
        )
        self.purge = QueuePurge(crawler, self.ledger, self.budgets, self.offload)
        self.time_budget = TimeBudget(
            crawler, self.ledger, self.clock, self.purge, self.offload, job.options.max_run_secs
        )
        self.judge = SitemapJudge(job.options, self.ledger, self.purge.demote_sitemap_pages)
        self.recorder = RowRecorder(self.ledger, job.crew, self.judge)
        subdomains = None
        if job.options.follow_subdomains:
            # a new website's links wait for its robots.txt: as many as its queue takes
            held = QUEUE_FACTOR * 2 * job.options.max_pages
            subdomains = SubdomainSites(self.ledger, held)
        self.robots_flow = RobotsFlow(
            job.options,
            self.ledger,
            self.recorder,
            self.robots,
            self.crawl_delays,
            (self.parse_robots, self.robots_failed),
            self._begin_site,
            crawler,
            subdomains,
        )
        self.frontier = Frontier(
            job.options,
            self.ledger,
            self.robots,
            job.url_filter,
            job.traps,
            job.incremental,
            job.journal,
            ResumeClaims(job.journal, self._run_id),
            self.budgets,
            self.judge,
            self.recorder,
            job.crew,
            self.clock,
            (self.parse_page, self.page_failed),
            subdomains,
            self.robots_flow.added,
        )
        self.answers = PageAnswers(
            job.options,
            job.extract_options,
            self.ledger,
            self.recorder,
            self.judge,
            self.budgets,
            job.incremental,
            job.journal,
            job.crew,
            self.clock,
            self.frontier,
            crawler,
        )
        #: sitemap reading (spiders/sitemap_discovery.py)
        self.discovery = SitemapDiscovery(
            self.ledger,
            job.options,
            SitemapCallbacks(
                self.parse_sitemap,
                self.sitemap_failed,
                self.parse_sitemap_host_robots,
                self.sitemap_host_robots_failed,
            ),
            self.frontier.schedule,
            self.frontier.robots_allows,
            self.frontier.follow_held_links,
            self.frontier.release_known,
            crawler=crawler,
            crew=job.crew,
        )
        self.run_end = RunEnd(
            crawler,
            self,
            job.options,
            self.ledger,
            self.recorder,
            self.frontier,
            job.incremental,
            self.robots_flow,
            job.fleet,
            self._orphan_requests,
        )
        self.purge.aborted = self._aborted_in_queue

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
        """Decide the job (``job_setup.configure``, which raises OptionsError when
        nothing can be fetched), build the parts and share the run context."""
        self.job = job = configure(crawler, self._arguments, self.ledger)
        if job.journal is not None or job.fleet is not None:
            # a page is marked done (journal, in-flight list) only when its row is
            # written and its links are queued (webmd_spider.state.completion)
            self.completion = PageCompletion(self._page_done)
        self._assemble(job.pool)
        self.context = RunContext(
            options=job.options,
            ledger=self.ledger,
            robots=self.robots,
            crawl_delays=self.crawl_delays,
            host_floor=job.host_floor,
            ssrf_policy=job.ssrf_policy,
            claims=self.frontier.claims,
            completion=self.completion,
            fleet=job.fleet,
            chunk_sync=job.chunk_sync,
        )
        attach(crawler, self.context)

    # -- start -------------------------------------------------------------------
    async def start(self) -> AsyncIterator[Any]:
        """Yield start-up diagnostics, then one robots.txt probe per website."""
        budget = self.job.options.max_run_secs
        if self.job.fleet is not None:
            seeder = self.job.fleet.join()
            logger.info(
                "Worker %s %s", self.job.fleet.worker, "seeds the crawl" if seeder else "joins"
            )
            budget = max(1.0, budget - self.job.fleet.elapsed())  # per crawl, not per worker
            self.run_end.start_heartbeat()
        self.time_budget.start(budget)
        warm_up()  # the page-type model, before the first page waits for it
        # everything of the start-up is alive now: frozen, not scanned until the close
        self._gc_state = tune_gc(self.job.options.gc_threshold)
        self.offload.start()
        for row in self.job.startup_rows:
            yield self.recorder.record(row)
        for site, candidates, pages in self._plan_websites():
            yield self.robots_flow.request(site, candidates, pages)

    def _plan_websites(self) -> Iterator[tuple[SiteState, list[str], list[StartInput]]]:
        """Group the valid inputs by website: (state, root candidates, page inputs);
        then, resuming a JOBDIR, the websites links added before."""
        groups: dict[str, list[StartInput]] = {}
        for item in self.job.inputs:
            if item.url is not None and item.kind != "invalid":
                groups.setdefault(site_key(item.url), []).append(item)
        for key, items in groups.items():
            whole = [i for i in items if i.kind in ("domain", "root")]
            pages = [i for i in items if i.kind == "page"]
            first = whole[0] if whole else items[0]
            assert first.url is not None
            # a bare domain, or a page typed without a scheme, probes https then http
            candidates = start_candidates(first)
            mode, discovery = ("site", "links") if whole else ("list", "list")
            site = SiteState(key, first.raw, mode, root=candidates[0], discovery=discovery)
            yield self.ledger.add_site(site), candidates, pages
        yield from self._resumed_subdomains()

    def _resumed_subdomains(self) -> Iterator[tuple[SiteState, list[str], list[StartInput]]]:
        """follow_subdomains in a resumed JOBDIR: the websites links added in earlier
        runs join again at once (their pending pages are scheduled again when their
        robots.txt is known, like a start website's), found or not by a link again."""
        journal, subdomains = self.job.journal, self.frontier.subdomains
        if journal is None or not journal.resumed or subdomains is None:
            return
        starts = list(self.ledger.sites.values())
        roots: dict[str, str] = {}
        for queued in journal.queued.values():
            roots.setdefault(queued.website, root_of(queued.url))
        for website, root in roots.items():
            if website in self.ledger.sites:
                continue
            parent = next((s for s in starts if subdomains.covers(s.website, website)), None)
            site = subdomains.add(parent, website, root) if parent is not None else None
            if site is not None:
                assert site.root is not None
                yield site, [site.root], []

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
        if response.meta.get("webmd_lastmod"):
            return self.frontier.resolve_lastmod(response.meta["webmd_sites"])
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
                    self.job.crew.shared
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
        discovery; then the links of other websites that waited for the rules
        (follow_subdomains). A website a link added has only those."""
        if self.job.journal is not None and self.job.journal.resumed:
            yield from self.frontier.resume(site)
        subdomains = self.frontier.subdomains
        if subdomains is None or not subdomains.added(site.website):
            yield from self._discover(site, rules, pages)
        yield from self.frontier.release_held(site)

    def _discover(
        self, site: SiteState, rules: RobotsRules, pages: list[StartInput]
    ) -> Iterator[Any]:
        """A start website's typed pages, its start page and its sitemaps."""
        schedule = self.frontier.schedule
        if not self.job.crew.seeder:
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
        # an incremental run holds its known pages until the sitemaps date them
        # (spiders/lastmod_gate.py); not resumable or distributed: a held page could be
        # lost to a kill, or be another worker's
        gated = self.job.options.discovery != "links" and self.completion is None
        self.frontier.lastmod.open(site, gated)
        yield from schedule(site, site.root, 0, "input", typed=True)
        if self.job.options.discovery == "links":
            site.discovery = "links"
            return
        if (
            self.job.options.discovery == "sitemaps+links"
            and self.completion is None
            and not self.job.incremental.enabled
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

    def _aborted_in_queue(self, request: Request, reason: str) -> None:
        """A request whose URL was sent before, taken out of the queue at a stop
        (``QueuePurge.aborted``): its ``aborted`` row, written at once."""
        self.run_end.write_now(self.answers.aborted_request(request, reason))

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
        if row is not None and row.error_type == "aborted":
            # overtaken by a stop (issue 31): not done, a resumed run fetches it again
            row = None
        if self.job.journal is not None and row is not None:
            content = row.content_hash if row.row_type == "page" else None
            self.job.journal.finish(key, row.row_type, content)
        self.job.crew.finished(key)  # no longer in flight: a dead worker's rescue skips it

    # -- end of run ----------------------------------------------------------------------
    def _on_idle(self, spider: Spider) -> None:
        subdomains = self.frontier.subdomains
        if subdomains is not None and (
            self.ledger.stop_reason is not None or not self.robots_flow.retries
        ):
            # nothing left in flight: links still waiting for a robots.txt wait in vain
            subdomains.drop_all(self.ledger.stop_reason)
        self.run_end.idle()  # raises DontCloseSpider while there is work left

    def _on_closed(self, spider: Spider, reason: str) -> None:
        self.time_budget.cancel()
        self.robots_flow.cancel()
        self.offload.close()  # first: nothing below may leave workers behind
        self.job.incremental.close()
        if reason == "shutdown" and self.ledger.stop_reason is None:
            self.ledger.stop_reason = "shutdown"
        if self.frontier.subdomains is not None:
            self.frontier.subdomains.drop_all(self.ledger.stop_reason)
        if self.ledger.stop_reason is not None:
            # what still waits in the scheduler's memory queue is listed as not fetched
            # (Scrapy drops it silently at the close)
            self.purge.purge(None, self.ledger.stop_reason)
        # Ctrl-C / SIGTERM or another early close: the site rows still reach the feeds
        # (this handler runs before the feed exporter's, which was connected later).
        self.run_end.closed()
        if self.job.journal is not None:
            self.job.journal.close()
        restore_gc(self._gc_state)
        self._gc_state = None
