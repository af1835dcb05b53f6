"""API declarations and generated code listings become code blocks, before any chrome rule
reads the page.

An API reference page states each member twice: its declaration (the signature a coding
agent asks for) and its description. Generators write the declaration as a box of
styled spans or as a layout table, so the chrome rules took it for a caption, a
member box or a link farm and dropped it without a word (issue 30). Here, once per page:

* a **declaration block** becomes a ``<pre>`` of its text, in place:

  - by structure, any generator: the block right after a heading (the member's name),
    made of inline markup only, whose text is shaped like a declaration (it opens with
    modifiers and a declaring keyword and holds code's punctuation: ``public static
    <T> Optional<T> empty()``) and is not a sentence;
  - by name, where a class name is the only evidence (`DECLARATION_CLASSES`): Javadoc's
    ``div.member-signature`` and ``div.type-signature`` (JDK 17-21 ``javadoc``), and
    Doxygen's ``div.memproto``, whose ``table.memname`` lays a C++ signature out in
    six cells (Doxygen 1.8-1.9): its cells are read as one line of code.

* a **code listing drawn as lines of divs** becomes a ``<pre>``: Doxygen's
  ``div.fragment`` of ``div.line`` (1.8-1.9), its ``span.lineno`` line numbers left out;
* a **signature term** of a definition list becomes a ``<pre>``: Sphinx 4+ marks each
  with ``dt.sig``; Texinfo 6 (``dl.def``) and 7 (``dl.first-deffn``, ``dt.deffn``) write
  one ``<dt>`` per call form, and a run of them becomes one block of lines;
* a **code header** (rustdoc 1.5x-1.8x ``h3.code-header`` / ``h4.code-header``: an impl
  or a method's declaration as the heading) keeps its heading, its words as one inline
  code span, so that the heading path reads ``impl Clone for T > fn clone(&self)``;
* a **member summary table** of Doxygen 1.8-1.9 (``table.memberdecls``: a group heading
  row, then a row per member of return type and declaration, a row of its brief
  description) becomes its heading and a list of ``declaration``: description items;
* a **table drawn as a grid of divs** becomes a ``<table>``: Javadoc's
  ``div.summary-table`` (JDK 17-21), whose cells are its children in reading order and
  whose column count its ``{two,three,four}-column-summary`` class gives (the header
  cells are ``div.table-header``). Only a stylesheet says it is a table: without this
  each cell came out as a paragraph.

The converted element keeps its place and tail; what it held is gone into the code's
text (a Doxygen signature's table is noted in the loss audit as moved, rule
``declaration``). Pure lxml; two XPath searches a page, no recursion.
"""

from __future__ import annotations

import re

from lxml import etree

from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.stats import Element

