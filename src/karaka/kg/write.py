"""Write accepted extractions into the strict graph: Kriyā, Entity, kāraka edges, CITED_IN, CAUSES.

Each kāraka edge keeps the argument's surface span as extracted (``span``: "in a statement"); the
Entity it points to is named by the span's canonical form ("statement"), which drives resolution.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from karaka.kg.units import plan_units
from karaka.nlp.phrases import CLAUSE
from karaka.nlp.roles import PREPOSITIONAL_ROLES
from karaka.state.ingest import WRITTEN_STATUSES, UnitStatus
from karaka.store.base import Store
from karaka.store.ids import document_node
from karaka.store.resolver import entity_name
from karaka.store.schema import KARAKA_RELATIONS, SchemaError, karaka_relation

log = logging.getLogger("karaka.write")
NER_TYPES = {"PERSON": "Person", "GPE": "Location", "LOC": "Location", "FAC": "Location", "ORG": "Organisation",
             "NORP": "Organisation", "DATE": "Time", "TIME": "Time", "EVENT": "Event", "PRODUCT": "Object",
             "WORK_OF_ART": "Object"}

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


def stored_kriyas(store: Store, doc_id: str, window: int) -> tuple[list[dict[str, Any]], list[str]]:
    """A document's accepted kriyas in reading order (per-line fallbacks followed), and the units with no result."""
    records = store.records
    row = records.document(doc_id)
    if row is None:
        return [], []
    stored = {r["unit_id"]: r for r in records.results([doc_id])}  # one read for the document
    kriyas: list[dict[str, Any]] = []
    missing: list[str] = []
    for unit in plan_units(doc_id, row["n_lines"], window):
        result = stored.get(unit.unit_id)
        if result is None:
            missing.append(unit.unit_id)
            continue
        parts = [result]
        if result["status"] == UnitStatus.FALLBACK:
            missing += [u for u in result["payload"]["lines"] if u not in stored]
            parts = [r for r in (stored.get(u) for u in result["payload"]["lines"]) if r]
        for part in parts:
            if part["status"] in WRITTEN_STATUSES:
                kriyas += part["payload"]["kriyas"]
    return kriyas, missing


def write_document(store: Store, doc_id: str, window: int) -> tuple[list[dict[str, str]], list[str]]:
    """Write one document's kriyas, replacing what it wrote before; returns write failures and missing units.

    Kriyā ids are positional, and each written Kriyā's kāraka edges replace its old ones, so
    writing twice gives the graph of writing once, whatever the process: Kriyās no longer
    extracted go, and so do entities left with no use.
    """
    graph, records = store.graph, store.records
    failures: list[dict[str, str]] = []
    places = {s.seq: (s.line, s.sentence) for s in records.lines(doc_id)}
    before = set(graph.kriyas_of(doc_id))
    touched = {e.target for k in before for e in graph.edges_out(k) if e.relation in KARAKA_RELATIONS}
    written: dict[str, set[tuple[str, str]]] = {}
    seq_count: dict[int, int] = {}
    by_token: dict[tuple[int, int], str] = {}
    links: list[tuple[int, dict[str, Any]]] = []
    items, missing = stored_kriyas(store, doc_id, window)
    store.resolver.prepare([(text, role in PREPOSITIONAL_ROLES) for item in items
                            for role, value in (item.get("karakas") or {}).items() for text in _mentions(value)])
    for item in items:
        seq = item.get("line")
        if not isinstance(seq, int) or seq not in places:
            failures.append({"ref": f"{doc_id}:{seq}", "cause": f"kriya {item.get('verb')!r} has no valid line"})
            continue
        seq_count[seq] = seq_count.get(seq, 0) + 1
        document = document_node(doc_id, *places[seq])
        try:
            kriya, edges = _write_kriya(store, document, seq_count[seq], item)
        except (SchemaError, ValueError, KeyError) as exc:
            log.warning("write failed at %s:%d: %s", doc_id, seq, exc)
            failures.append({"ref": f"{doc_id}:{places[seq][0]}", "cause": f"schema: {exc}"})
            continue
        written[kriya] = edges
        if item.get("token") is not None:
            by_token[(seq, int(item["token"]))] = kriya
        links += [(seq, link) for link in item.get("links") or []]
    _drop_stale(store, before, written, touched)
    for seq, link in links:
        source, target = by_token.get((seq, link.get("from", -1))), by_token.get((seq, link.get("to", -1)))
        if source and target and source != target and not causes_path(graph, target, source):
            graph.add_edge(source, target, "CAUSES", method="parser", kind=str(link.get("kind", "reason")))
    return failures, missing


