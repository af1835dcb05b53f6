"""`extract()`: one HTML page in, one `Document` out.

The pipeline parses the page once and walks the tree a small number of times:
1. parse (``parse.py``: charset detection, XHTML with an XML declaration);
2. page facts from the whole tree (``metadata.py``: head metadata, JSON-LD, every link
   for the crawler, robots directives);
3. remove what is never content (``clean.py``);
4. find the content root and strip boilerplate around and inside it (``root.py``);
5. one walk of the root renders Markdown and text together, with headings, links,
   images and structured tables (``markdown.py``).
"""

from __future__ import annotations

import functools
import re
from typing import cast

import lxml.html
from lxml import etree

from webmd_spider.extract.audit import LossAudit, repeated_removal
from webmd_spider.extract.clean import TAB_LABEL_ATTR, remove_never_content
from webmd_spider.extract.declarations import convert_declarations
from webmd_spider.extract.document import Document, ExtractOptions, Heading
from webmd_spider.extract.inline import escape_line_start, escape_text
from webmd_spider.extract.languages import guess_language
from webmd_spider.extract.markdown import render, with_title
from webmd_spider.extract.metadata import (
    apply_metadata,
    effective_base,
    generator_of,
    json_ld_product_description,
    page_tags,
)
from webmd_spider.extract.page_type import PAGE_TYPES, PageType, classify_page
from webmd_spider.extract.parse import parse_html
from webmd_spider.extract.periphery import trim_periphery
from webmd_spider.extract.profiles import PROFILES, ProfileInput
from webmd_spider.extract.root import select_content, whole_page
from webmd_spider.extract.widgets import remove_widgets
from webmd_spider.urls import site_key


def extract(
    body: bytes | str,
    url: str,
    *,
    encoding: str | None = None,
    options: ExtractOptions | None = None,
) -> Document:
    """Extract Markdown, text and metadata from one page.

    `body` is the raw response (bytes) or decoded HTML (str); `url` is the page URL
    (relative links resolve against it or ``<base href>``); `encoding` is the charset
    from the HTTP Content-Type header, if any.

    Never raises on any input (empty, binary garbage, truncated markup, very deep
    nesting): returns a Document, with `error` set when nothing could be parsed.
    """
    opts = options or ExtractOptions()
    try:
        return _extract(body, url, encoding, opts)
    except Exception as exc:  # the contract is "never raises": report, don't crash the crawl
        return Document(error=f"{type(exc).__name__}: {exc}")


#: Below this many words a page is checked for the marks of a JavaScript shell.
SHELL_CHECK_WORDS = 20
#: A ``<noscript>`` asking for JavaScript is a shell's mark only on a page with fewer
#: words than this: next to real content (a Javadoc page's 12-word class hierarchy) it
#: is the generator's notice about its search box, not evidence (issue 30 item 6).
NOSCRIPT_SHELL_MAX_WORDS = 5
_NOSCRIPT_ASKS = re.compile(
    rb"<noscript\b[^>]*>(?:(?!</noscript).){0,600}?"
    rb"(?:javascript|enable\s+js|js\s+(?:is\s+)?(?:required|disabled))",
    re.IGNORECASE | re.DOTALL,
)
_EMPTY_MOUNT = re.compile(
    rb"<(?:div|main|section|body)\b[^>]*\bid\s*=\s*[\"']?(?:root|app|__next|__nuxt|___gatsby"
    rb"|svelte|q-app|app-root|main-app)[\"'\s>][^>]*>\s*(?:<!--.*?-->\s*)*[^<]{0,60}</",
    re.IGNORECASE | re.DOTALL,
)
_SCRIPT_SRC = re.compile(rb"<script\b[^>]*\bsrc\s*=", re.IGNORECASE)
_APP_ROOT_TAG = re.compile(rb"<app-root\b[^>]*>\s*</app-root>", re.IGNORECASE)


