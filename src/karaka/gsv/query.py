"""The query task: a question's traversal plan, its schema and its check (every entity named in the question)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from karaka.gsv.kriya import EXTRACTS, KriyaItem
from karaka.store.schema import KARAKAS

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
