"""The result types of extraction: plain dataclasses, no behaviour.

Kept free of any parsing code so that the crawl layer, the pipelines and the
tests can import them without pulling in lxml.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ExtractOptions:
    """What `extract()` should put into the Markdown and the Document."""

    keep_links: bool = True  # Markdown links [text](url); False -> link text only
    keep_images: bool = True  # ![alt](src) in Markdown
    include_html: bool = False  # Document.html = serialized HTML of the content region
    max_chars: int = 0
    keep_frames: bool = False  # 0 = no limit; else cut Markdown at a block boundary
    #: keep image captions and photo credits in `markdown` and `text` (by default a
    #: news photo's caption and credit are not the body; a document's "Figure 3.1"
    #: caption always is)
    keep_captions: bool = False
    #: False: the whole page (its <body>) as Markdown, not only its main content: no
    #: content root, no chrome removal (what is never content, scripts and hidden
    #: elements, still goes). The HTTP API's ``useMainContentOnly=false``.
    main_content_only: bool = True
    #: a crawl's ``remove_repeated_blocks``: the keys of the short paragraphs its website
    #: repeats (``repeated.RepeatedParagraphs``), left out of `markdown` and `text` (not
    #: of `content_hash`); None: the option is off and no paragraph is keyed
    repeated_paragraphs: frozenset[str] | None = None
    #: the page's type, when the caller knows it (tests, benchmarks with labelled
    #: pages): one of `page_type.PAGE_TYPES`; "" = classify the page (issue 32)
    page_type: str = ""


@dataclass(slots=True)
class Heading:
    """A heading of the extracted content (level 1..6, whitespace-normalised text), with
    the id a URL fragment names to reach it when the page gave it one (``anchor``)."""

    level: int
    text: str
    anchor: str | None = None


@dataclass(slots=True)
class Link:
    """A link inside the extracted content; `internal` = same site_key as the page."""

    text: str
    url: str
    internal: bool


@dataclass(slots=True)
class Image:
    """An image inside the extracted content, with an absolute http(s) `src`."""

    src: str
    alt: str


@dataclass(slots=True)
class Document:
    """Everything extracted from one page. See `extract()` for the guarantees."""

    markdown: str = ""
    text: str = ""
    html: str | None = None
    title: str | None = None
    description: str | None = None
    site_name: str | None = None
    author: str | None = None
    published_at: str | None = None
    modified_at: str | None = None
    language: str | None = None
    canonical: str | None = None
    image: str | None = None
    keywords: list[str] = field(default_factory=list)
    json_ld_types: list[str] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    page_links: list[str] = field(default_factory=list)
    #: links of the page marked rel="nofollow" (not in `page_links`): counted, not followed
    nofollow_links: list[str] = field(default_factory=list)
    nofollow: bool = False
    meta_robots: str | None = None
    images: list[Image] = field(default_factory=list)
    #: data tables of the content: {index, caption, headers, header_rows, rows}, spans expanded
    tables: list[dict[str, Any]] = field(default_factory=list)
    extraction_method: str = "none"
    #: what kind of page this is (`page_type.PAGE_TYPES`: article, forum, product,
    #: collection, listing, documentation, service, other), and the evidence for it as
    #: short strings ("json-ld:Product", "repeated cards: 24")
    page_type: str | None = None
    page_type_evidence: list[str] = field(default_factory=list)
    boilerplate_ratio: float = 0.0
    word_count: int = 0
    #: words of the whole content before a `max_chars` cut (equals word_count otherwise)
    total_words: int = 0
    char_count: int = 0
    truncated: bool = False
    #: "sha256:<hex>" of the whole Markdown before any max_chars cut ("" on error)
    content_hash: str = ""
    #: positive evidence that the page is a JavaScript shell (its content is rendered
    #: by a script): a ``<noscript>`` asking for JavaScript, or an empty app mount
    #: point (``#root``, ``#app``, ``#__next``...) beside script bundles. Looked for
    #: only on a page with under `SHELL_CHECK_WORDS` words.
    js_shell: bool = False
    #: the loss audit (`audit.Losses.summary`): what extraction removed from inside the
    #: content root, per kind and per rule; None when no content root was chosen
    removed: dict[str, Any] | None = None
    #: each removed block as (kind, rule, first 80 characters), in removal order, for
    #: ``webmd convert --explain`` (not a row column)
    removed_blocks: list[tuple[str, str, str]] = field(default_factory=list)
    #: with `ExtractOptions.repeated_paragraphs`: the keys of the page's short top-level
    #: paragraphs, for its website's count (not a row column)
    paragraph_keys: list[str] = field(default_factory=list)
    error: str | None = None
