"""The run ledger: what a crawl discovered, fetched, emitted and rejected, per website.

Pure module (standard library and the row schema only). The spider owns one ledger per
run; middlewares and extensions read it through the run context
(``run_context.RunContext.ledger``). It is the source of the
site rows and of the run summary, so nothing a run discovers can vanish: every URL ends
as a row or as a counted rejection, listed by URL up to :data:`MAX_LISTED` per reason.
The summary's ``rejected_unlisted`` and ``not_fetched_unlisted`` say, per reason, how
many counted URLs are not listed: those past the limit, and those counted without a URL
to name (the entries of a sitemap file left unread).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from webmd_spider.extract.repeated import RepeatedParagraphs
from webmd_spider.items import SKIPPED, Row, site_row
from webmd_spider.rows.removed_totals import RemovedTotals

#: How many rejected URLs, and how many unfetched ones, the summary lists by name for
#: each reason (the part of the reason before any ``:``); all are counted, and the
#: ones past the limit are only counted. Per reason, so that a flood of one kind (a
#: sitemap's budget overflow) cannot hide another (robots, nofollow). Also the bound
#: of the warnings list.
MAX_LISTED = 1000


@dataclass(slots=True)
class SiteState:
    """One website's progress. ``website`` is the site key (host without ``www.``)."""

    website: str
    input: str
    mode: str  # "site" (whole website: sitemaps or links) or "list" (the given pages)
    root: str | None = None  # scheme://host/ chosen by the discovery probe
    discovery: str = "links"  # sitemap | links | list
    sitemap_url_count: int = 0
    sitemap_files: int = 0
    pending_sitemaps: int = 0
    robots_blocked: int = 0
    pages: int = 0
    failures: int = 0
    total_words: int = 0
    total_tokens: int = 0
    boilerplate_sum: float = 0.0
    #: the loss audit of its page rows, summed (the site row's ``removed``)
    removed: RemovedTotals = field(default_factory=RemovedTotals)
    #: the short paragraphs of its pages, counted (``remove_repeated_blocks``)
    repeated: RepeatedParagraphs = field(default_factory=RepeatedParagraphs)
    #: set when the site stops early (page_budget, failure_budget, unreachable…)
    stop_reason: str | None = None
    refusals: int = 0  # 429/503 answers in a row (reset by any other answer)
    robots_retries: int = 0  # times an unavailable robots.txt was asked again
    page_limit: int | None = None  # a tighter page budget (a Crawl-delay over max_crawl_delay)
    resumed_pages: int = 0  # page rows an earlier run of the same JOBDIR already wrote
    #: fetched pages that gave no page row: diagnostic rows of its pages and duplicates
    #: found after the fetch; max_pages of them stop the website (``failure_budget``)
    misses: int = 0
    #: fetched pages of a type the crawl skips (``skip_page_types``): not failures, not
    #: pages (``SiteBudgets.skipped`` bounds them)
    skipped: int = 0
    #: page requests of this run made and not yet finished (queued, in flight); new
    #: pages are not scheduled past a small multiple of what the budgets can still use
    queued: int = 0
    lastmod: dict[str, str] = field(default_factory=dict)  # canonical URL -> sitemap lastmod
    #: incremental runs (trust_lastmod): known pages wait here while the sitemaps are read,
    #: as (url, canonical, depth, via, typed); None when they are scheduled at once
    known_held: list[tuple[str, str, int, str, bool]] | None = None
    #: known pages the sitemap's lastmod lets us skip, waiting for the sample's verdict:
    #: canonical -> (url, depth, via, stored content hash)
    lastmod_waiting: dict[str, tuple[str, int, str, str]] = field(default_factory=dict)
    #: the sample fetched anyway: canonical -> None (no answer yet), "same" or "changed"
    lastmod_sample: dict[str, str | None] = field(default_factory=dict)
    lastmod_skipped: int = 0
    #: an incremental run's pages refused as copies of a known page not yet re-checked:
    #: known canonical URL -> [(url, depth, via)]; fetched again if that page is gone
    copies_of_known: dict[str, list[tuple[str, int, str]]] = field(default_factory=dict)
    #: why this website's lastmod is not trusted (this run's evidence or an earlier run's)
    lastmod_distrust: str | None = None
    seen: set[str] = field(default_factory=set)  # canonical URLs already scheduled
    seen_raw: set[str] = field(default_factory=set)  # the same, as written in links
    emitted: set[str] = field(default_factory=set)  # canonical final URLs written as pages
    #: same-website rel=canonical URLs declared by pages written (a later page declaring
    #: one of them is a duplicate; the URL itself is still fetched when linked)
    declared: set[str] = field(default_factory=set)
    #: content_hash (first 128 bits) of every page row written -> its canonical URL
    content: dict[bytes, str] = field(default_factory=dict)
    #: the same for the pages an incremental state holds (read when first needed)
    stored_content: dict[bytes, str] | None = None
    sitemap_seen: set[str] = field(default_factory=set)  # canonical sitemap URLs requested
    #: canonical page URLs the site's sitemaps list (and the crawl's scope accepts):
    #: `sitemap_url_count` is its size, whatever link discovery found first
    sitemap_listed: set[str] = field(default_factory=set)
    sitemap_guesses: list[str] = field(default_factory=list)  # well-known paths left to try
    #: pages listed by the sitemaps, fetched: with a real page row, and without one (a
    #: diagnostic, a duplicate or a thin page); see spiders/sitemap_judge.py
    sitemap_good: int = 0
    sitemap_junk: int = 0
    #: the sitemaps list junk: their pages left are not fetched (`sitemap_junk`), links
    #: go on (issue 16 item 2: junk must not spend the budget before links are tried)
    sitemap_abandoned: bool = False
    #: while the sitemaps are read (discovery=sitemaps+links): the links of pages
    #: fetched meanwhile, (links, nofollow, depth), followed once they are read
    held_links: list[tuple[list[str], bool, int]] | None = None
    #: URLs found only beyond max_depth so far (canonical -> URL); a shallower path found
    #: later still schedules them, and those left at the end are counted as rejections.
    too_deep: dict[str, str] = field(default_factory=dict)

    def final_stop_reason(self, run_stop_reason: str | None) -> str:
        """Why this website stopped: its own reason, else the run's, else finished."""
        return self.stop_reason or run_stop_reason or "finished"

    def to_row(self, run_stop_reason: str | None) -> Row:
        """The ``site`` row for this website."""
        avg_boilerplate = round(self.boilerplate_sum / self.pages, 3) if self.pages else 0.0
        return site_row(
            input=self.input,
            website=self.website,
            url=self.root,
            pages_extracted=self.pages,
            discovery=self.discovery,
            sitemap_url_count=self.sitemap_url_count,
            robots_blocked=self.robots_blocked,
            total_words=self.total_words,
            total_tokens=self.total_tokens,
            avg_boilerplate_ratio=avg_boilerplate,
            removed=self.removed.to_column(),
            failures=self.failures,
            stop_reason=self.final_stop_reason(run_stop_reason),
            lastmod_skipped=self.lastmod_skipped,
            lastmod_distrust=self.lastmod_distrust,
        )


