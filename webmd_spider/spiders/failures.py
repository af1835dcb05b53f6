"""Map a failed download to a diagnostic ``(error_type, message)``.

Scrapy level: knows Scrapy's and Twisted's exception types. Used by the site spider's
errbacks; every failure becomes exactly one diagnostic row.

The cause is looked for along the exception's chain: Scrapy wraps Twisted's
``ResponseFailed`` (which holds a list of failures) in ``DownloadFailedError``, and a
malformed response found by our download handler (``http_handler``) travels inside
those. A response the server got wrong (a header section over the cap, a body whose
Content-Encoding does not decode, a redirect to a non-http URL) is an ``http-error``
with a message naming the fault, not ``unreachable``: the server answered. A failure
below HTTP that names its cause (no such host, nothing listening on the port, plain
HTTP answering TLS: ``downloadermiddlewares/network_causes.py``) is ``unreachable``
with a message that starts with that cause.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from urllib.parse import urlsplit

from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    IgnoreRequest,
    ResponseDataLossError,
    UnsupportedURLSchemeError,
)
from scrapy.statscollectors import StatsCollector
from twisted.internet import error as tx_error
from twisted.python.failure import Failure
from twisted.web._newclient import ResponseFailed

from webmd_spider.downloadermiddlewares.network_causes import exception_chain, network_cause
from webmd_spider.downloadermiddlewares.politeness import TIMEOUTS
from webmd_spider.downloadermiddlewares.redirect_guard import OFFSITE_REDIRECT
from webmd_spider.transport.http_handler import ResponseHeadersTooLarge

_TIMEOUTS = TIMEOUTS
_UNREACHABLE = (
    CannotResolveHostError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    ResponseDataLossError,
    ResponseFailed,
    tx_error.DNSLookupError,
    tx_error.ConnectError,
    tx_error.ConnectionLost,
    tx_error.ConnectionDone,
    ConnectionError,
)
#: Modules whose exceptions mean "the compressed body could not be decoded" (Scrapy's
#: HttpCompressionMiddleware uses brotli or brotlicffi, and zstd from the standard
#: library, ``compression.zstd``, or its backport, ``backports.zstd``); matched on any
#: part of the exception's module name, so that none of them must be installed.
_DECODER_MODULES = frozenset({"brotli", "brotlicffi", "_brotli", "zstd", "_zstd", "zstandard"})
#: A short, truncated gzip body fails inside Scrapy's gunzip with these.
_TRUNCATED_STREAM = (EOFError, struct.error)
#: Scrapy's Request refuses a URL like ``javascript:alert(1)`` with this ValueError; in a
#: download's errback it comes from a redirect's Location (the request's own URL was
#: valid when it was made).
_MISSING_SCHEME = "Missing scheme in request url:"


def _decoding_error(exc: BaseException) -> bool:
    """Whether ``exc`` comes from decoding a Content-Encoding (gzip, deflate, br, zstd)."""
    if isinstance(exc, gzip.BadGzipFile | zlib.error):
        return True
    if _DECODER_MODULES.intersection((type(exc).__module__ or "").split(".")):
        return True
    if isinstance(exc, _TRUNCATED_STREAM):
        # generic types: only when raised while decompressing (Scrapy's gz / compression)
        tb = exc.__traceback__
        while tb is not None:
            name = tb.tb_frame.f_code.co_filename.replace("\\", "/")
            if name.endswith(("/utils/gz.py", "/utils/_compression.py", "/gzip.py")):
                return True
            tb = tb.tb_next
    return False


def _codec(exc: BaseException) -> str:
    """The Content-Encoding an exception of ``_decoding_error`` comes from, for the message."""
    module = type(exc).__module__ or ""
    if "brotli" in module:
        return "br"
    if "zstd" in module or "zstandard" in module:
        return "zstd"
    return "gzip or deflate"


def classify_failure(failure: Failure) -> tuple[str, str]:
    """``(error_type, plain-language message)`` for a download failure."""
    exc = failure.value
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    if (
        isinstance(exc, DownloadCancelledError | IgnoreRequest)
        and ("download max size" in lowered or "exceeded download_maxsize" in lowered)
    ) or (isinstance(exc, DownloadCancelledError) and not str(exc)):
        # A body without Content-Length cut while arriving fails with a bare
        # DownloadCancelledError (Scrapy logs the size warning separately).
        # Scrapy cancels a body over DOWNLOAD_MAXSIZE (from Content-Length, while
        # receiving, or while decompressing); these are its messages.
        return "too-large", "the response is larger than the page size limit (DOWNLOAD_MAXSIZE)"
    if isinstance(exc, IgnoreRequest) and "max redirections" in lowered:
        return "http-error", "too many redirects (REDIRECT_MAX_TIMES)"
    for cause in exception_chain(exc) if exc is not None else ():
        if isinstance(cause, ResponseHeadersTooLarge):
            return "http-error", f"the response headers are too large: {cause}"
        if _decoding_error(cause):
            return "http-error", (
                f"the server's compressed body could not be decoded ({_codec(cause)}: "
                f"{type(cause).__name__}: {str(cause)[:200]})"
            )
        if isinstance(cause, ValueError) and str(cause).startswith(_MISSING_SCHEME):
            target = str(cause).removeprefix(_MISSING_SCHEME).strip()
            return "http-error", f"redirect to a non-http URL ({target[:200]})"
    if text.startswith("refused: ") or (
        isinstance(exc, tx_error.DNSLookupError) and "refused: " in text
    ):
        return "blocked", "refused by the SSRF guard: " + text.split("refused: ", 1)[1]
    if isinstance(exc, _TIMEOUTS):
        return "timeout", "the server did not send the whole response in time"
    if isinstance(exc, UnsupportedURLSchemeError):
        return "invalid-input", f"unsupported URL scheme: {text}"
    request = getattr(failure, "request", None)
    named = network_cause(exc, request.url) if request is not None else None
    if named is not None:
        # the row names the cause ("no such host: ...", "nothing listening on ...",
        # "plain HTTP on this port: ..."), which the run's hint repeats
        return "unreachable", named.message()
    if isinstance(exc, _UNREACHABLE):
        return "unreachable", f"the server could not be reached ({type(exc).__name__}: {text})"
    if isinstance(exc, IgnoreRequest):
        if text.startswith(OFFSITE_REDIRECT):
            return "blocked", text
        return "blocked", f"the request was refused: {text}"
    return "unreachable", f"the download failed ({type(exc).__name__}: {text})"


def classify_fetch_failure(failure: Failure, stats: StatsCollector | None) -> tuple[str, str]:
    """``classify_failure``, plus the SSRF resolver's refusals: Twisted reports a
    refused name only as a failed lookup, the resolver records why in the stats
    (``webmd/ssrf_refused/<host>``)."""
    error_type, message = classify_failure(failure)
    if error_type == "unreachable" and stats is not None:
        host = (urlsplit(failure.request.url).hostname or "").rstrip(".")  # type: ignore[attr-defined]
        reason = stats.get_value(f"webmd/ssrf_refused/{host}")
        if reason:
            return "blocked", f"refused by the SSRF guard: {reason}"
    return error_type, message
