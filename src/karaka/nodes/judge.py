"""The judges of a GSV-Retry step: each candidate scored three times, and a blind verifier that sees no scores."""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from karaka.config import Context
from karaka.gsv import get_task
from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.models.call import LLMCallError
from karaka.nodes.common import services_of
from karaka.nodes.gsv import (
    FAST_PATH_SCORE,
    LABELS,
    MAX_SCORE_ASKS,
    MAX_VERIFIER_ASKS,
    SCORE_TOKENS,
    SCORES_PER_CANDIDATE,
    VERDICT_TOKENS,
    as_prompt,
    choosing,
    differing,
    log,
    mean_scores,
    phase_labels,
    valid_candidates,
)
from karaka.services import ask, ask_samples
from karaka.state.gsv import GSVState, Label, Score, ScoreArgs, Verdict

UNCONFIRMED = ("Your previous verdict named no violation that can be checked against the text (the exact words "
               "that are wrong or missing). Now pick the candidate that is most accurate.")


# The number comes first and the reasoning is capped, so a judge cannot spend its budget before it
# says what counts (and a cut-off reply still carries its score); the budgets below fit the caps.
SCORE_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["score", "reasoning"], "additionalProperties": False,
    "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 100},
                   "reasoning": {"type": "string", "maxLength": 120}},
}


def choice_schema(shown: list[Label], allow_invalid: bool = True) -> dict[str, Any]:
    """The verifier's reply: one of the labels it was shown (or ALL_INVALID), then its violations and reasoning."""
    return {
        "type": "object", "required": ["choice", "violations", "reasoning"], "additionalProperties": False,
        "properties": {"choice": {"type": "string", "enum": [*shown, "ALL_INVALID"] if allow_invalid else shown},
                       "violations": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 100}},
                       "reasoning": {"type": "string", "maxLength": 120}},
    }


_CHOICE = re.compile(r"candidate[\s_-]*([abc])\b", re.IGNORECASE)


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
    """Score one candidate SCORES_PER_CANDIDATE times (one request with ``n`` where the server takes it).

    An invalid score is asked again, each slot at most MAX_SCORE_ASKS times.
    """
    services = services_of(runtime)
    task = get_task(args["task"])
    candidate = args["candidate"]
    values: list[int | None] = [None] * SCORES_PER_CANDIDATE
    reasons = [""] * SCORES_PER_CANDIDATE
    asks = [0] * SCORES_PER_CANDIDATE
    calls = prompt = completion = 0
    for _ in range(MAX_SCORE_ASKS):
        pending = [i for i, v in enumerate(values) if v is None]
        if not pending:
            break
        try:
            replies, requests = ask_samples(services, task.scoring_key, len(pending), source=args["source"],
                                            schema=SCORE_SCHEMA, max_tokens=SCORE_TOKENS, candidate=as_prompt(candidate["data"]))
        except LLMCallError as exc:
            calls += 1
            for i in pending:
                asks[i] += 1
                reasons[i] = f"scoring call failed: {exc}"
            break
        calls += requests
        for i, reply in zip(pending, replies, strict=False):
            asks[i] += 1
            prompt += reply.prompt_tokens
            completion += reply.completion_tokens
            values[i], reasons[i] = read_score(reply.text)
            if values[i] is None:
                log.warning("invalid score for %s (%s); raw=%r", candidate["label"], reasons[i], reply.text[:300])
    if any(v is None for v in values):
        log.warning("scoring of %s: %d slot(s) without a valid score after %d asks", candidate["label"],
                    values.count(None), MAX_SCORE_ASKS)
    records = [Score(attempt=args["attempt"], label=candidate["label"], score=v, reasoning=r, asks=a)
               for v, r, a in zip(values, reasons, asks, strict=True)]
    return {"scores": records, "llm_calls": calls, "prompt_tokens": prompt, "completion_tokens": completion}


