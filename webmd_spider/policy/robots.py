"""robots.txt rules for one website, following RFC 9309.

Pure module: the standard library only, no Scrapy.

Protego (Scrapy's default parser) deviates from RFC 9309 in ways that matter to us: an
unknown line between two ``User-agent`` lines ends its group, and ``User-agent: web``
matches the product token ``webmd``. So the file is parsed here:

* groups (§2.1, §2.2.1): consecutive ``user-agent`` lines share one group and the rules
  after them belong to it; other records (``sitemap``, ``crawl-delay``, unknown lines,
  blank lines) never end a group; a ``user-agent`` line that follows a rule starts a new
  one. Rules before any ``user-agent`` line belong to no group.
* user-agent matching (§2.2.1): the line's value up to its first character outside
  ``a-zA-Z_-`` (so ``webmd/1.0`` is ``webmd``) must equal our product token,
  case-insensitively. Every matching group is combined into one; the ``*`` groups apply
  only when no group names us.
* path matching (§2.2.2, §2.2.3): the rule whose pattern has the most octets wins; on a
  tie ``Allow`` wins; no matching rule means allowed; ``*`` matches any run of
  characters, a trailing ``$`` anchors the end; ``/robots.txt`` is always allowed.
  Pattern and path are compared in one canonical percent-encoding (see ``_canonical``).
* file syntax (§2.2, §2.5): a byte order mark is skipped; CR, LF and CRLF end lines;
  ``#`` starts a comment; a line without ``:`` is ignored; an empty ``Disallow:`` or
  ``Allow:`` is no rule; at least 500 KiB is parsed.
* other records (§2.2.4): ``Sitemap:`` values are kept as written, in any group;
  :func:`sitemap_url` turns one into an absolute http(s) URL (or refuses it).
  ``Crawl-delay`` (not in the RFC, widely used) is read per group: a number of seconds,
  infinity included (``inf``, ``1e999``: the politest reading of "never"); negative,
  NaN and non-numeric values are ignored.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

#: RFC 9309 §2.5: crawlers MUST parse at least 500 KiB; we parse up to that much.
MAX_ROBOTS_BYTES = 512 * 1024

#: Product token matched against robots.txt user-agent lines (RFC 9309 §2.2.1).
DEFAULT_TOKEN = "webmd"

# Keys are matched case-insensitively. Besides the RFC's names, the frequent misspellings
# that Google's reference parser (written by the RFC's authors) accepts are read too.
_USER_AGENT_KEYS = frozenset({"user-agent", "useragent", "user agent"})
_ALLOW_KEYS = frozenset({"allow"})
_DISALLOW_KEYS = frozenset({"disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"})
_SITEMAP_KEYS = frozenset({"sitemap", "site-map"})
_CRAWL_DELAY_KEYS = frozenset({"crawl-delay", "crawl delay", "crawldelay"})

_LINE_END = re.compile(r"\r\n|\r|\n")

#: The matchable part of a user-agent value (§2.2.1: a product token is ``a-zA-Z_-``).
_PRODUCT_TOKEN = re.compile(r"[A-Za-z_-]*")

# Canonical form of a path or pattern (RFC 9309 §2.2.2, RFC 3986 §2):
# * an escape of an unreserved character (``%62`` for ``b``) is decoded;
# * other escapes stay, with upper-case hex digits (``%2f`` -> ``%2F``, ``%e3`` -> ``%E3``);
# * characters outside ASCII are UTF-8 encoded (``ツ`` -> ``%E3%83%84``), as are spaces,
#   control characters, characters that are not allowed in a URI, and a ``%`` that starts
#   no escape;
# * ``*`` and ``$`` are escaped (``%2A``, ``%24``): in a pattern they are special, so a
#   pattern names them literally as ``%2A``/``%24`` (§2.2.3), and a URL's literal ``*``
#   or ``$`` must compare equal to that;
# * in the query (after the first ``?``) the escapes of ``:``, ``/``, ``?`` and ``@`` are
#   decoded: the query allows them literally and gives them no meaning, so
#   ``?u=https%3A%2F%2Ffoo.bar`` and ``?u=https://foo.bar`` are the same (§2.2.2 table).
#   Other reserved characters (``&``, ``=``, ``+`` …) keep their escapes, which differ in
#   meaning from the plain character.
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_QUERY_DECODED = _UNRESERVED | frozenset(":/?@")
_TO_CANONICALISE = re.compile(r"%[0-9A-Fa-f]{2}|[^A-Za-z0-9\-._~:/?#\[\]@!&'()+,;=]", re.DOTALL)
_CANONICAL = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!&'()+,;=]*").fullmatch

#: Scheme and authority of an absolute URL (or ``//host`` of a scheme-relative one).
_AUTHORITY = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.\-]*:)?//[^/?#]*")


def _escape(match: re.Match[str], decoded: frozenset[str]) -> str:
    text = match.group()
    if len(text) == 3 and text[0] == "%":
        char = chr(int(text[1:], 16))
        return char if char in decoded else text.upper()
    return "".join(f"%{b:02X}" for b in text.encode("utf-8", "surrogatepass"))


def _canonical_part(text: str, decoded: frozenset[str]) -> str:
    if _CANONICAL(text):
        return text
    return _TO_CANONICALISE.sub(lambda m: _escape(m, decoded), text)


def _canonical(text: str, in_query: bool = False) -> tuple[str, bool]:
    """``text`` in canonical percent-encoding, and whether its end is in the query.

    ``in_query`` says the text continues a query (a pattern is canonicalised piece by
    piece between its ``*`` wildcards).
    """
    if in_query:
        return _canonical_part(text, _QUERY_DECODED), True
    path, question, query = text.partition("?")
    path = _canonical_part(path, _UNRESERVED)
    if not question:
        return path, False
    return f"{path}?{_canonical_part(query, _QUERY_DECODED)}", True


def _url_path(url: str) -> str:
    """The path and query of ``url`` (§2.2.2 matches rules against them), canonical."""
    url = url.partition("#")[0]
    authority = _AUTHORITY.match(url)
    if authority:
        url = url[authority.end() :]
    if not url.startswith("/"):
        url = "/" + url
    return _canonical(url)[0]


def _product_token(value: str) -> str:
    match = _PRODUCT_TOKEN.match(value.strip())
    return match.group().lower() if match else ""


@dataclass(frozen=True, slots=True)
class _Rule:
    """One ``Allow``/``Disallow`` line, compiled for matching."""

    allow: bool
    #: Canonical pieces between ``*`` wildcards.
    pieces: tuple[str, ...]
    #: The pattern ended with ``$``: the path must end where the pattern does.
    anchored: bool
    #: The pattern's length in octets, canonical (§2.2.2: most octets wins).
    priority: int

    @classmethod
    def compile(cls, allow: bool, pattern: str) -> _Rule:
        anchored = pattern.endswith("$")
        if anchored:
            pattern = pattern[:-1]
        pieces: list[str] = []
        in_query = False
        for raw in pattern.split("*"):
            piece, in_query = _canonical(raw, in_query)
            pieces.append(piece)
        priority = sum(map(len, pieces)) + len(pieces) - 1 + anchored
        # "a**b" is "a*b": drop the empty pieces between adjacent wildcards.
        if len(pieces) > 2:
            pieces = [pieces[0], *(p for p in pieces[1:-1] if p), pieces[-1]]
        return cls(allow, tuple(pieces), anchored, priority)

    @property
    def plain(self) -> bool:
        """A pattern without wildcard or anchor: it matches as a prefix only."""
        return len(self.pieces) == 1 and not self.anchored

    def matches(self, path: str) -> bool:
        pieces = self.pieces
        first = pieces[0]
        if not path.startswith(first):
            return False
        if len(pieces) == 1:
            return not self.anchored or len(path) == len(first)
        # Each middle piece is best taken at its leftmost occurrence: that leaves the
        # most room for the rest. Linear in the path for every piece, no backtracking.
        pos = len(first)
        for piece in pieces[1:-1]:
            found = path.find(piece, pos)
            if found < 0:
                return False
            pos = found + len(piece)
        last = pieces[-1]
        if self.anchored:
            return path.endswith(last) and len(path) - len(last) >= pos
        return path.find(last, pos) >= 0


@dataclass(slots=True)
class _Group:
    """The rules that apply to one product token (every group naming it, combined)."""

    rules: tuple[_Rule, ...] = ()
    crawl_delay: float | None = None
    _prefixes: tuple[str, ...] = ()
    _special: tuple[_Rule, ...] = ()

    def __post_init__(self) -> None:
        # Most specific first; on equal length Allow first (§2.2.2: Allow SHOULD win).
        self.rules = tuple(sorted(set(self.rules), key=lambda r: (-r.priority, not r.allow)))
        self._prefixes = tuple(r.pieces[0] for r in self.rules if r.plain)
        self._special = tuple(r for r in self.rules if not r.plain)

    def allowed(self, path: str) -> bool:
        # Plain patterns only match as prefixes: one startswith rules them all out.
        rules = self.rules if path.startswith(self._prefixes) else self._special
        for rule in rules:
            if rule.matches(path):
                return rule.allow
        return True


@dataclass(slots=True)
class _RawGroup:
    agents: list[str] = field(default_factory=list)
    rules: list[_Rule] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)


@dataclass(slots=True)
class RobotsFile:
    """A parsed robots.txt: its groups and sitemaps, with the group for a token on demand."""

    groups: list[_RawGroup] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    _selected: dict[str, _Group] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> RobotsFile:
        """Parse robots.txt ``text`` (RFC 9309 §2.1-2.2). Never raises."""
        parsed = cls()
        text = text.removeprefix("\ufeff")
        group: _RawGroup | None = None
        in_agents = False  # the previous record was a user-agent line
        for raw_line in _LINE_END.split(text):
            line = raw_line.partition("#")[0]
            key, colon, value = line.partition(":")
            if not colon:
                continue  # blank, comment-only, or no key-value pair: ignored
            key = " ".join(key.split()).lower()
            value = value.strip()
            if key in _USER_AGENT_KEYS:
                if group is None or not in_agents:
                    group = _RawGroup()
                    parsed.groups.append(group)
                    in_agents = True
                group.agents.append(value)
            elif key in _SITEMAP_KEYS:
                if value:
                    parsed.sitemaps.append(value)
            elif group is None:
                continue  # a rule before any user-agent line applies to nobody
            elif key in _ALLOW_KEYS or key in _DISALLOW_KEYS:
                in_agents = False
                if value:
                    group.rules.append(_Rule.compile(key in _ALLOW_KEYS, value))
            elif key in _CRAWL_DELAY_KEYS:
                try:
                    delay = float(value)
                except ValueError:
                    continue
                # "inf" and "1e999" (which float() reads as infinity) ask for more than
                # any max_crawl_delay: kept, so the caller treats them as too large.
                if not math.isnan(delay) and delay >= 0:
                    group.delays.append(delay)
        return parsed

    def group_for(self, token: str) -> _Group:
        """The combined rules of every group naming ``token``, else of the ``*`` groups."""
        token = _product_token(token)
        selected = self._selected.get(token)
        if selected is None:
            selected = self._select(token)
            self._selected[token] = selected
        return selected

    def _select(self, token: str) -> _Group:
        ours = [g for g in self.groups if token and token in map(_product_token, g.agents)]
        if not ours:
            # `*` alone (a comment is already gone): "*bot" is not the global agent.
            ours = [g for g in self.groups if any(a.split()[:1] == ["*"] for a in g.agents)]
        rules = [rule for g in ours for rule in g.rules]
        delays = [delay for g in ours for delay in g.delays]
        # Several groups may each give one: the longest is the politest reading.
        return _Group(tuple(rules), max(delays) if delays else None)


@dataclass(slots=True)
class RobotsRules:
    """The rules that apply to one website.

    ``policy`` is ``parsed`` (a robots.txt was read), ``allow-all`` (none available,
    RFC 9309 §2.3.1.3) or ``disallow-all`` (unreachable, RFC 9309 §2.3.1.4).
    """

    policy: str
    parser: RobotsFile | None = None
    token: str = DEFAULT_TOKEN
    status: int | None = None

    @classmethod
    def parse(cls, text: str, token: str = DEFAULT_TOKEN) -> RobotsRules:
        """Rules from robots.txt ``text`` (as if it had been served with HTTP 200)."""
        return cls("parsed", RobotsFile.parse(text), token, 200)

    @classmethod
    def from_response(cls, status: int, body: bytes, token: str = DEFAULT_TOKEN) -> RobotsRules:
        """Rules from the final response to ``/robots.txt`` (after redirects).

        RFC 9309 §2.3.1.1-2: a successful answer is parsed. §2.3.1.3: 4xx ("unavailable")
        means the crawler may access any resource. §2.3.1.4: 5xx ("unreachable") means
        complete disallow.
        """
        if 200 <= status < 300:
            if len(body) > MAX_ROBOTS_BYTES:
                # §2.5: the rest is not read. A line cut in two is dropped: "Disallow: /"
                # cut from "Disallow: /private" would shut the whole site.
                body = body[:MAX_ROBOTS_BYTES]
                body = body[: max(body.rfind(b"\n"), body.rfind(b"\r")) + 1]
            # utf-8-sig: a byte order mark would otherwise hide the first user-agent line.
            text = body.decode("utf-8-sig", errors="replace")
            return cls("parsed", RobotsFile.parse(text), token, status)
        if status == 429:
            # Too Many Requests: the server is refusing us, not saying "no file";
            # treated like a 5xx (complete disallow, asked again later), as Google does.
            return cls("disallow-all", None, token, status)
        if 300 <= status < 500:
            # §2.3.1.2: a redirect chain that does not end in a file (too many hops, no
            # Location) MAY be treated as unavailable, like a 4xx.
            return cls("allow-all", None, token, status)
        return cls("disallow-all", None, token, status)

    @classmethod
    def unreachable(cls, token: str = DEFAULT_TOKEN) -> RobotsRules:
        """Rules when robots.txt could not be fetched at all (RFC 9309 §2.3.1.4)."""
        return cls("disallow-all", None, token, None)

    @classmethod
    def allow_all(cls, token: str = DEFAULT_TOKEN) -> RobotsRules:
        """Rules when the user turned robots off."""
        return cls("allow-all", None, token, None)

    def allowed(self, url: str) -> bool:
        """Whether our product token may fetch ``url``."""
        if self.parser is None:
            return self.policy == "allow-all"
        group = self.parser.group_for(self.token)
        if not group.rules:
            return True
        path = _url_path(url)
        if path.partition("?")[0] == "/robots.txt":
            return True  # §2.2.2: implicitly allowed
        return group.allowed(path)

    def sitemaps(self) -> list[str]:
        """Every ``Sitemap:`` value in the file, in any group, as written (RFC 9309
        §2.2.4 leaves the record to sitemaps.org); :func:`sitemap_url` makes one usable."""
        return list(self.parser.sitemaps) if self.parser is not None else []

    def crawl_delay(self) -> float | None:
        """The ``Crawl-delay`` of our group, else of ``*`` (not in RFC 9309; widely used).

        May be ``math.inf`` (``Crawl-delay: inf`` or ``1e999``): larger than any maximum.
        """
        if self.parser is None:
            return None
        return self.parser.group_for(self.token).crawl_delay


#: Longest ``Sitemap:`` value used (longer ones are junk, or a trap).
MAX_SITEMAP_URL_CHARS = 2048

_WEB_SCHEMES = frozenset({"http", "https"})


def sitemap_url(value: str, robots_url: str) -> str | None:
    """The absolute http(s) URL a robots.txt ``Sitemap:`` value names, or None.

    sitemaps.org asks for a complete URL, and RFC 9309 §2.2.4 leaves the record to it;
    files in the wild also say ``Sitemap: /sitemap.xml``, ``sitemap.xml`` or
    ``//host/sitemap.xml``, and a forgiving crawler resolves those against the URL of
    the robots.txt they came from (RFC 3986 §5). What stays unusable gives None: a
    value with whitespace or control characters (prose, ``not a url``), a scheme other
    than http(s) (``javascript:``, ``ftp:``), no host, an unparsable authority
    (``http://[::1/x.xml``, a port out of range), a value that resolves to the
    robots.txt itself (``http://``), or more than :data:`MAX_SITEMAP_URL_CHARS`
    characters. Never raises.
    """
    text = value.strip()
    if not text or len(text) > MAX_SITEMAP_URL_CHARS:
        return None
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text):
        return None
    try:
        url = urljoin(robots_url, text)
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises ValueError for a port that is not a number
    except ValueError:
        return None
    if parts.scheme.lower() not in _WEB_SCHEMES or not parts.hostname:
        return None
    if url.partition("#")[0] == robots_url:
        return None  # "http://", "#top": resolves to the robots.txt itself
    return url
