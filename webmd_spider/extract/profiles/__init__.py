"""Profiles per page type (issue 32): what the main content of a forum thread, a
listing, a collection, a service page or a product page is.

Pure package. The single-root ladder (``root.select_content``) picks one container
and cleans it, which suits articles and documentation; a thread is every post, a
listing every item card, a service page every section of its main area, a product
page its description and specifications. A profile gets the cleaned page before any
content is chosen and returns the content it chooses, or None to leave the page to
the ladder (the profile found none of its structure: the type was wrong, or the page
is an odd one of its type).

Each profile lives in its own module of this package and is registered in
`PROFILES` under the page types it serves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import lxml.html

from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.document import Document, ExtractOptions
from webmd_spider.extract.page_type import PageType
from webmd_spider.extract.periphery import Trimmed
from webmd_spider.extract.root import Selection


@dataclass(slots=True)
class ProfileInput:
    """What a profile reads: the page, cleaned of what is never content (scripts,
    hidden elements, widgets; declarations converted), before a content root is
    chosen; its type; its metadata (``doc``: title, description, JSON-LD types...)."""

    root: lxml.html.HtmlElement
    page_type: PageType
    doc: Document
    site: str
    generator: str
    options: ExtractOptions
    audit: LossAudit | None
    #: the page's JSON-LD ``description`` of its main entity (a product's), if any
    ld_description: str | None = None


@dataclass(slots=True)
class ProfileResult:
    """The content a profile chose: the selection to render, and what its trimming
    took out that the Document keeps as fields (the title line, a deck)."""

    selection: Selection
    trimmed: Trimmed


#: A profile: the content of a page of its type, or None to leave it to the ladder.
Profile = Callable[[ProfileInput], ProfileResult | None]

#: page type -> its profile; a type without one is extracted by the ladder
PROFILES: dict[str, Profile] = {}

#: Types whose profile rewrites what the content is (a grid of cards instead of the
#: ladder's region) and so must be sure of it. On decisive evidence (a schema.org list
#: type the page declares, a type the caller gave: `decisive`) the cards profile takes
#: the page; on the model's word alone it takes the page only when its cards cover the
#: page's content (``cards.covers``): on trafilatura's article corpus the model called
#: 6 of 467 articles listings with 0.82-0.98 confidence, and the cards, unchecked, gave
#: their site's menus and teaser lists (issue 32: no corpus may drop).
DECISIVE_ONLY = frozenset({"listing", "collection"})


def decisive(kind: PageType) -> bool:
    """Whether `kind` rests on more than the model's word: any type but a
    `DECISIVE_ONLY` one; a `DECISIVE_ONLY` type given by the caller or by a rule (its
    first evidence is not ``model:...`` / ``unsure:...``), or the model's call backed by
    the page's own declaration of a list of items (``json-ld:ItemList``)."""
    if kind.name not in DECISIVE_ONLY:
        return True
    first = kind.evidence[0] if kind.evidence else ""
    if not first.startswith(("model:", "unsure:")):
        return True
    # the model's call backed by the page's own declaration of a list of items
    return any(one.split(":", 1)[-1].lower() in _LIST_TYPES for one in kind.evidence[1:])


def model_said(kind: PageType) -> bool:
    """The model itself called the page `kind`'s type (first evidence ``model:0.73``),
    rather than the type step's fallback for a page of cards the model was unsure of
    (``model:forum:0.36``: its best guess was another type, below the confidence a type
    needs). Read beside `decisive`: the evidence strings are ``page_type.decide``'s."""
    first = kind.evidence[0] if kind.evidence else ""
    return first.startswith("model:") and first.count(":") == 1


#: schema.org types by which a page declares itself a list of items
_LIST_TYPES = frozenset({"itemlist", "collectionpage", "offercatalog", "searchresultspage"})


# Registered last: each profile module imports ProfileInput / ProfileResult (and the
# cards profile `decisive` and `model_said`) from here.
from webmd_spider.extract.profiles.cards import cards_profile  # noqa: E402

PROFILES["listing"] = cards_profile
PROFILES["collection"] = cards_profile
from webmd_spider.extract.profiles.forum import forum_profile  # noqa: E402

PROFILES["forum"] = forum_profile
from webmd_spider.extract.profiles.product import product_profile  # noqa: E402

PROFILES["product"] = product_profile
