"""The end of a run: the site rows, once, as each website's last row.

When the crawl goes idle (or closes early: the time budget, Ctrl-C), one ``site`` row
per website is written, its counts those of the rows before it. They leave by one door,
straight to the feeds through the ``item_scraped`` signal the feed exporter listens to:
no item pipeline has anything to do with a site row, and at the close no request could
carry one any more. Before that, an incremental whole-site run re-checks the known
pages it did not find again (``Frontier.orphans``), and a robots.txt still to be asked
again keeps the spider open. In a distributed crawl an idle worker waits while the
crawl goes on; the last worker out writes the site rows from the shared counters and
clears the crawl's keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider

from webmd_spider.items import Row
from webmd_spider.options import JobOptions
from webmd_spider.rows.ledger import RunLedger
from webmd_spider.spiders.frontier import Frontier
from webmd_spider.spiders.incremental_state import IncrementalState
from webmd_spider.spiders.recorder import RowRecorder
from webmd_spider.spiders.robots_flow import RobotsFlow


class RunEnd:
    """Decides when the crawl may close, and writes the site rows once."""

    def __init__(
        self,
        crawler: Crawler | None,
        spider: Spider,
        options: JobOptions,
        ledger: RunLedger,
        recorder: RowRecorder,
        frontier: Frontier,
        incremental: IncrementalState,
        robots_flow: RobotsFlow,
        fleet: Any,
        orphan_callback: Callable[..., Any],
    ) -> None:
        self.crawler = crawler
        #: the spider the item_scraped signal names (the feed exporter's argument)
        self._spider = spider
        self.options = options
        self.ledger = ledger
        self.recorder = recorder
        self.frontier = frontier
        self.incremental = incremental
        self.robots_flow = robots_flow
        #: a distributed crawl's shared state (None alone)
        self.fleet = fleet
        # a spider method: a JOBDIR queue stores the orphans request's callback by name
        self._orphan_callback = orphan_callback
        self._summary_written = False
        self._site_rows_written = False
        self._orphans_checked = False
        self._heartbeat: Any = None

    def start_heartbeat(self) -> None:
        """A distributed worker tells the others it is alive (``Fleet.keep_alive``)."""
        from twisted.internet.task import LoopingCall

        from webmd_spider.distributed import HEARTBEAT_SECS

        self._heartbeat = LoopingCall(self.fleet.keep_alive)
        self._heartbeat.start(HEARTBEAT_SECS, now=False)

    def stop_heartbeat(self) -> None:
        if self._heartbeat is not None and self._heartbeat.running:
            self._heartbeat.stop()

    def idle(self) -> None:
        """``spider_idle``: write the site rows once, or raise DontCloseSpider while
        there is still work (a robots.txt retry, orphans, the rest of a fleet's crawl)."""
        if self._summary_written:
            return
        if (
            self.ledger.stop_reason is None
            and self.crawler is not None
            and not self.crawler.crawling
            and not self.crawler.settings.get("JOBDIR")
        ):
            # a graceful stop (Ctrl-C, SIGTERM) that the time budget's watch has not
            # polled yet on a busy machine: the site rows say why the run ended
            # (stopping.TimeBudget._check_shutdown sets the same when it gets there)
            self.ledger.stop_reason = "shutdown"
        if self.robots_flow.retries and self.ledger.stop_reason is None:
            raise DontCloseSpider  # a robots.txt will be asked again
        if self.fleet is not None:
            self._fleet_idle()  # raises DontCloseSpider while the crawl goes on
            return
        if self._schedule_lastmod() or self._schedule_orphans():
            raise DontCloseSpider
        self._summary_written = True
        site_of = self.frontier.site_of
        for site in self.ledger.sites.values():
            for url in site.too_deep.values():
                self.ledger.reject(url, "max_depth", site.website)
            why = site.final_stop_reason(self.ledger.stop_reason)
            for links, _, _ in site.held_links or ():
                # the sitemaps were never all read (the run stopped): counted, not lost
                for link in links:
                    if site_of(link) == site.website and link not in site.seen_raw:
                        self.ledger.skip(link, why, site.website)
            site.held_links = None
        self._emit(self._site_rows())

    def closed(self) -> None:
        """The spider closes without going idle (the time budget, Ctrl-C): the site
        rows still reach the feeds (run before the feed exporter's own close)."""
        self.stop_heartbeat()
        if self._site_rows_written:
            return
        if self.fleet is not None:
            self._site_rows_written = self._summary_written = True
            # stopped early (budget, Ctrl-C): this worker's unfinished pages stay in
            # flight for the others to take over when its heartbeat lapses
            return
        self._summary_written = True
        self._emit(self._site_rows())

    def write_now(self, row: Row) -> None:
        """A row made outside any callback (an ``aborted`` row of a request taken out of
        the queue at a stop), through the same door as the site rows, before them."""
        assert self.crawler is not None
        self.crawler.signals.send_catch_log(
            signals.item_scraped, item=row, response=None, spider=self._spider
        )

    def _emit(self, rows: Iterable[Row]) -> None:
        """The one door of site rows (see the module docstring)."""
        self._site_rows_written = True
        assert self.crawler is not None
        for row in rows:
            self.crawler.signals.send_catch_log(
                signals.item_scraped, item=row, response=None, spider=self._spider
            )

    def _site_rows(self) -> Iterator[Row]:
        for site in self.ledger.sites.values():
            yield self.recorder.record(site.to_row(self.ledger.stop_reason))

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
        if (
            self.ledger.stop_reason is None
            and self.incremental.enabled
            and not self._orphans_checked
            and fleet.claim_orphans()
        ):
            # The whole fleet's crawl is done: the first worker to see it (any one, so a
            # restarted seeder does not matter) re-checks the known pages no worker found
            # again, as a single run does (a deleted page's `removed` row). The state is
            # read afresh (other workers recorded and forgot pages meanwhile), and each
            # page goes through the shared dupefilter, so a page another worker fetched
            # is not asked twice. Busy again: idle workers wait, and help.
            self.incremental.reload_known()
            if self._schedule_orphans():
                fleet.idle = False
                fleet.set_idle(False)
                raise DontCloseSpider
        self._summary_written = True
        if fleet.seeder:
            fleet.share_site_info(self.ledger.sites.values())
        self.stop_heartbeat()  # a heartbeat after leave() would register us again
        if fleet.leave():
            self._emit(self._fleet_site_rows())
            fleet.summarize_crawl(self.ledger)
            fleet.clear()
        else:
            fleet.summarize_worker(self.ledger)

    def _fleet_site_rows(self) -> Iterator[Row]:
        """Site rows of a distributed crawl, from the counters every worker kept."""
        for site in self.ledger.sites.values():
            self.fleet.settle_site(site, self.options.max_pages)
            yield self.recorder.record(site.to_row(self.ledger.stop_reason))

    def _schedule_lastmod(self) -> bool:
        """Incremental runs: the pages the sitemap's lastmod let us skip, decided once
        their sample has answered (``LastmodGate.resolve``): written unchanged, or
        requested. True when that queued something."""
        if self.ledger.stop_reason and not self.frontier.lastmod.waiting():
            return False
        websites = [site.website for site in self.frontier.lastmod.waiting()]
        if not websites:
            return False
        request = Request(
            "data:,",
            callback=self._orphan_callback,
            dont_filter=True,
            meta={"webmd_kind": "summary", "webmd_sites": websites, "webmd_lastmod": True},
        )
        assert self.crawler is not None and self.crawler.engine is not None
        self.crawler.engine.crawl(request)
        return True

    def _schedule_orphans(self) -> bool:
        """Incremental whole-site crawls: known pages that this run did not find again
        are re-checked once the new ones are done, through one request. True when that
        queued something."""
        if self._orphans_checked or not self.incremental.enabled or self.ledger.stop_reason:
            return False
        self._orphans_checked = True
        websites = self.frontier.orphan_sites()
        if not websites:
            return False
        request = Request(
            "data:,",
            callback=self._orphan_callback,
            dont_filter=True,
            meta={"webmd_kind": "summary", "webmd_sites": websites},
        )
        assert self.crawler is not None and self.crawler.engine is not None
        self.crawler.engine.crawl(request)
        return True
