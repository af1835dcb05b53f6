"""The chosen content region (an lxml element) as Markdown and as plain text.

Both renderings walk the same cleaned region, so they hold the same words:
Markdown adds syntax (headings, bullets, links, fences), text adds none.
"""

from __future__ import annotations

import re
from typing import Any

import lxml.html
from lxml import etree
from markdownify import ATX, BACKSLASH, MarkdownConverter

# markdownify recurses about three Python frames per element; deeper content
# is flattened to its text first so the interpreter's recursion limit is safe.
MAX_DEPTH = 100

_BLANK_RUNS = re.compile(r"\n{3,}")
_TRAILING_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)
_LINKABLE = re.compile(r"^(?:https?|mailto):", re.IGNORECASE)
_LANG_CLASS = re.compile(
    r"(?:^|\s)(?:language|lang|highlight)-([\w+#.-]+)|brush:\s*([\w+#.-]+)", re.IGNORECASE
)
_LANG_NAME = re.compile(r"^[\w+#.-]{1,30}$")
_BACKTICK_RUNS = re.compile(r"`+")

# Blocks end a paragraph of text; "line" elements only end a line.
_BLOCK_TAGS = frozenset(
    {
        *("address", "article", "aside", "blockquote", "caption", "center", "details"),
        *("dialog", "div", "dl", "fieldset", "figcaption", "figure", "footer", "form"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "main", "menu"),
        *("nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "tfoot"),
        *("thead", "ul"),
    }
)
_LINE_TAGS = frozenset({"li", "dt", "dd", "tr"})
_CELL_TAGS = frozenset({"td", "th"})
_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "head", "title"})


def code_language(el: Any) -> str | None:
    """Language of a <pre> (a bs4 tag) from data-lang or a class on it or its <code> child.

    Recognises class "language-x", "lang-x", "highlight-x" and "brush: x".
    """
    for node in (el, el.find("code")):
        if node is None:
            continue
        for attr in ("data-lang", "data-language"):
            value = (node.get(attr) or "").strip()
            if _LANG_NAME.match(value):
                return value.lower()
        classes = node.get("class") or []
        match = _LANG_CLASS.search(classes if isinstance(classes, str) else " ".join(classes))
        if match:
            return (match.group(1) or match.group(2)).lower()
    return None


class _Converter(MarkdownConverter):
    """markdownify with our choices: links/images optional, safe code fences."""

    def __init__(self, *, keep_links: bool, keep_images: bool) -> None:
        super().__init__(
            heading_style=ATX,
            bullets="-",
            code_language_callback=code_language,
            table_infer_header=True,
            newline_style=BACKSLASH,  # trailing-space breaks would be stripped
            escape_underscores=False,  # snake_case words stay searchable
        )
        self.keep_links = keep_links
        self.keep_images = keep_images

    def convert_a(self, el: Any, text: str, parent_tags: set[str]) -> str:
        # javascript:, relative leftovers etc. are not useful targets: keep the words.
        if not self.keep_links or not _LINKABLE.match(el.get("href") or ""):
            return text
        # markdownify's stub omits the convert_* methods it has at runtime.
        return str(super().convert_a(el, text, parent_tags))  # type: ignore[misc]

    def convert_img(self, el: Any, text: str, parent_tags: set[str]) -> str:
        if not self.keep_images:
            return ""
        return str(super().convert_img(el, text, parent_tags))  # type: ignore[misc]

    def convert_pre(self, el: Any, text: str, parent_tags: set[str]) -> str:
        if not text.strip("\n"):
            return ""
        language = code_language(el) or ""
        # A fence must be longer than any backtick run inside the code.
        longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
        fence = "`" * max(3, longest + 1)
        return f"\n\n{fence}{language}\n{text.strip(chr(10))}\n{fence}\n\n"


def tidy(markdown: str) -> str:
    """No trailing whitespace, never more than one blank line in a row, no outer blank lines."""
    return _BLANK_RUNS.sub("\n\n", _TRAILING_SPACE.sub("", markdown)).strip("\n")


