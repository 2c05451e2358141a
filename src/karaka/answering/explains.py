"""Spans that explain: a reason ("because …", "to …"), a manner ("by …", "with …"), what a term is defined as."""

from __future__ import annotations

import re
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.identity import defined, defining_verb
from karaka.answering.question import CODE_TOKEN, Asked
from karaka.answering.span import REASON_OPENERS, Span, span_tokens
from karaka.answering.stems import key, same
from karaka.nlp.phrases import slipped_subject
from karaka.words import FUNCTION_WORDS, WORD


def reasons(text: str, doc: Any | None, purpose: bool = False) -> list[Span]:
    """Reason and purpose clauses: what "because", "since", "so that", "due to" or a purpose "to" opens.

    With ``purpose`` (the question asks what a thing is for), "for doing …" too: "a tool for detecting
    errors". A "why" question is not answered so: "principles for discovering a way" is no reason.
    """
    out: list[Span] = []
    if doc is not None and len(doc):
        for token in doc:
            opener = None
            if (token.lower_ == "because" and token.dep_ in ("mark", "prep") or token.lower_ == "since"
                    and token.dep_ == "mark") and token.head.pos_ in ("VERB", "AUX"):
                opener = token  # "since" with a clause; "since the start of 2011" tells time
            elif token.lower_ in ("to",) and token.dep_ == "aux" and token.head.dep_ in ("advcl", "xcomp") \
                    and token.head.tag_ == "VB" and token.head.head.pos_ in ("VERB", "AUX") \
                    and any(c.dep_ in ("dobj", "prep") for c in token.head.head.children if c.i < token.i):
                opener = token  # "closed the bridge to protect the walkers": a purpose after the object
            elif purpose and token.lower_ == "for" and token.dep_ == "prep" and any(
                    c.dep_ == "pcomp" and c.tag_ == "VBG" for c in token.children):
                opener = token  # "a tool for detecting errors", "the cache is for storing wheels": what it serves
            if opener is None:
                continue
            words = sorted(opener.head.subtree if opener.dep_ != "prep" else opener.subtree, key=lambda t: t.i)
            words = [t for t in words if t.i >= opener.i]
            while words and words[-1].is_punct:
                words.pop()  # "(for tweaking knobs)": not its bracket
            if len(words) > 1:
                a, b = words[0], words[-1]
                out.append(Span(doc[a.i:b.i + 1].text, k.REASON, a.idx, b.idx + len(b.text), a.i, b.i))
    for m in REASON_OPENERS.finditer(text):
        if not any(s.start <= m.start() < s.end for s in out):
            out.append(Span(m.group(0).strip(), k.REASON, m.start(), m.end(), *span_tokens(doc, m.start(), m.end())))
    return out


def manners(text: str, doc: Any | None) -> list[Span]:
    """How something is done: "by doing …", "using/with/via X", and code a line gives as the way."""
    out: list[Span] = []
    if doc is not None and len(doc):
        for token in doc:
            if token.dep_ == "prep" and token.lower_ in ("by", "using", "with", "via", "through") and any(
                    c.dep_ in ("pcomp", "pobj") for c in token.children):
                words = sorted(token.subtree, key=lambda t: t.i)
                a, b = words[0], words[-1]
                if b.i > a.i:
                    out.append(Span(doc[a.i:b.i + 1].text, k.MANNER, a.idx, b.idx + len(b.text), a.i, b.i))
        root, goal = _instruction(doc)
        if root is not None and goal is not None and not any(c.dep_ in ("nsubj", "nsubjpass") for c in root.children):
            aside = {t.i for t in goal.subtree}  # "Use X to select Y", "To select Y, use X": the way is "use X"
            words = [t for t in doc if t.i not in aside and not (t.is_punct and (t.i < root.i or t.i == len(doc) - 1))]
            a, b = words[0], words[-1]
            out.append(Span(doc[a.i:b.i + 1].text, k.MANNER, a.idx, b.idx + len(b.text), a.i, b.i))
        elif root is not None and root.tag_ == "VB" and root.i == 0:  # an instruction: "Run make install."
            out.append(Span(text.strip().rstrip("."), k.MANNER, 0, len(text.rstrip().rstrip(".")), 0, len(doc) - 1))
    return out


def purpose(verb: Any) -> Any | None:
    """The purpose an instruction's verb is given for ("Use X to select Y": select), or None."""
    return next((c for c in verb.children if c.dep_ in ("xcomp", "advcl") and c.tag_ == "VB"
                 and any(a.dep_ == "aux" and a.lower_ == "to" for a in c.children)), None)


