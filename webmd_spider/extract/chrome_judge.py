"""Whether one chrome candidate is chrome: the landmark, class / id and link-farm rules
with their guards, inside one content root.

A candidate (`survey.chrome_candidates`) goes unless a guard keeps it: it holds the
page's ``<h1>``, most of the root's text, enough prose, or it is the link-light
majority of its container together with the sibling items of its kind (every comment
of one list gets one verdict); a list of links cited under a heading in the text's
flow stays unless the links stay on the site and the heading names its promotion.
Text sizes come from the `TextStats` measured once before.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.chrome_blocks import (
    _TABLE_PARTS,
    _in_data_table,
    footnotes,
    see_also,
)
from webmd_spider.extract.chrome_names import (
    CHROME,
    COMMENTS,
    HEADER,
    NOT_CHROME,
    attr_verdict,
    class_words,
    element_verdict,
    is_player,
    name_verdict,
)
from webmd_spider.extract.link_hosts import _host_of_site, _link_host, _same_site
from webmd_spider.extract.stats import CHARS, LINK_CHARS, LINKS, PROSE, Element, TextStats
from webmd_spider.extract.tree_position import _depth_below, _element_before

_SPACES = re.compile(r"\s+")
# compiled once: `element.xpath(str)` compiles its expression on every call
_HEADING_XPATH = etree.XPath("descendant::*[self::h1 or self::h2 or self::h3]")
_DIGITS = re.compile(r"\d+")
_SITE_TAGS = etree.XPath(
    "head/link[contains(concat(' ', normalize-space(@rel), ' '), ' canonical ')]"
    " | head/meta[@property='og:url'] | head/base"
)


class ChromeJudge:
    """The chrome rules inside one content root: `is_chrome(candidate)`, and whether a
    run of link lists leads off the page's site (`off_site`)."""

    def __init__(
        self, root: Element, stats: TextStats, h1: Element | None, site: str | None = None
    ) -> None:
        self.root = root
        #: host of the page's URL (``urls.site_key`` without a port), when known
        self.site = _host_of_site(site) if site else None
        self.stats = stats
        self.of = stats.of
        #: never chrome: the page's <h1> with its ancestors, and the tokens of code
        self.protected: set[Element] = set()
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
        self._groups: dict[tuple[Any, ...], tuple[int, int, Element]] = {}
        self._paragraphs: set[Element] | None = None
        self._site_hosts: frozenset[str] | None = None  # `_on_site_hosts`, when asked

    # -- landmark, class and link-farm rules ----------------------------------

    def is_chrome(self, element: Element) -> bool:
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
            and not see_also(element)
            and not _introduced_by_text(element)
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
        # past comments and empty anchors (Texinfo puts a <span id> per index entry
        # between a node's heading and its menu)
        while before is not None and (not isinstance(before.tag, str) or _empty_anchor(before)):
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

    def off_site(self, elements: list[Element]) -> bool:
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
            # the text's footnotes (docutils 0.18+ writes them as <aside class="footnote">;
            # DPUB-ARIA 1.0 roles doc-footnote / doc-endnotes): the notes of the text
            footnotes(element)
            or class_words(element) & v.ADMONITION_WORDS
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


def _empty_anchor(element: Element) -> bool:
    """An inline element with no text and no children: an anchor target."""
    return (
        element.tag in v.INLINE_TAGS
        and len(element) == 0
        and not (element.text or "").strip()
        and element.tag != "img"
    )


def _introduced_by_text(element: Element) -> bool:
    """A list right after a paragraph of the text that introduces it ("While you can
    use any config option, some commonly used options include:"): the text's list of
    links, not the site's."""
    if element.tag not in ("ul", "ol", "dl"):
        return False
    before = element.getprevious()
    while before is not None and not isinstance(before.tag, str):
        before = before.getprevious()
    if before is None or before.tag != "p":
        return False
    text = " ".join(before.text_content().split())
    return (
        len(text) >= v.LIST_INTRO_MIN_CHARS
        and text.endswith(":")
        and not v.RELATED_INLINE.match(text)
        and not v.RELATED_HEADINGS.match(text)
        and not v.MORE_HEADINGS.match(text)
    )
