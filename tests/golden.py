"""Scoring helpers of the golden page set (``tests/pages/<case>/``).

A case is a folder with ``source.html`` (the page, raw bytes), ``expected.md`` (the
ideal Markdown of its main content, written by hand) and ``expected.json``::

    {"url": "https://...",                       # the page URL given to extract()
     "fields": {"title": "...", ...},            # Document fields we are sure of
     "must_contain": ["```python", ...],         # substrings of the Markdown
     "must_not_contain": ["Accept cookies", ...],# chrome that must not be in it
     "xfail": ["field:title", "must_not_contain:Accept cookies"],  # known failures
     "reviewed": "2026-12-06: read source.html; <what was checked and changed>"}

A case counts only once a person has read its page: ``scripts/golden.py add`` drafts
expected.md from the current extractor and writes no ``reviewed`` line, and the gate
fails a case without one (:func:`review_problem`).

Scores (all 0..1, higher is better):

* ``f1``: word-shingle F1 of the ScrapingHub article-extraction benchmark, the metric
  of ``/work/shared/bench/extraction/metrics.py`` (re-implemented here): tokens are
  ``\\w+`` matches, each text is a multiset of 4-token shingles (1..3 tokens: one
  shorter shingle), TP/FP/FN are the multiset overlap and surpluses, and
  F1 = 2TP / (2TP + FP + FN). It compares the *text* of expected.md with the text of
  the extracted Markdown, both reduced by :func:`markdown_text` (link and image URLs
  dropped, so keeping or dropping links does not move the score; Markdown syntax has
  no ``\\w`` tokens anyway).
* ``structure_recall``: the share of expected.md's structural items found in the
  output *in the same Markdown construct*: every heading line must appear as a
  heading line (any level), every list item must start a list item (first 8 tokens),
  every fenced code block must appear inside a code block, every table cell (header
  and body rows, separator rows skipped) must appear on a table row line. Matching
  is on lower-cased token sequences (``[^\\W_]+``), so spacing, emphasis and escapes
  do not matter. A case with no items scores 1.
* checks: ``field:<name>`` (Document field equals the expected value; dates compare
  as instants, or by day when the expected value is a bare date),
  ``must_contain:<snippet>`` and ``must_not_contain:<snippet>`` (plain substring
  tests on the Markdown). ``xfail`` lists check ids that fail today; the test is
  strict, so a listed check that passes is reported and must be removed.

``scripts/golden.py`` (add, score, pin) and ``tests/extract/test_golden_pages.py`` (the CI
gate against ``tests/pages/floors.json``) both use :func:`run_case`.

Floors (``floors.json``, ``"version": 2``): per case ``f1`` and ``structure_recall``,
plus the corpus means ``mean_f1`` and ``mean_structure_recall``, each a score rounded
down to 2 decimals by ``scripts/golden.py pin``. Floors only go up
(:func:`floors_history`, ``tests/extract/test_golden_floors.py``): a floor may go down
only in a commit (or working tree) that also changes that case's expected.md and its
``reviewed`` line, i.e. when a person made the expectation stricter; a corpus mean only
in one that re-reviews, adds or removes a case.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

PAGES = Path(__file__).resolve().parent / "pages"
FLOORS = PAGES / "floors.json"
REPO = PAGES.parent.parent
FLOORS_VERSION = 2  # per-case f1 and structure_recall floors, floors only go up
CASE_METRICS = ("f1", "structure_recall")
MEAN_METRICS = ("mean_f1", "mean_structure_recall")
REVIEWED_RE = re.compile(r"^\d{4}-\d{2}-\d{2}: read source\.html\b.{20,}", re.S)
FIELDS = (
    *("title", "description", "site_name", "author", "published_at", "modified_at"),
    *("language", "canonical", "image", "keywords", "json_ld_types"),
)

# ---------------------------------------------------------------- shingle F1

TOKEN_RE = re.compile(r"\w+")
SHINGLE_N = 4
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK_RE = re.compile(r"\[([^\]]*)\]\((?:[^()\s]|\([^)]*\))*(?:\s+\"[^\"]*\")?\)")
_AUTOLINK_RE = re.compile(r"<(?:https?|mailto):[^>\s]*>")
_ESCAPE_RE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~=])")


def markdown_text(md: str) -> str:
    """The words of a Markdown text: images become their alt text, links their text,
    autolinks and backslash escapes go."""
    text = _IMAGE_RE.sub(r"\1", md or "")
    text = _LINK_RE.sub(r"\1", text)
    text = _AUTOLINK_RE.sub(" ", text)
    return _ESCAPE_RE.sub(r"\1", text)


def shingles(text: str, n: int = SHINGLE_N) -> Counter[tuple[str, ...]]:
    tokens = TOKEN_RE.findall(text)
    if not tokens:
        return Counter()
    if len(tokens) < n:
        return Counter([tuple(tokens)])
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


@dataclass(frozen=True)
class Overlap:
    precision: float
    recall: float
    f1: float


def shingle_f1(expected: str, got: str) -> Overlap:
    """Shingle precision, recall and F1 of `got` against `expected` (plain texts)."""
    true, pred = shingles(expected), shingles(got)
    tp = sum((true & pred).values())
    fp = sum((pred - true).values())
    fn = sum((true - pred).values())
    if fp == 0 and fn == 0:
        return Overlap(1.0, 1.0, 1.0)  # both empty, or identical
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn)
    return Overlap(precision, recall, f1)


# ---------------------------------------------------------- structure recall

_STRUCT_TOKEN_RE = re.compile(r"[^\W_]+")
_FENCE_RE = re.compile(r"^\s{0,3}(```+|~~~+)")
_ATX_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_SETEXT_RE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_BULLET_RE = re.compile(r"^\s*(?:[*+-]|\d+[.)])\s+(.*)$")
_QUOTE_RE = re.compile(r"^\s{0,3}(?:>\s?)+")
_TABLE_SEPARATOR_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
LIST_PREFIX_TOKENS = 8


def key(text: str) -> str:
    """Lower-cased token sequence with spaces around, for contiguous-match tests."""
    tokens = _STRUCT_TOKEN_RE.findall(markdown_text(text).lower())
    return f" {' '.join(tokens)} " if tokens else ""


@dataclass
class Blocks:
    """The structural items of a Markdown text, as token keys."""

    headings: list[str] = field(default_factory=list)
    list_items: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    table_rows: list[str] = field(default_factory=list)
    table_cells: list[str] = field(default_factory=list)

    def items(self) -> list[tuple[str, str]]:
        """(kind, key) of every item, the list of what structure recall looks for."""
        return [
            *(("heading", k) for k in self.headings),
            *(("list item", k) for k in self.list_items),
            *(("code block", k) for k in self.code),
            *(("table cell", k) for k in self.table_cells),
        ]


def _table_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines of GFM tables: a run of lines with "|" whose second line
    is a separator row (| --- | --- |). The separator rows themselves are left out."""
    found: set[int] = set()
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and "|" in lines[j]:
            j += 1
        if j - i >= 2 and _TABLE_SEPARATOR_RE.match(lines[i + 1]):
            found.update(k for k in range(i, j) if not _TABLE_SEPARATOR_RE.match(lines[k]))
        i = max(j, i + 1)
    return found


