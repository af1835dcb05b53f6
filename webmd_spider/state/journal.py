"""The resume journal of a ``JOBDIR`` run: which page URLs were queued, which finished.

Pure module (standard library only).

Why our own journal next to Scrapy's ``JOBDIR``: Scrapy saves its request queue only
when the spider closes cleanly, and its dupefilter's ``requests.seen`` through a
buffered file. After a ``kill -9`` the next run therefore finds most URLs marked as
seen but none of them queued: everything not yet fetched would be lost. This journal
is append-only and unbuffered (one ``write`` per line, so a kill leaves at most one
torn last line, which is skipped), and records

* ``["Q", canonical, url, depth, via, website]`` when a page request is scheduled,
* ``["D", canonical, row_type]`` after that page's row reached the feed (and its links
  were queued), with a page row's ``content_hash`` as a fourth value,
* ``["O"]`` when a run starts and ``["C"]`` when it closes cleanly: a journal whose last
  line is not ``["C"]`` belongs to a run that was killed, whose Scrapy queue on disk is
  stale (queuelib's disk queues save their read/write positions only on close, so a
  killed run's queue hands out old requests and loses the new ones).

On the next run with the same ``JOBDIR`` the pending URLs (queued, not done) are
scheduled again and the done ones are never fetched again.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

JOURNAL_NAME = "webmd-journal.jsonl"


@dataclass(frozen=True, slots=True)
class QueuedUrl:
    """A page URL that was scheduled: enough to schedule it again."""

    canonical: str
    url: str
    depth: int
    via: str
    website: str


class CrawlJournal:
    """Append-only journal under a JOBDIR; reads what earlier runs left on open."""

    def __init__(self, jobdir: str | Path) -> None:
        self.path = Path(jobdir) / JOURNAL_NAME
        #: what earlier runs recorded (this run's own lines are only written)
        self.queued: dict[str, QueuedUrl] = {}
        self.done: dict[str, str] = {}  # canonical URL -> row type of its row
        self.content: dict[str, str] = {}  # canonical URL -> content_hash of its page row
        self.torn_lines = 0
        #: the last run recorded here closed cleanly (or there was none)
        self.clean = True
        if self.path.exists():
            self._load()
        self.resumed = bool(self.queued or self.done)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # unbuffered: a line is in the kernel as soon as write() returns, so kill -9
        # loses nothing that was recorded
        self._file = open(self.path, "ab", buffering=0)  # noqa: SIM115 - kept open for the run
        self._append(["O"])

    def _load(self) -> None:
        with open(self.path, "rb") as handle:
            for raw in handle:
                try:
                    entry = json.loads(raw)
                    kind = entry[0]
                    self.clean = kind == "C"
                    if kind == "Q":
                        _, canonical, url, depth, via, website = entry
                        self.queued.setdefault(
                            canonical, QueuedUrl(canonical, url, int(depth), via, website)
                        )
                    elif kind == "D":
                        self.done[entry[1]] = entry[2]
                        if len(entry) > 3 and entry[3]:
                            self.content[entry[1]] = str(entry[3])
                except (ValueError, TypeError, IndexError):
                    self.torn_lines += 1  # a line cut by a kill: its URL is simply pending
        if self.torn_lines:
            logger.info(
                "resume journal %s: %d unreadable line(s) skipped", self.path, self.torn_lines
            )

    def _append(self, entry: list[object]) -> None:
        if self._file.closed:
            return  # a row exported while the spider closes: it is in the feed already
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._file.write(line.encode("utf-8"))

    def queue(self, item: QueuedUrl) -> None:
        """Record a scheduled page URL. The caller schedules each canonical URL once;
        what this run queues is not kept in memory (the spider's own sets hold it)."""
        self._append(["Q", item.canonical, item.url, item.depth, item.via, item.website])

    def finish(self, canonical: str, row_type: str, content_hash: str | None = None) -> None:
        """Record that ``canonical`` has its row in the feed (or needs none); a page
        row's ``content_hash`` is kept for the content-duplicate check of a resume."""
        entry: list[object] = ["D", canonical, row_type]
        if content_hash:
            entry.append(content_hash)
        self._append(entry)

    def pending(self, website: str) -> list[QueuedUrl]:
        """URLs of ``website`` queued by an earlier run and not done, in queue order."""
        return [
            q for q in self.queued.values() if q.website == website and q.canonical not in self.done
        ]

    def done_pages(self, website: str) -> int:
        """How many page rows ``website`` already has from earlier runs."""
        return sum(
            1
            for canonical, row_type in self.done.items()
            if row_type == "page"
            and canonical in self.queued
            and self.queued[canonical].website == website
        )

    def close(self) -> None:
        """Record a clean close and close the file; safe to call twice."""
        if not self._file.closed:
            self._append(["C"])
            self._file.close()
