"""Short answers without an LLM: the kind of answer asked for, spans of that kind, and "not found".

The question says what kind of answer it wants (a quantity for "how many", a date for "when", a
name for "who", a code-like token for "which option", a reason for "why"…). Candidate spans of
that kind are taken from the best lines (the graph's and retrieval's): spaCy's entities and noun
chunks, numbers with their unit, dates, versions, code spans; the graph's kāraka answer is one
candidate among them. Each is scored by how well its line covers the question's words, how close
it stands to them, the line's rank and how many lines agree. The confidence comes from the same
evidence; below ``THRESHOLD`` the answer is "not found" and the lines are offered as related.

Words the question must find (a version, a number, an identifier, a quoted phrase) are required:
a question about "python-dotenv 1.1.0" is not answered from a line about 1.0.0.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from karaka.kg.retrieval import index_key
from karaka.loading.sentences import NOT_EXTRACTED

QUANTITY, DATE, NAME, PLACE, REASON, MANNER, CODE, VERSION, TERM, VALUE = (
    "quantity", "date", "name", "place", "reason", "manner", "code", "version", "term", "value")
_FOREIGN_WH = frozenset("qui que quoi quel quelle quels quelles quand où comment pourquoi combien est il elle dans le la "
                        "les de des du un une et sur pour par wer was wann wo wie warum welche welcher welches der die "
                        "das ein eine und ist mit von".split())
THRESHOLD = 0.45
"""Confidence below which no answer is given: below it, 0 of the 20 answers given on the three dev sets were right."""

CALIBRATION = ((0.396, 0.0), (0.45, 0.07), (0.528, 0.19), (0.70, 0.31), (1.0, 0.70))
"""Raw confidence → how often an answer given with it was right: below each bound, that share.

Fitted by isotonic regression (pool-adjacent-violators) on the 408 answers of the three dev
sets (QA-SRL action 300, 2Wiki 100, docs 40) in parser mode; a raw 1.0 was right every time.
"""
REFUSAL_RIGHT = 0.1
"""How often a "not found" was right on the dev sets (1 of 32; their questions are nearly all answerable)."""
FACTS_RIGHT = 0.88
"""How often an answer read hop by hop off facts (a relational or comparison plan) was right on 2Wiki dev (67 of 76)."""
OTHER_DOCUMENT = 0.6
"""A line's support when the question names another document than its own."""
MIN_SUPPORT = 0.35
"""The share of the question's (weighted) words a line must hold to answer it without the graph."""
_WH = frozenset("what which who whom whose when where why how does do did is are was were can could should would "
                "will the a an of in on at to for by with and or from that this these those it its as be been "
                "has have had not no any all about there their they them he she his her him we our you your i "
                "me my use used using according".split())
