"""Cut page chrome out of the chosen content root, in place.

Rules (vocabulary in `vocabulary.py`):

* landmark tags and roles (nav, header, footer, aside, banner, complementary...),
  except an article's own header with its title, an aside that is a note or
  holds prose, and a role-marked section with its own heading and prose;
* ids / classes made of chrome words ("site-footer", "mainNav", "post-share"),
  never one holding the page's <h1>, most of the content, 200+ characters of
  prose, or a link-light majority of its own container, judged with the sibling
  items of its kind (every comment of one list gets one verdict)
  (a box drawn over the page - modal, popup, lightbox - is not kept for its
  prose; a mass of links without prose beside the article's prose - a kudos
  list - does not count as "most of the content"); a heading is never judged by
  its own names (unless visually hidden, "sr-only"), nor a section of a
  document by an id that is the slug of its heading (Sphinx's
  ``<section id="footer"><h2>Footer</h2>``);
* media players (aria-label "Video Player", class words "player", "vjs"...)
  holding little prose: their controls and settings menus;
* link farms, cookie notices recognised by their words, "Related posts"
  headings with their link lists, heading permalinks and "Edit this page" links;
  but a list of links right under a heading in the text's flow ("See also",
  "Further reading", a changelog's links) stays unless the heading names the
  site's promotion and the links stay on the site (or it asks to share / follow);
* pager links: a short block whose whole text is links each opening with a
  previous / next label ("← Previous: Title", "Next Chapter");
* teaser cards: 3+ sibling blocks each with one linked headline and a short
  blurb (a "more stories" stream), unless they make most of the root (a
  listing page) and the root has no titled article beside them;
* byline blocks by their names or around a reading time ("6 min read"), and
  reaction controls ("2 Likes", "Follow", a lone "1.2K" outside lists and tables);
* last, a heading whose whole section went with the rules above.

One top-down walk with an explicit stack (no recursion); text sizes come from
the `TextStats` measured once before.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.clean import TAB_LABEL_ATTR
from webmd_spider.extract.stats import CHARS, LINK_CHARS, LINKS, PROSE, Element, TextStats

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


_SPACES = re.compile(r"\s+")
_HEADER_WORDS = frozenset({"header", "masthead", "banner", "topbar"})
# compiled once: `element.xpath(str)` compiles its expression on every call
_HEADING_XPATH = etree.XPath("descendant::*[self::h1 or self::h2 or self::h3]")

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


_STRING = etree.XPath("string()")
_COOKIE_TEXTS = etree.XPath(
    "descendant::text()[" + " or ".join(f"contains(., '{h}')" for h in v.COOKIE_TEXT_HINTS) + "]"
)


@dataclass(slots=True)
class Survey:
    """What one walk over a page's elements finds by their tags and attributes."""

    #: `chrome_candidates()` of the page
    candidates: list[Element]
    #: (element, id, class) of every element with an id or a class, in document order
    named: list[tuple[Element, str | None, str | None]]
    #: the elements below the top with role="main", in document order
    role_main: list[Element]
    #: whether some element carries a tab label (`TAB_LABEL_ATTR`, set by clean.py)
    tab_labels: bool
    #: (element, itemprop) of the elements below the top with an itemprop, in document order
    itemprops: list[tuple[Element, str]]


def survey(top: Element, stats: TextStats) -> Survey:
    """`chrome_candidates()` of `top` (`stats` measured on it), and on the same walk
    what root selection and rendering read from the attributes of every element:
    containers by id / class / itemprop, [role=main], whether any tab label is set.

    One walk instead of four: on documentation pages of a few hundred elements each
    walk, with its attribute reads, costs as much as the work it feeds."""
    marked: list[Element] = []
    named: list[tuple[Element, str | None, str | None]] = []
    role_main: list[Element] = []
    tab_labels = False
    itemprops: list[tuple[Element, str]] = []
    tags = v.BOILERPLATE_TAGS
    roles = v.BOILERPLATE_ROLES
    for element in stats.elements:
        # one C call for all the attributes (most elements have none or one), rather
        # than a lookup per name; the HTML parser keeps one value per name
        cls = ident = role = label = None
        for name, value in element.items():
            if name == "class":
                cls = value
            elif name == "id":
                ident = value
            elif name == "role":
                role = value
            elif name == "aria-label":
                label = value
            elif name == "itemprop":
                if element is not top:
                    itemprops.append((element, value))
            elif name == TAB_LABEL_ATTR:
                tab_labels = True
        if cls or ident:
            named.append((element, ident, cls))
        if role == "main" and element is not top:
            role_main.append(element)
        if (
            element.tag in tags
            or (cls and _chrome_name(cls))
            or (ident and _chrome_name(ident) and not _is_heading_anchor(element, ident))
            or (role and role.lower() in roles)
        ):
            marked.append(element)
            continue
        if label and _player_label(label):
            marked.append(element)
    found = dict.fromkeys(marked)
    for element in stats.link_farms:
        found[element] = None  # one already found keeps its place
    found.pop(top, None)
    return Survey(list(found), named, role_main, tab_labels, itemprops)


