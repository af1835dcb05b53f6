"""Every heuristic word, tag, selector and threshold of content selection, as data.

`clean.py` (what is never content) and `root.py` / `boilerplate.py` (which
region is the content, and what chrome to cut out of it) hold only logic; the
vocabulary they judge pages by lives here, so it can be reviewed and tuned in
one place. Lengths are characters of stripped text.

Why one file of over 500 lines: it is data, not logic: the word lists and thresholds are
kept together to be reviewed and tuned together.
"""

from __future__ import annotations

import re

# --- clean.py: never content -------------------------------------------------

#: Elements whose content is never visible text (iframe is kept with keep_frames).
NEVER_CONTENT_TAGS = frozenset(
    {
        *("script", "style", "noscript", "svg", "template", "canvas"),
        *("object", "embed", "audio", "video", "math-field"),
    }
)
FRAME_TAGS = frozenset({"iframe", "frame", "frameset"})
#: A <noscript> alone in its parent with this much text (in paragraphs) is the
#: page's own fallback copy of content a script renders: it is kept.
NOSCRIPT_CONTENT_MIN_CHARS = 200
NOSCRIPT_SIBLING_SLACK_CHARS = 40
#: Form controls: their text is labels and option lists, not content.
FORM_CONTROL_TAGS = frozenset({"input", "select", "textarea", "button", "datalist"})
#: A control inside one of these is the visible text of a heading or a
#: disclosure (accordion titles are buttons): its words are kept, the tag goes.
CONTROL_KEEP_TEXT_PARENTS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "summary", "dt"})
#: A <form> is kept (unwrapped) when it holds this share of the body's text
#: (ASP.NET wraps the whole page in one), this many characters, or a content
#: landmark; otherwise it is a search box, login or comment form and goes.
FORM_KEEP_SHARE = 0.3
FORM_KEEP_CHARS = 1000
FORM_KEEP_IF_CONTAINS = ("h1", "article", "main")

#: Inline styles that hide an element (matched on the lower-cased, space-free style).
HIDDEN_STYLES = ("display:none", "visibility:hidden")
#: A box collapsed to zero height with its overflow clipped shows nothing (a copy of
#: the byline kept for search engines). Matched on the same compact style; a
#: padded one is a responsive embed frame ("height:0;padding-bottom:56%") and stays.
COLLAPSED_STYLE = re.compile(r"(?:^|;)height:0(?:px|em|rem|%)?(?:;|$)")
COLLAPSED_STYLE_ALSO = "overflow:hidden"
COLLAPSED_STYLE_UNLESS = "padding"
#: Never removed for being hidden: a page hidden as a whole (``<body style="display:none">``
#: until a script reveals it on load) is still the page.
NEVER_HIDDEN_TAGS = frozenset({"html", "body"})
#: ``hidden="until-found"``: content the browser's find-in-page or a fragment link reveals
#: (HTML, 6.1 "The hidden attribute"), so it is content, not hidden.
HIDDEN_UNTIL_FOUND = "until-found"
#: A hidden element holding more than this share of the body's non-whitespace characters,
#: and at least this many of them, is the page itself hidden for a while (an app root that a
#: modal library set aria-hidden on while a consent dialog is open): it stays. Hidden
#: menus, dialogs and mobile navs hold less than half of a page; 0.6 rather than 0.5 keeps a
#: block hidden with visibility:hidden that holds just over half a short page out.
HIDDEN_WRAPPER_SHARE = 0.6
HIDDEN_WRAPPER_MIN_CHARS = 200
#: A ``<template>`` with one of these attributes set to one of these modes is a declarative
#: shadow root: rendered content, not an inert template (HTML, 4.12.3 "The template element";
#: ``shadowroot`` is Chrome's older pre-standard name).
SHADOW_ROOT_ATTRS = ("shadowrootmode", "shadowroot")
SHADOW_ROOT_MODES = frozenset({"open", "closed"})
#: Hidden tab panels are content (the other language of a code sample...).
TABPANEL_ROLES = frozenset({"tabpanel"})
TABPANEL_CLASSES = frozenset(
    {
        *("tab-pane", "tab-panel", "tabpanel", "tabs-panel", "tab-content-item"),
        *("tabbed-block", "tabs__panel", "tabs-panel", "tab__content", "tabitem"),
        *("code-tab", "code-tabs-panel", "sphinx-tabs-panel", "tab-item-content"),
    }
)
#: Attribute names whose presence marks a tab panel ([data-tab]-style panels).
TABPANEL_ATTRS = ("data-tab", "data-tab-content", "data-tab-panel", "data-tabs-panel")
#: Attributes of a panel naming its language or tab, in order of trust.
TAB_NAME_ATTRS = ("data-lang", "data-language", "data-tab-name", "data-tab", "data-value")
#: Attributes of a tab control pointing at its panel ("#id" or "id").
TAB_CONTROL_ATTRS = ("aria-controls", "data-target", "data-bs-target", "href")
#: A class "language-x" / "lang-x" names the panel's language.
TAB_LANG_CLASS = re.compile(r"^(?:language|lang)-([\w+#.-]{1,30})$", re.IGNORECASE)
#: Bare class words that name a programming language (for "tab-pane python").
LANGUAGE_NAMES = frozenset(
    {
        *("python", "py", "javascript", "js", "typescript", "ts", "java", "kotlin"),
        *("go", "golang", "ruby", "rb", "php", "csharp", "cs", "c", "cpp", "rust"),
        *("swift", "scala", "bash", "shell", "sh", "curl", "powershell", "http"),
        *("node", "nodejs", "json", "yaml", "xml", "html", "css", "sql", "r", "perl"),
        *("dart", "elixir", "objc", "objective-c", "dotnet", "vb", "cli", "console"),
    }
)
#: Longest tab label we believe is a label and not a paragraph.
TAB_LABEL_MAX_CHARS = 40
#: The role of a tab in a ``role=tablist`` strip (WAI-ARIA); its k-th tab names its k-th panel.
TABLIST_ROLE = "tablist"
TAB_ROLE = "tab"
#: The panels of a tablist are looked for after it in its parent, then in up to this many
#: levels of ancestors (a strip wrapped in a header), reading at most this many elements
#: in all: a tablist without panels (a menu marked up as tabs) must not read the whole page.
TAB_PANEL_SEARCH_LEVELS = 3
TAB_PANEL_SEARCH_BUDGET = 500
#: A short caption beside a ``<pre>`` that only names the code's language (VitePress's
#: ``<span class="lang">sh</span>``) goes: the fence says it. Tags such a caption takes.
CODE_CAPTION_TAGS = frozenset({"span", "div", "small", "label", "b", "strong", "em", "i"})
CODE_CAPTION_MAX_CHARS = 20
#: Math is content (docs/EXTRACTION.md, "Math"): every formula is written once, as its TeX
#: between ``$`` (inline) or ``$$`` (display) when the page holds its TeX. Script types of
#: MathJax 2's source of a formula (``math/tex; mode=display`` for display math); a
#: ``math/mml`` script holds MathML.
MATH_TEX_SCRIPT = "math/tex"
MATH_MML_SCRIPT = "math/mml"
MATH_DISPLAY_MODE = "mode=display"
#: ``<annotation encoding>`` values that hold the formula's TeX (KaTeX, MediaWiki, LaTeXML,
#: MathJax's "semantics" output), lower-cased.
MATH_TEX_ENCODINGS = frozenset(
    {"application/x-tex", "text/x-tex", "tex", "application/x-latex", "text/x-latex", "latex"}
)
#: Class words (lower-cased) of MathJax 2's renderings of the formula its ``<script
#: type="math/tex">`` holds (HTML-CSS, CommonHTML, SVG, NativeMML, PreviewHTML, and the
#: preview shown until it runs): they are the same formula again, and go.
MATHJAX2_RENDERING_CLASSES = frozenset(
    {
        *("mathjax", "mathjax_display", "mathjax_preview", "mathjax_chtml", "mjxc-display"),
        *("mathjax_svg", "mathjax_svg_display", "mathjax_mathml", "mathjax_phtml"),
        *("mathjax_phtml_display", "mathjax_mathcontainer", "mjx-chtml", "mathjax_svg_preview"),
    }
)
#: Wrappers of one formula, innermost first, from its ``<math>`` up: each wraps the
#: formula's MathML with its rendered copy (or its fallback image), and the outermost found
#: is replaced by the ``<math>``. (tag or "", class word or "", wrapper marks display math).
#: KaTeX: ``span.katex-display > span.katex > span.katex-mathml > math`` (the rendering is
#: ``span.katex-html``); MathJax 3: ``mjx-container > mjx-assistive-mml > math`` (beside
#: ``mjx-math``, CHTML or SVG); MediaWiki: ``span.mwe-math-element >
#: span.mwe-math-mathml-inline|display > math`` (beside ``img.mwe-math-fallback-image-*``).
MATH_WRAPPERS: tuple[tuple[str, str, bool], ...] = (
    ("", "katex-mathml", False),
    ("", "katex", False),
    ("", "katex-display", True),
    ("mjx-assistive-mml", "", False),
    ("mjx-container", "", False),
    ("", "mwe-math-mathml-inline", False),
    ("", "mwe-math-mathml-a11y", False),
    ("", "mwe-math-mathml-display", True),
    ("", "mwe-math-element", False),
)
#: MediaWiki's image of a formula kept beside its MathML (mwe-math-fallback-image-inline,
#: -display): the MathML's TeX is written instead.
MATH_FALLBACK_IMAGE_CLASS = "mwe-math-fallback-image"
#: MediaWiki writes every formula's TeX as ``{\displaystyle ...}``: the wrapper is dropped.
MATH_TEX_WRAPPER = re.compile(r"^\{\\displaystyle\s*(.*)\}$", re.DOTALL)
#: A checkbox opening a list item (at most this deep in it) is a task-list mark: it is
#: written as GFM's "[x] " (checked) or "[ ] ".
TASK_CHECKBOX_DEPTH = 3
TASK_DONE = "[x] "
TASK_OPEN = "[ ] "

