"""Which page types' profiles choose the content (issue 32, `extract.profiles`): every
profile runs; the cards profile takes a page's content without checking it only on
decisive evidence, never on the model's word alone (`decisive`)."""

from __future__ import annotations

from webmd_spider.extract.page_type import PageType
from webmd_spider.extract.profiles import decisive, model_said


def test_a_listing_by_the_model_alone_is_not_decisive() -> None:
    assert not decisive(PageType("listing", ("model:0.95", "cards:24", "link-text:0.6")))
    assert not decisive(PageType("collection", ("unsure:service:0.4", "cards:30")))


def test_a_listing_the_page_declares_or_the_caller_gives_is_decisive() -> None:
    assert decisive(PageType("collection", ("json-ld:CollectionPage",)))
    assert decisive(PageType("listing", ("model:0.67", "json-ld:ItemList", "cards:6")))
    assert decisive(PageType("listing", ("given",)))


def test_other_types_are_decisive_as_told() -> None:
    assert decisive(PageType("forum", ("model:0.9", "posts:12")))
    assert decisive(PageType("product", ("json-ld:Product",)))


def test_the_models_own_call_is_told_from_its_fallback_for_a_grid() -> None:
    assert model_said(PageType("listing", ("model:0.95", "cards:24")))
    assert not model_said(PageType("collection", ("model:forum:0.36", "cards:43")))
    assert not model_said(PageType("listing", ("given",)))
