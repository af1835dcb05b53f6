"""The listing and collection profile (issue 32): a page whose main content is its item
cards (a product grid, a list of courses, articles, events or repositories).

Pure module. What the content is: every item card (its title, blurb, price, rating) in
page order, with the page's heading, intro and description around them; not the
filter, facet and sort panels, the pagination, the menus, nor one card alone.

How, by structure only (never one site's names):

1. a **card group** is the element children of one parent that share a signature (tag
   and class words, digits dropped), at least `MIN_CARDS` of them, each holding a link
   and some text; menus' columns (lists of links) are not. The group whose cards hold
   the most text wins (each card's share capped, so that one long card does not
   outweigh a grid); groups inside page chrome (nav, header, footer, aside, a
   chrome-named box) are not cards. Other groups of a good share of its score join it
   under their nearest shared ancestor (a home page's sections of cards), below the
   body;
2. the **ladder** (`root.select_content`, `periphery.trim_periphery`) reads the page
   with the cards' element swapped for an empty placeholder: what it picks is the
   heading, intro and category description around the cards. When its pick holds the
   placeholder, the cards go back in its place; else the pick is kept beside the cards
   (in page order) only when it holds the page's title heading or `MIN_PROSE`
   characters of prose (what the ladder finds on a page that is all cards is its
   chrome);
3. in what is kept, outside the cards, **chrome is pruned**: landmarks (nav, aside,
   footer, a header without the title), forms and controls (facets, sort boxes,
   search), chrome-named and screen-reader-only boxes, pagers (page numbers and next /
   previous) and facet lists (checkboxes, links with counts); inside the cards only
   controls (buttons, selects) and a layout's second copy of a block.

The profile returns None (the page goes to the ladder) when no card group is found.
One bottom-up measure of the page (`stats.measure`) and one walk of its elements find
the groups; the ladder then runs once, as it would without the profile.
"""

from __future__ import annotations

import copy
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.audit import LossAudit, counterparts
from webmd_spider.extract.chrome_names import CHROME, element_verdict, visually_hidden
from webmd_spider.extract.clean import body_of, visible_chars
from webmd_spider.extract.periphery import trim_periphery
from webmd_spider.extract.profiles import ProfileInput, ProfileResult, decisive, model_said
from webmd_spider.extract.root import Selection, _in_chrome, select_content
from webmd_spider.extract.stats import CHARS, LINK_CHARS, LINKS, Element, TextStats, measure

#: A group of fewer same-signature siblings is not a list of cards.
MIN_CARDS = 3
#: A card holds at least this many characters (a menu item of one word is not a card).
MIN_CARD_CHARS = 12
#: One card counts at most this many characters toward its group's score: a grid of
#: thirty short cards outweighs a block of three long ones.
CARD_CHARS_CAP = 400
#: The cards of a group hold on average at least this many characters.
MIN_MEAN_CARD_CHARS = 20
#: Cards of more links than this (the median), nearly all link text, are a menu's columns.
MENU_MIN_LINKS = 5
#: Other card groups of at least this share of the best one's score belong with it.
GROUP_SHARE = 0.25
MENU_LINK_SHARE = 0.85
#: A block outside the cards whose text is at least this share options' labels is a
#: filter panel.
FACET_LABEL_SHARE = 0.5
#: The rule named in the loss audit for what this profile removes.
RULE = "cards"
#: How many ancestors of a group are looked above for its label.
LABEL_LEVELS = 3
#: The ladder's content beside the cards is kept when it holds this much prose.
MIN_PROSE = 200