# --- text statistics ------------------------------------------------------------

#: Elements that flow inside a block: their text joins the surrounding paragraph.
INLINE_TAGS = frozenset(
    {
        *("a", "abbr", "acronym", "b", "bdi", "bdo", "big", "br", "cite", "code"),
        *("data", "dfn", "em", "font", "i", "img", "ins", "del", "kbd", "label"),
        *("mark", "nobr", "q", "s", "samp", "small", "span", "strike", "strong"),
        *("sub", "sup", "time", "tt", "u", "var", "wbr", "math"),
    }
)
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: A paragraph's words count as prose when it has this many characters outside
#: links and either ends a sentence or is long, and is not mostly links.
PROSE_MIN_CHARS = 30
PROSE_LONG_CHARS = 100
PROSE_MAX_LINK_SHARE = 0.5
#: A sentence ends here, or (CJK, written without spaces) a run of ideographs reads as prose.
SENTENCE_END = re.compile(
    r"[.!?\u061f\u0964][\"'\u201d\u2019)\]]*(?:\s|$)|[\u3002\uff01\uff1f\uff0c\u3001]"
    r"|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{12}"
)

# --- root.py: finding the content root -----------------------------------------

#: A step's pick holding less text than this falls through to the next step.
MIN_ROOT_CHARS = 150
#: Of several <article>s, one holding this share of the page's text is the
#: article; otherwise they are cards of a listing.
ARTICLE_MAJORITY = 0.5
#: A root is accepted when it holds the page's <h1> or this share of its prose.
ACCEPT_PROSE_SHARE = 0.3
#: The innermost <article> holding the page's h1 is the root when it holds this share
#: of the page's prose: teaser cards beside it may hold more words than the story.
TITLED_ARTICLE_PROSE_SHARE = 0.15
#: The density pick is widened to the smallest ancestor holding this share of the prose.
DENSITY_WIDEN_SHARE = 0.6
#: Byline and dateline blocks ("By Jane Doe | March 3, 2024"): the row carries the
#: author and dates as fields, so the short block that shows them is not content.
#: Matched as whole words of class / id / itemprop / rel names.
BYLINE_WORDS = frozenset(
    {
        "byline", "bylines", "dateline", "author", "authors", "postmeta", "entrymeta",
        "articlemeta", "pubdate", "timestamp", "posted", "publishdate", "published",
    }
)  # fmt: skip
#: Two-word names that mean a byline ("entry-meta", "post-date").
BYLINE_PAIRS = frozenset(
    {
        ("entry", "meta"), ("post", "meta"), ("article", "meta"), ("posted", "on"),
        ("post", "date"), ("entry", "date"), ("article", "date"), ("publish", "date"),
        ("story", "meta"), ("article", "info"), ("post", "info"), ("meta", "info"),
    }
)  # fmt: skip
#: A byline block is short: at most this many characters and no heading inside.
BYLINE_MAX_CHARS = 160
#: ...and no sentences: an author bio ("Jane writes about cities.") is prose and stays.
BYLINE_MAX_PROSE = 0
#: ...and further up while what a parent adds is mostly text, not links: the sibling
#: sections of a documentation page (synopsis, description, examples) around the
#: biggest one. Navigation bars and link lists are mostly links and stop the climb.
DENSITY_SIBLING_MAX_LINK_SHARE = 0.25
#: ...but never to a parent whose added text is more than this multiple of the pick
#: (that is a page of several unrelated blocks, not one document).
DENSITY_SIBLING_MAX_GROWTH = 3.0
#: Widen a root to take in the page's <h1> when that adds at most the heading
#: and this many characters (a byline, a date): a title just above the body.
H1_WIDEN_SLACK_CHARS = 300
#: The density pick is widened to the <h1>'s own column instead of the common
#: ancestor when that column holds MIN_ROOT_CHARS besides the heading and this
#: share of the pick's column's text (an article beside a prose sidebar).
H1_COLUMN_SHARE = 0.5
#: ... and an article's body, which a title box (title, deck, byline) never holds:
#: one of these, or this many paragraphs of prose.
H1_COLUMN_BODY_TAGS = ("ul", "ol", "dl", "table", "pre", "blockquote", "h2", "h3", "h4")
H1_COLUMN_PARAGRAPHS = 3
#: A container class found on separate blocks whose prose is this share of the
#: chosen one's: the root is their common ancestor.
CONTAINER_SPLIT_SHARE = 0.5
#: Well-known content containers, most specific first. Each entry is
#: (attribute, value): "id" and "class" match one id / class token exactly,
#: "itemprop" the attribute value. The first tier that matches a large enough
#: element wins; within a tier, the element with the most text.
CONTENT_CONTAINERS: tuple[tuple[tuple[str, str], ...], ...] = (
    (
        ("itemprop", "articleBody"),
        ("class", "post-content"),
        ("class", "entry-content"),
        ("class", "article-body"),
        ("class", "article-content"),
        ("class", "articleBody"),
        ("class", "article__body"),
        ("class", "article__content"),
        ("class", "post-body"),
        ("class", "post__content"),
        ("class", "story-body"),
        ("class", "markdown-body"),
        ("class", "mw-parser-output"),
        ("class", "rst-content"),
        ("class", "doc-content"),
        ("class", "docs-content"),
        ("class", "md-content"),
        ("class", "theme-doc-markdown"),
        ("class", "body-content"),
        ("id", "article-body"),
        ("id", "mw-content-text"),
        ("id", "post-content"),
        ("id", "story"),
    ),
    (
        ("id", "main-content"),
        ("id", "maincontent"),
        ("id", "content"),
        ("id", "main"),
        ("class", "documentation"),
        ("class", "prose"),
        ("class", "main-content"),
        ("class", "content"),
        ("class", "page-content"),
        ("class", "post"),
        ("class", "entry"),
        ("class", "article"),
    ),
)
#: Title of the page's <h1> is looked for in <title> when there are several.
MAX_H1_CANDIDATES = 8
#: An <h2> opening the <title> is the page's title (over an <h1> that does not)
#: when it has this many characters: a headline, not a site name.
TITLE_HEADING_MIN_CHARS = 20
#: A heading that ends the <title> after one of these, with this many characters, is
#: the title of a site that puts its name first ("Site: Section: Page", "Site | Page").
TITLE_SEPARATORS = frozenset(":|-\u2013\u2014\u00bb\u00b7/")  # en/em dash, guillemet, dot
TITLE_SUFFIX_MIN_CHARS = 6

