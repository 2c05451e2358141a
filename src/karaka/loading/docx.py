"""Word documents (.docx): paragraphs in order, headings as sections, list items and table rows as lines.

A .docx is a ZIP whose ``word/document.xml`` holds the body: paragraphs (``w:p``) and tables
(``w:tbl``). A paragraph styled ``Title`` or ``Heading N`` (or given an outline level) opens a
section; a numbered or bulleted paragraph is a line of its own; a table row becomes a sentence
that carries its header, as in Markdown. The line number is the paragraph's (table rows count
as paragraphs), so ``[report, § Results, line 12]`` is the twelfth paragraph, under "Results".
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from karaka.loading.files import DocumentError
from karaka.loading.markdown import SECTION_SEP, enter_section, row_sentence
from karaka.loading.sentences import HEADING, TABLE, Raw, clean

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_HEADING_STYLE = re.compile(r"^heading\s*(\d)$|^(title)$", re.IGNORECASE)
"""Built-in style names, which Word writes in English whatever its language ("heading 1", "Title")."""
MAX_BODY_BYTES = 200_000_000


def docx_lines(path: Path) -> list[Raw]:
    """A Word document's paragraphs with their number, section and kind."""
    from lxml import etree

    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DocumentError(f"{path}: not a valid Word document (not a ZIP archive: {exc})") from exc
    with archive:
        try:
            info = archive.getinfo("word/document.xml")
        except KeyError:
            raise DocumentError(f"{path}: not a Word document (no word/document.xml: a ZIP of something else "
                                "named .docx?)") from None
        if info.file_size > MAX_BODY_BYTES:
            raise DocumentError(f"{path}: its body is {info.file_size} bytes, over {MAX_BODY_BYTES}")
        try:
            root = etree.fromstring(archive.read(info), etree.XMLParser(resolve_entities=False, no_network=True))
            styles = _style_names(archive)
        except (etree.XMLSyntaxError, zipfile.BadZipFile) as exc:
            raise DocumentError(f"{path}: a damaged Word document ({exc})") from exc
    body = root.find(f"{{{_W}}}body")
    if body is None:
        raise DocumentError(f"{path}: a Word document without a body")
    out: list[Raw] = []
    path_: list[tuple[int, str]] = []
    number = 0
    for block in body:
        if block.tag == f"{{{_W}}}p":
            number += 1
            _paragraph(block, number, styles, path_, out)
        elif block.tag == f"{{{_W}}}tbl":
            number = _table(block, number, SECTION_SEP.join(t for _, t in path_), out)
    return out


def _paragraph(p: Any, number: int, styles: dict[str, str], path: list[tuple[int, str]], out: list[Raw]) -> None:
    text = clean(_text(p))
    if not text:
        out.append(Raw(number, ""))
        return
    level = _level(p, styles)
    if level is not None:
        path[:] = enter_section(path, level, text)
        out.append(Raw(number, path[-1][1], section=SECTION_SEP.join(t for _, t in path), kind=HEADING, solo=True))
        return
    listed = p.find(f"{{{_W}}}pPr/{{{_W}}}numPr") is not None
    out.append(Raw(number, text, section=SECTION_SEP.join(t for _, t in path), solo=listed))
    out.append(Raw(number, ""))  # a paragraph ends at its end: Word does not wrap lines into the next one


def _level(p: Any, styles: dict[str, str]) -> int | None:
    """The heading level of a paragraph (0 for a title), or None for body text."""
    props = p.find(f"{{{_W}}}pPr")
    if props is None:
        return None
    outline = props.find(f"{{{_W}}}outlineLvl")
    if outline is not None and (value := outline.get(f"{{{_W}}}val", "")).isdigit() and int(value) < 9:
        return int(value) + 1
    style = props.find(f"{{{_W}}}pStyle")
    style_id = style.get(f"{{{_W}}}val", "") if style is not None else ""
    match = _HEADING_STYLE.match(styles.get(style_id, style_id))
    if match is None:
        return None
    return 0 if match.group(2) else int(match.group(1))


def _style_names(archive: zipfile.ZipFile) -> dict[str, str]:
    """Style id → its name ("Heading1" → "heading 1"; a German Word's id "berschrift1" → "heading 1")."""
    from lxml import etree

    try:
        root = etree.fromstring(archive.read("word/styles.xml"), etree.XMLParser(resolve_entities=False,
                                                                                  no_network=True))
    except KeyError:
        return {}
    names = {}
    for style in root.iter(f"{{{_W}}}style"):
        name = style.find(f"{{{_W}}}name")
        if name is not None:
            names[style.get(f"{{{_W}}}styleId", "")] = name.get(f"{{{_W}}}val", "")
    return names


def _text(element: Any) -> str:
    parts = []
    for node in element.iter(f"{{{_W}}}t", f"{{{_W}}}tab", f"{{{_W}}}br"):
        parts.append(node.text or "" if node.tag == f"{{{_W}}}t" else " ")
    return "".join(parts)


def _table(table: Any, number: int, section: str, out: list[Raw]) -> int:
    header: list[str] = []
    for row in table.iter(f"{{{_W}}}tr"):
        number += 1
        cells = [clean(_text(cell)) for cell in row.iter(f"{{{_W}}}tc")]
        if not any(cells):
            continue
        if not header:
            header = cells
            continue
        out.append(Raw(number, row_sentence(header, cells), section=section, kind=TABLE, solo=True))
    return number
