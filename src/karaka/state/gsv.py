"""State of the GSV-Retry subgraph (input and output narrower than the internal state)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired

from typing_extensions import TypedDict

Label = Literal["Candidate_A", "Candidate_B", "Candidate_C"]
Phase = Literal["fast", "full"]
Status = Literal["running", "accepted", "exhausted"]
Origin = Literal["parser", "alternative", "llm"]


class Candidate(TypedDict):
    """One candidate of one attempt."""

    attempt: int
    label: Label
    data: dict[str, Any] | None
    """The parsed, schema-valid output (None when it could not be read)."""
    raw: str
    """What the model wrote (or the parser's JSON)."""
    errors: list[str]
    """Why it cannot be used (unreadable, schema, failed rule checks); empty when valid."""
    origin: Origin
    what: NotRequired[str]
    """For the parser's other reading: what it changes against Candidate_A."""


class Score(TypedDict):
    """One scoring slot's outcome."""

    attempt: int
    label: Label
    score: int | None
    """1–100, or None when no valid score came after the allowed asks."""
    reasoning: str
    asks: int


class Verdict(TypedDict):
    """The blind verifier's decision."""

    choice: str
    """A label, or ALL_INVALID."""
    reasoning: str
    violations: list[str]
    shown: list[Label]
    """The labels the verifier saw."""
    confirmed: bool
    """For ALL_INVALID: whether the checker confirmed a violation it names (or no candidate was valid)."""
    asks: int
    """Verifier calls made (an unconfirmed ALL_INVALID is asked again)."""


class Attempt(TypedDict):
    """One finished attempt, as kept in the history and the failure log."""

    attempt: int
    candidates: list[dict[str, Any]]
    scores: dict[str, float | None]
    score_calls: list[dict[str, Any]]
    verdict: Verdict | None
    feedback: str
    accepted: NotRequired[str]


def latest_attempt(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """Keep only the items of the newest attempt; older attempts' items are dropped.

    ``start_attempt`` writes a reset marker (``{"attempt": n, "reset": True}``) to each list, so an
    attempt that writes nothing else to a list (no valid candidate, so nothing scored) still
    starts it empty: no stale scores survive into its record. Markers are not kept.
    """
    items = (left or []) + (right or [])
    if not items:
        return []
    newest = max(item["attempt"] for item in items)
    return [item for item in items if item["attempt"] == newest and not item.get("reset")]


class GSVInput(TypedDict):
    """What a caller gives the loop."""

    task: str
    """Task name: kriya, query or metaphor (see karaka.gsv)."""
    source: str
    """The text every call judges against (numbered lines, a question…)."""
    ref: dict[str, Any]
    """Where the source comes from, for diagnostics (doc_id, first_line, last_line, text)."""
    seed: NotRequired[dict[str, Any] | None]
    """An optional free candidate (the parser's analysis) used as Candidate_A."""
    alternatives: NotRequired[list[dict[str, Any]] | None]
    """The parser's other readings (``{"what", "data"}``), offered two an attempt as Candidates B and C.

    Given (even empty), the LLM chooses and never writes: with none, a Candidate_A the fast path
    does not accept ends the loop (the caller's parser fallback).
    """


class GSVState(GSVInput):
    """The loop's working state."""

    attempt: int
    """Current attempt, from 1."""
    feedback: str
    """Retry feedback appended to the generation prompt ('' on the first attempt)."""
    phase: Phase
    """'fast' while only Candidate_A is in play, then 'full'."""
    candidates: Annotated[list[Candidate], latest_attempt]
    """This attempt's candidates."""
    scores: Annotated[list[Score], latest_attempt]
    """This attempt's scoring slots."""
    verdict: Verdict | None
    """The blind verifier's decision on this attempt."""
    history: Annotated[list[Attempt], operator.add]
    """One record per finished attempt."""
    golden: dict[str, Any] | None
    """The accepted candidate's data."""
    origin: Origin | None
    """Who wrote the accepted candidate."""
    status: Status
    fast_path: bool
    """True when the fast path accepted."""
    cause: str | None
    """Why the loop was exhausted (the last attempt's feedback), None when accepted."""
    llm_calls: Annotated[int, operator.add]
    """LLM calls made by this loop."""
    prompt_tokens: Annotated[int, operator.add]
    """Prompt tokens sent by this loop."""
    completion_tokens: Annotated[int, operator.add]
    """Completion tokens received by this loop."""


class GSVOutput(TypedDict):
    """The spec's GSVResult."""

    golden: dict[str, Any] | None
    origin: Origin | None
    attempt: int
    status: Status
    fast_path: bool
    cause: str | None
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    history: list[Attempt]


class GenerateArgs(TypedDict):
    """One generation branch (sent with Send)."""

    task: str
    source: str
    attempt: int
    feedback: str
    labels: list[Label]
    """The candidates to write (one prompt, one request with ``n`` where the server takes it)."""
    ref: dict[str, Any]
    seed: dict[str, Any] | None


class ScoreArgs(TypedDict):
    """One scoring branch (sent with Send)."""

    task: str
    source: str
    attempt: int
    candidate: Candidate
