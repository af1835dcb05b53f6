"""Find the content root of a cleaned page and cut the chrome out of it.

Steps, each falling through when its pick holds under `MIN_ROOT_CHARS`
characters or is not accepted (it must hold the page's ``<h1>`` or 30% of the
page's prose):

1. ``article``: the only one, or the one holding half of the page's text
   (several smaller ones are cards of a listing: the step is skipped);
2. ``main``: ``<main>`` or ``[role=main]``;
3. ``container``: a well-known content container (``.entry-content``, ``#content``...);
4. ``density``: the block that gathers the most paragraph text outside links,
   widened to the smallest ancestor holding 60% of the page's prose outside
   chrome and to the page's ``<h1>`` (only to the h1's own column when that holds
   an article beside the pick: a prose sidebar outweighs a page of short notes);
5. ``body``.

The page's ``<h1>`` is never a visually hidden one ("sr-only"). Then
`boilerplate.remove_boilerplate` cleans the root in place. Text sizes
are measured once (`stats.measure`); nothing here recurses.

Why one file of over 500 lines: the five steps share the measured sizes and the
acceptance rule, and each falls through to the next; they read best in that order.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

import lxml.html
from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.boilerplate import remove_boilerplate
from webmd_spider.extract.chrome_blocks import footnotes
from webmd_spider.extract.chrome_names import (
    COMMENTS,
    element_verdict,
    visually_hidden,
)
from webmd_spider.extract.clean import body_of, visible_chars
from webmd_spider.extract.stats import Element, TextStats, measure, remeasure
from webmd_spider.extract.survey import Survey, survey

_SPACES = re.compile(r"\s+")
#: A heading's section number ("1.3.5.2 ", "A.1. ", "IV. ").
_SECTION_NUMBER = re.compile(
    r"^(?:[0-9]+(?:\.[0-9]+)*\.?|(?:[a-z]|[ivxlc]+)(?:\.[0-9]+)*\.)\s+(?=\S)"
)


@dataclass(slots=True)
class Selection:
    """The content root chosen by `select_content`."""

    root: lxml.html.HtmlElement  # the content root, already cleaned of boilerplate (in place)
    method: str  # "article" | "main" | "container" | "density" | "body"
    boilerplate_ratio: float  # share (0..1, 3 decimals) of the page's visible text removed
    #: The Python proxies of the page's elements, made when the page was measured. lxml
    #: builds a proxy whenever a walk reaches an element that has none alive, and frees
    #: it when the last reference goes; held here, the renderer's walk of the root finds
    #: them all instead of building each one again (about a twentieth of its work).
    proxies: list[Element] = field(default_factory=list)
    #: whether some element of the page carries a tab label (`clean.TAB_LABEL_ATTR`)
    tab_labels: bool = True
    #: the page's title heading (`_page_h1`), wherever it is
    h1: lxml.html.HtmlElement | None = None
    #: the numbers of the content root as cleaned (`stats.measure` of `root`)
    stats: TextStats | None = None
    #: a page without a title heading: its generator's title block (`_title_block`)
    title_block: lxml.html.HtmlElement | None = None


def _container_index() -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """class / id / itemprop value -> tier of CONTENT_CONTAINERS."""
    index: dict[str, dict[str, int]] = {"class": {}, "id": {}, "itemprop": {}}
    for tier, entries in enumerate(v.CONTENT_CONTAINERS):
        for attr, value in entries:
            index[attr].setdefault(value, tier)
    return index["class"], index["id"], index["itemprop"]


_CONTAINER_CLASSES, _CONTAINER_IDS, _CONTAINER_ITEMPROPS = _container_index()


def _tier(value: str, index: dict[str, int]) -> int:
    """Best CONTENT_CONTAINERS tier of an attribute value's names, 99 if none."""
    return min((index.get(n, 99) for n in value.split()), default=99)


@lru_cache(maxsize=8192)
def _class_tier(value: str) -> int:
    """`_tier` of a class attribute (the same few values repeat on every page of a site)."""
    return _tier(value, _CONTAINER_CLASSES)