_DIGITS = re.compile(r"\d+")
#: landmarks and controls that are never a card's content
_CHROME_TAGS = frozenset({"nav", "aside", "footer", "form", "select", "button", "dialog"})
_CONTROL_TAGS = frozenset({"select", "button", "input", "textarea", "form", "dialog"})
_CHROME_ROLES = frozenset(
    {"navigation", "search", "complementary", "contentinfo", "banner", "dialog", "menu"}
)
#: the words of a pager beside its page numbers
_PAGER_WORDS = frozenset(
    {"next", "prev", "previous", "first", "last", "page", "of", "more", "load", "show", "»",
     "«", "\u203a", "\u2039", "...", "…", ">", "<", "→", "←"}
)  # fmt: skip
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: A group's label (`_label`) of the shop's or the reader's other items.
_ASIDE_LABELS = re.compile(
    r"\b(?:recently\s+viewed|viewed\s+recently|your\s+history|browsing\s+history"
    r"|(?:you|we\s+think\s+you)\s+(?:may|might|will|would)\s+(?:also\s+)?(?:like|love|enjoy)"
    r"|customers\s+(?:also|who)|frequently\s+bought|similar\s+(?:items|products)"
    r"|sponsored|recommended\s+for\s+you|complete\s+the\s+look)\b",
    re.IGNORECASE,
)
_COUNT = re.compile(r"^\(?\d[\d,.]*\)?$")


def _signature(element: Element) -> tuple[str, str]:
    """A card's signature: its tag and its class words without digits (the n-th card's
    ``card-3`` is the first card's ``card-1``)."""
    cls = element.get("class") or ""
    words = sorted({_DIGITS.sub("", w) for w in cls.split()} - {""})
    return element.tag, " ".join(words[:3])


def _card_groups(stats: TextStats) -> list[tuple[int, Element, list[Element]]]:
    """Every card group of the measured page outside chrome, as (score, parent, cards),
    best first (see the module docstring). One pass over the measured elements."""
    of = stats.of
    found: list[tuple[int, Element, list[Element]]] = []
    for parent in stats.elements:
        if len(parent) < MIN_CARDS:
            continue
        by_sig: defaultdict[tuple[str, str], list[Element]] = defaultdict(list)
        for child in parent:
            if isinstance(child.tag, str):
                by_sig[_signature(child)].append(child)
        for cards in by_sig.values():
            if len(cards) < MIN_CARDS:
                continue
            kept = [
                c
                for c in cards
                if (s := of.get(c)) is not None and s[LINKS] and s[CHARS] >= MIN_CARD_CHARS
            ]
            if len(kept) < MIN_CARDS or 2 * len(kept) < len(cards):
                continue
            total = sum(of[c][CHARS] for c in kept)
            if total < MIN_MEAN_CARD_CHARS * len(kept) or _menu(kept, of):
                continue
            score = sum(min(of[c][CHARS], CARD_CHARS_CAP) for c in kept)
            found.append((score, parent, kept))
    found.sort(key=lambda g: -g[0])
    return [g for g in found if not _in_chrome(g[1]) and not _chrome_box(g[1])]


def _card_group(
    body: Element, stats: TextStats
) -> tuple[Element, list[Element], list[Element]] | None:
    """The element holding the page's cards and the cards: the best group's parent, or
    the nearest ancestor it shares with the other groups of at least `GROUP_SHARE` of
    its score (a home page's sections of cards), unless that ancestor is the body; and
    the parents of the groups labelled as other items (`_aside`), to prune."""
    groups = _card_groups(stats)
    if not groups:
        return None
    best_score, top, cards = groups[0]
    cards = list(cards)
    asides = [g[1] for g in groups[1:] if _aside(g[1])]
    chain = [top, *top.iterancestors()]
    for score, parent, more in groups[1:]:
        if score < GROUP_SHARE * best_score:
            break
        if parent in asides:
            continue  # the shop's "recently viewed", not this page's items
        if any(_holds(c, parent) for c in cards) or _holds(parent, top):
            continue  # a group inside a card, or around the best one
        ancestors = {id(a) for a in parent.iterancestors()}
        shared = next((a for a in chain if id(a) in ancestors), None)
        if shared is None or shared is body or shared.tag in ("html", "body"):
            continue
        top = shared
        chain = [top, *top.iterancestors()]
        cards.extend(more)
    return top, cards, asides


