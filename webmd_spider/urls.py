"""URL handling for the crawl: canonical forms, website keys, scope and patterns.

Pure module: standard library and w3lib only, no Scrapy.

Contents:

* :func:`canonicalize` -- the one spelling of a URL used for de-duplication.
* :func:`site_key` / :func:`same_site` -- which website a URL belongs to.
* :func:`parse_start_inputs` / :func:`parse_start_input` -- what the user typed
  on the command line, classified (bare domain, site root, single page, invalid).
* :func:`discovery_candidates` -- site roots to probe for a bare domain.
* :func:`compile_pattern`, :class:`UrlFilter`, :func:`split_patterns` --
  include/exclude URL patterns (globs or ``/regex/flags``).
* :func:`follow_rejection` -- links that are never worth following (assets,
  feeds, APIs, non-web schemes).

Why one file of over 500 lines: these are the URL primitives every layer shares (it is
in the lowest layer); canonical form, website keys and patterns are used together by
nearly every caller.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from w3lib.url import safe_url_string

#: canonicalize() and site_key() remember this many URLs: a crawl asks about the same
#: URL several times (scheduling, dedup fingerprint, its response, every page linking
#: to it), and both are pure functions of the string.
URL_CACHE_SIZE = 16384

# --------------------------------------------------------------------------- #
# Canonical form
# --------------------------------------------------------------------------- #

#: Query parameters that only identify a campaign, click or visitor. They never
#: change the page served, so two URLs differing only in them are one page.
TRACKING_PARAMS: frozenset[str] = frozenset(
    {
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "fbclid",
        "msclkid",
        "yclid",
        "igshid",
        "twclid",
        "ttclid",
        "li_fat_id",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "__hstc",
        "__hssc",
        "__hsfp",
        "hsctatracking",
        "mkt_tok",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "vero_conv",
        "rb_clickid",
        "s_cid",
        "ref_src",
        "spm",
    }
)

#: Query parameter name prefixes that mark a tracking parameter (``utm_source``,
#: ``utm_medium``, ... and Piwik/Matomo ``pk_*`` campaign parameters).
TRACKING_PREFIXES: tuple[str, ...] = ("utm_", "pk_", "mtm_")

_DEFAULT_PORTS: dict[str, str] = {"http": "80", "https": "443"}
_WEB_SCHEMES: frozenset[str] = frozenset({"http", "https"})
# An absolute http(s) URL that w3lib's safe_url_string returns unchanged: a lower-case
# scheme and host (ASCII letters, digits, "-" and "."), a valid port (1-65535, no
# leading zero), and a path and query of characters it never escapes ("'" left out: it
# escapes it in a query; "%" only before two hex digits). Most links of most pages are
# such, and the check costs a fraction of safe_url_string's parse and re-serialisation
# (tests/test_urls.py checks the identity on generated URLs). Group 1 is its scheme and
# authority (see plain_origin).
_PLAIN_URL = re.compile(
    r"(https?://[a-z0-9.-]+"
    r"(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?)"
    r"(?:/(?:[A-Za-z0-9\-._~!$&()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?"
)


def plain_origin(url: str) -> str | None:
    """``scheme://host[:port]`` of a plain URL (lower-case ASCII scheme and host, no
    user info, a valid port, a path and query of characters never escaped: one
    ``safe_url_string`` and a browser leave as they are), else None."""
    plain = _PLAIN_URL.fullmatch(url)
    return plain.group(1) if plain is not None else None


# A valid percent escape; unreserved characters (RFC 3986 section 2.3) may be
# decoded without changing the resource, every other escape keeps its meaning
# and only has its hex digits upper-cased (section 6.2.2.1).
_PERCENT_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _normalize_escapes(text: str) -> str:
    """Decode escapes of unreserved characters and upper-case all other escapes."""

    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        if char in _UNRESERVED:
            return char
        return "%" + match.group(1).upper()

    return _PERCENT_ESCAPE.sub(fix, text)


def _is_tracking_param(name: str) -> bool:
    key = unquote_plus(name).strip().lower()
    return key in TRACKING_PARAMS or key.startswith(TRACKING_PREFIXES)


def _canonical_query(query: str) -> str:
    """Drop tracking parameters and sort the rest by name.

    The sort is stable and by name only, so repeated keys keep their relative
    order (``a=2&a=1`` may mean a list in that order). Values are kept as
    written (blank ones too); only empty ``&&`` segments vanish because they
    carry nothing.
    """
    pairs = [p for p in query.split("&") if p]
    kept = [p for p in pairs if not _is_tracking_param(p.partition("=")[0])]
    kept.sort(key=lambda p: p.partition("=")[0])
    return "&".join(kept)


def _canonical_netloc(scheme: str, netloc: str) -> str | None:
    """Lower-case the host, drop the default port; None when the port is bad."""
    userinfo, at, hostport = netloc.rpartition("@")
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            return None
        host, rest = hostport[: end + 1], hostport[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port = rest[1:]
    else:
        host, _, port = hostport.partition(":")
    if port and not (port.isascii() and port.isdigit()):
        return None
    if port:
        port = str(int(port))  # "0080" and "80" are the same port
        if int(port) > 65535:
            return None
    if port == _DEFAULT_PORTS.get(scheme):
        port = ""
    out = host.lower()
    if port:
        out = f"{out}:{port}"
    return f"{userinfo}{at}{out}"


@lru_cache(maxsize=URL_CACHE_SIZE)
def canonicalize(url: str) -> str:
    """Return the canonical spelling of an absolute http(s) URL.

    Scheme and host are lower-cased, an IDN host becomes punycode, the default
    port (``:80`` for http, ``:443`` for https) and the fragment are dropped,
    tracking query parameters (:data:`TRACKING_PARAMS`,
    :data:`TRACKING_PREFIXES`) are removed and the rest sorted stably by name,
    an empty path becomes ``/``. Percent-encoding is made safe (unsafe
    characters escaped, escapes of unreserved characters decoded, hex digits
    upper-cased) without decoding anything that could change the resource
    (``%2F`` stays ``%2F``). The path is otherwise kept exactly: no case
    change, no trailing-slash change.

    Idempotent, and never raises for a ``str``: anything that is not an
    absolute http(s) URL with a host, or cannot be parsed, comes back stripped
    of surrounding whitespace and otherwise unchanged.
    """
    stripped = url.strip()
    try:
        return _canonicalize(stripped)
    except Exception:
        # The contract is "never raises": URL parsing and IDNA encoding have a
        # long tail of ValueError/UnicodeError cases on hostile input.
        return stripped


def _canonicalize(url: str) -> str:
    head = urlsplit(url)
    if head.scheme.lower() not in _WEB_SCHEMES or not head.netloc:
        return url
    # safe_url_string escapes spaces and non-ASCII (UTF-8) and encodes IDN
    # hosts as punycode; unlike w3lib's canonicalize_url it does not re-encode
    # the query as a form, which could alter what the server receives. A plain
    # URL is one it would return as it is.
    parts = head if _PLAIN_URL.fullmatch(url) else urlsplit(safe_url_string(url))
    scheme = parts.scheme.lower()
    if scheme not in _WEB_SCHEMES or not parts.hostname:
        return url
    netloc = _canonical_netloc(scheme, parts.netloc)
    if netloc is None:
        return url
    path = _normalize_escapes(parts.path) or "/"
    query = _canonical_query(_normalize_escapes(parts.query))
    return urlunsplit((scheme, netloc, path, query, ""))


# --------------------------------------------------------------------------- #
# Websites
# --------------------------------------------------------------------------- #


@lru_cache(maxsize=URL_CACHE_SIZE)
def site_key(url: str) -> str:
    """Return the website a URL belongs to: lower-case host without a leading
    ``www.``, plus ``:port`` when the port is not the scheme's default.

    Two URLs with the same key are one website (one crawl, one robots file,
    one site row).
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    if port is not None and port != default:
        return f"{host}:{port}"
    return host


