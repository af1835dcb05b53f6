"""The websites' page and failure budgets (webmd_spider/spiders/budgets.py), on plain data."""

from __future__ import annotations

from webmd_spider.crew import SoloCrew
from webmd_spider.options import JobOptions
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.spiders.budgets import QUEUE_FACTOR, SiteBudgets


def budgets(max_pages: int = 3) -> tuple[SiteBudgets, SiteState, list[tuple[str, str]]]:
    ledger = RunLedger()
    site = ledger.add_site(SiteState("example.com", "example.com", "site"))
    stops: list[tuple[str, str]] = []
    made = SiteBudgets(
        JobOptions(max_pages=max_pages),
        ledger,
        SoloCrew(),
        "run1",
        lambda s, reason: stops.append((s.website, reason)),
    )
    return made, site, stops


def test_misses_stop_the_website_at_max_pages_with_failure_budget() -> None:
    made, site, stops = budgets(max_pages=3)
    made.missed(site)
    made.missed(site)
    assert stops == []
    made.missed(site)
    assert stops == [("example.com", "failure_budget")]


def test_page_rows_stop_the_website_at_its_page_budget_or_crawl_delay_limit() -> None:
    made, site, stops = budgets(max_pages=3)
    site.pages, site.resumed_pages = 1, 1
    made.check_page_budget(site)
    assert stops == []
    site.pages = 2  # with the resumed run's page: 3
    made.check_page_budget(site)
    assert stops == [("example.com", "page_budget")]
    made, site, stops = budgets(max_pages=3)
    site.page_limit, site.pages = 1, 1  # a Crawl-delay over max_crawl_delay: one page
    made.check_page_budget(site)
    assert stops == [("example.com", "crawl_delay")]


def test_the_queue_holds_at_most_queue_factor_times_the_room_left() -> None:
    made, site, _ = budgets(max_pages=3)
    assert made.room(site) == 3 + 3  # page rows left plus misses left
    site.queued = QUEUE_FACTOR * 6 - 1
    assert not made.queue_full(site)
    site.queued += 1
    assert made.queue_full(site)


def test_only_this_runs_requests_are_released_from_the_queue_count() -> None:
    made, site, _ = budgets()
    site.queued = 2
    ours = {"webmd_queued": "run1", "webmd_site": "example.com"}
    made.release(ours)
    made.release(ours)  # released once: the mark is gone
    made.release({"webmd_queued": "an-earlier-run", "webmd_site": "example.com"})
    assert site.queued == 1


def test_a_crawl_alone_always_claims_its_page() -> None:
    made, site, stops = budgets(max_pages=1)
    assert made.claim_page(site, "https://example.com/a")
    assert stops == []


def test_skipped_pages_spend_no_budget_until_max_pages_of_them() -> None:
    made, site, stops = budgets(max_pages=3)
    for _ in range(3):
        made.skipped(site)
    assert (site.skipped, site.misses, stops) == (3, 0, [])
    # past max_pages of them each one counts as a miss: a website of nothing but
    # skipped pages (an endless calendar of listings) still ends
    for _ in range(3):
        made.skipped(site)
    assert (site.skipped, site.misses) == (6, 3)
    assert stops == [("example.com", "failure_budget")]
