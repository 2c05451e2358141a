"""Spans of a line that can answer a question of a given kind.

Numbers with their unit (a unit of measure from the general list below, or the noun the number
counts in the parse: "24 beds"), dates, versions, names (the parser's people, groups and
nations, and runs of proper nouns), places, code-shaped tokens of the shape asked for, values (a
number, a literal such as ``None``, a quoted string, a token), reasons and purposes (the clause
that "because", "since", "so that" or a purpose "to" opens, as the parse hangs it), manners ("by
doing", "using X", a command), and noun phrases. A line the parser does not read (code, another
language) gives the spans its characters show.
"""

from __future__ import annotations

import re
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.acronyms import abbreviation, expansions
from karaka.answering.entries import ARROWS
from karaka.answering.explains import asks_consequence, consequences, definitions, manners, reasons, said_to_be
from karaka.answering.identity import owners
from karaka.answering.naming import titled
from karaka.answering.programs import named_programs
from karaka.answering.question import CODE_TOKEN, VERSION_TOKEN, Asked
from karaka.answering.shapes import ADDRESS, LITERAL, called, code_shape, fits_shape
from karaka.answering.span import Span, span_tokens
from karaka.answering.stems import key, same
from karaka.answering.values import named_defaults
from karaka.words import WORD

UNIT = re.compile(
    r"(?:[kKMGTP]i?)?(?:B|b|bit|bits|byte|bytes|bps|Hz|hz|px|pt|dpi)|ms|µs|us|ns|s|sec|secs|min|mins|h|hr|hrs|"
    r"m|km|cm|mm|kg|g|mg|l|ml|°[CF]?|%|percent|per ?cent|meters?|metres?|kilometers?|kilometres?|grams?|"
    r"kilograms?|liters?|litres?|"
    r"seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centuries|century|"
    r"thousand|million|billion|trillion|hundred|dozen|times|orders? of magnitude|"
    r"characters?|lines?|pages?|columns?|rows?|bytes?|words?|items?|entries|entry|files?|steps?|levels?|"
    r"miles?|feet|foot|inches?|yards?|pounds?|dollars?|euros?|"
    r"jahre|tage|stunden|minuten|sekunden|ans|jours|heures|secondes", re.IGNORECASE)
"""Units of measure, time, count and money: what may follow a number as part of its answer."""
NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                 "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
                 "hundred|thousand|half|dozen|score")
NUMBER = re.compile(rf"(?<![\w.:/-])(?:[<>≤≥~]\s?)?(?:(?:\d+(?:[,\u202f]\d{{3}})*(?:[.,]\d+)?|\.\d+)(?:[kKMGT](?!\w))?"
                    rf"(?:(?:\s?[-–]\s?|\s(?:or|to)\s)\d+"
                    rf"(?:\.\d+)?)?"
                    rf"|(?:{NUMBER_WORDS})(?:[ -](?:and[ -])?(?:{NUMBER_WORDS}))*"  # "seven-and-twenty", an older
                    rf"(?:\s(?:or|to)\s(?:{NUMBER_WORDS})(?:[ -](?:and[ -])?(?:{NUMBER_WORDS}))*)?)"  # English's 27
                    rf"(?:(?<=\d)(?=(?:{UNIT.pattern})(?!\w))|(?![\w:/-]|[.,]\d))",
                    re.IGNORECASE)  # a unit may follow a figure without a space: "30s", "10MB" (not "4th")
ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_MONTH = ("january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|"
          "apr|jun|jul|aug|sep|sept|oct|nov|dec|januar|februar|märz|mai|juni|juli|oktober|dezember|janvier|"
          "février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre")
WORD_DATE = re.compile(rf"\b(?:(?:{_MONTH})\.? \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}|\d{{1,2}}(?:st|nd|rd|th)?\.? "
                       rf"(?:of )?(?:{_MONTH}),? \d{{4}}|(?:{_MONTH}) \d{{4}})\b", re.IGNORECASE)