def causes_path(graph: Any, start: str, goal: str, limit: int = 200) -> bool:
    """Whether CAUSES edges already lead from ``start`` to ``goal`` (so the reverse would close a cycle)."""
    seen, frontier = {start}, [start]
    while frontier and len(seen) < limit:
        node = frontier.pop()
        for nxt in graph.neighbors(node, "CAUSES"):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return False


def _drop_stale(store: Store, before: set[str], written: dict[str, set[tuple[str, str]]], touched: set[str]) -> None:
    """Remove what an earlier write left that this one did not write: kāraka edges, Kriyās, unused entities."""
    graph = store.graph
    for kriya, edges in written.items():
        for edge in graph.edges_out(kriya):
            if edge.relation in KARAKA_RELATIONS and (edge.target, edge.relation) not in edges:
                graph.remove_edge(kriya, edge.target, edge.relation)
    graph.discard(before - set(written))
    orphans = {e for e in touched if e in graph and (graph.node(e) or {}).get("type") == "Entity" and not graph.uses(e)}
    graph.discard(orphans)
    store.forget(orphans)


def _write_kriya(store: Store, document: str, k: int, item: dict[str, Any]) -> tuple[str, set[tuple[str, str]]]:
    """Write one Kriyā; returns its id and its kāraka edges as (entity, relation)."""
    graph, resolver = store.graph, store.resolver
    verb = str(item.get("verb") or "").strip().lower()
    if not verb:
        raise SchemaError("kriya has no verb", field="verb")
    planned = []  # check every role before the first write, so a bad item writes nothing
    for role, value in (item.get("karakas") or {}).items():
        relation = karaka_relation(role)
        for text in _mentions(value):
            if not entity_name(text, role in PREPOSITIONAL_ROLES):
                log.info("%s: %s span %r names nothing; left out", document, role, text)
                continue  # punctuation or a lone preposition: the rest of the Kriyā is still written
            temporal = relation == "LOCATED_IN" and is_temporal_value(text)
            planned.append(("OCCURS_AT" if temporal else relation, role, text))
    attrs: dict[str, Any] = {"negated": bool(item.get("negated")),
                             "provenance": str(item.get("provenance") or "gsv")}
    if isinstance(item.get("char"), int):
        attrs["char"] = item["char"]  # where the verb starts in its sentence (parser extraction)
    if isinstance(item.get("dep"), str):
        attrs["dep"] = item["dep"]  # how the verb hangs in the parse ("acl": a noun's complement)
    adjuncts = {k: [str(v) for v in vs if str(v).strip()] for k, vs in (item.get("adjuncts") or {}).items()}
    if any(adjuncts.values()):
        attrs["adjuncts"] = {k: v for k, v in adjuncts.items() if v}
    kriya = graph.add_kriya(document, k, verb, **attrs)
    graph.add_edge(kriya, document, "CITED_IN")
    hints = {h["pronoun"].lower(): h.get("refers_to") for h in item.get("coreferences") or []
             if isinstance(h, dict) and h.get("pronoun")}
    types = item.get("types") or {}
    shapes = item.get("shapes") or {}
    doc = graph.node(document) or {}
    edges: set[tuple[str, str]] = set()
    for relation, role, text in planned:
        found = resolver.resolve(text, scope=document, prepositional=role in PREPOSITIONAL_ROLES)
        entity_attrs: dict[str, Any] = {}
        if found.pronoun:
            entity_attrs["pronoun"] = True
            hint = hints.get(found.canonical_name.lower())
            if hint:
                entity_attrs["coref_hint"] = str(hint)
        label = NER_TYPES.get(str(types.get(text, "")))
        if label and not found.pronoun and not (graph.node(found.entity_id) or {}).get("ner_type"):
            entity_attrs["ner_type"] = label  # the parse's label: typing needs no second parse
        if text in shapes and not found.pronoun and "shape" not in (graph.node(found.entity_id) or {}):
            entity_attrs["shape"] = shapes[text]  # what coreference needs of it: no second parse either
        graph.add_entity(found.entity_id, found.canonical_name, **entity_attrs)
        graph.add_edge(kriya, found.entity_id, relation, span=text, doc_id=doc.get("doc_id"),
                       line_number=doc.get("line_number"))
        edges.add((found.entity_id, relation))
        if found.alias_of and found.alias_of in graph and found.alias_of != found.entity_id \
                and (graph.node(found.alias_of) or {}).get("shape") != CLAUSE:  # "Roman", the last word of a clause
            graph.add_edge(found.entity_id, found.alias_of, "IS_SAME_AS", method="alias")
    return kriya, edges
