"""The project's settings turn some of Scrapy's components off by their import paths: a
path Scrapy no longer uses would leave the component on without a word."""

from __future__ import annotations

import pytest
from scrapy.settings import default_settings

from webmd_spider import settings


@pytest.mark.parametrize(
    ("ours", "base"),
    [
        ("DOWNLOADER_MIDDLEWARES", "DOWNLOADER_MIDDLEWARES_BASE"),
        ("SPIDER_MIDDLEWARES", "SPIDER_MIDDLEWARES_BASE"),
    ],
)
def test_every_component_turned_off_is_one_scrapy_enables(ours: str, base: str) -> None:
    off = {path for path, order in getattr(settings, ours).items() if order is None}
    assert off, ours
    assert off <= set(getattr(default_settings, base)), off - set(getattr(default_settings, base))
