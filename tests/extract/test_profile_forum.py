# ruff: noqa: E501  (HTML fixtures: one element a line)
"""The forum profile (issue 32): every post of a thread, in order, each with its author
and date line; the posts' user boxes and signatures out; pages without dated posts
left to the ladder."""

from __future__ import annotations

import lxml.html

from webmd_spider.extract import ExtractOptions, extract
from webmd_spider.extract.clean import body_of
from webmd_spider.extract.profiles import PROFILES
from webmd_spider.extract.profiles.forum import find_posts, forum_profile
from webmd_spider.extract.profiles.region import Page, standalone
from webmd_spider.extract.stats import measure
from webmd_spider.extract.survey import survey

_NAMES = ["amber", "basil", "cedar", "dahlia", "elm", "fern"]


def _post(n: int) -> str:
    name = _NAMES[n % len(_NAMES)]
    body = f"Reply number {n} says the dough should rest for {n + 10} minutes before shaping."
    if n == 0:
        body = "My loaf keeps collapsing in the oven after the second rise. What am I doing wrong?"
    return f"""
<div class="post post-{1000 + n}">
  <div class="userbox"><a href="/members/{name}.{n}/">{name}</a>
    <div>Senior Member</div><div>Joined: 14 Apr 2019</div><div>Posts: 98{n}</div></div>
  <div class="content">
    <div class="head"><span>Mar {n + 1}, 2024</span> <a href="#p{n}">#{n + 1}</a></div>
    <div class="message"><p>{body}</p><p>Second paragraph of post {n}, with more words in it.</p></div>
    <div class="sig">Life is too short for shop-bought bread</div>
  </div>
</div>"""


def _thread(posts: int) -> str:
    return f"""<html><head><title>Loaf collapsing - Baking Forum</title></head><body>
<header><nav><a href="/">Forums</a> <a href="/new">New posts</a> <a href="/members">Members</a></nav></header>
<div id="page"><div class="main-col"><h1>Loaf collapsing</h1>
<div class="thread">{"".join(_post(n) for n in range(posts))}</div></div>
<aside><h3>Trending</h3><ul><li><a href="/t/1">Sourdough starter smells</a></li>
<li><a href="/t/2">Best flour for pizza</a></li></ul></aside></div>
<footer>Powered by BoardSoft. Terms. Privacy.</footer></body></html>"""


def _forum(html: str) -> str:
    return extract(
        html, "https://forum.example/t/1", options=ExtractOptions(page_type="forum")
    ).text


def test_registered() -> None:
    assert PROFILES["forum"] is forum_profile


def test_every_post_in_thread_order_with_author_and_date() -> None:
    text = _forum(_thread(20))
    assert "My loaf keeps collapsing" in text
    positions = [text.find(f"Reply number {n} says") for n in range(1, 20)]
    assert all(p >= 0 for p in positions)
    assert positions == sorted(positions)  # thread order
    assert "basil Mar 2, 2024" in text  # the post's author and date as one short line
    assert "Second paragraph of post 19" in text


def test_user_boxes_signatures_and_chrome_out() -> None:
    text = _forum(_thread(8))
    for chrome in ("Joined: 14 Apr 2019", "Posts: 98", "Senior Member", "shop-bought", "Trending"):
        assert chrome not in text
    assert "Powered by BoardSoft" not in text


def _page(html: str) -> Page:
    root = lxml.html.document_fromstring(html)
    body = body_of(root)
    stats = measure(body)
    return Page(body, stats, None, survey(body, stats), 0)


def test_posts_found_as_the_dated_run() -> None:
    page = _page(_thread(5))
    posts = find_posts(page)
    assert posts is not None and len(posts) == 5
    assert all("post" in (p.get("class") or "") for p in posts)


