"""Text statistics of every element, measured once, bottom-up, without recursion.

`measure()` walks the tree in reverse document order (every element after all
of its descendants) and sums each element's children, so the whole page costs
one pass. Lengths are characters of stripped text nodes: whitespace between
tags counts for nothing. Every rule of root selection and boilerplate removal
reads these numbers instead of calling ``text_content()`` per candidate.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeAlias

import lxml.html
from lxml import etree

from webmd_spider.extract import vocabulary as v

Element: TypeAlias = lxml.html.HtmlElement

# Indexes into a stats tuple.
CHARS = 0  # all text
LINK_CHARS = 1  # text inside <a>
LINKS = 2  # number of <a> elements
PROSE = 3  # text in sentence-like paragraphs, outside links


@dataclass(slots=True)
class TextStats:
    """Per-element statistics (indexes CHARS, LINK_CHARS, LINKS, PROSE; the rest is
    internal), the prose paragraphs in document order, and the link-farm blocks."""

    of: dict[Element, tuple[int, int, int, int, int, int, bool]] = field(default_factory=dict)
    #: (block element, its own prose characters) for every prose paragraph
    paragraphs: list[tuple[Element, int]] = field(default_factory=list)
    #: blocks of LINK_FARM_TAGS with LINK_FARM_MIN_LINKS+ links, mostly link text
    link_farms: list[Element] = field(default_factory=list)
    #: every element measured, in document order
    elements: list[Element] = field(default_factory=list)

    def chars(self, element: Element) -> int:
        s = self.of.get(element)
        return s[CHARS] if s else 0

    def prose(self, element: Element) -> int:
        s = self.of.get(element)
        return s[PROSE] if s else 0

    def link_share(self, element: Element) -> float:
        s = self.of.get(element)
        return s[LINK_CHARS] / s[CHARS] if s and s[CHARS] else 0.0


# Every match of SENTENCE_END starts with one of these characters. A pattern that
# starts with a plain character class is scanned by the regex engine's fast prefix
# search; SENTENCE_END (an alternation) is tried at every position of the text, which
# costs three times more over a page's text nodes.
_SENTENCE_START = re.compile(
    r"[.!?\u061f\u0964\u3002\uff01\uff1f\uff0c\u3001\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]"
).search
_SENTENCE_END = v.SENTENCE_END.search


def ends_sentence(text: str) -> bool:
    """`text` holds a sentence end (`vocabulary.SENTENCE_END`) somewhere."""
    first = _SENTENCE_START(text)
    return first is not None and _SENTENCE_END(text, first.start()) is not None


def measure(top: Element) -> TextStats:
    """Measure `top` and all its descendant elements in one bottom-up pass."""
    result = TextStats()
    elements = list(top.iter(etree.Element))  # elements only, filtered in C
    result.elements = elements
    _measure_into(reversed(elements), result)
    result.paragraphs.reverse()
    return result


def remeasure(old: TextStats, top: Element, touched: Iterable[Element]) -> TextStats:
    """`measure(top)` after elements under `top` were removed (`drop_tree`), from `old`,
    a measure of a tree that held `top` before: only `touched` (the parents the removed
    elements left) and their ancestors up to `top` are measured again; every other
    element's subtree is as it was, and so are its numbers. Nothing may have been
    added to the tree since `old` was measured."""
    elements = list(top.iter(etree.Element))
    dirty: set[Element] = set()
    for parent in touched:
        chain: list[Element] = []
        node: Element | None = parent
        while node is not None:
            if node in dirty:
                break
            chain.append(node)
            if node is top:
                break
            node = node.getparent()
        else:
            continue  # removed itself later: not under `top` any more
        dirty.update(chain)
    result = TextStats()
    result.elements = elements
    of = result.of
    old_of = old.of
    again: list[Element] = []
    for element in elements:
        if element in dirty:
            again.append(element)
            continue
        s = old_of.get(element)
        if s is None:  # not measured before (an added element): measure it all
            return measure(top)
        of[element] = s
    again.reverse()
    _measure_into(again, result)
    # the paragraphs and link farms of the elements not measured again, then the new
    # ones, in the order `measure` gives (paragraphs in document order, farms reversed)
    words = {e: n for e, n in old.paragraphs if e in of and e not in dirty}
    words.update(result.paragraphs)
    result.paragraphs = [(e, words[e]) for e in elements if e in words]
    farms = {e for e in old.link_farms if e in of and e not in dirty}
    farms.update(result.link_farms)
    result.link_farms = [e for e in reversed(elements) if e in farms]
    return result


def _measure_into(elements: Iterable[Element], result: TextStats) -> None:
    """The numbers of `elements`, each after all its descendant elements (whose numbers
    are in `result.of` already, or come earlier in `elements`), into `result`;
    paragraphs and link farms appended in the order of `elements`."""
    of = result.of
    paragraphs = result.paragraphs
    farms = result.link_farms
    inline_tags = v.INLINE_TAGS
    headings = v.HEADING_TAGS
    farm_tags = v.LINK_FARM_TAGS
    farm_links = v.LINK_FARM_MIN_LINKS
    farm_share = v.LINK_FARM_LINK_SHARE
    # `ends_sentence`, inlined below: a call per text node is a tenth of this loop
    sentence_start = _SENTENCE_START
    sentence_rest = _SENTENCE_END
    min_chars = v.PROSE_MIN_CHARS
    long_chars = v.PROSE_LONG_CHARS
    max_link = v.PROSE_MAX_LINK_SHARE
    for element in elements:
        tag = element.tag
        text = element.text
        chars = len(text.strip()) if text else 0
        sentence = False
        if chars:
            first = sentence_start(text)
            sentence = first is not None and sentence_rest(text, first.start()) is not None
        own_inline = chars
        inline_links = 0
        link_chars = 0
        links = 0
        prose = 0
        # a slice is one C call for all the children; iterating the element costs a
        # call per child (and an iterator object even for a leaf)
        for child in element[:]:
            tail = child.tail
            if tail:
                n = len(tail.strip())
                if n:
                    chars += n
                    own_inline += n
                    if not sentence:
                        first = sentence_start(tail)
                        if first is not None and sentence_rest(tail, first.start()) is not None:
                            sentence = True
            s = of.get(child)
            if s is None:
                continue
            c_chars, c_link_chars, c_links, c_prose, c_inline, c_inline_links, c_sentence = s
            chars += c_chars
            link_chars += c_link_chars
            links += c_links
            prose += c_prose
            if c_inline:
                own_inline += c_inline
                inline_links += c_inline_links
                sentence = sentence or c_sentence
        if tag == "a":
            link_chars = chars
            inline_links = own_inline
            links += 1
        if tag in inline_tags:
            of[element] = (chars, link_chars, links, prose, own_inline, inline_links, sentence)
            continue
        if tag not in headings:
            words = own_inline - inline_links
            if (
                words >= min_chars
                and inline_links <= max_link * own_inline
                and (sentence or words >= long_chars)
            ):
                prose += words
                paragraphs.append((element, words))
        if links >= farm_links and link_chars >= farm_share * chars and tag in farm_tags:
            farms.append(element)
        of[element] = (chars, link_chars, links, prose, 0, 0, False)
