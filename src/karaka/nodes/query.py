"""Query stages: intent → plan (GSV-Retry, or the parser) → traversal (no LLM) → fallback → answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from karaka.config import Context
from karaka.kg import short
from karaka.kg.answer import Option, answer_from_context, choose_answer, extractive, not_said, stream_words
from karaka.kg.calls import Loop, run_loop
from karaka.kg.facts import execute, titles
from karaka.kg.followup import resolve_follow_up
from karaka.kg.reading import read_lines
from karaka.kg.retrieval import hybrid_search, lexical, line_words
from karaka.kg.traverse import display, referent, traverse
from karaka.kg.units import PARSED_LANGUAGES
from karaka.nlp.questions import question_plan
from karaka.nlp.relations import relation_plan
from karaka.nodes.common import Runtime, emit, services_of
from karaka.services import Services
from karaka.state.gsv import GSVInput
from karaka.state.query import Citation, QueryState, citation_of
from karaka.store.ids import CITATION, citation_key, cite_of, document_node

NO_ANSWER = "I cannot answer this question based on the available documents"
_FIND = re.compile(r"^\s*(find|list|show|search)\b.*\b(documents?|lines?|passages?|sources?)\b"
                   r"(\s+(about|on|for|mentioning))?\s*(?P<topic>.*)$", re.IGNORECASE)
_FOLLOW_UP = re.compile(r"^\s*(and|but|so|then|what about)\b|\b(him|her|it|them|they|he|she|that)\b", re.IGNORECASE)
LEXICAL_LINES = 20
OPTIONS = 4
"""Candidates the model chooses among."""


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


def make_plan(loop: Loop | None) -> Callable[[QueryState, Runtime[Context]], dict[str, Any]]:
    """The planning node: a golden plan from the GSV-Retry ``loop`` it is given, or the parser's."""

    def plan(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
        """A golden plan from the GSV loop, the parser's as its free Candidate_A and its fallback."""
        services = services_of(runtime)
        with services.workspace.reading():
            graph = services.workspace.graph
            parsed = relation_plan(state["question"], titles(services.workspace)[0]) or question_plan(
                state["question"], known_verb=lambda v: bool(graph.kriyas_by_verb(v)))
        if services.llm is None:
            info = {"status": "accepted" if parsed else "exhausted", "attempts": 0, "llm_calls": 0, "method": "parser",
                    "cause": None if parsed else "the parser found no verb"}
            trace = state["trace"] + ["plan: parser (no LLM)"]
            return {"plan": parsed, "plan_info": info, "trace": trace + _follow_up(services, parsed, state)}
        if loop is None:
            raise ValueError("planning with an LLM needs the GSV-Retry loop")
        if not services.ctx.parser_candidate:  # the setting governs the seed and the fallback, as in extraction
            parsed = None
        seed = parsed if not state.get("turns") else None
        if seed and services.ctx.llm_plans == "fallback":  # the common case: no request spent on planning
            info = {"status": "accepted", "attempts": 0, "llm_calls": 0, "method": "parser", "cause": None}
            trace = state["trace"] + ["plan: the parser's (the model plans what the parser cannot: llm_plans)"]
            return {"plan": parsed, "plan_info": info, "trace": trace}
        out = run_loop(loop, GSVInput(task="query", source=state.get("standalone") or state["question"],
                                      ref={"question": state["question"]}, seed=seed), services.ctx)
        golden, status, method = out["golden"], str(out["status"]), "gsv"
        if golden is None and parsed:  # exhausted: the parser's plan, as extraction falls back to the parser
            golden, status, method = parsed, "parser-fallback", "parser-fallback"
        info = {"status": status, "attempts": out["attempt"], "llm_calls": out["llm_calls"], "method": method,
                "cause": out["cause"] or (None if golden else "no golden plan"), "fast_path": out["fast_path"]}
        trace = state["trace"] + [f"plan: GSV {out['status']} after {out['attempt']} attempt(s)"
                                  + (", the parser's plan used" if method == "parser-fallback" else "")]
        return {"plan": golden, "plan_info": info, "llm_calls": state["llm_calls"] + out["llm_calls"],
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


def route_plan(state: QueryState) -> Literal["traverse", "finalize"]:
    """No golden plan → ERROR."""
    return "traverse" if state.get("plan") else "finalize"


def citations(services: Services, documents: list[str]) -> list[Citation]:
    """Context lines of Document nodes, in the given (ranked) order, capped at ``max_citations``."""
    out: list[Citation] = []
    seen: set[Any] = set()
    graph = services.workspace.graph
    for node in documents:
        attrs = graph.node(node)
        if attrs is None:
            continue
        citation = citation_of(attrs)
        if citation_key(citation) in seen:  # one line once, however it was reached
            continue
        seen.add(citation_key(citation))
        out.append(citation)
        if len(out) >= services.ctx.max_citations:
            break
    return out


def _relational(services: Services, state: QueryState, ranked: dict[str, int]) -> dict[str, Any]:
    """A relational or comparative plan: facts read hop by hop.

    The citations are each hop's line, then the question's best lexical lines from other documents.
    """
    ws = services.workspace
    facts, cited, trace = execute(ws, state["plan"] or {})
    documents = list(cited)
    seen_docs = {str((ws.graph.node(d) or {}).get("doc_id")) for d in documents}
    for line in ranked:
        doc_id = str((ws.graph.node(line) or {}).get("doc_id"))
        if doc_id not in seen_docs:
            documents.append(line)
            seen_docs.add(doc_id)
    answers = [f.value for f in facts][:3]
    return {"kriyas": [], "context": citations(services, documents), "answers": answers, "referents": answers,
            "trace": state["trace"] + trace, "retrieval": "graph"}


def reads_facts(plan_: dict[str, Any]) -> bool:
    """A plan read hop by hop off facts: a comparison, or a step that follows a relation."""
    return bool(plan_.get("compare") or any(step.get("relation") for step in plan_.get("steps", [])))


def traverse_graph(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Walk the plan over the graph; no LLM."""
    services = services_of(runtime)
    ws = services.workspace
    with ws.reading():
        ranked = {d: rank for rank, (d, _) in enumerate(lexical(ws, state["question"], LEXICAL_LINES))}
        plan_ = state["plan"] or {}
        if reads_facts(plan_):
            relational = _relational(services, state, ranked)
            if relational["answers"] or services.llm is not None or len(plan_.get("steps", [])) > 1 \
                    or plan_.get("compare"):
                return relational
            simple = question_plan(state["question"], known_verb=lambda v: bool(ws.graph.kriyas_by_verb(v)))
            if simple is None:
                return relational
            plan_ = simple  # the relations were not in the text: read the question as one action
        found = traverse(ws, plan_, ranked)
        answers = found.answers[: services.ctx.max_citations]
        context = citations(services, found.documents)
        names = [display(ws, a) for a in answers]
        refs = [referent(ws, a) for a in answers]
    return {"kriyas": found.kriyas, "context": context, "answers": names, "referents": refs,
            "trace": state["trace"] + found.trace, "retrieval": "graph"}


def route_found(state: QueryState, runtime: Runtime[Context]) -> Literal["answer", "hybrid"]:
    """Answers on the graph (or lines an LLM can read) → answer; nothing → the hybrid fallback."""
    if state.get("answers") or (state.get("context") and services_of(runtime).llm is not None):
        return "answer"
    return "hybrid"


def hybrid(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """BM25 + vectors; the reader extracts the asked role from the best lines. Nothing → NO_MATCH."""
    services = services_of(runtime)
    ws = services.workspace
    with ws.reading():
        hits = hybrid_search(services, state["question"], k=max(10, services.ctx.max_citations))
        near = [d for k in state.get("kriyas") or [] for d in ws.graph.neighbors(k, "CITED_IN")]
        documents = list(dict.fromkeys(near[:2] + [h.document for h in hits]))  # the graph's closest lines first
        step = ((state.get("plan") or {}).get("steps") or [None])[-1]
        found = read_lines(ws, step, documents[:10])
        if found:
            documents = [a.kriya for a in found] + [d for d in documents if d not in {a.kriya for a in found}]
        context = citations(services, documents)
    trace = state["trace"] + [f"hybrid fallback: {len(hits)} lines (BM25 + vectors); "
                              f"{'read ' + repr(found[0].text) if found else 'no span read'}"]
    return {"context": context, "retrieval": "hybrid", "answers": [a.text for a in found],
            "referents": [a.text for a in found], "trace": trace}


def find(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ranked documents and lines instead of a generated answer."""
    services = services_of(runtime)
    match = _FIND.match(state["question"])
    topic = (match.group("topic") if match else "") or state["question"]
    ranked_docs: dict[str, float] = {}
    with services.workspace.reading():
        hits = hybrid_search(services, topic, k=10)
        lines = citations(services, [h.document for h in hits])
        for hit in hits:
            doc_id = str((services.workspace.graph.node(hit.document) or {}).get("doc_id"))
            ranked_docs[doc_id] = ranked_docs.get(doc_id, 0.0) + hit.score
    return {"context": lines, "retrieval": "hybrid",
            "result": {"documents": [{"doc_id": d, "score": round(s, 5)}
                                     for d, s in sorted(ranked_docs.items(), key=lambda p: -p[1])]},
            "trace": state["trace"] + [f"find documents about {topic!r}: {len(lines)} lines"]}


def answer(state: QueryState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Answer from the context lines only: the offline reader, and the model's choice among its candidates."""
    services = services_of(runtime)
    if not state["context"]:
        return {"result": {"answer": NO_ANSWER, "status": "NO_MATCH"},
                "trace": state["trace"] + ["no context: NO_MATCH without an LLM call"]}
    on_token = lambda text: emit(runtime, {"event": "token", "text": text})  # noqa: E731
    update: dict[str, Any] = {}
    facts = reads_facts(state.get("plan") or {})
    if state.get("intent") == "answer" and not (facts and state.get("answers")):
        update = short_answer(services, state)
        if facts:  # a multi-hop plan's lines are each hop's: keep them, in their order
            update["context"] = state["context"]
        if services.llm is not None:
            return _with_model(services, state, update, on_token, runtime)
        if update.get("refused"):
            return _refusal(state, update, on_token)
    if services.llm is not None and facts and state.get("answers") and state.get("intent") == "answer":
        return _facts_with_model(services, state, on_token)
    outcome = answer_from_context(
        services, state["question"], update.get("context", state["context"]),
        update.get("answers", state.get("answers") or []), on_token=on_token,
        on_reset=lambda reason: emit(runtime, {"event": "reset", "reason": reason}))
    if services.llm is None and facts and not update:  # the answers were read hop by hop off facts
        outcome["confidence"] = short.FACTS_RIGHT
    elif services.llm is None:  # the extractive answer's chance of being right, as measured
        outcome["confidence"] = short.calibrated(update.get("confidence", outcome.get("confidence", 0.0)))
    return {"result": outcome, "llm_calls": state["llm_calls"] + outcome.pop("llm_calls"),
            "trace": state["trace"] + update.get("trace", []) + outcome.pop("trace"),
            **{k: update[k] for k in ("context", "answers", "referents") if k in update}}


def _refusal(state: QueryState, update: dict[str, Any], on_token: Callable[[str], None]) -> dict[str, Any]:
    """NO_ANSWER with the closest lines offered as related lines."""
    context = update["context"]
    cites = " ".join(cite_of(c) for c in context)
    text = f"No answer found in the documents ({update['why']})" + (f"; related lines: {cites}" if cites else "")
    stream_words(text, on_token)
    return {"context": context, "answers": [], "referents": [],
            "result": {"answer": text, "status": "NO_ANSWER", "confidence": short.REFUSAL_RIGHT,
                       "mode": "extractive", "regenerations": 0, "warnings": []},
            "trace": state["trace"] + update["trace"]}


def _facts_with_model(services: Services, state: QueryState, on_token: Callable[[str], None]) -> dict[str, Any]:
    """A multi-hop plan's answers, read off facts: the model chooses among them, as among the reader's candidates."""
    context = state["context"]
    options = [Option(a, next((c for c in context if a.lower() in c["text"].lower()), context[-1]))
               for a in state["answers"][:OPTIONS]]
    outcome = _choose(services, state["question"], context, options, state["answers"], short.FACTS_RIGHT, on_token)
    return {"result": outcome, "llm_calls": state["llm_calls"] + outcome.pop("llm_calls"),
            "trace": state["trace"] + outcome.pop("trace")}


def _choose(services: Services, question: str, context: list[Citation], options: list[Option], answers: list[str],
            confidence: float, on_token: Callable[[str], None]) -> dict[str, Any]:
    """The model's choice among ``options``, streamed, against the extractive answer (which states ``confidence``)."""
    offline = extractive(context, answers)
    offline["confidence"] = confidence
    outcome = choose_answer(services, question, context, options, offline)
    stream_words(outcome["answer"], on_token)
    return outcome


def _with_model(services: Services, state: QueryState, update: dict[str, Any], on_token: Callable[[str], None],
                runtime: Runtime[Context]) -> dict[str, Any]:
    """The model chooses among the reader's candidates; with none, it reads the closest lines itself."""
    question = state["question"]
    if update.get("refused") or not update.get("options"):
        with services.workspace.reading():
            hits = [h.document for h in hybrid_search(services, question, k=services.ctx.max_citations)]
            extra = citations(services, hits)
        seen = {citation_key(c) for c in update["context"]}
        context = (update["context"] + [c for c in extra if citation_key(c) not in seen])[: services.ctx.max_citations]
        outcome = answer_from_context(services, question, context, [], on_token=on_token,
                                      on_reset=lambda reason: emit(runtime, {"event": "reset", "reason": reason}))
        if outcome["status"] == "GROUNDED" and not _states_kind(question, outcome["answer"]):
            kind = short.expected_kind(question)
            emit(runtime, {"event": "reset", "reason": f"the answer names no {kind}"})
            text = not_said(update["context"])
            stream_words(text, on_token)
            outcome = {**outcome, "answer": text, "status": "NO_ANSWER", "confidence": short.REFUSAL_RIGHT,
                       "trace": outcome["trace"] + [f"the answer names no {kind} that the question does not"],
                       "warnings": [f"the model's answer gave no {kind}; it is not shown"]}
        if outcome["status"] != "GROUNDED":
            context = update["context"]  # a refusal offers the reader's related lines
        answers: list[str] = []
    else:
        context = update["context"]
        outcome = _choose(services, question, context, update["options"], update["answers"],
                          short.calibrated(update["confidence"]), on_token)
        answers = update["answers"] if outcome["mode"] != "chosen" else [outcome.get("chosen", "")]
    return {"result": outcome, "llm_calls": state["llm_calls"] + outcome.pop("llm_calls"), "context": context,
            "answers": [a for a in answers if a], "referents": [a for a in answers if a],
            "trace": state["trace"] + update.get("trace", []) + outcome.pop("trace")}


def _states_kind(question: str, answer: str) -> bool:
    from karaka.nlp import parse_many

    said = CITATION.sub(" ", answer)
    return short.states_kind(question, said, parse_many([said])[0])


def short_answer(services: Services, state: QueryState) -> dict[str, Any]:
    """The offline reader: candidates of the kind asked for from the graph's and retrieval's lines.

    Returns the answers and the context ordered by support, the confidence, and ``refused`` when
    the evidence is too weak to answer.
    """
    from karaka.nlp import parse_many

    ws = services.workspace
    question = state["question"]
    with ws.reading():
        context_nodes = [document_node(c["doc_id"], c["line_number"], c["sentence"]) for c in state["context"]]
        hits = [h.document for h in hybrid_search(services, question, k=10)]
        nodes, follows = short.pool(ws, question, context_nodes, hits)
        attrs = [ws.graph.node(n) or {} for n in nodes]
        texts = [str(a.get("text", "")) for a in attrs]
        graph_answers: dict[int, list[str]] = {}
        for span in state.get("answers") or []:
            where = next((i for i, t in enumerate(texts[: len(context_nodes)]) if span.lower() in t.lower()), 0)
            graph_answers.setdefault(where, []).append(span)
        readable = [t if a.get("lang", "") in PARSED_LANGUAGES else "" for t, a in zip(texts, attrs, strict=True)]
        around = [line_words({**a, "text": ""}) for a in attrs]
        ranked, support, confidence, why = short.choose(question, texts, parse_many(readable), graph_answers,
                                                        short.corpus_check(ws), around, follows,
                                                        short.named_lines(question, [str(a.get("doc_id", ""))
                                                                                     for a in attrs], texts),
                                                        [str(a.get("section", "")) for a in attrs])
        order = sorted(range(len(nodes)), key=lambda i: -support[i])
        trace = [f"short answer: {why}; confidence {confidence:.2f}"]
        if not ranked or confidence < short.THRESHOLD:
            related = citations(services, [nodes[i] for i in order if support[i] > 0][:3])
            return {"refused": True, "context": related, "confidence": confidence, "why": why,
                    "trace": trace + [f"below {short.THRESHOLD}: no answer"]}
        best = ranked[0]
        options = [Option(c.text, citation_of(attrs[c.line])) for c in ranked[:OPTIONS]]
        if "graph" in best.notes:  # the graph's own answer: its lines, in its order, are the evidence
            return {"context": state["context"], "answers": list(state.get("answers") or []),
                    "referents": list(state.get("referents") or []), "confidence": confidence, "trace": trace,
                    "options": options}
        first = [nodes[best.line]]
        if best.line in follows:  # the line that introduces the answer's line comes after it
            first.append(nodes[follows[best.line]])
        rest = [nodes[i] for i in order if support[i] >= 0.5 * support[best.line]]
        context = citations(services, list(dict.fromkeys(first + context_nodes + rest)))
        many = short.asks_many(question)
        answers = [best.text] + [c.text for c in ranked[1:3] if many and c.line == best.line
                                 and c.score >= 0.9 * best.score and c.text.lower() not in best.text.lower()]
        return {"context": context, "answers": answers, "referents": answers, "confidence": confidence,
                "trace": trace, "options": options}


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
    status = body.get("status", "NO_MATCH")
    result: dict[str, Any] = {
        "question": state["question"], "answer": body.get("answer", NO_ANSWER),
        "answers": state.get("answers", []) if status == "GROUNDED" else [],
        "citations": state.get("context", []) if status != "NO_MATCH" else [],
        "reasoning_trace": state.get("trace", []), "status": status,
        "confidence": body.get("confidence", 0.0),
        "retry_count": max(0, info.get("attempts", 1) - 1) + body.get("regenerations", 0),
        "llm_calls": state.get("llm_calls", 0), "retrieval": state.get("retrieval", "graph"),
        "intent": state.get("intent", "answer"), "plan": state.get("plan"),
        "answer_mode": body.get("mode", "generated"), "warnings": body.get("warnings", []),
    }
    for key in ("documents", "error"):
        if key in body:
            result[key] = body[key]
    roles = {}
    for step in (state.get("plan") or {}).get("steps", [])[:1]:
        roles = {r: v for r, v in (step.get("karakas") or {}).items() if v}
        if step.get("extract") and state.get("referents"):
            roles[step["extract"]] = state["referents"][0]
    turn = {"question": state["question"], "answer": result["answer"], "roles": roles}
    return {"result": result, "turns": [turn]}
