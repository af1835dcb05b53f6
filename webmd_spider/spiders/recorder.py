"""Every row the spider makes is counted here, once, before it is handed on: in the
run's ledger (the site rows' counts), by the sitemap judge (a sitemap page's outcome)
and, in a distributed crawl, in the crew's shared counters. The budgets act on these
counts at once, so a row is recorded when it is made, not when it reaches the feed.
"""

from __future__ import annotations

from webmd_spider.crew import Crew
from webmd_spider.items import SKIPPED, Row
from webmd_spider.rows.ledger import RunLedger
from webmd_spider.spiders.sitemap_judge import SitemapJudge


class RowRecorder:
    """Counts each row made; ``record(row)`` returns the row."""

    def __init__(self, ledger: RunLedger, crew: Crew, judge: SitemapJudge) -> None:
        self.ledger = ledger
        self.crew = crew
        self.judge = judge

    def record(self, row: Row) -> Row:
        """Count ``row`` (once per row) and return it."""
        self.ledger.record_row(row)
        skipped = row.error_type == SKIPPED
        if row.discovered_via == "sitemap" and row.website in self.ledger.sites and not skipped:
            # a page skipped for its type (skip_page_types) is a real page the user left
            # out: no judge of the sitemaps that listed it
            good = row.row_type == "page" and not row.thin
            self.judge.outcome(self.ledger.sites[row.website], good)
        if self.crew.shared:  # alone, the ledger just counted it: no fields to build
            fields: dict[str, float] = {}
            if row.row_type == "page":
                fields = {
                    "total_words": row.word_count or 0,
                    "total_tokens": row.token_estimate or 0,
                    "boilerplate_sum": float(row.boilerplate_ratio or 0.0),
                }
            elif row.row_type == "diagnostic" and not skipped:
                fields = {"failures": 1}
            self.crew.count_row(row.website, fields, row.row_type, row.error_type)
        return row
