"""Answers from the cited lines only: extractive without an LLM; generated and checked with one."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.kg.calls import ask
from karaka.models.call import LLMCallError
from karaka.services import Services
from karaka.state.query import Citation
from karaka.store.ids import CITATION, citation_key, cite_of, cited_key

MAX_REQUESTS = 3
"""Most LLM requests one answer may take: answer, check, one more try."""
CONFIDENCE = {"agree": 0.95, "disagree": 0.5, "none": 0.85, "free": 0.5}
"""How often an answer with an LLM was right, by how it was reached (Qwen2.5 1.5B, docs dev, two runs; README)."""
REFUSED = 0.1
KEEP_OFFLINE = 0.3
"""The reader's calibrated confidence at which its answer stands when the model chooses no candidate."""
_QUOTE = re.compile(r"[\"“]([^\"”]{8,})[\"”]")
_PLACEHOLDER = re.compile(r"\[\s*doc_id\s*,|\bLine\s+n\s*\]", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]{2,}")
_REFUSAL = re.compile(r"\b(documents?|context) (do|does) not (say|contain|mention)|\bcannot (be )?answer", re.IGNORECASE)


@dataclass
class Option:
    """A candidate answer offered to the model, with the line it was read from."""

    text: str
    line: Citation


def format_context(context: list[Citation]) -> str:
    """``[doc_id, Line n]: text`` per line (a PDF's ``[doc, p. 3, line 7]``), best first."""
    return "\n".join(f"{cite_of(c)}: {c['text']}" for c in context)


def _plain(text: str) -> str:
    """Text compared for quotes: case, runs of spaces and spaces before punctuation do not count."""
    return re.sub(r"\s+([,.;:!?)\]])", r"\1", " ".join(text.split())).lower()


def refuses(answer: str) -> bool:
    """True for an answer that says the documents do not hold the answer."""
    return bool(_REFUSAL.search(answer))


_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:/-]\d+)*(?![\w])")
_NAME = re.compile(r"(?<![\w.])(?:[A-Z][\w'-]+|[A-Z]\.)(?:\s+(?:[A-Z][\w'-]+|[A-Z]\.))+")


_LEADING = frozenset("the a an in on at it this that these those for by with as from to and but or so if when "
                     "while after before since yes no according".split())


def _bare(text: str) -> str:
    """Text compared for facts: lower case, letters and digits only, one space between words."""
    return " " + " ".join(re.sub(r"[^\w]+", " ", text.lower().replace(",", "")).split()) + " "


def unsupported_facts(answer: str, context: list[Citation], question: str = "") -> list[str]:
    """Numbers, dates and names of the answer that no context line (nor the question) holds."""
    said = CITATION.sub(" ", answer)
    source = _bare(" ".join(c["text"] for c in context) + " " + question)
    found = [m.group(0) for m in _NUMBER.finditer(said)]
    for m in _NAME.finditer(said):  # "In Speex" at a sentence's start names Speex
        words = m.group(0).split()
        while words and words[0].lower() in _LEADING:
            words.pop(0)
        if words:
            found.append(" ".join(words))
    return [f for f in dict.fromkeys(found) if _bare(f) not in source]


def check_answer(answer: str, context: list[Citation], question: str = "") -> list[str]:
    """Deterministic checks of a generated answer, each problem named.

    It is prose, not JSON; it says something besides citations and the format's placeholder;
    it cites at least one line, and only lines of the context; its quotes are in the context
    (spacing and case aside); every number, date and name it states is in a context line or
    the question (punctuation aside), so a small model cannot slip in a fact of its own.
    """
    stripped = answer.strip()
    if stripped[:1] in "{[" and not CITATION.match(stripped):
        try:
            recover_json(stripped)
            return ["the answer is JSON, not prose"]
        except JSONRecoveryError:
            pass
    if _PLACEHOLDER.search(answer):
        return ["the answer repeats the format's placeholder [doc_id, Line n]"]
    words = _WORD.findall(CITATION.sub(" ", answer))
    if len(words) < 2:
        return ["the answer says nothing besides citations"]
    lines = {citation_key(c) for c in context}
    cited = [(m.group(0), cited_key(*m.groups())) for m in CITATION.finditer(answer)]
    problems = [f"cites {text}, which is not in the context" for text, key in cited if key not in lines]
    if not cited and not refuses(answer):
        problems.append("the answer cites no line of the context")
    text = _plain(" ".join(c["text"] for c in context))
    problems += [f"quote {q!r} is not in the context" for q in _QUOTE.findall(answer) if _plain(q) not in text]
    problems += [f"{fact!r} is in no cited line" for fact in unsupported_facts(answer, context, question)]
    return list(dict.fromkeys(problems))[:4]  # each once, and few: they go into the trace and the feedback


