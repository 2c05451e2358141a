"""State of the query graph, and the public result it returns (CLI, HTTP API, notebook)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from typing_extensions import TypedDict

from karaka.store.ids import cite_of

Status = Literal["GROUNDED", "UNCERTAIN", "NO_ANSWER", "NO_MATCH", "SMALL_TALK", "ERROR"]
"""GROUNDED: an answer a cited line proves; UNCERTAIN: a candidate answer the lines do not prove, shown as
such with the closest lines; NO_ANSWER: lines were found but no answer they support; NO_MATCH: nothing
relevant; SMALL_TALK: a greeting answered without the documents; ERROR: the question could not be run."""


class Citation(TypedDict):
    """One cited line: where it is in its file, and its text."""

    doc_id: str
    line_number: int
    """The file line the sentence starts on."""
    sentence: int
    """Its place in that line when the line holds several sentences, else 0."""
    text: str
    cite: NotRequired[str]
    """How the citation reads: ``[chronicle 4:8]``, ``[manual, p. 10, line 7]`` (as in the answer's text)."""
    page: NotRequired[int]
    """A PDF's page, from 1 (absent for files without pages)."""
    page_line: NotRequired[int]
    """The line on that page, from 1, headers and footers not counted."""
    section: NotRequired[str]
    """The headings above the line (Markdown, HTML, a book's chapters), outermost first, joined by " › "."""
    chapter: NotRequired[str]
    """A book's chapter number ("4"; "SN 35" in a collection's numbering)."""
    verse: NotRequired[str]
    """The numbered unit (verse, numbered paragraph) within the chapter ("8")."""
    time: NotRequired[str]
    """A recording's line: the time it is spoken at ("12:31")."""


def citation_of(attrs: dict[str, Any]) -> Citation:
    """The citation of a Document node: its file line and text, and its page, section, chapter and verse where set."""
    out = Citation(doc_id=attrs["doc_id"], line_number=attrs["line_number"], sentence=int(attrs.get("sentence") or 0),
                   text=attrs["text"])
    for key in ("page", "page_line"):
        if attrs.get(key):
            out[key] = int(attrs[key])  # type: ignore[literal-required]
    for key in ("section", "chapter", "verse"):
        if attrs.get(key):
            out[key] = str(attrs[key])  # type: ignore[literal-required]
    if ":" in out.get("verse", "") and not out.get("chapter"):  # a recording's line: its time, not a verse
        out["time"] = out.pop("verse")
    out["cite"] = cite_of(out)
    return out


class QueryResult(TypedDict):
    """What a question gets back."""

    question: str
    answer: str
    """The answer text (generated, or extractive: the spans found)."""
    answers: list[str]
    """The answer spans ("He (Rama)" for a pronoun), best first: proved (GROUNDED) or a candidate (UNCERTAIN)."""
    citations: list[Citation]
    """The cited lines, best first, at most ``max_citations``."""
    status: Status
    confidence: float
    retry_count: int
    llm_calls: int
    retrieval: Literal["graph", "hybrid"]
    intent: Literal["answer", "find", "basic", "reference"]
    plan: dict[str, Any] | None
    answer_mode: Literal["generated", "extractive"]
    warnings: list[str]
    reasoning_trace: list[str]
    documents: NotRequired[list[dict[str, Any]]]
    """A search's documents, best first: ``doc_id``, ``score`` (its three best lines'), ``best_line`` (a citation)."""
    chapters: NotRequired[list[dict[str, Any]]]
    """A search's book chapters, best first: ``doc_id``, ``chapter``, ``score``."""
    evidence: NotRequired[dict[str, Any]]
    """Why: the chosen candidate's source, whether its line proves it (and if not, why not), its features."""
    error: NotRequired[str]


def last_turns(left: list[dict[str, Any]] | None, right: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Conversation memory: keep the last 5 turns of a thread."""
    return ((left or []) + (right or []))[-5:]


class QueryInput(TypedDict):
    """A question."""

    question: str


class QueryState(QueryInput):
    """Working state of one question; ``turns`` persists per thread."""

    turns: Annotated[list[dict[str, Any]], last_turns]
    """Earlier questions and answers of this thread (for follow-ups)."""
    intent: Literal["answer", "find", "basic", "reference"]
    standalone: NotRequired[str]
    """The question with its thread's context, as the planner sees it."""
    plan: dict[str, Any] | None
    """The golden plan (a QueryPlan's shape: steps of verb, karakas, extract)."""
    plan_info: dict[str, Any]
    """Plan loop outcome: status, attempts, llm_calls, method, cause."""
    hits: list[str]
    """Retrieval's lines (Document nodes), best first: ranked once for the question."""
    kriyas: list[str]
    """Kriyā ids on the reasoning path, best first."""
    graph_lines: list[str]
    """The lines of those Kriyās, or of the facts a multi-hop plan read (Document nodes), best first."""
    facts: list[dict[str, Any]]
    """Values a multi-hop plan read hop by hop, each with its line: ``{value, line}``."""
    context: list[Citation]
    """Context lines, best first, capped."""
    answers: list[str]
    """Answer spans for display ("He (Rama)")."""
    referents: list[str]
    """What each answer refers to ("Rama"); a follow-up's pronouns resolve to these."""
    trace: list[str]
    """The reasoning trace."""
    retrieval: Literal["graph", "hybrid"]
    llm_calls: int
    """LLM calls for this question."""
    result: dict[str, Any]
    """The final QueryResult."""


class QueryOutput(TypedDict):
    """The query result."""

    result: QueryResult