def select_content(
    root: lxml.html.HtmlElement,
    page_text_chars: int | None = None,
    site: str | None = None,
    audit: LossAudit | None = None,
    generator: str = "",
) -> Selection:
    """Choose the content root of `root` (a cleaned page) and clean it of chrome.

    `page_text_chars` is the visible text of the page before any cleaning
    (whitespace runs as one space), for the boilerplate ratio; when None it is
    measured here, on the page as it is now. `site` is ``urls.site_key`` of the
    page's URL, when known: it tells the links that leave the site (without it,
    the page's canonical and navigation do). The chrome removed from the root is
    noted in `audit`, when given. `generator` (the page's ``<meta name="generator">``,
    lower-cased) says whose title block to look for.
    """
    body = body_of(root)
    if page_text_chars is None:
        page_text_chars = visible_chars(body)
    stats = measure(body)
    h1 = _page_h1(root, body, stats)
    # Doxygen names a page in its title block, and its pages' <h1> are sections: the
    # block is the title, without moving the content root to it (it sits in a header
    # beside the contents); the <h1> stay headings of the text
    title_block = _title_block(body, stats) if "doxygen" in generator else None
    if title_block is not None:
        h1 = None
    found = survey(body, stats)
    finder = _Finder(body, stats, h1, found)
    content, method = finder.find()
    adopted = _adopt_footnotes(content)
    touched = remove_boilerplate(content, stats, h1, found.candidates, site, audit)
    if adopted:
        touched.append(content)  # its numbers now count the footnotes
    kept = visible_chars(content)
    ratio = 1.0 - kept / page_text_chars if page_text_chars > 0 else 0.0
    return Selection(
        root=content,
        method=method,
        boilerplate_ratio=round(min(1.0, max(0.0, ratio)), 3),
        proxies=stats.elements,
        tab_labels=found.tab_labels,
        h1=h1,
        stats=remeasure(stats, content, touched),
        title_block=title_block,
    )


def _adopt_footnotes(content: Element) -> bool:
    """The text's footnotes written right after the content root, as its sibling
    (Texinfo puts ``div.footnote`` after the node's ``div.section``), move into the
    root, at its end: they are the text's. True when some did."""
    after = content.getnext()
    while after is not None and (not isinstance(after.tag, str) or after.tag == "hr"):
        after = after.getnext()
    if after is None or not footnotes(after):
        return False
    content.append(after)
    return True


def whole_page(root: lxml.html.HtmlElement) -> Selection:
    """The whole ``<body>`` as the region to render, nothing removed (``ExtractOptions.
    main_content_only=False``): method ``"page"``, boilerplate ratio 0."""
    body = body_of(root)
    return Selection(root=body, method="page", boilerplate_ratio=0.0, proxies=[], h1=None)


def _normalized(text: str) -> str:
    """Lower-cased, whitespace runs as one space, dashes as "-" (a heading's "-" and
    its <title>'s en dash are one title)."""
    return _SPACES.sub(" ", text).strip().lower().translate(_DASHES)


_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2012": "-", "\u2212": "-"})


def _page_h1(root: Element, body: Element, stats: TextStats) -> Element | None:
    """The page's title heading, or None when every <h1> is a logo or site name.

    When no <h1> opens the <title> but an <h2> does, that <h2> is the title (the
    <h1> is a section banner, or there is none). An <h1> scores up when <title> starts with its
    text, down when its text is only elsewhere in <title> (the site name) or it
    sits in page chrome.
    """
    # a visually hidden <h1> ("sr-only": GitHub titles every page so for screen
    # readers) is not the title the reader sees, and often sits in the page's chrome
    h1s = [h for h in body.iter("h1") if stats.chars(h) > 0 and not _hidden(h, body)]
    h1s = h1s[: v.MAX_H1_CANDIDATES]
    title_el = _head_title(root) if root.tag == "html" else None
    title = _normalized(title_el.text_content()) if title_el is not None else ""
    if not h1s:
        # no <h1> at all (DocBook titles each page with an <h2 class="title">): the
        # <h2> that opens the <title>, if any; else the generator's title block
        return _title_heading(body, stats, title, ranks=_BELOW_H1) if title else None
    best, best_score = None, -2.0
    for h1 in h1s:
        text = _normalized(h1.text_content())
        score = 0.0
        if title and text:
            if _matches_title(text, title):
                score += _TITLE_MATCH
            elif text in title:
                score -= 1
        if _in_chrome(h1):
            score -= 1
        if next(h1.iter("a"), None) is not None or any(a.tag == "a" for a in h1.iterancestors()):
            score -= 1  # a logo linking home
        score += min(len(text), 100) / 1000  # ties: the longer heading
        if score > best_score:
            best, best_score = h1, score
    if title and best_score < _TITLE_MATCH:
        # a section banner ("Allergies Health Center") above an <h2> that is the title
        titled = _title_heading(body, stats, title)
        if titled is not None:
            return titled
    return best


