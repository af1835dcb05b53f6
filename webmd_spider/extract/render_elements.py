"""What the renderer does with each element, by its tag: its category (`_CATEGORY`),
and the tests of an element's shape that change how it renders: a ``<dl>`` that is a
tree of links (rendered as the nested list it is), a list that lays out sections
(rendered as plain blocks), a ``<dt>`` / ``<summary>`` holding a heading, a
``<code>`` that is its parent's only content (a code block), an inline ``display``
style on a block element; the TeX of a ``<math>`` (`math_tex`).
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from webmd_spider.extract import vocabulary as v

# Element categories.
(
    INLINE, SKIP, BLOCK, HEAD, LISTS, LI, BQ, PRE, CODE_SPAN, STRONG, EM, STRIKE, ANCHOR,
    IMG, BR, HR, TABLE_EL, ROW, CELL, BOLD_LINE, MATH,
) = range(21)  # fmt: skip
_CATEGORY: dict[str, int] = {
    **dict.fromkeys(
        (
            *("script", "style", "noscript", "template", "head", "title", "svg", "canvas"),
            *("iframe", "object", "embed", "video", "audio", "map", "button", "select"),
            *("datalist", "meta", "link", "base"),
            # ruby annotations (furigana, pinyin) sit above the text they read: the
            # base text is the sentence, and "子こども" would break every word
            *("rt", "rp"),
        ),
        SKIP,
    ),
    **dict.fromkeys(
        (
            *("address", "article", "aside", "center", "details", "dialog", "dir", "div"),
            *("dl", "dd", "fieldset", "figcaption", "figure", "footer", "form", "header"),
            *("hgroup", "main", "nav", "p", "section", "caption", "legend", "body", "html"),
            *("tbody", "thead", "tfoot", "search", "article", "option", "optgroup"),
        ),
        BLOCK,
    ),
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), HEAD),
    **dict.fromkeys(("ul", "ol", "menu"), LISTS),
    "li": LI,
    "blockquote": BQ,
    **dict.fromkeys(("pre", "xmp", "listing", "plaintext"), PRE),
    **dict.fromkeys(("code", "kbd", "samp", "tt"), CODE_SPAN),
    **dict.fromkeys(("strong", "b"), STRONG),
    **dict.fromkeys(("em", "i"), EM),
    **dict.fromkeys(("del", "s", "strike"), STRIKE),
    "a": ANCHOR,
    "img": IMG,
    "br": BR,
    "hr": HR,
    "table": TABLE_EL,
    "tr": ROW,
    **dict.fromkeys(("td", "th"), CELL),
    **dict.fromkeys(("dt", "summary"), BOLD_LINE),
    "math": MATH,
}
_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Children of a <dt>/<summary> that are or may hold a heading (see `_holds_heading`).
_HEADING_HOSTS = frozenset({*_HEADING_TAGS, "section", "article", "div", "header", "hgroup"})
_SECTIONS_IN_LIST = ("h1", "h2", "h3", "h4", "section", "article")  # see `_layout_list`
_STRING = etree.XPath("string()")
# An inline `display` style makes a block element (div, span-like p...) flow inline.
_INLINE_DISPLAY = re.compile(r"display\s*:\s*(?:-[a-z]+-)?inline(?!-table)", re.I).search


def math_tex(math: etree._Element) -> str | None:
    """The TeX of a formula: its ``<annotation>`` in a TeX encoding (KaTeX, MediaWiki,
    LaTeXML), else its ``alttext`` (MediaWiki, LaTeXML, and what clean.py made of MathJax
    2's ``<script type="math/tex">``), MediaWiki's ``{\\displaystyle ...}`` around it
    dropped; None when the page gives none."""
    tex = ""
    for annotation in math.iter("annotation"):
        if (annotation.get("encoding") or "").strip().lower() in v.MATH_TEX_ENCODINGS:
            tex = str(_STRING(annotation)).strip()
            if tex:
                break
    if not tex:
        tex = (math.get("alttext") or "").strip()
    if not tex:
        return None
    wrapped = v.MATH_TEX_WRAPPER.match(tex)
    if wrapped and _closes_at_end(tex):
        tex = wrapped.group(1).strip() or tex
    return tex


def _closes_at_end(tex: str) -> bool:
    """The brace that opens `tex` closes at its last character (``\\{`` is no brace)."""
    depth = 0
    escaped = False
    for i, char in enumerate(tex):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i == len(tex) - 1
    return False


def _int_attr(element: etree._Element, name: str, default: int) -> int:
    """A whole-number attribute (a list's ``start``, an item's ``value``), capped;
    `default` when it is missing, negative or not a number."""
    raw = (element.get(name) or "").strip()
    if raw[:1] == "-" or not raw.isdigit():
        return default
    return min(int(raw[:9]), 999_999_999)


def _link_tree(dl: etree._Element) -> bool:
    """`dl` is a tree of links, not a list of definitions: each term is one link and
    nothing else, each description only nested lists (DocBook's tables of contents:
    ``<dt><a>Part I</a></dt><dd><dl>...</dl></dd>``)."""
    terms = 0
    for child in dl.iterchildren(etree.Element):
        if child.tag == "dt":
            links = child.findall(".//a")
            if len(links) != 1:
                return False
            if " ".join(str(_STRING(child)).split()) != " ".join(str(_STRING(links[0])).split()):
                return False
            terms += 1
        elif child.tag == "dd":
            if (child.text or "").strip() or any(
                c.tag not in ("dl", "ul", "ol") or (c.tail or "").strip()
                for c in child.iterchildren(etree.Element)
            ):
                return False
        else:
            return False
    return terms > 0


def _tree_to_list(dl: etree._Element) -> None:
    """Rewrite a `_link_tree` in place as the nested list it is: each term an item,
    each description's lists moved into the item before it."""
    dl.tag = "ul"
    item: etree._Element | None = None
    for child in list(dl.iterchildren(etree.Element)):
        if child.tag == "dt":
            child.tag = "li"
            item = child
        else:  # dd: its lists go into the term's item
            if item is not None:
                for nested in list(child.iterchildren(etree.Element)):
                    item.append(nested)
            dl.remove(child)


def _holds_heading(el: etree._Element) -> bool:
    """A heading is a child of `el` or inside a block child. (Most <dt> hold a few inline
    children: a look at them is cheaper than a search of the subtree, and a heading
    inside inline markup is not valid HTML.)"""
    for child in el:
        if child.tag in _HEADING_HOSTS:
            return next(el.iter(*_HEADING_TAGS), None) is not None
    return False


def _layout_list(lst: etree._Element) -> bool:
    """A list used to lay out a page (javadoc's member lists, one item per section; card
    grids): an item holds a <section>/<article>, or opens with a heading h1-h4 that
    content follows (a section's title, then its body). A heading after the item's
    words (an admonition's "Note" in a step), alone or last in its item (a title, a
    caption), and h5/h6 (small labels) are parts of a real list's items."""
    for el in lst.iter(*_SECTIONS_IN_LIST):
        if el.tag == "section" or el.tag == "article":
            return True
        if _opens_item(el, lst):
            return True
    return False


def _opens_item(heading: etree._Element, lst: etree._Element) -> bool:
    """No text comes before `heading` in its list item, and some comes after it."""
    follows = False
    node = heading
    while node is not lst and node.tag != "li":
        parent = node.getparent()
        if parent is None:
            return False
        if parent.text and not parent.text.isspace():
            return False
        for before in node.itersiblings(preceding=True):
            if _text_in(before):
                return False
        if not follows:
            follows = any(_text_in(after) for after in node.itersiblings()) or bool(
                node.tail and not node.tail.isspace()
            )
        node = parent
    return follows


def _text_in(el: etree._Element) -> bool:
    """`el` (a sibling) or the text after it holds words."""
    if el.tail and not el.tail.isspace():
        return True
    return isinstance(el.tag, str) and _has_text(el)


def _has_text(el: etree._Element) -> bool:
    """`el` holds words (stops at the first)."""
    return any(not text.isspace() for text in el.itertext())


def _alone(el: etree._Element) -> bool:
    """`el` is the only content of its parent (a <code> used as a code block)."""
    parent = el.getparent()
    return (
        parent is not None
        and len(parent) == 1
        and not (parent.text or "").strip()
        and not (el.tail or "").strip()
    )


#: How many wrappers up a heading's anchor is looked for: Sphinx's ``<section id>`` is
#: the parent; DocBook's ``<div class="sect1" id>`` holds ``div.titlepage > div > div >
#: h2``, four up. Each step must be the wrapper's first element child.
ANCHOR_WRAPPERS = 4
_ANCHOR_WRAPPER_TAGS = frozenset({"section", "div", "article", "header", "hgroup"})


def heading_anchor(el: Any) -> str | None:
    """The fragment that reaches heading `el` on its page (HTML's "indicated part of the
    document": an element whose id is the fragment, or an ``<a name>``): the heading's
    own id, an ``<a id|name>`` inside it, the id of a section it opens (it is that
    wrapper's first element child, empty anchors before it aside, up to
    ANCHOR_WRAPPERS levels), or an empty anchor just before it (``<span id="x"></span>
    <h2>``). None when the page names none. Reads attributes only: a few lookups per
    heading."""
    ident = el.get("id")
    if ident:
        return str(ident).strip() or None
    for link in el.iter("a"):
        ident = link.get("id") or link.get("name")
        if ident:
            return str(ident).strip() or None
    child = el
    for _ in range(ANCHOR_WRAPPERS):
        parent = child.getparent()
        if parent is None or parent.tag not in _ANCHOR_WRAPPER_TAGS:
            break
        first = next((c for c in parent.iterchildren(tag=etree.Element) if not _empty(c)), None)
        if first is not child:
            break
        ident = parent.get("id")
        if ident:
            return str(ident).strip() or None
        child = parent
    before = el.getprevious()
    if before is not None and isinstance(before.tag, str) and _empty(before):
        ident = before.get("id") or before.get("name")
        if ident:
            return str(ident).strip() or None
    return None


def _empty(el: Any) -> bool:
    """An element with no text and no children: an anchor target, nothing to read."""
    return not len(el) and not (el.text or "").strip()