@dataclass(slots=True)
class RunLedger:
    """Counters and bounded lists for one run; see the module docstring."""

    started: float = field(default_factory=time.monotonic)
    sites: dict[str, SiteState] = field(default_factory=dict)
    row_counts: Counter[str] = field(default_factory=Counter)
    error_counts: Counter[str] = field(default_factory=Counter)
    rejected_counts: Counter[str] = field(default_factory=Counter)
    rejected: list[dict[str, str]] = field(default_factory=list)
    not_fetched_counts: Counter[str] = field(default_factory=Counter)
    not_fetched: list[dict[str, str]] = field(default_factory=list)
    #: entries of `rejected` and `not_fetched` per reason key (bounded by MAX_LISTED)
    rejected_listed: Counter[str] = field(default_factory=Counter)
    not_fetched_listed: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    #: extra top-level entries of the summary (a distributed crawl's "scope", "crawl")
    extra: dict[str, Any] = field(default_factory=dict)
    stop_reason: str | None = None  # run-level: time_budget, shutdown …

    def add_site(self, site: SiteState) -> SiteState:
        """Register a website; returns the existing state when the key is known."""
        return self.sites.setdefault(site.website, site)

    def reject(self, url: str, reason: str, website: str | None = None) -> None:
        """A URL that was discovered but refused (robots, pattern, scope, duplicate…):
        counted under ``reason``'s key (before any ``:``), and listed with the whole
        reason while that key has fewer than :data:`MAX_LISTED` entries."""
        key = reason.split(":", 1)[0]
        self.rejected_counts[key] += 1
        if self.rejected_listed[key] < MAX_LISTED:
            self.rejected_listed[key] += 1
            self.rejected.append({"url": url, "reason": reason, "website": website or ""})

    def reject_all(self, urls: Iterable[str], reason: str, website: str | None = None) -> None:
        """:meth:`reject` each of ``urls`` (a page's ``rel="nofollow"`` links)."""
        for url in urls:
            self.reject(url, reason, website)

    def skip(self, url: str, reason: str, website: str | None = None) -> None:
        """A URL that was accepted but not fetched (budget reached, run stopped…):
        counted, and listed while ``reason`` has fewer than :data:`MAX_LISTED`."""
        self.not_fetched_counts[reason] += 1
        if self.not_fetched_listed[reason] < MAX_LISTED:
            self.not_fetched_listed[reason] += 1
            self.not_fetched.append({"url": url, "reason": reason, "website": website or ""})

    def unskip(self, url: str, reason: str) -> None:
        """Take back a :meth:`skip` of ``url`` for ``reason``: the URL got a row after
        all (a refused URL whose retry was dropped; see the site spider's
        ``page_failed``). The listed entry is looked for from the end (it is usually
        the last one)."""
        count = self.not_fetched_counts.get(reason, 0)
        if count <= 0:
            return
        if count == 1:
            del self.not_fetched_counts[reason]
        else:
            self.not_fetched_counts[reason] = count - 1
        listed = self.not_fetched
        for index in range(len(listed) - 1, -1, -1):
            if listed[index]["url"] == url and listed[index]["reason"] == reason:
                del listed[index]
                self.not_fetched_listed[reason] -= 1
                return

    def warn(self, message: str) -> None:
        """A warning for the run summary (bounded like the URL lists)."""
        if len(self.warnings) < MAX_LISTED:
            self.warnings.append(message)

    def record_row(self, row: Row) -> None:
        """Count a row about to be written, and fold a page into its site's totals."""
        self.row_counts[row.row_type] += 1
        site = self.sites.get(row.website or "")
        if row.row_type == "diagnostic":
            self.error_counts[row.error_type or "unknown"] += 1
            if site is not None and row.error_type != SKIPPED:
                # a page skipped for its type (skip_page_types) did not fail
                site.failures += 1
        elif row.row_type == "page" and site is not None:
            site.pages += 1
            site.total_words += row.word_count or 0
            site.total_tokens += row.token_estimate or 0
            site.boilerplate_sum += row.boilerplate_ratio or 0.0
            site.removed.add(row.removed, row.url)

    def elapsed(self) -> float:
        """Seconds since the run started."""
        return time.monotonic() - self.started

    def overall_stop_reason(self) -> str:
        """The run's stop reason: a run-level stop wins, then a site budget, else finished."""
        if self.stop_reason:
            return self.stop_reason
        reasons = {s.stop_reason for s in self.sites.values() if s.stop_reason}
        for reason in ("page_budget", "failure_budget"):
            if reason in reasons:
                return reason
        return "finished"

    def summary(self) -> dict[str, Any]:
        """The run summary as a JSON-ready dict."""
        return {
            "stop_reason": self.overall_stop_reason(),
            "elapsed_secs": round(self.elapsed(), 2),
            "rows": dict(self.row_counts),
            "errors": dict(self.error_counts),
            "websites": {
                key: {
                    "pages": s.pages,
                    "failures": s.failures,
                    "discovery": s.discovery,
                    "robots_blocked": s.robots_blocked,
                    "stop_reason": s.final_stop_reason(self.stop_reason),
                    "removed": s.removed.to_column(),
                }
                for key, s in self.sites.items()
            },
            "rejected_counts": dict(self.rejected_counts),
            "rejected": self.rejected,
            "rejected_unlisted": _unlisted(self.rejected_counts, self.rejected_listed),
            "not_fetched_counts": dict(self.not_fetched_counts),
            "not_fetched": self.not_fetched,
            "not_fetched_unlisted": _unlisted(self.not_fetched_counts, self.not_fetched_listed),
            "warnings": self.warnings,
            **self.extra,
        }


def _unlisted(counts: Counter[str], listed: Counter[str]) -> dict[str, int]:
    """Per reason, how many counted URLs the list does not name (only reasons with
    some): past :data:`MAX_LISTED`, or counted with no URL to list."""
    return {key: n - listed[key] for key, n in counts.items() if n > listed[key]}


def format_counts(counts: dict[str, int]) -> str:
    """``duplicate 3, robots 1`` (largest first, then by name), or ``none``: counts of
    the summary as a line for a person, not a Python dict's repr."""
    if not counts:
        return "none"
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{name} {number}" for name, number in ordered)
