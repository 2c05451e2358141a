"""What a question asks: the kind of answer, the thing asked about, and the words a line must hold.

English questions are read from their parse: the question word and where it stands, the noun
after "which" or "what" (the focus: "which option" asks for an option), the subject of "what is
…", the counted noun of "how many". The focus says the kind (a measure noun wants a number, a
time noun a date, an artefact noun a token of its shape) and is satisfied by an answer of that
kind; every other content word of the question is a term that the answering line must hold,
each marked hard (a noun, a name, a number, the action) or soft (an adjective, an adverb, a word
of the focus phrase). Questions in French, German or Spanish are read from their words alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.languages import DEFINES_ELSEWHERE, language
from karaka.answering.stems import key
from karaka.answering.verbs import (
    IDENTIFIER,
    before_auxiliary,
    head_of_run,
    mistagged_name,
    past_identifier,
    verb_after,
    verb_by_position,
    verb_lemma,
    verb_of,
)
from karaka.nlp.questions import after_do
from karaka.words import AUXILIARIES, ENGLISH_LOOKALIKES, FUNCTION_WORDS, LIGHT_VERBS, attributive

CODE_TOKEN = re.compile(r"`([^`]{1,80})`|(?:(?<![\w/-])|(?<=-\w/))(--?[A-Za-z][\w-]*(?:=[^\s,;)]*[^\s,;).?!:])?|"
                        r"[A-Za-z_][\w.]*=[^\s,;)]*[^\s,;).?!:]|"
                        r"\$?[A-Z][A-Z0-9]*_[A-Z0-9_]+|(?:\.\.?)?(?:/[\w.+-]+){2,}/?|~?/[\w.+-]+/[\w.+/-]*|(?<![\w/])/[a-z][\w.+-]*|"
                        r"[A-Za-z_][\w.]*\(\)|[a-z]+[A-Z]\w+|(?<!\.)\.[a-z][\w.]*\w(?!-)|_+[A-Za-z]\w*[A-Z\d]\w*|[A-Za-z][A-Za-z0-9]*(?:[._](?:[A-Za-z0-9]+|<[\w-]+>|%\w))+)(?![\w/])")
"""Tokens shaped like code: backquoted text, flags (never from the middle of "--"; "-I/--include" gives "--include"), key=value, CONSTANT_NAMES, paths (from "./" too), calls, camelCase, .dotfiles, _Internal names, dotted.names
(with a placeholder: "massif.out.<pid>", "bb.out.%p"). A value ends before the mark that ends a sentence ("--x=yes?")."""
_PROGRAM = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?<!-il)(?<!-elle)(?<!-on)(?<!-ils)(?<!-elles)(?<!-vous)(?<!-nous)")
"""A word of small letters joined by hyphens, in a question the parser does not read: a program's name (not a
French verb with its pronoun, "obtient-il")."""
VERSION_TOKEN = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?!\w|\.\w)")  # a full stop may end the sentence
_QUOTED = re.compile(r"[\"“«]([^\"”»]{2,60})[\"”»]")


@dataclass(frozen=True)
class Term:
    """A word the answering line must hold: its match key, how hard a requirement it is, and its text."""

    key: str
    hard: bool
    text: str
    role: str = "word"
    """``verb`` (the question's action), ``name`` (a proper noun, number or code), ``noun`` or ``word``."""
    head: str = ""
    """For a modifier ("south" of "the south ward"): the key of the noun it modifies."""


@dataclass(frozen=True)
class Asked:
    """The analysis of a question."""

    text: str
    kind: str
    wh: str = ""
    """The English question word ("who", "how many", …), "" for none."""
    focus: str = ""
    """The key of the noun asked about ("option", "length"), "" for none."""
    focus_text: str = ""
    """That noun as the question writes it."""
    shape: str = ""
    """For an artefact: the token shape that names one (``flag``, ``variable``, ``path``, ``command``, …)."""
    default: bool = False
    """The question asks for a default value."""
    verb: str = ""
    """The key of the question's action, "" when it has none beyond be/have/do."""
    particle: str = ""
    """The particle of a phrasal verb ("up" of "make up"): the verb without it is another action."""
    negated: bool = False
    """The question asks of its action's negation ("What must the field not contain?")."""
    terms: tuple[Term, ...] = ()
    required: tuple[str, ...] = ()
    """Versions, identifiers, long numbers and quoted phrases: a line that lacks one cannot answer."""
    lang: str = "en"
    named: tuple[str, ...] = field(default=())
    """The question's own spans (its names, numbers, quoted and code words): never its answer."""
    counted: str = ""
    """For a quantity: the key of what is counted ("how many workers", "the number of tables"), or ""."""
    defines: str = ""
    """For "what does X do / mean / stand for?": X, whose description is the answer, or ""."""
    plural: bool = False
    """The thing asked about is plural ("which compilers"): a list may answer."""
    owners: tuple[tuple[str, str], ...] = ()
    """(thing, owner) keys of the question's possessives: ("ship", "ahab") for "Ahab's ship"."""

    @property
    def verb_term(self) -> Term | None:
        """The term of the question's action, if it has one."""
        return next((t for t in self.terms if t.role == "verb"), None)

    def possessed(self, word: str) -> bool:
        """Whether a term's key is the thing or the owner of one of the question's possessives."""
        return any(word in pair for pair in self.owners)


def required_words(question: str) -> tuple[str, ...]:
    """What a line must hold to answer: the question's versions, identifiers, long numbers and quoted phrases."""
    found = [m.group(0).lower().lstrip("v") for m in VERSION_TOKEN.finditer(question)]
    found += [(m.group(1) or m.group(2)).lower() for m in CODE_TOKEN.finditer(question)]
    found += [m.group(1).lower() for m in _QUOTED.finditer(question)]
    found += re.findall(r"(?<![\w.])\d{2,}(?![\w.])", question)
    return tuple(dict.fromkeys(f.strip("`") for f in found if f.strip("`")))


def analyse(question: str) -> Asked:
    """The analysis of a question (parsed when it is English)."""
    text = " ".join(question.split())
    lang = language(text)
    if lang != "en":
        return _analyse_words(text, lang)
    return _analyse_parse(text)


def _question_sentence(doc: Any) -> Any:
    """The sentence that asks: the last one with a question word ("The manual warns of X. Which format …?")."""
    return next((s for s in reversed(list(doc.sents)) if any(t.lower_ in k.WH_WORDS for t in s)), doc[-1].sent)


def _wh_token(sentence: Any) -> Any | None:
    """The question word, not one that opens a clause before it ("When the server starts, which file …?")."""
    found = [t for t in sentence if t.lower_ in k.WH_WORDS and t.lower_ != "was"]
    commas = [t.i for t in sentence if t.text == ","]
    opening = [t for t in found if (t.pos_ == "SCONJ" or t.dep_ == "advmod" and t.head.dep_ == "advcl")
               and any(t.i < c < w.i for c in commas for w in found)]  # a clause, then a comma, then the question
    return next((t for t in found if t not in opening), found[0] if found else None)


def code_tokens(text: str) -> list[str]:
    """The code-shaped tokens of a text, as written (a backquoted one without its quotes)."""
    return [m.group(1) or m.group(2) for m in CODE_TOKEN.finditer(text)]


def _named(text: str) -> tuple[str, ...]:
    spans = code_tokens(text)
    spans += [m.group(0) for m in VERSION_TOKEN.finditer(text)] + [m.group(1) for m in _QUOTED.finditer(text)]
    return tuple(s.lower() for s in dict.fromkeys(spans) if s)


def _analyse_words(text: str, lang: str) -> Asked:
    """A question the English parser cannot read: its question word, the noun after it, and its other words."""
    low = text.lower()
    words = re.findall(r"[^\W_]+(?:[-.'][^\W_]+)*", low)
    stop = FUNCTION_WORDS | ENGLISH_LOOKALIKES if lang != "en" else FUNCTION_WORDS  # "man", "die": German words here
    wh, focus, kind, counting = "", "", k.TERM, False
    opening: list[str] = []  # the first content words after the question word
    capitals = {m.group(0).lower() for m in re.finditer(r"(?<!^)(?<![.?!]\s)\b[A-ZÄÖÜÀ-Ý][\w-]+", text)}  # German nouns, and names
    for i, w in enumerate(words):
        if w in k.WH_WORDS and not (lang == "en" and w == "was"):
            wh = k.WH_WORDS[w]
            following = [x for x in words[i + 1:i + 4] if x not in stop]
            if wh == "how" and words[i + 1:i + 2] and words[i + 1] in k.DEGREE_AFTER_HOW:
                wh = "how many"
                following = [x for x in words[i + 2:] if x not in stop][:3] if words[i + 1] not in (
                    "oft", "often", "lange", "long") else []  # "wie oft wird der Befehl …": how often, of no noun
            opening = following
            nouns = [x for x in following if lang == "de" and x in capitals]
            if (wh == "which" or wh == "what" and lang == "en" or wh == "how many") and following:
                focus = nouns[0] if nouns else following[0]  # German writes its nouns with a capital: "kleinste Intervall"
            counting = k.WH_WORDS[w] == "how many" or wh == "how many" and words[i + 1] in k.COUNTING_AFTER_HOW
            # "combien de", "wie viele" count; "wie groß" measures, in any unit
            break
    kind, shape = _wh_kind(wh)
    if wh == "how" and k.NAMED_HOW.search(text):
        kind = k.TERM  # "wie werden die Teile benannt?": by their name
    if focus and wh in ("which", "what"):
        kind, shape = k.kind_of_focus(focus, focus, lang)
    default = any(w in k.DEFAULT_WORDS for w in words) or lang == "de" and bool(opening) and opening[0].startswith(
        "standard")  # "was ist die Standardstufe?" asks a default; "welche Variable enthält Standardoptionen?" does not
    if default:
        kind = k.default_kind(kind, focus)
    terms = []
    for w in words:
        if w in stop or w in k.WH_WORDS or w == focus or w in k.DEFAULT_WORDS or w in k.DEGREE_AFTER_HOW \
                or (len(w) < 2 and not w.isdigit()):
            continue
        name = any(c.isdigit() for c in w) or bool(CODE_TOKEN.fullmatch(w)) or bool(_PROGRAM.fullmatch(w)) and \
            w not in capitals  # "dpkg-divert" in small letters names a program; a German compound has a capital
        # German writes every noun with a capital: those are the words a line must hold. Other words of a
        # question the parser cannot read only weigh, and the line must hold most of their weight
        hard = name or w in capitals
        terms.append(Term(key(w), hard=hard, text=w, role="name" if name else "word"))
    for token in code_tokens(text):  # "-k", which the word pattern cuts to "k"
        if not any(t.text == token.lower() for t in terms):
            terms.append(Term(token.lower(), hard=True, text=token.lower(), role="name"))
    described = DEFINES_ELSEWHERE.search(text)
    inside = described.group(1).lower() if described else ""
    if code_tokens(inside):  # "die Option -k": -k must be there; "Option" is its frame
        terms = [t for t in terms if t.text not in inside or t.role == "name"]
    return Asked(text=text, kind=kind, wh=wh, focus=key(focus) if focus else "", shape=shape, default=default,
                 terms=tuple(dict.fromkeys(terms)), required=required_words(text), lang=lang, named=_named(text),
                 counted=key(focus) if counting and focus else "", focus_text=focus,
                 defines=described.group(1).strip() if described else "")


def _base(verb: Any) -> str:
    """A verb's lemma; a base form after "do" is its own ("does the female lay …": lay, not lie)."""
    return verb.lower_ if after_do(verb) else verb_lemma(verb)


def _wh_kind(wh: str) -> tuple[str, str]:
    return {"who": (k.NAME, ""), "when": (k.DATE, ""), "where": (k.PLACE, ""), "why": (k.REASON, ""),
            "how": (k.MANNER, ""), "how many": (k.QUANTITY, "")}.get(wh, (k.TERM, ""))


def _defaulting(token: Any, focus: Any | None = None) -> bool:
    """A word that asks for a default: "the standard port" does, "which standard" (a norm, a noun) does not.

    "Standard" before another noun than the ``focus`` names a term: "which program is the standard output piped
    to?" asks no default program.
    """
    lemma = token.lemma_.lower()
    return lemma in k.DEFAULT_WORDS and not (token.pos_ == "NOUN" and lemma == "standard") and not (
        lemma == "standard" and focus is not None and token.head.i != focus.i)


def _capital_verb(tokens: list[Any], t: Any) -> bool:
    """A capitalised word inside the question tagged as a verb: a name the tagger does not know.

    English capitalises no verb mid-sentence: "What does Zorbit compress?" asks of Zorbit.
    """
    return t.pos_ == "VERB" and t.i > 0 and t.text[:1].isupper() and not tokens[t.i - 1].is_punct


def _analyse_parse(text: str) -> Asked:  # noqa: C901 - one walk over the question's tokens
    from karaka.nlp import parse

    doc = parse(text)
    tokens = list(doc)
    asking = _question_sentence(doc)
    wh_token = _wh_token(asking)
    wh = k.WH_WORDS.get(wh_token.lower_, "") if wh_token is not None else ""
    focus_token = None
    skip: set[int] = set()  # tokens of the question's form, not its content
    if wh_token is not None:
        skip.add(wh_token.i)
        after = tokens[wh_token.i + 1] if wh_token.i + 1 < len(tokens) else None
        if wh == "how" and after is not None and after.lower_ in k.DEGREE_AFTER_HOW:
            wh = "how many"
            skip.add(after.i)
            counted = after.head if after.dep_ == "amod" and after.head.pos_ in ("NOUN", "PROPN") else None
            if counted is None and after.i + 1 < len(tokens) and tokens[after.i + 1].pos_ in ("NOUN", "PROPN"):
                counted = head_of_run(tokens, after.i + 1)
            focus_token = counted
        elif wh in ("which", "what") and after is not None and (after.pos_ in ("NOUN", "PROPN", "ADJ") or
                                                                 before_auxiliary(tokens, after.i) is not None
                                                                 or mistagged_name(tokens, after.i)):
            focus_token = before_auxiliary(tokens, after.i) or head_of_run(tokens, after.i)  # "which X … option"
            if focus_token.lemma_.lower() in k.KIND_NOUNS:  # "what kind of choice" asks for a choice
                of = next((c for c in focus_token.children if c.dep_ == "prep" and c.lower_ == "of"), None)
                pobj = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
                if pobj is not None:
                    skip.add(focus_token.i)
                    focus_token = pobj
        elif wh in ("which", "what") and (wh_token.dep_ in ("attr", "nsubj") or after is not None
                                          and after.lemma_ == "be"):
            subject = next((t for t in tokens if t.dep_ in ("nsubj", "nsubjpass") and t.i != wh_token.i
                            and t.pos_ == "NOUN"), None)  # "what was Aldo Finch?" asks what he was, not for a finch
            if subject is not None and after is not None and after.lemma_ == "be" and (k.CALLED.search(text) and (
                    k.kind_of_focus(subject.text, subject.lemma_)[0] != k.NAME) or after.dep_ not in ("aux", "auxpass")
                    and not any(c.dep_ == "acl" and c.tag_ in ("VBN", "VBG") for c in subject.children)):
                focus_token = subject  # "what is the default line length …" → length, "what is the log file called?" a
                # file (a person's name is any name); not "what was the dog fed?"
    kind, shape = _wh_kind(wh)
    if wh_token is None and asking[0].lower_ in AUXILIARIES and not any(t.lower_ == "or" for t in asking):
        kind = k.POLAR  # "Did Senna dwell in Orrin?": yes or no ("Was A or B born first?" names its answers)
    counted = focus_token if wh == "how many" else None
    if focus_token is not None and wh in ("which", "what"):
        kind, shape = k.kind_of_focus(focus_token.text, focus_token.lemma_)
        if kind == k.NAME and any(t.lemma_.lower() in k.KIND_NOUNS and t.i < focus_token.i for t in tokens):
            kind = k.TERM  # "what kind of text editor is ed?": a kind ("line-oriented"), no one's name
        if kind == k.QUANTITY and focus_token.lemma_.lower() in k.COUNT_NOUNS:
            of = next((c for c in focus_token.children if c.dep_ == "prep" and c.lower_ == "of"), None)
            counted = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        if kind == k.TERM and wh_token is not None and _defaulting(focus_token):
            kind = k.VALUE
    if wh == "how" and kind == k.MANNER and focus_token is None:
        kind = k.MANNER
    if wh in ("which", "what") and k.CALLED.search(text) and kind not in (k.NAME, k.TERM):
        kind, shape = k.TERM, ""  # "what is the particular version … called?": a name, no version number
    if wh in ("which", "what") and k.USED_FOR.search(text):
        kind = k.REASON  # "what is compaction used for?": its purpose
    default = any(_defaulting(t, focus_token) for t in tokens)
    if default:
        kind = k.default_kind(kind, focus_token.lemma_ if focus_token is not None else "")
    verb = past_identifier(tokens, verb_of(asking) or verb_by_position(tokens, focus_token))
    if verb is not None and wh_token is not None and verb.i < wh_token.i < wh_token.head.i \
            and wh_token.head.pos_ == "VERB":
        verb = wh_token.head  # "where the trail ends, who built the hut?": the root the tagger chose opens a clause
    if verb is not None and focus_token is not None and wh_token is not None and wh_token.i < verb.i <= focus_token.i:
        verb = verb_after(tokens, focus_token.i)  # "which curl option limits …": curl names the option, limits acts
    if verb is not None:
        skip.add(verb.i)
    if focus_token is not None:
        skip.add(focus_token.i)
    terms: list[Term] = []
    linking = verb is not None and any(c.dep_ == "acomp" for c in verb.children)  # "stay valid", "remain open"
    if verb is not None and verb.lemma_.lower() not in LIGHT_VERBS:  # a linking verb's adjective says the action
        terms.append(Term(key(_base(verb)), hard=not linking, text=verb.text, role="verb"))
    focus_words = {t.i for t in focus_token.subtree if t.i <= focus_token.i} if focus_token is not None else set()
    if counted is not None:
        focus_words.add(counted.i)  # "the number of tables": a number of tables answers it, the word itself may be left out
    code_spans = [(m.start(), m.end()) for m in CODE_TOKEN.finditer(text)]
    excluded = {w.i for t in tokens if t.lower_ in k.EXCLUDING and t.dep_ == "prep" for w in t.subtree}
    described = _DEFINES.search(text)  # "what does quill do?": quill is the thing asked about, whatever its tag
    defined = {t.i for t in tokens if described and described.group(1) and described.span(1)[0] <= t.idx < described.end(1)}
    defining = kind in (k.NAME, k.TERM) and bool(_IDENTITY.match(text)) and not any(
        t.pos_ == "VERB" and t.lemma_.lower() not in LIGHT_VERBS for t in tokens)  # "what is X?", no action in it
    if kind == k.NAME and defining and all(t.pos_ == "PROPN" or t.i and t.is_title for t in tokens if t.is_alpha
                                           and t.i not in skip and t.lower_ not in FUNCTION_WORDS | k.WH_WORDS.keys()):
        kind = k.TERM  # "Who was Ilse Marr?" asks what the text says she is, not for a name ("Ulric", tagged ADJ)
    for t in tokens:
        if attributive(t) and t.i not in skip:  # "the nobody user": a name, though a function word
            terms.append(Term(key(t.text), hard=True, text=t.text, role="name"))
            continue
        if t.i in skip or t.is_punct or t.lower_ in FUNCTION_WORDS or t.lower_ in k.WH_WORDS:
            continue
        if t.lemma_.lower() in k.DEFAULT_WORDS or t.pos_ in ("DET", "PRON", "CCONJ", "SCONJ") or \
                t.pos_ in ("AUX", "ADP", "PART") and not mistagged_name(tokens, t.i):  # "what curl exit code": a name
            continue
        if t.pos_ == "VERB" and t.lemma_.lower() in LIGHT_VERBS:
            continue
        if any(a <= t.idx < b for a, b in code_spans):
            continue  # a code token is one required word, matched whole
        if not any(c.isalnum() for c in t.text):
            continue
        if t.lower_ in k.DOCUMENT_WORDS or t.i in excluded or k.names_document(tokens, t.i):
            role, hard = "word", False  # "without its command-line utility": what the answer leaves out
        elif t.pos_ == "PROPN" or t.like_num and not (t.pos_ == "ADV" and t.is_alpha) or \
                IDENTIFIER.search(t.text) or _capital_verb(tokens, t):  # "asn1Coding", whatever its tag, names a thing
            role, hard = "name", True  # "look at first" is an order, not a number a line must hold
        elif t.pos_ == "NOUN" or t.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj") or (  # "why should MPs go?":
                t.dep_ in ("csubj", "csubjpass") and not any(  # a subject or object is a noun
                    c.dep_ in ("dobj", "prep", "attr", "acomp", "xcomp", "ccomp", "advmod") for c in t.children)):
            role, hard = "noun", t.i not in focus_words or (  # whatever the tagger called it; a generic noun's
                focus_token is not None and t.dep_ == "compound" and t.head.i == focus_token.i
                and focus_token.lemma_.lower() in k.VALUE_NOUNS)
            # compound says what it is: "the default priority value" is the default priority
        elif defining or t.i in defined:  # "what is wobble?", "what does quill do?": the thing asked about
            role, hard = "noun", True
        elif linking and verb is not None and t.dep_ == "acomp" and t.head.i == verb.i:
            role, hard = "word", verb.lemma_.lower() not in LIGHT_VERBS  # "stay valid": valid is the action
        else:  # only the question's own action is required; "recommend calling": calling may differ
            role, hard = "word", False
        head = key(t.head.lemma_) if t.dep_ in ("amod", "compound") and t.head.pos_ in ("NOUN", "PROPN") else ""
        terms.append(Term(key(t.lemma_ if t.pos_ != "PROPN" else t.text), hard=hard, text=t.text, role=role,
                          head=head))
    for m in CODE_TOKEN.finditer(text):
        token = (m.group(1) or m.group(2)).lower()
        terms.append(Term(token, hard=True, text=token, role="name"))
    focus = key(focus_token.lemma_) if focus_token is not None else ""
    if described:  # "what does the -q option of foo do?": -q must be there; "option", "foo" are its frame
        inside = (described.group(1) or described.group(2)).lower()
        named = [t for t in terms if t.text.lower() in inside and (CODE_TOKEN.fullmatch(t.text) or t.text.isdigit()
                                                                    and inside.endswith(t.text))]  # "return code 4"
        numbered = any(t.text.isdigit() for t in named)  # a number is no rare word: its frame still weighs
        terms = [t if t.text.lower() not in inside or t in named or not named else Term(t.key, False, t.text, "word")
                 for t in terms if t.text.lower() not in k.KEY_VERBS and (numbered or t.text.lower() not in inside
                                                                          or t in named or not named)]
        if verb is not None and verb.lemma_.lower() in k.KEY_VERBS:
            terms, verb = [t for t in terms if t.role != "verb"], None
    if verb is not None and verb.lemma_.lower() == "happen":  # "what happens when …?": no line says "happens"
        terms, verb = [t for t in terms if t.role != "verb"], None
    unique = tuple(dict.fromkeys(t for t in terms if t.key and t.key != focus))
    if not unique and focus_token is not None:  # "what is the default timeout?": the timeout is all that ties a line to it
        unique = (Term(focus, hard=False, text=focus_token.text, role="word"),)
    return Asked(text=text, kind=kind, wh=wh, focus=focus, shape=shape, default=default,
                 verb=key(_base(verb)) if verb is not None and verb.lemma_.lower() not in LIGHT_VERBS else "",
                 particle=next((c.lower_ for c in verb.children if c.dep_ == "prt"), "") if verb is not None else "",
                 negated=verb is not None and any(c.dep_ == "neg" for c in verb.children),
                 terms=unique, required=required_words(text), lang="en", named=_named(text),
                 counted=key(counted.lemma_) if counted is not None else "",
                 focus_text=focus_token.text.lower() if focus_token is not None else "",
                 owners=tuple((key(t.head.lemma_), key(t.text if t.pos_ == "PROPN" else t.lemma_)) for t in tokens
                              if t.dep_ == "poss" and t.pos_ in ("PROPN", "NOUN") and t.head.pos_ == "NOUN"),
                 defines=(described.group(1) or described.group(2)).strip() if described else "",
                 plural=focus_token is not None and focus_token.tag_ in ("NNS", "NNPS") or bool(
                     re.match(r"\s*who\s+(are|were)\b", text, re.IGNORECASE)))


_IDENTITY = re.compile(r"\s*(?:who|what)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?[^\W\d_]", re.IGNORECASE)
"""A question that asks what something is: "What is wobble?", "Who was Ada Quist?"."""

_WHEN_OR_WHERE = r"(?:if|when|once|after|in|on|during|within)\b"
"""What may follow "what does X do": a condition or a place ("… when the disk is full", "… in the notice")."""
_DEFINES = re.compile(rf"(?:^|[,;]\s*)\s*what\s+(?:(?:does|do|did)\s+(?:the\s+|a\s+|an\s+)?(.+?)\s+(?:do(?=\s*\?|\s+"
                      rf"{_WHEN_OR_WHERE})|mean|stand for|represent|control|specify)|happen(?:s|ed)?\s+to\s+"
                      rf"(?:the\s+|your\s+|a\s+)?(.+?))(?:\s+{_WHEN_OR_WHERE}.*)?\s*\?*\s*$", re.IGNORECASE)
"""A question that asks what something is for: "What does the -q option do?"."""
