"""``POST /web/crawl``: the crawl API of the hosted product we replace, over our crawler.

:func:`create_app` builds the Starlette app that ``webmd serve`` runs under uvicorn
(``webmd_spider.service.serve``). A thin layer: every crawl is
:func:`webmd_spider.api.crawl` (a child ``scrapy crawl site`` process whose rows are
read as they are written), and the request's fields are crawl options
(:meth:`CrawlRequest.crawl_values`). docs/HTTP_API.md documents the fields, the answer
and the safety rules.

The path of one request:

1. the bearer token, when the server has one (401);
2. the body, read up to :attr:`ServiceConfig.max_body_bytes` (413), parsed and
   validated into a :class:`CrawlRequest` (400 ``INPUT_VALIDATION_ERROR`` naming the
   field);
3. the answer cache (``maxAgeMs``, :mod:`webmd_spider.state.result_cache`): a fresh
   enough answer for the same parameters is returned without a crawl;
4. a crawl slot for the client (:class:`ClientLimiter`: a few crawls at once, a bounded
   queue beyond, 429 when it is full);
5. the crawl, in a thread of its own (:class:`CrawlJob`: ``api.crawl`` is a blocking
   generator), until it ends or ``timeoutMS`` passes; a crawl cut short answers with
   the rows it has, and its child is stopped in the background;
6. the answer: one result per page or failed URL, and the counts.

``POST /search`` (a server started with ``--index FILE``) searches an index built by
``webmd crawl URL --index FILE`` (:func:`webmd_spider.index.searching.search`, the
function behind ``webmd search``): the same token, content type and body checks, then
``{"query", "k", "mode"}`` validated (400 naming the field), the search in a worker
thread (a few at once) and ``{"success": true, "data": {"query", "mode", "hits"}}``,
each hit's text cut to :data:`~webmd_spider.service.mcp_tools.SEARCH_HIT_CHARS`. A
server without an index answers 404 ``SEARCH_DISABLED``; an index that cannot be
searched, 503 ``INDEX_UNAVAILABLE``.

Why one file of over 500 lines: the request's fields, their mapping onto crawl options,
the answer's shape and the cache key are one contract with the hosted API; the limiter
and the crawl job are the small rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import re
import threading
from collections.abc import AsyncIterator, Callable, Generator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from webmd_spider import api
from webmd_spider.index.searching import (
    MAX_K,
    MAX_QUERY_CHARS,
    MODES,
    EmbedderChoice,
    SearchError,
    check_query,
)
from webmd_spider.index.searching import search as search_index
from webmd_spider.items import Row
from webmd_spider.options import OPTION_NAMES, OptionsError
from webmd_spider.service.mcp_tools import DEFAULT_SEARCH_K, SEARCH_HIT_CHARS, cut_text
from webmd_spider.state.result_cache import MAX_AGE_MS, ResultCache, ResultCacheError, cache_key
from webmd_spider.urls import PatternError, compile_pattern, parse_start_input, split_patterns

logger = logging.getLogger(__name__)

#: the hosted API's page limits (maxPages)
DEFAULT_MAX_PAGES = 100
MAX_PAGES = 500
#: the crawl option max_depth's own maximum; an omitted maxDepth means this (the hosted
#: API has no default depth: maxPages bounds the crawl)
MAX_DEPTH = 100
#: maxAgeMs: one day when omitted, at most 30 days (the cache keeps nothing older)
DEFAULT_MAX_AGE_MS = 24 * 3600 * 1000
#: timeoutMS bounds (the hosted API's); an omitted timeoutMS means the maximum
MIN_TIMEOUT_MS = 1000
MAX_TIMEOUT_MS = 300_000
#: waitForMs bounds: validated as the hosted API does, then ignored (no browser here)
MAX_WAIT_FOR_MS = 30_000
#: longest url and urlRegex accepted (a URL the crawler would not follow is useless)
MAX_URL_CHARS = 2000
MAX_REGEX_CHARS = 1000
#: request bodies above this are refused (413): a request is a few hundred bytes
DEFAULT_MAX_BODY_BYTES = 64 * 1024
#: base64 characters a shortened data: URI keeps
DATA_URI_KEEP = 32

#: the boolean fields and their defaults (the hosted API's)
BOOLEAN_FIELDS: dict[str, bool] = {
    "includeLinks": True,
    "includeImages": False,
    "shortenBase64Images": True,
    "useMainContentOnly": False,
    "followSubdomains": False,
    "parsePDF": True,
    "includeFrames": False,
}
#: the whole-number fields: (minimum, maximum)
NUMBER_FIELDS: dict[str, tuple[int, int]] = {
    "maxPages": (1, MAX_PAGES),
    "maxDepth": (0, MAX_DEPTH),
    "maxAgeMs": (0, MAX_AGE_MS),
    "timeoutMS": (MIN_TIMEOUT_MS, MAX_TIMEOUT_MS),
    "waitForMs": (0, MAX_WAIT_FOR_MS),
}
FIELDS = ("url", "urlRegex", *BOOLEAN_FIELDS, *NUMBER_FIELDS)

#: POST /search: its fields, and the searches the server runs at once (more wait)
SEARCH_FIELDS = ("query", "k", "mode")
MAX_SEARCHES = 4

#: crawl options a request decides: ServiceConfig.crawl_options may not set them
REQUEST_OPTIONS = frozenset(
    {
        "start",
        "max_pages",
        "max_depth",
        "include_patterns",
        "keep_links",
        "keep_images",
        "keep_frames",
        "main_content_only",
        "follow_subdomains",
        "parse_documents",
        "max_run_secs",
        "discovery",
        "allow_local",
    }
)

# a data: URI of an image in base64 (the prefix, then the payload)
_DATA_URI = re.compile(
    r"(data:image/[a-z0-9.+-]+(?:;[a-z0-9.+-]+=[a-z0-9.+-]*)*;base64,)([a-z0-9+/]+=*)",
    re.IGNORECASE,
)


class InputError(ValueError):
    """A request the API cannot use; the message names the field."""


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """How the server runs: set by ``webmd serve``'s flags, never by a request."""

    #: the answer cache's folder (the state store's, so answers survive restarts)
    state_dir: Path = Path(".webmd")
    #: let crawls reach loopback and private addresses (``--allow-local``)
    allow_local: bool = False
    #: the bearer token every request must carry; None: no token asked
    token: str | None = None
    #: crawls one client runs at once, and requests it may queue beyond them
    per_client: int = 2
    queue_per_client: int = 4
    #: crawls the server runs at once, all clients together (each is a process)
    max_crawls: int = 4
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    #: further crawl options for every crawl (``{"host_delay": "0"}`` for a server that
    #: crawls only your own sites); not the options a request decides
    crawl_options: Mapping[str, Any] = field(default_factory=dict)
    #: the Host header values a request may carry (names, no port); None: any. A
    #: server on loopback without a token allows only its loopback names, so a web
    #: page that rebinds its own domain to 127.0.0.1 cannot reach it (DNS rebinding)
    allowed_hosts: tuple[str, ...] | None = None
    #: the index POST /search searches (``--index``); None: the endpoint answers 404
    index: Path | None = None
    #: how POST /search embeds queries: the index's own embedder unless named
    embedder: EmbedderChoice = field(default_factory=EmbedderChoice)