YEAR = re.compile(r"(?<![\w.-])(1[0-9]\d\d|20\d\d)(?![\w.-])")
ERA_YEAR = re.compile(r"\b(?:\d{1,4}\s?(?:BCE|BC|CE|AD|B\.C\.|A\.D\.)|(?:AD|A\.D\.)\s?\d{1,4})(?![\w])")
"""A year of an era: "56 BC", "AD 79"."""
def _strip(text: str, start: int) -> tuple[str, int]:
    """A span without the marks around it, keeping the brackets that close ones it opens ("stop([label])")."""
    marks = " ,;:()[]\"'`"
    lead = len(text) - len(text.lstrip(marks))
    body, out = text[lead:], text.strip(marks)
    while (close := body[len(out):len(out) + 1]) in (")", "]") and \
            out.count("(" if close == ")" else "[") > out.count(close):
        out += close
    return out, start + lead


HOW_OFTEN = re.compile(r"\b(?:how\s+(?:often|frequently)|wie\s+oft|wie\s+häufig)\b", re.IGNORECASE)
_GERMAN_NUMBER_WORDS = "ein|eine|einen|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|zwölf|zwanzig|dreißig|sechzig|hundert"
FREQUENCY = re.compile(rf"\b(?:(?:once|twice|(?:{NUMBER_WORDS}|\d+)\s+times)\s+(?:a|an|per|each|every)\s+[a-z]+|"
                       rf"every\s+(?:(?:{NUMBER_WORDS}|\d+)\s+)?[a-z]+|hourly|daily|nightly|weekly|monthly|yearly|"
                       rf"(?:alle|jede[nrs]?)\s+(?:(?:{_GERMAN_NUMBER_WORDS}|\d+(?:,\d+)?)\s+)?[^\W\d_]+|"
                       rf"(?:stündlich|täglich|nächtlich|wöchentlich|monatlich|jährlich))\b", re.IGNORECASE)
"""How often something happens: "once an hour", "every 5 minutes", "nightly"; German "alle zwei Sekunden"."""


