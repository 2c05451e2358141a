"""Write golden extractions into the strict graph: Kriyā, Entity, kāraka edges, CITED_IN."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from karaka.nodes.units import plan_units
from karaka.store.graph import document_id
from karaka.store.schema import SchemaError, karaka_relation
from karaka.store.workspace import Workspace

log = logging.getLogger("karaka.write")

_TEMPORAL_VALUE = re.compile(
    r"\b(\d{1,2}:\d{2}|\d{4}|\d{1,2}(st|nd|rd|th)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*|"
    r"(jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\w*\s+\d{1,2}|(mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"yesterday|today|tomorrow|tonight|morning|evening|night|noon|midnight|dawn|dusk|"
    r"(last|next|this)\s+(week|month|year)|\d+\s*(am|pm|a\.m\.|p\.m\.))\b",
    re.IGNORECASE,
)


def is_temporal_value(text: str) -> bool:
    """Fallback heuristic: dates, times, weekdays and words like 'yesterday' are temporal."""
    return bool(_TEMPORAL_VALUE.search(text))


def _mentions(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value if v and str(v).strip()]
    return [str(value)] if str(value).strip() else []


def unit_kriyas(workspace: Workspace, doc_id: str, window: int) -> list[dict[str, Any]]:
    """Golden kriyas of a document in line order, following per-line fallbacks."""
    records = workspace.records
    row = records.document(doc_id)
    if row is None:
        return []
    out: list[dict[str, Any]] = []
    for unit in plan_units(doc_id, row["n_lines"], window):
        result = records.result(unit["unit_id"])
        if result is None:
            continue
        parts = [result]
        if result["status"] == "fallback":
            parts = [r for r in (records.result(u) for u in result["payload"]["lines"]) if r]
        for part in parts:
            if part["status"] == "golden":
                out.extend(part["payload"]["kriyas"])
    return out


def write_document(workspace: Workspace, doc_id: str, window: int) -> list[dict[str, str]]:
    """Write one document's kriyas (idempotent: ids are positional); returns write failures."""
    graph, resolver = workspace.graph, workspace.resolver
    failures: list[dict[str, str]] = []
    row = workspace.records.document(doc_id)
    n_lines = row["n_lines"] if row else 0
    seq: dict[int, int] = {}
    for item in unit_kriyas(workspace, doc_id, window):
        line = item.get("line")
        if not isinstance(line, int) or not 1 <= line <= n_lines:
            failures.append({"ref": f"{doc_id}:{line}", "cause": f"kriya {item.get('verb')!r} has no valid line"})
            continue
        seq[line] = seq.get(line, 0) + 1
        doc_node = document_id(doc_id, line)
        try:
            verb = str(item.get("verb") or "").strip().lower()
            if not verb:
                raise SchemaError("kriya has no verb", field="verb")
            planned = []  # check every role before the first write, so a bad item writes nothing
            for role, value in (item.get("karakas") or {}).items():
                relation = karaka_relation(role)
                for text in _mentions(value):
                    temporal = relation == "LOCATED_IN" and is_temporal_value(text)
                    planned.append(("OCCURS_AT" if temporal else relation, text))
            kriya = graph.add_kriya(
                doc_id, line, seq[line], verb,
                negated=bool(item.get("negated")), extractor=str(item.get("extractor", "llm")),
            )
            graph.add_edge(kriya, doc_node, "CITED_IN")
            hints = {h["pronoun"].lower(): h.get("refers_to") for h in item.get("coreferences") or []
                     if isinstance(h, dict) and h.get("pronoun")}
            for relation, text in planned:
                found = resolver.resolve(text, scope=doc_node)
                attrs: dict[str, Any] = {}
                if found.pronoun:
                    attrs["pronoun"] = True
                    hint = hints.get(found.canonical_name.lower())
                    if hint:
                        attrs["coref_hint"] = json.dumps(hint, ensure_ascii=False)
                graph.add_entity(found.entity_id, found.canonical_name, **attrs)
                graph.add_edge(kriya, found.entity_id, relation, doc_id=doc_id, line_number=line)
        except (SchemaError, ValueError, KeyError) as exc:
            log.warning("write failed at %s:%d: %s", doc_id, line, exc)
            failures.append({"ref": f"{doc_id}:{line}", "cause": f"schema: {exc}"})
    return failures
