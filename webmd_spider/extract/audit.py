"""The loss audit: what extraction removed from inside the content root, by kind and rule.

Every step that removes an element with text from the page (`clean`, `boilerplate`,
`orphan_headings`, `periphery`) calls `LossAudit.note` just before it detaches it. The
content root is chosen after the first of those steps, so a note only remembers the
element and the parent it hung from; `LossAudit.settle` then keeps the notes whose
element was inside the chosen root (its parent chain reaches the root, or reaches an
element that was itself removed from inside the root) and counts them. Counting is done
once, on the detached subtrees, at the end: an element removed first and its ancestor
removed later are counted once each, since the first is no longer under the second.

So the audit is exact by construction, per kind: the elements of a kind that the content
root held when the page was parsed are those still under it plus those counted here
(`tests/extract/test_audit.py` checks this on every golden page). What is never content
(scripts, styles, embedded media: `vocabulary.NEVER_CONTENT_TAGS`) is not noted: it
holds none of the kinds and no visible text.

Pure: lxml only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

#: The kinds counted, and the tags that are each kind. ``dt`` is a definition term: a
#: glossary's term or an API's signature (Sphinx, Texinfo's ``@deffn``, Javadoc's
#: "See Also:"); "signature" is what coding agents miss most when it goes.
KIND_OF_TAG: dict[str, str] = {
    "h1": "heading",
    "h2": "heading",
    "h3": "heading",
    "h4": "heading",
    "h5": "heading",
    "h6": "heading",
    "pre": "code",
    "table": "table",
    "li": "list_item",
    "dt": "signature",
    "p": "paragraph",
    "img": "image",
}
KINDS: tuple[str, ...] = (
    *("heading", "code", "table", "list_item"),
    *("signature", "paragraph", "image"),
)
_KIND_TAGS = tuple(KIND_OF_TAG)
#: Rules that move a block out of the body rather than lose it: the title heading
#: becomes the Markdown's ``# title`` line and the row's ``title``; a signature's
#: layout table becomes the text of its code block (``declarations.py``).
MOVED_RULES = frozenset({"title", "declaration"})
#: characters of a removed block shown by ``webmd convert --explain``
PREVIEW_CHARS = 80
_NORMALIZED = etree.XPath("normalize-space()")


@dataclass(slots=True)
class Removal:
    """One removed block: the rule that removed it, its kind (the block's own kind, or
    its tag when it is none of `KINDS`), the kinds it held (itself included), its
    visible characters and the first `PREVIEW_CHARS` of its text."""

    rule: str
    kind: str
    kinds: Counter[str]
    chars: int
    preview: str


@dataclass(slots=True)
class Losses:
    """What was removed from inside the content root: every `Removal`, in the order
    the steps removed them."""

    removals: list[Removal] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The page row's ``removed`` column: a count per kind (every kind, zeros
        included), ``blocks`` (removed blocks), ``chars`` (their visible characters)
        and ``by_rule``: rule -> {"blocks", "chars", and each kind it removed}; and
        ``moved``: the kinds the `MOVED_RULES` took out of the body to fields (the
        title heading), which are not lost and not in the totals."""
        totals: Counter[str] = Counter()
        moved: Counter[str] = Counter()
        by_rule: dict[str, Counter[str]] = {}
        chars = blocks = 0
        for removal in self.removals:
            if removal.rule in MOVED_RULES:
                moved.update(removal.kinds)
                continue
            blocks += 1
            totals.update(removal.kinds)
            chars += removal.chars
            rule = by_rule.setdefault(removal.rule, Counter())
            rule["blocks"] += 1
            rule["chars"] += removal.chars
            rule.update(removal.kinds)
        out: dict[str, Any] = {kind: totals[kind] for kind in KINDS}
        out["blocks"] = blocks
        out["chars"] = chars
        out["by_rule"] = {name: dict(counts) for name, counts in sorted(by_rule.items())}
        out["moved"] = dict(moved)
        return out