def flatten_deep(region: lxml.html.HtmlElement, max_depth: int = MAX_DEPTH) -> None:
    """Unwrap, in place, every element nested more than `max_depth` levels below `region`.

    The text is kept; only the (pathological) structure below that depth is lost.
    """
    too_deep: list[etree._Element] = []
    stack: list[tuple[etree._Element, int]] = [(region, 0)]
    while stack:
        element, depth = stack.pop()
        if depth >= max_depth:
            if len(element):
                too_deep.append(element)
            continue
        stack.extend((child, depth + 1) for child in element)
    for element in too_deep:
        tags = {d.tag for d in element.iterdescendants() if isinstance(d.tag, str)}
        etree.strip_tags(element, *tags)


def to_markdown(region: lxml.html.HtmlElement, keep_links: bool, keep_images: bool) -> str:
    """Render the region as Markdown (ATX headings, "-" bullets, fenced code, pipe tables).

    Links and images must already be absolute. markdownify reads HTML through
    BeautifulSoup, so the (small) region is serialised and re-read once; the
    page itself is not parsed again.
    """
    html = etree.tostring(region, encoding="unicode", method="html")
    converter = _Converter(keep_links=keep_links, keep_images=keep_images)
    try:
        markdown = str(converter.convert(html))
    except RecursionError:  # only if flatten_deep was skipped; plain text is valid Markdown
        markdown = to_text(region)
    return tidy(markdown)


class _TextBuilder:
    """Accumulates the plain text of a walk: blocks separated by one blank line."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.buffer: list[str] = []
        self.pre_depth = 0

    def add(self, text: str | None) -> None:
        if text:
            self.buffer.append(text if self.pre_depth else re.sub(r"\s+", " ", text))

    def newline(self) -> None:
        self.buffer.append("\n")

    def flush(self) -> None:
        raw, self.buffer = "".join(self.buffer), []
        if self.pre_depth:  # preformatted: keep indentation, drop outer blank lines
            block = "\n".join(line.rstrip() for line in raw.split("\n")).strip("\n")
        else:
            lines = (" ".join(line.split()) for line in raw.split("\n"))
            block = "\n".join(line for line in lines if line)
        if block:
            self.blocks.append(block)

    def text(self) -> str:
        self.flush()
        return "\n\n".join(self.blocks)


def to_text(region: etree._Element) -> str:
    """Plain text of the region: no Markdown syntax, blocks separated by a blank line,
    list items and table rows on their own lines, <pre> kept verbatim.

    Iterative (lxml iterwalk), so any depth is fine.
    """
    out = _TextBuilder()
    skipping = 0  # depth inside script/style/... whose text is not visible
    for event, element in etree.iterwalk(region, events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""  # comments, PIs
        if event == "start":
            skipping += tag in _SKIP_TAGS
            if skipping:
                continue
            if tag in _BLOCK_TAGS:
                out.flush()
                out.pre_depth += tag == "pre"
            elif tag in _LINE_TAGS:
                out.newline()
            if tag:  # a comment's .text is the comment itself
                out.add(element.text)
            continue
        if tag in _SKIP_TAGS:
            skipping -= 1
        elif not skipping:
            if tag in _BLOCK_TAGS:
                out.flush()
                out.pre_depth -= tag == "pre"
            elif tag in _LINE_TAGS or tag == "br":
                out.newline()
            elif tag in _CELL_TAGS:
                out.add(" ")
        if not skipping and element is not region:
            out.add(element.tail)
    return out.text()


def truncate_blocks(markdown: str, max_chars: int) -> tuple[str, bool]:
    """Cut `markdown` to at most `max_chars` at a block boundary; (result, was_cut).

    A fenced code block counts as one block. If even the first block is too
    long, it is cut at the last whitespace before the limit.
    """
    if max_chars <= 0 or len(markdown) <= max_chars:
        return markdown, False
    kept = ""
    for block in split_blocks(markdown):
        candidate = f"{kept}\n\n{block}" if kept else block
        if len(candidate) > max_chars:
            break
        kept = candidate
    if not kept:
        head = markdown[:max_chars]
        kept = head.rsplit(None, 1)[0] if " " in head.strip() else head
    return kept.rstrip(), True


def split_blocks(markdown: str) -> list[str]:
    """Blocks of Markdown separated by blank lines, never splitting a ``` fence."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        stripped = line.strip()
        if fence is None and stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
        elif fence is not None and stripped == fence:
            fence = None
        if not stripped and fence is None:
            if current:
                blocks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks
