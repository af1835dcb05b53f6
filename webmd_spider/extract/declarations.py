"""API declarations and generated code listings become code blocks, before any chrome rule
reads the page.

An API reference page states each member twice: its declaration (the signature a coding
agent asks for) and its description. Generators write the declaration as a box of
styled spans or as a layout table, so the chrome rules took it for a caption, a
member box or a link farm and dropped it without a word (issue 30). Here, once per page:

* a **declaration block** becomes a ``<pre>`` of its text, in place:

  - by structure, any generator: the block right after a heading (the member's name),
    made of inline markup only, whose text is shaped like a declaration (it opens with
    modifiers and a declaring keyword, or calls the heading's name: ``empty()`` under
    ``### empty``) and is not a sentence;
  - by name, where a class name is the only evidence (`DECLARATION_CLASSES`): Javadoc's
    ``div.member-signature`` and ``div.type-signature`` (JDK 17-21 ``javadoc``), and
    Doxygen's ``div.memproto``, whose ``table.memname`` lays a C++ signature out in
    six cells (Doxygen 1.8-1.9): its cells are read as one line of code.

* a **code listing drawn as lines of divs** becomes a ``<pre>``: Doxygen's
  ``div.fragment`` of ``div.line`` (1.8-1.9), its ``span.lineno`` line numbers left out;
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
from typing import cast

from lxml import etree

from webmd_spider.extract.audit import LossAudit
from webmd_spider.extract.stats import Element

#: Class names that mark a declaration block, with the generator that writes them.
DECLARATION_CLASSES = frozenset(
    {
        "member-signature",  # Javadoc, JDK 17-21: each member's declaration
        "type-signature",  # Javadoc, JDK 17-21: the class's own declaration
        "memproto",  # Doxygen 1.8-1.9: table.memname of a member's signature
    }
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
_DECLARING = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*"  # annotations
    r"(?:(?:public|protected|private|static|final|abstract|synchronized|native|default|"
    r"sealed|non-sealed|const|constexpr|virtual|inline|extern|export|async|unsafe|"
    r"pub(?:\([\w:]+\))?|override|open|readonly)\s+)*"
    r"(?:class|interface|enum|record|struct|trait|impl|fn|def|func|function|type|typedef|"
    r"template|union|module|namespace|@interface)\b"
)
_CANDIDATES = etree.XPath(
    "descendant::*[self::h2 or self::h3 or self::h4 or self::h5 or self::h6]"
    "/following-sibling::*[1][self::div or self::p]"
    " | descendant::div[contains(@class, 'signature') or contains(@class, 'memproto')"
    " or contains(@class, 'fragment') or contains(@class, 'summary-table')]"
)
#: Javadoc's grid classes (JDK 17-21) and the column counts they name.
GRID_CLASS = "summary-table"
GRID_COLUMNS = {"two-column-summary": 2, "three-column-summary": 3, "four-column-summary": 4}
GRID_HEADER_CLASS = "table-header"
_SPACES = re.compile(r"[ \t\u00a0]+")
_OPEN = re.compile(r"([(<\[])\s+")
_CLOSE = re.compile(r"\s+([)>\],])")
_NAME = re.compile(r"([A-Za-z_][\w$]*)\W*$")


def convert_declarations(root: Element, audit: LossAudit | None = None) -> int:
    """Turn the declaration blocks and line-div listings of `root` into ``<pre>``
    elements in place (see the module docstring); returns how many were converted."""
    converted = 0
    for element in cast(list[Element], _CANDIDATES(root)):
        if element.getparent() is None:
            continue
        names = set((element.get("class") or "").split())
        if LISTING_CLASS in names:
            if _listing_to_code(element):
                converted += 1
        elif GRID_CLASS in names:
            if _grid_to_table(element, names):
                converted += 1
        elif names & DECLARATION_CLASSES or _shaped_like_declaration(element):
            _declaration_to_code(element, audit)
            converted += 1
    return converted


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
    if _DECLARING.match(text):
        return True
    heading = element.getprevious()
    named = _NAME.search(" ".join((heading.text_content() if heading is not None else "").split()))
    return named is not None and f"{named.group(1)}(" in text.replace(" (", "(")


def _declaration_to_code(element: Element, audit: LossAudit | None) -> None:
    """Make `element` a ``<pre>`` holding its declaration's text: a layout table's
    cells as one line (a row per parameter joined), inline markup as written."""
    tables = list(element.iter("table"))
    if tables:
        if audit is not None:
            for table in tables:
                audit.note(table, "declaration")
        text = " ".join(
            " ".join(" ".join(cell.text_content().split()) for cell in row.iter("td", "th"))
            for row in element.iter("tr")
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


def _grid_to_table(element: Element, names: set[str]) -> bool:
    """A grid of cell divs becomes a ``<table>`` of rows of its column count (header
    cells in a ``<thead>``); False (left alone) when the cells do not fill the rows."""
    columns = next((n for name, n in GRID_COLUMNS.items() if name in names), 0)
    cells = [c for c in element.iterchildren(etree.Element)]
    if not columns or not cells or len(cells) % columns:
        return False
    tail = element.tail
    element.attrib.clear()
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
    element.attrib.clear()
    element.tag = "pre"
    element.text = text
    element.tail = tail
