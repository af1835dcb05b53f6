"""The loss audit (issue 30 item 4): exact counts of what extraction removed.

The property: for every golden page, the elements of each kind that the content root
held when the page was parsed equal those still in the rendered root plus those the
audit counted as removed (or moved to the title). It is checked against the source
itself: every element of the page is stamped with its number before extraction, the
returned HTML names the content root by its stamp, and the root's subtree is counted
in the stamped source, independently of the audit.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import lxml.html
import pytest
from lxml import etree

from tests.golden import PAGES
from webmd_spider.extract import ExtractOptions, extract
from webmd_spider.extract.audit import KIND_OF_TAG, KINDS, MOVED_RULES

STAMP = "data-audit-n"
CASES = sorted(p.name for p in PAGES.iterdir() if (p / "source.html").is_file())


def _stamped(source: bytes) -> tuple[str, dict[str, lxml.html.HtmlElement]]:
    """The page with every element numbered, and number -> element of that tree."""
    tree = lxml.html.document_fromstring(source)
    numbered = {}
    for number, element in enumerate(tree.iter(etree.Element)):
        element.set(STAMP, str(number))
        numbered[str(number)] = element
    return lxml.html.tostring(tree, encoding="unicode"), numbered


def _kinds(element: lxml.html.HtmlElement) -> Counter[str]:
    counts: Counter[str] = Counter()
    for node in element.iter(*KIND_OF_TAG):
        counts[KIND_OF_TAG[node.tag]] += 1
    return counts


def _kept_kinds(
    root: lxml.html.HtmlElement, numbered: dict[str, lxml.html.HtmlElement]
) -> Counter[str]:
    """The source elements still under the rendered root, by their tag in the source
    (a renderer's rewrite, a DocBook contents ``<dt>`` turned into a list item, is the
    same element kept); elements the extractor made itself carry no stamp."""
    counts: Counter[str] = Counter()
    for node in root.iter(etree.Element):
        source = numbered.get(node.get(STAMP) or "")
        if source is not None and source.tag in KIND_OF_TAG:
            counts[KIND_OF_TAG[source.tag]] += 1
    return counts


@pytest.mark.parametrize("case", CASES)
def test_removed_plus_kept_equals_held(case: str) -> None:
    folder = PAGES / case
    url = "https://example.org/page.html"
    html, numbered = _stamped((folder / "source.html").read_bytes())
    doc = extract(html, url, options=ExtractOptions(include_html=True))
    assert doc.removed is not None and doc.html
    kept_root = lxml.html.fragment_fromstring(doc.html)
    held = _kinds(numbered[kept_root.get(STAMP)])
    kept = _kept_kinds(kept_root, numbered)
    moved = Counter(doc.removed["moved"])
    for kind in KINDS:
        assert held[kind] == kept[kind] + doc.removed[kind] + moved[kind], (case, kind)
    assert doc.removed["blocks"] == sum(1 for b in doc.removed_blocks if b[1] not in MOVED_RULES)


KNOWN = """<html><head><title>Known removals</title></head><body>
<nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>
<article>
<h1>Known removals</h1>
<p>The first paragraph of the article holds enough words to be the text of the page,
and it says what the test is about: every removal is counted.</p>
<div class="share-buttons"><a href="https://x.example/share">Share on X</a>
<a href="https://fb.example/share">Share on Facebook</a></div>
<p>The second paragraph goes on with more words, so that the article is long enough
to be chosen as the content root of this page without any doubt at all.</p>
<p style="display:none">A hidden paragraph that a script would show later.</p>
<pre>print("a code block stays")</pre>
<form action="/subscribe"><p>Subscribe</p><input name="email"><button>Go</button></form>
<p>The third paragraph ends the text of the article with a few more words.</p>
<section class="related-posts"><h2>Related posts</h2><ul>
<li><a href="/a">Another post about counting</a></li>
<li><a href="/b">A post about removals</a></li>
<li><a href="/c">A post about audits</a></li></ul></section>
</article>
<footer><p>Copyright 2026</p></footer>
</body></html>"""


def test_known_blocks_counted_exactly() -> None:
    doc = extract(KNOWN, "https://example.org/known.html")
    removed = doc.removed
    assert removed is not None
    rules = removed["by_rule"]
    # the hidden paragraph, the form (a paragraph and two controls), the share box and
    # the related list (a heading, three items) went; the title heading moved
    assert rules["hidden"] == {"blocks": 1, "chars": 50, "paragraph": 1}
    assert rules["small-form"]["paragraph"] == 1
    assert removed["heading"] == 1 and removed["list_item"] == 3
    assert removed["paragraph"] == 2 and removed["code"] == 0
    assert removed["moved"] == {"heading": 1}
    assert 'print("a code block stays")' in doc.markdown
    assert "Related posts" not in doc.markdown and "hidden paragraph" not in doc.markdown
    assert removed["chars"] == sum(r["chars"] for r in rules.values())
    assert removed["blocks"] == sum(r["blocks"] for r in rules.values())
    # nav and footer are outside the content root: not the audit's business
    assert all("Copyright" not in preview for _, _, preview in doc.removed_blocks)


def _explain(page: Path) -> list[str]:
    """The lines ``webmd convert --explain PAGE`` prints (it must exit 0)."""
    done = subprocess.run(
        [sys.executable, "-m", "webmd_spider.cli", "convert", "--explain", str(page)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_convert_explain_lists_removed_blocks(tmp_path: Path) -> None:
    page = tmp_path / "known.html"
    page.write_text(KNOWN)
    lines = _explain(page)
    assert any(line.split()[:2] == ["paragraph", "hidden"] for line in lines)
    assert any("Related posts" in line for line in lines)
    assert lines[-1].startswith("removed: heading 1,")


def test_convert_explain_on_a_golden_page() -> None:
    page = PAGES / "gen-rustdoc-impls" / "source.html"
    lines = _explain(page)
    # the source links and version badges rustdoc puts beside every member
    widgets = [line for line in lines if line.split()[1:2] == ["widget"]]
    assert any("source" in line for line in widgets) and len(widgets) >= 10
    doc = extract(page.read_bytes(), "https://docs.example.org/x.html")
    assert doc.removed is not None
    assert lines[-1] == "removed: " + ", ".join(
        f"{k} {v}" for k, v in doc.removed.items() if isinstance(v, int)
    )


def test_audit_moved_to_a_copy_counts_the_removals_made_before_and_on_it() -> None:
    """A step that rewrites a copy of the page and keeps it (the cards profile on the
    model's word) hands the audit over: a removal noted on the page before the copy
    and one made on the copy are both counted under the copy's root, and a removal
    outside that root is not."""
    import copy

    from webmd_spider.extract.audit import LossAudit, counterparts

    page = lxml.html.fromstring(
        "<html><body><div id=main><p>kept text</p><p id=early>removed early</p>"
        "<ul><li id=late>removed on the copy</li><li>kept</li></ul></div>"
        "<nav><p id=chrome>menu</p></nav></body></html>"
    )
    audit = LossAudit()
    for name in ("early", "chrome"):
        element = page.get_element_by_id(name)
        audit.note(element, "early-rule")
        element.drop_tree()
    copied = copy.deepcopy(page)
    moved = counterparts(page, copied)
    later = LossAudit()
    late = copied.get_element_by_id("late")
    later.note(late, "late-rule")
    late.drop_tree()
    audit.moved_to(moved, later)
    losses = audit.settle(copied.get_element_by_id("main"))
    assert [(r.rule, r.kind, r.preview) for r in losses.removals] == [
        ("early-rule", "paragraph", "removed early"),
        ("late-rule", "list_item", "removed on the copy"),
    ]
