"""Plain text: each file line as it is; wrapped paragraphs are rejoined by ``sentences``.

A manual page's headings (a short line at the margin over an indented body: "AUTHORS", "OPTIONS")
become sections, as Markdown's do, so "Erik Troan, Preston Brown, Jan Kaluza." is found and read
as the authors it lists. The section ends where the text comes back to the margin (the page's
footer).
"""

from __future__ import annotations

import re

from karaka.loading.sentences import HEADING, Raw, clean


def text_lines(text: str) -> list[Raw]:
    """A text file's lines, numbered from 1, with the heading they stand under."""
    lines = split_lines(text)
    out: list[Raw] = []
    section = ""
    for number, raw in enumerate(lines, 1):
        if _heading(lines, number - 1):
            section = clean(raw)
            out.append(Raw(number, section, section=section, kind=HEADING, solo=True))
            continue
        if raw.strip() and not raw[0].isspace():  # back at the margin: the indented body has ended
            section = ""
        out.append(Raw(number, clean(raw), section=section))
    return out


def _heading(lines: list[str], i: int) -> bool:
    """A short line at the margin, not a sentence, whose next text (within a blank line) is indented."""
    line = lines[i].rstrip()
    if not line or line[0].isspace() or len(line) > 60 or len(line.split()) > 8 or line[-1] in ".,;:!?":
        return False
    if not re.match(r"[^\W\d_]", line):
        return False
    following = [x for x in lines[i + 1:i + 3] if x.strip()][:1]
    return bool(following) and bool(re.match(r"(?: {2,}|\t)\S", following[0]))


def split_lines(text: str) -> list[str]:
    """A text's lines, whatever its line ends."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
