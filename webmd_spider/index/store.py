"""The local search index: one SQLite file of chunks, their vectors, and a BM25 index,
kept in sync by the chunk-level change feed (``docs/design/search-index.md``).

Contracts:

* One SQLite file in WAL mode. ``chunks`` holds each chunk's record (the change
  record's fields; ``heading_path`` as JSON) and the key of its vector. ``chunk_id`` is
  the chunks' unique key; the table's primary key is an explicit integer ``id`` because
  the FTS5 table (``chunks_fts``, external content) indexes rows by an integer rowid,
  which must never be renumbered (``VACUUM`` may renumber the implicit rowid of a table
  whose primary key is text).
* Vectors live in ``vectors``, keyed by the sha256 of the *embedded text*
  (:func:`embedded_text`: the title, unless the heading path already starts with it,
  the heading path, and the chunk's text, one per line). An upsert whose embedded text
  already has a vector reuses it (``ApplyReport.reused``); only new texts go to the
  embedder (``ApplyReport.embedded``: distinct texts embedded). A vector no chunk
  refers to any more is deleted in the same transaction.
* ``meta`` records the schema version, the embedder's ``name`` and ``dim``, a random id
  of the index and a generation counter bumped whenever the vectors change (readers'
  caches and the ANN sidecar are keyed by both). Opening an index with another embedder
  raises :class:`IndexStoreError` naming the file, the index's embedder and the one given.
* Writers (``write=True``, an embedder required) hold an exclusive ``flock`` on
  ``<path>.lock`` (with their pid in it) until :meth:`SearchIndex.close`; a second
  writer waits up to ``lock_timeout`` seconds, then :class:`IndexLockedError`. Readers
  (``write=False``) take no lock and search while a writer writes (WAL).
* :meth:`SearchIndex.apply` is one SQLite transaction: a crash (even SIGKILL) leaves the
  index as before or as after the call. When the embedder raises, the call's changes are
  kept in the ``pending`` table instead (one transaction: the searchable chunks stay as
  they were), ``ApplyReport.pending`` counts the changes waiting and ``ApplyReport.error``
  says why; the next :meth:`~SearchIndex.apply` or :meth:`~SearchIndex.retry_pending`
  applies the pending changes first, in their order. :meth:`~SearchIndex.manifest`
  answers with the pending changes applied, so a caller diffing against it stays exact.
  The page entries of an apply (``pages``: the feed's page key -> content hash) need no
  embedding and are written at once either way.
* Search modes: ``keyword`` (FTS5 ``bm25()`` with the title and the heading path weighted
  above the body, :data:`BM25_WEIGHTS`; the query becomes OR'ed quoted words, so no user
  text is FTS syntax), ``vector`` (cosine similarity, ``index/vectors.py``: exact up to
  ``exact_max`` vectors, an ANN sidecar ``<path>.usearch`` above), ``hybrid`` (the
  default: reciprocal rank fusion, k=60, of both modes' top candidates). A query of more
  than :data:`MAX_QUERY_CHARS` characters, an empty one, or ``k`` outside 1..:data:`MAX_K`
  raise ValueError.

Every failure of the file (missing, corrupt, not an index, another schema, locked,
another embedder) is an :class:`IndexStoreError` with one line naming the file and the
cause. An index is used from one thread at a time (it may be handed between threads).

PURE: standard library and numpy (import-linter checks: no Scrapy, no Twisted).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from webmd_spider import pid_lock
from webmd_spider.index.vectors import EXACT_MAX_VECTORS, VectorSearcher, from_blobs, to_blob
from webmd_spider.index.vectors import normalise as _normalise

if TYPE_CHECKING:
    from webmd_spider.index.embedders import Embedder

__all__ = [
    "BM25_WEIGHTS",
    "MAX_K",
    "MAX_QUERY_CHARS",
    "MODES",
    "RRF_K",
    "SCHEMA_VERSION",
    "ApplyReport",
    "Hit",
    "IndexLockedError",
    "IndexStoreError",
    "SearchIndex",
    "embedded_text",
    "read_embedder_name",
    "snippet",
]

log = logging.getLogger(__name__)

#: Version of the file's layout; a file with another version is refused, not guessed at.
SCHEMA_VERSION = "1"
#: Longest query accepted (characters): a search box, not a document to compare.
MAX_QUERY_CHARS = 1_000
#: Most results one search returns.
MAX_K = 100
MODES = ("hybrid", "keyword", "vector")
#: Reciprocal rank fusion's constant (Cormack, Clarke & Büttcher 2009): a result's fused
#: score is the sum over modes of 1 / (RRF_K + rank).
RRF_K = 60
#: Weights of the (keyword chunks, vector chunks, keyword pages) rankings in the fusion
#: (weighted RRF; the pages' ranking sums each page's chunks' bm25: ``_pages``). Chosen
#: on the even half of the Python-docs judgements (bench/index_retrieval.py): the
#: static embedder ranks API names worse than BM25 does, and a page that treats the
#: words throughout is the one its index points to; docs/BENCHMARKS.md has the odd half.
RRF_WEIGHTS = (1.0, 0.3, 1.0)
#: bm25() column weights of (title, heading_path_text, text). The heading path names
#: the section, so it weighs most; the title is the same for every chunk of a page (and
#: is usually the heading path's first name too), so it weighs above the body only.
BM25_WEIGHTS = (2.0, 4.0, 1.0)
#: The longest snippet returned with a hit (characters, ellipses included).
SNIPPET_CHARS = 240
#: A chunk of an index-like page (a change record's ``index_like``: a generated index,
#: a listing, a tag page; ``rows/index_pages.py``) has its score multiplied by this:
#: its chunks are dense lists of exactly the names users search, and would otherwise
#: come first for every name while the page that treats it comes after.
INDEX_LIKE_BOOST = 0.5
#: Chunks of one page a search returns at most (None: no limit): a page's five chunks
#: on a topic would otherwise push every other page out of a short result list.
DEFAULT_PER_PAGE = 2
#: Query words sent to FTS5 at most (a long query's OR of hundreds of words is slow and
#: says no more than its first words).
MAX_QUERY_TERMS = 64
#: How often a waiting writer re-tries a held lock (seconds).
LOCK_POLL = 0.05

_LOCK_SUFFIX = ".lock"
_ANN_SUFFIX = ".usearch"
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")
_UPSERT, _DELETE = "upsert", "delete"

_SCHEMA = """
create table meta (key text primary key, value text not null);
create table vectors (
    id integer primary key,
    key text not null unique,
    vector blob not null
);
create table chunks (
    id integer primary key,
    chunk_id text not null unique,
    url text not null,
    title text not null,
    heading_path text not null,
    heading_path_text text not null,
    fragment text not null,
    text text not null,
    markdown text not null,
    char_start integer not null,
    char_end integer not null,
    content_hash text not null,
    crawled_at text not null,
    vector_key text not null,
    index_like integer not null default 0
);
create index chunks_url on chunks (url);
create index chunks_vector_key on chunks (vector_key);
create virtual table chunks_fts using fts5 (
    title, heading_path_text, text,
    content = 'chunks', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
create trigger chunks_ai after insert on chunks begin
    insert into chunks_fts (rowid, title, heading_path_text, text)
    values (new.id, new.title, new.heading_path_text, new.text);
end;
create trigger chunks_ad after delete on chunks begin
    insert into chunks_fts (chunks_fts, rowid, title, heading_path_text, text)
    values ('delete', old.id, old.title, old.heading_path_text, old.text);
end;
create trigger chunks_au after update on chunks begin
    insert into chunks_fts (chunks_fts, rowid, title, heading_path_text, text)
    values ('delete', old.id, old.title, old.heading_path_text, old.text);
    insert into chunks_fts (rowid, title, heading_path_text, text)
    values (new.id, new.title, new.heading_path_text, new.text);
end;
create table pending (
    seq integer primary key autoincrement,
    chunk_id text not null,
    url text not null,
    record text not null
);
create index pending_url on pending (url);
create table pages (url text primary key, content_hash text not null) without rowid;
"""

_CHUNK_COLUMNS = (
    "chunk_id, url, title, heading_path, heading_path_text, fragment, text, markdown, "
    "char_start, char_end, content_hash, crawled_at, vector_key, index_like"
)


class IndexStoreError(Exception):
    """The index file cannot be used: one line naming the file and the cause."""


class IndexLockedError(IndexStoreError):
    """Another run holds the index's writer lock."""


@dataclass
class ApplyReport:
    """What one :meth:`SearchIndex.apply` did.

    ``upserted``: chunks written (new or changed); ``deleted``: chunks removed;
    ``embedded``: distinct texts sent to the embedder; ``reused``: upserted chunks whose
    embedded text had a vector in the index already; ``pending``: changes waiting for
    the embedder after the call; ``error``: why the embedder failed ("" when it did not).
    """

    upserted: int = 0
    deleted: int = 0
    embedded: int = 0
    reused: int = 0
    pending: int = 0
    error: str = ""


@dataclass
class Hit:
    """One search result. ``score``: fused RRF score (hybrid), ``-bm25`` (keyword) or
    cosine similarity (vector); higher is better in every mode."""

    chunk_id: str
    url: str
    fragment: str
    title: str
    heading_path: list[str]
    score: float
    snippet: str
    text: str


def embedded_text(record: Mapping[str, Any]) -> str:
    """The text embedded for a chunk: its title (left out when the heading path already
    starts with it, as the feed's paths do), its heading path and its text, one per line.
    The context words make a short section's vector say which page and section it is."""
    title = str(record.get("title") or "").strip()
    path = str(record.get("heading_path_text") or "").strip()
    text = str(record.get("text") or "").strip()
    parts = [path, text] if title and path.startswith(title) else [title, path, text]
    return "\n".join(part for part in parts if part)


def _vector_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _query_terms(query: str) -> list[str]:
    # Words only: the FTS5 query is built from them, so punctuation, quotes, operators
    # (AND, NEAR, ^, *, :, column filters) in user text are never FTS syntax.
    seen: dict[str, None] = {}
    for word in _WORD.findall(query):
        seen.setdefault(word.casefold(), None)
    return list(seen)[:MAX_QUERY_TERMS]


def _fts_query(terms: Sequence[str]) -> str:
    # Each word quoted (a \w+ word holds no double quote), OR'ed: bm25 ranks chunks with
    # more of the words higher, and one missing word does not empty the answer.
    return " OR ".join(f'"{term}"' for term in terms)


def snippet(text: str, terms: Sequence[str], limit: int = SNIPPET_CHARS) -> str:
    """A window of ``text`` (whitespace collapsed) of at most ``limit`` characters around
    the first place a query word (or, failing that, its first letters: the index stems
    words) occurs; the text's start when none does. Cut at spaces, "…" where clipped."""
    flat = _SPACES.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    position = _first_match(flat, terms)
    # A little context before the word, most of the window after it.
    start = max(0, position - limit // 4)
    # A word near the end: the window ends with the text rather than falling short.
    start = max(0, min(start, len(flat) - limit + 1))
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < position else start
    prefix = "…" if start else ""
    room = limit - len(prefix)
    end = start + room
    if end >= len(flat):
        return prefix + flat[start:]
    room -= 1  # the closing ellipsis
    end = start + room
    space = flat.rfind(" ", start, end + 1)
    if space > start + room // 2:
        end = space
    return prefix + flat[start:end].rstrip() + "…"


def _first_match(text: str, terms: Sequence[str]) -> int:
    if not terms:
        return 0
    lowered = text.casefold()
    for candidates in (terms, [t[: max(4, len(t) - 3)] for t in terms if len(t) > 4]):
        if not candidates:
            continue
        pattern = re.compile(r"\b(?:" + "|".join(re.escape(t) for t in candidates) + ")")
        found = pattern.search(lowered)
        if found:
            return found.start()
    return 0


def _lock_message(path: Path, pid: str) -> str:
    return f"index {path} is being written by another run (pid {pid or 'unknown'})"


def _take_lock(path: Path, index_path: Path, timeout: float) -> int:
    """The index's writer lock (``pid_lock.hold`` on ``path``); waits up to
    ``timeout`` seconds polling, then :class:`IndexLockedError`."""
    try:
        return pid_lock.hold(path, timeout, LOCK_POLL)
    except pid_lock.LockHeld as held:
        raise IndexLockedError(_lock_message(index_path, held.pid)) from None
    except pid_lock.LockError as exc:
        raise IndexStoreError(str(exc)) from None


def _validate(changes: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The change records as plain dicts, or ValueError naming the first bad one."""
    records: list[dict[str, Any]] = []
    for number, change in enumerate(changes):
        if not isinstance(change, Mapping):
            raise ValueError(f"change {number}: not an object")
        op = change.get("op")
        for field in ("chunk_id", "url"):
            if not isinstance(change.get(field), str) or not change.get(field):
                raise ValueError(f"change {number}: {field} must be a non-empty string")
        if op == _UPSERT:
            for field in ("content_hash", "text"):
                if not isinstance(change.get(field), str):
                    raise ValueError(f"change {number} ({change['chunk_id']}): no {field}")
            path = change.get("heading_path") or []
            if not isinstance(path, list):
                raise ValueError(
                    f"change {number} ({change['chunk_id']}): heading_path must be a list"
                )
        elif op != _DELETE:
            raise ValueError(f"change {number}: op must be 'upsert' or 'delete', not {op!r}")
        records.append(dict(change))
    return records


class SearchIndex:
    """One open index file (see the module docstring). Open with :meth:`open`."""

    def __init__(
        self,
        path: Path,
        conn: sqlite3.Connection,
        embedder: Embedder | None,
        *,
        write: bool,
        lock_fd: int | None,
        exact_max: int,
    ) -> None:
        self.path = path
        self.write = write
        self.embedder = embedder
        self._conn: sqlite3.Connection | None = conn
        self._lock_fd = lock_fd
        meta = dict(conn.execute("select key, value from meta").fetchall())
        self.embedder_name: str = meta["embedder"]
        self.dim: int = int(meta["dim"])
        self._index_id: str = meta["index_id"]
        self._vectors = VectorSearcher(
            dim=self.dim, exact_max=exact_max, sidecar=Path(str(path) + _ANN_SUFFIX)
        )
        self._count_cache: tuple[int, int] | None = None  # (generation, vectors)

    # -- opening ------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        embedder: Embedder | None = None,
        *,
        write: bool = True,
        lock_timeout: float = 0.0,
        exact_max: int = EXACT_MAX_VECTORS,
    ) -> SearchIndex:
        """Open (``write=True``: create when missing) the index at ``path``.

        A writer needs ``embedder`` and holds the writer lock until :meth:`close`. A
        reader may leave ``embedder`` out: it then searches in ``keyword`` mode only
        (``embedder_name`` says which embedder the index wants). ``exact_max``: above
        this many vectors, vector search uses the ANN index (a parameter for tests)."""
        path = Path(path)
        if write and embedder is None:
            raise ValueError(f"index {path}: opening it for writing needs an embedder")
        lock_fd: int | None = None
        if write:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise IndexStoreError(f"index {path}: {exc.strerror}") from None
            lock_fd = _take_lock(Path(str(path) + _LOCK_SUFFIX), path, lock_timeout)
        elif not path.is_file():
            raise IndexStoreError(f"index {path} does not exist")
        conn: sqlite3.Connection | None = None
        try:
            conn = cls._connect(path, write)
            if write:
                assert embedder is not None
                cls._create_if_empty(conn, path, embedder)
            cls._check(conn, path, embedder)
            return cls(path, conn, embedder, write=write, lock_fd=lock_fd, exact_max=exact_max)
        except BaseException as exc:
            if conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            if lock_fd is not None:
                pid_lock.release(lock_fd)
            if isinstance(exc, sqlite3.Error):
                raise IndexStoreError(f"index {path} cannot be opened: {exc}") from None
            raise

    @staticmethod
    def _connect(path: Path, write: bool) -> sqlite3.Connection:
        if write:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        else:
            # mode=rw: a reader never creates a file; query_only: it never writes.
            conn = sqlite3.connect(
                path.resolve().as_uri() + "?mode=rw",
                uri=True,
                isolation_level=None,
                check_same_thread=False,
            )
        conn.execute("pragma busy_timeout = 5000")
        if write:
            # WAL: readers search while the writer writes. synchronous=normal: in WAL a
            # crash of the process never loses or tears a committed transaction (only a
            # power loss may drop the last ones).
            conn.execute("pragma journal_mode = wal")
            conn.execute("pragma synchronous = normal")
        else:
            conn.execute("pragma query_only = 1")
        # The first read of a file that is not SQLite fails here ("file is not a database").
        conn.execute("select count(*) from sqlite_master").fetchone()
        return conn

    @staticmethod
    def _create_if_empty(conn: sqlite3.Connection, path: Path, embedder: Embedder) -> None:
        if conn.execute("select count(*) from sqlite_master").fetchone()[0]:
            return
        try:
            conn.execute("begin immediate")
            for statement in _statements(_SCHEMA):
                conn.execute(statement)
            conn.executemany(
                "insert into meta (key, value) values (?, ?)",
                [
                    ("schema_version", SCHEMA_VERSION),
                    ("embedder", str(embedder.name)),
                    ("dim", str(int(embedder.dim))),
                    ("index_id", uuid.uuid4().hex),
                    ("generation", "0"),
                ],
            )
            conn.execute("commit")
        except sqlite3.OperationalError as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("rollback")
            if "fts5" in str(exc):
                raise IndexStoreError(
                    f"index {path}: this Python's SQLite {sqlite3.sqlite_version} has no FTS5"
                ) from None
            raise
        log.info("created search index %s for embedder %s", path, embedder.name)

    @staticmethod
    def _check(conn: sqlite3.Connection, path: Path, embedder: Embedder | None) -> None:
        tables = {row[0] for row in conn.execute("select name from sqlite_master")}
        if not {"meta", "chunks", "vectors", "pending", "chunks_fts"} <= tables:
            raise IndexStoreError(f"{path} is not a search index (it has no index tables)")
        meta = dict(conn.execute("select key, value from meta").fetchall())
        version = meta.get("schema_version")
        if version != SCHEMA_VERSION:
            raise IndexStoreError(
                f"index {path} has schema version {version}, this webmd reads version "
                f"{SCHEMA_VERSION}: build a new index"
            )
        if embedder is not None and (
            meta.get("embedder") != embedder.name or meta.get("dim") != str(embedder.dim)
        ):
            raise IndexStoreError(
                f"index {path} was built with embedder {meta.get('embedder')} "
                f"({meta.get('dim')} dims), not {embedder.name} ({embedder.dim} dims): "
                "open it with its embedder, or build a new index"
            )

    # -- life ---------------------------------------------------------------------
    def close(self) -> None:
        """Close the file and release the writer lock (idempotent)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            pid_lock.release(fd)
        self._vectors.invalidate()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise IndexStoreError(f"index {self.path} is closed")
        return self._conn

    def _error(self, exc: sqlite3.Error) -> IndexStoreError:
        return IndexStoreError(f"index {self.path}: {exc}")

    # -- reading ------------------------------------------------------------------
    def manifest(self, url: str) -> dict[str, str]:
        """chunk_id -> content_hash of the chunks the index holds for ``url``, with the
        pending changes applied (what the index will hold once they are embedded)."""
        db = self._db()
        try:
            held = dict(
                db.execute(
                    "select chunk_id, content_hash from chunks where url = ?", (url,)
                ).fetchall()
            )
            waiting = db.execute(
                "select record from pending where url = ? order by seq", (url,)
            ).fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        for (text,) in waiting:
            record = json.loads(text)
            if record["op"] == _DELETE:
                held.pop(record["chunk_id"], None)
            else:
                held[record["chunk_id"]] = record["content_hash"]
        return held

    def page_hashes(self) -> dict[str, str]:
        """Page key -> content hash of every page entry (``apply``'s ``pages``)."""
        try:
            return dict(self._db().execute("select url, content_hash from pages").fetchall())
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def urls(self) -> set[str]:
        """The URLs of the searchable chunks' pages."""
        try:
            return {row[0] for row in self._db().execute("select distinct url from chunks")}
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def count(self) -> int:
        """Searchable chunks."""
        try:
            return int(self._db().execute("select count(*) from chunks").fetchone()[0])
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def pending_count(self) -> int:
        """Changes waiting for the embedder."""
        try:
            return int(self._db().execute("select count(*) from pending").fetchone()[0])
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def stats(self) -> dict[str, Any]:
        """chunks, pages (distinct URLs), vectors, pending, embedder, dim, path,
        size_bytes (the file, its WAL and the ANN sidecar)."""
        db = self._db()
        try:
            chunks, pages = db.execute(
                "select count(*), count(distinct url) from chunks"
            ).fetchone()
            vectors = db.execute("select count(*) from vectors").fetchone()[0]
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        size = 0
        for suffix in ("", "-wal", _ANN_SUFFIX):
            with contextlib.suppress(OSError):
                size += os.stat(str(self.path) + suffix).st_size
        return {
            "path": str(self.path),
            "chunks": int(chunks),
            "pages": int(pages),
            "vectors": int(vectors),
            "pending": self.pending_count(),
            "embedder": self.embedder_name,
            "dim": self.dim,
            "size_bytes": size,
        }

    # -- writing ------------------------------------------------------------------
    def apply(
        self,
        changes: Sequence[Mapping[str, Any]],
        pages: Mapping[str, str | None] | None = None,
    ) -> ApplyReport:
        """Apply change records (the pending ones first), and set (hash) or drop (None)
        the page entries ``pages``: one transaction. When the embedder fails, the
        changes are kept pending instead (see the module docstring)."""
        if not self.write or self.embedder is None:
            raise IndexStoreError(f"index {self.path} is open read-only")
        records = _validate(changes)
        db = self._db()
        try:
            waiting = db.execute("select seq, record from pending order by seq").fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        last_seq = waiting[-1][0] if waiting else None
        work = [json.loads(text) for _, text in waiting] + records
        if not work:
            if pages:
                self._transaction(lambda: self._write_pages(pages))
            return ApplyReport()
        # The last change of a chunk wins (a pending upsert then a delete: deleted).
        final: dict[str, dict[str, Any]] = {}
        for record in work:
            final.pop(record["chunk_id"], None)
            final[record["chunk_id"]] = record
        upserts = [r for r in final.values() if r["op"] == _UPSERT]
        texts = {r["chunk_id"]: embedded_text(r) for r in upserts}
        keys = {cid: _vector_key(text) for cid, text in texts.items()}
        try:
            known = self._known_keys(set(keys.values()))
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        new_texts = {key: texts[cid] for cid, key in keys.items() if key not in known}
        # Embedding happens before the transaction: a slow embedder never holds SQLite's
        # write lock (readers are never blocked in WAL anyway; this keeps it short).
        try:
            vectors = self._embed(list(new_texts.values()))
        except IndexStoreError:
            raise
        except Exception as exc:
            # EmbedderError's message already names the embedder; others get its name.
            said = str(exc) or type(exc).__name__
            name = self.embedder.name
            message = (said if said.startswith(name) else f"embedder {name}: {said}").split("\n")[0]
            self._transaction(lambda: self._keep_pending(records, pages))
            waiting_now = self.pending_count()
            log.warning(
                "index %s: embedding failed, %d changes pending: %s",
                self.path,
                waiting_now,
                message,
            )
            return ApplyReport(pending=waiting_now, error=message)
        report = ApplyReport(embedded=len(new_texts))
        report.reused = sum(1 for key in keys.values() if key in known)

        def write() -> None:
            self._write(final.values(), keys, dict(zip(new_texts, vectors, strict=True)), report)
            if last_seq is not None:
                db.execute("delete from pending where seq <= ?", (last_seq,))
            if pages:
                self._write_pages(pages)

        self._transaction(write)
        log.debug("index %s: applied %s", self.path, report)
        return report

    def retry_pending(self) -> ApplyReport:
        """Embed and apply the pending changes (an :meth:`apply` of nothing new)."""
        return self.apply([])

    def _transaction(self, body: Callable[[], None]) -> None:
        db = self._db()
        try:
            db.execute("begin immediate")
            body()
            db.execute("commit")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("rollback")
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc) from None
            raise

    def _known_keys(self, keys: set[str]) -> set[str]:
        db = self._db()
        found: set[str] = set()
        ordered = sorted(keys)
        for start in range(0, len(ordered), 500):
            part = ordered[start : start + 500]
            marks = ",".join("?" * len(part))
            found.update(
                row[0]
                for row in db.execute(f"select key from vectors where key in ({marks})", part)
            )
        return found

    def _embed(self, texts: list[str]) -> np.ndarray:
        assert self.embedder is not None
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        matrix = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        if matrix.shape != (len(texts), self.dim):
            # A broken embedder, not a passing failure: keeping the changes pending would
            # only fail again.
            raise IndexStoreError(
                f"index {self.path}: embedder {self.embedder.name} returned vectors of "
                f"shape {matrix.shape} for {len(texts)} texts of {self.dim} dims"
            )
        if not np.isfinite(matrix).all():
            raise IndexStoreError(
                f"index {self.path}: embedder {self.embedder.name} returned non-finite numbers"
            )
        return _normalise(matrix)

    def _write(
        self,
        records: Iterable[dict[str, Any]],
        keys: Mapping[str, str],
        vectors: Mapping[str, np.ndarray],
        report: ApplyReport,
    ) -> None:
        db = self._db()
        db.executemany(
            "insert or ignore into vectors (key, vector) values (?, ?)",
            [(key, to_blob(vector)) for key, vector in vectors.items()],
        )
        released: set[str] = set()
        for record in records:
            chunk_id = record["chunk_id"]
            old = db.execute(
                "select vector_key from chunks where chunk_id = ?", (chunk_id,)
            ).fetchone()
            if old is not None:
                released.add(old[0])
            if record["op"] == _DELETE:
                if old is not None:
                    db.execute("delete from chunks where chunk_id = ?", (chunk_id,))
                    report.deleted += 1
                continue
            row = (
                chunk_id,
                record["url"],
                str(record.get("title") or ""),
                json.dumps([str(p) for p in record.get("heading_path") or []], ensure_ascii=False),
                str(record.get("heading_path_text") or ""),
                str(record.get("fragment") or record["url"]),
                record["text"],
                str(record.get("markdown") or ""),
                int(record.get("char_start") or 0),
                int(record.get("char_end") or 0),
                record["content_hash"],
                str(record.get("crawled_at") or ""),
                keys[chunk_id],
                1 if record.get("index_like") else 0,
            )
            db.execute(
                f"insert into chunks ({_CHUNK_COLUMNS}) values ({', '.join('?' * 14)}) "
                "on conflict (chunk_id) do update set url = excluded.url, "
                "title = excluded.title, heading_path = excluded.heading_path, "
                "heading_path_text = excluded.heading_path_text, "
                "fragment = excluded.fragment, text = excluded.text, "
                "markdown = excluded.markdown, char_start = excluded.char_start, "
                "char_end = excluded.char_end, content_hash = excluded.content_hash, "
                "crawled_at = excluded.crawled_at, vector_key = excluded.vector_key, "
                "index_like = excluded.index_like",
                row,
            )
            report.upserted += 1
        # Vectors that no chunk refers to any more go with the chunks that used them.
        released -= set(keys.values())
        db.executemany(
            "delete from vectors where key = ? and not exists "
            "(select 1 from chunks where vector_key = ?)",
            [(key, key) for key in sorted(released)],
        )
        if vectors or released:
            db.execute(
                "update meta set value = cast(value as integer) + 1 where key = 'generation'"
            )

    def _keep_pending(
        self, records: Sequence[dict[str, Any]], pages: Mapping[str, str | None] | None
    ) -> None:
        db = self._db()
        db.executemany(
            "insert into pending (chunk_id, url, record) values (?, ?, ?)",
            [
                (r["chunk_id"], r["url"], json.dumps(r, ensure_ascii=False, sort_keys=True))
                for r in records
            ],
        )
        if pages:
            self._write_pages(pages)

    def _write_pages(self, pages: Mapping[str, str | None]) -> None:
        db = self._db()
        for url, digest in pages.items():
            if digest is None:
                db.execute("delete from pages where url = ?", (url,))
            else:
                db.execute(
                    "insert into pages (url, content_hash) values (?, ?) "
                    "on conflict (url) do update set content_hash = excluded.content_hash",
                    (url, digest),
                )

    # -- searching ----------------------------------------------------------------
    def search(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        per_page: int | None = DEFAULT_PER_PAGE,
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query`` in ``mode`` (``hybrid``, ``keyword`` or
        ``vector``), best first, at most ``per_page`` of one page (None: no limit); a
        chunk of an index-like page scores INDEX_LIKE_BOOST of itself. Raises ValueError
        for an empty or too long query, a ``k`` outside 1..MAX_K or an unknown mode;
        IndexStoreError when a mode needs an embedder the index was opened without, or
        the embedder fails on the query."""
        if not isinstance(query, str) or not query.strip():
            raise ValueError("the query is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise ValueError(
                f"the query is {len(query)} characters long; at most {MAX_QUERY_CHARS} are allowed"
            )
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise ValueError(f"k must be a whole number from 1 to {MAX_K}, not {k!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        if mode != "keyword" and self.embedder is None:
            raise IndexStoreError(
                f"index {self.path}: {mode} search needs the index's embedder "
                f"{self.embedder_name}; without it only keyword search works"
            )
        terms = _query_terms(query)
        db = self._db()
        try:
            # One read transaction: every statement of the search sees one snapshot,
            # whatever a writer commits meanwhile.
            db.execute("begin")
            try:
                depth = max(50, 5 * k)
                ranked = self._ranked(query, terms, depth, mode)
                hits = self._hits(self._boosted(ranked), terms)
            finally:
                db.execute("commit")
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        if per_page is not None and per_page > 0:
            counts: dict[str, int] = {}
            kept: list[Hit] = []
            for hit in hits:
                seen = counts.get(hit.url, 0)
                if seen < per_page:
                    counts[hit.url] = seen + 1
                    kept.append(hit)
            hits = kept
        return hits[:k]

    def _ranked(self, query: str, terms: list[str], k: int, mode: str) -> list[tuple[int, float]]:
        if mode == "keyword":
            return self._keyword(terms, k)
        if mode == "vector":
            return self._vector(query, k)
        depth = max(50, 5 * k)
        fused: dict[int, float] = {}
        keyword = self._keyword(terms, depth)
        rankings = (keyword, self._vector(query, depth), self._pages(keyword))
        for weight, ranking in zip(RRF_WEIGHTS, rankings, strict=True):
            for rank, (row_id, _) in enumerate(ranking, start=1):
                fused[row_id] = fused.get(row_id, 0.0) + weight / (RRF_K + rank)
        ordered = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
        return ordered[:k]

    def _pages(self, keyword: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """A page-level ranking from the keyword one: each page's chunks' bm25 summed
        (a page that treats the words throughout, as whole-page BM25 ranks it), each
        page represented by its best chunk."""
        if not keyword:
            return []
        marks = ",".join("?" * len(keyword))
        url_of = dict(
            self._db().execute(
                f"select id, url from chunks where id in ({marks})",
                [row_id for row_id, _ in keyword],
            )
        )
        totals: dict[str, float] = {}
        best: dict[str, int] = {}
        for row_id, score in keyword:
            url = url_of.get(row_id)
            if url is None:
                continue
            totals[url] = totals.get(url, 0.0) + score
            best.setdefault(url, row_id)
        ordered = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
        return [(best[url], total) for url, total in ordered]

    def _boosted(self, ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """`ranked` with each chunk's score times its boost, re-sorted (a boost below 1
        demotes; scores of one mode share a sign, so the order is kept otherwise)."""
        if not ranked:
            return ranked
        marks = ",".join("?" * len(ranked))
        demoted = {
            row_id
            for (row_id,) in self._db().execute(
                f"select id from chunks where id in ({marks}) and index_like",
                [row_id for row_id, _ in ranked],
            )
        }
        if not demoted or INDEX_LIKE_BOOST == 1.0:
            return ranked
        boost = INDEX_LIKE_BOOST
        scored = [
            (row_id, (score * boost if score > 0 else score / boost))
            if row_id in demoted
            else (row_id, score)
            for row_id, score in ranked
        ]
        return sorted(scored, key=lambda item: (-item[1], item[0]))

    def _keyword(self, terms: list[str], limit: int) -> list[tuple[int, float]]:
        """(chunk row id, -bm25) of the best ``limit`` chunks, best first."""
        if not terms:
            return []
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        rows = self._db().execute(
            f"select rowid, bm25(chunks_fts, {weights}) as rank from chunks_fts "
            "where chunks_fts match ? order by rank, rowid limit ?",
            (_fts_query(terms), limit),
        )
        return [(int(row_id), -float(rank)) for row_id, rank in rows]

    def _vector(self, query: str, limit: int) -> list[tuple[int, float]]:
        """(chunk row id, cosine) of the best ``limit`` chunks, best first."""
        assert self.embedder is not None
        db = self._db()
        generation = int(
            db.execute("select value from meta where key = 'generation'").fetchone()[0]
        )
        if self._count_cache is None or self._count_cache[0] != generation:
            count = int(db.execute("select count(*) from vectors").fetchone()[0])
            self._count_cache = (generation, count)
        count = self._count_cache[1]
        if not count:
            return []
        try:
            query_vector = np.asarray(self.embedder.embed([query]), dtype=np.float32)[0]
        except Exception as exc:
            raise IndexStoreError(
                f"index {self.path}: cannot embed the query with {self.embedder.name}: "
                + str(exc).splitlines()[0]
            ) from None
        stamp = {
            "index": self._index_id,
            "generation": generation,
            "count": count,
            "embedder": self.embedder_name,
            "dim": self.dim,
        }
        # Each vector may serve several chunks (the same text on two pages), so the
        # ``limit`` best vectors give at least ``limit`` chunks.
        ids, scores = self._vectors.search(
            query_vector, limit, stamp=stamp, count=count, load=self._load_vectors
        )
        if not len(ids):
            return []
        score_of = {int(i): float(s) for i, s in zip(ids, scores, strict=True)}
        marks = ",".join("?" * len(score_of))
        rows = db.execute(
            f"select c.id, v.id from chunks c join vectors v on v.key = c.vector_key "
            f"where v.id in ({marks})",
            list(score_of),
        ).fetchall()
        ranked = sorted(((cid, score_of[vid]) for cid, vid in rows), key=lambda r: (-r[1], r[0]))
        return ranked[:limit]

    def _load_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        rows = self._db().execute("select id, vector from vectors order by id").fetchall()
        ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        return ids, from_blobs((row[1] for row in rows), self.dim)

    def _hits(self, ranked: list[tuple[int, float]], terms: list[str]) -> list[Hit]:
        if not ranked:
            return []
        marks = ",".join("?" * len(ranked))
        rows = (
            self._db()
            .execute(
                "select id, chunk_id, url, fragment, title, heading_path, text from chunks "
                f"where id in ({marks})",
                [row_id for row_id, _ in ranked],
            )
            .fetchall()
        )
        by_id = {row[0]: row for row in rows}
        hits: list[Hit] = []
        for row_id, score in ranked:
            row = by_id.get(row_id)
            if row is None:
                continue
            _, chunk_id, url, fragment, title, heading_path, text = row
            hits.append(
                Hit(
                    chunk_id=chunk_id,
                    url=url,
                    fragment=fragment,
                    title=title,
                    heading_path=list(json.loads(heading_path)),
                    score=score,
                    snippet=snippet(text, terms),
                    text=text,
                )
            )
        return hits

    @property
    def uses_ann(self) -> bool:
        """Whether the last vector search went through the ANN index (for tests and
        ``stats`` readers)."""
        return self._vectors.uses_ann


def read_embedder_name(path: str | os.PathLike[str]) -> str:
    """The name of the embedder the index at ``path`` was built with (to open that
    embedder for a search). IndexStoreError when the file is missing or not an index."""
    with SearchIndex.open(path, write=False) as index:
        return index.embedder_name


def _statements(script: str) -> list[str]:
    """The schema's statements, one each (``sqlite3.complete_statement`` splits at the
    ``;`` that ends a statement, not at the ones inside a trigger's body)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return [s for s in statements if s]
