"""Write the crawl as a Markdown folder tree (``-a out_dir=DIR`` / ``WEBMD_OUT_DIR``).

Routes rows into the pure :class:`webmd_spider.rows.markdown_files.TreeWriter` (which holds the
layout rules, the manifest and every file operation; see that module):

* a page row with Markdown is staged (``page``); one with ``change == "unchanged"``
  (incremental runs send it without Markdown) keeps its file (``unchanged``);
* a row with ``change == "removed"`` (page or diagnostic) deletes the page's file, or
  moves it to ``DIR/.webmd/removed/`` with ``out_dir_removed=move``;
* any other diagnostic row is listed in ``DIR/.webmd/failed.json``;
* site rows are ignored. Every row passes through unchanged.

A page is identified by its ``final_url`` (the URL after redirects), which is also the
``url:`` of its frontmatter; its discovered ``url`` is kept as an alias. The tree is laid
out when the spider closes. With no ``out_dir`` (the default) the pipeline is not
configured (``NotConfigured``): Scrapy leaves it out of the row path. A folder that
cannot be used stops the run at start with a clear message (an
:class:`~webmd_spider.options.OptionsError`), before anything is fetched.
"""

from __future__ import annotations

import logging
from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from webmd_spider.items import Row
from webmd_spider.options import OptionsError
from webmd_spider.rows.markdown_files import TreeError, TreeWriter
from webmd_spider.run_context import run_context

logger = logging.getLogger(__name__)


class MarkdownTreePipeline:
    """One ``.md`` file per page row under ``out_dir``, laid out at close."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.writer: TreeWriter | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        pipeline = cls(crawler)
        pipeline._open()  # the run context (with the options) exists before the engine
        if pipeline.writer is None:
            raise NotConfigured  # no out_dir: not a step of every row
        return pipeline

    def _open(self) -> None:
        options = run_context(self.crawler).options
        out_dir = options.out_dir
        if not out_dir:
            return
        removed = options.out_dir_removed
        try:
            self.writer = TreeWriter(out_dir, removed=removed)
        except TreeError as exc:
            logger.error("Cannot write the Markdown tree: %s", exc)
            raise OptionsError(f"out_dir: {exc}") from None
        logger.info("Writing one Markdown file per page under %s", self.writer.root)

    def process_item(self, item: Any) -> Any:
        writer = self.writer
        if writer is None or not isinstance(item, Row):
            return item
        url = item.final_url or item.url
        if not url:
            return item
        alias = item.url if item.url != url else None
        if item.change == "removed":
            writer.removed(url, alias)
        elif item.row_type == "page":
            if item.change == "unchanged" and (item.markdown is None or writer.knows(url, alias)):
                writer.unchanged(url, alias)
            elif item.markdown is not None:
                fields = {
                    "title": item.title,
                    "description": item.description,
                    "language": item.language,
                    "scraped_at": item.scraped_at,
                    "content_hash": item.content_hash,
                }
                writer.page(url, fields, item.markdown, source_url=item.url)
            else:
                logger.warning("Markdown tree: page row without Markdown for %s", url)
        elif item.row_type == "diagnostic":
            writer.failed(item.url or url, item.error_type, item.error, item.status_code)
        return item

    def close_spider(self) -> None:
        writer, self.writer = self.writer, None
        if writer is None:
            return
        try:
            report = writer.close()
        except OSError as exc:
            logger.error("Markdown tree %s: could not finish: %s", writer.root, exc)
            return
        stats = self.crawler.stats
        if stats is not None:
            for name in ("pages", "written", "moved", "removed", "collisions", "blocked"):
                stats.set_value(f"webmd/tree/{name}", getattr(report, name))
        logger.info(
            "Markdown tree %s: %d pages (%d written, %d moved, %d removed); "
            "%d collisions, %d failures, %d not placed",
            writer.root,
            report.pages,
            report.written,
            report.moved,
            report.removed,
            report.collisions,
            report.failed,
            report.blocked,
        )
