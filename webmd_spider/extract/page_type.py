"""The page-type step (issue 32): what kind of page this is, before its content is
chosen, so that each type gets the profile that says what its main content is.

Pure module. ``classify_page`` reads the page once it is cleaned of what is never
content (scripts, hidden elements, widgets), with the JSON-LD types the metadata step
found. Types (``PAGE_TYPES``): ``article``, ``forum``, ``product``, ``collection``,
``listing``, ``documentation``, ``service``, ``other``.

How: ``page_type_features.page_features`` walks the tree once; a documentation
generator (Sphinx, Javadoc, rustdoc, Doxygen, MkDocs...) decides outright; otherwise a
small gradient-boosted model (``page_type_model.json``, fit offline on WCXB dev by
``bench/train_page_type.py``, evaluated here in pure Python: its trees compiled once
into one Python function) weighs the evidence. The
profiles key on the type and a wrong ``forum`` or ``listing`` on an article would damage
it, so a non-article type is said only when the model is sure of it
(``MIN_CONFIDENCE``); otherwise ``article`` (the ladder's type). ``other`` is a page
with next to no text. Deterministic: the same tree gives the same type.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import lxml.html

from webmd_spider.extract.page_type_features import (
    FEATURE_NAMES,
    SCHEMA_GROUPS,
    Features,
    documentation_generator,
    page_features,
)

PAGE_TYPES = (
    "article",
    "forum",
    "product",
    "collection",
    "listing",
    "documentation",
    "service",
    "other",
)

#: schema.org types that name a page type outright (the fallback when no model ships)
_LD_TYPES: dict[str, str] = {
    "product": "product",
    "offer": "product",
    "discussionforumposting": "forum",
    "qapage": "forum",
    "itemlist": "listing",
    "collectionpage": "collection",
    "techarticle": "documentation",
    "apireference": "documentation",
    "article": "article",
    "newsarticle": "article",
    "blogposting": "article",
    "service": "service",
}

#: a non-article type is said only at this model probability or above: a wrong
#: forum / listing / product on an article costs more than an article's ladder on them
MIN_CONFIDENCE = 0.5
#: a page with less body text than this is "other": nothing to classify
MIN_TEXT_CHARS = 40

_F = {name: i for i, name in enumerate(FEATURE_NAMES)}


@dataclass(frozen=True, slots=True)
class PageType:
    """A page's type and the evidence it was read from (short strings)."""

    name: str = "other"
    evidence: tuple[str, ...] = field(default_factory=tuple)


def classify_page(
    root: lxml.html.HtmlElement,
    *,
    ld_types: Sequence[str] = (),
    url: str = "",
    generator: str = "",
) -> PageType:
    """The type of the cleaned page ``root`` (its ``<html>``); ``ld_types`` are its
    JSON-LD types (microdata ``itemtype`` is read from the tree), ``url`` its address,
    ``generator`` its ``<meta name="generator">`` lower-cased when the caller has it.
    Never raises; deterministic."""
    if generator and documentation_generator(generator):
        # decisive before any other evidence (`decide`): a documentation site's pages,
        # the ones a crawl meets by the thousand, skip the walk of the tree
        return PageType("documentation", (f"generator:{generator.split()[0]}",))
    try:
        features = page_features(root, ld_types=ld_types, url=url)
    except (ValueError, TypeError, AttributeError):  # a tree lxml itself half-built
        return PageType("other", ("error",))
    return decide(features, _model())


