"""The run context (webmd_spider/run_context.py): resume claims, the accessor, and the
rule that no component reads the spider's attributes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from webmd_spider.policy.robots import RobotsRules
from webmd_spider.rows.ledger import RunLedger, SiteState
from webmd_spider.run_context import (
    MissingRunContext,
    ResumeClaims,
    RunContext,
    attach,
    run_context,
)
from webmd_spider.state.journal import CrawlJournal
from webmd_spider.urls import canonicalize

PACKAGE = Path(__file__).resolve().parent.parent / "webmd_spider"


class _Crawler:
    """Any object the context can be attached to (the real one is a Scrapy Crawler)."""


def test_the_accessor_returns_the_attached_context_and_refuses_a_crawler_without_one() -> None:
    crawler, other = _Crawler(), _Crawler()
    context = RunContext()
    attach(crawler, context)
    assert run_context(crawler) is context
    with pytest.raises(MissingRunContext, match="scrapy crawl site"):
        run_context(other)
    with pytest.raises(MissingRunContext):
        run_context(None)  # not even a crawler


def test_claims_without_a_journal_admit_everything() -> None:
    claims = ResumeClaims()
    meta = {"webmd_url": "https://example.com/a"}
    assert claims.admit(meta) is None
    assert "webmd_claim" not in meta  # nothing to claim without JOBDIR


def test_claims_refuse_a_page_done_before_and_the_second_copy_of_a_queued_one(
    tmp_path: Path,
) -> None:
    CrawlJournal(tmp_path).finish(canonicalize("https://example.com/done"), "page")
    claims = ResumeClaims(CrawlJournal(tmp_path), "run1")  # the resumed run reads it
    assert claims.admit({"webmd_url": "https://example.com/done"}) == (
        "duplicate:done in an earlier run"
    )
    first = {"webmd_url": "https://example.com/b"}
    second = {"webmd_url": "https://example.com/b#frag"}  # the same page, canonically
    assert claims.admit(first) is None
    assert first["webmd_claim"].startswith("run1-")
    assert claims.admit(dict(first)) is None  # a retry or redirect keeps its claim
    assert claims.admit(second) == "duplicate:queued twice on resume"
    assert claims.new_claim() != claims.new_claim()


def test_robots_known_waits_for_every_running_website() -> None:
    ledger = RunLedger()
    ledger.add_site(SiteState("a.example", "a.example", "site"))
    ledger.add_site(SiteState("b.example", "b.example", "site"))
    context = RunContext(ledger=ledger)
    assert not context.robots_known()
    context.robots["a.example"] = RobotsRules.allow_all()
    assert not context.robots_known()
    ledger.sites["b.example"].stop_reason = "unreachable"  # a stopped one needs no rules
    assert context.robots_known()


def _spider_attribute_reads(tree: ast.AST) -> list[str]:
    """`getattr(<...spider>, "name")` and `<...>.spider.<name>` in one module, but the
    spider's own Scrapy attributes (`crawler`, `name`, `settings`, `logger`)."""
    allowed = {"crawler", "name", "settings", "logger"}

    def is_spider(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id == "spider") or (
            isinstance(node, ast.Attribute) and node.attr == "spider"
        )

    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and node.args
            and is_spider(node.args[0])
        ):
            found.append(f"line {node.lineno}: getattr(spider, ...)")
        elif isinstance(node, ast.Attribute) and is_spider(node.value) and node.attr not in allowed:
            found.append(f"line {node.lineno}: spider.{node.attr}")
    return found


def test_no_component_reads_the_spiders_attributes() -> None:
    """Components share state through the run context only (issue 17): a renamed
    spider attribute must not silently turn a component off. The spiders' own package
    is the one place where the spider's attributes are read."""
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "spiders" in path.relative_to(PACKAGE).parts:
            continue
        reads = _spider_attribute_reads(ast.parse(path.read_text("utf-8")))
        if reads:
            offenders[str(path.relative_to(PACKAGE))] = reads
    assert offenders == {}


def test_the_attribute_check_finds_both_spellings() -> None:
    code = "x = getattr(self.crawler.spider, 'ledger', None)\ny = spider.fleet\nz = spider.crawler"
    assert _spider_attribute_reads(ast.parse(code)) == [
        "line 1: getattr(spider, ...)",
        "line 2: spider.fleet",
    ]
