"""Streamed server rendering: put each streamed segment where the page's script puts it.

Pure module (lxml). A server that streams its HTML (React 18+ ``renderToPipeableStream``,
the default of Next.js's app router and of Remix) first sends each slow part of the page
as a placeholder: a ``<template id="B:0">`` boundary between ``<!--$?-->`` and
``<!--/$-->`` comments, with a loading skeleton as fallback. The part itself comes later
in the same document, at its end, as a hidden segment (``<div hidden id="S:0">``), and an
inline script moves it into place:

- ``$RC("B:0","S:0")`` ("complete boundary") removes the boundary's template and
  fallback up to its matching ``<!--/$-->`` and inserts the segment's children there
  (here the fallback stays: the parser drops comments, so its end is unknown, and a
  loading skeleton holds next to no text);
- ``$RS("S:1","P:1")`` ("segment") inserts a segment's children in place of a
  ``<template id="P:1">`` placeholder inside another segment.

A browser runs those calls as the page loads, so what a reader sees is the page with its
segments moved. Without this step the segments are hidden elements (``clean`` drops
them) and the page's main content, on such a site, is its loading skeleton. The calls
are read from the inline scripts, in document order, as the browser runs them; no
library does this (an HTML parser leaves scripts unrun, and a headless browser per page
is what this crawler is not).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import lxml.html

#: the two instructions of React's streaming runtime, with their two id arguments
_CALL = re.compile(r"""\$R([CS])\(\s*["']([^"']{1,40})["']\s*,\s*["']([^"']{1,40})["']""")


def streamed_calls(scripts: Iterable[Any]) -> list[tuple[str, str, str]]:
    """The streaming runtime's calls in the inline `scripts` (``<script>`` elements), in
    document order: ("C", boundary id, segment id) or ("S", segment id, placeholder id).
    Scripts without ``$R`` are not searched (a page's bundles are most of its bytes)."""
    calls: list[tuple[str, str, str]] = []
    for script in scripts:
        code = script.text
        if code and "$R" in code:
            calls += [(m[1], m[2], m[3]) for m in _CALL.finditer(code)]
    return calls


def place_segments(
    root: lxml.html.HtmlElement,
    calls: list[tuple[str, str, str]],
) -> int:
    """Run `calls` (`streamed_calls`) on `root` as the browser would: each segment's
    content takes its boundary's or its placeholder's place; the emptied segment goes.
    A call naming an id the page lacks is skipped (a segment that never came). Returns
    how many calls were placed."""
    if not calls:
        return 0
    wanted = {one for _, first, second in calls for one in (first, second)}
    by_id: dict[str, Any] = {}
    for element in root.iter("template", "div"):
        name = element.get("id")
        if name in wanted and name not in by_id:
            by_id[name] = element
    placed = 0
    for kind, first, second in calls:
        if kind == "C":
            boundary, segment = by_id.get(first), by_id.get(second)
            if boundary is None or segment is None or boundary.getparent() is None:
                continue
            # the fallback stays: its end is a comment the parser already dropped
            # (parse.py), and a skeleton holds next to no text
            _move_children(segment, before=boundary)
            boundary.drop_tree()
        else:
            segment, placeholder = by_id.get(first), by_id.get(second)
            if segment is None or placeholder is None or placeholder.getparent() is None:
                continue
            _move_children(segment, before=placeholder)
            placeholder.drop_tree()  # keeps its tail, as removeChild keeps the next node
        if segment.getparent() is not None:
            segment.drop_tree()
        placed += 1
    return placed


def _move_children(segment: Any, before: Any) -> None:
    """Move `segment`'s content (its text and children, in order) to just before
    `before`."""
    if segment.text:
        previous = before.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + segment.text
        else:
            parent = before.getparent()
            parent.text = (parent.text or "") + segment.text
        segment.text = None
    for child in list(segment):
        before.addprevious(child)  # its tail moves with it
