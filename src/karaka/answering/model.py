"""With a model, the model reads: one request over the best lines, and deterministic checks decide.

The model gets the question, the lines read (at most ``LINES``: the ones the offline reader found
best first, then the graph's and retrieval's fused, each with its coordinates) and the offline
reader's best candidates as hints, and replies with the number of the line that states the
answer, the words of that line that state it, and the answer. Its answer is *verified* when the
quote is in that line, every number, date and name the answer states is in that line or the
question, and it states the kind of thing asked for (a number for "how many", a name for "who", a
reason its line gives for "why"), and it is not made only of words the question wrote (unless the question
offers a choice: "… A or B?").
A reply that is no JSON of that shape is asked once more. Which answer stands is ``settle``'s decision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.candidate import MODEL, Candidate
from karaka.answering.evidence import Evidence
from karaka.answering.explains import reasons
from karaka.answering.question import VERSION_TOKEN, Asked
from karaka.answering.spans import spans
from karaka.answering.stems import key, same
from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.models.call import LLMCallError
from karaka.services import Services, ask
from karaka.state.query import Citation
from karaka.store.ids import cite_of
from karaka.words import ARTICLES, FUNCTION_WORDS, WORD

LINES = 8
HINTS = 3
MAX_REQUESTS = 2
"""A second request only for a reply that is no JSON of the schema's shape (or a failed call)."""
QUOTE_CHARS = 120
"""The quote is evidence, not the answer: its first words locate it in the line, and each token costs a decode."""
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:/-]\d+)*(?![\w])")
_NAME = re.compile(r"(?<![\w.])(?:[A-Z][\w'-]+|[A-Z]\.)(?:\s+(?:[A-Z][\w'-]+|[A-Z]\.))+")
_UNSAID = ARTICLES | {"any", "some"}
"""Words a short answer may leave out of what its line says: articles and the determiners of any amount. Not
"no" (it says the opposite), nor a possessive ("his brother" is not "her brother")."""
_LEADING = frozenset("the a an in on at it this that these those for by with as from to and but or so if when "
                     "while after before since yes no according".split())


@dataclass
class Reading:
    """The model's reply, checked: its answer, the line it cites, and what the checks found."""

    answer: str = ""
    line: int = 0
    """The cited line's number in the list (1 …), 0 for none."""
    quote: str = ""
    problems: list[str] = field(default_factory=list)
    requests: int = 0

    @property
    def verified(self) -> bool:
        return bool(self.answer) and self.line > 0 and not self.problems


def schema(count: int) -> dict[str, Any]:
    """The reply the model must give: a line number (0: none), a quote of it, a short answer."""
    return {"type": "object", "properties": {
        "quote": {"type": "string", "maxLength": QUOTE_CHARS},
        "line": {"type": "integer", "enum": list(range(count + 1))},
        "answer": {"type": "string", "maxLength": 200}},
        "required": ["quote", "line", "answer"]}


def _bare(text: str) -> str:
    """Text compared for facts: lower case, letters and digits only, one space between words."""
    return " " + " ".join(re.sub(r"[^\w]+", " ", text.lower().replace(",", "")).split()) + " "


def unsupported_facts(answer: str, source: str) -> list[str]:
    """Numbers, dates and names of ``answer`` that ``source`` does not hold."""
    found = [m.group(0) for m in _NUMBER.finditer(answer)]
    for m in _NAME.finditer(answer):  # "In Lisbon" at a sentence's start names Lisbon
        words = m.group(0).split()
        while words and words[0].lower() in _LEADING:
            words.pop(0)
        if words:
            found.append(" ".join(words))
    held = _bare(source)
    return [f for f in dict.fromkeys(found) if _bare(f) not in held]


