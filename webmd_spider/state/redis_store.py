"""The Redis backend of the incremental-recrawl state (:mod:`webmd_spider.state.store`).

Select it with ``open_store("redis", state_dir, job)`` (``state_dir`` is not used)
and the server in the environment variable ``WEBMD_REDIS_URL``
(``redis://[[user]:password@]host:port/db``, ``rediss://`` for TLS,
``unix:///path/redis.sock?db=0``); or call :meth:`RedisStateStore.connect` with a URL,
as the distributed crawl does. Needs the ``redis`` package
(the ``distributed`` extra).

Key layout, all under ``webmd:state:{job}:`` (job names never contain ``:``):

* ``pages`` (hash): field = canonical URL, value = JSON object of the
  :class:`~webmd_spider.state.store.PageState` (every field, ``links`` a list);
* ``urls`` (sorted set, every score 0): every stored URL, so ``iterate()`` walks them
  in byte order (as SQLite's ``ORDER BY url``) with ``ZRANGEBYLEX``,
  :data:`~webmd_spider.state.store.ITERATE_PAGE` at a time;
* ``site:{website}`` (sorted set, every score 0): the URLs of one website, for
  ``iterate(website)``;
* ``meta`` (hash): job metadata, always holding ``schema_version`` (so every job
  that was ever opened has this key; :func:`redis_list_jobs` looks for it);
* ``lock`` (string, with a TTL): the holder of an exclusive store,
  ``<pid>@<hostname>:<random token>``.

``put``/``delete`` run small Lua scripts, so ``pages``, ``urls`` and the per-website
sets change together even when several workers share one job. Writes are buffered in
the store (the last write of each URL or meta key) and sent in one ``MULTI``/``EXEC``
pipeline every :data:`~webmd_spider.state.store.COMMIT_EVERY` writes or
:data:`~webmd_spider.state.store.COMMIT_INTERVAL` seconds (checked on each write), on
:meth:`~RedisStateStore.flush` and on :meth:`~RedisStateStore.close`. ``get`` and
``get_meta`` look in the buffer first and ``count``/``iterate`` send it first, so a
store always sees its own writes; other workers see them once sent. Durability is the
server's (its RDB/AOF settings): ``flush`` means "applied by Redis".

Locking: an exclusive store (``open_store``, or ``connect(..., exclusive=True)``) holds
``lock`` via ``SET NX PX`` with a TTL (:data:`LOCK_TTL`). Every flush, and any store call
once a third of the TTL has passed since the last one, renews it in the same
``WATCH``/``MULTI`` transaction as the buffered writes. A crashed holder therefore blocks
the job for at most one TTL. If a store is idle for longer than the TTL and another run
has taken the lock meanwhile, its next call raises :class:`StateLockedError` instead of
writing; if nobody took it, it is silently taken back. ``close()`` deletes the lock only
if it still holds it (Lua compare-and-delete). ``exclusive=False`` takes no lock: for the
workers of one distributed crawl that share the job's state.

PURE: redis-py and the standard library; nothing from Scrapy or Twisted.

Why one file of over 500 lines: it is one backend of the state contract; its length is
the key layout and the Redis scripts its methods need, each with why it is atomic.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import redis
from redis.client import Pipeline
from redis.exceptions import RedisError, WatchError

from webmd_spider.state.store import (
    COMMIT_EVERY,
    COMMIT_INTERVAL,
    ITERATE_PAGE,
    LOCK_POLL,
    SCHEMA_VERSION,
    JobInfo,
    PageState,
    StateLockedError,
    StateStore,
    StateStoreError,
    _copy,
    _locked_message,
    validate_job_name,
)

__all__ = [
    "KEY_PREFIX",
    "LOCK_TTL",
    "REDIS_URL_ENV",
    "RedisStateStore",
    "mask_redis_url",
    "redis_find_url",
    "redis_forget_job",
    "redis_list_jobs",
]

#: The environment variable ``RedisStateStore.open`` (and so ``open_store("redis",
#: ...)``) reads the server URL from.
REDIS_URL_ENV = "WEBMD_REDIS_URL"
#: Every key of job ``job`` starts with ``KEY_PREFIX.format(job=job)``.
KEY_PREFIX = "webmd:state:{job}:"
_ROOT = KEY_PREFIX.partition("{")[0]
#: Seconds an exclusive store's lock lives without being renewed.
LOCK_TTL = 60.0
#: Socket timeouts (seconds): connecting, and waiting for any one reply.
CONNECT_TIMEOUT = 5.0
SOCKET_TIMEOUT = 30.0
#: Keys asked for per SCAN call (``redis_list_jobs``, ``redis_forget_job``).
SCAN_COUNT = 1000

# KEYS: pages, urls. ARGV: per-website key prefix, url, website, JSON value.
# The page's previous website (if it changed) loses the URL from its set.
_PUT = """
local old = redis.call('HGET', KEYS[1], ARGV[2])
if old then
  local ok, decoded = pcall(cjson.decode, old)
  if ok and type(decoded) == 'table' and type(decoded['website']) == 'string'
      and decoded['website'] ~= ARGV[3] then
    redis.call('ZREM', ARGV[1] .. decoded['website'], ARGV[2])
  end
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[4])
redis.call('ZADD', KEYS[2], 0, ARGV[2])
redis.call('ZADD', ARGV[1] .. ARGV[3], 0, ARGV[2])
return 1
"""

# KEYS: pages, urls. ARGV: per-website key prefix, url.
_DELETE = """
local old = redis.call('HGET', KEYS[1], ARGV[2])
if old then
  local ok, decoded = pcall(cjson.decode, old)
  if ok and type(decoded) == 'table' and type(decoded['website']) == 'string' then
    redis.call('ZREM', ARGV[1] .. decoded['website'], ARGV[2])
  end
  redis.call('HDEL', KEYS[1], ARGV[2])