_QUESTION_KINDS: list[tuple[re.Pattern[str], str]] = [
    # French and German question words first: they never read as English ones
    (re.compile(r"^\s*(combien|wie ?viele?)\b|\b(quel|quelle|quels|quelles) (taux|proportion|nombre|taille|"
                r"durée|pourcentage)\b|\bwie (lange|groß|hoch)\b"), QUANTITY),
    (re.compile(r"^\s*(quand|wann)\b|\ben quelle année\b|\bin welchem jahr\b"), DATE),
    (re.compile(r"^\s*(qui|wer|wem|wen)\b"), NAME),
    (re.compile(r"^\s*(pourquoi|warum|weshalb)\b"), REASON),
    (re.compile(r"^\s*(où|wo)\b"), PLACE),
    (re.compile(r"\b(quel|quelle|quels|quelles|welche[rsmn]?) (\w+ ){0,2}(option|commande|fichier|variable|rfc|"
                r"format|programme|datei|endung|befehl)\b|\bdans quel\b"), CODE),
    (re.compile(r"^\s*(comment|wie)\b"), MANNER),
    (re.compile(r"\bhow (many|much|long|old|far|big|large|fast|often|slow|slower|faster)\b|\b(what|which) "
                r"((is|are|was|were) )?(the )?(percentage|proportion|ratio|bit-?rate|rate|size|number|delay|"
                r"maximum|minimum|length|amount|count)\b|\bhow much (slower|faster|more|less)\b"), QUANTITY),
    (re.compile(r"^\s*when\b|\b(what|which|in what|on what) (year|date|day|month|time)\b|\bwhen (was|were|did|is)\b"),
     DATE),
    (re.compile(r"\b(what|which) (\w+ ){0,2}(version|release)\b"), VERSION),
    (re.compile(r"^\s*(who|whom|whose)\b|\b(which|what) (\w+ ){0,2}(author|person|people|developer|company|"
                r"organi[sz]ation|maintainer|team|group)\b|^\s*qui\b"), NAME),
    (re.compile(r"^\s*where\b|\b(what|which) (\w+ ){0,2}(place|country|city|location)\b"), PLACE),
    (re.compile(r"^\s*why\b|\bwhat (is|was) the (reason|purpose)\b|\bpourquoi\b"), REASON),
    (re.compile(r"\b(which|what) ([\w']+[ -]){0,4}(option|command|flag|variable|setting|parameter|keyword|argument|"
                r"attribute|file|path|function|method|handler|extension|format|directive|key|switch|macro|"
                r"field|name|error handler|program|tool|utility)\b"), CODE),
    (re.compile(r"\b(which|what) ([\w']+[ -]){0,4}(value|setting|default|limit)\b"), VALUE),
    (re.compile(r"^\s*how (do|does|did|can|could|should|to|is|are|would)\b"), MANNER),
]
_CODE = re.compile(r"`([^`]{1,80})`|(?<![\w/])(RFC ?\d+|--?[A-Za-z][\w-]*(?:=[^\s,;)]+)?|[A-Za-z_][\w.]*=[^\s,;)]+|"
                   r"[A-Z][A-Z0-9]*_[A-Z0-9_]+|(?:/[\w.+-]+){2,}/?|[A-Za-z_][\w.]*\(\)|[a-z]+[A-Z]\w+|"
                   r"[a-z][a-z0-9]*(?:[._][a-z0-9]+)+)(?![\w/])")
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\w.])")
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_MONTH = ("january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|"
          "jun|jul|aug|sep|sept|oct|nov|dec")
_WORD_DATE = re.compile(rf"\b(?:(?:{_MONTH})\.? \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}|\d{{1,2}}(?:st|nd|rd|th)? "
                        rf"(?:of )?(?:{_MONTH}),? \d{{4}}|(?:{_MONTH}) \d{{4}})\b", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\w.-])(1[5-9]\d\d|20\d\d)(?![\w.-])")
_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
                 "hundred|thousand|million|billion|half|dozen")
_QUANTITY = re.compile(rf"(?<![\w.])(?:\d+(?:,\d{{3}})*(?:\.\d+)?(?:[-–]\d+(?:\.\d+)?)?|(?:{_NUMBER_WORDS})(?:[ -](?:{_NUMBER_WORDS}))*)"
                       r"(?:\s?(?:%|per ?cent|[A-Za-z]{1,12}(?:/[A-Za-z]{1,4})?)(?: of magnitude)?)?(?![\w])",
                       re.IGNORECASE)
_REASON = re.compile(r"\b(?:because|since|so that|in order to|so as to|due to|as a result of|based on the assumption "
                     r"that|the reason is that|which means that|parce que|afin de|to (?:avoid|reduce|prevent|make|"
                     r"allow|break|ensure|keep|protect|save|improve|enable|help|simplify|limit|guarantee))\b[^.;]*",
                     re.IGNORECASE)
_GOES_ON = re.compile(r"^(?:(?:this|that|it) (?:is|was) (?:because|why|so|based|done)|thus|therefore|hence|because|"
                      r"the reason)\b", re.IGNORECASE)
