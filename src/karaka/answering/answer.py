"""The one answering path: every source's candidates, one choice, one confidence, the model as reader.

``answer`` reads the question (``question.analyse``), gathers the lines (for "who is X?" the
lines that introduce X, ``corpus.definitions``; the facts' and the graph's; then retrieval's, run
once for the question and carried in the state), reads
candidates off them (``reader``), adds the facts a multi-hop plan read, and chooses
(``choose.decide``): GROUNDED only for a candidate its line proves. With a model, the model
reads the same lines with the offline candidates as hints (``model.read``) and the checked
answers settle it:
- the model's answer verified and the offline one proved, the same: GROUNDED, the model's words;
- both verified but different: the offline proof stands, the model's reading is a warning;
- only one verified: that one stands;
- neither: UNCERTAIN with the lines, never an unverified span.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.argument import outside_action
from karaka.answering.candidate import FACTS, Candidate
from karaka.answering.choose import Decision, decide
from karaka.answering.confidence import chance, features
from karaka.answering.corpus import corpus_check, definitions, rarity
from karaka.answering.evidence import Evidence
from karaka.answering.identity import defined
from karaka.answering.line import LineWords
from karaka.answering.model import LINES, Reading, agrees, as_candidate, read
from karaka.answering.narrator import narrators
from karaka.answering.pooling import pool
from karaka.answering.prose_table import prose_table
from karaka.answering.question import Asked, analyse
from karaka.answering.reader import read as read_candidates
from karaka.answering.reader import read_lines, span_in, unnamed_amount
from karaka.answering.stems import key
from karaka.answering.table import Table, asked_columns, find_table
from karaka.kg.traverse import line_of
from karaka.services import Services
from karaka.state.query import Citation, citation_of
from karaka.store.base import Store
from karaka.store.ids import citation_key, cite_of
from karaka.words import ANAPHORIC_PRONOUNS, WORD


def stream_words(text: str, on_token: Callable[[str], None] | None) -> None:
    """A text that was not generated token by token, sent to a streaming client word by word."""
    if on_token is None:
        return
    for piece in re.findall(r"\S+\s*", text):
        on_token(piece)


def citations(store: Store, nodes: list[str], cap: int) -> list[Citation]:
    """The citations of Document nodes, in order, each line once, at most ``cap``."""
    out: list[Citation] = []
    seen: set[Any] = set()
    for node in nodes:
        attrs = store.graph.node(node)
        if attrs is None:
            continue
        citation = citation_of(attrs)
        if citation_key(citation) in seen:
            continue
        seen.add(citation_key(citation))
        out.append(citation)
        if len(out) >= cap:
            break
    return out


def answer(services: Services, question: str, plan: dict[str, Any] | None, hits: list[str], graph_lines: list[str],
           facts: list[tuple[str, str]], on_token: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Answer ``question`` from the lines: a state update (``result``, ``context``, ``answers``, ``referents``, trace).

    ``hits`` are retrieval's lines (Document nodes, best first), ``graph_lines`` the lines of the
    actions the plan found, ``facts`` the (value, line) pairs a multi-hop plan read.
    """
    store = services.workspace
    asked = analyse(question)
    step = (plan or {}).get("steps", [None])[-1] if plan else None
    with store.reading():
        has = corpus_check(store)
        missing = [w for w in asked.required if not has(w)]
        fact_lines = [node for _, node in facts]
        defining = definitions(store, thing) if (thing := defined(asked)) else []  # "who is X?": where X is introduced
        if key(thing) == key("narrator"):  # "who is the narrator?": where a first-person text names itself
            defining = [node for _, node in narrators(store).values()]
        nodes = list(dict.fromkeys(defining + fact_lines + (graph_lines if facts else graph_lines[:3]) + hits))  # a chain: every hop
        entries = pool(store, asked, nodes)
        lines = read_lines(store, entries, asked)
        candidates = _facts(facts, asked) + read_candidates(store, asked, step if not facts else None, lines,
                                                     rarity(store))
        order = [node for node, _, _ in entries]
        decision = decide(asked, candidates, order, missing)
        if not candidates and not facts and not any(relevant(asked, line.words) for line in lines):
            decision = Decision("NO_MATCH", why="no line holds the question's words")
        trace = [f"asked: {asked.kind}" + (f" ({asked.focus})" if asked.focus else "")
                 + f"; {len(entries)} lines read, {len(candidates)} candidates, "
                 + f"{sum(c.proved for c in candidates)} proved",
                 f"{decision.status}: {decision.why}"]
        columns = asked_columns(question)
        table = (find_table(store, columns, nodes) or prose_table(columns, lines, lambda node: line_of(store, node))) \
            if columns else None
        if table is not None:
            return _table_result(store, table, trace, on_token)
        if services.llm is None or decision.status == "NO_MATCH":
            cited = citations(store, decision.lines, services.ctx.max_citations)
            return _result(decision, cited, trace, on_token, mode="extractive")
        shown = citations(store, list(dict.fromkeys(decision.lines + order)), LINES)  # the reader's best lines first
        shown_nodes = [_node_of(store, c) for c in shown]
        reading = read(services, asked, shown, shown_nodes, decision.answers or candidates[:3])
        pool_lines = {line.node: line for line in lines}

        def off_topic(node: str) -> str:
            line = pool_lines.get(node)
            if line is None or not relevant(asked, line.words, reading=True):
                return "the line holds too few of the question's words"
            named = [t for t in asked.terms if t.hard and t.role != "verb"]
            if named and not any(line.words.find(t) for t in named) and not _refers_back(line.text):
                return "the line itself names nothing the question asks about"  # only its heading or neighbours do
            names = [t for t in asked.terms if t.role == "name" and t.hard]
            if names and not any(line.words.named_near(t) for t in names):
                return f"the line never names {', '.join(t.text for t in names[:3])}"  # "Captain Boomer" of no Pequod
            span = span_in(reading.answer, line, asked.kind)
            if span is not None and outside_action(asked, span, line.words, line.doc):
                return f"{reading.answer!r} takes no part in the line's {asked.verb}"
            return unnamed_amount(asked, span, line) if span is not None else ""

        settled, mode, warnings = settle(decision, reading, shown_nodes, asked, off_topic)
        trace.append(f"model: {reading.answer!r} from line {reading.line}"
                     + (f" (rejected: {'; '.join(reading.problems[:2])})" if reading.problems else " (verified)")
                     + f"; {settled.status}")
        cited = citations(store, settled.lines, services.ctx.max_citations)
        out = _result(settled, cited, trace, on_token, mode=mode, requests=reading.requests)
        out["result"]["warnings"] += warnings
        return out