#: Class names that mark a declaration block, with the generator that writes them.
DECLARATION_CLASSES = frozenset(
    {
        "member-signature",  # Javadoc, JDK 17-21: each member's declaration
        "type-signature",  # Javadoc, JDK 17-21: the class's own declaration
        "package-signature",  # Javadoc, JDK 17-21: "package java.util.function"
        "module-signature",  # Javadoc, JDK 17-21: "module java.base"
        "memproto",  # Doxygen 1.8-1.9: table.memname of a member's signature
    }
)
#: Of those, the ones only the javadoc tool writes: their code is Java.
JAVA_DECLARATION_CLASSES = frozenset(
    {"member-signature", "type-signature", "package-signature", "module-signature"}
)
#: Class names of a code listing written as one div per line (Doxygen 1.8-1.9).
LISTING_CLASS = "fragment"
LISTING_LINE_CLASS = "line"
LINE_NUMBER_CLASSES = frozenset({"lineno"})
#: The inline tags a declaration block may hold (anything else is a box of the text).
DECLARATION_INLINE_TAGS = frozenset(
    {"span", "a", "code", "em", "strong", "b", "i", "var", "tt", "wbr", "sup", "sub", "br"}
)
DECLARATION_MAX_CHARS = 600
_MODIFIERS = (
    r"(?:public|protected|private|static|final|abstract|synchronized|native|default|"
    r"sealed|non-sealed|const|constexpr|virtual|inline|extern|export|async|unsafe|"
    r"pub(?:\([\w:]+\))?|override|open|readonly)"
)
#: A declaration's opening: a declaring keyword after any modifiers ("public final
#: class", "pub fn", "def"), or modifiers, a type and a name called ("public void
#: resize(").
_DECLARING = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*"  # annotations
    rf"(?:(?:{_MODIFIERS}\s+)*"
    r"(?:class|interface|enum|record|struct|trait|impl|fn|def|func|function|type|typedef|"
    r"template|union|module|namespace|@interface)\b"
    rf"|(?:{_MODIFIERS}\s+)+[\w<>\[\]?,. ]+?\s+[\w$]+\s*\()"
)
#: The tags a conversion starts from (one tag-filtered walk: cheaper than an XPath
#: search of every element's class in libxml2, 0.09 against 0.02 s on four API pages):
#: on every page, headings (the structural rule) and terms (Sphinx writes no generator
#: name); the boxes a generator names only on its own pages, by the generator's
#: ``<meta name="generator">``, which each of them writes ("javadoc/ClassWriterImpl",
#: "Doxygen 1.8.20", "makeinfo", "rustdoc"): a manual's hundreds of divs are not read.
_ALWAYS_TAGS = ("h2", "h3", "h4", "h5", "h6", "dt")
_GENERATOR_TAGS = {
    "javadoc": ("div",),
    "doxygen": ("div", "table"),
    "makeinfo": ("dl",),
    "texi2any": ("dl",),
}
#: Substrings of a div's class that some conversion reads.
_DIV_CLASS_HINTS = ("signature", "memproto", "fragment", "summary-table")
#: Sphinx 4+: the class of a signature's ``<dt>``.
SIGNATURE_TERM_CLASS = "sig"
#: Texinfo 6 (``def``) and 7 (``first-deffn`` and the like): a definition's list.
DEFINITION_LIST_CLASSES = frozenset(
    {"def", "first-deffn", "deffn", "first-defun", "first-deftypefn", "first-defvr"}
)
#: rustdoc: a heading that is a declaration.
CODE_HEADER_CLASS = "code-header"
#: Doxygen 1.8-1.9: a class's member summary table, its heading rows and member rows.
MEMBER_TABLE_CLASS = "memberdecls"
#: Javadoc's grid classes (JDK 17-21) and the column counts they name.
GRID_CLASS = "summary-table"
GRID_COLUMNS = {"two-column-summary": 2, "three-column-summary": 3, "four-column-summary": 4}
GRID_HEADER_CLASS = "table-header"
_SPACES = re.compile(r"[ \t\u00a0]+")
_OPEN = re.compile(r"([(<\[])\s+")
_CLOSE = re.compile(r"\s+([)>\],])")
_CODE_PUNCTUATION = frozenset("()<>{}[]=;")


def convert_declarations(root: Element, audit: LossAudit | None = None, generator: str = "") -> int:
    """Turn the declaration blocks and line-div listings of `root` into ``<pre>``
    elements in place (see the module docstring); returns how many were converted.
    `generator` is the page's ``<meta name="generator">`` content, lower-cased."""
    converted = 0
    tags = set(_ALWAYS_TAGS)
    for name, extra in _GENERATOR_TAGS.items():
        if name in generator:
            tags.update(extra)
    for element in _candidates(root, tuple(tags)):
        if element.getparent() is None:
            continue
        names = set((element.get("class") or "").split())
        tag = element.tag
        if tag == "dt":
            if SIGNATURE_TERM_CLASS in names:
                _become_code(element, _line_text(element))
                converted += 1
            continue
        if tag == "dl":
            if names & DEFINITION_LIST_CLASSES:
                converted += _definition_terms_to_code(element, audit)
            continue
        if CODE_HEADER_CLASS in names:
            if tag in _HEADINGS:
                _heading_to_code(element)
                converted += 1
            continue
        if tag == "table":
            if MEMBER_TABLE_CLASS in names and _member_table_to_list(element, audit):
                converted += 1
            continue
        if LISTING_CLASS in names:
            if _listing_to_code(element):
                converted += 1
        elif GRID_CLASS in names:
            if _grid_to_table(element, names):
                converted += 1
        elif names & DECLARATION_CLASSES or _shaped_like_declaration(element):
            _declaration_to_code(element, audit)
            if names & JAVA_DECLARATION_CLASSES:
                element.set("class", "language-java")  # the javadoc tool documents Java
            converted += 1
    return converted


