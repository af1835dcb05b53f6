"""Which rows a feed writes (Scrapy's ``FEEDS`` option ``item_filter``).

:class:`ChangesOnly` leaves out the ``unchanged`` page rows of an incremental run, for
users who only want what changed (``emit_unchanged=false``, issue 34). The rows are
still counted (the site rows and the summary) and still reach the pipelines; only the
feed file goes without them. The job set-up puts it on every feed of such a run.
"""

from __future__ import annotations

from typing import Any

from scrapy.extensions.feedexport import ItemFilter

from webmd_spider.items import Row


class ChangesOnly(ItemFilter):
    """Accepts every row but an ``unchanged`` page row."""

    def accepts(self, item: Any) -> bool:
        """False for a page row whose ``change`` is ``unchanged``."""
        if isinstance(item, Row) and item.row_type == "page" and item.change == "unchanged":
            return False
        return super().accepts(item)
