"""The kriya task: a window's actions and their kāraka roles, the schema a model decodes into, the rule checks, the merge."""

from __future__ import annotations

import functools
import re
from typing import Any

from pydantic import BaseModel, Field, field_validator

from karaka.store.schema import KARAKAS

_LINE = re.compile(r"^\[L(\d+)\]\s?(.*)$", re.MULTILINE)


class CorefHint(BaseModel):
    """A pronoun and what the extractor thinks it refers to."""

    pronoun: str
    refers_to: str | None = None


ADJUNCTS = ("CAUSE", "PURPOSE", "MANNER", "TIME", "PLACE", "OTHER")
EXTRACTS = (*KARAKAS, "CAUSE", "PURPOSE", "MANNER", "VERB")


class KriyaItem(BaseModel):
    """One action with its kāraka roles (surface spans, copied from the line)."""

    line: int | None = None
    verb: str = Field(min_length=1)
    karakas: dict[str, str | list[str] | None] = Field(default_factory=dict)
    negated: bool = False
    coreferences: list[CorefHint] = Field(default_factory=list)
    adjuncts: dict[str, list[str]] = Field(default_factory=dict, json_schema_extra={"x-optional": True})

    @field_validator("adjuncts")
    @classmethod
    def _known_adjuncts(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = [k for k in value if k not in ADJUNCTS]
        if unknown:
            raise ValueError(f"unknown adjunct {unknown[0]!r}; use one of {', '.join(ADJUNCTS)}")
        return value

    @field_validator("karakas")
    @classmethod
    def _known_roles(cls, value: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for role, mention in value.items():
            key = role.strip().upper().replace("Ā", "A")
            key = "ADHIKARANA_SPATIAL" if key == "ADHIKARANA" else key
            if key not in KARAKAS:
                raise ValueError(f"unknown kāraka {role!r}; use one of {', '.join(KARAKAS)}")
            out[key] = mention
        return out


class KriyaExtraction(BaseModel):
    """A window's extraction."""

    kriyas: list[KriyaItem]


_SPAN = {"type": "string", "minLength": 1, "maxLength": 80}
MAX_SPAN_WORDS = 20
MAX_ENUM_WORDS = 80  # a longer line's spans are free strings (capped), not an enumeration


def _kriya_output(lines: list[int], span: dict[str, Any], verb: dict[str, Any], most: int = 8) -> dict[str, Any]:
    return {
        "type": "object", "required": ["kriyas"], "additionalProperties": False,
        "properties": {"kriyas": {"type": "array", "minItems": 1, "maxItems": most, "items": {
            "type": "object", "required": ["line", "verb", "karakas"], "additionalProperties": False,
            "properties": {
                "line": {"type": "integer", "enum": lines} if lines else {"type": "integer", "minimum": 1},
                "verb": verb,
                "karakas": {"type": "object", "additionalProperties": False,
                            "properties": {role: {"$ref": "#/$defs/span"} for role in KARAKAS}},
                "negated": {"type": "boolean"},
            }}}},
        "$defs": {"span": span},
    }


KRIYA_OUTPUT = _kriya_output([], _SPAN, {"type": "string", "minLength": 1, "maxLength": 30})
"""What a model writes for a kriya candidate when the source is not known: bounded spans and actions."""


TOKENS_PER_KRIYA = 64
_NOT_FIRST = frozenset(",;:.!?)]}")
_NOT_LAST = frozenset(",;:([{")


def kriya_output(source: str, seed: dict[str, Any] | None = None) -> dict[str, Any]:
    """``_kriya_spans`` plus the spans of the parser's draft (so a correction can keep every one of them)."""
    extra = tuple(sorted({str(v) for item in (seed or {}).get("kriyas", [])
                          for v in (item.get("karakas") or {}).values() if isinstance(v, str) and v}))
    return _kriya_spans(source, extra)


@functools.lru_cache(maxsize=256)
def _kriya_spans(source: str, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """Build the candidate schema for one source.

    ``line`` is one of its numbers, ``verb`` the base form of one of its verbs, every role a run of
    its words (up to MAX_SPAN_WORDS), copied as written, and no more Kriyās than the source has verbs.

    Constrained decoding then cannot write a word that is not in the line, a phrase for a verb, or a
    line that does not exist: the failure classes a small model shows most. Pronoun hints and
    adjuncts are left to the parser and the post-processing passes.
    """
    from karaka.nlp import parse_many

    lines = source_lines(source)
    if not lines:
        return KRIYA_OUTPUT
    spans: set[str] = set()
    verbs: set[str] = set()
    verb_tokens = 0
    long_line = False
    for doc in parse_many(lines[n] for n in sorted(lines)):
        tokens = [t for t in doc if not t.is_space]
        long_line = long_line or len(tokens) > MAX_ENUM_WORDS
        for i, first in enumerate(tokens):
            if first.text not in _NOT_FIRST:
                spans.update(doc.text[first.idx:last.idx + len(last.text)] for last in tokens[i:i + MAX_SPAN_WORDS]
                             if last.text not in _NOT_LAST and any(t.is_alpha or t.is_digit for t in tokens[i:last.i + 1]))
            if first.pos_ in ("VERB", "AUX") or first.tag_.startswith("VB"):
                verbs.add(first.lemma_.lower())
                verb_tokens += first.dep_ not in ("aux", "auxpass")  # "can see", "was shot": one action
    span = _SPAN if long_line or not spans else {"type": "string", "enum": sorted(spans | set(extra))}
    verb = {"type": "string", "enum": sorted(verbs)} if verbs else KRIYA_OUTPUT["properties"]["kriyas"]["items"][
        "properties"]["verb"]
    # One Kriyā per verb at most: a small model that repeats itself cannot run past its budget.
    return _kriya_output(sorted(lines), span, verb, min(8, max(1, verb_tokens)))


def source_lines(source: str) -> dict[int, str]:
    """The ``[Ln] text`` lines of a kriya source."""
    return {int(n): text for n, text in _LINE.findall(source)}


def kriya_checks(data: dict[str, Any], source: str) -> list[str]:
    """Hard checks: every entity and verb in its line, kartā/karma not swapped, the parse's structural vetoes."""
    from karaka.nlp.rules import rule_violations, shared_problems

    lines = source_lines(source)
    problems: list[str] = []
    only = next(iter(lines)) if len(lines) == 1 else None
    by_line: dict[int, list[dict[str, Any]]] = {}
    for item in data.get("kriyas", []):
        line = item.get("line") or only
        if line not in lines:
            problems.append(f"kriya {item.get('verb')!r}: line {item.get('line')} is not in the source")
            continue
        problems += rule_violations(item, lines[line])
        by_line.setdefault(line, []).append(item)
    for line, items in by_line.items():
        problems += shared_problems(items, lines[line])
    if not data.get("kriyas"):
        problems.append("no kriyas extracted")
    return problems


def _span_key(value: Any) -> str:
    return " ".join(str(value).lower().split())


def kriya_merge(draft: dict[str, Any], correction: dict[str, Any]) -> dict[str, Any]:
    """A correction applied to the parser's draft: it adds missing roles and fixes wrong ones.

    A corrected Kriyā (same line and verb) takes the correction's roles; a draft role whose span the
    correction put elsewhere goes, every other draft role stays; a draft Kriyā the correction does
    not mention stays; a new Kriyā is added. Small models asked for a correction often rewrite one
    action and drop the rest: that is not a correction.
    """
    def key(item: dict[str, Any]) -> tuple[Any, str]:
        return item.get("line"), str(item.get("verb", "")).lower().strip()

    fixes: dict[tuple[Any, str], list[int]] = {}  # a line may hold the same verb twice: pair them in order
    corrections = correction.get("kriyas", [])
    for i, item in enumerate(corrections):
        fixes.setdefault(key(item), []).append(i)
    used: set[int] = set()
    out = []
    for item in draft.get("kriyas", []):
        queue = fixes.get(key(item))
        if not queue:
            out.append(item)
            continue
        index = queue.pop(0)
        used.add(index)
        fix = corrections[index]
        moved = {_span_key(v) for v in (fix.get("karakas") or {}).values() if v}
        kept = {r: v for r, v in (item.get("karakas") or {}).items() if _span_key(v) not in moved}
        out.append({**item, "karakas": {**kept, **(fix.get("karakas") or {})}})
    out += [k for i, k in enumerate(corrections) if i not in used]
    return {**correction, "kriyas": out}


def kriya_confirm(claims: list[str], candidates: list[dict[str, Any]], source: str) -> list[str]:
    """The verifier's objections to kriya candidates that the text confirms."""
    from karaka.nlp.rules import confirm_violations

    return confirm_violations(claims, candidates, source_lines(source))
