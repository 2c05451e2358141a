"""A line as the readers see it: its words (with its heading, document, neighbours and the line it goes on from) and its place in the pool."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.question import CODE_TOKEN, Asked, Term
from karaka.answering.stems import key, same
from karaka.words import FUNCTION_WORDS, WORD, attributive

DETERMINERS = frozenset("the a an this that these those his her its their our my your some any".split())
LABEL_WORDS = 3
"""The most words of a heading that labels its entries ("Exit status", "Command-line options")."""


@dataclass
class Line:
    """One line of the pool, read."""

    node: str
    text: str
    doc: Any | None
    words: LineWords
    rank: int
    intro: str = ""
    """The line it goes on from (whose words it reads with), or ""."""
    kind: str = ""
    """The line's kind (``code``, ``table``, ``heading``…; "" for prose)."""
    section: str = ""
    """The innermost heading above it."""


@dataclass
class LineWords:
    """The match keys of one line, where each stands, and the keys of what surrounds it."""

    at: dict[str, list[int]] = field(default_factory=dict)
    context: set[str] = field(default_factory=set)
    """Keys of its heading and its document's name."""
    document: set[str] = field(default_factory=set)
    """Keys of its document's name and title alone: what every line of it is about."""
    document_text: str = ""
    """Its document's name and title as written: "MPL 1.1" holds the version a question names."""
    intro: set[str] = field(default_factory=set)
    """Keys of the line it goes on from ("To install it, run:" before a command)."""
    intro_text: str = ""
    around: set[str] = field(default_factory=set)
    """Keys of the sentences just before and after it."""
    text: str = ""
    context_text: str = ""
    around_text: str = ""
    previous_text: str = ""
    """The sentence just before it in its document."""
    starts: list[int] = field(default_factory=list)
    """Each token's first character, for a parsed line (places are then token indices)."""
    verbless: bool = False
    """A line with no verb: a heading, a table row, a list item, a name."""
    entry: bool = False
    """A term of a definition list ("--x=<n> [default: 72]"): the description below it is its own."""
    entry_above: bool = False
    """A description under a term of a definition list, which is its introducing line."""
    heading: str = ""
    """The innermost heading above it."""
    narrator: str = ""
    """The name its "I" and "my" stand for: its document's narrator, in a line of the narrator's own words."""
    doers: str = ""
    """The names its doers' pronouns stand for ("She was forty": Ottilie Marsh, named the line before)."""

    def find(self, term: Term) -> list[int]:
        """Where the term stands in the line ([] when it does not)."""
        if _written_whole(term):
            found = [m.start() for m in _whole(term.key).finditer(self.text.lower())]
            return [max(0, bisect_right(self.starts, at) - 1) for at in found] if self.starts else found
        said = key(term.text)  # the word as written too: "med" the parse of a question read as "me"'d
        return [i for word, places in self.at.items() if same(term.key, word) or word == said for i in places]

    def in_context(self, term: Term) -> bool:
        return _holds(self.context, self.context_text, term)

    def in_document(self, term: Term) -> bool:
        spaced = " ".join(re.findall(r"[^\W_]+", term.key))  # "dpkg-divert" in "dpkg divert de 1", the file's name
        return _holds(self.document, self.document_text, term) or " " in spaced and term.role == "name" and \
            f" {spaced} " in f" {self.document_text.lower()} "

    @property
    def heading_asks(self) -> bool:
        """Whether its heading is a question (a FAQ's): what the lines under it say answers it."""
        return self.heading.rstrip().endswith("?")

    def intro_asks_otherwise(self, wh: str, verb: str) -> bool:
        """Whether its introducing line asks where, when, who or why of another action than a question's.

        "Where does the name come from?" over "From Nordic mythology." says where the name comes from,
        not what it names: the answer to the text's question answers another only if it asks the same
        (its question word, or its action: "which legend does the name come from?"). "What", "which"
        and "how" may ask anything, so a question with them lends its words to any.
        """
        found = _ASKS_WH.search(self.intro_text) if self.intro_text.rstrip().endswith("?") else None
        asked = wh.split()[0].lower() if wh else ""
        return found is not None and _WH_KIND[found.group(1).lower()] != _WH_KIND.get(asked, asked) and not (
            verb and verb in self.intro)

    def in_intro(self, term: Term) -> bool:
        return _holds(self.intro, self.intro_text, term)

    def in_around(self, term: Term) -> bool:
        return _holds(self.around, self.around_text, term)

    def headed_as(self, word: str) -> bool:
        """Whether the heading above the line names ``word`` as what its entries are.

        "EXIT STATUS" names statuses, "Authors" authors: a label of a few words whose last is ``word``.

        A title that speaks of something ("Ahab's Leg", "The Spouter-Inn") names no class of entries.
        """
        words = WORD.findall(self.heading)  # "EXIT-STATUS" names what a German "Exit-Status" asks for
        return bool(word) and 0 < len(words) <= LABEL_WORDS and same(key(words[-1]), word.split("-")[-1]) and not any(
            w.lower() in DETERMINERS for w in words) and not re.search(r"['’]s\b", self.heading)

    def named_near(self, term: Term, around: bool = True) -> bool:
        """Whether the line, its heading or document name, its introducing line or (``around``) its neighbours hold it."""
        return bool(self.find(term)) or self.in_context(term) or self.in_intro(term) or around and self.in_around(term)


