"""Recover a JSON value from what a language model actually writes."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)(```|$)", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class JSONRecoveryError(ValueError):
    """No JSON value could be recovered; carries the raw text for the log."""

    def __init__(self, raw: str):
        super().__init__(f"no JSON found in model output: {raw[:200]!r}")
        self.raw = raw


def strip_think(text: str) -> str:
    """Remove ``<think>…</think>`` blocks, also an unclosed one at the end."""
    return _THINK.sub("", text).strip()


def _balanced_prefix(text: str) -> str | None:
    """Return the first balanced {...} or [...] span, or a repaired truncated one."""
    start = next((i for i, ch in enumerate(text) if ch in "{["), None)
    if start is None:
        return None
    stack: list[str] = []
    in_str: str | None = None
    escape = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == in_str:
                in_str = None
            continue
        if ch in "\"'":
            in_str = ch
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack[-1] != ch:
                return text[start:i]
            stack.pop()
            if not stack:
                return text[start : i + 1]
    # Truncated output: close the open string and brackets.
    tail = text[start:]
    if in_str:
        tail += in_str
    tail = re.sub(r",\s*$", "", tail.rstrip())
    tail = re.sub(r":\s*$", ": null", tail)
    return tail + "".join(reversed(stack))


def _loads(candidate: str) -> Any:
    for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
        try:
            return json.loads(attempt)
        except json.JSONDecodeError:
            pass
    pythonish = _TRAILING_COMMA.sub(r"\1", candidate)
    pythonish = re.sub(r"\btrue\b", "True", pythonish)
    pythonish = re.sub(r"\bfalse\b", "False", pythonish)
    pythonish = re.sub(r"\bnull\b", "None", pythonish)
    try:
        return ast.literal_eval(pythonish)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):  # "{{"a": 1}}": a set of a dict
        raise JSONRecoveryError(candidate) from None


def recover_json(raw: str) -> Any:
    """Parse model output into JSON, tolerating the usual damage.

    Handles ``<think>`` blocks, code fences, leading prose, trailing commas,
    single quotes and output cut off mid-object.

    Raises:
        JSONRecoveryError: when nothing JSON-like is present.
    """
    text = strip_think(raw or "")
    pieces = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for piece in pieces:
        span = _balanced_prefix(piece)
        if span is None:
            continue
        try:
            return _loads(span)
        except JSONRecoveryError:
            continue
    raise JSONRecoveryError(raw or "")
