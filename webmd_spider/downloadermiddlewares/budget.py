"""Stop fetching what the run no longer wants: pages past a site's page budget, and
everything once the run's time budget is spent.

Reads the run's ledger and options (``run_context.RunContext``); requests carry
``webmd_site`` and ``webmd_kind`` in their meta. A refused request is recorded in the ledger as "not
fetched" with the reason, marked ``webmd_rejected`` in its meta (so the spider's
errback writes no diagnostic row for it) and dropped with ``IgnoreRequest``. Requests
of kind ``summary`` (the spider's own ``data:`` request that re-checks the pages an
incremental run did not find again) always pass. The first page request refused for a
stopped website sends the ``run_context.site_stopped`` signal: the spider takes the
website's other waiting requests out of the queues at once instead of one by one here
(the spider does so itself for the stops it decides). Every request's
``download_timeout`` is also cut so that no download outlives the run's time budget by
more than BUDGET_SLACK_SECS (settings read: DOWNLOAD_TIMEOUT).
"""

from __future__ import annotations

from typing import Self

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest

from webmd_spider.rows.ledger import RunLedger
from webmd_spider.run_context import run_context, site_stopped

#: A download may run this long past the run's time budget before it is cut off.
BUDGET_SLACK_SECS = 2.0


class BudgetMiddleware:
    """Drop queued requests once their site or the run has reached its budget."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.timeout = crawler.settings.getfloat("DOWNLOAD_TIMEOUT", 180)

    def _bound_timeout(self, request: Request, ledger: RunLedger, budget: float) -> None:
        """No download outlives the run budget by more than BUDGET_SLACK_SECS: a hanging
        server cannot hold the end of the run for a whole DOWNLOAD_TIMEOUT."""
        remaining = float(budget) - ledger.elapsed() + BUDGET_SLACK_SECS
        current = float(request.meta.get("download_timeout", self.timeout))
        request.meta["download_timeout"] = max(1.0, min(current, remaining))

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        kind = request.meta.get("webmd_kind")
        if kind in (None, "summary"):
            return
        context = run_context(self.crawler)
        ledger = context.ledger
        website = request.meta.get("webmd_site", "")
        self._bound_timeout(request, ledger, context.options.max_run_secs)
        if kind == "page":
            duplicate = context.claims.admit(request.meta)
            if duplicate is not None:
                # a resumed run's second copy of a page request: not a skipped page
                ledger.reject(request.url, duplicate, website)
                request.meta["webmd_rejected"] = duplicate
                raise IgnoreRequest(duplicate)
        reason = ledger.stop_reason
        if reason is None and kind == "page":
            site = ledger.sites.get(website)
            if site is not None and site.stop_reason is not None:
                reason = site.stop_reason
                self.crawler.signals.send_catch_log(site_stopped, website=website)
        if reason is None:
            return
        ledger.skip(request.url, reason, website)
        if self.crawler.stats is not None:
            self.crawler.stats.inc_value(f"webmd/not_fetched/{reason}")
        request.meta["webmd_rejected"] = reason
        raise IgnoreRequest(f"not fetched: {reason}")