# --- boilerplate ----------------------------------------------------------------

BOILERPLATE_TAGS = frozenset({"nav", "header", "footer", "aside", "dialog", "menu"})
BOILERPLATE_ROLES = frozenset(
    {
        *("navigation", "banner", "contentinfo", "complementary", "search"),
        *("dialog", "alertdialog", "menu", "menubar", "toolbar", "tablist"),
    }
)
#: Class words of an <aside> (or complementary box) that is part of the text.
ADMONITION_WORDS = frozenset(
    {
        *("note", "notes", "warning", "warn", "tip", "tips", "callout", "admonition"),
        *("caution", "important", "info", "hint", "danger", "attention", "notice"),
        *("alert", "example", "sidenote", "aside-note", "pullquote", "blockquote"),
        *("definition", "seealso", "todo", "error", "success", "box-note"),
    }
)
#: Class words of a box's own title ("sidebar-title"): kept with a kept box.
BOX_TITLE_WORDS = frozenset({"title", "heading", "caption", "label"})
#: A line beside the title that is this much link is a control ("Post Reply").
TITLE_CONTROL_LINK_SHARE = 0.9
#: A <header> holding this much prose is the text (nested there by unclosed markup).
HEADER_KEEP_PROSE = 600
#: An aside / complementary box holding this much prose is kept.
ASIDE_KEEP_PROSE = 200
#: A role-marked or chrome-tagged element with its own heading and this much prose stays.
SECTION_KEEP_PROSE = 300

#: id / class words that mark page chrome. A class or id is split into words on
#: "-", "_", spaces and camelCase; it marks chrome when one of its words is in
#: this set and every other word is a chrome word or a QUALIFIER ("site-footer",
#: "mainNav", "post-share", "share-buttons"), so "social-security",
#: "related-work", "menu-planning" and "ad-hoc" do not.
BOILERPLATE_WORDS = frozenset(
    {
        *("nav", "navbar", "navigation", "navlinks", "menu", "menubar", "submenu"),
        *("navheader", "navfooter"),  # DocBook XSL's Prev / Up / Home / Next tables
        *("sidebar", "sidenav", "footer", "header", "masthead", "topbar", "cookie"),
        *("cookies", "consent", "gdpr", "banner", "breadcrumb", "breadcrumbs"),
        *("share", "sharing", "social", "sns", "comment", "comments", "disqus", "related"),
        *("promo", "promotion", "advert", "advertisement", "ad", "ads", "adsense"),
        *("sponsor", "sponsored", "popup", "modal", "newsletter", "subscribe"),
        *("subscription", "signup", "toc", "pagination", "pager", "widget"),
        *("widgets", "outbrain", "taboola", "recirc", "recommended", "trending"),
        *("skiplink", "skip", "editsection", "byline-share", "dropdown", "offcanvas"),
        *("tags", "tagcloud", "taglist", "crumbs", "toolbar", "shoutbox", "jump"),
        *("lightbox", "overlay", "paywall", "colophon", "sitemap", "masthead"),
        *("mood", "moods", "reactions"),  # "how did this news make you feel"
    }
)
#: Chrome words of comment threads: such a box is kept only when it is the
#: link-light majority of its container (a forum thread), not for its prose.
COMMENT_WORDS = frozenset({"comment", "comments", "disqus", "respond", "replies"})
#: Words that only qualify a chrome word: "site-footer", "main-nav",
#: "post-share", "share-buttons", "related-posts", "ad-slot". Numbers count too.
QUALIFIER_WORDS = frozenset(
    {
        *("site", "main", "page", "global", "top", "bottom", "primary", "secondary"),
        *("post", "posts", "entry", "article", "articles", "story", "stories", "left"),
        *("right", "wrapper", "wrap", "container", "inner", "outer", "area", "box"),
        *("block", "section", "bar", "links", "link", "list", "item", "items", "group"),
        *("region", "mobile", "desktop", "buttons", "button", "btn", "icons", "icon"),
        *("tools", "tool", "count", "counter", "form", "holder", "panel", "unit"),
        *("slot", "placeholder", "module", "zone", "sticky", "fixed", "col", "column"),
        *("pane", "notice", "strip", "rail", "horizontal", "vertical", "sub", "full"),
        *("tertiary", "wide", "js", "ui", "c", "l", "m", "o", "u", "x", "new", "v"),
        *("default", "simple", "small", "large", "lg", "sm", "md", "xs", "xl", "toggle"),
        *("trigger", "title", "label", "heading", "respond", "reply", "thread"),
        *("threads", "meta", "info", "card", "cards", "feed", "layout", "upper"),
        *("lower", "above", "below", "after", "before", "end", "start", "home", "more"),
        *("next", "previous", "prev", "back", "static", "widget", "wrapper", "area"),
        *("gallery", "slideshow", "carousel", "slider"),
    }
)
#: Chrome words of boxes drawn over the page (a "become an author" modal, a
#: sign-up popup): their prose does not guard them.
OVERLAY_WORDS = frozenset({"modal", "popup", "lightbox", "dialog"})
#: Chrome words that no content word outweighs: "content-breadcrumbs" is a trail.
STRONG_BOILERPLATE_WORDS = frozenset({"breadcrumb", "breadcrumbs", "crumbs"})
#: A class or id with one of these words names content, whatever else it says:
#: "comment-body", "content-header", "article-text".
CONTENT_WORDS = frozenset({"content", "contents", "body", "text", "prose", "copy"})
#: Whole class names of text drawn off screen for screen readers only: a heading so
#: classed is not shown (and is not the page's title), whatever it says.
VISUALLY_HIDDEN_NAMES = frozenset(
    {
        *("sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text"),
        *("screenreader-only", "a11y-only", "screen-reader-only", "assistive-text"),
        *("element-invisible", "hidden-visually"),
    }
)
#: Whole class / id names that are chrome although their words are not
#: ("sr-only" is screen-reader text, "screen-reader-text" the same).
BOILERPLATE_NAMES = frozenset(
    {
        *VISUALLY_HIDDEN_NAMES,
        *("skip-link", "skip-to-content", "skip-nav"),
        *("share-this", "addthis", "sharedaddy", "jp-relatedposts", "yarpp-related"),
        *("mw-editsection", "printfooter", "catlinks", "navbox", "mw-jump-link"),
        *("hidden-print", "noprint", "print-only", "ai2html"),
    }
)
#: Names with a chrome word that are content although every other word is a
#: qualifier (the qualifier rule already keeps "social-security", "related-work",
#: "menu-planning", "ad-hoc": "security", "work", "planning", "hoc" are not qualifiers).
CONTENT_NAMES = frozenset(
    {"social-security", "related-work", "related-works", "menu-planning", "ad-hoc", "ad-lib"}
)
#: Guards of the class rule (see chrome_judge.py).
GUARD_CONTENT_SHARE = 0.5  # holds more than this share of the root's text
GUARD_PROSE_CHARS = 200  # holds this much prose ...
GUARD_PROSE_SHARE = 0.5  # ... that is at least this share of its own text
GUARD_MAJORITY_SHARE = 0.5  # a link-light majority of its own parent
GUARD_MAJORITY_LINK_SHARE = 0.3
GUARD_MAJORITY_MIN_CHARS = 200
#: ... but a box of this share of link text and at most this share of prose is
#: not "most of the content" (a kudos list, a tag cloud) when the rest of the
#: root holds this much prose.
LINK_MASS_LINK_SHARE = 0.8
LINK_MASS_MAX_PROSE_SHARE = 0.05
LINK_MASS_OTHER_PROSE = 500

