"""A small static-site HTTP server for the demo site and the end-to-end test sites.

Standard library only (no Scrapy, no Twisted), so it can run inside a test process
next to a Scrapy crawl or on its own::

    python -m webmd_spider.demo.server [ROOT] [--host HOST] [--port N]

:class:`SiteServer` serves one folder on ``127.0.0.1`` from a background thread
(``ThreadingHTTPServer`` with daemon threads) and records every request it answers.

Static files
------------
* ``GET`` and ``HEAD`` only; other methods get ``405``.
* A path naming a file under the root serves that file; a path naming a directory
  serves its ``index.html`` (a directory path without a trailing slash is redirected
  with ``301`` to the same path with the slash, as real servers do, so relative links
  resolve correctly). Query strings are ignored when looking up files.
* Anything missing is a ``404`` with a small HTML body. Paths with a ``..`` segment, or
  that would resolve outside the root (through a symlink, say), are refused with ``404``.
* Static files carry validators, like a real server's: ``ETag`` (a hash of the bytes
  sent) and ``Last-Modified`` (the file's mtime); a ``GET``/``HEAD`` with a matching
  ``If-None-Match`` (or, without one, an ``If-Modified-Since`` not older than the file)
  gets ``304 Not Modified`` without a body. ``SiteServer(root, validators=False)`` turns
  this off, for a server that ignores conditional requests.
* Files whose name starts with an underscore (``_routes.json``, ``_expected.json``, ...)
  are never served.
* ``Content-Type`` comes from the extension (see :data:`CONTENT_TYPES`; unknown
  extensions are ``application/octet-stream``). Every response carries
  ``Content-Length``; ``HEAD`` sends the same headers as ``GET`` without the body.

Templating
----------
In text files (``.html``, ``.htm``, ``.xml``, ``.txt`` including ``robots.txt``,
``.md``), in inline route bodies, in redirect locations and in content gzipped on the
fly through ``gzip_of``, every ``{{origin}}`` is replaced by the server's
:attr:`SiteServer.base_url` (``http://127.0.0.1:PORT``), so sitemaps and robots.txt
can hold absolute URLs with the real port.

Special routes: ``_routes.json``
--------------------------------
An optional ``_routes.json`` at the root maps request paths to route objects. A
request matches a route by its full path with query first (``/search?q=x``), then
by its path without the query. Matched routes take precedence over files. The file
is re-read when it changes. Keys of a route object (all optional, unknown keys are
an error when the server starts):

``status`` (int)
    Response status. Default ``200`` when the route has content, else ``404``.
``location`` (str)
    ``Location`` header (templated), for redirects: ``{"status": 301, "location":
    "/docs/intro.html"}``. ``status`` defaults to ``302`` when only ``location`` is given.
``file`` (str)
    Serve this file (relative to the root; may start with ``/``) as the body, with
    its own Content-Type and templating: ``{"/js-app/": {"file": "js-shell.html"}}``.
``gzip_of`` (str)
    Serve the gzip-compressed bytes of this file (after templating), with
    ``Content-Type: application/gzip`` and *no* ``Content-Encoding``, like a real
    ``.xml.gz`` sitemap: ``{"/sitemap-pages.xml.gz": {"gzip_of": "sitemap-pages.xml"}}``.
``body`` (str)
    Inline body text (templated, UTF-8), ``text/html; charset=utf-8`` by default.
``content_type`` (str)
    Override the Content-Type of the response.
``headers`` (object of str to str)
    Extra response headers, e.g. ``{"X-Robots-Tag": "noai"}``.
``delay`` (number)
    Seconds to wait before answering (for timeout tests).
``drip`` (number)
    A slow-drip server: the body is sent in pieces of :data:`DRIP_CHUNK` bytes with
    this many seconds between two pieces (``Content-Length`` is still sent first).
``encoding`` (``"gzip"``)
    Serve the content (file, inline body or generated page, after templating and
    ``repeat_body``) gzip-compressed with ``Content-Encoding: gzip``; the Content-Type
    stays that of the content. (For a ready-made gzip bomb, serve a pre-built ``.gz``
    file with ``file`` + ``headers: {"Content-Encoding": "gzip"}`` + ``content_type``:
    files with extensions that are not templated are served byte for byte.)
``repeat_body`` (int >= 1)
    The content repeated N times, written piece by piece (never built in memory
    uncompressed; with ``encoding`` it is compressed piece by piece), for oversized
    pages: ``{"body": "<p>filler words</p>", "repeat_body": 600000}``.
``chunked`` (bool)
    Send the body with ``Transfer-Encoding: chunked`` and no ``Content-Length``, like a
    streaming server whose size is unknown in advance.
``drop`` (bool)
    Answer nothing: close the connection right after reading the request (the
    request is still logged, with status ``0``).
``hang`` (bool)
    Answer nothing until the server stops, then close the connection: a server that
    hangs. The request is logged, with status ``0``, when it arrives (not when it is
    answered, as others are), so a test can tell that it is in flight.

A route may also be a LIST of such objects: the n-th request of that path gets the
n-th answer and the last one repeats (``[{"status": 429, "headers": {"Retry-After":
"1"}}, {"file": "page.html"}]``: refused once, then served).

At most one of ``file``, ``gzip_of`` and ``body`` may be given; ``drop`` and
``hang`` take no other key but ``delay``. A route without any
of them answers with a small generated HTML body naming the status (so
``{"status": 410}`` and ``{"status": 500}`` just work).

Why one file of over 500 lines: it runs as one standard-library script (``python -m
webmd_spider.demo.server``), in test processes too; its length is the routes
(``_routes.json``) that the fixture and fault sites use.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import html
import json
import logging
import threading
import time
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, cast
from urllib.parse import unquote, urlsplit

__all__ = [
    "CONTENT_TYPES",
    "ROUTE_KEYS",
    "RequestRecord",
    "Route",
    "SiteServer",
    "demo_site_path",
    "main",
]

logger = logging.getLogger(__name__)

#: Content-Type by lower-case file extension.
CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".xml": "application/xml",
    ".gz": "application/gzip",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".pdf": "application/pdf",
    ".json": "application/json",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
    ".webp": "image/webp",
    ".zip": "application/zip",
    ".csv": "text/csv; charset=utf-8",
    ".rss": "application/rss+xml",
}

#: Extensions whose content gets ``{{origin}}`` replaced.
TEMPLATED_EXTENSIONS = frozenset({".html", ".htm", ".xml", ".txt", ".md"})

#: The placeholder replaced by the server's base URL.
ORIGIN_PLACEHOLDER = "{{origin}}"

#: Keys allowed in a ``_routes.json`` route object.
ROUTE_KEYS = frozenset(
    {
        "status",
        "location",
        "file",
        "gzip_of",
        "body",
        "content_type",
        "headers",
        "delay",
        "drip",
        "encoding",
        "repeat_body",
        "chunked",
        "drop",
        "hang",
    }
)

#: Bytes per piece of a ``drip`` body.
DRIP_CHUNK = 64
#: Bytes per piece of a streamed (``repeat_body`` or ``chunked``) body.
STREAM_CHUNK = 64 * 1024

ROUTES_FILE = "_routes.json"
MAX_REQUEST_RECORDS = 10_000


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """One answered request: method, path as sent (with query), headers, status."""

    method: str
    path: str
    headers: dict[str, str]
    status: int
    at: float = 0.0  # time.monotonic() when the response was sent


@dataclass(frozen=True, slots=True)
class Route:
    """One special route from ``_routes.json`` (see the module docstring)."""

    status: int | None = None
    location: str | None = None
    file: str | None = None
    gzip_of: str | None = None
    body: str | None = None
    content_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drip: float = 0.0
    encoding: str | None = None
    repeat_body: int = 1
    chunked: bool = False
    drop: bool = False
    hang: bool = False

    @classmethod
    def from_json(cls, path: str, raw: Any) -> Route:
        """Validate one ``_routes.json`` entry; raise ``ValueError`` when it is malformed."""
        if not isinstance(raw, dict):
            raise ValueError(f"route {path!r}: expected an object, got {type(raw).__name__}")
        unknown = set(raw) - ROUTE_KEYS
        if unknown:
            raise ValueError(f"route {path!r}: unknown keys {sorted(unknown)}")
        sources = [key for key in ("file", "gzip_of", "body") if raw.get(key) is not None]
        if len(sources) > 1:
            raise ValueError(f"route {path!r}: give at most one of {sources}")
        status = raw.get("status")
        if status is not None and not (isinstance(status, int) and 100 <= status <= 599):
            raise ValueError(f"route {path!r}: bad status {status!r}")
        headers = raw.get("headers") or {}
        if not isinstance(headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
        ):
            raise ValueError(f"route {path!r}: headers must map strings to strings")
        for key in ("location", "file", "gzip_of", "body", "content_type"):
            if raw.get(key) is not None and not isinstance(raw[key], str):
                raise ValueError(f"route {path!r}: {key} must be a string")
        delay = raw.get("delay", 0)
        if not isinstance(delay, int | float) or delay < 0:
            raise ValueError(f"route {path!r}: bad delay {delay!r}")
        drip = raw.get("drip", 0)
        if not isinstance(drip, int | float) or isinstance(drip, bool) or drip < 0:
            raise ValueError(f"route {path!r}: bad drip {drip!r}")
        encoding = raw.get("encoding")
        if encoding is not None and encoding != "gzip":
            raise ValueError(f"route {path!r}: encoding must be 'gzip', got {encoding!r}")
        repeat = raw.get("repeat_body", 1)
        if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
            raise ValueError(f"route {path!r}: repeat_body must be an int >= 1, got {repeat!r}")
        for key in ("chunked", "drop", "hang"):
            if not isinstance(raw.get(key, False), bool):
                raise ValueError(f"route {path!r}: {key} must be true or false")
        for key in ("drop", "hang"):
            if raw.get(key) and set(raw) - {key, "delay"}:
                raise ValueError(f"route {path!r}: {key} takes no other key but delay")
        return cls(
            status=status,
            location=raw.get("location"),
            file=raw.get("file"),
            gzip_of=raw.get("gzip_of"),
            body=raw.get("body"),
            content_type=raw.get("content_type"),
            headers=dict(headers),
            delay=float(delay),
            drip=float(drip),
            encoding=encoding,
            repeat_body=repeat,
            chunked=bool(raw.get("chunked", False)),
            drop=bool(raw.get("drop", False)),
            hang=bool(raw.get("hang", False)),
        )


def load_routes(root: Path) -> dict[str, Route | list[Route]]:
    """Read and validate ``root/_routes.json``; an absent file means no routes."""
    routes_path = root / ROUTES_FILE
    if not routes_path.is_file():
        return {}
    data = json.loads(routes_path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{routes_path}: expected a JSON object")
    routes: dict[str, Route | list[Route]] = {}
    for path, raw in data.items():
        if not path.startswith("/"):
            raise ValueError(f"{routes_path}: route path {path!r} must start with '/'")
        if isinstance(raw, list) and raw:
            routes[path] = [Route.from_json(path, item) for item in raw]
        else:
            routes[path] = Route.from_json(path, raw)
    return routes


@dataclass(slots=True)
class _Response:
    status: int
    body: bytes = b""
    content_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    repeat: int = 1  # the body is sent this many times
    drip: float = 0.0  # seconds between two DRIP_CHUNK pieces
    chunked: bool = False  # Transfer-Encoding: chunked, no Content-Length
    drop: bool = False  # close the connection without answering
    hang: bool = False  # ...only once the server stops (``SiteServer.release``)
    mtime: float | None = None  # a static file's modification time (for Last-Modified)

    @property
    def length(self) -> int:
        return len(self.body) * self.repeat

    def pieces(self) -> Iterator[bytes]:
        """The body in pieces (DRIP_CHUNK bytes when dripping), without building it whole."""
        size = DRIP_CHUNK if self.drip else STREAM_CHUNK
        if self.repeat == 1 or len(self.body) >= size:
            for _ in range(self.repeat):
                for start in range(0, len(self.body), size):
                    yield self.body[start : start + size]
            return
        # many copies of a short body: group whole copies into one piece
        per_piece = max(1, size // max(1, len(self.body)))
        left = self.repeat
        while left > 0:
            count = min(per_piece, left)
            yield self.body * count
            left -= count


def _gzip_repeated(body: bytes, repeat: int) -> bytes:
    """gzip of ``body * repeat``, compressed piece by piece (only the output is held)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    out = [compressor.compress(piece) for piece in _Response(0, body, repeat=repeat).pieces()]
    out.append(compressor.flush())
    return b"".join(out)


