"""A region a profile chose, cleaned as the ladder cleans its root (issue 32).

Pure module. The profiles of a forum thread and a service page pick their region
themselves (the posts' container, the main area's sections) and then clean it as
``root.select_content`` cleans the root it picks: `boilerplate.remove_boilerplate`
inside it, then `periphery.trim_periphery` around its text, with the profile's units
(posts, sections) kept whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from webmd_spider.extract.boilerplate import remove_boilerplate
from webmd_spider.extract.clean import body_of, visible_chars
from webmd_spider.extract.periphery import trim_periphery
from webmd_spider.extract.profiles import ProfileInput, ProfileResult
from webmd_spider.extract.root import Selection, _page_h1
from webmd_spider.extract.stats import Element, TextStats, measure, remeasure
from webmd_spider.extract.survey import Survey, survey

#: Elements that are a fragment of their container, not a block that stands alone: a
#: table's row, cell or row group, a list's item, a definition list's term. Rendered
#: alone they lose their structure (a row's cells run together) and, serialised, they
#: do not parse back as one element.
_PART_OF = {
    **dict.fromkeys(("tr", "td", "th", "thead", "tbody", "tfoot", "caption"), "table"),
    **dict.fromkeys(("colgroup", "col"), "table"),
    "li": "ul ol menu",
    "dt": "dl",
    "dd": "dl",
    "option": "select",
    "optgroup": "select",
}


def standalone(element: Element) -> Element:
    """`element`, or the container it is a fragment of (see `_PART_OF`): the nearest
    ancestor a region can be (a row's table, an item's list); `element` itself when it
    has no such ancestor."""
    node = element
    while node.tag in _PART_OF:
        containers = _PART_OF[node.tag].split()
        whole = next((up for up in node.iterancestors() if up.tag in containers), None)
        if whole is None:
            return node
        node = whole
    return node


@dataclass(slots=True)
class Page:
    """The numbers of a cleaned page a profile reads to choose its region, measured once."""

    body: Element
    stats: TextStats
    h1: Element | None
    found: Survey
    #: visible characters of the page before any region is chosen (the boilerplate ratio)
    visible: int


def measure_page(inp: ProfileInput) -> Page:
    """`Page` of the profile's input: its body measured, its title heading, its survey."""
    body = body_of(inp.root)
    visible = visible_chars(body)
    stats = measure(body)
    h1 = _page_h1(inp.root, body, stats)
    return Page(body, stats, h1, survey(body, stats), visible)


def clean_region(
    inp: ProfileInput,
    page: Page,
    region: Element,
    method: str,
    keep: Sequence[Element] = (),
    rewritten: bool = False,
) -> ProfileResult:
    """Clean `region` (an element of ``page.body``) in place as the ladder cleans its
    root, never removing an element of `keep` whole (nor its ancestors), and return
    it as the profile's result with `method` as its extraction method. `rewritten`:
    the profile changed the region's tree since the page was measured (its numbers
    are measured again, the region's alone). A region that is a fragment of its
    container (a table's row) is widened to that container (`standalone`)."""
    region = standalone(region)
    if rewritten:
        stats = measure(region)
        candidates = survey(region, stats).candidates
    else:
        stats, candidates = page.stats, page.found.candidates
    touched = remove_boilerplate(region, stats, page.h1, candidates, inp.site, inp.audit, keep=keep)
    cleaned = remeasure(stats, region, touched)
    doc = inp.doc
    trimmed = trim_periphery(
        region,
        page.h1,
        description=doc.description,
        keep_captions=inp.options.keep_captions,
        site=inp.site,
        article_meta=bool(doc.published_at or doc.author),
        stats=cleaned,
        audit=inp.audit,
        keep=keep,
    )
    kept = visible_chars(region)
    ratio = 1.0 - kept / page.visible if page.visible > 0 else 0.0
    selection = Selection(
        root=region,
        method=method,
        boilerplate_ratio=round(min(1.0, max(0.0, ratio)), 3),
        proxies=page.stats.elements,
        tab_labels=page.found.tab_labels,
        h1=page.h1,
        stats=cleaned,
    )
    return ProfileResult(selection, trimmed)


def common_ancestor(first: Element, second: Element) -> Element | None:
    """The lowest element holding both (either may hold the other), None if none."""
    ancestors = {first, *first.iterancestors()}
    for node in (second, *second.iterancestors()):
        if node in ancestors:
            return node
    return None