"""A sentence that gives the reason for the one before it."""
_CUT = re.compile(r"(?:,|\b(?:the|a|an|of|to|in|on|at|by|for|with|from|and|or|as|is|are|see|sur|dans|de|du|des|"
                  r"la|le|les|par|et|ou|à|en|von|mit|und|oder|der|die|das|im|auf))$", re.IGNORECASE)
"""The end of a line cut mid-sentence (a comma, a preposition, an article): the next line goes on with it."""
_UNITS = frozenset("ms s sec seconds minutes hours days weeks months years year kb kbps bps bit bits byte bytes mb gb "
                   "khz hz percent % columns tables members developers lines pages times orders".split())


_MEASURES = frozenset("hz khz mhz ghz kb kbps bps bit bits byte bytes mb gb tb % percent per cent".split())
"""Units that measure something other than time: never the answer to "how long" or "how old"."""


def _wrong_unit(question: str, span: str) -> bool:
    """"How long is the delay?" is not answered by "8 kHz": a quantity whose unit measures something else."""
    if not re.search(r"\bhow (long|old|often)\b", question, re.IGNORECASE):
        return False
    unit = span.split()[-1].lower() if len(span.split()) > 1 else re.sub(r"^[\d.,-]+", "", span).lower()
    return unit in _MEASURES


@dataclass
class Candidate:
    """A span of one line that may answer, with its score."""

    text: str
    kind: str
    line: int
    """Its line's index in the pool."""
    at: int
    """Where it starts in the line."""
    score: float = 0.0
    agree: int = 1
    notes: list[str] = field(default_factory=list)


def expected_kind(question: str) -> str:
    """The kind of answer a question asks for (``TERM`` when nothing more specific is asked)."""
    q = " ".join(question.lower().split())
    for pattern, kind in _QUESTION_KINDS:
        if pattern.search(q):
            return kind
    return TERM


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            stem = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                stem = stem[:-1]  # mapping, mapped → map
            return stem
    return word


def words(text: str) -> list[str]:
    """Content words, lower-cased and crudely stemmed (the question's and a line's, alike)."""
    return [_stem(w) for w in re.findall(r"[^\W_]+", text.lower()) if w not in _WH and w not in _FOREIGN_WH
            and (len(w) > 1 or w.isdigit())]


def required(question: str) -> list[str]:
    """What a line must hold to answer: versions, numbers, identifiers and quoted phrases of the question."""
    found = [m.group(0).lower() for m in _VERSION.finditer(question)]
    found += [m.group(1) or m.group(2) for m in _CODE.finditer(question) if (m.group(1) or m.group(2))]
    found += re.findall(r"[\"“']([^\"”']{3,40})[\"”']", question)
    found += [n for n in re.findall(r"(?<![\w.])\d{2,}(?![\w.])", question)]
    return [f.lower().strip("`") for f in dict.fromkeys(found) if f.strip()]


_ASKED_NOUN = re.compile(r"\b(?:which|what|quel|quelle|quels|quelles|welche[rsmn]?)\s+([^\W\d_]{2,})\b",
                         re.IGNORECASE)


_ASKED_PHRASE = re.compile(r"^\s*(?:which|what)\s+((?:[\w'-]+\s+){0,3}?[\w'-]+)\s+(?:does|do|did|is|are|was|were|"
                           r"can|could|should|will|would|has|have|had|gets?|makes?|produces?)\b", re.IGNORECASE)


def asked_phrase(question: str) -> list[str]:
    """The words of the thing a "which/what X …" question asks for ("what output format does …" → output, format)."""
    match = _ASKED_PHRASE.search(question)
    return words(match.group(1)) if match else []