_TITLE_MATCH = 2.0


#: A generator's title block where no heading holds the title: Doxygen 1.8-1.9 writes
#: ``<div class="headertitle"><div class="title">ns::Class Class Reference</div>``.
_TITLE_BLOCKS = etree.XPath("descendant::div[@class='headertitle']")


def _title_block(body: Element, stats: TextStats) -> Element | None:
    """The page's title from its generator's title block (`_TITLE_BLOCKS`), if any."""
    for block in cast(list[Element], _TITLE_BLOCKS(body)):
        if isinstance(block, etree._Element) and stats.chars(block) > 0:
            inner = [c for c in block if isinstance(c.tag, str) and stats.chars(c) > 0]
            return inner[0] if len(inner) == 1 else block
    return None


def _hidden(element: Element, body: Element) -> bool:
    """The element, or a box around it, is classed as shown to screen readers only."""
    for node in itertools.chain((element,), element.iterancestors()):
        if node is body:
            return False
        cls = node.get("class")
        if cls and visually_hidden(cls):
            return True
    return False


def _head_title(root: Element) -> Element | None:
    """``root.find("head/title")``: the first <title> child of a <head> child."""
    for head in root.iterchildren("head"):
        for title in head.iterchildren("title"):
            return title
    return None


def _matches_title(text: str, title: str, suffix: bool = False) -> bool:
    """`text` opens the <title>, the <title> opens it, or (`suffix`) it closes the
    <title> after a separator ("PostgreSQL: Documentation: 15: 8.5. Date/Time Types")."""
    if not text:
        return False
    if title.startswith(text[:40]) or text.startswith(title[:40]):
        return True
    return suffix and (
        len(text) >= v.TITLE_SUFFIX_MIN_CHARS
        and title.endswith(text)
        and title[: len(title) - len(text)].rstrip()[-1:] in v.TITLE_SEPARATORS
    )


_BELOW_H1 = ("h2", "h3", "h4", "h5", "h6")


def _title_heading(
    body: Element, stats: TextStats, title: str, ranks: tuple[str, ...] = ("h2",)
) -> Element | None:
    """The first heading of `ranks` whose text is the page's <title>, or opens it and
    is long enough to be a title and not a site name. Its section number does not
    count: Texinfo titles a node "1.3.5.2 A Sample Command Description" in an <h4> and
    its <title> "A Sample Command Description (GNU Octave ...)". Any rank below <h1>
    only on a page with no <h1> at all: beside one, an <h3> opening the <title> is a
    kicker or a box's heading (news pages), not the page's title."""
    for heading in _by_rank(body, ranks):
        if _in_chrome(heading):
            continue
        raw = _normalized(heading.text_content())
        unnumbered = _SECTION_NUMBER.sub("", raw)
        if unnumbered != raw and _opens_title(unnumbered, title):
            return heading  # "19.4 Accumulation" of "Accumulation (GNU Octave ...)"
        for text in dict.fromkeys((raw, unnumbered)):
            if text == title:
                return heading  # the whole <title>, however short ("clusterdb")
            if text and title.endswith(text) and _matches_title(text, title, suffix=True):
                return heading  # the <title> after the site's name: the page has no <h1>
            if stats.chars(heading) >= v.TITLE_HEADING_MIN_CHARS and _matches_title(text, title):
                return heading
    return None


def _by_rank(body: Element, ranks: tuple[str, ...]) -> Iterator[Element]:
    """The first `v.MAX_H1_CANDIDATES` headings of each rank, the highest rank first:
    a box's <h4> never outranks the page's <h2>."""
    for rank in ranks:
        yield from itertools.islice(body.iter(rank), v.MAX_H1_CANDIDATES)


def _opens_title(text: str, title: str) -> bool:
    """`text` is the <title>'s first words, the rest a suffix after a separator or a
    parenthesis ("accumulation (gnu octave (version 7.3.0))")."""
    if not text or not title.startswith(text):
        return False
    rest = title[len(text) :].lstrip()
    return not rest or rest[0] == "(" or rest[0] in v.TITLE_SEPARATORS


