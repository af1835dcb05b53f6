"""Distributed crawls on scrapy-redis: several ``scrapy crawl site`` workers, one frontier.

``WEBMD_REDIS_URL=redis://host:6379/0`` (or ``-a redis_url=...``) switches a crawl to
this mode. Every worker is started with the same arguments; they agree on a crawl name
(``-a state=NAME``, else derived from the start URLs and scope like the incremental
state's name) and share, under ``webmd:crawl:<name>:``:

* the frontier: scrapy-redis's priority queue and dupefilter (on our canonical-URL
  fingerprints). Only page requests go there; robots.txt and sitemap requests stay in
  the worker that made them (their callbacks keep per-worker discovery state);
* discovery: the first worker to arrive (``seeded``) reads the sitemaps or starts the
  link crawl; the others read robots.txt for its rules and take pages from the queue,
  and links found on any page go to the shared frontier;
* politeness: one "next request not before" time per website, reserved atomically by a
  Lua script on Redis's clock (``SharedRateMiddleware``), so N workers together keep
  the host delay and Crawl-delay floor of one crawler;
* budgets: page rows per website are counted in Redis (``max_pages`` is per crawl) and
  the time budget runs from the crawl's first start;
* liveness: each worker keeps a heartbeat key and lists the page requests it has taken
  but not finished (``inflight:<worker>``; a request is popped and recorded in one
  Redis script, ``taking:<worker>``, so a kill between the two loses nothing); when a
  worker dies, another puts its unfinished requests back in the queue;
* the end: a worker that goes idle keeps waiting while the queue holds requests or
  another live worker is busy; the last one out writes the site rows (from counters
  kept in Redis) and clears the crawl's keys, so the next run starts afresh.

scrapy-redis 0.9.1 with Scrapy 2.19 needs three workarounds, all here: its
non-persistent default lets the first worker that closes wipe the shared queue and
dupefilter (``SCHEDULER_PERSIST`` is forced on and the last worker clears); a worker
with nothing local to do would close at once (our idle handler keeps it while the crawl
runs); ``start_requests()`` is gone (the spider's ``async def start()`` is used as is).

Why one file of over 500 lines: it is the whole scrapy-redis integration, and the only
module that imports scrapy-redis; the frontier, the gate, the budgets, liveness and the
end share one key layout and its Redis scripts.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from collections import Counter, deque
from collections.abc import Callable, Iterable
from typing import Any, Self

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.settings import Settings
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.scheduler import Scheduler

from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.run_context import run_context
from webmd_spider.urls import canonicalize

logger = logging.getLogger(__name__)

HEARTBEAT_SECS = 2.0
#: A worker whose heartbeat is older than this is dead: its requests are re-queued.
DEAD_AFTER_SECS = 8
PREFIX = "webmd:crawl:{name}:"

#: Push a website's next send time to at least now + ARGV[1] (a 429/503 with Retry-After
#: seen by one worker makes the whole fleet rest).
_REST = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
local at = math.max(nxt, now + tonumber(ARGV[1]))
redis.call('SET', KEYS[1], string.format('%.6f', at), 'EX', 3600)
return string.format('%.6f', at - now)
"""

#: Pop the first request of the shared queue (a PriorityQueue: a sorted set scored by
#: -priority) and record it under the popping worker (KEYS[2]: data -> score) in the same
#: step: {data, score}, or nil when the queue is empty.
_POP = """
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #first == 0 then return nil end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, 0)
redis.call('HSET', KEYS[2], first[1], first[2])
return first
"""

#: Queue a worker's unfinished requests again, in one step (a worker wrongly taken for
#: dead cannot move a request between the reads and the delete): KEYS[1] its in-flight
#: hash (data key -> "score|data"), KEYS[2] its popped-not-yet-recorded hash (data ->
#: score), KEYS[3] the queue; with ARGV[1] "taking-only" KEYS[1] is left alone (a worker
#: leaving the crawl drops its own unfinished pages). Returns how many moved.
_REQUEUE = """
local moved = 0
if ARGV[1] ~= 'taking-only' then
  local entries = redis.call('HGETALL', KEYS[1])
  for i = 2, #entries, 2 do
    local value = entries[i]
    local bar = string.find(value, '|', 1, true)
    redis.call('ZADD', KEYS[3], string.sub(value, 1, bar - 1), string.sub(value, bar + 1))
    moved = moved + 1
  end
end
local taking = redis.call('HGETALL', KEYS[2])
for i = 1, #taking, 2 do
  redis.call('ZADD', KEYS[3], taking[i + 1], taking[i])
  moved = moved + 1
end
if ARGV[1] ~= 'taking-only' then redis.call('DEL', KEYS[1]) end
redis.call('DEL', KEYS[2])
return moved
"""

