"""Inline pieces of the Markdown renderer: escaping, emphasis delimiters, code
spans, URLs, image sources and code-block languages. Pure functions over strings
and lxml elements (and `join_url`'s memory of the last page's links).

All regular expressions are compiled once, here.

Why one file of over 500 lines: small pure functions the renderer calls per text node or
inline element, sharing the patterns compiled once here.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit

from lxml import etree

from webmd_spider.extract.vocabulary import LANGUAGE_NAMES

# --- escaping -----------------------------------------------------------------

# Characters of a text node that Markdown could misread, escaped only where they
# would be: a backslash before punctuation or at the end of the run (the next
# piece may be "]" or a line end), every backtick, "*" next to a non-space
# (could open or close emphasis), "_" at a word edge (snake_case stays as is),
# "]" right before "(", "[" or ":" (link syntax), "<" that looks like a tag, "&"
# that looks like an entity, "~" before another "~" (strikethrough) or at either
# end of the run: the next piece may be a "~~" strikethrough marker, and
# "~" + "~~$100~~" is a line starting "~~~", which CommonMark reads as a code fence
# that swallows the rest of the document.
_ESCAPE = re.compile(
    r"\\(?=[!-/:-@\[-`{-~]|$)|`|\*(?=\S)|\*(?<=\S\*)|_(?<![^\W_]_)|_(?![^\W_])"
    r"|\](?=[(\[:])|<(?=[A-Za-z/!?])|&(?=#?\w+;)|~(?=~|$)|^~"
)
# Inside link text every bracket is escaped, so the link stays one link.
_ESCAPE_IN_LINK = re.compile(
    r"\\(?=[!-/:-@\[-`{-~]|$)|`|\*(?=\S)|\*(?<=\S\*)|_(?<![^\W_]_)|_(?![^\W_])"
    r"|[\[\]]|<(?=[A-Za-z/!?])|&(?=#?\w+;)|~(?=~|$)|^~"
)
# Cheap pre-check: most text runs hold none of the characters above.
_MAY_NEED_ESCAPE = re.compile(r"[\\`*_\[\]<&~]").search
#: `_MAY_NEED_ESCAPE`, for callers that skip `escape_text` when it finds nothing
may_need_escape = _MAY_NEED_ESCAPE


def _escaped(match: re.Match[str]) -> str:
    return "\\" + match.group()


# A line (already stripped) that would start a block construct: ATX heading,
# bullet, ordered item, quote, setext underline, thematic break, or a tilde code
# fence (three or more "~": a strikethrough marker next to a "~" of the text, or
# text that kept "~~~"; an unclosed fence would swallow the rest of the document).
# Backtick fences need no rule here: every backtick of a text is escaped, and a code
# span of three or more backticks holds a backtick, which a fence's info string may not.
_LINE_START = re.compile(r"(?:#{1,6}|[-+*]|\d{1,9}[.)])(?:\s|$)|>|=+\s*$|-+\s*$|~{3}")
_LINE_START_CHARS = frozenset("#>-+*=0123456789~")


def escape_text(text: str, in_link: bool = False) -> str:
    """Escape Markdown syntax characters of a text run where they would be misread."""
    if not _MAY_NEED_ESCAPE(text):
        return text
    return (_ESCAPE_IN_LINK if in_link else _ESCAPE).sub(_escaped, text)


def escape_line_start(line: str) -> str:
    """Escape a stripped paragraph line that would otherwise start a block."""
    if not line or line[0] not in _LINE_START_CHARS or not _LINE_START.match(line):
        return line
    if line[0].isdigit():  # "1. x" -> "1\. x"
        cut = len(line) - len(line.lstrip("0123456789"))
        return f"{line[:cut]}\\{line[cut:]}"
    return "\\" + line


# --- emphasis delimiters ------------------------------------------------------
#
# CommonMark §6.2: a run of "*" (or GFM "~") opens emphasis only when it is a
# "left-flanking delimiter run" and closes only when "right-flanking". A closing
# run preceded by punctuation is right-flanking only when whitespace or punctuation
# follows it, so "**Note:**text" and "**注意」**这是" (common in CJK text, where
# no space follows a full-width colon or bracket) print their asterisks; likewise an
# opening run followed by punctuation after a letter ("a**(x)**"). The renderer then
# moves that punctuation outside the markers ("**Note**:text", "a(**x)**"): the
# rendered text is the same, only the emphasis ends one character earlier. When the
# edge is Markdown syntax (a link, code, an escape, another marker) nothing can move,
# and the markers are dropped: the words stay, without emphasis.
#
# "Punctuation" changed between CommonMark 0.30 (ASCII punctuation and Unicode P*)
# and 0.31 (also Unicode S*, symbols); both readings are covered: inside the markers
# a symbol counts as punctuation, outside them as a letter.

_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# Edge characters that may not move out: escapes, code, emphasis and strikethrough
# markers, "<" (a tag), "&" (an entity), "|" (a table cell's); and the brackets of a
# link or image in `core` (text never holds an unescaped "](": see `_ESCAPE`).
_STAYS = frozenset("\\`*_~<&|")
_MARKER_CHARS = frozenset("*~")


def _punctuation(char: str) -> bool:
    """Punctuation in the widest reading (Unicode P* and S*, ASCII punctuation)."""
    if char.isalnum() or char.isspace():
        return False
    return char in _ASCII_PUNCT or unicodedata.category(char)[0] in "PS"


def _word_char(char: str) -> bool:
    """Neither whitespace nor punctuation in the narrowest reading (a symbol counts)."""
    if not char or char.isspace():
        return False
    if char.isalnum():
        return True
    return char not in _ASCII_PUNCT and unicodedata.category(char)[0] != "P"


def _after_backslash(markdown: str, index: int) -> bool:
    """The character at `index` follows an odd number of backslashes."""
    start = index
    while start and markdown[start - 1] == "\\":
        start -= 1
    return (index - start) % 2 == 1


def char_before_marker(piece: str, marker_char: str) -> str:
    """The character CommonMark sees before a marker of `marker_char` put after
    `piece`: unescaped markers of the same character at its end join that marker's
    run, so the character before them ("" for none)."""
    end = len(piece)
    while end and piece[end - 1] == marker_char and not _after_backslash(piece, end - 1):
        end -= 1
    return piece[end - 1] if end else ""


def _movable(char: str, core: str) -> bool:
    """`char`, at an edge of the emphasised Markdown `core`, is punctuation that may
    move across the marker."""
    if char in _STAYS or not _punctuation(char):
        return False
    return char not in "[])" or "](" not in core  # no link or image brackets


def open_emphasis(before: str, core: str, marker_char: str) -> tuple[str, str] | None:
    """Emphasis markers of `marker_char` around `core` (Markdown, stripped), right after
    the character `before` ("" at a line start or after whitespace), as (what goes
    before the opening marker, what goes inside), so that the marker opens (is
    left-flanking); None when it cannot: the markers are to be dropped."""
    if not _word_char(before):
        return "", core
    start = 0
    while start < len(core) and core[start] == marker_char:  # nested markers join the run
        start += 1
    if start == len(core) or not _punctuation(core[start]):
        return "", core
    if start:
        return None
    cut = 0
    while cut < len(core) and _movable(core[cut], core):
        cut += 1
    if not cut or cut == len(core) or core[cut].isspace():
        return None
    if _punctuation(core[cut]) and _word_char(core[cut - 1]):
        return None  # punctuation stays inside, after a symbol (a letter to CommonMark 0.30)
    return core[:cut], core[cut:]


def close_emphasis(core: str, after: str, marker_char: str) -> tuple[str, str] | None:
    """Emphasis markers of `marker_char` around `core` before the character `after`,
    as (what goes inside, what goes after the closing marker), so that the marker
    closes (is right-flanking); the punctuation moved out may come from before the
    closing markers of nested emphasis ("**a *b:***x" -> "**a *b***:x"). None when
    it cannot: the markers are to be dropped."""
    if not _word_char(after) or not _punctuation(char_before_marker(core, marker_char) or " "):
        return core, ""
    end = len(core)
    while end and core[end - 1] in _MARKER_CHARS and not _after_backslash(core, end - 1):
        end -= 1
    cut = end
    while cut and _movable(core[cut - 1], core):
        cut -= 1
    if cut == end or not cut or core[cut - 1].isspace():
        return None
    if core[cut - 1] in _MARKER_CHARS and not _after_backslash(core, cut - 1):
        return None  # a marker would end up next to ours (or nested emphasis empty)
    if end == len(core) and _punctuation(core[cut - 1]) and _word_char(core[cut]):
        return None  # punctuation stays inside, before a symbol (a letter to CommonMark 0.30)
    return core[:cut] + core[end:], core[cut:end]


# --- code ---------------------------------------------------------------------

_BACKTICKS = re.compile(r"`+")


def longest_backtick_run(text: str) -> int:
    if "`" not in text:
        return 0
    return max(len(run) for run in _BACKTICKS.findall(text))


def code_span(code: str) -> str:
    """`code` as an inline code span; `code` is stripped and single-line."""
    if "`" not in code:
        return f"`{code}`"
    ticks = "`" * (longest_backtick_run(code) + 1)
    if code[0] == "`" or code[-1] == "`":
        return f"{ticks} {code} {ticks}"
    return f"{ticks}{code}{ticks}"


def code_fence(code: str) -> str:
    """A backtick fence longer than any backtick run in `code` (at least three)."""
    return "`" * max(3, longest_backtick_run(code) + 1)


_LANG_CLASS = re.compile(
    r"(?:^|\s)(?:language|lang|highlight-source|highlight)-([\w+#.-]+)|brush:\s*([\w+#.-]+)",
    re.IGNORECASE,
)
_SOURCE_CODE_CLASS = re.compile(r"(?:^|\s)sourceCode\s+([\w+#.-]+)")  # pandoc
_LANG_NAME = re.compile(r"^[\w+#.-]{1,30}$")
_NO_LANGUAGE = frozenset({"none", "default", "nohighlight", "plain", "notranslate"})


@lru_cache(maxsize=1024)
def _class_language(classes: str) -> str | None:
    """The language named by a class attribute (the same few repeat on every page)."""
    match = _LANG_CLASS.search(classes) or _SOURCE_CODE_CLASS.search(classes)
    if match:
        return (match.group(1) or match.group(match.lastindex or 1)).lower()
    return None


def _language_of(node: etree._Element, own: bool) -> str | None:
    """The language `node` names. `own`: the <pre>/<code> itself (or the one element
    inside the <pre>), whose attributes speak of its code only; so any data-*lang*
    attribute (Medium's data-code-block-lang) and a bare class word that is a known
    language name (rustdoc's <pre class="rust">) are trusted there, not on wrappers,
    where they may name the page's human language or mean something else."""
    for attr in ("data-lang", "data-language"):
        value = (node.get(attr) or "").strip()
        if value and _LANG_NAME.match(value):
            return value.lower()
    if own:
        for name, raw in node.items():
            key = str(name)  # lxml-stubs: str | bytes
            if key[:5] == "data-" and "lang" in key:
                value = str(raw).strip()
                if value and _LANG_NAME.match(value):
                    return value.lower()
    classes = node.get("class")
    if not classes:
        return None
    language = _class_language(classes)
    if language is None and own and node.tag in ("pre", "code"):
        language = _bare_language(classes)
    return language


@lru_cache(maxsize=1024)
def _bare_language(classes: str) -> str | None:
    """The first class word that is a known language name ("rust item-decl")."""
    for word in classes.lower().split():
        if word in LANGUAGE_NAMES:
            return word
    return None


def code_language(pre: etree._Element) -> str:
    """Language of a code block ("" if unknown), from the <pre>, its <code> child,
    or up to three wrapping elements (div.highlight-python > div.highlight > pre).

    Recognises class "language-x", "lang-x", "highlight-x", "highlight-source-x",
    "brush: x", pandoc's "sourceCode x", and data-lang / data-language; on the
    <pre>/<code> itself also any data-*lang* attribute and a bare class word that
    is a known language name (`vocabulary.LANGUAGE_NAMES`).
    """
    nodes: list[etree._Element] = [pre]
    # `find("code")`, without ElementPath's Python-level path parsing
    code = next(iter(pre), None) if len(pre) == 1 else next(pre.iterchildren("code"), None)
    if code is not None and isinstance(code.tag, str):
        nodes.append(code)
    depth = 0
    parent = pre.getparent()
    while depth < 3 and parent is not None:
        nodes.append(parent)
        depth += 1
        parent = parent.getparent()
    own = len(nodes) - depth  # the <pre> and its <code>: see `_language_of`
    for index, node in enumerate(nodes):
        language = _language_of(node, index < own)
        if language and language not in _NO_LANGUAGE:
            return language
    return ""


# Line-number gutters inside a <pre> (Pygments "linenos", highlight.js, etc.); and the
# whole words "ln" / "lnt", the line numbers of Chroma (Hugo) and godoc. Not Chroma's
# "lntd": its code cell has that class too (tables.py finds that gutter by its shape).
GUTTER_CLASS = re.compile(
    r"(?:^|\s)(?:[\w-]*(?:linenos?|lineno|line-?numbers?|gutter|ln-numbers?|blob-num)|lnt?)"
    r"(?:\s|$)",
    re.IGNORECASE,
)
_LINE_BREAKING = frozenset({"div", "p", "li", "tr", "table", "ul", "ol"})
_CODE_SKIP = frozenset({"script", "style", "template"})


def code_text(pre: etree._Element, tidy: bool = True) -> str:
    """The verbatim text of a code block: <br> as newline, gutter elements dropped,
    leading and trailing blank lines removed (unless not `tidy`), everything
    else kept exactly.

    Iterative: any nesting depth is fine.
    """
    if len(pre) == 0:
        raw = pre.text or ""
    else:
        parts: list[str] = [pre.text or ""]
        # children as slices walked by list iterators (one C call per element, not per
        # child; lxml-stubs type only integer indexes)
        stack = [iter(pre[:])]  # type: ignore[index]
        elements: list[etree._Element] = []
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                if elements:
                    done = elements.pop()
                    if done.tag in _LINE_BREAKING and parts and not parts[-1].endswith("\n"):
                        parts.append("\n")
                    if done.tail:
                        parts.append(done.tail)
                continue
            tag = child.tag
            if not isinstance(tag, str) or tag in _CODE_SKIP or tag == "br":
                if tag == "br":
                    parts.append("\n")
                if child.tail:
                    parts.append(child.tail)
                continue
            classes = child.get("class")
            if classes and GUTTER_CLASS.search(classes):
                if child.tail:
                    parts.append(child.tail)
                continue
            if child.text:
                parts.append(child.text)
            stack.append(iter(child[:]))  # type: ignore[index]
            elements.append(child)
        raw = "".join(parts)
    return tidy_code(raw) if tidy else raw


def tidy_code(raw: str) -> str:
    """Normalise line ends and non-breaking spaces; drop outer blank lines only."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    if "\xa0" in raw:
        raw = raw.replace("\xa0", " ")
    lines = raw.split("\n")
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end])


# --- URLs and images ----------------------------------------------------------

_NOT_LINKS = ("javascript:", "vbscript:", "data:", "about:")


# A base URL whose directory a plain relative path can simply be appended to: lower-case
# http(s), no params, query, fragment, whitespace, empty or dot segments in its path.
_PLAIN_BASE = re.compile(r"https?://[A-Za-z0-9.:@%~_-]+(/[^?#;\s]*)\Z")
# A relative path: an optional "./", any number of "../" (documentation generators
# link across folders with them), then plain segments (no dot segments, no scheme,
# query or params), with an optional fragment free of whitespace and controls.
_PLAIN_HREF = re.compile(
    r"(\./)?((?:\.\./)*)([\w~-][\w.~-]*(?:/[\w~-][\w.~-]*)*/?)?(?:#([^\x00- \x7f]*))?\Z",
    re.ASCII,
)


def _origin_end(url: str) -> int:
    """Where the path of `url` (a `_PLAIN_BASE` URL, which has one) starts: the index of
    the "/" after "scheme://host"."""
    return url.index("/", url.index("//") + 2)


# An absolute http(s) URL that urljoin gives back as it is (its scheme the base's or
# not): lower-case scheme, plain ASCII host, no params (";") in the path, a query and a
# fragment only when not empty, no whitespace (urllib drops tabs and line breaks).
_PLAIN_ABSOLUTE = re.compile(
    r"https?://[A-Za-z0-9.:@%~_-]+(?:/[^?#;\s]*)?(?:\?[^#\s]+)?(?:#\S+)?\Z"
)
# A path from the site's root: plain segments as in `_PLAIN_HREF` (no dot or empty
# segment, which urljoin would resolve), no query, an optional fragment.
_PLAIN_ROOTED = re.compile(
    r"/([\w~-][\w.~-]*(?:/[\w~-][\w.~-]*)*/?)?(?:#([^\x00- \x7f]*))?\Z", re.ASCII
)


@lru_cache(maxsize=256)
def _base_dir(base: str) -> str | None:
    """`base` up to the last "/" of its path, when `_PLAIN_BASE` holds, else None."""
    match = _PLAIN_BASE.match(base)
    if match is None:
        return None
    path = match.group(1)
    if "//" in path or "/./" in path or "/../" in path or path.endswith(("/.", "/..")):
        return None
    return base[: base.rfind("/") + 1]


#: At most this many hrefs are remembered for one base URL (see `join_url`).
JOIN_CACHE_SIZE = 50_000
# The base URL `join_url` last saw and its results by href; the pair is replaced as a
# whole (one assignment), so threads sharing the module never mix two bases' results.
_joined: tuple[str, dict[str, str]] = ("", {})


def join_url(base: str, href: str) -> str:
    """``urllib.parse.urljoin(base, href)``, memoised, with the common case of
    documentation sites, a plain relative path against a plain base, done by string
    concatenation: urllib's parsing of both URLs was most of the cost. The shortcut
    gives exactly urljoin's result (tests compare them on generated URLs).

    A page resolves each link twice (its followable links, then the Markdown) against
    one base, and navigation links repeat: the memory holds the results for the last
    base seen (up to `JOIN_CACHE_SIZE` hrefs), so the second pass finds every link of
    the page. (An LRU of (base, href) pairs, 4096 of them, evicted all of a page's
    links before the second pass once it had more than that: urljoin ran twice per link.)
    """
    global _joined
    seen, joined = _joined
    if base != seen:
        joined = {}
        _joined = (base, joined)
    url = joined.get(href)
    if url is None:
        url = _join(base, href)  # may raise ValueError: nothing remembered then
        if len(joined) >= JOIN_CACHE_SIZE:
            joined.clear()
        joined[href] = url
    return url


def _join(base: str, href: str) -> str:
    """`join_url` without its memory."""
    plain = _PLAIN_HREF.match(href)
    if plain is None:
        # the open web links by absolute URL or from the site's root: for the plain
        # shapes of both, against a plain base, urljoin's answer is known without
        # parsing either URL (the href itself; the base's origin and the href)
        first = href[:1]
        if (first == "h" or first == "/") and _base_dir(base) is not None:
            if first == "h":
                if _PLAIN_ABSOLUTE.match(href):
                    return href
            elif rooted := _PLAIN_ROOTED.match(href):
                path, fragment = rooted.groups()
                origin = base[: _origin_end(base)]
                return f"{origin}/{path or ''}" + (f"#{fragment}" if fragment else "")
        return urljoin(base, href)
    dot, up, path, fragment = plain.groups()  # one call for the four groups
    if dot or up or path:
        directory = _base_dir(base)
        if directory is not None:
            ups = len(up) // 3
            if ups:
                # each "../" drops one folder of the base's directory, never the root
                root_end = _origin_end(directory) + 1
                folders = directory[root_end:].split("/")[:-1]
                kept = folders[: max(0, len(folders) - ups)]
                directory = directory[:root_end] + "".join(f"{f}/" for f in kept)
            return directory + (path or "") + (f"#{fragment}" if fragment else "")
    return urljoin(base, href)


# An absolute http(s) URL that urllib gives back unchanged (but for its fragment) when it
# parses and unparses it: lower-case scheme, plain ASCII host, no ";" in the path (params
# could be lost), a query only when not empty, no tab or line break (urllib drops them).
_PLAIN_FRAGMENTED = re.compile(
    r"https?://[A-Za-z0-9.:@%~_-]+(?:/[^?#;\t\n\r]*)?(?:\?[^#\t\n\r]+)?#[^\t\n\r]*\Z"
)


def defrag_url(url: str) -> str:
    """``urllib.parse.urldefrag(url)[0]``: `url` without its fragment.

    A URL without "#" is returned as is (as urldefrag does); one of the plain shape
    above is cut at its first "#", which is what urllib's parse and unparse give for
    it at a fraction of the cost; anything else goes to urllib."""
    if "#" not in url:
        return url
    if _PLAIN_FRAGMENTED.match(url):
        return url[: url.index("#")]
    return urldefrag(url)[0]


# URL schemes the WHATWG URL standard calls "special": in their URLs a backslash
# before the query is a slash, as it is for relative URLs against a base of them.
_SPECIAL_SCHEMES = ("http:", "https:", "ftp:", "ws:", "wss:", "file:")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# A URL "scheme://host" with an empty path (then a query, a fragment or nothing)
_EMPTY_PATH = re.compile(r"\A([A-Za-z][A-Za-z0-9+.-]*://[^/?#]*)(?=[?#]|\Z)")


def join_href(base: str, href: str) -> str:
    """`join_url(base, href)` as a browser reads `href`: a backslash before the query
    or fragment is a slash when the URL's scheme (or, for a relative `href`, the base's)
    is a special one (WHATWG URL standard), so ``/\\evil.com`` is
    ``https://evil.com/`` (another site) and ``http:\\\\evil.com`` is
    ``http://evil.com/``, where urllib kept them as paths of the page's own site.
    May raise ValueError, as urljoin does."""
    return _dot_free(_join_href(base, href))


def _join_href(base: str, href: str) -> str:
    if "\\" not in href:
        return join_url(base, href)
    scheme = _SCHEME.match(href)
    if not (href if scheme else base)[:6].lower().startswith(_SPECIAL_SCHEMES):
        return join_url(base, href)
    end = len(href)
    for mark in ("?", "#"):
        found = href.find(mark, 0, end)
        if found >= 0:
            end = found
    if end == 0 or "\\" not in href[:end]:
        return join_url(base, href)
    # browsers serialise an empty path of these schemes as "/"
    joined = join_url(base, href[:end].replace("\\", "/") + href[end:])
    return _EMPTY_PATH.sub(r"\1/", joined, count=1)


_ENCODED_DOT = re.compile("%2e", re.IGNORECASE)


def _dot_free(url: str) -> str:
    """`url` with its path's dot segments removed (RFC 3986 §5.2.4), after decoding
    percent-encoded dots: ``%2e`` is an unreserved character, equivalent to ``.``
    (§2.3, §6.2.2), so ``/%2e%2e/%2e%2e/x`` is ``/x``, never ``GET /../../x``.
    urljoin removes the dot segments of a relative reference only."""
    if "/." not in url and "%2e" not in url and "%2E" not in url:
        return url
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        return url
    path = _ENCODED_DOT.sub(".", parts.path) if "%" in parts.path else parts.path
    clean = remove_dot_segments(path)
    if clean == parts.path:
        return url
    return urlunsplit(parts._replace(path=clean))


def remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 on an absolute path: "." segments go, ".." takes the segment
    before it away (never above the root); a trailing dot segment leaves a "/"."""
    if "." not in path:
        return path
    segments = path.split("/")
    output: list[str] = []
    final = len(segments) - 1
    for index, segment in enumerate(segments):
        if segment in (".", ".."):
            if segment == ".." and len(output) > 1:
                output.pop()
            if index == final:
                output.append("")
            continue
        output.append(segment)
    return "/".join(output)


def resolve(base: str, href: str | None) -> str | None:
    """`href` made absolute against `base` (as browsers read it: see `join_href`), or
    None when it is empty, a script, a data: URI, or something urllib cannot parse.
    Never raises."""
    if not href:
        return None
    href = href.strip()
    if not href:
        return None
    if "\n" in href or "\t" in href or "\r" in href:  # browsers drop these
        href = href.replace("\n", "").replace("\t", "").replace("\r", "")
    head = href[:11].lower()
    if "\\" in href and not head.startswith(_NOT_LINKS):  # rare: the browser's reading
        try:
            return join_href(base, href)
        except ValueError:
            return None
    if head.startswith(("http://", "https://")):
        if "[" in href:  # IPv6 host: urllib must accept it ("http://[broken" it does not)
            try:
                urlsplit(href)
            except ValueError:
                return None
        return href
    if head.startswith(_NOT_LINKS):
        return None
    if not base:
        return href
    seen, joined = _joined  # `join_url`'s memory, read here: a call less per link
    if base == seen:
        url = joined.get(href)
        if url is not None:
            return url
    try:
        return join_url(base, href)
    except ValueError:
        return None


def is_http(url: str) -> bool:
    return url[:8].lower().startswith(("http://", "https://"))


# A backslash is percent-encoded too: before punctuation it would be a Markdown
# escape (dropped from the URL; "\\)" would even close the link early).
_URL_UNSAFE = str.maketrans(
    {" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E", "\\": "%5C"}
)


_MAY_BE_UNSAFE = re.compile(r"[ ()<>\\]").search


def markdown_url(url: str) -> str:
    """A URL safe inside Markdown's (...) destination."""
    # most URLs hold none of those characters, and translate() with replacement
    # strings costs a dictionary lookup per character of the URL
    return url.translate(_URL_UNSAFE) if _MAY_BE_UNSAFE(url) else url


_PLACEHOLDER = re.compile(
    r"(?:^|/)(?:[\w-]{0,6}[-_])?(?:spacer|blank|pixel|transparent|empty|clear|1x1|placeholder"
    r"|lazy|grey|gray)[\w-]{0,8}\.(?:gif|png|svg)(?:$|[?#])",
    re.IGNORECASE,
)
_LAZY_SRC = ("data-src", "data-lazy-src", "data-original", "data-url", "data-hi-res-src")
_TINY = frozenset({"0", "1", "0px", "1px"})


def _placeholder(src: str) -> bool:
    return (
        src[:5].lower() == "data:" or src[:6].lower() == "about:" or bool(_PLACEHOLDER.search(src))
    )


def largest_candidate(srcset: str) -> str | None:
    """The URL of the largest candidate of a srcset ("a.jpg 480w, b.jpg 800w")."""
    best: str | None = None
    best_size = -1.0
    for candidate in srcset.split(","):
        parts = candidate.split()
        if not parts:
            continue
        size = 1.0
        if len(parts) > 1:
            try:
                size = float(parts[1][:-1]) if parts[1][-1:] in ("w", "x") else 1.0
            except ValueError:
                size = 1.0
        if size > best_size:
            best, best_size = parts[0], size
    return best


def image_source(img: etree._Element) -> str | None:
    """The real (raw, unresolved) source of an <img>, or None for beacons,
    spacers, data: URIs and images without any source."""
    if img.get("width", "").strip() in _TINY or img.get("height", "").strip() in _TINY:
        return None
    src = (img.get("src") or "").strip()
    if src and not _placeholder(src):
        return src
    for attr in _LAZY_SRC:
        lazy = (img.get(attr) or "").strip()
        if lazy and not _placeholder(lazy):
            return lazy
    for attr in ("data-srcset", "srcset", "data-lazy-srcset"):
        srcset = img.get(attr)
        if srcset:
            best = largest_candidate(srcset)
            if best and not _placeholder(best):
                return best
    return None
