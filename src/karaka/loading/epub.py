"""EPUB: the chapters in reading order (the spine), each named by the table of contents.

An EPUB is a ZIP of XHTML chapters; ``META-INF/container.xml`` names the package file, whose
spine orders the chapters and whose navigation document (EPUB 3) or NCX (EPUB 2) titles them.
Each chapter is read as HTML (headings, code, tables) in full (a book's chapter has no menus to
leave out) and becomes ``chapter`` N with its title as the section; line numbers run on over
the chapters, so each line of the book has its own. A book whose chapters are encrypted (DRM)
is refused with that reason; fonts obfuscated by the publisher are not content and do not count.
"""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from karaka.loading.files import DocumentError
from karaka.loading.sentences import Raw

_NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container", "opf": "http://www.idpf.org/2007/opf",
       "ncx": "http://www.daisy.org/z3986/2005/ncx/", "xhtml": "http://www.w3.org/1999/xhtml",
       "enc": "http://www.w3.org/2001/04/xmlenc#", "epub": "http://www.idpf.org/2007/ops"}
FONT_OBFUSCATION = ("http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC")
"""Encryption that only hides embedded fonts: the text is readable."""
MAX_CHAPTER_BYTES = 20_000_000
_HTML = ("application/xhtml+xml", "text/html")


def epub_lines(path: Path, warnings: list[str]) -> list[Raw]:
    """A book's lines, chapter by chapter, with ``chapter`` and the chapter's title as section."""
    from karaka.loading.html import html_lines

    try:
        book = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DocumentError(f"{path}: not a valid EPUB (not a ZIP archive: {exc})") from exc
    with book:
        names = set(book.namelist())
        _refuse_drm(path, book, names)
        package = _package_path(path, book, names)
        chapters, titles = _spine(path, book, package, names)
        out: list[Raw] = []
        offset = 0
        number = 0
        too_large = []
        for href in chapters:
            info = book.getinfo(href)
            if info.file_size > MAX_CHAPTER_BYTES:
                warnings.append(f"{path}: chapter {href} is {info.file_size} bytes, over {MAX_CHAPTER_BYTES}; skipped")
                too_large.append(href)
                continue
            html = book.read(href).decode("utf-8", errors="replace")
            raws = html_lines(html, main_only=False)
            if not any(r.text for r in raws):
                continue
            number += 1
            title = titles.get(href, "")
            for raw in raws:
                section = raw.section if not title else (
                    title if not raw.section or raw.section.split(" › ")[0] == title else f"{title} › {raw.section}")
                out.append(raw._replace(line=offset + raw.line, section=section, chapter=str(number)))
            offset += max(r.line for r in raws) + 1
    if not out and too_large:
        raise DocumentError(f"{path}: every chapter with text is over {MAX_CHAPTER_BYTES} bytes "
                            f"({len(too_large)} skipped)")
    return out


def _refuse_drm(path: Path, book: zipfile.ZipFile, names: set[str]) -> None:
    if "META-INF/encryption.xml" not in names:
        return
    root = _xml(path, book, "META-INF/encryption.xml")
    for data in root.iter(f"{{{_NS['enc']}}}EncryptedData"):
        method = data.find("enc:EncryptionMethod", _NS)
        algorithm = method.get("Algorithm", "") if method is not None else ""
        target = data.find(".//enc:CipherReference", _NS)
        uri = target.get("URI", "") if target is not None else ""
        if algorithm not in FONT_OBFUSCATION and not uri.lower().endswith((".ttf", ".otf", ".woff", ".woff2")):
            raise DocumentError(f"{path}: a DRM-protected EPUB ({uri or 'its content'} is encrypted); "
                                "only DRM-free books can be read")


def _package_path(path: Path, book: zipfile.ZipFile, names: set[str]) -> str:
    if "META-INF/container.xml" not in names:
        raise DocumentError(f"{path}: not a valid EPUB (META-INF/container.xml is missing)")
    rootfile = _xml(path, book, "META-INF/container.xml").find(".//c:rootfile", _NS)
    full = rootfile.get("full-path", "") if rootfile is not None else ""
    if full not in names:
        raise DocumentError(f"{path}: not a valid EPUB (its package file {full or '(none named)'} is missing)")
    return full


def _spine(path: Path, book: zipfile.ZipFile, package: str, names: set[str]) -> tuple[list[str], dict[str, str]]:
    """The chapters' paths in reading order, and the title the table of contents gives each."""
    opf = _xml(path, book, package)
    base = posixpath.dirname(package)
    items: dict[str, tuple[str, str, str]] = {}
    for item in opf.iterfind(".//opf:manifest/opf:item", _NS):
        href = posixpath.normpath(posixpath.join(base, unquote(item.get("href", ""))))
        items[item.get("id", "")] = (href, item.get("media-type", ""), item.get("properties", ""))
    spine = opf.find(".//opf:spine", _NS)
    if spine is None:
        raise DocumentError(f"{path}: not a valid EPUB (its package file has no spine)")
    chapters = []
    for ref in spine.iterfind("opf:itemref", _NS):
        href, media, _ = items.get(ref.get("idref", ""), ("", "", ""))
        if href in names and media in _HTML and ref.get("linear", "yes") != "no":
            chapters.append(href)
    if not chapters:
        raise DocumentError(f"{path}: an EPUB with no readable chapters in its spine")
    titles: dict[str, str] = {}
    nav = next((h for h, _, props in items.values() if "nav" in props.split() and h in names), "")
    ncx = items.get(spine.get("toc", ""), ("", "", ""))[0]
    if nav:
        for link in _xml(path, book, nav).iterfind(".//xhtml:nav//xhtml:a", _NS):
            _title(titles, posixpath.dirname(nav), link.get("href", ""), "".join(link.itertext()))
    elif ncx in names:
        for point in _xml(path, book, ncx).iterfind(".//ncx:navPoint", _NS):
            label, content = point.find("ncx:navLabel/ncx:text", _NS), point.find("ncx:content", _NS)
            if label is not None and content is not None:
                _title(titles, posixpath.dirname(ncx), content.get("src", ""), label.text or "")
    return chapters, titles


def _title(titles: dict[str, str], base: str, href: str, text: str) -> None:
    target = posixpath.normpath(posixpath.join(base, unquote(href.split("#", 1)[0])))
    if text.strip() and target not in titles:
        titles[target] = " ".join(text.split())


def _xml(path: Path, book: zipfile.ZipFile, name: str) -> Any:
    from lxml import etree

    try:
        return etree.fromstring(book.read(name), etree.XMLParser(resolve_entities=False, no_network=True,
                                                                 huge_tree=False))
    except (etree.XMLSyntaxError, KeyError, zipfile.BadZipFile) as exc:
        raise DocumentError(f"{path}: not a valid EPUB ({name} cannot be read: {exc})") from exc