def _label(parent: Element) -> str:
    """The heading just above a card group: the last heading of a sibling before it,
    or before one of its near ancestors (a section's title above its grid)."""
    node: Element | None = parent
    for _ in range(LABEL_LEVELS):
        if node is None:
            break
        before = node.getprevious()
        for _ in range(2):
            if before is None:
                break
            if isinstance(before.tag, str):
                if before.tag in _HEADINGS:
                    return " ".join(before.text_content().split())
                inner = [h for h in before.iter(*_HEADINGS)]
                if inner:
                    return " ".join(inner[-1].text_content().split())
            before = before.getprevious()
        node = node.getparent()
    return ""


def _aside(parent: Element) -> bool:
    """The group is labelled as the shop's or the reader's other items ("Recently
    viewed", "You may also like", "Customers also bought")."""
    label = _label(parent)
    return (
        bool(label)
        and len(label) <= v.RELATED_HEADING_MAX_CHARS
        and bool(_ASIDE_LABELS.search(label))
    )


def _menu(cards: list[Element], of: Mapping[Element, tuple[int | bool, ...]]) -> bool:
    """The "cards" are a menu's columns: each a list (``ul`` / ``ol``) of several links,
    hardly any text outside them (a card has a title link, maybe an image's, a rating's,
    a line of tags)."""
    links = sorted(of[c][LINKS] for c in cards)
    chars = sum(of[c][CHARS] for c in cards)
    link_chars = sum(of[c][LINK_CHARS] for c in cards)
    if links[len(links) // 2] <= MENU_MIN_LINKS or link_chars < MENU_LINK_SHARE * chars:
        return False
    # a column of a menu lists its links (a card's tags and bylines are a line of them)
    listed = sum(1 for c in cards if next(c.iter("ul", "ol"), None) is not None)
    return 2 * listed > len(cards)


def _chrome_box(element: Element) -> bool:
    """The element is a landmark or chrome-named box itself."""
    if element.tag in _CHROME_TAGS or element.get("role") in _CHROME_ROLES:
        return True
    cls = element.get("class")
    if cls and visually_hidden(cls):
        return True  # a screen reader's line ("Skip to results"), not shown
    return element_verdict(element) >= CHROME


def _pager(element: Element, text: str) -> bool:
    """A block of page numbers and next / previous links."""
    words = text.lower().split()
    if not words or len(words) > 40:
        return False
    numbers = sum(w.isdigit() for w in words)
    return numbers >= 2 and all(w.isdigit() or w in _PAGER_WORDS for w in words)


def _facet_list(element: Element, stats: TextStats) -> bool:
    """A list of filter links with counts ("Red (12)"), of checkboxes, or what a
    filter form leaves once its controls are cleaned away: a group of fields
    (``fieldset``), a block mostly of options' labels (``label for=...``, the text of a
    control no longer there), a list of "[ ] " / "[x] " items (a checkbox that opened
    each item). Called only outside the cards: a card's own labels stay."""
    if element.tag == "fieldset":
        return True
    if element.tag not in ("ul", "ol", "div", "dl", "section"):
        return False
    boxes = sum(1 for i in element.iter("input") if i.get("type") in ("checkbox", "radio"))
    if boxes >= 3:
        return True
    labels = [label for label in element.iter("label") if label.get("for")]
    if len(labels) >= 3:
        labelled = sum(len(" ".join(label.text_content().split())) for label in labels)
        if labelled >= FACET_LABEL_SHARE * max(1, stats.chars(element)):
            return True
    items = [c for c in element if isinstance(c.tag, str)]
    if len(items) < 3:
        return False
    counted = ticked = 0
    for item in items:
        text = item.text_content()
        if text.lstrip().startswith((v.TASK_OPEN, v.TASK_DONE)):
            ticked += 1
        words = text.split()
        if words and _COUNT.match(words[-1]):
            counted += 1
    return counted >= 0.6 * len(items) or ticked >= 0.6 * len(items)


def _prune(
    region: Element,
    cards: list[Element],
    stats: TextStats,
    asides: Sequence[Element],
    audit: LossAudit | None,
) -> None:
    """Remove the chrome of `region` around and inside the cards, in place, and the
    sections of the `asides` groups (each up to the largest box without a card); each
    removal is noted in `audit`."""
    inside: set[Element] = set()
    for card in cards:
        inside.update(card.iter(etree.Element))
    keep: set[Element] = set()
    for card in cards:
        keep.update(card.iterancestors())
    doomed: list[Element] = []
    skip: Element | None = None
    for element in region.iterdescendants(etree.Element):
        if skip is not None and any(a is skip for a in element.iterancestors()):
            continue
        skip = None
        if element in keep:
            continue
        if element in inside:
            if element.tag in _CONTROL_TAGS:
                doomed.append(element)
                skip = element
            continue
        text = " ".join(element.text_content().split()) if stats.chars(element) else ""
        if (
            _chrome_box(element)
            or element.tag in _CONTROL_TAGS
            or (element.tag == "header" and next(element.iter("h1"), None) is None)
            or _pager(element, text)
            or _facet_list(element, stats)
        ):
            doomed.append(element)
            skip = element
    for card in cards:
        doomed.extend(_twins(card))
        doomed.extend(_calls_to_action(card))
    for aside in asides:
        if aside in keep or not _holds(region, aside):
            continue
        node = aside
        while (up := node.getparent()) is not None and up is not region and up not in keep:
            node = up
        doomed.append(node)
    _drop(doomed, audit)


#: what a card's call-to-action button says: an action on the item, not its content
#: (a card's "Enrol" or "Add to cart" is the same words on every card of the grid)
_CALL_TO_ACTION = re.compile(
    r"(?:add to (?:cart|bag|basket|wishlist|list)|buy(?: now)?|shop(?: now)?|order(?: now)?|"
    r"enrol+(?: now)?|register|sign up|book(?: now)?|apply(?: now)?|get started|start now|"
    r"learn more|read more|see more|view(?: details| more| product| course)?|details|"
    r"quick ?view|compare|select options|choose options|more info|download|subscribe)"
    r"\W*",
    re.IGNORECASE,
)


def _alone(link: Element) -> bool:
    """Whether no text stands beside ``link`` on its line: nothing before it (its
    previous sibling's tail, or its parent's text) and nothing after it (its tail)."""
    if (link.tail or "").strip():
        return False
    before = link.getprevious()
    if before is not None:
        return not (before.tail or "").strip()
    parent = link.getparent()
    return parent is None or not (parent.text or "").strip()


def _calls_to_action(card: Element) -> list[Element]:
    """The card's call-to-action links: a link whose whole text is an action ("Enrol",
    "Add to cart", "View details") standing alone in its block (the block holds no
    other text), as a grid repeats on every card; the card's own title link never is
    one (its text is the item's name)."""
    found: list[Element] = []
    for link in card.iter("a"):
        text = " ".join(link.text_content().split())
        if not text or not _CALL_TO_ACTION.fullmatch(text):
            continue
        if not _alone(link):
            continue  # "or [view details] below": part of a sentence
        found.append(link)
    return found


def _twins(card: Element) -> list[Element]:
    """The later copies of a block of a card: an element whose text (of at least
    `MIN_CARD_CHARS`) an earlier element of the card already shows, not inside that
    earlier one (a layout's two copies of a title or byline, one shown on phones and
    one on desktops by a style sheet; a title both over the image and under it)."""
    found: list[Element] = []
    first: dict[str, Element] = {}
    gone: Element | None = None
    for element in card.iterdescendants(etree.Element):
        if gone is not None and _holds(gone, element):
            continue
        text = " ".join(element.text_content().split())
        if len(text) < MIN_CARD_CHARS:
            continue
        earlier = first.get(text)
        if earlier is None:
            first[text] = element
        elif not _holds(earlier, element):
            found.append(element)
            gone = element
    return found


@dataclass(frozen=True, slots=True)
class Cover:
    """What the profile's choice covers of a page, measured on the way (`covers`)."""

    #: characters of the cards' text
    card_chars: int
    #: prose characters of the ladder's pick on the page without its cards
    prose: int
    #: the ladder's pick on the page without its cards holds the page's title heading
    headed: bool
    #: the region chosen is the page's body
    whole_body: bool


#: On the model's word alone, the cards hold at least this many times the prose the
#: ladder finds beside them: a short article above a list of "more from" teasers (one
#: of trafilatura's articles: 268 characters of prose, 1,671 of video cards) is not a
#: listing. Set from that page, not from WCXB's listings (it costs them a little).
CARDS_OVER_PROSE = 8


def covers(cover: Cover) -> bool:
    """Whether the cards are the page's content on the model's word alone: not when the
    ladder, the cards taken away, finds prose the cards do not outweigh by
    `CARDS_OVER_PROSE` (an article with a teaser list or a menu beside it), nor when
    the region is the whole body and the ladder found no title heading beside the
    cards (the "cards" are the page's layout boxes or its menus, the page's own content
    inside or beside them, and nothing of the page is left aside as chrome)."""
    if cover.prose * CARDS_OVER_PROSE > cover.card_chars:
        return False
    return not (cover.whole_body and not cover.headed)


def cards_profile(given: ProfileInput) -> ProfileResult | None:
    """The content of a listing or collection page (module docstring), or None when
    the page holds no card group, or when the type is the model's word alone
    (`profiles.decisive`) and the cards do not cover the page (`covers`). The check is
    made on a copy of the page, the profile rewriting the tree it reads: a page left
    to the ladder is the page the ladder would have read; a page kept is the copy, its
    loss audit carried over to it (``LossAudit.moved_to``), not read a second time."""
    if not decisive(given.page_type):
        if not model_said(given.page_type):
            # the fallback for a grid the model was unsure of: the cards are not enough
            # to take the content away (one of trafilatura's pages, a ministry's page
            # of 43 teasers)
            return None
        page = copy.deepcopy(given.root)
        later = LossAudit() if given.audit is not None else None
        # taken before the trial changes the copy
        moved = counterparts(given.root, page) if given.audit is not None else {}
        trial = _choose(replace(given, root=page, audit=later))
        if trial is None or not covers(trial[1]):
            return None
        if given.audit is not None and later is not None:
            given.audit.moved_to(moved, later)
        return trial[0]
    chosen = _choose(given)
    return chosen[0] if chosen is not None else None


def _choose(given: ProfileInput) -> tuple[ProfileResult, Cover] | None:
    """The profile's content of the page and what it covers, or None without cards."""
    body = body_of(given.root)
    page_chars = visible_chars(body)
    stats = measure(body)
    group = _card_group(body, stats)
    if group is None:
        return None
    parent, cards, asides = group
    _prune(parent, cards, stats, (), given.audit)
    # the ladder reads the page without its cards: what it finds around them is the
    # page's heading, intro and description (or nothing worth keeping)
    holder = parent.getparent()
    if holder is None:
        return None  # the cards are the page's top: the ladder's whole page is theirs
    placeholder = body.makeelement("div", {"data-cards": "1"})
    placeholder.tail, parent.tail = parent.tail, None
    # where the cards stood, in each box around them: the ladder's trimming may drop
    # the empty placeholder, and the boxes it left empty (a results bar's count)
    places = [(holder, holder.index(parent))]
    places += [(up, up.index(box)) for box, up in _pairs(holder)]
    holder.replace(parent, placeholder)
    selection = select_content(
        given.root, site=given.site, audit=given.audit, generator=given.generator
    )
    # the ladder's pick that holds the page's title is the page's head (title, lede)
    headed = selection.h1 is not None and _holds(selection.root, selection.h1)
    trimmed = trim_periphery(
        selection.root,
        selection.h1,
        description=given.doc.description,
        keep_captions=given.options.keep_captions,
        site=given.site,
        article_meta=bool(given.doc.published_at or given.doc.author),
        stats=selection.stats,
        audit=given.audit,
        titled=selection.title_block is not None,
    )
    content = selection.root
    prose = selection.stats.prose(content) if selection.stats is not None else 0
    beside = content is not body and (headed or prose >= MIN_PROSE)
    if not _in_tree(body, placeholder):
        # the ladder's trimming dropped the placeholder (and maybe the boxes it left
        # empty): the cards go back into the nearest box around them still there
        for box, place in places:
            if _in_tree(body, box):
                box.insert(min(place, len(box)), placeholder)
                break
    swap = placeholder.getparent()
    if swap is not None:
        swap.replace(placeholder, parent)
        parent.tail = placeholder.tail
    if _holds(content, parent):
        region = content
    elif beside:
        # the ladder's pick and the cards, under their nearest shared box, which
        # keeps nothing else: the region is an element of the page, as the ladder's
        region = _shared(content, parent)
        _narrow(region, (content, parent), given.audit)
    else:
        region = parent
    _prune(region, cards, stats, asides, given.audit)
    kept = visible_chars(region)
    ratio = 1.0 - kept / page_chars if page_chars else 0.0
    chosen = Selection(
        root=region,
        method="cards",
        boilerplate_ratio=round(min(1.0, max(0.0, ratio)), 3),
        proxies=stats.elements,
        tab_labels=selection.tab_labels,
        h1=selection.h1,
        title_block=selection.title_block,
    )
    cover = Cover(
        card_chars=sum(stats.chars(c) for c in cards),
        prose=prose,
        headed=headed,
        whole_body=region is body,
    )
    return ProfileResult(selection=chosen, trimmed=trimmed), cover


def _holds(top: Element, element: Element) -> bool:
    """`element` is `top` or under it."""
    return element is top or any(a is top for a in element.iterancestors())


def _pairs(element: Element) -> list[tuple[Element, Element]]:
    """(box, its parent) for `element` and each of its ancestors below the root."""
    pairs = []
    node = element
    while (up := node.getparent()) is not None:
        pairs.append((node, up))
        node = up
    return pairs


def _in_tree(body: Element, element: Element) -> bool:
    """`element` is still under `body` (no trimming removed it or an ancestor)."""
    return _holds(body, element)


def _shared(first: Element, second: Element) -> Element:
    """The nearest element holding both (the root at worst)."""
    around = {id(e) for e in (first, *first.iterancestors())}
    return next(e for e in (second, *second.iterancestors()) if id(e) in around)


def _narrow(region: Element, kept: tuple[Element, ...], audit: LossAudit | None) -> None:
    """Remove from `region` every element that neither holds one of `kept` nor is
    under one (noted in `audit`)."""
    paths: set[Element] = set()
    for element in kept:
        for node in (element, *element.iterancestors()):
            if node is region:
                break
            paths.add(node)
    doomed = [
        child
        for node in (region, *paths)
        if node not in kept
        for child in node
        if isinstance(child.tag, str) and child not in paths
    ]
    _drop(doomed, audit)


def _drop(elements: Sequence[Element], audit: LossAudit | None) -> None:
    """Detach `elements` (their tails stay), each noted in `audit` first."""
    for element in elements:
        if element.getparent() is None:
            continue
        if audit is not None:
            audit.note(element, RULE)
        element.drop_tree()
