"""Fail fast, with the cause (issue 31 item 1), at the front doors: ``webmd crawl`` ends
with a hint naming the cause and exits 3 when no website gave a page; ``crawl()``
returns the same hints in its summary and logs them. Run as a user runs them, against a
closed port, a ``.invalid`` host (RFC 6761) and a real plain-HTTP server on 127.0.0.1.
The work is counted from the rows and the summary, never timed."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from webmd_spider.api import crawl
from webmd_spider.crawl_command import EXIT_NO_PAGE, hints
from webmd_spider.demo.server import SiteServer
from webmd_spider.rows.hints import cause_hints

from .crawling import by_type, prose_page, read_rows, write_site
from .front_door import run_webmd

FAST = ("-s", "WEBMD_HOST_DELAY=0", "-s", "AUTOTHROTTLE_ENABLED=False")


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens: bound, read, closed."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def plain(serve_site: Callable[[Path], SiteServer], tmp_path: Path) -> SiteServer:
    """A plain-HTTP site of two pages."""
    files = {"index.html": prose_page("Home", "/b.html"), "b.html": prose_page("B")}
    return serve_site(write_site(tmp_path / "site", files))


def _hints(stdout: str) -> list[str]:
    return [line.removeprefix("hint: ") for line in stdout.splitlines() if line.startswith("hint:")]


def test_no_such_host_exits_3_with_the_cause(tmp_path: Path) -> None:
    done = run_webmd(
        "crawl", "http://no-such-host.invalid/", "-q", "--out", "rows.jsonl", *FAST, cwd=tmp_path
    )
    assert done.returncode == EXIT_NO_PAGE == 3, done.stderr
    (row,) = by_type(read_rows(tmp_path / "rows.jsonl"), "diagnostic")
    assert "no such host: no-such-host.invalid" in row["error"]
    assert _hints(done.stdout) == [
        "no such host: no-such-host.invalid: check the spelling of the address (the name "
        "does not resolve)"
    ]
    log = (tmp_path / "rows.log").read_text("utf-8")
    assert "asking again" not in log and "Retrying" not in log


def test_nothing_listening_exits_3_with_the_address(tmp_path: Path) -> None:
    port = closed_port()
    done = run_webmd(
        "crawl", f"http://127.0.0.1:{port}/", "--allow-local", "-q", "--out", "rows.jsonl",
        *FAST, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    (row,) = by_type(read_rows(tmp_path / "rows.jsonl"), "diagnostic")
    assert f"nothing listening on 127.0.0.1:{port}" in row["error"]
    assert _hints(done.stdout) == [
        f"nothing listening on 127.0.0.1:{port}: check the port, and that the server is running"
    ]


def test_https_on_a_plain_http_port_exits_3_naming_the_http_url(
    plain: SiteServer, tmp_path: Path
) -> None:
    port = plain.base_url.rsplit(":", 1)[1]
    done = run_webmd(
        "crawl", f"https://localhost:{port}/", "--allow-local", "-q", "--out", "rows.jsonl",
        *FAST, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert _hints(done.stdout) == [f"plain HTTP on this port: use http://localhost:{port}/"]


def test_a_scheme_less_host_and_port_crawls_over_http_and_exits_0(
    plain: SiteServer, tmp_path: Path
) -> None:
    port = plain.base_url.rsplit(":", 1)[1]
    done = run_webmd(
        "crawl", f"127.0.0.1:{port}/", "--allow-local", "-q", "--out", "rows.jsonl", *FAST,
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    pages = {r["url"] for r in by_type(read_rows(tmp_path / "rows.jsonl"), "page")}
    assert pages == {plain.url("/"), plain.url("/b.html")}
    assert not _hints(done.stdout)


def test_crawl_returns_and_logs_the_hint(caplog: pytest.LogCaptureFixture) -> None:
    port = closed_port()
    rows = crawl(f"http://127.0.0.1:{port}/", allow_local=True)
    seen = []
    with caplog.at_level(logging.WARNING, logger="webmd_spider.api"):
        while True:
            try:
                seen.append(next(rows))
            except StopIteration as end:
                summary = end.value
                break
    assert [r.row_type for r in seen] == ["diagnostic", "site"]
    expected = (
        f"nothing listening on 127.0.0.1:{port}: check the port, and that the server is running"
    )
    assert summary["hints"] == [expected]
    assert expected in caplog.text


def test_hints_name_each_cause_once_on_plain_data() -> None:
    errors = [
        "could not reach the website: no such host: a.invalid (the name does not resolve)",
        "could not reach the website: no such host: a.invalid (the name does not resolve)",
        "could not reach the website: nothing listening on 127.0.0.1:9 (Connection refused)",
        "could not reach the website: plain HTTP on this port: localhost:8765 answered the "
        "TLS handshake in plain HTTP (wrong version number); use http://localhost:8765/",
    ]
    assert [h.split(":")[0] for h in cause_hints(errors)] == [
        "no such host",
        "nothing listening on 127.0.0.1",
        "plain HTTP on this port",
    ]
    summary = {"rows": {"page": 0, "diagnostic": 4}, "errors": {"unreachable": 4}}
    found = hints(summary, errors)
    assert found == cause_hints(errors)  # the causes, not "the server did not answer"
    assert found[2] == "plain HTTP on this port: use http://localhost:8765/"
    assert hints({**summary, "rows": {"page": 1}}, errors) == []
