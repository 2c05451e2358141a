"""Read candidates off a pool of lines: the roles of the question's action, and spans of the kind asked for.

The pool is the facts' and the graph's lines first (the actions the plan found), then the ranked lines of retrieval;
a line that introduces the next one (it ends with ":", stops mid-sentence, or is a short title) brings that line, which
reads with its words, and a "why" question brings the sentence that gives the line's reason. Each line gives:
- *roles*: where an action of the line has the question's verb, the span in the role asked for
  (a who-question's doer, a where-question's place), proved when every argument the question
  names stands in a role of the same action and the line proves it as it proves any span;
- *typed spans*: numbers, dates, names, code… of the kind asked for, or the description under the
  entry asked about ("-q, --quiet" over "Print nothing but errors."), weighed by ``evidence.weigh``.
A time proves "when", and a reason "why", only where it hangs from the question's action in the
parse (``occasion.hangs_elsewhere``): "said on Monday that she left in March" dates the saying by Monday.
Two proved spans of one line the question's words do not tell apart prove neither (``pointed``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.antecedents import pronoun_doers
from karaka.answering.candidate import GRAPH, LINES, Candidate
from karaka.answering.clauses import other_clause
from karaka.answering.defaults import called_default
from karaka.answering.entries import entry_key, keyed_entry
from karaka.answering.evidence import ASKS, OWN_WORDS, SHAPED, weigh
from karaka.answering.explains import described, instruction_for
from karaka.answering.identity import given_name, owned
from karaka.answering.languages import denies
from karaka.answering.line import Line, entry_of, keyword_of, line_words
from karaka.answering.naming import focus_near, named_so, nominal_doer, numbered, titled
from karaka.answering.narrator import narrated, narrators
from karaka.answering.occasion import action_around, hangs_elsewhere, holds_action
from karaka.answering.own import in_question
from karaka.answering.pointed import fewer_words, one_per_line
from karaka.answering.polar import polar_candidates
from karaka.answering.pooling import list_intro, referred_line
from karaka.answering.question import Asked, code_tokens
from karaka.answering.roles import role_candidates
from karaka.answering.shapes import called, called_otherwise, code_shape, fits_shape
from karaka.answering.span import Span, span_tokens
from karaka.answering.spans import NUMBER_WORDS, spans
from karaka.answering.stems import key, same
from karaka.kg.fact_text import titles
from karaka.kg.units import parser_reads
from karaka.store.base import Store
from karaka.store.ids import document_node
from karaka.words import WORD

TYPED = (k.QUANTITY, k.VERSION, k.CODE, k.VALUE)
"""Kinds a span's own shape tells: their answers are read as spans, an action's role only supports them."""
def _around(store: Store, attrs: dict[str, Any]) -> tuple[str, str, str]:
    """The sentences just before and just after a line, in its document, and the node of the one before."""
    if "seq" not in attrs:
        return "", "", ""
    seq = int(attrs["seq"])
    near = {s.seq: s for s in store.records.lines(str(attrs["doc_id"]), max(1, seq - 1), seq + 1)}
    before, after = near.get(seq - 1), near.get(seq + 1)
    return before.text if before else "", after.text if after else "", \
        document_node(str(attrs["doc_id"]), before.line, before.sentence) if before else ""


FRONT_LINES = 8
"""The most lines a title page holds under its title (a version, authors, a date)."""


def _title_page(store: Store, doc_id: str) -> int:
    """The last line of a document's title page: the short lines that are no sentences from its first on.

    In a PDF or plain text with no sections, they follow the title ("Version 1.4", "Lena Varga").
    """
    end = 0
    for s in store.records.lines(doc_id, 1, FRONT_LINES):
        if len(s.text.split()) > 8 or s.text.rstrip().endswith("."):
            break
        end = s.seq
    return end


def document_name(doc_id: str) -> str:
    """A document's name as words, a version's dots kept: "MPL-1.1" is "MPL 1.1", "chage.de.1" "chage de 1"."""
    return re.sub(r"[_\s-]+|\.(?!\d)|(?<!\d)\.", " ", doc_id)


def read_lines(store: Store, entries: list[tuple[str, int, str]], asked: Asked) -> list[Line]:
    """Each pool line with its parse (English prose only) and its words, with its surroundings'."""
    from karaka.nlp import parse_many

    attrs = [store.graph.node(node) or {} for node, _, _ in entries]
    texts = [str(a.get("text", "")) for a in attrs]
    readable = [t if parser_reads(str(a.get("kind", "")), str(a.get("lang", ""))) else "" for t, a in
                zip(texts, attrs, strict=True)]
    docs = parse_many(readable)
    by_node = {node: i for i, (node, _, _) in enumerate(entries)}
    title_names, title_docs = titles(store)
    title_of = {doc: title_names[norm] for norm, ids in title_docs.items() for doc in ids}
    pages: dict[str, int] = {}  # each document's title page, read once
    told = narrators(store)
    lines = []
    for i, ((node, rank, intro), a, text) in enumerate(zip(entries, attrs, texts, strict=True)):
        doc_id = str(a.get("doc_id", ""))
        name = document_name(doc_id)
        context = f"{a.get('section', '')} {title_of.get(doc_id, '')} {name}"  # "Git 2.28 Release Notes" holds 2.28
        doc = docs[i] if readable[i] else None
        before = texts[by_node[intro]] if intro and intro in by_node else entry_of(str(a.get("section") or "")) \
            or list_intro(store, a) or referred_line(store, a, doc, asked)
        section, seq = str(a.get("section") or "").strip(), int(a.get("seq") or 0)
        if not section and 1 < seq <= FRONT_LINES and doc_id not in pages:
            pages[doc_id] = _title_page(store, doc_id)
        if title_of.get(doc_id) and title_of[doc_id] not in before and (
                section == title_of[doc_id].strip() if section else 1 < seq <= pages.get(doc_id, 0)):
            before = f"{before} {title_of[doc_id]}".strip()  # under the title, before any part: the document's
            # ("Published 14 March 2022."), whatever line of the title page it goes on from ("Version 1.4")
        previous, following, previous_node = _around(store, a)
        heading = str(a.get("section") or "").split(" › ")[-1]
        words = line_words(text, doc, context, previous, following, before, heading, f"{title_of.get(doc_id, '')} {name}")
        if doc_id in told and narrated(text):
            words.narrator = told[doc_id][0]
        words.doers = pronoun_doers(store, node)
        intro = intro or (previous_node if words.entry_above or previous.strip() == heading.strip() and entry_of(heading)
                          else "")  # the entry a description is under, or the heading it stands right after
        lines.append(Line(node, text, doc, words, rank, intro, str(a.get("kind") or ""), heading))
    return lines


