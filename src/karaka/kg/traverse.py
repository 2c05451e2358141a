"""Plan → graph (no LLM): find the Kriyās a step describes, rank them, read the asked role.

A step names a verb, arguments in roles ("KARTA": "Andy Freeburn") and the role it asks for. A
Kriyā is a candidate when its verb is the step's (lemma or synonym) or when it uses an entity the
arguments may name (exact name, alias, or IS_SAME_AS); a verb so common that it would cite
hundreds of lines is narrowed to the Kriyās on the question's best lexical lines. Candidates are
ranked by how well their spans cover the named arguments (the same role counts most; a role
swapped by the parser still counts some), then by the lexical rank of their line. The answer is
the best Kriyā's span in the asked role (or the nearest kind: a when-question takes a time, else
a time clause, else a place), never a span the question itself names.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from karaka.store.base import Store
from karaka.store.schema import KARAKA_TO_RELATION, RELATION_TO_KARAKA
from karaka.words import LIGHT_WORDS, lower_words

MAX_HOPS = 5
MAX_VERB_SCAN = 300
PREFERENCES: dict[str, list[tuple[str, str]]] = {
    "KARTA": [("role", "KARTA")],
    "KARMA": [("role", "KARMA")],
    "KARANA": [("role", "KARANA"), ("adj", "MANNER")],
    "SAMPRADANA": [("role", "SAMPRADANA"), ("adj", "PURPOSE")],
    "APADANA": [("role", "APADANA")],
    "ADHIKARANA_SPATIAL": [("role", "ADHIKARANA_SPATIAL"), ("adj", "PLACE"), ("role", "APADANA"), ("adj", "OTHER")],
    "ADHIKARANA_TEMPORAL": [("role", "ADHIKARANA_TEMPORAL"), ("adj", "TIME"), ("role", "ADHIKARANA_SPATIAL"),
                            ("adj", "OTHER")],
    "CAUSE": [("adj", "CAUSE"), ("adj", "PURPOSE"), ("adj", "TIME"), ("adj", "MANNER")],
    "PURPOSE": [("adj", "PURPOSE"), ("adj", "CAUSE")],
    "MANNER": [("adj", "MANNER"), ("role", "KARANA"), ("role", "APADANA"), ("adj", "OTHER"), ("adj", "PURPOSE")],
    "VERB": [],
}
_STEP_REF = re.compile(r"^\$?\{?(?:step|answer)?\s*_?(\d+)\}?$", re.IGNORECASE)


@functools.lru_cache(maxsize=65536)
def content(text: str) -> frozenset[str]:
    """Content words of a span, lower-cased, plural -s folded (memoised: spans recur across candidates)."""
    out = set()
    for word in lower_words(text):
        if word in LIGHT_WORDS:
            continue
        out.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return frozenset(out)


def coverage(named: str, span: str) -> float:
    """How much of a named argument a span holds (share of its content words)."""
    want = content(named)
    return len(want & content(span)) / len(want) if want else 0.0


@dataclass
class Answer:
    """One answer of a step: the span read off a Kriyā, and the entity it names (if a role)."""

    text: str
    kriya: str
    source: str
    entity: str | None = None


@dataclass
class Traversal:
    """What walking a plan found, best first."""

    kriyas: list[str] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)


def verb_lemma(verb: str) -> str:
    """Base form of a verb (the lemma of its last word)."""
    from karaka.nlp import verb_lemma as lemma

    words = verb.strip().lower().split()
    return lemma(words[-1]) if words else ""


def similar_verbs(store: Store, verb: str) -> dict[str, float]:
    """Verbs of the graph a step's verb names: itself and its lemma.

    No synonyms: a verb the question does not use is not the question's action (a list of
    synonyms fitted to one text made "execute" a killing).
    """
    return {name: 1.0 for name in {verb.lower(), verb_lemma(verb)} if store.graph.kriyas_by_verb(name)}


def spans_of(store: Store, kriya: str) -> list[tuple[str, str, str, str | None]]:  # noqa: D417
    """(kind, name, span, entity) of a Kriyā: ("role", KARTA, "Rama", "Rama"), ("adj", CAUSE, "because …", None)."""
    out: list[tuple[str, str, str, str | None]] = []
    for edge in store.graph.edges_out(kriya):
        role = RELATION_TO_KARAKA.get(edge.relation)
        if role is None:
            continue
        name = (store.graph.node(edge.target) or {}).get("canonical_name", edge.target)
        out.append(("role", role, str(edge.attrs.get("span") or name), edge.target))
    for kind, texts in ((store.graph.node(kriya) or {}).get("adjuncts") or {}).items():
        out += [("adj", kind, str(t), None) for t in texts]
    return out


def entities_named(store: Store, value: str, previous: list[list[Answer]], same_as: bool) -> tuple[set[str], list[str]]:
    """Entity ids an argument may name, and the texts to match spans against."""
    match = _STEP_REF.match(value.strip())
    if match and 0 < int(match.group(1)) <= len(previous):
        answers = previous[int(match.group(1)) - 1]
        ids = {a.entity for a in answers if a.entity}
        texts = [a.text for a in answers]
    else:
        ids, texts = set(store.resolver.candidates(value)), [value]
    if same_as:
        ids = {alias for e in ids if e in store.graph for alias in store.graph.same_as_closure(e)}
    names = [str((store.graph.node(e) or {}).get("canonical_name", e)) for e in ids]
    return ids, texts + names


def _kriyas_on(store: Store, documents: list[str]) -> set[str]:
    return {k for d in documents for k in store.graph.neighbors(d, "CITED_IN", "in")}


def _score(store: Store, kriya: str, verbs: dict[str, float], constraints: list[tuple[str, set[str], list[str]]],
           lexical: dict[str, int]) -> tuple[float, int]:
    """(score, how many named arguments matched) of one candidate Kriyā."""
    attrs = store.graph.node(kriya) or {}
    total = verbs.get(str(attrs.get("verb")), 0.0) if verbs else 0.0
    spans = spans_of(store, kriya)
    matched = 0
    for role, ids, texts in constraints:
        best = 0.0
        for kind, name, text, entity in spans:
            if kind != "role":
                continue
            weight = 1.0 if name == role else 0.6
            hit = 1.0 if entity in ids else max((coverage(t, text) for t in texts), default=0.0)
            best = max(best, weight * hit)
        total += best
        matched += best >= 0.5
    documents = store.graph.neighbors(kriya, "CITED_IN")
    rank = min((lexical[d] for d in documents if d in lexical), default=None)
    if rank is not None:
        total += 0.3 / (1 + rank)
    return total, matched


def read_answers(store: Store, kriya: str, step: dict[str, Any], named: list[str]) -> list[Answer]:
    """The spans of a Kriyā that answer a step, in preference order, never a named argument."""
    return pick_answers(spans_of(store, kriya), step, named, kriya)


Span = tuple[str, str, str, str | None]


def pick_answers(spans: list[Span], step: dict[str, Any], named: list[str], kriya: str) -> list[Answer]:
    """Of an action's spans, those that answer a step, in preference order, never a named argument."""
    extract = step.get("extract") or "KARMA"
    order = list(PREFERENCES.get(extract, [("role", extract)]))
    prep = (step.get("prep") or "").lower()
    picked: list[Answer] = []
    candidates = []
    if prep:
        candidates += [s for s in spans if s[2].lower().startswith(prep + " ")]
    for kind, name in order:
        candidates += [s for s in spans if s[0] == kind and s[1] == name]
    for kind, name, text, entity in candidates:
        if any(coverage(n, text) >= 0.5 or coverage(text, n) >= 0.8 for n in named):
            continue  # the question names it: it cannot be the answer
        if all(a.text != text for a in picked):
            picked.append(Answer(text, kriya, f"{kind}:{name}", entity))
    return picked[:1] if picked and picked[0].source.startswith("adj") else picked


