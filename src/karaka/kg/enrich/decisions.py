"""What post-processing shares: decisions memoised in the records, the graph's lines, roles and names, and the edges it adds."""

from __future__ import annotations

import hashlib
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, NamedTuple

from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.kg.write import causes_path
from karaka.models.call import LLMCallError
from karaka.services import Services, ask
from karaka.store.schema import SchemaError

if TYPE_CHECKING:
    pass


log = logging.getLogger("karaka.postprocess")


def decision_key(*parts: Any) -> str:
    """A decision's key in the records: a hash of what it depends on."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def decide(services: Services, step: str, doc_id: str, key: str, run_id: str, prompt: str,
            **fields: Any) -> dict[str, Any]:
    """Ask once; a memoised answer is reused with no call."""
    records = services.workspace.records
    cached = records.decision(key)
    if cached is not None:
        return cached
    try:
        reply = ask(services, prompt, **fields)
        value = recover_json(reply.text)
        answer = value if isinstance(value, dict) else {}
        tokens = reply.prompt_tokens
    except (LLMCallError, JSONRecoveryError) as exc:
        log.warning("%s decision failed (%s); treated as no", step, exc)
        answer, tokens = {"answer": "no", "error": str(exc)}, 0
    records.put_decision(key, step, doc_id, answer, 1, tokens, run_id)
    return answer


def answer_of(decision: dict[str, Any]) -> str:
    """A decision's "answer" field, trimmed and lower-cased ("yes", "no", a type)."""
    return str(decision.get("answer", "")).strip().lower()


def roles_of(services: Services, kriya: str) -> dict[str, list[str]]:
    """A Kriyā's roles: relation → the entities that fill it."""
    out: dict[str, list[str]] = {}
    for edge in services.workspace.graph.edges_out(kriya):
        out.setdefault(edge.relation, []).append(edge.target)
    return out


def text_of(services: Services, kriya: str) -> str:
    """The text of the line a Kriyā is cited in."""
    documents = services.workspace.graph.neighbors(kriya, "CITED_IN")
    node = services.workspace.graph.node(documents[0]) if documents else None
    return str(node["text"]) if node else ""


def link(services: Services, source: str, target: str, relation: str, **attrs: Any) -> bool:
    """Add a post-processing edge; CAUSES never closes a cycle; a schema violation is logged, not raised."""
    if relation == "CAUSES" and (source == target or causes_path(services.workspace.graph, target, source)):
        log.info("CAUSES %s -> %s left out: it would close a cycle", source, target)
        return False  # cause is asymmetric and acyclic
    try:
        services.workspace.graph.add_edge(source, target, relation, **attrs)
        return True
    except SchemaError as exc:
        log.warning("post-processing edge rejected: %s", exc)
        return False


def name_of(services: Services, node: str) -> str:
    """An entity's canonical name (its id when it has none)."""
    attrs = services.workspace.graph.node(node) or {}
    return str(attrs.get("canonical_name", node))


def doc_entities(services: Services, doc_id: str, untyped: bool = False) -> list[str]:
    """A document's named entities (no pronouns), or only those without a type."""
    graph = services.workspace.graph
    found = set()
    for kriya in graph.kriyas_of(doc_id):
        for edge in graph.edges_out(kriya):
            node = graph.node(edge.target) or {}
            if node.get("type") == "Entity" and not node.get("pronoun") and not (untyped and node.get("entity_type")):
                found.add(edge.target)
    return sorted(found)


class Question(NamedTuple):
    """One memoised LLM decision a step needs: what it is about, its key, prompt and fields."""

    subject: tuple[str, ...]
    key: str
    prompt: str
    fields: dict[str, Any]


def ask_all(services: Services, doc_id: str, run_id: str, questions: list[tuple[str, Question]]) -> int:
    """Ask, ``concurrency`` at a time, the questions not answered yet; returns how many were asked."""
    ws = services.workspace
    todo = [(step, q) for step, q in questions if ws.records.decision(q.key) is None]
    asked: list[bool] = []
    later: list[tuple[str, Question]] = []

    def one(item: tuple[str, Question], wait: bool) -> None:
        step, q = item  # another worker may be asking the same (an entity of its document too)
        with ws.claim([f"decision:{q.key}"], wait) as mine:
            if not mine:
                later.append(item)
            elif ws.records.decision(q.key) is None:
                decide(services, step, doc_id, q.key, run_id, q.prompt, **q.fields)
                asked.append(True)

    with ThreadPoolExecutor(max_workers=max(1, services.ctx.concurrency)) as pool:
        list(pool.map(one, todo, [False] * len(todo)))  # first what no one else is asking
        list(pool.map(one, list(later), [True] * len(later)))  # then wait for the others' answers
    return len(asked)