def read(store: Store, asked: Asked, step: dict[str, Any] | None, lines: list[Line],
         rarity: Callable[[str], float] | None = None) -> list[Candidate]:
    """Every candidate the lines give, best first, one per distinct span (with how many lines agree)."""
    found: list[Candidate] = []
    for line in lines:
        if asked.kind == k.POLAR:
            found += polar_candidates(store, asked, step, line, rarity)
            continue
        roles = list(role_candidates(store, asked, step, line, rarity))
        if asked.kind not in TYPED:
            found += roles
        keys = entry_key(asked, line.text, line.words, line.doc)
        found_spans = [s for s in spans(asked, line.text, line.doc) + numbered(asked, line.text) + _code_line(asked, line)
                       + _heading_values(asked, line) + keys + described(asked, line.text, line.words.intro_text, line.doc)
                       if (line.kind != "code" or s.kind in SHAPED)  # code names no one
                       and not any(s.start == e.start and s.end > e.end for e in keys)]  # "1 permission" of "1 permission denied"
        by_title = titled(asked.focus, line.doc) if asked.kind == k.NAME and asked.focus and line.doc is not None else []
        named_as = [asked.kind == k.TERM and bool(asked.focus) and (focus_near(asked, span, line.words, line.doc)
                                                                     or given_name(asked, span, line.words, line.doc)
                                                                     or keyed_entry(asked, span, line.words)
                                                                     or _listed_as(asked, span, line))
                    or (span.text, span.start) in by_title  # "squid runs as user proxy": proxy is called a user
                    or asked.kind == k.NAME and named_so(asked, span, line.doc)
                    for span in found_spans]
        typed = [Candidate(span.text, span.kind, line.node, LINES,
                           weigh(asked, span, line.words, line.doc, verb_soft=said and not _named_by_focus(asked, span),
                                 rarity=rarity), rank=line.rank,
                           also=[line.intro] if line.intro else []) for span, said in zip(found_spans, named_as,
                                                                                           strict=True)]
        by_focus = [s for s in found_spans if asked.kind == k.CODE and asked.focus and s.kind == k.CODE
                    and s.start >= 0 and called(asked, line.text, s.start, s.end)  # "a variable named X"
                    and not in_question(asked, s)]  # "The `console.info()` function is an alias": the one asked of
        called_so = {s.text for s in by_focus}
        headed = code_tokens(line.section)  # the code its innermost heading names ("-u, --unlock")
        entry = code_tokens(entry_of(line.section)) if asked.kind == k.CODE and not any(  # the entry asked of
            _callee(t.key) in {_callee(e.lower()) for e in headed} for t in asked.terms) else []
        for span, c, said in zip(found_spans, typed, named_as, strict=True):
            if by_focus and span.text not in called_so and c.proved and not any(
                    span.start <= s.start and s.end <= span.end for s in by_focus):
                # "the corepack pack command" calls "pack" a command, and "corepack pack" is its whole name
                c.evidence.why_not = f"the line calls {by_focus[0].text!r} the {asked.focus_text}"
            elif asked.kind == k.CODE and span.start >= 0 and c.proved and (
                    kind_noun := called_otherwise(asked, line.text, span.start, span.end)):
                c.evidence.why_not = f"the line calls {span.text!r} a {kind_noun}, not a {asked.focus_text}"
            elif entry and _callee(span.text) not in {_callee(e) for e in entry} and c.proved and \
                    code_shape(span.text) == code_shape(entry[0]):  # `path.basename` is the entry `path.basename(path)`
                c.evidence.why_not = f"the line describes {', '.join(entry)}; it names {span.text} in passing"
            if span.start < 0 and line.intro and (line.words.entry_above and span.text in line.words.intro_text
                                                  or span.text in headed):
                c.node, c.also = line.intro, [line.node]  # the entry above writes it: cited there, with the description
            in_role = [r for r in roles if r.proved and _overlap(line.text, r.text, span)]
            if asked.kind == k.TERM and asked.focus and not said:
                c.evidence.why_not = c.evidence.why_not or f"the line does not say it is a {asked.focus_text}"
                c.evidence.typed = False  # not even a candidate of the kind asked for
            elif _bare_number(asked, span, line):
                c.evidence.why_not = c.evidence.why_not or \
                    f"a bare number the line does not say is the {asked.focus_text or asked.counted}"
                c.evidence.typed = False
            if not c.proved:
                continue
            if (apart := other_clause(asked, span, line.words, line.doc)):
                c.evidence.why_not = apart  # "-Q tells it to print, and -W tells it where to write"
            elif asked.lang != "en" and denies(asked.text) and not denies(f"{line.text} {line.words.intro_text}"):
                c.evidence.why_not = "the question asks what is not done; the line denies nothing"  # a parse reads
                # English only: "Was kann … nicht zerteilt werden?" is not answered by what "Zerteilen" does
            elif in_role and asked.kind not in TYPED:
                _union(line.text, in_role[0], span)  # "on May 3rd" and "May 3rd, 1921": the role says both
                c.evidence.why_not = f"part of the {in_role[0].evidence.notes[0]}, which answers"
            elif in_role:
                c.evidence.notes.append(f"in the {in_role[0].evidence.notes[0]}")
            elif said:
                c.evidence.notes.append(f"called a {asked.focus_text}")  # the line says what it is: no action needed
            elif asked.kind in (k.DATE, k.REASON) and action_around(asked, line):
                c.evidence.why_not = "the sentences around the line say the question's action, the line does not"
            elif asked.kind in (k.DATE, k.REASON) and holds_action(span, line, asked):
                c.evidence.why_not = "it holds the question's action, so it is not that action's time or reason"
            elif asked.kind in (k.DATE, k.REASON) and (elsewhere := hangs_elsewhere(asked, span, line)):
                c.evidence.why_not = f"it tells {'when' if asked.kind == k.DATE else 'why'} {elsewhere!r} was, " \
                                     "not the question's action"
            elif instruction_for(asked, span, line.doc):
                c.evidence.notes.append("the instruction given for the question's action")
            elif _needs_action(asked) and line.kind == "heading":
                c.evidence.why_not = "a heading names a part of the text, it tells no action"
            elif _needs_action(asked) and not line.words.verbless and span.kind != k.CODE and not owned(asked) \
                    and not nominal_doer(asked, span, line.doc):
                c.evidence.why_not = "no action of the question's verb in the line holds it"
            elif (_needs_action(asked) and asked.kind != k.NAME and (span.kind != k.CODE or asked.kind == k.MANNER)
                  or asked.kind == k.CODE and asked.shape == "command" and asked.verb) and not owned(asked) and not any(
                    line.words.find(v) or line.words.in_intro(v) or line.words.in_context(v) for t in asked.terms
                    if t.role == "verb" for v in (t, replace(t, key=key(t.text[:-1])))):  # "piped": "pip" or "pipe";
                # "• fi= [Zorbit]" beside "… is simulated …" says no simulating (names under a title: ``evidence``);
                # a command answers "how …?", "which command …?" where it or its introduction says the action
                c.evidence.why_not = "the line names no action of the question's verb"
            elif (other := next((r for r in roles if r.proved and (spans(asked, r.text, None) or asked.kind not in TYPED)),
                                None)) is not None:  # "Upon first use, X downloads the latest version": not "Node.js"
                c.evidence.why_not = f"the action's own {other.evidence.notes[0]} is {other.text!r}"
        found += typed
        one_per_line(asked, line, [(s, c) for s, c in zip(found_spans, typed, strict=True) if c.proved])
    for c in [c for c in found if c.proved]:  # "a sling and a smooth stone" answers "what did she take?", not one item
        whole = [d.text for d in found if d is not c and d.proved and d.node == c.node and _one_of(d.text, c.text)]
        c.evidence.why_not = f"one of {whole[0]!r}, which answers" if whole else c.evidence.why_not
    fewer_words(asked, lines, found)
    found = [c for c in found if c.evidence.why_not not in (OWN_WORDS, ASKS) and any(ch.isalnum() for ch in c.text)]
    # never an answer: the question's own words, what a line asks, or a mark that says nothing ("-")
    for c in found:
        c.score = score(c)
    merged: dict[str, Candidate] = {}
    for c in sorted(found, key=lambda c: (-c.proved, -c.score)):
        name = " ".join(WORD.findall(c.text.lower())) or c.text.lower()
        if name in merged:
            merged[name].agree += 1
        else:
            merged[name] = c
    return sorted(merged.values(), key=lambda c: (-c.proved, -(c.score + 0.03 * min(c.agree - 1, 3))))


