"""`extract()`: one HTML page in, one `Document` out.

Pipeline: parse once -> page metadata and whole-page text from the tree ->
readability picks the content region (body minus chrome as fallback) ->
Markdown and text from that same region.
"""

from __future__ import annotations

import logging
from urllib.parse import urldefrag

import lxml.html
from lxml import etree
from readability import Document as ReadabilityDocument

from webmd_spider.extract.document import Document, ExtractOptions, Heading, Image, Link
from webmd_spider.extract.markdown import flatten_deep, to_markdown, to_text, truncate_blocks
from webmd_spider.extract.metadata import apply_metadata, effective_base, normalize_space, resolve
from webmd_spider.extract.parse import parse_html
from webmd_spider.urls import site_key

# readability logs a full traceback at ERROR for pages it cannot handle; that
# is an expected outcome here (we fall back to the body), not an error.
logging.getLogger("readability.readability").setLevel(logging.CRITICAL)

MIN_WORDS = 20  # a readability region smaller than this is suspect
MAX_IMAGES = 100
# Page chrome removed for the "body" fallback region.
_CHROME_TAGS = (
    *("script", "style", "nav", "header", "footer", "aside", "noscript", "form"),
    *("iframe", "svg", "template", "head", "button"),
)
_INVISIBLE_TAGS = ("head", "title", "script", "style", "noscript", "template")
# Attributes lazy-loading scripts keep the real image URL in.
_LAZY_SRC = ("data-src", "data-lazy-src", "data-original")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


class _Readability(ReadabilityDocument):
    """readability-lxml that keeps the chosen element instead of only its HTML string.

    `get_clean_html` is readability's documented override point; it runs on
    the final region right before serialisation.
    """

    region: lxml.html.HtmlElement | None = None

    def get_preserved_elements(self, node: lxml.html.HtmlElement) -> dict[object, bool]:
        # readability drops any <table>, <ul> or <div> under 25 characters
        # ("too short"), which loses short lists, data tables and code-block
        # wrappers (<div class="highlight"><pre>) of documentation pages. Keep
        # the ones that read like content: not link lists, no negative class.
        allowed: dict[object, bool] = super().get_preserved_elements(node)
        code_wrappers = (
            e for e in self.tags(node, "div", "section") if e.find(".//pre") is not None
        )
        for element in (*self.tags(node, "table", "ul"), *code_wrappers):
            if self.class_weight(element) >= 0 and self.get_link_density(element) <= 0.2:
                allowed[element] = True
        return allowed

    def get_clean_html(self) -> str:
        self.region = self.html
        return str(super().get_clean_html())


def extract(
    body: bytes | str,
    url: str,
    *,
    encoding: str | None = None,
    options: ExtractOptions | None = None,
) -> Document:
    """Extract Markdown, text and metadata from one page.

    `body` is the raw response (bytes) or decoded HTML (str); `url` is the
    page URL (relative links resolve against it or <base href>); `encoding`
    is the charset from the HTTP Content-Type header, if any.

    Never raises on any input (empty, binary garbage, truncated markup, very
    deep nesting): returns a Document, with `error` set when nothing could be
    parsed.
    """
    opts = options or ExtractOptions()
    try:
        return _extract(body, url, encoding, opts)
    except Exception as exc:  # the contract is "never raises": report, don't crash the crawl
        return Document(error=f"{type(exc).__name__}: {exc}")


def _extract(body: bytes | str, url: str, encoding: str | None, opts: ExtractOptions) -> Document:
    root = parse_html(body, encoding)
    if root is None:
        return Document(error="empty or unparseable document")
    doc = Document()
    base = effective_base(root, url)
    apply_metadata(doc, root, base)
    page_chars = _text_chars(to_text(root))
    _absolutize(root, base)
    region, doc.extraction_method = _choose_region(root)
    _drop_invisible(region)
    _fix_images(region, base)
    flatten_deep(region)
    _collect_structure(doc, region, url)
    if opts.include_html:
        doc.html = etree.tostring(region, encoding="unicode", method="html")
    text = to_text(region)
    markdown = to_markdown(region, opts.keep_links, opts.keep_images)
    doc.boilerplate_ratio = _boilerplate_ratio(_text_chars(text), page_chars)
    doc.markdown, doc.truncated = truncate_blocks(markdown, opts.max_chars)
    # Same limit for the text, so both stay roughly the same stretch of content.
    doc.text = truncate_blocks(text, opts.max_chars)[0]
    doc.word_count = len(doc.text.split())
    doc.char_count = len(doc.markdown)
    return doc