def spans(asked: Asked, text: str, doc: Any | None) -> list[Span]:
    """The spans of ``text`` (parsed as ``doc``, or None) of the kind ``asked`` wants."""
    out: list[Span] = []
    kind = asked.kind
    if abbreviation(asked):
        return expansions(asked, text, doc)
    if asks_consequence(asked):
        return consequences(asked, doc)
    out += expansions(asked, text, doc)  # "What is the WAL?": "The WAL (write-ahead log)" says one thing it is
    if asked.defines:
        return definitions(asked, text, doc)

    def add(value: str, start: int, found: str) -> None:
        value, start = _strip(value, start)
        if value and not any(s.start == start and s.text == value for s in out):
            first, last = span_tokens(doc, start, start + len(value))
            out.append(Span(value, found, start, start + len(value), first, last))

    if kind in (k.CODE, k.VALUE, k.TERM, k.MANNER, k.VERSION, k.NAME):
        for m in CODE_TOKEN.finditer(text):
            token = m.group(1) or m.group(2)
            if token.lower().rstrip(".") in ("etc", "cf", "vs") or re.fullmatch(r"(?:[^\W\d_]\.)+[^\W\d_]\.?", token):
                continue  # an abbreviation of single letters: "e.g.", "d.h.", "z.B."
            token = token[:-1] if token.endswith(".") and not m.group(1) else token  # the sentence's full stop
            shaped = token + "()" if text.startswith("(", m.end()) and not m.group(1) else token  # "f(2)" calls f
            if kind == k.CODE and not fits_shape(asked.shape, code_shape(shaped), shaped) and not called(
                    asked, text, m.start(), m.end()):
                if m.group(1) and " " in token:  # "`systemd --test --system` for a test run": a command holds its
                    for inner in CODE_TOKEN.finditer(token):  # options; the one named by the question's words answers
                        part = inner.group(2)
                        if part and fits_shape(asked.shape, code_shape(part), part) and any(
                                key(w) == t.key for w in WORD.findall(part) for t in asked.terms):
                            add(part, m.start(1) + inner.start(2), k.CODE)
                continue
            if kind == k.NAME and code_shape(token) != "name" or kind == k.CODE and asked.shape in (
                    "call", "command") and re.search(r"\b[Aa]n?\s+$", text[:m.start()]) and not called(
                    asked, text, m.start(), m.end()):
                continue  # "A `boolean` that is true …": a value of a type, no function or program ("a `go` command" is)
            add(token, m.start(1) if m.group(1) else m.start(2), k.CODE)
    if kind == k.CODE and asked.focus_text:  # "the Pinentry package": a name the line calls by the noun asked
        for m in re.finditer(rf"\b(?:the|an?)\s+([A-Z][\w+.-]*[\w+])\s+(?:{re.escape(asked.focus_text)})s?\b", text):
            add(m.group(1), m.start(1), k.CODE)
    if kind == k.PLACE or kind == k.CODE and asked.shape == "address":  # "where are bugs reported?": to an address
        said = {t.key for t in asked.terms} | {asked.focus}  # the question's words: "e-mail", "URL"?
        for m in ADDRESS.finditer(text):
            if ("@" in m.group(0) and "/" not in m.group(0)) != bool(said & _MAIL) and said & (_MAIL | _WEB):
                continue  # "which e-mail address?" is no web page; "which URL?" no mailbox
            add(m.group(0).rstrip(".,;:"), m.start(), k.CODE)
    if kind == k.PLACE:  # "where are the logs written?": to a path
        for m in CODE_TOKEN.finditer(text):
            token = m.group(1) or m.group(2)
            token = token[:-1] if token.endswith(".") else token  # the sentence's full stop
            if "/" in token and code_shape(token) == "path":
                add(token, m.start(1) if m.group(1) else m.start(2), k.CODE)
    if kind == k.CODE and asked.shape == "path":  # "which extension?": a file name's ending written alone (".gz")
        for m in re.finditer(r"(?<![\w.])\.[A-Za-z][A-Za-z0-9]{0,9}(?![\w.])", text):
            add(m.group(0), m.start(), k.CODE)
    if kind == k.PLACE or kind == k.CODE and asked.shape == "path":  # "in the espeak-ng-data/ folder": a directory
        for m in re.finditer(r"(?<![\w/.~-])[\w.+-]*[^\W_]/(?=[\s,;:)]|$)", text):  # by its closing slash
            add(m.group(0), m.start(), k.CODE)
    if kind == k.CODE and asked.shape == "command":
        for value, start in named_programs(asked, text, doc):
            add(value, start, k.CODE)
    if kind == k.CODE and asked.shape in ("name", "variable", ""):
        for m in re.finditer(r"(?<![\w$-])[A-Z][A-Z0-9]{4,}(?![\w-])", text):  # a directive: NISPORT, TIMEOUT
            add(m.group(0), m.start(), k.CODE)
    if kind == k.CODE and asked.focus_text:  # a name in capitals the noun asked about follows: "the NOTICE file"
        for m in re.finditer(rf"(?<![\w$-])([A-Z][A-Z0-9_]{{2,}})[`'\"]?\s+{re.escape(asked.focus_text)}s?\b", text):
            add(m.group(1), m.start(1), k.CODE)
        for m in re.finditer(rf"\b{re.escape(asked.focus_text.rstrip('s'))}s?,?\s+[`'\"“]?([A-Z][A-Z0-9_]{{2,}})(?![\w-])", text):
            add(m.group(1), m.start(1), k.CODE)  # "the file BUGS", "see the file, "INSTALL""
        quoted = r"[‘'\"`“]([\w.+-]+)[’'\"`”]"  # "the included ‘updatedb’ script", "the script 'updatedb'"
        for m in re.finditer(rf"{quoted}\s+{re.escape(asked.focus_text)}s?\b|\b{re.escape(asked.focus_text)}s?,?\s+{quoted}",
                             text, re.IGNORECASE):
            add(m.group(1) or m.group(2), m.start(1) if m.group(1) else m.start(2), k.CODE)
    if kind in (k.VERSION, k.VALUE, k.CODE):
        for m in VERSION_TOKEN.finditer(text):
            if kind == k.VERSION and _OPTION_BEFORE.search(text[:m.start()]):
                continue  # "--max-time 2.92": an option's argument, not a release
            if not text[:m.start()].strip() and re.match(r"\.\s+[^\W\d]", text[m.end():]):
                continue  # "2.1. Removal of the packages": a section's number
            add(m.group(0), m.start(), k.VERSION)
    if kind == k.VERSION:  # "version 3", "Python 3" for "which Python version?": a version without a dot
        products = [re.escape(t.text) for t in asked.terms if t.role == "name" and t.text[:1].isalpha()]
        for m in re.finditer(rf"\b(?:version|release|{'|'.join(products) or 'version'})\s+v?(\d+)\b(?![.,]\d)", text,
                             re.IGNORECASE):
            add(m.group(1), m.start(1), k.VERSION)
    if kind in (k.VALUE, k.TERM) or kind == k.CODE and asked.shape in ("name", ""):
        inside = [(m.start(), m.end()) for m in CODE_TOKEN.finditer(text)]
        for m in LITERAL.finditer(text):  # a quoted string is a name as well as a value: "xhtml"
            if any(a <= m.start(1) and m.end(1) <= b and (a, b) != (m.start(1), m.end(1)) for a, b in inside):
                continue  # the "True" of "load(override=True)" is an argument, not a value of its own
            if kind == k.CODE and re.search(r"\b(?:an?|the)\s+[\"“'`]?$", text[:m.start(1)], re.IGNORECASE) \
                    and not called(asked, text, m.start(1), m.end(1)):
                continue  # (each, a "Work"): a word the text defines, no name of code
            add(m.group(1), m.start(1), k.CODE if kind == k.CODE else k.VALUE)
    if kind in (k.QUANTITY, k.VALUE):
        out += quantities(text, doc)
    if kind == k.QUANTITY:  # "of unlimited size": an amount that has no bound
        for m in re.finditer(r"\b(?:unlimited|unbounded|infinite|unbegrenzt|illimitée?)\b", text, re.IGNORECASE):
            add(m.group(0), m.start(), k.QUANTITY)
    if kind == k.QUANTITY and HOW_OFTEN.search(asked.text):
        for m in FREQUENCY.finditer(text):
            add(m.group(0), m.start(), k.QUANTITY)
    if kind in (k.VALUE, k.CODE) and asked.default:  # "Frobz is the default tool" names a program
        for value, start in named_defaults(asked, text, doc):
            add(value, start, kind)
    if kind == k.QUANTITY and asked.counted:  # "no retries" counts none of what was asked
        for m in re.finditer(r"\bno\s+([^\W\d_]+)", text, re.IGNORECASE):
            if same(key(m.group(1)), asked.counted):
                add(m.group(0), m.start(), k.QUANTITY)
    if kind == k.DATE:
        out += lists([with_preposition(s, text, doc) for s in dates(text, doc)], text)
    if kind == k.NAME:  # "that proxy's statement" for "whose statement …?"
        out += owners(asked, doc)
    if kind in (k.NAME, k.PLACE, k.TERM):
        found = names(kind, text, doc)
        out += lists(found, text) if kind == k.NAME else lists([with_preposition(s, text, doc) for s in found], text) \
            if kind == k.PLACE else found
    if kind == k.REASON:
        out += reasons(text, doc, purpose=bool(k.USED_FOR.search(asked.text)))
    if kind == k.MANNER:
        out += manners(text, doc)
    if kind in (k.TERM, k.VALUE) and asked.focus:  # a shaped name beside the noun asked about: "das Verfahren LZ77",
        for m in re.finditer(r"(?<![\w-])([^\W\d_]+)\s+(?=([A-Z0-9](?:[\w.+-]*[\w+])?))", text):  # "the LZ77 algorithm",
            name = m.group(2)
            if same(key(m.group(1)), asked.focus) and (any(c.isdigit() for c in name) or _shaped_name(name)):
                add(name, m.start(2), k.CODE)  # a shaped name ("LZ77", "H264", "CELP") is code: proved in any language;
                # "mit Rückgabecode 1": the code's number
        for m in re.finditer(r"(?<![\w.+-])([A-Z0-9][\w.+-]*[\w+])\s+([^\W\d_]+)\b", text):
            if same(key(m.group(2)), asked.focus) and _shaped_name(m.group(1)):
                add(m.group(1), m.start(1), k.CODE)
    if kind == k.TERM:  # "A Combined Work is a work produced by …": the description whole
        out += said_to_be(asked, text, doc)
    if kind in (k.TERM, k.NAME) and asked.focus and doc is not None:
        for value, start in titled(asked.focus, doc):  # "runs as user proxy"
            add(value, start, kind)
    if kind in (k.TERM, k.PLACE) and doc is not None and len(doc):
        for chunk in doc.noun_chunks:
            if any(t.pos_ in ("NOUN", "PROPN") for t in chunk) and not all(t.pos_ == "PRON" for t in chunk) \
                    and not any(t.text in ARROWS for t in chunk):  # "1…999 → System users" is two things
                add(chunk.text, chunk.start_char, k.TERM)
                whole = coordination(doc, chunk.root) if asked.plural else None
                if whole is not None:  # "which woods?": "the pine and oak boards", the list the chunk ends
                    add(doc[whole[0]:whole[1] + 1].text, doc[whole[0]].idx, k.TERM)
    return out


