"""Which site a link leads to: the host of a link's URL (none for in-page, script
and mail links), whether a host belongs to a site's hosts, and a site key as a host.
"""

from __future__ import annotations

import re
from functools import lru_cache

_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")


@lru_cache(maxsize=8192)
def _link_host(href: str) -> str | None:
    """The host of a link, lower-cased without "www." ("" for a relative link, which
    stays on the page's site); None for an in-page, script or mail link."""
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    scheme = _SCHEME.match(href)
    if scheme is not None:
        if scheme.group(1).lower() not in ("http", "https"):
            return None  # mailto:, javascript:, tel:
        href = href[scheme.end() :]
    elif not href.startswith("//"):
        return ""  # relative
    host = href.lstrip("/").split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    host = host.rsplit("@", 1)[-1].split(":", 1)[0].lower()
    return host.removeprefix("www.")


def _same_site(host: str, hosts: frozenset[str]) -> bool:
    """`host` is one of `hosts`, or a subdomain or parent domain of one."""
    if host in hosts:
        return True
    return any(host.endswith("." + h) or h.endswith("." + host) for h in hosts)


def _host_of_site(site: str) -> str:
    """A ``urls.site_key`` ("example.com:8080") as `_link_host` gives hosts."""
    return site.lower().rsplit(":", 1)[0] if site.count(":") == 1 else site.lower()