def run_step(store: Store, step: dict[str, Any], previous: list[list[Answer]], lexical: dict[str, int],
             out: Traversal) -> list[Answer]:
    """Execute one plan step; returns its answers (best first)."""
    same_as = bool(step.get("follow_same_as", True))
    constraints: list[tuple[str, set[str], list[str]]] = []
    for role, value in (step.get("karakas") or {}).items():
        if value and role in KARAKA_TO_RELATION:
            ids, texts = entities_named(store, str(value), previous, same_as)
            constraints.append((role, ids, texts))
    verb = step.get("verb")
    verbs = similar_verbs(store, verb) if verb else {}
    by_verb = set().union(*(store.graph.kriyas_by_verb(v) for v in verbs)) if verbs else set()
    by_entity = {k for _, ids, _ in constraints for e in ids for k, _ in store.graph.uses(e)}
    by_line = _kriyas_on(store, list(lexical))
    if verb and not by_verb:  # an action the graph never saw: the fallback reads the lines instead
        candidates = set()
    elif by_verb & by_entity:  # the named entities on this verb, plus what the question's best lines hold
        candidates = (by_verb & by_entity) | (by_verb & by_line)
    elif by_verb and len(by_verb) <= MAX_VERB_SCAN:
        candidates = by_verb
    elif by_verb:  # a verb too common to scan: only where the arguments or the question's words are
        candidates = by_verb & (by_entity | by_line)
    else:
        candidates = by_entity | by_line
    out.trace.append(f"verbs {sorted(verbs) or '-'}: {len(by_verb)} kriyas; entities {len(by_entity)}; "
                     f"{len(candidates)} candidates")
    scored = []
    for kriya in candidates:
        total, matched = _score(store, kriya, verbs, constraints, lexical)
        if verbs and (store.graph.node(kriya) or {}).get("verb") not in verbs and matched < max(1, len(constraints)):
            continue
        if constraints and matched == 0:
            continue
        if not constraints and not verbs:
            continue
        scored.append((total, kriya))
    scored.sort(key=lambda p: (-p[0], p[1]))
    out.trace.append(f"constraints {[(r, len(i)) for r, i, _ in constraints]} keep {len(scored)} kriyas"
                     + (f"; best {scored[0][1]} ({scored[0][0]:.2f}, "
                        f"{(store.graph.node(scored[0][1]) or {}).get('provenance', 'gsv')})" if scored else ""))
    named = [t for _, _, texts in constraints for t in texts[:1]]
    answers: list[Answer] = []
    chosen: list[str] = []
    for total, kriya in scored:
        if answers and total < scored[0][0] - 1e-9:
            break
        found = read_answers(store, kriya, step, named)
        if found or not answers:
            chosen.append(kriya)
        answers += [a for a in found if all(a.text != b.text for b in answers)]
        if not answers and len(chosen) >= 3:
            break
    if not answers and scored:  # the action fits but lacks the asked role: its sentence's other actions may hold it
        best = scored[0][1]
        lines = store.graph.neighbors(best, "CITED_IN")
        siblings = [k for k in store.graph.neighbors(lines[0], "CITED_IN", "in") if k != best] if lines else []
        spans = [s for k in siblings for s in spans_of(store, k)]
        answers = [Answer(a.text, best, f"sentence:{a.source}", a.entity) for a in pick_answers(spans, step, named, best)]
        if answers:
            chosen = [best]
            out.trace.append(f"read {answers[0].source} off the best action's sentence")
    if step.get("follow_causes") and chosen:
        chosen = _expand_causes(store, chosen, out)
    out.kriyas += [k for k in chosen if k not in out.kriyas]
    if not answers:  # no answer: the closest actions' lines are the context
        out.kriyas += [k for _, k in scored[:3] if k not in out.kriyas]
    return answers


