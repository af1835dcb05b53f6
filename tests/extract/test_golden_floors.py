"""Floors only go up (``tests/pages/floors.json``, see ``tests/golden.py``).

The committed floors are compared with git: the working tree's floors.json with
HEAD's, and every commit of HEAD's first-parent history that changed floors.json (from
the commit that introduced this rule, ``"version": 2``) with its parent. A lowered
floor fails the test unless the same change also rewrote that case's expected.md AND
its ``reviewed`` line: an expectation a person made stricter is the one reason a floor
may go down (and the commit says which and why). A corpus mean may go down only where
some case was re-reviewed, added or removed.

No skip: outside a git work tree, or in a shallow clone whose HEAD changed floors.json
without its parent, the test fails and says what to fetch.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .. import golden
from ..golden import GitUnavailable, Lowered, floors_history, lowered_floors


def test_floors_only_go_up() -> None:
    try:
        checks = floors_history()
    except GitUnavailable as exc:
        pytest.fail(f"the floors-only-up rule reads floors.json from git and cannot: {exc}")
    bad = [f"{label}: {item}" for label, found in checks for item in found if not item.justified]
    assert not bad, "floors went down without a re-reviewed expectation:\n  " + "\n  ".join(bad)


# ------------------------------------------- the rule itself, on a scratch repository


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return proc.stdout


def _write_case(pages: Path, case: str, md: str, reviewed: str | None) -> None:
    folder = pages / case
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "expected.md").write_text(md, "utf-8")
    spec: dict[str, object] = {"url": "https://site.example/"}
    if reviewed is not None:
        spec["reviewed"] = reviewed
    (folder / "expected.json").write_text(json.dumps(spec), "utf-8")


def _floors(pages: Path, f1: float, sr: float, mean_f1: float, version: int = 2) -> None:
    doc = {
        "version": version,
        "mean_f1": mean_f1,
        "mean_structure_recall": sr,
        "cases": {
            "a": {"f1": f1, "structure_recall": sr},
            "b": {"f1": 1.0, "structure_recall": 1.0},
        },
    }
    (pages / "floors.json").write_text(json.dumps(doc), "utf-8")


def _commit(repo: Path, message: str) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with tests/pages/{a,b} and floors.json, golden pointed at it."""
    repo = tmp_path / "repo"
    pages = repo / "tests" / "pages"
    pages.mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "t@example.org")
    _git(repo, "config", "user.name", "t")
    _write_case(pages, "a", "# A\n\nold text\n", None)
    _write_case(pages, "b", "# B\n", None)
    _floors(pages, 0.9, 0.8, 0.9, version=1)
    _commit(repo, "before the rule")
    monkeypatch.setattr(golden, "REPO", repo)
    monkeypatch.setattr(golden, "PAGES", pages)
    monkeypatch.setattr(golden, "FLOORS", pages / "floors.json")
    return pages


def _unjustified(checks: list[tuple[str, list[Lowered]]]) -> list[str]:
    return [f"{label}: {item}" for label, found in checks for item in found if not item.justified]


def test_rule_on_history(scratch: Path) -> None:
    pages, repo = scratch, scratch.parent.parent
    # the commit introducing the rule lowers a's f1 with a corrected, reviewed expectation
    _write_case(pages, "a", "# A\n\nstricter text\n", "2026-12-06: read source.html; stricter")
    _floors(pages, 0.7, 0.8, 0.85)
    assert _unjustified(floors_history()) == []  # working tree vs HEAD: allowed
    _commit(repo, "rule: re-reviewed a, floors re-pinned")
    checks = floors_history()
    assert _unjustified(checks) == []
    lowered = [item for _, found in checks for item in found]
    assert {(i.case, i.metric) for i in lowered} == {("a", "f1"), (None, "mean_f1")}
    # an uncommitted lower floor without a new expectation is refused...
    _floors(pages, 0.6, 0.8, 0.85)
    assert any("a f1: 0.70 -> 0.60" in line for line in _unjustified(floors_history()))
    # ...and so is a reviewed line changed alone (expected.md unchanged)
    _write_case(pages, "a", "# A\n\nstricter text\n", "2026-12-07: read source.html; again")
    assert _unjustified(floors_history())
    # committed, the same lowering fails as the HEAD commit
    _commit(repo, "lower a without a new expectation")
    assert any(line.startswith("commit ") for line in _unjustified(floors_history()))
    # raising floors is always fine, and the bad commit stays in history: still reported
    _floors(pages, 0.95, 0.9, 0.95)
    _commit(repo, "raise")
    assert len(_unjustified(floors_history())) == 1


def test_structure_floor_lowered_needs_review(scratch: Path) -> None:
    pages = scratch
    _floors(pages, 0.9, 0.5, 0.9)
    bad = _unjustified(floors_history())
    assert any("a structure_recall: 0.80 -> 0.50" in line for line in bad)
    assert any("mean_structure_recall" in line for line in bad)


def test_lowered_floors_pure() -> None:
    old = {"mean_f1": 0.9, "cases": {"x": {"f1": 0.9, "structure_recall": 0.5}}}
    new = {"mean_f1": 0.9, "cases": {"x": {"f1": 0.95, "structure_recall": 0.5}}}
    assert lowered_floors(old, new, None, None) == []  # only raised: nothing to judge


def test_outside_git_fails_loudly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(golden, "REPO", tmp_path)
    with pytest.raises(GitUnavailable):
        floors_history()
