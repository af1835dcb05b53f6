"""``webmd state list|show|forget``, run as a subprocess the way a user runs it, on a
state directory populated through :func:`open_store`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from webmd_spider.state.backends import open_store
from webmd_spider.state.store import PageState

REPO = Path(__file__).resolve().parent.parent


def state(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "webmd_spider.cli", "state", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False, cwd=cwd,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )  # fmt: skip


PAGE = PageState(
    url="https://example.com/docs/intro?lang=en",
    website="example.com",
    etag='"v1"',
    last_modified="Sun, 29 Nov 2026 10:00:00 GMT",
    content_hash="sha256:" + "ab" * 32,
    last_seen="2026-11-30T12:00:00Z",
    settings_fingerprint="fp-1",
    links=["https://example.com/docs/next"],
)


def populate(state_dir: Path) -> None:
    with open_store("sqlite", state_dir, "docs") as store:
        store.put(PAGE)
        store.put(PageState(url="https://example.com/docs/next", website="example.com"))
        store.set_meta("description", "example docs")
        store.set_meta("last_run", "2026-11-30T12:00:00Z")
    with open_store("sqlite", state_dir, "blog") as store:
        store.put(PageState(url=PAGE.url, website="example.com", etag='"blog"'))


def test_list_without_state(tmp_path: Path) -> None:
    done = state("list", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "no state in .webmd"


def test_list_default_dir(tmp_path: Path) -> None:
    populate(tmp_path / ".webmd")
    done = state("list", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].split()[:3] == ["blog", "1", "page"]
    assert "last run never" in lines[0]
    assert lines[1].split()[:3] == ["docs", "2", "pages"]
    assert "last run 2026-11-30T12:00:00Z" in lines[1]
    assert lines[1].endswith("example docs")


def test_list_other_dir_and_a_damaged_file(tmp_path: Path) -> None:
    populate(tmp_path / "st")
    (tmp_path / "st" / "broken.sqlite").write_bytes(b"garbage" * 100)
    done = state("list", "--state-dir", str(tmp_path / "st"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = [line.split()[0] for line in done.stdout.splitlines()]
    assert names == ["blog", "broken", "docs"]
    assert "unreadable" in done.stdout.splitlines()[1]


def test_show_canonicalizes_and_prints_one_object_per_job(tmp_path: Path) -> None:
    populate(tmp_path / ".webmd")
    raw = "HTTPS://Example.COM:443/docs/intro?utm_source=x&lang=en#top"
    done = state("show", raw, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["state"] for o in objects] == ["blog", "docs"]
    docs = objects[1]
    assert docs == {
        "state": "docs",
        "url": PAGE.url,
        "website": "example.com",
        "etag": '"v1"',
        "last_modified": "Sun, 29 Nov 2026 10:00:00 GMT",
        "content_hash": "sha256:" + "ab" * 32,
        "last_seen": "2026-11-30T12:00:00Z",
        "settings_fingerprint": "fp-1",
        "links": ["https://example.com/docs/next"],
    }
    assert objects[0]["etag"] == '"blog"' and objects[0]["last_modified"] is None


def test_show_one_job(tmp_path: Path) -> None:
    populate(tmp_path / ".webmd")
    done = state("show", PAGE.url, "--state", "docs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["state"] for line in done.stdout.splitlines()] == ["docs"]
    done = state("show", "https://example.com/docs/next", "--state", "blog", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("webmd state: ")
    assert "not in state 'blog'" in done.stderr


def test_show_a_raw_key_that_is_not_canonical(tmp_path: Path) -> None:
    with open_store("sqlite", tmp_path / ".webmd", "odd") as store:
        store.put(PageState(url="HTTP://Odd.example/X"))  # stored raw by some older run
    done = state("show", "HTTP://Odd.example/X", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["url"] == "HTTP://Odd.example/X"


def test_show_an_unknown_url(tmp_path: Path) -> None:
    populate(tmp_path / ".webmd")
    done = state("show", "https://example.com/nowhere", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip() == (
        "webmd state: https://example.com/nowhere is not in any state in .webmd"
    )


def test_forget(tmp_path: Path) -> None:
    populate(tmp_path / ".webmd")
    done = state("forget", "docs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "forgot state 'docs'" in done.stdout
    assert not list((tmp_path / ".webmd").glob("docs*"))
    assert (tmp_path / ".webmd" / "blog.sqlite").exists()
    again = state("forget", "docs", cwd=tmp_path)
    assert again.returncode == 1
    assert again.stderr.strip() == "webmd state: no state 'docs' in .webmd"


def test_forget_a_job_in_use(tmp_path: Path) -> None:
    populate(tmp_path / "st")
    with open_store("sqlite", tmp_path / "st", "docs"):  # a "run" holding the job
        done = state("forget", "docs", "--state-dir", str(tmp_path / "st"), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("webmd state: state 'docs' is in use by another run (pid ")
    assert f"(pid {os.getpid()})" in done.stderr
    assert (tmp_path / "st" / "docs.sqlite").exists()


def test_invalid_names_and_usage(tmp_path: Path) -> None:
    done = state("forget", "../etc", cwd=tmp_path)
    assert done.returncode == 2
    assert "webmd state: invalid state name '../etc'" in done.stderr
    done = state("show", "https://example.com/", "--state", ".x", cwd=tmp_path)
    assert done.returncode == 2
    done = state(cwd=tmp_path)  # no action
    assert done.returncode == 2
    assert "list" in done.stderr and "forget" in done.stderr
