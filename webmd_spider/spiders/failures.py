"""Map a failed download to a diagnostic ``(error_type, message)``.

Scrapy level: knows Scrapy's and Twisted's exception types. Used by the site spider's
errbacks; every failure becomes exactly one diagnostic row.
"""

from __future__ import annotations

from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
    UnsupportedURLSchemeError,
)
from twisted.internet import error as tx_error
from twisted.python.failure import Failure
from twisted.web._newclient import ResponseFailed

_TIMEOUTS = (DownloadTimeoutError, tx_error.TimeoutError, TimeoutError)
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
    if text.startswith("refused: ") or (
        isinstance(exc, tx_error.DNSLookupError) and "refused: " in text
    ):
        return "blocked", "refused by the SSRF guard: " + text.split("refused: ", 1)[1]
    if isinstance(exc, _TIMEOUTS):
        return "timeout", "the server did not send the whole response in time"
    if isinstance(exc, UnsupportedURLSchemeError):
        return "invalid-input", f"unsupported URL scheme: {text}"
    if isinstance(exc, _UNREACHABLE):
        return "unreachable", f"the server could not be reached ({type(exc).__name__}: {text})"
    if isinstance(exc, IgnoreRequest):
        return "blocked", f"the request was refused: {text}"
    return "unreachable", f"the download failed ({type(exc).__name__}: {text})"