def _candidates(root: Element, tags: tuple[str, ...]) -> list[Element]:
    """The elements a conversion may apply to, in document order: a div, dt, dl or
    table whose class a rule reads, a code header, and the block right after each
    heading (the structural declaration rule reads it)."""
    found: list[Element] = []
    for element in root.iter(*tags):
        cls = element.get("class")
        tag = element.tag
        if tag in _HEADINGS:
            if cls and CODE_HEADER_CLASS in cls:  # rustdoc
                found.append(element)
            after = element.getnext()
            if after is not None and after.tag in ("div", "p"):
                found.append(after)
        elif not cls:
            continue
        elif tag == "div":
            if any(hint in cls for hint in _DIV_CLASS_HINTS):
                found.append(element)
        elif tag == "dt":
            if SIGNATURE_TERM_CLASS in cls.split():
                found.append(element)
        elif tag == "dl":
            if not DEFINITION_LIST_CLASSES.isdisjoint(cls.split()):
                found.append(element)
        elif MEMBER_TABLE_CLASS in cls:
            found.append(element)
    return list(dict.fromkeys(found))


def _shaped_like_declaration(element: Element) -> bool:
    """The block after a heading is a declaration: inline markup only, short, not a
    sentence, and it declares (modifiers and a keyword) or calls the heading's name."""
    if element.text is None and len(element) == 0:
        return False
    for node in element.iterdescendants():
        if not isinstance(node.tag, str) or node.tag not in DECLARATION_INLINE_TAGS:
            return False
    text = " ".join(element.text_content().split())
    if not 3 <= len(text) <= DECLARATION_MAX_CHARS or text.endswith(".") or ". " in text:
        return False
    # it declares: modifiers and a declaring keyword, and code's punctuation (a
    # paragraph "Class names are ..." opens with a keyword too, and has none of it)
    return bool(_DECLARING.match(text)) and any(c in text for c in _CODE_PUNCTUATION)


def _declaration_to_code(element: Element, audit: LossAudit | None) -> None:
    """Make `element` a ``<pre>`` holding its declaration's text: a layout table's
    cells as one line (a row per parameter joined), inline markup as written."""
    tables = list(element.iter("table"))
    if tables:
        if audit is not None:
            for table in element.iterchildren("table"):
                audit.note(table, "declaration")
        # the innermost tables hold the signature's cells: Doxygen nests its memname
        # table in an mlabels table whose other cell is a badge ("inline", "static")
        inner = [t for t in tables if t.find(".//table") is None]
        text = " ".join(
            " ".join(" ".join(cell.text_content().split()) for cell in row.iterchildren("td", "th"))
            for table in inner
            for row in table.iter("tr")
        )
        text = _CLOSE.sub(r"\1", _OPEN.sub(r"\1", _SPACES.sub(" ", text))).strip()
    else:
        for br in element.iter("br"):
            br.tail = "\n" + (br.tail or "")
        lines = (_SPACES.sub(" ", line).strip() for line in element.text_content().split("\n"))
        text = "\n".join(line for line in lines if line)
    _become_code(element, text)


def _listing_to_code(element: Element) -> bool:
    """A listing of one div per line becomes a ``<pre>`` of those lines, without line
    numbers; False (left alone) when it holds anything but such lines."""
    lines = []
    for child in element.iterchildren(etree.Element):
        if LISTING_LINE_CLASS not in (child.get("class") or "").split():
            return False
        for number in child.iter("span"):
            if LINE_NUMBER_CLASSES & set((number.get("class") or "").split()):
                number.text = ""
        lines.append(child.text_content().replace("\u00a0", " ").rstrip())
    if not lines:
        return False
    _become_code(element, "\n".join(lines))
    return True


_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _line_text(element: Element) -> str:
    """The element's words as one line (a definition's leading ": " category left out)."""
    return " ".join(element.text_content().split()).removeprefix(": ").strip()


