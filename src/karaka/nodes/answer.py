"""Grounded answers: one call on the context lines, then citation, support and usefulness checks."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.models.call import LLMCallError
from karaka.nodes.common import ask
from karaka.services import Services

MAX_REGENERATIONS = 3
_CITATION = re.compile(r"\[([^\[\],]+),\s*Line\s+(\d+)\]", re.IGNORECASE)
_QUOTE = re.compile(r"[\"“]([^\"”]{8,})[\"”]")


def format_context(context: list[dict[str, Any]]) -> str:
    """``[doc_id, Line n]: text`` per line, in (doc_id, line) order."""
    return "\n".join(f"[{c['doc_id']}, Line {c['line_number']}]: {c['text']}" for c in context)


def check_answer(answer: str, context: list[dict[str, Any]]) -> list[str]:
    """Deterministic checks: every cited line is in the context; quotes appear verbatim."""
    lines = {(c["doc_id"], int(c["line_number"])) for c in context}
    text = " ".join(c["text"] for c in context)
    problems = [
        f"cites [{doc}, Line {n}], which is not in the context"
        for doc, n in _CITATION.findall(answer) if (doc.strip(), int(n)) not in lines
    ]
    problems += [f"quote {q!r} is not in the context" for q in _QUOTE.findall(answer) if q not in text]
    return problems


def _yes(services: Services, key: str, **fields: Any) -> tuple[bool, int]:
    try:
        reply = ask(services, key, **fields)
        value = recover_json(reply.text)
    except (LLMCallError, JSONRecoveryError):
        return False, 1
    return isinstance(value, dict) and str(value.get("answer", "")).strip().lower() == "yes", 1


def extractive(question: str, context: list[dict[str, Any]], answers: list[str],
               on_token: Callable[[str], None] | None = None) -> dict[str, Any]:
    """No LLM: the entities in the plan's extract role plus the cited lines, labelled extractive."""
    cites = " ".join(f"[{c['doc_id']}, Line {c['line_number']}]" for c in context)
    head = ", ".join(answers) if answers else "(see the cited lines)"
    text = f"Extractive answer: {head} {cites}".strip()
    if on_token is not None:
        for piece in re.findall(r"\S+\s*", text):
            on_token(piece)
    return {"answer": text, "status": "GROUNDED",
            "confidence": 0.7 if answers else 0.4, "mode": "extractive", "llm_calls": 0,
            "trace": ["answer: extractive (no LLM)"], "regenerations": 0, "warnings": []}


def answer_from_context(services: Services, question: str, context: list[dict[str, Any]],
                        answers: list[str], on_token: Callable[[str], None] | None = None,
                        on_reset: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Generate, check, regenerate at most three times; return the last answer with a warning.

    ``on_token`` receives the answer text as it is generated; ``on_reset`` is told when a
    rejected answer is about to be regenerated (so a streaming client can discard it).
    """
    if services.llm is None:
        return extractive(question, context, answers, on_token)
    block = format_context(context)
    calls, trace, warnings = 0, list[str](), list[str]()
    text, supported = "", False
    regenerations = 0
    for attempt in range(MAX_REGENERATIONS + 1):
        regenerations = attempt
        if attempt and on_reset is not None:
            on_reset(trace[-1] if trace else "regenerating")
        try:
            reply = ask(services, "answer_prompt", on_token=on_token, context=block, question=question)
            text = reply.text.strip()
        except LLMCallError as exc:
            calls += 1
            trace.append(f"answer call failed: {exc}")
            continue
        calls += 1
        problems = check_answer(text, context)
        if problems:
            trace.append(f"answer {attempt + 1} failed checks: {'; '.join(problems)}")
            continue
        supported, used = _yes(services, "answer_support_prompt", context=block, answer=text)
        calls += used
        trace.append(f"answer {attempt + 1}: {'supported' if supported else 'not supported'} by the context")
        if supported:
            break
    if not supported:
        warnings.append(f"the answer could not be verified against the context after {MAX_REGENERATIONS} regenerations")
    useful, used = _yes(services, "answer_usefulness_prompt", question=question, answer=text)
    calls += used
    if not useful:
        warnings.append("the verifier judged that the answer may not address the question")
    confidence = (1.0 if supported and useful else 0.6 if supported else 0.3)
    return {"answer": text or "No answer could be generated.", "status": "GROUNDED", "confidence": confidence,
            "mode": "generated", "llm_calls": calls, "trace": trace, "regenerations": regenerations,
            "warnings": warnings}
