"""Remove from a parsed page what is never content, in place.

Scripts, styles, embedded media, form controls and small forms, comments,
and everything the page hides (``hidden``, ``aria-hidden="true"``, inline
``display:none`` / ``visibility:hidden``) - except hidden tab panels, which
hold real content (the other languages of a code sample, say): they stay and
carry their tab's visible name in ``TAB_LABEL_ATTR`` for the converter.

Pure lxml, no recursion: safe on any nesting depth.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, cast

import lxml.html
from lxml import etree

from webmd_spider.extract import vocabulary as v

#: Set on a kept tab panel; the value is the tab's visible name (e.g. "Python").
TAB_LABEL_ATTR = "data-webmd-tab"

_SPACES = re.compile(r"\s+")
#: The attributes that can hide an element; their values know their element.
_HIDING_ATTRS = etree.XPath(
    "descendant-or-self::*/@hidden | descendant-or-self::*/@aria-hidden"
    " | descendant-or-self::*/@style"
)


def remove_never_content(root: lxml.html.HtmlElement, *, keep_frames: bool = False) -> None:
    """Strip `root` (a page or any element) of what is never content, in place.

    Tail text of a removed element (the words after it) is kept. Tab panels
    (``role=tabpanel``, ``.tab-pane``, ``[data-tab]``...) are kept even when
    hidden and labelled via `TAB_LABEL_ATTR`. A form holding most of the page
    (ASP.NET) or its ``<h1>`` is unwrapped; other forms go.
    """
    never = v.NEVER_CONTENT_TAGS if keep_frames else v.NEVER_CONTENT_TAGS | v.FRAME_TAGS
    # One walk of the tree gathers what every step below removes (each walk of a page
    # costs as much as a step). An element that an earlier step already dropped along
    # with an ancestor stays in that detached subtree, where acting on it changes nothing.
    nodes: list[Any] = []
    dropped: list[lxml.html.HtmlElement] = []
    controls: list[lxml.html.HtmlElement] = []
    forms: list[lxml.html.HtmlElement] = []
    for node in root.iter(
        etree.Comment, etree.ProcessingInstruction, *never, *v.FORM_CONTROL_TAGS, "form"
    ):
        tag = node.tag
        if node is root:
            continue
        if not isinstance(tag, str):
            nodes.append(node)
        elif tag in never:
            dropped.append(node)
        elif tag == "form":
            forms.append(node)
        else:
            controls.append(node)
    _remove_comments(nodes)
    hidden = [e for e in _hidden_elements(root) if e is not root]
    panels = [e for e in hidden if is_tab_panel(e)]
    labelled = _label_tab_panels(root, panels) if panels else False
    _drop_all(e for e in hidden if not is_tab_panel(e))
    _drop_all(dropped)
    if labelled:
        _drop_all(e for e in root.iter() if e.get("role") == "tablist" and e is not root)
    _remove_controls(controls)
    _remove_small_forms(root, forms)


_VISIBLE_CHARS = etree.XPath("string-length(normalize-space())")  # compiled once


def visible_chars(element: lxml.html.HtmlElement) -> int:
    """Characters of the element's text with whitespace runs counted as one space."""
    return int(cast(float, _VISIBLE_CHARS(element)))


def _drop_all(elements: Iterable[lxml.html.HtmlElement]) -> None:
    """drop_tree every element of an iterable, collected first (keeps their tails)."""
    for element in list(elements):
        if element.getparent() is not None:
            element.drop_tree()


def _remove_comments(nodes: list[Any]) -> None:
    """Comments and processing instructions, keeping the text after them."""
    for node in nodes:
        parent = node.getparent()
        if parent is None:
            continue
        tail = node.tail
        previous = node.getprevious()
        if tail:
            if previous is not None:
                previous.tail = (previous.tail or "") + tail
            else:
                parent.text = (parent.text or "") + tail
        parent.remove(node)


def _hidden_elements(root: lxml.html.HtmlElement) -> list[lxml.html.HtmlElement]:
    """Elements hidden by `hidden`, `aria-hidden="true"` or an inline style, in document order."""
    found: dict[lxml.html.HtmlElement, None] = {}
    values: list[Any] = _HIDING_ATTRS(root)  # type: ignore[assignment]
    for value in values:
        name = value.attrname
        if name == "style":
            compact = value.lower().replace(" ", "")
            if not any(s in compact for s in v.HIDDEN_STYLES) and not _collapsed(compact):
                continue
        elif name == "aria-hidden" and value.strip().lower() != "true":
            continue
        found[value.getparent()] = None
    return list(found)


def _collapsed(style: str) -> bool:
    """A compact inline style that collapses its box to nothing (zero height, overflow clipped)."""
    return (
        v.COLLAPSED_STYLE_ALSO in style
        and v.COLLAPSED_STYLE_UNLESS not in style
        and v.COLLAPSED_STYLE.search(style) is not None
    )