def _definition_terms_to_code(dl: Element, audit: LossAudit | None) -> int:
    """Each run of ``<dt>`` call forms of `dl` becomes one ``<pre>`` of their lines (the
    first term, in place; the others are moved into it)."""
    converted = 0
    run: list[Element] = []
    for child in [*dl.iterchildren(etree.Element), None]:
        if child is not None and child.tag == "dt":
            run.append(child)
            continue
        if run:
            lines = [_line_text(term) for term in run]
            for term in run[1:]:
                if audit is not None:
                    audit.note(term, "declaration")
                term.drop_tree()
            _become_code(run[0], "\n".join(line for line in lines if line))
            converted += 1
            run = []
    return converted


def _heading_to_code(heading: Element) -> None:
    """The heading keeps its place and level; its words become one inline code span
    (a hover box inside it, rustdoc's "Notable traits" tooltip, is not its words)."""
    for tip in [e for e in heading.iterdescendants() if "tooltip" in (e.get("class") or "")]:
        if tip.getparent() is not None:
            tip.drop_tree()
    text = " ".join(heading.text_content().split())
    tail = heading.tail
    for child in list(heading):
        heading.remove(child)
    heading.text = None
    code = etree.SubElement(heading, "code")
    code.text = text
    heading.tail = tail


def _member_table_to_list(table: Element, audit: LossAudit | None) -> bool:
    """Doxygen's member summary as its group headings and lists of members: each
    ``tr.memitem*`` gives ``<li><code>declaration</code>: description</li>`` (the
    description from the ``tr.memdesc*`` row after it). False (left alone) when the
    table has no member rows."""
    blocks: list[Element] = []
    items: Element | None = None
    for row in table.iter("tr"):
        kind = (row.get("class") or "").split(":", 1)[0]
        cells = [" ".join(c.text_content().split()) for c in row.iterchildren("td", "th")]
        if kind == "heading":
            heading = next(row.iter(*_HEADINGS), None)
            if heading is not None:
                title = etree.Element(heading.tag)
                title.text = " ".join(heading.text_content().split())
                blocks.append(title)
                items = None
        elif kind == "memitem":
            if items is None:
                items = etree.Element("ul")
                blocks.append(items)
            item = etree.SubElement(items, "li")
            code = etree.SubElement(item, "code")
            code.text = _CLOSE.sub(r"\1", " ".join(c for c in cells if c))
        elif kind == "memdesc" and items is not None and len(items):
            brief = " ".join(c for c in cells if c).removesuffix("More...").strip()
            if brief:
                items[-1][-1].tail = ": " + brief
    if not any(b.tag == "ul" for b in blocks):
        return False
    if audit is not None:
        audit.note(table, "declaration")
    parent = table.getparent()
    if parent is None:
        return False
    at = parent.index(table)
    for offset, block in enumerate(blocks):
        parent.insert(at + offset, block)
    blocks[-1].tail = table.tail
    parent.remove(table)
    return True


def _grid_to_table(element: Element, names: set[str]) -> bool:
    """A grid of cell divs becomes a ``<table>`` of rows of its column count (header
    cells in a ``<thead>``); False (left alone) when the cells do not fill the rows."""
    columns = next((n for name, n in GRID_COLUMNS.items() if name in names), 0)
    cells = [c for c in element.iterchildren(etree.Element)]
    if not columns or not cells or len(cells) % columns:
        return False
    tail = element.tail
    element.attrib.pop("class", None)
    element.tag = "table"
    for child in cells:
        element.remove(child)
        child.tail = None
    head = etree.SubElement(element, "thead")
    body = etree.SubElement(element, "tbody")
    for start in range(0, len(cells), columns):
        row_cells = cells[start : start + columns]
        header = all(GRID_HEADER_CLASS in (c.get("class") or "").split() for c in row_cells)
        row = etree.SubElement(head if header and start == 0 else body, "tr")
        for cell in row_cells:
            cell.tag = "th" if header and start == 0 else "td"
            cell.attrib.pop("class", None)
            row.append(cell)
    element.tail = tail
    return True


def _become_code(element: Element, text: str) -> None:
    """`element` in place as ``<pre>text</pre>``: same position, same tail."""
    tail = element.tail
    for child in list(element):
        element.remove(child)
    # its names told the chrome rules "box", "member", "post_date" (Sphinx's id of a
    # method "latest_post_date"): code has none to read
    for name in ("class", "style", "id"):
        element.attrib.pop(name, None)
    element.tag = "pre"
    element.text = text
    element.tail = tail
