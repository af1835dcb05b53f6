"""The page and failure budgets of each website (see the ``site`` spider's docstring,
"Budgets per website").

* ``max_pages`` page rows, then ``stop_reason: page_budget`` (a page of a resumed JOBDIR
  run, or of another worker of a distributed crawl, counts too: ``crew.pages_written``);
* ``max_pages`` fetched pages that gave no page row, then ``failure_budget`` (a page
  skipped for its type, ``skip_page_types``, counts only past ``max_pages`` of them);
* no new page request while those made and not finished reach :data:`QUEUE_FACTOR`
  times what the two budgets can still use (not in a distributed crawl: the shared
  queue is fed and drained by every worker, no one of them can count it).

A website that reaches a budget is stopped through the `stop` callable the spider gives
(it sets the stop reason and takes the website's queued requests out).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from webmd_spider.crew import Crew
from webmd_spider.options import JobOptions
from webmd_spider.rows.ledger import RunLedger, SiteState

# the spider's own logger: its budget messages read as they always did
logger = logging.getLogger("webmd_spider.spiders.site")

#: New page requests of a website are not made while those made and not finished reach
#: this many times what its budgets can still use.
QUEUE_FACTOR = 2


class SiteBudgets:
    """Counts against each website's budgets; stops the website at one."""

    def __init__(
        self,
        options: JobOptions,
        ledger: RunLedger,
        crew: Crew,
        run_id: str,
        stop: Callable[[SiteState, str], None],
    ) -> None:
        self.options = options
        self.ledger = ledger
        self.crew = crew
        #: this run's id in ``webmd_queued``: a request restored from an earlier run's
        #: queue is not counted in ``site.queued``
        self.run_id = run_id
        self._stop = stop

    def room(self, site: SiteState) -> int:
        """Page fetches the website's budgets can still use."""
        limit = self.options.max_pages
        if site.page_limit is not None:
            limit = min(limit, site.page_limit)
        pages = max(0, limit - site.pages - site.resumed_pages)
        return pages + max(0, self.options.max_pages - site.misses)

    def queue_full(self, site: SiteState) -> bool:
        """The website's page requests made and not finished reach QUEUE_FACTOR times
        the fetches its budgets can still use (each fetch ends as a page row or counts
        against the failure budget)."""
        return not self.crew.shared and site.queued >= QUEUE_FACTOR * self.room(site)

    def release(self, meta: dict[str, Any]) -> None:
        """A page request of this run ended (answered, failed, dropped or taken out of
        the queue): it no longer counts in ``site.queued``."""
        if meta.pop("webmd_queued", None) == self.run_id:
            site = self.ledger.sites.get(meta.get("webmd_site", ""))
            if site is not None and site.queued > 0:
                site.queued -= 1

    def missed(self, site: SiteState) -> None:
        """A fetched page gave no page row (a diagnostic row, or a duplicate found after
        the fetch). ``max_pages`` of them stop the website with ``failure_budget``:
        with ``max_pages`` page rows (``page_budget``) that bounds a website to about
        2 x max_pages page fetches. Per worker in a distributed crawl."""
        site.misses += 1
        if site.stop_reason is None and site.misses >= self.options.max_pages:
            logger.info(
                "%s: %d fetched pages gave no page row (max_pages): no more fetches",
                site.website,
                site.misses,
            )
            self._stop(site, "failure_budget")

    def skipped(self, site: SiteState) -> None:
        """A fetched page of a type the crawl skips (``skip_page_types``) gave a
        ``skipped`` row: neither a page row nor a failure, so it spends neither budget
        (skipping the listings must not stop a website before its content is reached).
        Past ``max_pages`` of them each further one counts as a miss (:meth:`missed`):
        a website that offers nothing but skipped pages (an endless calendar of
        listings) still ends, with ``failure_budget``."""
        site.skipped += 1
        if site.skipped > self.options.max_pages:
            self.missed(site)

    def claim_page(self, site: SiteState, url: str) -> bool:
        """A distributed crawl counts page rows in Redis: False past its page budget."""
        if self.crew.claim_page(site.website, self.options.max_pages):
            return True
        self._stop(site, "page_budget")
        self.ledger.skip(url, "page_budget", site.website)
        return False

    def check_page_budget(self, site: SiteState) -> None:
        """After a page row: stop the website at its page budget (pages written by an
        earlier run of a resumed JOBDIR, or by the other workers of a distributed crawl,
        count too)."""
        pages = self.crew.pages_written(site)
        if site.page_limit is not None and pages >= site.page_limit:
            self._stop(site, "crawl_delay")
        elif pages >= self.options.max_pages:
            self._stop(site, "page_budget")
            logger.info("%s: page budget of %d reached", site.website, self.options.max_pages)
