"""Nodes of the GSV-Retry loop: generate ×3, score ×3 each, blind verify, cross-validate, retry.

Supersteps on the fast path: start_attempt → score → verify → cross_validate when the parser's
candidate is Candidate_A, with one generate step more when the LLM writes it. With the parser's
other readings of the line (``alternatives``) the LLM only chooses: when the fast path does not
accept Candidate_A, they are Candidates B and C, two an attempt (the verifier sees what they do
not share with Candidate_A), and one of them replaces Candidate_A only when the verifier picks it
and it alone has the top score, ``READING_MARGIN`` above a valid Candidate_A's. Samples of one
prompt (the candidates of a phase, a candidate's three scores) are one request with ``n`` where
the server takes it (llama.cpp, vLLM): the prompt is read once and the replies decoded together;
other providers get one isolated call per sample. A candidate identical to an earlier one is
neither scored nor shown again.
"""

from __future__ import annotations

import json
import logging
from statistics import mean
from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from karaka.config import Context
from karaka.gsv import get_task
from karaka.models.call import LLMCallError
from karaka.nodes.common import emit, services_of
from karaka.services import ask_samples
from karaka.state.gsv import Attempt, Candidate, GenerateArgs, GSVState, Label, Score, ScoreArgs, Verdict

log = logging.getLogger("karaka.gsv")

LABELS: tuple[Label, Label, Label] = ("Candidate_A", "Candidate_B", "Candidate_C")
FAST_PATH_SCORE = 95.0
SCORES_PER_CANDIDATE = 3
MAX_SCORE_ASKS = 3
MAX_VERIFIER_ASKS = 2
# Budgets that cannot cut a judge's JSON: every character of the capped strings may be a token.
SCORE_TOKENS = 160
VERDICT_TOKENS = 512
DISAGREE_FEEDBACK = "Retry: The quantitative score and qualitative verifier disagreed. Please re-evaluate."
ALL_INVALID_FEEDBACK = (
    "Retry: All previous candidates were invalid. Verifier noted: {reasoning}. "
    "Please generate new, valid options."
)
NO_READING = "Retry: Candidate_A was not confirmed, and the parser has no other reading of the line to offer."
CHOICE_FEEDBACK = "Retry: no other reading of the line was chosen by both the scorer and the verifier."
PER_ATTEMPT = 2  # the parser's other readings offered at once, as Candidates B and C
READING_MARGIN = 10.0
"""Points by which another reading's mean score must beat Candidate_A's (a valid one) to replace it.

SmolLM2 scored a reading 7.3 against Candidate_A's 6.0, and its verifier picked the reading: a
coin's toss between two analyses it rated as useless, and the reading was the worse one.
"""


def _reset(attempt: int) -> dict[str, Any]:
    return {"attempt": attempt, "reset": True}


def phase_labels(state: GSVState) -> tuple[Label, ...]:
    """The labels of this phase's candidates: A alone on the fast path, A, B and C after."""
    return LABELS[:1] if state["phase"] == "fast" else LABELS


def choosing(state: GSVState) -> bool:
    """The LLM chooses among the parser's readings (``alternatives`` given) and writes nothing."""
    return state.get("alternatives") is not None


def _offered(state: GSVState, attempt: int) -> list[dict[str, Any]]:
    return (state.get("alternatives") or [])[(attempt - 1) * PER_ATTEMPT: attempt * PER_ATTEMPT]


