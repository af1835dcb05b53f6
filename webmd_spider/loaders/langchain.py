"""LangChain over a crawl (extra ``webmd_spider[langchain]``): a document loader, and
:func:`sync`, which applies a crawl's chunk-level change feed to any vector store.

::

    from webmd_spider.loaders.langchain import WebmdLoader

    loader = WebmdLoader("https://docs.example.org/", max_pages=100)
    for doc in loader.lazy_load():
        print(doc.metadata["url"], doc.metadata["heading_path"], len(doc.page_content))

::

    from webmd_spider.loaders.langchain import sync

    report = sync(vector_store, "changes.jsonl")  # the feed of `webmd crawl --changes`
    print(report.upserted, report.deleted)
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webmd_spider.extras import install_hint

try:
    from langchain_core.document_loaders import BaseLoader
    from langchain_core.documents import Document
    from langchain_core.vectorstores import VectorStore
except ImportError as exc:  # the extra is optional: say which one to install
    raise ImportError(f"this loader needs langchain-core: {install_hint('langchain')}") from exc

from webmd_spider.loaders.source import CrawlSource

__all__ = [
    "CHUNK_ID_NAMESPACE",
    "CONTENT_FIELDS",
    "SYNC_METADATA_KEYS",
    "SyncError",
    "SyncReport",
    "WebmdLoader",
    "chunk_uuid",
    "read_changes",
    "sync",
]

log = logging.getLogger(__name__)


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


# --- the change feed into a vector store ------------------------------------------------

#: The namespace of :func:`chunk_uuid`: ``uuid5(NAMESPACE_URL, "urn:webmd-spider:chunk-id")``.
#: Fixed forever: another namespace gives every chunk another store id, so every point
#: synced before would be orphaned (never replaced, never deleted).
CHUNK_ID_NAMESPACE = uuid.UUID("ef79e1ee-8a9e-5b08-a31b-c1dae511141a")

#: The fields of an upsert that ``sync(content=...)`` may make a document's text.
CONTENT_FIELDS = ("markdown", "text")

#: Every synced document's metadata keys, in this order; each value a string (vector
#: stores keep flat metadata only, and some refuse None).
SYNC_METADATA_KEYS = (
    "url",
    "fragment",
    "title",
    "heading_path_text",
    "chunk_id",
    "content_hash",
    "crawled_at",
)

_UPSERT, _DELETE = "upsert", "delete"


def chunk_uuid(chunk_id: str) -> str:
    """The default store id of a chunk: ``str(uuid5(CHUNK_ID_NAMESPACE, chunk_id))``.

    Deterministic, so a later feed's upsert or delete reaches the point an earlier feed
    wrote, from any machine. A UUID because it is the one id form every vector store
    takes (Qdrant takes a UUID or an unsigned int, Weaviate a UUID; our 16-hex chunk ids
    are neither). Canonical (lowercase, hyphenated, 36 characters) because that is the
    form Qdrant stores and returns, so ids read back compare equal to these.
    """
    return str(uuid.uuid5(CHUNK_ID_NAMESPACE, chunk_id))


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What :func:`sync` applied: the feed's ``upserted`` upsert records and its
    ``deleted`` delete records. A delete counts whether or not the store held the id
    (stores do not say), so the counts are the feed's, and equal on a second run."""

    upserted: int
    deleted: int


class SyncError(RuntimeError):
    """The store did not do what :func:`sync` asked: its ``delete`` returned False, or
    its ``add_documents`` returned other ids than it was given (a store that ignores
    ``ids=`` would make every later upsert a duplicate and every delete a miss)."""


