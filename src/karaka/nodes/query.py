"""Query stages: intent → GSV plan → traversal (no LLM) → hybrid fallback → grounded answer."""

from __future__ import annotations

import re
from typing import Any, Literal

from langgraph.runtime import Runtime

from karaka.analyzer import question_plan
from karaka.config import Context
from karaka.graphs.gsv import run_gsv
from karaka.nodes.answer import answer_from_context
from karaka.nodes.common import emit, services_of
from karaka.nodes.hybrid import hybrid_search
from karaka.nodes.traverse import answer_names, referents, traverse
from karaka.state.query import QueryState
from karaka.store.resolver import is_pronoun

NO_ANSWER = "I cannot answer this question based on the available documents"
_FIND = re.compile(r"^\s*(find|list|show|search)\b.*\b(documents?|lines?|passages?|sources?)\b(\s+(about|on|for|mentioning))?\s*(?P<topic>.*)$", re.IGNORECASE)
_FOLLOW_UP = re.compile(r"^\s*(and|but|so|then|what about)\b|\b(him|her|it|them|they|he|she|that)\b", re.IGNORECASE)


def classify(state: QueryState) -> dict[str, Any]:
    """Intent (answer or find documents) and the standalone question for the planner."""
    question = state["question"].strip()
    if not question:
        raise ValueError("question is empty")
    turns = state.get("turns") or []
    standalone = question
    if turns and _FOLLOW_UP.search(question):
        last = turns[-1]
        standalone = f"Previous question: {last['question']}\nPrevious answer: {last['answer']}\nQuestion: {question}"
    intent = "find" if _FIND.match(question) else "answer"
    return {"intent": intent, "standalone": standalone, "trace": [f"intent: {intent}"], "llm_calls": 0,
            "plan": None, "plan_info": {}, "kriyas": [], "context": [], "answers": [], "referents": [],
            "retrieval": "graph"}


def route_intent(state: QueryState) -> Literal["plan", "find"]:
    """Find-documents requests skip planning."""
    return "find" if state["intent"] == "find" else "plan"