def same_site(url: str, other: str) -> bool:
    """True when both URLs belong to one website (equal :func:`site_key`)."""
    return site_key(url) == site_key(other)


# --------------------------------------------------------------------------- #
# Start inputs
# --------------------------------------------------------------------------- #

START_KINDS: tuple[str, ...] = ("domain", "root", "page", "invalid")

# "name:" at the start of an input is a scheme unless digits follow (then it
# is "host:port", e.g. "localhost:8080").
_SCHEME_PREFIX = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):(?!\d)")
_HOST_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_\-]{0,61}[a-z0-9_])?$")
_INPUT_SEPARATORS = re.compile(r"[\s,]+")


@dataclass(frozen=True, slots=True)
class StartInput:
    """One start URL as typed by the user, classified.

    ``kind`` is ``"domain"`` (bare host: crawl the whole site, probe roots
    with :func:`discovery_candidates`), ``"root"`` (URL with scheme whose
    path is empty or ``/`` and no query: whole site from exactly that root),
    ``"page"`` (URL with a path or query: that page and its links) or
    ``"invalid"`` (``url`` is None and ``error`` says why in plain language).
    """

    raw: str
    url: str | None
    kind: str
    error: str | None = None

    @property
    def scheme_typed(self) -> bool:
        """Whether the user wrote the scheme (``http://``, ``https://``). Without one
        the scheme is ours to find: https first, then http (:func:`start_candidates`)."""
        return "://" in self.raw