def states_kind(asked: Asked, answer: str) -> bool:
    """Whether an answer states something of the kind asked for beyond the question's words."""
    if asked.kind in (k.TERM, k.REASON, k.MANNER, k.VALUE, k.POLAR):
        return True
    from karaka.nlp import parse

    doc = parse(answer) if asked.lang == "en" else None
    question = asked.text.lower()
    return any(s.text.lower() not in question for s in spans(asked, answer, doc) if s.kind == asked.kind)


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w%.-]+", " ", text.lower()).split())


def _kept(text: str) -> str:
    """``_plain`` text without the words a short answer may leave out (``_UNSAID``)."""
    return " ".join(w for w in _plain(text).split() if w not in _UNSAID)


_LIST = re.compile(r"\s*(?:[,;]|\band\b|\bor\b)\s*", re.IGNORECASE)
"""What joins the items of a list answer."""


def _said(answer: str, text: str) -> bool:
    """Whether a line says the answer.

    A short answer must appear word for word (``_UNSAID`` and case aside: "to break cycles" is said
    by "to break any cycles"), or each item of it, when it lists them ("-1, -9" is said by "-1 or
    -9"), a longer one with every content word of it ("binary choice" is not said by "a binary
    …, or a two-way choice").
    """
    words = _kept(answer).split()
    if not words:
        return False
    if len(words) <= 4:
        kept = _kept(text)
        if " ".join(words) in kept:
            return True
        items = [i for i in map(_kept, _LIST.split(answer)) if i]  # "-1, -9": a list the line says item by item
        return len(items) > 1 and all(i in kept for i in items)
    said = {w.rstrip(".") for w in _plain(text).split()}  # "Kaluza." ends its sentence
    return all(w.rstrip(".") in said or len(w) <= 3 for w in words)


def check(asked: Asked, reading: Reading, lines: list[Citation]) -> list[str]:
    """What is wrong with the model's reply, each problem named ([] when it is verified).

    A quote found in another listed line than the one numbered moves the reading to that line:
    the quote is the evidence, the number only points at it.
    """
    if not reading.answer or reading.line == 0:
        return []
    quote = _plain(reading.quote)
    holding = [n for n, c in enumerate(lines, 1) if quote and quote in _plain(c["text"])]
    if holding and reading.line not in holding and len(holding) == 1:
        reading.line = holding[0]
    if not 1 <= reading.line <= len(lines):
        return [f"line {reading.line} is not one of the {len(lines)} lines"]
    text = lines[reading.line - 1]["text"]
    problems = []
    if quote and quote not in _plain(text):
        problems.append(f"the quote {reading.quote[:60]!r} is not in line {reading.line}")
    problems += [f"{fact!r} is not in line {reading.line}" for fact in
                 unsupported_facts(reading.answer, text + " " + asked.text)]
    about = f"{text} {lines[reading.line - 1].get('section', '')} {lines[reading.line - 1]['doc_id']}".lower()
    problems += [f"line {reading.line} is not about {version}" for version in
                 dict.fromkeys(m.group(0).lstrip("v") for m in VERSION_TOKEN.finditer(asked.text))
                 if version not in about]  # "when was 1.1.0 released?" is not answered by 1.0.1's date
    if not _said(reading.answer, text):
        problems.append(f"line {reading.line} does not say {reading.answer[:60]!r}")
    if asked.kind != k.POLAR and not re.search(r"\bor\b", asked.text) and _all_asked(asked, reading.answer):
        problems.append("the answer is the question's own words")  # "Ahab" for "the name of Ahab's ship"
    if not states_kind(asked, reading.answer):
        problems.append(f"the answer names no {asked.kind}")
    elif asked.kind == k.REASON and asked.lang == "en" and not gives_reason(reading.answer, text):
        problems.append(f"line {reading.line} gives no reason where it says {reading.answer[:40]!r}")
    return problems


def _all_asked(asked: Asked, answer: str) -> bool:
    """Whether every word of an answer is one the question wrote ("Ahab" for "the name of Ahab's ship")."""
    own = [key(w) for w in WORD.findall(answer) if w.lower() not in FUNCTION_WORDS]
    written = [key(w) for w in WORD.findall(asked.text)]
    return bool(own) and all(any(same(w, q) for q in written) for w in own)


