"""The run summary: a JSON file beside the feed and a short human summary in the log.

Reads ``FEEDS`` (the first local file feed names the summary file,
``<feed>.summary.json``; otherwise ``WEBMD_OUTPUT_DIR/summary-<UTC time>.json``) and
the run context's ledger at ``spider_closed``.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit

from scrapy import Spider, signals
from scrapy.crawler import Crawler

from webmd_spider.rows.ledger import format_counts
from webmd_spider.run_context import run_context

logger = logging.getLogger(__name__)


def _counted(counts: dict[str, int], unlisted: dict[str, int]) -> str:
    """``nofollow 54, robots 2``, then what the summary file does not list by URL
    (``; not listed: nofollow 4``): the log must not suggest the list is complete."""
    text = format_counts(counts)
    return f"{text}; not listed: {format_counts(unlisted)}" if unlisted else text


class RunSummary:
    """Write the run summary when the spider closes."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.path: Path | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        ext = cls(crawler)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def summary_path(self) -> Path:
        """Where the summary goes: beside the first local feed file."""
        for uri in self.crawler.settings.getdict("FEEDS"):
            parts = urlsplit(str(uri))
            if parts.scheme in ("", "file") and "%(" not in str(uri):
                feed = Path(parts.path if parts.scheme == "file" else str(uri))
                return feed.with_name(feed.name + ".summary.json")
        out = Path(self.crawler.settings.get("WEBMD_OUTPUT_DIR", "output"))
        return out / f"summary-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"

    def _feed_stats(self) -> dict[str, Any]:
        """The change feed's counts (``pipelines.chunk_sync`` sets ``webmd/index/*``
        at its close, before this signal): pages, upserts, deletes, embedded, reused,
        pending, and the embedder's or the index's failure; {} without a feed."""
        stats = self.crawler.stats
        values = stats.get_stats() if stats is not None else {}
        prefix = "webmd/index/"
        return {k[len(prefix) :]: v for k, v in values.items() if k.startswith(prefix)}

    def spider_closed(self, spider: Spider, reason: str) -> None:
        ledger = run_context(self.crawler).ledger
        summary: dict[str, Any] = {"spider_close_reason": reason, **ledger.summary()}
        feed = self._feed_stats()
        if feed:
            summary["change_feed"] = feed
        self.path = self.summary_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(summary, indent=2, ensure_ascii=False), "utf-8")
        except OSError as exc:
            logger.error("Could not write the run summary to %s: %s", self.path, exc)
            self.path = None
        rows = summary["rows"]
        logger.info(
            "Run finished (%s) in %.1fs: %d page, %d site, %d diagnostic rows; errors %s; "
            "rejected %s; not fetched %s; %d warnings. Summary: %s",
            summary["stop_reason"],
            summary["elapsed_secs"],
            rows.get("page", 0),
            rows.get("site", 0),
            rows.get("diagnostic", 0),
            format_counts(summary["errors"]),
            _counted(summary["rejected_counts"], summary["rejected_unlisted"]),
            _counted(summary["not_fetched_counts"], summary["not_fetched_unlisted"]),
            len(summary["warnings"]),
            self.path or "not written",
        )
