"""The page-type step (issue 32): each kind of evidence alone, conflicting evidence,
junk, determinism. Plain small pages of our own making."""

from __future__ import annotations

import lxml.html
from hypothesis import given, settings
from hypothesis import strategies as st

from webmd_spider.extract import ExtractOptions, extract
from webmd_spider.extract.page_type import PAGE_TYPES, PageType, classify_page, decide
from webmd_spider.extract.page_type_features import FEATURE_NAMES, page_features

LOREM = (
    "The committee met on Tuesday to weigh the proposal, and after a long debate the "
    "members agreed that the budget would be revised before the spring session began. "
)


def _page(body: str, head: str = "") -> lxml.html.HtmlElement:
    return lxml.html.document_fromstring(
        f"<html><head><title>A page</title>{head}</head><body>{body}</body></html>"
    )


def _article(paragraphs: int = 8) -> str:
    return "<article><h1>A long report</h1>" + f"<p>{LOREM * 3}</p>" * paragraphs + "</article>"


def _cards(n: int, price: bool = False) -> str:
    cards = "".join(
        f'<div class="card"><a href="/item/{i}"><img src="/i{i}.jpg" alt=""></a>'
        f'<h3><a href="/item/{i}">A fine thing number {i} for the house</a></h3>'
        + (f'<span class="price">${10 + i}.99</span>' if price else "<p>A short blurb.</p>")
        + "</div>"
        for i in range(n)
    )
    return f'<h1>All things</h1><div class="grid">{cards}</div>'


def _posts(n: int) -> str:
    posts = "".join(
        f'<div class="post"><div class="author">user{i}</div>'
        f'<time datetime="2024-01-0{1 + i % 9}">Jan {1 + i % 9}, 2024</time>'
        f"<p>I tried that too and it worked after a restart, thanks {i}. Reply</p></div>"
        for i in range(n)
    )
    return f"<h1>Thread: my printer will not print</h1>{posts}"


def _kind(root: lxml.html.HtmlElement, ld: tuple[str, ...] = (), url: str = "") -> PageType:
    kind = classify_page(root, ld_types=ld, url=url)
    assert kind.name in PAGE_TYPES
    return kind


def test_json_ld_product_alone() -> None:
    body = (
        "<h1>Walnut desk</h1><p>A solid walnut desk with two drawers, oiled by hand.</p>"
        "<p>$499.00</p><button>Add to cart</button>"
    )
    kind = _kind(_page(body), ("Product", "Offer"))
    assert kind.name == "product"
    assert "json-ld:Product" in kind.evidence


def test_microdata_product_alone() -> None:
    body = (
        '<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Walnut '
        'desk</h1><p itemprop="description">A solid walnut desk with two drawers.</p>'
        '<span itemprop="price">$499.00</span><button>Add to cart</button></div>'
    )
    features = page_features(_page(body))
    assert features.microdata == ("Product",)
    kind = _kind(_page(body))
    assert kind.name == "product"
    assert "microdata:Product" in kind.evidence


def test_repeated_cards_alone() -> None:
    kind = _kind(_page(_cards(24, price=True)))
    assert kind.name in ("collection", "listing")
    assert "cards:24" in kind.evidence


def test_repeated_posts_alone() -> None:
    kind = _kind(_page(_posts(12)))
    assert kind.name == "forum"
    assert "posts:12" in kind.evidence


def test_link_list_share_alone() -> None:
    links = "".join(
        f'<li><a href="/t/{i}">Topic number {i} of the index</a></li>' for i in range(60)
    )
    root = _page(f"<h1>Index</h1><ul>{links}</ul>")
    features = page_features(root)
    assert features.link_share > 0.9
    kind = _kind(root)
    assert kind.name != "article"  # a page of links is no article
    assert any(e.startswith("link-text:") for e in kind.evidence)


def test_url_hint_alone() -> None:
    """The URL is read (forum, product, docs), and is no more than a hint: on a plain
    article, it does not make a forum."""
    assert page_features(_page("<p>x</p>"), url="https://ex.com/forum/thread/12").url_hints == (
        "forum",
    )
    assert "docs" in page_features(_page("<p>x</p>"), url="https://ex.com/docs/api/").url_hints
    assert (
        "product" in page_features(_page("<p>x</p>"), url="https://ex.com/products/desk/").url_hints
    )
    assert _kind(_page(_posts(6)), url="https://ex.com/forum/thread/12").name == "forum"


def test_article_stays_article() -> None:
    kind = _kind(_page(_article()), ("NewsArticle",))
    assert kind.name == "article"


def test_documentation_generator() -> None:
    head = '<meta name="generator" content="Sphinx 7.2.6">'
    kind = _kind(_page(_article(3), head))
    assert kind == PageType("documentation", ("generator:sphinx",))


def test_conflict_article_json_ld_on_a_grid_of_cards() -> None:
    """The JSON-LD says Article (a theme's default), the page is 20 cards: the cards win."""
    kind = _kind(_page(_cards(20)), ("Article",))
    assert kind.name in ("collection", "listing")


