"""Why a download failed below HTTP, named for the user: no such host, nothing listening
on the port, plain HTTP on a port asked for TLS, another TLS failure.

Scrapy level (Scrapy's and Twisted's exception types, OpenSSL's error text). Shared by
the spider's failure classification (``spiders/failures.py``: the diagnostic row names
the cause), its robots.txt flow (a host that is down is not asked again later, the
discovery ladder skips roots that cannot answer either) and the robots.txt retry guard
(``PolitenessMiddleware``: no immediate retry of a probe whose failure cannot change).

Each of these failures says something about the host, not about the one request: a
name that does not resolve, a port that refuses connections, a server that answers the
TLS handshake in plain HTTP. RFC 9309 §2.3.1.4 treats a robots.txt that is unreachable
through network errors as complete disallow; such a host is down for this run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from scrapy.exceptions import CannotResolveHostError, DownloadConnectionRefusedError
from twisted.internet import error as tx_error

#: the kinds of :class:`NetworkCause`
NO_SUCH_HOST = "no-such-host"
REFUSED = "refused"
PLAIN_HTTP = "plain-http"
TLS = "tls"

#: What OpenSSL says when the server's first bytes are not a TLS record: a plain-HTTP
#: server answers our ClientHello with "HTTP/1.1 400 ..." ("wrong version number" in
#: OpenSSL 1.1-4.0; "packet length too long" / "record layer failure" / "unknown
#: protocol" in other versions).
_PLAIN_HTTP_SIGNS = (
    "wrong version number",
    "packet length too long",
    "record layer failure",
    "unknown protocol",
    "http request",
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CHAIN_LIMIT = 16


@dataclass(frozen=True, slots=True)
class NetworkCause:
    """A failure that says the host cannot answer this URL (see the module docstring).

    ``kind`` is one of ``no-such-host``, ``refused``, ``plain-http``, ``tls``;
    ``host`` and ``port`` are the URL's (the scheme's default port when none is
    written); ``detail`` is the exception's own text, for the log and the row.
    """

    kind: str
    scheme: str
    host: str
    port: int
    detail: str

    @property
    def address(self) -> str:
        """``host:port`` (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def http_root(self) -> str:
        """The plain-HTTP root of the same host and port (``http://host:port/``)."""
        if self.port == _DEFAULT_PORTS["http"]:
            return f"http://{self.address.rsplit(':', 1)[0]}/"
        return f"http://{self.address}/"

    def message(self) -> str:
        """The plain-language sentence a diagnostic row carries; it starts with the
        phrase the run's hint looks for (``crawl_command.hints``)."""
        if self.kind == NO_SUCH_HOST:
            return f"no such host: {self.host} (the name does not resolve)"
        if self.kind == REFUSED:
            return f"nothing listening on {self.address} ({self.detail})"
        if self.kind == PLAIN_HTTP:
            return (
                f"plain HTTP on this port: {self.address} answered the TLS handshake in "
                f"plain HTTP ({self.detail}); use {self.http_root}"
            )
        return f"the TLS handshake with {self.address} failed ({self.detail})"

    def rules_out(self, url: str) -> bool:
        """Whether ``url`` cannot answer either: the same name when it does not resolve,
        the same address when nothing listens there or it speaks plain HTTP to TLS."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower().rstrip(".")
        if self.kind == NO_SUCH_HOST:
            return host == self.host
        try:
            port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower(), 0)
        except ValueError:
            return False
        if self.kind == REFUSED:
            return host == self.host and port == self.port
        # the same port over TLS fails again; over plain HTTP it is what answered
        return host == self.host and port == self.port and parts.scheme.lower() == self.scheme


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, its causes and contexts, and the failures a ``ResponseFailed`` or
    ``ResponseNeverReceived`` holds (each once, at most ``_CHAIN_LIMIT``)."""
    todo: list[BaseException] = [exc]
    seen: set[int] = set()
    while todo and len(seen) < _CHAIN_LIMIT:
        current = todo.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        for reason in getattr(current, "reasons", None) or ():
            value = getattr(reason, "value", None)
            if isinstance(value, BaseException):
                todo.append(value)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                todo.append(linked)


def _is_tls_error(exc: BaseException) -> bool:
    """OpenSSL's ``SSL.Error`` (pyOpenSSL), matched by module so that the TLS stack
    need not be imported here."""
    module = type(exc).__module__ or ""
    return module.startswith("OpenSSL") or type(exc).__name__ in ("SSLError", "SSLZeroReturnError")


def _tls_detail(exc: BaseException) -> str:
    """OpenSSL's reason from ``[('SSL routines', '', 'wrong version number')]``."""
    args = getattr(exc, "args", ())
    errors = args[0] if args and isinstance(args[0], list) else []
    reasons = [str(e[-1]) for e in errors if isinstance(e, tuple) and e and e[-1]]
    return "; ".join(reasons) or str(exc) or type(exc).__name__


def network_cause(exc: BaseException | None, url: str) -> NetworkCause | None:
    """The :class:`NetworkCause` of a download of ``url`` that failed with ``exc``, or
    None when the failure is of another kind (a timeout, a reset connection, an HTTP
    fault, the SSRF guard's refusal: a lookup it refused is not a missing name)."""
    if exc is None:
        return None
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme, 0)
    except ValueError:
        port = _DEFAULT_PORTS.get(scheme, 0)
    for cause in exception_chain(exc):
        text = str(cause)
        if isinstance(cause, CannotResolveHostError | tx_error.DNSLookupError):
            if "refused: " in text:
                return None  # the SSRF guard's refusal (transport/resolver.py)
            detail = text.removeprefix("DNS lookup failed: ").rstrip(".") or "DNS lookup failed"
            return NetworkCause(NO_SUCH_HOST, scheme, host, port, detail)
        if isinstance(
            cause,
            DownloadConnectionRefusedError
            | tx_error.ConnectionRefusedError
            | ConnectionRefusedError,
        ):
            return NetworkCause(REFUSED, scheme, host, port, "Connection refused")
        if _is_tls_error(cause):
            detail = _tls_detail(cause)
            lowered = detail.lower()
            kind = PLAIN_HTTP if any(s in lowered for s in _PLAIN_HTTP_SIGNS) else TLS
            return NetworkCause(kind, scheme, host, port, detail)
    return None