def looks_like_js_shell(body: bytes | str, words: int = 0) -> bool:
    """Positive evidence in the raw page that its content is rendered by a script: a
    ``<noscript>`` that asks for JavaScript on a page of under `NOSCRIPT_SHELL_MAX_WORDS`
    extracted `words`, or an empty app mount point (``<div id="root"></div>``, or one
    holding a "Loading..." line; Angular's ``<app-root>``) with a script bundle. A
    short page without either is a short page (a contact page, a status page, a stub)."""
    raw = body.encode("utf-8", "replace") if isinstance(body, str) else body
    raw = raw[: 2 * 1024 * 1024]  # bounded: a shell's marks are in its first bytes
    if words < NOSCRIPT_SHELL_MAX_WORDS and _NOSCRIPT_ASKS.search(raw):
        return True
    mounted = _EMPTY_MOUNT.search(raw) or _APP_ROOT_TAG.search(raw)
    return bool(mounted and _SCRIPT_SRC.search(raw))


#: A JSON-LD ``articleBody`` of at least this many characters ...
LD_BODY_MIN_CHARS = 500
#: ... replaces the extracted body when that body holds less than this share of it.
LD_BODY_SHELL_SHARE = 0.25
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n|\r\n|\n")


def _shell_of(article_body: str | None, text: str) -> bool:
    """The extracted `text` is a small part of the page's own ``articleBody``: the
    article is rendered by a script, and the HTML holds only its shell (a teaser, the
    title block)."""
    return (
        article_body is not None
        and len(article_body) >= LD_BODY_MIN_CHARS
        and len(text) < LD_BODY_SHELL_SHARE * len(article_body)
    )


def _body_region(article_body: str) -> lxml.html.HtmlElement:
    """An element holding `article_body` as paragraphs (one per line; its markup
    parsed, when the publisher put HTML in it)."""
    if "<" in article_body and ">" in article_body:
        try:
            region = lxml.html.fragment_fromstring(article_body, create_parent="div")
            remove_never_content(region, keep_frames=False)
            return region
        except (etree.ParserError, ValueError):
            pass  # not markup after all: its lines are the paragraphs
    region = lxml.html.Element("div")
    for line in _PARAGRAPH_BREAK.split(article_body):
        if line.strip():
            paragraph = etree.SubElement(region, "p")
            paragraph.text = line.strip()
    return region


def _block_title(block: lxml.html.HtmlElement | None) -> str | None:
    """The text of a generator's title block, whitespace-normalised; None if none."""
    text = " ".join(block.text_content().split()) if block is not None else ""
    return text or None


