"""Which target a crawl's change feed is computed against, opened from the options.

* ``index`` set: the search index (``index.store.SearchIndex``) with its embedder; the
  feed goes to it, and to the ``changes`` file when that is set too.
* only ``changes`` set: a :class:`~webmd_spider.index.feed.ChunkLedger` beside the
  incremental state (``<state_dir>/<job>.chunks.sqlite``), which remembers the chunk
  ids and hashes the file's reader holds.

PURE: the crawl's job set-up calls :func:`open_feed`; any problem is a
:class:`FeedError` with one line naming the file and the cause.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from webmd_spider.index.feed import ChunkLedger, LedgerError
from webmd_spider.index.sync import ChunkSync


class FeedError(Exception):
    """The feed's target or file cannot be used (one line: which and why)."""


class IndexTarget:
    """The search index as a feed target: its chunks are the manifest, and each
    batch of changes is one of its transactions."""

    def __init__(self, index: Any) -> None:
        self.index = index

    def manifest(self, url: str) -> dict[str, str]:
        """chunk_id -> content_hash the index holds for `url`."""
        return dict(self.index.manifest(url))

    def page_hashes(self) -> dict[str, str]:
        """Page key -> content hash of every page the index holds."""
        return dict(self.index.page_hashes())

    def apply(self, changes: Sequence[dict[str, Any]], pages: Mapping[str, str | None]) -> Any:
        """One transaction of the index: the chunks embedded and stored, or kept
        pending when the embedder fails."""
        return self.index.apply(changes, pages=pages)

    def retry_pending(self) -> Any:
        """Embed the changes an earlier batch or run left waiting (None when none
        wait): a run with nothing new still catches up."""
        return self.index.retry_pending() if self.index.pending_count() else None


def open_feed(
    *,
    changes: str,
    index: str,
    ledger_path: Path,
    embedder: str = "wordllama",
    embed_url: str = "",
    embed_model: str = "",
    key_env: str = "WEBMD_EMBED_KEY",
    lock_secs: float = 0.0,
) -> ChunkSync:
    """The run's :class:`ChunkSync`, its target open (an index's writer lock held until
    :meth:`ChunkSync.close`). Raises :class:`FeedError`."""
    if index:
        from webmd_spider.index.embedders import EmbedderError, open_embedder
        from webmd_spider.index.store import IndexStoreError, SearchIndex, read_embedder_name

        known_dim = 0
        if Path(index).is_file():
            # an index's own dimension: an HTTP endpoint that is down is then found out
            # by the first batch (kept pending, the crawl goes on), not by a probe that
            # would stop the crawl before its rows
            try:
                tail = read_embedder_name(index).rsplit(":", 1)[-1]
            except IndexStoreError as exc:
                raise FeedError(str(exc)) from None
            known_dim = int(tail) if tail.isdigit() else 0
        try:
            model = open_embedder(
                embedder,
                embed_url=embed_url,
                embed_model=embed_model,
                key_env=key_env,
                embed_dim=known_dim if embedder == "http" else 0,
            )
        except (EmbedderError, ValueError) as exc:
            raise FeedError(f"embedder: {exc}") from None
        try:
            opened = SearchIndex.open(index, model, write=True, lock_timeout=lock_secs)
        except IndexStoreError as exc:
            raise FeedError(str(exc)) from None
        try:
            return ChunkSync(IndexTarget(opened), changes or None, close_target=opened.close)
        except OSError as exc:
            opened.close()
            raise FeedError(f"changes file {changes}: {exc.strerror or exc}") from None
    try:
        ledger = ChunkLedger(ledger_path)
    except LedgerError as exc:
        raise FeedError(str(exc)) from None
    try:
        return ChunkSync(ledger, changes, close_target=ledger.close)
    except OSError as exc:
        with contextlib.suppress(LedgerError):
            ledger.close()
        raise FeedError(f"changes file {changes}: {exc.strerror or exc}") from None
