"""Shared pytest fixtures: the fixture websites served on 127.0.0.1.

``basic_site`` and ``links_site`` serve ``tests/sites/basic`` and ``tests/sites/links``
for the whole session (their ``requests`` log is shared; use ``hits`` deltas or
``clear_requests()`` in tests that count). ``serve_site(path)`` serves any folder for
one test and stops it at teardown. No Scrapy imports here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from webmd_spider.demo.server import SiteServer

SITES_DIR = Path(__file__).resolve().parent / "sites"


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