def asks_many(question: str) -> bool:
    """Whether several answers may be given: the thing asked for is plural, or there is no named thing at all."""
    if expected_kind(question) in (QUANTITY, VERSION):
        return False  # "how long is the delay in wideband?" asks for one value, not every value of its line
    match = _ASKED_PHRASE.search(question)
    if match is None or not words(match.group(1)):
        return True
    head = match.group(1).split()[-1].lower()
    return head.endswith("s") and not head.endswith("ss") or bool(re.search(r"\b(are|were|list)\b", question, re.I))


def numbered(question: str, kind: str, text: str, index: int) -> list[Candidate]:
    """"Which RFC …?" → "RFC 1952", also "RFC Internet 1952": the noun asked about, with its number."""
    asked = _ASKED_NOUN.search(question)
    if asked is None or kind not in (CODE, VERSION, VALUE, TERM):
        return []
    noun = re.escape(asked.group(1))
    found = re.finditer(rf"\b{noun}(?:\s+[^\W\d_]+)?\s+(v?\d[\w.-]*)", text, re.IGNORECASE)
    return [Candidate(m.group(0), kind, index, m.start(), notes=["numbered"]) for m in found]


_DOCUMENT_WORDS = frozenset(words("manual page readme guide documentation docs changelog reference handbook"))
"""Words a question uses for the document it names ("logrotate's manual page"), not for the answer's line."""


def named_lines(question: str, doc_ids: list[str], texts: list[str]) -> list[bool]:
    """Which lines are about a document the question names by the first word of its name.

    "logrotate's manual page" names logrotate.8: its lines, and other lines that say "logrotate",
    are about it. Where the question names no document, no line is.
    """
    asked = set(re.findall(r"[^\W\d_]+", question.lower()))
    firsts = [re.match(r"[^\W\d_]{3,}", d.lower()) for d in doc_ids]
    names = {m.group(0) for m in firsts if m and m.group(0) in asked}
    return [bool(names) and ((m is not None and m.group(0) in names)
                             or bool(names & set(re.findall(r"[^\W\d_]+", t.lower()))))
            for m, t in zip(firsts, texts, strict=True)]


_QUOTED = re.compile(r"(?<!\w)['\"‘“]([^'\"’”\n]{2,40})['\"’”](?!\w)")


def _squash(text: str) -> str:
    return " ".join(re.sub(r"[^\w.=/-]+", " ", text.lower()).split())


def candidates(kind: str, text: str, doc: Any, index: int) -> list[Candidate]:
    """The spans of ``text`` (parsed as ``doc``) of the kind asked for."""
    out: list[Candidate] = []

    def add(span: str, at: int, found: str) -> None:
        span = span.strip(" ,;:.()[]\"'")
        if span:
            out.append(Candidate(span, found, index, at))

    if kind in (CODE, MANNER, VERSION, TERM, VALUE):
        for m in _CODE.finditer(text):
            if (m.group(1) or m.group(2)).lower().rstrip(".") not in ("e.g", "i.e", "etc", "cf"):
                add(m.group(1) or m.group(2), m.start(), VALUE if kind == VALUE else CODE)
    if kind in (CODE, TERM, VALUE):  # a quoted name: a table row's key, a string value
        for m in _QUOTED.finditer(text):
            add(m.group(1), m.start(), CODE if kind == CODE else kind)
    if kind in (VERSION, CODE, VALUE):
        for m in _VERSION.finditer(text):
            add(m.group(0), m.start(), VALUE if kind == VALUE else VERSION)
    if kind == DATE:
        for pattern in (_ISO_DATE, _WORD_DATE):
            for m in pattern.finditer(text):
                add(m.group(0), m.start(), DATE)
        for ent in doc.ents:
            if ent.label_ == "DATE":
                add(ent.text, ent.start_char, DATE)
        if not out:
            for m in _YEAR.finditer(text):
                add(m.group(0), m.start(), DATE)
    if kind in (QUANTITY, VALUE):
        for m in _QUANTITY.finditer(text):
            span = m.group(0)
            parts = span.split()
            unit = parts[1].lower() if len(parts) > 1 and not span.lower().endswith("of magnitude") else ""
            if unit and unit not in _UNITS and not (unit.endswith("s") and len(unit) > 3 and unit not in _WH):
                span = parts[0]
            add(span, m.start(), kind)
    if kind in (NAME, PLACE, TERM):
        labels = {NAME: ("PERSON", "ORG", "NORP"), PLACE: ("GPE", "LOC", "FAC"), TERM: ("ORG", "PRODUCT", "WORK_OF_ART",
                                                                                       "LAW", "LANGUAGE", "EVENT")}
        for ent in doc.ents:
            if ent.label_ in labels[kind]:
                add(ent.text, ent.start_char, kind)
        if kind == NAME and not len(doc):  # a line the parser does not read: capitalised words in a row
            for m in re.finditer(r"\b[A-Z][\w'-]+(?: (?:[A-Z][\w'-]+|[A-Z]\.))+", text):
                add(m.group(0), m.start(), NAME)
        if kind == NAME:
            run: list[Any] = []
            for token in list(doc) + [None]:
                if token is not None and token.pos_ == "PROPN":
                    run.append(token)
                    continue
                if len(run) >= 2:
                    add(doc[run[0].i:run[-1].i + 1].text, run[0].idx, NAME)
                run = []
    if kind == REASON:
        for m in _REASON.finditer(text):
            add(m.group(0), m.start(), REASON)
    if kind == TERM and not out:  # a bare noun phrase tells no manner ("the keys")
        for chunk in doc.noun_chunks:
            if any(t.pos_ in ("NOUN", "PROPN") for t in chunk):
                add(chunk.text, chunk.start_char, TERM)
                out[-1].notes.append("chunk")
    return out


