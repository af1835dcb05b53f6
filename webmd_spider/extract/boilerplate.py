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

The parts, each in its own module: what a block's names say (`chrome_names.py`), the
survey of a page's elements that finds the candidates (`survey.py`), whether one
candidate is chrome (`chrome_judge.py`), the small blocks known by their shape and
words (`chrome_blocks.py`), which site a link leads to (`link_hosts.py`) and the
headings left without their section (`orphan_headings.py`). This module is the pass
that puts them together, and the removals known by their words or their run of
siblings.

One top-down walk with an explicit stack (no recursion); text sizes come from
the `TextStats` measured once before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.chrome_blocks import (
    UI_WORDS,
    _in_heading,
    _is_byline,
    _is_pager,
    _is_ui_block,
    _leaf_labels,
    _link_text,
    _longest_run,
    _only_byline_headings,
)
from webmd_spider.extract.chrome_judge import ChromeJudge
from webmd_spider.extract.chrome_names import _gallery_name
from webmd_spider.extract.orphan_headings import remove_orphan_headings
from webmd_spider.extract.stats import CHARS, LINK_CHARS, LINKS, PROSE, Element, TextStats
from webmd_spider.extract.survey import chrome_candidates
from webmd_spider.extract.tree_position import _ancestors_below, _depth_below, _element_before

_TABLE_PARTS = frozenset({"td", "th", "tr", "thead", "tbody", "tfoot", "table"})
_SPACES = re.compile(r"\s+")
_STRING = etree.XPath("string()")
_COOKIE_TEXTS = etree.XPath(
    "descendant::text()[" + " or ".join(f"contains(., '{h}')" for h in v.COOKIE_TEXT_HINTS) + "]"
)


