"""A LlamaIndex reader over a crawl (extra ``webmd_spider[llamaindex]``).

::

    from llama_index.core import VectorStoreIndex
    from webmd_spider.loaders.llamaindex import WebmdReader

    documents = WebmdReader().load_data("https://docs.example.org/", max_pages=100)
    index = VectorStoreIndex.from_documents(documents)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from webmd_spider.extras import install_hint

try:
    from llama_index.core.readers.base import BaseReader
    from llama_index.core.schema import Document
except ImportError as exc:  # the extra is optional: say which one to install
    raise ImportError(f"this loader needs llama-index-core: {install_hint('llamaindex')}") from exc

from webmd_spider.loaders.records import BOOKKEEPING_KEYS, Record
from webmd_spider.loaders.source import CrawlSource

__all__ = ["WebmdReader"]


class WebmdReader(BaseReader):
    """Crawl a site and read its pages as LlamaIndex documents.

    ``load_data(start, per="chunk", **crawl_options)``: ``start`` is a URL or several;
    ``per="chunk"`` (the default) gives one document per chunk, ``per="page"`` one per
    page with the page's Markdown as its text. Keyword arguments are crawl options by
    name, as :func:`webmd_spider.api.crawl` takes them (``max_pages``, ``max_depth``,
    ``allow_local``, ``chunk_tokens``...). With ``per="chunk"`` and neither
    ``chunk_tokens`` nor ``chunk_size`` given, the crawl chunks at ``chunk_tokens=400``
    (``loaders.source.DEFAULT_CHUNK_TOKENS``).

    Each document's ``metadata``: ``url`` and ``source`` (the page's final URL),
    ``title``, ``heading_path`` (``"H1 > H2"`` text, ``""`` for a page), ``chunk_id``
    and ``chunk_index`` (``None`` for a page), ``char_start`` / ``char_end`` (offsets
    into the page's Markdown), ``content_hash`` and ``scraped_at`` (the row's
    columns of those names): flat values, as LlamaIndex's vector stores require. Only ``url``,
    ``title`` and ``heading_path`` go into the text LlamaIndex embeds and shows the
    model; the rest are bookkeeping. ``Document.id_`` is the chunk id, or the page URL.

    Raises ValueError for an unknown ``per`` and
    :class:`~webmd_spider.options.OptionsError` for an unusable option when called,
    before anything is crawled (:meth:`lazy_load_data` too, not at its first item).
    """

    def lazy_load_data(
        self, start: str | Sequence[str], per: str = "chunk", **crawl_options: Any
    ) -> Iterator[Document]:
        """The documents one at a time as the crawl writes their pages. Breaking out of
        the loop stops the crawl. Failed pages are logged at WARNING and skipped."""
        source = CrawlSource(start, per, crawl_options)  # raises here, not at next()
        return (_document(record) for record in source.records())

    def load_data(
        self, start: str | Sequence[str], per: str = "chunk", **crawl_options: Any
    ) -> list[Document]:
        """Crawl and return every document (see the class docstring)."""
        return list(self.lazy_load_data(start, per, **crawl_options))


def _document(record: Record) -> Document:
    hidden = list(BOOKKEEPING_KEYS)
    return Document(
        id_=record.id,
        text=record.text,
        metadata=record.metadata,
        excluded_embed_metadata_keys=hidden,
        excluded_llm_metadata_keys=hidden,
    )
