"""The survey: one walk over a page's elements that finds, by their tags and
attributes, the chrome candidates (landmarks, chrome names, players, link farms) and
what root selection and rendering read from the attributes of every element.
"""

from __future__ import annotations

from dataclasses import dataclass

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.chrome_names import _chrome_name, _is_heading_anchor, _player_label
from webmd_spider.extract.clean import TAB_LABEL_ATTR
from webmd_spider.extract.stats import Element, TextStats


@dataclass(slots=True)
class Survey:
    """What one walk over a page's elements finds by their tags and attributes."""

    #: `chrome_candidates()` of the page
    candidates: list[Element]
    #: (element, id, class) of every element with an id or a class, in document order
    named: list[tuple[Element, str | None, str | None]]
    #: the elements below the top with role="main", in document order
    role_main: list[Element]
    #: whether some element carries a tab label (`TAB_LABEL_ATTR`, set by clean.py)
    tab_labels: bool
    #: (element, itemprop) of the elements below the top with an itemprop, in document order
    itemprops: list[tuple[Element, str]]


def survey(top: Element, stats: TextStats) -> Survey:
    """`chrome_candidates()` of `top` (`stats` measured on it), and on the same walk
    what root selection and rendering read from the attributes of every element:
    containers by id / class / itemprop, [role=main], whether any tab label is set.

    One walk instead of four: on documentation pages of a few hundred elements each
    walk, with its attribute reads, costs as much as the work it feeds."""
    marked: list[Element] = []
    named: list[tuple[Element, str | None, str | None]] = []
    role_main: list[Element] = []
    tab_labels = False
    itemprops: list[tuple[Element, str]] = []
    tags = v.BOILERPLATE_TAGS
    roles = v.BOILERPLATE_ROLES
    for element in stats.elements:
        # one C call for all the attributes (most elements have none or one), rather
        # than a lookup per name; the HTML parser keeps one value per name
        cls = ident = role = label = None
        for name, value in element.items():
            if name == "class":
                cls = value
            elif name == "id":
                ident = value
            elif name == "role":
                role = value
            elif name == "aria-label":
                label = value
            elif name == "itemprop":
                if element is not top:
                    itemprops.append((element, value))
            elif name == TAB_LABEL_ATTR:
                tab_labels = True
        if cls or ident:
            named.append((element, ident, cls))
        if role == "main" and element is not top:
            role_main.append(element)
        if (
            element.tag in tags
            or (cls and _chrome_name(cls))
            or (ident and _chrome_name(ident) and not _is_heading_anchor(element, ident))
            or (role and role.lower() in roles)
        ):
            marked.append(element)
            continue
        if label and _player_label(label):
            marked.append(element)
    found = dict.fromkeys(marked)
    for element in stats.link_farms:
        found[element] = None  # one already found keeps its place
    found.pop(top, None)
    return Survey(list(found), named, role_main, tab_labels, itemprops)


def chrome_candidates(top: Element, stats: TextStats) -> list[Element]:
    """Elements under `top` that some chrome rule might remove: landmark tags and
    roles, chrome-classed ids / classes, and link farms (unique, document order
    except link farms last)."""
    return survey(top, stats).candidates