_BRACKETED = re.compile(r"[\[<(][^\]>)]*[\]>)]")
"""What an entry's key sets in brackets: its argument ("<n>"), its default ("[default: 12]")."""


def _key_alone(text: str) -> bool:
    """A line that is an entry's key and no more: code first, at most one word besides its code and brackets.

    "--depth=<n> [default: 12]", "‘--enable-mini-gmp’" (a term quoted as Texinfo prints it); "-l, --list
    lists …" holds its own description.
    """
    return bool(CODE_TOKEN.match(text.strip(_TERM_QUOTES))) and len(
        WORD.findall(CODE_TOKEN.sub(" ", _BRACKETED.sub(" ", text)))) <= 1


@lru_cache(maxsize=512)
def _whole(code: str) -> re.Pattern[str]:
    """A name written with marks, as a whole token: "/usr/bin/python" is not in "/usr/bin/python2"."""
    written = r"\s*\+\s*".join(re.escape(part) for part in code.split("+"))  # "Control + Alt" is "control+alt"
    longer = r"|-\w" if code.startswith("-") else ""  # "--leak-check" is not in "--leak-check-heuristics"
    return re.compile(rf"(?<![\w/-]){written}(?![\d_/]{longer})" if re.match(r"[\w/-]", code) and
                      re.search(r"[\w/-]$", code) else written)  # a letter may follow: keys are stems


def _written_whole(term: Term) -> bool:
    """A name written with marks ("-k", "/etc/shells"), or a compound with a hyphen ("Anmelde-Shells"): matched as written."""
    return term.role == "name" and not term.key.isalpha() or term.role == "word" and "-" in term.key.strip("-")


def _holds(keys: set[str], text: str, term: Term) -> bool:
    if _written_whole(term):
        return _whole(term.key).search(text.lower()) is not None
    return any(same(term.key, word) for word in keys)


def _keys(text: str) -> set[str]:
    return {key(w) for w in WORD.findall(text) if w.lower() not in FUNCTION_WORDS}


def entry_of(section: str) -> str:
    """The innermost heading when it is an entry that names code ("-j N, --jobs=N", "QUILL_HOME"), else "".

    Every sentence of the description under it is said of that entry, as the line that introduces it is.
    """
    inner = section.split(" › ")[-1].strip()
    return inner if inner and CODE_TOKEN.match(inner) else keyword_of(section)


def keyword_of(section: str) -> str:
    """The innermost heading when it is one word in small letters, a keyword, else "".

    "flutter" over "Adds pitch fluctuations." names what the description speaks of: a title or a
    section's topic is written with a capital.
    """
    inner = section.split(" › ")[-1].strip()
    return inner if re.fullmatch(r"[a-z][a-z0-9_]*", inner) else ""


POINTS_BACK = re.compile(r"\s*(?:that|this)(?:['’]s|\s+is|\s+was)\s+(?:because|why|so that|how)\b", re.IGNORECASE)
"""A sentence that says why or how of the one before it, which it names only as "that" or "this"."""


