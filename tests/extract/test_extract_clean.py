"""remove_never_content: what is never content goes, hidden tab panels stay labelled."""

from __future__ import annotations

import lxml.html

from webmd_spider.extract.clean import TAB_LABEL_ATTR, remove_never_content
from webmd_spider.extract.parse import parse_html


def _page(body: str) -> lxml.html.HtmlElement:
    root = parse_html(f"<html><head><title>t</title></head><body>{body}</body></html>")
    assert root is not None
    return root


def _text(root: lxml.html.HtmlElement) -> str:
    """The body's words, one space between text nodes."""
    body = root.find("body")
    return " ".join(" ".join((body if body is not None else root).itertext()).split())


def test_scripts_styles_and_media_go_but_tail_text_stays() -> None:
    root = _page(
        "<p>Before <script>var x = 1;</script>after.</p><style>p{}</style>"
        "<noscript>Enable JS</noscript><svg><text>icon</text></svg>"
        "<template><p>tpl</p></template><p>End</p>"
    )
    remove_never_content(root)
    assert _text(root) == "Before after. End"


def test_comments_and_processing_instructions_go_keeping_tails() -> None:
    # the project parser drops comments already; the default one keeps them
    root = lxml.html.document_fromstring(
        "<html><body><p>One <!-- hidden note -->two<?php echo 1 ?> three</p></body></html>"
    )
    remove_never_content(root)
    assert "hidden note" not in lxml.html.tostring(root, encoding="unicode")
    assert _text(root) == "One two three"


def test_iframes_go_unless_kept() -> None:
    root = _page('<p>Text</p><iframe src="https://x.test/embed">frame fallback</iframe>')
    remove_never_content(root)
    assert root.find(".//iframe") is None
    kept = _page('<p>Text</p><iframe src="https://x.test/embed"></iframe>')
    remove_never_content(kept, keep_frames=True)
    assert kept.find(".//iframe") is not None


def test_form_controls_go_but_a_heading_button_keeps_its_words() -> None:
    root = _page(
        "<p>Pick <select><option>One</option><option>Two</option></select> now"
        "<input value='typed'><textarea>draft</textarea><button>Send</button></p>"
        "<h3><button aria-expanded='false'>How do refunds work?</button></h3><p>Answer.</p>"
    )
    remove_never_content(root)
    text = _text(root)
    assert "One" not in text and "Send" not in text and "draft" not in text
    assert "How do refunds work?" in text


def test_small_forms_go() -> None:
    article = "<p>" + "Real article text in a sentence. " * 20 + "</p>"
    root = _page(
        f"<article>{article}</article>"
        "<form action='/search'><label>Search the site</label><input name='q'></form>"
    )
    remove_never_content(root)
    assert root.find(".//form") is None
    assert "Search the site" not in _text(root)
    assert "Real article text" in _text(root)


def test_aspnet_whole_page_form_is_kept() -> None:
    article = "<p>" + "The whole page sits in one form, as ASP.NET does. " * 10 + "</p>"
    root = _page(
        f"<form id='aspnetForm' method='post'><input type='hidden' name='__VIEWSTATE'>"
        f"<h1>Title</h1>{article}</form>"
    )
    remove_never_content(root)
    text = _text(root)
    assert "Title" in text and "ASP.NET" in text


def test_hidden_elements_go() -> None:
    root = _page(
        "<p>Seen</p><div hidden>attr</div><div aria-hidden='true'>aria</div>"
        "<div style='display: none'>display</div><div style='VISIBILITY:hidden;'>vis</div>"
        "<div aria-hidden='false'>shown</div><div style='display:block'>block</div>"
    )
    remove_never_content(root)
    assert _text(root) == "Seen shown block"


def test_collapsed_boxes_go_but_embed_frames_and_line_heights_stay() -> None:
    root = _page(
        "<p>Seen</p><div style='height:0px; line-height:0px; overflow:hidden'>seo copy</div>"
        "<div style='height: 0; overflow: hidden; padding-bottom: 56%'>frame</div>"
        "<div style='line-height:0px; overflow:hidden'>tight</div>"
        "<div style='max-height:0; overflow:hidden'>folded</div>"
    )
    remove_never_content(root)
    assert _text(root) == "Seen frame tight folded"