def test_no_dated_run_leaves_the_page_to_the_ladder() -> None:
    paragraphs = "".join(
        f"<p>Paragraph {n} of an essay about bread, long enough to be prose here.</p>"
        for n in range(12)
    )
    html = f"<html><body><article><h1>Bread</h1>{paragraphs}</article></body></html>"
    assert find_posts(_page(html)) is None
    doc = extract(html, "https://blog.example/bread", options=ExtractOptions(page_type="forum"))
    assert doc.extraction_method != "forum"
    assert "Paragraph 11 of an essay" in doc.text


def test_a_layout_pair_around_the_thread_is_not_the_thread() -> None:
    # two dated page columns (the thread's, a "latest" box's) around a run of posts
    latest = "".join(f'<div class="item">Latest {n}, Jan {n + 1}, 2024</div>' for n in range(3))
    html = f"""<html><body><div class="col">{_thread(6).split("<body>")[1].split("</body>")[0]}</div>
<div class="col">{latest}</div></body></html>"""
    posts = find_posts(_page(html))
    assert posts is not None and len(posts) == 6


def _boxed_post(n: int) -> str:
    """A post whose user box and signature hold kinds the loss audit counts (a heading
    for the name, paragraphs for the rank and the signature)."""
    name = _NAMES[n % len(_NAMES)]
    return f"""
<article class="message">
  <section class="user"><h4 class="username"><a href="/members/{name}.{n}/">{name}</a></h4>
    <p>Joined: Apr 14, 2019</p></section>
  <div class="main"><header><time datetime="2024-03-{n + 1:02d}">Mar {n + 1}, 2024</time></header>
    <div class="message-body"><p>Post {n} says the starter wants feeding twice a day in a warm kitchen.</p>
      <p>And a second paragraph of post {n}, about the flour it gets.</p></div>
    <aside class="signature"><p>Crumb shots or it did not happen</p></aside></div>
</article>"""


def test_what_the_rebuild_drops_is_in_the_loss_audit() -> None:
    """Each post's user box and signature, dropped when the post is rewritten as its
    line and its message, are counted as removed (the audit's invariant: what the root
    held = what is kept + what is counted removed)."""
    html = f"""<html><head><title>Starter - Baking Forum</title></head><body>
<div class="thread"><h1>Starter</h1>{"".join(_boxed_post(n) for n in range(3))}</div>
</body></html>"""
    doc = extract(
        html,
        "https://forum.example/t/2",
        options=ExtractOptions(page_type="forum", include_html=True),
    )
    assert doc.removed is not None
    forum = doc.removed["by_rule"]["forum"]
    assert forum["heading"] == 3  # the name headings of the three user boxes
    assert forum["paragraph"] == 6  # their "Joined" lines and the signatures
    assert "Crumb shots" not in doc.text and "Joined" not in doc.text
    assert "amber Mar 1, 2024" in doc.text


_BODIES = [
    "The paddle has seized onto the shaft and will not come off, even with pliers today.",
    "Fill the pan with hot water and run the dough cycle for five minutes with nothing in it.",
    "That worked on the second go, after about three minutes I heard a clunk and it was loose.",
    "A drop of cooking oil on the shaft before the paddle goes back on stops it sticking again.",
    "Thanks all, marking this one as solved so that others can find the answer later on.",
]