@cache
def _model() -> dict[str, Any] | None:
    """The shipped model, loaded once; None when the file is missing or stale (then the
    JSON-LD rules alone decide)."""
    try:
        text = resources.files("webmd_spider.extract").joinpath("page_type_model.json")
        model: dict[str, Any] = json.loads(text.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if model.get("features") != list(FEATURE_NAMES):
        return None  # fit to other features: its numbers would mean nothing
    return model


def warm_up() -> None:
    """Load the shipped model and compile its trees now (about 0.1 s, once a process),
    so that the first page of a crawl does not pay for it: while that page waited, the
    downloader ran ahead, and a sitemap's dead links could spend the website's failure
    budget before the start page's links were read."""
    model = _model()
    if model is not None:
        _scorer(model)


def model_probabilities(model: dict[str, Any], vector: Sequence[float]) -> list[float]:
    """The model's probability of each of ``model["classes"]`` for ``vector``: the sum
    of every round's tree for the class over the prior, then softmax (scikit-learn's
    multinomial gradient boosting, evaluated in pure Python)."""
    scores = _scorer(model)(vector)
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


Scorer = Callable[[Sequence[float]], list[float]]
#: compiled scorers by the identity of their model's tree list (kept alive beside them,
#: so an id is never reused while cached); a few: the shipped model, a training run's
_SCORERS: dict[int, tuple[list[Any], Scorer]] = {}


def _scorer(model: dict[str, Any]) -> Scorer:
    """The model's trees as one compiled Python function of the vector: each tree an
    inline conditional expression, so a page costs a few comparisons per tree and no
    interpreted loop over nodes (walking ~1,000 node arrays was ~1 ms a page, the
    compiled code ~0.15 ms). The source is built from the model's numbers through
    ``int`` and ``float`` only, so the file can put nothing else in it; the result equals
    the node walk's (the same comparisons on the same floats)."""
    trees: list[Any] = model["trees"]
    hit = _SCORERS.get(id(trees))
    if hit is not None and hit[0] is trees:
        return hit[1]
    prior = [float(p) for p in model["prior"]]
    width = max((int(f) for round_ in trees for tree in round_ for f in tree[0]), default=0) + 1
    # the vector unpacked into locals (x0, x1...): a local read, not a subscript, per test
    lines = ["def score(v):", f"    {', '.join(f'x{i}' for i in range(width))}, *_ = v"]
    lines += [f"    s{k} = {p!r}" for k, p in enumerate(prior)]
    for round_ in trees:
        for k, (feature, threshold, left, right, value) in enumerate(round_):
            lines.append(f"    s{k} += {_node_source(0, feature, threshold, left, right, value)}")
    lines.append(f"    return [{', '.join(f's{k}' for k in range(len(prior)))}]")
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(lines), "<page_type_model>", "exec"), namespace)
    score: Scorer = namespace["score"]
    if len(_SCORERS) >= 8:
        _SCORERS.clear()
    _SCORERS[id(trees)] = (trees, score)
    return score


def _node_source(
    node: int,
    feature: list[int],
    threshold: list[float],
    left: list[int],
    right: list[int],
    value: list[float],
) -> str:
    """One tree node as a Python expression of ``v`` (-1 in ``left``: a leaf)."""
    if left[node] == -1:
        return repr(float(value[node]))
    yes = _node_source(left[node], feature, threshold, left, right, value)
    no = _node_source(right[node], feature, threshold, left, right, value)
    return f"({yes} if x{int(feature[node])} <= {float(threshold[node])!r} else {no})"


def _evidence(features: Features, name: str) -> list[str]:
    """The short strings that speak for `name` (schema types, cards, posts, shares)."""
    vec = features.vector
    out: list[str] = []
    for source, types in (("json-ld", features.schema), ("microdata", features.microdata)):
        for one in types:
            if SCHEMA_GROUPS.get(one.lower()) not in (None, "webpage", "breadcrumb", "org"):
                out.append(f"{source}:{one}")
                if len(out) >= 2:
                    break
    cards = int(vec[_F["cards"]])
    posts = int(max(vec[_F["posts"]], vec[_F["repeat_time"]]))
    if cards >= 3:
        out.append(f"cards:{cards}")
    if posts >= 3:
        out.append(f"posts:{posts}")
    if vec[_F["link_share"]] >= 0.3:
        out.append(f"link-text:{vec[_F['link_share']]:.2f}")
    hint = f"url:{'docs' if name == 'documentation' else name}"
    if hint in _F and vec[_F[hint]]:
        out.append(hint)
    return out


