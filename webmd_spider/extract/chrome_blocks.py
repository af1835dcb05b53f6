"""Small chrome blocks recognised by their shape and words, not their names: bylines,
ad and tag-list labels, reading times, interface controls ("Full Screen", "1 of 24",
"1.2K"), pagers, heading permalinks, the rows of data tables, and the runs of slides
of a gallery. Each is a predicate on one element (or one text); the cleaning pass
(`boilerplate.Cleaner`) decides what goes.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.chrome_names import _is_byline_name, class_words
from webmd_spider.extract.stats import Element

_SPACES = re.compile(r"\s+")

_TABLE_PARTS = frozenset({"tr", "td", "th", "tbody", "thead", "tfoot"})


def _in_data_table(element: Element) -> bool:
    """`element` is a part of a table with a header row (``<thead>`` or ``<th>``)."""
    table = next(element.iterancestors("table"), None)
    if table is None:
        return False
    return next(table.iter("thead", "th"), None) is not None


def _is_byline(element: Element, cls: str | None) -> bool:
    """A byline / dateline block by its names (`cls` is its class attribute), with no
    heading inside; the caller has checked that it is short and holds no prose (its
    facts are the row's author and dates)."""
    if element.tag in v.HEADING_TAGS:
        return False
    if len(element.attrib) == (0 if cls is None else 1):
        # no attribute but the class, if any (most elements): the names are the class's
        # words, read without three more attribute lookups
        if not cls or not cls.strip() or not _is_byline_name(cls):
            return False
    else:
        get = element.get
        names = f"{cls or ''} {get('id') or ''} {get('itemprop') or ''} {get('rel') or ''}"
        if not names.strip() or not _is_byline_name(names):
            return False
    return _only_byline_headings(element)


def _only_byline_headings(element: Element) -> bool:
    """Every heading in `element` is the author's name by its own names ("<h4
    class="author-name">" in a Ghost byline), if it holds any."""
    for heading in element.iter(*v.HEADING_TAGS):
        names = f"{heading.get('class') or ''} {heading.get('id') or ''}"
        if not names.strip() or not _is_byline_name(names):
            return False
    return True


@lru_cache(maxsize=16384)  # short leaf texts ("NULL", "Tags", "Advertisement") repeat
def _leaf_labels(text: str) -> tuple[bool, bool, bool]:
    """(an ad label, a tag-list label, a reading time): what the whole text of a leaf
    element (or a text node) is."""
    chars = len(text.strip())  # a leaf's measured characters
    ad_label = (
        chars <= v.AD_LABEL_MAX_CHARS
        and " ".join(text.split()).lower().strip(v.AD_LABEL_EDGES) in v.AD_LABELS
    )
    tag_label = chars <= v.TAG_LIST_LABEL_MAX_CHARS and v.TAG_LIST_LABELS.match(text) is not None
    reading_time = (
        chars <= v.READING_TIME_MAX_CHARS
        and ("ead" in text or "EAD" in text)
        and v.READING_TIME.match(text) is not None
    )
    return ad_label, tag_label, reading_time


_WORDS = re.compile(r"\w+")


# kinds of UI block (`_ui_text`)
UI_WORDS = 1  # interface words, or a "1 of 24" slide counter
UI_COUNT = 2  # a lone abbreviated count ("1.2K" claps, "3.4m" views)


def _is_ui_block(element: Element) -> int:
    """All the element's words are interface words, fillers, numbers or single
    letters, with one interface word at least (or a "1 of 24" counter), or its
    text is one abbreviated count ("1.2K"), and it holds no heading, code or table:
    `UI_WORDS`, `UI_COUNT`, or 0."""
    # a leaf's text content is its own text, read without lxml.html's XPath call
    text = ((element.text or "") if not len(element) else element.text_content()).strip()
    kind = _ui_text(text)
    if kind and next(element.iter(*v.UI_KEEP_DESCENDANTS), None) is None:
        return kind
    return 0


@lru_cache(maxsize=4096)  # short texts ("NULL", "Next", "1 of 24") repeat across pages
def _ui_text(text: str) -> int:
    """The words rule of `_is_ui_block` on the element's stripped text."""
    if text.endswith(":"):
        return 0
    if v.UI_ABBREVIATED_COUNT.match(text) is not None:
        return UI_COUNT
    words = _WORDS.findall(text.lower())
    if not words:
        return 0
    real = False
    for word in words:
        if word in v.UI_WORDS:
            real = True
        elif not (word in v.UI_FILLER_WORDS or word.isdigit() or len(word) == 1):
            return 0
    return UI_WORDS if real or v.UI_COUNTER.match(text) is not None else 0


def _is_pager(element: Element) -> bool:
    """Every link of the element with text opens with a previous / next label."""
    found = False
    for link in element.iter("a"):
        text = _link_text(link)
        if not text:
            continue
        if not v.PAGER_LABEL.match(text):
            return False
        found = True
    return found


def _longest_run(element: Element) -> int:
    """The most children of one tag under any single element of `element`'s tree."""
    best = 0
    for node in element.iter(etree.Element):
        if len(node) > best:
            counts: dict[str, int] = {}
            for child in node:
                if isinstance(child.tag, str):
                    counts[child.tag] = counts.get(child.tag, 0) + 1
            best = max(best, *counts.values(), 0)
    return best


def _link_text(link: Element) -> str:
    raw = link.text or "" if len(link) == 0 else link.text_content()
    return _SPACES.sub(" ", raw).strip()


def _in_heading(link: Element, href: str) -> bool:
    """A short in-page link inside a heading is that heading's permalink."""
    if not href.startswith("#"):
        return False
    return any(a.tag in v.HEADING_TAGS for a in link.iterancestors())


def see_also(element: Element) -> bool:
    """A block of the text's cross references, labelled so ("See also: bitand, bitor"),
    a definition list with such a term (Javadoc's "Since: 1.8 / See Also: Stream"), or
    the body right under such a label (Sphinx's "See also" admonition title, then its
    links): a manual's own links to related entries, not a list of the site's pages."""
    if element.tag == "dl" and any(
        v.SEE_ALSO_LABEL.match((term.text or "").strip()) for term in element.iterchildren("dt")
    ):
        return True
    head = (element.text or "").strip()
    if not head and len(element):
        head = (element[0].text or "").strip()  # <strong>See also:</strong>
    if head and v.SEE_ALSO_LABEL.match(head):
        # references name entries ("bitand, bitor"); a blog's "Siehe auch" lists its
        # posts by their headlines, a promotion of the site
        names = [len(" ".join(a.text_content().split())) for a in element.iter("a")]
        return not names or sum(names) <= _NAME_MAX_CHARS * len(names)
    # the body of a "See also" note: in a box named as a note of the text, right under
    # its title (a blog's "Siehe auch" over a list of its own posts is no such box)
    box = element.getparent()
    if box is None or v.ADMONITION_WORDS.isdisjoint(class_words(box)):
        return False
    label = element.getprevious()
    while label is not None and not isinstance(label.tag, str):
        label = label.getprevious()
    if label is None or len(label) > 1:
        return False
    words = " ".join(label.text_content().split())
    return len(words) <= _LABEL_MAX_CHARS and bool(v.SEE_ALSO_LABEL.match(words))


#: A label block ("See also", "See also:") is this short.
_LABEL_MAX_CHARS = 20
#: The links of a "See also" line name entries: this many characters each, on average
#: (an API name, a function, a section), not a post's headline.
_NAME_MAX_CHARS = 30


def footnotes(element: Element) -> bool:
    """The text's footnotes: a block named so (docutils' ``aside.footnote``, Texinfo's
    ``div.footnote``) or with a DPUB-ARIA 1.0 role (``doc-footnote``, ``doc-endnotes``)."""
    if (element.get("role") or "").strip().lower() in v.FOOTNOTE_ROLES:
        return True
    if not (element.get("class") or element.get("id")):
        return False
    return not v.FOOTNOTE_WORDS.isdisjoint(class_words(element))
