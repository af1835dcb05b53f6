"""Scoring helpers of the golden page set (``tests/pages/<case>/``).

A case is a folder with ``source.html`` (the page, raw bytes), ``expected.md`` (the
ideal Markdown of its main content, written by hand) and ``expected.json``::

    {"url": "https://...",                       # the page URL given to extract()
     "fields": {"title": "...", ...},            # Document fields we are sure of
     "must_contain": ["```python", ...],         # substrings of the Markdown
     "must_not_contain": ["Accept cookies", ...],# chrome that must not be in it
     "xfail": ["field:title", "must_not_contain:Accept cookies"]}  # known failures

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
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

PAGES = Path(__file__).resolve().parent / "pages"
FLOORS = PAGES / "floors.json"
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