end
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""

# KEYS: lock. ARGV: holder id. Delete the lock only if we still hold it.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

_PAGE_FIELDS = (
    "url",
    "website",
    "etag",
    "last_modified",
    "content_hash",
    "last_seen",
    "settings_fingerprint",
    "links",
)


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #


def mask_redis_url(url: str) -> str:
    """``url`` with its password (in the authority or a ``password=`` query parameter)
    replaced by ``***``, for messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable Redis URL>"
    masked = url
    if "@" in parts.netloc:
        userinfo, _, hostport = parts.netloc.rpartition("@")
        user, colon, _password = userinfo.partition(":")
        # "redis://secret@host" is a user name to redis-py, but people write a password
        # there: mask a lone user info too.
        netloc = f"{user}:***@{hostport}" if colon else f"***@{hostport}"
        masked = masked.replace(parts.netloc, netloc, 1)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if any(key.lower() == "password" for key, _ in pairs):
        query = urlencode(
            [(k, "***" if k.lower() == "password" else v) for k, v in pairs], safe="*"
        )
        before, mark, after = masked.partition("?")
        masked = before + mark + after.replace(parts.query, query, 1)
    return masked


def _prefix(job: str) -> str:
    return KEY_PREFIX.format(job=job)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _holder_id() -> str:
    return f"{os.getpid()}@{socket.gethostname()}:{uuid.uuid4().hex[:12]}"


def _holder_label(holder: str | None) -> str:
    """``"1234 on host"`` from a lock value, for "in use by another run (pid ...)"."""
    if not holder:
        return ""
    pid, at, rest = holder.partition("@")
    if not at:
        return holder
    host = rest.rpartition(":")[0] or rest
    return f"{pid} on {host}"


def _client(url: str) -> redis.Redis:
    """A client for ``url`` that answers PING; StateStoreError (password masked) if not."""
    if not url or not url.strip():
        raise StateStoreError(
            f"the redis state backend needs a server URL: set {REDIS_URL_ENV}, "
            "e.g. redis://localhost:6379/0"
        )
    try:
        client = redis.Redis.from_url(
            url.strip(),
            decode_responses=True,
            socket_connect_timeout=CONNECT_TIMEOUT,
            socket_timeout=SOCKET_TIMEOUT,
        )
    except (ValueError, RedisError) as exc:
        raise StateStoreError(f"invalid Redis URL {mask_redis_url(url)}: {_reason(exc)}") from exc
    try:
        client.ping()
    except (RedisError, OSError) as exc:
        with contextlib.suppress(Exception):
            client.close()
        raise StateStoreError(
            f"cannot connect to Redis at {mask_redis_url(url)}: {_reason(exc)}"
        ) from exc
    return client


def _encode(state: PageState) -> str:
    value = {name: getattr(state, name) for name in _PAGE_FIELDS}
    value["links"] = list(state.links)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _optional_str(value: Any, name: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ValueError(f"{name} is not a string")


def _decode(url: str, raw: str) -> PageState:
    """The PageState stored as ``raw`` under ``url``; ValueError if it is not one."""
    value = json.loads(raw)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    links = value.get("links", [])
    if not isinstance(links, list):
        raise ValueError("links is not a list")
    texts = {}
    for name in ("website", "last_seen", "settings_fingerprint"):
        text = value.get(name, "")
        if not isinstance(text, str):
            raise ValueError(f"{name} is not a string")
        texts[name] = text
    return PageState(
        url=url,
        website=texts["website"],
        etag=_optional_str(value.get("etag"), "etag"),
        last_modified=_optional_str(value.get("last_modified"), "last_modified"),
        content_hash=_optional_str(value.get("content_hash"), "content_hash"),
        last_seen=texts["last_seen"],
        settings_fingerprint=texts["settings_fingerprint"],
        links=[str(link) for link in links],
    )


# --------------------------------------------------------------------------- #
# The store
# --------------------------------------------------------------------------- #


class RedisStateStore(StateStore):
    """Page state of one job in Redis (see the module docstring for keys and locking).

    Open with :meth:`connect` (a URL) or :meth:`open` / ``open_store("redis", ...)``
    (``WEBMD_REDIS_URL``). Used from one thread at a time, like every store.
    """

    def __init__(
        self,
        client: redis.Redis,
        url: str,
        job: str,
        *,
        holder: str | None,
        lock_ttl: float,
    ) -> None:
        self.job = job
        #: The server URL with its password masked (for messages).
        self.url = mask_redis_url(url)
        #: Whether this store holds the job's lock.
        self.exclusive = holder is not None
        self.prefix = _prefix(job)
        self._client: redis.Redis | None = client
        self._holder = holder
        self._lock_ttl_ms = max(1, int(lock_ttl * 1000))
        self._renew_every = lock_ttl / 3
        self._pages_key = self.prefix + "pages"
        self._urls_key = self.prefix + "urls"
        self._site_prefix = self.prefix + "site:"
        self._meta_key = self.prefix + "meta"
        self._lock_key = self.prefix + "lock"
        self._put_script = client.register_script(_PUT)
        self._delete_script = client.register_script(_DELETE)
        # Buffered writes: the last put (a PageState) or delete (None) of each URL, and
        # the last value of each meta key. Only the last write of a key matters, so a
        # dict is exact; ``_writes`` counts calls, for the COMMIT_EVERY batching.
        self._pending_pages: dict[str, PageState | None] = {}
        self._pending_meta: dict[str, str] = {}
        self._writes = 0
        self._last_flush = time.monotonic()
        self._last_renew = time.monotonic()

    # -- opening ------------------------------------------------------------ #

    @classmethod
    def open(cls, state_dir: Path, job: str, lock_timeout: float) -> RedisStateStore:
        """See :meth:`StateStore.open`: an exclusive store on the server named by the
        environment variable ``WEBMD_REDIS_URL``; ``state_dir`` is not used."""
        return cls.connect(os.environ.get(REDIS_URL_ENV, ""), job, lock_timeout, exclusive=True)

    @classmethod
    def connect(
        cls,
        url: str,
        job: str,
        lock_timeout: float = 0.0,
        *,
        exclusive: bool = True,
        lock_ttl: float = LOCK_TTL,
    ) -> RedisStateStore:
        """Open job ``job`` on the Redis server at ``url``.

        ``exclusive=True`` takes the job's lock, waiting up to ``lock_timeout`` seconds
        for another holder, then raises :class:`StateLockedError`; the lock expires
        ``lock_ttl`` seconds after this store's last activity (it is renewed while the
        store is used). ``exclusive=False`` takes no lock (several workers of one
        distributed crawl sharing the state). Raises :class:`StateStoreError` for an
        invalid job name, a server that cannot be reached (the message shows the URL
        with its password masked) or state written by another schema version.
        """
        return cls._connect(url, job, lock_timeout, exclusive=exclusive, lock_ttl=lock_ttl)

    @classmethod
    def _connect(
        cls,
        url: str,
        job: str,
        lock_timeout: float,
        *,
        exclusive: bool,
        lock_ttl: float,
        check_schema: bool = True,
    ) -> RedisStateStore:
        try:
            validate_job_name(job)
        except ValueError as exc:
            raise StateStoreError(str(exc)) from None
        if lock_ttl <= 0:
            raise StateStoreError(f"lock_ttl must be positive, not {lock_ttl!r}")
        client = _client(url)
        holder = _holder_id() if exclusive else None
        store = cls(client, url, job, holder=holder, lock_ttl=lock_ttl)
        try:
            if holder is not None:
                store._acquire(lock_timeout)
            if check_schema:
                store._check_schema()
        except BaseException:
            store._abandon()
            raise
        return store

    def _acquire(self, timeout: float) -> None:
        assert self._holder is not None
        client = self._live()
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            with self._errors("lock"):
                if client.set(self._lock_key, self._holder, nx=True, px=self._lock_ttl_ms):
                    self._last_renew = time.monotonic()
                    return
                holder = client.get(self._lock_key)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StateLockedError(_locked_message(self.job, _holder_label(_text(holder))))
            time.sleep(min(LOCK_POLL, remaining))

    def _check_schema(self) -> None:
        client = self._live()
        with self._errors("open"):
            client.hsetnx(self._meta_key, "schema_version", SCHEMA_VERSION)
            version = _text(client.hget(self._meta_key, "schema_version"))
        if version != SCHEMA_VERSION:
            raise StateStoreError(
                f"state '{self.job}' at Redis {self.url} has schema version {version!r}, this "
                f"version of webmd reads {SCHEMA_VERSION!r}; remove it with "
                f"webmd_spider.state.redis_store.redis_forget_job"
            )

    def _abandon(self) -> None:
        """Drop the store without writing (a failed open, the end of close): release
        the lock if it is still ours, disconnect."""
        client, self._client = self._client, None
        if client is None:
            return
        if self._holder is not None:
            with contextlib.suppress(RedisError, OSError):
                client.register_script(_RELEASE)(keys=[self._lock_key], args=[self._holder])
        with contextlib.suppress(Exception):
            client.close()

    # -- internals ---------------------------------------------------------- #

    def _live(self) -> redis.Redis:
        if self._client is None:
            raise StateStoreError(f"state '{self.job}' (redis {self.url}) is closed")
        return self._client

    @contextlib.contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except StateStoreError:
            raise
        except (RedisError, OSError, UnicodeDecodeError) as exc:
            raise StateStoreError(
                f"state '{self.job}' at Redis {self.url}: {action} failed: {_reason(exc)}"
            ) from exc

    def _bad_value(self, url: str, exc: BaseException) -> StateStoreError:
        return StateStoreError(
            f"cannot read state '{self.job}' at Redis {self.url}: bad value for {url}: {exc}; "
            "if it is damaged, remove the job with "
            "webmd_spider.state.redis_store.redis_forget_job"
        )

    def _lost_message(self, holder: str) -> str:
        return (
            f"state '{self.job}' is in use by another run (pid {_holder_label(holder)}): "
            f"this run's lock expired after {self._lock_ttl_ms / 1000:g} s without store "
            "activity and the other run took it; this run's unsaved writes were not sent"
        )

    def _write(self) -> None:
        self._writes += 1
        if self._writes >= COMMIT_EVERY or time.monotonic() - self._last_flush >= COMMIT_INTERVAL:
            self._commit()
        else:
            self._tick()

    def _tick(self) -> None:
        """Keep the lock alive: renew it once a third of its TTL has passed since the
        last renewal (a commit renews it, sending whatever is buffered too)."""
        if self._holder is not None and time.monotonic() - self._last_renew >= self._renew_every:
            self._commit()

    def _queue_writes(self, pipe: Pipeline) -> None:
        for url, state in self._pending_pages.items():
            if state is None:
                self._delete_script(
                    keys=[self._pages_key, self._urls_key],
                    args=[self._site_prefix, url],
                    client=pipe,
                )
            else:
                self._put_script(
                    keys=[self._pages_key, self._urls_key],
                    args=[self._site_prefix, url, state.website, _encode(state)],
                    client=pipe,
                )
        for key, value in self._pending_meta.items():
            pipe.hset(self._meta_key, key, value)

    def _commit(self) -> None:
        """Send the buffer in one transaction; an exclusive store also renews (or takes
        back an expired) lock in it, and refuses to write if another run holds it."""
        client = self._live()
        if self._holder is None and not self._pending_pages and not self._pending_meta:
            self._last_flush = time.monotonic()
            return
        with self._errors("write"), client.pipeline(transaction=True) as pipe:
            while True:
                try:
                    if self._holder is not None:
                        pipe.watch(self._lock_key)
                        holder = _text(pipe.get(self._lock_key))
                        if holder is not None and holder != self._holder:
                            raise StateLockedError(self._lost_message(holder))
                        pipe.multi()
                        pipe.set(self._lock_key, self._holder, px=self._lock_ttl_ms)
                    self._queue_writes(pipe)
                    pipe.execute()
                    break
                except WatchError:
                    pipe.reset()
                    continue
        self._pending_pages.clear()
        self._pending_meta.clear()
        self._writes = 0
        self._last_flush = self._last_renew = time.monotonic()

    # -- StateStore ----------------------------------------------------------- #

    def get(self, url: str) -> PageState | None:
        client = self._live()
        if url in self._pending_pages:
            pending = self._pending_pages[url]
            return None if pending is None else _copy(pending)
        self._tick()
        with self._errors("read"):
            raw = _text(client.hget(self._pages_key, url))
        if raw is None:
            return None
        try:
            return _decode(url, raw)
        except ValueError as exc:
            raise self._bad_value(url, exc) from exc

    def put(self, state: PageState) -> None:
        self._live()
        self._pending_pages[state.url] = _copy(state)
        self._write()

    def delete(self, url: str) -> None:
        self._live()
        self._pending_pages[url] = None
        self._write()

    def iterate(self, website: str | None = None) -> Iterator[PageState]:
        key = self._urls_key if website is None else self._site_prefix + website
        low = "-"
        while True:
            # Keyset pages, each read afresh after sending the buffer: the caller may
            # put or delete between items, as with SQLite.
            client = self._live()
            if self._pending_pages or self._pending_meta:
                self._commit()
            else:
                self._tick()
            with self._errors("read"):
                urls = [str(u) for u in client.zrangebylex(key, low, "+", 0, ITERATE_PAGE)]
                values = client.hmget(self._pages_key, urls) if urls else []
            for url, raw in zip(urls, values, strict=True):
                if raw is None:
                    continue  # deleted by another worker between the two reads
                try:
                    state = _decode(url, str(raw))
                except ValueError as exc:
                    raise self._bad_value(url, exc) from exc
                if website is None or state.website == website:
                    yield state
            if len(urls) < ITERATE_PAGE:
                return
            low = "(" + urls[-1]

    def get_meta(self, key: str) -> str | None:
        client = self._live()
        if key in self._pending_meta:
            return self._pending_meta[key]
        self._tick()
        with self._errors("read"):
            return _text(client.hget(self._meta_key, key))

    def set_meta(self, key: str, value: str) -> None:
        self._live()
        self._pending_meta[key] = value
        self._write()

    def count(self) -> int:
        client = self._live()
        if self._pending_pages:
            self._commit()
        else:
            self._tick()
        with self._errors("read"):
            return int(client.hlen(self._pages_key))

    def flush(self) -> None:
        self._commit()

    def close(self) -> None:
        if self._client is None:
            return
        try:
            self._commit()
        finally:
            self._abandon()


def _text(value: Any) -> str | None:
    """A reply as text (the client decodes replies; bytes only from odd setups)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