_REASON_START = re.compile(r"\s*(?:because|since|so|to|in order|due|owing|as|for)\b", re.IGNORECASE)


def gives_reason(answer: str, text: str) -> bool:
    """Whether an answer to "why?" is a reason.

    It says so itself ("to break cycles", "because …"), or most of its words stand in a reason or
    purpose clause of its line: what the offline reader reads as one (``explains.reasons``).
    """
    if _REASON_START.match(answer):
        return True
    from karaka.nlp import parse

    words = set(_plain(answer).split()) - _UNSAID
    return bool(words) and any(len(words & set(_plain(s.text).split())) >= len(words) / 2
                               for s in reasons(text, parse(text)))


def _parse(reply: str, count: int) -> Reading:
    try:
        value = recover_json(reply)
    except JSONRecoveryError:
        return Reading(problems=["the reply is not JSON"])
    if not isinstance(value, dict):
        return Reading(problems=["the reply is not a JSON object"])
    try:
        line = int(value.get("line") or 0)
    except (TypeError, ValueError):
        line = -1
    answer = str(value.get("answer") or "").strip().strip("[]").strip()  # "[-c, --create]" reads as a citation
    reading = Reading(answer=answer, line=line, quote=str(value.get("quote") or "").strip())
    if not 0 <= line <= count:
        reading.problems.append(f"line {line} is not one of the {count} lines")
    return reading


def hints_text(hints: list[Candidate], lines: list[Citation], nodes: list[str]) -> str:
    """The offline reader's best candidates, as the prompt shows them."""
    shown = []
    for c in hints[:HINTS]:
        if c.node in nodes:
            shown.append(f'- "{c.shown}" (line {nodes.index(c.node) + 1})')
    return ("A reader's guesses, which may be wrong:\n" + "\n".join(shown) + "\n") if shown else ""


def read(services: Services, asked: Asked, lines: list[Citation], nodes: list[str],
         hints: list[Candidate]) -> Reading:
    """The model's reading of ``lines`` (Document ``nodes`` in the same order), checked; at most two requests."""
    listing = "\n".join(f"{n}. {cite_of(c)} {c['text']}" for n, c in enumerate(lines, 1))
    feedback = ""
    reading = Reading()
    requests = 0
    while requests < MAX_REQUESTS:
        requests += 1
        try:
            reply = ask(services, "answer_read_prompt", schema=schema(len(lines)), max_tokens=256, greedy=True,
                        hints=hints_text(hints, lines, nodes), lines=listing, question=asked.text + feedback).text
        except LLMCallError as exc:
            reading = Reading(problems=[f"the model call failed: {exc}"])
            continue
        reading = _parse(reply, len(lines))
        if not reading.problems:
            reading.problems += check(asked, reading, lines)
            break  # a reply of the right shape is final: read greedily, a second request repeats it (on docs dev
            # with Qwen 1.5B, 13 of 18 repeated it word for word and none of the 18 passed the checks)
        feedback = (f"\n\n(Your last reply was rejected: {'; '.join(reading.problems[:3])}. Reply with the JSON "
                    "object only.)")
    reading.requests = requests
    return reading


def as_candidate(reading: Reading, nodes: list[str]) -> Candidate | None:
    """A verified reading as a candidate of its own."""
    if not reading.verified:
        return None
    evidence = Evidence(cover=1.0, near=1.0, missing=[], typed=True, notes=["the model's answer, checked"])
    return Candidate(reading.answer, "model", nodes[reading.line - 1], MODEL, evidence, score=1.0)


def agrees(reading: Reading, candidate: Candidate, nodes: list[str]) -> bool:
    """Whether the model's answer and an offline candidate say the same from the same line."""
    if reading.line < 1 or nodes[reading.line - 1] != candidate.node:
        return False
    a, b = _bare(reading.answer), _bare(candidate.shown)
    return b.strip() in a or a.strip() in b
