"""A LangChain document loader over a crawl (extra ``webmd_spider[langchain]``).

::

    from webmd_spider.loaders.langchain import WebmdLoader

    loader = WebmdLoader("https://docs.example.org/", max_pages=100)
    for doc in loader.lazy_load():
        print(doc.metadata["url"], doc.metadata["heading_path"], len(doc.page_content))
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from webmd_spider.extras import install_hint

try:
    from langchain_core.document_loaders import BaseLoader
    from langchain_core.documents import Document
except ImportError as exc:  # the extra is optional: say which one to install
    raise ImportError(f"this loader needs langchain-core: {install_hint('langchain')}") from exc

from webmd_spider.loaders.source import CrawlSource

__all__ = ["WebmdLoader"]


class WebmdLoader(BaseLoader):
    """Crawl ``start`` (a URL or several) and load its pages as LangChain documents.

    ``per="chunk"`` (the default) gives one document per chunk, ``per="page"`` one per
    page with the page's Markdown as ``page_content``. Keyword arguments are crawl
    options by name, as :func:`webmd_spider.api.crawl` takes them (``max_pages``,
    ``max_depth``, ``allow_local``, ``chunk_tokens``...). With ``per="chunk"`` and
    neither ``chunk_tokens`` nor ``chunk_size`` given, the crawl chunks at
    ``chunk_tokens=400`` (``loaders.source.DEFAULT_CHUNK_TOKENS``).

    Each document's ``metadata``: ``url`` and ``source`` (the page's final URL),
    ``title``, ``heading_path`` (``"H1 > H2"`` text, ``""`` for a page), ``chunk_id``
    and ``chunk_index`` (``None`` for a page), ``char_start`` / ``char_end`` (offsets
    into the page's Markdown), ``content_hash`` and ``scraped_at`` (the row's
    columns of those names). ``Document.id`` is the chunk id, or the page URL.

    Raises ValueError for an unknown ``per`` and
    :class:`~webmd_spider.options.OptionsError` for an unusable option here, when the
    loader is built; the crawl itself runs in :meth:`lazy_load`, anew each call.
    """

    def __init__(self, start: str | Sequence[str], *, per: str = "chunk", **crawl_options: Any):
        self._source = CrawlSource(start, per, crawl_options)

    def lazy_load(self) -> Iterator[Document]:
        """Crawl and yield each document as its page is written. Breaking out of the
        loop stops the crawl. Failed pages are logged at WARNING and skipped."""
        for record in self._source.records():
            yield Document(page_content=record.text, metadata=record.metadata, id=record.id)
