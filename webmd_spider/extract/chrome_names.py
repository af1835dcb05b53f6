"""What a block's class and id names say: the chrome verdict of one name, of a class
attribute or id, and of an element; media players, byline and gallery names,
text shown to screen readers only, and ids that are only the slug of the element's
own heading (a generated anchor, which says nothing about the block).

Names are split into words at separators and camelCase humps (`_name_parts`) and
judged against the words of `vocabulary.py`. The rules on strings are cached: names
repeat across a page's elements and across pages.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.stats import Element

_NAME_SPLIT = re.compile(r"[\s\-_:./]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_UPPER = re.compile(r"[A-Z]").search


def _name_parts(value: str) -> list[str]:
    """The words of a class attribute or id as written: split at separators and at
    camelCase humps ("mainNav_2" -> "main", "Nav", "2"), empty ones dropped."""
    parts = _NAME_SPLIT.split(value)
    if _UPPER(value) is None:  # no hump to split at: skip a regex split per part
        return [part for part in parts if part]
    return [w for part in parts for w in _CAMEL.split(part) if w]


_HEADER_WORDS = frozenset({"header", "masthead", "banner", "topbar"})

# Verdicts of a class or id name, weakest first (an element takes the strongest).
NOT_CHROME = 0
HEADER = 1  # chrome only through a header word: may be an article's own header
COMMENTS = 2  # a comment thread: kept only as the link-light majority of its container
CHROME = 3


_NUMBERED = re.compile(r"^([a-z]{3,}?)\d+$")


def _word(word: str) -> str:
    """A lower-cased name word, a number glued to its end dropped ("breadcrumbs2")."""
    lower = word.lower()
    match = _NUMBERED.match(lower)
    return match.group(1) if match else lower


@lru_cache(maxsize=8192)
def name_verdict(name: str) -> int:
    """Judge one class or id name: NOT_CHROME, CHROME, or HEADER."""
    lower = name.lower()
    if lower in v.CONTENT_NAMES:
        return NOT_CHROME
    if lower in v.BOILERPLATE_NAMES:
        return CHROME
    words = [_word(w) for w in _name_parts(name)]
    chrome = [w for w in words if w in v.BOILERPLATE_WORDS]
    if any(w in v.STRONG_BOILERPLATE_WORDS for w in words):
        return CHROME
    if not chrome or any(w in v.CONTENT_WORDS for w in words):
        return NOT_CHROME
    for word in words:
        if not (word in v.BOILERPLATE_WORDS or word in v.QUALIFIER_WORDS or word.isdigit()):
            return NOT_CHROME
    if all(w in _HEADER_WORDS for w in chrome):
        return HEADER
    return COMMENTS if all(w in v.COMMENT_WORDS for w in chrome) else CHROME


@lru_cache(maxsize=8192)
def attr_verdict(value: str) -> int:
    """Judge a whole class attribute (or id): the strongest verdict of its names."""
    return max((name_verdict(n) for n in value.split()), default=NOT_CHROME)


def element_verdict(element: Element) -> int:
    """Chrome verdict of an element's id and classes.

    A heading is never judged by its own names ("section-header", "page-header",
    id="comments"): they style or anchor the text's own title. Only a visually hidden
    one (`vocabulary.VISUALLY_HIDDEN_NAMES`) is not shown. An id that is the slug of the
    element's own heading is a generated anchor (`_is_heading_anchor`) and says nothing.
    """
    if element.tag in v.HEADING_TAGS:
        cls = element.get("class")
        return CHROME if cls and visually_hidden(cls) else NOT_CHROME
    verdict = NOT_CHROME
    cls = element.get("class")
    if cls:
        verdict = attr_verdict(cls)
        if verdict == CHROME:
            return CHROME
    ident = element.get("id")
    if ident:
        own = attr_verdict(ident)
        if own > verdict and not _is_heading_anchor(element, ident):
            verdict = own
    return verdict


@lru_cache(maxsize=4096)
def visually_hidden(value: str) -> bool:
    """A class attribute with a name of text shown to screen readers only ("sr-only")."""
    return not v.VISUALLY_HIDDEN_NAMES.isdisjoint(value.lower().split())


_NOT_ALNUM = re.compile(r"[\W_]+")


def _slug_key(text: str) -> str:
    """The letters and digits of `text`, lower-cased: a heading's text and the anchor a
    site generator made of it ("Social links" / "social-links", "social_links") compare
    equal, whatever separator the generator chose."""
    return _NOT_ALNUM.sub("", text.lower())


def _is_heading_anchor(element: Element, ident: str) -> bool:
    """`ident` is the slug of the element's own heading: the heading itself, or the
    first child with text of a section of a document's section tree (Sphinx writes
    every section as ``<section id="footer"><h2>Footer¶</h2>``; Markdown generators
    give headings ``id="comments"`` from their text). Such an id names a part of the
    text, not a region of the page. Loose match: a duplicate's number ("footer-1") or
    a heading's section number ("2.3 Footer") is ignored."""
    if element.tag in v.HEADING_TAGS:
        heading: Element = element
    elif _is_section(element):
        # a chrome box may be titled by its role ("<div id="footer"><h3>Footer</h3>",
        # "<section id="newsletter"><h2>Newsletter</h2>"): only a section of a tree of
        # sections, or one whose heading links to it (a permalink), is so judged
        first = _first_heading(element)
        if first is None:
            return False
        heading = first
        parent = element.getparent()
        nested = parent is not None and _is_section(parent) and bool(parent.get("id"))
        if not nested and not _links_to(heading, ident):
            return False
    else:
        return False
    key = _slug_key(ident)
    text = _slug_key(heading.text_content())
    if not key or not text:
        return False
    return key.rstrip("0123456789") in (text, text.lstrip("0123456789")) or key == text


