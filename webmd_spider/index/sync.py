"""One crawl's change feed, from rows to a target and a file.

:class:`ChunkSync` is what the crawl's pipeline (``pipelines/chunk_sync.py``) hands
each row's facts to. It computes the row's chunk changes against its
:class:`~webmd_spider.index.feed.FeedTarget` (the search index, or a ledger), writes
them to the ``--changes`` file, and applies them to the target a few pages at a time
(one transaction per batch: a crash leaves whole pages before or after).

:func:`reconcile` runs before the crawl: it makes the incremental state agree with the
target, so the state never calls a page unchanged that the target does not hold at that
hash (a target rebuilt or deleted, a run killed between the state's commit and the
target's). A page the state holds and the target does not is fetched whole again; a
page the target holds and the state does not is asked for again (a 404 then removes
its chunks).

PURE: standard library and ``orjson`` (import-linter checks).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from webmd_spider.index.feed import DELETE, FeedTarget, page_changes, removed_changes

logger = logging.getLogger(__name__)

#: Pages whose changes go to the target in one transaction: an HTTP embedder gets
#: batches of dozens of chunks, not one page's three, and a crash still leaves whole
#: pages (the next run's reconcile repairs the state's view of the rest).
PAGES_PER_APPLY = 32


@dataclass
class SyncReport:
    """What one run's feed did (the run summary's "index" lines)."""

    pages: int = 0  # pages with at least one change
    upserts: int = 0
    deletes: int = 0
    embedded: int = 0  # chunk texts embedded this run
    reused: int = 0  # upserted chunks whose text had a vector already
    pending: int = 0  # chunks waiting for the embedder (kept in the index)
    failures: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "pages": self.pages,
            "upserts": self.upserts,
            "deletes": self.deletes,
            "embedded": self.embedded,
            "reused": self.reused,
            "pending": self.pending,
            "failures": list(self.failures),
        }


class ChunkSync:
    """The run's change feed: rows in, changes out to a file and to the target."""

    def __init__(
        self,
        target: FeedTarget,
        changes_path: str | Path | None = None,
        *,
        close_target: Callable[[], None] | None = None,
    ) -> None:
        self.target = target
        self.report = SyncReport()
        self._close_target = close_target
        self._file: IO[bytes] | None = None
        self.changes_path = Path(changes_path) if changes_path else None
        if self.changes_path is not None:
            self.changes_path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.changes_path.open("wb")
        self._batch: list[dict[str, Any]] = []
        self._pages: dict[str, str | None] = {}
        self._batch_urls: set[str] = set()
        self._batch_pages = 0

    # -- rows ---------------------------------------------------------------------
    def page(
        self,
        url: str,
        keys: Iterable[str],
        content_hash: str,
        chunks: Sequence[Mapping[str, Any]],
        title: str | None,
        crawled_at: str,
        headings: Sequence[Mapping[str, Any]] = (),
        index_like: bool = False,
    ) -> int:
        """A page row with content (new or changed): its chunks against what the target
        holds for `url` (the chunks' URL). `keys` are the page's state keys (its URL as
        found and after redirects), recorded with `content_hash`. Returns the number of
        changes."""
        self._need_fresh(url)
        changes = page_changes(
            self._manifest(url),
            chunks,
            url=url,
            title=title,
            crawled_at=crawled_at,
            headings=headings,
            index_like=index_like,
        )
        return self._add(url, changes, dict.fromkeys(keys, content_hash))

    def removed(self, urls: Iterable[str], keys: Iterable[str]) -> int:
        """A page that is gone: every chunk held under any of its `urls` (as chunks
        name their page) deleted, and its state `keys` dropped from the target's pages.
        Returns the number of changes."""
        changes: list[dict[str, Any]] = []
        first = ""
        for url in dict.fromkeys(urls):
            first = first or url
            self._need_fresh(url)
            changes.extend(removed_changes(self._manifest(url), url))
        return self._add(first, changes, dict.fromkeys(keys))

    # -- batches ------------------------------------------------------------------
    def _manifest(self, url: str) -> dict[str, str]:
        return self.target.manifest(url)

    def _need_fresh(self, url: str) -> None:
        # a URL already in the open batch: its manifest must include that batch
        if url in self._batch_urls:
            self.flush()

    def _add(self, url: str, changes: list[dict[str, Any]], pages: dict[str, str | None]) -> int:
        if changes:
            self.report.pages += 1
            for change in changes:
                if change["op"] == DELETE:
                    self.report.deletes += 1
                else:
                    self.report.upserts += 1
            if self._file is not None:
                self._file.write(b"".join(orjson.dumps(c) + b"\n" for c in changes))
        self._batch.extend(changes)
        self._pages.update(pages)
        self._batch_urls.add(url)
        self._batch_urls.update(pages)
        self._batch_pages += 1
        if self._batch_pages >= PAGES_PER_APPLY:
            self.flush()
        return len(changes)

    def flush(self) -> None:
        """Apply the open batch to the target (one transaction), and flush the file."""
        batch, pages = self._batch, self._pages
        self._batch, self._pages, self._batch_urls, self._batch_pages = [], {}, set(), 0
        if self._file is not None:
            self._file.flush()
        if not batch and not pages:
            return
        outcome = self.target.apply(batch, pages)
        self._count(outcome)

    def _count(self, outcome: Any) -> None:
        # a search index reports embedding work (index.store.ApplyReport); a ledger
        # reports nothing
        if outcome is None:
            return
        self.report.embedded += int(getattr(outcome, "embedded", 0))
        self.report.reused += int(getattr(outcome, "reused", 0))
        self.report.pending = int(getattr(outcome, "pending", self.report.pending))
        error = getattr(outcome, "error", None)
        if error and error not in self.report.failures:
            self.report.failures.append(str(error))

    def close(self) -> SyncReport:
        """Apply what is left, close the file and the target; the run's report."""
        try:
            self.flush()
            retry = getattr(self.target, "retry_pending", None)
            if retry is not None:
                self._count(retry())
        finally:
            if self._file is not None:
                with contextlib.suppress(OSError):
                    self._file.close()
                self._file = None
            if self._close_target is not None:
                self._close_target()
                self._close_target = None
        return self.report


@dataclass(frozen=True, slots=True)
class StoredPage:
    """What the incremental state holds for one page (the part reconcile reads)."""

    url: str
    content_hash: str | None


def reconcile(
    stored: Iterable[StoredPage],
    target_pages: Mapping[str, str],
    forget_content: Callable[[str], None],
    ask_again: Callable[[str], None],
) -> tuple[int, int]:
    """Make the state agree with the target before a crawl: every stored page whose
    hash the target does not hold gets `forget_content(url)` (fetched whole, reported
    changed), every page the target holds and the state does not gets
    `ask_again(url)` (requested this run). Returns (forgotten, asked)."""
    seen: set[str] = set()
    forgotten = asked = 0
    for page in stored:
        seen.add(page.url)
        if page.content_hash and target_pages.get(page.url) != page.content_hash:
            forget_content(page.url)
            forgotten += 1
    for url in target_pages:
        if url not in seen:
            ask_again(url)
            asked += 1
    return forgotten, asked
