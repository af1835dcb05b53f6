"""clean.py rules for the markup of common site generators: tab groups labelled by their
tab strip (hidden or not), code captions that only name the language, GFM task-list
checkboxes, MediaWiki's hidden MathML. Each rule is tested on its generator's shape and
on the look-alikes it must leave alone."""

from __future__ import annotations

from typing import Any

import lxml.html
import pytest

from webmd_spider.extract import clean, extract
from webmd_spider.extract import vocabulary as v
from webmd_spider.extract.clean import TAB_LABEL_ATTR, remove_never_content
from webmd_spider.extract.parse import parse_html

URL = "https://docs.example.com/guide/install"
PROSE = (
    "<p>This guide walks through installing the tool, configuring it for a first project "
    "and checking that everything works before you build anything larger with it.</p>"
)


def _page(body: str) -> lxml.html.HtmlElement:
    root = parse_html(f"<html><head><title>t</title></head><body>{body}</body></html>")
    assert root is not None
    return root


def _cleaned(body: str) -> lxml.html.HtmlElement:
    root = _page(body)
    remove_never_content(root)
    return root


def _labels(root: lxml.html.HtmlElement) -> list[str | None]:
    return [e.get(TAB_LABEL_ATTR) for e in root.iter() if e.get("data-panel") is not None]


def _markdown(body: str) -> str:
    html = f"<html><head><title>Install</title></head><body><article><h1>Install</h1>{PROSE}"
    return extract(f"{html}{body}{PROSE}</article></body></html>", URL).markdown


def _code(language: str, text: str) -> str:
    return f"<div class='language-{language}'><pre><code>{text}</code></pre></div>"


# --- tab groups: role=tablist -----------------------------------------------------------

DOCUSAURUS = (
    "<div class='tabs-container'><ul role='tablist' class='tabs'>"
    "<li role='tab' aria-selected='true'>npm</li><li role='tab' aria-selected='false'>Yarn</li>"
    "</ul><div class='margin-top--md'>"
    f"<div role='tabpanel' data-panel>{_code('bash', 'npm install thing')}</div>"
    f"<div role='tabpanel' data-panel hidden>{_code('bash', 'yarn add thing')}</div>"
    "</div></div>"
)


def test_tablist_without_ids_labels_its_panels_by_position() -> None:
    root = _cleaned(DOCUSAURUS)
    assert _labels(root) == ["npm", "Yarn"]
    assert root.find(".//*[@role='tablist']") is None  # its names now stand above the panels


def test_docusaurus_tabs_read_as_label_then_fence() -> None:
    md = _markdown(DOCUSAURUS)
    assert "**npm**\n\n```bash\nnpm install thing\n```" in md
    assert "**Yarn**\n\n```bash\nyarn add thing\n```" in md
    assert "npmYarn" not in md


def test_panels_hidden_by_a_class_are_labelled_from_aria_controls() -> None:
    # GitBook: Tailwind's class="hidden" hides the other panel; no attribute hides it
    root = _cleaned(
        "<div><div role='tablist'>"
        "<button role='tab' aria-controls='tab-curl'>cURL</button>"
        "<button role='tab' aria-controls='tab-node'>Node.js</button></div>"
        "<div role='tabpanel' id='tab-curl' data-panel><pre><code>curl x</code></pre></div>"
        "<div role='tabpanel' id='tab-node' class='hidden' data-panel>"
        "<pre><code>await x()</code></pre></div></div>"
    )
    assert _labels(root) == ["cURL", "Node.js"]
    assert root.find(".//*[@role='tablist']") is None


def test_panels_wrapped_apart_from_a_tablist_in_a_header_are_found() -> None:
    root = _cleaned(
        "<div class='group'><div class='head'><div role='tablist'>"
        "<span role='tab'>macOS</span><span role='tab'>Linux</span></div></div>"
        "<div class='body'><section class='tab-pane' data-panel><p>brew install x</p></section>"
        "<section class='tab-pane' data-panel><p>apt install x</p></section></div></div>"
    )
    assert _labels(root) == ["macOS", "Linux"]


def test_a_tab_named_after_the_language_its_fence_declares_adds_no_line() -> None:
    root = _cleaned(
        "<div><ul role='tablist'><li role='tab'>Python</li><li role='tab'>cURL</li>"
        "<li role='tab'>Node.js</li></ul><div>"
        f"<div role='tabpanel' data-panel>{_code('python', 'print(1)')}</div>"
        f"<div role='tabpanel' data-panel hidden>{_code('bash', 'curl x')}</div>"
        f"<div role='tabpanel' data-panel hidden>{_code('javascript', 'f()')}</div>"
        "</div></div>"
    )
    assert _labels(root) == [None, None, None]
    assert root.find(".//*[@role='tablist']") is None  # the fences carry the names


