"""Query stages: intent → plan (GSV-Retry, or the parser) → retrieve (once) → traverse (no LLM) → answer.

The nodes stay thin: retrieval runs once and its lines travel in the state, the traversal finds
the actions and facts the plan names, and ``karaka.answering`` reads and chooses the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from karaka.answering.answer import answer as answer_from_lines
from karaka.answering.answer import citations, stream_words
from karaka.answering.reference import look_up, parse
from karaka.answering.spelling import corrected
from karaka.answering.summary import Summary, summarise
from karaka.config import Context
from karaka.gsv.run import Loop, run_loop
from karaka.kg.fact_text import titles
from karaka.kg.facts import execute
from karaka.kg.followup import resolve_follow_up
from karaka.kg.retrieval import hybrid_search
from karaka.kg.traverse import traverse
from karaka.nlp.questions import question_plan
from karaka.nlp.relations import relation_plan
from karaka.nodes.common import Runtime, emit, services_of
from karaka.services import Services
from karaka.state.gsv import GSVInput
from karaka.state.query import QueryState
from karaka.store.ids import cite_of, document_node

_FIND = re.compile(r"^\s*(find|list|show|search)\b.*\b(documents?|lines?|passages?|sources?)\b"
                   r"(\s+(about|on|for|mentioning))?\s*(?P<topic>.*)$", re.IGNORECASE)
_SPEAKS = r"(?:tells?|speaks?|talks?|says?|mentions?|describes?|explains?|covers?|deals?)"
_WHICH = re.compile(rf"^\s*(?:in\s+)?which\s+(?:(?:books?|documents?|chapters?|texts?|stor(?:y|ies)|manuals?|pages?|"
                    rf"sections?|parts?)\s+(?:{_SPEAKS}|contains?|is|are|has|have)|files?\s+{_SPEAKS})\s+"
                    r"(?:of|about|with|on)?\s*(?P<topic>.+?)[\s?.!]*$", re.IGNORECASE)
"""A question that asks which document (book, chapter) holds something: answered as a search. A file is one only
where the question says it speaks of something: "which file is loaded …?" and "which file holds the settings?"
ask for a file's name."""
_FOLLOW_UP = re.compile(r"^\s*(and|but|so|then|what about)\b|\b(him|her|it|them|they|he|she|that)\b", re.IGNORECASE)
_SMALL_TALK = re.compile(r"^\s*(hi|hello|hey|hallo|bonjour|salut|good (morning|afternoon|evening|day)|thanks?|"
                         r"thank you|merci|danke|cheers|bye|goodbye|ok(ay)?|how are you|who are you|"
                         r"what can you do|help)\b[\s!.?,]*(there|you|again|very much|a lot)?[\s!.?]*$", re.IGNORECASE)
"""A greeting or small talk: a short reply, no retrieval (the seed's ``basic`` route)."""
SMALL_TALK_REPLY = ("Hello! Ask me a question about your documents, and I will answer from their lines "
                    "with citations, or say that they do not hold the answer.")
HITS = 20
"""Lines retrieval ranks for a question (once; the traversal and the reader share them)."""


def classify(state: QueryState) -> dict[str, Any]:
    """Intent (answer, find documents, or small talk) and the standalone question for the planner."""
    question = state["question"].strip()
    if not question:
        raise ValueError("question is empty")
    turns = state.get("turns") or []
    standalone = question
    if turns and _FOLLOW_UP.search(question):
        last = turns[-1]
        standalone = f"Previous question: {last['question']}\nPrevious answer: {last['answer']}\nQuestion: {question}"
    intent = ("basic" if _SMALL_TALK.match(question) else "find" if _FIND.match(question) or _WHICH.match(question)
              else "reference" if parse(question) else "answer")
    return {"intent": intent, "standalone": standalone, "trace": [f"intent: {intent}"], "llm_calls": 0,
            "plan": None, "plan_info": {}, "kriyas": [], "context": [], "answers": [], "referents": [],
            "hits": [], "graph_lines": [], "facts": [], "retrieval": "hybrid"}


