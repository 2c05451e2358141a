"""GSV tasks: each names its prompts, its output schema and its deterministic checks."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.store.schema import KARAKAS

_LINE = re.compile(r"^\[L(\d+)\]\s?(.*)$", re.MULTILINE)


@functools.lru_cache(maxsize=16)
def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A task schema as JSON schema, for providers with constrained decoding."""
    return model.model_json_schema()


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


RELATIONS = ("director", "composer", "producer", "writer", "author", "founder", "performer", "publisher", "creator",
             "father", "mother", "spouse", "brother", "sister", "sibling", "son", "daughter", "child", "birth_date",
             "death_date", "birth_place", "death_place", "burial_place", "nationality", "country", "release_date",
             "founding_date", "employer")


class QueryStep(BaseModel):
    """One step of a plan: an action with kāraka constraints, or a relation of a subject.

    An action step names a verb and the roles the question fills, and asks for one role. A relation
    step ("director of Blood Street", "birth_date of $1") names a subject (an entity of the question,
    or "$n", the answers of step n) and one of ``RELATIONS``.
    """

    goal: str = ""
    verb: str | None = None
    karakas: dict[str, str | None] = Field(default_factory=dict)
    extract: str | None = None
    follow_causes: bool = False
    follow_same_as: bool = True
    relation: str | None = None
    subject: str | None = None

    @field_validator("relation")
    @classmethod
    def _relation(cls, value: str | None) -> str | None:
        if value is None:
            return None
        key = value.strip().lower().replace(" ", "_")
        if key not in RELATIONS:
            raise ValueError(f"relation must be one of {', '.join(RELATIONS)}, got {value!r}")
        return key

    @field_validator("karakas")
    @classmethod
    def _roles(cls, value: dict[str, Any]) -> dict[str, Any]:
        return KriyaItem._known_roles(value)  # type: ignore[operator]

    @field_validator("extract")
    @classmethod
    def _extract(cls, value: str | None) -> str | None:
        if value is None:
            return None
        key = value.strip().upper()
        key = "ADHIKARANA_SPATIAL" if key == "ADHIKARANA" else key
        if key not in EXTRACTS:
            raise ValueError(f"extract must be one of {', '.join(EXTRACTS)}, got {value!r}")
        return key


class Comparison(BaseModel):
    """Compare one attribute of two options (through a relation first when ``via`` names one)."""

    attribute: str
    pick: str = Field(pattern="^(earliest|latest|same)$")
    options: list[str] = Field(min_length=2, max_length=2)
    via: list[str] = Field(default_factory=list)


class QueryPlan(BaseModel):
    """A verified traversal plan."""

    steps: list[QueryStep] = Field(min_length=1, max_length=5)
    compare: Comparison | None = None
    reasoning: str = ""


class MetaphorLink(BaseModel):
    """Which known entity an epithet names."""

    target: str | None = None
    reasoning: str = ""


Check = Callable[[dict[str, Any], str], list[str]]
Confirm = Callable[[list[str], list[dict[str, Any]], str], list[str]]


@dataclass(frozen=True)
class GSVTask:
    """How one kind of extraction plugs into the loop.

    ``checks`` are the hard rule checks of one candidate; ``confirm`` returns the verifier's
    objections that the checker can confirm (an unconfirmed ALL_INVALID is asked again);
    ``correction_key`` is the generation prompt used when a parser draft (the seed) exists, and
    ``merge`` applies such a correction to the draft.
    """

    name: str
    generate_key: str
    source_field: str
    scoring_key: str
    verification_key: str
    schema: type[BaseModel]
    checks: Check | None = None
    confirm: Confirm | None = None
    correction_key: str | None = None
    output: Callable[[str, dict[str, Any] | None], dict[str, Any]] | None = None
    merge: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None
    """Apply a correction to the draft it corrects (what the correction leaves out is kept)."""

    def budget(self, schema: dict[str, Any], configured: int) -> int:
        """Tokens a reply fitting ``schema`` may need: room for every Kriyā it may hold, at least ``configured``.

        A grammar keeps a reply inside the schema, but a reply cut off by its budget is still broken JSON.
        """
        most = schema.get("properties", {}).get("kriyas", {}).get("maxItems")
        return max(configured, TOKENS_PER_KRIYA * int(most) + 32) if most else configured

    def llm_schema(self, source: str, seed: dict[str, Any] | None = None) -> dict[str, Any]:
        """Return the JSON schema a candidate for ``source`` (correcting ``seed``) must fit.

        Providers with constrained decoding decode into it.
        """
        return self.output(source, seed) if self.output is not None else json_schema(self.schema)

    def parse(self, raw: str) -> tuple[dict[str, Any] | None, list[str]]:
        """Recover and validate a candidate; returns (data, errors)."""
        try:
            value = recover_json(raw)
        except JSONRecoveryError:
            return None, ["output is not JSON"]
        if isinstance(value, list) and self.schema is KriyaExtraction:
            value = {"kriyas": value}
        try:
            model = self.schema.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "output"
            return None, [f"schema: {where}: {first['msg']}"]
        return model.model_dump(), []


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