def test_a_panels_aria_labelledby_names_it_before_its_position() -> None:
    root = _cleaned(
        "<div><ul role='tablist'><li role='tab' id='t1'>First</li>"
        "<li role='tab' id='t2'>Second</li></ul>"
        "<div role='tabpanel' aria-labelledby='t2' data-panel><p>two</p></div>"
        "<div role='tabpanel' aria-labelledby='t1' data-panel><p>one</p></div></div>"
    )
    assert _labels(root) == ["Second", "First"]


def test_a_language_named_tab_over_code_without_a_language_still_labels() -> None:
    root = _cleaned(
        "<div><ul role='tablist'><li role='tab'>Python</li><li role='tab'>Go</li></ul>"
        "<div role='tabpanel' data-panel><pre>print(1)</pre></div>"
        "<div role='tabpanel' data-panel><pre>fmt.Println(1)</pre></div></div>"
    )
    assert _labels(root) == ["Python", "Go"]


def test_tabs_that_all_control_one_panel_are_filters_not_names() -> None:
    # Javadoc's "All Methods | Static Methods" over one summary table
    root = _cleaned(
        "<div role='tablist'><button role='tab' aria-controls='p'>All Methods</button>"
        "<button role='tab' aria-controls='p'>Static Methods</button></div>"
        "<div role='tabpanel' id='p' data-panel><table><tr><td>m()</td></tr></table></div>"
    )
    assert _labels(root) == [None]


def test_a_lazy_group_labels_its_one_panel_with_the_selected_tab() -> None:
    root = _cleaned(
        "<div><ul role='tablist'><li role='tab' aria-selected='false'>npm</li>"
        "<li role='tab' aria-selected='true'>pnpm</li></ul>"
        "<div role='tabpanel' data-panel><pre>pnpm add x</pre></div></div>"
    )
    assert _labels(root) == ["pnpm"]


def test_panel_count_unlike_tab_count_labels_nothing() -> None:
    root = _cleaned(
        "<div><ul role='tablist'><li role='tab'>A</li><li role='tab'>B</li>"
        "<li role='tab'>C</li></ul>"
        "<div role='tabpanel' data-panel><p>one</p></div>"
        "<div role='tabpanel' data-panel><p>two</p></div></div>"
    )
    assert _labels(root) == [None, None]
    assert root.find(".//*[@role='tablist']") is not None


def test_carousel_numbers_name_no_slide() -> None:
    root = _cleaned(
        "<div><ul role='tablist'><li role='tab'>1</li><li role='tab'>2</li></ul>"
        "<div role='tabpanel' data-panel><p>First slide</p></div>"
        "<div role='tabpanel' data-panel><p>Second slide</p></div></div>"
    )
    assert _labels(root) == [None, None]


def test_an_empty_panel_gets_no_lone_name() -> None:
    root = _cleaned(
        "<div><ul role='tablist'><li role='tab'>Preview</li><li role='tab'>Code</li></ul>"
        "<div role='tabpanel' data-panel><p>Rendered</p></div>"
        "<div role='tabpanel' data-panel hidden></div></div>"
    )
    assert _labels(root) == ["Preview", None]


def test_a_tablist_without_panels_is_left_to_the_chrome_rules() -> None:
    root = _cleaned(
        "<nav><ul role='tablist'><li role='tab'><a href='/a'>Home</a></li>"
        "<li role='tab'><a href='/b'>Blog</a></li></ul></nav><p>Body text.</p>"
    )
    assert root.find(".//*[@role='tablist']") is not None


def test_the_next_groups_panels_are_not_taken() -> None:
    root = _cleaned(
        "<div><ul role='tablist'><li role='tab'>Menu A</li><li role='tab'>Menu B</li></ul></div>"
        "<div><ul role='tablist'><li role='tab'>X</li><li role='tab'>Y</li></ul>"
        "<div role='tabpanel' data-panel><p>x</p></div>"
        "<div role='tabpanel' data-panel><p>y</p></div></div>"
    )
    assert _labels(root) == ["X", "Y"]
    assert "Menu A" in (root.text_content() or "")


