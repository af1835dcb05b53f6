"""The shortcuts of `boilerplate`'s class / id name rules give what the plain rules give."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.chrome_names import (
    NOT_CHROME,
    _chrome_name,
    _name_parts,
    _player_name,
    attr_verdict,
)

_NAME_SPLIT = re.compile(r"[\s\-_:./]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

_VOCABULARY = sorted(
    v.BOILERPLATE_WORDS
    | v.STRONG_BOILERPLATE_WORDS
    | v.PLAYER_WORDS
    | v.BOILERPLATE_NAMES
    | v.CONTENT_NAMES
    | v.CONTENT_WORDS
    | v.COMMENT_WORDS
)
_WORDS = st.one_of(
    st.sampled_from(_VOCABULARY),
    st.sampled_from(_VOCABULARY).map(str.title),
    st.sampled_from(_VOCABULARY).map(str.upper),
    st.sampled_from(sorted(v.QUALIFIER_WORDS)),
    st.sampled_from(["id", "1", "9", "x2", "nav2", "Nav", "K", "İ", "Σ", "é", "SQL", "aB"]),
    st.text(max_size=4),
)
_VALUES = st.builds(
    lambda words, seps: "".join(w + s for w, s in zip(words, seps, strict=False)),
    st.lists(_WORDS, min_size=1, max_size=5),
    st.lists(st.sampled_from(["", "-", "_", " ", ".", "/", ":", "  ", "\t"]), max_size=5),
)


@settings(max_examples=3000)
@given(_VALUES)
def test_name_parts_are_the_plain_split(value: str) -> None:
    plain = [w for part in _NAME_SPLIT.split(value) for w in _CAMEL.split(part) if w]
    assert _name_parts(value) == plain


@settings(max_examples=3000)
@given(_VALUES)
def test_chrome_name_is_verdict_or_player(value: str) -> None:
    _chrome_name.cache_clear()
    expected = attr_verdict(value) != NOT_CHROME or _player_name(value)
    assert _chrome_name(value) == expected