def test_hidden_tab_panel_is_kept_and_labelled_from_its_tab() -> None:
    root = _page(
        "<div class='tabs'><div role='tablist'>"
        "<button role='tab' id='t-py' aria-controls='p-py'>Python</button>"
        "<button role='tab' id='t-js' aria-controls='p-js'>JavaScript</button></div>"
        "<div role='tabpanel' id='p-py' aria-labelledby='t-py'><pre>print(1)</pre></div>"
        "<div role='tabpanel' id='p-js' hidden><pre>console.log(1)</pre></div></div>"
    )
    remove_never_content(root)
    panels = {p.get("id"): p for p in root.iter("div") if p.get("role") == "tabpanel"}
    assert set(panels) == {"p-py", "p-js"}
    assert panels["p-py"].get(TAB_LABEL_ATTR) == "Python"  # aria-labelledby
    assert panels["p-js"].get(TAB_LABEL_ATTR) == "JavaScript"  # tab's aria-controls
    assert "console.log(1)" in _text(root)
    assert root.find(".//button") is None


def test_tab_pane_labelled_from_data_lang_and_class() -> None:
    root = _page(
        "<div class='tab-content'>"
        "<div class='tab-pane active' data-lang='bash'><pre>ls</pre></div>"
        "<div class='tab-pane' style='display:none' data-lang='powershell'><pre>dir</pre></div>"
        "<div class='tab-pane python' style='display:none'><pre>os.listdir()</pre></div>"
        "<div class='tab-pane language-ruby' style='display:none'><pre>Dir.entries</pre></div>"
        "</div>"
    )
    remove_never_content(root)
    labels = [p.get(TAB_LABEL_ATTR) for p in root.iter("div") if "tab-pane" in p.classes]
    assert labels == ["bash", "powershell", "python", "ruby"]


def test_bootstrap_tab_labelled_from_its_link() -> None:
    root = _page(
        "<ul class='nav nav-tabs'><li><a href='#curl' data-toggle='tab'>cURL</a></li></ul>"
        "<div class='tab-content'><div class='tab-pane' id='curl' hidden>"
        "<pre>curl https://x.test</pre></div></div>"
    )
    remove_never_content(root)
    pane = root.get_element_by_id("curl")
    assert pane.get(TAB_LABEL_ATTR) == "cURL"


def test_hidden_non_panel_inside_page_goes_even_near_tabs() -> None:
    root = _page("<div class='tab-pane'>shown<span hidden>secret</span></div>")
    remove_never_content(root)
    assert "secret" not in _text(root)


def test_deep_nesting_is_safe() -> None:
    root = lxml.html.document_fromstring("<html><body></body></html>")
    node = root.find("body")
    for i in range(20_000):
        node = lxml.html.etree.SubElement(node, "div")
        if i % 1000 == 0:
            lxml.html.etree.SubElement(node, "script").text = "x()"
    node.text = "deep text"
    remove_never_content(root)
    assert root.find(".//script") is None
    assert "deep text" in root.text_content()


def test_a_noscript_that_is_its_containers_only_text_is_the_content() -> None:
    post = "Over the past few years we have seen threats grow more subtle. " * 5
    root = _page(
        "<div class='post-body'><script type='text/template'><p>copy</p></script>"
        f"<noscript><p>{post}</p></noscript></div>"
        "<div class='gallery'><p>A caption shown by the page itself, long enough to count "
        "as text of its own beside the fallback below.</p>"
        f"<noscript><p>{post}</p></noscript></div>"
        "<div><noscript><img src='/pixel.gif'></noscript></div>"
    )
    remove_never_content(root)
    text = _text(root)
    assert text.count("Over the past few years") == 5  # the post once, not the gallery copy
    assert "copy" not in text and "pixel" not in lxml.html.tostring(root).decode()
    assert "A caption shown by the page itself" in text


def test_a_collapsed_disclosure_panel_is_text() -> None:
    """WAI-ARIA APG disclosure / accordion: the panel a button's aria-controls names
    (aria-expanded on the button) is the page's text one click away, hidden or not; a
    hidden element no control names still goes."""
    root = _page(
        "<h2>FAQ</h2>"
        '<button aria-expanded="false" aria-controls="a1">Can I cancel?</button>'
        '<div id="a1" hidden><p>Yes, at any time from the billing page.</p></div>'
        '<button aria-expanded="false" aria-controls="a2 a3">Two panels</button>'
        '<div id="a2" style="display:none">Second answer.</div>'
        '<div id="a3" aria-hidden="true">Third answer.</div>'
        '<div id="x" hidden>Never shown.</div>'
    )
    remove_never_content(root)
    text = _text(root)
    assert "Yes, at any time from the billing page." in text
    assert "Second answer." in text and "Third answer." in text
    assert "Never shown." not in text


def test_a_closed_dialog_goes_and_an_open_one_stays() -> None:
    """HTML's rendering section: dialog:not([open]) is display:none."""
    root = _page(
        "<p>Body text.</p><dialog><p>Subscribe to our newsletter.</p></dialog>"
        "<dialog open><p>An open notice.</p></dialog>"
    )
    remove_never_content(root)
    text = _text(root)
    assert "Subscribe" not in text
    assert "An open notice." in text