def chrome_candidates(top: Element, stats: TextStats) -> list[Element]:
    """Elements under `top` that some chrome rule might remove: landmark tags and
    roles, chrome-classed ids / classes, and link farms (unique, document order
    except link farms last)."""
    return survey(top, stats).candidates


class Cleaner:
    """Boilerplate removal inside one content root."""

    def __init__(
        self,
        root: Element,
        stats: TextStats,
        h1: Element | None,
        candidates: list[Element] | None = None,
        site: str | None = None,
    ) -> None:
        self.root = root
        #: host of the page's URL (``urls.site_key`` without a port), when known
        self.site = _host_of_site(site) if site else None
        self.stats = stats
        self.of = stats.of
        self.protected: set[Element] = set()
        self.tag_labels: list[Element] = []  # found by `_scan`
        #: the parent of every element removed (`stats.remeasure` measures them again)
        self.touched: list[Element] = []
        self.h1 = h1
        if h1 is not None:
            self.protected.add(h1)
            self.protected.update(h1.iterancestors())
        # Highlighters class code tokens "comment", "tag", "meta"...: never chrome.
        for code in root.iter("pre", "code"):
            if len(code):  # most code spans are one text node: nothing to protect
                self.protected.update(code.iterdescendants())
        self.content_chars = max(1, stats.chars(root))
        self.content_prose = stats.prose(root)
        self.root_is_page = root.tag in ("body", "html")
        self.candidates = chrome_candidates(root, stats) if candidates is None else candidates
        self._groups: dict[tuple[Any, ...], tuple[int, int, Element]] = {}
        self._paragraphs: set[Element] | None = None
        #: (previous sibling, parent) of every block with text removed: where a
        #: heading may have lost all of its section (`_remove_orphan_headings`)
        self._scars: list[tuple[Element | None, Element]] = []
        self._site_hosts: frozenset[str] | None = None  # `_on_site_hosts`, when asked

    def run(self) -> None:
        inside: list[tuple[int, Element]] = []
        for element in self.candidates:
            depth = _depth_below(element, self.root)
            if depth > 0 and element not in self.protected:
                inside.append((depth, element))
        inside.sort(key=lambda pair: pair[0])  # outer boxes first
        for _, element in inside:
            # dropped with an outer box already: no longer under the root
            if _depth_below(element, self.root) > 0 and self._is_chrome(element):
                self._drop(element)
        galleries, labels, bylines, controls, pagers = self._scan()
        self._remove_galleries(galleries)
        self._remove_cookie_notices()
        self._remove_ad_labels(labels)
        self._remove_ui_blocks(controls)
        self._remove_with_bare_wrappers(pagers)
        self._remove_related_lists()
        self._remove_tag_lists()
        self._remove_teaser_cards()
        self._remove_anchor_links()
        for element in bylines:
            if element.getparent() is not None and _depth_below(element, self.root) > 0:
                self._drop(element)
        if self._scars:
            self._remove_orphan_headings()

    def _drop(self, element: Element) -> None:
        """Remove `element` (with its tail kept), noting where it was if it held text."""
        parent = element.getparent()
        if parent is None:
            return
        if self.stats.chars(element) > 0:
            self._scars.append((_element_before(element), parent))
        self.touched.append(parent)
        element.drop_tree()

    def _scan(
        self,
    ) -> tuple[list[Element], list[Element], list[Element], list[Element], list[Element]]:
        """One walk of the root: gallery boxes, ad-label leaves, byline blocks,
        UI-word blocks and pager blocks (outermost ones only)."""
        galleries: list[Element] = []
        labels: list[Element] = []
        bylines: list[Element] = []
        controls: list[Element] = []
        tag_labels: list[Element] = []
        self.tag_labels = tag_labels
        in_control: set[Element] = set()
        pagers: list[Element] = []
        in_pager: set[Element] = set()
        of = self.of
        protected = self.protected
        root = self.root
        # the thresholds, read once: this loop visits every element of the root
        leaf_max = max(v.AD_LABEL_MAX_CHARS, v.TAG_LIST_LABEL_MAX_CHARS)
        byline_max = v.BYLINE_MAX_CHARS
        byline_prose = v.BYLINE_MAX_PROSE
        ui_max = v.UI_BLOCK_MAX_CHARS
        pager_max = v.PAGER_MAX_CHARS
        pager_share = v.PAGER_LINK_SHARE
        skip_tags = v.UI_SKIP_TAGS
        stop_tags = v.UI_STOP_TAGS
        counter_stop_tags = v.COUNTER_STOP_TAGS
        reading_times: list[Element] = []
        for element in root.iter(etree.Element):
            if element is root or element in protected:
                continue
            s = of.get(element)
            if s is None:
                continue
            chars = s[CHARS]
            if chars == 0:
                # "<i class="icon-clock"></i> 7 min read": words of the parent
                tail = element.tail
                if tail and "ead" in tail and _leaf_labels(tail)[2]:
                    reading_times.append(element.getparent())
                continue
            cls = element.get("class")
            if cls and _gallery_name(cls) and self._is_gallery(element, galleries):
                galleries.append(element)
            if chars <= leaf_max and not len(element):
                # a leaf: its own text is all of its text
                text = element.text
                if text:
                    ad_label, tag_label, reading_time = _leaf_labels(text)
                    if ad_label:
                        labels.append(element)
                    if tag_label:
                        tag_labels.append(element)
                    if reading_time:
                        reading_times.append(element)
                tail = element.tail
                # "<span class="bull">•</span> 7 min read": words of the parent
                if tail and "ead" in tail and _leaf_labels(tail)[2]:
                    reading_times.append(element.getparent())
            prose = s[PROSE]
            if chars <= byline_max and prose <= byline_prose and _is_byline(element, cls):
                bylines.append(element)
            if chars <= ui_max and prose == 0:
                if element.getparent() in in_control:
                    in_control.add(element)  # inside a found block: nothing new
                elif element.tag not in skip_tags:
                    kind = _is_ui_block(element)
                    if kind:
                        in_control.add(element)
                        # the text of a heading or a table cell is the page's, whatever
                        # its words; a lone number in a list is the list's too
                        stops = stop_tags if kind == UI_WORDS else counter_stop_tags
                        if not any(a.tag in stops for a in element.iterancestors()):
                            controls.append(element)
            if chars <= pager_max and s[LINK_CHARS] >= pager_share * chars:
                if element.getparent() in in_pager:
                    in_pager.add(element)
                elif element.tag not in skip_tags and _is_pager(element):
                    in_pager.add(element)
                    if not any(a.tag in stop_tags for a in element.iterancestors()):
                        pagers.append(element)
        bylines.extend(self._reading_time_bylines(reading_times))
        return galleries, labels, bylines, controls, pagers

    def _reading_time_bylines(self, found: list[Element]) -> list[Element]:
        """The byline block around each reading-time note ("6 min read"): the largest
        ancestor that stays short and without prose or a heading but the author's name
        (`BYLINE_MAX_CHARS`), below the title's box. A note in a list or a table (a
        course's lessons with their times) is content."""
        blocks = []
        for element in found:
            if element is None or element is self.root or element in self.protected:
                continue
            if any(a.tag in v.COUNTER_STOP_TAGS for a in _ancestors_below(element, self.root)):
                continue
            block, parent = element, element.getparent()
            while parent is not None and parent is not self.root and parent not in self.protected:
                s = self.of.get(parent)
                if s is None or s[CHARS] > v.BYLINE_MAX_CHARS or s[PROSE] > v.BYLINE_MAX_PROSE:
                    break
                if not _only_byline_headings(parent):
                    break
                block, parent = parent, parent.getparent()
            blocks.append(block)
        return blocks

    # -- landmark, class and link-farm rules ----------------------------------

    def _is_chrome(self, element: Element) -> bool:
        if element in self.protected:
            return False
        s = self.of.get(element)
        if s is None:
            return False
        tag = element.tag
        if tag in v.HEADING_TAGS:  # judged by its names only when visually hidden
            return element_verdict(element) == CHROME
        role = (element.get("role") or "").lower()
        if tag in v.BOILERPLATE_TAGS or role in v.BOILERPLATE_ROLES:
            return self._landmark_is_chrome(element, tag, role, s)
        if tag in _TABLE_PARTS and _in_data_table(element):
            # a row of a data table is data whatever its class says ("player-row" in a
            # standings table is a sports player, not a media player)
            return False
        verdict = element_verdict(element)
        if verdict == NOT_CHROME and is_player(element):
            return (
                s[PROSE] <= v.PLAYER_MAX_PROSE
                and s[CHARS] <= v.GUARD_CONTENT_SHARE * self.content_chars
            )
        if verdict != NOT_CHROME:
            if tag in v.INLINE_TAGS and self._in_prose(element):
                return False
            words = class_words(element)
            if words & v.BOX_TITLE_WORDS and self._in_kept_aside(element):
                return False  # "sidebar-title" of a sidebar kept as text: its title
            if "toc" in words and self._in_title_toc(element):
                return False  # a chapter's own table of contents, under its title
            if verdict == HEADER and self._is_own_header(element):
                return False
            prose_guard = verdict != COMMENTS and not (class_words(element) & v.OVERLAY_WORDS)
            return not self._class_guard(element, s, prose_guard=prose_guard)
        return (  # a link farm
            tag in v.LINK_FARM_TAGS
            and s[LINKS] >= v.LINK_FARM_MIN_LINKS
            and s[LINK_CHARS] >= v.LINK_FARM_LINK_SHARE * s[CHARS]
            and s[CHARS] <= v.LINK_FARM_MAX_SHARE * self.content_chars
            and s[PROSE] < v.LINK_FARM_KEEP_PROSE
            and not self._sublist_of_prose(element)
            and not self._cited_links(element)
            and not self._in_kept_list(element)
            and not self._in_title_toc(element)
        )

    def _in_kept_list(self, element: Element) -> bool:
        """`element` is a list nested in a list that stays (boxes are judged outer
        first): a branch of a table of contents goes with its tree, not alone."""
        if element.tag not in ("ul", "ol", "dl"):
            return False
        for ancestor in element.iterancestors():
            if ancestor is self.root:
                return False
            if ancestor.tag in ("ul", "ol", "dl"):
                return True
        return False

    def _in_title_toc(self, element: Element) -> bool:
        """`element` is, or sits in, a `_title_toc` box of the root."""
        if self.h1 is None:
            return False
        for box in itertools.chain((element,), element.iterancestors()):
            if box is self.root:
                return False
            if "toc" in class_words(box) and self._title_toc(box):
                return True
        return False

    def _title_toc(self, element: Element) -> bool:
        """`element` (a "toc" box) comes right after the box of the page's title, before
        any text, and leads to other pages of the site: a manual's chapter page lists its
        sections there (DocBook's ``div.titlepage`` + ``div.toc``). A table of contents
        into the page, or one elsewhere (a sidebar), is not this."""
        if self.h1 is None:
            return False
        before = element.getprevious()
        while before is not None and not isinstance(before.tag, str):
            before = before.getprevious()
        if before is None or not (before is self.h1 or self.h1 in before.iterdescendants()):
            return False
        pages, off_site = self._link_targets([element])
        stats = self.of.get(element)
        return stats is not None and pages * 2 > stats[LINKS] and off_site == 0

    def _in_flow(self, element: Element) -> bool:
        """`element` stands among the paragraphs of the text: a sibling of it is a
        paragraph with prose."""
        parent = element.getparent()
        if parent is None:
            return False
        return any(
            sibling.tag == "p" and self.stats.prose(sibling) > 0
            for sibling in parent.iterchildren(etree.Element)
        )

    def _in_kept_aside(self, element: Element) -> bool:
        """`element` sits in an <aside> of the root that the landmark rule kept."""
        for ancestor in element.iterancestors():
            if ancestor is self.root:
                return False
            if ancestor.tag == "aside":
                return True
        return False

    def _cited_links(self, element: Element) -> bool:
        """A list of links right under a heading in the flow of the text (its parent
        holds prose besides the list): the article's "See also", "Further reading",
        "External links", a changelog's version links. Kept unless the heading names
        the site's promotion ("Related posts", "Popular", "Tags": `RELATED_HEADINGS`,
        `TAG_LIST_LABELS`) and the links stay on the site, or asks to share or follow
        (`SOCIAL_HEADINGS`); a table of contents (links into the page) is not kept."""
        previous = _element_before(element)
        if previous is None or previous.tag not in v.HEADING_TAGS:
            return False
        parent = element.getparent()
        if parent is None:
            return False
        if self.stats.prose(parent) - self.stats.prose(element) < v.LINK_FARM_KEEP_PROSE:
            return False  # a box of links, not a section of the text
        pages, off_site = self._link_targets([element])
        if pages * 2 <= self.stats.of[element][LINKS]:
            return False  # mostly links into the page: a table of contents
        title = _SPACES.sub(" ", previous.text_content()).strip()
        if v.SOCIAL_HEADINGS.match(title):
            return False  # "Share this", "Follow us": buttons, to other sites or not
        if off_site > v.CITED_LINKS_OFF_SITE_SHARE * pages:
            return True
        return not (v.RELATED_HEADINGS.match(title) or v.TAG_LIST_LABELS.match(title))

    def _off_site(self, elements: list[Element]) -> bool:
        """Most links of `elements` to pages lead to other sites than the page's."""
        pages, off_site = self._link_targets(elements)
        return off_site > v.CITED_LINKS_OFF_SITE_SHARE * pages

    def _link_targets(self, elements: list[Element]) -> tuple[int, int]:
        """(links to pages, links to other sites' pages) of `elements`: in-page, script
        and mail links lead to no page; relative ones stay on the site; absolute ones
        leave it unless their host is one of `_on_site_hosts`. When the page's site is
        not known, absolute links all to one host are taken for the site's own (a
        WordPress "Related posts" list), and only links to several hosts leave it."""
        pages = 0
        absolute: list[str] = []
        for element in elements:
            for link in element.iter("a"):
                host = _link_host(link.get("href") or "")
                if host is None:
                    continue
                pages += 1
                if host:
                    absolute.append(host)
        if not absolute:
            return pages, 0
        hosts = self._on_site_hosts()
        if not hosts and len(set(absolute)) == 1:
            return pages, 0
        return pages, sum(1 for host in absolute if not _same_site(host, hosts))

    def _on_site_hosts(self) -> frozenset[str]:
        """Hosts of the page's own site: the caller's `site`, the page's canonical,
        og:url and <base>; without any of them, the host most of the
        page's absolute links outside the content root lead to (its navigation),
        when that is a few links at least (a footer's one link to the project's
        GitHub does not make GitHub the site)."""
        if self._site_hosts is None:
            hosts: set[str] = {self.site} if self.site else set()
            top = self.root.getroottree().getroot()
            found: list[Any] = _SITE_TAGS(top)  # type: ignore[assignment]
            for tag in found:
                host = _link_host(tag.get("href") or tag.get("content") or "")
                if host:
                    hosts.add(host)
            if not hosts and not self.root_is_page:
                counts: dict[str, int] = {}
                for link in top.iter("a"):
                    host = _link_host(link.get("href") or "")
                    if host and _depth_below(link, self.root) == 0:
                        counts[host] = counts.get(host, 0) + 1
                if counts:
                    host, count = max(counts.items(), key=lambda pair: pair[1])
                    if count >= v.SITE_NAV_MIN_LINKS:
                        hosts.add(host)
            self._site_hosts = frozenset(hosts)
        return self._site_hosts

    def _sublist_of_prose(self, element: Element) -> bool:
        """A list nested in an item of a list that holds prose (a bug list under
        "In progress:" in a list of notes) is part of that text."""
        item = element.getparent()
        if item is None or item.tag != "li":
            return False
        outer = item.getparent()
        return outer is not None and self.stats.prose(outer) >= v.LINK_FARM_KEEP_PROSE

    def _in_prose(self, element: Element) -> bool:
        """An inline element flowing inside a prose paragraph (a glossary link
        classed "popup" in a novel's text) is part of that text."""
        if self._paragraphs is None:
            self._paragraphs = {e for e, _ in self.stats.paragraphs}
        for ancestor in element.iterancestors():
            if ancestor.tag not in v.INLINE_TAGS:
                return ancestor in self._paragraphs
        return False

    def _landmark_is_chrome(
        self, element: Element, tag: str, role: str, s: tuple[int, ...]
    ) -> bool:
        if self._holds_content(s):
            return False
        if (tag == "header" or role == "banner") and self._is_own_header(element):
            return False
        if tag == "header" and s[PROSE] >= v.HEADER_KEEP_PROSE:
            # a page header is a logo, a menu and a search box; this much prose is the
            # text itself, nested in the header by markup that never closed it
            return False
        aside = tag == "aside" or role == "complementary"
        if aside and (
            class_words(element) & v.ADMONITION_WORDS
            or s[PROSE] >= v.ASIDE_KEEP_PROSE
            # a sidebar in the flow of the text (beside its paragraphs, not a column of
            # the page) holding its code example or a figure: Python's asyncio page has
            # its only "Hello World!" there
            or (next(element.iter("pre", "figure"), None) is not None and self._in_flow(element))
        ):
            return False
        if role and tag not in v.BOILERPLATE_TAGS:
            has_heading = next(element.iter(*v.HEADING_TAGS), None) is not None
            if has_heading and s[PROSE] >= v.SECTION_KEEP_PROSE:
                return False
        return True

    def _holds_content(self, s: tuple[int, ...]) -> bool:
        """More than half of the root's text, unless that is a mass of links
        without prose (a kudos or tag list) beside an article's prose."""
        if s[CHARS] <= v.GUARD_CONTENT_SHARE * self.content_chars:
            return False
        return not (
            s[LINK_CHARS] >= v.LINK_MASS_LINK_SHARE * s[CHARS]
            and s[PROSE] <= v.LINK_MASS_MAX_PROSE_SHARE * s[CHARS]
            and self.content_prose - s[PROSE] >= v.LINK_MASS_OTHER_PROSE
        )

    def _is_own_header(self, element: Element) -> bool:
        """A header with a title that belongs to an article, not to the site."""
        if not _HEADING_XPATH(element):
            return False
        if not self.root_is_page:
            return True
        return any(a.tag == "article" for a in element.iterancestors())

    def _class_guard(self, element: Element, s: tuple[int, ...], *, prose_guard: bool) -> bool:
        """True when a class-matched element must stay. Comment threads are
        prose by nature: for them only the majority rule counts."""
        chars = s[CHARS]
        if self._holds_content(s):
            return True
        if (
            prose_guard
            and s[PROSE] >= v.GUARD_PROSE_CHARS
            and s[PROSE] >= v.GUARD_PROSE_SHARE * chars
        ):
            return True
        if element.getparent() is None:
            return False
        # the element, with the sibling items of its kind (the posts of a forum thread,
        # the comments of one list), is the link-light majority of its container
        group, links, container = self._group(element, chars)
        if links > v.GUARD_MAJORITY_LINK_SHARE * group:
            return False
        return (
            group >= v.GUARD_MAJORITY_MIN_CHARS
            and group >= v.GUARD_MAJORITY_SHARE * self.stats.chars(container)
        )

    def _group(self, element: Element, chars: int) -> tuple[int, int, Element]:
        """(text, link text, container) of the run of items `element` belongs to.

        The item is `element` or the outermost wrapper holding nothing else (WordPress
        and WooCommerce wrap each ``div#comment-120`` in an ``li``); its group is the
        sibling items of the same tag whose element at the same place is of its kind
        (`_kind`), so that every comment of a list gets one verdict, whatever its
        even / odd / author classes. The container is the item's parent or, when the
        group fills it (a bare list), the first ancestor holding more text."""
        stats = self.stats
        item, parent = element, element.getparent()
        path: list[str] = []  # tags from the item down to the element, reversed
        while (
            parent is not None
            and parent is not self.root
            and parent not in self.protected
            and stats.chars(parent) == chars
        ):
            path.append(item.tag)
            item, parent = parent, parent.getparent()
        if parent is None:
            return chars, self.of[element][LINK_CHARS], item
        path.reverse()
        kind = _kind(element)
        key = (parent, item.tag, tuple(path), kind)
        found = self._groups.get(key)
        if found is None:
            group = links = 0
            for sibling in parent:
                if sibling.tag != item.tag:
                    continue
                probe: Element | None = sibling
                for tag in path:
                    if probe is None:
                        break
                    probe = next(probe.iterchildren(tag), None)
                if probe is not None and (probe is element or _kind(probe) == kind):
                    s = self.of.get(sibling)
                    if s is not None:
                        group += s[CHARS]
                        links += s[LINK_CHARS]
            container = parent
            if group >= stats.chars(parent):
                container = self._container_of(parent, group)
            found = self._groups[key] = (group, links, container)
        return found

    def _container_of(self, wrapper: Element, chars: int) -> Element:
        """`wrapper` or its first ancestor (up to the root) holding more than `chars` of text."""
        while wrapper is not self.root and self.stats.chars(wrapper) <= chars:
            parent = wrapper.getparent()
            if parent is None:
                break
            wrapper = parent
        return wrapper

    # -- headings left without their section -----------------------------------

    def _remove_orphan_headings(self) -> None:
        """A heading just before a removed block whose section (up to the next heading
        of its level or higher) holds nothing any more: the title of a removed list
        ("See also", "Related posts" above a removed link list) is no content alone."""
        seen: set[Element] = set()
        for previous, parent in self._scars:
            heading = self._heading_before(previous, parent)
            if heading is None or heading in seen or heading in self.protected:
                continue
            seen.add(heading)
            if self._section_is_empty(heading):
                parent = heading.getparent()
                if parent is not None:
                    self.touched.append(parent)
                heading.drop_tree()

    def _heading_before(self, previous: Element | None, parent: Element) -> Element | None:
        """The heading right before the place of a removed block (`previous` its
        previous sibling then, `parent` its parent), past empty elements and up out of
        wrappers it opened; None when some text comes first."""
        node: Element | None = previous
        if node is not None and node.getparent() is None:
            node = None  # removed since: start from the parent
        if node is None:
            node = parent
            if node is self.root or node.getparent() is None:
                return None
            node = _previous_element(node, self.root)
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
            node = _previous_element(node, self.root)
        return None

    def _section_is_empty(self, heading: Element) -> bool:
        """Nothing but blanks follows `heading` before the next heading of its level or
        higher (a subheading is content) or the end of the root."""
        level = int(heading.tag[1])
        node = heading
        while node is not self.root:
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

    # -- galleries ------------------------------------------------------------

    def _is_gallery(self, element: Element, found: list[Element]) -> bool:
        if self.stats.chars(element) < v.GALLERY_MIN_SHARE * self.content_chars:
            return False  # a few pictures in the text
        if any(a in found for a in element.iterancestors()):
            return False
        return _longest_run(element) >= v.GALLERY_MIN_SLIDES

    def _remove_galleries(self, found: list[Element]) -> None:
        """Slideshows beside an article: a gallery-classed box holding a run of
        many sibling slides and a fair share of the root's text, when the root
        has prose enough outside it."""
        if not found:
            return
        inside = sum(self.stats.prose(e) for e in found)
        if self.content_prose - inside < v.GALLERY_ARTICLE_PROSE:
            return  # the slideshow is the page's content
        for element in found:
            if element.getparent() is not None:
                self._drop(element)

    # -- text-recognised chrome -------------------------------------------------

    def _remove_cookie_notices(self) -> None:
        # one C-level read of the root's text first: most pages have no hint at all,
        # and the per-text-node XPath below costs far more than this (a substring test
        # per hint, not one regular expression: the alternation is tried at every
        # character of the text, which costs more than building the string)
        whole = str(_STRING(self.root))
        if not any(hint in whole for hint in v.COOKIE_TEXT_HINTS):
            return
        texts: list[Any] = _COOKIE_TEXTS(self.root)  # type: ignore[assignment]
        for text in texts:
            holder = text.getparent()
            if holder is None:
                continue
            if text.is_tail:
                holder = holder.getparent()
            block = None
            while holder is not None and holder is not self.root:
                if self.stats.chars(holder) > v.COOKIE_MAX_CHARS or holder in self.protected:
                    break
                block = holder
                holder = holder.getparent()
            if block is None or block.getparent() is None:
                continue
            if block.tag in v.INLINE_TAGS or block.tag in ("p", "li", "td", "pre", "blockquote"):
                continue
            words = " ".join(block.itertext())
            if v.COOKIE_PHRASES.search(words) and v.COOKIE_ACTIONS.search(words):
                self._drop(block)

    def _remove_ad_labels(self, labels: list[Element]) -> None:
        """Blocks whose whole text is an ad label ("Advertisement", "Story continues
        below"), with the wrappers that hold nothing else."""
        self._remove_with_bare_wrappers(labels)

    def _remove_ui_blocks(self, controls: list[Element]) -> None:
        """UI-word blocks ("Full Screen", "1 of 24", "Buy Photo"), with the
        wrappers that hold nothing else."""
        self._remove_with_bare_wrappers(controls)

    def _remove_with_bare_wrappers(self, elements: list[Element]) -> None:
        """Remove each element together with the ancestors that hold no other text."""
        doomed = []
        for holder in elements:
            size = self.stats.chars(holder)
            parent = holder.getparent()
            while (
                parent is not None
                and parent is not self.root
                and parent not in self.protected
                and self.stats.chars(parent) == size
            ):
                holder, parent = parent, parent.getparent()
            doomed.append(holder)
        for element in doomed:
            if element.getparent() is not None and _depth_below(element, self.root) > 0:
                self._drop(element)

    def _remove_related_lists(self) -> None:
        for heading in list(self.root.iter(*v.RELATED_HEADING_TAGS)):
            if heading.getparent() is None or heading in self.protected:
                continue
            if self.stats.chars(heading) > v.RELATED_HEADING_MAX_CHARS:
                continue
            if not v.RELATED_HEADINGS.match(_SPACES.sub(" ", heading.text_content())):
                continue
            anchor = heading
            following = heading.getnext()
            # <div><h3>Related</h3></div><ul>...</ul>: the heading alone in a wrapper
            parent = heading.getparent()
            if following is None and parent is not None and len(parent) == 1:
                anchor, following = parent, parent.getnext()
            lists = []
            while following is not None and self._is_link_list(following):
                lists.append(following)
                following = following.getnext()
            if lists and not self._off_site(lists):
                for element in (anchor, *lists):
                    self._drop(element)

    def _remove_tag_lists(self) -> None:
        """A tag-list label ("Tags", "Filed under:") with the link lists after it."""
        for label in self.tag_labels:
            if label.getparent() is None or _depth_below(label, self.root) <= 0:
                continue
            anchor, following = label, label.getnext()
            parent = label.getparent()
            if following is None and parent is not None and len(parent) == 1:
                anchor, following = parent, parent.getnext()  # <h4><span>Tags</span></h4><ul>
            lists = []
            while following is not None and self._is_link_list(following, min_links=1):
                lists.append(following)
                following = following.getnext()
            if lists and anchor is not self.root and anchor not in self.protected:
                for element in (anchor, *lists):
                    self._drop(element)

    def _is_link_list(self, element: Element, min_links: int = 2) -> bool:
        s = self.of.get(element)
        if s is None or not isinstance(element.tag, str) or element in self.protected:
            return False
        return s[LINKS] >= min_links and s[LINK_CHARS] >= v.RELATED_LIST_LINK_SHARE * s[CHARS]

    def _remove_teaser_cards(self) -> None:
        """Runs of sibling cards, each a linked headline and a short blurb."""
        counts: dict[Element, int] = {}
        teasers = []
        for heading in self.root.iter(*v.TEASER_HEADING_TAGS):
            s = self.of.get(heading)
            if s is None or s[CHARS] == 0 or heading in self.protected:
                continue
            if s[LINK_CHARS] < v.TEASER_LINK_SHARE * s[CHARS]:
                continue
            link = next(heading.iter("a"), None)
            if link is None or (link.get("href") or "#").startswith("#"):
                continue
            teasers.append(heading)
            for ancestor in heading.iterancestors():
                if ancestor is self.root:
                    break
                counts[ancestor] = counts.get(ancestor, 0) + 1
        if len(teasers) < v.TEASER_MIN_CARDS:
            return
        groups: dict[Element, list[Element]] = {}
        for heading in teasers:
            card = heading
            parent = card.getparent()
            while parent is not None and parent is not self.root and counts.get(parent) == 1:
                card, parent = parent, parent.getparent()
            # a bare linked heading among paragraphs is a section of the text
            if parent is not None and card is not heading and card not in self.protected:
                groups.setdefault(parent, []).append(card)
        doomed: list[Element] = []
        total = 0
        for parent, cards in groups.items():
            if len(cards) < v.TEASER_MIN_CARDS:
                continue
            sizes = [self.stats.chars(c) for c in cards]
            if max(sizes) > v.TEASER_CARD_MAX_CHARS:
                continue
            total += sum(sizes)
            whole = (
                parent is not self.root
                and parent not in self.protected
                and sum(sizes) >= v.TEASER_PARENT_SHARE * self.stats.chars(parent)
            )
            doomed.extend([parent] if whole else cards)
        # cards making most of the root are a listing's content, unless the root
        # also holds a titled article: a <h1> and long prose outside the cards
        if total > v.TEASER_MAX_SHARE * self.content_chars:
            card_prose = sum(self.stats.prose(e) for e in doomed)
            outside = self.stats.prose(self.root) - card_prose
            if not self.protected or outside < v.TEASER_ARTICLE_PROSE:
                return
        for element in doomed:
            if element.getparent() is not None:
                self._drop(element)

    def _remove_anchor_links(self) -> None:
        doomed = []
        for link in self.root.iter("a"):
            s = self.of.get(link)
            if s is None or not 0 <= s[CHARS] <= v.EDIT_LINK_MAX_CHARS:
                continue
            text = None
            if s[CHARS] <= v.PERMALINK_MAX_CHARS:
                classes = set((link.get("class") or "").lower().split())
                if classes & v.PERMALINK_CLASSES or _in_heading(link, link.get("href") or ""):
                    text = _link_text(link)
                    if len(text) <= 2 or text.lower() in v.PERMALINK_TEXTS:
                        doomed.append(link)
                        continue
            if s[CHARS] >= 4:
                text = _link_text(link) if text is None else text
                if v.EDIT_LINK_TEXT.match(text):
                    doomed.append(link)
        for link in doomed:
            parent = link.getparent()
            if parent is not None:
                self.touched.append(parent)
                link.drop_tree()