def markdown_blocks(md: str) -> Blocks:
    """Headings (ATX and setext), list items (bullet line plus continuation lines),
    code blocks (fenced, or indented after a blank line), rows and cells of GFM tables
    (header row, separator row, body rows)."""
    lines = [_QUOTE_RE.sub("", line) for line in (md or "").splitlines()]
    table = _table_lines(lines)
    blocks = Blocks()
    fence: list[str] | None = None
    prev_blank = True
    item: list[str] | None = None
    for i, line in enumerate(lines):
        if _FENCE_RE.match(line):
            if fence is None:
                fence = []
            else:
                blocks.code.append(key("\n".join(fence)))
                fence = None
            item = None
            continue
        if fence is not None:
            fence.append(line)
            continue
        stripped = line.strip()
        bullet = _BULLET_RE.match(line)
        if line.startswith(("    ", "\t")) and not bullet and prev_blank and item is None:
            blocks.code.append(key(line))
        elif heading := _ATX_RE.match(line):
            blocks.headings.append(key(heading.group(1)))
            item = None
        elif stripped and i + 1 < len(lines) and _SETEXT_RE.match(lines[i + 1]) and "|" not in line:
            blocks.headings.append(key(stripped))
            item = None
        elif bullet:
            item = [bullet.group(1)]
            blocks.list_items.append(key(bullet.group(1)))
        elif stripped and item is not None:  # continuation line of a list item
            item.append(stripped)
            blocks.list_items[-1] = key(" ".join(item))
        elif not stripped:
            item = None
        if i in table:
            blocks.table_rows.append(key(line))
            cells = line.strip().strip("|").split("|")
            blocks.table_cells.extend(k for k in map(key, cells) if k)
        prev_blank = not stripped
    if fence is not None:  # unclosed fence runs to the end
        blocks.code.append(key("\n".join(fence)))
    return blocks


