"""When a fetched page is done: its row is in the feed and every link it found is queued.

Pure module (standard library only).

A resumable crawl marks a page done in two places: the resume journal (``JOBDIR``) and,
in a distributed crawl, the worker's in-flight list in Redis (a dead worker's unfinished
pages are queued again). Marking a page done when its row is written is not enough:
Scrapy hands a callback's outputs to several concurrent tasks (``CONCURRENT_ITEMS``), so
the row can reach the feed while the page's links are still on their way to the shared
queue. A worker killed in between loses those links for good: the page is done, nobody
fetches it again, and no other page links them (issue 16 item 3). So a page is done
when all of these are settled:

* the callback's output has been read to its end (a hold taken for the callback);
* each row it yielded was written, dropped or failed (a hold per row);
* each page request it yielded was placed in the queue or filtered as already seen
  (a hold per request, released by the scheduler).

:class:`PageCompletion` counts those holds per page key and calls ``on_done`` once
they are all released. A row of a page with no hold (an errback's diagnostic row) is
done at once, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webmd_spider.urls import canonicalize

#: on_done(key, row): the page's last row written, or None (no row)
DoneCallback = Callable[[str, Any], None]


def done_key(row: Any) -> str | None:
    """The page key a row marks done (canonical URL), or None for rows that describe
    no fetched page (site rows, start-up diagnostics without a discovery path)."""
    if getattr(row, "row_type", None) == "site":
        return None
    url = getattr(row, "url", None)
    if not url or getattr(row, "discovered_via", None) is None:
        return None
    return canonicalize(url)


class PageCompletion:
    """Per-page holds; ``on_done(key, row)`` when the last one is released."""

    __slots__ = ("_holds", "_on_done", "_rows")

    def __init__(self, on_done: DoneCallback) -> None:
        self._holds: dict[str, int] = {}
        self._rows: dict[str, Any] = {}  # key -> a row written
        self._on_done = on_done

    def __len__(self) -> int:
        """How many pages are held (not done yet)."""
        return len(self._holds)

    def hold(self, key: str) -> None:
        """One more thing ``key`` waits for (its callback, a row, a link)."""
        self._holds[key] = self._holds.get(key, 0) + 1

    def release(self, key: str) -> None:
        """One thing ``key`` waited for is settled; the last one makes it done. A
        release without a hold is ignored (nothing of that page is tracked)."""
        count = self._holds.get(key)
        if count is None:
            return
        if count > 1:
            self._holds[key] = count - 1
            return
        del self._holds[key]
        self._on_done(key, self._rows.pop(key, None))

    def row_settled(self, key: str, row: Any) -> None:
        """A row of ``key`` was written (``row``) or dropped (None). Releases the row's
        hold; a page with no hold at all is done at once."""
        if key not in self._holds:
            self._on_done(key, row)
            return
        if row is not None:
            self._rows[key] = row
        self.release(key)