def _invalid(raw: str, error: str) -> StartInput:
    return StartInput(raw=raw, url=None, kind="invalid", error=error)


def _host_problem(host: str) -> str | None:
    """Why ``host`` (already lower-cased, no brackets) cannot be crawled, or None."""
    if host == "localhost":
        return None
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    name = host[:-1] if host.endswith(".") else host
    if not name.isascii():
        try:
            name = name.encode("idna").decode("ascii")
        except UnicodeError:
            return f"'{host}' is not a valid host name"
    labels = name.split(".")
    if not all(_HOST_LABEL.match(label) for label in labels):
        return f"'{host}' is not a valid host name"
    if len(labels) < 2:
        return (
            f"'{host}' is not a full domain name "
            "(expected something like example.com, localhost or an IP address)"
        )
    return None


def parse_start_input(raw: str) -> StartInput:
    """Classify one user-typed start URL; never raises.

    ``example.com`` is a ``domain`` (url ``https://example.com/``);
    ``example.com/docs`` a ``page`` fetched over https; ``http://h/`` a
    ``root``; ``http://h/x`` or ``http://h/?q=1`` a ``page``. Invalid: empty
    text, e-mail addresses, schemes other than http/https, a missing or
    malformed host, a bad port, and a dotless host other than ``localhost``.
    The ``url`` of a valid input is :func:`canonicalize`-d.
    """
    text = raw.strip()
    if not text:
        return _invalid(raw, "empty input")
    has_scheme = "://" in text
    if has_scheme:
        scheme = text.split("://", 1)[0]
        if not scheme:
            return _invalid(raw, "malformed address: missing scheme before '://'")
    else:
        match = _SCHEME_PREFIX.match(text)
        scheme = match.group(1) if match else ""
    if scheme and scheme.lower() not in _WEB_SCHEMES:
        return _invalid(
            raw,
            f"unsupported address type '{scheme.lower()}:' -- "
            "only http:// and https:// addresses can be crawled",
        )
    if not has_scheme:
        if "@" in re.split(r"[/?#]", text, maxsplit=1)[0]:
            return _invalid(raw, "looks like an e-mail address, not a website")
        text = "https://" + text
    if any(ch.isspace() for ch in text):
        return _invalid(raw, "malformed address: contains spaces")
    try:
        parts = urlsplit(text)
        host = parts.hostname or ""
        parts.port  # noqa: B018 -- raises ValueError for a bad port
    except ValueError as exc:
        return _invalid(raw, f"malformed address: {exc}")
    if not host:
        return _invalid(raw, "malformed address: no host name")
    if problem := _host_problem(host):
        return _invalid(raw, problem)
    if not has_scheme and _is_ip_literal(host) and parts.port is None:
        # A bare address names a machine, not a website (and is how SSRF probes look):
        # crawling one must be asked for explicitly, with a scheme. With a port
        # (``127.0.0.1:8765/``) it names a service: it is probed like any scheme-less
        # start (the SSRF guard still judges the address).
        netloc = parts.netloc.rpartition("@")[2]
        return _invalid(raw, f"a bare IP address; give a full URL such as http://{netloc}/")
    url = canonicalize(text)
    at_root = parts.path in ("", "/") and not parts.query
    # Typed without a scheme means "the website"; with one, exactly that root.
    whole_site_kind = "root" if has_scheme else "domain"
    kind = whole_site_kind if at_root else "page"
    return StartInput(raw=raw, url=url, kind=kind, error=None)


def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return bool(re.fullmatch(r"(0x[0-9a-f]+|\d+)(\.(0x[0-9a-f]+|\d+)){0,3}", host, re.I))
    return True


