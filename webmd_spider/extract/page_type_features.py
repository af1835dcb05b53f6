"""The numbers the page-type step reads (issue 32), from one walk of the cleaned tree.

Pure module. ``page_features`` walks the cleaned ``<html>`` once (``root.iter()``) and
returns a ``Features``: a flat vector of floats in ``FEATURE_NAMES`` order (what the
learned model in ``page_type_model.json`` was fit to) plus the few facts the rules and
the evidence strings name (schema types, generator, cards, posts, shares).

Why these numbers: they are what tells a page's kind on sites never seen, not any one
site's markup: schema.org types (JSON-LD and microdata), repeated sibling structures
(cards: the same link position repeated, with an image or a long title, how many such
positions, what share of the text they hold and whether each carries a date or a
picture; posts: repeated author / date blocks), the share of the text in links, link
lists, headings and forms, an index's own links (page numbers, "next", "read more"),
class-name vocabulary (``comment``, ``price``, ``card``, ``toc``...), a few text
patterns (prices, ratings, dates, "add to cart", "reply", "free quote"), the words of
the title and first heading ("services", "shop", "forum"...) and cheap URL hints. No
feature names a site, a domain or a page.

Cost: one Python loop over the telling elements (filtered by tag in C), a leaf's text
read without an XPath call (a parent's through the C text serialiser); each distinct
class string split once (cached); the text patterns run once in C. Most of what is
left is lxml creating an element proxy (with lxml.html's class look-up, a Python call)
per walked node, and reading every class attribute.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import lxml.html
from lxml import etree

#: schema.org types (JSON-LD or microdata), lower-cased, by the group they speak for
SCHEMA_GROUPS: dict[str, str] = {
    "product": "product",
    "productgroup": "product",
    "productmodel": "product",
    "offer": "offer",
    "aggregateoffer": "offer",
    "individualproduct": "product",
    "car": "product",
    "book": "product",
    "discussionforumposting": "forum",
    "socialmediaposting": "forum",
    "qapage": "forum",
    "question": "qa",  # a FAQPage's questions too: no forum by itself
    "answer": "qa",
    "comment": "comment",
    "itemlist": "itemlist",
    "collectionpage": "collection",
    "offercatalog": "collection",
    "searchresultspage": "collection",
    "techarticle": "docs",
    "apireference": "docs",
    "softwaresourcecode": "docs",
    "softwareapplication": "software",
    "article": "article",
    "newsarticle": "article",
    "blogposting": "article",
    "reportagenewsarticle": "article",
    "analysisnewsarticle": "article",
    "opinionnewsarticle": "article",
    "scholarlyarticle": "article",
    "report": "article",
    "recipe": "article",
    "howto": "article",
    "review": "review",
    "aggregaterating": "rating",
    "service": "service",
    "professionalservice": "service",
    "financialservice": "service",
    "localbusiness": "business",
    "organization": "org",
    "corporation": "org",
    "faqpage": "faq",
    "event": "event",
    "course": "course",
    "jobposting": "job",
    "person": "person",
    "profilepage": "person",
    "breadcrumblist": "breadcrumb",
    "webpage": "webpage",
    "aboutpage": "service",
    "contactpage": "service",
    "videoobject": "video",
    "imagegallery": "collection",
    "blog": "collection",
}
_SCHEMA_FEATURES = tuple(sorted(set(SCHEMA_GROUPS.values())))

#: class vocabulary: the words of a class name (split at non-letters, lower case) by
#: the family they speak for. Exact words, not substrings: a
#: dict look-up per word, where a regex per class string cost ~10 ms a page
_VOCAB: tuple[tuple[str, str], ...] = (
    ("comment", "comment commentlist comments"),
    ("post", "post postbody postcontent posttext"),
    ("reply", "reply replies quote"),
    ("thread", "thread topic forum discuss discussion"),
    ("message", "message msg"),
    ("author", "author username user userinfo byline poster avatar profile"),
    ("product", "product sku variant gallery pdp"),
    ("price", "price amount currency sale money"),
    ("cart", "cart basket checkout buy wishlist quantity qty addtocart stock"),
    ("card", "card tile teaser thumb thumbnail"),
    ("item", "item entry result listing grid row"),
    ("filter", "filter facet refine sort sorting"),
    ("pager", "pagination pager paging loadmore"),
    ("category", "category categorie collection catalog archive tag"),
    (
        "docs",
        "doc documentation toc api highlight sphinx admonition signature method sig "
        "headerlink function",
    ),
    ("sidebar", "sidebar aside widget"),
    ("hero", "hero banner jumbotron splash"),
    ("service", "service feature benefit testimonial pricing plan cta contact"),
    ("faq", "faq accordion collapse"),
    ("rating", "rating review star score"),
    ("vote", "vote like upvote karma reputation badge"),
    ("article", "article story blog prose"),
    ("date", "date time published posted timestamp datetime"),
    ("breadcrumb", "breadcrumb crumbs"),
    ("nav", "nav navbar navigation menu"),
)
_VOCAB_NAMES = tuple(name for name, _ in _VOCAB)
_VOCAB_INDEX = {name: i for i, name in enumerate(_VOCAB_NAMES)}
_VOCAB_WORDS = {
    form: _VOCAB_INDEX[name]
    for name, words in _VOCAB
    for word in words.split()
    for form in (word, f"{word}s")  # the plural too: "comments", "cards"
}
_WORD_SPLIT = re.compile(r"[^a-z]+")

#: text patterns: prices by one regex (its first character is a currency sign, so the
#: engine skips ahead in C), the rest as literal counts on a lower-cased sample
_PRICE_RE = re.compile(r"[$€£¥₹] ?\d")
_TEXT_SAMPLE = 10_000
_TEXT_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cart", ("add to cart", "add to bag", "in stock", "shipping")),
    ("ago", (" ago",)),
    ("forum", ("reply", "joined", "posts:", "quote")),
    ("rating", ("review", "stars")),
    ("service", ("contact us", "get started", "our services", "testimonial", "pricing")),
    ("code", ("parameters", "returns", "example")),
    ("showing", ("showing", "sort by", "results", "filter")),
    # links that open an item (an index's cards) or a section (a service page's)
    ("more", ("read more", "learn more", "view all", "see all", "load more", "view more")),
    ("apply", ("apply now", "enroll", "register", "sign up", "book now", "subscribe")),
    ("quote", ("free quote", "call us", "request a", "schedule", "consultation", "our team")),
    ("stars", ("out of 5", "\u2605", "/5", "rated")),
    ("posted", ("posted by", "posted on", "replied", "member", "wrote:")),
    ("spec", ("specifications", "dimensions", "weight", "sku", "warranty", "in stock")),
    ("paging", ("per page", "next page", "page 1", "previous", "next \u203a", "older")),
)
_TEXT_KINDS = ("price", *(kind for kind, _ in _TEXT_WORDS))

#: URL path hints, one feature per family
_URL_HINT_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "forum",
        r"/(?:forums?|threads?|topics?|t|community|discussions?|questions?|q|answers|board"
        r"|viewtopic|showthread|r)(?:/|\.|$|\?)|forum|thread|viewtopic",
    ),
    (
        "product",
        r"/(?:products?|p|dp|item|itm|sku|shop/[^/]+)/|/products?/|\bproduct\b|-p-\d"
        r"|/\d{6,}(?:\.html)?$",
    ),
    (
        "collection",
        r"/(?:collections?|categor(?:y|ies)|c|shop|store|catalog|department|brands?|tags?"
        r"|search)(?:/|$|\?)",
    ),
    (
        "listing",
        r"/(?:list|listings?|directory|courses|jobs|events|results|blog|news|archive"
        r"|page/\d+)(?:/|$|\?)",
    ),
    (
        "docs",
        r"/(?:docs?|documentation|api|reference|manual|guide|library|javadoc|man|sdk"
        r"|developer)s?(?:/|$|\.)|docs\.|readthedocs",
    ),
    (
        "article",
        # an article's slug: four words or more, or a dated path
        r"/(?:blog|news|articles?|posts?|stories|story)/.|/20\d\d/\d{1,2}/|\d{4}-\d{2}-\d{2}"
        r"|[a-z]+-[a-z]+-[a-z]+-[a-z]+",
    ),
    (
        "service",
        r"/(?:services?|solutions?|pricing|features|about|contact|plans|consulting|agency"
        r"|industries|what-we-do)(?:/|$|-)",
    ),
)
_URL_HINTS = tuple((name, re.compile(pattern, re.I)) for name, pattern in _URL_HINT_PATTERNS)

#: words of the <title> and first <h1> (lower-cased) that name a kind of page: a site's
#: own words for its pages, the same on sites never seen
_TITLE_HINT_PATTERNS: tuple[tuple[str, str], ...] = (
    ("forum", r"forum|thread|topic|discussion|community|question|\breplies\b|\bhelp\b"),
    (
        "listing",
        r"\b(?:courses|jobs|events|listings?|directory|results|archives?|page \d+|all posts"
        r"|latest|blog|news)\b",
    ),
    ("collection", r"\b(?:shop|store|collections?|categor\w*|products|sale|deals|brands?)\b"),
    (
        "service",
        r"\b(?:services?|solutions?|pricing|consult\w*|agency|company|about|contact|hire"
        r"|platform|software for)\b",
    ),
    ("docs", r"\b(?:documentation|docs|api|reference|manual|guide|tutorial|class|module)\b"),
    ("product", r"\b(?:buy|price|review|model|\d+\s?(?:ml|oz|cm|mm|gb|tb|kg|lb)s?)\b"),
)
_TITLE_HINTS = tuple((name, re.compile(pattern)) for name, pattern in _TITLE_HINT_PATTERNS)
#: a pager's or a "more" link's own text (a leaf <a>): an index of items has them
_PAGER_TEXT = re.compile(r"\d{1,3}|next|prev(?:ious)?|older|newer|[\u00bb\u203a>]+|next \W+")
_MORE_TEXT = re.compile(r"(?:read|learn|see|view|load|show|find out) more|view all|see all|details")

_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_CARD_HEADINGS = frozenset(("h2", "h3", "h4", "h5"))
_DOC_GENERATORS = (
    *("sphinx", "javadoc", "rustdoc", "doxygen", "mkdocs", "docusaurus", "hugo-book"),
    *("gitbook", "vitepress", "jsdoc", "pdoc", "godoc", "antora", "docfx", "typedoc"),
    *("asciidoctor", "texinfo", "docbook"),
)


def documentation_generator(generator: str) -> bool:
    """Whether ``generator`` (a page's ``<meta name="generator">``, lower-cased) is a
    documentation generator's."""
    return any(g in generator for g in _DOC_GENERATORS)


#: counted tags, one feature each
_COUNTED = (
    *("p", "a", "img", "ul", "table", "form", "pre", "code", "article", "section", "nav"),
    *("time", "h1", "h2", "h3", "h4", "figure", "label"),
    *("li", "input", "button", "select", "blockquote", "aside", "dl", "iframe", "main"),
    *("header", "footer", "svg", "video", "dd"),
)
_COUNTED_INDEX = {tag: i for i, tag in enumerate(_COUNTED)}


def _build_names() -> tuple[str, ...]:
    names = [f"tag:{t}" for t in _COUNTED]
    names += [f"class:{n}" for n in _VOCAB_NAMES]
    names += [f"schema:{g}" for g in _SCHEMA_FEATURES]
    names += [f"text:{k}" for k in _TEXT_KINDS]
    names += [f"url:{h}" for h, _ in _URL_HINTS]
    names += [f"title:{h}" for h, _ in _TITLE_HINTS]
    names += [
        "elements_log", "text_log", "link_share", "linklist_share", "heading_share",
        "form_share", "p_share", "long_p", "mean_p", "cards", "card_links",
        "linked_headings", "img_links", "posts", "card_classes", "repeat_heading",
        "repeat_time",
        "generator_docs", "og_article", "og_product", "og_website", "url_depth",
        "url_digits", "url_root", "title_sep", "h1_count", "text_per_element",
        "price_per_kchar", "date_per_kchar", "forum_per_kchar", "schema_count",
        "microdata_count", "table_share", "pre_share",
        "pager_links", "more_links", "card_share", "card_chars", "url_query",
        "headings_per_kchar", "links_per_kchar", "img_per_kchar", "li_per_kchar",
        "short_p", "price_per_card", "input_count", "text_per_link", "h1_position",
        "repeated_groups", "card_focus", "time_per_card", "img_per_card",
    ]  # fmt: skip
    return tuple(names)


#: the feature vector's names, in order (the model file records them and is checked)
FEATURE_NAMES: tuple[str, ...] = _build_names()
_F = {name: i for i, name in enumerate(FEATURE_NAMES)}


@dataclass(slots=True)
class Features:
    """One page's numbers: ``vector`` in ``FEATURE_NAMES`` order and the named facts
    the rules and the evidence strings read."""

    vector: list[float]
    schema: tuple[str, ...] = ()  # schema.org types as found, JSON-LD first
    microdata: tuple[str, ...] = ()
    generator: str = ""
    cards: int = 0
    posts: int = 0
    link_share: float = 0.0
    text_chars: int = 0
    url_hints: tuple[str, ...] = field(default_factory=tuple)


def _text_len(element: lxml.html.HtmlElement) -> int:
    """Characters of an element's text, its descendants' included.

    A leaf (most links, many paragraphs) is its own ``.text``: ``text_content()`` runs
    an XPath evaluation per call, several times the cost of the attribute; the text
    serialiser (C, no XPath context) is cheaper than it for the rest."""
    try:
        if not len(element):
            text = element.text
            return len(text) if text else 0
        return len(_TEXT_OF(element, method="text", encoding="unicode", with_tail=False))
    except ValueError:  # a text node lxml cannot decode: count it as empty
        return 0


def _key(element: lxml.html.HtmlElement) -> tuple[str | None, ...]:
    """An element's structural position: its tag and class and those of its parent
    and grandparent. Cards repeat it (every card's title link sits at the same one)."""
    parent = element.getparent()
    grand = parent.getparent() if parent is not None else None
    return (
        element.get("class"),
        parent.tag if parent is not None else None,
        parent.get("class") if parent is not None else None,
        grand.tag if grand is not None else None,
        grand.get("class") if grand is not None else None,
    )


def _count(result: object) -> int:
    """An XPath ``count()`` result as an int (0 for anything else)."""
    return int(result) if isinstance(result, float) else 0


def _max_count(counts: dict[tuple[str | None, ...], int]) -> int:
    return max(counts.values(), default=0)


_vocab_cache: dict[str, tuple[int, ...]] = {}
_word_cache: dict[str, tuple[tuple[int, int], ...]] = {}


def _words_of(attribute: str) -> tuple[tuple[int, int], ...]:
    """(family, occurrences) of the vocabulary words in a class string (cached: a site's
    pages and a page's cards repeat their class strings)."""
    hit = _word_cache.get(attribute)
    if hit is None:
        words = _VOCAB_WORDS
        found: dict[int, int] = {}
        for word in _WORD_SPLIT.split(attribute.lower()):
            family = words.get(word)
            if family is not None:
                found[family] = found.get(family, 0) + 1
        hit = tuple(found.items())
        if len(_word_cache) < 50_000:  # bounded: a crawl sees unbounded class names
            _word_cache[attribute] = hit
    return hit


def _vocab_of(attribute: str) -> tuple[int, ...]:
    """The vocabulary families a class string names (cached: cards repeat them)."""
    hit = _vocab_cache.get(attribute)
    if hit is None:
        words = _VOCAB_WORDS
        found = set()
        for word in _WORD_SPLIT.split(attribute.lower()):
            family = words.get(word)
            if family is not None:
                found.add(family)
        hit = tuple(sorted(found))
        if len(_vocab_cache) < 50_000:  # bounded: a crawl sees unbounded class names
            _vocab_cache[attribute] = hit
    return hit


def page_features(
    root: lxml.html.HtmlElement, *, ld_types: Sequence[str] = (), url: str = ""
) -> Features:
    """The numbers of the cleaned page ``root`` (its ``<html>``, or any element),
    with the JSON-LD types ``ld_types`` and the page's ``url``. One walk of the tree;
    never raises on a well-formed lxml tree."""
    vec = [0.0] * len(FEATURE_NAMES)
    counted = _COUNTED_INDEX
    # class names: XPath hands over the strings (C), no element proxies; the same class
    # string repeated is a repeated unit (a post, a card)
    vocab_counts = [0] * len(_VOCAB_NAMES)
    found = _CLASSES(root)
    classes: list[str] = [c for c in found if isinstance(c, str)] if isinstance(found, list) else []
    # each distinct class string once (counted in C): its vocabulary words, cached,
    # weighted by how often it occurs; the same string repeated is a repeated unit (a
    # post, a card). Splitting every class of the page was ~1 ms a page.
    post_repeat = card_repeat = 0
    for names, count in Counter(classes).items():
        for family, times in _words_of(names):
            vocab_counts[family] += times * count
        if count >= 3:
            families = _vocab_of(names)
            if not _POST_FAMILIES.isdisjoint(families):
                post_repeat = max(post_repeat, count)
            if not _CARD_FAMILIES.isdisjoint(families):
                card_repeat = max(card_repeat, count)
    link_chars = linklist_chars = heading_chars = form_chars = p_chars = 0
    table_chars = pre_chars = 0
    long_p = p_count = h1_count = 0
    card_links = linked_headings = img_links = 0
    rich_link_keys: dict[tuple[str | None, ...], int] = {}
    rich_link_chars: dict[tuple[str | None, ...], int] = {}
    n_links = pager_links = more_links = short_p = h1_position = 0
    h1_text = ""
    pager_text, more_text = _PAGER_TEXT.fullmatch, _MORE_TEXT.match
    count_only = _COUNT_ONLY
    heading_keys: dict[tuple[str | None, ...], int] = {}
    time_keys: dict[tuple[str | None, ...], int] = {}
    generator = og_type = title = ""
    text_len = _text_len
    # only the tags that say something: the filter runs in C, and the numerous
    # <div> / <span> are counted by XPath, so most elements never reach Python
    for element in root.iter(*_WALKED):
        tag = element.tag
        slot = counted.get(tag)
        if slot is not None:
            vec[slot] += 1
            if tag in count_only:
                continue  # a count is all it gives (a hundred <li> a page: skip the chain)
        if tag == "a":
            n_links += 1
            if not len(element):
                text = element.text
                n = len(text) if text else 0
                if 0 < n <= 24:
                    # a pager's page numbers / next, a card's "read more": an index
                    short = text.strip().lower()
                    if pager_text(short):
                        pager_links += 1
                    elif more_text(short):
                        more_links += 1
            else:
                n = text_len(element)
            link_chars += n
            if n >= 20:
                # a card's link: its title (or its picture, below), the same position
                # repeated
                key = _key(element)
                rich_link_keys[key] = rich_link_keys.get(key, 0) + 1
                rich_link_chars[key] = rich_link_chars.get(key, 0) + n
                card_links += 1
            parent = element.getparent()
            if parent is not None and parent.tag == "li":
                linklist_chars += n
        elif tag == "p":
            n = text_len(element)
            p_chars += n
            p_count += 1
            long_p += n >= 120
            short_p += 0 < n < 60
        elif tag in _HEADINGS:
            heading_chars += text_len(element)
            if tag == "h1":
                if not h1_count:
                    h1_position = n_links  # the links before the title: the chrome's
                    h1_text = element.text or ""
                h1_count += 1
            else:
                key = _key(element)
                heading_keys[key] = heading_keys.get(key, 0) + 1
                parent = element.getparent()
                # a descendant <a> by the C iterator (``find(".//a")`` is ElementPath,
                # interpreted Python)
                if next(element.iter("a"), None) is not None or (
                    parent is not None and parent.tag == "a"
                ):
                    linked_headings += 1  # a card's title: a heading that is a link
        elif tag == "img":
            # a picture that is a link (its <a> one or two levels up): a card's picture
            link = element.getparent()
            if link is not None and link.tag != "a":
                link = link.getparent()
            if link is not None and link.tag == "a" and len(link) < 4 and not link.text:
                img_links += 1
                key = _key(link)
                rich_link_keys[key] = rich_link_keys.get(key, 0) + 1
        elif tag == "form":
            form_chars += text_len(element)
        elif tag == "table":
            table_chars += text_len(element)
        elif tag == "pre":
            pre_chars += text_len(element)
        elif tag == "time":
            key = _key(element)
            time_keys[key] = time_keys.get(key, 0) + 1
        elif tag == "meta":
            name = (element.get("name") or element.get("property") or "").lower()
            if name == "generator":
                generator = (element.get("content") or "").strip().lower()
            elif name == "og:type":
                og_type = (element.get("content") or "").strip().lower()
        elif tag == "title" and not title:
            title = element.text or ""
    elements = _count(_ELEMENTS(root))
    itemtypes = _ITEMTYPES(root)
    microdata = [
        one.rstrip("/").rsplit("/", 1)[-1]
        for value in (itemtypes if isinstance(itemtypes, list) else ())
        for one in str(value).split()
    ]
    body = root.find("body") if root.tag == "html" else root
    if body is None:
        body = root
    try:
        text = body.text_content()
    except ValueError:
        text = ""
    text_chars = len(text)
    text_counts = dict.fromkeys(_TEXT_KINDS, 0)
    sample = text[:_TEXT_SAMPLE]
    text_counts["price"] = len(_PRICE_RE.findall(sample))
    sample = sample.lower()
    for kind, words in _TEXT_WORDS:
        text_counts[kind] = sum(sample.count(word) for word in words)
    # schema types: JSON-LD first, then microdata; each family counted
    schema_groups = {SCHEMA_GROUPS.get(t.lower()) for t in (*ld_types, *microdata)}
    for group in schema_groups:
        if group is not None:
            vec[_F[f"schema:{group}"]] = 1.0
    for i, count in enumerate(vocab_counts):
        vec[_VOCAB_BASE + i] = count
    for kind, count in text_counts.items():
        vec[_F[f"text:{kind}"]] = count
    path = _url_path(url)
    hints = tuple(name for name, pattern in _URL_HINTS if pattern.search(path))
    for name in hints:
        vec[_F[f"url:{name}"]] = 1.0
    share = 1.0 / max(text_chars, 1)
    cards = _max_count(rich_link_keys)
    top_key = max(rich_link_keys, key=rich_link_keys.__getitem__, default=None)
    card_chars = rich_link_chars.get(top_key, 0) if top_key is not None and cards >= 3 else 0
    heading_text = f"{title} {h1_text}".lower()
    for name, pattern in _TITLE_HINTS:
        if pattern.search(heading_text):
            vec[_F[f"title:{name}"]] = 1.0
    posts = max(post_repeat, _max_count(time_keys))
    kchars = max(text_chars, 1) / 1000
    doc_generator = documentation_generator(generator)
    named = {
        "elements_log": math.log1p(elements),
        "text_log": math.log1p(text_chars),
        "link_share": min(1.0, link_chars * share),
        "linklist_share": min(1.0, linklist_chars * share),
        "heading_share": min(1.0, heading_chars * share),
        "form_share": min(1.0, form_chars * share),
        "p_share": min(1.0, p_chars * share),
        "long_p": long_p,
        "mean_p": p_chars / max(p_count, 1),
        "cards": cards,
        "card_links": card_links,
        "linked_headings": linked_headings,
        "img_links": img_links,
        "posts": post_repeat,
        "card_classes": card_repeat,
        "repeat_heading": _max_count(heading_keys),
        "repeat_time": _max_count(time_keys),
        "generator_docs": float(doc_generator),
        "og_article": float(og_type == "article"),
        "og_product": float("product" in og_type),
        "og_website": float(og_type == "website"),
        "url_depth": path.strip("/").count("/") + bool(path.strip("/")),
        "url_digits": sum(c.isdigit() for c in path),
        "url_root": float(bool(url) and path in ("", "/")),  # no URL: no hint
        "title_sep": float(any(s in title for s in (" | ", " - ", " \u2013 ", " :: "))),
        "h1_count": h1_count,
        "text_per_element": text_chars / max(elements, 1),
        "price_per_kchar": text_counts["price"] / kchars,
        "date_per_kchar": (text_counts["ago"] + _max_count(time_keys)) / kchars,
        "forum_per_kchar": text_counts["forum"] / kchars,
        "schema_count": len(ld_types),
        "microdata_count": len(microdata),
        "table_share": min(1.0, table_chars * share),
        "pre_share": min(1.0, pre_chars * share),
        "pager_links": pager_links,
        "more_links": more_links,
        "card_share": min(1.0, card_chars * share),
        "card_chars": card_chars / max(cards, 1),
        "url_query": float("?" in path),
        "headings_per_kchar": sum(vec[_COUNTED_INDEX[h]] for h in ("h2", "h3", "h4")) / kchars,
        "links_per_kchar": n_links / kchars,
        "img_per_kchar": vec[_COUNTED_INDEX["img"]] / kchars,
        "li_per_kchar": vec[_COUNTED_INDEX["li"]] / kchars,
        "short_p": short_p,
        "price_per_card": text_counts["price"] / max(cards, 1),
        "input_count": vec[_COUNTED_INDEX["input"]] + vec[_COUNTED_INDEX["select"]],
        "text_per_link": text_chars / max(n_links, 1),
        "h1_position": h1_position if h1_count else -1,
        # cards in several repeated positions (a grid and its "related" rail), the
        # share of the long links in the top one, and what each card carries
        "repeated_groups": sum(count >= 3 for count in rich_link_keys.values()),
        "card_focus": cards / max(card_links + img_links, 1),
        "time_per_card": _max_count(time_keys) / max(cards, 1),
        "img_per_card": img_links / max(cards, 1),
    }
    for name, value in named.items():
        vec[_F[name]] = float(value)
    return Features(
        vector=vec,
        schema=tuple(ld_types),
        microdata=tuple(dict.fromkeys(microdata)),
        generator=generator,
        cards=cards,
        posts=posts,
        link_share=named["link_share"],
        text_chars=text_chars,
        url_hints=hints,
    )


_POST_FAMILIES = frozenset(_VOCAB_INDEX[n] for n in ("comment", "post", "reply", "message"))
_CARD_FAMILIES = frozenset(_VOCAB_INDEX[n] for n in ("card", "item", "product"))
_WALKED = (*_COUNTED, "h5", "h6", "meta", "title")
#: the counted tags the walk reads nothing else from
_COUNT_ONLY = frozenset(_COUNTED) - {"a", "p", "img", "form", "table", "pre", "time", *_HEADINGS}
_CLASSES = etree.XPath("//@class", smart_strings=False)
_ELEMENTS = etree.XPath("count(//*)")
_VOCAB_BASE = len(_COUNTED)
_ITEMTYPES = etree.XPath("//@itemtype")
_TEXT_OF = etree.tostring


def _url_path(url: str) -> str:
    """The URL's path and query, without scheme and host ("" for none)."""
    rest = url.split("://", 1)[-1] if "://" in url else url
    slash = rest.find("/")
    return rest[slash:] if slash >= 0 else ""
