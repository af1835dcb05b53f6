"""Crawl rows as framework-neutral documents: the mapping both loaders share.

Pure module: it reads :class:`~webmd_spider.items.Row` objects and imports no RAG
framework, no crawl, no Scrapy. ``langchain.py`` and ``llamaindex.py`` only wrap each
:class:`Record` in their framework's document class, so the two loaders cannot drift
apart in what they emit.

The contract of a record:

* Only ``page`` rows give records; ``site`` and ``diagnostic`` rows give none.
* ``per="chunk"``: one record per entry of ``row.chunks``, in page order; its text is
  the chunk's ``text`` (which may repeat a table's header rows or a code fence around
  ``markdown[char_start:char_end]``: see ``chunking.markdown_chunks``). A page row
  without chunks (``chunks`` null: the crawl ran without a chunk size) gives none.
* ``per="page"``: one record per page row, its text the row's ``markdown``.
* ``metadata`` has the same keys in both modes (:data:`METADATA_KEYS`), each a string,
  an int or ``None``: no lists or dicts, because vector stores keep flat metadata only
  (Chroma refuses lists; LlamaIndex's ``flat_metadata`` stores raise on them). That is
  why ``heading_path`` is the chunk's ``heading_path_text`` (``"Guide > Install"``).
* ``id`` is stable across runs of the same content: the chunk id for a chunk, the page
  URL for a page, so a re-ingest can replace what an earlier one stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from webmd_spider.items import Row

#: What one document stands for: a chunk of a page, or the whole page.
PER_VALUES = ("chunk", "page")

#: Every record's metadata keys, in this order.
METADATA_KEYS = (
    "url",
    "source",
    "title",
    "heading_path",
    "chunk_id",
    "chunk_index",
    "char_start",
    "char_end",
    "content_hash",
    "scraped_at",
)

#: Keys that say where a text sits rather than what it says. A framework that adds
#: metadata to the text it embeds or shows to a model (LlamaIndex does by default)
#: should leave these out: a hash or an offset in an embedding is noise.
BOOKKEEPING_KEYS = (
    "source",
    "chunk_id",
    "chunk_index",
    "char_start",
    "char_end",
    "content_hash",
    "scraped_at",
)


@dataclass(frozen=True, slots=True)
class Record:
    """One document before a framework wraps it: ``id``, ``text`` and flat
    ``metadata`` (keys :data:`METADATA_KEYS`)."""

    id: str
    text: str
    metadata: dict[str, Any]


def check_per(per: str) -> str:
    """``per`` when it is one of :data:`PER_VALUES`; raises ValueError naming them."""
    if per not in PER_VALUES:
        allowed = " or ".join(repr(value) for value in PER_VALUES)
        raise ValueError(f"per must be {allowed}, got {per!r}")
    return per


def row_records(row: Row, per: str) -> list[Record]:
    """The records of one crawl row (see the module docstring); [] for a site or
    diagnostic row. Raises ValueError for an unknown ``per``."""
    check_per(per)
    if row.row_type != "page":
        return []
    if per == "page":
        return [_page_record(row)]
    return [_chunk_record(row, chunk) for chunk in row.chunks or []]


def page_url(row: Row) -> str:
    """The address a page row's content came from: its final URL (after redirects,
    the URL its chunks carry), else the URL it was asked for."""
    return row.final_url or row.url or ""


def _page_record(row: Row) -> Record:
    markdown = row.markdown or ""
    url = page_url(row)
    metadata = _metadata(
        row,
        heading_path="",  # the whole page sits under no heading
        chunk_id=None,
        chunk_index=None,
        char_start=0,
        char_end=len(markdown),
    )
    return Record(id=url, text=markdown, metadata=metadata)


def _chunk_record(row: Row, chunk: Mapping[str, Any]) -> Record:
    metadata = _metadata(
        row,
        heading_path=chunk["heading_path_text"],
        chunk_id=chunk["chunk_id"],
        chunk_index=chunk["index"],
        char_start=chunk["char_start"],
        char_end=chunk["char_end"],
    )
    return Record(id=chunk["chunk_id"], text=chunk["text"], metadata=metadata)


def _metadata(row: Row, **where: Any) -> dict[str, Any]:
    url = page_url(row)
    values = {
        "url": url,
        # LangChain's convention for a document's origin (sources chains and many
        # retriever tools read metadata["source"])
        "source": url,
        "title": row.title or "",
        "content_hash": row.content_hash,
        "scraped_at": row.scraped_at,
        **where,
    }
    return {key: values[key] for key in METADATA_KEYS}