#: Cookie / consent notices recognised by their words, in a short block.
COOKIE_WORDS = re.compile(r"\b(?:cookies?|consent|gdpr|privacy settings)\b", re.IGNORECASE)
COOKIE_PHRASES = re.compile(
    r"\b(?:(?:we|this (?:web)?site|our (?:web)?site|site) (?:uses?|using|store|stores|may use)"
    r"|cookie (?:policy|settings|preferences|notice|consent|banner)"
    r"|(?:use|uses|using|accept|enable|allow|reject|manage) (?:of )?(?:all )?cookies"
    r"|gdpr|your consent|consent (?:to|preferences|settings))",
    re.IGNORECASE,
)
COOKIE_ACTIONS = re.compile(
    r"\b(?:accept|agree|reject|decline|allow|got it|ok|okay|i understand|dismiss"
    r"|close|continue|consent|settings|preferences|learn more|more info)\b",
    re.IGNORECASE,
)
COOKIE_MAX_CHARS = 700
COOKIE_TEXT_HINTS = ("ookie", "onsent", "GDPR")

#: Media players: an element whose aria-label matches PLAYER_LABEL, or with a
#: class / id word in PLAYER_WORDS, is a player's chrome (controls, settings
#: menus, "Now watching", "Video not available") when it holds at most
#: PLAYER_MAX_PROSE characters of prose.
PLAYER_LABEL = re.compile(r"\b(?:video|audio|media)?\s*player\b", re.IGNORECASE)
PLAYER_WORDS = frozenset(
    {"player", "videoplayer", "jwplayer", "vjs", "mejs", "plyr", "brightcove", "videojs"}
)
PLAYER_MAX_PROSE = 200

#: Link farms: a block with this many links, this share of link text, and at
#: most this share of the root's text.
LINK_FARM_MIN_LINKS = 4
LINK_FARM_LINK_SHARE = 0.7
LINK_FARM_MAX_SHARE = 0.2
#: ... and less than this much prose: a list of links with a sentence among
#: them is part of the text, and so is a list of links nested in an item of
#: a list holding that much prose ("In progress:" and its bug links).
LINK_FARM_KEEP_PROSE = 100
LINK_FARM_TAGS = frozenset(
    {"div", "section", "ul", "ol", "dl", "table", "nav", "aside", "footer", "header", "p"}
)
#: ... but a list of links right under a heading of the text with more than this
#: share of its links to other sites is the article's citations ("Further reading",
#: "External links", a changelog's version links), not the site's promotion.
CITED_LINKS_OFF_SITE_SHARE = 0.5
#: ... unless the heading asks to share or follow: those links are social buttons.
SOCIAL_HEADINGS = re.compile(
    r"^\s*(?:share|follow|connect|subscribe|find\s+us|join\s+us|stay\s+in\s+touch"
    r"|social(?:\s+media)?\b)",
    re.IGNORECASE,
)
#: Without a canonical / og:url / <base> to name the page's site, it is the host of
#: most absolute links outside the content root, when they are at least this many.
SITE_NAV_MIN_LINKS = 3
#: A heading whose section lost blocks to chrome rules and holds no text any more
#: goes too, unless one of these (with alt text, for an image) is left in it.
ORPHAN_CONTENT_TAGS = frozenset(
    {"img", "video", "audio", "iframe", "object", "embed", "svg", "canvas", "math", "table"}
)
#: The heading is looked for this many elements back from the removed block, past
#: empty ones ("<div class="clear"></div>").
ORPHAN_MAX_STEPS = 4

#: Galleries / slideshows: a box with a class name of GALLERY_WORDS (and
#: qualifiers) holding GALLERY_MIN_SLIDES+ sibling slides goes, when the root
#: keeps GALLERY_ARTICLE_PROSE characters of prose outside such boxes.
GALLERY_WORDS = frozenset(
    {"gallery", "slideshow", "slideshows", "carousel", "slider", "slides", "legends", "filmstrip"}
)
GALLERY_MIN_SLIDES = 4
#: ... and at least this share of the root's text (a few pictures in an article stay).
GALLERY_MIN_SHARE = 0.2
GALLERY_ARTICLE_PROSE = 500

#: Ad labels: an element whose whole text (lower-cased, spaces collapsed) is one
#: of these, at most AD_LABEL_MAX_CHARS long, is the empty frame of an ad slot.
AD_LABELS = frozenset(
    {
        *("advertisement", "advertisements", "advertising", "advert", "ad", "ads"),
        *("sponsored", "sponsored content", "sponsored links", "paid content", "promoted"),
        *("story continues below", "story continues below advertisement", "skip ad"),
        *("article continues below", "article continues below advertisement"),
        *("continue reading below", "continue reading the main story", "skip advertisement"),
        *("content continues below", "ad feedback", "report this ad"),
        # the same label in other languages (de, fr, es, pt, it, nl, pl/cs, nordic,
        # fi, ru, tr, ja/zh)
        *("anzeige", "werbung", "gesponsert", "publicité", "publicidad", "anuncio"),
        *("patrocinado", "contenido patrocinado", "publicidade", "pubblicità"),
        *("advertentie", "gesponsord", "reklama", "annons", "annonse", "annonce"),
        *("reklame", "mainos", "реклама", "reklam", "広告", "广告"),
    }
)
#: Characters around an ad label that are not part of it ("- Anzeige -", "— AD —").
AD_LABEL_EDGES = " -\u2013\u2014*:|\u00b7\u2022[]()"

AD_LABEL_MAX_CHARS = 40