_MAIL = frozenset({key("email"), key("e-mail"), key("mail"), key("courriel")})
_WEB = frozenset({key("url"), key("website"), key("homepage"), key("webseite"), key("web")})


def _shaped_name(word: str) -> bool:
    """A name by its shape alone: a letter, then digits ("LZ77", "H264"), or capitals ("CELP"); not "64K", a size."""
    return word[:1].isalpha() and (any(c.isdigit() for c in word) or word.isupper() and len(word) > 1)


_OPTION_BEFORE = re.compile(r"(?:^|\s)--?[A-Za-z][\w-]*[=\s]\s*$")


def quantities(text: str, doc: Any | None) -> list[Span]:
    """Numbers with their unit: a unit of measure after them, or the noun the parse says they count."""
    out = []
    versions = [m for m in VERSION_TOKEN.finditer(text) if m.group(0).count(".") > 1 or m.group(0).startswith("v")]
    taken = [(m.start(), m.end()) for m in versions] + [(m.start(), m.end()) for p in (ISO_DATE, CODE_TOKEN)
                                                        for m in p.finditer(text)]  # "0.25" is a number, "1.2.3" a version
    for m in NUMBER.finditer(text):
        if any(a <= m.start() < b for a, b in taken) or not m.group(0).strip():
            continue
        if not text[:m.start()].strip() and re.match(r"[.:)\]]", text[m.end():m.end() + 1]):
            continue  # "12. And then …", "3) …": a list or verse marker that opens the line, not an amount
        if not text[:m.start()].strip() and m.group(0).isdigit() and re.match(r"\s+[A-Z]", text[m.end():]) \
                and not _counting(doc, m.start(), m.end()):
            continue  # "8 And Hobab lived …": a verse's number, counting nothing the line says
        end = m.end()
        after = text[end:]
        unit = re.match(rf"\s?(?:{UNIT.pattern})(?![\w])", after, re.IGNORECASE)
        if unit:
            end += unit.end()
        elif doc is not None and len(doc):
            first, last = span_tokens(doc, m.start(), m.end())
            if first >= 0:
                head = doc[last].head
                if doc[last].dep_ == "nummod" and head.i == last + 1 and head.pos_ in ("NOUN", "PROPN"):
                    end = head.idx + len(head.text)  # "24 beds", "12 rooms"
        value = text[m.start():end]
        first, last = span_tokens(doc, m.start(), end)
        out.append(Span(value.strip(), k.QUANTITY, m.start(), end, first, last))
    for m in re.finditer(rf"(?<![\w.-])\d+(?:\.\d+)?-(?:{UNIT.pattern})(?![\w-])", text):  # "a 12-byte header"
        if not any(a <= m.start() < b for a, b in taken):
            out.append(Span(m.group(0), k.QUANTITY, m.start(), m.end(), *span_tokens(doc, m.start(), m.end())))
    return out


