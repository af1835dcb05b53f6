"""The forum profile (issue 32): a thread's main content is every post, in thread
order, each with its author and date as a short line.

Pure module. The single-root ladder picks one post, or the thread's container and then
cleans the posts out of it as a comment thread. This profile finds the posts by their
structure, whatever the forum software names them: the largest run of sibling
elements of one kind (one tag, one leading class word) most of which carry a date (a
``<time>``, a ``datetime`` attribute, or a short line that is a date: "Jul 9, 2022",
"11-29-2024, 09:03 AM", "3 hours ago"). Two kinds of one tag that alternate (zebra
rows: "odd" / "even") are one run. A post may be several members of the run (an old
table layout gives each post a row, a row of buttons and a spacer row): a run whose
dated members recur at a fixed period is a thread of posts that long, each post its
member holding the message. A run whose every member holds another such run is a
layout around the thread (two page columns), and the inner run is the thread.

The region is the posts' container, widened to the page's title heading when that sits
outside it (a question above its answers, a story above its comments) and the two
meet below ``<body>``, and widened to the table or list it is a part of when it is a
fragment (a row, a cell): a region stands alone. It is cleaned as the ladder cleans
its root, each post kept whole (what is inside a post, a signature or a share bar, is
judged as usual), and so is each reply nested in a post (a threaded view: `replies`).
A paragraph the thread already shows (a quote of a post, a reply's preview of the post
it answers) is kept once, where it was posted (`drop_repeats`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.chrome_names import COMMENTS, element_verdict
from webmd_spider.extract.profiles import ProfileInput, ProfileResult
from webmd_spider.extract.profiles.region import (
    Page,
    clean_region,
    common_ancestor,
    measure_page,
)
from webmd_spider.extract.stats import CHARS, LINK_CHARS, Element, TextStats
from webmd_spider.extract.tables import table_rows

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?"
#: A date as forums print a post's: "Jul 9, 2022", "30th March 2025", "11-29-2024",
#: "2019-02-23", "28/11/2025", "3 hours ago", "Yesterday at 9:05 PM".
_DATE = re.compile(
    r"\b(?:\d{1,4}[./-]\d{1,2}[./-]\d{2,4}"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}"
    r"|\d+\s+(?:second|minute|min|hour|day|week|month|year)s?\s+ago"
    r"|(?:yesterday|today)\b)",
    re.IGNORECASE,
)
#: The date a post's line shows: a date as `_DATE` finds it, with the weekday before it
#: and the year and the time after it ("Mon Mar 02, 2026 8:14 pm", "Mar 3, 2026 at
#: 7:14 PM"), cut out of its line ("by fran » Mon Mar 02, ...", "Posted: ...").
_DATE_PHRASE = re.compile(
    r"\b(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6}\.?,?\s+)?"
    r"(?:\d{1,4}[./-]\d{1,2}[./-]\d{2,4}"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}})?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+\d{{4}})?"
    r"|\d+\s+(?:second|minute|min|hour|day|week|month|year)s?\s+ago"
    r"|(?:yesterday|today)\b)"
    r"(?:,?\s*(?:at\s+)?\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\b\.?)?)?",
    re.IGNORECASE,
)
#: A post's date is a short line: longer text holding a date is a post's body.
DATE_LINE_MAX_CHARS = 80
#: At least this many posts ...
MIN_POSTS = 2
#: ... and this share of the run's members carry a date.
DATED_SHARE = 0.6
#: The posts hold at least this share of the page's text outside links.
POSTS_MIN_SHARE = 0.25
#: Runs judged for dates, the largest first (a date is looked for in each member).
RUNS_JUDGED = 8
#: Members of a run looked at for a date (a thread page shows 20 to 50 posts).
MEMBERS_JUDGED = 40
#: Two kinds of one tag alternating make one run (zebra rows) from this many members:
#: two (one of each) is as likely a header and its body.
ZEBRA_MIN = 3
#: A run inside a member of another holding this share of the other's text is the
#: thread, the other a layout around it.
INNER_RUN_SHARE = 0.5


@dataclass(slots=True)
class _Run:
    """Sibling elements of one kind under one parent, and their text outside links."""

    parent: Element
    members: list[Element]
    text: int
    key: tuple[str, str]


def _kind(element: Element) -> tuple[str, str]:
    """What makes sibling posts one kind: the tag, and the first class word without a
    digit ("post" of "post post-48213 alt2"; an id-like "post-48213" differs per post)."""
    for word in (element.get("class") or "").split():
        if not any(ch.isdigit() for ch in word):
            return element.tag, word
    return element.tag, ""


def _zebras(
    kinds: dict[tuple[str, str], list[Element]], children: list[tuple[tuple[str, str], Element]]
) -> dict[tuple[str, str], list[Element]]:
    """`kinds` (a parent's children by kind) with every two kinds of one tag that
    alternate among `children` (the parent's children in order, with their kinds)
    merged into one, its members in order: a forum that shades every other post gives
    its posts two classes ("odd" / "even")."""
    merged = dict(kinds)
    names = sorted(kinds)
    for n, first in enumerate(names):
        for second in names[n + 1 :]:
            if first[0] != second[0] or first not in merged or second not in merged:
                continue
            if abs(len(kinds[first]) - len(kinds[second])) > 1:
                continue
            if len(kinds[first]) + len(kinds[second]) < ZEBRA_MIN:
                continue
            pair = [(key, child) for key, child in children if key in (first, second)]
            if any(a[0] == b[0] for a, b in pairwise(pair)):
                continue
            del merged[first], merged[second]
            merged[(first[0], f"{first[1]}|{second[1]}")] = [child for _, child in pair]
    return merged


def _runs(stats: TextStats) -> list[_Run]:
    """Every run of two or more sibling elements of one kind (or of two alternating
    kinds, `_zebras`), the most text first."""
    of = stats.of
    runs: list[_Run] = []
    for parent in stats.elements:
        if len(parent) < MIN_POSTS:
            continue
        kinds: dict[tuple[str, str], list[Element]] = {}
        children: list[tuple[tuple[str, str], Element]] = []
        for child in parent:
            if isinstance(child.tag, str) and child in of:
                key = _kind(child)
                kinds.setdefault(key, []).append(child)
                children.append((key, child))
        if len(kinds) > 1:
            kinds = _zebras(kinds, children)
        for key, members in kinds.items():
            if len(members) >= MIN_POSTS:
                text = sum(of[m][CHARS] - of[m][LINK_CHARS] for m in members)
                if text:
                    runs.append(_Run(parent, members, text, key))
    runs.sort(key=lambda run: -run.text)
    return runs


def _dated(post: Element, stats: TextStats) -> bool:
    """The element carries a date: a ``<time>``, a ``datetime`` attribute, or a short
    line that is a date."""
    of = stats.of
    for element in post.iter():
        if element.tag == "time" or element.get("datetime"):
            return True
        s = of.get(element)
        if s is None or not s[CHARS] or s[CHARS] > DATE_LINE_MAX_CHARS:
            continue
        text = element.text_content() if len(element) else element.text or ""
        if _DATE.search(text):
            return True
    return False


def _posts_of(run: _Run, stats: TextStats) -> list[list[Element]] | None:
    """The posts of a run, each as its members (the member holding its message first):
    one member each when most members carry a date. When the dated members recur at a
    fixed period instead, a post is the `period` members from its dated one (its row,
    a row of buttons, a spacer row), its message the member at the offset from the
    dated one that holds the most text (the dated row itself, or the row after a
    header row). None when the run is not a thread."""
    judged = run.members[:MEMBERS_JUDGED]
    dated = [n for n, member in enumerate(judged) if _dated(member, stats)]
    if len(dated) < MIN_POSTS:
        return None
    if len(dated) >= DATED_SHARE * len(judged):
        return [[member] for member in run.members]
    gaps = Counter(b - a for a, b in pairwise(dated))
    period, regular = gaps.most_common(1)[0]
    if period < 2 or regular < DATED_SHARE * len(gaps):
        return None
    if len(dated) < DATED_SHARE * len(judged) / period:
        return None  # the dated posts do not fill the run (a few dated among many)
    members = run.members
    if len(members) > len(judged):  # the posts past the judged ones, dated as well
        dated += [n for n in range(len(judged), len(members)) if _dated(members[n], stats)]
    of = stats.of
    groups = [
        members[n : min(n + period, next_n)]
        for n, next_n in zip(dated, [*dated[1:], len(members)], strict=True)
    ]

    def text_at(offset: int) -> int:
        at = (group[offset] for group in groups if offset < len(group))
        return sum(of[m][CHARS] - of[m][LINK_CHARS] for m in at)

    offset = max(range(period), key=lambda o: (text_at(o), -o))  # ties: the dated one
    return [
        [group[offset], *(m for m in group if m is not group[offset])]
        for group in groups
        if offset < len(group)
    ]


def find_posts(page: Page) -> list[Element] | None:
    """The thread's posts in document order (the member holding each one's message),
    or None when the page has no run of dated sibling posts holding `POSTS_MIN_SHARE`
    of its text."""
    groups = find_post_groups(page)
    return [group[0] for group in groups] if groups else None


def find_post_groups(page: Page) -> list[list[Element]] | None:
    """The thread's posts in document order, each as its members, the one holding its
    message first (see `_posts_of`); None as `find_posts`."""
    stats = page.stats
    body = stats.of.get(page.body)
    if body is None:
        return None
    total = body[CHARS] - body[LINK_CHARS]
    threads: list[tuple[_Run, list[list[Element]]]] = []
    for run in _runs(stats)[:RUNS_JUDGED]:
        if run.text < POSTS_MIN_SHARE * total:
            break
        posts = _posts_of(run, stats)
        if posts is not None:
            threads.append((run, posts))
    for run, posts in threads:
        # a layout around the thread: the thread is a run inside one of its members
        inner = any(
            other.key != run.key
            and other.text >= INNER_RUN_SHARE * run.text
            and any(m in run.members for m in other.parent.iterancestors())
            for other, _ in threads
        )
        if not inner:
            return posts
    return None


#: A post's body is the child holding this share of its element's characters (a
#: message beside a user box, a footer of reactions): the descent from the post stops
#: where no child holds that much (the message's paragraphs).
BODY_SHARE = 0.6
#: The rule named in the loss audit for what a post's rewrite drops (its user box,
#: signature, reactions).
RULE = "forum"
#: A link to a member's profile, by the paths forum software gives them.
_PROFILE_HREF = re.compile(
    r"(?:/u/|/users?/|/members?/|/profile|/people/|/author/|member\.php|memberlist\.php"
    r"|viewprofile|/user-\d)",
    re.IGNORECASE,
)
#: Class / itemprop words of a post's author name.
_AUTHOR_WORDS = frozenset({"author", "username", "user-name", "poster", "creator", "name"})
#: An author's name is a short line.
AUTHOR_MAX_CHARS = 40


#: The boxes a post's message may be in; a paragraph, a list, a quote or a code block
#: is a part of the message, never the way to it.
_BOXES = frozenset(
    {"div", "section", "article", "main", "table", "tbody", "tr", "td", "span", "font", "center"}
)


def _custom(tag: object) -> bool:
    """A custom element's tag ("i-card", "post-body"): a box."""
    return isinstance(tag, str) and "-" in tag


def _body_path(post: Element, stats: TextStats) -> tuple[tuple[str, str], ...]:
    """The kinds of the elements from `post` down to its message: each step into the
    child holding `BODY_SHARE` of the characters."""
    of = stats.of
    path: list[tuple[str, str]] = []
    node = post
    while True:
        here = of[node][CHARS] if node in of else 0
        best, most = None, 0
        for child in node:
            s = of.get(child) if child.tag in _BOXES or _custom(child.tag) else None
            if s is not None and s[CHARS] > most:
                best, most = child, s[CHARS]
        if best is None or most < BODY_SHARE * here:
            return tuple(path)
        path.append(_kind(best))
        node = best


def _follow(post: Element, path: tuple[tuple[str, str], ...], stats: TextStats) -> Element | None:
    """The element `path` leads to from `post` (at each step the child of that kind
    with the most characters), None when some step finds no such child."""
    of = stats.of
    node = post
    for kind in path:
        best, most = None, -1
        for child in node:
            if isinstance(child.tag, str) and _kind(child) == kind:
                chars = of[child][CHARS] if child in of else 0
                if chars > most:
                    best, most = child, chars
        if best is None:
            return None
        node = best
    return node


def _is_time(element: Element) -> bool:
    """A ``<time>`` or an element giving a machine-readable date: its text is a date."""
    return element.tag == "time" or bool(element.get("datetime"))


def _around(node: Element, body: Element) -> Iterator[tuple[Element | None, str]]:
    """`node`'s content outside `body` in document order: (element, its own leading
    text) as each element starts, (None, its tail) after it; `body` as (body, "") and
    nothing of it; a date element's children are its text, not walked."""
    for child in node:
        if child is body:
            yield body, ""
        elif isinstance(child.tag, str):
            yield child, child.text or ""
            if not _is_time(child):
                yield from _around(child, body)
        if child.tail:
            yield None, child.tail


def _date_in(text: str) -> str:
    """The date a short line shows ("Posted: Mon Mar 02, 2026 8:14 pm" -> "Mon Mar 02,
    2026 8:14 pm"), "" when the line is long (a sentence of a post) or holds none."""
    line = " ".join(text.split())
    if not line or len(line) > DATE_LINE_MAX_CHARS:
        return ""
    found = _DATE_PHRASE.search(line)
    return found.group(0).strip(" ,") if found else ""


def _meta_line(members: list[Element], body: Element, stats: TextStats) -> str:
    """The post's author and date, outside its message: "felixen Jul 9, 2022".
    `members`: the post's elements in document order. The date is read from the
    post's text segments, cut out of its line ("by fran » Mon Mar 02, ...", a label
    and a date, a name and a date in one element), the one nearest the message (the
    last before it, else the first after it): a user box's "Joined: 14 Apr 2019" comes
    before the post's header."""
    of = stats.of
    author = before = after = ""
    passed = False  # the walk went past the message
    segments = (
        item for member in members for item in ((member, member.text or ""), *_around(member, body))
    )
    for element, text in segments:
        if element is body:
            passed = True
            continue
        if passed and after and author:
            break
        if element is not None and _is_time(element):
            date = " ".join(element.text_content().split()) or element.get("datetime", "")
        else:
            date = _date_in(text)
        if date:
            if not passed:
                before = date
            elif not after:
                after = date
        if element is None or author or not _names_author(element):
            continue
        s = of.get(element)
        name = " ".join(element.text_content().split())
        # an author's box that holds the date too ("by fran » Mar 2") is a line: its
        # name is in an element of its own, met next
        if s is not None and 0 < s[CHARS] <= AUTHOR_MAX_CHARS and not _DATE.search(name):
            author = name
    date = before or after
    words = author.split()
    half = len(words) // 2
    if half and len(words) % 2 == 0 and words[:half] == words[half:]:
        author = " ".join(words[:half])  # a name shown twice (its link and its label)
    return " ".join(part for part in (author, date) if part)


def _names_author(element: Element) -> bool:
    """A link to a member's profile, or a box named as the author's name."""
    if element.tag == "a" and _PROFILE_HREF.search(element.get("href") or ""):
        return True
    names = f"{element.get('class') or ''} {element.get('itemprop') or ''}".lower().split()
    return any(name in _AUTHOR_WORDS for name in names)


def _drop(element: Element, audit: LossAudit | None) -> None:
    """Remove `element`, its tail kept, noted in `audit` before it goes."""
    parent = element.getparent()
    if parent is None:
        return
    if audit is not None:
        audit.note(element, RULE)
    if element.tail and element.tail.strip():
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def _rebuild(
    groups: list[list[Element]], stats: TextStats, audit: LossAudit | None
) -> list[Element]:
    """Each post rewritten as its author and date line and its message, when the
    posts share the way down to their message (the path most of them take); what else
    a post holds (a user box, a signature, reactions, a reply's controls, its other
    rows) goes, each child noted in `audit` as it goes. A post that is a table's row
    gets its line and message in one cell, and the table's rows of header cells (the
    layout's "Author" / "Message") go: the table is the thread's layout, not data.
    Returns the elements to keep whole: posts, messages, lines."""
    posts = [group[0] for group in groups]
    paths: dict[tuple[tuple[str, str], ...], int] = {}
    for post in posts:
        path = _body_path(post, stats)
        paths[path] = paths.get(path, 0) + 1
    path = max(paths, key=paths.__getitem__)
    kept: list[Element] = list(posts)
    if not path:
        return kept
    tables: list[Element] = []
    for group in groups:
        post = group[0]
        body = _follow(post, path, stats)
        if body is None:
            continue
        parent = post.getparent()
        in_order = group if parent is None else [m for m in parent if m in group]
        line = _meta_line(in_order, body, stats)
        for other in group[1:]:
            _drop(other, audit)
        tail = post.tail
        # the replies nested in the post (a threaded view) stay, after its message
        kind = _kind(post)
        threaded = [
            child
            for child in post
            if isinstance(child.tag, str)
            and body not in child.iter()
            and any(_kind(inner) == kind for inner in child.iterdescendants(post.tag))
        ]
        for child in list(post):
            if child in threaded:
                post.remove(child)
                continue
            # noted before it goes, so the loss audit counts it; the message moves out
            # of its child below, and the audit counts the child's subtree only when it
            # settles, so the message is not counted as lost
            if audit is not None and isinstance(child.tag, str):
                audit.note(child, RULE)
            post.remove(child)
        post.text = None
        post.tail = tail
        box = post
        if post.tag == "tr":
            box = post.makeelement("td", {})
            post.append(box)
            table = parent
            if table is not None and table.tag in ("thead", "tbody", "tfoot"):
                table = table.getparent()
            if table is not None and table not in tables:
                tables.append(table)
        if line:
            meta = post.makeelement("p", {})
            meta.text = line
            box.append(meta)
            kept.append(meta)
        body.tail = None
        box.append(body)
        kept.append(body)
        box.extend(threaded)
    for table in tables:
        for row in table_rows(table)[0]:
            cells = [c for c in row if isinstance(c.tag, str)]
            if cells and all(c.tag == "th" for c in cells) and row not in kept:
                _drop(row, audit)
    return kept


def replies(posts: list[Element]) -> list[Element]:
    """The threaded replies inside `posts`, nested at any depth: their descendants of
    a post's kind (one tag, one leading class word; an ``<article>`` of any class),
    and, when the posts are themselves named as comments (``class="comment"``), their
    boxes named so (``id="comment_64153"``, ``class="replies"``): in a thread of
    comments, a reply and its box are posts, not a comment section under an article.
    The comments under a question's answers (posts named otherwise) are judged as
    usual. A kind without a class word (a bare ``<div>``) is not told apart from the
    boxes of a post's message, so it names no reply."""
    kinds = {_kind(post) for post in posts}
    named = {kind for kind in kinds if kind[1] or kind[0] == "article"}
    comments = any(element_verdict(post) == COMMENTS for post in posts)
    found: list[Element] = []
    for post in posts:
        for element in post.iterdescendants():
            if not isinstance(element.tag, str):
                continue
            if _kind(element) in named or (comments and element_verdict(element) == COMMENTS):
                found.append(element)
    return found


def forum_profile(inp: ProfileInput) -> ProfileResult | None:
    """Every post of the thread, in order (see the module docstring); None when the
    page shows no run of dated posts (the ladder takes it)."""
    page = measure_page(inp)
    groups = find_post_groups(page)
    if not groups:
        return None
    posts = [group[0] for group in groups]
    region = posts[0].getparent()
    assert region is not None  # a run's members have their parent
    if page.h1 is not None:
        # the title above the thread (a question above its answers): in the region
        # when the two meet below the page's body (else the title stays a field)
        both = common_ancestor(region, page.h1)
        if both is not None and both is not page.body and both.tag not in ("body", "html"):
            region = both
    kept = _rebuild(groups, page.stats, inp.audit)
    rewritten = len(kept) > len(posts)
    # a threaded reply is a post inside its parent post: kept whole as well (the
    # comment-thread rules would otherwise take it for a comment section)
    kept += replies(posts)
    result = clean_region(inp, page, region, "forum", keep=kept, rewritten=rewritten)
    drop_repeats(result.selection.root, inp.audit)
    return result


#: A paragraph repeated in a thread is a copy of a post (a quote of it, a preview of
#: the post a reply answers) from this many characters: a short line ("Thanks!",
#: "+1") is said again by another member.
REPEAT_MIN_CHARS = 60
#: The blocks compared: a post's paragraphs, list items, code blocks, table cells.
_PARAGRAPHS = ("p", "li", "pre", "dd", "td")


def drop_repeats(region: Element, audit: LossAudit | None) -> None:
    """Remove from `region` each paragraph whose text (whitespace-normalised, at least
    `REPEAT_MIN_CHARS`) an earlier paragraph of it already shows: a thread keeps each
    post once, where it is posted, not again in a quote or in a reply's preview of the
    post it answers. A paragraph holding another compared block is judged by its
    inner blocks."""
    seen: set[str] = set()
    repeats: list[Element] = []
    for block in region.iter(*_PARAGRAPHS):
        if next(block.iterdescendants(*_PARAGRAPHS), None) is not None:
            continue
        text = " ".join(block.text_content().split())
        if len(text) < REPEAT_MIN_CHARS:
            continue
        if text in seen:
            repeats.append(block)
        else:
            seen.add(text)
    for block in repeats:
        _drop(block, audit)
