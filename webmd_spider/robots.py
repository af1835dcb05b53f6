"""robots.txt rules for one website, following RFC 9309 (parsing by Protego).

Pure module: Protego and the standard library, no Scrapy.
"""

from __future__ import annotations

from dataclasses import dataclass

from protego import Protego

#: RFC 9309 §2.5: crawlers MUST parse at least 500 KiB; we parse up to that much.
MAX_ROBOTS_BYTES = 512 * 1024

#: Product token matched against robots.txt user-agent lines (RFC 9309 §2.2.1).
DEFAULT_TOKEN = "webmd"


@dataclass(slots=True)
class RobotsRules:
    """The rules that apply to one website.

    ``policy`` is ``parsed`` (a robots.txt was read), ``allow-all`` (none available,
    RFC 9309 §2.3.1.3) or ``disallow-all`` (unreachable, RFC 9309 §2.3.1.4).
    """

    policy: str
    parser: Protego | None = None
    token: str = DEFAULT_TOKEN
    status: int | None = None

    @classmethod
    def from_response(cls, status: int, body: bytes, token: str = DEFAULT_TOKEN) -> RobotsRules:
        """Rules from the final response to ``/robots.txt`` (after redirects).

        RFC 9309 §2.3.1.1-2: a successful answer is parsed. §2.3.1.3: 4xx ("unavailable")
        means the crawler may access any resource. §2.3.1.4: 5xx ("unreachable") means
        complete disallow.
        """
        if 200 <= status < 300:
            # utf-8-sig: a byte order mark would otherwise hide the first user-agent line.
            text = body[:MAX_ROBOTS_BYTES].decode("utf-8-sig", errors="replace")
            return cls("parsed", Protego.parse(text), token, status)
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
        if self.parser is not None:
            return bool(self.parser.can_fetch(url, self.token))
        return self.policy == "allow-all"

    def sitemaps(self) -> list[str]:
        """The ``Sitemap:`` URLs the file lists (RFC 9309 §2.3.5 allows other records)."""
        return list(self.parser.sitemaps) if self.parser is not None else []

    def crawl_delay(self) -> float | None:
        """The ``Crawl-delay`` for our token, if any (not part of RFC 9309; widely used)."""
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(self.token)
        return float(delay) if delay is not None else None