#: ``allowed_hosts`` of a server bound to loopback
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")


@dataclass(frozen=True, slots=True)
class CrawlRequest:
    """A validated ``POST /web/crawl`` body, defaults filled in."""

    url: str
    max_pages: int = DEFAULT_MAX_PAGES
    max_depth: int = MAX_DEPTH
    url_regex: str = ""
    include_links: bool = True
    include_images: bool = False
    shorten_base64_images: bool = True
    use_main_content_only: bool = False
    follow_subdomains: bool = False
    parse_pdf: bool = True
    include_frames: bool = False
    max_age_ms: int = DEFAULT_MAX_AGE_MS
    timeout_ms: int = MAX_TIMEOUT_MS
    wait_for_ms: int = 0  # accepted and ignored: no browser renders the pages

    def crawl_values(self) -> dict[str, Any]:
        """The crawl options of this request (``start`` excepted), by option name."""
        return {
            "max_pages": self.max_pages,
            "max_depth": self.max_depth,
            "include_patterns": [include_pattern(self.url_regex)] if self.url_regex else [],
            "keep_links": self.include_links,
            "keep_images": self.include_images,
            "keep_frames": self.include_frames,
            "main_content_only": self.use_main_content_only,
            "follow_subdomains": self.follow_subdomains,
            "parse_documents": self.parse_pdf,
            # depth counts links from the start URL, as the hosted API's crawlDepth
            # does: sitemap URLs would all be depth 0, so maxDepth 0 would not be
            # "only the starting page"
            "discovery": "links",
            # the child stops itself by then even if its parent could not stop it
            "max_run_secs": max(1.0, self.timeout_ms / 1000),
        }

    def cache_parameters(self) -> dict[str, Any]:
        """What decides the answer: every field but maxAgeMs, timeoutMS (a complete
        answer does not depend on it; a cut one is never stored) and waitForMs."""
        return {
            "url": self.url,
            "maxPages": self.max_pages,
            "maxDepth": self.max_depth,
            "urlRegex": self.url_regex,
            "includeLinks": self.include_links,
            "includeImages": self.include_images,
            "shortenBase64Images": self.shorten_base64_images,
            "useMainContentOnly": self.use_main_content_only,
            "followSubdomains": self.follow_subdomains,
            "parsePDF": self.parse_pdf,
            "includeFrames": self.include_frames,
        }


