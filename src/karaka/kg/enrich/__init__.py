"""Post-processing (enrichment): IS_SAME_AS for pronouns and epithets, entity types, CAUSES.

One module a step: ``coreference``, ``metaphors``, ``types``, ``causes``; ``decisions`` holds what
they share (decisions memoised in the records, the graph's lines, roles and names, new edges).

Each step asks the LLM when there is one, memoising every decision in the records so a resumed
run never asks twice. With no LLM (``--extractor parser`` or ``--llm none``) pronouns, types and
causes use deterministic heuristics and the edges say ``method=heuristic``; epithets need an LLM
and are skipped.
"""

from __future__ import annotations

from collections.abc import Callable

from karaka.gsv.run import Loop
from karaka.kg.enrich.causes import cause_pairs, cause_question, find_causes
from karaka.kg.enrich.coreference import resolve_coreferences
from karaka.kg.enrich.decisions import Question, answer_of, ask_all
from karaka.kg.enrich.metaphors import link_metaphors
from karaka.kg.enrich.types import type_entities, type_questions
from karaka.services import Services


def decide_ahead(services: Services, doc_id: str, run_id: str) -> int:
    """Ask, ``concurrency`` at a time, every independent decision the type and cause steps will need.

    The steps themselves then find every answer memoised. This part reads the graph and writes
    only the records, so a database store's workers run it side by side, outside the writer lock.
    Returns the number of LLM calls made.
    """
    if services.llm is None:
        return 0
    questions: list[tuple[str, Question]] = []
    forward: list[Question] = []
    backward: list[Question] = []
    with services.workspace.mutating():  # the graph holds still while the questions are read off it
        if services.ctx.entity_types:
            questions += [("entity_types", q) for q in type_questions(services, doc_id)]
        if services.ctx.causality:
            pairs = cause_pairs(services, doc_id)
            forward = [cause_question(services, cause, effect) for cause, effect in pairs]
            backward = [cause_question(services, effect, cause) for cause, effect in pairs]
    asked = ask_all(services, doc_id, run_id, questions + [("causality", q) for q in forward])
    records = services.workspace.records  # then the other way round, where the model said yes (``one_way``)
    said_yes = [("causality", back) for q, back in zip(forward, backward, strict=True)
                if answer_of(records.decision(q.key) or {}) == "yes"]
    return asked + ask_all(services, doc_id, run_id, said_yes)


Step = Callable[[Services, str, str, Loop], int]


STEPS: tuple[tuple[str, Step], ...] = (
    ("coreference", resolve_coreferences),
    ("metaphors", link_metaphors),
    ("entity_types", type_entities),
    ("causality", find_causes),
)
