"""The sentence-end test of `stats.measure` agrees with the vocabulary's pattern."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.stats import ends_sentence

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
