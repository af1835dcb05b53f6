"""Who shares a crawl: the interface the site spider uses whether it crawls alone or as
one worker of a distributed crawl.

Pure module (standard library and the pure ledger). :class:`SoloCrew` is the crawl in one
process and does nothing of its own: the spider's ledger holds every count. A
distributed crawl's ``webmd_spider.distributed.Fleet`` implements the same methods on
Redis. So the spider calls the crew where the two differ only in where the numbers live,
and tests ``crew.shared`` only where they behave differently.
"""

from __future__ import annotations

from typing import Protocol

from webmd_spider.rows.ledger import SiteState


class Crew(Protocol):
    """What the spider asks of whoever shares its crawl."""

    #: several workers share the queue and the budgets (a distributed crawl)
    shared: bool
    #: this worker reads the robots.txt files and sitemaps and queues the start pages
    seeder: bool

    def count_row(
        self,
        website: str | None,
        fields: dict[str, float],
        row_type: str | None = None,
        error_type: str | None = None,
    ) -> None:
        """Add a row's numbers to the crawl's counters."""

    def claim_page(self, website: str, max_pages: int) -> bool:
        """Count one page row of `website`; False past the crawl's page budget."""

    def pages_written(self, site: SiteState) -> int:
        """The page rows the crawl has written for `site` (the page budget's count)."""

    def finished(self, key: str) -> None:
        """The page `key` is done: no longer in flight."""


class SoloCrew:
    """The crawl in one process: the spider's own ledger holds every count."""

    shared = False
    seeder = True

    def count_row(
        self,
        website: str | None,
        fields: dict[str, float],
        row_type: str | None = None,
        error_type: str | None = None,
    ) -> None:
        """Nothing: the ledger counted the row already."""

    def claim_page(self, website: str, max_pages: int) -> bool:
        """Always: the spider's own budget check stops the website in time."""
        return True

    def pages_written(self, site: SiteState) -> int:
        """This run's page rows and those of the run it resumes."""
        return site.pages + site.resumed_pages

    def finished(self, key: str) -> None:
        """Nothing: no other worker takes pages over."""
