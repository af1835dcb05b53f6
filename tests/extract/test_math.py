"""Math is content (docs/EXTRACTION.md, "Math"): every formula is written once, as its TeX
raw between ``$`` (inline) or in a ``$$`` block of its own (display), in the Markdown and
the text alike, visible or hidden, whichever way the page wrote it: MathML with
``alttext`` or a TeX annotation, MediaWiki, KaTeX, MathJax 2 and MathJax 3. MathML
without TeX keeps its words, unmarked."""

from __future__ import annotations

import pytest

from webmd_spider.extract import extract

URL = "https://docs.example.com/algebra/quadratic"
PROSE = (
    "<p>This page explains the quadratic formula, a result every student of algebra meets "
    "early and keeps using for the rest of their working life.</p>"
)


def _both(body: str) -> tuple[str, str]:
    """(Markdown, text) of a page whose article holds `body` between two paragraphs."""
    html = "<html><head><title>Quadratic</title></head><body><article><h1>Quadratic</h1>"
    page = extract(f"{html}{PROSE}{body}{PROSE}</article></body></html>", URL)
    return page.markdown, page.text


def _section(text: str) -> str:
    """`text` between the two prose paragraphs (title and prose cut off)."""
    return text.split("working life.", 2)[1].strip()


# --- MathML ---------------------------------------------------------------------------


def test_mathml_alttext_is_written_as_inline_tex() -> None:
    md, text = _both(
        "<p>Then <math alttext='x^2'><msup><mi>x</mi><mn>2</mn></msup></math> grows.</p>"
    )
    assert "Then $x^2$ grows." in md
    assert "Then $x^2$ grows." in text


def test_a_tex_annotation_wins_over_the_mathml_words() -> None:
    math = (
        "<math><semantics><mrow><msub><mi>a</mi><mn>1</mn></msub></mrow>"
        "<annotation encoding='application/x-tex'>a_1</annotation></semantics></math>"
    )
    md, _ = _both(f"<p>Let {math} be the first.</p>")
    assert "Let $a_1$ be the first." in md
    assert "a1" not in md


def test_an_annotation_in_another_encoding_is_no_tex() -> None:
    math = (
        "<math><semantics><mi>y</mi>"
        "<annotation encoding='text/plain'>why</annotation></semantics></math>"
    )
    md, _ = _both(f"<p>Let {math} be.</p>")
    assert "$" not in md


def test_display_math_is_a_block_of_its_own() -> None:
    math = "<math display='block' alttext='x = \\frac{-b}{2a}'><mi>x</mi></math>"
    body = f"<p>The roots are {math} here.</p>"
    md, text = _both(body)
    assert "The roots are\n\n$$\nx = \\frac{-b}{2a}\n$$\n\nhere." in md
    assert "$$\nx = \\frac{-b}{2a}\n$$" in text


def test_tex_is_written_raw_without_markdown_escapes() -> None:
    tex = r"a_{i}*b_{j} + \sum_{k} c_k * [d](e) # f"
    md, text = _both(f"<p>Then <math alttext='{tex}'><mi>a</mi></math> holds.</p>")
    assert f"${tex}$" in md
    assert f"${tex}$" in text


def test_mathml_without_tex_keeps_its_words_unmarked() -> None:
    md, text = _both("<p>When <math><mi>a</mi><mo>≠</mo><mn>0</mn></math> holds.</p>")
    assert "a≠0" in md and "a≠0" in text
    assert "$" not in md


# --- hidden MathML with a fallback image (MediaWiki) ------------------------------------

TEX = r"{\displaystyle a_{ij}={\overline {a_{ji}}}}"
MEDIAWIKI = (
    "<p>A matrix is Hermitian when each entry <span class='mwe-math-element'>"
    "<span class='mwe-math-mathml-inline mwe-math-mathml-a11y' style='display: none;'>"
    f"<math alttext='{TEX}'><semantics><mrow><mi>a</mi></mrow>"
    f"<annotation encoding='application/x-tex'>{TEX}</annotation></semantics></math></span>"
    "<img src='https://wikimedia.org/math/abc' class='mwe-math-fallback-image-inline' "
    f"aria-hidden='true' alt='{TEX}'></span> is its mirror's conjugate.</p>"
    "<dl><dd><span class='mwe-math-element'>"
    "<span class='mwe-math-mathml-display mwe-math-mathml-a11y' style='display: none;'>"
    "<math alttext='{\\displaystyle A=A^{\\mathsf {H}}}'><mi>A</mi></math></span>"
    "<img src='https://wikimedia.org/math/def' class='mwe-math-fallback-image-display' "
    "aria-hidden='true' alt='{\\displaystyle A=A^{\\mathsf {H}}}'></span></dd></dl>"
)


def test_hidden_mediawiki_math_is_written_once_and_its_image_goes() -> None:
    md, text = _both(MEDIAWIKI)
    assert r"entry $a_{ij}={\overline {a_{ji}}}$ is its" in md
    assert "$$\nA=A^{\\mathsf {H}}\n$$" in md
    assert "wikimedia.org/math" not in md
    assert md.count("a_{ij}") == 1 and text.count("a_{ij}") == 1
    assert "displaystyle" not in md


def test_a_displaystyle_wrapper_that_is_not_the_whole_formula_stays() -> None:
    tex = r"{\displaystyle a}{b}"
    md, _ = _both(f"<p>Then <math alttext='{tex}'><mi>a</mi></math> holds.</p>")
    assert f"${tex}$" in md


# --- KaTeX ---------------------------------------------------------------------------


