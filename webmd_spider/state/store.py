"""Per-job page state for incremental recrawls.

A *job* is one named crawl configuration (``-a state=NAME``, or :func:`job_key` of the
inputs and scope). Its state maps each canonical page URL to what the last run saw:
validators (``ETag``, ``Last-Modified``), a hash of the page Markdown, when it was
seen, the extraction-settings fingerprint, and the page's same-website links, so a
``304 Not Modified`` can skip extraction and still lead the crawl to the page's links.

Backends (``webmd_spider.state.backends.open_store``):

* ``sqlite`` (default): one file per job, ``<state_dir>/<job>.sqlite``, WAL mode,
  writes committed in batches; an exclusive ``flock`` on ``<state_dir>/<job>.lock``
  for the store's lifetime keeps two runs of one job apart.
* ``memory``: a process-wide registry for tests; same lock semantics in-process.
* ``package.module.ClassName``: any :class:`StateStore` subclass with a classmethod
  ``open(state_dir, job, lock_timeout)``.

PURE: standard library only; nothing from Scrapy or Twisted (import-linter checks).
A store is used from one thread at a time (it may be handed to another thread, e.g.
to close it), like Scrapy's own single-threaded engine.

Why one file of over 500 lines: it defines the state contract (``StateStore``,
``PageState``, the errors) with the two backends that need nothing more than the
standard library; the Redis one is a module of its own because it needs the ``redis``
package.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

from webmd_spider import pid_lock

__all__ = [
    "JobInfo",
    "PageState",
    "StateLockedError",
    "StateStore",
    "StateStoreError",
    "find_url",
    "forget_job",
    "job_key",
    "list_jobs",
    "reset_memory_stores",
    "validate_job_name",
]

#: Version of the SQLite layout; a file with another version is refused, not guessed at.
SCHEMA_VERSION = "1"
#: Batched writes: commit after this many writes ...
COMMIT_EVERY = 200
#: ... or when this many seconds have passed since the last commit (checked on a write).
COMMIT_INTERVAL = 1.0
#: How often a waiting opener re-tries a held lock (seconds).
LOCK_POLL = 0.05
#: Rows fetched per query by ``iterate`` (keyset pages: no cursor stays open across
#: the caller's own writes, and memory stays flat on millions of pages).
ITERATE_PAGE = 500

_DB_SUFFIX = ".sqlite"
_LOCK_SUFFIX = ".lock"
# Every file SQLite or the lock may leave for one job (``forget_job`` removes them all).
_JOB_SUFFIXES = (_DB_SUFFIX, _DB_SUFFIX + "-wal", _DB_SUFFIX + "-shm", _LOCK_SUFFIX)
_JOB_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")
_HOST_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


# --------------------------------------------------------------------------- #
# Values and errors
# --------------------------------------------------------------------------- #


@dataclass(slots=True)
class PageState:
    """What the last run knew about one page. ``url`` (canonical) is the key."""

    url: str
    website: str = ""  # site key (host without www.), to iterate one website
    etag: str | None = None  # ETag header exactly as the server sent it
    last_modified: str | None = None  # Last-Modified header value as sent
    content_hash: str | None = None  # "sha256:<hex>" of the Markdown before truncation
    last_seen: str = ""  # ISO 8601 UTC, e.g. "2026-11-30T12:00:00Z"
    settings_fingerprint: str = ""  # extraction settings + extractor version when written
    links: list[str] = field(default_factory=list)  # same-website links: a 304 still leads on


@dataclass(slots=True)
class JobInfo:
    """One job found in a state directory (:func:`list_jobs`).

    ``error`` is set (and ``pages`` is 0) when the file cannot be read, so one damaged
    file does not hide the others.
    """

    name: str
    pages: int
    last_run: str | None
    description: str | None
    path: str
    error: str | None = None


class StateStoreError(Exception):
    """The store cannot be opened, read or written; the message names the file and why."""


class StateLockedError(StateStoreError):
    """Another run (or another open store in this process) holds this job's state."""


