"""Remove from a parsed page what is never content, in place.

Scripts, styles, embedded media, form controls and small forms, comments,
and everything the page hides (``hidden``, ``aria-hidden="true"``, inline
``display:none`` / ``visibility:hidden``) - except hidden tab panels, which
hold real content (the other languages of a code sample, say): they stay and
carry their tab's visible name in ``TAB_LABEL_ATTR`` for the converter.

What a browser shows although it looks hidden or inert stays: ``<html>`` and
``<body>`` (hidden only until a script reveals the page), a hidden element holding
most of the page's text (an app root set ``aria-hidden`` while a dialog is open),
``hidden="until-found"`` content and declarative shadow roots
(``<template shadowrootmode>``). A frameset page's ``<noframes>`` markup becomes its body.

Pure lxml, no recursion: safe on any nesting depth.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, cast

import lxml.html
from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.parse import parse_html

#: Set on a kept tab panel; the value is the tab's visible name (e.g. "Python").
TAB_LABEL_ATTR = "data-webmd-tab"

_SPACES = re.compile(r"\s+")
#: The attributes that can hide an element; their values know their element. One search
#: each, not one union "a | b | c": libxml2 merges node sets with a duplicate check that
#: is quadratic in their size (1.7 s for 16,000 inline styles, against 23 ms).
_HIDING_ATTRS = tuple(
    etree.XPath(f"descendant-or-self::*/@{name}") for name in ("hidden", "aria-hidden", "style")
)
#: What a tab panel's label can point at, in document order: elements with an id, and
#: links to a fragment ("#id"). `descendant::` and not `.//`, which is the same node set:
#: libxml2 runs ".//*[p]" as a child step from every node and merges the results with a
#: duplicate check, quadratic in the matches (200 ms for 6,400 ids).
_WITH_ID = etree.XPath("descendant::*[@id]")
_FRAGMENT_LINKS = etree.XPath("descendant::a[starts-with(@href, '#')]")
_TAB_CONTROLS = etree.XPath(
    "descendant::*[@aria-controls or @data-target or @data-bs-target or @role='tab']"
)


def remove_never_content(root: lxml.html.HtmlElement, *, keep_frames: bool = False) -> None:
    """Strip `root` (a page or any element) of what is never content, in place.

    Tail text of a removed element (the words after it) is kept. Tab panels
    (``role=tabpanel``, ``.tab-pane``, ``[data-tab]``...) are kept even when
    hidden and labelled via `TAB_LABEL_ATTR`. A form holding most of the page
    (ASP.NET) or its ``<h1>`` is unwrapped; other forms go. So is a hidden element
    holding most of the page's text, and a declarative shadow root's ``<template>``.
    A frameset page without a body gets one, made of its ``<noframes>`` markup.
    """
    _noframes_to_body(root)
    never = v.NEVER_CONTENT_TAGS if keep_frames else v.NEVER_CONTENT_TAGS | v.FRAME_TAGS
    # One walk of the tree gathers what every step below removes (each walk of a page
    # costs as much as a step). An element that an earlier step already dropped along
    # with an ancestor stays in that detached subtree, where acting on it changes nothing.
    nodes: list[Any] = []
    dropped: list[lxml.html.HtmlElement] = []
    controls: list[lxml.html.HtmlElement] = []
    forms: list[lxml.html.HtmlElement] = []
    shadow_roots: list[lxml.html.HtmlElement] = []
    for node in root.iter(
        etree.Comment, etree.ProcessingInstruction, *never, *v.FORM_CONTROL_TAGS, "form"
    ):
        tag = node.tag
        if node is root:
            continue
        if not isinstance(tag, str):
            nodes.append(node)
        elif tag in never:
            if tag == "template" and _declares_shadow_root(node):
                shadow_roots.append(node)
            else:
                dropped.append(node)
        elif tag == "form":
            forms.append(node)
        else:
            controls.append(node)
    _remove_comments(nodes)
    if shadow_roots:
        _open_shadow_roots(shadow_roots)
    hidden = [e for e in _hidden_elements(root) if e is not root]
    panels = [e for e in hidden if is_tab_panel(e)]
    labelled = _label_tab_panels(root, panels) if panels else False
    # Never-content goes before the hidden elements are weighed, so that a page's text is
    # its words and not its inline scripts (a JSON state blob can outweigh the page). The
    # labels above were read first, from the tabs as they came.
    _drop_all(dropped)
    hiding = [e for e in hidden if not is_tab_panel(e)]
    if hiding:
        wrappers = _page_wrappers(root, hiding)
        _drop_all(e for e in hiding if e not in wrappers)
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
    """Elements hidden by `hidden`, `aria-hidden="true"` or an inline style, each once.

    Never ``<html>`` or ``<body>``, and not ``hidden="until-found"``: see `remove_never_content`.
    Grouped by attribute, not in document order: nothing done with them depends on it.
    """
    found: dict[lxml.html.HtmlElement, None] = {}
    values: list[Any] = []
    for search in _HIDING_ATTRS:
        values.extend(search(root))  # type: ignore[arg-type]
    for value in values:
        name = value.attrname
        if name == "style":
            compact = value.lower().replace(" ", "")
            if not any(s in compact for s in v.HIDDEN_STYLES) and not _collapsed(compact):
                continue
        elif name == "aria-hidden":
            if value.strip().lower() != "true":
                continue
        # HTML 6.1 "The hidden attribute": an enumerated attribute, matched ASCII
        # case-insensitively; "until-found" is the hidden-until-found state (find-in-page
        # and fragment links reveal it), every other value is the hidden state.
        elif value.lower() == v.HIDDEN_UNTIL_FOUND:
            continue
        element = value.getparent()
        # A hidden page is a page hidden until a script shows it ("reveal on load").
        if element.tag in v.NEVER_HIDDEN_TAGS:
            continue
        found[element] = None
    return list(found)


def _page_wrappers(
    root: lxml.html.HtmlElement, hidden: list[lxml.html.HtmlElement]
) -> set[lxml.html.HtmlElement]:
    """The hidden elements that hold most of the page's text: they are the page, not chrome.

    A modal library sets ``aria-hidden`` on the app root while its dialog is open, a
    "reveal on load" page starts as ``display:none``: removing such a wrapper empties the
    page. Menus, dialogs and mobile navs hold less than half of a page and still go.

    Only an element that can hold `HIDDEN_WRAPPER_MIN_CHARS` is measured, and the body only
    when one does. Nested hidden elements would be measured once per level (a page can nest
    hundreds): once the characters measured exceed the body's, one walk counts them all.
    """
    least = v.HIDDEN_WRAPPER_MIN_CHARS
    total = -1
    measured = 0
    wrappers: set[lxml.html.HtmlElement] = set()
    for element in hidden:
        if element.getparent() is None:  # already gone (an <svg aria-hidden> went as media)
            continue
        if len(element) == 0 and len(element.text or "") < least:
            continue  # an icon or a label: too short to count
        chars = visible_chars(element)
        if chars < least:
            continue
        if total < 0:
            total = visible_chars(_body(root))
        measured += chars
        if measured > total:
            return _page_wrappers_by_walk(root, hidden)
        if chars > v.HIDDEN_WRAPPER_SHARE * total:
            wrappers.add(element)
    return wrappers


def _page_wrappers_by_walk(
    root: lxml.html.HtmlElement, hidden: list[lxml.html.HtmlElement]
) -> set[lxml.html.HtmlElement]:
    """`_page_wrappers` in one walk of the body: linear however deep hidden elements nest.

    Counts the characters seen so far at each element's start and end; the difference is
    its text. Each text node is counted with its whitespace normalised, like
    `visible_chars`, though a space between two nodes is not counted.
    """
    wanted = set(hidden)
    starts: dict[lxml.html.HtmlElement, int] = {}
    chars: dict[lxml.html.HtmlElement, int] = {}
    body = _body(root)
    seen = 0
    for event, element in etree.iterwalk(body, events=("start", "end")):
        if event == "start":
            if element in wanted:
                starts[element] = seen
            seen += _normalized_length(element.text)
        else:
            if element in wanted:
                chars[element] = seen - starts[element]
            if element is not body:
                seen += _normalized_length(element.tail)
    least, share = v.HIDDEN_WRAPPER_MIN_CHARS, v.HIDDEN_WRAPPER_SHARE * seen
    return {e for e, n in chars.items() if n >= least and n > share}


def _body(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    body = root.find("body")
    return body if body is not None else root


def _normalized_length(text: str | None) -> int:
    return len(" ".join(text.split())) if text else 0


def _declares_shadow_root(template: lxml.html.HtmlElement) -> bool:
    """A declarative shadow root (HTML 4.12.3 "The template element", ``shadowrootmode``):
    the parser attaches its content to the parent as rendered content, where any other
    ``<template>`` is inert. The attribute is enumerated: "open" or "closed", any case."""
    for attr in v.SHADOW_ROOT_ATTRS:
        if (template.get(attr) or "").lower() in v.SHADOW_ROOT_MODES:
            return True
    return False


def _open_shadow_roots(templates: list[lxml.html.HtmlElement]) -> None:
    """Unwrap each declarative shadow root in place, so its content reads as the page's.

    Only the first per host attaches (HTML 13.2.6.4.4, "in head" insertion mode, a
    "template" start tag: a host already holding a shadow root gets a plain template),
    so a later one goes like any template. Slots are not filled: the host's own children
    stay after the shadow content.
    """
    hosts: set[lxml.html.HtmlElement] = set()
    for template in templates:
        host = template.getparent()
        if host is None:
            continue
        if host in hosts:
            template.drop_tree()
        else:
            hosts.add(host)
            template.drop_tag()


def _noframes_to_body(root: lxml.html.HtmlElement) -> None:
    """Give a frameset page without a body one, made of its ``<noframes>`` markup.

    libxml2 keeps ``<noframes>`` content as raw text, and the frameset around it goes
    with the frames, which left such pages empty. Other pages pay one look at the
    children of ``<html>``.
    """
    if root.tag != "html" or next(root.iterchildren("frameset"), None) is None:
        return
    if next(root.iterchildren("body"), None) is not None:
        return
    sources = list(root.iter("noframes"))
    markup = "".join(source.text or "" for source in sources)
    if not markup.strip():
        return
    fragment = parse_html(markup)
    body = fragment.find("body") if fragment is not None else None
    if body is None:
        return
    for source in sources:  # the raw text, now parsed, would read as "<p>..." once more
        source.drop_tree()
    root.append(body)


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
    groups = dict.fromkeys(p.getparent() for p in panels)  # an ordered set
    groups.pop(None, None)
    everyone = [p for g in groups for p in g if isinstance(p.tag, str) and is_tab_panel(p)]
    controls = _tab_controls(root)
    targets = _TabTargets(root)
    labelled = False
    for panel in everyone:
        label = _tab_label(panel, controls, targets)
        if label:
            panel.set(TAB_LABEL_ATTR, label)
            labelled = True
    return labelled


class _TabTargets:
    """The first element with a given id, and the first link to a given "#id", in the page.

    The same first matches, in document order, as the XPaths ``.//*[@id=$i]`` and
    ``.//a[@href=$h]``, but each index is one search of the page, built on first use, where
    an XPath per panel searched the whole page once per panel (quadratic on API docs with
    hundreds of tab groups).
    """

    __slots__ = ("_ids", "_links", "_root")

    def __init__(self, root: lxml.html.HtmlElement) -> None:
        self._root = root
        self._ids: dict[str, lxml.html.HtmlElement] | None = None
        self._links: dict[str, lxml.html.HtmlElement] | None = None

    def with_id(self, ref: str) -> lxml.html.HtmlElement | None:
        if self._ids is None:
            self._ids = _first_by(_WITH_ID(self._root), "id")
        return self._ids.get(ref)

    def link_to(self, href: str) -> lxml.html.HtmlElement | None:
        if self._links is None:
            self._links = _first_by(_FRAGMENT_LINKS(self._root), "href")
        return self._links.get(href)


def _first_by(elements: Any, attr: str) -> dict[str, lxml.html.HtmlElement]:
    """Attribute value -> the first of `elements` (document order) carrying it."""
    first: dict[str, lxml.html.HtmlElement] = {}
    for element in elements:
        first.setdefault(element.get(attr), element)
    return first


def _tab_controls(root: lxml.html.HtmlElement) -> dict[str, lxml.html.HtmlElement]:
    """Panel id -> the element that switches to it (aria-controls, data-target, href="#id")."""
    controls: dict[str, lxml.html.HtmlElement] = {}
    switches: list[lxml.html.HtmlElement] = _TAB_CONTROLS(root)  # type: ignore[assignment]
    for element in switches:
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
    panel: lxml.html.HtmlElement,
    controls: dict[str, lxml.html.HtmlElement],
    targets: _TabTargets,
) -> str | None:
    for ref in (panel.get("aria-labelledby") or "").split():
        label = _short_text(targets.with_id(ref))
        if label:
            return label
    panel_id = (panel.get("id") or "").strip()
    if panel_id:
        label = _short_text(controls.get(panel_id))
        if label:
            return label
        # Bootstrap: <a href="#id" data-toggle="tab">
        label = _short_text(targets.link_to("#" + panel_id))
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