def _text_chars(text: str) -> int:
    """Length of the text with whitespace runs counted as one space."""
    return len(" ".join(text.split()))


def _boilerplate_ratio(kept_chars: int, page_chars: int) -> float:
    """Share of the page's visible text not in the content region, 0..1, 3 decimals."""
    if page_chars <= 0:
        return 0.0
    return round(min(1.0, max(0.0, 1.0 - kept_chars / page_chars)), 3)


def _absolutize(root: lxml.html.HtmlElement, base: str) -> None:
    """Make every link of the tree absolute against `base` (already <base href>-aware).

    The <base> elements go, so nothing downstream resolves twice; links that
    urllib rejects (e.g. "http://[broken") are dropped instead of raising.
    """
    for element in list(root.iter("base")):
        element.drop_tree()
    root.make_links_absolute(base, resolve_base_href=False, handle_failures="discard")


def _choose_region(root: lxml.html.HtmlElement) -> tuple[lxml.html.HtmlElement, str]:
    """(content region, method): readability's pick, or the body minus chrome when
    readability failed or found a stub while the body has much more text."""
    region = _readability_region(root)
    region_words = len(to_text(region).split()) if region is not None else 0
    if region is not None and region_words >= MIN_WORDS:
        return region, "readability"
    body = _body_region(root)
    body_words = len(to_text(body).split())
    stub = region_words < MIN_WORDS and body_words >= max(2 * MIN_WORDS, 3 * region_words)
    if region is None or (region_words == 0 < body_words) or stub:
        return body, "body"
    return region, "readability"


def _readability_region(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement | None:
    """readability's content region, or None if it fails or chose nothing.

    readability accepts the parsed tree and deep-copies it before cleaning,
    so the page is not parsed a second time. It does drop hidden elements
    from `root` in place, which suits the body fallback too.
    """
    reader = _Readability(root)
    try:
        reader.summary(html_partial=True)
    except Exception:  # readability raises Unparseable wrapping anything
        return None
    region = reader.region
    # When nothing better scored, readability hands back the whole <body>
    # (itself or wrapped in a div), navigation included. That is no choice at
    # all; our own body fallback strips more chrome.
    if region is None or any(e.tag in ("body", "html") for e in (region, *region)):
        return None
    return region


def _body_region(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """The <body> (or the whole tree) with navigation, forms and other chrome removed."""
    body = root.find("body")
    region = body if body is not None else root
    for element in list(region.iter(*_CHROME_TAGS)):
        if element is not region:
            element.drop_tree()
    return region


def _drop_invisible(region: lxml.html.HtmlElement) -> None:
    """Remove elements whose text is never shown, so Markdown and text agree.

    (readability returns the whole document, <head> included, when it finds no body.)
    """
    for element in list(region.iter(*_INVISIBLE_TAGS)):
        if element is not region:
            element.drop_tree()


def _fix_images(region: lxml.html.HtmlElement, base: str) -> None:
    """Point lazy-loaded images at their real URL; remove images without an http(s) one.

    data: URIs (placeholders, inline blobs) are removed: useless to an LLM and huge.
    """
    for img in list(region.iter("img")):
        lazy = next((img.get(a) for a in _LAZY_SRC if img.get(a)), None)
        src = resolve(base, lazy) if lazy else img.get("src")
        if src and src.split(":", 1)[0].lower() in ("http", "https"):
            img.set("src", src)
        else:
            img.drop_tree()


def _collect_structure(doc: Document, region: lxml.html.HtmlElement, url: str) -> None:
    """Headings, links (deduped by URL) and images (deduped, at most 100) of the region."""
    page_site = site_key(url)
    for element in region.iter(*_HEADINGS):
        text = normalize_space(element.text_content())
        if text:
            doc.headings.append(Heading(level=int(str(element.tag)[1]), text=text))
    seen: set[str] = set()
    for anchor in region.iter("a"):
        href = anchor.get("href") or ""
        if href.split(":", 1)[0].lower() not in ("http", "https"):
            continue
        link = urldefrag(href)[0]
        if link not in seen:
            seen.add(link)
            text = normalize_space(anchor.text_content()) or ""
            doc.links.append(Link(text=text, url=link, internal=site_key(link) == page_site))
    sources: set[str] = set()
    for img in region.iter("img"):
        src = img.get("src") or ""
        if src not in sources and len(doc.images) < MAX_IMAGES:
            sources.add(src)
            doc.images.append(Image(src=src, alt=normalize_space(img.get("alt")) or ""))
