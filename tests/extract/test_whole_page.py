"""``ExtractOptions(main_content_only=False)``: the whole page as Markdown."""

from __future__ import annotations

from webmd_spider.extract import ExtractOptions, extract

PAGE = (
    b"<html><head><title>Guide</title><script>var x = 1;</script></head><body>"
    b"<nav><a href='/a'>Home</a> <a href='/b'>Docs</a></nav>"
    b"<main><h1>Guide title</h1><p>" + b"The levee holds the river back. " * 10 + b"</p></main>"
    b"<div hidden>hidden words</div><footer>Copyright 2026 Valley</footer></body></html>"
)


def test_the_whole_body_is_rendered_without_chrome_removal() -> None:
    whole = extract(PAGE, "http://x.test/", options=ExtractOptions(main_content_only=False))
    assert whole.extraction_method == "page"
    assert "[Home](http://x.test/a)" in whole.markdown  # navigation kept
    assert "Copyright 2026 Valley" in whole.markdown  # footer kept
    assert "# Guide title" in whole.markdown and "The levee holds" in whole.text
    # what is never content still goes
    assert "var x" not in whole.markdown and "hidden words" not in whole.markdown


def test_main_content_is_the_default() -> None:
    main = extract(PAGE, "http://x.test/")
    assert main.extraction_method != "page"
    assert "Home" not in main.markdown and "Copyright" not in main.markdown
    assert main.markdown.startswith("# Guide title")


def test_keep_frames_names_each_embedded_frame() -> None:
    page = (
        b"<html><body><main><h1>Map</h1><p>"
        + b"The harbor map below. " * 10
        + (b"</p><iframe src='/embed/map' title='Harbor map'></iframe></main></body></html>")
    )
    kept = extract(page, "http://x.test/p", options=ExtractOptions(keep_frames=True))
    assert "[Embedded frame: Harbor map](http://x.test/embed/map)" in kept.markdown
    plain = extract(page, "http://x.test/p")
    assert "Embedded frame" not in plain.markdown
