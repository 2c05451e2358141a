"""Post-processing: IS_SAME_AS for pronouns and epithets, entity types, CAUSES.

Each step asks the LLM when there is one, memoising every decision in the
records so a resumed run never asks twice. With no LLM (``--extractor parser``
or ``--llm none``) pronouns, types and causes use deterministic heuristics and
the edges say ``method=heuristic``; epithets need an LLM and are skipped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from typing import Any

from karaka.analyzer import parse
from karaka.graphs.gsv import run_gsv
from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.models.call import LLMCallError
from karaka.nodes.common import ask
from karaka.services import Services
from karaka.store.graph import document_id
from karaka.store.resolver import is_pronoun
from karaka.store.schema import SchemaError

log = logging.getLogger("karaka.postprocess")

ENTITY_TYPES = ("Person", "Location", "Organisation", "AI", "Object", "Time", "Event", "Concept")
_NER_TYPES = {"PERSON": "Person", "GPE": "Location", "LOC": "Location", "FAC": "Location",
              "ORG": "Organisation", "NORP": "Organisation", "DATE": "Time", "TIME": "Time",
              "EVENT": "Event", "PRODUCT": "Object", "WORK_OF_ART": "Object"}
_EPITHET = re.compile(r"^(?:[A-Z][\w'-]*\s+)+(?:of|of the)\s+(?:the\s+)?[A-Z][\w'-]*", re.UNICODE)
_CAUSAL_NEXT = re.compile(r"^(so|therefore|thus|hence|consequently|as a result)\b", re.IGNORECASE)
_PERSONAL = {"he", "she", "him", "her", "his", "hers", "who", "whom"}


def _key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _decide(services: Services, step: str, doc_id: str, key: str, run_id: str,
            prompt: str, **fields: Any) -> dict[str, Any]:
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


def _kriyas_in_order(services: Services, doc_id: str) -> list[str]:
    g = services.workspace.graph.g
    ids = [n for n in services.workspace.graph.doc_nodes(doc_id) if g.nodes[n]["type"] == "Kriya"]
    return sorted(ids, key=lambda n: (g.nodes[n]["line_number"], int(n.rsplit("_K", 1)[1])))


def _roles(services: Services, kriya: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for _, target, relation in services.workspace.graph.g.out_edges(kriya, keys=True):
        out.setdefault(relation, []).append(target)
    return out


def _link(services: Services, source: str, target: str, relation: str, **attrs: Any) -> bool:
    try:
        services.workspace.graph.add_edge(source, target, relation, **attrs)
        return True
    except SchemaError as exc:
        log.warning("post-processing edge rejected: %s", exc)
        return False


def resolve_coreferences(services: Services, doc_id: str, run_id: str) -> int:
    """Link each pronoun to the entity it stands for (IS_SAME_AS pronoun → entity)."""
    graph, g = services.workspace.graph, services.workspace.graph.g
    linked = 0
    order = _kriyas_in_order(services, doc_id)
    for index, kriya in enumerate(order):
        line = g.nodes[kriya]["line_number"]
        roles = _roles(services, kriya)
        for relation, entities in roles.items():
            for pronoun in entities:
                attrs = g.nodes[pronoun]
                if attrs.get("type") != "Entity" or not attrs.get("pronoun") or graph.neighbors(pronoun, "IS_SAME_AS"):
                    continue
                options = _antecedents(services, order[: index + 1], pronoun, relation)
                if not options:
                    continue
                if services.llm is None:
                    target, method = options[0], "heuristic"
                else:
                    nearby = services.workspace.vectors.nearby(doc_id, line, window=3)
                    context = "\n".join(
                        f"[Line {n}] {g.nodes[document_id(doc_id, n)]['text']}"
                        for n in sorted(set(nearby) | {line - 1}) if document_id(doc_id, n) in g
                    )
                    names = [g.nodes[o]["canonical_name"] for o in options]
                    answer = _decide(
                        services, "coreference", doc_id, _key("coref", pronoun, names, context), run_id,
                        "coreference_prompt", pronoun=attrs["canonical_name"],
                        line=g.nodes[document_id(doc_id, line)]["text"], context=context or "(none)",
                        hint=attrs.get("coref_hint", "none"), options=", ".join(names),
                    )
                    chosen = str(answer.get("target") or "")
                    if str(answer.get("answer", "")).lower() != "yes" or chosen not in names:
                        continue
                    target, method = options[names.index(chosen)], "llm"
                linked += _link(services, pronoun, target, "IS_SAME_AS", method=method, step="coreference")
    return linked


def _antecedents(services: Services, before: list[str], pronoun: str, relation: str) -> list[str]:
    """Non-pronoun entities of earlier kriyas, nearest first; agents first for he/she."""
    g = services.workspace.graph.g
    personal = g.nodes[pronoun]["canonical_name"].lower() in _PERSONAL
    seen: list[str] = []
    for kriya in reversed(before):
        roles = _roles(services, kriya)
        order = ["HAS_KARTĀ", "TARGETS_SAMPRADĀNA", "HAS_KARMA"] if personal else ["HAS_KARMA", "USES_KARANA", "HAS_KARTĀ"]
        for rel in order:
            for entity in roles.get(rel, []):
                node = g.nodes[entity]
                if node.get("pronoun") or is_pronoun(node["canonical_name"]) or entity in seen:
                    continue
                if entity == pronoun:
                    continue
                seen.append(entity)
    if not personal:
        people = [e for e in seen if _ner_type(services, e) == "Person"]
        seen = [e for e in seen if e not in people] + people
    return seen[:6]


def _ner_type(services: Services, entity: str) -> str | None:
    g = services.workspace.graph.g
    name = g.nodes[entity]["canonical_name"]
    for kriya, _ in services.workspace.graph.uses(entity)[:3]:
        for doc in services.workspace.graph.neighbors(kriya, "CITED_IN"):
            for ent in parse(g.nodes[doc]["text"]).ents:
                if ent.text == name or name in ent.text:
                    return _NER_TYPES.get(ent.label_)
    return None


def link_metaphors(services: Services, doc_id: str, run_id: str) -> int:
    """Epithets ("King of Kings") → a known entity, confirmed by the GSV loop."""
    if services.llm is None:
        return 0
    graph, g = services.workspace.graph, services.workspace.graph.g
    linked = 0
    entities = {t for k in _kriyas_in_order(services, doc_id) for t in graph.g.successors(k)
                if g.nodes[t]["type"] == "Entity" and not g.nodes[t].get("pronoun")}
    for entity in sorted(entities):
        name = g.nodes[entity]["canonical_name"]
        if not _EPITHET.match(name) or graph.neighbors(entity, "IS_SAME_AS"):
            continue
        hits = services.workspace.vectors.search(services.embeddings.embed_query(name), k=5)
        lines = [g.nodes[document_id(d, n)]["text"] for d, n, _ in hits if document_id(d, n) in g]
        known = sorted({
            g.nodes[t]["canonical_name"] for d, n, _ in hits if document_id(d, n) in g
            for k in graph.neighbors(document_id(d, n), "CITED_IN", "in") for t in g.successors(k)
            if g.nodes[t]["type"] == "Entity" and not g.nodes[t].get("pronoun") and t != entity
            and not _EPITHET.match(g.nodes[t]["canonical_name"])
        })
        if not known:
            continue
        key = _key("metaphor", entity, known, lines)
        cached = services.workspace.records.decision(key)
        if cached is None:
            source = f"Epithet: {name}\nKnown entities: {', '.join(known)}\nContext:\n" + "\n".join(lines)
            out = run_gsv({"task": "metaphor", "source": source,
                           "ref": {"doc_id": doc_id, "entity": entity}}, services.ctx)
            cached = {"target": (out["golden"] or {}).get("target")}
            services.workspace.records.put_decision(key, "metaphors", doc_id, cached, out["llm_calls"],
                                                    out["prompt_tokens"], run_id)
        target = cached.get("target")
        if isinstance(target, str) and target in known:
            linked += _link(services, entity, services.workspace.resolver.lookup(target) or target,
                            "IS_SAME_AS", method="gsv", step="metaphor")
    return linked


def type_entities(services: Services, doc_id: str, run_id: str) -> int:
    """Set ``entity_type`` on entities of a document that have none."""
    graph, g = services.workspace.graph, services.workspace.graph.g
    typed = 0
    entities = {t for k in _kriyas_in_order(services, doc_id) for t in graph.g.successors(k)
                if g.nodes[t]["type"] == "Entity" and not g.nodes[t].get("pronoun")
                and not g.nodes[t].get("entity_type")}
    for entity in sorted(entities):
        if services.llm is None:
            kind = _ner_type(services, entity) or "Object"
        else:
            uses = graph.uses(entity)[:3]
            context = "\n".join(g.nodes[d]["text"] for k, _ in uses for d in graph.neighbors(k, "CITED_IN"))
            answer = _decide(services, "entity_types", doc_id, _key("type", entity, context), run_id,
                             "entity_type_prompt", entity=g.nodes[entity]["canonical_name"],
                             context=context, types=", ".join(ENTITY_TYPES))
            kind = str(answer.get("entity_type", "")).strip()
            if kind not in ENTITY_TYPES:
                continue
        graph.add_node(entity, entity_type=kind)
        typed += 1
    return typed


def find_causes(services: Services, doc_id: str, run_id: str) -> int:
    """CAUSES between consecutive Kriyās of the same or adjacent lines."""
    g = services.workspace.graph.g
    order = _kriyas_in_order(services, doc_id)
    found = 0
    for first, second in zip(order, order[1:], strict=False):
        l1, l2 = g.nodes[first]["line_number"], g.nodes[second]["line_number"]
        if l2 - l1 > 1:
            continue
        t1 = g.nodes[document_id(doc_id, l1)]["text"]
        t2 = g.nodes[document_id(doc_id, l2)]["text"]
        if services.llm is None:
            v2 = g.nodes[second]["verb"]
            purpose = l1 == l2 and re.search(rf"\bto\s+{re.escape(v2)}\b", t1, re.IGNORECASE)
            if not (purpose or (l2 == l1 + 1 and _CAUSAL_NEXT.match(t2))):
                continue
            method = "heuristic"
        else:
            answer = _decide(services, "causality", doc_id, _key("cause", first, second, t1, t2), run_id,
                             "causality_prompt", first=f"{g.nodes[first]['verb']} (line {l1})",
                             second=f"{g.nodes[second]['verb']} (line {l2})",
                             context=t1 if l1 == l2 else f"{t1}\n{t2}")
            if str(answer.get("answer", "")).lower() != "yes":
                continue
            method = "llm"
        found += _link(services, first, second, "CAUSES", method=method)
    return found