def test_conflict_product_json_ld_on_a_grid_of_offers() -> None:
    """A category page that marks up each card as a Product with an Offer is a grid, not
    one product."""
    kind = _kind(_page(_cards(24, price=True)), ("ItemList", "Product", "Offer"))
    assert kind.name in ("collection", "listing")


def test_nothing_to_read_is_other() -> None:
    assert _kind(_page("")).name == "other"
    assert _kind(lxml.html.fromstring("<div></div>")).name == "other"


def test_deterministic() -> None:
    root = _page(_cards(12, price=True) + _article(2))
    first = classify_page(root, ld_types=("Product",), url="https://ex.com/c/desks")
    for _ in range(3):
        assert classify_page(root, ld_types=("Product",), url="https://ex.com/c/desks") == first


def test_no_model_falls_back_to_json_ld() -> None:
    features = page_features(_page(_article(2)), ld_types=("DiscussionForumPosting",))
    assert decide(features, None) == PageType("forum", ("json-ld:DiscussionForumPosting",))
    assert len(features.vector) == len(FEATURE_NAMES)


def test_extract_sets_the_row_fields() -> None:
    html = f"<html><head><title>T</title></head><body>{_posts(12)}</body></html>"
    doc = extract(html, "https://ex.com/forum/thread/1")
    assert doc.page_type == "forum"
    assert "posts:12" in doc.page_type_evidence
    given_type = extract(html, "https://ex.com/x", options=ExtractOptions(page_type="listing"))
    assert given_type.page_type == "listing"


@settings(max_examples=200, deadline=None)
@given(
    html=st.text(max_size=400),
    ld=st.lists(st.text(max_size=20), max_size=3),
    url=st.text(max_size=60),
)
def test_never_raises_on_junk(html: str, ld: list[str], url: str) -> None:
    try:
        root = lxml.html.document_fromstring(f"<html><body>{html}</body></html>")
    except (ValueError, lxml.etree.ParserError):
        return
    kind = classify_page(root, ld_types=ld, url=url)
    assert kind.name in PAGE_TYPES
    assert all(isinstance(e, str) and len(e) <= 40 for e in kind.evidence)


def test_a_documentation_generator_decides_without_reading_the_page() -> None:
    """The generator given by the caller decides at once (the walk is skipped), as the
    generator read from the page decides in the full step; DocBook (PostgreSQL's docs)
    is one."""
    from webmd_spider.extract import extract
    from webmd_spider.extract.page_type import classify_page

    page = (
        '<html><head><meta name="generator" content="DocBook XSL Stylesheets V1.79.2">'
        "<title>CREATE TABLE</title></head><body><h1>CREATE TABLE</h1>"
        + "<p>CREATE TABLE will create a new, initially empty table in the database.</p>" * 5
        + "</body></html>"
    )
    doc = extract(page, "https://www.postgresql.org/docs/15/sql-createtable.html")
    assert doc.page_type == "documentation"
    assert doc.page_type_evidence == ["generator:docbook"]
    tree = lxml.html.fromstring(page)
    given = classify_page(tree, generator="docbook xsl stylesheets v1.79.2")
    assert given == classify_page(tree)


def test_compiled_trees_equal_the_node_walk() -> None:
    """The shipped model's trees, compiled to one Python function, score every vector
    as walking each tree's node arrays does (the export's plain reading)."""
    import random

    from webmd_spider.extract.page_type import _model, _scorer

    model = _model()
    assert model is not None  # the shipped file is fit to these features

    def walk(vector: list[float]) -> list[float]:
        scores = list(model["prior"])
        for round_ in model["trees"]:
            for k, (feature, threshold, left, right, value) in enumerate(round_):
                node = 0
                while left[node] != -1:
                    node = left[node] if vector[feature[node]] <= threshold[node] else right[node]
                scores[k] += value[node]
        return scores

    rng = random.Random(0)
    for _ in range(50):
        vector = [rng.choice((0.0, 1.0, 3.0, 0.25, rng.random() * 40)) for _ in FEATURE_NAMES]
        assert _scorer(model)(vector) == walk(vector)


def test_pager_and_more_links_are_counted() -> None:
    """An index's page numbers and "read more" links are read from the links' own text;
    a long link is neither."""
    cards = "".join(
        f'<div class="teaser"><h2><a href="/p/{i}">A post about the harbour, part {i}</a></h2>'
        f'<p>A short blurb.</p><a href="/p/{i}">Read more</a></div>'
        for i in range(6)
    )
    pager = '<a href="?page=2">2</a><a href="?page=3">3</a><a href="?page=2">Next</a>'
    features = page_features(_page(cards + pager))
    vec = dict(zip(FEATURE_NAMES, features.vector, strict=True))
    assert vec["pager_links"] == 3
    assert vec["more_links"] == 6
    assert vec["cards"] == 6


def test_warm_up_compiles_the_shipped_model_once() -> None:
    """The spider and each extraction worker call it before the first page: the model is
    then loaded and its trees compiled, and a page classifies without compiling again."""
    from webmd_spider.extract import page_type

    page_type._SCORERS.clear()
    page_type.warm_up()
    assert len(page_type._SCORERS) == 1
    compiled = dict(page_type._SCORERS)
    page_type.warm_up()
    assert compiled == page_type._SCORERS