def parse_start_inputs(text: str) -> list[StartInput]:
    """Split user text on commas and whitespace and classify every entry.

    Empty entries are dropped; order is kept; an entry typed twice (same raw
    text) is reported once.
    """
    seen: set[str] = set()
    out: list[StartInput] = []
    for token in _INPUT_SEPARATORS.split(text):
        if not token or token in seen:
            continue
        seen.add(token)
        out.append(parse_start_input(token))
    return out


def discovery_candidates(domain_input_url: str) -> list[str]:
    """Site roots to probe, in order, for a bare-domain input.

    ``https://host/``, then ``https://www.host/`` (skipped when the host
    already starts with ``www.`` or is ``localhost`` or an IP address), then
    ``http://host/``. A non-default port is kept on every candidate.
    """
    parts = urlsplit(canonicalize(domain_input_url))
    netloc = parts.netloc.rpartition("@")[2]
    host = parts.hostname or ""
    candidates = [f"https://{netloc}/"]
    is_ip = False
    try:
        ipaddress.ip_address(host)
        is_ip = True
    except ValueError:
        pass
    if host and not host.startswith("www.") and host != "localhost" and not is_ip:
        candidates.append(f"https://www.{netloc}/")
    candidates.append(f"http://{netloc}/")
    # Canonical form drops the default port each scheme would otherwise carry.
    return [canonicalize(c) for c in candidates]


def start_candidates(start: StartInput) -> list[str]:
    """The roots whose robots.txt is asked, in order, for a valid start: the first that
    answers is the website's root.

    A bare domain probes :func:`discovery_candidates`; a page typed without a scheme
    (``localhost:8765/library/``) probes ``https://`` then ``http://`` on its own host
    and port (a page is not moved to ``www.``); a start with a scheme has its own root
    only.
    """
    assert start.url is not None, "an invalid start has no candidates"
    if start.kind == "domain":
        return discovery_candidates(start.url)
    parts = urlsplit(start.url)
    netloc = parts.netloc.rpartition("@")[2]
    if start.scheme_typed:
        return [f"{parts.scheme}://{parts.netloc}/"]
    return [canonicalize(f"https://{netloc}/"), canonicalize(f"http://{netloc}/")]


def moved_to_root(start: StartInput, root: str) -> StartInput:
    """``start`` with the scheme and host of ``root`` (the candidate whose robots.txt
    answered) when the user did not type its scheme; else ``start`` unchanged."""
    if start.url is None or start.scheme_typed:
        return start
    page, target = urlsplit(start.url), urlsplit(root)
    if (page.scheme, page.netloc) == (target.scheme, target.netloc):
        return start
    url = canonicalize(urlunsplit((target.scheme, target.netloc, page.path, page.query, "")))
    return StartInput(raw=start.raw, url=url, kind=start.kind, error=start.error)


# --------------------------------------------------------------------------- #
# Include / exclude patterns
# --------------------------------------------------------------------------- #


class PatternError(ValueError):
    """A user-supplied URL pattern that cannot be compiled."""


_REGEX_FORM = re.compile(r"^/(.*)/([imsx]*)$", re.DOTALL)
_REGEX_FLAGS: dict[str, re.RegexFlag] = {
    "i": re.IGNORECASE,
    "m": re.MULTILINE,
    "s": re.DOTALL,
    "x": re.VERBOSE,
}


@dataclass(frozen=True, slots=True)
class UrlPattern:
    """A compiled pattern; ``source`` is the text the user gave."""

    source: str
    regex: re.Pattern[str]
    is_glob: bool

    def match(self, url: str) -> bool:
        """True when the URL matches: a glob must cover the whole URL, a
        ``/regex/`` may match anywhere (``re.search``)."""
        if self.is_glob:
            return self.regex.fullmatch(url) is not None
        return self.regex.search(url) is not None

    def __call__(self, url: str) -> bool:
        return self.match(url)

    def __str__(self) -> str:
        return self.source


