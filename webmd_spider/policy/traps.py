"""Crawler-trap detection: URLs that generate unbounded, near-identical pages.

Pure module: standard library plus :func:`webmd_spider.urls.canonicalize`, no
Scrapy. The Scrapy layer calls :meth:`TrapDetector.refusal` once per URL it is
about to schedule and drops the URL (counting the reason) when it returns one.

Traps recognised, each with a stable reason string usable as a stats key:

* ``trap:url-too-long`` -- URLs grow without bound when a site appends to the
  current URL on every link (relative-link bugs, echoed parameters).
* ``trap:too-many-segments`` -- very deep paths (``/a/b/c/.../``) come from the
  same relative-link loops or from path-encoded facet explosions.
* ``trap:repeated-segment`` -- ``/a/b/a/b/a/``: a relative link resolved against
  a URL that the server answers for any suffix (soft 404s, rewrite rules).
* ``trap:session-id`` -- a session id in the query (``?PHPSESSID=...``) or in a
  path parameter (``/page;jsessionid=...``) makes every visit a new URL.
* ``trap:too-many-params`` -- faceted search combines filters combinatorially.
* ``trap:query-variants`` -- one path served with ever new query strings
  (``/calendar?month=...`` paging forever, sort/filter permutations).

Reasons are module constants (:data:`URL_TOO_LONG` ...). Not thread-safe:
one detector per crawl, used from the (single-threaded) Scrapy engine.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from urllib.parse import unquote, unquote_plus, urlsplit

from webmd_spider.urls import canonicalize

__all__ = [
    "QUERY_VARIANTS",
    "REPEATED_SEGMENT",
    "SESSION_ID",
    "SESSION_PARAMS",
    "SESSION_PARAM_PREFIXES",
    "TOO_MANY_PARAMS",
    "TOO_MANY_SEGMENTS",
    "URL_TOO_LONG",
    "TrapDetector",
    "TrapPolicy",
]

URL_TOO_LONG = "trap:url-too-long"
TOO_MANY_SEGMENTS = "trap:too-many-segments"
REPEATED_SEGMENT = "trap:repeated-segment"
SESSION_ID = "trap:session-id"
TOO_MANY_PARAMS = "trap:too-many-params"
QUERY_VARIANTS = "trap:query-variants"

#: Query/path parameter names (lower-case) that carry a server session id, by
#: platform. A URL carrying one is a per-visitor alias of a page.
SESSION_PARAMS: frozenset[str] = frozenset(
    {
        # Java servlet containers (Tomcat, Jetty, WebSphere ...), usually as
        # the path parameter ";jsessionid=" but also seen in queries.
        "jsessionid",
        # PHP session.use_trans_sid default name, and common renames.
        "phpsessid",
        "sessid",
        "sess_id",
        "sessionid",
        "session_id",
        # ASP.NET cookieless sessions and ASP classic cookie names.
        "asp.net_sessionid",
        # ColdFusion client variables.
        "cfid",
        "cftoken",
        # Shop systems: Zen Cart, osCommerce, xt:Commerce, Gambio, OpenCart.
        "zenid",
        "oscsid",
        "xtcsid",
        "gmsid",
        # Other frameworks: Shopware, Joomla/legacy CMSs, WebObjects.
        "sw-context-token",
        "wosid",
    }
)

#: Name prefixes for session parameters whose names carry a random suffix
#: (ASP classic ``ASPSESSIONIDQQGGQGPG``).
SESSION_PARAM_PREFIXES: tuple[str, ...] = ("aspsessionid",)


@dataclass(frozen=True)
class TrapPolicy:
    """Thresholds for :class:`TrapDetector`; every limit is inclusive (a URL
    exactly at a limit is allowed, one past it is a trap)."""

    #: Times one non-empty path segment may occur (case-insensitive, decoded,
    #: path parameters ignored); ``/a/b/a/b/`` is fine, ``/a/b/a/b/a/`` is not.
    max_repeated_segment: int = 2
    #: Path segments (empty ones from ``//`` count; one trailing ``/`` does not).
    max_segments: int = 20
    #: Characters in the whole URL as given.
    max_url_length: int = 2000
    #: ``&``-separated non-empty query parameters.
    max_query_params: int = 8
    #: Distinct query strings (after canonicalisation: tracking parameters
    #: dropped, parameters sorted) allowed on one scheme+host+path.
    max_query_variants_per_path: int = 50
    #: Parameter names (lower-case) treated as session ids.
    session_params: frozenset[str] = SESSION_PARAMS
    #: Parameter-name prefixes (lower-case) treated as session ids.
    session_param_prefixes: tuple[str, ...] = SESSION_PARAM_PREFIXES


@dataclass
class _PathVariants:
    """Bounded per-path state: hashes of allowed query variants (at most the
    cap) and how many new variants were refused once the cap was reached."""

    seen: set[int] = field(default_factory=set)
    refused: int = 0


class TrapDetector:
    """Decide whether a URL looks like a crawler trap; remembers query variants.

    Memory is bounded: at most ``max_tracked_paths`` scheme+host+path keys are
    tracked, each with at most ``policy.max_query_variants_per_path`` integer
    hashes. When a new path arrives at the limit, the *least recently used*
    path is evicted (its variant count starts again if it comes back). LRU is
    chosen over "stop tracking new paths" because a path that is actively
    trapping the crawl is touched constantly and so is never the one evicted,
    while a limit that freezes the table would leave every later trap
    undetected. Only URLs with a query string are tracked at all.
    """

    def __init__(self, policy: TrapPolicy | None = None, max_tracked_paths: int = 100_000) -> None:
        if max_tracked_paths < 1:
            raise ValueError("max_tracked_paths must be at least 1")
        self.policy = policy or TrapPolicy()
        self.max_tracked_paths = max_tracked_paths
        self._paths: OrderedDict[str, _PathVariants] = OrderedDict()

    @property
    def tracked_paths(self) -> int:
        """Number of scheme+host+path keys currently remembered (<= the limit)."""
        return len(self._paths)

    def variants_seen(self, url: str) -> int:
        """Distinct query variants recorded for ``url``'s scheme+host+path."""
        key = self._path_key(url)
        state = self._paths.get(key) if key is not None else None
        return len(state.seen) if state is not None else 0

    def refusal(self, url: str) -> str | None:
        """Return a ``trap:*`` reason if ``url`` looks like a crawler trap, else None.

        Checks, in order: URL length, segment count, repeated segments, session
        ids (query parameters and ``;name=value`` path parameters), parameter
        count, query variants per path. When the URL is allowed and has a query
        string, its variant is *recorded*, so call this once per URL that will
        actually be fetched; asking again for an already-recorded variant is
        always allowed. A refused URL records nothing. A URL the standard
        library cannot split is not judged here (None).
        """
        policy = self.policy
        if len(url) > policy.max_url_length:
            return URL_TOO_LONG
        try:
            parts = urlsplit(url)
        except ValueError:
            return None
        reason = self._path_refusal(parts.path) or self._query_refusal(parts.query)
        if reason is not None:
            return reason
        if parts.query:
            return self._record_variant(url)
        return None

    # ------------------------------------------------------------------ #

    def _is_session_param(self, name: str) -> bool:
        key = unquote_plus(name).strip().lower()
        return key in self.policy.session_params or key.startswith(
            self.policy.session_param_prefixes
        )

    def _path_refusal(self, path: str) -> str | None:
        policy = self.policy
        segments = path.split("/")[1:] if path.startswith("/") else path.split("/")
        if segments and segments[-1] == "":
            segments.pop()  # a trailing slash is not a segment
        if len(segments) > policy.max_segments:
            return TOO_MANY_SEGMENTS
        counts: dict[str, int] = {}
        session = False
        for segment in segments:
            name, _, params = segment.partition(";")
            if params:
                for param in params.split(";"):
                    if self._is_session_param(param.partition("=")[0]):
                        session = True
            key = unquote(name).lower()
            if not key:
                continue
            counts[key] = counts.get(key, 0) + 1
            if counts[key] > policy.max_repeated_segment:
                return REPEATED_SEGMENT
        return SESSION_ID if session else None

    def _query_refusal(self, query: str) -> str | None:
        if not query:
            return None
        pairs = [p for p in query.split("&") if p]
        if any(self._is_session_param(p.partition("=")[0]) for p in pairs):
            return SESSION_ID
        if len(pairs) > self.policy.max_query_params:
            return TOO_MANY_PARAMS
        return None

    @staticmethod
    def _path_key(url: str) -> str | None:
        canonical = canonicalize(url)
        parts = urlsplit(canonical)
        if not parts.netloc:
            return None
        return f"{parts.scheme}://{parts.netloc}{parts.path}"

    def _record_variant(self, url: str) -> str | None:
        # Canonical form: host case, default port, tracking parameters and
        # parameter order no longer make two spellings count as two variants.
        canonical = canonicalize(url)
        parts = urlsplit(canonical)
        if not parts.netloc:
            return None
        if not parts.query:
            return None  # only tracking parameters: the bare page
        key = f"{parts.scheme}://{parts.netloc}{parts.path}"
        variant = hash(parts.query)
        state = self._paths.get(key)
        if state is None:
            if len(self._paths) >= self.max_tracked_paths:
                self._paths.popitem(last=False)  # evict least recently used
            state = _PathVariants()
            self._paths[key] = state
        else:
            self._paths.move_to_end(key)
        if variant in state.seen:
            return None
        if len(state.seen) >= self.policy.max_query_variants_per_path:
            state.refused += 1
            return QUERY_VARIANTS
        state.seen.add(variant)
        return None