#: UI-word blocks: a short block (at most UI_BLOCK_MAX_CHARS) whose every word is
#: an interface word ("Full Screen", "Buy Photo", "Font Size A A A", "Comments
#: (12)"), a filler word, a number or a single letter, with at least one
#: interface word (or a counter "1 of 24"), is a control of the page, not text.
#: "Next" / "Previous" / "Back" are not here: a lone pager link may be content;
#: nor is a block ending in ":" ("Read more:"), the lead-in of what follows.
UI_WORDS = frozenset(
    {
        *("full", "screen", "fullscreen", "autoplay", "close", "caption", "captions"),
        *("buy", "font", "size", "print", "email", "mail", "share", "shares", "tweet"),
        *("pin", "reply", "replies", "comment", "comments", "show", "hide", "more"),
        *("less", "skip", "replay", "play", "pause", "mute", "unmute", "copy", "copied"),
        *("read", "later", "save", "saved", "bookmark", "expand", "collapse", "toggle"),
        *("zoom", "enlarge", "embed", "permalink", "retry"),
        # reactions and follows under posts ("2 Likes", "Follow", "Vote", "12 claps")
        *("like", "likes", "liked", "follow", "vote", "votes", "upvote", "downvote", "clap"),
        *("claps", "upvotes", "downvotes"),
    }
)
#: Words allowed in a UI-word block that do not make one by themselves (a
#: credit "Facebook" or a placeholder "Image" is text of the page).
UI_FILLER_WORDS = frozenset(
    {
        *("of", "this", "the", "to", "on", "in", "all", "now", "story", "article", "page"),
        *("via", "view", "link", "photo", "photos", "image", "images", "video", "videos"),
        *("gallery", "facebook", "twitter", "whatsapp", "linkedin", "pinterest", "reddit"),
        *("flipboard", "sms"),
    }
)
#: A slide counter "1 of 24" ("1 / 5" may be a score or a date: not counted).
UI_COUNTER = re.compile(r"^\s*\d+\s+of\s+\d+\s*$", re.IGNORECASE)
#: A block whose whole text is one abbreviated count ("1.2K" claps, "3.4m" views) is
#: a reaction counter, unless it sits in a list or a table (COUNTER_STOP_TAGS).
UI_ABBREVIATED_COUNT = re.compile(r"^\d{1,3}(?:[.,]\d{1,2})?\s?[kKmM]$")
COUNTER_STOP_TAGS = frozenset(
    {"h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "tr", "table", "caption", "summary"}
    | {"li", "dd", "dt", "pre", "code"}
)
#: A reading-time note ("6 min read", "Reading time: 5 minutes") marks a byline block.
READING_TIME = re.compile(
    r"^[\W_]*(?:\d+\s*-?\s*min(?:ute)?s?\.?\s+read(?:ing)?(?:\s+time)?"
    r"|reading\s+time\s*:?\s*\d+\s*min(?:ute)?s?\.?)[\W_]*$",
    re.IGNORECASE,
)
READING_TIME_MAX_CHARS = 30
UI_BLOCK_MAX_CHARS = 40
#: Tags never judged as UI-word blocks themselves (their list, row or block is).
UI_SKIP_TAGS = frozenset(
    {*HEADING_TAGS, *INLINE_TAGS, "li", "td", "th", "tr", "dt", "dd", "caption", "summary"}
)
#: A UI-word block holding one of these is text, not a control.
UI_KEEP_DESCENDANTS = ("h1", "h2", "h3", "h4", "h5", "h6", "pre", "code", "table", "kbd")

#: Headings that open a list of links to other pages.
RELATED_HEADINGS = re.compile(
    r"^\s*(?:related(?:\s+(?:posts?|articles?|stories|content|reading|links|videos|guides|pages))?"
    r"|read\s+(?:next|more|also)|more\s+(?:from|on|in|stories|articles|posts|like this|to read)\b.*"
    r"|(?:you|we\s+think\s+you)\s+(?:may|might|will|would)\s+(?:also\s+)?"
    r"(?:like|enjoy|be interested).*"
    r"|recommended(?:\s+(?:for you|reading|articles|posts|stories))?|popular(?:\s+\w+)?"
    r"|trending(?:\s+\w+)?|most\s+(?:read|popular|viewed|shared)|latest\s+(?:posts|news|articles)"
    r"|also\s+(?:read|on|in)\b.*|further\s+reading|keep\s+reading|don'?t\s+miss"
    r"|recent\s+(?:posts|articles|stories)|post\s+navigation"
    r"|(?:previous|prev|older)\s+(?:and|&|/)\s+(?:next|newer)(?:\s+(?:posts?|articles?|stories|entries))?"
    r"|上一[篇頁页].{0,4}下一[篇頁页].{0,4})\s*[:.!]?\s*$",
    re.IGNORECASE,
)
#: Pager links: a short block (at most PAGER_MAX_CHARS) whose whole text is links,
#: each opening with a previous / next label ("← Previous: Title", "Next Chapter",
#: "上一篇: ..."), is the navigation between posts, not text. A label outside
#: the link ("<b>Next page</b>: <a>Security</a>") is the page's own words, and so
#: is a bare "Next" / "Previous" link (it may be the content's own pager).
PAGER_LABEL = re.compile(
    r"^\s*(?:[«\u2039←<]+\s*)?(?:previous|prev|next|older|newer|précédent|suivant"
    r"|vorheriger?|nächster?|上一[篇頁页章]|下一[篇頁页章]|前の記事|次の記事)"
    r"(?:\s+(?:posts?|articles?|stor(?:y|ies)|entry|entries|chapter|page|episode)"
    r"\s*(?:[:\uff1a»\u203a→>]|$)|\s*[:\uff1a]\s*\S)",
    re.IGNORECASE,
)
PAGER_MAX_CHARS = 200
#: Share of a pager block's text that its links hold.
PAGER_LINK_SHARE = 0.95

#: The label of a page's tag list ("Tags", "Filed under:"): with the link lists
#: that follow it (or the links after it in its own block) it is chrome.
TAG_LIST_LABELS = re.compile(
    r"^\s*(?:tags?|tagged(?:\s+(?:with|as))?|topics|filed\s+under|keywords|labels|categories"
    r"|themen|kategorien|schlagworte|temas|tematy|thèmes|sujets|argomenti|categorías"
    r"|mots[-\s]cl[ée]s|schlagw[öo]rter|etiquetas|标签|關鍵字|关键词|タグ)\s*[:\uff1a]?\s*$",
    re.IGNORECASE,
)
TAG_LIST_LABEL_MAX_CHARS = 20
RELATED_HEADING_TAGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
#: What follows such a heading is a link list when this share of it is link text.
RELATED_LIST_LINK_SHARE = 0.5
RELATED_HEADING_MAX_CHARS = 60

#: Teaser cards: sibling blocks, each holding one heading that is all link text
#: (a headline linking to another page) and at most TEASER_CARD_MAX_CHARS of
#: text. TEASER_MIN_CARDS or more under one parent are a "more stories" stream
#: and go, while together they hold at most TEASER_MAX_SHARE of the root's
#: text; the parent goes too when the cards are TEASER_PARENT_SHARE of it.
TEASER_HEADING_TAGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
TEASER_LINK_SHARE = 0.6
TEASER_MIN_CARDS = 3
TEASER_CARD_MAX_CHARS = 600
TEASER_MAX_SHARE = 0.5
TEASER_PARENT_SHARE = 0.8
#: ... or more, when the root has the page's <h1> and this much prose outside them.
TEASER_ARTICLE_PROSE = 1000

#: Heading permalink anchors: by class, or by text when they point into the page.
PERMALINK_CLASSES = frozenset(
    {
        *("headerlink", "anchor", "hash-link", "anchor-link", "heading-anchor"),
        *("header-anchor", "permalink", "anchorjs-link", "heading-link", "direct-link"),
        *("deep-link", "self-link", "headinganchor", "anchor-icon", "octicon-link"),
    }
)
PERMALINK_TEXTS = frozenset({"", "¶", "#", "§", "🔗", "link", "permalink", "⚓", "¶#", "#¶"})
#: "Edit this page"-style links (matched on the whole, stripped link text).
EDIT_LINK_TEXT = re.compile(
    r"^\[?\s*(?:edit(?:\s+(?:this\s+page|on\s+github|on\s+gitlab|page|source|this\s+article|"
    r"this\s+doc(?:ument)?|this\s+section))?|improve\s+this\s+(?:page|doc|article)"
    r"|suggest\s+(?:an\s+)?edits?|view\s+(?:page\s+)?source|view\s+on\s+github)\s*\]?$",
    re.IGNORECASE,
)
EDIT_LINK_MAX_CHARS = 40
PERMALINK_MAX_CHARS = 10

#: Names and roles of a footnote list (kept, whatever its tag): docutils' aside.footnote,
#: DPUB-ARIA 1.0's doc-footnote / doc-endnotes.
FOOTNOTE_WORDS = frozenset({"footnote", "footnotes", "endnotes", "endnote"})
FOOTNOTE_ROLES = frozenset({"doc-footnote", "doc-endnotes", "doc-footnotes"})
#: A rubric over the footnotes (Sphinx's p.rubric "Footnotes"), lower-cased.
FOOTNOTE_RUBRICS = frozenset({"footnotes", "notes", "endnotes", "fußnoten", "notes de bas de page"})

#: WAI-ARIA 1.2: the role of a popup shown on hover or focus (clean.py drops it).
TOOLTIP_ROLE = "tooltip"

# --- widgets.py: the controls of generated documentation (issue 30) -------------------
#: The whole text of a link that is a documentation widget, not a word of the text:
#: a source link (rustdoc "source", "[src]"; Sphinx viewcode "[source]"), a collapse
#: toggle ("[-]" with a minus sign, "[+]"), Doxygen's "More..." to the details below.
WIDGET_LINK_TEXTS = frozenset(
    {
        *("source", "[src]", "src", "[source]", "view source", "[view source]"),
        *("[\u2212]", "[+]", "[-]", "\u2212", "collapse all docs", "expand all", "collapse all"),
        *("[more...]",),
    }
)
#: The whole text of a link that is a control when it ends its block: rustdoc's "Read
#: more" to a trait's documentation, Doxygen's "More..." to a member's details.
WIDGET_TRAILING_TEXTS = frozenset({"read more", "more...", "more…", "read more…", "read more..."})
#: The whole text of a ``<summary>`` that is only a disclosure's control (rustdoc's
#: "Expand description"): the summary goes, what it discloses stays.
WIDGET_SUMMARY_TEXTS = frozenset(
    {"expand description", "show description", "show declaration", "expand", "collapse"}
)
#: A UI-word block inside one of these (a heading's, a table cell's words) stays.
UI_STOP_TAGS = frozenset({*HEADING_TAGS, "td", "th", "tr", "table", "caption", "summary"})

# --- periphery.py: the chrome around the text (issue 14) -----------------------------
# Multilingual on purpose: the pages we are judged on are in many languages, and these
# labels are the words a site uses to title a block, not one site's class names.

#: A block at most this long before the text's first paragraph, with no sentence end,
#: is part of the title block (kicker, date line, byline, category).
TITLE_BLOCK_MAX_CHARS = 150
#: A deck / standfirst before the first paragraph: at most this long.
DECK_MAX_CHARS = 400
#: A block equal to the meta description is a deck when at most this long (a longer
#: one is the text's lead paragraph, which the description quotes).
DECK_BY_DESCRIPTION_MAX_CHARS = 250
#: The title-block pass only runs when at most this much text precedes the first
#: paragraph (a listing or product page has no title block of that shape).
TITLE_BLOCK_MAX_BEFORE = 1200
#: Class / id words of title-block parts other than the title itself.
TITLE_BLOCK_WORDS = frozenset(
    {
        *("kicker", "eyebrow", "overline", "topline", "strapline", "rubric", "dateline"),
        *("deck", "dek", "standfirst", "subheadline", "subtitle", "subhead", "byline"),
        *("category", "categories", "date", "time", "pubdate", "published", "author"),
        *("meta", "postmeta", "entrymeta", "info", "label", "tag", "breadcrumb"),
    }
)  # fmt: skip
#: Without a box of its own, the title block is at most this many blocks after the h1.
TITLE_NEXT_BLOCKS = 3
#: Class / id words of a deck set as a paragraph.
DECK_WORDS = frozenset({"deck", "dek", "standfirst", "subheadline", "strapline", "subtitle"})
#: A byline line: "By Jane Doe", "Von Sina Giebel", "Par ...", "Por ...".
BYLINE_LINE_MAX_CHARS = 60
BYLINE_LINE = re.compile(
    r"^\s*(?:by|von|par|por|di|door|av|de|przez|autor(?:in)?:?|written\s+by|posted\s+by)\s+\S",
    re.IGNORECASE,
)
#: A line that is a date or a time, with little else ("April 21, 2022", "27.01.2022",
#: "2022-05-02 10:32", "31. Mai", "Published: 3 days ago").
DATE_LINE = re.compile(
    r"\b(?:\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|\d{1,2}:\d{2}|(?:19|20)\d{2}"
    r"|\d{1,2}\.?\s+[A-Za-zÀ-ÿ]{3,}|[A-Za-zÀ-ÿ]{3,}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?)\b"
)

#: Headings and labels that open a comment thread: "34 responses to ...", "Comments",
#: "Leave a reply", "Kommentare", "Vos réactions".
COMMENT_HEADINGS = re.compile(
    r"^\s*(?:comments|kommentare|leserkommentare|commentaires|comentarios|comentários|commenti"
    r"|komentarze|reacties|reaktionen|vos\s+réactions|réactions|deine\s+meinung|ihre\s+meinung"
    r"|hier\s+ist\s+ihre\s+meinung\s+gefragt|join\s+the\s+discussion"
    r"|leave\s+a\s+(?:reply|comment)|post\s+a\s+comment|add\s+a\s+comment|write\s+a\s+comment"
    r"|schreibe\s+einen\s+kommentar|kommentar\s+(?:schreiben|verfassen|hinterlassen)"
    r"|laisser\s+un\s+commentaire|deja\s+un\s+comentario|deixe\s+um\s+comentário"
    r"|\d+\s+(?:comments?|responses?|replies|reactions?|thoughts?|kommentare?|commentaires?"
    r"|comentarios?|komentarz[ey]?)\b.*"
    r"|(?:responses?|replies|thoughts?)\s+(?:on|to)\s+\S.*)\s*[:.!?]?\s*(?:\(\d+\))?\s*$",
    re.IGNORECASE,
)
#: A comment thread goes only after an article: this much prose must come before it.
COMMENTS_MIN_PROSE_BEFORE = 400

#: Labels of related / more-stories blocks in many languages (whole heading or label).
MORE_HEADINGS = re.compile(
    r"^\s*(?:related|more|latest|recent|recommended|popular|trending|similar"
    r"|read\s+(?:more|next|also)|see\s+more|also\s+read|you\s+(?:may|might)|don'?t\s+miss"
    r"|verwandte|weitere|mehr|neueste|letzte|aktuelle|ähnliche|beliebte|empfohlen|lesen\s+sie"
    r"|zum\s+weiterlesen|noch\s+mehr|entdecke|temas\s+relacionad\w*|notas\s+relacionad\w*"
    r"|das\s+könnte|dies\s+könnte|auch\s+interessant|zum\s+thema|passend"
    r"|weiterführende[rs]?\s+(?:informationen|links?|artikel|beiträge|themen|inhalte)"
    r"|further\s+information"
    r"|à\s+lire|a\s+lire|lire\s+aussi|voir\s+aussi|sur\s+le\s+même|plus\s+de|les\s+plus|dans\s+la\s+même"
    r"|lee\s+también|leer\s+más|ver\s+también|más\s+(?:noticias|de|leídas)|te\s+puede|noticias\s+relacionadas"
    r"|leia\s+(?:também|mais)|veja\s+(?:também|mais)|saiba\s+mais|mais\s+(?:lidas|notícias)"
    r"|zobacz\s+(?:też|także|również)|czytaj\s+(?:też|także|więcej)|polecane|najnowsze"
    r"|leggi\s+anche|potrebbe\s+interessarti|altri\s+articoli|lees\s+ook|meer\s+nieuws"
    r")\b.{0,60}$",
    re.IGNORECASE,
)
RELATED_LABEL_MAX_CHARS = 70
#: A short block ending in a full stop with this many words is a sentence, not a label.
LABEL_SENTENCE_WORDS = 6
#: Headings of the text's own sources, never promotion (they may name "more" reading).
CITED_HEADINGS = re.compile(
    r"^\s*(?:further\s+reading|see\s+also|references|sources|bibliography|external\s+links"
    r"|notes|quellen(?:angaben)?|literatur|weiterführende\s+literatur|bibliographie"
    r"|références|fuentes|referencias|bibliografía)\b",
    re.IGNORECASE,
)
#: A sentence that introduces a list ends with a colon and has at least this many
#: characters: "some commonly used options include:", not a "Read more:" label; the list
#: after it is the text's, never a link farm (chrome_judge.py).
LIST_INTRO_MIN_CHARS = 60
#: The label of a block of the text's own cross references ("See also: bitand, bitor"):
#: never a link farm (chrome_judge.py).
SEE_ALSO_LABEL = re.compile(
    r"^(?:see\s+also|siehe\s+auch|voir\s+aussi|ver\s+también|vedi\s+anche|zie\s+ook"
    r"|veja\s+também|см\.?\s+также)\b",
    re.IGNORECASE,
)
#: An inline "Related:" paragraph: a label, a colon, then (mostly) a link.
RELATED_INLINE = re.compile(
    r"^\s*(?:related|read\s+(?:more|also|next)|also\s+read|more|mire|lee\s+también"
    r"|puedes\s+ver|ver\s+también|leia\s+também|veja\s+também|lesen\s+sie\s+auch|mehr\s+zum\s+thema"
    r"|auch\s+interessant|siehe\s+auch|à\s+lire\s+aussi|a\s+lire\s+aussi|lire\s+aussi|voir\s+aussi"
    r"|zobacz\s+(?:też|także|również)|czytaj\s+(?:też|także|więcej)|leggi\s+anche|informate\s+más"
    r")\b\s*(?:[:\-\u2013\u2014>»|]|\s+w\b)",
    re.IGNORECASE,
)
RELATED_INLINE_MAX_CHARS = 300
#: A block after the text's last paragraph with this share of link text is chrome.
TAIL_LINK_SHARE = 0.6
#: A link to a picture file (a lightbox, the full-size image): the picture itself, not
#: another page.
IMAGE_HREF = re.compile(r"\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?)(?:[?#]|$)", re.IGNORECASE)
#: A short block after the text's last paragraph with no sentence end: a label, a
#: button ("Zurück", "Share this page"), a contact line left without its block.
TAIL_LABEL_MAX_CHARS = 40

#: Prompts that are never the article: newsletter, subscribe, donate, follow, paywall.
PROMPT_TEXT = re.compile(
    r"\b(?:newsletter|subscribe\s+(?:now|today|to\s+(?:our|the))|sign\s+up|signup|donat(?:e|ion)"
    r"|support\s+(?:us|our)|become\s+a\s+(?:member|patron)|follow\s+(?:us|the)|join\s+our"
    r"|download\s+(?:the|our)\s+app|abonnier|abonnement|abonnez|abónate|suscr[ií]b|assine"
    r"|unterstütze|spenden?|jetzt\s+(?:bestellen|registrieren|abonnieren)|registrieren\s+und"
    r"|folgen\s+sie|folge\s+uns|síguenos|suivez-nous|nos\s+siga|telegram|whatsapp"
    r"|to\s+view\s+the\s+full\s+story|for\s+the\s+full\s+story|already\s+a\s+subscriber"
    r"|log\s+in\s+for|akismet)\b",
    re.IGNORECASE,
)
PROMPT_MAX_CHARS = 300
#: An advertising or affiliate disclosure (the FTC's endorsement guides, 16 CFR 255;
#: Germany's "Werbung"/"Anzeige" marking, UWG § 5a): a notice about the page, not its
#: text. A block of at most PROMPT_MAX_CHARS is one when it names the kind of
#: advertising (DISCLOSURE_KIND) and speaks of the page or its links as a disclosure does
#: (DISCLOSURE_VOICE), or opens with the marking word itself.
DISCLOSURE_KIND = re.compile(
    r"affiliate|advertis(?:er|ers|ing)\b|references\s+to\s+products|sponsored|paid\s+partnership"
    r"|werbung|werbende|anzeige|provisions?-?links?|partner-?links?|gesponsert|publicidad"
    r"|publicité|enlaces?\s+de\s+afiliado|liens?\s+affiliés?",
    re.IGNORECASE,
)
#: The placeholder of an embed that waits for consent ("An dieser Stelle findet Ihr
#: einen externen Inhalt von Instagram ...", "Click to load the YouTube video, which
#: sets cookies"): it names external content, or a platform with privacy words, and an
#: action that loads it. The embed itself is not on the page.
EMBED_CONSENT_SOURCE = re.compile(
    r"\b(?:externe[nrs]?\s+inhalte?|external\s+(?:content|media)"
    r"|third[- ]party\s+(?:content|provider)|drittanbieter\w*|drittplattform\w*"
    r"|contenu\s+externe|contenido\s+externo)"
    r"|\b(?:youtube|twitter|instagram|vimeo|facebook|tiktok|google\s+maps|spotify|soundcloud)\b"
    r".{0,200}\b(?:cookies?|datenschutz\w*|privatsphäre|privacy|einverständnis|consent)\b",
    re.IGNORECASE | re.DOTALL,
)
EMBED_CONSENT_ACTION = re.compile(
    r"\b(?:anzeigen|laden|aktivieren|einverstanden|akzeptier\w*|zustimm\w*|freigeben|verwalten"
    r"|load|show|display|enable|accept|agree|allow|afficher|charger|mostrar|cargar)\b",
    re.IGNORECASE,
)
DISCLOSURE_VOICE = re.compile(
    r"\b(?:this|these)\s+(?:post|article|page|links?|photos?)\b"
    r"|\b(?:dieser|diese|dieses)\s+(?:beitrag|artikel|post|seite|links?)\b"
    r"|\b(?:commissions?|compensation|provision|at\s+no\s+(?:additional|extra)\s+cost"
    r"|gekennzeichnet|verlinkungen|marked\s+with|links?\s+(?:above|below|with|mit)"
    r"|(?:we|i)\s+(?:may\s+)?(?:earn|receive|get)|(?:ich|wir)\s+(?:erhalte|erhalten|verdiene|bekomme))\b"
    r"|^\W{0,3}(?:werbung|anzeige|sponsored|advertisement|advertorial)\b",
    re.IGNORECASE,
)
#: Share and recommend prompts, judged only after the text's last paragraph.
SHARE_TEXT = re.compile(
    r"\b(?:share\s+(?:this|on)|recommend\s+this|tell\s+a\s+friend|teilen\b|empfiehl|weiterempfehlen"
    r"|partager|partagez|compart(?:ir|e|ilhe)|condividi|udostępnij|straight\s+to\s+your"
    r"|(?:our|the)\s+\w+\s+app\b)",
    re.IGNORECASE,
)
#: After the text on an article page, a prompt this short goes even without its link
#: (the share icons or the store badge sit in a block of their own).
TAIL_PROMPT_MAX_CHARS = 100
#: A paywall notice: the rest of the text is the offer, not the article.
PAYWALL_TEXT = re.compile(
    r"\b(?:to\s+(?:view|read)\s+the\s+full\s+(?:story|article)|for\s+the\s+full\s+(?:story|article)"
    r"|already\s+a\s+subscriber|subscribe\s+to\s+(?:continue|read)|to\s+continue\s+reading"
    r"|subscribers?\s+only|nur\s+für\s+abonnenten|réservé\s+aux\s+abonnés"
    r"|exclusivo\s+para\s+suscriptores|jetzt\s+weiterlesen\s+mit)\b",
    re.IGNORECASE,
)
#: ... and it stands after this share of the text's prose (not a notice at the top).
PAYWALL_AFTER_SHARE = 0.5
#: A section under a prompt's heading ("Support us") holds at most this much text.
PROMPT_SECTION_MAX_CHARS = 1200

#: Caption and credit elements by class / id word (figcaption by its tag).
CAPTION_WORDS = frozenset(
    {
        *("caption", "captions", "figcaption", "credit", "credits", "copyright", "legend"),
        *("photocredit", "imagecredit", "bildunterschrift", "bildnachweis", "fotocredit"),
        *("cutline", "subtitle", "desc", "description", "source", "attribution"),
    }
)  # fmt: skip
#: ... judged as captions only when these are all the words that are not qualifiers
CAPTION_CONTEXT_WORDS = frozenset(
    {
        *("image", "img", "photo", "picture", "pic", "media", "figure", "fig", "bild", "foto"),
        *("gallery", "slide", "slideshow", "carousel", "video", "hero", "featured", "lead"),
        *("wp", "text", "metadata", "title", "note", "main", "article", "post", "entry"),
    }
)  # fmt: skip
#: Caption words that mean a caption on their own, with no image word beside them.
CAPTION_STRONG_WORDS = frozenset(
    {"caption", "figcaption", "credit", "credits", "photocredit", "imagecredit", "cutline"}
    | {"bildunterschrift", "bildnachweis", "fotocredit", "copyright"}
)
CAPTION_MAX_CHARS = 400
#: A block that opens with a picture's alt text of at least this many characters is
#: its caption (a shorter alt, "Logo" or "Foto", says too little to tell).
ALT_CAPTION_MIN_CHARS = 25
#: ... when it shares a box with the picture that holds at most this much more text
#: (a credit line, a counter "2/12"): a figure, not a section of the text.
ALT_CAPTION_BOX_SLACK_CHARS = 120
#: A caption that labels a figure of a document ("Figure 3.1 ...", "Table 2: ...") is
#: the document's own text.
DOC_CAPTION = re.compile(
    r"^\s*(?:figure|fig\.|table|listing|example|diagram|chart|abbildung|abb\.|tabelle"
    r"|tableau|tabla|rysunek|schema)\s*[\dIVXivx]+",
    re.IGNORECASE,
)
#: A credit line: "Photo: ...", "Foto: ÖTZ", "(crédito: ...)", "Image: Getty Images",
#: "© 2020 ...", "... /Getty Images", "Shutterstock".
CREDIT_LINE = re.compile(
    r"^\s*[(\[]?\s*(?:photos?|fotos?|images?|bild(?:er)?|credits?|crédito|crédits?|picture|pic"
    r"|quelle|fuente|źródło|zdjęcie|fot\.|illustration|grafik|video)"
    r"(?:\s+(?:photos?|fotos?|images?))?\s*(?:\([^)]*\)\s*)?[:©|]"
    r"|,\s*(?:photos?|fotos?|bild|zdjęcie|imagen)\s*:"
    r"|©|\(c\)\s|/\s*(?:getty|afp|reuters|ap|dpa|epa|shutterstock|istock|picture\s+alliance)"
    r"|\b(?:getty\s+images|shutterstock(?:\.com)?|istockphoto|imago\s+images|picture\s+alliance"
    r"|agencja\s+gazeta)\b"
    # a news agency's sign-off under a story: the editor's initials and the agency
    r"|^\s*\w{2,5}\s*/\s*(?:pap|dpa|afp|apa|ap|kna|epd|sda|ansa|efe|reuters)\s*$",
    re.IGNORECASE,
)
CREDIT_LINE_MAX_CHARS = 120
#: An unnamed inline element whose block holds this much more text is a run of words
#: of that block: the box rules do not judge it alone.
INLINE_RUN_SLACK_CHARS = 20
#: Away from any image, only a line that names photo credits or an agency sign-off is
#: a credit ("Quelle: ..." under a table is the text's source).
PHOTO_CREDIT_LINE = re.compile(
    r"^\s*[(\[]?\s*(?:photos?|fotos?|bild(?:er)?|crédits?\s+photos?|photo\s+credits?|zdjęci[ae]"
    r"|bildnachweis|fotonachweis)\s*:"
    r"|\b(?:getty\s+images|shutterstock(?:\.com)?|istockphoto|imago\s+images|picture\s+alliance"
    r"|agencja\s+gazeta)\b"
    r"|^\s*\w{2,5}\s*/\s*(?:pap|dpa|afp|apa|ap|kna|epd|sda|ansa|efe|reuters)\s*$",
    re.IGNORECASE,
)
PHOTO_CREDIT_MAX_CHARS = 80
#: An author box: class / id words (with "author": one of the second set).
AUTHOR_BOX_WORDS = frozenset({"bio", "biography", "authorbio", "aboutauthor", "authorbox"})
AUTHOR_BOX_PAIR = frozenset({"box", "about", "bio", "info", "description", "desc", "card"})
AUTHOR_BOX_MAX_CHARS = 1200
#: Ticker and breaking-news bars, print-only copies, off-screen duplicates.
TICKER_WORDS = frozenset({"ticker", "breaking", "newsticker", "marquee", "printonly"})
TICKER_MAX_CHARS = 600
#: Class / id words of a block of links to the site's other pages ("related-posts",
#: "relatedTopics", YARPP, Contextual Related Posts).
RELATED_NAME_WORDS = frozenset(
    {
        *("related", "relatedposts", "relatedarticles", "relatedtopics", "yarpp", "crp"),
        *("recommended", "recommendations", "morestories", "readmore", "readnext"),
        *("interlinking", "outbrain", "taboola"),
    }
)  # fmt: skip
#: A control's whole text: share, print, rate, back-to labels, in many languages.
UI_LABEL = re.compile(
    r"^\s*(?:(?:diese[n]?\s+)?(?:seite|artikel|beitrag)\s+(?:teilen|drucken|bewerten|empfehlen)"
    r"|mit\s+freunden\s+teilen|jetzt\s+teilen|teilen|share(?:\s+(?:this|on|via)(?:\s+\w+)?)?"
    r"|partager(?:\s+(?:sur|cet\s+article))?|compartir(?:\s+en)?|condividi|udostępnij"
    r"|teilen\s+twittern(?:\s+e-mail)?|drucken|print(?:\s+this(?:\s+page|\s+article)?)?"
    r"|imprimer|imprimir|zurück(?:\s+(?:zur|zum|nach)\s+\S+)?|nach\s+oben|back\s+to\s+(?:top|\S+)"
    r"|retour(?:\s+(?:à|en)\s+\S+)?|volver(?:\s+a\s+\S+)?|voltar|torna\s+su"
    r"|(?:hier\s+können\s+sie\s+den\s+)?artikel\s+bewerten|bewerten\s+sie\s+diese[ns]?\s+\w+"
    r"|rate\s+this(?:\s+\w+)?|tipp\s+favorisieren|bild\s+anzeigen|bild\s+vergrößern"
    r")\s*[!:.»\u203a→]*\s*$",
    re.IGNORECASE,
)
UI_LABEL_MAX_CHARS = 45
#: Class words of a forum poster's signature and profile box (rank, post count, joined).
POSTER_WORDS = frozenset({"signature", "postprofile", "userinfo", "usersig", "userstats"})
SIGNATURE_MAX_CHARS = 400
#: Class words of a teaser of another page (judged with a linked headline inside).
TEASER_NAME_WORDS = frozenset({"teaser", "teasers", "newsteaser", "promo", "promos"})
#: Class / id words of a prompt box (newsletter sign-up, paywall, donation).
PROMPT_NAME_WORDS = frozenset(
    {
        *("newsletter", "subscribe", "subscription", "paywall", "donate", "donation"),
        *("optin", "signup", "membership", "cta", "affiliatelinks", "affiliate"),
    }
)  # fmt: skip
#: Headings of an author box: "About the author", "Über den Autor".
AUTHOR_HEADINGS = re.compile(
    r"^\s*(?:about\s+the\s+author|author\s+bio|über\s+(?:den|die)\s+autor(?:in)?|zum\s+autor"
    r"|zur\s+autorin|à\s+propos\s+de\s+l'auteur|sobre\s+(?:el|la|o|a)\s+autor[a]?"
    r"|o\s+autorze|l'auteur|the\s+author|der\s+autor|die\s+autorin)\s*[:.]?\s*$",
    re.IGNORECASE,
)
#: A forum's own status boxes under a thread: who is online, board statistics.
BOARD_HEADINGS = re.compile(
    r"^\s*(?:who\s+is\s+online|users\s+browsing\s+this\s+(?:forum|topic|thread)"
    r"|wer\s+ist\s+online|mitglieder\s+in\s+diesem\s+(?:forum|thema)|benutzer\s+in\s+diesem\s+forum"
    r"|qui\s+est\s+en\s+ligne|quién\s+está\s+conectado|kto\s+jest\s+online"
    r"|(?:board|forum)\s+statisti(?:cs|ken)|statisti(?:cs|ken)\s+des\s+forums)\b.{0,60}$",
    re.IGNORECASE,
)
#: A "More ..." section after this share of the root's prose goes even when it has
#: prose of its own (teaser blurbs), if it links to at least two pages.
MORE_SECTION_AFTER_SHARE = 0.7
#: Under a "More ..." heading, a section with at most this many characters per link is
#: a teaser grid (linked headline and a blurb per card) wherever it stands.
TEASER_CHARS_PER_LINK = 250
#: A link text that is a URL: a cited source, not a teaser.
URL_TEXT = re.compile(r"^\s*(?:https?://|www\.)\S+\s*$", re.IGNORECASE)