def _idf(word: str, lines: list[set[str]]) -> float:
    n = sum(1 for ws in lines if word in ws)
    return math.log(1 + len(lines) / (1 + n))


def choose(question: str, texts: list[str], docs: list[Any], graph_answers: dict[int, list[str]],
           corpus_has: Any = None, contexts: list[str] | None = None,
           follows: dict[int, int] | None = None,
           named: list[bool] | None = None, headings: list[str] | None = None,
           ) -> tuple[list[Candidate], list[float], float, str]:
    """Rank candidate answers from ``texts`` (the pool of lines, best first).

    ``contexts`` holds each line's headings and document name: words found there count for the
    line at three quarters of their weight. ``follows`` maps a line to the line before it that it goes on from (code
    after "run:", the line after a title): it is as good as that line, a little less.
    ``graph_answers`` maps a line's index to the spans the graph read off it (kāraka roles).
    ``corpus_has`` tells whether a required word occurs anywhere (None: not checked).
    ``named`` tells which lines come from a document the question names ("logrotate's manual"):
    when any does, the others count for less. ``headings`` holds each line's section alone: a
    span in a line whose heading says the question's words ("AUTHORS") is as near them as can be.
    Returns the candidates best first, each line's support, the confidence, and why.
    """
    kind = expected_kind(question)
    asked = words(question)
    need = required(question)
    if need and corpus_has is not None and not all(corpus_has(x) for x in need):
        return [], [0.0] * len(texts), 0.0, f"the documents never mention {', '.join(x for x in need if not corpus_has(x))}"
    pool_words = [set(words(t)) for t in texts]
    around = [set(words(c)) for c in contexts] if contexts else [set() for _ in texts]
    weights = {w: 1.0 + _idf(w, pool_words) for w in set(asked)}
    total = sum(weights.values()) or 1.0
    support = []
    for i, text in enumerate(texts):
        have = pool_words[i]
        if named and named[i]:  # "according to its manual page": the named document is that page
            around[i] = around[i] | _DOCUMENT_WORDS
        squashed = _squash(text + " " + (contexts[i] if contexts else ""))
        cover = sum(weights[w] * (1.0 if w in have else 0.75 if w in around[i] else 0.0) for w in weights) / total
        if need and not all(x in squashed for x in need):
            cover *= 0.3
        support.append(cover)
    if named and any(named):
        support = [cover if here else cover * OTHER_DOCUMENT for cover, here in zip(support, named, strict=True)]
    for after, before in (follows or {}).items():  # what a line introduces with ":" is as good as that line
        share = 1.0 if texts[before].rstrip().endswith(":") or _GOES_ON.match(texts[after]) else 0.8
        support[after] = max(support[after], share * support[before])
    found: list[Candidate] = []
    for i, (text, doc) in enumerate(zip(texts, docs, strict=True)):
        for span in graph_answers.get(i, []):
            at = text.lower().find(span.lower())
            found.append(Candidate(span, "graph", i, max(at, 0), notes=["graph"]))
        found += candidates(kind, text, doc, i)
        found += numbered(question, kind, text, i)
        if contexts and kind in (DATE, VERSION):  # a changelog's entry is dated by its heading
            for c in candidates(kind, contexts[i], docs[i][:0], i):
                c.at, c.notes = 0, c.notes + ["heading"]
                found.append(c)
    asked_set = set(asked)
    thing = asked_phrase(question)
    phrase, head = set(thing), set(thing[-1:])  # head: "algorithm" of "which compression algorithm"
    identity = kind == NAME and _asks_identity(question)
    scored: dict[str, Candidate] = {}
    for c in found:
        if c.kind == "graph" and kind in (QUANTITY, VERSION) and not _fits(c.text, kind):
            continue  # "how old is he?" is not answered by "the bow", whatever the graph's role
        if kind == QUANTITY and _wrong_unit(question, c.text):
            continue
        if identity and not _person(c):
            continue  # "who is the current leader?" wants a name, not a role such as "The Delegates"
        if kind == NAME and c.kind == NAME and re.search(r"\d", c.text):
            continue  # "Linux 3.21.0", a man page's footer, names no one
        own = set(words(c.text))
        if not own and c.kind not in (QUANTITY, DATE, VERSION, CODE, VALUE):
            continue
        if c.kind in (CODE, VALUE, VERSION):
            if c.text.lower() in question.lower() or (c.kind != VERSION and own and own == phrase):
                continue  # the identifier the question asks about ("output_format" for "what output format") is not its answer
        elif own and len(own & asked_set) >= 0.5 * len(own) and not (own - asked_set and c.kind in (QUANTITY, DATE)):
            continue  # it mostly repeats the question (a number with the question's unit does not)
        text = texts[c.line]
        positions = [m.start() for w in asked_set for m in re.finditer(rf"\b{re.escape(w)}", text.lower())]
        if not positions and headings and asked_set & set(words(headings[c.line])):
            positions = [0]  # the question's words are the line's heading ("AUTHORS"): it stands over the whole line
        distance = min((abs(p - c.at) for p in positions), default=200)
        near = 1.0 / (1.0 + distance / 40)
        if positions and kind == QUANTITY:  # "30 ms, while for wideband (16 kHz), the delay is 34 ms"
            near = 0.7 * near + 0.3 * _clause_share(text, c.at, asked_set)
        typed = 1.0 if c.kind == kind or (c.kind == "graph" and _fits(c.text, kind)) else 0.5
        if c.kind == "graph":
            typed += 0.2
        if c.kind in (QUANTITY, VALUE) and own & asked_set and re.search(r"\d", c.text):
            typed += 0.3  # "how many tables" → "64 tables": the number counts what was asked
        if kind == TERM and ("chunk" in c.notes or c.kind == "graph") and head \
                and not head & (pool_words[c.line] | around[c.line] | own):
            c.notes.append("unnamed")  # "which compression algorithm?" from a line that names no algorithm
        c.score = typed * (0.55 * support[c.line] + 0.25 * near + 0.2 / (1 + c.line))
        key = " ".join(words(c.text)) or c.text.lower()
        if key in scored:
            scored[key].agree += 1
            scored[key].score = max(scored[key].score, c.score)
        else:
            scored[key] = c
    ranked = sorted(scored.values(), key=lambda c: -(c.score + 0.05 * min(c.agree - 1, 3)))
    if ranked and ranked[0].kind == NAME:
        ranked[0] = _name_list(ranked[0], [c for c in found if c.kind == NAME], texts[ranked[0].line])
    best_support = max(support, default=0.0)
    if not ranked:
        return [], support, min(0.3, best_support * 0.5), f"no {kind} in the lines"
    top = ranked[0]
    confidence = min(1.0, 0.6 * support[top.line] + 0.4 * top.score + 0.03 * min(top.agree - 1, 3))
    if support[top.line] < MIN_SUPPORT and "graph" not in top.notes or "unnamed" in top.notes:
        confidence = min(confidence, THRESHOLD - 0.01)  # a line that holds under half the question answers nothing
    return ranked, support, round(confidence, 3), f"{kind}: {top.text!r} from line {top.line + 1}"