def differing(datas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What judges see of candidates that share most of their items: each one's kriyas not in all of them."""
    if not all(isinstance(d.get("kriyas"), list) for d in datas):
        return datas
    shared = set.intersection(*({same(k) for k in d["kriyas"]} for d in datas))
    return [{**d, "kriyas": [k for k in d["kriyas"] if same(k) not in shared]} for d in datas]


def _check(task_name: str, data: dict[str, Any], source: str, enabled: bool) -> list[str]:
    task = get_task(task_name)
    return task.checks(data, source) if (enabled and task.checks) else []


def start_attempt(state: GSVState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Open a new attempt: the candidate and score lists reset; the parser's seed is Candidate_A."""
    ctx = services_of(runtime).ctx
    attempt = state.get("attempt", 0) + 1
    candidates: list[Any] = [_reset(attempt)]
    seed = state.get("seed")
    offered = _offered(state, attempt) if choosing(state) else []
    if seed and (attempt == 1 or choosing(state)):
        candidates.append(Candidate(attempt=attempt, label=LABELS[0], data=seed, raw=json.dumps(seed, ensure_ascii=False),
                                    errors=_check(state["task"], seed, state["source"], ctx.rule_checks),
                                    origin="parser"))
    scores: list[Any] = [_reset(attempt)]
    if seed and offered:
        for label, other in zip(LABELS[1:], offered, strict=False):
            candidates.append(Candidate(attempt=attempt, label=label, data=other["data"], origin="alternative",
                                        raw=json.dumps(other["data"], ensure_ascii=False), what=other["what"],
                                        errors=_check(state["task"], other["data"], state["source"], ctx.rule_checks)))
        # The scorer saw this same Candidate_A last attempt (it never sees feedback): its scores stand.
        scores += [Score(**{**s, "attempt": attempt}) for s in state.get("scores", [])
                   if s["label"] == LABELS[0] and s["attempt"] == attempt - 1]
    update: dict[str, Any] = {
        "attempt": attempt, "phase": "fast" if ctx.fast_path and (attempt == 1 or not offered) else "full",
        "verdict": None, "status": "running", "golden": None, "origin": None, "fast_path": False, "cause": None,
        "candidates": candidates, "scores": scores,
    }
    if attempt == 1:
        update["feedback"] = ""
    return update


def _missing(state: GSVState) -> list[Label]:
    if choosing(state):
        return []
    have = {c["label"] for c in state.get("candidates", []) if c["attempt"] == state["attempt"]}
    return [label for label in phase_labels(state) if label not in have]


def _generation(state: GSVState, labels: list[Label]) -> list[Send]:
    """One generation branch for all the labels this phase lacks (one request with ``n`` where the server takes it)."""
    return [Send("generate", GenerateArgs(
        task=state["task"], source=state["source"], attempt=state["attempt"], feedback=state.get("feedback", ""),
        labels=labels, ref=state["ref"], seed=state.get("seed"),
    ))]


def _pruned(value: Any, text: Any = lambda t: t) -> Any:
    """``value`` without empty fields (``None``, ``""``, ``[]``, ``{}``, ``False``), strings passed through ``text``."""
    if isinstance(value, dict):
        return {k: _pruned(v, text) for k, v in value.items() if v not in (None, "", [], {}, False)}
    if isinstance(value, list):
        return [_pruned(v, text) for v in value]
    return text(value) if isinstance(value, str) else value


def same(data: dict[str, Any]) -> str:
    """A candidate's identity for de-duplication: its JSON with case, spacing and empty values folded."""
    return json.dumps(_pruned(data, lambda t: " ".join(t.lower().split())), sort_keys=True)


def valid_candidates(state: GSVState, labels: tuple[Label, ...]) -> list[Candidate]:
    """Return this phase's usable candidates, each once: a copy of an earlier candidate is not scored or shown again."""
    out, seen = [], set()
    for c in sorted(state.get("candidates", []), key=lambda c: c["label"]):
        if c["label"] in labels and c["data"] is not None and not c["errors"]:
            key = same(c["data"])
            if key not in seen:
                seen.add(key)
                out.append(c)
    return out


def _scoring(state: GSVState) -> list[Send] | Literal["verify"]:
    scored = {s["label"] for s in state.get("scores", []) if s["attempt"] == state["attempt"]}
    todo = [c for c in valid_candidates(state, phase_labels(state)) if c["label"] not in scored]
    if not todo:
        return "verify"
    return [Send("score", ScoreArgs(task=state["task"], source=state["source"], attempt=state["attempt"], candidate=c))
            for c in todo]


def route_start(state: GSVState) -> list[Send] | Literal["verify"]:
    """Generate what this phase still lacks, or score the seeded Candidate_A at once."""
    missing = _missing(state)
    return _generation(state, missing) if missing else _scoring(state)


def as_prompt(data: dict[str, Any] | None) -> str:
    """A candidate as a model sees it: compact JSON without empty fields (``negated: false``, no hints)."""
    return json.dumps(_pruned(data or {}), ensure_ascii=False)


def generate(args: GenerateArgs, runtime: Runtime[Context]) -> dict[str, Any]:
    """The candidates this phase lacks, from one prompt: the task's, or a correction of the seed, plus feedback."""
    services = services_of(runtime)
    task = get_task(args["task"])
    suffix = ""
    if args["feedback"]:
        suffix = services.prompts.render("kriya_extraction_feedback_prompt", feedback=args["feedback"])
    fields: dict[str, Any] = {task.source_field: args["source"]}
    key = task.generate_key
    if args.get("seed") and task.correction_key:
        key = task.correction_key
        fields["draft"] = as_prompt(args["seed"])
    labels = args["labels"]
    schema = task.llm_schema(args["source"], args.get("seed"))
    try:
        replies, requests = ask_samples(services, key, len(labels), suffix=suffix, schema=schema,
                                        max_tokens=task.budget(schema, services.ctx.max_tokens), **fields)
    except LLMCallError as exc:
        return {"candidates": [Candidate(attempt=args["attempt"], label=label, data=None, raw="", origin="llm",
                                         errors=[f"generation failed: {exc}"]) for label in labels],
                "llm_calls": 1}
    candidates = []
    for label, reply in zip(labels, replies, strict=False):
        data, errors = task.parse(reply.text)
        if errors:
            log.warning("unusable %s candidate at %s: %s; raw=%r", task.name, args["ref"], errors, reply.text[:500])
        elif data is not None:
            seed = args.get("seed")
            if seed and task.merge is not None and key == task.correction_key:
                data = task.merge(seed, data)  # a correction of the draft, not a rewrite of it
            errors = _check(task.name, data, args["source"], services.ctx.rule_checks)
        candidates.append(Candidate(attempt=args["attempt"], label=label, data=data, raw=reply.text, errors=errors,
                                    origin="llm"))
    return {"candidates": candidates, "llm_calls": requests, "prompt_tokens": sum(r.prompt_tokens for r in replies),
            "completion_tokens": sum(r.completion_tokens for r in replies)}


def route_generated(state: GSVState) -> list[Send] | Literal["verify"]:
    """Score every valid, unscored candidate of this phase."""
    return _scoring(state)


def mean_scores(state: GSVState) -> dict[str, float | None]:
    """Each candidate's mean over its valid scores (None when it has none)."""
    out: dict[str, float | None] = {}
    for record in state.get("scores", []):
        out.setdefault(record["label"], None)
    for label in out:
        valid = [s["score"] for s in state["scores"] if s["label"] == label and s["score"] is not None]
        out[label] = mean(valid) if valid else None
    return out


def top_labels(means: dict[str, float | None]) -> list[str]:
    """Labels tied at the highest mean score."""
    scored = {k: v for k, v in means.items() if v is not None}
    if not scored:
        return []
    best = max(scored.values())
    return sorted(k for k, v in scored.items() if v == best)


def cross_validate(state: GSVState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Accept when the top score and the verifier agree, else go on, retry or end.

    Otherwise the loop goes on to the full attempt, retries with feedback, or ends exhausted
    (logging the diagnostics).

    Ties: when several candidates share the top mean, the verifier's choice among them is
    accepted. A candidate that passed every rule check and scored >= 95 is accepted when the
    verifier's only objection could not be confirmed.
    """
    verdict = state.get("verdict")
    means = mean_scores(state)
    by_label: dict[str, Candidate] = {c["label"]: c for c in state.get("candidates", [])}
    if state["phase"] == "fast":
        first = means.get(LABELS[0])
        # The verifier's pick, or an objection the checker could not confirm to a candidate that passed
        # every rule check and scored >= 95: the candidate stands.
        unconfirmed = bool(verdict and verdict["choice"] == "ALL_INVALID" and not verdict["confirmed"])
        if verdict and (verdict["choice"] == LABELS[0] or unconfirmed) and first is not None \
                and first >= FAST_PATH_SCORE:
            return _accept(state, runtime, by_label[LABELS[0]], fast=True)
        if choosing(state) and not _offered(state, state["attempt"]):  # nothing to choose from: the parser's fallback
            return _exhaust(state, runtime, NO_READING)
        return {"phase": "full", "verdict": None}
    choice = verdict["choice"] if verdict else "ALL_INVALID"
    top = top_labels(means)
    unconfirmed = bool(verdict and verdict["choice"] == "ALL_INVALID" and not verdict["confirmed"])
    if choosing(state):
        # Candidate_A is the parser's best reading: another replaces it only with both judges behind it.
        first = means.get(LABELS[0])
        if choice in top and (choice == LABELS[0] or top == [choice] and (
                first is None or (means[choice] or 0) >= first + READING_MARGIN)):
            return _accept(state, runtime, by_label[choice], fast=False)
        if unconfirmed and LABELS[0] in top and (means[LABELS[0]] or 0) >= FAST_PATH_SCORE:
            return _accept(state, runtime, by_label[LABELS[0]], fast=False)
        more = bool(_offered(state, state["attempt"] + 1))
        return _retry(state, runtime, CHOICE_FEEDBACK, last=not more)
    if choice != "ALL_INVALID" and choice in top:
        return _accept(state, runtime, by_label[choice], fast=False)
    if unconfirmed and top and (means[top[0]] or 0) >= FAST_PATH_SCORE:
        return _accept(state, runtime, by_label[top[0]], fast=False)
    if choice == "ALL_INVALID" and verdict is not None:
        feedback = ALL_INVALID_FEEDBACK.format(reasoning=_noted(verdict))
    else:
        feedback = DISAGREE_FEEDBACK
    return _retry(state, runtime, feedback)


def _retry(state: GSVState, runtime: Runtime[Context], feedback: str, last: bool = False) -> dict[str, Any]:
    """Another attempt with ``feedback``, or the end when the attempts (or the readings to offer) are spent."""
    if state["attempt"] < services_of(runtime).ctx.max_retries and not last:
        return {"feedback": feedback, "history": [_record(state, feedback)], "status": "running"}
    return _exhaust(state, runtime, feedback)


def _exhaust(state: GSVState, runtime: Runtime[Context], feedback: str) -> dict[str, Any]:
    record = _record(state, feedback)
    update = {"feedback": feedback, "history": [record], "status": "exhausted", "cause": feedback}
    services = services_of(runtime)
    history = [*state.get("history", []), record]
    services.workspace.log_failure({"task": state["task"], "ref": state["ref"], "source": state["source"],
                                    "attempts": state["attempt"], "history": history, "cause": feedback})
    log.warning("GSV-Retry exhausted for %s %s after %d attempts: %s", state["task"], state["ref"],
                state["attempt"], feedback)
    emit(runtime, {"event": "gsv", "task": state["task"], "ref": state["ref"], "status": "exhausted",
                   "attempts": state["attempt"], "cause": feedback})
    return update


def _noted(verdict: Verdict) -> str:
    """Say what the retry feedback reports as wrong.

    A confirmed verdict gives its reasoning and violations, else only the rule checks' findings count (an
    unconfirmed reasoning is no guide for the next attempt).
    """
    reasoning = verdict["reasoning"].rstrip(".")
    if verdict["confirmed"]:
        extra = [v for v in verdict["violations"] if v not in reasoning]
        return f"{reasoning} ({'; '.join(extra)})" if extra else reasoning
    return "; ".join(verdict["violations"]) or "no candidate could be confirmed against the text"


def _record(state: GSVState, feedback: str) -> Attempt:
    return Attempt(
        attempt=state["attempt"],
        candidates=[{k: c[k] for k in ("label", "data", "raw", "errors", "origin", "what")  # type: ignore[literal-required]
                     if k in c} for c in sorted(state.get("candidates", []), key=lambda c: c["label"])],
        scores=mean_scores(state),
        score_calls=[{k: s[k] for k in ("label", "score", "reasoning", "asks")}  # type: ignore[literal-required]
                     for s in state.get("scores", [])],
        verdict=state.get("verdict"),
        feedback=feedback,
    )


def _accept(state: GSVState, runtime: Runtime[Context], candidate: Candidate, *, fast: bool) -> dict[str, Any]:
    record = _record(state, "")
    record["accepted"] = candidate["label"]
    emit(runtime, {"event": "gsv", "task": state["task"], "ref": state["ref"], "status": "accepted",
                   "attempts": state["attempt"], "fast_path": fast})
    return {"golden": candidate["data"], "origin": candidate["origin"], "status": "accepted", "fast_path": fast,
            "history": [record]}


def route_after_cross(state: GSVState) -> list[Send] | Literal["start_attempt", "verify", "__end__"]:
    """Accepted or exhausted → end; fast path missed → generate B and C; otherwise retry."""
    if state["status"] in ("accepted", "exhausted"):
        return "__end__"
    recorded = any(h["attempt"] == state["attempt"] for h in state.get("history", []))
    if recorded:
        return "start_attempt"
    missing = _missing(state)
    return _generation(state, missing) if missing else _scoring(state)