def _shown(value: Any) -> str:
    """A client's value for an error message, cut short (it may be huge)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def parse_request(body: Any) -> CrawlRequest:
    """Validate a decoded JSON body; raises InputError naming the first bad field."""
    if not isinstance(body, dict):
        raise InputError(f"the body must be a JSON object, got {type(body).__name__}")
    unknown = sorted(str(name) for name in body if name not in FIELDS)
    if unknown:
        # a misspelt field would otherwise fall back to its default without a word
        raise InputError(f"unknown field {unknown[0]!r}; the fields are {', '.join(FIELDS)}")
    values: dict[str, Any] = {"url": _url(body.get("url"))}
    for name, attribute in (
        ("includeLinks", "include_links"),
        ("includeImages", "include_images"),
        ("shortenBase64Images", "shorten_base64_images"),
        ("useMainContentOnly", "use_main_content_only"),
        ("followSubdomains", "follow_subdomains"),
        ("parsePDF", "parse_pdf"),
        ("includeFrames", "include_frames"),
    ):
        if body.get(name) is not None:
            values[attribute] = _boolean(name, body[name])
    for name, attribute in (
        ("maxPages", "max_pages"),
        ("maxDepth", "max_depth"),
        ("maxAgeMs", "max_age_ms"),
        ("timeoutMS", "timeout_ms"),
        ("waitForMs", "wait_for_ms"),
    ):
        if body.get(name) is not None:
            values[attribute] = _number(name, body[name])
    if body.get("urlRegex") not in (None, ""):
        values["url_regex"] = _url_regex(body["urlRegex"])
    return CrawlRequest(**values)


def _url(value: Any) -> str:
    """The start URL, canonical; the hosted API asks for an http(s) URL with its scheme."""
    if value is None:
        raise InputError("url is required")
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"url must be a non-empty string, got {_shown(value)}")
    if len(value) > MAX_URL_CHARS:
        raise InputError(f"url must be at most {MAX_URL_CHARS} characters")
    text = value.strip()
    if not text.lower().startswith(("http://", "https://")):
        raise InputError(f"url must start with http:// or https://, got {_shown(value)}")
    start = parse_start_input(text)
    if start.url is None:
        raise InputError(f"url cannot be crawled: {start.error}")
    return start.url


def _boolean(name: str, value: Any) -> bool:
    """A JSON boolean (not "true", not 1: a client sending those has a bug to know of)."""
    if not isinstance(value, bool):
        raise InputError(f"{name} must be true or false, got {_shown(value)}")
    return value


def _number(name: str, value: Any) -> int:
    """A JSON whole number within the field's bounds."""
    low, high = NUMBER_FIELDS[name]
    return _whole_number(name, value, low, high)