def read_changes(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The change records of a ``--changes`` JSONL file, one JSON object per line, in
    file order (blank lines skipped). Lazy: the file is read as the records are taken.
    Raises OSError when the file cannot be read and ValueError naming ``path:line`` for
    a line that is not a JSON object."""
    for _where, record in _numbered_lines(Path(path)):
        yield record


def sync(
    store: VectorStore,
    changes: Iterable[Mapping[str, Any]] | str | os.PathLike[str],
    *,
    batch_size: int = 64,
    id_map: Callable[[str], str] = chunk_uuid,
    content: str = "markdown",
    delete_first: bool = False,
) -> SyncReport:
    """Apply a chunk-level change feed to a LangChain vector store; return the counts.

    ``changes``: the change records (``docs/design/search-index.md``: ``{"op": "upsert",
    ...}`` and ``{"op": "delete", "chunk_id": ..., "url": ...}``), as an iterable of
    dicts or as the path (str or Path) of a ``--changes`` JSONL file.

    What the store receives:

    * An upsert becomes ``Document(page_content=change[content], metadata=...)`` with
      the metadata keys :data:`SYNC_METADATA_KEYS` (a null ``title`` becomes ``""``),
      added by ``store.add_documents(documents, ids=[...])``; a delete becomes
      ``store.delete(ids=[...])``.
    * ``content="markdown"`` (the default) stores the chunk's Markdown: the text
      :class:`WebmdLoader` gives the same chunk (a store filled by the loader and then
      synced holds one kind of text), the text the change's ``content_hash`` is the
      hash of, and what a model reads best (tables, code fences, link targets to
      cite). ``content="text"`` stores the plain text instead, for an embedder that
      should not see markup.
    * The store id of a chunk is ``id_map(chunk_id)``, for upserts and deletes alike.
      The default, :func:`chunk_uuid`, gives a deterministic UUID, which every store
      takes; ``id_map=str`` keeps the raw chunk ids for a store that takes any string
      (Qdrant refuses them: "not a valid UUID"). The rule is fixed per store, never
      chosen by trying the raw id first: a store that fails silently on an id it cannot
      hold (Qdrant's local mode deletes such an id without error) would have two ids
      for a chunk. The raw id stays in ``metadata["chunk_id"]``.
    * An upsert of an id the store holds must replace it. ``add_documents(ids=)`` does
      so on Qdrant (langchain-qdrant 1.1: ``QdrantVectorStore.add_texts`` sends
      ``client.upsert``, which overwrites the whole point, vector and payload) and on
      LangChain's ``InMemoryVectorStore`` (a dict by id); both are tested. For a store
      whose add keeps a duplicate or raises on a held id, pass ``delete_first=True``:
      each upsert batch's ids are deleted before the batch is added (the store's
      delete must then accept ids it does not hold, as Qdrant's does).

    Order and batching: the result is that of applying the changes one by one in feed
    order. Deletes and upserts are gathered into batches of at most ``batch_size`` ids
    (one store call each; the store may split further), and a batch is sent before a
    change that touches an id an unsent batch holds would be reordered: so a delete then
    an upsert of one id ends with the upsert, an upsert then a delete ends deleted, and
    of two upserts of an id the later one stays.

    Contract:

    * The whole feed is read and checked before the first store call: an unknown
      ``op``, a missing or non-string field (``chunk_id``, the ``content`` field, each
      metadata key but ``title``), a line that is not a JSON object, or an ``id_map``
      that returns no string raises ValueError naming the change (``change N``, or
      ``path:line``) and the store is untouched.
    * Idempotent: each id the feed touches ends as its last change says (held with
      that upsert's document, or absent), whatever the store held before, so applying
      the same feed again leaves the store as it was, and after a failure part-way (a
      store error propagates as the store raised it; a refusal is :class:`SyncError`),
      applying the same feed again completes it. A vector store has no
      transactions, so the design's "one page's changes as one transaction" is not
      kept: between a page's delete batch and its upsert batch a reader may see the
      page without some chunks.
    * ValueError for ``batch_size`` < 1 or a ``content`` not in :data:`CONTENT_FIELDS`;
      TypeError for a single change (a dict) given as ``changes``.

    How a nightly incremental crawl feeds it::

        webmd crawl https://docs.example.org/ --changes changes.jsonl

    ``--changes`` implies ``--incremental``: the crawl remembers, per page, the ids and
    hashes of the chunks its feeds reported, so each night's file holds only what
    changed since the last run: upserts of new or edited chunks, deletes of chunks that
    are gone (every chunk of a removed page). The first run's feed upserts every chunk.
    When the crawl has exited, ``sync(store, "changes.jsonl")`` brings the store to the
    site as crawled. Apply every night's feed, in order, before the next crawl
    overwrites the file (or name it by date): a feed skipped is lost, since the next one
    is computed against what the crawl already reported; a feed applied twice is
    harmless.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be an int of at least 1, got {batch_size!r}")
    if content not in CONTENT_FIELDS:
        allowed = " or ".join(repr(field) for field in CONTENT_FIELDS)
        raise ValueError(f"content must be {allowed}, got {content!r}")
    if isinstance(changes, Mapping):
        raise TypeError("changes is one change (a dict): pass a list of changes or a path")

    if isinstance(changes, str | os.PathLike):
        source = str(changes)
        numbered: Iterable[tuple[str, Any]] = _numbered_lines(Path(changes))
    else:
        source = "the changes given"
        numbered = ((f"change {n}", record) for n, record in enumerate(changes, 1))
    # read and check everything first: a malformed feed must not be half applied
    ops = [_change_op(where, record, id_map, content) for where, record in numbered]

    batches = _Batches(store, batch_size, delete_first)
    for op in ops:
        batches.add(op)
    batches.flush()
    report = SyncReport(
        upserted=sum(op.document is not None for op in ops),
        deleted=sum(op.document is None for op in ops),
    )
    log.info(
        "synced %s into %s: %d upserted, %d deleted, in %d store calls",
        source,
        type(store).__name__,
        report.upserted,
        report.deleted,
        batches.calls,
    )
    return report


@dataclass(frozen=True, slots=True)
class _Op:
    """One checked change: the store id it touches, and its document (None: a delete)."""

    store_id: str
    document: Document | None


def _numbered_lines(path: Path) -> Iterator[tuple[str, Any]]:
    """(``"path:line"``, record) for each non-blank line of a JSONL file."""
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where}: not JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise ValueError(f"{where}: a change is a JSON object, got {record!r:.60}")
            yield where, record


def _change_op(where: str, record: Any, id_map: Callable[[str], str], content: str) -> _Op:
    """The checked :class:`_Op` of one change record; ValueError naming ``where``."""
    if not isinstance(record, Mapping):
        raise ValueError(f"{where}: a change is a JSON object, got {type(record).__name__}")
    chunk_id = record.get("chunk_id")
    if not isinstance(chunk_id, str) or not chunk_id:
        raise ValueError(f"{where}: no chunk_id string")
    store_id = id_map(chunk_id)
    if not isinstance(store_id, str) or not store_id:
        raise ValueError(f"{where}: id_map gave {store_id!r} for chunk {chunk_id}, not a string")
    op = record.get("op")
    if op == _DELETE:
        return _Op(store_id, None)
    if op != _UPSERT:
        raise ValueError(f"{where}: op must be 'upsert' or 'delete', got {op!r}")
    page_content = record.get(content)
    if not isinstance(page_content, str):
        raise ValueError(f"{where}: upsert of chunk {chunk_id} without a {content!r} string")
    metadata: dict[str, str] = {}
    for key in SYNC_METADATA_KEYS:
        value = record.get(key)
        if key == "title" and value is None:
            value = ""  # a page without a title; some stores refuse None metadata
        if not isinstance(value, str):
            raise ValueError(f"{where}: upsert of chunk {chunk_id} without a {key!r} string")
        metadata[key] = value
    return _Op(store_id, Document(page_content=page_content, metadata=metadata, id=store_id))


class _Batches:
    """The unsent deletes and upserts, sent deletes first then upserts.

    Invariant: sending the deletes before the upserts gives what feed order gives,
    because no unsent upsert's id has a later unsent delete: a change touching an id
    that the unsent upserts hold sends both batches first (a later delete of it must
    follow the upsert; a second upsert of it must win). An upsert of an id the unsent
    deletes hold needs nothing: deletes go first.
    """

    def __init__(self, store: VectorStore, batch_size: int, delete_first: bool) -> None:
        self.store = store
        self.batch_size = batch_size
        self.delete_first = delete_first
        self.deletes: dict[str, None] = {}  # an ordered set: deleting twice is once
        self.upserts: dict[str, Document] = {}
        self.calls = 0

    def add(self, op: _Op) -> None:
        if op.store_id in self.upserts:
            self.flush()
        if op.document is None:
            self.deletes[op.store_id] = None
        else:
            self.upserts[op.store_id] = op.document
        if max(len(self.deletes), len(self.upserts)) >= self.batch_size:
            self.flush()

    def flush(self) -> None:
        if self.deletes:
            self._delete(list(self.deletes))
            self.deletes.clear()
        if self.upserts:
            ids = list(self.upserts)
            if self.delete_first:
                self._delete(ids)
            self._add(list(self.upserts.values()), ids)
            self.upserts.clear()

    def _delete(self, ids: list[str]) -> None:
        log.debug("deleting %d ids from %s", len(ids), type(self.store).__name__)
        self.calls += 1
        # True, or None from a store that does not report: only False is a refusal
        if self.store.delete(ids=ids) is False:
            raise SyncError(
                f"{type(self.store).__name__}.delete refused {len(ids)} ids "
                f"(first {ids[0]}): it returned False"
            )

    def _add(self, documents: Sequence[Document], ids: list[str]) -> None:
        log.debug("adding %d documents to %s", len(ids), type(self.store).__name__)
        self.calls += 1
        returned = self.store.add_documents(list(documents), ids=ids)
        if returned is not None and [str(given) for given in returned] != ids:
            raise SyncError(
                f"{type(self.store).__name__}.add_documents kept other ids than the "
                f"{len(ids)} given (first given {ids[0]}, first kept "
                f"{returned[0] if returned else None!r}): it does not honour ids="
            )
