"""clean.py on hostile pages: tab panels in linear time, hidden wrappers, shadow roots, framesets.

From an audit of the extraction engine: hundreds of tab groups took time quadratic in
their number; a hidden wrapper around the whole page (an app root set aria-hidden while
a consent dialog is open, a body shown by a script on load) emptied the page; declarative
shadow DOM and ``hidden="until-found"`` content were dropped; a frameset page lost its
``<noframes>`` text.
"""

from __future__ import annotations

from typing import Any

import lxml.html
import pytest

from webmd_spider.extract import ExtractOptions, clean, extract
from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.clean import TAB_LABEL_ATTR, remove_never_content
from webmd_spider.extract.parse import parse_html

PROSE = (
    "<p>This is a real paragraph of prose, with enough words to count as content. It has "
    "sentences and more sentences to make it long enough for selection by the extractor.</p>"
)
ARTICLE = f"<article><h1>Article</h1>{PROSE}{PROSE}{PROSE}</article>"


def _root(html: str) -> lxml.html.HtmlElement:
    root = parse_html(html)
    assert root is not None
    return root


def _page(body: str, *, body_attrs: str = "") -> lxml.html.HtmlElement:
    return _root(f"<html><head><title>t</title></head><body {body_attrs}>{body}</body></html>")


def _text(root: lxml.html.HtmlElement) -> str:
    body = root.find("body")
    return " ".join(" ".join((body if body is not None else root).itertext()).split())


def _markdown(html: str, **options: Any) -> str:
    doc = extract(html, "https://example.com/page", options=ExtractOptions(**options))
    assert doc.error is None
    return doc.markdown


# --- 1. tab panels: each index is built once per page, with the XPaths' first matches -----


def _tab_groups(count: int) -> str:
    groups = []
    for g in range(count):
        tabs = "".join(
            f"<button role=tab aria-controls=g{g}-{lang} id=t{g}-{lang}>{lang}</button>"
            for lang in ("python", "java", "go")
        )
        panels = "".join(
            f"<div role=tabpanel id=g{g}-{lang} aria-labelledby=t{g}-{lang}"
            f"{'' if lang == 'python' else ' hidden'}><pre><code>{lang}({g})</code></pre></div>"
            for lang in ("python", "java", "go")
        )
        groups.append(f"<h2>Step {g}</h2>{PROSE}<div class=tabs><div role=tablist>{tabs}</div>")
        groups.append(f"{panels}</div>")
    return "".join(groups)


class _Counting:
    """Wraps a compiled XPath (or a function) and counts its calls."""

    def __init__(self, xpath: Any) -> None:
        self.xpath = xpath
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.xpath(*args)


def test_many_tab_groups_search_the_page_once(monkeypatch: pytest.MonkeyPatch) -> None:
    with_id = _Counting(clean._WITH_ID)
    links = _Counting(clean._FRAGMENT_LINKS)
    monkeypatch.setattr(clean, "_WITH_ID", with_id)
    monkeypatch.setattr(clean, "_FRAGMENT_LINKS", links)
    root = _page(_tab_groups(300))
    remove_never_content(root)
    assert with_id.calls == 1  # one id index for 900 panels, not one search per panel
    assert links.calls == 0  # every panel was named by its aria-labelledby tab
    labels = [e.get(TAB_LABEL_ATTR) for e in root.iter("div") if e.get("role") == "tabpanel"]
    assert labels == ["python", "java", "go"] * 300
    assert root.find(".//*[@role='tablist']") is None


def test_pages_without_tab_panels_build_no_index(monkeypatch: pytest.MonkeyPatch) -> None:
    with_id = _Counting(clean._WITH_ID)
    links = _Counting(clean._FRAGMENT_LINKS)
    monkeypatch.setattr(clean, "_WITH_ID", with_id)
    monkeypatch.setattr(clean, "_FRAGMENT_LINKS", links)
    remove_never_content(_page(f"<div id=a>{PROSE}</div><a href='#a'>top</a><div hidden>x</div>"))
    # panels named by their tab's aria-controls need neither index either
    remove_never_content(
        _page(
            "<button role=tab aria-controls=p1>One</button><div role=tabpanel id=p1>1</div>"
            "<button role=tab aria-controls=p2>Two</button><div role=tabpanel id=p2 hidden>2</div>"
        )
    )
    assert with_id.calls == links.calls == 0