#: Mark a request seen and queue it in one step (KEYS[1] the dupefilter set, KEYS[2] the
#: queue; ARGV: fingerprint, score, data, "1" when the request bypasses the filter):
#: scrapy-redis does the SADD and the ZADD as two commands, and a worker killed between
#: them leaves a URL that is seen by everyone and queued nowhere. 1 when queued.
_PUSH = """
if ARGV[4] ~= '1' and redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
"""

#: Reserve the next send time of a website: returns how long the caller must wait.
_GATE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local nxt = tonumber(redis.call('GET', KEYS[1]) or '0')
local at = math.max(now, nxt)
redis.call('SET', KEYS[1], string.format('%.6f', at + tonumber(ARGV[1])), 'EX', 3600)
return string.format('%.6f', at - now)
"""


def configure(settings: Settings, redis_url: str, name: str) -> None:
    """Switch ``settings`` to the shared frontier of crawl ``name``."""
    prefix = PREFIX.format(name=name)
    values: dict[str, Any] = {
        "REDIS_URL": redis_url,
        # the name our own components key on (the resume journal's finished marks):
        # `-a redis_url=...` must switch them on as the setting does (issue 16 item 3)
        "WEBMD_REDIS_URL": redis_url,
        "SCHEDULER": "webmd_spider.distributed.FleetScheduler",
        "DUPEFILTER_CLASS": "webmd_spider.distributed.CanonicalRedisDupeFilter",
        # never let a closing worker wipe the shared queue: the last one clears
        "SCHEDULER_PERSIST": True,
        "SCHEDULER_QUEUE_KEY": prefix + "requests",
        "SCHEDULER_DUPEFILTER_KEY": prefix + "dupefilter",
        "SCHEDULER_QUEUE_CLASS": "scrapy_redis.queue.PriorityQueue",
        # spacing is the fleet's (SharedRateMiddleware), not each process's
        "DOWNLOAD_DELAY": 0,
        "DOWNLOAD_DELAY_JITTER": 0,
        "AUTOTHROTTLE_ENABLED": False,
    }
    for key, value in values.items():
        settings.set(key, value, priority="spider")
    middlewares = dict(settings.getdict("DOWNLOADER_MIDDLEWARES"))
    middlewares["webmd_spider.distributed.SharedRateMiddleware"] = 590
    settings.set("DOWNLOADER_MIDDLEWARES", middlewares, priority="spider")


class Fleet:
    """One worker's handle on the shared crawl state in Redis."""

    def __init__(self, redis_url: str, name: str) -> None:
        import redis

        self.name = name
        self.prefix = PREFIX.format(name=name)
        self.worker = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.redis: Any = redis.Redis.from_url(redis_url)
        self.redis.ping()
        self._gate = self.redis.register_script(_GATE)
        self._rest = self.redis.register_script(_REST)
        self._pop = self.redis.register_script(_POP)
        self._requeue = self.redis.register_script(_REQUEUE)
        self._push = self.redis.register_script(_PUSH)
        self.seeder = False
        #: a distributed crawl shares its queue and budgets (``crew.Crew``)
        self.shared = True
        self.idle = False

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    # -- membership -------------------------------------------------------------------
    def join(self) -> bool:
        """Register this worker; True when it is the first (it seeds the crawl)."""
        self.redis.set(self.key("start"), f"{time.time():.3f}", nx=True)
        self.seeder = bool(self.redis.set(self.key("seeded"), self.worker, nx=True))
        self.heartbeat()
        return self.seeder

    def heartbeat(self) -> None:
        pipe = self.redis.pipeline()
        pipe.sadd(self.key("workers"), self.worker)
        pipe.set(self.key("alive", self.worker), "1", ex=DEAD_AFTER_SECS)
        pipe.execute()

    def elapsed(self) -> float:
        """Seconds since the crawl's first worker started."""
        raw = self.redis.get(self.key("start"))
        return max(0.0, time.time() - float(raw)) if raw else 0.0

    def set_idle(self, idle: bool) -> None:
        if idle:
            self.redis.set(self.key("idle", self.worker), "1", ex=DEAD_AFTER_SECS)
        else:
            self.redis.delete(self.key("idle", self.worker))

    def rescue_dead(self, queue_key: str) -> int:
        """Put the unfinished requests of dead workers back in the queue."""
        moved = 0
        for raw in self.redis.smembers(self.key("workers")):
            worker = raw.decode()
            if worker == self.worker or self.redis.exists(self.key("alive", worker)):
                continue
            # one rescuer per dead worker
            if not self.redis.set(self.key("rescue", worker), self.worker, nx=True, ex=60):
                continue
            count = int(
                self._requeue(
                    keys=[self.key("inflight", worker), self.key("taking", worker), queue_key],
                    args=["all"],
                )
            )
            self.redis.srem(self.key("workers"), worker)
            moved += count
            if count:
                logger.warning(
                    "Worker %s stopped answering: %d unfinished page(s) queued again",
                    worker,
                    count,
                )
        return moved

    def crawl_done(self, queue_key: str) -> bool:
        """Nothing queued, no live worker busy, no dead worker's requests unrescued."""
        if self.redis.zcard(queue_key):
            return False
        for raw in self.redis.smembers(self.key("workers")):
            worker = raw.decode()
            if worker == self.worker:
                continue
            alive = self.redis.exists(self.key("alive", worker))
            if alive and not self.redis.exists(self.key("idle", worker)):
                return False
            if not alive and (
                self.redis.hlen(self.key("inflight", worker))
                or self.redis.hlen(self.key("taking", worker))
            ):
                return False
        return True

    def leave(self) -> bool:
        """Deregister; True when this worker is the last one (it writes the site rows)."""
        # a request popped but not yet recorded in flight goes back to the queue
        self._requeue(
            keys=[
                self.key("inflight", self.worker),
                self.key("taking", self.worker),
                self.key("requests"),
            ],
            args=["taking-only"],
        )
        pipe = self.redis.pipeline()
        pipe.delete(self.key("inflight", self.worker))  # ("taking" went with the script)
        pipe.delete(self.key("alive", self.worker), self.key("idle", self.worker))
        pipe.srem(self.key("workers"), self.worker)
        pipe.execute()
        live = [
            w
            for w in self.redis.smembers(self.key("workers"))
            if self.redis.exists(self.key("alive", w.decode()))
        ]
        if live:
            return False
        return bool(self.redis.set(self.key("closed_by"), self.worker, nx=True, ex=3600))

    def claim_orphans(self) -> bool:
        """Once per crawl: True for the one worker that re-checks the known pages no
        worker found again (the first to ask)."""
        return bool(self.redis.set(self.key("orphans"), self.worker, nx=True))

    def clear(self) -> None:
        """Remove every key of this crawl (after its site rows are written)."""
        keys = list(self.redis.scan_iter(match=self.prefix + "*", count=1000))
        if keys:
            self.redis.delete(*keys)

    # -- in-flight pages --------------------------------------------------------------
    def pop(self, queue_key: str) -> tuple[bytes, float] | None:
        """Take the first request of the shared queue: (encoded request, score), or None.

        Atomic with recording it under this worker (``taking``), so that a worker killed
        right after the pop cannot lose the request: a rescuer queues it again.
        :meth:`take` then records it in flight under its page key."""
        popped = self._pop(keys=[queue_key, self.key("taking", self.worker)])
        if not popped:
            return None
        data, score = popped
        return bytes(data), float(score)

    def push(
        self,
        dupefilter_key: str,
        queue_key: str,
        fingerprint: str,
        score: float,
        data: bytes,
        *,
        dont_filter: bool,
    ) -> bool:
        """Mark a request seen and queue it, atomically; False when it was seen."""
        keys = [dupefilter_key, queue_key]
        args: list[str | float | bytes] = [fingerprint, score, data, "1" if dont_filter else "0"]
        return bool(self._push(keys=keys, args=args))

    def take(self, key: str, score: float, data: bytes) -> None:
        """Record a popped request in flight under its page key (see :meth:`pop`)."""
        pipe = self.redis.pipeline()  # MULTI: never in neither hash, nor in both
        pipe.hset(self.key("inflight", self.worker), key, f"{score}|".encode() + data)
        pipe.hdel(self.key("taking", self.worker), data)
        pipe.execute()

    def finished(self, key: str) -> None:
        self.redis.hdel(self.key("inflight", self.worker), key)

    # -- budgets and counters ---------------------------------------------------------
    def claim_page(self, website: str, max_pages: int) -> bool:
        """Count one page row of ``website``; False past the crawl's page budget."""
        count = int(self.redis.hincrby(self.key("pages"), website, 1))
        if count > max_pages:
            self.redis.hincrby(self.key("pages"), website, -1)
            return False
        return True

    def pages(self, website: str) -> int:
        raw = self.redis.hget(self.key("pages"), website)
        return int(raw) if raw else 0

    def pages_written(self, site: SiteState) -> int:
        """The crawl's page rows of `site`, every worker's (``crew.Crew``)."""
        return self.pages(site.website)

    def count_row(
        self,
        website: str | None,
        fields: dict[str, float],
        row_type: str | None = None,
        error_type: str | None = None,
    ) -> None:
        """Add ``fields`` to ``website``'s counters and, for a row, count it crawl-wide
        (the run summary the last worker writes): one round trip per row."""
        pipe = self.redis.pipeline()
        if website:
            site_key = self.key("site", website)
            for name, value in fields.items():
                if isinstance(value, int):
                    pipe.hincrby(site_key, name, value)
                else:
                    pipe.hincrbyfloat(site_key, name, value)
        if row_type:
            pipe.hincrby(self.key("rows"), row_type, 1)
        if error_type:
            pipe.hincrby(self.key("errors"), error_type, 1)
        pipe.execute()

    def crawl_counts(self) -> tuple[dict[str, int], dict[str, int]]:
        """(rows per row type, diagnostics per error type) of the whole crawl."""
        rows = {k.decode(): int(v) for k, v in self.redis.hgetall(self.key("rows")).items()}
        errors = {k.decode(): int(v) for k, v in self.redis.hgetall(self.key("errors")).items()}
        return rows, errors

    def site_counters(self, website: str) -> dict[str, float]:
        raw = self.redis.hgetall(self.key("site", website))
        return {k.decode(): float(v) for k, v in raw.items()}

    def rest(self, website: str, seconds: float) -> None:
        """No worker sends to ``website`` for ``seconds`` (Retry-After, backoff)."""
        self._rest(keys=[self.key("gate", website)], args=[seconds])

    def wait_for_turn(self, website: str, interval: float) -> float:
        """Reserve this worker's next request to ``website``; seconds to wait first."""
        return float(self._gate(keys=[self.key("gate", website)], args=[interval]))

    # -- what a worker does for the crawl as a whole (the site spider calls these) --------
    def keep_alive(self) -> None:
        """Every few seconds: this worker is alive; dead workers' pages go back. A Redis
        hiccup is logged, never raised: it must not kill the worker."""
        try:
            self.heartbeat()
            if self.idle:
                self.set_idle(True)
            self.rescue_dead(self.key("requests"))
        except Exception as exc:  # redis-py raises its own ConnectionError family
            logger.warning("distributed crawl heartbeat failed: %s", exc)

    def share_site_info(self, sites: Iterable[SiteState]) -> None:
        """The seeder's discovery facts of each website, for the site rows that the last
        worker out writes (only the seeder read the robots.txt and sitemaps first)."""
        for site in sites:
            self.redis.hset(
                self.key("siteinfo", site.website),
                mapping={
                    "discovery": site.discovery,
                    "sitemap_url_count": site.sitemap_url_count,
                    "root": site.root or "",
                    "stop_reason": site.stop_reason or "",
                },
            )

    def settle_site(self, site: SiteState, max_pages: int) -> None:
        """Give `site` the crawl's numbers: the counters every worker kept and the
        seeder's discovery facts (its site row is then the crawl's, not this worker's)."""
        counters = self.site_counters(site.website)
        info = {
            k.decode(): v.decode()
            for k, v in self.redis.hgetall(self.key("siteinfo", site.website)).items()
        }
        site.pages = self.pages(site.website)
        site.total_words = int(counters.get("total_words", 0))
        site.total_tokens = int(counters.get("total_tokens", 0))
        site.boilerplate_sum = counters.get("boilerplate_sum", 0.0)
        site.failures = int(counters.get("failures", 0))
        site.robots_blocked = int(counters.get("robots_blocked", 0))
        site.discovery = info.get("discovery") or site.discovery
        site.sitemap_url_count = int(info.get("sitemap_url_count") or 0)
        site.root = info.get("root") or site.root
        site.stop_reason = info.get("stop_reason") or site.stop_reason
        if site.pages >= max_pages:
            site.stop_reason = site.stop_reason or "page_budget"

    def summarize_crawl(self, ledger: RunLedger) -> None:
        """The last worker out: its run summary is the crawl's (totals of every worker),
        with its own numbers beside them."""
        rows, errors = self.crawl_counts()
        ledger.extra = {
            "scope": "crawl",
            "crawl": self.name,
            "this_worker": {
                "worker": self.worker,
                "rows": dict(ledger.row_counts),
                "errors": dict(ledger.error_counts),
            },
        }
        ledger.row_counts = Counter(rows)
        ledger.error_counts = Counter(errors)

    def summarize_worker(self, ledger: RunLedger) -> None:
        """A worker that is not the last out: its run summary is its own."""
        ledger.extra = {"scope": "worker", "crawl": self.name, "worker": self.worker}