# --------------------------------------------------------------------------- #
# Inspecting a server (the Redis counterparts of list_jobs / forget_job / find_url)
# --------------------------------------------------------------------------- #


def _job_names(client: redis.Redis) -> list[str]:
    tail = ":meta"
    names = set()
    for key in client.scan_iter(match=_ROOT + "*" + tail, count=SCAN_COUNT):
        name = str(key)[len(_ROOT) : -len(tail)]
        try:
            validate_job_name(name)
        except ValueError:
            continue  # e.g. a website set "site:x:meta" of some job: not a job's meta
        names.add(name)
    return sorted(names)


def redis_list_jobs(url: str) -> list[JobInfo]:
    """Jobs stored on the Redis server at ``url`` (every ``webmd:state:*:meta`` key),
    sorted by name. ``path`` is the masked URL and the job's key prefix. Raises
    StateStoreError if the server cannot be reached."""
    client = _client(url)
    masked = mask_redis_url(url)
    try:
        try:
            names = _job_names(client)
        except RedisError as exc:
            raise StateStoreError(f"cannot list jobs at Redis {masked}: {_reason(exc)}") from exc
        infos = []
        for name in names:
            prefix = _prefix(name)
            where = f"{masked} {prefix}*"
            try:
                pages = int(client.hlen(prefix + "pages"))
                last_run, description = client.hmget(prefix + "meta", ["last_run", "description"])
            except RedisError as exc:
                infos.append(JobInfo(name, 0, None, None, where, error=_reason(exc)))
                continue
            infos.append(JobInfo(name, pages, _text(last_run), _text(description), where))
        return infos
    finally:
        client.close()