def _extract(body: bytes | str, url: str, encoding: str | None, opts: ExtractOptions) -> Document:
    root = parse_html(body, encoding)
    if root is None:
        return Document(error="empty or unparseable document")
    doc = Document()
    tags = page_tags(root)
    base = effective_base(tags, url)
    article_body = apply_metadata(doc, root, tags, base, url)
    audit = LossAudit() if opts.main_content_only else None
    remove_never_content(root, keep_frames=opts.keep_frames, audit=audit)
    generator = generator_of(tags)
    # first: a permalink inside a signature is not its text
    remove_widgets(root, audit, generator=generator)
    # before any chrome rule reads a signature's box
    convert_declarations(root, audit, generator=generator)
    site = site_key(url)
    if opts.page_type in PAGE_TYPES:
        kind = PageType(opts.page_type, ("given",))
    else:
        kind = classify_page(root, ld_types=doc.json_ld_types, url=url, generator=generator)
    doc.page_type, doc.page_type_evidence = kind.name, list(kind.evidence)
    if opts.main_content_only:
        profile = PROFILES.get(kind.name)
        chosen = None
        if profile is not None:
            # the Product's JSON-LD description: decoded again only for a product page
            ld = json_ld_product_description(tags) if kind.name == "product" else None
            chosen = profile(ProfileInput(root, kind, doc, site, generator, opts, audit, ld))
        if chosen is not None:
            selection, trimmed = chosen.selection, chosen.trimmed
        else:
            selection = select_content(root, site=site, audit=audit, generator=generator)
            trimmed = trim_periphery(
                selection.root,
                selection.h1,
                description=doc.description,
                keep_captions=opts.keep_captions,
                site=site,
                article_meta=bool(doc.published_at or doc.author),
                stats=selection.stats,
                audit=audit,
                titled=selection.title_block is not None,
            )
        # `text` is the body alone (trafilatura's `text`, ScrapingHub's `articleBody`);
        # `markdown` is the document: the title as its one `#` heading, then the body,
        # so that every chunk's heading path starts at the page title.
        if trimmed.deck and not doc.description:
            doc.description = trimmed.deck  # the deck is a field, never lost
        shown = trimmed.title or _block_title(selection.title_block)
        # the Markdown's title line is the heading the page shows (its <h1>, a
        # generator's title block), not a <title> with the site's name (issue 30)
        title = shown or doc.title
        if not doc.title and shown:
            # the row's title is the page's metadata, its site name cut off; a theme
            # with no <title> (Doxygen's) is named by the heading it shows
            doc.title = shown
    else:
        selection = whole_page(root)
        title = None  # the page's own headings stay where they are
    if title and "\u200b" in title:  # a line-break hint, no character (markdown.py)
        title = title.replace("\u200b", "")
        if doc.title:
            doc.title = doc.title.replace("\u200b", "")
    heading = "# " + escape_line_start(escape_text(title)) if title else ""
    budget = opts.max_chars
    if budget and heading:  # `max_chars` bounds the whole Markdown, title line included
        budget = max(1, budget - len(heading) - 2)
    draw = functools.partial(
        render, base_url=base, page_site=site, max_chars=budget, heading=heading
    )
    rendered = draw(
        selection.root,
        keep_links=opts.keep_links,
        keep_images=opts.keep_images,
        tab_labels=selection.tab_labels,
        repeated=opts.repeated_paragraphs,
    )
    method = selection.method
    if opts.main_content_only and _shell_of(article_body, rendered.text):
        # the HTML holds a script's shell of the article, and the publisher's JSON-LD
        # holds its text: that text is the body (links and images are the shell's)
        stated = draw(
            _body_region(cast(str, article_body)),
            keep_links=False,
            keep_images=False,
            tab_labels=False,
        )
        if len(stated.text) > len(rendered.text):  # markup that held no text: ours stays
            rendered, method = stated, "json-ld"
    doc.text = rendered.text
    doc.headings = rendered.headings
    doc.content_hash = rendered.content_hash
    if title:
        if opts.max_chars and len(heading) > opts.max_chars:
            heading = heading[: opts.max_chars].rstrip()
        doc.markdown = with_title(heading, rendered.markdown)
        doc.headings = [Heading(level=1, text=title), *rendered.headings]
    else:
        doc.markdown = rendered.markdown
    doc.truncated = rendered.truncated
    doc.links = rendered.links
    doc.images = rendered.images
    doc.tables = rendered.tables
    doc.extraction_method = method
    doc.paragraph_keys = rendered.paragraph_keys
    if audit is not None:
        losses = audit.settle(selection.root)
        for text in rendered.dropped_paragraphs:
            losses.removals.append(repeated_removal(text))
        doc.removed = losses.summary()
        doc.removed_blocks = [(r.kind, r.rule, r.preview) for r in losses.removals]
    doc.boilerplate_ratio = selection.boilerplate_ratio
    # the renderer counted the words of the whole text already when nothing was cut
    doc.word_count = rendered.total_words if not doc.truncated else len(doc.text.split())
    doc.total_words = rendered.total_words
    doc.char_count = len(doc.markdown)
    if opts.include_html:
        for element in selection.root.iter(etree.Element):
            element.attrib.pop(TAB_LABEL_ATTR, None)  # our own marker, not the page's
        doc.html = etree.tostring(selection.root, encoding="unicode", method="html")
    if doc.language is None:
        doc.language = guess_language(doc.text)
    if doc.total_words < SHELL_CHECK_WORDS:
        # a short page: only now is it worth a look at the raw page for a shell's marks
        doc.js_shell = looks_like_js_shell(body, doc.total_words)
    return doc
