"""The widgets of generated documentation: controls drawn as links or spans, not text.

Documentation generators put small controls beside the text they serve: a link to the
source file, a version badge next to a member's heading, a collapse toggle, a "Run"
button under an example, an "Expand description" summary, a "More..." link to the
details below, a hover tooltip. Each is a few characters of a link or a span, so no
chrome rule of a box sees it; in the Markdown they read as stray lines ("1.0.0 ·
[source] · [-]") and as hundreds of playground URLs (issue 30 item 2).

Recognised by what the control says and where it sits, shared by generators:

* a permalink ("¶", "§", "#") to an anchor of the page, wherever it sits (Texinfo
  6.8+ puts ``a.copiable-anchor`` in every definition line);
* a link whose whole text is a control's word (`vocabulary.WIDGET_LINK_TEXTS`: "source",
  "[src]", "[-]", "More...", "Expand all") and that is not a word of a sentence (its
  block holds little other text);
* a "Run" / "Try it" link right beside a code block (a playground button);
* a ``<summary>`` whose whole text is a disclosure's control ("Expand description"):
  the summary goes, the details' content stays;
* Doxygen's hover boxes ``div.ttc`` (Doxygen 1.8-1.9, shown by a script on hover,
  hidden by its stylesheet; a ``[role=tooltip]`` of any page goes in ``clean.py``);
* a version badge: rustdoc's ``span.since`` (1.5x-1.7x: "1.0.0", "const: unstable");
* the site's logo as an image link (its class or its image's says "logo");

and then the strip that held them when nothing but separators ("·", "|") is left.
Every removal is noted in the loss audit under ``widget``. Pure lxml; one XPath search.
"""

from __future__ import annotations

import re
from typing import cast

from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.stats import Element

#: Links and summaries are looked at in one tag-filtered walk (an XPath search that
#: reads every link's text in libxml2 cost 0.13 s on four long API pages); spans and
#: divs, far more numerous, by their class or role in libxml2.
_WALKED_TAGS = ("a", "summary")
#: Boxes named by one generator, looked for only on its pages (its <meta name=
#: "generator">): rustdoc's version badges, Doxygen 1.8-1.9's hover boxes. A search of
#: every span's class costs 4-6 ms on a long Sphinx page, which has none of them.
_GENERATOR_BOXES = {
    "rustdoc": etree.XPath(
        "descendant::span[contains(@class, 'since')]"
        " | descendant::div[contains(@class, 'tooltip')]"  # "ⓘ" over an example
    ),
    "doxygen": etree.XPath("descendant::div[contains(@class, 'ttc')]"),
}
#: A link whose text is longer than this is no control.
_CONTROL_MAX_CHARS = 24
_SEPARATORS = re.compile("^[\\s\u00b7|\u2022,\\-\u2013\u2014/]*$")
#: A link beside a code block with this text is a playground's button.
_RUN_TEXTS = frozenset({"run", "▶ run", "try it", "try it yourself", "open in playground"})
_PROSE_SLACK_CHARS = 24
_PERMALINK_SYMBOLS = frozenset({"¶", "§", "#", "🔗", "⚓", "¶#", "#¶"})
#: Every whole text of a link that a rule reads (a link of no child is looked at
#: further only when its text is one).
_CONTROL_TEXTS = v.WIDGET_LINK_TEXTS | v.WIDGET_TRAILING_TEXTS | _RUN_TEXTS | _PERMALINK_SYMBOLS
#: A text longer than this, its spaces included, is no control's (a cut before strip()).
_LONGEST_CONTROL = 2 * _CONTROL_MAX_CHARS


def remove_widgets(root: Element, audit: LossAudit | None = None, generator: str = "") -> int:
    """Remove the widgets of `root` (see the module docstring) in place; returns how
    many elements went (strips included). `generator` is the page's ``<meta
    name="generator">`` content, lower-cased ("" when it has none)."""
    removed = 0
    strips: list[Element] = []
    found: list[Element] = []
    for name, search in _GENERATOR_BOXES.items():
        if name in generator:  # first: a badge beside a source link makes it a strip
            found += cast(list[Element], search(root))
    found += (e for e in root.iter(*_WALKED_TAGS) if _may_be_widget(e))
    for heading in root.iter(*v.HEADING_TAGS):
        found += (a for a in heading.iterchildren("a") if a.get("href", "").startswith("#"))
    for element in found:
        parent = element.getparent()
        if parent is None:
            continue
        if element.tag == "a" and parent.tag in v.HEADING_TAGS and _names_heading(element):
            element.drop_tag()  # "## [Examples](#examples)": the heading's own anchor
            continue
        if _is_widget(element):
            if audit is not None:
                audit.note(element, "widget")
            element.drop_tree()
            removed += 1
            if parent is not None and parent is not root:
                strips.append(parent)
    for strip in dict.fromkeys(strips):
        if strip.getparent() is None or strip.tag in v.HEADING_TAGS or len(strip):
            continue
        if _SEPARATORS.match(strip.text_content()):
            if audit is not None:
                audit.note(strip, "widget")
            strip.drop_tree()
            removed += 1
    return removed


