"""Entity types: the NER's label, or a model's blind choice put both ways round."""

from __future__ import annotations

from typing import TYPE_CHECKING

from karaka.gsv.run import Loop
from karaka.kg.write import NER_TYPES
from karaka.nlp import parse
from karaka.services import Services

if TYPE_CHECKING:
    pass
from karaka.kg.enrich.decisions import Question, answer_of, decide, decision_key, doc_entities, name_of, text_of

ENTITY_TYPES = ("Person", "Location", "Organisation", "AI", "Object", "Time", "Event", "Concept")


def ner_type(services: Services, entity: str) -> str | None:
    """The named-entity type of an entity: as the parse labelled it at extraction, else by parsing a line.

    Lines the parser extracted are not parsed again: it stored every label its spans had.
    """
    stored = (services.workspace.graph.node(entity) or {}).get("ner_type")
    if stored:
        return str(stored)
    name = name_of(services, entity)
    graph = services.workspace.graph
    uses = graph.uses(entity)[:3]
    if all((graph.node(kriya) or {}).get("provenance") == "parser" for kriya, _ in uses):
        return None  # the parser wrote its spans' labels at extraction: no label is no entity
    for kriya, _ in uses:
        for ent in parse(text_of(services, kriya)).ents:
            if ent.text == name or name in ent.text:
                return NER_TYPES.get(ent.label_)
    return None


def type_questions(services: Services, doc_id: str) -> list[Question]:
    """One entity-type question per untyped entity of a document, with up to three lines it is used in."""
    graph = services.workspace.graph
    out = []
    for entity in doc_entities(services, doc_id, untyped=True):  # one decision per entity, whoever asks first
        context = "\n".join(text_of(services, k) for k, _ in sorted(graph.uses(entity))[:3])
        out.append(Question((entity,), decision_key("type", entity), "entity_type_prompt",
                            {"entity": name_of(services, entity), "context": context, "types": ", ".join(ENTITY_TYPES)}))
    return out


def type_entities(services: Services, doc_id: str, run_id: str, loop: Loop) -> int:
    """Set ``entity_type`` on entities of a document that have none."""
    graph = services.workspace.graph
    typed = 0
    if services.llm is None:
        for entity in doc_entities(services, doc_id, untyped=True):
            graph.update_node(entity, entity_type=str((graph.node(entity) or {}).get("ner_type") or "Object"))
            typed += 1
        return typed
    for q in type_questions(services, doc_id):
        answer = decide(services, "entity_types", doc_id, q.key, run_id, q.prompt, **q.fields)
        kind = str(answer.get("entity_type", "")).strip()
        entity, source = q.subject[0], "llm"
        ner = ner_type(services, entity)
        if kind not in ENTITY_TYPES:  # no type the schema knows: the tagger's, else the default, as offline
            graph.update_node(entity, entity_type=ner or "Object", type_source="ner (the model gave no valid type)")
            typed += 1
            continue
        if ner is not None and ner != kind and not _chosen_over(services, doc_id, run_id, q, kind, ner):
            kind, source = ner, "ner (the model's type was not confirmed)"
        elif ner is not None and ner != kind:
            source = "llm, confirmed against the NER"
        graph.update_node(entity, entity_type=kind, type_source=source)
        typed += 1
    return typed


def _chosen_over(services: Services, doc_id: str, run_id: str, q: Question, kind: str, ner: str) -> bool:
    """Whether the model, asked blind to choose between its type and the name tagger's, picks its own in both orders.

    A small model says yes to "is X a Location?" far too easily, and favours the option it reads
    first; a type that overrides the tagger must win a choice put both ways round.
    """
    entity = q.subject[0]
    for first, second in ((kind, ner), (ner, kind)):
        check = decide(services, "entity_types", doc_id, decision_key("type-choice", entity, first, second), run_id,
                        "entity_type_check_prompt", entity=q.fields["entity"], context=q.fields["context"],
                        first=first, second=second)
        if answer_of(check) != kind.lower():
            return False
    return True