def _one_of(whole: str, part: str) -> bool:
    """Whether ``part`` is one item of the list ``whole`` ("a smooth stone" of "a sling and a smooth stone")."""
    at = whole.find(part)
    rest = (whole[:at] + " " + whole[at + len(part):]) if at >= 0 and whole != part else ""
    return bool(rest) and re.search(r"(?:^|\s)(?:and|or)\s|,", rest) is not None


def span_in(text: str, line: Line, kind: str) -> Span | None:
    """``text`` where the line says it (case aside), as a span of ``kind``; None when the line does not hold it."""
    found = re.search(re.escape(text.strip()), line.text, re.IGNORECASE) if text.strip() else None
    if found is None:
        return None  # (lower() can change a text's length, so its positions are not the line's)
    return Span(found.group(0), kind, found.start(), found.end(), *span_tokens(line.doc, found.start(), found.end()))


def unnamed_amount(asked: Asked, span: Span, line: Line) -> str:
    """Why a bare number read from the line is not the amount asked for ("" when it may be).

    "What bit rate …?" is not answered by the "8" of a line that never names a rate ("quality
    from 0 to 10, default is 8"). Looser than the reader's own test (``focus_near``: the line
    calls the number one): a model reads how the line relates them ("the snapshot number is
    bumped to 900"); the line must at least name the thing asked about.
    """
    noun = asked.counted or asked.focus
    if not _bare_number(asked, span, line) or any(same(noun, w) for w in line.words.at):
        return ""
    return f"the line never speaks of the {asked.focus_text or noun} asked about"