def route_intent(state: QueryState) -> Literal["plan", "find", "basic", "reference"]:
    """Find-documents requests, references and small talk skip planning."""
    intent = state["intent"]
    return intent if intent in ("find", "basic", "reference") else "plan"  # type: ignore[return-value]


REFERENCE_LINES = 3
"""A chapter's first lines shown as its text (every line of it is cited up to ``max_citations``)."""


def reference(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """The text at the place the question cites ("Genesis 4:8", "Jonah chapter 2", "page 12 of …").

    A name that is no document's goes on as a question (``intent`` becomes "answer"); a place the
    document lacks is said to be missing, with no lines.
    """
    services = services_of(runtime)
    ref = parse(state["question"])
    with services.workspace.reading():
        found = look_up(ref, services.workspace.records) if ref else None
        if found is None:
            return {"intent": "answer", "trace": state["trace"] + ["reference: no document of that name; a question"]}
        if found.missing:
            text = found.missing[0].upper() + found.missing[1:] + "."
            stream_words(text, lambda t: emit(runtime, {"event": "token", "text": t}))
            return {"result": {"answer": text, "status": "NO_ANSWER", "confidence": 1.0},
                    "trace": state["trace"] + [f"reference {found.ref.shown!r}: {found.missing}"]}
        nodes = [document_node(found.doc_id, s.line, s.sentence) for s in found.lines]
    whole = len(found.lines) <= REFERENCE_LINES or bool(found.ref.verse)
    trace = state["trace"] + [f"reference {found.ref.shown!r}: {found.doc_id}, {len(found.lines)} lines"]
    extra: dict[str, Any] = {}
    requests = 0
    if not whole and services.llm is not None:  # the model's requests hold no lock on the workspace
        summary = summarise(services, found.ref.label(found.doc_id), found.lines)
        trace.append(f"summary: {len(summary.sentences)} sentences stood, {len(summary.dropped)} dropped, "
                     f"{summary.requests} requests, {summary.read} of {len(found.lines)} lines read")
        requests = summary.requests
        if summary.sentences:
            return _told(services, summary, nodes, runtime, trace, len(found.lines)) | {
                "llm_calls": state["llm_calls"] + requests}
        extra = {"warnings": [
            "no sentence of the model's summary was borne out by its lines: the chapter's opening lines instead",
            *summary.dropped[:3]]}
    with services.workspace.reading():
        cited = citations(services.workspace, nodes, max(services.ctx.max_citations, 1))
    shown = " ".join(s.text for s in (found.lines if whole else found.lines[:REFERENCE_LINES]))
    where = cite_of(cited[0]) if cited else ""
    text = (f"{shown} {where}" if whole else
            f"{found.ref.label(found.doc_id)} ({len(found.lines)} lines) begins: {shown} … {where}").strip()
    stream_words(text, lambda t: emit(runtime, {"event": "token", "text": t}))
    return {"context": cited, "answers": [shown], "trace": trace, "llm_calls": state["llm_calls"] + requests,
            "result": {"answer": text, "status": "GROUNDED", "confidence": 1.0, **extra}}


def _told(services: Services, summary: Summary, nodes: list[str], runtime: Runtime[Context], trace: list[str],
          count: int) -> dict[str, Any]:
    """A chapter told in the model's checked sentences, each followed by the citation of its first line."""
    store = services.workspace
    told_nodes = [nodes[i] for told in summary.sentences for i in told.lines]
    with store.reading():
        firsts = [citations(store, [nodes[told.lines[0]]], 1) for told in summary.sentences]
        cited = citations(store, list(dict.fromkeys(told_nodes + nodes)), max(services.ctx.max_citations, 1))
    text = " ".join(f"{told.text} {cite_of(c[0])}" if c else told.text
                    for told, c in zip(summary.sentences, firsts, strict=True))
    stream_words(text, lambda t: emit(runtime, {"event": "token", "text": t}))
    warnings = [f"dropped from the summary: {why}" for why in summary.dropped[:3]]
    if summary.read < count:
        warnings.append(f"the summary reads the first {summary.read} of the chapter's {count} lines")
    return {"context": cited, "answers": [told.text for told in summary.sentences], "trace": trace,
            "result": {"answer": text, "status": "GROUNDED", "confidence": 1.0, "mode": "summary",
                       "warnings": warnings}}


def route_reference(state: QueryState) -> Literal["plan", "finalize"]:
    """A reference that named no document is answered as a question."""
    return "plan" if state["intent"] == "answer" else "finalize"


def basic(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """A greeting or small talk: a short reply, no retrieval and no request."""
    stream_words(SMALL_TALK_REPLY, lambda text: emit(runtime, {"event": "token", "text": text}))
    return {"result": {"answer": SMALL_TALK_REPLY, "status": "SMALL_TALK", "confidence": 1.0, "mode": "extractive"},
            "trace": state["trace"] + ["small talk: no retrieval"]}


def make_plan(loop: Loop | None) -> Callable[[QueryState, Runtime[Context]], dict[str, Any]]:
    """The planning node: a golden plan from the GSV-Retry ``loop`` it is given, or the parser's."""

    def plan(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
        """A golden plan from the GSV loop, the parser's as its free Candidate_A and its fallback.

        A slip of the keyboard is read as the documents' word first ("killd": killed), and the
        question goes on so (``answering.spelling``); the trace says what was read.
        """
        services = services_of(runtime)
        read: dict[str, Any] = {}
        with services.workspace.reading():
            question, fixed = corrected(services.workspace, state["question"])
            if fixed:
                standalone = state.get("standalone") or state["question"]
                for slip, word in fixed:
                    standalone = re.sub(rf"\b{re.escape(slip)}\b", word, standalone)
                read = {"question": question, "standalone": standalone}
                note = "spelling: " + ", ".join(f"{slip!r} read as {word!r}" for slip, word in fixed)
                state = {**state, **read, "trace": state["trace"] + [note]}  # type: ignore[typeddict-item]
            graph = services.workspace.graph
            parsed = relation_plan(state["question"], titles(services.workspace)[0]) or question_plan(
                state["question"], known_verb=lambda v: bool(graph.kriyas_by_verb(v)))
        if services.llm is None:
            info = {"status": "accepted" if parsed else "exhausted", "attempts": 0, "llm_calls": 0, "method": "parser",
                    "cause": None if parsed else "the parser found no verb"}
            trace = state["trace"] + ["plan: parser (no LLM)"]
            return {**read, "plan": parsed, "plan_info": info, "trace": trace + _follow_up(services, parsed, state)}
        if loop is None:
            raise ValueError("planning with an LLM needs the GSV-Retry loop")
        if not services.ctx.parser_candidate:  # the setting governs the seed and the fallback, as in extraction
            parsed = None
        seed = parsed if not state.get("turns") else None
        if seed and services.ctx.llm_plans == "fallback":  # the common case: no request spent on planning
            info = {"status": "accepted", "attempts": 0, "llm_calls": 0, "method": "parser", "cause": None}
            trace = state["trace"] + ["plan: the parser's (the model plans what the parser cannot: llm_plans)"]
            return {**read, "plan": parsed, "plan_info": info, "trace": trace}
        out = run_loop(loop, GSVInput(task="query", source=state.get("standalone") or state["question"],
                                      ref={"question": state["question"]}, seed=seed), services.ctx)
        golden, status, method = out["golden"], str(out["status"]), "gsv"
        if golden is None and parsed:  # exhausted: the parser's plan, as extraction falls back to the parser
            golden, status, method = parsed, "parser-fallback", "parser-fallback"
        info = {"status": status, "attempts": out["attempt"], "llm_calls": out["llm_calls"], "method": method,
                "cause": out["cause"] or (None if golden else "no golden plan"), "fast_path": out["fast_path"]}
        trace = state["trace"] + [f"plan: GSV {out['status']} after {out['attempt']} attempt(s)"
                                  + (", the parser's plan used" if method == "parser-fallback" else "")]
        return {**read, "plan": golden, "plan_info": info, "llm_calls": state["llm_calls"] + out["llm_calls"],
                "trace": trace + _follow_up(services, golden, state)}

    return plan


def _follow_up(services: Services, plan_: dict[str, Any] | None, state: QueryState) -> list[str]:
    turns = state.get("turns") or []
    if not plan_ or not turns:
        return []
    with services.workspace.reading():
        graph = services.workspace.graph
        types = {e: str((graph.node(e) or {}).get("entity_type", "")) for e in (turns[-1].get("roles") or {}).values()
                 if e in graph}
    return resolve_follow_up(plan_, turns, types)


def retrieve(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """The question's lines, ranked once (BM25 and vectors fused): the traversal and the reader share them."""
    services = services_of(runtime)
    with services.workspace.reading():
        hits = [h.document for h in hybrid_search(services, state["question"], k=HITS)]
    return {"hits": hits, "trace": state["trace"] + [f"retrieval: {len(hits)} lines (BM25 + vectors)"]}


def reads_facts(plan_: dict[str, Any]) -> bool:
    """A plan read hop by hop off facts: a comparison, or a step that follows a relation."""
    return bool(plan_.get("compare") or any(step.get("relation") for step in plan_.get("steps", [])))


def traverse_graph(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Walk the plan over the graph (no LLM): the actions it names, or the facts a multi-hop plan reads."""
    services = services_of(runtime)
    ws = services.workspace
    plan_ = state.get("plan") or {}
    if not plan_:
        return {"trace": state["trace"] + ["no plan: the answer is read off the retrieved lines"]}
    ranked = {d: rank for rank, d in enumerate(state.get("hits") or [])}
    with ws.reading():
        if reads_facts(plan_):
            facts, cited, trace = execute(ws, plan_)
            found = [{"value": f.value, "line": f.document} for f in facts[:3]]
            return {"facts": found, "graph_lines": cited, "retrieval": "graph", "trace": state["trace"] + trace}
        walked = traverse(ws, plan_, ranked)
    return {"kriyas": walked.kriyas, "graph_lines": walked.documents, "retrieval": "graph" if walked.kriyas else "hybrid",
            "trace": state["trace"] + walked.trace}


def find(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ranked documents (and a book's chapters), each with its best line, instead of an answer.

    A document ranks by the evidence of its three best lines (one strong line outranks many weak
    ones); "Which book tells of …?" answers with the documents, best first.
    """
    services = services_of(runtime)
    match = _FIND.match(state["question"]) or _WHICH.match(state["question"])
    topic = (match.group("topic") if match else "") or state["question"]
    per_doc: dict[str, list[tuple[float, str]]] = {}
    per_chapter: dict[tuple[str, str], float] = {}
    with services.workspace.reading():
        hits = hybrid_search(services, topic, k=HITS)
        lines = citations(services.workspace, [h.document for h in hits], services.ctx.max_citations)
        for hit in hits:
            attrs = services.workspace.graph.node(hit.document) or {}
            doc_id = str(attrs.get("doc_id"))
            per_doc.setdefault(doc_id, []).append((hit.score, hit.document))
            if attrs.get("chapter"):
                key = (doc_id, str(attrs["chapter"]))
                per_chapter[key] = per_chapter.get(key, 0.0) + hit.score
        ranked = sorted(per_doc.items(), key=lambda p: -sum(sorted((s for s, _ in p[1]), reverse=True)[:3]))
        documents: list[dict[str, Any]] = []
        for doc_id, scored in ranked:
            best = citations(services.workspace, [max(scored)[1]], 1)
            documents.append({"doc_id": doc_id, "score": round(sum(sorted((s for s, _ in scored), reverse=True)[:3]), 5),
                              "best_line": best[0] if best else None})
    chapters = [{"doc_id": d, "chapter": c, "score": round(v, 5)}
                for (d, c), v in sorted(per_chapter.items(), key=lambda p: -p[1])]
    shown = "; ".join(f"{d['doc_id']}: {cite_of(d['best_line'])} {d['best_line']['text']}"
                      for d in documents[:3] if d["best_line"])
    result: dict[str, Any] = {"documents": documents, "answer": shown or "no matching lines"}
    if chapters:
        result["chapters"] = chapters
    return {"context": lines, "retrieval": "hybrid", "result": result,
            "trace": state["trace"] + [f"find documents about {topic!r}: {len(lines)} lines, {len(documents)} documents"]}


def answer(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """The answer from the lines (``karaka.answering``): GROUNDED only where a line proves it."""
    services = services_of(runtime)
    on_token = lambda text: emit(runtime, {"event": "token", "text": text})  # noqa: E731
    facts = [(f["value"], f["line"]) for f in state.get("facts") or []]
    out = answer_from_lines(services, state["question"], state.get("plan"), state.get("hits") or [],
                            state.get("graph_lines") or [], facts, on_token)
    result = out["result"]
    result["warnings"] = [t for t in state["trace"] if t.startswith("spelling: ")] + list(result.get("warnings", []))
    return {"result": result, "context": out["context"], "answers": out["answers"], "referents": out["referents"],
            "llm_calls": state["llm_calls"] + result.pop("llm_calls"), "trace": state["trace"] + out["trace"]}


def web_search(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """The web's answer when the documents' is not proved and ``web_search`` is on (``answering.web``)."""
    ctx = services_of(runtime).ctx
    body = dict(state.get("result") or {})
    if not ctx.web_search or body.get("status", "NO_MATCH") not in ("UNCERTAIN", "NO_ANSWER", "NO_MATCH"):
        return {}
    from karaka.answering.web import answer_from_web  # httpx: only when web search is on

    emit(runtime, {"event": "stage", "stage": "web_search"})
    web = answer_from_web(ctx, state["question"])
    body["web"] = web
    body["warnings"] = list(body.get("warnings", [])) + web["warnings"]
    update: dict[str, Any] = {"result": body, "trace": state["trace"] + [
        f"web search ({ctx.web_search}): {web['status']}, {len(web['citations'])} web lines cited"]}
    if web["status"] == "GROUNDED":
        body.update(answer=web["answer"], status="GROUNDED", source="web", mode="extractive")
        update["answers"] = web["answers"]
    return update


def finalize(state: QueryState) -> dict[str, Any]:
    """The QueryResult, plus this turn in the thread's memory."""
    info = state.get("plan_info") or {}
    body = dict(state.get("result") or {})
    if state.get("intent") == "find":
        body.setdefault("answer", f"{len(state['context'])} matching lines")
        body["status"] = "GROUNDED" if state["context"] else "NO_MATCH"
    status = body.get("status", "NO_MATCH")
    if status == "NO_ANSWER" and not state.get("context"):
        status = "NO_MATCH"
    result: dict[str, Any] = {
        "question": state["question"], "answer": body.get("answer", ""),
        "answers": state.get("answers", []) if status in ("GROUNDED", "UNCERTAIN") else [],
        "citations": state.get("context", []) if status != "NO_MATCH" else [],
        "reasoning_trace": state.get("trace", []), "status": status,
        "confidence": body.get("confidence", 0.0),
        "retry_count": max(0, info.get("attempts", 1) - 1) + body.get("regenerations", 0),
        "llm_calls": state.get("llm_calls", 0), "retrieval": state.get("retrieval", "hybrid"),
        "intent": state.get("intent", "answer"), "plan": state.get("plan"),
        "answer_mode": body.get("mode", "extractive"), "warnings": body.get("warnings", []),
    }
    for key in ("documents", "chapters", "evidence", "web", "source", "table"):
        if key in body:
            result[key] = body[key]
    roles = {}
    for step in (state.get("plan") or {}).get("steps", [])[:1]:
        roles = {r: v for r, v in (step.get("karakas") or {}).items() if v}
        if step.get("extract") and state.get("referents"):
            roles[step["extract"]] = state["referents"][0]
    turn = {"question": state["question"], "answer": result["answer"], "roles": roles}
    return {"result": result, "turns": [turn]}
