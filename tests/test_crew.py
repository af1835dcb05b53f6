"""The crawl alone (webmd_spider/crew.py): the trivial side of the spider's crew."""

from __future__ import annotations

from webmd_spider.crew import SoloCrew
from webmd_spider.rows.ledger import SiteState


def test_a_crawl_alone_counts_in_its_own_ledger_and_seeds_itself() -> None:
    crew = SoloCrew()
    site = SiteState("example.com", "example.com", "site")
    site.pages, site.resumed_pages = 7, 5
    assert crew.pages_written(site) == 12  # this run's rows and the resumed run's
    assert crew.claim_page("example.com", max_pages=1)  # the spider's own check stops it
    assert (crew.shared, crew.seeder) == (False, True)
    crew.count_row("example.com", {"robots_blocked": 1}, "page")
    crew.finished("https://example.com/")
    assert crew.pages_written(site) == 12  # counting and finishing changed nothing