def _bare_number(asked: Asked, span: Span, line: Line) -> bool:
    """A number with no unit, where the question asks for an amount of something the line does not name by it.

    "What bit rate …?" is not answered by the "10" of "a scale (0-10)"; "How many beds …?" is by
    "24 beds", or by "24" right after "beds".
    """
    bare = re.sub(rf"\b(?:or|to|and|{NUMBER_WORDS})\b", " ", span.text, flags=re.IGNORECASE)  # "eight" is bare too
    if asked.kind != k.QUANTITY or span.kind != k.QUANTITY or re.search(r"[^\d\s.,–<>~≤≥-]", bare):
        return False
    noun = asked.counted or asked.focus
    if not noun:
        return False
    if asked.default and called_default(span, line.text) and any(same(noun, w) for w in [*line.words.at,
                                                                                          *line.words.intro]):
        return False  # "the --depth option …; the default is 3": the line's default, of the thing it names
    if line.kind == "table" and any(same(noun, w) for w in line.words.at):
        return False  # a row is one record: "Maximum number of hosts | 50" gives the hosts' number
    from dataclasses import replace

    return not focus_near(replace(asked, focus=noun), span, line.words, line.doc)


SECTION_NUMBER = re.compile(r"(?:^|(?<= › ))\s*(?:\d+(?:\.\d+)*\.|\d+(?:\.\d+)?)\s+(?=[^\W\d])")
"""The number a heading opens with, before its title ("2.1. Removal of …", "3.2 Invoking frob"); a release
of three parts ("1.4.2 Fixes") is not taken for one."""


