"""Where an element stands in the tree: its depth below a root, its ancestors below
a root, and the element sibling before it.
"""

from __future__ import annotations

from lxml import etree

from webmd_spider.extract.stats import Element


def _ancestors_below(element: Element, root: Element) -> list[Element]:
    """`element`'s ancestors below `root` (all of them when it is not under `root`)."""
    found = []
    for ancestor in element.iterancestors():
        if ancestor is root:
            break
        found.append(ancestor)
    return found


def _element_before(node: Element) -> Element | None:
    """The element sibling before `node`, skipping comments and processing instructions."""
    return next(node.itersiblings(etree.Element, preceding=True), None)


def _depth_below(element: Element, root: Element) -> int:
    """How many levels `element` is below `root`; 0 when it is not under it."""
    for depth, ancestor in enumerate(element.iterancestors(), start=1):
        if ancestor is root:
            return depth
    return 0
