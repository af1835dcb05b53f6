"""The stats collector and downloader stats of transport/stats.py: the same numbers as
Scrapy's, minus downloader/request_bytes."""

from __future__ import annotations

from scrapy import Request
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from webmd_spider.transport.stats import CountingDownloaderStats, FastStatsCollector


def test_fast_stats_collector_counts_as_scrapys_does() -> None:
    stats = FastStatsCollector(get_crawler())
    stats.inc_value("a")
    stats.inc_value("a", 4)
    stats.max_value("m", 3)
    stats.max_value("m", 2)
    stats.min_value("n", 3)
    stats.min_value("n", 1)
    stats.set_value("s", "x")
    assert stats.get_stats() == {"a": 5, "m": 3, "n": 1, "s": "x"}
    assert stats.get_value("missing", 7) == 7


def test_counting_downloader_stats_counts_requests_and_responses_not_request_bytes() -> None:
    crawler = get_crawler(settings_dict={"DOWNLOADER_STATS": True})
    stats = FastStatsCollector(crawler)
    crawler.stats = stats
    middleware = CountingDownloaderStats.from_crawler(crawler)
    request = Request("http://127.0.0.1:8080/a")
    assert middleware.process_request(request) is None
    body = b"<html><body><p>Some text.</p></body></html>"
    response = HtmlResponse(request.url, status=200, body=body, request=request)
    assert middleware.process_response(request, response) is response
    counted = stats.get_stats()
    assert counted["downloader/request_count"] == 1
    assert counted["downloader/request_method_count/GET"] == 1
    assert counted["downloader/response_count"] == 1
    assert counted["downloader/response_status_count/200"] == 1
    assert counted["downloader/response_bytes"] > len(body)
    assert "downloader/request_bytes" not in counted