def redis_forget_job(url: str, name: str) -> bool:
    """Delete every key of job ``name`` on the Redis server at ``url``.

    Returns False if the job had no state. Raises ValueError for an unsafe name,
    :class:`StateLockedError` if an exclusive store holds the job (workers sharing a job
    with ``exclusive=False`` hold no lock and are not detected), StateStoreError if the
    server cannot be reached.
    """
    validate_job_name(name)
    # No schema check: forgetting is the way out of a job another version wrote.
    store = RedisStateStore._connect(
        url, name, 0.0, exclusive=True, lock_ttl=LOCK_TTL, check_schema=False
    )
    client = store._live()
    prefix = _prefix(name)
    try:
        with store._errors("forget"):
            existed = bool(client.exists(prefix + "meta", prefix + "pages", prefix + "urls"))
            batch: list[str] = []
            for key in client.scan_iter(match=prefix + "*", count=SCAN_COUNT):
                if str(key) == prefix + "lock":
                    continue  # ours: released below
                batch.append(str(key))
                if len(batch) >= SCAN_COUNT:
                    client.unlink(*batch)
                    batch.clear()
            if batch:
                client.unlink(*batch)
    finally:
        store._abandon()  # releases the lock; nothing was buffered to write back
    return existed


def redis_find_url(url: str, page_url: str) -> list[tuple[str, PageState]]:
    """``(job, state)`` for every job on the Redis server at ``url`` that stores exactly
    ``page_url``, sorted by job. Values that cannot be read are skipped."""
    client = _client(url)
    try:
        found = []
        try:
            for name in _job_names(client):
                raw = _text(client.hget(_prefix(name) + "pages", page_url))
                if raw is None:
                    continue
                with contextlib.suppress(ValueError):
                    found.append((name, _decode(page_url, raw)))
        except RedisError as exc:
            raise StateStoreError(
                f"cannot search Redis {mask_redis_url(url)}: {_reason(exc)}"
            ) from exc
        return found
    finally:
        client.close()
