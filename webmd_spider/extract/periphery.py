"""Cut the chrome *around* the text out of a cleaned content root, in place.

`boilerplate.py` judges blocks by their names and guards anything that holds much of
the root. What is left around the article is judged here by its **position relative
to the text** (before its first prose paragraph, after its last), its link density,
the heading or label it sits under, its microdata, and names only as one signal
among them. This pass is not bound by boilerplate's "holds half of the root" guard: a
comment thread longer than a short article is still a comment thread.

The passes, each over elements measured once (`stats.measure`):

1. captions and credits: ``<figcaption>`` and caption / credit / copyright boxes
   beside an image, and credit lines ("Photo: ...", "... /Getty Images", "©");
   a caption that labels a document's figure ("Figure 3.1", "Table 2") stays, and so
   does a table's ``<caption>``; ``keep_captions`` keeps them all;
2. sections under a comment heading ("34 responses to ...", "Kommentare") or a
   comment-named container, once an article's prose came before them; sections
   under a "Related" / "More from" / "Lesen Sie auch" label when they are mostly
   links; inline "Related: <link>" paragraphs;
3. author boxes, ticker bars, and newsletter / subscribe / donate / paywall prompts;
4. the tail: link-dense blocks after the text's last paragraph (tag clouds, rails,
   "most read", pagers), then the labels and headings left dangling at the end;
5. the title block: the page's ``<h1>`` and, before the first paragraph, the
   kicker, deck (the meta description, or a deck-named block), byline and date
   lines. They are fields of the Document (`title`, `description`, `author`,
   `published_at`); the caller puts ``# {title}`` at the head of the Markdown.

Never removed: the root, the ``<h1>``'s ancestors, ``itemprop=articleBody``, data
tables, code, and a thread that is the page (no article prose before it).

Why one file of over 500 lines: every pass keys on the same measured sizes and on the
text's first and last prose paragraph, found once per root.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.chrome_blocks import footnotes, see_also
from webmd_spider.extract.chrome_names import COMMENTS, _name_parts, element_verdict
from webmd_spider.extract.link_hosts import _host_of_site, _link_host
from webmd_spider.extract.stats import (
    CHARS,
    LINK_CHARS,
    LINKS,
    Element,
    TextStats,
    ends_sentence,
    measure,
)
from webmd_spider.extract.tree_position import _depth_below, _element_before

_MEDIA = ("img", "picture", "figure", "video", "svg", "iframe")
_DATA = ("pre", "table", "code")
_CODE = ("code", "kbd", "tt", "pre", "samp")
_MEDIA_OR_DATA = _MEDIA + _DATA
#: Caption words that name a blurb as often as a caption ("value-prop-description",
#: "hero-subtitle"), and the words of a box named for its picture.
_BLURB_WORDS = frozenset({"subtitle", "desc", "description"})
_PICTURE_WORDS = frozenset(
    {"image", "img", "photo", "picture", "pic", "media", "figure", "fig", "bild", "foto"}
    | {"gallery", "slide", "slideshow", "carousel", "video", "wp"}
)
#: what a block after the text holds that makes it more than a list of links
_KEPT_AFTER_TEXT = ("img", "svg", "iframe", *_DATA)
_LISTS = ("ul", "ol", "dl", "blockquote")
_NEVER_JUDGED = frozenset({"pre", "code", "table", "tr", "td", "th", "tbody", "thead", "caption"})
_CREDIT_TAGS = frozenset({"p", "div", "small", "cite", "span", "figcaption", "em", "i", "font"})
_BYLINE_TAGS = ("p", "div", "span", "address", "small", "time", "li")
_LABEL_TAGS = frozenset({"p", "div", "span", "strong", "b", "header", "section"})
_UI_TAGS = frozenset({"p", "div", "span", "a", "li", "ul", "section", "button"})
_ITEM_TAGS = frozenset({"li", "dd", "dt", "tr", "td", "th", "tbody", "thead", "tfoot"})
_IMAGES = ("img", "picture")
#: every class / id word some box rule of `_Trimmer._is_box` reads
_BOX_WORDS = (
    v.ADMONITION_WORDS
    | v.CAPTION_WORDS
    | v.AUTHOR_BOX_WORDS
    | {"author"}
    | v.TICKER_WORDS
    | v.POSTER_WORDS
    | v.RELATED_NAME_WORDS
    | v.TEASER_NAME_WORDS
    | v.PROMPT_NAME_WORDS
)
_WITH_ITEMPROP = etree.XPath("descendant-or-self::*[@itemprop]")
_HEADING_RANK = {f"h{n}": n for n in range(1, 7)}
_HEADINGS = tuple(_HEADING_RANK)
_SUBHEADINGS = ("h2", "h3", "h4", "h5", "h6")
_INLINE_PARENTS = frozenset({"p", "a", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6"})
_PROMPT_TAGS = ("p", "div", "section", "form", "aside")
#: the blocks that may be a picture's caption by repeating its alt text (a run of words
#: inside a heading or a paragraph never is)
_ALT_CAPTION_TAGS = frozenset({"p", "div", "figcaption"})
#: what an advertising disclosure never holds: code, a table, a heading or a list
_DISCLOSURE_STOPS = ("code", "kbd", "tt", "pre", "table", "ul", "ol", *_HEADINGS)
#: the most characters an element can hold and be a box by its text and shape alone
#: (no name of `_BOX_WORDS`): a credit line, a control label, or a prompt, by tag
_LINE_BOX_MAX_CHARS = {
    tag: max(
        v.CREDIT_LINE_MAX_CHARS if tag in _CREDIT_TAGS else 0,
        v.UI_LABEL_MAX_CHARS if tag in _UI_TAGS else 0,
        v.PROMPT_MAX_CHARS if tag in _PROMPT_TAGS else 0,
    )
    for tag in _CREDIT_TAGS | _UI_TAGS | frozenset(_PROMPT_TAGS)
}


@dataclass(slots=True)
class Trimmed:
    """What `trim_periphery` took out that the Document keeps as fields."""

    #: the text of the title heading removed from the root, if one was
    title: str | None = None
    #: the text of a deck paragraph removed (for `description` when the page has none)
    deck: str | None = None


def _text(element: Element) -> str:
    """The element's text, whitespace runs as one space."""
    if not len(element):  # a leaf (most short boxes): its own text, without a tree walk
        return " ".join((element.text or "").split())
    return " ".join(element.text_content().split())


