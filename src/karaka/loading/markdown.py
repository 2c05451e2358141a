"""Markdown: headings give every line its section, fenced code stays code lines.

A table row becomes a sentence that carries its header; list items, quotes and admonitions are
lines of their own. A MyST directive whose body is text (a note, a tab, "versionadded") is read as
text, as Sphinx shows it: "```{versionchanged} 20.0" before "pip now caches …" reads "Changed in
version 20.0: pip now caches …", and a tab's label titles what it holds.
"""

from __future__ import annotations

import re

from karaka.loading.sentences import CODE, HEADING, TABLE, Raw, clean

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^\s{0,3}([-*+]\s+|\d+[.)]\s+|>\s?)")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_ATTRS = re.compile(r"\s*\{:?\s*[#.][^}]*\}\s*$")
"""MkDocs / kramdown attribute lists: ``{: #id }``, ``{#id .class}``."""
_ADMONITION = re.compile(r'^\s{0,3}(?:!!!|\?\?\?\+?)\s*\w+(?:\s+"([^"]*)")?\s*$')
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_INLINE = re.compile(r"\*\*|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")
_LINK = re.compile(r"!?\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
"""An inline link ``[text](url)`` or a reference link ``[text][]``, ``[text][ref]``: its text stays."""
_ROLE = re.compile(r"\{([\w:-]+)\}`([^`<]*?)\s*(?:<[^>`]*>)?`")
"""A MyST role, ``{ref}`--src <install_--src>` ``, ``{pypi}`certifi` ``: its title stays, quoted as a name; a
proposal's number is shown as Sphinx shows it, ``{pep}`508` `` as "PEP 508"."""
SECTION_SEP = " › "
_DIRECTIVE = re.compile(r"^\s{0,3}(`{3,}|:{3,})\s*\{([\w:-]+)\}\s*(.*?)\s*$")
"""A MyST directive: ```` ```{note} ````, ```` ````{tab} Linux ````, ``:::{versionadded} 6.0``."""
PROSE_DIRECTIVES = frozenset(
    "note warning caution tip important hint attention danger error seealso admonition versionadded "
    "versionchanged deprecated tab tab-item dropdown topic sidebar margin card".split())
"""Directives whose body is text, as Sphinx shows it; any other (``{code-block}``, a site's own) stays code."""
_TARGET = re.compile(r"^\s{0,3}\([\w.:-]+\)=\s*$")
"""A MyST target, ``(wheel-caching)=``: a label for links, no text."""
_VERSIONED = {"versionadded": "Added in version {}", "versionchanged": "Changed in version {}",
              "deprecated": "Deprecated since version {}"}
"""How Sphinx words a version directive, which its body goes on from ("Changed in version 20.0: …")."""


def enter_section(path: list[tuple[int, str]], level: int, title: str) -> list[tuple[int, str]]:
    """The heading path after a heading of ``level``: deeper ones closed, brackets kept out of citations."""
    return [(lv, t) for lv, t in path if lv < level] + [(level, title.replace("[", "(").replace("]", ")"))]


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [clean(_inline(cell)) for cell in re.split(r"(?<!\\)\|", inner)]


def _inline(text: str) -> str:
    """Markdown emphasis and link syntax off; the words stay."""
    return _INLINE.sub("", _LINK.sub(r"\1", _ROLE.sub(_role, text)))


def _role(found: re.Match[str]) -> str:
    role, title = found.group(1).lower(), found.group(2)
    return f"{role.upper()} {title}" if role in ("pep", "rfc") and title.isdigit() else f"`{title}`"


def row_sentence(header: list[str], cells: list[str]) -> str:
    """A table row as a sentence: ``first cell: header value, header value`` (empty cells left out)."""
    if not header or len(cells) < 2:
        return ", ".join(c for c in cells if c)
    named = [f"{h} {c}".strip() if h else c for h, c in zip(header[1:], cells[1:], strict=False) if c]
    first = f"{header[0]} {cells[0]}" if header[0] and not cells[0].lower().startswith(header[0].lower()) \
        else cells[0]
    return f"{first}: {', '.join(named)}" if named else first


def _closes(raw: str, fence: str) -> bool:
    """Whether a line closes a fence: the fence's character alone, at least as many times."""
    mark = raw.strip()
    return len(mark) >= len(fence) and set(mark) == {fence[0]}


def markdown_lines(text: str, number: list[int] | None = None) -> list[Raw]:
    """A Markdown file's lines with their section and kind.

    ``number`` maps each line (by index) to the file line it stands for, when the Markdown was
    made from another file (HTML); by default line i is file line i + 1.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[Raw] = []
    path: list[tuple[int, str]] = []
    fence = ""
    opened_by: list[tuple[str, list[tuple[int, str]], list[str]]] = []  # open directives: fence, path, version words
    header: list[str] = []
    in_item = False
    for i, raw in enumerate(lines):
        at = number[i] if number else i + 1
        section = SECTION_SEP.join(title for _, title in path)
        if fence:
            if _closes(raw, fence):
                fence = ""
                out.append(Raw(at, ""))
            elif raw.strip():
                out.append(Raw(at, " ".join(raw.split()), section=section, kind=CODE, solo=True))
            continue
        if opened_by and _closes(raw, opened_by[-1][0]):
            _, path, said = opened_by.pop()
            if said:  # "```{versionadded} 6.0" with nothing in it: "Added in version 6.0."
                out += [Raw(at, ""), Raw(at, said[0] + ".", section=section), Raw(at, "")]
            continue
        if _TARGET.match(raw):
            continue
        directive = _DIRECTIVE.match(raw)
        if directive and directive.group(2).lower() in PROSE_DIRECTIVES:
            name, argument = directive.group(2).lower(), clean(_inline(directive.group(3)))
            said = [_VERSIONED[name].format(argument)] if name in _VERSIONED and argument else []
            opened_by.append((directive.group(1), path, said))
            if argument and not said:
                path = enter_section(path, 7, argument)  # a tab's label, an admonition's title titles what it holds
            out.append(Raw(at, ""))
            continue
        opened = _FENCE.match(raw)
        if opened:
            fence = opened.group(1)
            out.append(Raw(at, ""))
            continue
        heading = _HEADING.match(raw)
        if heading:
            level, title = len(heading.group(1)), clean(_inline(_ATTRS.sub("", heading.group(2))))
            path = enter_section(path, level, title)
            if title:
                out.append(Raw(at, title, section=SECTION_SEP.join(t for _, t in path), kind=HEADING, solo=True))
            continue
        stripped = raw.strip()
        if stripped.startswith("|") or (header and "|" in stripped):
            if i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]) and "|" in stripped:
                header = _cells(stripped)
                continue
            if _SEPARATOR.match(stripped):
                continue
            if header:
                out.append(Raw(at, row_sentence(header, _cells(stripped)), section=section, kind=TABLE, solo=True))
                continue
        header = []
        if _RULE.match(raw) or _ATTRS.fullmatch(raw.strip() or "x"):
            out.append(Raw(at, ""))
            continue
        admonition = _ADMONITION.match(raw)
        if admonition:
            title = clean(admonition.group(1) or "")
            out.append(Raw(at, title, section=section, solo=True) if title else Raw(at, ""))
            continue
        item = _ITEM.match(raw)
        body = clean(_inline(_ATTRS.sub("", raw[item.end():] if item else raw)))
        if body and opened_by and opened_by[-1][2]:
            body = f"{opened_by[-1][2].pop()}: {body}"  # the directive's version, said before its text
        if item or (in_item and raw[:1] not in " \t"):
            out.append(Raw(at, ""))  # an item starts a block; an unindented line after one does too
        in_item = bool(item) or (in_item and bool(stripped) and raw[:1] in " \t")
        out.append(Raw(at, body, section=section))
    return out
