"""Headings left without their section: once blocks are cut out of a content root, a
heading right before the place of a removed block whose section (up to the next
heading of its level or higher) holds nothing any more goes too. The title of a
removed list ("See also", "Related posts" above a removed link list) is no content
alone.
"""

from __future__ import annotations

import re

from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.stats import Element
from webmd_spider.extract.tree_position import _element_before

_SPACES = re.compile(r"\s+")


def remove_orphan_headings(
    root: Element,
    scars: list[tuple[Element | None, Element]],
    protected: set[Element],
    touched: list[Element],
    audit: LossAudit | None = None,
) -> None:
    """Remove each heading of `root` (not of `protected`) that the removal of a block
    left without its section. `scars` are the (previous sibling, parent) of every
    block with text removed; the parent of each heading removed is added to `touched`
    (and the heading noted in `audit`, rule "orphan-heading")."""
    seen: set[Element] = set()
    for previous, parent in scars:
        heading = _heading_before(root, previous, parent)
        if heading is None or heading in seen or heading in protected:
            continue
        seen.add(heading)
        if _section_is_empty(root, heading):
            parent = heading.getparent()
            if parent is not None:
                touched.append(parent)
            if audit is not None:
                audit.note(heading, "orphan-heading")
            heading.drop_tree()


def _heading_before(root: Element, previous: Element | None, parent: Element) -> Element | None:
    """The heading right before the place of a removed block (`previous` its
    previous sibling then, `parent` its parent), past empty elements and up out of
    wrappers it opened; None when some text comes first."""
    node: Element | None = previous
    if node is not None and node.getparent() is None:
        node = None  # removed since: start from the parent
    if node is None:
        node = parent
        if node is root or node.getparent() is None:
            return None
        node = _previous_element(node, root)
    for _ in range(v.ORPHAN_MAX_STEPS):
        if node is None:
            return None
        if node.tag in v.HEADING_TAGS:
            return node
        text = _SPACES.sub(" ", node.text_content()).strip()
        if text or _has_media(node):
            # a wrapper holding only a heading: "<div><h3>Related</h3></div>"
            inside = list(node.iter(*v.HEADING_TAGS))
            inner = inside[-1] if inside else None
            if inner is not None and _SPACES.sub(" ", inner.text_content()).strip() == text:
                return inner
            return None
        node = _previous_element(node, root)
    return None


def _section_is_empty(root: Element, heading: Element) -> bool:
    """Nothing but blanks follows `heading` before the next heading of its level or
    higher (a subheading is content) or the end of the root."""
    level = int(heading.tag[1])
    node = heading
    while node is not root:
        if node.tail and node.tail.strip():
            return False
        following = node.getnext()
        while following is not None and not isinstance(following.tag, str):
            if following.tail and following.tail.strip():
                return False
            following = following.getnext()
        if following is None:
            parent = node.getparent()
            if parent is None:
                return True
            node = parent
            continue
        found = _first_content(following)
        if found is not None:
            return found.tag in v.HEADING_TAGS and int(found.tag[1]) <= level
        node = following
    return True


def _previous_element(node: Element, root: Element) -> Element | None:
    """The element before `node` in its parent, or before the parent when it opens it
    (up to `root`, exclusive)."""
    while node is not root:
        previous = _element_before(node)
        if previous is not None:
            return previous
        parent = node.getparent()
        if parent is None or parent is root:
            return None
        node = parent
    return None


def _has_media(element: Element) -> bool:
    """An image with alt text, a table, a video... (`ORPHAN_CONTENT_TAGS`) in `element`."""
    return any(_is_media(node) for node in element.iter(*v.ORPHAN_CONTENT_TAGS))


def _is_media(node: Element) -> bool:
    """`node` (of `ORPHAN_CONTENT_TAGS`) is content: anything but an image without alt."""
    return node.tag != "img" or bool((node.get("alt") or "").strip())


def _first_content(element: Element) -> Element | None:
    """The first heading, or element with text or media, in `element` (document order)."""
    for node in element.iter(etree.Element):
        tag = node.tag
        if tag in v.HEADING_TAGS:
            return node
        if node.text and node.text.strip():
            return node
        if node is not element and node.tail and node.tail.strip():
            return node  # (the element's own tail is after it: the caller's to read)
        if tag in v.ORPHAN_CONTENT_TAGS and _is_media(node):
            return node
    return None