def _locked_message(job: str, pid: str) -> str:
    return (
        f"state '{job}' is in use by another run (pid {pid or 'unknown'}); "
        "wait for it to finish or use -a state=OTHER"
    )


def _copy(state: PageState) -> PageState:
    # Stores hand out and keep independent values: a caller mutating a PageState (or
    # its links list) must not change what is stored, whatever the backend.
    return dataclasses.replace(state, links=list(state.links))


# --------------------------------------------------------------------------- #
# The interface
# --------------------------------------------------------------------------- #


class StateStore(ABC):
    """Page state of one job. Open with ``backends.open_store``; close with :meth:`close`
    (or use it as a context manager). Every method raises :class:`StateStoreError`
    on a storage failure and after :meth:`close`.
    """

    job: str

    @classmethod
    @abstractmethod
    def open(cls, state_dir: Path, job: str, lock_timeout: float) -> StateStore:
        """Open (creating if needed) ``job`` under ``state_dir``, holding its lock;
        wait up to ``lock_timeout`` seconds for another holder, then raise
        :class:`StateLockedError`."""

    @abstractmethod
    def get(self, url: str) -> PageState | None:
        """The state stored for ``url`` (exact key), or None."""

    @abstractmethod
    def put(self, state: PageState) -> None:
        """Store ``state`` under ``state.url``, replacing any previous state."""

    @abstractmethod
    def delete(self, url: str) -> None:
        """Forget ``url``; no error if it is not stored."""

    @abstractmethod
    def iterate(self, website: str | None = None) -> Iterator[PageState]:
        """Every stored page, or only ``website``'s, in ``url`` order."""

    def urls(self, website: str | None = None) -> set[str]:
        """The stored URLs (all, or ``website``'s). Backends may answer this without
        decoding whole records; the default walks :meth:`iterate`."""
        return {state.url for state in self.iterate(website)}

    def touch(self, url: str, last_seen: str, etag: str | None, last_modified: str | None) -> None:
        """A stored page answered 304: seen at ``last_seen``, with the validators the
        answer gave (None keeps the stored one); its hash, links and settings stay. No
        effect when ``url`` is not stored. Backends may do it without reading the
        record; the default is :meth:`get` then :meth:`put`."""
        state = self.get(url)
        if state is None:
            return
        state.last_seen = last_seen
        state.etag = etag or state.etag
        state.last_modified = last_modified or state.last_modified
        self.put(state)

    @abstractmethod
    def get_meta(self, key: str) -> str | None:
        """Job-level metadata (e.g. ``settings_fingerprint``, ``description``,
        ``last_run``), or None."""

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None:
        """Set job-level metadata ``key`` to ``value``."""

    @abstractmethod
    def count(self) -> int:
        """Number of stored pages."""

    @abstractmethod
    def flush(self) -> None:
        """Make every put/delete/set_meta so far durable. Meant for checkpoints and the
        end of a run, not for every page."""

    @abstractmethod
    def close(self) -> None:
        """Flush and release the lock. Idempotent."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# --------------------------------------------------------------------------- #
# Job names
# --------------------------------------------------------------------------- #


def validate_job_name(name: str) -> str:
    """Return ``name`` if it is a safe file name for a job, else raise ValueError.

    Safe: 1 to 100 of ``[A-Za-z0-9._-]``, not starting with ``.`` (so no ``..``, no
    path separators, no hidden files).
    """
    if not isinstance(name, str) or not _JOB_NAME.fullmatch(name) or name.startswith("."):
        raise ValueError(
            f"invalid state name {name!r}: use 1 to 100 letters, digits, '.', '_' or '-', "
            "not starting with '.'"
        )
    return name


def _host_of(raw: str) -> str:
    # Inputs may be bare domains ("example.com") as well as URLs.
    text = raw.strip()
    if "://" not in text:
        text = "http://" + text
    try:
        host = (urlsplit(text).hostname or "").lower()
    except ValueError:
        host = ""
    host = host.removeprefix("www.")
    return _HOST_UNSAFE.sub("-", host).strip(".-")[:80]


def _json_default(value: Any) -> Any:
    # Scope values are settings: sets must hash the same in every process (str(set)
    # order varies with hash randomisation), anything else by its text.
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    return str(value)


def job_key(inputs: Sequence[str], scope: Mapping[str, Any]) -> str:
    """The job name used when the user gives none: ``<host>-<10 hex>``.

    ``host`` is the alphabetically first host (without ``www.``, sanitized) among the
    inputs — the first of the *sorted* inputs, so the key does not depend on their
    order; the hex is sha256 over the sorted, de-duplicated inputs and
    ``json.dumps(scope, sort_keys=True)``. Deterministic across processes; the result
    passes :func:`validate_job_name`.
    """
    unique = sorted({item.strip() for item in inputs if item.strip()})
    hosts = sorted(host for host in (_host_of(item) for item in unique) if host)
    prefix = hosts[0] if hosts else "job"
    payload = json.dumps(unique) + "\n" + json.dumps(scope, sort_keys=True, default=_json_default)
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:10]
    return validate_job_name(f"{prefix}-{digest}")


# --------------------------------------------------------------------------- #
# File lock (SQLite backend, forget_job)
# --------------------------------------------------------------------------- #


def _acquire_lock(path: Path, job: str, timeout: float) -> int:
    """Hold the job's exclusive lock (``pid_lock.hold``); return its fd. Wait up to
    ``timeout`` seconds, then raise StateLockedError naming the holder's PID."""
    try:
        return pid_lock.hold(path, timeout, LOCK_POLL)
    except pid_lock.LockHeld as held:
        raise StateLockedError(_locked_message(job, held.pid)) from None
    except pid_lock.LockError as exc:
        raise StateStoreError(str(exc)) from None


_release_lock = pid_lock.release


# --------------------------------------------------------------------------- #
# SQLite backend
# --------------------------------------------------------------------------- #

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pages (
    url TEXT PRIMARY KEY,
    website TEXT NOT NULL DEFAULT '',
    etag TEXT,
    last_modified TEXT,
    content_hash TEXT,
    last_seen TEXT NOT NULL DEFAULT '',
    settings_fingerprint TEXT NOT NULL DEFAULT '',
    links TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS pages_website ON pages (website, url);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_COLUMNS = "url, website, etag, last_modified, content_hash, last_seen, settings_fingerprint, links"
_PUT = f"INSERT OR REPLACE INTO pages ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"


def _db_path(state_dir: Path, job: str) -> Path:
    return state_dir / f"{job}{_DB_SUFFIX}"


def _damaged(path: Path, job: str, exc: BaseException) -> StateStoreError:
    return StateStoreError(
        f"cannot read state file {path}: {exc}; if it is damaged, remove it with "
        f"`webmd state forget {job}`"
    )


def _page_from_row(row: tuple[Any, ...]) -> PageState:
    """A ``pages`` row (columns in ``_COLUMNS`` order) as a PageState; ValueError if
    its links are not a JSON list."""
    url, website, etag, last_modified, content_hash, last_seen, fingerprint, links = row
    try:
        decoded = json.loads(links)
    except ValueError as exc:
        raise ValueError(f"bad links of {url}: {exc}") from exc
    if not isinstance(decoded, list):
        raise ValueError(f"bad links of {url}: not a list")
    return PageState(
        url=url,
        website=website,
        etag=etag,
        last_modified=last_modified,
        content_hash=content_hash,
        last_seen=last_seen,
        settings_fingerprint=fingerprint,
        links=[str(link) for link in decoded],
    )


class SqliteStateStore(StateStore):
    """The default backend: ``<state_dir>/<job>.sqlite`` in WAL mode.

    Writes are batched (:data:`COMMIT_EVERY` writes or :data:`COMMIT_INTERVAL`
    seconds, checked on each write), because the per-page path runs millions of
    times and a commit per page would dominate. Reads go through the same connection,
    so they see uncommitted writes. ``synchronous=NORMAL`` means a commit survives a
    crash of the process; :meth:`flush` also checkpoints the WAL so that everything
    so far is on disk.
    """

    def __init__(self, path: Path, job: str, conn: sqlite3.Connection, lock_fd: int) -> None:
        self.job = job
        self.path = path
        self._conn: sqlite3.Connection | None = conn
        self._lock_fd = lock_fd
        self._pending = 0
        self._last_commit = time.monotonic()

    @classmethod
    def open(cls, state_dir: Path, job: str, lock_timeout: float) -> SqliteStateStore:
        """See :meth:`StateStore.open`. A damaged file raises StateStoreError naming
        it; the lock is released again on any failure."""
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StateStoreError(
                f"cannot create state directory {state_dir}: {exc.strerror}"
            ) from exc
        lock_fd = _acquire_lock(state_dir / f"{job}{_LOCK_SUFFIX}", job, lock_timeout)
        path = _db_path(state_dir, job)
        conn: sqlite3.Connection | None = None
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, so batching is
            # explicit. check_same_thread=False: a store may be closed from another
            # thread (it is never used from two threads at once).
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None:
                conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                conn.execute("ROLLBACK")
                raise StateStoreError(
                    f"state file {path} has schema version {row[0]!r}, this version of "
                    f"webmd reads {SCHEMA_VERSION!r}; remove it with `webmd state forget {job}`"
                )
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            _release_lock(lock_fd)
            if isinstance(exc, sqlite3.Error):
                raise _damaged(path, job, exc) from exc
            raise
        return cls(path, job, conn, lock_fd)

    # -- internals -------------------------------------------------------- #

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StateStoreError(f"state '{self.job}' ({self.path}) is closed")
        return self._conn

    def _error(self, exc: BaseException) -> StateStoreError:
        return _damaged(self.path, self.job, exc)

    def _write(self, sql: str, params: Sequence[Any]) -> None:
        conn = self._connection()
        try:
            if not conn.in_transaction:
                conn.execute("BEGIN")
            conn.execute(sql, params)
            self._pending += 1
            if (
                self._pending >= COMMIT_EVERY
                or time.monotonic() - self._last_commit >= COMMIT_INTERVAL
            ):
                self._commit(conn)
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def _commit(self, conn: sqlite3.Connection) -> None:
        if conn.in_transaction:
            conn.execute("COMMIT")
        self._pending = 0
        self._last_commit = time.monotonic()

    def _row(self, row: tuple[Any, ...]) -> PageState:
        try:
            return _page_from_row(row)
        except ValueError as exc:
            raise self._error(exc) from exc

    # -- StateStore ------------------------------------------------------- #

    def get(self, url: str) -> PageState | None:
        conn = self._connection()
        try:
            row = conn.execute(f"SELECT {_COLUMNS} FROM pages WHERE url = ?", (url,)).fetchone()
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        return None if row is None else self._row(row)

    def put(self, state: PageState) -> None:
        links = json.dumps(list(state.links), ensure_ascii=False, separators=(",", ":"))
        self._write(
            _PUT,
            (
                state.url,
                state.website,
                state.etag,
                state.last_modified,
                state.content_hash,
                state.last_seen,
                state.settings_fingerprint,
                links,
            ),
        )

    def delete(self, url: str) -> None:
        self._write("DELETE FROM pages WHERE url = ?", (url,))

    def touch(self, url: str, last_seen: str, etag: str | None, last_modified: str | None) -> None:
        # one UPDATE: a recrawl's 304s neither read nor rewrite the stored links' JSON
        self._write(
            "UPDATE pages SET last_seen = ?, etag = COALESCE(?, etag), "
            "last_modified = COALESCE(?, last_modified) WHERE url = ?",
            (last_seen, etag or None, last_modified or None, url),
        )

    def urls(self, website: str | None = None) -> set[str]:
        # one column, no JSON: a run's start-up reads every known URL once
        sql = "SELECT url FROM pages"
        params: tuple[str, ...] = ()
        if website is not None:
            sql, params = sql + " WHERE website = ?", (website,)
        try:
            return {row[0] for row in self._connection().execute(sql, params)}
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def iterate(self, website: str | None = None) -> Iterator[PageState]:
        after: str | None = None
        while True:
            # Keyset pagination: each page is a fresh query, so the caller may put or
            # delete between items without disturbing an open cursor.
            conn = self._connection()
            where, params = [], []
            if website is not None:
                where.append("website = ?")
                params.append(website)
            if after is not None:
                where.append("url > ?")
                params.append(after)
            sql = f"SELECT {_COLUMNS} FROM pages"
            if where:
                sql += " WHERE " + " AND ".join(where)
            sql += f" ORDER BY url LIMIT {ITERATE_PAGE}"
            try:
                rows = conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise self._error(exc) from exc
            for row in rows:
                yield self._row(row)
            if len(rows) < ITERATE_PAGE:
                return
            after = rows[-1][0]

    def get_meta(self, key: str) -> str | None:
        conn = self._connection()
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._write("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def count(self) -> int:
        conn = self._connection()
        try:
            row = conn.execute("SELECT COUNT(*) FROM pages").fetchone()
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        return int(row[0])

    def flush(self) -> None:
        conn = self._connection()
        try:
            self._commit(conn)
            # With synchronous=NORMAL a WAL commit is not fsynced; a checkpoint syncs
            # the WAL and the database, so what is flushed survives a power loss too.
            # We hold the only writer (the lock), so PASSIVE checkpoints everything.
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def close(self) -> None:
        if self._conn is None:
            return
        conn = self._conn
        try:
            self.flush()
        finally:
            self._conn = None
            with contextlib.suppress(sqlite3.Error):
                conn.close()
            _release_lock(self._lock_fd)


# --------------------------------------------------------------------------- #
# Memory backend (tests)
# --------------------------------------------------------------------------- #


@dataclass
class _MemoryJob:
    pages: dict[str, PageState] = field(default_factory=dict)
    meta: dict[str, str] = field(default_factory=dict)
    held: bool = False


# Keyed by (resolved state_dir, job), so two crawls in one process with the same job
# share state, exactly as they would through one SQLite file.
_MEMORY: dict[tuple[str, str], _MemoryJob] = {}
_MEMORY_COND = threading.Condition()


def reset_memory_stores() -> None:
    """Forget every memory-backend job (tests call this between tests)."""
    with _MEMORY_COND:
        _MEMORY.clear()
        _MEMORY_COND.notify_all()


class MemoryStateStore(StateStore):
    """State in a process-wide dict; for tests. Survives close/reopen in the same
    process; one open store per job at a time, like the SQLite lock."""

    def __init__(self, job: str, data: _MemoryJob) -> None:
        self.job = job
        self._data: _MemoryJob | None = data

    @classmethod
    def open(cls, state_dir: Path, job: str, lock_timeout: float) -> MemoryStateStore:
        """See :meth:`StateStore.open`."""
        key = (str(Path(state_dir).resolve()), job)
        deadline = time.monotonic() + max(0.0, lock_timeout)
        with _MEMORY_COND:
            while True:
                data = _MEMORY.setdefault(key, _MemoryJob())
                if not data.held:
                    data.held = True
                    return cls(job, data)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise StateLockedError(_locked_message(job, str(os.getpid())))
                _MEMORY_COND.wait(remaining)

    def _job(self) -> _MemoryJob:
        if self._data is None:
            raise StateStoreError(f"state '{self.job}' (memory) is closed")
        return self._data

    def get(self, url: str) -> PageState | None:
        state = self._job().pages.get(url)
        return None if state is None else _copy(state)

    def put(self, state: PageState) -> None:
        self._job().pages[state.url] = _copy(state)

    def delete(self, url: str) -> None:
        self._job().pages.pop(url, None)

    def iterate(self, website: str | None = None) -> Iterator[PageState]:
        pages = self._job().pages
        # A snapshot of the keys: the caller may write while iterating.
        for url in sorted(pages):
            state = pages.get(url)
            if state is not None and (website is None or state.website == website):
                yield _copy(state)

    def get_meta(self, key: str) -> str | None:
        return self._job().meta.get(key)

    def set_meta(self, key: str, value: str) -> None:
        self._job().meta[key] = value

    def count(self) -> int:
        return len(self._job().pages)

    def flush(self) -> None:
        self._job()  # nothing to write; still an error after close, like SQLite

    def close(self) -> None:
        if self._data is None:
            return
        with _MEMORY_COND:
            self._data.held = False
            self._data = None
            _MEMORY_COND.notify_all()


# --------------------------------------------------------------------------- #
# Inspecting a state directory (SQLite jobs; the `webmd state` command)
# --------------------------------------------------------------------------- #


def _read_only(path: Path) -> sqlite3.Connection:
    # mode=rw: never create a file that is not there. No lock: WAL lets a reader run
    # beside a crawl that is writing (it sees the last commit).
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=rw", uri=True, timeout=5.0)
    conn.execute("PRAGMA query_only=ON")
    return conn


def _job_files(state_dir: Path) -> list[tuple[str, Path]]:
    if not state_dir.is_dir():
        return []
    jobs = []
    for path in state_dir.glob(f"*{_DB_SUFFIX}"):
        name = path.name[: -len(_DB_SUFFIX)]
        try:
            validate_job_name(name)
        except ValueError:
            continue  # not one of ours
        if path.is_file():
            jobs.append((name, path))
    return sorted(jobs)


def list_jobs(state_dir: str | Path) -> list[JobInfo]:
    """SQLite jobs in ``state_dir``, sorted by name; ``[]`` if it does not exist.
    An unreadable file is listed with ``error`` set."""
    infos = []
    for name, path in _job_files(Path(state_dir)):
        try:
            conn = _read_only(path)
            try:
                pages = int(conn.execute("SELECT COUNT(*) FROM pages").fetchone()[0])
                meta = dict(
                    conn.execute(
                        "SELECT key, value FROM meta WHERE key IN ('last_run', 'description')"
                    ).fetchall()
                )
            finally:
                conn.close()
        except sqlite3.Error as exc:
            infos.append(JobInfo(name, 0, None, None, str(path), error=str(exc)))
            continue
        infos.append(JobInfo(name, pages, meta.get("last_run"), meta.get("description"), str(path)))
    return infos


def forget_job(state_dir: str | Path, name: str) -> bool:
    """Delete job ``name``'s files (database, ``-wal``, ``-shm``, lock).

    Returns False if the job had no database. Raises ValueError for an unsafe name,
    :class:`StateLockedError` if a run holds the job, StateStoreError if a file cannot
    be removed.
    """
    validate_job_name(name)
    directory = Path(state_dir)
    db = _db_path(directory, name)
    lock = directory / f"{name}{_LOCK_SUFFIX}"
    if not db.exists() and not lock.exists():
        return False  # nothing to lock or remove (a stray lock file alone is cleaned up)
    # Take the lock so no run is mid-write; unlinking the lock file while holding it is
    # safe because openers re-check the inode after locking (_acquire_lock).
    fd = _acquire_lock(lock, name, 0.0)
    try:
        existed = db.exists()
        for suffix in _JOB_SUFFIXES:
            try:
                (directory / f"{name}{suffix}").unlink(missing_ok=True)
            except OSError as exc:
                raise StateStoreError(
                    f"cannot remove {directory / (name + suffix)}: {exc.strerror}"
                ) from exc
    finally:
        _release_lock(fd)
    return existed


def find_url(state_dir: str | Path, url: str) -> list[tuple[str, PageState]]:
    """``(job, state)`` for every SQLite job in ``state_dir`` that stores exactly
    ``url``, sorted by job. Unreadable files are skipped (``list_jobs`` reports them)."""
    found = []
    for name, path in _job_files(Path(state_dir)):
        try:
            conn = _read_only(path)
            try:
                row = conn.execute(f"SELECT {_COLUMNS} FROM pages WHERE url = ?", (url,)).fetchone()
            finally:
                conn.close()
        except sqlite3.Error:
            continue
        if row is None:
            continue
        try:
            found.append((name, _page_from_row(row)))
        except ValueError:
            continue
    return found