def _instruction(doc: Any) -> tuple[Any | None, Any | None]:
    """A parsed line's root, and the purpose it is given for when it is a base-form verb (else None)."""
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    return root, purpose(root) if root is not None and root.tag_ == "VB" else None


def instruction_for(asked: Asked, span: Span, doc: Any | None) -> bool:
    """Whether ``span`` is an instruction the line gives for the question's own action: its purpose.

    "Use ospenc --mode nb to select narrowband mode" answers "How do I select narrowband mode?", when every
    noun the question names is in the line itself (not only in the lines around it).
    """
    if doc is None or not len(doc):
        return False
    root, goal = _instruction(doc)
    if root is None or goal is None or span.kind != k.MANNER or not same(key(goal.lemma_), asked.verb) or span.start <= goal.idx < span.end:
        return False
    own = {key(t.lemma_) for t in doc} | {key(t.text) for t in doc}  # the line's own words, not its neighbours'
    return all(any(same(term.key, w) for w in own) for term in asked.terms if term.hard and term.role != "verb")


_OWNER = re.compile(r"\s+(?:of|von|vom|de|du|des)\s+(?:the\s+|der\s+|la\s+|le\s+)?[^\s\d]\S*\s*$", re.IGNORECASE)
"""What a thing asked about belongs to, after it: "exit value 2 of chage", "Rückgabewert 2 von chage"."""


def definitions(asked: Asked, text: str, doc: Any | None) -> list[Span]:
    """What a line says something is for ("What does the -q option do?").

    The rest of a line that starts with it (a table row, a definition list: "-q  Suppress all
    output."), or what follows it as its verb's subject ("The -q option suppresses all output").
    """
    names = [m.group(1) or m.group(2) for m in CODE_TOKEN.finditer(asked.defines)] or [_OWNER.sub("", asked.defines).split()[-1]]
    out = []
    for name in names:
        at = text.find(name)
        if at < 0:
            continue
        rest = text[at + len(name):]
        lead = re.match(r"(?:\s+(?:option|flag|argument|command|setting|directive))?\s*[:=,–-]?\s*", rest)
        start = at + len(name) + (lead.end() if lead else 0)
        if not re.search(r"[^\W\d_]", text[:at]) or (lead and lead.group(0).strip()):  # no word before it: a row
            body = text[start:].strip()
            if len(body.split()) >= 2 and not body.startswith("("):  # "(doc, path)" of a signature says nothing
                out.append(Span(body.rstrip("."), k.TERM, start, start + len(body.rstrip(".")),
                                *span_tokens(doc, start, start + len(body))))
        elif doc is not None and len(doc):
            first, _ = span_tokens(doc, at, at + len(name))
            head = doc[first] if first >= 0 else None
            while head is not None and head.dep_ not in ("nsubj", "nsubjpass") and head.head.i != head.i:
                head = head.head
            if head is not None and head.dep_ in ("nsubj", "nsubjpass") and not any(
                    c.tag_ in ("WRB", "WDT", "WP") or c.dep_ == "mark" for c in head.head.children):
                verb = head.head  # a main clause's: "Where quill keeps its configuration" says where, not what it does
                apart = {t.i for c in verb.children if c.dep_ == "conj" and (any(
                    g.dep_ in ("nsubj", "nsubjpass") for g in c.children) or slipped_subject(c) is not None)
                    for t in c.subtree}
                words = [t for t in verb.subtree if t.i not in apart and (t.i >= verb.i and not t.is_punct or t.i > verb.i)]
                while words and (words[-1].is_punct or words[-1].dep_ == "cc"):
                    words.pop()  # "sank near the island, and Tomas swam": the boat's part ends at the comma
                if len(words) >= 2:
                    a, b = words[0], words[-1]
                    out.append(Span(doc[a.i:b.i + 1].text, k.TERM, a.idx, b.idx + len(b.text), a.i, b.i))
    return out


def described(asked: Asked, text: str, intro: str, doc: Any | None) -> list[Span]:
    """The description under an entry that names what the question asks about ("What does the -q option do?").

    A manual's "-q, --quiet" over "Print nothing but errors.": the whole description is what -q does.
    The entry is a short line that opens with code; a longer line that mentions it (a table's row) is none.
    """
    names = [m.group(1) or m.group(2) for m in CODE_TOKEN.finditer(asked.defines)]
    number = re.search(r"(?<![\w.])\d+$", _OWNER.sub("", asked.defines).strip())  # "return code 4": an entry keyed by a number
    if not names and number and intro.strip() == number.group(0) and len(text.split()) >= 2:
        names = [number.group(0)]  # "4" over "Failed to parse the stylesheet"
    elif not names or not CODE_TOKEN.match(intro.strip()) or len(intro.split()) > 6 or any(n in text for n in names) \
            or not any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", intro) for n in names):
        return []
    body = text.strip().rstrip(".")
    start = text.find(body)
    return [Span(body, k.TERM, start, start + len(body), *span_tokens(doc, start, start + len(body)))] \
        if len(body.split()) >= 2 else []


