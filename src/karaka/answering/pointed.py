"""Which of a line's proved spans the question's words point to, when a line gives two of a kind.

Across lines too: where two lines prove two answers and one holds more of the question, it stands.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from karaka.answering import kinds as k
from karaka.answering.candidate import Candidate
from karaka.answering.line import Line
from karaka.answering.question import Asked
from karaka.answering.span import Span
from karaka.answering.stems import key


def one_per_line(asked: Asked, line: Line, proved: list[tuple[Span, Candidate]]) -> None:
    """Of a line's proved spans, the one the question's words point to; none when they point to two alike.

    A span inside a longer one (a name inside the list of names) gives way to it, and an option and
    its long form side by side ("-u, --unlock") are one answer. Then each of the
    question's words in the line votes for the span it speaks of (``_owner``); the span with most
    votes stays proved, the others are not, and a tie proves none: "in the first mode (8 bits), the
    size is 30 ms, while in the second (16 bits), the size is 34 ms" answers a question about the
    second mode with 34 ms, because "second" and "16" speak of it. The question's action votes more
    than its nouns: "Create a site with `new`, then run `serve` to preview it" answers "Which command
    previews the site?" with `serve`; the adjective of "how old", "how long" votes too ("forty years old
    and had sailed for twenty years": forty).
    """
    by_text: dict[str, tuple[Span, Candidate]] = {}
    for span, c in proved:
        by_text.setdefault(c.text.lower(), (span, c))
    if len(by_text) < 2:
        return
    outer = []
    for text, (span, c) in by_text.items():
        container = next((o for o, (s, _) in by_text.items() if o != text and _inside(span, s, text, o)), None)
        restated = next((o for o, (s, _) in by_text.items() if o != text and _restates(line.text, s, span)), None)
        if container is not None:
            c.evidence.why_not = f"part of {by_text[container][1].text!r}"
        elif restated is not None:  # "10485760 (10 MiB)": the same value said again in brackets
            c.evidence.why_not = f"{by_text[restated][1].text!r} said again"
        else:
            outer.append((span, c))
    for (_, a), (_, b) in [(x, y) for i, x in enumerate(outer) for y in outer[i + 1:]]:
        if not a.evidence.why_not and not b.evidence.why_not and (
                either := _aliases(f"{line.words.heading} {line.text}", a.text, b.text)):
            a.text, b.evidence.why_not = either, f"one of {either!r}, which answers"  # "-d, --delete": one option
    outer = [(s, c) for s, c in outer if not c.evidence.why_not]
    if asked.kind == k.PLACE and len(outer) > 1:
        outer = _named_places(line, outer)
    if len(outer) < 2:
        return
    votes = {id(c): 0.0 for _, c in outer}
    cuts = _segments(line)
    for term in asked.terms:
        for place in line.words.find(term):
            chosen = _owner(line, cuts, [span for span, _ in outer], place)
            if chosen is not None:
                votes[id(outer[chosen][1])] += 1.5 if term.role == "verb" else 1.0 if term.hard else 0.4
    degree = re.match(r"\s*how\s+(\w+)", asked.text, re.IGNORECASE)
    if degree and degree.group(1).lower() in k.DEGREE_AFTER_HOW - {"many", "much"}:
        for place in line.words.at.get(key(degree.group(1)), []):  # "forty years old" for "how old": "old" says it
            chosen = _owner(line, cuts, [span for span, _ in outer], place)
            if chosen is not None:
                votes[id(outer[chosen][1])] += 1.0
    ranked = sorted(outer, key=lambda pair: -votes[id(pair[1])])
    top, second = votes[id(ranked[0][1])], votes[id(ranked[1][1])]
    if top == second and (len(ranked) == 2 or votes[id(ranked[2][1])] < second) and (
            either := _alternatives(line.text, ranked[0][0], ranked[1][0])):
        ranked[0][1].text, ranked[1][1].evidence.why_not = either, f"one of {either!r}, which answers"
        return  # "`make lint`/`vcbuild lint`": one answer, written two ways
    for _, c in ranked:
        if top == second:
            c.evidence.why_not = f"the line gives {ranked[0][1].text!r} and {ranked[1][1].text!r} alike"
        elif c is not ranked[0][1]:
            c.evidence.why_not = f"the question's words point to {ranked[0][1].text!r}"


def _named_places(line: Line, outer: list[tuple[Span, Candidate]]) -> list[tuple[Span, Candidate]]:
    """Where a line places something at a named place, a phrase of common nouns in it is no answer to "where".

    "She stayed with the Ortons at Fernleigh, in the pursuit of solitary walks": Fernleigh is where;
    "in the pursuit" says how she spent her time there. A line that names no place keeps its phrases
    ("in the home directory").
    """
    doc = line.doc
    if doc is None:
        return outer
    named = [(s, c) for s, c in outer if s.first >= 0 and any(
        t.pos_ == "PROPN" or t.ent_type_ in ("GPE", "LOC", "FAC") for t in doc[s.first:s.last + 1])]
    if not named or len(named) == len(outer):
        return outer
    for s, c in outer:
        if (s, c) not in named and s.kind == k.PLACE:
            c.evidence.why_not = f"the line places it at {named[0][1].text!r}, a named place"
    return [(s, c) for s, c in outer if not c.evidence.why_not]


def _alternatives(text: str, a: Span, b: Span) -> str:
    """Two spans written as one choice, side by side: "`make lint`/`vcbuild lint`", "-q or --quiet"; else ""."""
    first, last = sorted((a, b), key=lambda s: s.start)
    if first.start < 0 or not re.fullmatch(r"[`'\"]?\s*(?:/|or)\s*[`'\"]?", text[first.end:last.start]):
        return ""
    return re.sub(r"[`'\"]", "", text[first.start:last.end])


def _aliases(heading: str, a: str, b: str) -> str:
    """A short option and its long form side by side in the entry over the line or in it ("-u, --unlock"); else "".

    Each may show the value it takes: "-I<dir> --include=<dir>", "-o FILE, --output=FILE".
    """
    short, long = sorted((a, b), key=len)
    if not (re.fullmatch(r"-\w", short) and re.fullmatch(r"--\w[\w-]*(?:=\S+)?", long)):
        return ""
    value = r"(?:\s?<[^>\s]+>|\s[A-Z]+)?"
    return f"{short}, {long}" if re.search(
        rf"(?<!\S){re.escape(short)}{value}(?:,\s*|\s+){re.escape(long)}(?![\w-])", heading) else ""


def _inside(inner: Span, outer: Span, inner_text: str, outer_text: str) -> bool:
    """Whether a span stands within another: where both are placed, by place ("aplay" is no part of "paplay")."""
    if inner.start >= 0 and outer.start >= 0:
        return outer.start <= inner.start and inner.end <= outer.end and inner.end - inner.start < outer.end - outer.start
    return re.search(rf"(?<![\w-]){re.escape(inner_text)}(?![\w-])", outer_text) is not None


def _restates(text: str, first: Span, second: Span) -> bool:
    """Whether ``second`` stands in brackets right after ``first``: the same value in another unit or form."""
    return first.end >= 0 and second.start >= first.end and re.fullmatch(
        r"\s*\(\s*", text[first.end:second.start]) is not None and text[second.end:second.end + 1] == ")"


def _segments(line: Line) -> list[int]:
    """Where the line's parts start (in its own places: tokens when parsed), cut at commas and semicolons."""
    if line.doc is not None:
        return [0] + [t.i + 1 for t in line.doc if t.text in (",", ";")]
    return [0] + [m.end() for m in re.finditer(r"[,;]", line.text)]


