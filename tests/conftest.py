"""Shared pytest fixtures: the fixture websites served on 127.0.0.1.

``basic_site`` and ``links_site`` serve ``tests/sites/basic`` and ``tests/sites/links``
for the whole session (their ``requests`` log is shared; use ``hits`` deltas or
``clear_requests()`` in tests that count). ``serve_site(path)`` serves any folder for
one test and stops it at teardown. ``redis_server`` is a real ``redis-server`` for the
session (``tests/redis_server.py``); ``redis_url`` is its URL with an empty server
(FLUSHALL before each test). No Scrapy imports here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from webmd_spider.demo.server import SiteServer

from .redis_server import RedisServer, RedisServerError

SITES_DIR = Path(__file__).resolve().parent / "sites"

# No property test is judged by the clock: Hypothesis's default 200 ms deadline failed a
# pure function on a CI machine busy with other work (a run took 972 ms once, 8 ms the
# next time); the too_slow health check is a clock too. Work is bounded by what the
# tests count, never by time.
settings.register_profile(
    "no-deadline", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("no-deadline")


@pytest.fixture(scope="session")
def sites_dir() -> Path:
    """The folder holding the fixture sites (``tests/sites``)."""
    return SITES_DIR


@pytest.fixture(scope="session")
def basic_site() -> Iterator[SiteServer]:
    """``tests/sites/basic`` (sitemap discovery), started for the session."""
    with SiteServer(SITES_DIR / "basic") as server:
        yield server


@pytest.fixture(scope="session")
def links_site() -> Iterator[SiteServer]:
    """``tests/sites/links`` (link discovery, no sitemap), started for the session."""
    with SiteServer(SITES_DIR / "links") as server:
        yield server


@pytest.fixture
def serve_site() -> Iterator[Callable[[Path], SiteServer]]:
    """A factory: ``serve_site(path)`` starts a server for ``path``; all stop at teardown."""
    servers: list[SiteServer] = []

    def start(path: Path) -> SiteServer:
        server = SiteServer(Path(path)).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A real ``redis-server`` on 127.0.0.1, started for the session. Fails (never
    skips) when redis-server is not installed: run ``make system-deps``."""
    try:
        server = RedisServer().start()
    except RedisServerError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """``redis://127.0.0.1:PORT/0`` of the session's server, emptied (FLUSHALL) before
    the test."""
    redis_server.flushall()
    return redis_server.url