def _clause_share(text: str, at: int, asked: set[str]) -> float:
    """The share of the question's words said in the span's clause and the one before it (commas and semicolons)."""
    cuts = [0, *(m.end() for m in re.finditer(r"[,;]\s", text)), len(text) + 1]
    here = next((i for i in range(len(cuts) - 1) if cuts[i] <= at < cuts[i + 1]), len(cuts) - 2)
    window = set(words(text[cuts[max(here - 1, 0)]:cuts[here + 1]]))
    return len(window & asked) / len(asked) if asked else 0.0


def _name_list(best: Candidate, names: list[Candidate], text: str) -> Candidate:
    """The whole list when the best name stands in one ("Erik Troan, Preston Brown and Jan Kaluza")."""
    same = sorted({c.at: c for c in names if c.line == best.line}.values(), key=lambda c: c.at)
    start = next((i for i, c in enumerate(same) if c.at == best.at), None)
    if start is None:
        return best
    first = last = start
    joined = re.compile(r"^\s*(,|and|, and|&|;)\s*$")
    while first > 0 and joined.match(text[same[first - 1].at + len(same[first - 1].text):same[first].at]):
        first -= 1
    while last + 1 < len(same) and joined.match(text[same[last].at + len(same[last].text):same[last + 1].at]):
        last += 1
    if first == last:
        return best
    span = text[same[first].at:same[last].at + len(same[last].text)]
    return Candidate(span, NAME, best.line, same[first].at, best.score, best.agree, best.notes + ["list"])