def _counting(doc: Any | None, start: int, end: int) -> bool:
    """Whether the parse makes the number at ``start`` count a noun or fill a role ("12 Monkeys is a film")."""
    if doc is None or not len(doc):
        return True  # unparsed: it may be an amount
    first, last = span_tokens(doc, start, end)
    return first >= 0 and doc[last].dep_ in ("nummod", "nsubj", "nsubjpass", "dobj", "attr", "pobj", "appos")


_AGE = re.compile(r"-year-old|\byears? old\b|\baged?\b", re.IGNORECASE)
"""An age, which the parser calls a date ("a 22-year-old"): no answer to "when"."""
_BARE_COUNT = re.compile(r"(?:(?:over|about|around|some|nearly|almost|roughly|more than|less than|under|up to)\s+)?"
                         r"\d{1,2}", re.IGNORECASE)
"""A small number, perhaps qualified ("over 70"): a tagger may call it a date, but it names no time."""


def with_preposition(span: Span, text: str, doc: Any | None) -> Span:
    """A date or place with the preposition that governs it: "in 1935", "in Germany", "by 1563"."""
    if doc is None or span.first <= 0:
        return span
    before = doc[span.first - 1]
    if before.pos_ == "ADP" and before.lower_ in k.SPATIAL | k.TEMPORAL:
        return Span(text[before.idx:span.end], span.kind, before.idx, span.end, before.i, span.last)
    return span


