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
* a tooltip: ``[role=tooltip]``, and Doxygen's hover boxes ``div.ttc`` (Doxygen 1.8-1.9,
  shown by a script on hover, hidden by its stylesheet);
* a version badge: rustdoc's ``span.since`` (1.5x-1.7x: "1.0.0", "const: unstable"), or
  a span named "version" of only a version number ("1.0.0");
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

_CANDIDATES = etree.XPath(
    "descendant::a[string-length(normalize-space()) <= 24]"
    " | descendant::*[self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6]"
    "/a[starts-with(@href, '#')]"
    " | descendant::summary[string-length(normalize-space()) <= 40]"
    " | descendant::*[@role='tooltip']"
    " | descendant::div[contains(@class, 'ttc')]"
    " | descendant::span[string-length(normalize-space()) <= 40]"
    "[contains(@class, 'since') or contains(@class, 'version')]"
    " | descendant::a[img][string-length(normalize-space()) = 0][contains(@class, 'logo')"
    " or img[contains(@class, 'logo') or translate(@alt, 'LOGO', 'logo') = 'logo']]"
)
_VERSION = re.compile(r"^v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?$")
_SEPARATORS = re.compile("^[\\s\u00b7|\u2022,\\-\u2013\u2014/]*$")
#: A link beside a code block with this text is a playground's button.
_RUN_TEXTS = frozenset({"run", "▶ run", "try it", "try it yourself", "open in playground"})
_PROSE_SLACK_CHARS = 24
_PERMALINK_SYMBOLS = frozenset({"¶", "§", "#", "🔗", "⚓", "¶#", "#¶"})


def remove_widgets(root: Element, audit: LossAudit | None = None) -> int:
    """Remove the widgets of `root` (see the module docstring) in place; returns how
    many elements went (strips included)."""
    removed = 0
    strips: list[Element] = []
    for element in cast(list[Element], _CANDIDATES(root)):
        parent = element.getparent()
        if parent is None:
            continue
        if element.tag == "a" and parent.tag in v.HEADING_TAGS and _names_heading(element):
            element.drop_tag()  # "## [Examples](#examples)": the heading's own anchor
            continue
        if _is_widget(element):
            parent = element.getparent()
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


def _is_widget(element: Element) -> bool:
    tag = element.tag
    text = " ".join(element.text_content().split())
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
    if element.get("role") == "tooltip":
        return True
    names = set((element.get("class") or "").split())
    if tag == "div":
        return "ttc" in names  # Doxygen 1.8-1.9's hover box
    if tag == "a":  # an image link: a widget when it is the site's logo
        return _is_logo(element)
    # a version badge: rustdoc's span.since ("1.0.0", "const: unstable"), or a span
    # named "version" holding only a version number
    return "since" in names or ("version" in names and bool(_VERSION.match(text)))


def _is_logo(link: Element) -> bool:
    """An image link whose class, or whose image's class or alt text, says "logo"."""
    if "logo" in (link.get("class") or "").lower():
        return True
    for image in link.iter("img"):
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
    """A heading's link to its own anchor holding the heading's whole text."""
    heading = link.getparent()
    if heading is None:
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
