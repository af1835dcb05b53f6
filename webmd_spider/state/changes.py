"""Change detection for incremental recrawls: what a stored page state means for a new
answer. Pure module (standard library, the state record and the extractor's version).

The Scrapy glue (``spiders/incremental_state.py``, the conditional-request downloader
middleware) asks these functions; the state itself lives in ``state.store``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from webmd_spider.extract import EXTRACTOR_VERSION
from webmd_spider.state.store import PageState

#: Values of the ``change`` column.
NEW, CHANGED, UNCHANGED, REMOVED = "new", "changed", "unchanged", "removed"
#: Values of the ``change_evidence`` column besides "sitemap-lastmod"
#: (``spiders/lastmod_gate.py``): a 304 to our conditional request, or the Markdown's
#: hash compared with the stored one.
NOT_MODIFIED_EVIDENCE, CONTENT_HASH = "not-modified", "content-hash"
#: Statuses that mean a page is gone for good (RFC 9110 §15.5.5 404, §15.5.11 410).
GONE_STATUSES = frozenset({404, 410})


def settings_fingerprint(extraction: Mapping[str, Any]) -> str:
    """A short fingerprint of everything that shapes a page's Markdown: the extraction
    options given and the extractor's version. Equal fingerprints mean a stored content
    hash can be compared with a new one; different ones mean every page is converted
    again."""
    payload = json.dumps(
        {"extractor": EXTRACTOR_VERSION, **extraction}, sort_keys=True, default=str
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def conditional_headers(state: PageState | None) -> dict[str, str]:
    """``If-None-Match`` / ``If-Modified-Since`` for a stored page (RFC 9110 §13.1.2,
    §13.1.3); both when both validators are known (a server uses the ETag and ignores
    the date when it has one). Empty when nothing is stored."""
    if state is None:
        return {}
    headers: dict[str, str] = {}
    if state.etag:
        headers["If-None-Match"] = state.etag
    if state.last_modified:
        headers["If-Modified-Since"] = state.last_modified
    return headers


def change_of(stored: PageState | None, content_hash: str) -> str:
    """``new`` (never stored), ``unchanged`` (same Markdown hash) or ``changed``."""
    if stored is None:
        return NEW
    return UNCHANGED if stored.content_hash == content_hash else CHANGED


def is_gone(status: int) -> bool:
    """Whether an answer removes a known page from the state (a tombstone row)."""
    return status in GONE_STATUSES