def _table_thread() -> str:
    """An old table layout (phpBB 2): a header row of column labels, then per post its
    row (a user cell, a cell of a "Posted:" header and the message), a row of buttons
    and a spacer row; the post rows' cells shaded "row1", the button rows' "row2"."""
    rows = []
    for n, text in enumerate(_BODIES):
        name = _NAMES[n]
        rows.append(f"""
<tr><td class="row1"><span class="name"><b>{name}</b></span><br><span class="details">Member<br>Joined: 0{n + 1} Sep 2011<br>Posts: 9{n}</span></td>
<td class="row1"><table><tr><td><span class="details">Posted: Sun Jan 1{n}, 2026 9:0{n} am&nbsp; Post subject: paddle</span></td></tr>
<tr><td><hr></td></tr>
<tr><td><span class="postbody">{text}<br><br>A second line of post {n} about the bread machine.</span><span class="postbody"><br>_____<br>Signature of {name}</span></td></tr></table></td></tr>
<tr><td class="row2"><a href="#top">Back to top</a></td><td class="row2"><a href="profile.php?mode=viewprofile&u={n}"><img src="/i/profile.gif" alt="View profile"></a> <a href="privmsg.php?u={n}"><img src="/i/pm.gif" alt="Send message"></a></td></tr>
<tr><td class="spacer" colspan="2"><img src="/i/spacer.gif" alt=""></td></tr>""")
    return f"""<html><head><title>Paddle stuck - Kettle Forums</title></head><body>
<table width="100%"><tr><td><a href="/">Kettle Forums</a> <a href="/faq">FAQ</a> <a href="/search">Search</a></td></tr></table>
<table class="forumline"><tr><th>Author</th><th>Message</th></tr>{"".join(rows)}</table>
<table><tr><td>All times are GMT. Powered by BoardSoft.</td></tr></table></body></html>"""


def test_a_table_layout_thread_is_every_post_and_its_region_a_whole_table() -> None:
    """Posts laid out as a table's rows, each post three rows (its row, its buttons, a
    spacer): every post is found, in order, and the region is the table (a row alone
    does not stand: serialised, it does not parse back as one element)."""
    html = _table_thread()
    doc = extract(
        html,
        "https://forum.example/viewtopic.php?t=1",
        options=ExtractOptions(page_type="forum", include_html=True),
    )
    assert doc.extraction_method == "forum"
    positions = [doc.text.find(body) for body in _BODIES]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)
    assert "cedar Sun Jan 12, 2026 9:02 am" in doc.text  # the post's date, not "Joined"
    for chrome in ("Joined:", "Back to top", "View profile", "Signature of", "Author"):
        assert chrome not in doc.text
    assert doc.html is not None
    assert lxml.html.fragment_fromstring(doc.html).tag in ("table", "div", "body")


def test_zebra_posts_of_two_classes_are_one_run() -> None:
    """Posts shaded in turn ("odd" / "even", no class word shared) are one thread."""
    posts = "".join(
        f'<div class="{"odd" if n % 2 else "even"}"><b class="author">{_NAMES[n]}</b>'
        f" <span>Mar {n + 1}, 2024</span><p>{text}</p></div>"
        for n, text in enumerate(_BODIES)
    )
    html = f"<html><body><h1>Paddle</h1><div>{posts}</div></body></html>"
    found = find_posts(_page(html))
    assert found is not None and len(found) == len(_BODIES)
    text = _forum(html)
    assert all(body in text for body in _BODIES)


def _phpbb_post(n: int, signature: bool) -> str:
    """A phpBB 3 post: a profile box (name, rank, "Joined:" date) before the post's
    body, whose author line reads "by <name> » <date>"; a signature or none."""
    name = _NAMES[n]
    sig = (
        f'<div class="signature">Printing badly since 2024, says {name}</div>' if signature else ""
    )
    return f"""
<div class="post bg{n % 2 + 1}"><div class="inner">
  <dl class="postprofile"><dt><a href="./memberlist.php?mode=viewprofile&u={n}" class="username">{name}</a></dt>
    <dd>Member</dd><dd><strong>Joined:</strong> Thu Aug 0{n + 1}, 2019 6:12 pm</dd></dl>
  <div class="postbody"><div>
    <p class="author"><span>by <strong><a href="./memberlist.php?mode=viewprofile&u={n}" class="username">{name}</a></strong> » </span>Mon Mar 0{n + 1}, 2026 8:1{n} pm</p>
    <div class="content">{_BODIES[n]}<br><br>And a second line in post {n} about the printer bed.</div>{sig}
  </div></div>
  <div class="back2top"><a href="#top">Top</a></div>
</div></div>"""