class _Trimmer:
    def __init__(
        self,
        root: Element,
        h1: Element | None,
        description: str | None,
        keep_captions: bool,
        site: str | None,
        article_meta: bool,
        stats: TextStats | None,
        audit: LossAudit | None = None,
        titled: bool = False,
        keep: Iterable[Element] = (),
    ) -> None:
        self.root = root
        self.audit = audit
        #: the page's title is elsewhere (a generator's title block): an <h1> before
        #: the text is a section's heading, never taken for the title
        self.titled = titled
        self.article_meta = article_meta
        self.site = _host_of_site(site).removeprefix("www.") if site else None
        self.h1 = h1 if h1 is not None and _under(h1, root) else None
        self.stats: TextStats = measure(root) if stats is None else stats
        self.of = self.stats.of
        self.description = " ".join((description or "").split()).lower()
        self.protected: set[Element] = set()
        if self.h1 is not None:
            self.protected.add(self.h1)
            self.protected.update(self.h1.iterancestors())
        for kept in keep:  # a profile's units (a thread's posts): never removed whole
            self.protected.add(kept)
            self.protected.update(kept.iterancestors())
        # two walks filtered in C: cheaper than a test per measured element in Python
        captions = sum(self.chars(element) for element in root.iter("figcaption"))
        for element in cast("list[Element]", _WITH_ITEMPROP(root)):
            if element.get("itemprop", "").lower() == "articlebody":
                self.protected.add(element)
                self.protected.update(element.iterancestors())
        # a gallery whose captions are most of the text: the captions are the page
        self.keep_captions = keep_captions or captions * 2 > self.chars(root)
        #: the alt texts of the page's pictures, by their first characters: a block
        #: that repeats one is that picture's caption, whatever its names
        self.alts: dict[str, list[tuple[str, Element]]] = {}
        if not self.keep_captions:
            for image in root.iter("img"):
                alt = " ".join((image.get("alt") or "").split()).lower()
                if len(alt) >= v.ALT_CAPTION_MIN_CHARS:
                    key = alt[: v.ALT_CAPTION_MIN_CHARS]
                    self.alts.setdefault(key, []).append((alt, image))
        self.order = {el: i for i, el in enumerate(self.stats.elements)}
        self.h1_at = -1  # document position of the title heading, when there is one
        self.bylined = article_meta  # an article page: metadata, or a byline by the title
        self.title_box: Element | None = None  # the title heading's own box, if small
        self.title_next: set[Element] = set()  # else the blocks right after the title
        paragraphs = self.stats.paragraphs
        self.para_index = [self.order[p] for p, _ in paragraphs]
        self.para_prose = list(itertools.accumulate(n for _, n in paragraphs))
        self.total_prose = self.para_prose[-1] if self.para_prose else 0
        #: the elements the box and section passes judge (`_judged`), listed once
        self.judged = self._judged()
        #: `_holders` of some tags in the whole page, valid until the first drop (`_holds`)
        self._marks: dict[tuple[str, ...], set[Element]] = {}

    # ------------------------------------------------------------------ helpers

    def chars(self, element: Element) -> int:
        s = self.of.get(element)
        return s[CHARS] if s else 0

    def link_share(self, element: Element) -> float:
        s = self.of.get(element)
        return s[LINK_CHARS] / s[CHARS] if s and s[CHARS] else 0.0

    def prose_before(self, element: Element) -> int:
        """Prose of the paragraphs that open before `element` in document order."""
        at = bisect.bisect_left(self.para_index, self.order.get(element, 0))
        return self.para_prose[at - 1] if at else 0

    def drop(self, element: Element, rule: str) -> bool:
        """Remove `element` (its tail text stays) unless it is protected, the root, or
        gone with an outer box already; True when it was removed (and noted in the loss
        audit under `rule`)."""
        if element in self.protected or element is self.root or not _under(element, self.root):
            return False
        if self.audit is not None:
            self.audit.note(element, rule)
        element.drop_tree()
        return True

    # ------------------------------------------------------------------ passes

    def run(self) -> Trimmed:
        self._captions_and_boxes()
        self._sections()
        self._closing_prompts()
        self._tail()
        return self._title_block()

    def _captions_and_boxes(self) -> None:
        """Pass 1 and 3: captions, credit lines, author boxes, tickers, prompts."""
        drops: list[Element] = []
        # The tree does not change until the drops below, so `_holds` may mark once what
        # holds media, data or images for all the elements judged (a test per element
        # walked its whole subtree, or its grandparent's: quadratic on a manual).
        for element in self.judged:
            if drops and drops[-1] in element.iterancestors():
                continue
            if self._is_box(element, element.tag):
                drops.append(element)
        for element in drops:
            self.drop(element, "caption-or-box")

    def _judged(self) -> list[Element]:
        """The root's elements in document order, code and data tables left out
        (a highlighter's ``<span class="token comment">`` is code, not a thread)."""
        found: list[Element] = []
        skip_until = -1
        for index, element in enumerate(self.stats.elements):
            if index <= skip_until or element is self.root:
                continue
            if element.tag in _NEVER_JUDGED:
                inside = 0
                pictured: dict[Element, bool] = {}
                for inner in element.iterdescendants(etree.Element):
                    inside += 1
                    if _cell_image_caption(inner, pictured):
                        found.append(inner)
                skip_until = index + inside
                continue
            found.append(element)
        return found

    def _is_box(self, element: Element, tag: str) -> bool:
        chars = self.chars(element)
        if chars == 0 or element in self.protected:
            return False
        words = _words(element)
        # a name that some rule below reads (most names of a page are none of them)
        boxy = bool(words) and (
            not words.isdisjoint(_BOX_WORDS) or element.get("itemprop") == "author"
        )
        if not boxy and tag != "figcaption" and chars > _LINE_BOX_MAX_CHARS.get(tag, 0):
            # only a credit line, a control label or a prompt (each short), or a
            # figcaption, can be a box without such a name: the most frequent case (a
            # manual's paragraphs and spans), cut short
            return False
        parent = element.getparent()
        if (
            tag in v.INLINE_TAGS
            and tag != "a"
            and parent is not None
            and self.chars(parent) > 2 * chars + v.INLINE_RUN_SLACK_CHARS
        ):
            # a run of words inside a longer block (the most frequent element of a
            # manual: code, emphasis, a command's name): a control label or a prompt is
            # a block of its own; a credit line is named ("© ..." in a caption's span)
            if not words:
                return False
            line_rules = False
        else:
            line_rules = True
        if boxy and not words.isdisjoint(v.ADMONITION_WORDS):
            return False  # a note or warning of the text (docs), whatever it mentions
        if not self.keep_captions and chars <= v.CAPTION_MAX_CHARS:
            # a box holding the image is the figure, not its caption; a caption beside
            # code or a table names a listing ("// add.c")
            if (
                (tag == "figcaption" or (boxy and self._caption_named(words)))
                and not self._holds(element, _MEDIA_OR_DATA)
                and not (parent is not None and self._holds(parent, _DATA))
                and not v.DOC_CAPTION.match(_text(element))
            ):
                return True
            if self.alts and tag in _ALT_CAPTION_TAGS and self._repeats_an_alt(element):
                return True
            if (
                chars <= v.CREDIT_LINE_MAX_CHARS
                and tag in _CREDIT_TAGS
                and parent is not None
                and parent.tag not in _INLINE_PARENTS
                and not self._holds(element, _MEDIA_OR_DATA)
            ):
                text = _text(element)
                if self._by_image(element):
                    if v.CREDIT_LINE.search(text) and not v.DOC_CAPTION.match(text):
                        return True
                elif (
                    self.article_meta
                    and len(text) <= v.PHOTO_CREDIT_MAX_CHARS
                    and v.PHOTO_CREDIT_LINE.search(text)
                ):
                    # a story's photo credits or agency sign-off as a line of its own
                    return True
        if boxy and self._named_box(element, words, chars):
            return not _holds(element, ("h1",))
        if not line_rules:
            return False
        if chars <= v.UI_LABEL_MAX_CHARS and tag in _UI_TAGS and v.UI_LABEL.match(_text(element)):
            return True  # "Seite teilen", "Zurück zur Übersicht", "Artikel bewerten"
        if chars > v.PROMPT_MAX_CHARS or tag not in _PROMPT_TAGS:
            return False
        if self.article_meta:
            # a disclosure or an embed's consent placeholder (article pages: a manual's
            # short paragraphs are not read for them): the patterns first, most blocks
            # match neither; the walk for what such a notice never holds after
            text = _text(element)
            if (
                (v.DISCLOSURE_KIND.search(text) and v.DISCLOSURE_VOICE.search(text))
                or (v.EMBED_CONSENT_SOURCE.search(text) and v.EMBED_CONSENT_ACTION.search(text))
            ) and not _holds(element, _DISCLOSURE_STOPS):
                return True  # "This post contains affiliate links ...", "*Werbung."
        # in the body a prompt asks for an action (a link, a form control); a paragraph of
        # a manual that mentions subscribing does not. The cheap structural tests first:
        # the pattern is a long alternation.
        return (
            _holds(element, ("a", "input", "button", "form"))
            and _emphasised(element)
            and not _holds(element, ("code", "kbd", "tt", "pre"))
            and v.PROMPT_TEXT.search(_text(element)) is not None
        )

    def _repeats_an_alt(self, element: Element) -> bool:
        """`element` opens with the alt text of a picture beside it, in a small box of
        the two (the picture, its caption, a credit): the picture's caption. A lead
        paragraph that a teaser picture's alt repeats sits in the article, not in such
        a box, and stays."""
        text = _text(element).lower()
        found = self.alts.get(text[: v.ALT_CAPTION_MIN_CHARS])
        if found is None or self._holds(element, _MEDIA_OR_DATA) or v.DOC_CAPTION.match(text):
            return False
        boxes = list(itertools.islice(element.iterancestors(), 3))
        limit = self.chars(element) + v.ALT_CAPTION_BOX_SLACK_CHARS
        for alt, image in found:
            if not text.startswith(alt):
                continue
            for box in boxes:
                if self.chars(box) > limit or box in self.protected:
                    break
                if any(a is box for a in image.iterancestors()):
                    return True
        return False

    def _named_box(self, element: Element, words: frozenset[str], chars: int) -> bool:
        """A box named for what it is: an author box, a ticker, a poster's signature or
        profile, a related or teaser block after the text's start, a prompt."""
        if chars <= v.AUTHOR_BOX_MAX_CHARS and (
            not words.isdisjoint(v.AUTHOR_BOX_WORDS)
            or ("author" in words and not words.isdisjoint(v.AUTHOR_BOX_PAIR))
            or (element.get("itemprop") == "author" and chars >= 100)
        ):
            return True
        if chars <= v.TICKER_MAX_CHARS and not words.isdisjoint(v.TICKER_WORDS):
            return True
        classes = _class_words(element)
        if not classes:
            return False
        if chars <= v.SIGNATURE_MAX_CHARS and not classes.isdisjoint(v.POSTER_WORDS):
            return True
        small_and_after_start = (
            chars * 2 <= self.chars(self.root) and self.prose_before(element) > 0
        )
        if (
            small_and_after_start
            and not classes.isdisjoint(v.RELATED_NAME_WORDS)
            and self.of[element][LINKS] >= 1
        ):
            return True
        if (
            small_and_after_start
            and not classes.isdisjoint(v.TEASER_NAME_WORDS)
            and _linked_headline(element)
        ):
            return True  # a teaser of another page
        return chars <= v.PROMPT_MAX_CHARS and not classes.isdisjoint(v.PROMPT_NAME_WORDS)

    def _holds(self, element: Element, tags: tuple[str, ...]) -> bool:
        """`_holds(element, tags)` while the tree is unchanged: the holders of `tags` in
        the whole page (an image beside the root counts for `_by_image`) are marked
        once, at the first question about them (`_holders`)."""
        marks = self._marks.get(tags)
        if marks is None:
            marks = self._marks[tags] = _holders(self.root.getroottree().getroot(), tags)
        return element in marks

    def _by_image(self, element: Element) -> bool:
        """`element` sits in a figure or beside an image (its parent or grandparent holds
        one): where a photo credit stands."""
        return any(
            ancestor.tag == "figure" or self._holds(ancestor, _IMAGES)
            for ancestor in itertools.islice(element.iterancestors(), 3)
        )

    @staticmethod
    def _caption_named(words: frozenset[str]) -> bool:
        found = words & v.CAPTION_WORDS
        if not found:
            return False
        if not found.isdisjoint(v.CAPTION_STRONG_WORDS):
            return True
        if found <= _BLURB_WORDS:
            # "description", "subtitle": a product's or a section's blurb as often as a
            # picture's caption; a caption only in a box named for its picture
            return not words.isdisjoint(_PICTURE_WORDS)
        return not words.isdisjoint(v.CAPTION_CONTEXT_WORDS)

    def _sections(self) -> None:
        """Pass 2: comment threads, related sections and inline "Related:" lines."""
        comments: list[Element] = []
        labels: list[tuple[Element, bool]] = []
        inline: list[Element] = []
        prompts: list[Element] = []
        short = max(v.RELATED_LABEL_MAX_CHARS, v.RELATED_INLINE_MAX_CHARS)
        for element in self.judged:
            chars = self.chars(element)
            if chars == 0 or element in self.protected:
                continue
            if _may_name_comments(element) and element_verdict(element) == COMMENTS:
                comments.append(element)
                continue
            if chars > short:
                continue  # labels and inline "Related:" lines are short
            tag = element.tag
            heading = tag in _HEADING_RANK
            if chars <= v.RELATED_LABEL_MAX_CHARS and (
                heading or (_leaf_label(element, tag) and self._whole_block(element))
            ):
                text = _text(element)
                if not heading and (
                    (text.endswith(".") and len(text.split()) >= v.LABEL_SENTENCE_WORDS)
                    or _holds(element, _CODE)
                ):
                    continue  # a sentence of the text ("Similar to `map()` but ..."), no label
                if (
                    v.COMMENT_HEADINGS.match(text)
                    or v.AUTHOR_HEADINGS.match(text)
                    or v.BOARD_HEADINGS.match(text)
                ):
                    labels.append((element, True))
                elif _promotion(text):
                    labels.append((element, False))
                elif heading and self.article_meta and v.PROMPT_TEXT.search(text):
                    prompts.append(element)  # "Unterstütze RosaMag!", "Get our newsletter"
            if (
                chars <= v.RELATED_INLINE_MAX_CHARS
                and tag in ("p", "div", "li", "h4", "h5", "h6", "blockquote")
                and self.link_share(element) >= 0.3
                and v.RELATED_INLINE.match(_text(element))
            ):
                inline.append(element)
        # the comments of one list are judged as one: a thread whose first post opens
        # the text is the page (a forum), not a thread under an article
        first_of: dict[tuple[str, str], Element] = {}
        for element in comments:
            first_of.setdefault((element.tag, element.get("class") or ""), element)
        for element in comments:
            first = first_of[(element.tag, element.get("class") or "")]
            if self.prose_before(first) >= v.COMMENTS_MIN_PROSE_BEFORE:
                self.drop(element, "comments")
        for element, is_comments in labels:
            if _under(element, self.root):
                self._drop_section(element, is_comments)
        for element in inline:
            self.drop(element, "related-inline")
        for element in prompts:
            if _under(element, self.root):
                self._drop_prompt_section(element)

    def _drop_prompt_section(self, heading: Element) -> None:
        """A section of an article page under a prompt's heading ("Support us", "Get
        our newsletter"), in the text's second half: a short box of the site, with its
        paragraphs and its form or button, not the text's last section."""
        if self.prose_before(heading) < v.PAYWALL_AFTER_SHARE * self.total_prose:
            return
        body = self._section_body(heading, _HEADING_RANK[heading.tag])
        if sum(self.chars(e) for e in body) > v.PROMPT_SECTION_MAX_CHARS or any(
            e in self.protected or _holds(e, _DATA) for e in body
        ):
            return
        for element in body:
            self.drop(element, "prompt-section")
        self.drop(heading, "prompt-section")

    def _whole_block(self, element: Element) -> bool:
        """`element` is not a run of words inside a longer block ("<li><b>Other APIs</b>: ...")."""
        if element.tag not in v.INLINE_TAGS:
            return True
        parent = element.getparent()
        if parent is None:
            return False
        if self.chars(parent) == self.chars(element):
            return True
        # a line of its own: no text beside it, only blocks ("<span>Related</span><ul>")
        before = element.getprevious()
        after = element.getnext()
        return (
            not (element.tail or "").strip()
            and not ((before.tail if before is not None else parent.text) or "").strip()
            and all(s is None or s.tag not in v.INLINE_TAGS for s in (before, after))
            and (before is not None or after is not None)
        )

    def _drop_section(self, label: Element, is_comments: bool) -> None:
        if is_comments and self.prose_before(label) < v.COMMENTS_MIN_PROSE_BEFORE:
            return
        box = label
        # a heading alone in its wrapper ("<div class=block-subtitle><h5>")
        parent = box.getparent()
        while (
            parent is not None
            and parent is not self.root
            and parent not in self.protected
            and self.chars(parent) == self.chars(box)
        ):
            box = parent
            parent = box.getparent()
        rank = _HEADING_RANK.get(label.tag, 7)
        body = self._section_body(box, rank)
        # a heading that closes its wrapper ("<header><h2>More</h2><a>All</a></header>"):
        # the section is what follows the wrapper
        parent = box.getparent()
        if (
            not body
            and next(box.itersiblings(), None) is None
            and parent is not None
            and parent is not self.root
            and parent not in self.protected
            and self.chars(parent) <= self.chars(box) + v.RELATED_LABEL_MAX_CHARS
        ):
            box = parent
            body = self._section_body(box, rank)
        if not is_comments:
            cards = self._cards(body)
            if cards:
                body = cards
            elif not self._promoted(box, body):
                return  # a section of the text under a "More ..." heading
        if any(s in self.protected for s in body):
            return
        if not is_comments and self._cites(body):
            return  # "Weitere Quellen": the sources of the text, links to other sites
        rule = "comments-section" if is_comments else "related-section"
        for sibling in body:
            self.drop(sibling, rule)
        self.drop(box, rule)

    def _section_body(self, box: Element, rank: int) -> list[Element]:
        """The siblings after `box` up to the next heading of `rank` or higher, or up
        to the text's footnotes (they close the page, under whatever heading)."""
        body: list[Element] = []
        for sibling in box.itersiblings():
            if not isinstance(sibling.tag, str):
                continue
            own = _HEADING_RANK.get(sibling.tag)
            if own is not None and own <= rank:
                break
            if footnotes(sibling):
                if body and _text(body[-1]).lower() in v.FOOTNOTE_RUBRICS:
                    body.pop()  # their rubric ("Footnotes") goes with them
                break
            if any(_HEADING_RANK.get(h.tag, 9) <= rank for h in sibling.iter(*_HEADING_RANK)):
                break
            body.append(sibling)
        return body

    def _cards(self, body: list[Element]) -> list[Element]:
        """The teaser cards that open `body`, a section under a "More ..." heading: the
        blocks up to the first paragraph of text without a link (the text going on under
        the heading), when they are a grid of linked headlines with short blurbs (at most
        `TEASER_CHARS_PER_LINK` characters per link). Else []."""
        cards: list[Element] = []
        for block in body:
            stats = self.of.get(block)
            if stats is None:
                continue
            if not stats[LINKS] and stats[CHARS] > v.TEASER_CHARS_PER_LINK:
                break
            cards.append(block)
        count = sum(self.of[s][LINKS] for s in cards)
        chars = sum(self.chars(s) for s in cards)
        late = bool(cards) and (
            self.prose_before(cards[0]) >= v.MORE_SECTION_AFTER_SHARE * self.total_prose
        )
        if chars > v.TEASER_CHARS_PER_LINK * count or any(_holds(s, _CODE) for s in cards):
            return []  # text with a link or two, or a manual's cross-references
        if late and count == 1 and len(cards) == len(body):
            return cards  # one last card after the text
        if count >= 2 and 2 * sum(self.chars(s) for s in cards if not self.of[s][LINKS]) <= chars:
            return cards
        return []

    def _promoted(self, box: Element, body: list[Element]) -> bool:
        """`body` under a "More ..." heading is the site's promotion: mostly link text,
        or, late in the page, teasers that link to at least two pages."""
        chars = sum(self.chars(s) for s in body)
        if not chars:
            return self.prose_before(box) > 0  # a dangling label after the text
        links = sum(self.of[s][LINK_CHARS] for s in body if s in self.of)
        count = sum(self.of[s][LINKS] for s in body if s in self.of)
        late = self.prose_before(box) >= v.MORE_SECTION_AFTER_SHARE * self.total_prose
        return links >= 0.4 * chars or (late and count >= 2 and links >= 0.15 * chars)

    def _cites(self, blocks: list[Element]) -> bool:
        """Most links of `blocks` lead off the page's site (a list of sources, not
        the site's own promotion). Unknown without the page's site: False."""
        if not self.site:
            return False
        away = total = 0
        for block in blocks:
            for link in block.iter("a"):
                host = _link_host(link.get("href") or "")
                if host is None:
                    continue
                total += 1
                if host and host != self.site and not host.endswith("." + self.site):
                    away += 1
        return total > 0 and away * 2 > total

    def _last_paragraph(self) -> Element | None:
        for paragraph, _ in reversed(self.stats.paragraphs):
            if _under(paragraph, self.root):
                return paragraph
        return None

    def _first_paragraph(self) -> Element | None:
        for paragraph, _ in self.stats.paragraphs:
            if _under(paragraph, self.root):
                return paragraph
        return None

    def _beside(self, paragraph: Element, preceding: bool) -> list[Element]:
        """The block elements after (or before) `paragraph` up to the root's end (or
        start), outermost first: its siblings and those of each ancestor. A level whose
        parent has loose text on that side of the paragraph is skipped: the text goes on
        there, so what sits in it (inline links, a heading among `<br>` lines) is text."""
        found: list[Element] = []
        node = paragraph
        while node is not self.root and node is not None:
            parent = node.getparent()
            if node.tag in _ITEM_TAGS:  # the other items of a list: the list is judged whole
                node = parent
                continue
            siblings = [s for s in node.itersiblings(preceding=preceding) if isinstance(s.tag, str)]
            loose = any((s.tail or "").strip() for s in siblings)
            if preceding:
                loose = loose or bool(parent is not None and (parent.text or "").strip())
            else:
                loose = loose or bool((node.tail or "").strip())
            if not loose:
                # an inline sibling is a block of its own here (a kicker <span> above the
                # title); after the text, a bare link is judged with its block
                found.extend(s for s in siblings if preceding or s.tag not in v.INLINE_TAGS)
            node = parent
        found.sort(key=lambda e: self.order.get(e, 0))
        return found

    def _closing_prompts(self) -> None:
        """Pass 3b: the prompts that close an article as paragraphs of their own: a
        paywall notice and what follows it ("To view the full story, please subscribe"),
        then a trailing run of subscribe / newsletter / share / app lines: short, or with
        their link or button. Article pages only: a manual's closing "subscribe to the
        list and follow the steps" is its text."""
        if not self.article_meta:
            return
        paragraphs = [p for p, _ in self.stats.paragraphs if _under(p, self.root)]
        if len(paragraphs) < 2:
            return
        late = v.PAYWALL_AFTER_SHARE * self.total_prose
        for index, paragraph in enumerate(paragraphs):
            if (
                index > 0
                and self.chars(paragraph) <= v.PROMPT_MAX_CHARS
                and self.prose_before(paragraph) >= late
                and v.PAYWALL_TEXT.search(_text(paragraph))
                and paragraph not in self.protected
            ):
                for rest in paragraphs[index:]:
                    self.drop(rest, "closing-prompt")
                return
        for paragraph in reversed(paragraphs[1:]):
            text = _text(paragraph)
            if (
                self.chars(paragraph) > v.PROMPT_MAX_CHARS
                or not (v.PROMPT_TEXT.search(text) or v.SHARE_TEXT.search(text))
                or not (
                    _holds(paragraph, ("a", "input", "button", "form"))
                    or len(text) <= v.TAIL_PROMPT_MAX_CHARS
                )
                or _holds(paragraph, _CODE)
                or self.prose_before(paragraph) < late
            ):
                return
            self.drop(paragraph, "closing-prompt")

    def _tail(self) -> None:
        """Pass 4: link-dense blocks after the last paragraph, then dangling labels."""
        last = self._last_paragraph()
        if last is None:
            return
        after = self._beside(last, preceding=False)
        kept: list[Element] = []
        dropped_after = False
        for element in after:
            if element in self.protected or self.chars(element) == 0:
                kept.append(element)
                continue
            if _holds(element, _KEPT_AFTER_TEXT) and not _teaser_images(element):
                kept.append(element)
                continue
            share = self.link_share(element)
            if (
                share >= v.TAIL_LINK_SHARE
                and (
                    self.of[element][LINKS] >= 2
                    or element.tag != "p"
                    or (share >= 0.9 and not v.URL_TEXT.match(_text(element)))
                )
                and not self._cited_list(element)
                and not self._cited_section(element)
                and not see_also(element)
            ):
                self.drop(element, "tail-links")
                kept.append(element)  # a scar: the heading over it is dangling now
                continue
            text = _text(element) if self.chars(element) <= v.PROMPT_MAX_CHARS else ""
            if (
                text
                and (v.PROMPT_TEXT.search(text) or v.SHARE_TEXT.search(text))
                and (
                    _holds(element, ("a", "input", "button", "form"))
                    or (self.article_meta and len(text) <= v.TAIL_PROMPT_MAX_CHARS)
                )
                and not _holds(element, _CODE)
                and not self._cited_section(element)
            ):
                self.drop(element, "tail-prompt")
                kept.append(element)
                continue
            kept.append(element)
        # labels and headings left at the very end, with nothing of theirs after them
        for element in reversed(kept):
            if not _under(element, self.root):
                dropped_after = True
                continue
            if element in self.protected or self.chars(element) == 0:
                continue
            chars = self.chars(element)
            if _holds(element, (*_KEPT_AFTER_TEXT, *_LISTS)):
                break
            heading = element.tag in _HEADING_RANK
            if dropped_after and (
                heading or (chars <= v.TAIL_LABEL_MAX_CHARS and not ends_sentence(_text(element)))
            ):
                self.drop(element, "tail-label")
                dropped_after = True
                continue
            break

    def _cited_section(self, element: Element) -> bool:
        """A block that opens with, or follows, a heading of the text's own references
        ("See Also", "References", "Further reading": `vocabulary.CITED_HEADINGS`)."""
        heading = next(element.iter(*_HEADING_RANK), None)
        if heading is None:
            heading = _element_before(element)
            if heading is None or heading.tag not in _HEADING_RANK:
                return False
        return bool(v.CITED_HEADINGS.match(_text(heading)))

    def _cited_list(self, element: Element) -> bool:
        """A list right under a heading of the text ("See also", "References")."""
        if element.tag not in ("ul", "ol", "dl"):
            return False
        before = _element_before(element)
        if before is None or before.tag not in _HEADING_RANK:
            return False
        return not _promotion(_text(before)) or self._cites([element])

    def _title_block(self) -> Trimmed:
        """Pass 5: the h1, kicker, deck, byline and date lines before the first paragraph."""
        result = Trimmed()
        first = self._first_paragraph()
        h1 = self.h1
        if h1 is not None:
            self.h1_at = self.order.get(h1, -1)
            box = h1.getparent()
            # the title's own box (a header of title, date, byline), not the article
            # holding it; else the few blocks right after the title
            if (
                box is not None
                and box is not self.root
                and (self.chars(box) <= self.chars(h1) + v.TITLE_BLOCK_MAX_BEFORE // 2)
            ):
                self.title_box = box
            else:
                after = [s for s in h1.itersiblings() if isinstance(s.tag, str)]
                self.title_next.update(
                    s for s in after[: v.TITLE_NEXT_BLOCKS] if self.chars(s) <= v.DECK_MAX_CHARS
                )
        if h1 is not None and self.chars(self.root) > self.chars(h1):
            # the title heading is the Markdown's first line: never a second time below
            # it, wherever the page put it (a site notice above it is not the text)
            before_h1 = self._beside(h1, preceding=True)
            result.title = _text(h1) or None
            self.protected.discard(h1)
            self.drop(h1, "title")
            if sum(self.chars(e) for e in before_h1) <= v.TITLE_BLOCK_MAX_BEFORE:
                for element in before_h1:
                    if (
                        self.chars(element) <= v.DECK_MAX_CHARS
                        and not _holds(element, (*_MEDIA_OR_DATA, *_LISTS, *_HEADINGS))
                        and element not in self.protected
                    ):
                        self.drop(element, "title-block")
            first = self._first_paragraph()
        # a deck set as the first paragraph (the meta description, a "standfirst")
        while first is not None and self._deck_paragraph(first):
            deck = _text(first)
            if not self.drop(first, "deck"):
                break  # protected (the h1's box, the articleBody): the text starts here
            result.deck = result.deck or deck
            first = self._first_paragraph()
        if first is None:
            return result
        before = self._beside(first, preceding=True)
        if sum(self.chars(e) for e in before) > v.TITLE_BLOCK_MAX_BEFORE:
            return result
        stack = sorted(before, key=lambda e: self.order.get(e, 0))
        # a visible byline over the text makes the page an article whatever its metadata
        self.bylined = self.article_meta or any(
            len(t := _text(e)) <= v.BYLINE_LINE_MAX_CHARS and v.BYLINE_LINE.match(t)
            for element in before
            for e in element.iter(*_BYLINE_TAGS)
        )
        while stack:
            element = stack.pop()
            if not _under(element, self.root):
                continue
            if element.tag == "h1":
                # another h1 before the text is a section's heading (Medium, book
                # chapters), unless it repeats the title
                if self.titled:
                    continue
                if result.title is None:
                    result.title = _text(element) or None
                    self.drop(element, "title")
                elif _text(element) == result.title:
                    self.drop(element, "title-repeat")
                continue
            if _holds(element, ("h1", *_MEDIA_OR_DATA, *_LISTS)) or element.tag in _LISTS:
                if element.tag not in _LISTS and element.tag not in _NEVER_JUDGED:
                    stack.extend(c for c in element if isinstance(c.tag, str))
                continue
            if self._title_part(element) and self.drop(element, "title-block"):
                continue
            if any(c.tag not in v.INLINE_TAGS for c in element.iterchildren(etree.Element)):
                # a box of the title block (its title went already): judge its lines
                stack.extend(c for c in element if isinstance(c.tag, str))
        return result

    def _title_part(self, element: Element) -> bool:
        if element.tag == "p" and _opens_sections(element):
            # the page's own opening paragraph, alone before its first section or a
            # thematic break (MkDocs: "A Guide to installing ... Plugins", then <hr>,
            # then "## Installing Plugins"): a deck is followed by the text it heads
            return False
        chars = len(_text(element))  # measured now: the title may have left this box
        if chars == 0 or element.tag in _SUBHEADINGS:
            return chars > 0 and self._is_deck(element)
        if _holds(element, _SUBHEADINGS):
            return False  # a section's heading box (DocBook's "titlepage"): its lines are judged
        text = _text(element)
        if v.DOC_CAPTION.match(text):
            return False  # "Table 8.4. Character Types": a document's own caption
        if chars <= v.TITLE_BLOCK_MAX_CHARS:
            # a date or byline line is a field only where the page has those fields (an
            # article); a manual's "Release date: 2022-11-10" is its text
            dated = v.BYLINE_LINE.match(text) or (v.DATE_LINE.search(text) and chars <= 60)
            if dated and self.bylined:
                return True
            # a line without a sentence is the title block's only beside the title:
            # above it (kicker, category) or in its box (date, byline); elsewhere it may
            # be the text's own first line ("Angaben gemäß § 5 TMG", a salutation)
            if not ends_sentence(text) and (
                self._before_title(element)
                or (
                    (self.bylined or self.link_share(element) >= v.TITLE_CONTROL_LINK_SHARE)
                    and self._by_title(element)
                )
            ):
                # below the title, a line of an article page or a link ("Post Reply"); a
                # manual's "clusterdb — cluster a PostgreSQL database" is its text
                return True
        return chars <= v.DECK_MAX_CHARS and self._is_deck(element)

    def _deck_paragraph(self, paragraph: Element) -> bool:
        """A prose paragraph that is the deck: named so ("standfirst", "subheadline").
        A lead paragraph that the meta description repeats is the text's own first
        paragraph: news sites copy their lead into the description."""
        if self.chars(paragraph) > v.DECK_MAX_CHARS:
            return False
        return not _words(paragraph).isdisjoint(v.DECK_WORDS) and self._by_title(paragraph)

    def _before_title(self, element: Element) -> bool:
        return self.h1_at >= 0 and self.order.get(element, 0) < self.h1_at

    def _by_title(self, element: Element) -> bool:
        if self.h1_at >= 0 and self.order.get(element, 0) < self.h1_at:
            return True
        box = self.title_box
        if box is not None and any(a is box for a in element.iterancestors()):
            return True
        return element in self.title_next or any(
            a in self.title_next for a in element.iterancestors()
        )

    def _is_deck(self, element: Element) -> bool:
        text = _text(element).lower()
        short = len(text) <= v.DECK_BY_DESCRIPTION_MAX_CHARS or element.tag in _HEADING_RANK
        if (
            self.description
            and len(text) >= 20
            and short
            and (text == self.description or self.description.startswith(text[:120]))
        ):
            return True
        return not _words(element).isdisjoint(v.TITLE_BLOCK_WORDS)


def _opens_sections(paragraph: Element) -> bool:
    """The next element after `paragraph` is a thematic break or a section heading."""
    after = paragraph.getnext()
    while after is not None and not isinstance(after.tag, str):
        after = after.getnext()
    return after is not None and (after.tag == "hr" or after.tag in _SUBHEADINGS)


def _may_name_comments(element: Element) -> bool:
    """A class or id of `element` holds a comment word (`vocabulary.COMMENT_WORDS`) as a
    substring: the cheap test before `element_verdict`, which can only say COMMENTS of a
    name with such a word in it."""
    cls, ident = element.get("class"), element.get("id")
    return bool((cls and _COMMENT_NAME(cls)) or (ident and _COMMENT_NAME(ident)))


_COMMENT_NAME = re.compile("|".join(sorted(v.COMMENT_WORDS)), re.IGNORECASE).search


def _promotion(text: str) -> bool:
    """A heading or label of the site's promotion ("Related posts", "Mehr zum Thema"),
    not of the text's own sources ("Further reading", "See also", "References")."""
    if v.CITED_HEADINGS.match(text):
        return False
    return bool(v.MORE_HEADINGS.match(text) or v.RELATED_HEADINGS.match(text))


def _under(element: Element, root: Element) -> bool:
    """`element` is `root` or still one of its descendants."""
    return element is root or _depth_below(element, root) > 0


def _holds(element: Element, tags: tuple[str, ...]) -> bool:
    """`element` is or holds one of `tags`."""
    return element.tag in tags or next(element.iterdescendants(*tags), None) is not None


def _teaser_images(element: Element) -> bool:
    """Every image of `element` is a thumbnail inside a link to another page (not to an
    image file, as a lightbox's is), and it holds nothing else `_KEPT_AFTER_TEXT` keeps
    (code, a table, an embed): a grid of teaser cards, whose pictures do not make it
    more than its links. A figure of the text after its last paragraph is no link, or
    links to the picture itself."""
    images = 0
    for found in element.iter(*_KEPT_AFTER_TEXT):
        if found.tag != "img":
            return False
        link = next((a for a in found.iterancestors("a") if a.get("href")), None)
        if link is None or v.IMAGE_HREF.search(link.get("href", "")):
            return False
        images += 1
    return images > 0


def _leaf_label(element: Element, tag: str) -> bool:
    """A short label block: a p/div/span/strong with no block inside."""
    if tag not in _LABEL_TAGS:
        return False
    return all(child.tag in v.INLINE_TAGS for child in element.iterchildren(etree.Element))


_NO_WORDS: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=4096)
def _name_words(raw: str) -> frozenset[str]:
    """Lower-cased words of a class / id value. Cached: a page repeats its few class
    values on thousands of elements (DocBook's "literal", "command")."""
    return frozenset(w.lower() for w in _name_parts(raw))


