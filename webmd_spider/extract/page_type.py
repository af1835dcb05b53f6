"""The page-type step (issue 32): what kind of page this is, before its content is
chosen, so that each type gets the profile that says what its main content is.

Pure module. ``classify_page`` reads the page once it is cleaned of what is never
content (scripts, hidden elements, widgets), with the JSON-LD types the metadata step
found. Types (``PAGE_TYPES``): ``article``, ``forum``, ``product``, ``collection``,
``listing``, ``documentation``, ``service``, ``other``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import lxml.html

PAGE_TYPES = (
    "article",
    "forum",
    "product",
    "collection",
    "listing",
    "documentation",
    "service",
    "other",
)

#: schema.org types that name a page type outright
_LD_TYPES: dict[str, str] = {
    "product": "product",
    "offer": "product",
    "discussionforumposting": "forum",
    "qapage": "forum",
    "itemlist": "listing",
    "collectionpage": "collection",
    "techarticle": "documentation",
    "apireference": "documentation",
    "article": "article",
    "newsarticle": "article",
    "blogposting": "article",
    "service": "service",
}


@dataclass(frozen=True, slots=True)
class PageType:
    """A page's type and the evidence it was read from (short strings)."""

    name: str = "other"
    evidence: tuple[str, ...] = field(default_factory=tuple)


def classify_page(
    body: lxml.html.HtmlElement, *, ld_types: Sequence[str] = (), url: str = ""
) -> PageType:
    """The type of the page whose cleaned ``<body>`` is ``body``; ``ld_types`` are its
    JSON-LD / microdata types. Never raises; ``other`` when nothing speaks for a type."""
    for ld in ld_types:
        name = _LD_TYPES.get(ld.lower())
        if name is not None:
            return PageType(name, (f"json-ld:{ld}",))
    return PageType("other", ())