def _glob_to_regex(glob: str) -> str:
    out = []
    for ch in glob:
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def compile_pattern(pattern: str) -> UrlPattern:
    """Compile one include/exclude pattern.

    ``/regex/flags`` (flags from ``imsx``) is a Python regular expression
    searched anywhere in the URL. Anything else is a glob matched against the
    WHOLE URL: ``*`` is any run of characters (``/`` included), ``?`` exactly
    one character, everything else literal. Raises :class:`PatternError`
    naming the pattern and the reason when it cannot be compiled.
    """
    source = pattern.strip()
    if not source:
        raise PatternError("empty pattern")
    regex_form = _REGEX_FORM.match(source) if len(source) >= 2 else None
    if regex_form:
        body, flag_text = regex_form.groups()
        if not body:
            raise PatternError(f"pattern {source!r}: empty regular expression")
        flags = re.RegexFlag(0)
        for letter in flag_text:
            flags |= _REGEX_FLAGS[letter]
        try:
            compiled = re.compile(body, flags)
        except re.error as exc:
            raise PatternError(f"pattern {source!r}: invalid regular expression: {exc}") from exc
        return UrlPattern(source=source, regex=compiled, is_glob=False)
    return UrlPattern(
        source=source, regex=re.compile(_glob_to_regex(source), re.DOTALL), is_glob=True
    )


@dataclass
class UrlFilter:
    """Include/exclude scope over URLs: exclude wins, empty include = all."""

    include: list[UrlPattern] = field(default_factory=list)
    exclude: list[UrlPattern] = field(default_factory=list)

    @classmethod
    def from_strings(cls, include: Iterable[str], exclude: Iterable[str]) -> UrlFilter:
        """Compile pattern texts; raises :class:`PatternError` on the first bad one."""
        return cls(
            include=[compile_pattern(p) for p in include],
            exclude=[compile_pattern(p) for p in exclude],
        )

    def rejection(self, url: str) -> str | None:
        """Why the URL is out of scope, or None when it is allowed."""
        for pattern in self.exclude:
            if pattern.match(url):
                return f"excluded by pattern {pattern.source}"
        if self.include and not any(p.match(url) for p in self.include):
            return "not matched by any include pattern"
        return None

    def allows(self, url: str) -> bool:
        """True when :meth:`rejection` is None."""
        return self.rejection(url) is None


def _regex_token_end(text: str, start: int) -> int | None:
    """End index of a ``/regex/flags`` token starting at ``text[start] == "/"``.

    The regex may contain commas (``/a,b/i``) but not whitespace (use ``\\s``);
    it ends at the first unescaped ``/`` followed by optional flags and then a
    separator or the end of the text.
    """
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            return None
        if ch == "\\":
            i += 2
            continue
        if ch == "/" and i > start + 1:
            j = i + 1
            while j < len(text) and text[j] in _REGEX_FLAGS:
                j += 1
            if j == len(text) or text[j] == "," or text[j].isspace():
                return j
        i += 1
    return None


def _split_one(text: str) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "," or text[i].isspace():
            i += 1
            continue
        end = _regex_token_end(text, i) if text[i] == "/" else None
        if end is None:
            end = i
            while end < len(text) and not (text[end] == "," or text[end].isspace()):
                end += 1
        out.append(text[i:end])
        i = end
    return out


def split_patterns(value: str | list[str] | None) -> list[str]:
    """Split CLI pattern text into pattern strings.

    Patterns are separated by commas and/or whitespace, except that a
    ``/regex/flags`` token may contain commas (``"/a,b/i"`` is one pattern).
    A list is split element by element (repeated options); None gives [].
    """
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    out: list[str] = []
    for item in items:
        out.extend(_split_one(item))
    return out


# --------------------------------------------------------------------------- #
# Links never worth following
# --------------------------------------------------------------------------- #

#: File extensions (lower-case, with dot) of resources that are not HTML pages.
NON_PAGE_EXTENSIONS: frozenset[str] = frozenset(
    {
        # images
        ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".svgz", ".ico", ".bmp",
        ".tif", ".tiff", ".avif", ".heic", ".heif", ".psd", ".eps", ".ai",
        # styles, scripts, data
        ".css", ".js", ".mjs", ".map", ".json", ".jsonld", ".wasm",
        # fonts
        ".woff", ".woff2", ".ttf", ".otf", ".eot",
        # audio / video
        ".mp3", ".mp4", ".m4a", ".m4v", ".wav", ".ogg", ".oga", ".ogv", ".opus",
        ".webm", ".mov", ".avi", ".mkv", ".flac", ".aac", ".wmv", ".wma", ".mpg",
        ".mpeg", ".3gp", ".flv", ".swf", ".m3u8", ".ts",
        # archives, installers, binaries
        ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".dmg",
        ".iso", ".img", ".exe", ".msi", ".deb", ".rpm", ".apk", ".jar", ".whl",
        ".egg", ".bin", ".pkg",
        # office and print documents
        ".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods",
        ".odp", ".rtf", ".csv", ".tsv", ".epub", ".mobi",
        # feeds and XML data (sitemaps are read by their own parser)
        ".rss", ".atom", ".xml", ".xsl", ".xslt", ".rdf", ".ics", ".vcf",
    }
)  # fmt: skip