def _asks_identity(question: str) -> bool:
    """"Who is / was / are / were …?": a question that wants a name, not a role."""
    return bool(re.match(r"\s*who (is|was|are|were)\b", question, re.IGNORECASE))


def _person(candidate: Candidate) -> bool:
    """Whether the span can be a person's name: no article before it ("The Delegates" is a role)."""
    first = candidate.text.split()[0].lower() if candidate.text.split() else ""
    return first not in ("the", "a", "an", "this", "that", "these", "those", "its", "their", "our")


def states_kind(question: str, answer: str, doc: Any) -> bool:
    """Whether ``answer`` (parsed as ``doc``) states something of the kind the question asks for.

    "Who is the current leader?" is not answered by "The current leader is the one appointed by
    the leader": no name in it is new to the question. A term is anything; the check is for the
    kinds that can be told apart.
    """
    kind = expected_kind(question)
    if kind == TERM:
        return True
    if kind == REASON and any(t.lower_ == "to" and t.dep_ == "aux" and t.head.pos_ == "VERB" for t in doc):
        return True  # a purpose: "… to kill Ravana"
    asked = set(words(question))
    identity = kind == NAME and _asks_identity(question)
    for c in candidates(kind, answer, doc, 0) + numbered(question, kind, answer, 0):
        if c.kind in (QUANTITY, DATE, VERSION, CODE, VALUE) and c.text.lower() not in question.lower():
            return True
        if identity and (not _person(c) or _ROLE_BEFORE.search(answer[: c.at])):
            continue  # "who is the leader?" wants a name, not "the current Project Secretary"
        if set(words(c.text)) - asked:
            return True
    return False