#: schema.org types that decide alone (WCXB dev: every page carrying one is that type,
#: 6 to 84 pages each)
_DECISIVE: dict[str, str] = {
    "discussionforumposting": "forum",
    "qapage": "forum",
    "productgroup": "product",
    "service": "service",
    "collectionpage": "collection",  # 15 / 15 a grid (collection 9, listing 6)
}
#: a page of this many cards or more is a grid: a Product type there marks its items
GRID_CARDS = 12


def _grid(vec: Sequence[float]) -> bool:
    """Cards repeated, each a linked title, with few long paragraphs around them."""
    cards = vec[_F["cards"]]
    return (
        cards >= GRID_CARDS
        and vec[_F["linked_headings"]] >= GRID_CARDS // 2
        and vec[_F["long_p"]] * 3 < cards
    )


_FORUM_SIGNS = tuple(
    _F[name]
    for name in (
        *("posts", "repeat_time", "schema:forum", "schema:comment", "url:forum"),
        *("class:comment", "class:reply", "class:thread", "class:message", "class:post"),
    )
)


def _forum_evidence(vec: Sequence[float]) -> bool:
    """Any sign of posts: repeated post blocks or dates, a forum / comment schema type,
    a forum URL, a post / reply / thread class name."""
    return any(vec[i] >= 1 for i in _FORUM_SIGNS)


def decide(features: Features, model: dict[str, Any] | None) -> PageType:
    """The type `features` speak for, with the evidence read (see the module's doc).
    `model` is the shipped JSON model, or None for the JSON-LD rules alone.

    Order: no text (other); a documentation generator; a decisive schema.org type; a
    Product type on a page with few cards; then the model, said only when sure;
    when unsure, a grid of linked cards is a listing / collection, repeated dated posts
    a forum, and anything else an article."""
    vec = features.vector
    if math.expm1(vec[_F["text_log"]]) < MIN_TEXT_CHARS:
        return PageType("other", ("text:none",))
    if vec[_F["generator_docs"]]:
        return PageType("documentation", (f"generator:{features.generator.split()[0]}",))
    for source, types in (("json-ld", features.schema), ("microdata", features.microdata)):
        for one in types:
            name = _DECISIVE.get(one.lower())
            if name is not None:
                said = (f"{source}:{one}", *_evidence(features, name))
                return PageType(name, tuple(dict.fromkeys(said)))
    grid = _grid(vec)
    if vec[_F["cards"]] < GRID_CARDS:  # with more cards, a Product type marks the items
        for source, types in (("json-ld", features.schema), ("microdata", features.microdata)):
            if any(one.lower() == "product" for one in types):
                return PageType("product", (f"{source}:Product",))
    if model is None:
        for ld in (*features.schema, *features.microdata):
            name = _LD_TYPES.get(ld.lower())
            if name is not None:
                return PageType(name, (f"json-ld:{ld}",))
        return PageType("other", ())
    probs = model_probabilities(model, vec)
    classes: list[str] = model["classes"]
    best = max(range(len(probs)), key=probs.__getitem__)
    name, p = classes[best], probs[best]
    if name == "forum" and not _forum_evidence(vec):
        # a forum's posts would be cut from an article: said only with a sign of posts
        return PageType("article", (f"unsure:forum:{p:.2f}",))
    if name == "article" or p >= MIN_CONFIDENCE:
        return PageType(name, (f"model:{p:.2f}", *_evidence(features, name)))
    # not sure enough to change what the page's content is: structure, else the ladder's
    if grid:
        pick = max(("collection", "listing"), key=lambda c: probs[classes.index(c)])
        return PageType(pick, (f"model:{name}:{p:.2f}", *_evidence(features, pick)))
    if vec[_F["posts"]] >= 8 and vec[_F["repeat_time"]] >= 5:
        return PageType("forum", (f"model:{name}:{p:.2f}", *_evidence(features, "forum")))
    return PageType("article", (f"unsure:{name}:{p:.2f}",))