def repeated_removal(text: str) -> Removal:
    """A paragraph left out because its website repeats it (``repeated.py``): removed
    after rendering, so it is counted from its text, rule ``repeated-block``."""
    words = " ".join(text.split())
    return Removal(
        rule="repeated-block",
        kind="paragraph",
        kinds=Counter({"paragraph": 1}),
        chars=len(words),
        preview=words[:PREVIEW_CHARS],
    )


def count_kinds(element: Any) -> Counter[str]:
    """The elements of each of `KINDS` in `element`'s subtree, itself included."""
    counts: Counter[str] = Counter()
    for node in element.iter(*_KIND_TAGS):
        counts[KIND_OF_TAG[node.tag]] += 1
    return counts


class LossAudit:
    """Collects the removals of one page; `settle` once the content root is known.

    `note` costs a list append: the counting happens in `settle`, only for the notes
    inside the root (most removals of a page are its chrome, outside it).
    """

    __slots__ = ("_notes",)

    def __init__(self) -> None:
        self._notes: list[tuple[Any, Any, str]] = []

    def note(self, element: Any, rule: str) -> None:
        """Record that `rule` is about to remove `element` (still attached)."""
        parent = element.getparent()
        if parent is not None:
            self._notes.append((element, parent, rule))

    def moved_to(self, counterpart: dict[Any, Any], later: LossAudit) -> None:
        """Carry the notes over to a deep copy of the page made after them
        (`counterparts` of the page and the copy, taken as the copy was made), then add
        `later`'s notes (the removals made on the copy). A step that tried a rewrite on
        a copy of the page and keeps it (the cards profile) so has its audit without
        running it again on the page itself: each noted parent that was in the page
        becomes its counterpart in the copy; a parent that was itself removed stays,
        as its own note's element, the link `settle` follows."""
        self._notes = [
            (element, counterpart.get(parent, parent), rule)
            for element, parent, rule in self._notes
        ]
        self._notes += later._notes

    def settle(self, root: Any) -> Losses:
        """The removals that were inside `root` (the content root, still attached to
        its page), each counted on its subtree as it is now."""
        former = {element: parent for element, parent, _ in self._notes}
        inside: dict[Any, bool] = {}
        losses = Losses()
        for element, parent, rule in self._notes:
            if not _was_under(parent, root, former, inside):
                continue
            kinds = count_kinds(element)
            if rule == "never-content" and not kinds:
                continue  # a script or a style: no text of the page, nothing lost
            text = str(_NORMALIZED(element))
            tag = element.tag if isinstance(element.tag, str) else "node"
            if not text and tag == "img":
                text = " ".join((element.get("alt") or "").split())
            losses.removals.append(
                Removal(
                    rule=rule,
                    kind=KIND_OF_TAG.get(tag, tag),
                    kinds=kinds,
                    chars=len(text),
                    preview=text[:PREVIEW_CHARS],
                )
            )
        return losses


def counterparts(page: Any, copied: Any) -> dict[Any, Any]:
    """Each node of `page` -> its counterpart in `copied`, a ``copy.deepcopy`` of it
    not yet changed (the same tree, node for node, in the same order)."""
    return dict(zip(page.iter(), copied.iter(), strict=True))


def _was_under(node: Any, root: Any, former: dict[Any, Any], inside: dict[Any, bool]) -> bool:
    """`node` is `root` or was under it: its ancestors reach `root`, or reach the top of
    a removed subtree whose former parent was under `root`. Memoised per element, keyed
    by the element itself: holding it keeps lxml's proxy alive, so the key stays its own
    (an ``id()`` of a freed proxy can come back for another element)."""
    path: list[Any] = []
    answer = False
    while node is not None:
        if node is root:
            answer = True
            break
        known = inside.get(node)
        if known is not None:
            answer = known
            break
        path.append(node)
        parent = node.getparent()
        if parent is None:
            parent = former.get(node)  # a removed subtree's top: where it hung
        node = parent
    for key in path:
        inside[key] = answer
    return answer
