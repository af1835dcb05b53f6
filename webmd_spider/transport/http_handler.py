"""Scrapy's HTTP/1.1 download handler with a cap on the response's header section.

Twisted's HTTP client parser keeps every header line it receives until the blank line
that ends the header section; only a single line is capped (16 KiB, ``LineReceiver``'s
``MAX_LENGTH``). A server that sends header lines forever therefore grows the crawl
process's memory until DOWNLOAD_TIMEOUT (measured: ~240 MB/s on loopback), and
DOWNLOAD_MAXSIZE does not help: it counts only the body.

:class:`CappedHTTP11DownloadHandler` (``DOWNLOAD_HANDLERS`` for ``http`` and ``https``
in ``settings.py``) is Scrapy's own ``HTTP11DownloadHandler`` whose connection pool
builds protocols that parse responses with :class:`_CappedHTTPClientParser`. The cap
is checked per received line: past :data:`MAX_HEADER_BYTES` bytes or
:data:`MAX_HEADER_LINES` lines (status line, header lines, continuation lines and the
status and header lines of ignored 1xx responses before the real one, all counted
together), or on a single line over 16 KiB, the parser raises
:class:`ResponseHeadersTooLarge`. Twisted's ``HTTP11ClientProtocol.dataReceived`` turns
any exception of its parser into "give up": the connection is closed (no more bytes
are read) and the request fails with ``ResponseFailed`` holding our exception, which
Scrapy wraps in ``DownloadFailedError``; ``spiders/failures.py`` finds it in the chain
and writes an ``http-error`` row ("the response headers are too large").

How, and why this way: Scrapy's handler already swaps the pool's protocol factory
(``self._pool._factory``) for one whose protocol replaces the class of the parser that
``HTTP11ClientProtocol.request()`` creates (it hard-codes ``HTTPClientParser``). We do
the same one level down, subclassing Scrapy's lenient parser, protocol and factory: no
Twisted or Scrapy class is patched, only requests downloaded by this handler are
affected. The names are private to Scrapy (``scrapy>=2.19,<2.20`` is pinned in
pyproject.toml); ``tests/transport/test_hostile_transport.py`` fails if they change shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.core.downloader.handlers.http11 import (
    HTTP11DownloadHandler,
    _LenientHTTP11ClientFactory,
    _LenientHTTP11ClientProtocol,
    _LenientHTTPClientParser,
)

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from twisted.internet.defer import Deferred
    from twisted.internet.interfaces import IAddress
    from twisted.web._newclient import HTTP11ClientProtocol
    from twisted.web._newclient import Request as TxRequest
    from twisted.web.iweb import IResponse

#: The whole header section of one response (status line and header lines, with their
#: line ends) may be this large at most: 256 KiB, the limit Chromium applies. Real
#: responses use a few KiB; large cookie sets stay far below it.
MAX_HEADER_BYTES = 256 * 1024
#: At most this many lines in one response's header section (so that 256 KiB of tiny
#: lines cannot become ~90,000 stored headers). Node.js keeps 2,000 headers at most.
MAX_HEADER_LINES = 1000


class ResponseHeadersTooLarge(Exception):
    """The response's header section is over :data:`MAX_HEADER_BYTES` bytes or
    :data:`MAX_HEADER_LINES` lines, or one of its lines is over 16 KiB."""


class _CappedHTTPClientParser(_LenientHTTPClientParser):
    """Scrapy's lenient response parser, failing past the header section's caps.

    Instances are made as ``HTTPClientParser`` and get this class afterwards (see
    :class:`_CappedHTTP11ClientProtocol`), so the counters are class attributes that
    each instance shadows on its first line (an instance never sees ``__init__`` here).
    """

    _webmd_header_bytes = 0
    _webmd_header_lines = 0

    def lineReceived(self, line: bytes) -> None:
        # Called only for the status and header lines: once the header section ends the
        # parser is in raw (body) mode. Never reset: a run of 1xx responses counts too.
        self._webmd_header_bytes += len(line) + 1
        self._webmd_header_lines += 1
        if self._webmd_header_bytes > MAX_HEADER_BYTES:
            raise ResponseHeadersTooLarge(
                f"the header section is over {MAX_HEADER_BYTES // 1024} KiB"
            )
        if self._webmd_header_lines > MAX_HEADER_LINES:
            raise ResponseHeadersTooLarge(f"the header section has over {MAX_HEADER_LINES} lines")
        super().lineReceived(line)

    def lineLengthExceeded(self, line: bytes) -> Any:
        # Twisted's default closes the connection, which reads as a lost connection
        # (`unreachable`); say what happened instead.
        raise ResponseHeadersTooLarge(f"a header line is over {self.MAX_LENGTH // 1024} KiB")


class _CappedHTTP11ClientProtocol(_LenientHTTP11ClientProtocol):
    """Parses every response with :class:`_CappedHTTPClientParser`."""

    def request(self, request: TxRequest) -> Deferred[IResponse]:
        deferred = super().request(request)
        # As in Scrapy's _LenientHTTP11ClientProtocol.request(): request() created the
        # parser (HTTPClientParser, then Scrapy's lenient class); no byte of the
        # response can have arrived yet. _CappedHTTPClientParser adds no instance state
        # that __init__ would have set.
        if self._parser is not None:
            self._parser.__class__ = _CappedHTTPClientParser
        return deferred


class _CappedHTTP11ClientFactory(_LenientHTTP11ClientFactory):
    """Builds :class:`_CappedHTTP11ClientProtocol` protocols."""

    def buildProtocol(self, addr: IAddress | None) -> HTTP11ClientProtocol:
        return _CappedHTTP11ClientProtocol(self._quiescentCallback)


class CappedHTTP11DownloadHandler(HTTP11DownloadHandler):
    """``HTTP11DownloadHandler`` whose responses have a capped header section."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        # the same hook Scrapy's handler uses for its lenient parser (see the module doc)
        self._pool._factory = _CappedHTTP11ClientFactory
