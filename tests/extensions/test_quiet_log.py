"""The log formatter builds Scrapy's per-page DEBUG records only when they can be read."""

from __future__ import annotations

import logging

import pytest
from scrapy import Request, Spider
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from webmd_spider.extensions.quiet_log import QuietLogFormatter


def _formatter(level: str | int) -> QuietLogFormatter:
    crawler = get_crawler(Spider, {"LOG_LEVEL": level})
    return QuietLogFormatter.from_crawler(crawler)


@pytest.mark.parametrize("level", ["INFO", "warning", logging.ERROR])
def test_above_debug_the_crawled_and_scraped_records_are_not_built(level: str | int) -> None:
    formatter = _formatter(level)
    request = Request("http://127.0.0.1:1/page")
    response = HtmlResponse(request.url, body=b"<p>x</p>", request=request)
    spider = Spider("s")
    assert formatter.crawled(request, response, spider) is None
    assert formatter.scraped({"url": request.url}, response, spider) is None


@pytest.mark.parametrize("level", ["DEBUG", logging.DEBUG])
def test_at_debug_they_are_scrapys_own(level: str | int) -> None:
    formatter = _formatter(level)
    request = Request("http://127.0.0.1:1/page")
    response = HtmlResponse(request.url, body=b"<p>x</p>", request=request)
    spider = Spider("s")
    crawled = formatter.crawled(request, response, spider)
    scraped = formatter.scraped({"url": request.url}, response, spider)
    assert crawled is not None and crawled["level"] == logging.DEBUG
    assert crawled["args"]["status"] == 200
    assert scraped is not None and scraped["args"]["item"] == {"url": request.url}


def test_the_project_settings_use_it() -> None:
    # read as Scrapy reads it: the key is Scrapy's own (a misspelt one is ignored)
    from scrapy.settings import Settings
    from scrapy.utils.misc import load_object

    from webmd_spider import settings as project

    settings = Settings()
    settings.setmodule(project, priority="project")
    assert load_object(settings["LOG_FORMATTER"]) is QuietLogFormatter