def parse_choice(text: str, shown: list[Label]) -> tuple[str, str, list[str]]:
    """The verifier's (choice, reasoning, violations); anything unusable becomes ALL_INVALID."""
    try:
        value = recover_json(text)
    except JSONRecoveryError:
        value = {"choice": text, "reasoning": "verifier output was not JSON"}
    if not isinstance(value, dict):
        value = {"choice": str(value), "reasoning": ""}
    raw_choice = str(value.get("choice", ""))
    reasoning = str(value.get("reasoning", "")).strip() or "no reasoning given"
    violations = [str(v) for v in value.get("violations") or [] if str(v).strip()]
    if "ALL_INVALID" in raw_choice.upper().replace(" ", "_"):
        return "ALL_INVALID", reasoning, violations
    match = _CHOICE.search(raw_choice) or re.fullmatch(r"\s*([ABC])\s*", raw_choice)
    label = f"Candidate_{match.group(1).upper()}" if match else None
    if label not in shown:
        return "ALL_INVALID", f"verifier chose {raw_choice!r}, which was not among {shown}; {reasoning}", violations
    return str(label), reasoning, violations


def verify(state: GSVState, runtime: Runtime[Context]) -> dict[str, Any]:
    """The blind verifier: it sees the source and the candidates, never the scores.

    Its ALL_INVALID counts only when a violation it names is confirmed by the task's checker
    (the words it quotes are wrong or missing); otherwise it is asked once more to pick one of the
    candidates (its decoding then no longer allows ALL_INVALID), and a second unconfirmed
    ALL_INVALID (from a provider without constrained decoding) is recorded as unconfirmed
    (``cross_validate`` decides).
    """
    valid = valid_candidates(state, phase_labels(state))
    if state["phase"] == "fast":
        first = mean_scores(state).get(LABELS[0])
        if not valid or first is None or first < FAST_PATH_SCORE:
            return {"verdict": None}
    invalid = [c for c in state.get("candidates", [])
               if c["label"] in phase_labels(state) and (c["data"] is None or c["errors"])]
    notes = [f"{c['label']}: {'; '.join(c['errors'])}" for c in invalid]
    if not valid:
        return {"verdict": Verdict(choice="ALL_INVALID", reasoning="; ".join(notes) or "no usable candidate",
                                   violations=notes, shown=[], confirmed=True, asks=0)}
    services = services_of(runtime)
    task = get_task(state["task"])
    shown = [c["label"] for c in valid]
    # Choosing among readings of one line, the verifier sees what they do not share, not the same Kriyās thrice.
    views = differing([c["data"] or {} for c in valid]) if choosing(state) and len(valid) > 1 else \
        [c["data"] for c in valid]
    blind = "\n\n".join(f"{c['label']}:\n{as_prompt(view)}" for c, view in zip(valid, views, strict=True))
    calls = prompt = completion = 0
    suffix = ""
    verdict = Verdict(choice="ALL_INVALID", reasoning="no verdict", violations=[], shown=shown, confirmed=False,
                      asks=0)
    for _ in range(MAX_VERIFIER_ASKS):
        calls += 1
        try:
            reply = ask(services, task.verification_key, suffix=suffix, source=state["source"], candidates=blind,
                        schema=choice_schema(shown, allow_invalid=not suffix), max_tokens=VERDICT_TOKENS)
        except LLMCallError as exc:
            verdict = Verdict(choice="ALL_INVALID", reasoning=f"verifier call failed: {exc}", violations=[],
                              shown=shown, confirmed=False, asks=calls)
            break
        prompt += reply.prompt_tokens
        completion += reply.completion_tokens
        choice, reasoning, violations = parse_choice(reply.text, shown)
        verdict = Verdict(choice=choice, reasoning=reasoning, violations=violations, shown=shown, confirmed=False,
                          asks=calls)
        if choice != "ALL_INVALID":
            break
        confirmed = task.confirm([*violations, reasoning], [c["data"] or {} for c in valid], state["source"]) \
            if task.confirm is not None else violations or [reasoning]
        if confirmed:
            verdict["violations"], verdict["confirmed"] = confirmed, True
            break
        suffix = "\n\n" + UNCONFIRMED
    if verdict["choice"] == "ALL_INVALID":
        # Claims the checker could not confirm are not violations: the feedback carries only what holds.
        verdict["violations"] = [*(verdict["violations"] if verdict["confirmed"] else []), *notes]
    return {"verdict": verdict, "llm_calls": calls, "prompt_tokens": prompt, "completion_tokens": completion}
