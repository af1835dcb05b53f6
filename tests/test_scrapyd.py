"""End to end on a real Scrapyd: deploy with scrapyd-deploy, schedule, read the rows.

Nothing is mocked. The module starts the ``scrapyd`` beside ``sys.executable`` on
127.0.0.1 (a free port, a scrapyd.conf in a temporary working folder, ``HOME`` pointed
there so no ``~/.scrapyd.conf`` leaks in), builds and uploads the egg with
``scrapyd-deploy`` from a copy of the project (scrapyd-deploy writes ``setup.py``,
``build/`` and ``*.egg-info`` beside ``scrapy.cfg``; the checkout stays clean), using
the ``scrapyd`` target of our ``scrapy.cfg`` with ``SCRAPYD_URL``. Each test then
schedules the ``site`` spider through ``schedule.json`` against the bundled demo site
and polls ``listjobs.json``.

The copy's ``settings.py`` gets a distinct ``BOT_NAME``, and each job's log must show
it: that proves the job ran the deployed egg, not the checkout installed in the venv.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from webmd_spider.demo.server import SiteServer, demo_site_path

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PROJECT = "webmd_spider"
#: What scrapyd-deploy needs from the checkout to build the egg (pyproject.toml names
#: README.md and the license).
PROJECT_FILES = ("scrapy.cfg", "pyproject.toml", "README.md", "LICENSE", PROJECT)
#: Files scrapyd-deploy writes when run inside a checkout.
BUILD_LEFTOVERS = ("setup.py", "build", "project.egg-info")
EGG_BOT_NAME = "webmd_spider_egg_e2e"
#: Our own server on loopback: past the SSRF guard, no politeness delay.
LOCAL_SETTINGS = (
    "WEBMD_SSRF_ALLOWLIST=127.0.0.0/8",
    "WEBMD_HOST_DELAY=0",
    "AUTOTHROTTLE_ENABLED=False",
)
JOB_TIMEOUT = 120.0
STARTUP_TIMEOUT = 30.0


def _tool(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        pytest.fail(
            f"{name} not found at {path}: install the dev extras "
            "(`make install`, i.e. pip install -e '.[dev]': scrapyd, scrapyd-client)"
        )
    return path


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Scrapyd:
    """A running Scrapyd and the folders it uses."""

    url: str
    workdir: Path
    logs_dir: Path
    eggs_dir: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes]

    def call(self, path: str, data: list[tuple[str, str]] | None = None) -> dict[str, Any]:
        """GET (no data) or POST (form data) one JSON endpoint; the decoded answer."""
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        with urllib.request.urlopen(self.url + path, data=body, timeout=10) as response:
            answer: dict[str, Any] = json.load(response)
        return answer

    def text(self, path: str) -> str:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return str(response.read().decode("utf-8", "replace"))

    def daemon_log(self) -> str:
        path = self.workdir / "scrapyd.out"
        return path.read_text("utf-8", "replace")[-4000:] if path.exists() else ""

    def schedule(self, start: str, *extra: tuple[str, str]) -> str:
        """Schedule one ``site`` job with the local-server settings; its job id."""
        data = [("project", PROJECT), ("spider", "site"), ("start", start)]
        data += [("setting", value) for value in LOCAL_SETTINGS]
        data += [("max_run_secs", "60"), *extra]
        answer = self.call("schedule.json", data)
        assert answer["status"] == "ok", answer
        jobid: str = answer["jobid"]
        return jobid

    def wait_finished(self, jobid: str) -> dict[str, Any]:
        """Poll listjobs.json until the job is finished; its entry."""
        deadline = time.monotonic() + JOB_TIMEOUT
        while time.monotonic() < deadline:
            jobs = self.call(f"listjobs.json?project={PROJECT}")
            for job in jobs["finished"]:
                if job["id"] == jobid:
                    return dict(job)
            if self.process.poll() is not None:
                pytest.fail(f"scrapyd exited while job {jobid} ran:\n{self.daemon_log()}")
            time.sleep(0.3)
        pytest.fail(f"job {jobid} not finished after {JOB_TIMEOUT:.0f} s: {jobs}")

    def job_log(self, jobid: str) -> str:
        return (self.logs_dir / PROJECT / "site" / f"{jobid}.log").read_text("utf-8", "replace")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End Scrapyd and the crawls it started: its whole process group."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture(scope="module")
def scrapyd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scrapyd]:
    """Scrapyd on 127.0.0.1:<free port>, everything under one temporary folder."""
    binary = _tool("scrapyd")
    workdir = tmp_path_factory.mktemp("scrapyd")
    port = _free_port()
    dirs = {name: workdir / name for name in ("eggs", "logs", "dbs")}
    (workdir / "scrapyd.conf").write_text(
        "[scrapyd]\n"
        "bind_address = 127.0.0.1\n"
        f"http_port = {port}\n"
        f"eggs_dir = {dirs['eggs']}\n"
        f"logs_dir = {dirs['logs']}\n"
        f"dbs_dir = {dirs['dbs']}\n"
        # empty: Scrapyd would otherwise replace the project's FEEDS with its own feed
        "items_dir =\n"
        "max_proc = 2\n"
        "poll_interval = 0.2\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRAPY")}
    env["HOME"] = str(workdir)  # no ~/.scrapyd.conf, ~/.scrapy.cfg or ~/.netrc of the user
    with (workdir / "scrapyd.out").open("wb") as out:
        process = subprocess.Popen(
            [str(binary)],
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: teardown ends the crawls too
        )
    server = Scrapyd(
        url=f"http://127.0.0.1:{port}/",
        workdir=workdir,
        logs_dir=dirs["logs"],
        eggs_dir=dirs["eggs"],
        env=env,
        process=process,
    )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(f"scrapyd exited with {process.returncode}:\n{server.daemon_log()}")
            try:
                if server.call("daemonstatus.json")["status"] == "ok":
                    break
            except (urllib.error.URLError, ConnectionError, json.JSONDecodeError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"scrapyd did not answer in {STARTUP_TIMEOUT:.0f} s")
            time.sleep(0.2)
        yield server
    finally:
        _stop(process)


@pytest.fixture(scope="module")
def deployed(scrapyd: Scrapyd, tmp_path_factory: pytest.TempPathFactory) -> Scrapyd:
    """The project built and uploaded with scrapyd-deploy (target ``scrapyd`` of scrapy.cfg)."""
    deploy = _tool("scrapyd-deploy")
    before = {name: (REPO / name).exists() for name in BUILD_LEFTOVERS}
    project = tmp_path_factory.mktemp("project")
    for name in PROJECT_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(
                source, project / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )
        else:
            shutil.copy2(source, project / name)
    with (project / PROJECT / "settings.py").open("a", encoding="utf-8") as settings:
        settings.write(f"\nBOT_NAME = {EGG_BOT_NAME!r}  # test_scrapyd: the egg's own code\n")
    result = subprocess.run(
        [str(deploy), "scrapyd", "--version", "e2e-1"],
        cwd=project,
        env={**scrapyd.env, "SCRAPYD_URL": scrapyd.url},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, f"scrapyd-deploy failed:\n{result.stdout}\n{result.stderr}"
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["status"] == "ok" and answer["project"] == PROJECT, answer
    assert answer["spiders"] == 1, answer
    # it built the egg with the setup.py it wrote next to scrapy.cfg, in the copy only
    assert (project / "setup.py").exists()
    assert {name: (REPO / name).exists() for name in BUILD_LEFTOVERS} == before
    assert list((scrapyd.eggs_dir / PROJECT).glob("e2e-1*.egg"))
    versions = scrapyd.call(f"listversions.json?project={PROJECT}")
    assert versions["versions"] == ["e2e-1"], versions
    spiders = scrapyd.call(f"listspiders.json?project={PROJECT}")
    assert spiders["spiders"] == ["site"], spiders
    return scrapyd


@pytest.fixture(scope="module")
def demo_site() -> Iterator[SiteServer]:
    with SiteServer(demo_site_path()) as server:
        yield server


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _check_rows(rows: list[dict[str, Any]]) -> None:
    pages = [r for r in rows if r["row_type"] == "page"]
    sites = [r for r in rows if r["row_type"] == "site"]
    assert pages, rows
    assert all(r["markdown"] and r["markdown"].strip() for r in pages)
    assert len(sites) == 1, sites
    assert sites[0]["stop_reason"] == "finished", sites[0]
    assert sites[0]["pages_extracted"] == len(pages)


def _check_log(scrapyd: Scrapyd, jobid: str) -> str:
    log = scrapyd.job_log(jobid)
    assert f"(bot: {EGG_BOT_NAME})" in log, "the job did not run the deployed egg"
    assert "Traceback" not in log, log[-3000:]
    assert "Spider closed (finished)" in log, log[-3000:]
    return log


def test_job_with_output_dir_writes_rows_there(
    deployed: Scrapyd, demo_site: SiteServer, tmp_path: Path
) -> None:
    """The recommended way: ``-d output_dir=ABSOLUTE`` (a spider argument)."""
    out = tmp_path / "out"
    jobid = deployed.schedule(demo_site.url("/"), ("output_dir", str(out)))
    job = deployed.wait_finished(jobid)
    assert job["items_url"] is None  # items_dir is off: our feed, not Scrapyd's
    feeds = sorted(out.glob("*.jsonl"))
    assert len(feeds) == 1, sorted(out.iterdir()) if out.exists() else "no output folder"
    _check_rows(_rows(feeds[0]))
    summary = json.loads(feeds[0].with_name(feeds[0].name + ".summary.json").read_text("utf-8"))
    assert summary["stop_reason"] == "finished"
    _check_log(deployed, jobid)
    # the log is served too (log_url of listjobs.json)
    assert "Spider closed (finished)" in deployed.text(job["log_url"].lstrip("/"))


def test_job_with_feeds_setting_writes_that_file(
    deployed: Scrapyd, demo_site: SiteServer, tmp_path: Path
) -> None:
    """``-d setting=FEEDS={...}`` names the file itself; the summary goes beside it."""
    feed = tmp_path / "feeds" / "demo.jsonl"
    feeds = json.dumps({str(feed): {"format": "jsonl"}})
    jobid = deployed.schedule(demo_site.url("/"), ("setting", f"FEEDS={feeds}"))
    deployed.wait_finished(jobid)
    _check_rows(_rows(feed))
    assert feed.with_name("demo.jsonl.summary.json").exists()
    _check_log(deployed, jobid)


def test_job_without_output_location_writes_under_scrapyd_cwd(
    deployed: Scrapyd, demo_site: SiteServer
) -> None:
    """No feed given: ``output/<website>-<UTC>.jsonl`` relative to Scrapyd's own working
    folder (what docs/DEPLOY.md warns about)."""
    before = set((deployed.workdir / "output").glob("*.jsonl"))
    jobid = deployed.schedule(demo_site.url("/"))
    deployed.wait_finished(jobid)
    new = sorted(set((deployed.workdir / "output").glob("*.jsonl")) - before)
    assert len(new) == 1, new
    _check_rows(_rows(new[0]))
    _check_log(deployed, jobid)
