"""Nodes of the GSV-Retry loop: generate ×3, score ×3 each, blind verify, cross-validate, retry."""

from __future__ import annotations

import json
import logging
import re
import sys
from statistics import mean
from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from karaka.config import Context
from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.models.call import CHOICE_SCHEMA, SCORE_SCHEMA, LLMCallError
from karaka.nodes.common import ask, emit, services_of
from karaka.state.gsv import GenerateArgs, GSVState, ScoreArgs
from karaka.tasks import get_task, json_schema

log = logging.getLogger("karaka.gsv")

LABELS = ("Candidate_A", "Candidate_B", "Candidate_C")
FAST_PATH_SCORE = 95.0
SCORES_PER_CANDIDATE = 3
MAX_SCORE_ASKS = 3
DISAGREE_FEEDBACK = "Retry: The quantitative score and qualitative verifier disagreed. Please re-evaluate."
ALL_INVALID_FEEDBACK = (
    "Retry: All previous candidates were invalid. Verifier noted: {reasoning}. "
    "Please generate new, valid options."
)
_CHOICE = re.compile(r"candidate[\s_-]*([abc])\b", re.IGNORECASE)


def _phase_labels(state: GSVState) -> tuple[str, ...]:
    return LABELS[:1] if state["phase"] == "fast" else LABELS