def _refers_back(text: str) -> bool:
    """Whether a line speaks of something named before it: a third-person pronoun ("It reached the island")."""
    return any(w.lower() in ANAPHORIC_PRONOUNS for w in WORD.findall(text))


RELEVANT = 0.34
"""The share of the question's hard terms a line must hold for the lines to be worth reading at all."""


def relevant(asked: Asked, words: LineWords, reading: bool = False) -> bool:
    """Whether a line holds enough of the question to be read (by the model, or offered as related).

    For a model's ``reading`` the question's verb is left out of the count (a reader's paraphrase:
    "reached" for "got to") and the sentences around the line count (its "he" and "it" are named
    there).
    """
    hard = [t for t in asked.terms if t.hard and not (reading and t.role == "verb")] or list(asked.terms)
    if not hard:
        return True
    found = sum(words.named_near(t, around=reading) for t in hard)
    return found >= RELEVANT * len(hard)


def _node_of(store: Store, citation: Citation) -> str:
    from karaka.store.ids import document_node

    return document_node(citation["doc_id"], citation["line_number"], citation["sentence"])


def settle(offline: Decision, reading: Reading, nodes: list[str], asked: Asked,
           off_topic: Callable[[str], str] = lambda node: "") -> tuple[Decision, str, list[str]]:
    """The model's checked reading against the offline decision: (the decision, the answer mode, warnings).

    A reading the reader does not share is GROUNDED only from a line about the question
    (``off_topic`` of its line is "": it holds as much of the question as a line worth reading,
    ``relevant``): a line that says the answer but nothing of what was asked proves nothing.
    """
    model = as_candidate(reading, nodes)
    if model is not None and not (offline.status == "GROUNDED" and offline.best is not None
                                  and agrees(reading, offline.best, nodes)):
        gap = off_topic(model.node)
        if gap:
            reading.problems.append(gap)
            model = None
    best = offline.best
    grounded = offline.status == "GROUNDED" and best is not None
    if model is not None and grounded and agrees(reading, best, nodes):  # type: ignore[arg-type]
        model.agree = 2
        if len(best.shown) > len(model.text):  # type: ignore[union-attr]
            model.text = best.shown  # type: ignore[union-attr]  # the proved span whole: "bug-x@y.org", not "x@y.org"
        return (Decision("GROUNDED", [model], list(dict.fromkeys([model.node, *offline.lines])),
                         "the model and the reader agree", max(offline.confidence, chance(features(model, None)))),
                "generated", [])
    if grounded:
        warnings = [f"the model read {reading.answer!r} (line {reading.line}); the reader's proved answer stands"] \
            if model is not None else ([f"the model's reading {reading.answer!r} was rejected: {'; '.join(reading.problems[:2])}"]
                                       if reading.problems else [])
        return offline, "extractive", warnings
    if model is not None:
        return (Decision("GROUNDED", [model], list(dict.fromkeys([model.node, *offline.lines])),
                         "the model's answer, checked against its line", chance(features(model, None))),
                "generated", [])
    warnings = [f"the model's reading {reading.answer!r} was rejected: {'; '.join(reading.problems[:2])}"] if reading.problems else []
    if offline.status == "NO_ANSWER" and reading.answer and reading.line:
        unproved = Candidate(reading.answer, "model", nodes[reading.line - 1], "model",
                             Evidence(0.0, 0.0, [], False, why_not="; ".join(reading.problems) or "not verified"))
        return Decision("UNCERTAIN", [unproved], [unproved.node, *offline.lines], "the model's answer is not verified",
                        offline.confidence), "extractive", warnings
    return offline, "extractive", warnings