def _status_page(status: int, detail: str = "") -> _Response:
    """A small generated HTML page for a status without content."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Status"
    text = f"{status} {phrase}"
    para = f"<p>{html.escape(detail)}</p>" if detail else ""
    body = (
        f'<!DOCTYPE html><html lang="en"><head><title>{text}</title></head>'
        f"<body><h1>{text}</h1>{para}</body></html>\n"
    )
    return _Response(status, body.encode("utf-8"), CONTENT_TYPES[".html"])


class SiteServer:
    """Serve one folder over HTTP in a background thread; a context manager.

    ``base_url`` (``http://HOST:PORT``, no trailing slash) is valid after
    :meth:`start`. ``requests`` lists every answered request, oldest first, keeping
    the last 10,000. See the module docstring for files, templating and routes.
    """

    def __init__(
        self, root: Path, host: str = "127.0.0.1", port: int = 0, validators: bool = True
    ) -> None:
        self.root = Path(root).resolve()
        self.validators = validators
        self.host = host
        self.port = port
        self.base_url = ""
        self.requests: list[RequestRecord] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._routes: dict[str, Route | list[Route]] = {}
        self._route_hits: dict[str, int] = {}
        self._routes_mtime: float | None = None
        #: set when hanging requests (``hang`` routes) may end: at stop()
        self._released = threading.Event()

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> SiteServer:
        """Bind, load ``_routes.json`` and start serving; return ``self``.

        Raises ``FileNotFoundError`` when the root is not a directory, ``ValueError``
        when ``_routes.json`` is malformed, ``RuntimeError`` when already started.
        """
        if self._httpd is not None:
            raise RuntimeError("SiteServer already started")
        if not self.root.is_dir():
            raise FileNotFoundError(f"site root is not a directory: {self.root}")
        self._reload_routes(force=True)
        handler = _make_handler(self)
        httpd = ThreadingHTTPServer((self.host, self.port), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        host, port = cast(tuple[str, int], httpd.server_address[:2])
        self.port = port
        self.base_url = f"http://{host}:{port}"
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"SiteServer-{port}",
            daemon=True,
        )
        self._thread.start()
        logger.debug("serving %s at %s", self.root, self.base_url)
        return self

    def stop(self) -> None:
        """Stop serving and close the socket; safe to call twice."""
        self.release()
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        logger.debug("stopped serving %s", self.root)

    def release(self) -> None:
        """End every hanging request (``hang`` routes): their connections are closed
        without an answer. stop() does it first; later hanging requests end at once."""
        self._released.set()

    def __enter__(self) -> SiteServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- request log -----------------------------------------------------------

    def hits(self, path: str) -> int:
        """How many times ``path`` (exactly as requested, with query) was requested."""
        with self._lock:
            return sum(1 for record in self.requests if record.path == path)

    def url(self, path: str = "/") -> str:
        """The absolute URL of ``path`` on this server."""
        return self.base_url + (path if path.startswith("/") else "/" + path)

    def clear_requests(self) -> None:
        """Forget the request log."""
        with self._lock:
            self.requests.clear()

    def _record(self, record: RequestRecord) -> None:
        with self._lock:
            self.requests.append(record)
            if len(self.requests) > MAX_REQUEST_RECORDS:
                del self.requests[: len(self.requests) - MAX_REQUEST_RECORDS]

    # -- responses -------------------------------------------------------------

    def _reload_routes(self, force: bool = False) -> None:
        routes_path = self.root / ROUTES_FILE
        try:
            mtime: float | None = routes_path.stat().st_mtime
        except OSError:
            mtime = None
        if force or mtime != self._routes_mtime:
            self._routes = load_routes(self.root)
            self._routes_mtime = mtime

    def _template(self, data: bytes) -> bytes:
        return data.replace(ORIGIN_PLACEHOLDER.encode(), self.base_url.encode())

    def _resolve(self, rel: str) -> Path | None:
        """Map a URL path (unquoted) to a file or directory under the root, or None."""
        parts = [p for p in rel.split("/") if p]
        if any(p in ("..", ".") or "\\" in p or "\x00" in p for p in parts):
            return None
        if any(p.startswith("_") for p in parts[-1:]):
            return None
        candidate = self.root.joinpath(*parts) if parts else self.root
        try:
            real = candidate.resolve()
        except (OSError, RuntimeError):
            return None
        if real != self.root and self.root not in real.parents:
            return None
        return candidate if candidate.exists() else None

    def _file_bytes(self, path: Path) -> tuple[bytes, str]:
        data = path.read_bytes()
        suffix = path.suffix.lower()
        if suffix in TEMPLATED_EXTENSIONS:
            data = self._template(data)
        return data, CONTENT_TYPES.get(suffix, "application/octet-stream")

    def _route_file(self, name: str) -> Path | None:
        found = self._resolve(unquote(name))
        return found if found is not None and found.is_file() else None

    def _respond_route(self, route: Route) -> _Response:
        if route.drop:
            return _Response(0, drop=True)
        if route.hang:
            return _Response(0, drop=True, hang=True)
        response = self._route_content(route)
        response.repeat = route.repeat_body
        if route.encoding == "gzip":
            response.body = _gzip_repeated(response.body, response.repeat)
            response.repeat = 1
            response.headers["Content-Encoding"] = "gzip"
        response.drip = route.drip
        response.chunked = route.chunked
        return response

    def _route_content(self, route: Route) -> _Response:
        extra = dict(route.headers)
        if route.location is not None:
            extra["Location"] = self._template(route.location.encode()).decode()
        if route.file is not None:
            target = self._route_file(route.file)
            if target is None:
                logger.error("route file %r not found under %s", route.file, self.root)
                return _status_page(500, f"route file {route.file} not found")
            body, ctype = self._file_bytes(target)
            response = _Response(route.status or 200, body, ctype)
        elif route.gzip_of is not None:
            target = self._route_file(route.gzip_of)
            if target is None:
                logger.error("gzip_of file %r not found under %s", route.gzip_of, self.root)
                return _status_page(500, f"gzip_of file {route.gzip_of} not found")
            body, _ = self._file_bytes(target)
            response = _Response(
                route.status or 200, gzip.compress(body, mtime=0), CONTENT_TYPES[".gz"]
            )
        elif route.body is not None:
            body = self._template(route.body.encode("utf-8"))
            response = _Response(route.status or 200, body, CONTENT_TYPES[".html"])
        else:
            default = 302 if route.location is not None else 404
            response = _status_page(route.status or default)
        if route.content_type is not None:
            response.content_type = route.content_type
        response.headers.update(extra)
        return response

    def _respond(self, raw_path: str) -> tuple[_Response, float]:
        """The response to a GET/HEAD of ``raw_path`` and the delay before sending it."""
        self._reload_routes()
        split = urlsplit(raw_path)
        path = split.path or "/"
        key = path + ("?" + split.query if split.query else "")
        if key not in self._routes:
            key = path
        route = self._routes.get(key)
        if isinstance(route, list):  # a sequence: the n-th request gets the n-th answer
            with self._lock:
                count = self._route_hits.get(key, 0)
                self._route_hits[key] = count + 1
            route = route[min(count, len(route) - 1)]
        if route is not None:
            return self._respond_route(route), route.delay
        target = self._resolve(unquote(path))
        if target is None:
            return _status_page(404, f"No page at {path}"), 0.0
        if target.is_dir():
            if not path.endswith("/"):
                location = path + "/" + ("?" + split.query if split.query else "")
                response = _status_page(301)
                response.headers["Location"] = location
                return response, 0.0
            target = target / "index.html"
            if not target.is_file():
                return _status_page(404, f"No page at {path}"), 0.0
        body, ctype = self._file_bytes(target)
        return _Response(200, body, ctype, mtime=target.stat().st_mtime), 0.0

    def _conditional(self, response: _Response, headers: Mapping[str, str]) -> _Response:
        """Add validators to a static file's 200 and answer 304 when the client's match
        (RFC 9110 §13.1.1, §13.1.3: If-None-Match wins over If-Modified-Since)."""
        if not self.validators or response.status != 200 or response.mtime is None:
            return response
        etag = '"' + hashlib.sha1(response.body).hexdigest()[:20] + '"'
        last_modified = formatdate(response.mtime, usegmt=True)
        response.headers.setdefault("ETag", etag)
        response.headers.setdefault("Last-Modified", last_modified)
        inm = headers.get("If-None-Match")
        ims = headers.get("If-Modified-Since")
        fresh = False
        if inm is not None:
            tags = {t.strip().removeprefix("W/") for t in inm.split(",")}
            fresh = etag in tags or "*" in tags
        elif ims is not None:
            try:
                since = parsedate_to_datetime(ims).timestamp()
            except (TypeError, ValueError, IndexError, OverflowError):
                since = None
            fresh = since is not None and int(response.mtime) <= since
        if not fresh:
            return response
        kept = {k: v for k, v in response.headers.items() if k in ("ETag", "Last-Modified")}
        return _Response(304, b"", None, headers=kept)


def _make_handler(server: SiteServer) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``server``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "webmd-demo/1.0"
        # headers and body go out in two writes: with Nagle's algorithm the body waits
        # for the client's delayed ACK (40 ms per response on Linux)
        disable_nagle_algorithm = True
        timeout = 30

        def do_GET(self) -> None:
            self._serve(send_body=True)

        def do_HEAD(self) -> None:
            self._serve(send_body=False)

        def _not_allowed(self) -> None:
            # The request body (if any) is not read: close the connection afterwards.
            self.close_connection = True
            extra = {"Allow": "GET, HEAD", "Connection": "close"}
            self._send(self.command, _status_page(405), send_body=True, extra=extra)

        do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed

        def _serve(self, send_body: bool) -> None:
            try:
                response, delay = server._respond(self.path)
                response = server._conditional(response, dict(self.headers.items()))
            except Exception:
                logger.exception("error answering %s %s", self.command, self.path)
                response, delay = _status_page(500), 0.0
            if delay:
                time.sleep(delay)
            self._send(self.command, response, send_body=send_body)

        def _send(
            self,
            method: str,
            response: _Response,
            send_body: bool,
            extra: Mapping[str, str] | None = None,
        ) -> None:
            server._record(
                RequestRecord(
                    method=method,
                    path=self.path,
                    headers=dict(self.headers.items()),
                    status=response.status,
                    at=time.monotonic(),
                )
            )
            if response.drop:
                if response.hang:  # logged above, on arrival: a test sees it in flight
                    server._released.wait()
                self.close_connection = True
                return
            self.send_response(response.status)
            if response.content_type:
                self.send_header("Content-Type", response.content_type)
            if response.chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", str(response.length))
            for name, value in {**response.headers, **(extra or {})}.items():
                self.send_header(name, value)
            self.end_headers()
            if not send_body or not response.body:
                if response.chunked and send_body:
                    self.wfile.write(b"0\r\n\r\n")
                return
            try:
                self._write_body(response)
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                self.close_connection = True
                logger.debug("client went away during %s %s", method, self.path)

        def _write_body(self, response: _Response) -> None:
            if response.repeat == 1 and not response.drip and not response.chunked:
                self.wfile.write(response.body)
                return
            first = True
            for piece in response.pieces():
                if response.drip and not first:
                    time.sleep(response.drip)
                first = False
                if response.chunked:
                    piece = b"%x\r\n%s\r\n" % (len(piece), piece)
                self.wfile.write(piece)
                self.wfile.flush()
            if response.chunked:
                self.wfile.write(b"0\r\n\r\n")

        def log_message(self, format: str, *args: Any) -> None:
            logger.debug("%s - " + format, self.address_string(), *args)

    return Handler


def demo_site_path() -> Path:
    """The bundled demo site folder (``webmd_spider/demo/site``)."""
    return Path(__file__).resolve().parent / "site"


def main(argv: list[str] | None = None) -> int:
    """Serve a folder (the demo site by default) until Ctrl-C; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m webmd_spider.demo.server",
        description="Serve a static site folder on 127.0.0.1 (the bundled demo site by default).",
    )
    parser.add_argument("root", nargs="?", type=Path, default=None, help="folder to serve")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000, 0 = any)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    root: Path = args.root if args.root is not None else demo_site_path()
    server = SiteServer(root, host=args.host, port=args.port)
    try:
        server.start()
    except (OSError, ValueError) as exc:
        logger.error("cannot serve %s: %s", root, exc)
        return 2
    logger.info("serving %s at %s/ (Ctrl-C to stop)", server.root, server.base_url)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        logger.info("stopping")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