class Cleaner:
    """Boilerplate removal inside one content root."""

    def __init__(
        self,
        root: Element,
        stats: TextStats,
        h1: Element | None,
        candidates: list[Element] | None = None,
        site: str | None = None,
        audit: LossAudit | None = None,
        keep: Iterable[Element] = (),
    ) -> None:
        self.root = root
        self.audit = audit
        self.stats = stats
        self.of = stats.of
        #: the chrome rules, with the root's sizes and its elements never removed
        self.judge = ChromeJudge(root, stats, h1, site)
        self.protected = self.judge.protected
        for kept in keep:  # a profile's units (a thread's posts): never chrome as a whole
            self.protected.add(kept)
            self.protected.update(kept.iterancestors())
        self.tag_labels: list[Element] = []  # found by `_scan`
        #: the parent of every element removed (`stats.remeasure` measures them again)
        self.touched: list[Element] = []
        self.content_chars = self.judge.content_chars
        self.content_prose = self.judge.content_prose
        self.candidates = chrome_candidates(root, stats) if candidates is None else candidates
        #: (previous sibling, parent) of every block with text removed: where a
        #: heading may have lost all of its section (`remove_orphan_headings`)
        self._scars: list[tuple[Element | None, Element]] = []

    def run(self) -> None:
        inside: list[tuple[int, Element]] = []
        for element in self.candidates:
            depth = _depth_below(element, self.root)
            if depth > 0 and element not in self.protected:
                inside.append((depth, element))
        inside.sort(key=lambda pair: pair[0])  # outer boxes first
        for _, element in inside:
            # dropped with an outer box already: no longer under the root
            if _depth_below(element, self.root) > 0 and self.judge.is_chrome(element):
                self._drop(element, "chrome")
        galleries, labels, bylines, controls, pagers = self._scan()
        self._remove_galleries(galleries)
        self._remove_cookie_notices()
        self._remove_ad_labels(labels)
        self._remove_ui_blocks(controls)
        self._remove_with_bare_wrappers(pagers, "pager")
        self._remove_related_lists()
        self._remove_tag_lists()
        self._remove_teaser_cards()
        self._remove_anchor_links()
        for element in bylines:
            if (
                element.getparent() is not None
                and _depth_below(element, self.root) > 0
                and not self._opens_a_sentence(element)
            ):
                self._drop(element, "byline")
        if self._scars:
            remove_orphan_headings(self.root, self._scars, self.protected, self.touched, self.audit)

    def _opens_a_sentence(self, element: Element) -> bool:
        """`element` is an inline run at the head of a prose paragraph, and the
        paragraph's sentence goes on after it: a news lead's dateline ("<span
        class="dateline">KOBE -/span> A total of 6,000 masks ..."), the first words of
        the text, not a byline block of the page."""
        if element.tag not in v.INLINE_TAGS:
            return False
        parent = element.getparent()
        if parent is None or (parent.text or "").strip():
            return False
        return self.stats.prose(parent) > 0 and bool((element.tail or "").strip())

    def _drop(self, element: Element, rule: str) -> None:
        """Remove `element` (with its tail kept), noting where it was if it held text,
        and noting it in the loss audit under `rule`."""
        parent = element.getparent()
        if parent is None:
            return
        if self.audit is not None:
            self.audit.note(element, rule)
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
                self._drop(element, "gallery")

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
                self._drop(block, "cookie-notice")

    def _remove_ad_labels(self, labels: list[Element]) -> None:
        """Blocks whose whole text is an ad label ("Advertisement", "Story continues
        below"), with the wrappers that hold nothing else."""
        self._remove_with_bare_wrappers(labels, "ad-label")

    def _remove_ui_blocks(self, controls: list[Element]) -> None:
        """UI-word blocks ("Full Screen", "1 of 24", "Buy Photo"), with the
        wrappers that hold nothing else."""
        self._remove_with_bare_wrappers(controls, "ui-words")

    def _remove_with_bare_wrappers(self, elements: list[Element], rule: str) -> None:
        """Remove each element together with the ancestors that hold no other text.
        A table's cell, row or section is never one of them: a cell whose whole text is
        "Werbung" or "Print" in a table of contents is data, and taking it out would
        shift the row's columns (or lose the row)."""
        doomed = []
        for holder in elements:
            if holder.tag in _TABLE_PARTS:
                continue
            size = self.stats.chars(holder)
            parent = holder.getparent()
            while (
                parent is not None
                and parent is not self.root
                and parent not in self.protected
                and parent.tag not in _TABLE_PARTS
                and self.stats.chars(parent) == size
            ):
                holder, parent = parent, parent.getparent()
            doomed.append(holder)
        for element in doomed:
            if element.getparent() is not None and _depth_below(element, self.root) > 0:
                self._drop(element, rule)

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
            if lists and not self.judge.off_site(lists):
                for element in (anchor, *lists):
                    self._drop(element, "related-list")

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
                    self._drop(element, "tag-list")

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
                self._drop(element, "teaser-cards")

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
                    # a symbol ("¶", "#", "§") or nothing; letters are a name the
                    # heading shows (rustdoc's "Primitive Type <a>fn</a>")
                    symbol = not any(c.isalnum() for c in text)
                    if (len(text) <= 2 and symbol) or text.lower() in v.PERMALINK_TEXTS:
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
                if self.audit is not None:
                    self.audit.note(link, "anchor-link")
                link.drop_tree()


def remove_boilerplate(
    root: Element,
    stats: TextStats,
    h1: Element | None,
    candidates: list[Element] | None = None,
    site: str | None = None,
    audit: LossAudit | None = None,
    keep: Iterable[Element] = (),
) -> list[Element]:
    """Remove page chrome inside `root` (never `root` itself or the page's `h1`).

    `candidates` are `chrome_candidates()` of the page (found again when None);
    `site` is ``urls.site_key`` of the page's URL, when known (which links of a list
    leave the site: `ChromeJudge._cited_links`). Returns the parents the removed elements
    left (for `stats.remeasure`). Each removal is noted in `audit`, when given.
    `keep`: elements never removed whole, nor their ancestors (a page-type profile's
    units, such as a thread's posts); what is inside them is cleaned as usual.
    """
    cleaner = Cleaner(root, stats, h1, candidates, site, audit, keep)
    cleaner.run()
    return cleaner.touched
