"""The service profile (issue 32): a service page's main content is every section of
its main area, in order (hero, features, testimonials, pricing, FAQ).

Pure module. The single-root ladder picks the section with the most prose, or the main
area and then trims its feature cards and link-led sections as teasers and rails.
This profile takes the page's main area (its one ``<main>`` or ``[role=main]``; a
page without one is left to the ladder) and keeps each of its sections whole: the
children of the innermost box that still holds the whole area (a chain of wrappers is
gone through), leaving out the site's landmarks (banner, navigation, footer,
sidebars). What is inside a section (a cookie notice, a share bar, a newsletter prompt) is judged as
the ladder judges it. A section of links (teasers to other pages) or of form fields
is judged as the ladder judges it too, and a closed ``<dialog>`` (a modal form no one
sees until a button opens it) goes.

Not registered in `PROFILES` (2026-12-06): on WCXB dev's service pages, types given,
it scores 0.804 against the ladder's 0.805, the hold-out (odd) half 0.791 against
0.795. Keeping only each section's cards (features, testimonials) whole and leaving
short sections (calls to action) to the ladder gave 0.806 and odd 0.794: no better
than the ladder on the half its rules were not read from either.
"""

from __future__ import annotations

from webmd_spider.extract.profiles import ProfileInput, ProfileResult
from webmd_spider.extract.profiles.region import Page, clean_region, measure_page
from webmd_spider.extract.stats import CHARS, Element

#: A child holding this share of its box's characters is a wrapper, not a section.
WRAPPER_SHARE = 0.9
#: The main area holds at least this share of the page's characters (a ``<main>``
#: around a search box only is not the page's main area).
MAIN_MIN_SHARE = 0.3
#: A page's landmarks: never a section of its main area.
_LANDMARK_TAGS = frozenset({"header", "footer", "nav", "aside", "form"})
_LANDMARK_ROLES = frozenset({"banner", "navigation", "contentinfo", "complementary", "search"})
_HEADINGS = ("h2", "h3", "h4", "h5", "h6")
#: A section with this share of its characters in links is a grid of teasers.
LINK_SHARE_MAX = 0.5
#: A form's fields: a section holding one is a form (a contact form, a sign-up).
_FIELDS = ("input", "select", "textarea")
#: At least this many sections (one section is what the ladder finds by itself).
MIN_SECTIONS = 2


def _landmark(element: Element) -> bool:
    """A landmark of the page by its tag or role (banner, navigation, footer...)."""
    if element.tag in _LANDMARK_TAGS:
        return True
    role = element.get("role")
    return role is not None and role.lower() in _LANDMARK_ROLES


def main_area(page: Page) -> Element | None:
    """The page's main area: its one ``<main>`` / ``[role=main]`` holding
    `MAIN_MIN_SHARE` of its characters; None without one (the page's body holds its
    banners, menus and footers beside the sections, with nothing to tell them apart
    but the chrome rules the ladder applies)."""
    mains = list(dict.fromkeys([*page.body.iter("main"), *page.found.role_main]))
    if len(mains) == 1:
        total = page.stats.chars(page.body)
        if page.stats.chars(mains[0]) >= MAIN_MIN_SHARE * total:
            return mains[0]
    return None


def sections(page: Page, area: Element) -> list[Element]:
    """The sections of `area` in order: the children with text of the innermost box
    that holds it whole (through wrappers), the page's landmarks left out."""
    of = page.stats.of
    box = area
    while True:
        children = [c for c in box if isinstance(c.tag, str) and c in of and of[c][CHARS]]
        here = of[box][CHARS] if box in of else 0
        inner = [c for c in children if not _landmark(c)]
        if len(inner) == 1 and of[inner[0]][CHARS] >= WRAPPER_SHARE * here:
            box = inner[0]
            continue
        return inner


def service_profile(inp: ProfileInput) -> ProfileResult | None:
    """Every section of the page's main area, in order (see the module docstring);
    None when the area has fewer than `MIN_SECTIONS` sections (the ladder takes it)."""
    page = measure_page(inp)
    area = main_area(page)
    if area is None:
        return None
    parts = sections(page, area)
    if len(parts) < MIN_SECTIONS:
        return None
    # a closed dialog (a "Talk to an expert" form's modal) is not shown until a button
    # opens it: kept whole with its section, its form's labels and options would be text
    closed = [d for d in area.iter("dialog") if d.get("open") is None]
    for dialog in closed:
        if inp.audit is not None:
            inp.audit.note(dialog, "closed-dialog")
        dialog.drop_tree()
    # a section of prose is kept whole, and its headed blocks (feature cards: a linked
    # title and a blurb) with it: they are its content, not a "more stories" stream. A
    # section of links (a grid of teasers to other pages) or of form fields (a contact
    # form) is judged as the ladder judges it.
    prose = [part for part in parts if _prose_section(page, part)]
    headed = [h for part in prose for h in part.iter(*_HEADINGS)]
    return clean_region(inp, page, area, "service", keep=[*prose, *headed], rewritten=bool(closed))


def _prose_section(page: Page, part: Element) -> bool:
    """A section that reads as text: under `LINK_SHARE_MAX` of its characters in
    links, and no form field."""
    if page.stats.link_share(part) >= LINK_SHARE_MAX:
        return False
    return next(part.iter(*_FIELDS), None) is None
