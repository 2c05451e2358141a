"""State of the query graph."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired

from typing_extensions import TypedDict


def last_turns(left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Conversation memory: keep the last 5 turns of a thread."""
    return ((left or []) + (right or []))[-5:]


class QueryInput(TypedDict):
    """A question (and, over HTTP, the thread it belongs to)."""

    question: str


class QueryState(QueryInput):
    """Working state of one question; ``turns`` persists per thread."""

    turns: Annotated[list[dict[str, Any]], last_turns]
    """Earlier questions and answers of this thread (for follow-ups)."""
    intent: str
    """answer or find."""
    plan: dict[str, Any] | None
    """The golden plan."""
    plan_info: dict[str, Any]
    """Plan loop outcome: status, attempts, llm_calls, cause."""
    kriyas: list[str]
    """Kriyā ids on the reasoning path."""
    context: list[dict[str, Any]]
    """Context lines {doc_id, line_number, text}, ordered by (doc_id, line)."""
    answers: list[str]
    """Entities in the plan's extract role (display names: "He (Rama)")."""
    referents: list[str]
    """What each answer refers to ("Rama"); a follow-up's pronouns resolve to these."""
    trace: list[str]
    """The reasoning trace."""
    retrieval: str
    """graph or hybrid."""
    llm_calls: int
    """LLM calls for this question."""
    result: dict[str, Any]
    """The final result."""
    standalone: NotRequired[str]
    """The question with its thread's context, as the planner sees it."""


class QueryOutput(TypedDict):
    """The query result."""

    result: dict[str, Any]
