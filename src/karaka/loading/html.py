"""HTML: the main text, cited by the HTML file's own line numbers.

trafilatura decides what is main text (menus, scripts and footers are not); lxml walks the page,
so headings become sections, ``<pre>`` code lines and table rows carry their header, and every
line keeps where its element starts in the file. A table that lays out a page (cells of paragraphs,
lists, code) is read block by block instead, its bold cells as headings.
"""

from __future__ import annotations

import re
from typing import Any

from karaka.loading.markdown import SECTION_SEP, enter_section, row_sentence
from karaka.loading.sentences import CODE, HEADING, TABLE, Raw, clean
from karaka.loading.text import text_lines

BLOCKS = frozenset("p li pre blockquote dd dt td th h1 h2 h3 h4 h5 h6 div section article caption figcaption "
                   "table tr ul ol dl main body".split())
SKIP = frozenset("script style noscript template nav header footer aside form button select iframe svg head".split())
_HEADING = re.compile(r"^h([1-6])$")
_LISTS = frozenset(("ul", "ol", "dl"))
"""A list right after text of the page's main text is main text, all its items."""


def _squash(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def _main_text(html: str) -> str:
    """The main text as trafilatura finds it, squashed for comparison ("" when it finds none).

    Both of trafilatura's settings, joined: on a long single-page manual its recall setting keeps
    a tenth of what its default keeps (a 400 KB docutils manual: 21 KB against 205 KB), and on a
    page with a site menu the default keeps a little less.
    """
    import trafilatura

    found = [trafilatura.extract(html, include_tables=True, include_comments=False, favor_recall=recall,
                                 deduplicate=False) for recall in (True, False)]
    return "\n".join(_squash(text) for text in found if text)


def _own_text(element: Any) -> str:
    """The element's text outside its block children (all of it for a leaf block)."""
    parts = [element.text or ""]
    for child in element:
        if not isinstance(child.tag, str):
            parts.append(child.tail or "")
            continue
        if child.tag not in BLOCKS and child.tag not in SKIP:
            parts.append(_own_text(child) if not _has_block(child) else "")
        parts.append(_tail(child))
    return "".join(parts)


def _tail(child: Any) -> str:
    """The text after a child element; a line break parts words ("one?<br>two": not "one?two")."""
    return (" " if child.tag == "br" else "") + (child.tail or "")


PARAGRAPH_CHARS = 200


def _paragraph(text: str) -> bool:
    """Prose no menu, footer or banner is made of: two sentences or more, 200 characters or more.

    trafilatura leaves out text that stands loose between blocks of a hand-written page (zlib's
    usage example kept its code and lost the prose that explains it).
    """
    return len(text) >= PARAGRAPH_CHARS and len(re.findall(r"[.!?](?:\s|$)", text)) >= 2


def _parts(element: Any) -> list[tuple[int, Any]]:
    """The element's own text as runs split by its block children, and those children, in the file's order.

    Each run comes with the file line it starts on. Hand-written pages put prose straight into
    ``<body>`` between ``<pre>`` blocks: each stretch is a paragraph of its own, at its own line.
    """
    out: list[tuple[int, Any]] = []
    start, parts = element.sourceline or 1, [element.text or ""]

    def flush() -> None:
        text = "".join(parts)
        if text.strip():
            out.append((start + _leading_newlines(text), text))

    for child in element:
        if isinstance(child.tag, str) and (child.tag in BLOCKS or child.tag in SKIP or _has_block(child)):
            flush()
            out.append((child.sourceline or start, child))
            start = (child.sourceline or start) + _newlines(child)
            parts = [child.tail or ""]
            continue
        if isinstance(child.tag, str):
            parts.append(_own_text(child))
        parts.append(_tail(child))
    flush()
    return out


def _newlines(element: Any) -> int:
    """How many lines an element spans in its file (its text's line breaks)."""
    from lxml import etree

    return etree.tostring(element, with_tail=False, encoding="unicode").count("\n")


def _leading_newlines(text: str) -> int:
    return text[:len(text) - len(text.lstrip())].count("\n")


def _has_block(element: Any) -> bool:
    return any(isinstance(d.tag, str) and d.tag in BLOCKS for d in element.iterdescendants())


def _all_bold(element: Any) -> bool:
    """A paragraph that is one bold or strong phrase (used as a heading on many pages)."""
    children = [c for c in element if isinstance(c.tag, str)]
    return (len(children) == 1 and children[0].tag in ("b", "strong") and not (element.text or "").strip()
            and not (children[0].tail or "").strip() and len(children[0].text_content()) < 120)


def _bold_title(cell: Any) -> bool:
    """Whether a cell of a table that lays out a page says one bold phrase: a title of what follows.

    A FAQ's question titles its answer that way; a bold number alone titles nothing.
    """
    own = clean(_own_text(cell))
    bold = clean(" ".join(c.text_content() for c in cell if isinstance(c.tag, str) and c.tag in ("b", "strong")))
    return bool(own) and own == bold and len(own) < 200 and re.search(r"[^\W\d_]", own) is not None


def html_lines(html: str, main_only: bool = True) -> list[Raw]:
    """An HTML page's main text (all its text without ``main_only``) as lines with their file line, section, kind."""
    import lxml.html

    main = _main_text(html) if main_only else ""
    root = lxml.html.document_fromstring(html.encode("utf-8"))
    out: list[Raw] = []
    path: list[tuple[int, str]] = []

    def kept(text: str, prose: bool = False) -> bool:
        squashed = _squash(text)
        return bool(squashed) and (not main or squashed[:60] in main or prose and _paragraph(text))

    def section() -> str:
        return SECTION_SEP.join(t for _, t in path)

    def visit(element: Any, listed: bool = False) -> None:
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in SKIP or not tag:
            return
        if tag in _LISTS and not listed and (before := element.getprevious()) is not None and isinstance(
                before.tag, str) and before.tag not in SKIP and kept(clean(before.text_content()), prose=True):
            listed = True  # "The following tags cause a break:" over items of bare code, which trafilatura drops
        line = element.sourceline or 1
        heading = _HEADING.match(tag)
        titled = tag == "td" and _bold_title(element)
        if heading or (tag == "p" and _all_bold(element)) or titled:
            level = int(heading.group(1)) if heading else 7
            title = clean(_own_text(element) if titled else element.text_content())
            if title:
                path[:] = enter_section(path, level, title)
                title = path[-1][1]
                if kept(title):
                    out.append(Raw(line, title, section=section(), kind=HEADING, solo=True))
            for child in element if titled else ():  # the question's example, under the question
                if isinstance(child.tag, str) and (child.tag in BLOCKS or _has_block(child)):
                    visit(child, listed)
            return
        if "literallayout" in (element.get("class") or "").split():  # DocBook's plain-text README, lines by <br>
            for br in element.iter("br"):
                br.tail = "\ue001" + (br.tail or "")  # the file's own line ends are spaces to HTML; a <br> ends a line
            for raw in text_lines(element.text_content().replace("\n", " ").replace("\ue001", "\n")):
                if not raw.text or kept(raw.text, prose=True):
                    inner = SECTION_SEP.join(x for x in (section(), raw.section) if x)
                    out.append(raw._replace(line=line + raw.line - 1, section=inner))
            out.append(Raw(line, ""))
            return
        if tag == "pre":
            for i, text in enumerate(element.text_content().split("\n")):
                if text.strip() and kept(text):
                    out.append(Raw(line + i, " ".join(text.split()), section=section(), kind=CODE, solo=True))
            out.append(Raw(line, ""))
            return
        if tag == "table" and not _layout(element):
            _table(element, out, section(), kept)
            return
        for at, part in _parts(element):  # in the file's order: the text between block children, each a paragraph
            if not isinstance(part, str):
                visit(part, listed)
                continue
            text = clean(part)
            if tag in BLOCKS and text and (listed or kept(text, prose=True)):
                out.append(Raw(at, ""))
                out.append(Raw(at, text, section=section()))
                out.append(Raw(at, ""))

    body = root.find("body")
    visit(body if body is not None else root)
    return out


_LAYOUT = frozenset("p pre ul ol dl blockquote div table h1 h2 h3 h4 h5 h6".split())
"""What a cell of data never holds, but a table that lays out a page does: paragraphs, code, lists, headings."""


def _layout(table: Any) -> bool:
    """Whether a table lays out a page rather than holding data.

    One of its cells holds a heading, a list, code, another table or two paragraphs (a DocBook FAQ
    puts each answer's paragraphs in a cell beside its number). Such a table's cells are read as the
    page's blocks, a line a sentence, instead of each row joined into one line.
    """
    for cell in table.iter("td", "th"):
        blocks = [d.tag for d in cell.iterdescendants() if isinstance(d.tag, str) and d.tag in _LAYOUT]
        if sum(tag == "p" for tag in blocks) >= 2 or any(tag != "p" for tag in blocks):
            return True
    return False


def _table(table: Any, out: list[Raw], section: str, kept: Any) -> None:
    header: list[str] = []
    for row in table.iter("tr"):
        cells = [clean(c.text_content()) for c in row if isinstance(c.tag, str) and c.tag in ("td", "th")]
        if not any(cells):
            continue
        if not header and all(isinstance(c.tag, str) and c.tag == "th" for c in row if isinstance(c.tag, str)):
            header = cells
            continue
        text = row_sentence(header, cells)
        if kept(" ".join(cells)):
            out.append(Raw(row.sourceline or 1, text, section=section, kind=TABLE, solo=True))