#: Extensions of the documents the crawl converts (PDF and Word): not followed only
#: when ``follow_rejection(url, documents=False)`` (the ``parse_documents`` option).
DOCUMENT_EXTENSIONS: frozenset[str] = frozenset({".pdf", ".docx"})

#: Extensions that mean a feed rather than a generic asset.
FEED_EXTENSIONS: frozenset[str] = frozenset({".rss", ".atom"})
#: Last path segments that are feeds (WordPress ``/feed/``, ``/blog/rss`` ...).
FEED_SEGMENTS: frozenset[str] = frozenset(
    {"feed", "rss", "atom", "feed.xml", "rss.xml", "atom.xml", "index.xml", "feed.json"}
)
#: Query parameter names that turn a page URL into a feed (WordPress ``?feed=rss2``).
FEED_QUERY_PARAMS: frozenset[str] = frozenset({"feed"})
#: First path segments of machine APIs (``/api/...``, ``/api/v1/...``).
API_PREFIX_SEGMENTS: frozenset[str] = frozenset({"api"})
#: A file under ``/api/`` with one of these extensions is a page (generated API
#: reference: Javadoc's ``api/java.base/module-summary.html``), not a machine API.
PAGE_EXTENSIONS: frozenset[str] = frozenset({".html", ".htm", ".xhtml", ".shtml"})
#: Path segments anywhere in the path that mean a machine API.
API_SEGMENTS: frozenset[str] = frozenset({"graphql", "wp-json", "xmlrpc.php", "admin-ajax.php"})

MAX_FOLLOW_URL_LENGTH = 2000

_NON_WEB_SCHEME_REASON = "scheme:"


def follow_rejection(url: str, documents: bool = False) -> str | None:
    """Why a link must not be followed, or None when it may be a page.

    Reasons are short machine-style strings: ``"scheme:mailto"`` (anything
    but http/https, ``"scheme:none"`` for a relative URL), ``"too-long"``
    (over :data:`MAX_FOLLOW_URL_LENGTH` characters), ``"feed"``,
    ``"api-path"``, ``"asset:.png"`` (an extension in :data:`NON_PAGE_EXTENSIONS`)
    and ``"document:.pdf"`` (one of :data:`DOCUMENT_EXTENSIONS`, when the crawl does
    not convert documents). With ``documents`` (``parse_documents``) a link to a PDF
    or DOCX file may be a page. Expects an absolute URL, already resolved.
    """
    text = url.strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        return "unparsable"
    scheme = parts.scheme.lower()
    if scheme not in _WEB_SCHEMES:
        return _NON_WEB_SCHEME_REASON + (scheme or "none")
    if len(text) > MAX_FOLLOW_URL_LENGTH:
        return "too-long"
    # Matrix parameters (";jsessionid=...") are not part of the file name.
    segments = [unquote_plus(s.split(";", 1)[0]).lower() for s in parts.path.split("/")]
    named = [s for s in segments if s]
    last = named[-1] if named else ""
    ext = _extension(last)
    query_names = {p.partition("=")[0].lower() for p in parts.query.split("&") if p}
    if last in FEED_SEGMENTS or ext in FEED_EXTENSIONS or query_names & FEED_QUERY_PARAMS:
        return "feed"
    machine_api = named and named[0] in API_PREFIX_SEGMENTS and ext not in PAGE_EXTENSIONS
    if machine_api or any(s in API_SEGMENTS for s in named):
        # "/api/v1/users" is a machine's; "/api/Widget.html" is API reference for people
        return "api-path"
    if ext in DOCUMENT_EXTENSIONS:
        # counted apart from assets: the run chose not to convert documents
        return None if documents else f"document:{ext}"
    if ext in NON_PAGE_EXTENSIONS:
        return f"asset:{ext}"
    return None


def _extension(segment: str) -> str:
    """``".png"`` for ``"logo.png"``; ``""`` when there is no extension."""
    stem, dot, ext = segment.rpartition(".")
    if not dot or not stem or not ext:
        return ""
    return "." + ext
