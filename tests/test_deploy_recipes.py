"""The deployment recipes of docs/DEPLOY.md: every file parses, and the cron wrapper runs.

``deploy/nightly-recrawl.sh`` is run for real (bash, flock, ``python -m scrapy``)
against the bundled demo site with temporary state, feed, Markdown and log folders;
extra Scrapy settings reach it through ``WEBMD_EXTRA_ARGS``. Its contract, as
documented: 0 after a good run, 75 at once when another run holds the lock ("already
running" on stderr), 1 when the site could not be crawled, 64 on bad usage.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from webmd_spider.demo.server import SiteServer, demo_site_path
from webmd_spider.options import build_options

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "deploy" / "nightly-recrawl.sh"
DEPLOY_DOC = REPO / "docs" / "DEPLOY.md"
SHUB_YML = REPO / "scrapinghub.yml"
#: our servers on loopback: past the SSRF guard, no politeness delay
EXTRA_ARGS = (
    "-s WEBMD_SSRF_ALLOWLIST=127.0.0.0/8 -s WEBMD_HOST_DELAY=0 -s AUTOTHROTTLE_ENABLED=False"
    " -s WEBMD_ROBOTS_RETRY_SECS=0 -s WEBMD_PROGRESS_SECS=0"
)
EXIT_LOCKED = 75
EXIT_USAGE = 64


# -- files ------------------------------------------------------------------------------
def _pyproject() -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    return data


def _requirements_file() -> Path:
    config = yaml.safe_load(SHUB_YML.read_text("utf-8"))
    return REPO / config["requirements"]["file"]


def test_scrapinghub_yml_sits_beside_scrapy_cfg_with_a_dated_stack() -> None:
    assert (SHUB_YML.parent / "scrapy.cfg").exists()  # shub looks for it there
    config = yaml.safe_load(SHUB_YML.read_text("utf-8"))
    assert isinstance(config, dict)
    # a dated stack never changes under a deployed project: scrapy:X.Y-YYYYMMDD
    assert re.fullmatch(r"scrapy:\d+\.\d+-20\d{6}", config["stack"]), config["stack"]
    assert set(config["requirements"]) == {"file"}
    assert _requirements_file().is_file()
    if "project" in config:  # optional; a numeric id when present
        assert isinstance(config["project"], int)


def _pins(path: Path) -> tuple[dict[str, Requirement], dict[str, Requirement]]:
    """(pinned requirements, commented-out ``# name==version`` suggestions) by name."""
    pins: dict[str, Requirement] = {}
    suggested: dict[str, Requirement] = {}
    for number, raw in enumerate(path.read_text("utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        target = pins
        if line.startswith("#"):
            commented = line.lstrip("#").strip()
            if not re.fullmatch(r"[A-Za-z0-9._-]+==\S+", commented):
                continue  # prose
            line, target = commented, suggested
        try:
            req = Requirement(line)
        except InvalidRequirement as exc:
            pytest.fail(f"{path.name}:{number}: not a requirement: {raw!r} ({exc})")
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{path.name}:{number}: unpinned"
        assert "*" not in specs[0].version, f"{path.name}:{number}: wildcard pin"
        assert req.marker is None and not req.url, f"{path.name}:{number}: {raw!r}"
        name = canonicalize_name(req.name)
        assert name not in pins and name not in suggested, f"{path.name}:{number}: twice"
        target[name] = req
    return pins, suggested


def test_requirements_are_pinned_inside_pyproject_ranges() -> None:
    pins, suggested = _pins(_requirements_file())
    project = _pyproject()["project"]
    runtime = [Requirement(r) for r in project["dependencies"]]
    optional = [
        Requirement(r) for group in project["optional-dependencies"].values() for r in group
    ]
    for req in runtime:
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} (a runtime dependency) is not pinned"
    for req in runtime + optional:
        name = canonicalize_name(req.name)
        pin = pins.get(name) or suggested.get(name)
        if pin is None:
            continue
        version = next(iter(pin.specifier)).version
        assert req.specifier.contains(version, prereleases=True), (
            f"{pin} is outside pyproject.toml's {req}"
        )
    assert next(iter(pins["scrapy"].specifier)).version.startswith("2.19.")


def test_wrapper_script_is_valid_bash_and_executable() -> None:
    result = subprocess.run(
        ["bash", "-n", str(SCRIPT)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert os.access(SCRIPT, os.X_OK), f"{SCRIPT} is not executable (chmod +x)"
    assert SCRIPT.read_text("utf-8").startswith("#!/usr/bin/env bash\n")


# -- the crontab line of docs/DEPLOY.md -------------------------------------------------
_NAMES = {
    3: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
    4: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
}
_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))


def _cron_value(text: str, field: int) -> int:
    names = _NAMES.get(field, [])
    if text.lower() in names:
        return names.index(text.lower()) + (1 if field == 3 else 0)
    assert text.isdigit(), f"field {field + 1}: {text!r} is not a number"
    low, high = _RANGES[field]
    assert low <= int(text) <= high, f"field {field + 1}: {text} outside {low}-{high}"
    return int(text)


def _check_cron_field(value: str, field: int) -> None:
    for item in value.split(","):
        base, _, step = item.partition("/")
        if step:
            assert step.isdigit() and int(step) > 0, f"field {field + 1}: bad step {item!r}"
        if base == "*":
            continue
        low, dash, high = base.partition("-")
        first = _cron_value(low, field)
        if dash:
            assert first <= _cron_value(high, field), f"field {field + 1}: {item!r}"
        else:
            assert not step, f"field {field + 1}: a step needs a range: {item!r}"


def _crontab_jobs() -> list[str]:
    blocks = re.findall(r"```crontab\n(.*?)```", DEPLOY_DOC.read_text("utf-8"), re.DOTALL)
    assert blocks, "docs/DEPLOY.md has no ```crontab block"
    jobs = []
    for block in blocks:
        for line in block.splitlines():
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if re.match(r"[A-Za-z_][A-Za-z0-9_]*\s*=", stripped):
                continue  # an environment line (MAILTO=..., WEBMD_VAR=...)
            jobs.append(stripped)
    return jobs


def test_crontab_lines_are_valid_schedules_calling_the_wrapper() -> None:
    jobs = _crontab_jobs()
    assert len(jobs) == 2, jobs  # the nightly recrawl, and one that keeps an index
    for job in jobs:
        _check_crontab_job(job)


def _check_crontab_job(job: str) -> None:
    fields = job.split(None, 5)
    assert len(fields) == 6, f"not 5 time fields and a command: {job!r}"
    for number, value in enumerate(fields[:5]):
        _check_cron_field(value, number)
    command = fields[5]
    assert "%" not in command.replace("\\%", ""), "cron turns an unescaped % into a newline"
    words = shlex.split(command)
    assert words[0].startswith("/") and words[0].endswith("/deploy/nightly-recrawl.sh")
    start = urlsplit(words[1])
    assert start.scheme in ("http", "https") and start.netloc, words[1]
    # the spider arguments after START are real options with usable values
    redirections = [i for i, w in enumerate(words) if re.match(r"\d*[<>]", w)]
    args = words[2 : redirections[0] if redirections else None]
    arguments: dict[str, str] = {}
    while args:
        flag, value, *args = args
        assert flag == "-a", f"expected -a NAME=VALUE, got {flag} {value}"
        name, _, text = value.partition("=")
        arguments[name] = text
    build_options({}, {"start": words[1], "incremental": "true", **arguments})


# -- running the wrapper -------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_site() -> Iterator[SiteServer]:
    with SiteServer(demo_site_path()) as server:
        yield server


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WEBMD_", "SCRAPY"))}
    env.update(
        WEBMD_PYTHON=sys.executable,
        WEBMD_VAR=str(tmp_path / "var"),
        WEBMD_STATE_DIR=str(tmp_path / "state"),
        WEBMD_TREE_DIR=str(tmp_path / "md"),
        WEBMD_LOCK_FILE=str(tmp_path / "nightly.lock"),
        WEBMD_EXTRA_ARGS=EXTRA_ARGS,
    )
    return env


def _run(
    start: str, env: dict[str, str], cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    # started from another folder: the script must cd into the checkout itself
    return subprocess.run(
        [str(SCRIPT), start, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _feeds(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "var" / "feeds").glob("*.jsonl"))


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _pages(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["row_type"] == "page"]


def test_nightly_recrawl_locks_and_recrawls_incrementally(
    demo_site: SiteServer, tmp_path: Path
) -> None:
    env = _env(tmp_path)
    start = demo_site.url("/")

    # 1. the first run: every page new, rows in a dated feed, one .md file per page
    first = _run(start, env, tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "page rows" in first.stdout
    (feed,) = _feeds(tmp_path)
    assert re.fullmatch(r"127\.0\.0\.1-\d+-\d{8}T\d{6}Z\.jsonl", feed.name), feed.name
    assert feed.with_name(feed.name + ".summary.json").exists()
    rows = _rows(feed)
    pages = _pages(rows)
    assert pages and all(r["markdown"] for r in pages)
    assert {r["change"] for r in pages} == {"new"}
    (site,) = [r for r in rows if r["row_type"] == "site"]
    assert site["stop_reason"] == "finished"
    md_files = sorted((tmp_path / "md").rglob("*.md"))
    assert len(md_files) == len(pages)
    assert list((tmp_path / "state").glob("*.sqlite")), "no state in WEBMD_STATE_DIR"
    (log,) = (tmp_path / "var" / "logs").glob("*.log")
    assert "Traceback" not in log.read_text("utf-8")
    mtimes = {path: path.stat().st_mtime_ns for path in md_files}

    # 2. another run holds the lock: this one exits at once, non-zero, and says why
    fd = os.open(env["WEBMD_LOCK_FILE"], os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        asked = len(demo_site.requests)
        locked = _run(start, env, tmp_path)
    finally:
        os.close(fd)  # releases the lock
    assert locked.returncode == EXIT_LOCKED, locked.stdout + locked.stderr
    assert "already running" in locked.stderr
    assert f"pid {os.getpid()}" in locked.stderr
    # it did not crawl: not one request reached the site, no Scrapy log was started
    # (counted, not timed: issue 16, the suite must hold on a busy machine)
    assert len(demo_site.requests) == asked, [r.path for r in demo_site.requests[asked:]]
    assert list((tmp_path / "var" / "logs").glob("*.log")) == [log]
    assert "crawling" not in locked.stdout
    assert _feeds(tmp_path) == [feed]  # nothing crawled, nothing written

    # 3. the next run: the same pages come back `unchanged`, their files untouched
    time.sleep(1.1)  # a new UTC second: a new dated feed name
    second = _run(start, env, tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    feeds = _feeds(tmp_path)
    assert len(feeds) == 2 and feeds[0] == feed
    again = _pages(_rows(feeds[1]))
    unchanged = [r for r in again if r["change"] == "unchanged"]
    assert len(unchanged) >= len(pages) // 2, [(r["url"], r["change"]) for r in again]
    assert not [r for r in again if r["change"] == "changed"]
    known = {r["url"] for r in pages}
    assert all(r["change"] == "unchanged" for r in again if r["url"] in known)
    assert all(r["markdown"] is None for r in unchanged)  # nothing to re-embed
    # README: DIR/.webmd/manifest.json maps each URL to its file across runs
    manifest = json.loads((tmp_path / "md" / ".webmd" / "manifest.json").read_text("utf-8"))
    for row in unchanged:
        # keyed by the page's URL after redirects (an old URL redirected to it is an alias)
        path = tmp_path / "md" / manifest["pages"][row["final_url"] or row["url"]]["path"]
        assert path.stat().st_mtime_ns == mtimes[path], f"{path} rewritten"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_nightly_recrawl_fails_when_the_site_cannot_be_crawled(tmp_path: Path) -> None:
    # nothing listens there: robots.txt refused, the site row says `unreachable`
    result = _run(f"http://127.0.0.1:{_free_port()}/", _env(tmp_path), tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "stop_reason unreachable" in result.stdout
    assert "could not be crawled" in result.stderr
    assert "Connection refused" in result.stderr  # the log's error, for cron's mail


def test_nightly_recrawl_usage(tmp_path: Path) -> None:
    result = subprocess.run(
        [str(SCRIPT)], env=_env(tmp_path), capture_output=True, text=True, check=False
    )
    assert result.returncode == EXIT_USAGE
    assert "usage:" in result.stderr