def _in_chrome(element: Element) -> bool:
    """Inside nav / footer / aside, a site banner, or a chrome-classed box."""
    in_article = False
    for ancestor in element.iterancestors():
        tag = ancestor.tag
        if tag in ("article", "main"):
            in_article = True
        elif tag in ("nav", "footer", "aside"):
            return True
        elif tag == "header" and not in_article:
            return not any(a.tag in ("article", "main") for a in ancestor.iterancestors())
        role = ancestor.get("role")
        if role in ("banner", "navigation", "contentinfo"):
            return True
        if element_verdict(ancestor) >= COMMENTS:
            return True
    return False


class _Finder:
    def __init__(self, body: Element, stats: TextStats, h1: Element | None, found: Survey) -> None:
        self.body = body
        self.survey = found
        self.candidates = found.candidates
        self.stats = stats
        self.h1 = h1
        self.h1_path: set[Element] = set(h1.iterancestors()) | {h1} if h1 is not None else set()
        self.page_chars = stats.chars(body)
        # prose outside page chrome: sidebars, comment threads, footers
        self.page_prose = stats.prose(body) - self._chrome_prose()

    def find(self) -> tuple[Element, str]:
        for method, step in (
            ("article", self._article),
            ("main", self._main),
            ("container", self._container),
            ("density", self._density),
        ):
            found = step()
            if found is not None and found is not self.body:
                return self._take_h1(found, method), method
            if found is self.body:
                break
        titled = self._titled()
        if titled is not None and self._prose_beside(titled) <= v.MIN_ROOT_CHARS:
            return titled, "title"
        return self.body, "body"

    def _big(self, element: Element) -> bool:
        return self.stats.chars(element) >= v.MIN_ROOT_CHARS

    def _accepted(self, element: Element) -> bool:
        if element in self.h1_path:
            return True
        if self.page_prose > 0:
            return self.stats.prose(element) >= v.ACCEPT_PROSE_SHARE * self.page_prose
        return self.stats.chars(element) >= v.ACCEPT_PROSE_SHARE * self.page_chars

    def _best(self, candidates: list[Element]) -> Element | None:
        good = [c for c in candidates if self._big(c) and self._accepted(c)]
        return max(good, key=self.stats.chars) if good else None

    def _article(self) -> Element | None:
        articles = [a for a in self.body.iter("article") if self._big(a)]
        if not articles:
            return None
        biggest = max(articles, key=self.stats.chars)
        # nested articles (comments inside a post) and articles inside chrome
        # (comment threads, related boxes) do not make a listing
        articles = [a for a in articles if a in self.h1_path or not _in_chrome(a)]
        if not articles:
            return None
        # the innermost article holding the page's h1 and prose of its own is the page's
        # article, however big the others ("more by this author" cards) are
        titled = [a for a in articles if a in self.h1_path]
        if titled:
            inner = max(titled, key=lambda a: sum(1 for _ in a.iterancestors()))
            prose = self.stats.prose(inner)
            share = v.TITLED_ARTICLE_PROSE_SHARE * self.page_prose
            if prose >= v.MIN_ROOT_CHARS and prose >= share:
                return inner
        biggest = max(articles, key=self.stats.chars)
        outer = [a for a in articles if not any(p.tag == "article" for p in a.iterancestors())]
        total = sum(self.stats.chars(a) for a in outer)
        if self.stats.chars(biggest) < v.ARTICLE_MAJORITY * total:
            return None  # cards of a listing
        return biggest if self._accepted(biggest) else None

    def _main(self) -> Element | None:
        mains = list(dict.fromkeys([*self.body.iter("main"), *self.survey.role_main]))
        best = self._best(mains)
        if best is None and len(mains) == 1:
            # the page's one explicit main region is its content however little it holds
            # (a short Sphinx page: "role=main" over a few lines, a long footer beside);
            # WAI-ARIA 1.2 §main: "the main content of a document"
            only = mains[0]
            stats = self.stats
            if (
                stats.chars(only) > 0
                and (self.h1 is None or only in self.h1_path)
                # ... and no text beside it but the page's chrome (footer, sidebars):
                # not a title box with the article next to it
                and self._prose_beside(only) <= max(stats.prose(only), v.MIN_ROOT_CHARS)
            ):
                return only
        return best

    def _prose_beside(self, region: Element) -> int:
        """Prose of the page outside `region` and outside every chrome candidate."""
        outside = self.stats.prose(self.body) - self.stats.prose(region)
        boxes = [
            c
            for c in self.candidates
            if c is not region and c not in self.h1_path and region not in c.iterancestors()
        ]
        chosen = set(boxes)
        chrome = sum(
            self.stats.prose(c) for c in boxes if not any(a in chosen for a in c.iterancestors())
        )
        return max(0, outside - chrome)

    def _container(self) -> Element | None:
        tiers: list[list[Element]] = [[] for _ in v.CONTENT_CONTAINERS]
        ids = _CONTAINER_IDS
        for element, ident, cls in self.survey.named:
            tier = ids.get(ident, 99) if ident else 99
            if cls:
                tier = min(tier, _class_tier(cls))
            if tier < 99:
                tiers[tier].append(element)
        for element, itemprop in self.survey.itemprops:
            tier = _tier(itemprop, _CONTAINER_ITEMPROPS)
            if tier < 99 and element not in tiers[tier]:
                tiers[tier].append(element)
        for candidates in tiers:
            chosen = self._best(candidates)
            if chosen is None:
                continue
            chosen = self._gather(chosen, candidates)
            if chosen is not None:
                return chosen
        return None

    def _gather(self, chosen: Element, candidates: list[Element]) -> Element | None:
        """A container class used on several separate blocks (the parts of one
        article body, or a component class): their lowest common ancestor,
        when the others hold as much prose as half of `chosen`'s."""
        path = set(chosen.iterancestors())
        others = [
            c
            for c in candidates
            if c is not chosen
            and c not in path
            and self.stats.prose(c) > 0
            and chosen not in set(c.iterancestors())
        ]
        if sum(self.stats.prose(c) for c in others) < v.CONTAINER_SPLIT_SHARE * self.stats.prose(
            chosen
        ):
            return chosen
        common = chosen
        for other in others:
            ancestors = set(other.iterancestors())
            while common not in ancestors and common is not self.body:
                parent = common.getparent()
                if parent is None:
                    break
                common = parent
        if common is self.body or not self._accepted(common):
            return None
        return common

    def _density(self) -> Element | None:
        scores: dict[Element, float] = {}
        for paragraph, chars in self.stats.paragraphs:
            parent = paragraph.getparent()
            if parent is None:
                continue
            scores[parent] = scores.get(parent, 0.0) + chars
            grandparent = parent.getparent()
            if grandparent is not None:
                scores[grandparent] = scores.get(grandparent, 0.0) + chars / 2
        if not scores:
            return None
        best = max(scores, key=scores.__getitem__)
        target = v.DENSITY_WIDEN_SHARE * self.page_prose
        while best is not self.body and self.stats.prose(best) < target:
            parent = best.getparent()
            if parent is None:
                break
            best = parent
        own = self.stats.chars(best)
        if self.h1 is None or best in self.h1_path:
            return self._pick(self._climb_siblings(best, own))
        # the pick is beside the <h1>: climb up to the h1's column, not into it
        best = self._climb_siblings(best, own, self.h1_path)
        if best in self.h1_path:
            return self._pick(best)
        parent = best.getparent()
        # would the sibling climb have gone on (through the h1's box)?
        climbing = parent is not None and parent in self.h1_path and self._may_climb(best, own)
        column, merged = self._h1_column(best)
        if merged and climbing:
            column = self._climb_siblings(column, own)
        return self._pick(column)

    def _titled(self) -> Element | None:
        """No step found a root (a manual's chapter page: its title, a line or two and a
        table of contents): the top-level block of the body that holds the page's title
        heading and something besides it. Taken only when no text but chrome is
        outside it (the caller checks)."""
        if self.h1 is None:
            return None
        top = self.h1
        for ancestor in self.h1.iterancestors():
            if ancestor is self.body:
                break
            top = ancestor
        if top is self.h1 or _in_chrome(top):
            return None
        return top if self.stats.chars(top) > self.stats.chars(self.h1) else None

    def _pick(self, best: Element) -> Element | None:
        return best if self._big(best) else None

    def _h1_column(self, best: Element) -> tuple[Element, bool]:
        """Widen the density pick to the page's <h1>: to their common ancestor, or to
        the h1's own column of it when that is an article beside the pick, not a title
        box above it - it holds `MIN_ROOT_CHARS` besides the heading, as much text as
        half of the pick's column, and an article's body (`_has_body`): a sidebar's
        "About me" box wins the prose count on a page of short notes, lists and
        tables. The flag: the common ancestor was taken."""
        assert self.h1 is not None
        column = best
        parent = best.getparent()
        while parent is not None and parent not in self.h1_path:
            column, parent = parent, parent.getparent()
        if parent is None:
            return best, False
        # the pick inside the heading itself (markup the parser nested in an unclosed
        # <h1>): the h1 is the common ancestor, and no column of it holds the h1
        if parent is self.body or parent is self.h1:
            return parent, True
        h1_column = next(
            a
            for a in itertools.chain((self.h1,), self.h1.iterancestors())
            if a.getparent() is parent
        )
        stats = self.stats
        beside = stats.chars(h1_column) - stats.chars(self.h1)
        if (
            beside >= v.MIN_ROOT_CHARS
            and stats.chars(h1_column) >= v.H1_COLUMN_SHARE * stats.chars(column)
            and self._has_body(h1_column)
        ):
            return h1_column, False
        return parent, True

    def _has_body(self, column: Element) -> bool:
        """The column holds an article body, not only a title box (a title, a deck, a
        byline, a list of its tags): a list or table of text rather than links, a code
        block, quote or subheading, or a few paragraphs of prose."""
        for block in column.iter(*v.H1_COLUMN_BODY_TAGS):
            if block.tag not in ("ul", "ol", "dl", "table") or self.stats.link_share(block) < 0.5:
                return True
        paragraphs = (p for p in column.iter("p") if self.stats.prose(p) > 0)
        return sum(1 for _ in itertools.islice(paragraphs, v.H1_COLUMN_PARAGRAPHS)) >= (
            v.H1_COLUMN_PARAGRAPHS
        )

    def _climb_siblings(
        self, best: Element, own: int, boundary: set[Element] | None = None
    ) -> Element:
        """Widen the density pick while each parent adds text that is mostly not links
        (sibling sections of one document), stopping below the body (and below
        `boundary`). When in doubt, keep text: a reference page's synopsis and notes
        sit beside its longest section. `own` is the size of the first pick."""
        while True:
            parent = best.getparent()
            if parent is None or (boundary is not None and parent in boundary):
                return best
            if not self._may_climb(best, own):
                return best
            best = parent

    def _may_climb(self, best: Element, own: int) -> bool:
        """The sibling climb's step from `best` to its parent (see `_climb_siblings`)."""
        stats = self.stats
        parent = best.getparent()
        if parent is None or parent is self.body or parent.tag in ("body", "html"):
            return False
        total = stats.chars(parent)
        added = total - stats.chars(best)
        if added > v.DENSITY_SIBLING_MAX_GROWTH * max(own, 1):
            return False
        if added > 0:
            links = stats.link_share(parent) * total - stats.link_share(best) * stats.chars(best)
            if links > v.DENSITY_SIBLING_MAX_LINK_SHARE * added:
                return False
        return True

    def _chrome_prose(self) -> int:
        """Prose inside the outermost chrome candidates of the page (sidebars,
        comment threads, footers), not counting any holding the <h1> or most prose."""
        whole = self.stats.prose(self.body)
        boxes = {
            c
            for c in self.candidates
            if c not in self.h1_path and 0 < self.stats.prose(c) <= v.GUARD_CONTENT_SHARE * whole
        }
        return sum(
            self.stats.prose(c) for c in boxes if not any(a in boxes for a in c.iterancestors())
        )

    def _take_h1(self, found: Element, method: str) -> Element:
        """Widen `found` to the page's <h1> when that adds little more than the
        heading (a title and byline just above the article body)."""
        if self.h1 is None or found in self.h1_path:
            return found
        limit = self.stats.chars(found) + self.stats.chars(self.h1) + v.H1_WIDEN_SLACK_CHARS
        ancestor = found.getparent()
        while ancestor is not None and ancestor not in self.h1_path:
            ancestor = ancestor.getparent()
        if ancestor is None or ancestor is self.body:
            return found
        return ancestor if self.stats.chars(ancestor) <= limit else found
