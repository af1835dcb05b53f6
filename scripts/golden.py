#!/usr/bin/env python3

"""Manage the golden page set in tests/pages/ (see tests/golden.py for the metrics).

.venv/bin/python scripts/golden.py add CASE --url URL < page.html
    create tests/pages/CASE/ with source.html (stdin, bytes as given), a DRAFT
    expected.md from the CURRENT extractor and a draft expected.json without a
    "reviewed" line: the gate fails the case until a person has read source.html,
    rewritten expected.md into the ideal output and added the reviewed line
.venv/bin/python scripts/golden.py score [CASE ...] [--show-missing]
    per-case table: F1, precision, recall, structure recall, their floors, failed
    checks, and cases not yet reviewed
.venv/bin/python scripts/golden.py pin [--allow-lower]
    write tests/pages/floors.json = current scores rounded DOWN to 2 decimals (per
    case f1 and structure_recall, corpus means); refuses to lower an existing floor
    unless --allow-lower, and says for each lowered floor whether the floors-only-up
    test will accept it (only when that case's expected.md and reviewed line changed
    since HEAD); prints what changed
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.golden import (  # noqa: E402
    FLOORS,
    FLOORS_VERSION,
    PAGES,
    CaseResult,
    GitUnavailable,
    case_names,
    floor2,
    load_floors,
    load_spec,
    lowered_floors,
    mean,
    read_at,
    review_problem,
    run_case,
)

CASE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def cmd_add(args: argparse.Namespace) -> int:
    from webmd_spider.extract import extract

    if not CASE_NAME.match(args.case):
        print(f"case names are lower-case words joined by '-': {args.case!r}", file=sys.stderr)
        return 2
    folder = PAGES / args.case
    if folder.exists():
        print(f"{folder} already exists", file=sys.stderr)
        return 2
    body = sys.stdin.buffer.read()
    if not body.strip():
        print("give the page HTML on stdin: scripts/golden.py add CASE --url URL < page.html",
              file=sys.stderr)  # fmt: skip
        return 2
    doc = extract(body, args.url)
    folder.mkdir(parents=True)
    (folder / "source.html").write_bytes(body)
    (folder / "expected.md").write_text(doc.markdown.rstrip("\n") + "\n", encoding="utf-8")
    fields = {
        name: getattr(doc, name)
        for name in ("title", "author", "published_at", "language")
        if getattr(doc, name)
    }
    spec = {"url": args.url, "fields": fields, "must_contain": [], "must_not_contain": [],
            "xfail": []}  # fmt: skip
    (folder / "expected.json").write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n")
    print(f"created {folder.relative_to(REPO)}/ (source.html, expected.md, expected.json)")
    print("expected.md is a DRAFT of today's extractor output, and the gate fails the case")
    print("until it is reviewed: open source.html, find the main content as a reader sees it,")
    print("rewrite expected.md into the IDEAL Markdown under the rules of tests/pages/README.md")
    print("and docs/EXTRACTION.md (not what the extractor gives), keep only the fields you are")
    print("sure of, add must_contain and must_not_contain snippets, list what fails today under")
    print('xfail, add "reviewed": "YYYY-MM-DD: read source.html; <what you checked and changed>"')
    print("to expected.json, then run `scripts/golden.py score` and `scripts/golden.py pin`.")
    return 0


def _results(names: list[str]) -> list[CaseResult]:
    unknown = sorted(set(names) - set(case_names()))
    if unknown:
        raise SystemExit(f"unknown case(s): {', '.join(unknown)}")
    return [run_case(name) for name in names]


def cmd_score(args: argparse.Namespace) -> int:
    results = _results(args.cases or case_names())
    floors = load_floors().get("cases", {})
    width = max(len(r.name) for r in results)
    print(f"{'case':<{width}}   F1     P      R    struct  floors     failed checks")
    for r in results:
        floor = floors.get(r.name, {}).get("f1")
        sfloor = floors.get(r.name, {}).get("structure_recall")
        below = [
            label
            for label, score, limit in (("F1", r.f1, floor), ("STRUCT", r.structure_recall, sfloor))
            if limit is not None and score < limit - 1e-9
        ]
        mark = f" BELOW {'+'.join(below)} FLOOR" if below else ""
        floor_s = "  -  " if floor is None else f"{floor:.2f} "
        floor_s += " -   " if sfloor is None else f"{sfloor:.2f} "
        failed = ", ".join(
            f"{c}{' (xfail)' if c in r.xfail else ''}" for c in r.failed
        )  # fmt: skip
        xpass = ", ".join(f"XPASS {c}" for c in r.unexpected_passes)
        unreviewed = " NOT REVIEWED" if review_problem(load_spec(r.name)) else ""
        print(
            f"{r.name:<{width}}  {r.f1:.3f}  {r.precision:.3f}  {r.recall:.3f}  "
            f"{r.structure_recall:.3f}  {floor_s}{mark}{unreviewed} {failed}"
            f"{' ' + xpass if xpass else ''}"
        )
        if args.show_missing and r.structure_missing:
            for miss in r.structure_missing:
                print(f"{'':<{width}}    structure miss: {miss}")
    print(
        f"{'MEAN':<{width}}  {mean([r.f1 for r in results]):.3f}  "
        f"{mean([r.precision for r in results]):.3f}  {mean([r.recall for r in results]):.3f}  "
        f"{mean([r.structure_recall for r in results]):.3f}"
    )
    return 0


def cmd_pin(args: argparse.Namespace) -> int:
    results = _results(case_names())
    old = load_floors()
    new: dict[str, Any] = {
        "version": FLOORS_VERSION,
        "mean_f1": floor2(mean([r.f1 for r in results])),
        "mean_structure_recall": floor2(mean([r.structure_recall for r in results])),
        "cases": {
            r.name: {"f1": floor2(r.f1), "structure_recall": floor2(r.structure_recall)}
            for r in results
        },
    }
    changes: list[str] = []
    lowered: list[str] = []

    def compare(label: str, before: float | None, after: float) -> None:
        if before is None:
            changes.append(f"  {label}: new floor {after:.2f}")
        elif after > before:
            changes.append(f"  {label}: {before:.2f} -> {after:.2f} (raised)")
        elif after < before:
            lowered.append(f"  {label}: {before:.2f} -> {after:.2f} (LOWER)")

    had_file = FLOORS.is_file()
    for key in ("mean_f1", "mean_structure_recall"):
        compare(key, old.get(key) if had_file else None, new[key])
    for name, floor in new["cases"].items():
        for metric in ("f1", "structure_recall"):
            before = old.get("cases", {}).get(name, {}).get(metric)
            compare(f"{name} {metric}", before, floor[metric])
    removed = sorted(set(old.get("cases", {})) - set(new["cases"]))
    changes += [f"  {name}: case removed, floor dropped" for name in removed]
    if lowered:
        print("floors only go up: a floor may go down only where the case's expected.md and")
        print("its reviewed line both changed (tests/extract/test_golden_floors.py), against HEAD:")
        try:
            head_text = read_at("HEAD", FLOORS)
            head = json.loads(head_text) if head_text else old
            for item in lowered_floors(head, new, "HEAD", None):
                print(f"  {item}")
        except GitUnavailable as exc:
            print(f"  (cannot read HEAD: {exc})")
    if lowered and not args.allow_lower:
        print("refusing to lower floors (pass --allow-lower if this is intended):")
        print("\n".join(lowered + [c for c in changes if "case removed" in c]))
        return 1
    if not had_file and not changes:
        changes.append("  (all new)")
    FLOORS.write_text(json.dumps(new, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {FLOORS.relative_to(REPO)}")
    print("\n".join(changes + lowered) if changes or lowered else "  no floor changed")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="create a draft case from stdin and the current extractor")
    add.add_argument("case")
    add.add_argument("--url", required=True, help="the page URL (links resolve against it)")
    score = sub.add_parser("score", help="print the per-case scores")
    score.add_argument("cases", nargs="*")
    score.add_argument("--show-missing", action="store_true", help="list structure misses")
    pin = sub.add_parser("pin", help="write floors.json from the current scores")
    pin.add_argument("--allow-lower", action="store_true")
    args = parser.parse_args(argv)
    return {"add": cmd_add, "score": cmd_score, "pin": cmd_pin}[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
