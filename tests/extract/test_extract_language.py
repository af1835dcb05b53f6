"""`languages.guess_language` counts stop words exactly as lower-casing every word of
the sample would (its byte-level fast path against the plain definition)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webmd_spider.extract.languages import (
    _ALL_STOPWORDS,
    MIN_HITS,
    MIN_MARGIN,
    SAMPLE_CHARS,
    STOPWORDS,
    _stopword_counts,
    guess_language,
)

_WORD = re.compile(r"[^\W\d_]+")


def _reference_counts(sample: str) -> dict[str, int]:
    counts = Counter(w.lower() for w in _WORD.findall(sample))
    return {w: n for w, n in counts.items() if w in _ALL_STOPWORDS}


_STOP = sorted(_ALL_STOPWORDS)
_PIECES = st.one_of(
    st.sampled_from(_STOP),
    st.sampled_from(_STOP).map(str.upper),
    st.sampled_from(_STOP).map(str.title),
    st.sampled_from(
        [" ", "  ", "\n", "\t", ",", ".", "—", "\xa0", "_", "1", "x1", "é", "É", "ß", "İ", "Σ"]
    ),
    st.sampled_from(["ΟΔΟΣ", "\u0301", "中文", "\ud800", "½", "²", "Ⅻ", "\x7f", "K"]),
    st.text(max_size=4),
)


@settings(max_examples=2000)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_stopword_counts_are_the_lowercased_word_counts(sample: str) -> None:
    assert _stopword_counts(sample) == _reference_counts(sample)


def _reference_guess(text: str) -> str | None:
    counts = Counter(w.lower() for w in _WORD.findall(text[:SAMPLE_CHARS]))
    if not counts:
        return None
    scores = sorted(
        ((sum(counts[w] for w in stop if w in counts), code) for code, stop in STOPWORDS.items()),
        reverse=True,
    )
    (best, code), (second, _) = scores[0], scores[1]
    if best < MIN_HITS or best < MIN_MARGIN * second:
        return None
    return code


@settings(max_examples=500)
@given(st.lists(_PIECES, max_size=60).map(" ".join))
def test_guess_language_matches_the_plain_definition(text: str) -> None:
    assert guess_language(text) == _reference_guess(text)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("The cat and the dog of the house is in the garden, and that is it.", "en"),
        ("Der Hund und die Katze sind in dem Haus, und das ist nicht gut für die Maus.", "de"),
        ("", None),
        ("12345 ___ !!!", None),
    ],
)
def test_guess_language_examples(text: str, code: str | None) -> None:
    assert guess_language(text) == code == _reference_guess(text)