def test_tab_label_takes_the_first_element_with_the_id_as_before() -> None:
    # duplicate ids: the first in document order names the panel, like .//*[@id=$i][1]
    root = _page(
        "<span id=t1>Python</span><span id=t1>Ruby</span>"
        "<div class=tab-content><div class=tab-pane aria-labelledby=t1>a</div>"
        "<div class=tab-pane hidden aria-labelledby='missing t2'>b</div></div>"
        "<span id=t2>Go</span>"
    )
    remove_never_content(root)
    panes = [e for e in root.iter("div") if "tab-pane" in e.classes]
    assert [p.get(TAB_LABEL_ATTR) for p in panes] == ["Python", "Go"]


def test_tab_label_an_empty_first_match_is_not_skipped_for_a_later_one() -> None:
    # the first element with the id has no text: the old XPath gave it and moved on to
    # the panel's own attributes, not to the second element with that id
    root = _page(
        "<span id=t1></span><span id=t1>Ruby</span>"
        "<div class=tab-content><div class=tab-pane aria-labelledby=t1 data-lang=bash>a</div>"
        "<div class=tab-pane hidden data-lang=zsh>b</div></div>"
    )
    remove_never_content(root)
    panes = [e for e in root.iter("div") if "tab-pane" in e.classes]
    assert [p.get(TAB_LABEL_ATTR) for p in panes] == ["bash", "zsh"]


def test_bootstrap_tab_takes_the_first_link_to_its_id() -> None:
    root = _page(
        "<ul class='nav nav-tabs'><li><a href='#curl' data-toggle='tab'>cURL</a></li>"
        "<li><a href='#py'>Python</a></li></ul><p><a href='#curl'>see the curl example</a></p>"
        "<div class='tab-content'><div class='tab-pane' id='curl'><pre>curl x</pre></div>"
        "<div class='tab-pane' id='py' hidden><pre>requests.get(x)</pre></div></div>"
    )
    remove_never_content(root)
    panes = {e.get("id"): e.get(TAB_LABEL_ATTR) for e in root.iter("div") if e.get("id")}
    assert panes == {"curl": "cURL", "py": "Python"}


def test_many_tab_groups_extract_every_language() -> None:
    markdown = _markdown(f"<html><body><main><h1>Guide</h1>{_tab_groups(50)}</main></body></html>")
    for g in (0, 49):
        for lang in ("python", "java", "go"):
            assert f"{lang}({g})" in markdown


# --- 2. hidden wrappers, until-found, declarative shadow DOM -------------------------------


def test_app_root_hidden_behind_a_modal_keeps_the_page() -> None:
    # modal libraries set aria-hidden on the app root while their dialog is open
    markdown = _markdown(
        "<html><head><title>Article</title></head><body>"
        f"<div id=__next aria-hidden=true><main>{ARTICLE}</main></div>"
        "<div role=dialog aria-modal=true><p>We use cookies. <button>Accept</button></p></div>"
        "</body></html>"
    )
    assert "# Article" in markdown and "real paragraph of prose" in markdown


def test_inline_scripts_do_not_count_as_page_text() -> None:
    # a framework's JSON state can be much larger than the page it describes
    state = '{"props": "' + "x" * 50_000 + '"}'
    root = _page(
        f"<div id=__next aria-hidden=true>{ARTICLE}</div>"
        f"<script id=__NEXT_DATA__ type=application/json>{state}</script>"
    )
    remove_never_content(root)
    assert "real paragraph of prose" in _text(root)


def test_body_and_html_hidden_until_a_script_reveals_them_stay() -> None:
    for html in (
        f"<html><body style='display:none'>{ARTICLE}</body></html>",
        f"<html style='display:none'><body>{ARTICLE}</body></html>",
        f"<html><body hidden aria-hidden=true style='visibility:hidden'>{ARTICLE}</body></html>",
    ):
        assert "real paragraph of prose" in _markdown(html)


def test_hidden_main_holding_the_page_stays() -> None:
    root = _page(f"<nav><a href=/>Home</a></nav><main hidden>{ARTICLE}</main>")
    remove_never_content(root)
    assert root.find(".//main") is not None and "real paragraph" in _text(root)
    markdown = _markdown(f"<html><body><nav><a href=/>Home</a></nav><main hidden>{ARTICLE}</main>")
    assert "real paragraph of prose" in markdown