def _callee(code: str) -> str:
    """A call's name without its arguments: "console.info" of "console.info([data])" and of "console.info()"."""
    return code.split("(")[0]


_PARAMETER = re.compile(r"\s*(?:[*•-]\s*)?`[\w.$]+(?:\s+<[^>`]+>`|`\s*(?:\{[^}]*\}|<[^>]*>))")
"""A parameter's line in an API reference: "`fd <number>` A file …", "* `cup` {Cup} The cup to fill"."""


def _heading_values(asked: Asked, line: Line) -> list[Span]:
    """A date, version or piece of code the line's innermost heading gives it.

    A changelog's entry is dated by its heading; a manual page's description is of the entry it
    stands under ("-c, --create" over "creates a new archive", "TAR_VERSION" over "the version of tar").
    """
    if asked.kind == k.CODE and _PARAMETER.match(line.text):
        return []  # "`fd <number>` A file descriptor …" under `tty.isatty(fd)` says what the parameter is, not the call
    sources = [SECTION_NUMBER.sub("", line.section)] if line.section else []  # "3.2 Invoking frob": no release
    if asked.kind == k.CODE and line.words.entry_above:  # "--fnname=<name> [default: main]" over its description
        sources.append(line.words.intro_text)
    if asked.kind not in (k.DATE, k.VERSION, k.CODE):
        return []
    keyword = keyword_of(line.section) if asked.kind == k.CODE else ""  # "roughness" over "Reduces the amplitude …"
    keyword = keyword if fits_shape(asked.shape, code_shape(keyword), keyword) else ""
    return [Span(s.text, s.kind, -1, -1) for source in sources for s in spans(asked, source, None) if s.kind == asked.kind
            ] + ([Span(keyword, k.CODE, -1, -1)] if keyword and not spans(asked, keyword, None) else [])


def _listed_as(asked: Asked, span: Span, line: Line) -> bool:
    """Whether the span is a whole item of a list its introducing line calls things of the focus's kind.

    "The following tags cause a paragraph break:" over "h1": h1 is such a tag.
    """
    intro = line.words.intro_text.rstrip()
    return intro.endswith(":") and span.text.strip() == line.text.strip() and any(
        same(key(w), asked.focus) for w in WORD.findall(intro))


def _code_line(asked: Asked, line: Line) -> list[Span]:
    """For "how do you …": a code line as a whole (the command a line such as "To install it, run:" brings)."""
    if asked.kind != k.MANNER or line.kind != "code" or not line.intro or len(line.text) > 200:
        return []
    return [Span(line.text.strip(), k.CODE, 0, len(line.text.strip()))]


def _union(text: str, role: Candidate, span: Span) -> None:
    """Widen a role candidate to take in a span it overlaps in the line."""
    at = text.find(role.text)
    if at < 0 or span.start < 0:
        return
    start, end = min(at, span.start), max(at + len(role.text), span.end)
    role.text = text[start:end]


def _overlap(text: str, role: str, span: Span) -> bool:
    """Whether a span and a role span share characters of the line."""
    at = text.find(role)
    if at < 0:
        return span.text.lower() in role.lower()
    return at < span.end and span.start < at + len(role)


def _named_by_focus(asked: Asked, span: Span) -> bool:
    """A span whose last word is the noun asked about ("the bridge fare" for "what fare …?").

    The line calls it by the word and no more: it need not be what the question's action did.
    """
    own = WORD.findall(span.text)
    return bool(own) and same(key(own[-1]), asked.focus)


def _needs_action(asked: Asked) -> bool:
    """A who, what, where or how question with an action is answered by a role of that action, not the nearest phrase.

    Dates and reasons have shapes of their own: the line's words prove them, unless the action of
    the question's verb holds another of the kind.
    """
    return bool(asked.verb) and asked.kind in (k.NAME, k.TERM, k.PLACE, k.MANNER) and not asked.defines \
        and not (k.CALLED.search(asked.text) and asked.kind != k.MANNER)  # "what is the person associating X
    # called?": a name, no action's role ("how are the crates named?" asks how the naming is done)
    # "what does quill do when the disk is full?": what quill does, not a role of "full"


def score(c: Candidate) -> float:
    """How good a candidate looks: the line's cover of the question, nearness, the line's rank, a proof."""
    e = c.evidence
    in_role = any(n.startswith("in the ") for n in e.notes)
    return round(0.45 * e.cover + 0.2 * e.near + 0.15 / (1 + c.rank / 3) + 0.1 * e.typed + 0.1 * e.proved
                 + (0.05 if (c.source == GRAPH or in_role) and e.proved else 0.0), 4)


