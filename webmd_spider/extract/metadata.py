"""Page-level facts read from the whole tree: <head> metadata, JSON-LD,
robots directives and every followable link of the page.

Works on the tree as parsed, before any content region is chosen, so nothing
here depends on how good the readability guess is.

Why one file of over 500 lines: every reader here works on the same ``Tags`` index of
the tree and the same meta and JSON-LD values, built once per page by
``apply_metadata``; the title's site-name rules are most of the length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import lxml.html
from w3lib.html import strip_html5_whitespace

from webmd_spider.extract.document import Document
from webmd_spider.extract.inline import defrag_url, join_href

# Wrappers some CMSs put around JSON-LD so old browsers ignore the script.
_JSON_LD_WRAPPERS = re.compile(r"^\s*(?:<!--|//\s*<!\[CDATA\[)|(?:-->|//\s*\]\]>)\s*$")
# Bot-specific meta name that is honoured next to "robots".
_BOT_META_NAME = "webmd"
# Unicode Cc characters but tab and newline. The page text has none left (parse.py
# removes them before parsing), but JSON-LD escapes make new ones ("\u0007").
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What a language tag looks like (BCP 47, RFC 5646 § 2.1, loosely: a 2-3 letter
# language, then subtags of 1-8 letters or digits), once lower-cased.
_LANGUAGE_TAG = re.compile(r"([a-z]{2,3})(?:-[a-z0-9]{1,8})*")
# The two-letter languages (ISO 639-1, which BCP 47 takes them from), plus the
# withdrawn codes pages still use (iw, in, ji, mo, sh): "xx-invalid-1234" has the
# shape of a tag but names no language. Three-letter codes are too many to list
# (ISO 639-3) and taken on their shape.
_ISO_639_1 = frozenset(
    (  # noqa: SIM905 -- a word list reads best as words
        "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs "
        "cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha "
        "he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn "
        "ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb "
        "nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd "
        "se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw "
        "ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu iw in ji mo sh"
    ).split()
)


def without_controls(value: str) -> str:
    """`value` without control characters (tab and newline kept)."""
    # isprintable() is a C loop that is True for nearly every value: no regex then
    return value if value.isprintable() else _CONTROLS.sub("", value)


def normalize_space(value: str | None) -> str | None:
    """Collapse whitespace runs to one space, drop control characters; None for None or
    blank."""
    if value is None:
        return None
    text = " ".join(value.split())
    # after the join, only control, format, private-use or unassigned characters make a
    # value unprintable: the regular expression runs for next to no value
    if not text.isprintable():
        text = " ".join(_CONTROLS.sub("", text).split())
    return text or None


def resolve(base: str, href: str | None) -> str | None:
    """Join `href` onto `base` as a browser does (``inline.join_href``: a backslash is a
    slash in an http(s) URL); None when href is blank or urljoin rejects it."""
    href = strip_html5_whitespace(href or "")
    if not href:
        return None
    try:
        return join_href(base, href)
    except ValueError:  # e.g. "http://[broken" raises in urllib
        return None


#: The tags every page-level fact is read from.
_FACT_TAGS = ("base", "meta", "script", "title", "h1", "a", "link", "time")

Tags = dict[str, list[lxml.html.HtmlElement]]


def page_tags(root: lxml.html.HtmlElement) -> Tags:
    """The elements of every tag in ``_FACT_TAGS``, by tag, each list in document order.

    One walk of the tree for all the page-level facts: each walk of a whole page costs
    about as much as reading all of its <meta> tags does, and there were ten.
    """
    found: Tags = {tag: [] for tag in _FACT_TAGS}
    for element in root.iter(*_FACT_TAGS):
        found[element.tag].append(element)
    return found


def generator_of(tags: Tags) -> str:
    """The page's ``<meta name="generator">`` content, lower-cased; "" when none."""
    for meta in tags["meta"]:
        if (meta.get("name") or "").strip().lower() == "generator":
            return (meta.get("content") or "").strip().lower()
    return ""


def effective_base(tags: Tags, url: str) -> str:
    """The URL relative links resolve against: <base href> (itself resolved) or `url`.

    `tags` is `page_tags()` of the page."""
    for base in tags["base"]:
        joined = resolve(url, base.get("href"))
        if joined:
            return joined
    return url


