"""A cheap language guess for pages that do not declare one (no ``<html lang>``).

Counts very common function words of a few languages in the first few thousand
characters of the extracted text. It only has to tell the big Latin-script languages
apart and say nothing when unsure; a page's own declaration always wins.
"""

from __future__ import annotations

import re
from collections import Counter

#: Frequent short function words; they make up a large share of any running text.
STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        [
            "the",
            "and",
            "of",
            "to",
            "in",
            "is",
            "that",
            "for",
            "it",
            "with",
            "as",
            "was",
            "on",
            "are",
            "be",
            "this",
            "by",
        ]
    ),
    "de": frozenset(
        [
            "der",
            "die",
            "und",
            "das",
            "ist",
            "nicht",
            "ein",
            "eine",
            "zu",
            "den",
            "mit",
            "sich",
            "auf",
            "für",
            "von",
        ]
    ),
    "fr": frozenset(
        [
            "le",
            "la",
            "les",
            "et",
            "des",
            "est",
            "une",
            "pour",
            "que",
            "dans",
            "qui",
            "sur",
            "pas",
            "du",
            "au",
            "avec",
        ]
    ),
    "es": frozenset(
        [
            "el",
            "la",
            "los",
            "las",
            "y",
            "que",
            "en",
            "es",
            "por",
            "una",
            "para",
            "con",
            "del",
            "se",
            "no",
            "al",
        ]
    ),
    "it": frozenset(
        [
            "il",
            "la",
            "che",
            "di",
            "è",
            "per",
            "un",
            "una",
            "non",
            "sono",
            "con",
            "del",
            "della",
            "gli",
            "le",
        ]
    ),
    "pt": frozenset(
        [
            "o",
            "a",
            "os",
            "as",
            "e",
            "que",
            "de",
            "não",
            "um",
            "uma",
            "para",
            "com",
            "do",
            "da",
            "em",
            "é",
        ]
    ),
    "nl": frozenset(
        [
            "de",
            "het",
            "een",
            "en",
            "van",
            "is",
            "dat",
            "niet",
            "op",
            "te",
            "met",
            "voor",
            "zijn",
            "er",
        ]
    ),
}
#: How much text is looked at, and how sure the guess must be.
SAMPLE_CHARS = 4000
MIN_HITS = 5
MIN_MARGIN = 1.5

_WORD = re.compile(r"[^\W\d_]+")
_ALL_STOPWORDS = frozenset().union(*STOPWORDS.values())
# str.lower() never makes a word shorter, so a word longer than every stop word
# cannot lower-case to one.
_LONGEST_STOPWORD = max(map(len, _ALL_STOPWORDS))
# Over the UTF-8 bytes of a sample: ASCII letters lower-cased, every other ASCII byte
# a space, the bytes of non-ASCII characters (0x80 and up) kept as they are.
_ASCII_WORDS = bytes(
    b + 32 if 65 <= b <= 90 else b if 97 <= b <= 122 or b >= 128 else 32 for b in range(256)
)
_ASCII_STOPWORDS = {w.encode("ascii"): w for w in _ALL_STOPWORDS if w.isascii()}
#: stop word -> the languages whose list holds it
_LANGUAGES_OF: dict[str, list[str]] = {
    w: [code for code, stop in STOPWORDS.items() if w in stop] for w in _ALL_STOPWORDS
}


def _stopword_counts(sample: str) -> dict[str, int]:
    """How often each stop word occurs in `sample` as a lower-cased word, a word being
    a run of letters (`_WORD`): the counts of ``Counter(w.lower() for w in
    _WORD.findall(sample))`` restricted to stop words.

    The regular expression costs over 100 ns a word, where the byte-level split below
    costs a tenth: after `_ASCII_WORDS`, a token made of ASCII letters only is one
    lower-cased word. A token holding non-ASCII bytes (a word with "é", or words joined
    by a "—") is decoded and split by `_WORD` itself; only such tokens are looked at one
    by one, and a pure-ASCII sample has none.
    """
    tokens = Counter(sample.encode("utf-8", "surrogatepass").translate(_ASCII_WORDS).split())
    # the stop words among the tokens: a set intersection, not a lookup per stop word
    counts = {_ASCII_STOPWORDS[raw]: tokens[raw] for raw in tokens.keys() & _ASCII_STOPWORDS}
    if sample.isascii():
        return counts
    for token, n in tokens.items():
        if token.isascii():
            continue
        for word in _WORD.findall(token.decode("utf-8", "surrogatepass")):
            if len(word) <= _LONGEST_STOPWORD:
                lower = word.lower()
                if lower in _ALL_STOPWORDS:
                    counts[lower] = counts.get(lower, 0) + n
    return counts


def guess_language(text: str) -> str | None:
    """An ISO 639-1 code for ``text``, or None when the text is short or ambiguous."""
    # each stop word of the sample scores for the languages that list it (a sample
    # without any stop word scores 0 everywhere: no guess, as for an empty one)
    totals = dict.fromkeys(STOPWORDS, 0)
    for word, n in _stopword_counts(text[:SAMPLE_CHARS]).items():
        for language in _LANGUAGES_OF[word]:
            totals[language] += n
    scores = sorted(((total, code) for code, total in totals.items()), reverse=True)
    (best, code), (second, _) = scores[0], scores[1]
    if best < MIN_HITS or best < MIN_MARGIN * second:
        return None
    return code