def _may_be_widget(element: Element) -> bool:
    """The cheap first look of the walk at a link or a summary: a link whose own text
    is a control's word, or that holds a few elements (not code: a reference to an API
    name is no control); any summary. (A heading's links to its own anchors are looked
    at apart: they are few.)"""
    children = len(element)
    if children == 0:
        text = element.text
        return (
            text is not None
            and len(text) <= _LONGEST_CONTROL
            and (text.strip().lower() in _CONTROL_TEXTS)
        )
    return element.tag == "summary" or (children <= 3 and element[0].tag != "code")


def _is_widget(element: Element) -> bool:
    tag = element.tag
    text = " ".join(element.text_content().split())
    if tag == "a" and len(text) > _CONTROL_MAX_CHARS:
        return False
    lowered = text.lower()
    if tag == "a" and text:
        if lowered in _RUN_TEXTS:
            return _beside_code(element)
        if lowered in v.WIDGET_LINK_TEXTS:
            # "[src]", "[-]": bracketed, a control wherever it is; "source" beside a
            # heading or in a strip of controls, not as a word of a sentence
            return lowered.startswith("[") or not _in_sentence(element, len(text))
        if lowered in v.WIDGET_TRAILING_TEXTS:
            return _ends_its_block(element)  # "... Read more", Doxygen's "... More..."
        # a permalink to its own anchor beside a definition or a heading ("¶", "§")
        return lowered in _PERMALINK_SYMBOLS and (element.get("href") or "").startswith("#")
    if tag == "summary":
        return lowered in v.WIDGET_SUMMARY_TEXTS
    names = set((element.get("class") or "").split())
    if tag == "div":  # Doxygen 1.8-1.9's hover box, rustdoc's "ⓘ" over an example
        return "ttc" in names or "tooltip" in names
    if tag == "a":  # an image link: a widget when it is the site's logo
        return _is_logo(element)
    # a version badge: rustdoc's span.since ("1.0.0", "const: unstable")
    return "since" in names


def _is_logo(link: Element) -> bool:
    """An image link whose class, or whose image's class or alt text, says "logo"."""
    images = list(link.iter("img"))
    if not images:
        return False
    if "logo" in (link.get("class") or "").lower():
        return True
    for image in images:
        if "logo" in (image.get("class") or "").lower():
            return True
        if (image.get("alt") or "").strip().lower() == "logo":
            return True
    return False


def _in_sentence(link: Element, own: int) -> bool:
    """The link is a word of a longer text: its strip (an inline box around it, as
    rustdoc's ``span.rightside``) or else its block holds more than a few other
    characters (a heading's or a strip's control does not)."""
    parent = link.getparent()
    if parent is None or parent.tag in v.HEADING_TAGS or parent.tag == "summary":
        return False
    others = len(" ".join(parent.text_content().split())) - own
    if parent.tag in v.INLINE_TAGS and others <= _PROSE_SLACK_CHARS:
        return False  # a strip of controls ("1.0.0 · source")
    while parent is not None and parent.tag in v.INLINE_TAGS:
        parent = parent.getparent()
    if parent is None or parent.tag in v.HEADING_TAGS or parent.tag == "summary":
        return False
    others = len(" ".join(parent.text_content().split())) - own
    return others > _PROSE_SLACK_CHARS


def _ends_its_block(link: Element) -> bool:
    """Nothing but whitespace follows the link in its block."""
    node = link
    while node is not None and node.tag in v.INLINE_TAGS:
        if (node.tail or "").strip():
            return False
        for later in node.itersiblings():
            if later.tag != "br" and (later.text_content().strip() or later.tag == "img"):
                return False
        node = node.getparent()
    return True


def _names_heading(link: Element) -> bool:
    """A heading's link to an anchor of the page (``#...``) holding the heading's whole
    text (a heading linking another page is a teaser's: its link stays)."""
    heading = link.getparent()
    if heading is None or not (link.get("href") or "").startswith("#"):
        return False
    own = " ".join(link.text_content().split())
    return bool(own) and own == " ".join(heading.text_content().split())


def _beside_code(link: Element) -> bool:
    """A ``<pre>`` is the link's neighbour, or the link sits in the code block's box."""
    for sibling in (link.getprevious(), link.getnext()):
        if sibling is not None and sibling.tag == "pre":
            return True
    parent = link.getparent()
    return parent is not None and (parent.tag == "pre" or parent.find("pre") is not None)