CONDITIONS = ("when", "if", "once", "after", "whenever")
"""Words that open a condition: "when a segment reaches 64 MB, …"."""
_CONDITION = rf"\b(?:{'|'.join(CONDITIONS)})\b"
_WHAT_HAPPENS = re.compile(rf"\s*what\s+(?:happens|will\s+happen|happened)\s+{_CONDITION}\s+\S", re.IGNORECASE)


def asks_consequence(asked: Asked) -> bool:
    """Whether the question asks what follows a condition ("What happens when a segment reaches 64 MB?")."""
    return bool(_WHAT_HAPPENS.match(asked.text))


def consequences(asked: Asked, doc: Any | None) -> list[Span]:
    """The main clause of a sentence a condition opens or closes: "When a segment reaches 64 MB, it is sealed".

    The condition must say every word of the question's: "if a block fails its check" is no "if a
    block is too large".
    """
    if doc is None:
        return []
    condition_asked = re.split(_CONDITION, asked.text, maxsplit=1, flags=re.IGNORECASE)[-1]
    wanted = {key(w) for w in WORD.findall(condition_asked) if w.lower() not in FUNCTION_WORDS}
    out: list[Span] = []
    for token in doc:
        if token.dep_ not in ("mark", "advmod") or token.lower_ not in CONDITIONS or token.head.dep_ != "advcl":
            continue
        condition, main = token.head, token.head.head
        said = {key(t.lemma_) for t in condition.subtree} | {key(t.text) for t in condition.subtree}
        if not all(any(same(w, s) for s in said) for w in wanted):
            continue
        aside = {t.i for t in condition.subtree}
        words = [t for t in main.subtree if t.i not in aside]
        while words and words[0].is_punct:
            words = words[1:]
        while words and words[-1].is_punct:
            words = words[:-1]
        if len(words) > 1:
            a, b = words[0], words[-1]
            out.append(Span(doc[a.i:b.i + 1].text, k.TERM, a.idx, b.idx + len(b.text), a.i, b.i))
    return out


SAID_TO_BE_WORDS = 30
"""The most words of a description read whole: a longer one is a paragraph, shown as the line it is."""


def said_to_be(asked: Asked, text: str, doc: Any | None) -> list[Span]:
    """What a line says the thing a "what is X?" question asks about is, with what qualifies it.

    "A Combined Work is a work produced by combining or linking an Application with the Library":
    the noun after the copula alone ("a work") repeats the question's noun and says nothing of which;
    its participles, relative clauses and prepositions do. A glossary's "**ECMAScript**: A standard for
    scripting languages." says it after a colon, up to the sentence's end.
    """
    term = defined(asked)
    thing = [key(w) for w in WORD.findall(term)]
    if not thing:
        return []
    out: list[Span] = []
    label = re.match(rf"\W*{re.escape(term)}\W*?:\s+(\S.*?)\s*(?:[.;](?:\s|$)|$)", text, re.IGNORECASE)
    if label and len(label.group(1).split()) < SAID_TO_BE_WORDS:
        out.append(Span(label.group(1), k.TERM, label.start(1), label.end(1), *span_tokens(doc, *label.span(1))))
    if doc is None:
        return out
    for t in doc:
        verb = defining_verb(t) or (t.head if t.dep_ == "attr" and t.head.lemma_ == "be" else None)  # "X is Y",
        subject = next((c for c in verb.children if c.dep_ == "nsubj"), None) if verb is not None else None  # "X
        if subject is None or t.pos_ not in ("NOUN", "PROPN") or \
                not all(any(same(w, key(s.text)) for s in subject.subtree) for w in thing):  # means Y"
            continue
        words = [w for w in t.subtree if not (w.dep_ in ("conj", "cc", "punct") and w.head.i == t.i)]
        comma = next((w.i for w in words if w.text == "," and w.i > t.i), None)
        if len(words) >= SAID_TO_BE_WORDS and comma is not None:  # a long one up to its first comma: "the
            words = [w for w in words if w.i < comma]  # Corresponding Source for the Combined Work, excluding …"
        while words and words[-1].is_punct:
            words.pop()
        a, b = words[0], words[-1]
        if b.i > t.i and b.i - a.i < SAID_TO_BE_WORDS:
            out.append(Span(doc[a.i:b.i + 1].text, k.TERM, a.idx, b.idx + len(b.text), a.i, b.i))
    return out