@pytest.mark.parametrize(
    "hidden",
    [
        # a mega-menu hidden until hovered
        "<div class=mega-menu style='display:none'><ul>"
        + "".join(f"<li><a href=/c{i}>Category number {i} of the shop</a></li>" for i in range(12))
        + "</ul></div>",
        # a newsletter modal
        "<div class=modal aria-hidden=true><h2>Subscribe to our newsletter</h2><p>"
        + "Get the best stories of the week delivered to your inbox every Friday. " * 4
        + "</p></div>",
        # a mobile nav
        "<nav id=mobile-nav hidden><ul>"
        + "".join(f"<li><a href=/s{i}>Section {i} of the site</a></li>" for i in range(15))
        + "</ul></nav>",
    ],
)
def test_normal_page_still_loses_hidden_menus_modals_and_navs(hidden: str) -> None:
    root = _page(f"<header>{hidden}</header>{ARTICLE}{PROSE}")
    hidden_chars = clean.visible_chars(_root(f"<html><body>{hidden}</body></html>"))
    assert hidden_chars >= v.HIDDEN_WRAPPER_MIN_CHARS  # big enough to be weighed...
    assert hidden_chars <= v.HIDDEN_WRAPPER_SHARE * clean.visible_chars(root.find("body"))
    remove_never_content(root)  # ...and still less than half the page: it goes
    text = _text(root)
    assert "Category" not in text and "newsletter" not in text and "Section" not in text
    assert "real paragraph of prose" in text


def test_short_hidden_block_goes_even_when_it_is_most_of_the_page() -> None:
    root = _page("<p>Hi.</p><div hidden><p>Your session has expired, sign in again.</p></div>")
    remove_never_content(root)
    assert _text(root) == "Hi."


def test_kept_wrapper_still_loses_its_own_hidden_parts_and_labels_its_tabs() -> None:
    root = _page(
        "<div id=app aria-hidden=true>"
        "<nav hidden><ul>"
        + "".join(f"<li><a href=/s{i}>Section {i} of the site</a></li>" for i in range(15))
        + f"</ul></nav>{ARTICLE}<span aria-hidden=true>icon</span>"
        "<div class=tab-content><div class=tab-pane data-lang=bash><pre>ls</pre></div>"
        "<div class=tab-pane hidden data-lang=powershell><pre>dir</pre></div></div>"
        "</div><div role=dialog><p>We use cookies.</p></div>"
    )
    remove_never_content(root)
    text = _text(root)
    assert "real paragraph of prose" in text and "We use cookies." in text
    assert "Section" not in text and "icon" not in text
    assert root.find(".//*[@id='app']") is not None
    panes = [e.get(TAB_LABEL_ATTR) for e in root.iter("div") if "tab-pane" in e.classes]
    assert panes == ["bash", "powershell"]


def test_deeply_nested_hidden_wrappers_are_weighed_in_one_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # each level would cost one measure of the whole page: a page can nest hundreds
    walks = _Counting(clean._page_wrappers_by_walk)
    monkeypatch.setattr(clean, "_page_wrappers_by_walk", lambda r, h: walks(r, h))
    nested = "<div hidden>" * 200 + ARTICLE * 20 + "</div>" * 200
    root = _page(nested + "<div hidden><p>" + "menu entry " * 40 + "</p></div>")
    remove_never_content(root)
    assert walks.calls == 1
    text = _text(root)
    assert text.count("real paragraph of prose") == 60 and "menu entry" not in text


def test_walk_and_measures_agree_on_which_hidden_elements_hold_the_page() -> None:
    root = _page(
        f"<div id=a hidden>{ARTICLE}</div><div id=b hidden><p>" + "menu entry " * 30 + "</p></div>"
    )
    hidden = clean._hidden_elements(root)
    measured = clean._page_wrappers(root, hidden)
    walked = clean._page_wrappers_by_walk(root, hidden)
    assert {e.get("id") for e in measured} == {e.get("id") for e in walked} == {"a"}


@pytest.mark.parametrize("value", ["until-found", "UNTIL-FOUND", "Until-Found"])
def test_hidden_until_found_is_content(value: str) -> None:
    # HTML 6.1 "The hidden attribute": the hidden-until-found state is revealed by
    # find-in-page and fragment navigation (the keyword is ASCII case-insensitive)
    root = _page(f"<p>Intro.</p><details-like hidden='{value}'><p>Found answer.</p></details-like>")
    remove_never_content(root)
    assert _text(root) == "Intro. Found answer."


