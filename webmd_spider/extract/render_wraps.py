"""Inline wrappers in a box's buffer: emphasis (``**``, ``*``, ``~~``) and link markup
put around the pieces an element wrote when it closes, and the CommonMark rules that
decide whether a marker can open or close there.

An emphasis piece that ends the buffer is remembered (`Box.wrap`) so that the next
piece can join it when of the same kind ("**a**" + "**b**" is "**ab**") or move its
edge punctuation out (`after_wrap`: "**Note:**" + "text" is "**Note**:" + "text").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from webmd_spider.extract.inline import (
    char_before_marker,
    close_emphasis,
    markdown_url,
    open_emphasis,
)
from webmd_spider.extract.render_elements import EM, STRIKE, STRONG

if TYPE_CHECKING:
    from webmd_spider.extract.render_boxes import Box

_MARKERS = {STRONG: "**", EM: "*", STRIKE: "~~"}


def _strip_ws(content: str) -> tuple[str, str, str]:
    """(leading whitespace, core, trailing whitespace) of an inline run."""
    core = content.strip(" \n")
    if not core:
        return content, "", ""
    left = len(content) - len(content.lstrip(" \n"))
    right = len(content.rstrip(" \n"))
    return content[:left], core, content[right:]


def start_emphasis(box: Box, category: int) -> tuple[Any, ...] | None:
    """An emphasis of `category` (STRONG, EM or STRIKE) opens at the end of `box`'s
    buffer: the pending separator and the last marker's fate go first. Returns the
    emphasis piece that the new one joins when it closes right after it, if any."""
    if box.sep:  # a pending cell/heading separator goes before the markup
        box.separate()
    if box.wrap is not None and box.wrap[2] != category:
        # a marker of another kind follows the last one ("**" after "*" joins
        # its run; "~~" after "**" does not): decide whether the last can close
        other = _MARKERS[category][0]
        if other != _MARKERS[box.wrap[2]][0]:
            after_wrap(box, other)
    merge, box.merge, box.code = box.merge, None, None
    if merge is not None and (
        merge[2] != category or merge[0] != len(box.md) - 1 or merge[1] != box.gen
    ):
        merge = None
    return merge


def end_emphasis(
    box: Box, gen: int, pos: int, category: int, merge: tuple[Any, ...] | None
) -> None:
    """Wrap `box.md[pos:]` (written since the emphasis opened, in the same run `gen`) in
    the markers of `category`, joined to `merge` (`start_emphasis`) when it ends right
    before; without the markers when they could not open there."""
    lead, core, trail = _strip_ws("".join(box.md[pos:]))
    if not core:
        return
    box.code = None  # pieces are replaced: a code span may no longer end the buffer
    marker = _MARKERS[category]
    head = lead
    if not lead and merge is not None and box.md[pos - 1] is merge[5]:
        # <b>a</b><b>b</b> is "**ab**": "**a****b**" would be literal asterisks (a run
        # of four neither closes "a" nor opens "b"), likewise for * and ~~
        pos -= 1
        head, core = merge[3], merge[4] + core
    elif not lead:
        before = char_before_marker(box.md[pos - 1], marker[0]) if pos else ""
        opened = open_emphasis(before, core, marker[0])
        if opened is None:  # it could not open: the words without the markers
            inner = box.wrap
            box.md[pos:] = [core + trail]
            box.wrap = box.merge = None
            if not trail and inner is not None and inner[1] == gen and core.endswith(inner[5]):
                # emphasis ending ours now ends the buffer: what follows still decides
                outside = core[: len(core) - len(inner[5])]
                box.wrap = (pos, gen, inner[2], outside + inner[3], inner[4], core)
            return
        head, core = opened  # "a" + "**(x)**" could not open: "a(" + "**x)**"
    piece = f"{head}{marker}{core}{marker}{trail}"
    box.md[pos:] = [piece]
    box.wrap = box.merge = None if trail else (pos, gen, category, head, core, piece)


def after_wrap(box: Box, first: str) -> None:
    """`first` (a character) is about to follow the buffer: when the emphasis
    piece `box.wrap` ends the buffer and its closing marker could not close before
    `first` (punctuation inside, a letter outside: CommonMark §6.2
    right-flanking), move that punctuation after the marker, or drop the markers."""
    last = box.wrap
    assert last is not None
    box.wrap = None  # after `first`, it no longer ends the buffer
    index, gen, category, head, core, _ = last
    if index != len(box.md) - 1 or gen != box.gen:
        return
    marker = _MARKERS[category]
    closed = close_emphasis(core, first, marker[0])
    if closed is not None and not closed[1]:
        return
    box.merge = None
    if closed is None:  # it could not close: the words without the markers
        box.md[index] = head + _close_nested(core, first)
    else:  # "**Note:**" + "text" -> "**Note**:" + "text"
        box.md[index] = f"{head}{marker}{closed[0]}{marker}{closed[1]}"


def start_link(box: Box) -> None:
    """A link's markup opens at the end of `box`'s buffer: the pending separator goes
    first, and the last emphasis marker can close before its "["."""
    if box.sep:
        box.separate()
    if box.wrap is not None:  # "[" follows it: the last marker can close
        after_wrap(box, "[")
    box.merge = box.code = None


def end_link(box: Box, pos: int, url: str) -> None:
    """Wrap `box.md[pos:]` (the link's text, written in one run) as a link to `url`."""
    lead, core, trail = _strip_ws("".join(box.md[pos:]))
    if core:
        if not lead and pos and box.md[pos - 1][-1:] == "!":
            # "Hi!" + "[x](u)" would be an image ("![x](u)"); text never escapes "!"
            box.md[pos - 1] = box.md[pos - 1][:-1] + "\\!"
        box.md[pos:] = [f"{lead}[{core}]({markdown_url(url)}){trail}"]
        box.wrap = box.merge = box.code = None


def _close_nested(markdown: str, first: str) -> str:
    """`markdown` ending in the closing marker of nested emphasis, before the character
    `first`: with its punctuation moved out when that marker could not close there."""
    char = markdown[-1:]
    if char not in ("*", "~"):
        return markdown
    run = len(markdown) - len(markdown.rstrip(char))
    closed = close_emphasis(markdown[:-run], first, char)
    if closed is None:
        # it cannot close either: when its opening run is plain to see (nothing that
        # could be a marker in between), drop that pair as well
        opening = markdown.rfind(markdown[-run:], 0, len(markdown) - run)
        inside = markdown[opening + run : -run]
        if opening < 0 or not inside or "*" in inside or "~" in inside:
            return markdown
        if markdown[opening - 1 : opening] == char:
            return markdown
        return markdown[:opening] + inside
    if not closed[1]:
        return markdown
    return closed[0] + markdown[-run:] + closed[1]
