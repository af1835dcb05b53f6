"""A cache of whole crawl answers, for the HTTP API's ``maxAgeMs``.

Pure module (standard library only). One sqlite file in the state store's folder
(:data:`CACHE_FILE` under ``state_dir``), so cached answers survive a restart of the
server, as the incremental state does. Its name does not end in ``.sqlite``: the state
store lists every ``*.sqlite`` file of the folder as a job (``webmd state list``).

An entry is a JSON object stored zlib-compressed under a key the caller derives from
the request's parameters (:func:`cache_key`), with the time it was stored. A lookup
names the oldest age it accepts, so one entry serves requests that ask for different
freshness. Entries older than :data:`MAX_AGE_MS` are never served and are removed on
the next write, as are the oldest beyond ``max_entries``.

Every call opens its own connection: the server calls it from worker threads, and a
sqlite connection must not cross threads.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import sqlite3
import time
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

#: the cache's file under the state folder
CACHE_FILE = "http-api-cache.sqlite3"
#: no entry is served or kept past this age: 30 days, the largest maxAgeMs
MAX_AGE_MS = 30 * 24 * 3600 * 1000
#: entries kept at most (the oldest go first)
DEFAULT_MAX_ENTRIES = 1000
#: seconds a call waits for another writer's lock
LOCK_TIMEOUT_SECS = 10.0
#: the layout of keys and entries: a change of either starts an empty cache
FORMAT_VERSION = 1

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS answers ("
    " key TEXT PRIMARY KEY,"
    " stored_ms INTEGER NOT NULL,"
    " body BLOB NOT NULL)"
)


class ResultCacheError(RuntimeError):
    """The cache file cannot be created or opened; the message says why."""


def cache_key(parameters: Mapping[str, Any]) -> str:
    """The key of a request's answer: a hash of its parameters as canonical JSON (keys
    sorted), so the order of the fields in a request does not matter. The caller
    passes only what changes the answer, with defaults filled in."""
    text = json.dumps(
        {"v": FORMAT_VERSION, "parameters": parameters},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,  # a server option given as a Path, say
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def now_ms() -> int:
    """The wall clock in milliseconds (ages survive restarts, so not a monotonic one)."""
    return int(time.time() * 1000)


class ResultCache:
    """Crawl answers by key, in ``<state_dir>/`` :data:`CACHE_FILE`."""

    def __init__(self, state_dir: Path | str, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        """Create the folder and the table if needed; raises ResultCacheError when
        either cannot be created (a read-only or missing parent, say)."""
        self.path = Path(state_dir) / CACHE_FILE
        self.max_entries = max_entries
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                # WAL: readers (lookups) do not wait for a writer (a finished crawl)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ResultCacheError(f"cannot open the answer cache {self.path}: {exc}") from None

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection for one call, committed on success and always closed."""
        db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT_SECS)
        try:
            with db:  # a transaction: commit, or roll back on an exception
                yield db
        finally:
            db.close()

    def get(self, key: str, max_age_ms: int, now: int | None = None) -> dict[str, Any] | None:
        """The answer stored under ``key`` if it is at most ``max_age_ms`` old, else
        None (``max_age_ms`` 0 never hits: the caller wants a fresh crawl). An entry
        that cannot be read is treated as missing and logged, never raised."""
        if max_age_ms <= 0:
            return None
        oldest = (now if now is not None else now_ms()) - min(max_age_ms, MAX_AGE_MS)
        try:
            with self._connect() as db:
                found = db.execute(
                    "SELECT body FROM answers WHERE key = ? AND stored_ms >= ?", (key, oldest)
                ).fetchone()
        except sqlite3.Error as exc:
            logger.warning("Answer cache %s: lookup failed: %s", self.path, exc)
            return None
        if found is None:
            return None
        try:
            value = json.loads(zlib.decompress(found[0]))
        except (zlib.error, ValueError) as exc:
            logger.warning("Answer cache %s: unreadable entry %s: %s", self.path, key, exc)
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: Mapping[str, Any], now: int | None = None) -> None:
        """Store ``value`` (a JSON object) under ``key``, replacing an older answer, and
        drop entries past :data:`MAX_AGE_MS` and beyond ``max_entries``. A failed write
        is logged, never raised: the answer was still given."""
        stored = now if now is not None else now_ms()
        body = zlib.compress(json.dumps(value, ensure_ascii=False).encode("utf-8"), 6)
        try:
            with self._connect() as db:
                db.execute(
                    "INSERT OR REPLACE INTO answers (key, stored_ms, body) VALUES (?, ?, ?)",
                    (key, stored, body),
                )
                db.execute("DELETE FROM answers WHERE stored_ms < ?", (stored - MAX_AGE_MS,))
                db.execute(
                    "DELETE FROM answers WHERE key NOT IN "
                    "(SELECT key FROM answers ORDER BY stored_ms DESC LIMIT ?)",
                    (self.max_entries,),
                )
        except sqlite3.Error as exc:
            logger.warning("Answer cache %s: write failed: %s", self.path, exc)

    def __len__(self) -> int:
        """The number of entries stored (fresh or not)."""
        with self._connect() as db:
            count: int = db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
        return count
