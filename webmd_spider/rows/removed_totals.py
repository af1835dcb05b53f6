"""The loss audit summed per website: the site row's and the run summary's ``removed``.

A page row's ``removed`` column (``extract/audit.py``) says what extraction removed from
inside that page's content root. Summed over a website it says what a whole crawl lost,
and the pages that lost the most code blocks, tables or signatures are named, so that a
user sees where to look (issue 30 item 4).

Pure module: standard library only.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: The kinds whose loss names a page in the totals: what documentation users miss most.
WATCHED_KINDS = ("code", "table", "signature")
#: How many pages the totals name (the ones that lost the most of the watched kinds).
MAX_NAMED_PAGES = 10


@dataclass(slots=True)
class RemovedTotals:
    """The ``removed`` columns of a website's page rows, summed."""

    counts: Counter[str] = field(default_factory=Counter)
    by_rule: dict[str, Counter[str]] = field(default_factory=dict)
    #: (watched kinds lost, order seen, url, counts) of the pages that lost the most
    _worst: list[tuple[int, int, str, dict[str, int]]] = field(default_factory=list)
    _seen: int = 0

    def add(self, removed: dict[str, Any] | None, url: str | None) -> None:
        """Fold one page row's ``removed`` column in (None: nothing to fold)."""
        if not removed:
            return
        for key, value in removed.items():
            if isinstance(value, int):
                self.counts[key] += value
        for rule, numbers in (removed.get("by_rule") or {}).items():
            self.by_rule.setdefault(rule, Counter()).update(numbers)
        lost = {kind: int(removed.get(kind) or 0) for kind in WATCHED_KINDS}
        weight = sum(lost.values())
        if weight and url:
            self._seen += 1
            entry = (weight, -self._seen, url, lost)  # ties: the page seen first
            if len(self._worst) < MAX_NAMED_PAGES:
                heapq.heappush(self._worst, entry)
            else:
                heapq.heappushpop(self._worst, entry)

    def to_column(self) -> dict[str, Any] | None:
        """The summed column: each count, ``by_rule``, and ``pages`` (up to
        `MAX_NAMED_PAGES` pages that lost the most code, tables and signatures, most
        first: url and those three counts); None when no page row carried one."""
        if not self.counts and not self.by_rule:
            return None
        out: dict[str, Any] = dict(self.counts)
        out["by_rule"] = {rule: dict(c) for rule, c in sorted(self.by_rule.items())}
        out["pages"] = [
            {"url": url, **lost} for _, _, url, lost in sorted(self._worst, reverse=True)
        ]
        return out