def cited_block(answer: str, context: list[Citation]) -> str:
    """The context lines the answer cites, formatted: what the support judge is shown."""
    keys = {cited_key(*m.groups()) for m in CITATION.finditer(answer)}
    return format_context([c for c in context if citation_key(c) in keys])


def _feedback(problems: list[str], context: list[Citation]) -> str:
    """What a regeneration is told (after the question): why the last answer was rejected, and a real citation."""
    example = cite_of(context[0]) if context else ""
    return (f"\n\n(Your previous answer was rejected: {'; '.join(problems)}. Answer again in plain sentences"
            + (f", citing lines as the context writes them, such as {example}" if example else "") + ".)")


def _yes(services: Services, key: str, **fields: Any) -> tuple[bool, int]:
    try:
        reply = ask(services, key, **fields)
        value = recover_json(reply.text)
    except (LLMCallError, JSONRecoveryError):
        return False, 1
    return isinstance(value, dict) and str(value.get("answer", "")).strip().lower() == "yes", 1


def stream_words(text: str, on_token: Callable[[str], None]) -> None:
    """A text that was not generated, sent to a streaming client word by word like generated tokens."""
    for piece in re.findall(r"\S+\s*", text):
        on_token(piece)


def extractive(context: list[Citation], answers: list[str],
               on_token: Callable[[str], None] | None = None) -> dict[str, Any]:
    """No LLM: the spans read off the graph, with the lines they come from.

    When no span was found the status says so (NO_ANSWER): the lines may hold the answer, but
    nothing was extracted from them.
    """
    cites = " ".join(cite_of(c) for c in context)
    if answers:
        text, status, confidence = f"Extractive answer: {'; '.join(answers)} {cites}".strip(), "GROUNDED", 0.7
    else:
        text, status, confidence = f"No answer span found; the closest lines are {cites}".strip(), "NO_ANSWER", 0.2
    if on_token is not None:
        stream_words(text, on_token)
    return {"answer": text, "status": status, "confidence": confidence, "mode": "extractive", "llm_calls": 0,
            "trace": [f"answer: extractive (no LLM){'' if answers else ', no span found'}"], "regenerations": 0,
            "warnings": []}


