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


def guess_language(text: str) -> str | None:
    """An ISO 639-1 code for ``text``, or None when the text is short or ambiguous."""
    counts = Counter(w.lower() for w in _WORD.findall(text[:SAMPLE_CHARS]))
    if not counts:
        return None
    # a dozen stop words per language looked up in the sample's counts, rather than
    # every word of the sample tested against every language
    scores = sorted(
        ((sum(counts[w] for w in stop if w in counts), code) for code, stop in STOPWORDS.items()),
        reverse=True,
    )
    (best, code), (second, _) = scores[0], scores[1]
    if best < MIN_HITS or best < MIN_MARGIN * second:
        return None
    return code