_ROLE_BEFORE = re.compile(r"\b(the|a|an|current|former|new|its|their|our)\s+$", re.IGNORECASE)


def calibrated(raw: float) -> float:
    """The stated confidence of an answer: the chance, measured on the dev sets, that it is right."""
    for bound, right in CALIBRATION:
        if raw < bound:
            return right
    return 1.0


def _fits(span: str, kind: str) -> bool:
    """Whether a span read off the graph is of the kind asked for."""
    if kind == QUANTITY:
        return bool(_QUANTITY.search(span))
    if kind == DATE:
        return bool(_ISO_DATE.search(span) or _WORD_DATE.search(span) or _YEAR.search(span))
    if kind == VERSION:
        return bool(_VERSION.search(span))
    if kind == CODE:
        return bool(_CODE.search(span))
    if kind == VALUE:
        return bool(_CODE.search(span) or _QUANTITY.search(span))
    if kind == REASON:
        return bool(_REASON.search(span))
    if kind == MANNER:
        return bool(_CODE.search(span) or re.match(r"(by|using|with|via|through)\b", span.lower()))
    return True


def pool(store: Any, question: str, context_nodes: list[str], hits: list[str],
         size: int = 12) -> tuple[list[str], dict[int, int]]:  # noqa: C901 - one walk, three ways to go on
    """The lines to read (the graph's, then retrieval's) and which line each added one follows.

    A line that introduces something (it ends with ":", or it is a short title) brings the line
    after it, which holds what it introduces: the command after "run:", the author under a title.
    For a "why" question, a line brings the next when that one gives its reason ("This is because").
    """
    from karaka.store.ids import document_node

    reasons = expected_kind(question) == REASON
    out: list[str] = []
    follows: dict[int, int] = {}
    for node in dict.fromkeys(context_nodes + hits):
        if len(out) >= size:
            break
        if node in out:
            continue
        out.append(node)
        attrs = store.graph.node(node) or {}
        text = str(attrs.get("text", "")).rstrip()
        if "seq" not in attrs:
            continue
        after_lines = store.records.lines(attrs["doc_id"], int(attrs["seq"]) + 1, int(attrs["seq"]) + 2)
        if not after_lines:
            continue
        follow = after_lines[0]
        if reasons:  # the reason may come a sentence later: "… day. For example … This is because …"
            follow = next((s for s in after_lines if _GOES_ON.match(s.text)), follow)
        short_title = len(text) < 60 and not text.endswith(".") and attrs.get("kind") not in NOT_EXTRACTED
        introduces = text.endswith(":") or short_title or bool(_CUT.search(text))
        if not (introduces or (reasons and _GOES_ON.match(follow.text))):
            continue
        after = document_node(attrs["doc_id"], follow.line, follow.sentence)
        if after not in out and store.graph.node(after) is not None:
            follows[len(out)] = len(out) - 1
            out.append(after)
    return out, follows


_corpus: dict[int, tuple[tuple[int, int], str]] = {}
_corpus_lock = threading.Lock()


def corpus_check(store: Any) -> Any:
    """``has(word)``: whether any line of the documents holds ``word`` (squashed as the lines are).

    The lines are joined when a question first needs them (one naming a version or an identifier)
    and kept until the workspace changes, like the BM25 index.
    """
    def has(word: str) -> bool:
        key = index_key(store)
        with _corpus_lock:
            cached = _corpus.get(id(store))
            if cached is None or cached[0] != key:
                texts = (_squash(str((store.graph.node(d) or {}).get("text", "")))
                         for d in store.graph.nodes_of("Document"))
                cached = _corpus[id(store)] = (key, "\n".join(texts))
        return _squash(word) in cached[1]

    return has