def answer_from_context(services: Services, question: str, context: list[Citation], answers: list[str],
                        on_token: Callable[[str], None] | None = None,
                        on_reset: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Generate, check, regenerate within ``MAX_REQUESTS``; never GROUNDED unverified.

    ``on_token`` receives the answer text as it is generated; ``on_reset`` is told when a
    rejected answer is about to be regenerated (so a streaming client can discard it). With
    ``answer_checks`` off only the deterministic checks run (no support call).
    """
    if services.llm is None:
        return extractive(context, answers, on_token)
    checks = services.ctx.answer_checks
    block = format_context(context)
    calls, trace = 0, list[str]()
    text, supported, feedback = "", False, ""
    attempt = 0
    while calls < MAX_REQUESTS:
        if attempt and on_reset is not None:
            on_reset(trace[-1] if trace else "regenerating")
        attempt += 1
        calls += 1
        try:
            text = ask(services, "answer_prompt", on_token=on_token, context=block,
                       question=question + feedback).text.strip()
        except LLMCallError as exc:
            trace.append(f"answer call failed: {exc}")
            continue
        problems = check_answer(text, context, question)
        if problems:
            trace.append(f"answer {attempt} failed checks: {'; '.join(problems)}")
            feedback = _feedback(problems, context)
            continue
        if not checks or refuses(text):  # a refusal claims nothing to check
            supported = True
            break
        if calls >= MAX_REQUESTS:
            trace.append(f"answer {attempt}: no request left to verify it")
            break
        supported, used = _yes(services, "answer_support_prompt", context=cited_block(text, context) or block,
                               answer=text)
        calls += used
        trace.append(f"answer {attempt}: {'supported' if supported else 'not supported'} by the cited lines")
        if supported:
            break
        feedback = _feedback(["a check found a claim the cited lines do not support; say only what they say"],
                             context)
    regenerations = max(0, attempt - 1)
    if not supported or (refuses(text) and answers):  # never GROUNDED unverified: the graph's spans instead
        why = ("the model found no answer in the lines, but the graph did" if supported else
               f"the generated answer could not be verified against the cited lines in {MAX_REQUESTS} requests")
        fallback = extractive(context, answers)
        if on_reset is not None:
            on_reset(why)
        if on_token is not None:
            on_token(fallback["answer"])
        return {**fallback, "mode": "extractive-fallback", "llm_calls": calls, "regenerations": regenerations,
                "trace": trace + fallback["trace"], "warnings": [f"{why}; the extractive answer is shown"]}
    if refuses(text):
        return {"answer": text, "status": "NO_ANSWER", "confidence": REFUSED, "mode": "generated",
                "llm_calls": calls, "trace": trace + ["answer: the model found no answer in the lines"],
                "regenerations": regenerations, "warnings": []}
    return {"answer": text, "status": "GROUNDED", "confidence": CONFIDENCE["free"], "mode": "generated",
            "llm_calls": calls, "trace": trace, "regenerations": regenerations, "warnings": []}


def not_said(related: list[Citation]) -> str:
    """The answer when the model finds nothing: it says so, and offers the related lines."""
    return "The documents do not say. Related lines: " + " ".join(cite_of(c) for c in related)


def choice_schema(count: int) -> dict[str, Any]:
    """The reply a choice among ``count`` candidates must fit: a number (0: none) and the prose answer."""
    return {"type": "object", "properties": {"choice": {"type": "integer", "enum": list(range(count + 1))},
                                             "answer": {"type": "string"}},
            "required": ["choice", "answer"]}


def _choice(reply: str, count: int) -> tuple[int | None, str]:
    """The chosen number (None when the reply is no choice) and the prose of a choice reply."""
    try:
        value = recover_json(reply)
    except JSONRecoveryError:
        return None, reply.strip()
    if not isinstance(value, dict):
        return None, reply.strip()
    try:
        number = int(value.get("choice"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = -1
    return (number if 0 <= number <= count else None), str(value.get("answer") or "").strip()


def choose_answer(services: Services, question: str, context: list[Citation], options: list[Option],
                  offline: dict[str, Any]) -> dict[str, Any]:
    """GSV-Retry on answers: the offline reader scores the candidates, the model chooses, both must agree.

    ``options`` are the offline reader's candidates, best first, each with its line; ``offline``
    is its answer (``answer``, ``status``, ``confidence``). One request in the common case: the
    model picks a candidate, blind to the reader's scores, and writes the answer. When it picks the
    reader's best, scorer and chooser agree and its answer stands once the deterministic checks
    pass. When it picks another, the reader's answer stands with less confidence: on the docs dev
    set the model's other picks were right 2 times in 12, the reader's best 6 (README). When it
    picks none, a confident reader's answer stands, else the answer is NO_ANSWER. A reply that is
    no choice is asked again once. Prose that fails the checks is replaced by the candidate and
    its citation, so a bad sentence never hides a good choice.
    """
    block = format_context(context)
    listed = "\n".join(f"{n}. {o.text} (from {cite_of(o.line)})" for n, o in enumerate(options, 1))
    calls, trace, feedback = 0, list[str](), ""
    number: int | None = None
    prose = ""
    while calls < MAX_REQUESTS - 1 and number is None:
        calls += 1
        try:
            reply = ask(services, "answer_choice_prompt", schema=choice_schema(len(options)), context=block,
                        candidates=listed, question=question + feedback).text
        except LLMCallError as exc:
            trace.append(f"choice call failed: {exc}")
            continue
        number, prose = _choice(reply, len(options))
        if number is None:
            trace.append("the reply chose no candidate")
            feedback = f"\n\n(Reply with JSON: choice is a number from 0 to {len(options)}.)"
    base = {"mode": "chosen", "regenerations": max(0, calls - 1), "warnings": list[str]()}
    if number is None or number == 0:
        trace.append("the model chose no candidate" if number == 0 else "no choice after two requests")
        if offline["confidence"] >= KEEP_OFFLINE:
            return {**offline, **base, "mode": "extractive-fallback", "llm_calls": calls,
                    "confidence": CONFIDENCE["none"], "trace": trace + ["the reader's confident answer stands"],
                    "warnings": ["the model chose none of the reader's candidates"]}
        return {**base, "answer": not_said(context[:3]), "status": "NO_ANSWER", "confidence": REFUSED, "llm_calls": calls,
                "trace": trace + ["answer: no candidate holds the answer"]}
    option = options[number - 1]
    if number != 1:  # the reader's answer stands: the model's prose is not checked, it is not shown
        trace.append(f"choice {number} ({option.text!r}) is not the reader's best: the reader's answer stands")
        return {**offline, **base, "mode": "extractive-fallback", "confidence": CONFIDENCE["disagree"],
                "llm_calls": calls, "trace": trace,
                "warnings": [f"the model chose {option.text!r}, not the reader's best; the reader's answer is "
                             "shown, with less confidence"]}
    problems = check_answer(prose, [option.line] + [c for c in context if c is not option.line], question)
    if problems or _plain(option.text) not in _plain(prose):
        trace.append(f"choice 1: its prose {'failed checks: ' + '; '.join(problems) if problems else 'does not state it'};"
                     " the candidate and its line are the answer")
        prose = f"{option.text} {cite_of(option.line)}"
    return {**base, "answer": prose, "status": "GROUNDED", "confidence": CONFIDENCE["agree"], "llm_calls": calls,
            "chosen": option.text, "trace": trace + ["choice 1: the model and the reader agree"]}