def dates(text: str, doc: Any | None) -> list[Span]:
    """Dates: ISO and written-out dates, the parser's DATE entities, and a bare year where nothing fuller is."""
    out: list[Span] = []
    for pattern in (ISO_DATE, WORD_DATE, ERA_YEAR):
        for m in pattern.finditer(text):
            if not any(s.start <= m.start() < s.end for s in out):
                out.append(Span(m.group(0), k.DATE, m.start(), m.end(), *span_tokens(doc, m.start(), m.end())))
    if doc is not None:
        for ent in doc.ents:
            if ent.label_ in ("DATE", "TIME") and not any(s.start <= ent.start_char < s.end for s in out) \
                    and not _AGE.search(ent.text) and not _BARE_COUNT.fullmatch(ent.text):
                out.append(Span(ent.text, k.DATE, ent.start_char, ent.end_char, ent.start, ent.end - 1))
    for first in sorted(out, key=lambda s: s.start):  # "the spring" of "56 BC": one time
        second = next((s for s in out if s is not first and re.fullmatch(r"\s+of\s+", text[first.end:s.start])), None)
        if second is not None and first in out:
            out.remove(second)
            out[out.index(first)] = Span(text[first.start:second.end], k.DATE, first.start, second.end,
                                         *span_tokens(doc, first.start, second.end))
    if not out:
        for m in YEAR.finditer(text):
            out.append(Span(m.group(0), k.DATE, m.start(), m.end(), *span_tokens(doc, m.start(), m.end())))
    return out


_NAME_LABELS = {k.NAME: ("PERSON", "ORG", "NORP"), k.PLACE: ("GPE", "LOC", "FAC"),
                k.TERM: ("PERSON", "ORG", "PRODUCT", "WORK_OF_ART", "LAW", "LANGUAGE", "EVENT", "NORP", "GPE", "LOC")}


