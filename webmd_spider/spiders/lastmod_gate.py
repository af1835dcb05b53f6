"""Request-free skips from the sitemap's ``lastmod``, under a sample (issue 34).

In an incremental whole-website run that reads sitemaps, the known pages (the state's)
are held while the sitemaps are read (:meth:`LastmodGate.hold`), so each one's
``lastmod`` is known when it is decided (:meth:`LastmodGate.release`):

* a page the sitemap dates no later than our last fetch (``state.lastmod.skips``) is a
  *candidate*: it waits, not requested;
* a random sample of the candidates (``state.lastmod.sample_size``) is fetched anyway,
  conditionally, at the head of the queue; every other held page is scheduled as before
  (a conditional request, its stored links walked);
* once the crawl is idle (the sample answered), :meth:`LastmodGate.resolve` writes the
  candidates' ``unchanged`` rows (``change_evidence: "sitemap-lastmod"``, the stored
  hash, nothing extracted or re-emitted) when no sampled page changed, or requests
  them all when one did: then the website's lastmod is distrusted, in this run and,
  through the state, the next ones.

Not in a JOBDIR or distributed crawl (a page held there could be lost to a kill, or
belong to another worker): known pages are scheduled at once as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from webmd_spider.items import page_row
from webmd_spider.options import JobOptions
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.spiders.budgets import SiteBudgets
from webmd_spider.spiders.incremental_state import IncrementalState
from webmd_spider.spiders.recorder import RowRecorder
from webmd_spider.spiders.responses import remember_content
from webmd_spider.state.changes import UNCHANGED
from webmd_spider.state.lastmod import distrust_reason, pick_sample, sample_size, skips
from webmd_spider.state.store import PageState

logger = logging.getLogger(__name__)

#: the state's job-level key of a website's distrust (its value: the evidence)
DISTRUST_KEY = "lastmod_distrust:"
#: change_evidence of a row written on the sitemap's word
SITEMAP_LASTMOD = "sitemap-lastmod"
#: sample requests go ahead of every page (a page's priority is -depth)
SAMPLE_PRIORITY = 10

#: Frontier.schedule_known_now(site, url, canonical, depth, via, typed, walk=None,
#: priority=None, follow=True, stored=False) -> requests
ScheduleKnown = Callable[..., Iterator[Any]]
#: Frontier.walk_stored(site, stored, depth) -> requests of the stored links
WalkStored = Callable[[SiteState, PageState, int], Iterator[Any]]


class LastmodGate:
    """The held known pages, the lastmod candidates and the sample of each website."""

    def __init__(
        self,
        options: JobOptions,
        ledger: RunLedger,
        incremental: IncrementalState,
        recorder: RowRecorder,
        budgets: SiteBudgets,
        run_id: str,
    ) -> None:
        self.options = options
        self.ledger = ledger
        self.incremental = incremental
        self.recorder = recorder
        self.budgets = budgets
        self.run_id = run_id

    # -- holding -----------------------------------------------------------------
    def open(self, site: SiteState, enabled: bool) -> None:
        """Hold the website's known pages until its sitemaps are read, when `enabled`
        (an incremental whole-website run with sitemaps, trust_lastmod not never, not
        resumable or distributed)."""
        if enabled and self.incremental.enabled and self.options.trust_lastmod != "never":
            site.known_held = []
            stored = self.incremental.meta(DISTRUST_KEY + site.website)
            if stored and self.options.trust_lastmod == "auto":
                site.lastmod_distrust = stored

    def hold(self, site: SiteState, entry: tuple[str, str, int, str, bool]) -> bool:
        """Keep a known page back while the sitemaps are read; False when the gate is
        not (or no longer) holding for this website."""
        if site.known_held is None:
            return False
        site.known_held.append(entry)
        return True

    def release(
        self, site: SiteState, schedule_known: ScheduleKnown, walk: WalkStored
    ) -> Iterator[Any]:
        """The sitemaps are read (or never will be): decide every held page. The stored
        links of each page skipped on its lastmod are walked (`walk`) as it is decided,
        from the state read to decide it (one read per page)."""
        held, site.known_held = site.known_held, None
        if held is None:
            return
        stopped = site.stop_reason or self.ledger.stop_reason
        if stopped:
            # the website (or the run) stopped meanwhile: counted, not requested
            for url, *_ in held:
                self.ledger.skip(url, stopped, site.website)
            return
        now = datetime.now(UTC)
        if site.lastmod_distrust is None and self.options.trust_lastmod == "auto":
            reason = distrust_reason(site.lastmod.values(), now)
            if reason:
                self._distrust(site, reason, remember=False)
        trusted = site.lastmod_distrust is None or self.options.trust_lastmod == "always"
        later: list[tuple[str, str, int, str, bool, PageState | None]] = []
        for url, canonical, depth, via, typed in held:
            stored = self.incremental.lookup(canonical)
            if (
                trusted
                and stored is not None
                and stored.content_hash
                and stored.settings_fingerprint == self.incremental.fingerprint
                and not self.incremental.fill_tree
                and skips(site.lastmod.get(canonical), stored.last_seen, now)
            ):
                site.lastmod_waiting[canonical] = (url, depth, via, stored.content_hash)
                yield from walk(site, stored, depth)
            else:
                later.append((url, canonical, depth, via, typed, stored))
        size = sample_size(len(site.lastmod_waiting), self.options.lastmod_sample_max)
        sample = pick_sample(list(site.lastmod_waiting), size, f"{self.run_id}:{site.website}")
        for canonical in sorted(sample):
            url, depth, via, _ = site.lastmod_waiting.pop(canonical)
            site.lastmod_sample[canonical] = None
            yield from schedule_known(
                site, url, canonical, depth, via, False, None, SAMPLE_PRIORITY
            )
        if site.lastmod_waiting:
            logger.info(
                "%s: %d known pages dated by the sitemap no later than our last fetch wait "
                "for a sample of %d fetched anyway",
                site.website,
                len(site.lastmod_waiting),
                len(sample),
            )
        for url, canonical, depth, via, typed, stored in later:
            yield from schedule_known(site, url, canonical, depth, via, typed, stored=stored)

    # -- the sample ----------------------------------------------------------------
    def outcome(self, site: SiteState, key: str, changed: bool, url: str) -> None:
        """A sampled page answered: `changed` (its content hash moved, or it is gone)
        distrusts the website's lastmod."""
        if key not in site.lastmod_sample:
            return
        site.lastmod_sample[key] = "changed" if changed else "same"
        if changed and site.lastmod_distrust is None:
            stamp = site.lastmod.get(key, "?")
            self._distrust(
                site,
                f"{url} changed although its sitemap lastmod {stamp} is older than our last fetch",
                remember=True,
            )

    def _distrust(self, site: SiteState, reason: str, remember: bool) -> None:
        site.lastmod_distrust = reason
        self.ledger.warn(f"{site.website}: sitemap lastmod not trusted: {reason}")
        if remember and self.options.trust_lastmod == "auto":
            self.incremental.set_meta(DISTRUST_KEY + site.website, reason)

    def waiting(self) -> list[SiteState]:
        """The websites whose candidates still wait (or whose pages are still held)."""
        return [
            site
            for site in self.ledger.sites.values()
            if site.lastmod_waiting or site.known_held is not None
        ]

    def resolve(self, site: SiteState, schedule_known: ScheduleKnown) -> Iterator[Any]:
        """The crawl is idle: the candidates' rows when the sample showed no change
        (or trust_lastmod=always), else their conditional requests. The website's held
        pages are released first (``Frontier.resolve_lastmod``)."""
        waiting, site.lastmod_waiting = site.lastmod_waiting, {}
        stopped = site.stop_reason or self.ledger.stop_reason
        if stopped:
            for url, *_ in waiting.values():
                self.ledger.skip(url, stopped, site.website)
            return
        trusted = site.lastmod_distrust is None or self.options.trust_lastmod == "always"
        if not trusted:
            for canonical, (url, depth, via, _) in sorted(waiting.items()):
                # their stored links were walked when they were held back
                yield from schedule_known(site, url, canonical, depth, via, False, follow=False)
            return
        for canonical, (url, depth, via, content_hash) in sorted(waiting.items()):
            row = self._unchanged_row(site, url, canonical, depth, via, content_hash)
            if row is not None:
                yield row

    def _unchanged_row(
        self, site: SiteState, url: str, canonical: str, depth: int, via: str, content_hash: str
    ) -> Any:
        """The ``unchanged`` row of a page skipped on its lastmod, from the hash the state
        held when it was decided (nothing of a waiting page is stored meanwhile: it is
        not requested), or None."""
        if canonical in site.emitted:
            # written already this run under another URL (a known alias redirected to
            # it): one row per page
            return None
        if not self.budgets.claim_page(site, url):
            return None
        site.emitted.add(canonical)
        remember_content(site, content_hash, canonical)
        site.lastmod_skipped += 1
        row = page_row(
            input=site.input,
            website=site.website,
            url=url,
            depth=depth,
            discovered_via=via,
            final_url=url,
            sitemap_lastmod=site.lastmod.get(canonical),
            content_hash=content_hash,
            change=UNCHANGED,
            change_evidence=SITEMAP_LASTMOD,
        )
        self.recorder.record(row)
        self.budgets.check_page_budget(site)
        return row
