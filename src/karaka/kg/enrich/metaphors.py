"""Epithets ("the Lord of Lanka") linked to the entity they name: a model's decision, through the GSV loop."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from karaka.gsv.run import Loop, run_loop
from karaka.services import Services

if TYPE_CHECKING:
    pass
from karaka.kg.enrich.decisions import decision_key, doc_entities, link, name_of

_EPITHET = re.compile(r"^(?:[A-Z][\w'-]*\s+)+(?:of|of the)\s+(?:the\s+)?[A-Z][\w'-]*", re.UNICODE)


def link_metaphors(services: Services, doc_id: str, run_id: str, loop: Loop) -> int:
    """Epithets ("King of Kings") → a known entity, confirmed by the GSV loop."""
    if services.llm is None:
        return 0
    graph = services.workspace.graph
    linked = 0
    for entity in doc_entities(services, doc_id):
        name = name_of(services, entity)
        if not _EPITHET.match(name) or graph.neighbors(entity, "IS_SAME_AS"):
            continue
        hits = services.workspace.vectors.search(services.embeddings.embed_query(name), k=5)
        lines, known = [], set()
        for d, seq, _ in hits:
            sentence = services.workspace.records.line(d, seq)
            if sentence is None:
                continue
            lines.append(sentence.text)
            document = graph.document_at(d, seq)
            if document is not None:
                for kriya in graph.neighbors(document, "CITED_IN", "in"):
                    for edge in graph.edges_out(kriya):
                        other = graph.node(edge.target) or {}
                        if other.get("type") == "Entity" and not other.get("pronoun") and edge.target != entity \
                                and not _EPITHET.match(other["canonical_name"]):
                            known.add(other["canonical_name"])
        if not known:
            continue
        options = sorted(known)
        key = decision_key("metaphor", entity, options, lines)
        cached = services.workspace.records.decision(key)
        if cached is None:
            source = f"Epithet: {name}\nKnown entities: {', '.join(options)}\nContext:\n" + "\n".join(lines)
            out = run_loop(loop, {"task": "metaphor", "source": source, "ref": {"doc_id": doc_id, "entity": entity}},
                           services.ctx)
            cached = {"target": (out["golden"] or {}).get("target")}
            services.workspace.records.put_decision(key, "metaphors", doc_id, cached, out["llm_calls"],
                                                    out["prompt_tokens"], run_id)
        target = cached.get("target")
        if isinstance(target, str) and target in known:
            linked += link(services, entity, services.workspace.resolver.lookup(target) or target,
                            "IS_SAME_AS", method="gsv", step="metaphor")
    return linked
