"""Whether a website's sitemaps are worth their place ahead of the links.

A page the sitemaps listed ends as a real page row (good), or as no row, a diagnostic
or a thin page (junk). When the sitemaps keep giving junk (``SITEMAP_JUNK_AFTER``
outcomes, under ``SITEMAP_GOOD_SHARE`` of them good), their pages still waiting go
behind the links (issue 16 item 2: a sitemap of junk must not spend the website's
budgets before links from real pages are tried).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial

from webmd_spider.options import JobOptions
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.spiders.startup import call_later

logger = logging.getLogger("webmd_spider.spiders.site")

#: after this many sitemap-listed pages without a real page row (at most half the page
#: budget), with under this share of them good, the sitemaps' remaining pages are queued
#: behind the links
SITEMAP_JUNK_AFTER = 20
SITEMAP_GOOD_SHARE = 0.2


class SitemapJudge:
    """Counts the outcomes of sitemap-listed pages; demotes a junk sitemap's pages."""

    def __init__(
        self, options: JobOptions, ledger: RunLedger, demote: Callable[[str, int], None]
    ) -> None:
        self.options = options
        self.ledger = ledger
        #: ``demote(website, priority)``: re-queue the website's sitemap pages still
        #: waiting at that priority (``QueuePurge.demote_sitemap_pages``)
        self._demote = demote

    def demoted_priority(self) -> int:
        """A priority below the deepest link's."""
        return -(self.options.max_depth + 1)

    def outcome(self, site: SiteState, good: bool) -> None:
        """A page the sitemaps listed was fetched: a real page row (``good``) or not."""
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
        call_later(0, partial(self._demote, site.website, self.demoted_priority()))