def _prefix(item_key: str, n: int = LIST_PREFIX_TOKENS) -> str:
    tokens = item_key.split()
    return f" {' '.join(tokens[:n])} " if tokens else ""


def structure_misses(expected_md: str, got_md: str) -> tuple[int, list[str]]:
    """(number of structural items in expected_md, descriptions of the ones missing
    from got_md's matching constructs)."""
    want, have = markdown_blocks(expected_md), markdown_blocks(got_md)
    code = "".join(have.code)
    missing = []
    items = want.items()
    for kind, item in items:
        if kind == "heading":
            found = item in have.headings
        elif kind == "list item":
            found = any(_prefix(item) in k for k in have.list_items)
        elif kind == "code block":
            found = item in code
        else:
            found = any(item in row for row in have.table_rows)
        if not found:
            missing.append(f"{kind}:{item.strip()[:60]}")
    return len(items), missing


def structure_recall(expected_md: str, got_md: str) -> float:
    total, missing = structure_misses(expected_md, got_md)
    return 1.0 if total == 0 else (total - len(missing)) / total


# -------------------------------------------------------------------- checks


def _instant(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None


def field_matches(name: str, expected: Any, got: Any) -> bool:
    """Field equality; dates compare as instants, or by day for a bare expected date."""
    if name in ("published_at", "modified_at") and isinstance(expected, str):
        if not isinstance(got, str):
            return False
        if len(expected) == 10:  # YYYY-MM-DD: any time that day
            return got.strip()[:10] == expected
        a, b = _instant(expected), _instant(got)
        return a is not None and b is not None and a == b
    return bool(expected == got)


@dataclass
class CaseResult:
    """The scores and check outcomes of one case against the current extractor."""

    name: str
    f1: float
    precision: float
    recall: float
    structure_recall: float
    structure_missing: list[str]
    failed: dict[str, str]  # check id -> what went wrong (xfail ones included)
    xfail: list[str]
    checks: list[str]  # every check id of the case
    markdown: str

    @property
    def unexpected_failures(self) -> dict[str, str]:
        return {c: why for c, why in self.failed.items() if c not in self.xfail}

    @property
    def unexpected_passes(self) -> list[str]:
        return [c for c in self.xfail if c in self.checks and c not in self.failed]

    @property
    def unknown_xfails(self) -> list[str]:
        return [c for c in self.xfail if c not in self.checks]


def case_names() -> list[str]:
    return sorted(p.name for p in PAGES.iterdir() if (p / "expected.json").is_file())


def load_spec(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = json.loads((PAGES / name / "expected.json").read_text("utf-8"))
    return spec


def run_case(name: str) -> CaseResult:
    """Extract ``tests/pages/<name>/source.html`` and score it."""
    from webmd_spider.extract import extract

    folder = PAGES / name
    spec = load_spec(name)
    expected_md = (folder / "expected.md").read_text("utf-8")
    doc = extract((folder / "source.html").read_bytes(), spec["url"])
    md = doc.markdown
    overlap = shingle_f1(markdown_text(expected_md), markdown_text(md))
    total, missing = structure_misses(expected_md, md)
    failed: dict[str, str] = {}
    checks: list[str] = []
    for fname, want in spec.get("fields", {}).items():
        check = f"field:{fname}"
        checks.append(check)
        got = getattr(doc, fname, None)
        if fname not in FIELDS or not field_matches(fname, want, got):
            failed[check] = f"expected {want!r}, got {got!r}"
    for snippet in spec.get("must_contain", []):
        check = f"must_contain:{snippet}"
        checks.append(check)
        if snippet not in md:
            failed[check] = "missing from the Markdown"
    for snippet in spec.get("must_not_contain", []):
        check = f"must_not_contain:{snippet}"
        checks.append(check)
        if snippet in md:
            failed[check] = "present in the Markdown"
    if doc.error:
        failed["error"] = doc.error
        checks.append("error")
    return CaseResult(
        name=name,
        f1=overlap.f1,
        precision=overlap.precision,
        recall=overlap.recall,
        structure_recall=1.0 if total == 0 else (total - len(missing)) / total,
        structure_missing=missing,
        failed=failed,
        xfail=list(spec.get("xfail", [])),
        checks=checks,
        markdown=md,
    )


def floor2(value: float) -> float:
    """`value` rounded DOWN to 2 decimals (a floor the same score always meets)."""
    return math.floor(value * 100) / 100


def load_floors() -> dict[str, Any]:
    if not FLOORS.is_file():
        return {"mean_f1": 0.0, "mean_structure_recall": 0.0, "cases": {}}
    floors: dict[str, Any] = json.loads(FLOORS.read_text("utf-8"))
    return floors


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


# ------------------------------------------------------------ review marks


def review_problem(spec: dict[str, Any]) -> str | None:
    """Why a case's expected.json does not count as reviewed, or None.

    ``scripts/golden.py add`` drafts expected.md from the current extractor; the draft
    only becomes an expectation once a person has read source.html, corrected
    expected.md and written ``"reviewed": "YYYY-MM-DD: read source.html; <what was
    checked and changed>"`` into expected.json."""
    reviewed = spec.get("reviewed")
    if not isinstance(reviewed, str) or not reviewed.strip():
        return 'no "reviewed" line: a draft from scripts/golden.py add, not yet read by a person'
    if not REVIEWED_RE.match(reviewed):
        return (
            f'"reviewed" must read \'YYYY-MM-DD: read source.html; <what was checked '
            f"and changed>', got {reviewed[:80]!r}"
        )
    return None


# ------------------------------------------------------- floors only go up


class GitUnavailable(RuntimeError):
    """The floors history cannot be read (no git, not a work tree, shallow clone)."""


def git(*args: str) -> str:
    """Output of ``git -C REPO args`` (GitUnavailable when git cannot answer)."""
    exe = shutil.which("git")
    if exe is None:
        raise GitUnavailable("git is not installed")
    proc = subprocess.run(
        [exe, "-C", str(REPO), *args], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise GitUnavailable(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def rel(path: Path) -> str:
    return path.resolve().relative_to(REPO).as_posix()


def read_at(rev: str | None, path: Path) -> str | None:
    """The text of `path` at commit `rev` (None: the working tree); None if absent."""
    if rev is None:
        return path.read_text("utf-8") if path.is_file() else None
    try:
        return git("show", f"{rev}:{rel(path)}")
    except GitUnavailable as exc:
        if "does not exist" in str(exc) or "exists on disk, but not in" in str(exc):
            return None
        raise


def floor_values(floors: dict[str, Any]) -> dict[tuple[str | None, str], float]:
    """{(case or None for a corpus mean, metric): floor} of a floors.json document."""
    values: dict[tuple[str | None, str], float] = {}
    for metric in MEAN_METRICS:
        if isinstance(floors.get(metric), int | float):
            values[(None, metric)] = float(floors[metric])
    for case, entry in (floors.get("cases") or {}).items():
        for metric in CASE_METRICS:
            if isinstance(entry, dict) and isinstance(entry.get(metric), int | float):
                values[(case, metric)] = float(entry[metric])
    return values


@dataclass
class Lowered:
    case: str | None  # None: a corpus mean
    metric: str
    before: float
    after: float
    justified: bool
    why: str

    def __str__(self) -> str:
        label = f"{self.case} {self.metric}" if self.case else self.metric
        verdict = "allowed" if self.justified else "NOT allowed"
        return f"{label}: {self.before:.2f} -> {self.after:.2f} ({verdict}: {self.why})"


def _reviewed(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        value = json.loads(text).get("reviewed")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def re_reviewed(case: str, before: str | None, after: str | None) -> bool:
    """True when `case`'s expected.md AND its reviewed line both differ between the
    revisions `before` and `after` (None: the working tree): the expectation was
    corrected by a person, the one reason a floor may go down."""
    folder = PAGES / case
    md_before = read_at(before, folder / "expected.md")
    md_after = read_at(after, folder / "expected.md")
    spec_before = _reviewed(read_at(before, folder / "expected.json"))
    spec_after = _reviewed(read_at(after, folder / "expected.json"))
    return (
        md_before is not None
        and md_after is not None
        and md_before != md_after
        and spec_after is not None
        and spec_before != spec_after
    )


def lowered_floors(
    old: dict[str, Any], new: dict[str, Any], before: str | None, after: str | None
) -> list[Lowered]:
    """Every floor of `new` below the same floor in `old`, judged: a case's floor may go
    down only when its expected.md and its reviewed line both changed between the two
    revisions; a corpus mean only when some case was re-reviewed there or the set of
    cases changed (a mean is theirs)."""
    was, now = floor_values(old), floor_values(new)
    changed: dict[str, bool] = {}

    def case_ok(case: str) -> bool:
        if case not in changed:
            changed[case] = re_reviewed(case, before, after)
        return changed[case]

    found: list[Lowered] = []
    for (case, metric), after_value in sorted(
        now.items(), key=lambda kv: (kv[0][0] or "", kv[0][1])
    ):
        before_value = was.get((case, metric))
        if before_value is None or after_value >= before_value - 1e-9:
            continue
        if case is not None:
            ok = case_ok(case)
            why = (
                "expected.md and its reviewed line changed"
                if ok
                else "expected.md and the reviewed line of the case did not both change"
            )
        else:
            cases_old, cases_new = set(old.get("cases", {})), set(new.get("cases", {}))
            ok = cases_old != cases_new or any(case_ok(c) for c in sorted(cases_new & cases_old))
            why = (
                "cases were re-reviewed, added or removed"
                if ok
                else "no case was re-reviewed, added or removed"
            )
        found.append(Lowered(case, metric, before_value, after_value, ok, why))
    return found


def _floors_doc(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    doc: dict[str, Any] = json.loads(text)
    return doc


def floors_history() -> list[tuple[str, list[Lowered]]]:
    """The floor changes the floors-only-up rule judges, as (what was compared, the
    floors that went down):

    * the working tree's floors.json against HEAD's (an uncommitted re-pin);
    * every commit of HEAD's first-parent history that changed floors.json, against
      its parent, from the commit that introduced the rule on (floors.json
      ``"version": 2``; older commits are history the rule does not rewrite).

    In a shallow clone a commit whose parent was not fetched is judged only if it is
    HEAD, and then the parent is required (GitUnavailable says what to fetch); an
    older one was judged when it was HEAD. Raises GitUnavailable outside a git work
    tree: the rule needs the committed floors."""
    git("rev-parse", "--is-inside-work-tree")
    head = git("rev-parse", "HEAD").strip()
    shallow = git("rev-parse", "--is-shallow-repository").strip() == "true"
    checks: list[tuple[str, list[Lowered]]] = []
    committed = _floors_doc(read_at("HEAD", FLOORS))
    working = _floors_doc(read_at(None, FLOORS))
    if committed is not None and working is not None:
        checks.append(("working tree vs HEAD", lowered_floors(committed, working, "HEAD", None)))
    log = git("log", "--first-parent", "--format=%H", "--", rel(FLOORS)).split()
    for commit in log:
        child = _floors_doc(read_at(commit, FLOORS))
        if child is None or int(child.get("version", 1)) < FLOORS_VERSION:
            continue
        try:
            parent = git("rev-parse", "--verify", "--quiet", f"{commit}^1").strip()
        except GitUnavailable:
            parent = ""
        if not parent:
            if shallow and commit == head:
                raise GitUnavailable(
                    f"HEAD ({commit[:12]}) changed {rel(FLOORS)} but its parent is not in "
                    "this shallow clone: `git fetch --deepen=1` (or clone with history)"
                )
            continue  # the root commit, or beyond a shallow boundary (judged as HEAD)
        before = _floors_doc(read_at(parent, FLOORS))
        if before is None:
            continue  # floors.json added by this commit
        label = f"commit {commit[:12]} vs its parent {parent[:12]}"
        checks.append((label, lowered_floors(before, child, parent, commit)))
    return checks
