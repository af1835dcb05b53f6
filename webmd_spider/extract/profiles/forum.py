"""The forum profile (issue 32): a thread's main content is every post, in thread
order, each with its author and date as a short line.

Pure module. The single-root ladder picks one post, or the thread's container and then
cleans the posts out of it as a comment thread. This profile finds the posts by their
structure, whatever the forum software names them: the largest run of sibling
elements of one kind (one tag, one leading class word) most of which carry a date (a
``<time>``, a ``datetime`` attribute, or a short line that is a date: "Jul 9, 2022",
"11-29-2024, 09:03 AM", "3 hours ago"). A run whose every member holds another such
run is a layout around the thread (two page columns), and the inner run is the thread.

The region is the posts' container, widened to the page's title heading when that sits
outside it (a question above its answers, a story above its comments) and the two
meet below ``<body>``. It is cleaned as the ladder cleans its root, each post kept
whole (what is inside a post, a signature or a share bar, is judged as usual).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.profiles import ProfileInput, ProfileResult
from webmd_spider.extract.profiles.region import (
    Page,
    clean_region,
    common_ancestor,
    measure_page,
)
from webmd_spider.extract.stats import CHARS, LINK_CHARS, Element, TextStats

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


def _runs(stats: TextStats) -> list[_Run]:
    """Every run of two or more sibling elements of one kind, the most text first."""
    of = stats.of
    runs: list[_Run] = []
    for parent in stats.elements:
        if len(parent) < MIN_POSTS:
            continue
        kinds: dict[tuple[str, str], list[Element]] = {}
        for child in parent:
            if isinstance(child.tag, str) and child in of:
                kinds.setdefault(_kind(child), []).append(child)
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


def find_posts(page: Page) -> list[Element] | None:
    """The thread's posts in document order, or None when the page has no run of
    dated sibling posts holding `POSTS_MIN_SHARE` of its text."""
    stats = page.stats
    body = stats.of.get(page.body)
    if body is None:
        return None
    total = body[CHARS] - body[LINK_CHARS]
    threads: list[_Run] = []
    for run in _runs(stats)[:RUNS_JUDGED]:
        if run.text < POSTS_MIN_SHARE * total:
            break
        members = run.members[:MEMBERS_JUDGED]
        dated = sum(1 for m in members if _dated(m, stats))
        if dated >= MIN_POSTS and dated >= DATED_SHARE * len(members):
            threads.append(run)
    for run in threads:
        # a layout around the thread: the thread is a run inside one of its members
        inner = any(
            other.key != run.key
            and other.text >= INNER_RUN_SHARE * run.text
            and any(m in run.members for m in other.parent.iterancestors())
            for other in threads
        )
        if not inner:
            return run.members
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
#: A box holding a date and more (a "Posted" label, the post's number) is its line
#: when it is this short.
DATE_MAX_CHARS = 40
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


def _meta_line(post: Element, body: Element, stats: TextStats) -> str:
    """The post's author and date, outside its message: "felixen Jul 9, 2022". The
    date is the one nearest the message (the last before it, else the first after it):
    a user box's "Joined: 14 Apr 2019" comes before the post's header."""
    of = stats.of
    author = before = after = ""
    inside = False  # the walk is in the message
    passed = False  # the walk went past the message
    for element in post.iter():
        if element is body:
            inside = True
            continue
        if inside:
            if body in element.iterancestors():
                continue
            inside, passed = False, True
        if passed and after and author:
            break
        s = of.get(element)
        if s is None or not s[CHARS] or s[CHARS] > DATE_LINE_MAX_CHARS:
            continue
        text = " ".join(element.text_content().split())
        if (
            element.tag == "time"
            or element.get("datetime")
            or ((len(element) == 0 or s[CHARS] <= DATE_MAX_CHARS) and _DATE.search(text))
        ):
            if not passed:
                before = text
            elif not after:
                after = text
        elif not author and s[CHARS] <= AUTHOR_MAX_CHARS and _names_author(element):
            author = text
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


def _rebuild(posts: list[Element], stats: TextStats, audit: LossAudit | None) -> list[Element]:
    """Each post rewritten as its author and date line and its message, when the
    posts share the way down to their message (the path most of them take); what else
    a post holds (a user box, a signature, reactions, a reply's controls) goes, each
    child noted in `audit` as it goes. Returns the elements to keep whole: posts,
    messages, lines."""
    paths: dict[tuple[tuple[str, str], ...], int] = {}
    for post in posts:
        path = _body_path(post, stats)
        paths[path] = paths.get(path, 0) + 1
    path = max(paths, key=paths.__getitem__)
    kept: list[Element] = list(posts)
    if not path:
        return kept
    for post in posts:
        body = _follow(post, path, stats)
        if body is None:
            continue
        line = _meta_line(post, body, stats)
        tail = post.tail
        for child in list(post):
            # noted before it goes, so the loss audit counts it; the message moves out
            # of its child below, and the audit counts the child's subtree only when it
            # settles, so the message is not counted as lost
            if audit is not None and isinstance(child.tag, str):
                audit.note(child, RULE)
            post.remove(child)
        post.text = None
        post.tail = tail
        if line:
            meta = post.makeelement("p", {})
            meta.text = line
            post.append(meta)
            kept.append(meta)
        body.tail = None
        post.append(body)
        kept.append(body)
    return kept


def forum_profile(inp: ProfileInput) -> ProfileResult | None:
    """Every post of the thread, in order (see the module docstring); None when the
    page shows no run of dated posts (the ladder takes it)."""
    page = measure_page(inp)
    posts = find_posts(page)
    if not posts:
        return None
    region = posts[0].getparent()
    assert region is not None  # a run's members have their parent
    if page.h1 is not None:
        # the title above the thread (a question above its answers): in the region
        # when the two meet below the page's body (else the title stays a field)
        both = common_ancestor(region, page.h1)
        if both is not None and both is not page.body and both.tag not in ("body", "html"):
            region = both
    kept = _rebuild(posts, page.stats, inp.audit)
    rewritten = len(kept) > len(posts)
    return clean_region(inp, page, region, "forum", keep=kept, rewritten=rewritten)
