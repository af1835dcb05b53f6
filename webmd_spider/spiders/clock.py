"""The run's time budget as the spider's pieces read it: when it ends, when its grace
period ends, and whether an answer of a website may still be written.

The timer that acts at the budget is ``spiders/time_budget.py``; this is what everyone
else asks. It is read on the clock as well as set by the timer: a callback that holds
the event loop delays the timer, never the budget.
"""

from __future__ import annotations

import time

from webmd_spider.rows.ledger import RunLedger, SiteState

#: After the time budget, downloads in flight get this long before the spider writes its
#: site rows and closes (the run must end within seconds of its budget).
STOP_GRACE_SECS = 3.0
#: A website stopped for one of these writes nothing more: answers in flight are skipped
#: (counted as not fetched), except its refusals once it stopped as ``blocked``: a URL
#: the server refused (429/503) has its ``blocked`` row (``spiders/page_answers.py``).
HARD_STOPS = frozenset({"page_budget", "failure_budget", "crawl_delay", "blocked"})
#: Every reason a website or the run stops for (a request refused for one of them was
#: not fetched; one sent before it is an ``aborted`` row).
STOP_REASONS = HARD_STOPS | {"time_budget", "shutdown"}
#: How a stop is named in an ``aborted`` row's message (others: the reason, spaced).
STOP_NAMES = {
    "crawl_delay": "crawl-delay limit",
    "blocked": "the website refused too many requests",
    "shutdown": "shutdown (Ctrl-C or a shutdown signal)",
}


def aborted_message(reason: str, detail: str) -> str:
    """The ``error`` of an ``aborted`` row: the stop first (``aborted: failure budget``),
    then what became of the request (``detail``), so a reader sees why it has no page."""
    name = STOP_NAMES.get(reason, reason.replace("_", " "))
    return f"aborted: {name}; {detail}" if detail else f"aborted: {name}"


class RunClock:
    """The deadline of the run (``time.monotonic()``) and whether it is closing."""

    def __init__(self, ledger: RunLedger) -> None:
        self.ledger = ledger
        #: time.monotonic() of the time budget (set when the crawl starts)
        self.deadline = float("inf")
        #: the time budget's grace is over: no row is written any more (the site rows
        #: follow at the close, after every row already made)
        self.closing = False

    def past_deadline(self) -> bool:
        """The time budget is spent (whether or not its timer has fired yet)."""
        return time.monotonic() >= self.deadline

    def past_grace(self) -> bool:
        """The run is past its time budget's grace: no row is made any more."""
        return self.closing or time.monotonic() >= self.deadline + STOP_GRACE_SECS

    def stopped(self, site: SiteState) -> str | None:
        """Why an answer of this website must not be written now, or None: the website
        stopped for good (HARD_STOPS), or the run is past its time budget's grace."""
        if site.stop_reason in HARD_STOPS:
            return site.stop_reason
        if self.past_grace():
            return self.ledger.stop_reason or "time_budget"
        return None
