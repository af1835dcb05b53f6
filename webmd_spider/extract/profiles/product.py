"""The product profile (issue 32): a product page's main content is the product's
name, description and specifications; its reviews, its "customers also viewed"
carousels and the other products it advertises are not.

Pure module. `product_profile` takes the cleaned page and:

1. removes the blocks that are about other things than this product or that are
   other people's words about it: a section headed by a review or recommendation
   heading ("Customer Reviews", "You may also like", "Similar items"), and an
   element named as such by its class or id words ("reviews", "upsell") or its
   schema.org microdata (``itemprop=review``). Done on the whole page, before the
   content root is chosen, so that a long review list cannot draw the root to it;
2. chooses the content root with the standard ladder (``root.select_content``) and
   trims its periphery, without taking a paragraph equal to the meta description
   for a deck: on a product page that paragraph is the product's description;
3. adds the JSON-LD ``description`` of the page's Product when the chosen content
   does not show it (the visible one is in a tab the page hid, or rendered by a
   script): after the title heading when the root holds it, else first.

It never returns None: a page typed as a product is still best read this way when
none of the blocks above is found (the ladder's content, its description kept).
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.clean import body_of
from webmd_spider.extract.periphery import trim_periphery
from webmd_spider.extract.profiles import ProfileInput, ProfileResult
from webmd_spider.extract.root import select_content

#: Headings of other people's words about the product. Anchored: "Reviews" and
#: "Customer Reviews (1,234)" open such a section; "Reviewing your order" does not.
REVIEW_HEADINGS = re.compile(
    r"^\s*(?:\d[\d,.]*\s+)?(?:customer|product|user|guest|verified|member|buyer)?\s*"
    r"(?:reviews?|ratings?\s*(?:&|and)\s*reviews?|reviews?\s*(?:&|and|/)\s*(?:ratings?|q\s*&\s*a)"
    r"|what\s+(?:our\s+)?(?:customers|people|buyers)\s+(?:are\s+)?say(?:ing)?"
    r"|(?:customer\s+)?testimonials?)\b[^.!?]{0,40}$",
    re.IGNORECASE,
)
#: Headings of blocks of other products.
RECOMMENDATION_HEADINGS = re.compile(
    r"(?:customers?|people|shoppers|others)\s+(?:who\s+\w+\s+this\s+\w+\s+)?(?:also\s+)?"
    r"(?:viewed|bought|purchased|liked|searched|shopped)"
    r"|(?:also|frequently|often)\s+(?:viewed|bought|purchased)(?:\s+together)?"
    r"|\b(?:you|we\s+think\s+you)\s+(?:may|might|will|would)\s+(?:also\s+)?(?:like|love|enjoy|need)"
    r"|^\s*(?:similar|related|recommended|suggested|sponsored|featured)\s+"
    r"(?:items?|products?|styles?|listings?|picks)\b"
    r"|^\s*(?:recently\s+viewed|complete\s+the\s+(?:look|set)|shop\s+the\s+(?:look|collection)"
    r"|(?:pairs?|goes)\s+(?:well\s+)?with|more\s+(?:from|by)\s+(?:this\s+)?(?:seller|brand|shop|store)"
    r"|explore\s+more|more\s+to\s+(?:consider|explore|love)|recommended\s+for\s+you)\b",
    re.IGNORECASE,
)
#: A heading longer than this is a sentence of the text, not a section's label.
HEADING_MAX_CHARS = 80
HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: Class / id words that name a block of reviews or of other products.
OFF_PRODUCT_NAME_WORDS = frozenset(
    {
        "reviews",
        "productreviews",
        "customerreviews",
        "review-list",
        "reviewlist",
        "upsell",
        "upsells",
        "crosssell",
        "cross-sell",
        "crosssells",
        "recommendations",
        "recently-viewed",
        "recentlyviewed",
    }
)
_NAME_WORDS = re.compile(r"[^a-z0-9-]+")
#: schema.org microdata of a review inside a product
_REVIEW_ITEMPROPS = frozenset({"review", "reviews"})
#: A block holding this share of the page's text, or its title heading, is never
#: removed as a review or recommendation block: it is the page's body, misnamed.
MAX_BLOCK_SHARE = 0.5
#: The JSON-LD description is the product's own text when at least this share of
#: its words is not in the chosen content already.
LD_MISSING_SHARE = 0.5
#: ... and when it has at least this many words (a "Buy X online" line is not one).
LD_MIN_WORDS = 8
_WORDS = re.compile(r"\w+")


def _text(element: lxml.html.HtmlElement) -> str:
    return " ".join(element.text_content().split())


def _off_product_named(element: lxml.html.HtmlElement) -> bool:
    """The element's class / id words or its microdata name it a block of reviews or
    of other products."""
    if (element.get("itemprop") or "").strip().lower() in _REVIEW_ITEMPROPS:
        return True
    names = f"{element.get('class') or ''} {element.get('id') or ''}".lower()
    if not names.strip():
        return False
    words = set(_NAME_WORDS.split(names))
    if words & OFF_PRODUCT_NAME_WORDS:
        return True
    # "product-reviews", "pdp-recommendations": the name's parts
    return any(
        part in OFF_PRODUCT_NAME_WORDS for word in words if "-" in word for part in word.split("-")
    )


def _off_product_heading(heading: lxml.html.HtmlElement) -> bool:
    text = _text(heading)
    if not text or len(text) > HEADING_MAX_CHARS:
        return False
    return bool(REVIEW_HEADINGS.match(text) or RECOMMENDATION_HEADINGS.search(text))


def _opens(parent: lxml.html.HtmlElement, child: lxml.html.HtmlElement) -> bool:
    """No text of `parent` comes before its child `child`."""
    if (parent.text or "").strip():
        return False
    for sibling in child.itersiblings(preceding=True):
        if (sibling.tail or "").strip() or (
            isinstance(sibling.tag, str) and sibling.text_content().strip()
        ):
            return False
    return True


def _section_of(
    heading: lxml.html.HtmlElement, body: lxml.html.HtmlElement, limit: int
) -> list[lxml.html.HtmlElement]:
    """The elements that make up the section `heading` opens: the largest ancestor
    whose first heading it is (below `limit` characters), else the heading and its
    following siblings up to the next heading of its rank or higher."""
    best: lxml.html.HtmlElement | None = None
    child, node = heading, heading.getparent()
    # up while the heading opens the ancestor: no text before it there (a tab group's
    # "Reviews" heading after an unheaded description opens the reviews, not the group)
    while node is not None and node is not body and _opens(node, child):
        if len(_text(node)) >= limit:
            break
        best = node
        child, node = node, node.getparent()
    if best is not None:
        return [best]
    rank = HEADING_TAGS.index(heading.tag) if heading.tag in HEADING_TAGS else 5
    section = [heading]
    for sibling in heading.itersiblings():
        if not isinstance(sibling.tag, str):
            continue
        if sibling.tag in HEADING_TAGS and HEADING_TAGS.index(sibling.tag) <= rank:
            break
        inner = next(sibling.iter(*HEADING_TAGS[: rank + 1]), None)
        if inner is not None:
            break
        section.append(sibling)
    return section


def remove_off_product(root: lxml.html.HtmlElement, audit: LossAudit | None = None) -> None:
    """Remove from the cleaned page `root`, in place, the review and recommendation
    blocks (see the module docstring). A block holding the page's ``<h1>`` or
    `MAX_BLOCK_SHARE` of its text stays. Tail text of a removed element is kept."""
    body = body_of(root)
    limit = max(1, int(MAX_BLOCK_SHARE * len(_text(body))))
    h1 = next(body.iter("h1"), None)
    doomed: list[lxml.html.HtmlElement] = []
    for element in body.iter(etree.Element):
        if element is body:
            continue
        if element.tag in HEADING_TAGS and element.tag != "h1":
            if _off_product_heading(element):
                doomed.extend(_section_of(element, body, limit))
        elif _off_product_named(element):
            doomed.append(element)
    for element in doomed:
        if element.getparent() is None:
            continue
        if h1 is not None and (element is h1 or h1 in set(element.iterdescendants("h1"))):
            continue
        if len(_text(element)) >= limit:
            continue
        if audit is not None:
            audit.note(element, "product-off-topic")
        element.drop_tree()


def _words(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


def _description_paragraphs(description: str) -> list[lxml.html.HtmlElement]:
    """`description` (plain text or HTML, as publishers write it) as paragraphs."""
    if "<" in description and ">" in description:
        try:
            fragment = lxml.html.fragment_fromstring(description, create_parent="div")
            description = "\n".join(" ".join(t.split()) for t in fragment.itertext() if t.strip())
        except (etree.ParserError, ValueError):
            pass  # not markup after all
    paragraphs = []
    for line in re.split(r"\n+", description):
        line = " ".join(line.split())
        if line:
            paragraph = lxml.html.Element("p")
            paragraph.text = line
            paragraphs.append(paragraph)
    return paragraphs


def add_ld_description(content: lxml.html.HtmlElement, description: str | None) -> bool:
    """Put the Product's JSON-LD `description` into `content` when `content` does not
    already show it (`LD_MISSING_SHARE` of its words absent); after the content's
    ``<h1>`` if it holds one, else first. True if it was added."""
    if not description:
        return False
    wanted = _words(description)
    if len(wanted) < LD_MIN_WORDS:
        return False
    shown = set(_words(content.text_content()))
    missing = sum(w not in shown for w in wanted) / len(wanted)
    if missing < LD_MISSING_SHARE:
        return False
    paragraphs = _description_paragraphs(description)
    if not paragraphs:
        return False
    holder = lxml.html.Element("div")
    holder.extend(paragraphs)
    h1 = next(content.iter("h1"), None)
    if h1 is not None and h1 is not content and h1.getparent() is not None:
        h1.addnext(holder)
        # addnext moves the h1's tail after the inserted block: it stays the h1's
        holder.tail, h1.tail = h1.tail, None
    else:
        holder.tail, content.text = content.text, None
        content.insert(0, holder)
    return True


def product_profile(page: ProfileInput) -> ProfileResult | None:
    """A product page's content: the ladder's content root of the page cleaned of its
    review and recommendation blocks, with the Product's JSON-LD description when the
    page does not show it (see the module docstring)."""
    remove_off_product(page.root, page.audit)
    selection = select_content(
        page.root, site=page.site, audit=page.audit, generator=page.generator
    )
    trimmed = trim_periphery(
        selection.root,
        selection.h1,
        # no deck: the paragraph equal to the meta description is the product's text
        description=None,
        keep_captions=page.options.keep_captions,
        site=page.site,
        article_meta=bool(page.doc.published_at or page.doc.author),
        stats=selection.stats,
        audit=page.audit,
        titled=selection.title_block is not None,
    )
    add_ld_description(selection.root, page.ld_description)
    return ProfileResult(selection, trimmed)
