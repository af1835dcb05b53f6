"""URL handling for the crawl: canonical forms, website keys, scope and patterns.

Pure module: standard library and w3lib only, no Scrapy.
"""

from __future__ import annotations

from urllib.parse import urlsplit


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
