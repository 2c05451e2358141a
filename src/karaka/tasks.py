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


class KriyaItem(BaseModel):
    """One action with its kāraka roles."""

    line: int | None = None
    verb: str = Field(min_length=1)
    karakas: dict[str, str | list[str] | None] = Field(default_factory=dict)
    negated: bool = False
    coreferences: list[CorefHint] = Field(default_factory=list)

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


class QueryStep(BaseModel):
    """One traversal step of a plan."""

    goal: str = ""
    verb: str | None = None
    karakas: dict[str, str | None] = Field(default_factory=dict)
    extract: str | None = None
    follow_causes: bool = False
    follow_same_as: bool = True

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
        if key not in KARAKAS and key != "VERB":
            raise ValueError(f"extract must be a kāraka or VERB, got {value!r}")
        return key


class QueryPlan(BaseModel):
    """A verified traversal plan."""

    steps: list[QueryStep] = Field(min_length=1, max_length=5)
    reasoning: str = ""


class MetaphorLink(BaseModel):
    """Which known entity an epithet names."""

    target: str | None = None
    reasoning: str = ""


Check = Callable[[dict[str, Any], str], list[str]]


@dataclass(frozen=True)
class GSVTask:
    """How one kind of extraction plugs into the loop."""

    name: str
    generate_key: str
    source_field: str
    scoring_key: str
    verification_key: str
    schema: type[BaseModel]
    checks: Check | None = None

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
    """Hard checks: every entity and verb in its line, kartā/karma not swapped."""
    from karaka.analyzer import rule_violations

    lines = source_lines(source)
    problems: list[str] = []
    only = next(iter(lines)) if len(lines) == 1 else None
    for item in data.get("kriyas", []):
        line = item.get("line") or only
        if line not in lines:
            problems.append(f"kriya {item.get('verb')!r}: line {item.get('line')} is not in the source")
            continue
        problems += rule_violations(item, lines[line])
    if not data.get("kriyas"):
        problems.append("no kriyas extracted")
    return problems


def query_checks(data: dict[str, Any], source: str) -> list[str]:
    """Every constraint entity of a plan must be named in the question."""
    lowered = source.lower()
    problems = []
    for i, step in enumerate(data.get("steps", []), 1):
        for role, entity in step.get("karakas", {}).items():
            if entity and entity.lower() not in lowered and not entity.lower().startswith("step"):
                problems.append(f"step {i}: {role} {entity!r} is not in the question")
    return problems


TASKS: dict[str, GSVTask] = {
    "kriya": GSVTask(
        "kriya", "kriya_extraction_prompt", "lines", "kriya_scoring_prompt",
        "kriya_verification_prompt", KriyaExtraction, kriya_checks,
    ),
    "query": GSVTask(
        "query", "query_decomposition_prompt", "question", "query_scoring_prompt",
        "query_verification_prompt", QueryPlan, query_checks,
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