def _elliptic(doc: Any | None) -> bool:
    """A sentence that names nothing of its own but a value: "The default is 3000.", "4 servings.".

    It is said of what the sentence before it speaks of, as if it went on from it.
    """
    if doc is None or not len(doc) or re.match(r"\s*[$%>]\s", doc.text):
        return False  # "$ cat notes.txt": a command typed at a prompt, no sentence going on from the one before
    own = [t for t in doc if not (t.is_punct or t.like_num or t.lower_ in FUNCTION_WORDS or t.pos_ in (
        "AUX", "PRON", "DET", "NUM", "ADP", "CCONJ", "SCONJ", "PART", "SYM"))]
    return len(own) <= 1 and any(t.like_num or CODE_TOKEN.match(t.text) for t in doc)


def _headline(doc: Any | None) -> bool:
    """A sentence with no subject that opens with its verb's participle and a version: "Added in version 10.0.".

    The note Sphinx puts first under a heading says when what the heading names came: it speaks of
    what is before it, as an elliptic sentence does.
    """
    if doc is None or len(doc) < 3:
        return False
    root = doc[0]
    return root.dep_ == "ROOT" and root.tag_ in ("VBN", "JJ") and any(t.like_num for t in doc[1:5]) and not any(
        c.dep_ in ("nsubj", "nsubjpass", "expl") for c in root.children)


_TERM_QUOTES = " ‘’'\"“”`"
"""What a term of a list may be wrapped in: Texinfo's ‘--enable-mini-gmp’, Markdown's backquotes."""


def _bare_term(text: str) -> bool:
    """A line that is only code, an entry's name: "XML_NS", "-k, --keep", "‘--enable-mini-gmp’"."""
    text = re.sub(r"\s*[\[(]\s*default:[^\])]*[\])]\s*$", "", text, flags=re.IGNORECASE)  # "--x=<n> [default: 72]"
    parts = [p.strip(_TERM_QUOTES) for p in text.split(",")]
    return all(p and CODE_TOKEN.fullmatch(p) for p in parts)


def _demonstrative_subject(doc: Any | None) -> bool:
    """A sentence whose main subject is a bare "this" or "that": "On Unix, this is done with -lexpat." goes on from the one before."""
    return doc is not None and any(t.lower_ in ("this", "that") and t.dep_ in ("nsubj", "nsubjpass") and t.pos_ == "PRON"
                                   and t.head.dep_ == "ROOT" for t in doc)  # not "if this is not set, …"


_ASKS_WH = re.compile(r"\b(who|whom|whose|where|when|why)\b", re.IGNORECASE)
_WH_KIND = {"who": "who", "whom": "who", "whose": "who", "where": "where", "when": "when", "why": "why"}


