"""Write the crawl as single files: ``-a llms_txt=DIR`` (``llms.txt`` and
``llms-full.txt`` in DIR) and ``-a combined=FILE`` (one Markdown file).

Routes rows into the pure :class:`webmd_spider.rows.single_files.PageCollection` (one
per output; the formats are described there):

* a page row with Markdown is staged (any ``change``: a new or changed page, or an
  unchanged one an incremental run sent whole), marked index-like when it is a
  generated index, a search page or a listing (``rows.index_pages``, from the row's
  URL, links and text: llms.txt lists it under ``## Optional``);
* a page row with ``change == "unchanged"`` and no Markdown keeps the previous run's
  entry; one the previous files do not hold stays out, and the run says how many at
  the end (a warning: run once without incremental state to add them);
* a row with ``change == "removed"`` (page or diagnostic) takes the page out;
* every other row is ignored. Every row passes through unchanged.

A page is known by its ``final_url`` (the URL after redirects), its discovered ``url``
being an alias. The files are written when the spider closes, each replaced whole; a
file that cannot be written then is logged as an error and the previous one stays. A
folder or file that cannot be used stops the run at start, before anything is fetched,
with one line (``Cannot start the crawl: llms_txt: ...``) and an
:class:`~webmd_spider.options.OptionsError`. With neither option (the default) the
pipeline is not configured (``NotConfigured``): Scrapy leaves it out of the row path.

Reads the run context's options ``llms_txt`` and ``combined``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Self

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from webmd_spider.items import Row
from webmd_spider.options import OptionsError
from webmd_spider.rows.index_pages import index_like_row
from webmd_spider.rows.single_files import (
    PageCollection,
    PageEntry,
    sidecar_paths,
    write_combined,
    write_llms,
)
from webmd_spider.run_context import run_context

logger = logging.getLogger(__name__)


class SingleFilesPipeline:
    """``llms.txt`` / ``llms-full.txt`` and the combined file, written at close."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        #: (what, where, its collection): "llms" with a folder, "combined" with a file
        self.outputs: list[tuple[str, Path, PageCollection]] = []
        #: unchanged pages (no Markdown) that the previous files did not hold
        self.missing = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        pipeline = cls(crawler)
        pipeline._open()  # the run context (with the options) exists before the engine
        if not pipeline.outputs:
            raise NotConfigured  # neither option: not a step of every row
        return pipeline

    def _open(self) -> None:
        options = run_context(self.crawler).options
        try:
            if options.llms_txt:
                folder = Path(options.llms_txt)
                if folder.exists() and not folder.is_dir():
                    raise OptionsError(f"llms_txt: {folder} is not a folder")
                (sidecar,) = sidecar_paths(options.llms_txt, "")
                self._add("llms", folder, sidecar, "llms_txt")
            if options.combined:
                path = Path(options.combined)
                if path.is_dir():
                    raise OptionsError(f"combined: {path} is a folder, not a file")
                if path.parent.exists() and not path.parent.is_dir():
                    raise OptionsError(f"combined: {path.parent} is not a folder")
                (sidecar,) = sidecar_paths("", options.combined)
                self._add("combined", path, sidecar, "combined")
        except OptionsError as exc:
            for _, _, collection in self.outputs:
                collection.abandon()
            self.outputs = []
            logger.error("Cannot start the crawl: %s", exc)
            _quiet_asyncio_about(exc)
            raise
        for what, where, _ in self.outputs:
            logger.info(
                "Writing %s at the end of the run",
                f"llms.txt and llms-full.txt in {where}" if what == "llms" else where,
            )

    def _add(self, what: str, where: Path, sidecar: Path, option: str) -> None:
        try:
            sidecar.parent.mkdir(parents=True, exist_ok=True)
            # a full run starts the files afresh; an incremental one updates them
            resume = run_context(self.crawler).options.incremental
            collection = PageCollection(sidecar, resume=resume)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise OptionsError(f"{option}: cannot write {where}: {reason}") from None
        self.outputs.append((what, where, collection))

    def process_item(self, item: Any) -> Any:
        if not self.outputs or not isinstance(item, Row):
            return item
        url = item.final_url or item.url
        if not url:
            return item
        alias = item.url if item.url != url else None
        if item.change == "removed":
            for _, _, collection in self.outputs:
                collection.removed(url, alias)
        elif item.row_type == "page":
            if item.markdown is not None:
                entry = PageEntry(
                    url=url,
                    markdown=item.markdown,
                    title=item.title,
                    description=item.description,
                    site_name=item.site_name,
                    website=item.website,
                    depth=item.depth,
                    scraped_at=item.scraped_at,
                    content_hash=item.content_hash,
                    # from the row's links and text, no second look at the page
                    index_like=index_like_row(item),
                )
                for _, _, collection in self.outputs:
                    collection.page(entry, alias)
            elif item.change == "unchanged":
                known = [collection.unchanged(url, alias) for _, _, collection in self.outputs]
                if not all(known):
                    self.missing += 1
            else:
                logger.warning("Single files: page row without Markdown for %s", url)
        return item

    def close_spider(self) -> None:
        outputs, self.outputs = self.outputs, []
        if self.missing:
            logger.warning(
                "llms_txt/combined: %d unchanged pages are not in the files (the previous "
                "files did not hold them); run once without incremental state to add them",
                self.missing,
            )
        for what, where, collection in outputs:
            try:
                heads = collection.finish()
                if what == "llms":
                    write_llms(where, collection, heads)
                else:
                    write_combined(where, collection)
            except OSError as exc:
                logger.error("Could not write %s: %s", where, exc)
                continue
            logger.info(
                "Wrote %s (%d pages)",
                f"{where / 'llms.txt'} and llms-full.txt" if what == "llms" else where,
                len(heads),
            )


def _quiet_asyncio_about(exc: BaseException) -> None:
    """Drop asyncio's log record of ``exc`` (its never-retrieved crawl task): the user
    was told in one line, a traceback would only bury it (as the spider does for its
    own start-up errors)."""

    def keep(record: logging.LogRecord) -> bool:
        return not (record.exc_info and record.exc_info[1] is exc)

    logging.getLogger("asyncio").addFilter(keep)
