"""Plain text: each file line as it is; wrapped paragraphs are rejoined by ``sentences``.

A README's titles underlined by a rule ("Running the tests" over "~~~~~~~~~~~~~~~~~") and a
manual page's headings (a short line over a body indented further: "AUTHORS", "OPTIONS", and
inside them an option "-m, --max-time <seconds>") become sections, as Markdown's do, so "Erik
Troan, Preston Brown, Jan Kaluza." is read as the authors it lists and "Since 7.32.0, this option
accepts decimal values" as said of --max-time. A heading's section ends where the text comes back
to its column (the next entry, the page's footer). The page's running header and footer are left out.
"""

from __future__ import annotations

import re

from karaka.loading.sentences import HEADING, Raw, clean


def text_lines(text: str) -> list[Raw]:
    """A text file's lines, numbered from 1, with the headings they stand under."""
    lines = split_lines(text)
    out: list[Raw] = []
    stack: list[tuple[int, str, bool]] = []  # (indent, heading, over a list): the headings whose bodies the line is in
    for number, raw in enumerate(lines, 1):
        indent = len(raw) - len(raw.lstrip())
        if raw.strip():
            while stack and indent <= stack[-1][0] and not (stack[-1][2] and _BULLET.match(raw.strip())):
                stack.pop()  # back at (or left of) a heading's column, and no item of its list: its body has ended
        if RUNNING.match(raw):
            continue  # "LS(1)   User Commands   LS(1)": the page's running header or footer, no content
        if _underline(lines, number - 2):
            continue  # the "~~~~" under a title: it only marks the line above as one
        if _underlined(lines, number - 1):
            stack[:] = [(-1, clean(raw), False)]  # a README's titled part runs to the next title
            out.append(Raw(number, clean(raw), section=_section(stack), kind=HEADING, solo=True))
            continue
        if (listed := _over_list(lines, number - 1)) or _heading(lines, number - 1):
            stack.append((indent, clean(raw), listed))
            if indent == 0:
                out.append(Raw(number, clean(raw), section=_section(stack), kind=HEADING, solo=True))
                continue  # an entry ("-c, --create") stays text, joined with a description that goes on from it
        out.append(Raw(number, clean(raw), section=_section(stack)))
    return out


RUNNING = re.compile(r"\s*(?:([\w.+-]+\(\w+\))\s{2,}.*\S\s{2,}\1|\S.*\s{2,}[\w.+-]+\(\d\w*\))\s*$")
"""A manual page's running header ("QUILL(1)   User Commands   QUILL(1)") or footer ("Linux   3.21.0   LOGROTATE(8)")."""


def _section(stack: list[tuple[int, str, bool]]) -> str:
    return " › ".join(title for _, title, _ in stack)


_BULLET = re.compile(r"[*+•-]\s+\S")
"""A list item's mark ("* Added the --json flag.")."""


_RULE = re.compile(r"\s*([~=*-])\1{2,}\s*")
"""A line of one repeated mark ("~~~~~~"), as a plain-text README underlines its titles."""


def _underlined(lines: list[str], i: int) -> bool:
    """A short line, not a sentence, with a rule of about its length under it: "Running the tests" over "~~~~"."""
    stripped = lines[i].strip()
    return bool(stripped) and len(stripped.split()) <= 8 and stripped[-1] not in ".,;:!?" and _underline(lines, i)


def _underline(lines: list[str], i: int) -> bool:
    """Whether the line after ``i`` is a rule as long as line ``i``'s text, give or take a third."""
    if i < 0 or i + 1 >= len(lines) or not lines[i].strip() or not _RULE.fullmatch(lines[i + 1]):
        return False
    title, rule = len(lines[i].strip()), len(lines[i + 1].strip())
    return abs(title - rule) <= max(2, title // 3) and not _RULE.fullmatch(lines[i])


def _over_list(lines: list[str], i: int) -> bool:
    """A short line at the margin, not a sentence, over a blank line and a list: "Version 4" over its changes."""
    line = lines[i]
    stripped = line.strip()
    if not stripped or line[0].isspace() or len(stripped.split()) > 8 or stripped[-1] in ".,;:!?" \
            or _BULLET.match(stripped) or i + 2 >= len(lines) or lines[i + 1].strip():
        return False
    return bool(_BULLET.match(lines[i + 2].strip())) and not lines[i + 2][0].isspace()


def _heading(lines: list[str], i: int) -> bool:
    """A short line, not a sentence, whose next text (within a blank line) is indented further.

    At the margin: a manual page's section ("OPTIONS"); indented: an entry of it ("-m, --max-time
    <seconds>" over its description), so a sentence of the description knows the option it is about.
    """
    line = lines[i].rstrip()
    stripped = line.strip()
    if not stripped or len(stripped) > 60 or len(stripped.split()) > 8 or stripped[-1] in ".,;:!?":
        return False
    indent = len(line) - len(line.lstrip())
    if not re.match(r"[^\W\d_]" if indent == 0 else r"[^\W_]|-", stripped):
        return False
    following = [x for x in lines[i + 1:i + 3] if x.strip()][:1]
    if not following:
        return False
    deeper = len(following[0]) - len(following[0].lstrip())
    return deeper > indent and (indent > 0 or bool(re.match(r"(?: {2,}|\t)\S", following[0])))


def split_lines(text: str) -> list[str]:
    """A text's lines, whatever its line ends."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