def query_checks(data: dict[str, Any], source: str) -> list[str]:
    """Every constraint entity and subject of a plan must be named in the question (or be a step's answer)."""
    lowered = source.lower()
    problems = []

    def named(value: str) -> bool:
        low = value.lower().strip()
        return low in lowered or low.startswith(("step", "$"))

    for i, step in enumerate(data.get("steps", []), 1):
        for role, entity in step.get("karakas", {}).items():
            if entity and not named(entity):
                problems.append(f"step {i}: {role} {entity!r} is not in the question")
        if step.get("subject") and not named(step["subject"]):
            problems.append(f"step {i}: subject {step['subject']!r} is not in the question")
    for option in (data.get("compare") or {}).get("options", []):
        if not named(option):
            problems.append(f"compare: option {option!r} is not in the question")
    return problems


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


_QUESTION_SPAN = {"type": "string", "minLength": 1, "maxLength": 120}
PLAN_OUTPUT: dict[str, Any] = {
    "type": "object", "required": ["steps"], "additionalProperties": False,
    "properties": {
        "steps": {"type": "array", "minItems": 1, "maxItems": 5, "items": {
            "type": "object", "required": ["goal"], "additionalProperties": False,
            "properties": {
                "goal": {"type": "string", "maxLength": 200},
                "verb": _nullable({"type": "string", "minLength": 1, "maxLength": 30}),
                "karakas": {"type": "object", "additionalProperties": False,
                            "properties": {role: _nullable(_QUESTION_SPAN) for role in KARAKAS}},
                "extract": _nullable({"type": "string", "enum": list(EXTRACTS)}),
                "follow_causes": {"type": "boolean"},
                "follow_same_as": {"type": "boolean"},
                "relation": _nullable({"type": "string", "enum": list(RELATIONS)}),
                "subject": _nullable(_QUESTION_SPAN),
            }}},
        "compare": _nullable({
            "type": "object", "required": ["attribute", "pick", "options"], "additionalProperties": False,
            "properties": {"attribute": {"type": "string", "enum": list(RELATIONS)},
                           "pick": {"type": "string", "enum": ["earliest", "latest", "same"]},
                           "options": {"type": "array", "minItems": 2, "maxItems": 2, "items": _QUESTION_SPAN},
                           "via": {"type": "array", "maxItems": 2, "items": {"type": "string", "enum": list(RELATIONS)}}}}),
        "reasoning": {"type": "string", "maxLength": 300},
    },
}
"""What a model writes for a plan: exactly what ``QueryPlan`` accepts (the kāraka keys, ``extract``,
relations and comparisons as enumerations), so constrained decoding cannot write a plan the
validator rejects."""


def plan_output(source: str, seed: dict[str, Any] | None = None) -> dict[str, Any]:
    """The plan schema (the same for every question)."""
    return PLAN_OUTPUT


TASKS: dict[str, GSVTask] = {
    "kriya": GSVTask(
        "kriya", "kriya_extraction_prompt", "lines", "kriya_scoring_prompt",
        "kriya_verification_prompt", KriyaExtraction, kriya_checks, kriya_confirm, "kriya_correction_prompt",
        kriya_output, kriya_merge,
    ),
    "query": GSVTask(
        "query", "query_decomposition_prompt", "question", "query_scoring_prompt",
        "query_verification_prompt", QueryPlan, query_checks, output=plan_output,
    ),
    "metaphor": GSVTask(
        "metaphor", "metaphor_extraction_prompt", "source", "metaphor_scoring_prompt",
        "metaphor_verification_prompt", MetaphorLink, None,
    ),
}


def get_task(name: str) -> GSVTask:
    """Look up a task by name."""
    if name not in TASKS:
        raise ValueError(f"unknown GSV task {name!r}; known: {sorted(TASKS)}")
    return TASKS[name]