def _expand_causes(store: Store, start: list[str], out: Traversal) -> list[str]:
    seen, frontier = list(start), list(start)
    for hop in range(MAX_HOPS):
        nxt = []
        for kriya in frontier:
            for other in store.graph.neighbors(kriya, "CAUSES") + store.graph.neighbors(kriya, "CAUSES", "in"):
                if other not in seen:
                    seen.append(other)
                    nxt.append(other)
        if not nxt:
            break
        out.trace.append(f"CAUSES hop {hop + 1}: +{len(nxt)} kriyas")
        frontier = nxt
    return seen


def traverse(store: Store, plan: dict[str, Any], lexical: dict[str, int] | None = None) -> Traversal:
    """Walk every step; collect the ranked Kriyās, their cited lines and the answers."""
    out = Traversal()
    previous: list[list[Answer]] = []
    steps = plan.get("steps", [])[:MAX_HOPS]
    for i, step in enumerate(steps, 1):
        out.trace.append(f"step {i}: {step.get('goal') or step.get('verb')}")
        answers = run_step(store, step, previous, lexical or {}, out)
        previous.append(answers)
    out.answers = previous[-1] if previous else []
    for answer in out.answers:
        if answer.entity and (store.graph.node(answer.entity) or {}).get("pronoun"):
            anchor = line_of(store, answer.kriya)
            for alias in sorted(store.graph.same_as_closure(answer.entity) - {answer.entity}):
                uses = sorted(store.graph.uses(alias), key=lambda u: _distance(store, u[0], anchor))
                if uses:  # cite where the pronoun's antecedent is mentioned, nearest first
                    out.kriyas += [k for k, _ in uses[:1] if k not in out.kriyas]
                    out.trace.append(f"IS_SAME_AS {answer.entity} ↔ {alias}")
    for kriya in [a.kriya for a in out.answers] + out.kriyas:
        out.documents += [d for d in store.graph.neighbors(kriya, "CITED_IN") if d not in out.documents]
    return out


def line_of(store: Store, node: str) -> tuple[str, int]:
    """Where a node stands: its document and its line's place in it."""
    attrs = store.graph.node(node) or {}
    return str(attrs.get("doc_id")), int(attrs.get("seq", 0))


def _distance(store: Store, kriya: str, anchor: tuple[str, int]) -> tuple[int, int]:
    doc_id, seq = line_of(store, kriya)
    return (0, abs(anchor[1] - seq)) if doc_id == anchor[0] else (1, seq)
