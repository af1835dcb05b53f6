"""The run context: what the components of one crawl share, built once by the spider.

Pure module (standard library and the project's pure modules only).

The site spider builds one :class:`RunContext` from the settings and options when the
crawler creates it, before Scrapy builds the extensions, middlewares and pipelines
(``Crawler.crawl``: spider, then settings and extensions, then the engine), and
attaches it to the crawler with :func:`attach`. Every component reads it through
:func:`run_context`, which raises :class:`MissingRunContext` when there is none: a
component of this project never reads the spider's attributes, so renaming one of them
cannot silently turn a component off.

Events between components are Scrapy signals (:data:`site_stopped`), not calls into
the spider.
"""

from __future__ import annotations

import itertools
import uuid
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from webmd_spider.index.sync import ChunkSync
from webmd_spider.options import JobOptions
from webmd_spider.policy.netguard import AddressPolicy
from webmd_spider.policy.robots import RobotsRules
from webmd_spider.rows.ledger import RunLedger
from webmd_spider.state.completion import PageCompletion
from webmd_spider.state.journal import CrawlJournal
from webmd_spider.urls import canonicalize

if TYPE_CHECKING:  # the fleet is Scrapy-level (it talks to the scheduler's Redis)
    from webmd_spider.distributed import Fleet

#: Signal sent (``crawler.signals.send_catch_log(site_stopped, website=...)``) when a
#: component decides that a website stops (its budget, or the server refusing it): the
#: spider takes that website's queued requests out at once.
site_stopped = object()


class MissingRunContext(RuntimeError):
    """A component of this project ran in a crawl that has no run context."""


@dataclass
class ResumeClaims:
    """Which request of a resumed run may fetch a page URL (JOBDIR).

    With JOBDIR a page can come twice: from Scrapy's restored queue and from the
    journal's pending list. The first request for a URL claims it; retries and
    redirects carry the same claim (``webmd_claim`` in the request meta) and pass; a URL
    finished in an earlier run never passes.
    """

    journal: CrawlJournal | None = None
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    _numbers: Iterator[int] = field(default_factory=itertools.count)
    _claimed: dict[str, str] = field(default_factory=dict)

    def new_claim(self) -> str:
        """A claim no other request of this run holds."""
        return f"{self.run_id}-{next(self._numbers)}"

    def admit(self, meta: dict[str, Any]) -> str | None:
        """Why the page request with this `meta` must not be fetched, or None.
        Sets the request's claim in `meta` the first time."""
        if self.journal is None:
            return None
        key = canonicalize(meta["webmd_url"])
        if key in self.journal.done:
            return "duplicate:done in an earlier run"
        claim = meta.get("webmd_claim") or self.new_claim()
        meta["webmd_claim"] = claim
        holder = self._claimed.setdefault(key, claim)
        return None if holder == claim else "duplicate:queued twice on resume"


@dataclass
class RunContext:
    """One crawl's shared state and configuration.

    The mutable parts (the ledger, the robots rules and crawl delays per website) are
    filled in as the crawl goes; the rest is fixed when the spider is configured.
    """

    options: JobOptions = field(default_factory=JobOptions)
    #: every website's counters and every refused URL (``ledger.RunLedger``)
    ledger: RunLedger = field(default_factory=RunLedger)
    #: robots.txt rules per website, once read
    robots: dict[str, RobotsRules] = field(default_factory=dict)
    #: robots.txt Crawl-delay per website, read by the politeness middleware
    crawl_delays: dict[str, float] = field(default_factory=dict)
    #: the lower bound of ``host_delay``: the fleet's shared per-website spacing
    host_floor: float = 0.0
    ssrf_policy: AddressPolicy = field(default_factory=lambda: AddressPolicy.from_allowlist(None))
    #: the JOBDIR resume journal's claims on page URLs (admit nothing twice)
    claims: ResumeClaims = field(default_factory=ResumeClaims)
    #: when a page is done, for the resume journal and the fleet (else None)
    completion: PageCompletion | None = None
    #: a distributed crawl's shared state (None when no Redis URL is set)
    fleet: Fleet | None = None
    #: the chunk-level change feed (``changes``, ``index`` options), or None
    chunk_sync: ChunkSync | None = None

    def robots_known(self) -> bool:
        """The robots.txt rules of every website are read (or the website stopped): a
        worker of a distributed crawl takes shared pages only then, since the links
        found on them are checked against those rules."""
        return all(
            key in self.robots or site.stop_reason is not None
            for key, site in self.ledger.sites.items()
        )


# keyed by the crawler: gone with it (tests and CrawlerProcess run several)
_contexts: weakref.WeakKeyDictionary[Any, RunContext] = weakref.WeakKeyDictionary()


def attach(crawler: Any, context: RunContext) -> None:
    """Make `context` the run context of `crawler` (a ``scrapy.crawler.Crawler``)."""
    _contexts[crawler] = context


def run_context(crawler: Any) -> RunContext:
    """The run context of `crawler`; raises MissingRunContext when it has none."""
    try:
        return _contexts[crawler]
    except (KeyError, TypeError):
        raise MissingRunContext(
            "this component needs the run context of webmd's site spider "
            "(run it with `scrapy crawl site`)"
        ) from None