def _facts(facts: list[tuple[str, str]], asked: Asked) -> list[Candidate]:
    """The values a multi-hop plan read hop by hop, each proved by the pattern that read it off its line.

    Unless it is not what the question's form asks for: a yes-or-no question is answered by yes or no,
    a question that offers its answers ("…, A or B?") by one of them.
    """
    offered = _OFFERED.search(asked.text)
    out = []
    for i, (value, node) in enumerate(facts):
        evidence = Evidence(cover=1.0, near=1.0, missing=[], typed=True, notes=["read hop by hop off the entity's lines"])
        if asked.kind == k.POLAR and value.lower() not in ("yes", "no"):
            evidence.why_not, evidence.typed = "a yes-or-no question is not answered by a value", False
        elif offered and not any(_same_name(value, o) for o in offered.groups()):
            evidence.why_not, evidence.typed = "the question offers its answers, and this is neither", False
        out.append(Candidate(value, "fact", node, FACTS, evidence, score=1.0 - 0.01 * i))
    return out


_OFFERED = re.compile(r",\s*([^,?]+?)\s+or\s+([^,?]+?)\s*\?\s*$")
"""A question that offers its two answers after a comma: "Which film came first, Ran or Kagemusha?"."""


def _same_name(value: str, option: str) -> bool:
    a, b = (" ".join(WORD.findall(t.lower())) for t in (value, option))
    return bool(a) and bool(b) and (a in b or b in a)


def _result(decision: Decision, cited: list[Citation], trace: list[str], on_token: Callable[[str], None] | None,
            mode: str, requests: int = 0) -> dict[str, Any]:
    """The state update of a decision: the result, its lines, the answers shown and what they refer to."""
    cites = " ".join(cite_of(c) for c in cited[:3])
    best = decision.best
    if decision.status == "GROUNDED" and best is not None:
        text = f"{'; '.join(c.shown for c in decision.answers)} {cite_of(cited[0]) if cited else ''}".strip()
    elif decision.status == "UNCERTAIN" and best is not None:
        text = (f"Not proved by the documents: the closest candidate is {best.shown} "
                f"{cite_of(cited[0]) if cited else ''} ({best.evidence.why_not}). Closest lines: {cites}")
    else:
        text = f"No answer found in the documents ({decision.why})" + (f"; related lines: {cites}" if cites else "")
    stream_words(text, on_token)
    answers = [c.shown for c in decision.answers] if decision.status in ("GROUNDED", "UNCERTAIN") else []
    refs = [c.refers_to.split(", ")[0] if c.refers_to else c.text for c in decision.answers] \
        if decision.status == "GROUNDED" else []
    result = {"answer": text, "status": decision.status, "confidence": decision.confidence, "mode": mode,
              "llm_calls": requests, "warnings": [], "regenerations": 0, "evidence": evidence_of(decision)}
    return {"result": result, "context": cited, "answers": answers, "referents": refs, "trace": trace}


TABLE_CONFIDENCE = 0.9
"""A table's rows are each in their own cited line; what is left unsure is whether it is the table meant."""


def _table_result(store: Store, table: Table, trace: list[str],
                  on_token: Callable[[str], None] | None) -> dict[str, Any]:
    """The state update of a table answer: a Markdown table, every row cited by its line."""
    cited = [next(iter(citations(store, [node], 1)), None) for _, _, node in table.rows]
    rows = [(row, c) for row, c in zip(table.rows, cited, strict=True) if c is not None]
    text = Table(table.columns, [r for r, _ in rows]).markdown([cite_of(c) for _, c in rows])
    stream_words(text, on_token)
    why = (f"a table in the documents gives {table.columns[1]} for {len(rows)} {table.columns[0]}" if table.from_table
           else f"{len(rows)} lines each give one of the {table.columns[0]} its {table.columns[1]}")
    result = {"answer": text, "status": "GROUNDED", "confidence": TABLE_CONFIDENCE, "mode": "table",
              "llm_calls": 0, "warnings": [], "regenerations": 0, "evidence": {"why": why, "source": "table"},
              "table": {"columns": list(table.columns),
                        "rows": [{"cells": [a, b], "citation": c}
                                 for (a, b, _), c in rows]}}
    return {"result": result, "context": [c for _, c in rows], "answers": [f"{a}: {b}" for (a, b, _), _ in rows],
            "referents": [], "trace": trace + [f"table: {why}"]}


def evidence_of(decision: Decision) -> dict[str, Any]:
    """Why the result is what it is: the chosen candidate's source, proof and features (for ``--json`` and fitting)."""
    best = decision.best
    if best is None:
        return {"why": decision.why, "features": {}}
    return {"why": decision.why, "source": best.source, "proved": best.proved,
            "not_proved": best.evidence.why_not, "features": features(best, decision.runner_up)}