def _cell_image_caption(element: Element, pictured: dict[Element, bool]) -> bool:
    """A caption-named element (a strong caption word: "caption", "credit"...) beside an
    image in a table (an infobox's picture caption): judged as any caption is, where
    the rest of a table is not. The names are looked at as a string first (most cells'
    elements are named otherwise, or not at all); whether a parent holds an image is
    asked once per parent (`pictured`), so many captions in one cell cost no more."""
    if element.tag not in _CREDIT_TAGS:
        return False
    names = f"{element.get('class') or ''} {element.get('id') or ''}".lower()
    if not any(word in names for word in v.CAPTION_STRONG_WORDS):
        return False
    parent = element.getparent()
    if parent is None or _words(element).isdisjoint(v.CAPTION_STRONG_WORDS):
        return False
    holds = pictured.get(parent)
    if holds is None:
        holds = pictured[parent] = any(child.tag in _IMAGES for child in parent)
    return holds


def _words(element: Element) -> frozenset[str]:
    """`chrome_names.class_words` (classes and id), without the call for a bare element."""
    cls, ident = element.get("class"), element.get("id")
    if not (cls or ident):
        return _NO_WORDS
    return _name_words(f"{cls or ''} {ident or ''}")


def _class_words(element: Element) -> frozenset[str]:
    """Lower-cased words of the element's classes alone (a document's ids are the slugs
    of its headings, "guc-max-sync-workers-per-subscription", and say nothing)."""
    value = element.get("class")
    return _name_words(value) if value else _NO_WORDS


