"""The option entries of lines that carry no structure of their own (a PDF's, a scan's).

A PDF gives lines, not a definition list, so a sentence of a manual did not know the option it
is about. An option's signature says what its line is without its font or indent:
"--leak-resolution=<low|med|high> [default: high]" or "-c --stdout", a line that opens with a
flag and says no sentence, or a function's ("setTimeout(callback[, delay])") alone on its line.
Each line after such an entry, up to the next one or an environment variable's line
(``ENTRY_LINES`` at most), is that entry's description, as a manual page's indented body is
(``text``): "When med, four entries have to match." is said of --leak-resolution.

Numbered headings ("4.2.1. Illegal frees") read the same way as sections were tried and left out:
the blind set lost two right answers and gained three wrong ones, the sets here did not move.
"""

from __future__ import annotations

import re

from karaka.loading.sentences import Raw
from karaka.words import VARIABLE_NAME

FLAG = re.compile(r"--?[A-Za-z][\w-]*")
VARIABLE = re.compile(VARIABLE_NAME + r"(?:=\S*)?")
"""An environment variable alone on its line with its value's form ("FROBZ_LEVEL=<n>"): no option's description.

Read as an entry of its own it gave the blind set one more wrong answer; the line after it goes on from it anyway
(``line.entry_above``)."""
ENTRY_LINES = 12
"""The most lines an entry's description runs to before the text is no longer about it."""
MOST_WORDS = 10
"""An entry is short."""


def outline(lines: list[Raw]) -> list[Raw]:
    """The lines with the option entry each stands under as its section (lines that have a section keep it)."""
    out: list[Raw] = []
    entry, since = "", 0
    for raw in lines:
        text = raw.text.strip()
        bare = text.replace("`", "")  # a PDF quotes what it sets in a fixed-pitch font
        if text and entry_line(bare):
            entry, since = bare, 0
        elif VARIABLE.fullmatch(text):
            entry = ""  # another entry's kind ("FROBZ_LEVEL=<n>"): the option's description has ended
        elif text and entry:
            since += 1
            entry = entry if since <= ENTRY_LINES else ""
        out.append(raw._replace(section=entry) if text and entry and not raw.section else raw)
    return out


SIGNATURE = re.compile(r"(?:new\s+)?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\[[\w.]+\])?\([^()]*\)")
"""A function's signature alone on its line, as an API reference heads an entry: "path.basename(path[, suffix])",
"new Console(options)", "timeout[Symbol.dispose]()"."""


def entry_line(text: str) -> bool:
    """An option's signature: it opens with a flag and has no run of three plain words, nor a full stop at its end.

    A function's signature alone on its line is an entry too: a page printed from an API reference
    keeps its headings only as lines.
    """
    if len(text.split()) > MOST_WORDS:
        return False
    if SIGNATURE.fullmatch(text):
        return not re.search(r"\(\d\w*\)$", text)  # a manual page's name, "printf(3)", is no function's entry
    if not FLAG.match(text) or text.endswith("."):
        return False
    plain = 0
    for word in text.split():
        plain = plain + 1 if re.fullmatch(r"[a-z]+", word) else 0
        if plain >= 3:
            return False  # "--quiet makes it silent": a sentence that opens with its flag
    return True