def plan(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """A golden plan from the GSV loop (or the parser when there is no LLM)."""
    services = services_of(runtime)
    if services.llm is None:
        parsed = question_plan(state["question"])
        info = {"status": "accepted" if parsed else "exhausted", "attempts": 0, "llm_calls": 0,
                "method": "parser", "cause": None if parsed else "the parser found no verb"}
        trace = state["trace"] + ["plan: parser (no LLM)"]
        return {"plan": parsed, "plan_info": info, "trace": trace + _follow_up(services, parsed, state)}
    out = run_gsv({"task": "query", "source": state.get("standalone") or state["question"],
                   "ref": {"question": state["question"]}}, services.ctx)
    cause = None if out["golden"] else (out["history"] or [{}])[-1].get("feedback", "no golden plan")
    info = {"status": out["status"], "attempts": out["attempt"], "llm_calls": out["llm_calls"],
            "method": "gsv", "cause": cause, "fast_path": out["fast_path"]}
    trace = state["trace"] + [f"plan: GSV {out['status']} after {out['attempt']} attempt(s)"]
    return {"plan": out["golden"], "plan_info": info, "llm_calls": state["llm_calls"] + out["llm_calls"],
            "trace": trace + _follow_up(services, out["golden"], state)}


def _follow_up(services: Any, plan_: dict[str, Any] | None, state: QueryState) -> list[str]:
    if not plan_ or not state.get("turns"):
        return []
    g = services.workspace.graph.g
    turns = state.get("turns") or []
    with services.workspace.lock:  # only the previous turn's entities can be chosen
        types = {e: g.nodes[e].get("entity_type", "") for e in (turns[-1].get("roles") or {}).values() if e in g}
    return resolve_follow_up(plan_, turns, types)


_PERSON_PRONOUNS = frozenset({"he", "him", "his", "she", "her", "hers", "they", "them", "their", "who", "whom"})


def resolve_follow_up(plan_: dict[str, Any], turns: list[dict[str, Any]], types: dict[str, str]) -> list[str]:
    """Replace pronouns in a plan with the previous turn's entities; returns what was replaced.

    A pronoun in role R takes the previous turn's entity in R (its answer counts for the role it
    extracted); otherwise the first earlier entity of the right animacy (he/him → a Person).
    """
    if not turns:
        return []
    roles = dict(turns[-1].get("roles") or {})
    pool = list(dict.fromkeys(roles.values()))
    notes = []
    for step in plan_.get("steps", []):
        karakas = step.get("karakas") or {}
        used = {v for v in karakas.values() if v and not is_pronoun(v)}
        for role, value in list(karakas.items()):
            if not value or not is_pronoun(value):
                continue
            person = value.lower() in _PERSON_PRONOUNS
            same = roles.get(role)
            choice = same if same and same not in used else next(
                (e for e in pool if e not in used and (types.get(e) == "Person") == person), None)
            if choice:
                karakas[role] = choice
                used.add(choice)
                notes.append(f"follow-up: {value!r} in {role} → {choice!r} (previous turn)")
    return notes


def route_plan(state: QueryState) -> Literal["traverse", "finalize"]:
    """No golden plan → ERROR."""
    return "traverse" if state.get("plan") else "finalize"


def _context(services: Any, doc_nodes: list[str]) -> list[dict[str, Any]]:
    g = services.workspace.graph.g
    rows = [{"doc_id": g.nodes[d]["doc_id"], "line_number": g.nodes[d]["line_number"], "text": g.nodes[d]["text"]}
            for d in doc_nodes if d in g]
    return sorted(rows, key=lambda r: (r["doc_id"], r["line_number"]))


def traverse_graph(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Walk the plan over the graph; no LLM."""
    services = services_of(runtime)
    ws = services.workspace
    with ws.lock:
        found = traverse(ws.graph, ws.resolver, state["plan"] or {})
        names = answer_names(ws.graph, found.answers)
        context = _context(services, found.documents)
    return {"kriyas": found.kriyas, "context": context, "answers": names,
            "referents": referents(ws.graph, found.answers),
            "trace": state["trace"] + found.trace, "retrieval": "graph"}


def route_found(state: QueryState) -> Literal["answer", "hybrid"]:
    """Nothing on the graph → hybrid fallback."""
    return "answer" if state["context"] else "hybrid"


def hybrid(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """BM25 + FAISS fused; an empty result means NO_MATCH."""
    services = services_of(runtime)
    with services.workspace.lock:
        hits = hybrid_search(services, state["question"])
        context = _context(services, [d for d, _ in hits])
    return {"context": context, "retrieval": "hybrid",
            "trace": state["trace"] + [f"hybrid fallback: {len(context)} lines (BM25 + FAISS, RRF)"]}


def find(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ranked documents and lines instead of a generated answer."""
    services = services_of(runtime)
    match = _FIND.match(state["question"])
    topic = (match.group("topic") if match else "") or state["question"]
    with services.workspace.lock:
        hits = hybrid_search(services, topic, k=10)
        lines = _context(services, [d for d, _ in hits])
    ranked_docs: dict[str, float] = {}
    for doc, score in hits:
        doc_id = doc.rsplit("_L", 1)[0]
        ranked_docs[doc_id] = ranked_docs.get(doc_id, 0.0) + score
    return {"context": lines, "retrieval": "hybrid",
            "result": {"documents": [{"doc_id": d, "score": round(s, 5)} for d, s in
                                     sorted(ranked_docs.items(), key=lambda p: -p[1])]},
            "trace": state["trace"] + [f"find documents about {topic!r}: {len(lines)} lines"]}


def answer(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Generate (or extract) the answer from the context lines only."""
    services = services_of(runtime)
    if not state["context"]:
        return {"result": {"answer": NO_ANSWER, "status": "NO_MATCH"},
                "trace": state["trace"] + ["no context: NO_MATCH without an LLM call"]}
    outcome = answer_from_context(
        services, state["question"], state["context"], state.get("answers") or [],
        on_token=lambda text: emit(runtime, {"event": "token", "text": text}),
        on_reset=lambda reason: emit(runtime, {"event": "reset", "reason": reason}))
    return {"result": outcome, "llm_calls": state["llm_calls"] + outcome.pop("llm_calls"),
            "trace": state["trace"] + outcome.pop("trace")}


def finalize(state: QueryState) -> dict[str, Any]:
    """The QueryResult, plus this turn in the thread's memory."""
    info = state.get("plan_info") or {}
    body = dict(state.get("result") or {})
    if state.get("intent") == "answer" and not state.get("plan"):
        body = {"answer": f"Could not build a verified plan for this question: {info.get('cause')}",
                "status": "ERROR", "error": info.get("cause")}
    if state.get("intent") == "find":
        body.setdefault("answer", f"{len(state['context'])} matching lines")
        body["status"] = "GROUNDED" if state["context"] else "NO_MATCH"
    result = {
        "question": state["question"], "answer": body.get("answer", NO_ANSWER),
        "citations": state.get("context", []) if body.get("status") != "NO_MATCH" else [],
        "reasoning_trace": state.get("trace", []), "status": body.get("status", "NO_MATCH"),
        "confidence": body.get("confidence", 0.0),
        "retry_count": max(0, info.get("attempts", 1) - 1) + body.get("regenerations", 0),
        "llm_calls": state.get("llm_calls", 0), "retrieval": state.get("retrieval", "graph"),
        "intent": state.get("intent", "answer"), "plan": state.get("plan"),
        "answer_mode": body.get("mode", "generated"), "warnings": body.get("warnings", []),
        "answers": state.get("answers", []),
    }
    if "documents" in body:
        result["documents"] = body["documents"]
    if "error" in body:
        result["error"] = body["error"]
    roles = {}
    for step in (state.get("plan") or {}).get("steps", [])[:1]:
        roles = {r: v for r, v in (step.get("karakas") or {}).items() if v}
        if step.get("extract") and state.get("referents"):
            roles[step["extract"]] = state["referents"][0]
    turn = {"question": state["question"], "answer": result["answer"], "roles": roles}
    return {"result": result, "turns": [turn]}