def _linked_headline(element: Element) -> bool:
    """`element` holds a headline that links to another page: a link inside a heading,
    or a heading inside a link (a card)."""
    for heading in element.iter(*_SUBHEADINGS):
        if next(heading.iter("a"), None) is not None:
            return True
        if any(a.tag == "a" for a in heading.iterancestors()):
            return True
    return False


def _holders(top: Element, tags: tuple[str, ...]) -> set[Element]:
    """The elements of the tree `top` that are or hold one of `tags` (`_holds` for all
    of them at once): each match and its ancestors, each element marked once."""
    found: set[Element] = set()
    for match in top.iter(*tags):
        if match in found:
            continue
        found.add(match)
        for ancestor in match.iterancestors():
            if ancestor in found:
                break
            found.add(ancestor)
    return found


def _emphasised(element: Element) -> bool:
    """All of the block's text sits in one em / strong / i / b child (an editor's note)."""
    children = [c for c in element if isinstance(c.tag, str)]
    if len(children) != 1 or children[0].tag not in ("em", "strong", "i", "b"):
        return False
    return not (element.text or "").strip() and not (children[0].tail or "").strip()


def trim_periphery(
    root: Element,
    h1: Element | None,
    *,
    description: str | None = None,
    keep_captions: bool = False,
    site: str | None = None,
    article_meta: bool = True,
    stats: TextStats | None = None,
    audit: LossAudit | None = None,
    titled: bool = False,
    keep: Iterable[Element] = (),
) -> Trimmed:
    """Remove the chrome around the text of `root` in place (see the module docstring).

    `h1` is the page's title heading (it is never judged by the other passes and is
    removed as the title); `description` is the page's meta description (a deck
    equal to it is removed); `keep_captions` keeps every caption and credit; `site` is
    ``urls.site_key`` of the page (a "More" section linking off the site is a list of
    sources, and stays); `article_meta` says the page has an author or a publication
    date among its fields (without them a date or byline line above the text is kept:
    it is the only place the page says it); `stats` is `stats.measure(root)` when the
    caller has it (measured here otherwise). Returns the title text taken out, for the
    Markdown's ``# {title}`` line. Each removal is noted in `audit`, when given.
    `titled`: the page's title is outside `root` (a generator's title block), so no
    heading of `root` is taken for it. `keep`: elements never removed whole, nor their
    ancestors (a page-type profile's units, such as a thread's posts).
    """
    trimmer = _Trimmer(
        root, h1, description, keep_captions, site, article_meta, stats, audit, titled, keep
    )
    return trimmer.run()
