"""Crawl progress while the spider runs: pages written, queued, failed, the budget,
pages per second and, once the queue size is known, an ETA.

Settings / options:

* ``WEBMD_PROGRESS_SECS`` (``-a progress_secs=N``; 0 turns it off): how often;
* ``PROGRESS_DISPLAY``: where it goes. ``log`` (the default, what ``scrapy crawl``
  shows): an INFO line. ``bar``: a live progress bar on stderr (``rich``), redrawn
  twice a second, for a terminal: ``webmd crawl`` picks it when stderr is one and
  sends Scrapy's own lines to a log file. ``line``: one plain line on stderr every
  ``progress_secs`` (``webmd crawl`` not on a terminal). ``none``: nothing.

Reads the run context's ledger and options, and Scrapy's scheduler stats.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from twisted.internet.task import LoopingCall

from webmd_spider.run_context import run_context

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress as Bar

logger = logging.getLogger(__name__)

#: how often the bar is redrawn, seconds (its figures are cheap to read)
BAR_REFRESH_SECS = 0.5


@dataclass(frozen=True, slots=True)
class Progress:
    """The figures of one progress report."""

    pages: int
    failed: int
    queued: int
    #: page rows the budgets allow in all (max_pages per website)
    budget: int
    elapsed: float

    @property
    def rate(self) -> float:
        """Page rows per second so far."""
        return self.pages / max(self.elapsed, 1e-6)

    @property
    def total(self) -> int:
        """The page rows this run is heading for: the budget, or fewer when the queue
        holds less than the budget leaves."""
        return max(self.pages, min(self.budget, self.pages + self.queued))

    @property
    def eta_secs(self) -> float | None:
        """Seconds left at the rate so far; None before the first page (no rate)."""
        if not self.pages:
            return None
        return max(0, self.total - self.pages) / self.rate

    def line(self) -> str:
        """The plain progress line."""
        eta = ""
        if self.pages and self.total > self.pages:
            eta = f", ETA {(self.total - self.pages) / self.rate:.0f}s"
        return (
            f"progress: {self.pages}/{self.total} pages, {self.failed} failed, "
            f"{self.queued} queued, budget {self.budget}, {self.rate:.1f} pages/s, "
            f"{self.elapsed:.0f}s{eta}"
        )


class ProgressLog:
    """Report crawl progress at a fixed interval while the spider runs."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.display = str(crawler.settings.get("PROGRESS_DISPLAY", "log"))
        self._task: LoopingCall | None = None
        self._bar: Any = None  # rich.progress.Progress, imported only for a bar
        self._bar_task: Any = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        ext = cls(crawler)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Spider) -> None:
        interval = float(run_context(self.crawler).options.progress_secs)
        if interval <= 0 or self.display == "none":
            return
        report = self.log_progress
        if self.display == "bar":
            self._start_bar()
            interval, report = BAR_REFRESH_SECS, self._draw_bar
        elif self.display == "line":
            report = self._print_line
        self._task = LoopingCall(report)
        self._task.start(interval, now=False)

    def progress(self) -> Progress:
        """The figures now."""
        context = run_context(self.crawler)
        ledger = context.ledger
        stats = self.crawler.stats
        assert stats is not None
        queued = (stats.get_value("scheduler/enqueued", 0) or 0) - (
            stats.get_value("scheduler/dequeued", 0) or 0
        )
        websites = max(1, len(ledger.sites))
        return Progress(
            pages=ledger.row_counts.get("page", 0),
            failed=ledger.row_counts.get("diagnostic", 0),
            queued=max(0, queued),
            budget=context.options.max_pages * websites,
            elapsed=ledger.elapsed(),
        )

    def log_progress(self) -> None:
        """Write one progress line to the log."""
        logger.info("%s", self.progress().line())

    def _print_line(self) -> None:
        # the screen, not the log: webmd crawl sends the log to a file
        sys.stderr.write(self.progress().line() + "\n")
        sys.stderr.flush()

    def _start_bar(self) -> None:
        from rich.console import Console

        self._bar = progress_bar(Console(stderr=True, force_terminal=True))
        self._bar.start()
        self._bar_task = self._bar.add_task("crawl", **bar_fields(None))

    def _draw_bar(self) -> None:
        self._bar.update(self._bar_task, **bar_fields(self.progress()))
        self._bar.refresh()

    def spider_closed(self, spider: Spider) -> None:
        if self._task is not None and self._task.running:
            self._task.stop()
        if self._bar is not None:
            self._draw_bar()
            self._bar.stop()
            self._bar = None


def eta_text(seconds: float | None) -> str:
    """``ETA h:mm:ss`` (rich's own format), or ``ETA -:--:--`` while unknown."""
    if seconds is None:
        return "ETA -:--:--"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"ETA {hours}:{minutes:02d}:{secs:02d}"


def bar_fields(now: Progress | None) -> dict[str, Any]:
    """The bar task's values for the figures ``now`` (None: nothing fetched yet):
    ``completed`` and ``total`` for the bar, and the ``count``, ``detail`` and ``eta``
    texts of :func:`progress_bar`'s columns."""
    if now is None:
        return {
            "completed": 0,
            "total": None,
            "count": "0 pages",
            "detail": "starting",
            "eta": eta_text(None),
        }
    total = now.total if now.queued or now.pages else None
    return {
        "completed": now.pages,
        "total": total,
        "count": f"{now.pages}/{total} pages" if total else "0 pages",
        "detail": f"{now.queued} queued · {now.failed} failed · {now.rate:.1f}/s · "
        f"budget {now.budget}",
        "eta": eta_text(now.eta_secs),
    }


def progress_bar(console: Console) -> Bar:
    """The live bar, drawn on ``console``: ``crawling``, the bar, the page count, the
    details and the ETA, on one line that fits the terminal. The details column alone
    takes what width is left and is cut with an ellipsis (it comes last in
    importance), so the count and the ETA stay whole down to about 60 columns (an
    80-column terminal cut the ETA to ``0:00:…``: issue 31). The ETA is our own
    (pages left at the rate so far, as the plain line says), not rich's estimate."""
    from rich.progress import BarColumn, TextColumn
    from rich.progress import Progress as Bar
    from rich.table import Column

    whole = Column(no_wrap=True)
    return Bar(
        TextColumn("[bold]crawling", table_column=Column(no_wrap=True)),
        BarColumn(bar_width=16),
        TextColumn("{task.fields[count]}", table_column=whole),
        TextColumn(
            "{task.fields[detail]}",
            table_column=Column(ratio=1, no_wrap=True, overflow="ellipsis"),
        ),
        TextColumn("{task.fields[eta]}", table_column=Column(no_wrap=True)),
        console=console,
        # the table takes the whole width: only then does rich give the ratio column
        # the rest and cut it, instead of squeezing every column
        expand=True,
        auto_refresh=False,  # redrawn from the reactor: no drawing thread
        transient=False,
    )