def _owner(line: Line, cuts: list[int], spans_: list[Span], place: int) -> int | None:
    """Which span a word of the question speaks of (None when two stand alike).

    The nearest in its own part of the line, else the first in the parts after it (a part with
    no value, "while on the coastal route,", modifies the clause that follows), else the nearest
    before it.
    """
    at = [s.first if line.doc is not None else s.start for s in spans_]
    part = bisect_right(cuts, place) - 1
    parts = [bisect_right(cuts, a) - 1 for a in at]
    same_part = [i for i, p in enumerate(parts) if p == part]
    if same_part:
        far = [abs(at[i] - place) for i in same_part]
        return same_part[far.index(min(far))] if far.count(min(far)) == 1 else None
    later = [i for i, p in enumerate(parts) if p > part]
    if later:
        first = min(parts[i] for i in later)
        here = [i for i in later if parts[i] == first]
        return here[0] if len(here) == 1 else None
    earlier = [i for i, p in enumerate(parts) if p < part]
    last = max((parts[i] for i in earlier), default=None)
    here = [i for i in earlier if parts[i] == last]
    return here[0] if len(here) == 1 else None


def fewer_words(asked: Asked, lines: list[Line], found: list[Candidate]) -> None:
    """A proved answer whose line holds a strict part of the question's words another proved answer's line holds gives way.

    "/etc/gshadow sichere Informationen zu den Gruppenkonten" answers "which file holds secure
    information on group accounts?"; "/etc/group Informationen zu den Gruppenkonten" lacks "sichere".
    The document's own name distinguishes no line of it.
    """
    by_node = {line.node: line.words for line in lines}
    read_from = {id(c): next((n for n in (c.node, *c.also) if n in by_node), "") for c in found if c.proved}  # an
    # entry's description is cited at the entry
    held = {i: frozenset(t.key for t in asked.terms if not by_node[n].in_document(t)  # "pidof" in pidof's page
                         and (by_node[n].find(t) or by_node[n].in_intro(t))) for i, n in read_from.items() if n}
    proved = [c for c in found if id(c) in held]
    for c in proved:
        more = next((d for d in proved if d.node != c.node and d.text.lower() != c.text.lower()
                     and held[id(c)] < held[id(d)]), None)
        if more is not None:
            extra = ", ".join(sorted(held[id(more)] - held[id(c)]))
            c.evidence.why_not = f"the line of {more.text!r} holds more of the question ({extra})"