def start_attempt(state: GSVState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Open a new attempt (the candidate and score lists reset on its first write)."""
    ctx = services_of(runtime).ctx
    attempt = state.get("attempt", 0) + 1
    update: dict[str, Any] = {
        "attempt": attempt, "phase": "fast" if ctx.fast_path else "full", "verdict": None,
        "status": "running", "golden": None, "fast_path": False,
    }
    if attempt == 1:
        update["feedback"] = ""
    seed = state.get("seed")
    if seed and attempt == 1:
        update["candidates"] = [{
            "attempt": attempt, "label": LABELS[0], "data": seed, "raw": json.dumps(seed),
            "errors": _check(state["task"], seed, state["source"], ctx.rule_checks), "origin": "parser",
        }]
    return update


def _check(task_name: str, data: dict[str, Any], source: str, enabled: bool) -> list[str]:
    task = get_task(task_name)
    return task.checks(data, source) if (enabled and task.checks) else []


def route_generate(state: GSVState) -> list[Send] | Literal["collect"]:
    """Send one generation branch per missing candidate of this phase."""
    have = {c["label"] for c in state.get("candidates", []) if c["attempt"] == state["attempt"]}
    missing = [label for label in _phase_labels(state) if label not in have]
    if not missing:
        return "collect"
    return [
        Send("generate", GenerateArgs(
            task=state["task"], source=state["source"], attempt=state["attempt"],
            feedback=state.get("feedback", ""), label=label, ref=state["ref"],
        ))
        for label in missing
    ]


def generate(args: GenerateArgs, runtime: Runtime[Context]) -> dict[str, Any]:
    """One isolated generation call: base prompt plus the current feedback."""
    services = services_of(runtime)
    task = get_task(args["task"])
    suffix = ""
    if args["feedback"]:
        suffix = services.prompts.render("kriya_extraction_feedback_prompt", feedback=args["feedback"])
    candidate: dict[str, Any] = {"attempt": args["attempt"], "label": args["label"], "origin": "llm"}
    try:
        fields: dict[str, Any] = {task.source_field: args["source"]}
        reply = ask(services, task.generate_key, suffix=suffix, schema=json_schema(task.schema), **fields)
    except LLMCallError as exc:
        candidate.update(data=None, raw="", errors=[f"generation failed: {exc}"])
        return {"candidates": [candidate], "llm_calls": 1, "prompt_tokens": 0}
    data, errors = task.parse(reply.text)
    if errors:
        log.warning("unusable %s candidate at %s: %s; raw=%r", task.name, args["ref"], errors, reply.text[:500])
    elif data is not None:
        errors = _check(task.name, data, args["source"], services.ctx.rule_checks)
    candidate.update(data=data, raw=reply.text, errors=errors)
    return {"candidates": [candidate], "llm_calls": 1, "prompt_tokens": reply.prompt_tokens}


def collect(state: GSVState) -> dict[str, Any]:
    """Join point after generation."""
    return {}


def _valid(state: GSVState, labels: tuple[str, ...]) -> list[dict[str, Any]]:
    return [
        c for c in sorted(state.get("candidates", []), key=lambda c: c["label"])
        if c["label"] in labels and c["data"] is not None and not c["errors"]
    ]


def route_score(state: GSVState) -> list[Send] | Literal["verify"]:
    """Send three scoring branches for every valid, unscored candidate of this phase."""
    scored = {s["label"] for s in state.get("scores", []) if s["attempt"] == state["attempt"]}
    todo = [c for c in _valid(state, _phase_labels(state)) if c["label"] not in scored]
    if not todo:
        return "verify"
    return [
        Send("score", ScoreArgs(task=state["task"], source=state["source"],
                                attempt=state["attempt"], candidate=c))
        for c in todo for _ in range(SCORES_PER_CANDIDATE)
    ]


def read_score(text: str) -> tuple[int | None, str]:
    """An integer 1–100 and the reasoning, or (None, why it is invalid)."""
    try:
        value = recover_json(text)
    except JSONRecoveryError:
        bare = text.strip()
        return (int(bare), "") if bare.isdigit() and 1 <= int(bare) <= 100 else (None, "not JSON")
    if not isinstance(value, dict):
        return None, "not an object"
    score = value.get("score")
    if isinstance(score, str) and score.strip().isdigit():
        score = int(score.strip())
    if isinstance(score, float) and score.is_integer():
        score = int(score)
    if not isinstance(score, int) or isinstance(score, bool) or not 1 <= score <= 100:
        return None, f"score {score!r} is not an integer from 1 to 100"
    return score, str(value.get("reasoning", ""))


def score(args: ScoreArgs, runtime: Runtime[Context]) -> dict[str, Any]:
    """One scoring slot: ask until the score is valid, at most MAX_SCORE_ASKS times."""
    services = services_of(runtime)
    task = get_task(args["task"])
    candidate = args["candidate"]
    calls = tokens = 0
    value: int | None = None
    reasoning = ""
    for _ in range(MAX_SCORE_ASKS):
        calls += 1
        try:
            reply = ask(services, task.scoring_key, source=args["source"], schema=SCORE_SCHEMA,
                        candidate=json.dumps(candidate["data"], ensure_ascii=False))
        except LLMCallError as exc:
            reasoning = f"scoring call failed: {exc}"
            break
        tokens += reply.prompt_tokens
        value, reasoning = read_score(reply.text)
        if value is not None:
            break
        log.warning("invalid score for %s (%s); raw=%r", candidate["label"], reasoning, reply.text[:300])
    if value is None:
        log.warning("scoring slot for %s failed after %d asks", candidate["label"], calls)
    record = {"attempt": args["attempt"], "label": candidate["label"], "score": value,
              "reasoning": reasoning, "asks": calls}
    return {"scores": [record], "llm_calls": calls, "prompt_tokens": tokens}


def mean_scores(state: GSVState) -> dict[str, float | None]:
    """Each candidate's mean over its valid scores (None when it has none)."""
    out: dict[str, float | None] = {}
    for record in state.get("scores", []):
        out.setdefault(record["label"], None)
    for label in out:
        valid = [s["score"] for s in state["scores"] if s["label"] == label and s["score"] is not None]
        out[label] = mean(valid) if valid else None
    return out


def parse_choice(text: str, shown: list[str]) -> tuple[str, str]:
    """The verifier's (choice, reasoning); anything unusable becomes ALL_INVALID."""
    try:
        value = recover_json(text)
    except JSONRecoveryError:
        value = {"choice": text, "reasoning": "verifier output was not JSON"}
    if not isinstance(value, dict):
        value = {"choice": str(value), "reasoning": ""}
    raw_choice = str(value.get("choice", ""))
    reasoning = str(value.get("reasoning", "")).strip() or "no reasoning given"
    if "ALL_INVALID" in raw_choice.upper().replace(" ", "_"):
        return "ALL_INVALID", reasoning
    match = _CHOICE.search(raw_choice) or (
        re.fullmatch(r"\s*([ABC])\s*", raw_choice)
    )
    label = f"Candidate_{match.group(1).upper()}" if match else None
    if label not in shown:
        return "ALL_INVALID", f"verifier chose {raw_choice!r}, which was not among {shown}; {reasoning}"
    return label, reasoning


def verify(state: GSVState, runtime: Runtime[Context]) -> dict[str, Any]:
    """One blind call: the verifier sees the source and the candidates, never the scores."""
    valid = _valid(state, _phase_labels(state))
    if state["phase"] == "fast":
        means = mean_scores(state)
        first = means.get(LABELS[0])
        if not valid or first is None or first < FAST_PATH_SCORE:
            return {"verdict": None}
    invalid = [
        c for c in state.get("candidates", [])
        if c["label"] in _phase_labels(state) and (c["data"] is None or c["errors"])
    ]
    notes = "; ".join(f"{c['label']}: {', '.join(c['errors'])}" for c in invalid)
    if not valid:
        return {"verdict": {"choice": "ALL_INVALID", "reasoning": notes or "no usable candidate",
                            "shown": []}}
    services = services_of(runtime)
    task = get_task(state["task"])
    shown = [c["label"] for c in valid]
    blind = "\n\n".join(f"{c['label']}:\n{json.dumps(c['data'], ensure_ascii=False)}" for c in valid)
    try:
        reply = ask(services, task.verification_key, source=state["source"], candidates=blind,
                    schema=CHOICE_SCHEMA)
    except LLMCallError as exc:
        return {"verdict": {"choice": "ALL_INVALID", "reasoning": f"verifier call failed: {exc}",
                            "shown": shown}, "llm_calls": 1}
    choice, reasoning = parse_choice(reply.text, shown)
    if choice == "ALL_INVALID" and notes:
        reasoning = f"{reasoning}; rule checks: {notes}"
    return {"verdict": {"choice": choice, "reasoning": reasoning, "shown": shown},
            "llm_calls": 1, "prompt_tokens": reply.prompt_tokens}


def top_labels(means: dict[str, float | None]) -> list[str]:
    """Labels tied at the highest mean score."""
    scored = {k: v for k, v in means.items() if v is not None}
    if not scored:
        return []
    best = max(scored.values())
    return sorted(k for k, v in scored.items() if v == best)


def cross_validate(state: GSVState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Accept when the top score and the verifier agree; otherwise set feedback or expand.

    Ties: when several candidates share the top mean, the verifier's choice among
    them is accepted (scorer and verifier agree that it is among the best).
    """
    verdict = state.get("verdict")
    means = mean_scores(state)
    by_label = {c["label"]: c for c in state.get("candidates", [])}
    if state["phase"] == "fast":
        first = means.get(LABELS[0])
        if verdict and verdict["choice"] == LABELS[0] and first is not None and first >= FAST_PATH_SCORE:
            return _accept(state, by_label[LABELS[0]], fast=True)
        return {"phase": "full", "verdict": None}
    choice = verdict["choice"] if verdict else "ALL_INVALID"
    if choice != "ALL_INVALID" and choice in top_labels(means):
        return _accept(state, by_label[choice], fast=False)
    if choice == "ALL_INVALID":
        feedback = ALL_INVALID_FEEDBACK.format(reasoning=(verdict or {}).get("reasoning", "").rstrip("."))
    else:
        feedback = DISAGREE_FEEDBACK
    record = _record(state, feedback)
    ctx = services_of(runtime).ctx
    status = "exhausted" if state["attempt"] >= ctx.max_retries else "running"
    return {"feedback": feedback, "history": [record], "status": status}


def _record(state: GSVState, feedback: str) -> dict[str, Any]:
    return {
        "attempt": state["attempt"],
        "candidates": [
            {k: c[k] for k in ("label", "data", "raw", "errors", "origin")}
            for c in sorted(state.get("candidates", []), key=lambda c: c["label"])
        ],
        "scores": mean_scores(state),
        "score_calls": [{k: s[k] for k in ("label", "score", "reasoning", "asks")} for s in state.get("scores", [])],
        "verdict": state.get("verdict"),
        "feedback": feedback,
    }


def _accept(state: GSVState, candidate: dict[str, Any], *, fast: bool) -> dict[str, Any]:
    record = _record(state, "")
    record["accepted"] = candidate["label"]
    return {"golden": candidate["data"], "status": "accepted", "fast_path": fast,
            "history": [record]}


def route_after_cross(state: GSVState) -> Literal["start_attempt", "expand", "finish"]:
    """Accepted or exhausted → finish; fast path missed → expand this attempt; else retry."""
    if state["status"] in ("accepted", "exhausted"):
        return "finish"
    recorded = any(h["attempt"] == state["attempt"] for h in state.get("history", []))
    return "start_attempt" if recorded else "expand"


def expand(state: GSVState) -> dict[str, Any]:
    """Fast path missed: go on to the full three-candidate attempt."""
    return {}


def finish(state: GSVState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Log exhaustion diagnostics (JSONL) and report the outcome as a custom event."""
    if state["status"] == "exhausted":
        services = services_of(runtime)
        diagnostics = {
            "task": state["task"], "ref": state["ref"], "source": state["source"],
            "attempts": state["attempt"], "history": state.get("history", []),
            "cause": (state.get("history") or [{}])[-1].get("feedback", "exhausted"),
        }
        services.workspace.log_failure(diagnostics)
        log.warning("GSV-Retry exhausted for %s %s after %d attempts", state["task"], state["ref"], state["attempt"])
        print(f"❌ GSV-Retry exhausted at {state['ref']}: {diagnostics['cause']}", file=sys.stderr)
    emit(runtime, {"event": "gsv", "task": state["task"], "ref": state["ref"],
                   "status": state["status"], "attempts": state["attempt"]})
    return {}