class CanonicalRedisDupeFilter(RFPDupeFilter):
    """scrapy-redis's shared dupefilter on our canonical-URL fingerprints (its own
    fingerprint would keep tracking parameters, default ports and the like apart)."""

    fingerprinter: Any = None

    @classmethod
    def from_spider(cls, spider: Spider) -> Self:
        dupefilter = super().from_spider(spider)
        dupefilter.fingerprinter = spider.crawler.request_fingerprinter
        return dupefilter

    def request_fingerprint(self, request: Request) -> str:
        if self.fingerprinter is None:
            return str(super().request_fingerprint(request))
        return str(self.fingerprinter.fingerprint(request).hex())


class FleetScheduler(Scheduler):
    """scrapy-redis's scheduler for page requests; every other request (robots.txt,
    sitemaps, end-of-run bookkeeping) stays in a local queue, because its callback
    relies on discovery state held by the worker that made it. Pages taken from Redis
    are recorded as in flight until their row is written."""

    local: deque[Request]

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        instance = super().from_crawler(crawler)
        instance.local = deque()
        return instance

    def enqueue_request(self, request: Request) -> bool:
        if request.meta.get("webmd_kind") != "page":
            self.local.append(request)
            return True
        # the page that found this request waits for it to be in Redis (completion)
        parent = request.meta.pop("webmd_parent", None)
        try:
            return self._push(request)
        finally:
            completion = run_context(self.spider.crawler).completion
            if parent is not None and completion is not None:
                completion.release(parent)

    def _push(self, request: Request) -> bool:
        fleet = run_context(self.spider.crawler).fleet
        if fleet is None:
            return bool(super().enqueue_request(request))
        data = self.queue._encode_request(request)
        fingerprint = self.df.request_fingerprint(request)
        queued = fleet.push(
            self.df.key, self.queue.key, fingerprint, -request.priority, data,
            dont_filter=request.dont_filter,
        )  # fmt: skip
        if not queued:
            self.df.log(request, self.spider)
            return False
        if self.stats:
            self.stats.inc_value("scheduler/enqueued/redis", spider=self.spider)
        return True

    def take(self, wanted: Callable[[dict[str, Any]], bool]) -> list[Request]:
        """Nothing (``transport.scheduler.TakesRequests``): the shared queue is every
        worker's, so a stopped website's requests are left to the budget middleware."""
        return []

    def next_request(self) -> Request | None:
        if self.local:
            return self.local.popleft()
        context = run_context(self.spider.crawler)
        if not context.robots_known():
            return None  # robots.txt rules first: a page's links are checked against them
        fleet = context.fleet
        if fleet is None:
            request: Request | None = super().next_request()
            return request
        popped = fleet.pop(self.queue.key)
        if popped is None:
            return None
        data, score = popped
        request = self.queue._decode_request(data)
        if self.stats:
            self.stats.inc_value("scheduler/dequeued/redis")
        fleet.idle = False
        fleet.set_idle(False)
        fleet.take(canonicalize(request.meta.get("webmd_url", request.url)), score, data)
        return request

    def has_pending_requests(self) -> bool:
        return bool(self.local) or len(self) > 0

    def __len__(self) -> int:
        return len(self.local) + len(self.queue)


class SharedRateMiddleware:
    """The fleet's per-website spacing: wait for this worker's reserved turn."""

    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    async def process_request(self, request: Request) -> None:
        import asyncio

        context = run_context(self.crawler)
        fleet = context.fleet
        website = request.meta.get("webmd_site")
        if fleet is None or not website or request.meta.get("webmd_kind") == "summary":
            return
        interval = max(context.host_floor, context.crawl_delays.get(website, 0.0))
        # the gate is consulted even with no floor: it also holds a fleet-wide rest
        wait = fleet.wait_for_turn(website, max(interval, 0.0))
        if wait > 0:
            await asyncio.sleep(wait)