def test_many_tablists_without_panels_read_a_bounded_part_of_the_page_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # menus marked up as tabs above long stretches of page without panels
    menu = "<div><ul role='tablist'><li role='tab'>a</li><li role='tab'>b</li></ul></div>"
    root = _page((menu + PROSE * 100) * 1000)
    reads: list[int] = []  # per search for a strip's panels: the elements it judged
    searching = False
    follow, judge = clean._following_panels, clean.is_tab_panel

    def following(tablist: lxml.html.HtmlElement, wanted: int) -> Any:
        nonlocal searching
        reads.append(0)
        searching = True
        try:
            return follow(tablist, wanted)
        finally:
            searching = False

    def judged(element: lxml.html.HtmlElement) -> bool:
        if searching:
            reads[-1] += 1
        return judge(element)

    monkeypatch.setattr(clean, "_following_panels", following)
    monkeypatch.setattr(clean, "is_tab_panel", judged)
    remove_never_content(root)
    assert len(root.findall(".//ul")) == 1000
    # each strip's search reads a bounded part of the page (the elements up to the next
    # strip here), not the rest of it: counted, not timed (issue 35)
    assert len(reads) == 1000
    assert max(reads) <= v.TAB_PANEL_SEARCH_BUDGET, max(reads)


def test_panels_beyond_the_search_budget_are_not_paired() -> None:
    far = PROSE * (v.TAB_PANEL_SEARCH_BUDGET + 1)
    panels = "<div role='tabpanel' data-panel><p>x</p></div>" * 2
    tabs = "<ul role='tablist'><li role='tab'>X</li><li role='tab'>Y</li></ul>"
    assert _labels(_cleaned(f"<div>{tabs}{far}{panels}</div>")) == [None, None]
    assert _labels(_cleaned(f"<div>{tabs}{panels}{far}</div>")) == ["X", "Y"]


# --- tab groups: CSS-only radio tabs --------------------------------------------------


MKDOCS = (
    "<div class='tabbed-set tabbed-alternate'>"
    "<input checked id='__tabbed_1_1' name='__tabbed_1' type='radio'>"
    "<input id='__tabbed_1_2' name='__tabbed_1' type='radio'>"
    "<div class='tabbed-labels'><label for='__tabbed_1_1'>pip</label>"
    "<label for='__tabbed_1_2'>Docker</label></div>"
    "<div class='tabbed-content'>"
    f"<div class='tabbed-block' data-panel>{_code('bash', 'pip install x')}</div>"
    f"<div class='tabbed-block' data-panel>{_code('bash', 'docker pull x')}</div>"
    "</div></div>"
)


def test_mkdocs_material_tabs_label_each_block_and_drop_the_label_strip() -> None:
    root = _cleaned(MKDOCS)
    assert _labels(root) == ["pip", "Docker"]
    assert next(root.iter("label"), None) is None
    md = _markdown(MKDOCS)
    assert "**pip**\n\n```bash\npip install x\n```\n\n**Docker**\n\n```bash" in md
    assert "pipDocker" not in md


def test_a_label_names_the_panel_at_its_radio_inputs_place() -> None:
    root = _cleaned(
        "<div><input id='b' name='g' type='radio'><input id='a' name='g' type='radio'>"
        "<div><label for='a'>Second</label><label for='b'>First</label></div>"
        "<div><div data-panel><p>one</p></div><div data-panel><p>two</p></div></div></div>"
    )
    assert _labels(root) == ["First", "Second"]


VITEPRESS = (
    "<div class='vp-code-group'><div class='tabs'>"
    "<input type='radio' name='group-1' id='tab-1' checked><label for='tab-1'>npm</label>"
    "<input type='radio' name='group-1' id='tab-2'><label for='tab-2'>pnpm</label></div>"
    "<div class='blocks'>"
    "<div class='language-sh active' data-panel><button class='copy'></button>"
    "<span class='lang'>sh</span><pre><code>npm add -D vitepress</code></pre></div>"
    "<div class='language-sh' data-panel><button class='copy'></button>"
    "<span class='lang'>sh</span><pre><code>pnpm add -D vitepress</code></pre></div>"
    "</div></div>"
)


def test_vitepress_code_group_labels_blocks_and_drops_the_language_captions() -> None:
    root = _cleaned(VITEPRESS)
    assert _labels(root) == ["npm", "pnpm"]
    assert not any(e.get("class") == "lang" for e in root.iter("span"))
    md = _markdown(VITEPRESS)
    assert "**npm**\n\n```sh\nnpm add -D vitepress\n```\n\n**pnpm**\n\n```sh" in md
    assert "\nsh\n" not in md


def test_a_form_of_radio_choices_is_no_tab_group() -> None:
    root = _cleaned(
        "<form><div><input type='radio' name='size' id='s'><label for='s'>Small</label>"
        "<input type='radio' name='size' id='l'><label for='l'>Large</label></div>"
        "<p>Pick a size for your order and the price updates below.</p></form>"
    )
    assert root.find(f".//*[@{TAB_LABEL_ATTR}]") is None


