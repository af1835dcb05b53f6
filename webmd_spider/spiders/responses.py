"""Small facts the site spider reads off a response, its meta or a URL: content type,
charset, Location, download time, the website's root from its robots.txt answer, the
messages and rows of redirect loops, and the compact key of a content hash."""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import urlsplit

from scrapy.http import Response

from webmd_spider.items import Row, diagnostic_row
from webmd_spider.rows.ledger import SiteState
from webmd_spider.urls import site_key


def content_type_of(response: Response) -> str | None:
    value = response.headers.get(b"Content-Type")
    return value.decode("latin-1") if value else None


def location_of(response: Response) -> str | None:
    """The Location header of a 3xx answer (decoded latin-1), else None."""
    if not 300 <= response.status < 400:
        return None
    value = response.headers.get(b"Location")
    return value.decode("latin-1") if value else None


def charset_of(response: Response) -> str | None:
    ctype = content_type_of(response) or ""
    for part in ctype.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            return value.strip("\"' ")
    return None


def response_ms(meta: dict[str, Any]) -> int | None:
    latency = meta.get("download_latency")
    return round(latency * 1000) if isinstance(latency, int | float) else None


def root_of(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}/"


def robots_root(website: str, response: Response) -> str:
    """The website's root, from the answer to its robots.txt: the root of the last URL
    of the redirect chain that is on the website (``http://a/robots.txt`` redirected to
    ``https://a/robots.txt``: ``https://a/``). RFC 9309 §2.3.1.2 lets a robots.txt
    redirect to another website, whose file then gives this website's rules; the
    website itself, its root and its sitemaps stay on the input's host."""
    chain = [*response.meta.get("redirect_urls", ()), response.url]
    for url in reversed(chain):
        if site_key(url) == website:
            return root_of(url)
    return root_of(chain[0])


def loop_message(meta: dict[str, Any], url: str) -> str:
    """``redirect loop: A -> B -> A`` for the last hop of a redirect loop."""
    return "redirect loop: " + " -> ".join([*meta.get("redirect_urls", []), url])


def thin_loop_row(row: Row) -> Row:
    """The `empty` diagnostic that stands for a thin page refreshing in a loop, with the
    page row's crawl columns."""
    words = row.word_count or 0
    names = ("input", "website", "url", "final_url", "status_code", "content_type", "depth")
    return diagnostic_row(
        "empty",
        f"only {words} word{'s' if words != 1 else ''}: a redirect stub",
        **{name: getattr(row, name) for name in names},
    )


def has_userinfo(url: str) -> bool:
    """``user:password@`` (or ``user@``) before the host: such a link is not followed.
    Credentials found on a page are not ours to send, and Twisted refuses the host."""
    try:
        return "@" in urlsplit(url).netloc
    except ValueError:
        return False


def content_key(content_hash: str | None) -> bytes | None:
    """The first 128 bits of a ``sha256:HEX`` content hash (49 bytes in memory), or
    None for no hash (a 304 whose stored page had none)."""
    if not content_hash:
        return None
    digest = content_hash.rpartition(":")[2][:32]
    try:
        return bytes.fromhex(digest)
    except ValueError:
        return content_hash.encode("utf-8")


#: The target of a Markdown link or image: ``](target)``, up to its closing parenthesis
#: (a target with parentheses inside is cut short, the same way in both copies).
_LINK_TARGET = re.compile(r"\]\([^)\n]*\)")


def text_key(markdown: str | None) -> bytes | None:
    """A page's Markdown with every link target left out, hashed (128 bits), or None
    for no Markdown. ``dir/`` and ``dir/index.html`` (or ``index.htm``, or any two
    URLs of one page) give Markdown that differs only where a link resolves against the
    page's own URL (a table of contents' ``#anchor`` links): the same text key. One
    regular-expression pass and a hash on the Markdown already made, per page row:
    cheaper than any URL rule, and it needs no guess about which URLs a server maps
    to one file. Two pages with the same text and different links are one page to a
    reader (and to a model): the second is a duplicate, its links still followed."""
    if not markdown:
        return None
    stripped = _LINK_TARGET.sub("]()", markdown)
    return b"T" + hashlib.sha256(stripped.encode("utf-8")).digest()[:16]


def remember_content(
    site: SiteState, content_hash: str | None, url: str, markdown: str | None = None
) -> None:
    """A page row is written: its content hash (128 bits, ``content_key``) and its text
    key (``text_key``) are kept with its canonical URL, so that a later copy is a
    ``duplicate:content of URL``. The text key is a different length (17 bytes, never
    equal to a content key) in the same map: one lookup structure per website."""
    for digest in (content_key(content_hash), text_key(markdown)):
        if digest is not None:
            site.content.setdefault(digest, url)