def _katex(tex: str, display: bool) -> str:
    block = " display='block'" if display else ""
    math = (
        f"<math{block}><semantics><mrow><mi>x</mi></mrow>"
        f"<annotation encoding='application/x-tex'>{tex}</annotation></semantics></math>"
    )
    katex = (
        f"<span class='katex'><span class='katex-mathml'>{math}</span>"
        "<span class='katex-html' aria-hidden='true'><span class='base'>"
        "<span class='mord mathnormal'>x</span><span class='msupsub'>2</span></span></span></span>"
    )
    return f"<span class='katex-display'>{katex}</span>" if display else katex


def test_katex_inline_and_display() -> None:
    shown = _katex(r"\sum_i x_i", True)
    body = f"<p>Inline {_katex('x^2', False)} and then:</p><p>{shown}</p>"
    md, text = _both(body)
    assert "Inline $x^2$ and then:" in md
    assert "$$\n\\sum_i x_i\n$$" in md
    assert "x2" not in md and "x2" not in text  # the rendered copy went


# --- MathJax 2 -------------------------------------------------------------------------


def test_mathjax2_script_is_the_formula_and_its_renderings_go() -> None:
    body = (
        "<p>Let <span class='MathJax_Preview' style='color: inherit;'></span>"
        "<span class='MathJax' id='MathJax-Element-1-Frame' tabindex='0'>"
        "<nobr aria-hidden='true'><span class='math'><span class='mi'>x</span>"
        "<span class='mn'>2</span></span></nobr><span class='MJX_Assistive_MathML'>"
        "<math><msup><mi>x</mi><mn>2</mn></msup></math></span></span>"
        "<script type='math/tex' id='MathJax-Element-1'>x_1^2</script> be given.</p>"
        "<div class='MathJax_Display'><span class='MathJax'><span class='math'>E=mc2</span>"
        "</span></div><script type='math/tex; mode=display'>E = mc^2</script>"
    )
    md, text = _both(body)
    assert "Let $x_1^2$ be given." in md
    assert "$$\nE = mc^2\n$$" in md
    assert "x2" not in text and "mc2" not in text
    assert md.count("$") == 6


def test_a_mathjax2_script_not_yet_rendered_is_the_formula() -> None:
    md, text = _both("<p>Write <script type='math/tex'>\\alpha_1</script> first.</p>")
    assert "Write $\\alpha_1$ first." in md
    assert "Write $\\alpha_1$ first." in text


def test_other_scripts_still_go() -> None:
    md, _ = _both("<p>Write it.<script>var x_1 = 2;</script></p>")
    assert "var" not in md


# --- MathJax 3 -------------------------------------------------------------------------


@pytest.mark.parametrize("jax", ["CHTML", "SVG"])
def test_mathjax3_container_is_its_assistive_mathml_once(jax: str) -> None:
    rendered = (
        "<mjx-math class='MJX-TEX' aria-hidden='true'><mjx-mi><mjx-c>a</mjx-c></mjx-mi></mjx-math>"
        if jax == "CHTML"
        else "<svg aria-hidden='true'><g><text>a</text></g></svg>"
    )
    inline = (
        f"<mjx-container class='MathJax' jax='{jax}'>{rendered}"
        "<mjx-assistive-mml unselectable='on' display='inline'>"
        "<math><mi>a</mi><mo>≠</mo><mn>0</mn></math></mjx-assistive-mml></mjx-container>"
    )
    display = (
        f"<mjx-container class='MathJax' jax='{jax}' display='true'>{rendered}"
        "<mjx-assistive-mml unselectable='on' display='block'><math display='block'>"
        "<semantics><mi>x</mi><annotation encoding='application/x-tex'>x = 1</annotation>"
        "</semantics></math></mjx-assistive-mml></mjx-container>"
    )
    md, text = _both(f"<p>When {inline}, there are two and they are {display}</p>")
    section = _section(md)
    assert section.startswith("When a≠0")
    assert section.count("a≠0") == 1 and "aa≠0" not in section
    assert "\n\n$$\nx = 1\n$$" in section
    assert _section(text).count("a≠0") == 1


# --- placement ---------------------------------------------------------------------------


def test_math_in_a_table_cell_stays_on_its_row() -> None:
    body = (
        "<table><tr><th>name</th><th>formula</th></tr>"
        "<tr><td>norm</td><td><math alttext='|x|'><mi>x</mi></math></td></tr>"
        "<tr><td>sum</td><td><math display='block' alttext='a_b'><mi>a</mi></math></td></tr>"
        "</table>"
    )
    md, _ = _both(body)
    assert "| norm | $\\|x\\|$ |" in md  # GFM escapes a cell's pipes, in math too
    assert "| sum | $$a_b$$ |" in md


def test_math_in_a_heading_stays_in_it() -> None:
    md, _ = _both("<h2>The case <math alttext='n_0'><mi>n</mi></math></h2>" + PROSE)
    assert "## The case $n_0$" in md


def test_math_in_a_hidden_dialog_goes_with_it() -> None:
    md, _ = _both("<div hidden><p>Closed: <math alttext='y_9'><mi>y</mi></math></p></div>")
    assert "y_9" not in md


def test_a_mathml_script_is_its_formula() -> None:
    body = "<p>Let <script type='math/mml'><math alttext='y^2'><mi>y</mi></math></script> be.</p>"
    md, _ = _both(body)
    assert "Let $y^2$ be." in md


def test_the_copies_that_go_are_counted_by_the_audit() -> None:
    html = "<html><head><title>Quadratic</title></head><body><article><h1>Quadratic</h1>"
    page = extract(f"{html}{PROSE}{MEDIAWIKI}{PROSE}</article></body></html>", URL)
    assert page.removed is not None
    assert page.removed["by_rule"]["math-copy"]["image"] == 2
