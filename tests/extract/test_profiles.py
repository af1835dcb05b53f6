"""Which page types' profiles choose the content (issue 32, `extract.profiles`): the
cards profile takes a page's content only on decisive evidence, never on the model's
word alone."""

from __future__ import annotations

from webmd_spider.extract.page_type import PageType
from webmd_spider.extract.profiles import profile_applies


def test_a_listing_by_the_model_alone_keeps_the_ladder() -> None:
    assert not profile_applies(PageType("listing", ("model:0.95", "cards:24", "link-text:0.6")))
    assert not profile_applies(PageType("collection", ("unsure:service:0.4", "cards:30")))


def test_a_listing_the_page_declares_or_the_caller_gives_gets_its_profile() -> None:
    assert profile_applies(PageType("collection", ("json-ld:CollectionPage",)))
    assert profile_applies(PageType("listing", ("model:0.67", "json-ld:ItemList", "cards:6")))
    assert profile_applies(PageType("listing", ("given",)))


def test_other_types_profiles_follow_the_type_as_told() -> None:
    assert profile_applies(PageType("forum", ("model:0.9", "posts:12")))
    assert profile_applies(PageType("product", ("json-ld:Product",)))