_ONLY_ADDRESS = re.compile(r"\s*(?:[<⟨(\[][^>⟩)\]]*[>⟩)\]])?\s*[.,]?\s*")
"""What may follow a name that is a whole line: nothing, or its address in brackets."""


def names(kind: str, text: str, doc: Any | None) -> list[Span]:
    """Named things of the kind: the parser's entities, runs of proper nouns, and capitalised runs in unparsed text."""
    out: list[Span] = []
    if doc is not None and len(doc):
        for ent in doc.ents:
            if ent.label_ in _NAME_LABELS[kind] and len(ent.text) > 1 and any(c.isalpha() for c in ent.text):
                out.append(Span(ent.text, kind, ent.start_char, ent.end_char, ent.start, ent.end - 1))
        if kind == k.NAME:
            run: list[Any] = []
            for token in [*doc, None]:
                if token is not None and token.pos_ == "PROPN" and token.is_alpha:
                    run.append(token)
                    continue
                if run and not any(s.first <= run[0].i <= s.last for s in out) and len(doc[run[0].i:run[-1].i + 1].text) > 1:
                    a, b = run[0], run[-1]
                    out.append(Span(doc[a.i:b.i + 1].text, kind, a.idx, b.idx + len(b.text), a.i, b.i))
                run = []
        if kind == k.PLACE:
            for token in doc:
                if token.dep_ == "prep" and token.lower_ in ("in", "at", "on", "into", "near", "from", "to"):
                    obj = next((c for c in token.children if c.dep_ == "pobj"), None)
                    if obj is not None and obj.pos_ in ("PROPN", "NOUN") and obj.ent_type_ not in ("DATE", "TIME"):
                        words = list(obj.subtree)
                        a, b = words[0], words[-1]
                        out.append(Span(doc[a.i:b.i + 1].text, k.PLACE, a.idx, b.idx + len(b.text), a.i, b.i))
    elif kind == k.NAME:
        for m in re.finditer(r"(?<![\w.])[A-Z][a-zà-ÿ'’-]+(?: (?:[A-Z][a-zà-ÿ'’-]+|[A-Z]\.))+", text):
            if m.start() > 0 or _ONLY_ADDRESS.fullmatch(text[m.end():]):  # a line that is a name: "Ada Quist <ada@…>"
                out.append(Span(m.group(0), kind, m.start(), m.end()))
    return out


def coordination(doc: Any, token: Any) -> tuple[int, int] | None:
    """The token range of the coordination a noun ends ("pine and oak boards" from "boards"), or None."""
    if token.dep_ != "conj":
        return None
    root = token
    while root.dep_ == "conj" and root.head.i != root.i:
        root = root.head
    members = [root] + [t for t in root.subtree if t.dep_ == "conj" and t.head.i in (root.i, *(c.i for c in root.children))]
    first = min(min(t.i for t in m.subtree if t.dep_ in ("compound", "amod", "det", "nummod") or t.i == m.i)
                for m in members)
    last = max(m.i for m in members)
    return (first, last) if last - first < 12 else None


_ADDRESSED = re.compile(r"\s*[⟨<(][^⟩>()]{1,80}[⟩>)]")
"""A name's address or note in brackets: "Larry Greenfield ⟨greenfie@…⟩ und Michael K. Johnson" is one list."""


def lists(found: list[Span], text: str) -> list[Span]:
    """Spans written as one list ("Ada Quist, Ivo Lang and Ben Ochs", "in 1820 and in 1902") as one span too."""
    ordered = sorted({s.start: s for s in found}.values(), key=lambda s: s.start)
    out = list(ordered)
    joined = re.compile(r"^\s*(?:,|;|&|,?\s*(?:and|und|et|y))\s*$")  # "and" of English, German, French, Spanish
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and joined.match(_ADDRESSED.sub(" ", text[ordered[j].end:ordered[j + 1].start])):
            j += 1
        if j > i:
            a, b = ordered[i], ordered[j]
            out.append(Span(text[a.start:b.end], a.kind, a.start, b.end, a.first, b.last))
        i = j + 1
    return out