def line_words(text: str, doc: Any | None, context: str, previous: str = "", following: str = "",
               intro: str = "", heading: str = "", document: str = "") -> LineWords:
    """The keys of a line's words (by token when parsed), its context, its introducing line and neighbours.

    A short line that names a piece of code and says nothing of it (a term of a definition list,
    an option of a manual page) is read with the sentence after it, which describes it, as if that
    sentence were its own: "-k, --keep" answers "which option keeps the input files?" from
    "keeps the input files." below it.
    """
    out = LineWords(text=text, context_text=context, around_text=f"{previous} {following}", intro_text=intro,
                    previous_text=previous, heading=heading)
    if doc is not None and len(doc):
        from karaka.nlp import irregular_verb  # a parsed line: the parser is loaded

        out.starts = [t.idx for t in doc]
        for t in doc:
            if t.is_punct or t.lower_ in FUNCTION_WORDS and not attributive(t):  # "the `nobody` user" names it
                continue
            irregular = irregular_verb(t.text)  # "dwelt", read as a noun or left unlemmatised, is "dwell"
            for word in {key(t.lemma_), key(t.text), key(irregular), *(key(p) for p in re.split(r"[-_/]", t.text) if p)}:
                if word:
                    out.at.setdefault(word, []).append(t.i)
        code = [m.span() for m in CODE_TOKEN.finditer(text) if not m.group(1)]  # not a backquoted phrase
        out.verbless = not any((t.pos_ in ("VERB", "AUX") and not t.like_url and "/" not in t.text)
                               or t.pos_ == "NOUN" and irregular_verb(t.text)
                               or t.tag_ == "NNS" and t.i and doc[t.i - 1].pos_ == "ADV"
                               or t.dep_ == "ROOT" and any(c.dep_ in ("nsubj", "nsubjpass") for c in t.children)
                               for t in doc if not any(a <= t.idx < b for a, b in code))  # "And Reuel begat
        # Hobab": the tagger's noun is a verb's past; a word of code is none ("count" of "--instr-count-only");
        # "the flag now prints timings": a plural noun right after an adverb is a verb the tagger missed;
        # an address the tagger made an auxiliary ("Version 2.0, January 2004 http://…") is none; a root with a
        # subject is a verb, whatever its tag ("The news burst on Tomas": "burst" read as a noun)
    else:
        for m in WORD.finditer(text):
            if m.group(0).lower() not in FUNCTION_WORDS:
                out.at.setdefault(key(m.group(0)), []).append(m.start())
        out.verbless = len(text.split()) <= 6
    for bound, pattern in k.BOUNDS.items():  # "Python 3.8 or later" says a minimum
        for m in re.finditer(pattern, text, re.IGNORECASE):
            out.at.setdefault(key(bound), []).append(bisect_right(out.starts, m.start()) - 1 if out.starts
                                                     else m.start())
    if out.verbless and len(text.split()) <= 8 and following and _key_alone(text):
        # the line after a key describes it; the entry before is no introduction
        out.intro_text = f"{intro if intro.rstrip().endswith(':') else ''} {following}".strip()
        intro, out.entry = out.intro_text, True
    elif previous and (POINTS_BACK.match(text) or _elliptic(doc) or _demonstrative_subject(doc) or _headline(doc)):  # "That's because …" gives the reason of the
        # sentence before; "The default is 3000." is the default of what it spoke of; a term is said of by what follows
        out.intro_text = f"{intro} {previous}".strip()
        intro = out.intro_text
    elif previous and not intro and _bare_term(previous):  # the description under "XML_NS" says what XML_NS does
        out.intro_text = intro = previous.strip()
        out.entry_above = True
    out.context = _keys(context)
    out.document, out.document_text = _keys(document), document
    out.around = _keys(out.around_text)
    out.intro = _keys(intro)
    return out


ACRONYM = re.compile(r"\b[A-Z]{2,5}\b")
"""An acronym a question writes ("GPL"), which a line may spell out."""


def spelled_out(acronym: str, text: str) -> list[re.Match[str]]:
    """Where ``text`` writes an acronym out, one capitalised word per letter: "General Public License" for GPL."""
    return list(re.finditer(r"\b" + r"\s+".join(rf"{c}[a-z]+" for c in acronym) + r"\b", text))


def joined(asked: Asked, words: LineWords) -> dict[str, list[int]]:
    """Question words a line writes joined or shortened, with where the line has them.

    "time out" written "timeout", "network file system" written "NFS", and "GPL" written "General
    Public License".
    """
    seq = [w for w in re.findall(r"[^\W\d_]+", asked.text) if w.lower() not in FUNCTION_WORDS]
    out: dict[str, list[int]] = {}
    for size in (2, 3, 4):
        for i in range(len(seq) - size + 1):
            run = seq[i:i + size]
            glued = key("".join(run))
            places = words.at.get(glued, [])
            initials = "".join(w[0] for w in run).upper()
            if not places and len(initials) >= 2:
                places = [m.start() for m in re.finditer(rf"\b{initials}\b", words.text)]
                if places and words.starts:
                    places = [bisect_right(words.starts, p) - 1 for p in places]
            for w in run if places else []:
                out.setdefault(key(w), []).extend(places)
    for acronym in ACRONYM.findall(asked.text):  # "GPL" written "General Public License"
        places = [m.start() for m in spelled_out(acronym, words.text)]
        if places and words.starts:
            places = [bisect_right(words.starts, p) - 1 for p in places]
        if places:
            out.setdefault(key(acronym), []).extend(places)
    return out


def named_inside(term: Term, doc: Any | None, at: int, span: Any) -> bool:
    """Whether the question's verb stands at token ``at`` only inside a name joined by underscores.

    "required" of "ninja_required_version" is a piece of the variable's name, not the line saying
    that something is required; it is the line's word only where that name is the span itself.
    """
    return term.role == "verb" and doc is not None and 0 <= at < len(doc) and "_" in doc[at].text \
        and "_" not in term.text and not span.first <= at <= span.last  # a name the tagger read as a verb is whole
