"""The chosen content region (an lxml element) as Markdown and as plain text.

`render()` walks the region once (see renderer.py) and returns both renderings
plus the headings, links, images and data tables of the region. Markdown and
text hold the same words: text is the Markdown minus its syntax (no URLs,
markers, fences or pipes; code verbatim; image alt text only in Markdown).

Conventions of the Markdown: ATX headings, "-" bullets, "1." numbers, fenced
code (backticks, longer than any backtick run inside, language from the
usual class names), GFM pipe tables with spans expanded by repetition (within
a budget: `tables.bound_repeats`), "<br>" inside table cells, backslash hard
breaks, "*" emphasis, "**" strong, "~~" strikethrough (adjacent runs of one
kind merged, edge punctuation moved outside the markers where CommonMark would
not read them as markers: `inline.open_emphasis`); escaping only where
Markdown would misread the text.
Code blocks keep their whitespace exactly; outside them there is never more
than one blank line in a row.

`to_markdown`, `to_text` and `truncate_blocks` are small conveniences over
`render()` (one region to one string); `extract()` uses `render()` itself.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

import lxml.html
from lxml import etree

from webmd_spider.extract.document import Heading, Image, Link
from webmd_spider.extract.render_boxes import PARA, Block, join_blocks, separator
from webmd_spider.extract.renderer import Renderer
from webmd_spider.extract.repeated import REPEATED_MAX_CHARS, paragraph_key


@dataclass(slots=True)
class Rendered:
    """Everything `render()` produces from one region."""

    markdown: str
    text: str  # same words as markdown minus syntax; code verbatim
    headings: list[Heading]
    links: list[Link]  # absolute http(s), fragment removed, deduped, internal = same site
    images: list[Image]  # absolute http(s), at most 100, no data: URIs / beacons / spacers
    tables: list[dict[str, Any]]  # data tables: index, caption, headers, header_rows, rows
    truncated: bool
    total_words: int = 0  # words of the whole region's text, before any max_chars cut
    #: "sha256:<hex>" of the whole Markdown before any max_chars cut, so that a change of
    #: max_chars alone, or content past the cut, is judged on the full page
    content_hash: str = ""
    #: with `repeated` given: the keys of the region's short top-level paragraphs
    #: (`repeated.paragraph_key`), and the text of those left out as repeated
    paragraph_keys: list[str] = field(default_factory=list)
    dropped_paragraphs: list[str] = field(default_factory=list)


def markdown_hash(markdown: str) -> str:
    """The ``content_hash`` of a Markdown text: ``sha256:`` and the hex digest."""
    return "sha256:" + hashlib.sha256(markdown.encode("utf-8")).hexdigest()


def render(
    region: lxml.html.HtmlElement,
    *,
    base_url: str,
    page_site: str,
    keep_links: bool = True,
    keep_images: bool = True,
    max_chars: int = 0,
    tab_labels: bool = True,
    heading: str = "",
    repeated: frozenset[str] | None = None,
) -> Rendered:
    """Render `region` as Markdown and text in one walk; never raises.

    `base_url` resolves relative links and image sources (they are usually
    absolute already); `page_site` is `urls.site_key(page_url)`, used for
    `Link.internal`. `max_chars` > 0 cuts the Markdown at a block boundary at or
    before that many characters (never inside a code fence) and sets
    `truncated`; the text is cut to the same stretch of content. `tab_labels`
    False says that no element of the region carries a tab label
    (`clean.TAB_LABEL_ATTR`), which spares reading that attribute on each one.
    `heading` is the document's title line that the caller puts before the Markdown:
    `content_hash` is then taken of that line, a blank line and the whole body.
    `repeated` (a website's repeated paragraphs, ``repeated.RepeatedParagraphs``): the
    short top-level paragraphs are keyed, and those whose key it holds are left out
    of the Markdown and the text, not of `content_hash`; None: nothing is keyed.
    """
    try:
        return render_strict(
            region,
            base_url=base_url,
            page_site=page_site,
            keep_links=keep_links,
            keep_images=keep_images,
            max_chars=max_chars,
            tab_labels=tab_labels,
            heading=heading,
            repeated=repeated,
        )
    except Exception:  # a converter bug must not lose the page: plain words
        text = " ".join("".join(_safe_itertext(region)).split())
        markdown, truncated = truncate_blocks(text, max_chars)
        return Rendered(
            markdown,
            markdown,
            [],
            [],
            [],
            [],
            truncated,
            len(text.split()),
            markdown_hash(with_title(heading, text)),
        )


def _safe_itertext(region: etree._Element) -> list[str]:
    try:
        return [str(_STRING(region))]
    except Exception:
        return []


_STRING = etree.XPath("string()")


def render_strict(
    region: etree._Element,
    *,
    base_url: str,
    page_site: str,
    keep_links: bool = True,
    keep_images: bool = True,
    max_chars: int = 0,
    cell_sep: str = "\t",
    tab_labels: bool = True,
    heading: str = "",
    repeated: frozenset[str] | None = None,
) -> Rendered:
    """`render()` without the safety net (exceptions propagate); for tests."""
    renderer = Renderer(
        base_url=base_url,
        page_site=page_site,
        keep_links=keep_links,
        keep_images=keep_images,
        cell_sep=cell_sep,
        tab_labels=tab_labels,
    )
    blocks = renderer.run(region)
    keys: list[str] = []
    dropped: list[str] = []
    whole = blocks
    if repeated is not None:
        blocks = _without_repeated(blocks, repeated, keys, dropped)
    if max_chars > 0:
        markdown, text, truncated = _truncate(blocks, max_chars)
        full = join_blocks(blocks)[0] if truncated else markdown
    else:
        markdown, text = join_blocks(blocks)
        truncated = False
        full = markdown
    if dropped:  # the hash is of the page as it is, whatever the site repeats
        full = join_blocks(whole)[0]
    if _ZWSP in full:
        # a zero-width space is a line-break hint (Javadoc puts one in every member
        # name: "addArgument\u200b(String...)"), never a character of the text
        markdown, text, full = (part.replace(_ZWSP, "") for part in (markdown, text, full))
    return Rendered(
        markdown=markdown,
        text=text,
        headings=renderer.headings,
        links=renderer.links,
        images=renderer.images,
        tables=renderer.tables,
        truncated=truncated,
        total_words=sum(len(tx.split()) for _, tx, _ in blocks) if truncated else len(text.split()),
        content_hash=markdown_hash(with_title(heading, full)),
        paragraph_keys=keys,
        dropped_paragraphs=dropped,
    )


_ZWSP = "\u200b"


def _without_repeated(
    blocks: list[Block], repeated: frozenset[str], keys: list[str], dropped: list[str]
) -> list[Block]:
    """`blocks` without the short top-level paragraphs whose key `repeated` holds; the
    keys of all short paragraphs go to `keys`, the dropped ones' text to `dropped`."""
    kept: list[Block] = []
    for block in blocks:
        _, tx, kind = block
        if kind == PARA and tx and len(tx) <= REPEATED_MAX_CHARS:
            key = paragraph_key(tx)
            keys.append(key)
            if key in repeated:
                dropped.append(tx)
                continue
        kept.append(block)
    return kept if dropped else blocks


def with_title(heading: str, body: str) -> str:
    """The document: the title line, a blank line and the body (either may be empty)."""
    if heading and body:
        return heading + "\n\n" + body
    return heading or body


# --- truncation -----------------------------------------------------------------

# A code fence line (CommonMark §4.5), after quote markers and indentation: three or
# more backticks (an info string without backticks) or three or more tildes. The
# renderer writes backtick fences only, but a tilde fence would swallow the rest of
# the page just the same, so a cut must not fall inside one either.
_FENCE_LINE = re.compile(r"^[ >]*(?:(`{3,})([^`]*)|(~{3,})(.*))$")
_ITEM_START = re.compile(r"^(?:-|\d{1,9}\.)(?: |$)")


def _fence(match: re.Match[str]) -> tuple[str, str, int]:
    """(the fence's run of backticks or tildes, its info string, where that starts)
    of a `_FENCE_LINE` match."""
    if match.group(1) is not None:
        return match.group(1), match.group(2), match.start(2)
    return match.group(3), match.group(4), match.start(4)


def _cut_points(markdown: str, items: bool) -> list[int]:
    """Offsets where `markdown` may be cut: before a blank line (or blank quote
    line) outside fences, and with `items` also before a top-level list item."""
    points: list[int] = []
    fence = ""
    offset = 0
    for line in markdown.split("\n"):
        match = _FENCE_LINE.match(line)
        if fence:
            if match:
                run, info, _ = _fence(match)
                if run.startswith(fence) and not info.strip():  # same character, as long
                    fence = ""
        elif match:
            fence = _fence(match)[0]
        elif offset and (
            not line.strip(" >")
            or (items and line[:1] in "-0123456789" and _ITEM_START.match(line))
        ):
            points.append(offset - 1)  # the "\n" before this line
        offset += len(line) + 1
    return points


def _fences_balanced(markdown: str) -> bool:
    fence = ""
    for line in markdown.split("\n"):
        match = _FENCE_LINE.match(line)
        if not match:
            continue
        run, info, _ = _fence(match)
        if not fence:
            fence = run
        elif run.startswith(fence) and not info.strip():
            fence = ""
    return not fence


def _head(markdown: str, room: int, items: bool, first: bool) -> str:
    """The longest prefix of `markdown` ending at a cut point and at most `room`
    long; when `first` and none fits, a cut at a space outside any fence."""
    best = ""
    for point in _cut_points(markdown, items):
        if point > room:
            break
        best = markdown[:point]
    best = best.rstrip()
    if best or not first:
        return best
    cut = markdown[:room]
    if " " in cut.strip():
        cut = cut.rsplit(None, 1)[0]
    cut = cut.rstrip()  # a cut just after a word ("00000 0" at 6) keeps no trailing space
    if _fences_balanced(cut):
        return cut
    # the cut falls inside a code block: keep whole code lines and close the fence
    lines = cut.split("\n")
    opened = max(i for i, line in enumerate(lines) if _FENCE_LINE.match(line))
    match = _FENCE_LINE.match(lines[opened])
    assert match is not None
    closing = lines[opened][: _fence(match)[2]]
    kept = lines[: opened + 1]
    size = sum(len(line) + 1 for line in kept) + len(closing)
    for line in markdown.split("\n")[opened + 1 :]:
        if size + len(line) + 1 > room:
            break
        kept.append(line)
        size += len(line) + 1
    if len(kept) == opened + 1:  # not even one code line fits
        return "\n".join(lines[:opened]).rstrip()
    return "\n".join([*kept, closing])


def _cut_text(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return (cut.rsplit(None, 1)[0] if " " in cut.strip() else cut).rstrip()


def _truncate(blocks: list[Block], max_chars: int) -> tuple[str, str, bool]:
    """Join top-level blocks while they fit into `max_chars`; the first block that
    does not fit contributes its own leading sub-blocks (paragraphs, items)."""
    pieces: list[str] = []
    texts: list[str] = []
    total = 0
    prev = -1
    for md, tx, kind in blocks:
        sep = separator(prev, kind) if pieces else ""
        if total + len(sep) + len(md) <= max_chars:
            pieces += (sep, md)
            total += len(sep) + len(md)
            if tx:
                texts.append(tx)
            prev = kind
            continue
        part = _head(md, max_chars - total - len(sep), items=True, first=not pieces)
        if part:
            pieces += (sep, part)
            if tx:
                texts.append(_cut_text(tx, len(part)))
        return "".join(pieces), "\n\n".join(texts), True
    return "".join(pieces), "\n\n".join(texts), False


# --- one region to one string (conveniences over render) --------------------------

_BLANK_RUNS = re.compile(r"\n{3,}")


def to_markdown(region: lxml.html.HtmlElement, keep_links: bool, keep_images: bool) -> str:
    """Markdown of a region whose links are already absolute.

    Compatibility wrapper over `render()`: blank-line runs inside code blocks are
    collapsed too, as the markdownify-based version did.
    """
    markdown = render(
        region, base_url="", page_site="", keep_links=keep_links, keep_images=keep_images
    ).markdown
    return _BLANK_RUNS.sub("\n\n", markdown)


def to_text(region: etree._Element) -> str:
    """Plain text of the region (table cells separated by a space).

    Compatibility wrapper over the renderer, without links and images.
    """
    try:
        return render_strict(
            region, base_url="", page_site="", keep_links=False, keep_images=False, cell_sep=" "
        ).text
    except Exception:
        return " ".join("".join(_safe_itertext(region)).split())


def truncate_blocks(markdown: str, max_chars: int) -> tuple[str, bool]:
    """Cut `markdown` to at most `max_chars` at a blank-line block boundary
    (never inside a code fence); (result, was_cut). If even the first block is
    too long, it is cut at the last whitespace before the limit."""
    if max_chars <= 0 or len(markdown) <= max_chars:
        return markdown, False
    return _head(markdown, max_chars, items=False, first=True), True


__all__ = [
    "Rendered",
    "render",
    "render_strict",
    "to_markdown",
    "to_text",
    "truncate_blocks",
]