def test_a_strip_holding_more_than_labels_and_radios_is_no_tab_strip() -> None:
    root = _cleaned(
        "<div><input type='radio' name='g' id='x'><input type='radio' name='g' id='y'>"
        "<div><label for='x'>One</label><p>Choose one of the two.</p>"
        "<label for='y'>Two</label></div>"
        "<div><div data-panel><p>a</p></div><div data-panel><p>b</p></div></div></div>"
    )
    assert _labels(root) == [None, None]
    assert len(list(root.iter("label"))) == 2


# --- code captions naming the language ------------------------------------------------


def test_a_caption_naming_another_thing_than_the_language_stays() -> None:
    root = _cleaned(
        "<div class='language-sh'><span class='title'>request.sh</span>"
        "<span class='lang'>SH</span><pre><code>curl x</code></pre></div>"
    )
    assert [e.text for e in root.iter("span")] == ["request.sh"]


def test_a_caption_beside_code_without_a_language_stays() -> None:
    root = _cleaned("<div><span>python</span><pre><code>print(1)</code></pre></div>")
    assert [e.text for e in root.iter("span")] == ["python"]


def test_a_paragraph_before_code_is_never_a_caption() -> None:
    root = _cleaned("<div class='language-python'><p>Python</p><pre>print(1)</pre></div>")
    assert [e.text for e in root.iter("p")] == ["Python"]


# --- GFM task lists -----------------------------------------------------------------------


TASKS = (
    "<ul><li class='task-list-item'><input type='checkbox' disabled checked> Draft 2020-12</li>"
    "<li class='task-list-item'><input type='checkbox' disabled> <code>$dynamicRef</code></li>"
    "</ul>"
)


def test_task_list_checkboxes_become_gfm_marks() -> None:
    md = _markdown(TASKS)
    assert "- [x] Draft 2020-12\n- [ ] `$dynamicRef`" in md


def test_a_checkbox_opening_a_paragraph_or_label_of_an_item_is_a_mark_too() -> None:
    root = _cleaned(
        "<ul><li><p><input type='checkbox' checked>Done</p></li>"
        "<li><label><input type='checkbox'><span></span></label> Open</li></ul>"
    )
    assert [" ".join(li.text_content().split()) for li in root.iter("li")] == [
        "[x] Done",
        "[ ] Open",
    ]


def test_a_checkbox_after_words_or_outside_a_list_goes_as_before() -> None:
    root = _cleaned(
        "<ul><li>Remember me <input type='checkbox' checked></li></ul>"
        "<p><input type='checkbox'> I agree</p><li><input type='radio'> r</li>"
    )
    assert "[" not in root.text_content()


# --- MediaWiki math -----------------------------------------------------------------------

TEX = r"{\displaystyle a_{ij}={\overline {a_{ji}}}}"
MEDIAWIKI = (
    "<p>is equal to its conjugate:</p><dl><dd><span class='mwe-math-element'>"
    "<span class='mwe-math-mathml-inline' style='display: none;'>"
    f"<math alttext='{TEX}'><semantics><mi>a</mi>"
    f"<annotation encoding='application/x-tex'>{TEX}</annotation></semantics></math></span>"
    "<img src='https://wikimedia.org/math/abc' class='mwe-math-fallback-image-inline' "
    f"aria-hidden='true' alt='{TEX}'></span></dd></dl>"
)


@pytest.mark.parametrize("markup", [MEDIAWIKI, MEDIAWIKI.replace("display: none;", "")])
def test_mediawiki_math_is_its_mathml_once_and_its_fallback_image_goes(markup: str) -> None:
    root = _cleaned(markup)
    assert next(root.iter("math"), None) is not None
    assert next(root.iter("img"), None) is None
    md = _markdown(markup)
    assert r"$a_{ij}={\overline {a_{ji}}}$" in md  # raw TeX, no {\displaystyle} wrapper
    assert md.count("a_{ij}") == 1


def test_a_visible_fallback_image_goes_when_its_formula_is_written() -> None:
    root = _cleaned(
        "<p>Then <span><span style='display:none'><math alttext='x^2'><mi>x</mi></math></span>"
        "<img src='/x2.png' alt='x^2'></span> holds; <img src='/cat.png' alt='a cat'></p>"
    )
    assert [i.get("alt") for i in root.iter("img")] == ["a cat"]


def test_math_inside_a_hidden_element_holding_more_goes_with_it() -> None:
    root = _cleaned(
        "<div hidden><p>A closed dialog: <math alttext='y'><mi>y</mi></math></p></div>"
        "<p>Shown <img src='/y.png' alt='y'></p>"
    )
    assert next(root.iter("math"), None) is None
    assert next(root.iter("img"), None) is not None  # its only rendering left