def _whole_number(name: str, value: Any, low: int, high: int) -> int:
    """A JSON whole number from ``low`` to ``high``."""
    bad = f"{name} must be a whole number from {low} to {high}, got {_shown(value)}"
    # JSON true is not 1, and 2.5 pages is a mistake, not 2
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(bad)
    if isinstance(value, float) and not value.is_integer():
        raise InputError(bad)
    if not low <= value <= high:
        raise InputError(bad)
    return int(value)


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A validated ``POST /search`` body, defaults filled in."""

    query: str
    k: int = DEFAULT_SEARCH_K
    mode: str = "hybrid"


def parse_search(body: Any) -> SearchRequest:
    """Validate a decoded ``POST /search`` body; raises InputError naming the first bad
    field. The query comes back stripped."""
    if not isinstance(body, dict):
        raise InputError(f"the body must be a JSON object, got {type(body).__name__}")
    unknown = sorted(str(name) for name in body if name not in SEARCH_FIELDS)
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r}; the fields are {', '.join(SEARCH_FIELDS)}")
    query = body.get("query")
    if query is None:
        raise InputError("query is required")
    if not isinstance(query, str) or not query.strip():
        raise InputError(f"query must be a non-empty string, got {_shown(query)}")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(f"query must be at most {MAX_QUERY_CHARS} characters, got {len(query)}")
    k = DEFAULT_SEARCH_K
    if body.get("k") is not None:
        k = _whole_number("k", body["k"], 1, MAX_K)
    mode = body.get("mode")
    if mode is None:
        mode = "hybrid"
    elif mode not in MODES:
        raise InputError(f"mode must be one of {', '.join(MODES)}, got {_shown(mode)}")
    try:
        text = check_query(query, k, mode)
    except ValueError as exc:  # the search's own rule, should it ever be stricter
        raise InputError(str(exc)) from None
    return SearchRequest(query=text, k=k, mode=mode)


def search_hit(hit: dict[str, Any]) -> dict[str, Any]:
    """A search hit as ``POST /search`` answers it: its text cut to SEARCH_HIT_CHARS,
    ``truncated`` saying whether it was."""
    text = hit.get("text") or ""
    shown = cut_text(text, SEARCH_HIT_CHARS)
    return {**hit, "text": shown, "truncated": len(shown) < len(text)}


def _url_regex(value: Any) -> str:
    """A Python regular expression the crawl's include filter takes as one pattern."""
    if not isinstance(value, str):
        raise InputError(f"urlRegex must be a string, got {_shown(value)}")
    if len(value) > MAX_REGEX_CHARS:
        raise InputError(f"urlRegex must be at most {MAX_REGEX_CHARS} characters")
    try:
        re.compile(value)
    except re.error as exc:
        raise InputError(f"urlRegex is not a valid regular expression: {exc}") from None
    pattern = include_pattern(value)
    # the crawl reads include patterns as text: check that it reads this one whole
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        raise InputError(f"urlRegex cannot be used: {exc}") from None
    if split_patterns([pattern]) != [pattern]:
        raise InputError(f"urlRegex cannot be used as one pattern: {_shown(value)}")
    return value


def include_pattern(url_regex: str) -> str:
    """``url_regex`` as the crawl's include pattern: ``/regex/``, searched anywhere in
    the URL. A ``/`` or a blank inside would end the pattern early in the crawl's
    pattern text (urls.split_patterns), so each is written as an escape that means
    the same character."""
    out: list[str] = []
    index = 0
    while index < len(url_regex):
        char = url_regex[index]
        if char == "\\" and index + 1 < len(url_regex):
            following = url_regex[index + 1]
            out.append(_escape(following) if following.isspace() else char + following)
            index += 2
            continue
        if char == "/":
            out.append("\\/")
        elif char.isspace():
            out.append(_escape(char))
        else:
            out.append(char)
        index += 1
    return "/" + "".join(out) + "/"


def _escape(char: str) -> str:
    """A character as a regular-expression escape of its code point."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shorten_data_uris(markdown: str, keep: int = DATA_URI_KEEP) -> str:
    """Cut the base64 payload of every ``data:image/...;base64,`` URI in ``markdown``
    to its first ``keep`` characters followed by ``...``."""

    def cut(match: re.Match[str]) -> str:
        payload = match.group(2)
        if len(payload) <= keep:
            return match.group(0)
        return f"{match.group(1)}{payload[:keep]}..."

    return _DATA_URI.sub(cut, markdown)


def page_result(row: Row, shorten_images: bool) -> dict[str, Any]:
    """One result: a page row, or a diagnostic row (a URL that gave no page)."""
    success = row.row_type == "page" and row.ok
    markdown = (row.markdown or "") if success else ""
    metadata: dict[str, Any] = {
        "url": row.final_url or row.url or row.input or "",
        "title": row.title or "",
        "crawlDepth": row.depth or 0,
        "statusCode": row.status_code or 0,
        "success": success,
    }
    if not success:
        # not in the hosted API's answer: why this URL gave no page
        metadata["error"] = f"{row.error_type}: {row.error}" if row.error_type else "failed"
    return {
        "markdown": shorten_data_uris(markdown) if shorten_images else markdown,
        "metadata": metadata,
    }


#: rejection reasons (the run summary's ``rejected_counts`` keys) that the request's own
#: filters decide: what the hosted API counts as skipped, beside robots.txt's refusals
_SKIP_REASONS = ("excluded by pattern", "not matched by any include pattern", "document")


def skipped_by_filters(summary: dict[str, Any]) -> int:
    """URLs the crawl left out because of the request's filters (``urlRegex``, a PDF or
    DOCX with ``parsePDF: false``), from the run summary's rejected counts."""
    counts = summary.get("rejected_counts") or {}
    return sum(n for reason, n in counts.items() if str(reason).startswith(_SKIP_REASONS))


