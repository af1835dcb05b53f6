"""webmd_spider: whole websites to clean Markdown and text for LLMs and RAG.

The Python API (see ``webmd_spider.api``)::

    from webmd_spider import crawl, convert, CrawlOptions

The names are loaded on first use (PEP 562), so importing a submodule (as the crawl's
extraction processes do) does not load the API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webmd_spider.api import (
        CrawlError,
        CrawlOptions,
        OptionsError,
        changes,
        convert,
        crawl,
        search,
    )

__all__ = ["CrawlError", "CrawlOptions", "OptionsError", "changes", "convert", "crawl", "search"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from webmd_spider import api

        return getattr(api, name)
    raise AttributeError(f"module 'webmd_spider' has no attribute {name!r}")