_DIGITS = re.compile(r"\d+")
_SITE_TAGS = etree.XPath(
    "head/link[contains(concat(' ', normalize-space(@rel), ' '), ' canonical ')]"
    " | head/meta[@property='og:url'] | head/base"
)


_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")


_TABLE_PARTS = frozenset({"tr", "td", "th", "tbody", "thead", "tfoot"})


def _in_data_table(element: Element) -> bool:
    """`element` is a part of a table with a header row (``<thead>`` or ``<th>``)."""
    table = next(element.iterancestors("table"), None)
    if table is None:
        return False
    return next(table.iter("thead", "th"), None) is not None


@lru_cache(maxsize=8192)
def _link_host(href: str) -> str | None:
    """The host of a link, lower-cased without "www." ("" for a relative link, which
    stays on the page's site); None for an in-page, script or mail link."""
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    scheme = _SCHEME.match(href)
    if scheme is not None:
        if scheme.group(1).lower() not in ("http", "https"):
            return None  # mailto:, javascript:, tel:
        href = href[scheme.end() :]
    elif not href.startswith("//"):
        return ""  # relative
    host = href.lstrip("/").split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    host = host.rsplit("@", 1)[-1].split(":", 1)[0].lower()
    return host.removeprefix("www.")


def _same_site(host: str, hosts: frozenset[str]) -> bool:
    """`host` is one of `hosts`, or a subdomain or parent domain of one."""
    if host in hosts:
        return True
    return any(host.endswith("." + h) or h.endswith("." + host) for h in hosts)


