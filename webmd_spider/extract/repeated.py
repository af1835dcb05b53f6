"""Short paragraphs repeated across a website (option ``remove_repeated_blocks``).

A banner, a notice or a boilerplate sentence that a site repeats on every page inside
the content root ("This documentation is for an old version", "Last updated ...") is
the site's, not the page's. With the option on, a crawl counts on how many pages of one
website each short paragraph appeared; once a paragraph has been seen on
`REPEATED_MIN_PAGES` earlier pages, the next pages leave it out (issue 30 item 5).

Only top-level paragraphs of at most `REPEATED_MAX_CHARS` characters are counted and
dropped: headings, code blocks, tables and list items never are, and a paragraph's
words inside a code block or a table are another block. The page's ``content_hash`` is
taken before the drop, so that it is a function of the page alone, not of the order the
crawl met the website's pages in.

Pure: standard library only.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable

#: A paragraph this long or shorter is a candidate (a banner line, not a section's text).
REPEATED_MAX_CHARS = 200
#: Seen verbatim on this many earlier pages of the website, a paragraph is dropped.
REPEATED_MIN_PAGES = 3
#: The counter of one website keeps at most this many distinct paragraphs: a bound on
#: memory over a site of millions of pages (new paragraphs past it are not counted).
MAX_TRACKED_PARAGRAPHS = 200_000


def paragraph_key(text: str) -> str:
    """The identity of a paragraph's text: a digest of its words, whitespace-normalised
    (16 hex characters: a website's paragraphs do not collide in practice)."""
    words = " ".join(text.split())
    return hashlib.blake2b(words.encode("utf-8"), digest_size=8).hexdigest()


class RepeatedParagraphs:
    """The short paragraphs of one website's pages, counted once per page."""

    __slots__ = ("_pages", "_repeated")

    def __init__(self) -> None:
        self._pages: Counter[str] = Counter()
        self._repeated: frozenset[str] = frozenset()

    def repeated(self) -> frozenset[str]:
        """The keys seen on `REPEATED_MIN_PAGES` pages or more: what the next page drops."""
        return self._repeated

    def add_page(self, keys: Iterable[str]) -> None:
        """Count a page's paragraph keys (each once, however often the page repeats it)."""
        grown = []
        for key in set(keys):
            if key not in self._pages and len(self._pages) >= MAX_TRACKED_PARAGRAPHS:
                continue
            self._pages[key] += 1
            if self._pages[key] == REPEATED_MIN_PAGES:
                grown.append(key)
        if grown:
            self._repeated = self._repeated.union(grown)
