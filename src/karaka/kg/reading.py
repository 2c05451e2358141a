"""The fallback's reader: it reads the asked role off the best retrieved lines.

When the graph holds no matching action, the best lines are analysed afresh and the action that
fits the question best gives the answer.
"""

from __future__ import annotations

from typing import Any

from karaka.kg.traverse import SYNONYMS, Answer, Span, coverage, pick_answers, verb_lemma
from karaka.kg.units import parser_reads
from karaka.nlp import parse_many
from karaka.nlp.roles import analyze_doc
from karaka.nlp.rules import mentions
from karaka.store.base import Store


def _verbs(verb: str | None) -> dict[str, float]:
    if not verb:
        return {}
    exact = {verb.lower(), verb_lemma(verb)}
    out = dict.fromkeys(exact, 1.0)
    for group in SYNONYMS:
        if exact & group:
            out.update({v: 0.7 for v in group if v not in out})
    return out


def read_lines(store: Store, step: dict[str, Any] | None, documents: list[str]) -> list[Answer]:
    """Answers read off the best-fitting action of ``documents`` (ranked lines), best first."""
    if not step or not documents:
        return []
    nodes = [store.graph.node(d) or {} for d in documents]
    # the parser reads English prose: a French line or a code line gives it nothing to read
    texts = [str(n.get("text", "")) if parser_reads(n.get("kind", ""), n.get("lang", "")) else "" for n in nodes]
    verbs = _verbs(step.get("verb"))
    named = [(role, str(value)) for role, value in (step.get("karakas") or {}).items()
             if value and not str(value).startswith("$")]
    scored: list[tuple[float, int, list[Span]]] = []
    for rank, doc in enumerate(parse_many(texts)):
        for item in analyze_doc(doc):
            spans: list[Span] = [("role", role, text, None) for role, value in item["karakas"].items()
                                 for text in mentions(value)]
            spans += [("adj", kind, text, None) for kind, values in (item.get("adjuncts") or {}).items()
                      for text in values]
            total, matched = verbs.get(item["verb"], 0.0), 0
            for role, text in named:
                best = max((coverage(text, s[2]) * (1.0 if s[1] == role else 0.6) for s in spans if s[0] == "role"),
                           default=0.0)
                total += best
                matched += best >= 0.5
            if not (item["verb"] in verbs or matched):
                continue
            scored.append((total + 0.3 / (1 + rank), rank, spans))
    scored.sort(key=lambda p: (-p[0], p[1]))
    for _, rank, spans in scored:
        found = pick_answers(spans, step, [t for _, t in named], documents[rank])
        if found:
            return found
    return []