def _kind(element: Element) -> tuple[int, frozenset[str], str]:
    """What makes sibling items one list: the chrome verdict, the class names that
    give it, and the chrome id without its numbers. The items of a comment list
    differ in every other class ("even thread-even", "odd alt", "comment-author-x")
    and in their numbers ("comment-120", "comment-121"), not in these."""
    cls = element.get("class")
    ident = element.get("id")
    names = frozenset(n for n in cls.split() if name_verdict(n) != NOT_CHROME) if cls else None
    stem = _DIGITS.sub("", ident) if ident and attr_verdict(ident) != NOT_CHROME else ""
    return element_verdict(element), names or frozenset(), stem


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


def _ancestors_below(element: Element, root: Element) -> list[Element]:
    """`element`'s ancestors below `root` (all of them when it is not under `root`)."""
    found = []
    for ancestor in element.iterancestors():
        if ancestor is root:
            break
        found.append(ancestor)
    return found


@lru_cache(maxsize=16384)  # short leaf texts ("NULL", "Tags", "Advertisement") repeat
def _leaf_labels(text: str) -> tuple[bool, bool, bool]:
    """(an ad label, a tag-list label, a reading time): what the whole text of a leaf
    element (or a text node) is."""
    chars = len(text.strip())  # a leaf's measured characters
    ad_label = chars <= v.AD_LABEL_MAX_CHARS and " ".join(text.split()).lower() in v.AD_LABELS
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