def _is_section(element: Element) -> bool:
    """A ``<section>`` or an element classed "section" (docutils' HTML4 writer)."""
    return element.tag == "section" or "section" in (element.get("class") or "").split()


def _links_to(heading: Element, ident: str) -> bool:
    """The heading holds a permalink to `ident` ("<a class="headerlink" href="#footer">")."""
    target = "#" + ident
    return any(link.get("href") == target for link in heading.iter("a"))


def _first_heading(element: Element) -> Element | None:
    """The element's first child holding text, when it is a heading and no text
    comes before it (empty anchors / target spans before it are skipped)."""
    if element.text and element.text.strip():
        return None
    for child in element:
        if not isinstance(child.tag, str):
            continue  # a comment or processing instruction
        if child.tag in v.HEADING_TAGS:
            return child
        if any(t.strip() for t in child.itertext()) or (child.tail and child.tail.strip()):
            return None
    return None


@lru_cache(maxsize=8192)
def _player_name(value: str) -> bool:
    """A class attribute or id with a word naming a media player ("video-player", "vjs-...")."""
    return any(w.lower() in v.PLAYER_WORDS for w in _name_parts(value))


# Every word that some rule of `name_verdict` or `_player_name` needs to see.
_CHROME_HINT_WORDS = v.BOILERPLATE_WORDS | v.STRONG_BOILERPLATE_WORDS | v.PLAYER_WORDS


@lru_cache(maxsize=8192)
def _chrome_name(value: str) -> bool:
    """A class attribute or id that makes its element a chrome candidate: a chrome
    verdict (`attr_verdict`) or a media player's name."""
    # Both rules judge the value name by name (`attr_verdict` takes the strongest
    # name, `_player_name` looks for any word), so the value is a candidate when one
    # of its names is. Whole values are often unique ("post-4711 type-post
    # status-publish", "id-1.9.3.172") while their names repeat across pages and
    # sites: the per-name cache answers most of a new value's names.
    return any(_chrome_one_name(name) for name in value.split())


@lru_cache(maxsize=16384)
def _chrome_one_name(name: str) -> bool:
    """`_chrome_name` of one whitespace-free class name or id."""
    # the two rules below (three caches deep) cost several times this test: neither
    # can fire unless the name is a chrome name, or a word of it, lower-cased and
    # with or without a number glued to its end (`_word`), is a chrome or player word
    words = _name_parts(name)
    keys = {w.lower() for w in words}
    keys.update(_word(w) for w in words if w[-1].isdigit())
    if keys.isdisjoint(_CHROME_HINT_WORDS) and name.lower() not in v.BOILERPLATE_NAMES:
        return False
    return name_verdict(name) != NOT_CHROME or _player_name(name)


@lru_cache(maxsize=4096)
def _player_label(label: str) -> bool:
    return v.PLAYER_LABEL.search(label) is not None


def is_player(element: Element) -> bool:
    """A media player or a part of one, by its aria-label, classes or id."""
    label = element.get("aria-label")
    if label and _player_label(label):
        return True
    return any(_player_name(element.get(a) or "") for a in ("class", "id"))


def class_words(element: Element) -> set[str]:
    """Lower-cased words of the element's classes and id."""
    raw = f"{element.get('class') or ''} {element.get('id') or ''}"
    return {w.lower() for w in _name_parts(raw)}


@lru_cache(maxsize=4096)  # class/id names repeat across a page's elements
def _is_byline_name(names: str) -> bool:
    words = [w.lower() for w in _name_parts(names)]
    if any(w in v.BYLINE_WORDS for w in words):
        return True
    return any(pair in v.BYLINE_PAIRS for pair in itertools.pairwise(words))


@lru_cache(maxsize=4096)
def _gallery_name(value: str) -> bool:
    """A class attribute with a name made of a gallery word and qualifiers
    ("full-gallery", "slideshow-container"; not "gallery-caption-text")."""
    for name in value.split():
        words = [w.lower() for w in _name_parts(name)]
        if any(w in v.GALLERY_WORDS for w in words) and all(
            w in v.GALLERY_WORDS or w in v.QUALIFIER_WORDS or w.isdigit() for w in words
        ):
            return True
    return False