def test_phpbb_author_line_is_name_and_the_posts_date() -> None:
    """Each post's line is its author once and its own date, cut out of "by <name> »
    <date>", with a signature or without one (never the profile box's "Joined")."""
    posts = "".join(_phpbb_post(n, signature=n % 2 == 0) for n in range(5))
    html = f"""<html><head><title>First layer - Printer Forum</title></head><body>
<div class="navbar"><a href="/">Board index</a> <a href="/faq">FAQ</a></div>
<div id="page-body"><h2>First layer will not stick</h2>{posts}</div>
<div class="copyright">Powered by phpBB</div></body></html>"""
    text = _forum(html)
    for n in range(5):
        assert f"{_NAMES[n]} Mon Mar 0{n + 1}, 2026 8:1{n} pm" in text, n
        assert _BODIES[n] in text
    for chrome in ("Joined", "by amber", "»", "Printing badly"):
        assert chrome not in text


def test_a_region_stands_alone() -> None:
    """A table's row or cell widens to its table, a list's item to its list."""
    root = lxml.html.document_fromstring(
        "<html><body><table><tbody><tr><td>a</td></tr></tbody></table>"
        "<ul><li>b</li></ul><div>c</div></body></html>"
    )
    table, ul, div = root.find("body")
    assert standalone(table.find(".//td")) is table
    assert standalone(table.find(".//tr")) is table
    assert standalone(ul.find("li")) is ul
    assert standalone(div) is div


def _comment(n: int, replies: str = "") -> str:
    name = _NAMES[n % len(_NAMES)]
    return f"""
<li class="comment" id="tree_{500 + n}"><div class="cw" id="comment_{500 + n}">
  <div class="head"><a href="/users/{name}">{name}</a> <span>Jan {n + 1}, 2024</span></div>
  <div class="body"><p>Comment {n}: the kernel would gain {n + 2} new kinds of undefined behaviour from that change.</p></div>
</div>{f'<ul class="replies">{replies}</ul>' if replies else ""}</li>"""


def test_threaded_replies_are_posts_not_a_comment_section() -> None:
    # a story and its threaded comments, the replies nested in the comment they answer:
    # every reply is a post of the thread (the comment rules took the nested ones)
    nested = _comment(10, _comment(11) + _comment(12, _comment(13)))
    html = f"""<html><head><title>Kernel in C++? - News for nerds</title></head><body>
<nav><a href="/">Home</a> <a href="/new">Recent</a></nav>
<section><h1>Kernel in C++?</h1><article class="story"><p>A six year old discussion about converting the kernel to C++ has been reignited on the mailing list this week.</p></article>
<ul class="commentlisting">{_comment(0)}{nested}{_comment(1)}{_comment(2)}</ul></section>
<footer>All trademarks are property of their owners.</footer></body></html>"""
    text = _forum(html)
    for n in (0, 10, 11, 12, 13, 1, 2):
        assert f"Comment {n}: the kernel" in text
    assert text.index("Comment 10:") < text.index("Comment 13:") < text.index("Comment 1:")


def test_a_quoted_post_is_kept_once() -> None:
    # a reply quoting a post of the page in full, and a reply's preview of the post it
    # answers: the thread shows each paragraph once, where it was posted
    first = "My loaf keeps collapsing in the oven after the second rise. What am I doing wrong?"
    posts = [_post(n) for n in range(4)]
    posts[2] = posts[2].replace(
        '<div class="message">',
        f'<div class="message"><blockquote><p>{first}</p></blockquote>'
        f'<div class="preview"><p>{first}</p></div>',
    )
    html = _thread(4).replace("".join(_post(n) for n in range(4)), "".join(posts))
    text = _forum(html)
    assert text.count(first) == 1
    assert "Reply number 2 says" in text
    assert text.index(first) < text.index("Reply number 1 says")
