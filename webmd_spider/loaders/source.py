"""The crawl behind both loaders: options checked up front, rows turned into records.

``langchain.py`` and ``llamaindex.py`` build a :class:`CrawlSource` and wrap what
:meth:`CrawlSource.records` yields in their own document class; everything else
(the ``per`` check, the default chunk size, option validation, which rows count)
lives here once.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from webmd_spider.api import crawl, crawl_values
from webmd_spider.loaders.records import Record, check_per, row_records
from webmd_spider.options import OptionsError, build_options, read_job_file

logger = logging.getLogger(__name__)

#: The chunk size a ``per="chunk"`` loader crawls with when the caller names neither
#: ``chunk_tokens`` nor ``chunk_size``: without one the rows carry no chunks at all.
#: 400 tokens (about 1600 characters) suits the common embedding models' inputs.
DEFAULT_CHUNK_TOKENS = 400

#: The options that set a chunk size; naming either one turns the default off.
CHUNK_SIZE_OPTIONS = ("chunk_tokens", "chunk_size")


class CrawlSource:
    """One crawl's worth of records, checked before anything runs.

    ``start`` is a URL or several; ``crawl_options`` are the fields of
    :data:`webmd_spider.api.CrawlOptions` by name (``max_pages=20``...). The
    constructor raises ValueError for an unknown ``per`` and
    :class:`~webmd_spider.options.OptionsError` for an option the crawl cannot use,
    with the command line's message. Nothing is crawled until :meth:`records` is
    iterated, and each iteration runs a new crawl.
    """

    def __init__(
        self, start: str | Sequence[str], per: str, crawl_options: Mapping[str, Any]
    ) -> None:
        self.per = check_per(per)
        options = dict(crawl_options)
        if per == "chunk" and not _names_a_chunk_size(options):
            options["chunk_tokens"] = DEFAULT_CHUNK_TOKENS
        # validated now, not at the first next(): a loader built with a bad option
        # should fail where it is built, before an indexing job starts
        values = crawl_values(start, None, options)
        if per == "chunk" and build_options({}, values).chunk_budget[0] == 0:
            raise OptionsError(
                "per='chunk' needs a chunk size, and chunk_tokens / chunk_size turn "
                "chunking off at 0: give a size, or leave both out for "
                f"chunk_tokens={DEFAULT_CHUNK_TOKENS}, or use per='page'"
            )
        self.start = start
        #: the keyword arguments api.crawl runs with (the default chunk size included)
        self.options = options

    def records(self) -> Iterator[Record]:
        """Crawl and yield the records of every page row as the crawl writes it.

        Diagnostic rows (pages that failed) are logged at WARNING and give no record.
        Closing this iterator (a ``break`` in the caller's loop) stops the crawl's
        child process at once rather than when the iterator is garbage-collected.
        """
        # api.crawl is a generator (typed as an Iterator): closing it stops the child
        rows = crawl(self.start, **self.options)
        with contextlib.closing(rows):
            for row in rows:
                if row.row_type == "diagnostic":
                    logger.warning(
                        "no document for %s: %s (%s)", row.url, row.error, row.error_type
                    )
                yield from row_records(row, self.per)


def _names_a_chunk_size(options: Mapping[str, Any]) -> bool:
    """Whether the caller set a chunk size, in a keyword or in the job file ``input``
    names (a default added next to the file's own size would be refused as "not
    both")."""
    named = set(options)
    if options.get("input"):
        named.update(read_job_file(str(options["input"])))
    return any(name in named for name in CHUNK_SIZE_OPTIONS)