def meta_values(tags: Tags) -> dict[str, list[str]]:
    """Map lower-cased meta name/property/http-equiv/itemprop to their contents, in order."""
    found: dict[str, list[str]] = {}
    for meta in tags["meta"]:
        content = normalize_space(meta.get("content"))
        if content is None:
            continue
        for attr in ("name", "property", "http-equiv", "itemprop"):
            key = (meta.get(attr) or "").strip().lower()
            if key:
                found.setdefault(key, []).append(content)
    return found


def _first(metas: dict[str, list[str]], *keys: str) -> str | None:
    """The first content of the first key present."""
    for key in keys:
        if metas.get(key):
            return metas[key][0]
    return None


def json_ld_objects(tags: Tags) -> list[Any]:
    """Decoded JSON-LD blocks of the page; blocks that do not decode are skipped."""
    objects: list[Any] = []
    for script in tags["script"]:
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        raw = _JSON_LD_WRAPPERS.sub("", script.text or "")
        try:
            objects.append(json.loads(raw, strict=False))
        except (ValueError, RecursionError):  # malformed or absurdly nested JSON
            continue
    return objects


def walk_json(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object inside `value`, pre-order, without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def json_ld_types(objects: list[Any]) -> list[str]:
    """Every @type (strings or lists of strings, @graph included), deduped, in order."""
    types: list[str] = []
    for obj in walk_json(objects):
        value = obj.get("@type")
        for name in value if isinstance(value, list) else [value]:
            if isinstance(name, str):
                name = without_controls(name).strip()
                if name and name not in types:
                    types.append(name)
    return types


def _person_name(value: Any) -> str | None:
    """A JSON-LD author value (string, Person, or list of them) as display text."""
    if isinstance(value, str):
        return normalize_space(value)
    if isinstance(value, dict):
        name = value.get("name")
        return normalize_space(name) if isinstance(name, str) else None
    if isinstance(value, list):
        names = [n for n in (_person_name(v) for v in value) if n]
        return ", ".join(names) or None
    return None


def json_ld_value(objects: list[Any], key: str) -> str | None:
    """The first usable value of `key` in the JSON-LD (authors reduced to names)."""
    for obj in walk_json(objects):
        if key not in obj:
            continue
        value = _person_name(obj[key]) if key == "author" else obj[key]
        if isinstance(value, str):
            value = without_controls(value).strip()
            if value:
                return value
    return None


# "Page title | Site", "Page title - Site", "Site :: Page title" ...
_TITLE_SEPARATORS = re.compile(
    r"\s+(?:[|\-\u2013\u2014\u00b7\u2022:/»«]{1,2})\s+|\s*[\uff5c\u30fb\u3000]\s*"
)
# og:title is the page's own title more often than not: only the usual separators
# between a title and a site name ("|", "-", en and em dashes, "·", "::") cut it.
_OG_TITLE_SEPARATORS = re.compile(r"\s+(?:\||-|\u2013|\u2014|\u00b7|::)\s+")
# Last path segments (without a query) of a site's home page, whose link to itself is
# the logo's: no page title is read from such a link.
_HOME_NAMES = frozenset({"index", "default", "home", "welcome", "start", "main"})
# A title longer than this is not searched for a run a link to the page itself shows.
_SELF_TITLE_MAX_CHARS = 300
# A title with more segments than this is no "page | site" pair: left as it is (and the
# search for the h1 among runs of segments stays small on a hostile one).
_MAX_TITLE_SEGMENTS = 32
# Zero-width characters (and the BOM) some themes put in headings.
_ZERO_WIDTH = re.compile("[\u200b-\u200d\u2060\ufeff]")
# The permalink glyphs of heading anchors (Sphinx "¶", "§", a link emoji), at the end
# of a heading's text; "#" too after a space ("C#" is a name).
_PERMALINK_GLYPHS = "\u00b6\u00a7\U0001f517"
# Curly quotes and no-break spaces, for a loose comparison.
_QUOTES = str.maketrans("\u2018\u2019\u201c\u201d\u00a0", "''\"\" ")
# Class words of a heading's permalink anchor ("headerlink" in Sphinx, "anchor",
# "hash-link" in Docusaurus, "header-anchor" in VitePress, "anchorjs-link" ...).
_PERMALINK_CLASS = re.compile(r"headerlink|anchor|permalink|hash-link", re.IGNORECASE)
# Hosts' labels that name no site: "www", and the second-level labels of country
# domains ("co.uk", "com.au").
_GENERIC_LABELS = frozenset(("www", "co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"))


def page_title(
    tags: Tags, metas: dict[str, list[str]], url: str | None = None, base: str | None = None
) -> str | None:
    """og:title, else <title> (not an SVG title), either without its site-name part
    (see `_strip_site_name`), else the first <h1>. `url` is the page's, for its host's
    name; `base` the URL its links are read against (default `url`). A page with no
    <h1> that links to itself with the text of part of its title ("Forum :: View topic
    - Topic title" over the topic's own link) is titled by that part."""
    h1 = next((t for t in (heading_text(e) for e in tags["h1"]) if t), None)
    site_name = _first(metas, "og:site_name", "application-name")
    title = _first(metas, "og:title")
    separators = _OG_TITLE_SEPARATORS
    if not title:
        separators = _TITLE_SEPARATORS
        for element in tags["title"]:
            if any(a.tag == "svg" for a in element.iterancestors()):
                continue
            title = normalize_space(element.text_content())
            if title:
                break
    if not title:
        return h1
    if h1 is None and url:
        own = _self_link_title(title, tags, url, base or url, separators, site_name)
        if own is not None:
            return own
    return _strip_site_name(title, h1, site_name, url, separators)


def _title_spans(title: str, separators: re.Pattern[str]) -> list[tuple[int, int]] | None:
    """The (start, end) of each of `title`'s segments between `separators`; None when
    it has more than :data:`_MAX_TITLE_SEGMENTS` (no "page | site" pair)."""
    bounds = [0]
    for match in separators.finditer(title):
        bounds += [match.start(), match.end()]
        if len(bounds) > 2 * _MAX_TITLE_SEGMENTS:
            return None
    bounds.append(len(title))
    return [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]


def _self_link_title(
    title: str,
    tags: Tags,
    url: str,
    base: str,
    separators: re.Pattern[str],
    site_name: str | None,
) -> str | None:
    """The run of `title`'s segments (not all of them) that a link to the page itself
    shows as its text, or None. Without an <h1>, the page's own name is often a link to
    its own URL (a forum's topic title, an old blog theme's entry title over its
    permalink), and the rest of the <title> names the site and the section, in either
    order. Not on a home page (``/``, ``/index.html``, ``/home``: its link to itself is
    the logo, with the site's name), never a run that names the site, and not for a
    title over :data:`_SELF_TITLE_MAX_CHARS`. Cheap on pages of many links: only a link
    whose href ends as the page's URL does (its last path segment and query) is
    resolved, and the title's runs are spelt out only once one is."""
    if len(title) > _SELF_TITLE_MAX_CHARS:
        return None
    spans = _title_spans(title, separators)
    if spans is None or len(spans) < 2:
        return None
    try:
        page = defrag_url(url)
        parts = urlsplit(page)
    except ValueError:
        return None
    segment = parts.path.rstrip("/").rpartition("/")[2]
    if not segment or (not parts.query and segment.split(".")[0].lower() in _HOME_NAMES):
        return None
    tail = segment + ("/" if parts.path.endswith("/") else "")
    tail += f"?{parts.query}" if parts.query else ""
    runs: dict[str, str] | None = None
    for anchor in tags["a"]:
        href = (anchor.get("href") or "").strip()
        if not href.partition("#")[0].endswith(tail):
            continue
        try:
            if defrag_url(join_href(base, href)) != page:
                continue
        except ValueError:
            continue
        if runs is None:
            runs = {}
            for first in range(len(spans)):
                for last in range(first, len(spans)):
                    if (first, last) != (0, len(spans) - 1):
                        text = title[spans[first][0] : spans[last][1]].strip()
                        if len(text) >= 2:
                            runs.setdefault(_loose(text), text)
        shown = _loose(anchor.text_content())
        found = runs.get(shown)
        if found is not None and not _names_site(shown, _loose(site_name or ""), _host_names(url)):
            return found
    return None


def heading_text(heading: lxml.html.HtmlElement) -> str | None:
    """The text of a heading without its permalink: the text of a child anchor (see
    `_is_permalink`), trailing "¶", "§", " #" and zero-width characters dropped.
    Whitespace collapsed; None when nothing is left."""
    if len(heading):
        parts: list[str] = []
        _heading_parts(heading, parts)
        text = "".join(parts)
    else:
        text = heading.text or ""
    if not text.isprintable():
        text = _ZERO_WIDTH.sub("", text)
    return _without_glyphs(normalize_space(text) or "") or None


def _without_glyphs(text: str) -> str:
    """`text` (whitespace collapsed) without the permalink glyphs at its end."""
    for _ in range(4):  # "Title ¶ #" at most, in practice: no loop over a hostile run
        if not text or (text[-1] not in _PERMALINK_GLYPHS and not text.endswith(" #")):
            break
        text = text.rstrip(_PERMALINK_GLYPHS + " ").removesuffix(" #").rstrip()
    return text


def _heading_parts(heading: lxml.html.HtmlElement, parts: list[str]) -> None:
    """Append the text of `heading` but its permalink anchors' (see `heading_text`) to
    `parts`, in document order, without recursion."""
    parts.append(heading.text or "")
    # (element, whether its own text is still to be read); tails follow their element
    stack: list[tuple[lxml.html.HtmlElement, bool]] = [(c, True) for c in reversed(heading)]
    while stack:
        element, opening = stack.pop()
        if not opening:
            parts.append(element.tail or "")
            continue
        stack.append((element, False))
        if not isinstance(element.tag, str) or _is_permalink(element):
            continue  # a comment's or processing instruction's text is no text either
        parts.append(element.text or "")
        stack.extend((c, True) for c in reversed(element))


def _is_permalink(element: lxml.html.HtmlElement) -> bool:
    """A heading's permalink anchor: no letter or digit in its text ("¶", "#", an
    icon), and its class says so or it is an in-page link. (A class alone is not
    enough: "anchor" names the title's own box on some sites.)"""
    if not _PERMALINK_CLASS.search(element.get("class") or "") and (
        element.tag != "a" or not (element.get("href") or "").lstrip().startswith("#")
    ):
        return False
    return not any(ch.isalnum() for ch in element.text_content())


def _loose(text: str) -> str:
    """`text` for a loose comparison: case folded, zero-width characters and trailing
    permalink glyphs and punctuation dropped, curly quotes straightened, whitespace
    collapsed."""
    text = " ".join(_ZERO_WIDTH.sub("", text).casefold().translate(_QUOTES).split())
    return _without_glyphs(text).rstrip(".:").rstrip()


def _host_names(url: str | None) -> tuple[str, ...]:
    """The names a page's host goes by in a title: the host without "www." and
    its site label ("en.wikipedia.org": "wikipedia.org", "wikipedia"), lower-case."""
    if not url:
        return ()
    try:
        host = (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return ()
    labels = [label for label in host.split(".") if label]
    if len(labels) < 2 or labels[-1].isdigit():  # no name, or an IP address
        return ()
    labels = labels[:-1]  # the top-level domain
    while len(labels) > 1 and labels[-1] in _GENERIC_LABELS:
        labels.pop()
    name = labels[-1]
    if len(name) < 3 or name in _GENERIC_LABELS:
        return ()
    return (host.removeprefix("www."), name)


def _names_site(segment: str, site: str, hosts: tuple[str, ...]) -> bool:
    """The (loose) title segment names the site: equals the site name, or the host's
    name with spaces and punctuation ignored ("Stack Overflow", "Example.com")."""
    if not segment:
        return False
    if site and segment == site:
        return True
    if hosts:
        squashed = "".join(ch for ch in segment if ch.isalnum() or ch == ".")
        return squashed in hosts or squashed.replace(".", "") == hosts[1]
    return False


def _strip_site_name(
    title: str,
    h1: str | None,
    site_name: str | None,
    url: str | None = None,
    separators: re.Pattern[str] = _TITLE_SEPARATORS,
) -> str:
    """Drop the site-name part of a title when the page itself says which part is the
    page's own: a run of segments equal (loosely) to the <h1>, or the rest when the
    first or last segments equal the site name (og:site_name, application-name) or the
    name of the page's host. Never leaves fewer than 2 characters.
    """
    # Segments with their positions, so a cut keeps the title's own spelling.
    spans = _title_spans(title, separators)
    if spans is None or len(spans) < 2:
        return title
    last = len(spans) - 1
    site = _loose(site_name or "")
    hosts = _host_names(url)
    page = _loose(h1 or "")

    def cut(first: int, end: int) -> str | None:
        text = title[spans[first][0] : spans[end][1]].strip()
        return text if len(text) >= 2 else None

    # An h1 equal to the LAST segment is usually the logo's site name ("Contact | Acme"),
    # and so is an h1 that names the site.
    if page and not _names_site(page, site, hosts):
        for first in range(last):
            for end in range(first, last):
                if spans[end][1] - spans[first][0] > 2 * len(page) + 8:
                    break
                found = cut(first, end)
                if found and _loose(found) == page:
                    return found
    if site or hosts:
        # the site's own name may hold a separator ("Acme - Docs"): runs at either end
        for size in range(1, last + 1):
            if _names_site(_loose(title[: spans[size - 1][1]]), site, hosts):
                return cut(size, last) or title
            if _names_site(_loose(title[spans[last - size + 1][0] :]), site, hosts):
                return cut(0, last - size) or title
    return title


def _rel_author(tags: Tags) -> str | None:
    """Text of the first <a rel="author">."""
    for element in tags["a"]:
        rel = element.get("rel")
        if rel and "author" in rel.lower().split():
            name = normalize_space(element.text_content())
            if name:
                return name
    return None


def page_language(root: lxml.html.HtmlElement, metas: dict[str, list[str]]) -> str | None:
    """<html lang> (or xml:lang), else meta content-language; lower-case, first tag only,
    "_" read as "-" (``en_US``, a locale name). A value that is no language tag
    (``<script>``, ``xx-invalid-1234``) is skipped: None when none is left, and the
    caller guesses from the text."""
    for raw in (root.get("lang"), root.get("xml:lang"), _first(metas, "content-language")):
        if raw:
            tag = raw.split(",")[0].strip().lower().replace("_", "-")
            shape = _LANGUAGE_TAG.fullmatch(tag)
            if shape and (len(shape[1]) == 3 or shape[1] in _ISO_639_1):
                return tag
    return None


def keywords(root: lxml.html.HtmlElement, metas: dict[str, list[str]]) -> list[str]:
    """meta keywords (comma separated) plus article:tag, stripped, deduped, in order."""
    words = [w.strip() for raw in metas.get("keywords", []) for w in raw.split(",")]
    words += metas.get("article:tag", [])
    return list(dict.fromkeys(w for w in words if w))


def page_links(tags: Tags, base: str) -> tuple[list[str], list[str]]:
    """Every followable http(s) <a href> of the whole page: absolute (resolved as a
    browser does, see `resolve`), no fragment, deduped, in order; and, the same way,
    the links marked ``rel="nofollow"``, which are not in the first list (the page asks
    not to follow them; the crawler counts and lists them as refused). Navigation links
    are included (the crawler decides what to follow).
    """
    links: dict[str, None] = {}
    refused: dict[str, None] = {}
    for anchor in tags["a"]:
        rel = anchor.get("rel")
        held = refused if rel and "nofollow" in rel.lower().split() else links
        href = strip_html5_whitespace(anchor.get("href") or "")
        if not href or href[0] == "#":  # in-page anchor, even when <base href> points elsewhere
            continue
        try:
            url = join_href(base, href)  # as browsers read it: "/\\evil.com" leaves the site
        except ValueError:  # e.g. "http://[broken" raises in urllib
            continue
        if url and url.split(":", 1)[0].lower() in ("http", "https"):
            held.setdefault(defrag_url(url), None)
    return list(links), [url for url in refused if url not in links]


# XPath's translate(@rel, 'CANOIL', 'canoil'), which the canonical test always used
_CANOIL = str.maketrans("CANOIL", "canoil")


def http_url(base: str, href: str | None) -> str | None:
    """`resolve(base, href)` when that is an http(s) URL, else None (javascript:, data:,
    mailto: ... are no page or image address)."""
    url = resolve(base, href)
    if url and url.split(":", 1)[0].lower() in ("http", "https"):
        return url
    return None


def page_image(metas: dict[str, list[str]], base: str) -> str | None:
    """The first http(s) og:image (or og:image:url, og:image:secure_url), absolute."""
    for key in ("og:image", "og:image:url", "og:image:secure_url"):
        for content in metas.get(key, ()):
            url = http_url(base, content)
            if url:
                return url
    return None


def canonical_href(tags: Tags) -> str | None:
    """href of the first <link> with an href whose rel contains "canonical" (letters
    of that word in any case)."""
    for link in tags["link"]:
        href = link.get("href")
        if href is not None and "canonical" in (link.get("rel") or "").translate(_CANOIL):
            return href
    return None


def robots(metas: dict[str, list[str]]) -> tuple[str | None, bool]:
    """(raw meta robots lower-cased, whether robots or the bot's own meta says nofollow)."""
    raw = metas.get("robots", [])
    # every robots meta and our own bot's meta count ("index, follow" then "noai")
    joined = ", ".join(raw + metas.get(_BOT_META_NAME, []))
    meta_robots = joined.lower() if joined else None
    tokens = {
        token.strip().lower()
        for content in raw + metas.get(_BOT_META_NAME, [])
        for token in content.split(",")
    }
    return meta_robots, bool(tokens & {"nofollow", "none"})


def apply_metadata(
    doc: Document,
    root: lxml.html.HtmlElement,
    tags: Tags,
    base: str,
    url: str | None = None,
) -> str | None:
    """Fill the page-level fields of `doc` from the whole tree.

    `tags` is `page_tags(root)`, `base` the effective base URL (see `effective_base`),
    `url` the page's own (its host's name is a site name in the title). Missing facts
    stay None/empty. Returns the longest schema.org ``articleBody`` of the page's JSON-LD
    (the article's text as the publisher states it), or None: the body to fall back on
    when the HTML holds a script's shell of the article.
    """
    metas = meta_values(tags)
    objects = json_ld_objects(tags)
    doc.title = page_title(tags, metas, url, base)
    doc.description = _first(metas, "description", "og:description", "twitter:description")
    doc.site_name = _first(metas, "og:site_name")
    doc.author = (
        _first(metas, "author", "article:author")
        or _rel_author(tags)
        or json_ld_value(objects, "author")
    )
    times = [normalize_space(t.get("datetime")) for t in tags["time"]]
    doc.published_at = (
        _first(metas, "article:published_time")
        or json_ld_value(objects, "datePublished")
        or next((t for t in times if t), None)
    )
    doc.modified_at = _first(metas, "article:modified_time", "og:updated_time") or json_ld_value(
        objects, "dateModified"
    )
    doc.language = page_language(root, metas)
    doc.canonical = http_url(base, canonical_href(tags))
    doc.image = page_image(metas, base)
    doc.keywords = keywords(root, metas)
    doc.json_ld_types = json_ld_types(objects)
    doc.page_links, doc.nofollow_links = page_links(tags, base)
    doc.meta_robots, doc.nofollow = robots(metas)
    return json_ld_article_body(objects)


def json_ld_article_body(objects: list[Any]) -> str | None:
    """The longest string ``articleBody`` in the JSON-LD objects, stripped, or None."""
    best = ""
    for obj in walk_json(objects):
        value = obj.get("articleBody")
        if isinstance(value, str) and len(value) > len(best):
            best = value
    best = without_controls(best).strip()
    return best or None


#: schema.org types whose ``description`` is a product's own text
_PRODUCT_TYPES = frozenset({"product", "productgroup", "individualproduct", "productmodel"})


def json_ld_product_description(tags: Tags) -> str | None:
    """The longest string ``description`` of a JSON-LD Product (or ProductGroup...)
    entity of the page, stripped, or None: a product's description as its publisher
    states it, for a page that hides the visible one in a tab or renders it by script.
    Decodes the page's JSON-LD itself (called only for a page typed as a product)."""
    best = ""
    for obj in walk_json(json_ld_objects(tags)):
        kinds = obj.get("@type")
        names = kinds if isinstance(kinds, list) else [kinds]
        if not any(isinstance(n, str) and n.strip().lower() in _PRODUCT_TYPES for n in names):
            continue
        value = obj.get("description")
        if isinstance(value, str) and len(value) > len(best):
            best = value
    best = without_controls(best).strip()
    return best or None
