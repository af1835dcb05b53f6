"""Markdown (or plain text) given to ``webmd convert``: told from HTML, then passed
through as a page.

Pure module: no Scrapy or Twisted. The input's Markdown *is* the row's ``markdown`` (a
Markdown file is not re-rendered: reference links, fences and spacing stay as
written; a ``max_chars`` cut ends at a top-level block). Everything else a page row
holds (``text``, ``headings``, ``links``, ``images``, ``tables``, the word counts) is
read from the Markdown rendered to HTML by markdown-it-py (CommonMark, with GFM
tables and strikethrough) and passed through ``extract()`` on the whole body, so a
Markdown page's columns mean what an HTML page's mean. ``title`` is the first
heading's text (else a YAML front matter ``title:``); ``extraction_method`` is
``"markdown"``.
"""

from __future__ import annotations

import dataclasses
import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from webmd_spider.documents.detect import MARKDOWN
from webmd_spider.documents.result import Converted
from webmd_spider.extract import Document, ExtractOptions, extract
from webmd_spider.extract.markdown import markdown_hash

#: A YAML front matter block at the very start (Jekyll, Hugo, MkDocs...).
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_FRONT_FIELD = re.compile(r"^(title|description)[ \t]*:[ \t]*(.+?)[ \t]*$", re.MULTILINE)
_PARSER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def decode(body: bytes, encoding: str | None = None) -> str:
    """The text of Markdown bytes: ``encoding`` when given, else UTF-8 (a BOM dropped);
    undecodable bytes become U+FFFD. Line ends become ``\\n``."""
    text = body.decode(encoding or "utf-8-sig", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def convert_markdown(
    body: bytes | str, url: str, options: ExtractOptions | None = None
) -> Converted:
    """Convert Markdown text (bytes are read as UTF-8) found at ``url`` (``""``: no
    base, relative links stay as written) to a document of kind ``"markdown"`` (see
    the module docstring). The content options apply to the columns read from the
    rendered HTML (``keep_links`` and ``keep_images`` to ``links`` and ``images``; the
    Markdown itself is passed through as written) and ``max_chars`` cuts the Markdown
    at a top-level block boundary (``truncated``, ``word_count`` of the part kept,
    ``total_words`` of the whole). Input without text gives a document whose
    ``error`` says so. Never raises for any input."""
    options = options or ExtractOptions()
    text = decode(body) if isinstance(body, bytes) else body.replace("\r\n", "\n")
    front, markdown = _split_front_matter(text)
    markdown = markdown.strip("\n").rstrip()
    lines = markdown.split("\n")
    tokens = _PARSER.parse(markdown)
    kept = _cut(markdown, lines, tokens, options.max_chars)
    doc = _read(kept, url, options)
    whole = doc if kept == markdown else _read(markdown, url, options)
    doc.markdown = kept
    doc.truncated = kept != markdown
    doc.total_words = whole.word_count
    doc.char_count = len(kept)
    doc.content_hash = markdown_hash(markdown) if markdown else ""
    doc.extraction_method = MARKDOWN
    doc.title = _first_heading(tokens) or front.get("title") or None
    doc.description = front.get("description") or doc.description
    doc.boilerplate_ratio = 0.0  # nothing was removed: the file is all content
    doc.html = _PARSER.render(kept) if options.include_html else None
    if not doc.total_words:
        doc.error = "the Markdown holds no text"
    return Converted(MARKDOWN, doc)


def _split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """(its ``title`` and ``description``, the Markdown after it) of a text that opens
    with a YAML front matter block; ``({}, text)`` for one that does not. Only plain
    one-line ``key: value`` fields are read (no YAML parser for two strings)."""
    match = _FRONT_MATTER.match(text)
    if match is None:
        return {}, text
    found = {key: value.strip("'\"") for key, value in _FRONT_FIELD.findall(match.group(1))}
    return found, text[match.end() :]


def _read(markdown: str, url: str, options: ExtractOptions) -> Document:
    """The columns of ``markdown`` as an HTML page's: rendered, then extracted whole (no
    content root to look for: the file is the content)."""
    html = f"<html><body>{_PARSER.render(markdown)}</body></html>"
    whole_page = dataclasses.replace(options, main_content_only=False, max_chars=0)
    return extract(html.encode("utf-8"), url, encoding="utf-8", options=whole_page)


def _cut(markdown: str, lines: list[str], tokens: list[Token], max_chars: int) -> str:
    """``markdown`` cut to at most ``max_chars`` characters (0: whole) before a
    top-level block (markdown-it's line map); a first block longer than the limit is
    cut inside, at a line end when there is one."""
    if not max_chars or len(markdown) <= max_chars:
        return markdown
    starts = [0]  # the character offset of each line
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    best = ""
    for token in tokens:
        if token.level != 0 or not token.map or token.map[0] == 0:
            continue
        head = markdown[: starts[token.map[0]]].rstrip()
        if len(head) > max_chars:
            break
        best = head
    if best:
        return best
    part = markdown[:max_chars]
    return (part.rsplit("\n", 1)[0] if "\n" in part else part).rstrip()


def _first_heading(tokens: list[Token]) -> str | None:
    """The plain text of the first heading (ATX ``#`` or setext), spaces collapsed;
    None when there is none."""
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and index + 1 < len(tokens):
            children = tokens[index + 1].children or []
            words = "".join(c.content for c in children if c.type in ("text", "code_inline"))
            title = " ".join(words.split())
            if title:
                return title
    return None