def _element_before(node: Element) -> Element | None:
    """The element sibling before `node`, skipping comments and processing instructions."""
    return next(node.itersiblings(etree.Element, preceding=True), None)


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


def _depth_below(element: Element, root: Element) -> int:
    """How many levels `element` is below `root`; 0 when it is not under it."""
    for depth, ancestor in enumerate(element.iterancestors(), start=1):
        if ancestor is root:
            return depth
    return 0


def _in_heading(link: Element, href: str) -> bool:
    """A short in-page link inside a heading is that heading's permalink."""
    if not href.startswith("#"):
        return False
    return any(a.tag in v.HEADING_TAGS for a in link.iterancestors())


def remove_boilerplate(
    root: Element,
    stats: TextStats,
    h1: Element | None,
    candidates: list[Element] | None = None,
    site: str | None = None,
) -> list[Element]:
    """Remove page chrome inside `root` (never `root` itself or the page's `h1`).

    `candidates` are `chrome_candidates()` of the page (found again when None);
    `site` is ``urls.site_key`` of the page's URL, when known (which links of a list
    leave the site: `Cleaner._cited_links`). Returns the parents the removed elements
    left (for `stats.remeasure`).
    """
    cleaner = Cleaner(root, stats, h1, candidates, site)
    cleaner.run()
    return cleaner.touched


def _host_of_site(site: str) -> str:
    """A ``urls.site_key`` ("example.com:8080") as `_link_host` gives hosts."""
    return site.lower().rsplit(":", 1)[0] if site.count(":") == 1 else site.lower()
