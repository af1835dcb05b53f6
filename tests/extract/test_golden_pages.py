"""The golden page set (``tests/pages/<case>/``): extraction quality gate.

Per case: expected.json carries a ``reviewed`` line (a person read source.html and
wrote expected.md from it; ``scripts/golden.py add`` drafts cases without one, which
fail here), and every field / must_contain / must_not_contain check passes, except the
ones listed in its ``xfail`` (strict: a listed check that passes fails the test, so the
list only shrinks). Scores: per-case shingle F1 and structure recall, and the corpus
means of both, must not fall below ``tests/pages/floors.json``, which covers every case
and is written by ``scripts/golden.py pin``; that floors only go up is
``tests/extract/test_golden_floors.py``. See ``tests/golden.py`` for the metrics and
``tests/pages/README.md`` for the format.
"""

from __future__ import annotations

from functools import cache

import pytest

from ..golden import (
    CASE_METRICS,
    FLOORS,
    FLOORS_VERSION,
    CaseResult,
    case_names,
    load_floors,
    load_spec,
    mean,
    review_problem,
    run_case,
)

CASES = case_names()
EPS = 1e-9
PIN_HINT = (
    "run `python scripts/golden.py score --show-missing`; a floor goes down only with a "
    "corrected, re-reviewed expected.md (`... pin --allow-lower`, tests/pages/README.md)"
)


@cache
def result(name: str) -> CaseResult:
    return run_case(name)


def test_required_cases_exist() -> None:
    required = {
        *("news-article", "blog-with-comments", "docs-tabbed-code", "reference-tables"),
        *("forum-thread", "listing-cards", "content-header-div", "cookie-banner"),
        "xhtml-xml-declaration",
    }
    assert required <= set(CASES), sorted(required - set(CASES))


def test_floors_cover_every_case() -> None:
    assert FLOORS.is_file(), "tests/pages/floors.json is missing: run `scripts/golden.py pin`"
    floors = load_floors()
    missing = sorted(set(CASES) - set(floors.get("cases", {})))
    stale = sorted(set(floors.get("cases", {})) - set(CASES))
    assert not missing, (
        f"cases without a floor in floors.json: {missing} (run scripts/golden.py pin)"
    )
    assert not stale, f"floors.json names cases that do not exist: {stale}"
    for key in ("mean_f1", "mean_structure_recall"):
        assert isinstance(floors.get(key), int | float), f"floors.json lacks {key}"
    assert floors.get("version") == FLOORS_VERSION, "floors.json is not version 2: re-pin"
    lacking = sorted(
        f"{name} {metric}"
        for name, entry in floors["cases"].items()
        for metric in CASE_METRICS
        if not isinstance(entry.get(metric), int | float)
    )
    assert not lacking, f"floors.json lacks per-case floors: {lacking} (scripts/golden.py pin)"


@pytest.mark.parametrize("name", CASES)
def test_case_files_are_well_formed(name: str) -> None:
    spec = load_spec(name)
    assert isinstance(spec.get("url"), str) and spec["url"].startswith("http"), spec.get("url")
    allowed = {"url", "fields", "must_contain", "must_not_contain", "xfail", "notes", "reviewed"}
    assert set(spec) <= allowed, sorted(set(spec) - allowed)
    assert result(name).unknown_xfails == [], "xfail ids that name no check of this case"


@pytest.mark.parametrize("name", CASES)
def test_case_reviewed(name: str) -> None:
    """A case is an expectation only once a person has read its page: the draft that
    `scripts/golden.py add` writes (today's extractor output) is refused until then."""
    problem = review_problem(load_spec(name))
    assert problem is None, (
        f"{name}: {problem}. Read tests/pages/{name}/source.html, correct expected.md to "
        'the page, then add "reviewed": "YYYY-MM-DD: read source.html; <what was checked '
        'and changed>" to expected.json (tests/pages/README.md)'
    )


@pytest.mark.parametrize("name", CASES)
def test_case_checks(name: str) -> None:
    """Fields and must/must-not checks; the xfail list is strict both ways."""
    res = result(name)
    problems = [f"FAIL {check}: {why}" for check, why in res.unexpected_failures.items()]
    problems += [
        f"XPASS {check}: passes now, remove it from xfail" for check in res.unexpected_passes
    ]
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("name", CASES)
def test_case_f1_floor(name: str) -> None:
    floor = load_floors().get("cases", {}).get(name, {}).get("f1")
    if floor is None:
        pytest.fail(f"{name} has no floor in floors.json (run scripts/golden.py pin)")
    res = result(name)
    assert res.f1 >= floor - EPS, f"{name}: F1 {res.f1:.4f} < floor {floor}; {PIN_HINT}"


@pytest.mark.parametrize("name", CASES)
def test_case_structure_floor(name: str) -> None:
    floor = load_floors().get("cases", {}).get(name, {}).get("structure_recall")
    if floor is None:
        pytest.fail(f"{name} has no structure_recall floor (run scripts/golden.py pin)")
    res = result(name)
    assert res.structure_recall >= floor - EPS, (
        f"{name}: structure recall {res.structure_recall:.4f} < floor {floor} "
        f"(missing: {res.structure_missing[:5]}); {PIN_HINT}"
    )


def test_corpus_means_floor() -> None:
    floors = load_floors()
    results = [result(name) for name in CASES]
    mean_f1 = mean([r.f1 for r in results])
    mean_sr = mean([r.structure_recall for r in results])
    assert mean_f1 >= floors["mean_f1"] - EPS, f"mean F1 {mean_f1:.4f} < {floors['mean_f1']}"
    assert mean_sr >= floors["mean_structure_recall"] - EPS, (
        f"mean structure recall {mean_sr:.4f} < {floors['mean_structure_recall']}"
    )