def _classes(element: lxml.html.HtmlElement) -> list[str]:
    return (element.get("class") or "").lower().split()


def is_tab_panel(element: lxml.html.HtmlElement) -> bool:
    """A tab panel: role=tabpanel, a tab-panel class, or a [data-tab]-style attribute."""
    if (element.get("role") or "").lower() in v.TABPANEL_ROLES:
        return True
    if any(c in v.TABPANEL_CLASSES for c in _classes(element)):
        return True
    return any(element.get(a) is not None for a in v.TABPANEL_ATTRS)


def _label_tab_panels(root: lxml.html.HtmlElement, panels: list[lxml.html.HtmlElement]) -> bool:
    """Label every tab panel of a group that hides some of them; True if any was labelled.

    The visible panel of such a group is labelled too, so all tabs read alike.
    """
    groups: list[lxml.html.HtmlElement] = []
    for panel in panels:
        parent = panel.getparent()
        if parent is not None and parent not in groups:
            groups.append(parent)
    everyone = [p for g in groups for p in g if isinstance(p.tag, str) and is_tab_panel(p)]
    controls = _tab_controls(root)
    labelled = False
    for panel in everyone:
        label = _tab_label(root, panel, controls)
        if label:
            panel.set(TAB_LABEL_ATTR, label)
            labelled = True
    return labelled


def _tab_controls(root: lxml.html.HtmlElement) -> dict[str, lxml.html.HtmlElement]:
    """Panel id -> the element that switches to it (aria-controls, data-target, href="#id")."""
    controls: dict[str, lxml.html.HtmlElement] = {}
    for element in root.xpath(
        ".//*[@aria-controls or @data-target or @data-bs-target or @role='tab']"
    ):
        for attr in v.TAB_CONTROL_ATTRS:
            value = (element.get(attr) or "").strip()
            if attr == "href" and not value.startswith("#"):
                continue
            for target in value.split():
                controls.setdefault(target.lstrip("#"), element)
    return controls


def _short_text(element: lxml.html.HtmlElement | None) -> str | None:
    if element is None:
        return None
    text = _SPACES.sub(" ", element.text_content()).strip()
    if not text:
        text = (element.get("aria-label") or element.get("title") or "").strip()
    return text if 0 < len(text) <= v.TAB_LABEL_MAX_CHARS else None


def _tab_label(
    root: lxml.html.HtmlElement,
    panel: lxml.html.HtmlElement,
    controls: dict[str, lxml.html.HtmlElement],
) -> str | None:
    for ref in (panel.get("aria-labelledby") or "").split():
        found = root.xpath(".//*[@id=$i]", i=ref)
        label = _short_text(found[0] if found else None)
        if label:
            return label
    panel_id = (panel.get("id") or "").strip()
    if panel_id:
        label = _short_text(controls.get(panel_id))
        if label:
            return label
        # Bootstrap: <a href="#id" data-toggle="tab">
        links = root.xpath(".//a[@href=$h]", h="#" + panel_id)
        label = _short_text(links[0] if links else None)
        if label:
            return label
    for attr in v.TAB_NAME_ATTRS:
        value = (panel.get(attr) or "").strip()
        if value and not value.isdigit() and len(value) <= v.TAB_LABEL_MAX_CHARS:
            return value
    for cls in _classes(panel):
        match = v.TAB_LANG_CLASS.match(cls)
        if match:
            return match.group(1)
        if cls in v.LANGUAGE_NAMES:
            return cls
    return None


def _remove_controls(controls: list[lxml.html.HtmlElement]) -> None:
    """Form controls go; one inside a heading or <summary> leaves its words behind."""
    for element in controls:
        if element.getparent() is None:
            continue
        parent = element.getparent()
        if parent is not None and parent.tag in v.CONTROL_KEEP_TEXT_PARENTS:
            element.drop_tag()
        else:
            element.drop_tree()


def _remove_small_forms(root: lxml.html.HtmlElement, forms: list[lxml.html.HtmlElement]) -> None:
    """Forms with little text go; one holding much of the page is unwrapped."""
    if not forms:
        return
    body = root.find("body")
    total = visible_chars(body if body is not None else root)
    for form in forms:
        if form.getparent() is None:
            continue
        chars = visible_chars(form)
        keep = (
            chars >= v.FORM_KEEP_CHARS
            or (total > 0 and chars >= v.FORM_KEEP_SHARE * total)
            or any(next(form.iter(t), None) is not None for t in v.FORM_KEEP_IF_CONTAINS)
        )
        if keep:
            form.drop_tag()
        else:
            form.drop_tree()
