"""Remove from a parsed page what is never content, in place.

Scripts, styles, embedded media, form controls and small forms, comments,
and everything the page hides (``hidden``, ``aria-hidden="true"``, inline
``display:none`` / ``visibility:hidden``) - except hidden tab panels, which
hold real content (the other languages of a code sample, say): they stay and
carry their tab's visible name in ``TAB_LABEL_ATTR`` for the converter. A tab
group found by its strip (``role=tablist``, or CSS-only radio tabs) labels every
panel, hidden or not, and its strip goes. A task list's checkbox leaves "[x] " or
"[ ] "; a caption beside a code block that only names its language goes. Each formula
becomes one ``<math>`` that stays, hidden or not (MathJax 2's TeX script, the MathML of
KaTeX, MathJax 3 and MediaWiki), and its rendered copies and fallback images go.

What a browser shows although it looks hidden or inert stays: ``<html>`` and
``<body>`` (hidden only until a script reveals the page), the collapsed panel of a
disclosure or accordion (one click away: a FAQ's answers), a hidden element holding
most of the page's text (an app root set ``aria-hidden`` while a dialog is open),
``hidden="until-found"`` content and declarative shadow roots
(``<template shadowrootmode>``). A frameset page's ``<noframes>`` markup becomes its body.

Pure lxml, no recursion: safe on any nesting depth.

Why one file of over 500 lines: one pass over the parsed page, whose removals depend on
each other (a hidden tab panel stays labelled, a shadow root is opened before what is
hidden is judged); the tab groups are half of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, cast

import lxml.html
from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.inline import code_language
from webmd_spider.extract.parse import parse_html
from webmd_spider.extract.streamed import place_segments, streamed_calls

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
#: Every role attribute, filtered in Python: half the cost of "descendant::*[@role='tablist']",
#: whose predicate libxml2 tests element by element (0.04 against 0.08 ms a page).
_ROLES = etree.XPath("descendant::*/@role")
_STRING = etree.XPath("string()")
_CLOSED_DIALOGS = etree.XPath("descendant::dialog[not(@open)]")
#: Letters of a language name ("Node.js" -> "nodejs", "C++" -> "c++").
_LANGUAGE_KEY = re.compile(r"[^a-z0-9+#]")
_TAB_CONTROLS = etree.XPath(
    "descendant::*[@aria-controls or @data-target or @data-bs-target or @role='tab']"
)


def _link_frames(root: lxml.html.HtmlElement) -> None:
    """With ``keep_frames``: each ``<iframe>`` with a source gets a link paragraph
    labelled with its title, so that the Markdown says what is embedded where (the
    frame's own document is never fetched; the renderer shows no frame). Frame and
    link share a ``<div>``: the periphery pass keeps a block holding a frame after the
    text, as it keeps one holding an image, where it would drop a lone link line."""
    for frame in list(root.iter("iframe")):
        src = (frame.get("src") or "").strip()
        parent = frame.getparent()
        if not src or parent is None or src.lower().startswith(("javascript:", "data:", "about:")):
            continue
        title = " ".join((frame.get("title") or frame.get("name") or "").split())
        holder = lxml.html.Element("div")
        holder.tail, frame.tail = frame.tail, None
        parent.replace(frame, holder)
        holder.append(frame)
        link = etree.SubElement(etree.SubElement(holder, "p"), "a", href=src)
        link.text = f"Embedded frame: {title}" if title else "Embedded frame"


def remove_never_content(
    root: lxml.html.HtmlElement, *, keep_frames: bool = False, audit: LossAudit | None = None
) -> None:
    """Strip `root` (a page or any element) of what is never content, in place.

    Tail text of a removed element (the words after it) is kept. Tab panels
    (``role=tabpanel``, ``.tab-pane``, ``[data-tab]``...) are kept even when
    hidden and labelled via `TAB_LABEL_ATTR`; so are the panels of a tab group
    found by its strip (`_label_tab_groups`). A form holding most of the page
    (ASP.NET) or its ``<h1>`` is unwrapped; other forms go. So is a hidden element
    holding most of the page's text, and a declarative shadow root's ``<template>``.
    A frameset page without a body gets one, made of its ``<noframes>`` markup.
    With an `audit`, every removal of an element that can hold text is noted in it.
    """
    _noframes_to_body(root)
    never = v.NEVER_CONTENT_TAGS if keep_frames else v.NEVER_CONTENT_TAGS | v.FRAME_TAGS
    if keep_frames:
        _link_frames(root)
    # One walk of the tree gathers what every step below removes (each walk of a page
    # costs as much as a step). An element that an earlier step already dropped along
    # with an ancestor stays in that detached subtree, where acting on it changes nothing.
    nodes: list[Any] = []
    dropped: list[lxml.html.HtmlElement] = []
    controls: list[lxml.html.HtmlElement] = []
    forms: list[lxml.html.HtmlElement] = []
    shadow_roots: list[lxml.html.HtmlElement] = []
    # Gathered in the same walk for the rules below that read them (tab labels, MathML,
    # code blocks): most pages have none, and none of them costs another walk.
    labels: list[lxml.html.HtmlElement] = []
    maths: list[lxml.html.HtmlElement] = []
    pres: list[lxml.html.HtmlElement] = []
    noscripts: list[lxml.html.HtmlElement] = []
    images: list[lxml.html.HtmlElement] = []
    for node in root.iter(
        etree.Comment,
        etree.ProcessingInstruction,
        *never,
        *v.FORM_CONTROL_TAGS,
        "form",
        "label",
        "math",
        "pre",
    ):
        tag = node.tag
        if node is root:
            continue
        if not isinstance(tag, str):
            nodes.append(node)
        elif tag in never:
            if tag == "template" and _declares_shadow_root(node):
                shadow_roots.append(node)
            elif tag == "noscript":
                noscripts.append(node)
            elif tag in ("object", "embed") and _image_object(node):
                images.append(node)
            else:
                dropped.append(node)
        elif tag == "form":
            forms.append(node)
        elif tag == "label":
            labels.append(node)
        elif tag == "math":
            maths.append(node)
        elif tag == "pre":
            pres.append(node)
        else:
            controls.append(node)
    # before hidden elements are judged: a streamed segment is hidden until its script
    # places it
    place_segments(root, streamed_calls(e for e in dropped if e.tag == "script"))
    _remove_comments(nodes)
    if shadow_roots:
        _open_shadow_roots(shadow_roots)
    # before the scripts go (MathJax 2 keeps a formula's TeX in one) and before what is
    # hidden is judged (MediaWiki hides its MathML): each formula becomes one <math>
    scripts = [e for e in dropped if e.tag == "script" and _math_script(e)]
    if maths or scripts:
        maths = _one_math_per_formula(maths, scripts, audit)
    hidden = [e for e in _hidden_elements(root) if e is not root]
    panels = [e for e in hidden if is_tab_panel(e)]
    targets = _TabTargets(root)  # built on first use, shared by both tab rules
    labelled = _label_tab_panels(root, panels, targets) if panels else False
    # Never-content goes before the hidden elements are weighed, so that a page's text is
    # its words and not its inline scripts (a JSON state blob can outweigh the page). The
    # labels above were read first, from the tabs as they came.
    _drop_all(dropped, audit, "never-content")
    _open_fallback_noscripts(noscripts, audit)
    for node in images:
        _object_to_img(node)
    # Tab groups found by their tab strip label their panels whether hidden or not (a
    # panel hidden by a class or a stylesheet is still one of the alternatives).
    roles: list[Any] = _ROLES(root)  # type: ignore[assignment]
    grouped, strips = _label_tab_groups(root, targets, controls, labels, roles)
    # a tooltip (WAI-ARIA 1.2 role=tooltip) is shown on hover over the text it explains:
    # its words are not the text's (a Doxygen "Definition: file.h:12")
    tips = (r.getparent() for r in roles if r.strip().lower() == v.TOOLTIP_ROLE)
    _drop_all(tips, audit, "widget")
    kept = grouped | _math_sources(maths, hidden, audit) if maths else grouped
    if hidden:
        kept = kept | _disclosed_panels(root, hidden)
    hiding = [e for e in hidden if not is_tab_panel(e) and e not in kept]
    if hiding:
        wrappers = _page_wrappers(root, hiding)
        _drop_all((e for e in hiding if e not in wrappers), audit, "hidden")
    if labelled:
        tablists = (e for e in root.iter() if e.get("role") == "tablist" and e is not root)
        _drop_all(tablists, audit, "tab-strip")
    _drop_all(strips, audit, "tab-strip")
    _remove_controls(controls, audit)
    _remove_small_forms(root, forms, audit)
    if pres:
        _remove_language_captions(pres, audit)


_VISIBLE_CHARS = etree.XPath("string-length(normalize-space())")  # compiled once


_IMAGE_PATH = re.compile(r"\.(?:svgz?|png|jpe?g|gif|webp|avif|bmp)(?:[?#]|$)", re.IGNORECASE)


def _image_object(node: lxml.html.HtmlElement) -> bool:
    """An ``<object data=...>`` or ``<embed src=...>`` that shows an image (its type or
    its file name says so): a figure drawn as SVG, as DocBook does."""
    source = node.get("data" if node.tag == "object" else "src") or ""
    kind = (node.get("type") or "").strip().lower()
    return bool(source.strip()) and (kind.startswith("image/") or bool(_IMAGE_PATH.search(source)))


def _object_to_img(node: lxml.html.HtmlElement) -> None:
    """Replace an image `<object>`/`<embed>` with an ``<img>`` of the same source, its
    fallback content (the words shown where the image cannot be) as the alt text, else
    its title; the tail text stays."""
    parent = node.getparent()
    if parent is None:
        return
    source = (node.get("data" if node.tag == "object" else "src") or "").strip()
    alt = " ".join(" ".join(node.itertext()).split()) or (node.get("title") or "").strip()
    img = lxml.html.Element("img", src=source, alt=alt)
    img.tail = node.tail
    parent.replace(node, img)


def _open_fallback_noscripts(
    noscripts: list[lxml.html.HtmlElement], audit: LossAudit | None
) -> None:
    """Unwrap each ``<noscript>`` that is the only text of its parent and holds prose
    (Blogger renders a post from a ``<script type=text/template>`` and puts the same post
    in a ``<noscript>`` beside it: that copy is the post); drop the others (tracking
    pixels, "enable JavaScript" notes, copies of what the page shows anyway). Runs after
    the scripts are gone, so "only text" means only the visible kind."""
    for noscript in noscripts:
        parent = noscript.getparent()
        if parent is None:
            continue
        own = visible_chars(noscript)
        if (
            own >= v.NOSCRIPT_CONTENT_MIN_CHARS
            and visible_chars(parent) <= own + v.NOSCRIPT_SIBLING_SLACK_CHARS
            and next(noscript.iter("p", "article", "li", "pre", "table"), None) is not None
        ):
            noscript.drop_tag()
        else:
            if audit is not None:
                audit.note(noscript, "noscript")
            noscript.drop_tree()


def visible_chars(element: lxml.html.HtmlElement) -> int:
    """Characters of the element's text with whitespace runs counted as one space."""
    return int(cast(float, _VISIBLE_CHARS(element)))


def _drop_all(
    elements: Iterable[lxml.html.HtmlElement], audit: LossAudit | None = None, rule: str = ""
) -> None:
    """drop_tree every element of an iterable, collected first (keeps their tails),
    noting each in `audit` under `rule`."""
    for element in list(elements):
        if element.getparent() is not None:
            if audit is not None:
                audit.note(element, rule)
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
    """Elements hidden by `hidden`, `aria-hidden="true"` or an inline style, and
    closed ``<dialog>`` elements, each once.

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
    # HTML 15.3.3 (the UA stylesheet): "dialog:not([open]) { display: none; }": a modal
    # form or a lightbox until a script opens it
    dialogs: list[lxml.html.HtmlElement] = _CLOSED_DIALOGS(root)  # type: ignore[assignment]
    for dialog in dialogs:
        found[dialog] = None
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
            total = visible_chars(body_of(root))
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
    body = body_of(root)
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


def body_of(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """The page's `<body>` (root selection shares this), else `root` itself."""
    if root.tag == "html":
        # `find("body")`, without ElementPath's Python-level path parsing
        body = next(root.iterchildren("body"), None)
        if body is not None:
            return body
    return root


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


def _label_tab_panels(
    root: lxml.html.HtmlElement, panels: list[lxml.html.HtmlElement], targets: _TabTargets
) -> bool:
    """Label every tab panel of a group that hides some of them; True if any was labelled.

    The visible panel of such a group is labelled too, so all tabs read alike.
    """
    groups = dict.fromkeys(p.getparent() for p in panels)  # an ordered set
    groups.pop(None, None)
    everyone = [p for g in groups for p in g if isinstance(p.tag, str) and is_tab_panel(p)]
    controls = _tab_controls(root)
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


_DISCLOSURES = etree.XPath("descendant::*[@aria-expanded][@aria-controls]")


def _disclosed_panels(
    root: lxml.html.HtmlElement, hidden: list[lxml.html.HtmlElement]
) -> set[lxml.html.HtmlElement]:
    """The hidden panels of disclosure widgets (WAI-ARIA APG "Disclosure" and
    "Accordion" patterns: a button with ``aria-expanded`` whose ``aria-controls`` names
    the panel it shows): a collapsed FAQ answer is the page's text, one click away."""
    controllers: list[Any] = _DISCLOSURES(root)  # type: ignore[assignment]
    if not controllers:
        return set()
    named = {ref for c in controllers for ref in (c.get("aria-controls") or "").split()}
    return {e for e in hidden if e.get("id") in named}


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


def _label_tab_groups(
    root: lxml.html.HtmlElement,
    targets: _TabTargets,
    controls: list[lxml.html.HtmlElement],
    labels: list[lxml.html.HtmlElement],
    roles: list[Any],
) -> tuple[set[lxml.html.HtmlElement], list[lxml.html.HtmlElement]]:
    """Label the panels of every tab group found by its tab strip; (panels, strips to drop).
    `roles` are the page's role attributes (`_ROLES`).

    A group is a ``role=tablist`` of ``role=tab`` elements, or a strip of ``<label for>``
    elements switching radio inputs (MkDocs Material, VitePress: CSS-only tabs). Each
    panel is paired with its tab by aria-controls, else by position (the k-th tab names
    the k-th panel), and carries the tab's name in `TAB_LABEL_ATTR` unless it has one;
    a strip whose every panel was paired goes: its names now stand above the panels,
    where "npmYarn" glued on one line named nothing.
    """
    grouped: set[lxml.html.HtmlElement] = set()
    strips: list[lxml.html.HtmlElement] = []
    tablists = [r.getparent() for r in roles if r.strip().lower() == v.TABLIST_ROLE]
    for tablist in tablists:
        tabs = [e for e in tablist.iter() if (e.get("role") or "").lower() == v.TAB_ROLE]
        pairs = _tablist_pairs(tablist, tabs, targets) if tabs else []
        if pairs and _label_pairs(pairs, grouped, targets):
            strips.append(tablist)
    if labels:
        for strip, pairs in _radio_tab_strips(controls, labels):
            if _label_pairs(pairs, grouped, targets):
                strips.append(strip)
    return grouped, strips


def _label_pairs(
    pairs: list[tuple[lxml.html.HtmlElement, lxml.html.HtmlElement]],
    grouped: set[lxml.html.HtmlElement],
    targets: _TabTargets,
) -> bool:
    """Label each (tab, panel); True if every panel now reads under its tab's name.

    A panel's own aria-labelledby names it before the tab its position pairs it with."""
    complete = True
    for tab, panel in pairs:
        grouped.add(panel)
        if panel.get(TAB_LABEL_ATTR) is not None or not _has_content(panel):
            continue  # an empty panel (rendered when chosen) would leave a lone name
        label = _labelled_by(panel, targets) or _short_text(tab)
        if label is None:
            complete = False
        elif label.isdigit():
            continue  # a carousel's "1", "2": a page number names no slide
        elif not _names_its_code(label, panel):
            panel.set(TAB_LABEL_ATTR, label)
    return complete


def _labelled_by(panel: lxml.html.HtmlElement, targets: _TabTargets) -> str | None:
    refs = (panel.get("aria-labelledby") or "").split()
    return next((t for t in (_short_text(targets.with_id(r)) for r in refs) if t), None)


def _has_content(panel: lxml.html.HtmlElement) -> bool:
    return visible_chars(panel) > 0 or next(panel.iter("img"), None) is not None


def _names_its_code(label: str, panel: lxml.html.HtmlElement) -> bool:
    """A tab named after the language of a panel whose code blocks all declare one: the
    fence already says "python", a "Python" line above it would say it twice."""
    languages = [code_language(pre) for pre in panel.iter("pre")]
    if not languages or not all(languages):
        return False
    key = _LANGUAGE_KEY.sub("", label.lower())
    return key in v.LANGUAGE_NAMES or any(_LANGUAGE_KEY.sub("", x) == key for x in languages)


def _tablist_pairs(
    tablist: lxml.html.HtmlElement,
    tabs: list[lxml.html.HtmlElement],
    targets: _TabTargets,
) -> list[tuple[lxml.html.HtmlElement, lxml.html.HtmlElement]]:
    """(tab, panel) of a tablist: by aria-controls when the tabs name their panels, else
    by position among the tab panels that follow the tablist (one per tab)."""
    refs = [(t.get("aria-controls") or "").strip() for t in tabs]
    named = [targets.with_id(ref) if ref else None for ref in refs]
    if any(p is not None for p in named):
        # The page says which panel each tab shows (a panel it did not render has no
        # name to carry); tabs that all show one panel are filters of it (Javadoc's
        # "All Methods | Static Methods"), not its names.
        pairs = [(t, p) for t, p in zip(tabs, named, strict=True) if p is not None]
        if len({id(p) for _, p in pairs}) < len(pairs) or any(p is tablist for _, p in pairs):
            return []
        return pairs
    panels = _following_panels(tablist, len(tabs))
    if len(panels) == len(tabs):
        return list(zip(tabs, panels, strict=True))
    # A lazily rendered group (Docusaurus "lazy") holds only the selected tab's panel.
    selected = [t for t in tabs if (t.get("aria-selected") or "").lower() == "true"]
    if len(panels) == 1 and len(selected) == 1:
        return [(selected[0], panels[0])]
    return []


def _following_panels(tablist: lxml.html.HtmlElement, wanted: int) -> list[lxml.html.HtmlElement]:
    """The outermost tab panels after `tablist` in its parent, or (none there) in up to
    `TAB_PANEL_SEARCH_LEVELS` ancestors: the panels of a strip wrapped in a header.

    Stops at another tablist (the next group's), past `wanted` panels, and after
    `TAB_PANEL_SEARCH_BUDGET` elements, so that a tablist without panels (a menu) does
    not read the rest of the page once per level.
    """
    budget = v.TAB_PANEL_SEARCH_BUDGET
    anchor = tablist
    for _ in range(v.TAB_PANEL_SEARCH_LEVELS):
        found: list[lxml.html.HtmlElement] = []
        # iterators, not lists of siblings: a long page after the tablist is read only
        # as far as the budget goes
        stack: list[Iterator[Any]] = [anchor.itersiblings()]
        while stack and budget > 0 and len(found) <= wanted:
            element = next(stack[-1], None)
            if element is None:
                stack.pop()
                continue
            budget -= 1
            if not isinstance(element.tag, str):
                continue
            if (element.get("role") or "").lower() == v.TABLIST_ROLE:
                return found  # the next group's strip: what follows is its panels
            if is_tab_panel(element):
                found.append(element)
            else:
                stack.append(element.iterchildren())
        if found or budget <= 0:
            return found
        parent = anchor.getparent()
        if parent is None or parent.tag in v.NEVER_HIDDEN_TAGS:
            return []
        anchor = parent
    return []


def _radio_tab_strips(
    controls: list[lxml.html.HtmlElement], labels: list[lxml.html.HtmlElement]
) -> list[tuple[lxml.html.HtmlElement, list[tuple[lxml.html.HtmlElement, lxml.html.HtmlElement]]]]:
    """CSS-only tabs: (strip, [(label, panel)]) for each strip of ``<label for>`` elements
    switching radio inputs (nothing else in the strip but those inputs) whose next
    sibling holds one panel per label. The k-th input of the radio group shows the k-th
    panel, so a label names the panel at its input's place."""
    radios: dict[str, lxml.html.HtmlElement] = {}
    order: dict[lxml.html.HtmlElement, int] = {}
    groups: dict[str | None, int] = {}
    for control in controls:
        if control.tag == "input" and (control.get("type") or "").lower() == "radio":
            name = control.get("name")
            order[control] = groups.get(name, 0)
            groups[name] = order[control] + 1
            radios.setdefault(control.get("id") or "", control)
    radios.pop("", None)
    if not radios:
        return []
    found = []
    strips = dict.fromkeys(x.getparent() for x in labels if x.get("for") in radios)
    for strip in strips:
        if strip is None:
            continue
        tabs = []
        for child in strip:
            if child.tag == "label" and child.get("for") in radios:
                tabs.append(child)
            elif child.tag != "input" or (child.get("type") or "").lower() != "radio":
                break
        else:
            box = strip.getnext()
            panels = [c for c in box if isinstance(c.tag, str)] if box is not None else []
            if len(tabs) < 2 or len(panels) != len(tabs):
                continue
            places = [order[radios[t.get("for") or ""]] for t in tabs]
            if sorted(places) != list(range(len(tabs))):
                places = list(range(len(tabs)))  # not one radio group: the labels' order
            found.append((strip, [(t, panels[k]) for t, k in zip(tabs, places, strict=True)]))
    return found


def _math_script(script: lxml.html.HtmlElement) -> bool:
    """A ``<script type="math/tex">`` (or ``math/mml``): MathJax 2's source of a formula."""
    kind = (script.get("type") or "").split(";", 1)[0].strip().lower()
    return kind in (v.MATH_TEX_SCRIPT, v.MATH_MML_SCRIPT)


def _one_math_per_formula(
    maths: list[lxml.html.HtmlElement],
    scripts: list[lxml.html.HtmlElement],
    audit: LossAudit | None,
) -> list[lxml.html.HtmlElement]:
    """Each formula of the page as one ``<math>`` where it stands; the ``<math>`` elements.

    Math is content (docs/EXTRACTION.md, "Math"), and a page writes a formula twice or
    three times: its source for machines and a rendering for eyes. MathJax 2's
    ``<script type="math/tex">`` becomes a ``<math alttext="TeX">`` (``display="block"``
    for ``mode=display``) and its renderings before it go (`v.MATHJAX2_RENDERING_CLASSES`);
    the wrappers of KaTeX, MathJax 3 and MediaWiki around a ``<math>`` (`v.MATH_WRAPPERS`)
    are replaced by that ``<math>``, with their rendered copy and fallback image, and a
    wrapper of display math marks it ``display="block"``.
    """
    gone: set[lxml.html.HtmlElement] = set()
    formulas: list[lxml.html.HtmlElement] = []
    for script in scripts:
        math = _script_math(script)
        parent = script.getparent()
        if math is None or parent is None:
            continue
        before = script.getprevious()
        while (
            before is not None
            and not (before.tail or "").strip()
            and not v.MATHJAX2_RENDERING_CLASSES.isdisjoint(_classes(before))
        ):
            gone.add(before)
            earlier = before.getprevious()
            _drop_all((before,), audit, "math-copy")
            before = earlier
        math.tail = script.tail
        parent.replace(script, math)
        formulas.append(math)
    for math in maths:
        if gone and any(a in gone for a in math.iterancestors()):
            continue  # the MathML of a MathJax 2 rendering that went
        _unwrap_math(math, audit)
        formulas.append(math)
    return formulas


def _script_math(script: lxml.html.HtmlElement) -> lxml.html.HtmlElement | None:
    """The ``<math>`` a MathJax 2 script stands for, or None (an empty one)."""
    kind = (script.get("type") or "").lower()
    source = (script.text or "").strip()
    if not source:
        return None
    if kind.split(";", 1)[0].strip() == v.MATH_MML_SCRIPT:
        try:
            parsed = lxml.html.fragment_fromstring(source)
        except (etree.ParserError, ValueError):
            return None
        found = next(parsed.iter("math"), None)
        return found if isinstance(found, lxml.html.HtmlElement) else None
    math = lxml.html.Element("math", alttext=source)
    math.text = source  # the formula's words, for the rules that weigh text
    if v.MATH_DISPLAY_MODE in kind.replace(" ", ""):
        math.set("display", "block")
    return math


def _unwrap_math(math: lxml.html.HtmlElement, audit: LossAudit | None) -> None:
    """Replace the outermost KaTeX / MathJax 3 / MediaWiki wrapper of `math` (a chain of
    `v.MATH_WRAPPERS` from it up, holding no other formula) with `math` itself."""
    top = None
    display = False
    for element in math.iterancestors():
        classes = _classes(element)
        marks = [
            block
            for tag, word, block in v.MATH_WRAPPERS
            if (not tag or element.tag == tag) and (not word or word in classes)
        ]
        if not marks:
            break
        top = element
        shown = (element.get("display") or "").lower() in ("true", "block")
        display = display or any(marks) or shown
    if top is None or top.getparent() is None or sum(1 for _ in top.iter("math")) > 1:
        return
    math.tail = None
    top.addprevious(math)
    _drop_all((top,), audit, "math-copy")
    if display:
        math.set("display", "block")


def _math_sources(
    maths: list[lxml.html.HtmlElement],
    hidden: list[lxml.html.HtmlElement],
    audit: LossAudit | None = None,
) -> set[lxml.html.HtmlElement]:
    """The hidden elements to keep for MathML; the formula's fallback images go instead.

    A ``<math>`` is the formula's source (a page can hide it in a ``display:none`` span
    next to an ``aria-hidden`` image): the converter writes its TeX, so it stays, with the
    hidden wrappers around it that hold nothing else, and an image of the same formula
    would say it twice. Inside a hidden element holding more (a closed dialog) it goes
    with that element, and its image stays.
    """
    hiding = set(hidden)
    only: dict[lxml.html.HtmlElement, bool] = {}  # a wrapper can hold many formulas
    kept: set[lxml.html.HtmlElement] = set()
    # the images around each formula, read once per element around (a paragraph can hold
    # hundreds of formulas)
    images: dict[lxml.html.HtmlElement, tuple[list[Any], dict[str, list[Any]]]] = {}
    for math in maths:
        spared = [math] if math in hiding else []
        for element in math.iterancestors():
            if element not in hiding:
                continue
            if element not in only:
                only[element] = _only_math(element)
            if not only[element]:
                break
            spared.append(element)
        else:
            kept.update(spared)
            _drop_math_images(math, spared[-1] if spared else math, images, audit)
    return kept


def _only_math(element: lxml.html.HtmlElement) -> bool:
    """No text in `element` outside its ``<math>`` elements."""
    inside = "".join(str(_STRING(m)) for m in element.iter("math"))
    return _SPACES.sub("", str(_STRING(element))) == _SPACES.sub("", inside)


def _drop_math_images(
    math: lxml.html.HtmlElement,
    top: lxml.html.HtmlElement,
    images: dict[lxml.html.HtmlElement, tuple[list[Any], dict[str, list[Any]]]],
    audit: LossAudit | None = None,
) -> None:
    """The images of this formula beside it: in the element around `top`, its outermost
    kept wrapper, one with the formula's TeX as alt or a MediaWiki fallback class.
    `images` caches the images of each element around a formula, read once: (those of a
    fallback class, the others by their alt without whitespace)."""
    alttext = _SPACES.sub("", math.get("alttext") or "")
    around = top.getparent()
    # up through wrappers of the formula alone (<span class="mwe-math-mathml-inline">)
    while around is not None and _single_child(around) and not _words_beside(around[0]):
        around = around.getparent()
    if around is None:
        return
    if around not in images:
        fallbacks: list[Any] = []
        by_alt: dict[str, list[Any]] = {}
        for image in around.iter("img"):
            classes = (image.get("class") or "").split()
            if any(c.startswith(v.MATH_FALLBACK_IMAGE_CLASS) for c in classes):
                fallbacks.append(image)
            else:
                by_alt.setdefault(_SPACES.sub("", image.get("alt") or ""), []).append(image)
        images[around] = (fallbacks, by_alt)
    fallbacks, by_alt = images[around]
    same = by_alt.pop(alttext, []) if alttext else []
    _drop_all((*fallbacks, *same), audit, "math-copy")
    fallbacks.clear()


def _single_child(element: lxml.html.HtmlElement) -> bool:
    """`element` has one child (without counting them all, as ``len`` does: a paragraph
    can hold thousands of formulas)."""
    first = next(element.iterchildren(), None)
    return first is not None and first.getnext() is None


def _words_beside(child: lxml.html.HtmlElement) -> bool:
    parent = child.getparent()
    return bool((child.tail or "").strip() or (parent is not None and (parent.text or "").strip()))


def _remove_language_captions(
    pres: list[lxml.html.HtmlElement], audit: LossAudit | None = None
) -> None:
    """A caption beside a code block that only names its language goes (VitePress's
    ``<span class="lang">sh</span>``): the fence says "sh", a lone "sh" line before it
    read as a paragraph of the page. Each parent is read once, however many blocks it holds.
    """
    for parent in dict.fromkeys(pre.getparent() for pre in pres):
        if parent is None or len(parent) < 2:
            continue
        captions = [
            e
            for e in parent
            if e.tag in v.CODE_CAPTION_TAGS
            and len(e) == 0
            and 0 < len((e.text or "").strip()) <= v.CODE_CAPTION_MAX_CHARS
        ]
        if not captions:
            continue
        languages = {code_language(pre).lower() for pre in parent.iterchildren("pre")}
        languages.discard("")
        for caption in captions:
            if (caption.text or "").strip().lower() in languages:
                if audit is not None:
                    audit.note(caption, "language-caption")
                caption.drop_tree()


def _remove_controls(controls: list[lxml.html.HtmlElement], audit: LossAudit | None = None) -> None:
    """Form controls go; one inside a heading or <summary> leaves its words behind, and
    the checkbox that opens a list item (a GFM task list) leaves "[x] " or "[ ] "."""
    for element in controls:
        if element.getparent() is None:
            continue
        parent = element.getparent()
        if _opens_list_item(element):
            mark = v.TASK_DONE if element.get("checked") is not None else v.TASK_OPEN
            element.tail = mark + (element.tail or "").lstrip()
            element.drop_tree()
        elif parent is not None and parent.tag in v.CONTROL_KEEP_TEXT_PARENTS:
            element.drop_tag()
        else:
            if audit is not None:
                audit.note(element, "form-control")
            element.drop_tree()


def _opens_list_item(control: lxml.html.HtmlElement) -> bool:
    """A checkbox that is the first thing of a list item, or of the first child of one (a
    ``<p>`` of a loose list, a ``<label>`` around a styled box), a few levels down."""
    if control.tag != "input" or (control.get("type") or "").lower() != "checkbox":
        return False
    element = control
    for _ in range(v.TASK_CHECKBOX_DEPTH):
        parent = element.getparent()
        if parent is None or (parent.text or "").strip() or element.getprevious() is not None:
            return False
        if parent.tag == "li":
            return True
        element = parent
    return False


def _remove_small_forms(
    root: lxml.html.HtmlElement,
    forms: list[lxml.html.HtmlElement],
    audit: LossAudit | None = None,
) -> None:
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
            if audit is not None:
                audit.note(form, "small-form")
            form.drop_tree()