def build_answer(
    rows: list[Row], request: CrawlRequest, timed_out: bool, summary: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The response body for the rows a crawl wrote: a result per page and diagnostic
    row, and the counts. Skipped URLs were neither fetched nor failed: those the site
    rows count as refused by robots.txt, and those the request's filters left out (from
    ``summary``, the run summary, when the crawl ended)."""
    results = [
        page_result(row, request.shorten_base64_images)
        for row in rows
        if row.row_type in ("page", "diagnostic")
    ]
    succeeded = sum(1 for result in results if result["metadata"]["success"])
    skipped = sum(row.robots_blocked or 0 for row in rows if row.row_type == "site")
    skipped += skipped_by_filters(summary or {})
    return {
        "results": results,
        "metadata": {
            "numUrls": len(results),
            "maxCrawlDepth": max((r["metadata"]["crawlDepth"] for r in results), default=0),
            "numSucceeded": succeeded,
            "numFailed": len(results) - succeeded,
            "numSkipped": skipped,
            # not in the hosted API's answer: timeoutMS passed and the crawl was cut
            "timedOut": timed_out,
        },
    }


def cut_short(rows: list[Row], timed_out: bool) -> bool:
    """True when the crawl stopped before it was done: timeoutMS passed, or the child
    stopped on its time budget or a shutdown (the site rows say so)."""
    stops = {row.stop_reason for row in rows if row.row_type == "site"}
    return timed_out or bool(stops & {"time_budget", "shutdown"})


def _error(status: int, code: str, message: str) -> JSONResponse:
    """An error answer: ``error`` (as asked of this service) and ``error_code`` (the
    hosted API's name for the same) hold the code, ``message`` says what to fix."""
    return JSONResponse({"error": code, "error_code": code, "message": message}, status)


_T = TypeVar("_T")


def _parsed(raw: bytes, parse: Callable[[Any], _T]) -> _T | JSONResponse:
    """The JSON body read by `parse` (which validates it), or the 400 answer saying
    what is wrong with it."""
    try:
        return parse(json.loads(raw))
    except (ValueError, RecursionError) as exc:  # InputError, or JSON that does not parse
        message = str(exc) if isinstance(exc, InputError) else f"body is not JSON: {exc}"
        return _error(400, "INPUT_VALIDATION_ERROR", message)


class QueueFull(RuntimeError):
    """The client has as many crawls running and waiting as it may."""


@dataclass(slots=True)
class _Client:
    """One client's crawl slots and the requests waiting for one."""

    slots: asyncio.Semaphore
    active: int = 0
    waiting: int = 0


class ClientLimiter:
    """At most ``per_client`` crawls at once per client and ``total`` over all clients;
    up to ``queue`` more requests of a client wait their turn, beyond that they are
    refused. Used from the event loop only (release too: threads hand it over)."""

    def __init__(self, per_client: int, queue: int, total: int) -> None:
        """Limits as described on the class; each at least 1 (queue at least 0)."""
        self.per_client, self.queue = per_client, queue
        self._total = asyncio.Semaphore(total)
        self._clients: dict[str, _Client] = {}

    async def acquire(self, client: str, timeout: float) -> None:
        """Take a slot for ``client``, waiting at most ``timeout`` seconds. Raises
        QueueFull at once when its queue is full, TimeoutError when the wait ran out."""
        state = self._clients.get(client)
        if state is None:
            state = self._clients[client] = _Client(asyncio.Semaphore(self.per_client))
        if state.slots.locked() and state.waiting >= self.queue:
            raise QueueFull(client)
        state.waiting += 1
        try:
            async with asyncio.timeout(timeout):
                await state.slots.acquire()
                try:
                    await self._total.acquire()
                except BaseException:
                    state.slots.release()
                    raise
            state.active += 1  # before the finally: an active client is not forgotten
        finally:
            state.waiting -= 1
            self._forget_idle(client, state)

    def release(self, client: str) -> None:
        """Give back a slot taken by :meth:`acquire`."""
        state = self._clients[client]
        state.active -= 1
        self._total.release()
        state.slots.release()
        self._forget_idle(client, state)

    def _forget_idle(self, client: str, state: _Client) -> None:
        """Drop a client with nothing running or waiting (clients come and go)."""
        if state.active == 0 and state.waiting == 0 and self._clients.get(client) is state:
            del self._clients[client]


class CrawlJob:
    """One crawl read in a thread of its own (``api.crawl`` blocks between rows).

    The thread collects the rows; the request waits for :attr:`done` until its
    deadline, then takes what was collected. An abandoned job's stop event stops its
    child at once (``api.crawl``'s ``stop_event``: SIGINT, then a kill after the grace
    period), even while the thread waits for a row.
    ``on_finished`` runs in the event loop once the child is stopped and reaped.
    """

    def __init__(
        self,
        rows: Generator[Row, None, dict[str, Any]],
        loop: asyncio.AbstractEventLoop,
        on_finished: Callable[[], None],
        abandoned: threading.Event,
        max_pages: int | None = None,
    ) -> None:
        """Wrap a crawl's row generator, made with ``stop_event=abandoned`` (setting it
        stops the child even while the thread waits for a row); :meth:`start` starts
        reading it."""
        self._rows = rows
        self._loop = loop
        self._on_finished = on_finished
        self._lock = threading.Lock()
        self._collected: list[Row] = []
        self._abandoned = abandoned
        #: page rows the answer may hold: max_pages counts per website in the crawl,
        #: and with followSubdomains up to 20 more websites join; the answer's maxPages
        #: is for the whole answer
        self._max_pages = max_pages
        self._pages = 0
        #: the run summary, once the crawl has ended (api.crawl's return value)
        self.summary: dict[str, Any] = {}
        self.done = asyncio.Event()
        self.error: Exception | None = None
        # not a daemon: at exit the interpreter waits for it, so the child is stopped
        self._thread = threading.Thread(target=self._run, name="webmd-api-crawl")

    def start(self) -> None:
        """Start reading the rows (the child process starts at the first one)."""
        self._thread.start()

    def abandon(self) -> None:
        """Stop the crawl as soon as this thread gets control back."""
        self._abandoned.set()

    def rows(self) -> list[Row]:
        """The rows collected so far (a copy)."""
        with self._lock:
            return list(self._collected)

    def _run(self) -> None:
        try:
            while True:
                row = next(self._rows)
                if row.row_type == "page":
                    if self._max_pages is not None and self._pages >= self._max_pages:
                        self._abandoned.set()  # enough pages: the crawl stops
                        continue
                    self._pages += 1
                with self._lock:
                    self._collected.append(row)
        except StopIteration as end:  # the crawl ended: its value is the run summary
            self.summary = end.value or {}
        except Exception as exc:  # the request reports it; the thread must not die silently
            self.error = exc
        finally:
            self._rows.close()  # stops and reaps the child when the loop was left early
            with contextlib.suppress(RuntimeError):  # the server's loop is gone at exit
                self._loop.call_soon_threadsafe(self._finished)

    def _finished(self) -> None:
        self.done.set()
        self._on_finished()


class CrawlService:
    """The state of one app: its config, answer cache, limiter and running crawls."""

    def __init__(self, config: ServiceConfig) -> None:
        """Check the config and open the cache; raises ValueError for a config the
        service cannot run with (an unusable state folder too)."""
        taken = sorted(set(config.crawl_options) & REQUEST_OPTIONS)
        if taken:
            raise ValueError(f"crawl_options cannot set {', '.join(taken)}: requests decide them")
        unknown = sorted(set(config.crawl_options) - set(OPTION_NAMES))
        if unknown:
            raise ValueError(f"crawl_options: unknown option {', '.join(unknown)}")
        try:
            api.crawl_values("http://example.com/", None, config.crawl_options)
        except OptionsError as exc:
            raise ValueError(f"crawl_options: {exc}") from None
        if min(config.per_client, config.max_crawls, config.max_body_bytes) < 1:
            raise ValueError("per_client, max_crawls and max_body_bytes must be at least 1")
        self.config = config
        try:
            self.cache = ResultCache(config.state_dir)
        except ResultCacheError as exc:
            raise ValueError(str(exc)) from None
        self.limiter = ClientLimiter(config.per_client, config.queue_per_client, config.max_crawls)
        self.jobs: set[CrawlJob] = set()
        self.searches = asyncio.Semaphore(MAX_SEARCHES)
        # server-wide facts that change answers belong in the cache key too
        self._server_key = {
            "allow_local": config.allow_local,
            "crawl_options": {k: config.crawl_options[k] for k in sorted(config.crawl_options)},
        }

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        """At shutdown, tell every running crawl to stop (their threads stop the
        children; the interpreter waits for them)."""
        yield
        if self.jobs:
            logger.info("Stopping %d running crawl(s)", len(self.jobs))
        for job in list(self.jobs):
            job.abandon()

    def _authorized(self, request: Request) -> bool:
        """True without a configured token, else when the request carries it."""
        if self.config.token is None:
            return True
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return False
        # constant time: the comparison must not tell how much of a guess was right
        return hmac.compare_digest(given.strip().encode(), self.config.token.encode())

    async def _body(self, request: Request) -> bytes | None:
        """The request body, or None when it is larger than allowed (read no further)."""
        cap = self.config.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            return None
        body = bytearray()
        async for chunk in request.stream():  # a chunked body declares no length
            body += chunk
            if len(body) > cap:
                return None
        return bytes(body)

    def _unauthorized(self, request: Request) -> JSONResponse | None:
        """The 401 answer for a request without the server's token; None when it may go on."""
        if self._authorized(request):
            return None
        response = _error(401, "UNAUTHORIZED", "a valid bearer token is required")
        response.headers["WWW-Authenticate"] = "Bearer"
        return response

    async def _json_body(self, request: Request) -> bytes | JSONResponse:
        """The body of a request sent as JSON, or the 415 or 413 answer."""
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            # a web page may POST text/plain to any address without asking first (no
            # CORS preflight); a JSON content type it cannot send that way
            return _error(
                415, "UNSUPPORTED_MEDIA_TYPE", "the body must be sent as application/json"
            )
        raw = await self._body(request)
        if raw is None:
            limit = self.config.max_body_bytes
            return _error(413, "PAYLOAD_TOO_LARGE", f"the body must be at most {limit} bytes")
        return raw

    async def crawl(self, request: Request) -> JSONResponse:
        """``POST /web/crawl``."""
        arrived = asyncio.get_running_loop().time()  # timeoutMS counts from here
        refused = self._unauthorized(request)
        if refused is not None:
            return refused
        raw = await self._json_body(request)
        if isinstance(raw, JSONResponse):
            return raw
        crawl_request = _parsed(raw, parse_request)
        if isinstance(crawl_request, JSONResponse):
            return crawl_request
        key = cache_key({"request": crawl_request.cache_parameters(), "server": self._server_key})
        cached = await run_in_threadpool(self.cache.get, key, crawl_request.max_age_ms)
        if cached is not None:
            logger.info("Answer for %s from the cache", crawl_request.url)
            return JSONResponse(cached, headers={"X-Webmd-Cache": "hit"})
        client = request.client.host if request.client else "unknown"
        deadline = arrived + crawl_request.timeout_ms / 1000
        return await self._crawl(crawl_request, client, key, deadline)

    async def search(self, request: Request) -> JSONResponse:
        """``POST /search``: the best chunks of the server's index for a query."""
        refused = self._unauthorized(request)
        if refused is not None:
            return refused
        index = self.config.index
        if index is None:
            return _error(
                404,
                "SEARCH_DISABLED",
                "this server has no index: start it with webmd serve --index FILE "
                "(an index built by webmd crawl URL --index FILE)",
            )
        raw = await self._json_body(request)
        if isinstance(raw, JSONResponse):
            return raw
        asked = _parsed(raw, parse_search)
        if isinstance(asked, JSONResponse):
            return asked
        async with self.searches:
            try:
                hits = await run_in_threadpool(
                    search_index,
                    index,
                    asked.query,
                    asked.k,
                    mode=asked.mode,
                    embedder=self.config.embedder,
                )
            except SearchError as exc:
                logger.warning("POST /search: %s", exc)
                return _error(503, "INDEX_UNAVAILABLE", f"the index cannot be searched: {exc}")
            except ValueError as exc:
                return _error(400, "INPUT_VALIDATION_ERROR", str(exc))
            except Exception:
                logger.exception("POST /search failed")
                return _error(500, "INTERNAL_ERROR", "the search failed; the server log says why")
        data = {"query": asked.query, "mode": asked.mode, "hits": [search_hit(h) for h in hits]}
        return JSONResponse({"success": True, "data": data})

    async def _crawl(
        self, crawl_request: CrawlRequest, client: str, key: str, deadline: float
    ) -> JSONResponse:
        """Run the crawl in a slot of ``client``'s and answer by ``deadline`` (the event
        loop's clock)."""
        loop = asyncio.get_running_loop()
        abandoned = threading.Event()
        try:
            rows = api.crawl(
                crawl_request.url,
                stop_event=abandoned,
                allow_local=self.config.allow_local,
                **self.config.crawl_options,
                **crawl_request.crawl_values(),
            )
        except OptionsError as exc:
            return _error(400, "INPUT_VALIDATION_ERROR", str(exc))
        try:
            await self.limiter.acquire(client, deadline - loop.time())
        except QueueFull:
            rows.close()
            return _error(
                429, "TOO_MANY_REQUESTS", "too many crawls of this client running and queued"
            )
        except TimeoutError:
            rows.close()
            return _error(408, "REQUEST_TIMEOUT", "timeoutMS passed before a crawl slot was free")

        def finished() -> None:
            self.jobs.discard(job)
            self.limiter.release(client)

        job = CrawlJob(rows, loop, finished, abandoned, crawl_request.max_pages)
        self.jobs.add(job)
        job.start()
        timed_out = False
        try:
            await asyncio.wait_for(job.done.wait(), max(0.0, deadline - loop.time()))
        except TimeoutError:
            timed_out = True
            job.abandon()
        if job.error is not None:
            return self._failure(crawl_request, job.error)
        collected = job.rows()
        answer = build_answer(collected, crawl_request, timed_out, job.summary)
        counts = answer["metadata"]
        logger.info(
            "Crawled %s for %s: %d succeeded, %d failed, %d skipped%s",
            crawl_request.url,
            client,
            counts["numSucceeded"],
            counts["numFailed"],
            counts["numSkipped"],
            " (timed out)" if timed_out else "",
        )
        # a cut answer is not the answer to these parameters, and one without a single
        # page is likely an outage: neither is kept for the next request
        if not cut_short(collected, timed_out) and counts["numSucceeded"] > 0:
            await run_in_threadpool(self.cache.put, key, answer)
        return JSONResponse(answer, headers={"X-Webmd-Cache": "miss"})

    def _failure(self, crawl_request: CrawlRequest, error: Exception) -> JSONResponse:
        """The answer for a crawl that raised: the child refused the start (400), or
        failed (500)."""
        if isinstance(error, OptionsError):
            return _error(400, "INPUT_VALIDATION_ERROR", f"url: {error}")
        logger.error("The crawl of %s failed: %s", crawl_request.url, error)
        return _error(500, "INTERNAL_ERROR", "the crawl failed; the server log says why")


def create_app(config: ServiceConfig) -> Starlette:
    """The ASGI app serving ``POST /web/crawl`` and ``POST /search`` (404 without
    ``config.index``) with this config. Raises ValueError for
    a config it cannot run with (an unusable state folder, say)."""
    service = CrawlService(config)
    middleware = []
    if config.allowed_hosts is not None:
        # answers 400 to any other Host header
        middleware.append(Middleware(TrustedHostMiddleware, allowed_hosts=config.allowed_hosts))
    app = Starlette(
        routes=[
            Route("/web/crawl", service.crawl, methods=["POST"]),
            Route("/search", service.search, methods=["POST"]),
        ],
        middleware=middleware,
        lifespan=service.lifespan,
    )
    app.state.service = service
    return app