@pytest.mark.parametrize("value", ["", "hidden", "until found", "false"])
def test_other_hidden_values_still_hide(value: str) -> None:
    root = _page(f"<p>Intro.</p><div hidden='{value}'><p>Secret.</p></div>")
    remove_never_content(root)
    assert _text(root) == "Intro."


@pytest.mark.parametrize(
    "template",
    [
        "<template shadowrootmode=open>",
        "<template shadowrootmode='CLOSED'>",
        "<template shadowroot=open>",  # Chrome's older, pre-standard attribute
    ],
)
def test_declarative_shadow_root_is_rendered_content(template: str) -> None:
    html = (
        "<html><body><article><h1>Card</h1><my-card>"
        f"{template}<style>p {{ color: red }}</style><p>Shadow words of the card.</p>"
        "<script>track()</script></template><span>Light words.</span></my-card>"
        "</article></body></html>"
    )
    root = _root(html)
    remove_never_content(root)
    assert _text(root) == "Card Shadow words of the card. Light words."
    assert root.find(".//template") is None
    assert "Shadow words of the card." in _markdown(html)


@pytest.mark.parametrize("attrs", ["", "shadowrootmode=none", "shadowrootmode=''", "mode=open"])
def test_other_templates_stay_inert(attrs: str) -> None:
    root = _page(f"<div><template {attrs}><p>Row template.</p></template><p>Seen.</p></div>")
    remove_never_content(root)
    assert _text(root) == "Seen."


def test_only_the_first_shadow_root_of_a_host_attaches() -> None:
    # HTML 13.2.6.4.4: a host that already has a shadow root gets an ordinary template
    root = _page(
        "<x-host><template shadowrootmode=open><p>First.</p></template>"
        "<template shadowrootmode=open><p>Second.</p></template></x-host>"
        "<x-host><template shadowrootmode=closed><p>Other host.</p></template></x-host>"
    )
    remove_never_content(root)
    assert _text(root) == "First. Other host."


# --- 3. frameset pages: <noframes> is the content -------------------------------------------

FRAMESET = (
    "<html><head><title>Frames</title></head><frameset cols='50%,50%'>"
    "<frame src='nav.html'><frame src='main.html'><noframes><body><h1>Welcome</h1>"
    "<p>This site uses frames. Here is the full text of the welcome page for browsers "
    "without frames, with several sentences.</p><script>alert(1)</script></body></noframes>"
    "</frameset></html>"
)


def test_frameset_page_gives_its_noframes_content() -> None:
    doc = extract(FRAMESET, "https://example.com/")
    assert doc.error is None
    assert doc.markdown.startswith("# Welcome\n\nThis site uses frames.")
    assert "alert" not in doc.markdown and "<p>" not in doc.markdown
    assert doc.word_count > 10


def test_frameset_page_with_frames_kept_gives_its_noframes_content_once() -> None:
    # the frames stay, the <noframes> raw text goes once it is parsed (no "\\<body>" text)
    markdown = _markdown(FRAMESET, keep_frames=True)
    assert markdown.startswith("# Welcome\n\nThis site uses frames.")
    assert markdown.count("This site uses frames.") == 1 and "<" not in markdown


def test_frameset_page_noframes_parts_are_joined_in_order() -> None:
    root = _root(
        "<html><head><noframes><p>First part.</p></noframes></head>"
        "<frameset><frame src=a.html><noframes><p>Second part.</p></noframes></frameset></html>"
    )
    remove_never_content(root)
    assert _text(root) == "First part. Second part."
    assert root.find(".//noframes") is None and root.find("frameset") is None


@pytest.mark.parametrize(
    "html",
    [
        "<html><head><title>F</title></head><frameset><frame src=a.html></frameset></html>",
        "<html><frameset><noframes>   </noframes></frameset></html>",
        "<html><frameset><noframes><title>only a title</title></noframes></frameset></html>",
        "<html><frameset><noframes>\x00<<>>&&#0;</noframes></frameset></html>",
    ],
)
def test_frameset_page_without_usable_noframes_is_empty_not_an_error(html: str) -> None:
    doc = extract(html, "https://example.com/")
    assert doc.error is None


def test_noframes_of_a_page_with_a_body_is_left_as_it_was() -> None:
    root = _page("<p>Body text.</p><noframes><p>Alt.</p></noframes>")
    before = lxml.html.tostring(root)
    remove_never_content(root)
    assert lxml.html.tostring(root) == before
