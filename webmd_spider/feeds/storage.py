"""A local-file feed storage whose rows reach the file as they are exported.

Scrapy's ``FileFeedStorage`` writes through an 8 KB buffer: after a ``kill -9`` the last
rows are lost although the pages they describe were fetched (and, with ``JOBDIR``,
recorded as done). This storage opens the file unbuffered, so each row is one
``write()`` into the kernel when the exporter writes it (one system call per row, a few
microseconds), and a killed run keeps every row it exported. Registered for plain
paths and ``file://`` URIs through ``FEED_STORAGES``.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

from scrapy import Spider
from scrapy.extensions.feedexport import FileFeedStorage


class DurableFileFeedStorage(FileFeedStorage):
    """``FileFeedStorage`` without the write buffer (see the module docstring)."""

    def open(self, spider: Spider) -> IO[bytes]:
        path = Path(self.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path.open(self.write_mode, buffering=0)
