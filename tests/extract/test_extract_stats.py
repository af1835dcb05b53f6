"""The sentence-end test of `stats.measure` agrees with the vocabulary's pattern, and
`stats.remeasure` after removals gives exactly what a new `measure` gives."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.parse import parse_html
from webmd_spider.extract.stats import Element, TextStats, ends_sentence, measure, remeasure

PAGES = sorted((Path(__file__).parents[1] / "pages").glob("*/source.html"))

# the characters the pattern cares about, mixed with ordinary text
_ALPHABET = st.sampled_from(
    [
        *"ab .!?\"')]\n\t\u061f\u0964\u3002\uff01\uff1f\uff0c\u3001\u201d\u2019",
        *("\u3042", "\u4e00", "\uac00", "\u30ff", "\u9fff", "x"),
    ]
)


@given(st.text(alphabet=_ALPHABET, max_size=40))
def test_ends_sentence_is_the_vocabulary_pattern(text: str) -> None:
    assert ends_sentence(text) == (v.SENTENCE_END.search(text) is not None)


def test_ends_sentence_examples() -> None:
    assert ends_sentence("It works. Then")
    assert ends_sentence("Done!")
    assert not ends_sentence("version 1.2 of it")
    assert not ends_sentence("no punctuation at all")
    assert ends_sentence("\u65e5\u672c\u8a9e" * 4)  # twelve ideographs read as prose
    assert not ends_sentence("\u65e5\u672c\u8a9e" * 3)


def _same(a: TextStats, b: TextStats) -> None:
    assert a.elements == b.elements
    assert a.of == b.of
    assert a.paragraphs == b.paragraphs
    assert a.link_farms == b.link_farms


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_remeasure_after_removals_is_a_new_measure(page: Path) -> None:
    """Random elements of a golden page (and of its first <div> or <article>, as a
    content root would be) are removed as the boilerplate pass removes them; the
    numbers `remeasure` keeps and computes equal those of measuring the tree again."""
    for seed in range(5):
        root = parse_html(page.read_bytes(), None)
        assert root is not None
        old = measure(root)
        top = next(root.iter("article", "main"), None) if seed % 2 else None
        top = root if top is None else top
        inside: list[Element] = [e for e in top.iter(etree.Element) if e is not top]
        rng = random.Random(seed)
        touched: list[Element] = []
        for element in rng.sample(inside, k=min(len(inside), 1 + len(inside) // 10)):
            # one that went with an element removed before it still has its (detached)
            # parent: `remeasure` must skip that parent, as boilerplate removal can leave
            parent = element.getparent()
            assert parent is not None
            touched.append(parent)
            element.drop_tree()
        _same(remeasure(old, top, touched), measure(top))
