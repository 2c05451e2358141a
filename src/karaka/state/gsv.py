"""State of the GSV-Retry subgraph (input and output narrower than the internal state)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, NotRequired

from typing_extensions import TypedDict


def latest_attempt(left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Keep only the items of the newest attempt: a new attempt's first write resets the list."""
    items = (left or []) + (right or [])
    if not items:
        return []
    newest = max(item["attempt"] for item in items)
    return [item for item in items if item["attempt"] == newest]


class GSVInput(TypedDict):
    """What a caller gives the loop."""

    task: str
    """Task name: kriya, query or metaphor (see karaka.tasks)."""
    source: str
    """The text every call judges against (numbered lines, a question…)."""
    ref: dict[str, Any]
    """Where the source comes from, for diagnostics (doc_id, first_line, last_line, text)."""
    seed: NotRequired[dict[str, Any] | None]
    """An optional free candidate (the parser's analysis) used as Candidate_A."""


class GSVState(GSVInput):
    """The loop's working state."""

    attempt: int
    """Current attempt, from 1."""
    feedback: str
    """Retry feedback appended to the generation prompt ('' on the first attempt)."""
    phase: str
    """'fast' while only Candidate_A is in play, then 'full'."""
    candidates: Annotated[list[dict[str, Any]], latest_attempt]
    """This attempt's candidates: {attempt, label, data, raw, errors, origin}."""
    scores: Annotated[list[dict[str, Any]], latest_attempt]
    """This attempt's scoring calls: {attempt, label, score, reasoning, asks}."""
    verdict: dict[str, Any] | None
    """The blind verifier's {choice, reasoning, shown}."""
    history: Annotated[list[dict[str, Any]], operator.add]
    """One record per finished attempt: candidates, scores, verdict, feedback."""
    golden: dict[str, Any] | None
    """The accepted candidate's data."""
    status: str
    """running, accepted or exhausted."""
    fast_path: bool
    """True when the fast path accepted."""
    llm_calls: Annotated[int, operator.add]
    """LLM calls made by this loop."""
    prompt_tokens: Annotated[int, operator.add]
    """Prompt tokens sent by this loop."""


class GSVOutput(TypedDict):
    """The spec's GSVResult."""

    golden: dict[str, Any] | None
    attempt: int
    status: str
    fast_path: bool
    llm_calls: int
    prompt_tokens: int
    history: list[dict[str, Any]]


class GenerateArgs(TypedDict):
    """One generation branch (sent with Send)."""

    task: str
    source: str
    attempt: int
    feedback: str
    label: str
    ref: dict[str, Any]


class ScoreArgs(TypedDict):
    """One scoring branch (sent with Send)."""

    task: str
    source: str
    attempt: int
    candidate: dict[str, Any]
