"""PageCompletion: a page is done once its callback, its rows and its links are settled
(issue 16 item 3), and Fleet.push queues a request and marks it seen in one step."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from webmd_spider.state.completion import PageCompletion, done_key

from ..redis_server import RedisServer


def tracker() -> tuple[PageCompletion, list[tuple[str, str | None]]]:
    done: list[tuple[str, str | None]] = []
    return PageCompletion(lambda key, row_type: done.append((key, row_type))), done


def test_a_page_is_done_after_its_row_and_its_last_link_whatever_the_order() -> None:
    completion, done = tracker()
    completion.hold("a")  # the callback
    completion.hold("a")  # its row
    completion.hold("a")  # link 1
    completion.hold("a")  # link 2
    completion.row_settled("a", "page")  # the row (here its type) is written first...
    completion.release("a")  # ...the callback ends...
    completion.release("a")  # ...link 1 is queued
    assert done == [] and len(completion) == 1
    completion.release("a")  # link 2 is queued: now the page is done
    assert done == [("a", "page")] and len(completion) == 0


def test_a_row_written_after_the_links_makes_the_page_done() -> None:
    completion, done = tracker()
    completion.hold("a")
    completion.hold("a")  # the row
    completion.release("a")  # the callback ends
    assert done == []
    completion.row_settled("a", "diagnostic")
    assert done == [("a", "diagnostic")]


def test_a_page_without_rows_is_done_when_its_callback_and_links_are() -> None:
    completion, done = tracker()
    completion.hold("a")
    completion.hold("a")  # a link (a canonical duplicate: links, no row)
    completion.release("a")
    completion.release("a")
    assert done == [("a", None)]


def test_a_dropped_row_settles_without_a_row_type_and_untracked_rows_are_done_at_once() -> None:
    completion, done = tracker()
    completion.hold("a")
    completion.hold("a")
    completion.row_settled("a", None)  # dropped by a pipeline
    completion.release("a")
    completion.row_settled("b", "diagnostic")  # an errback's row: no holds
    completion.release("c")  # nothing tracked: ignored
    assert done == [("a", None), ("b", "diagnostic")]


def test_done_key_names_the_page_of_a_row() -> None:
    page = SimpleNamespace(row_type="page", url="http://h/A?b=2&a=1#x", discovered_via="link")
    assert done_key(page) == "http://h/A?a=1&b=2"
    assert done_key(SimpleNamespace(row_type="site", url="http://h/", discovered_via="x")) is None
    startup = SimpleNamespace(row_type="diagnostic", url=None, discovered_via=None)
    assert done_key(startup) is None


@pytest.fixture
def redis_url() -> Iterator[str]:
    with RedisServer() as server:
        yield server.url


def test_fleet_push_marks_seen_and_queues_in_one_step(redis_url: str) -> None:
    from webmd_spider.distributed import Fleet

    fleet = Fleet(redis_url, "push-test")
    seen, queue = fleet.key("dupefilter"), fleet.key("requests")
    assert fleet.push(seen, queue, "fp1", -1, b"one", dont_filter=False)
    assert not fleet.push(seen, queue, "fp1", -1, b"one again", dont_filter=False)
    assert fleet.push(seen, queue, "fp1", 0, b"retry", dont_filter=True)
    assert fleet.redis.smembers(seen) == {b"fp1"}
    assert fleet.redis.zrange(queue, 0, -1, withscores=True) == [(b"one", -1.0), (b"retry", 0.0)]
    fleet.clear()
