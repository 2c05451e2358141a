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
import re
from statistics import mean
from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from karaka.config import Context
from karaka.gsv import get_task
from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.models.ask import ask, ask_samples
from karaka.models.call import LLMCallError
from karaka.nodes.common import emit, services_of
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


def _reset(attempt: int) -> dict[str, Any]:
    return {"attempt": attempt, "reset": True}


def _labels(state: GSVState) -> tuple[Label, ...]:
    return LABELS[:1] if state["phase"] == "fast" else LABELS


def _choosing(state: GSVState) -> bool:
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
    offered = _offered(state, attempt) if _choosing(state) else []
    if seed and (attempt == 1 or _choosing(state)):
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
    if _choosing(state):
        return []
    have = {c["label"] for c in state.get("candidates", []) if c["attempt"] == state["attempt"]}
    return [label for label in _labels(state) if label not in have]


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


def _valid(state: GSVState, labels: tuple[Label, ...]) -> list[Candidate]:
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
    todo = [c for c in _valid(state, _labels(state)) if c["label"] not in scored]
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


def mean_scores(state: GSVState) -> dict[str, float | None]:
    """Each candidate's mean over its valid scores (None when it has none)."""
    out: dict[str, float | None] = {}
    for record in state.get("scores", []):
        out.setdefault(record["label"], None)
    for label in out:
        valid = [s["score"] for s in state["scores"] if s["label"] == label and s["score"] is not None]
        out[label] = mean(valid) if valid else None
    return out


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
    valid = _valid(state, _labels(state))
    if state["phase"] == "fast":
        first = mean_scores(state).get(LABELS[0])
        if not valid or first is None or first < FAST_PATH_SCORE:
            return {"verdict": None}
    invalid = [c for c in state.get("candidates", [])
               if c["label"] in _labels(state) and (c["data"] is None or c["errors"])]
    notes = [f"{c['label']}: {'; '.join(c['errors'])}" for c in invalid]
    if not valid:
        return {"verdict": Verdict(choice="ALL_INVALID", reasoning="; ".join(notes) or "no usable candidate",
                                   violations=notes, shown=[], confirmed=True, asks=0)}
    services = services_of(runtime)
    task = get_task(state["task"])
    shown = [c["label"] for c in valid]
    # Choosing among readings of one line, the verifier sees what they do not share, not the same Kriyās thrice.
    views = differing([c["data"] or {} for c in valid]) if _choosing(state) and len(valid) > 1 else \
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
        if _choosing(state) and not _offered(state, state["attempt"]):  # nothing to choose from: the parser's fallback
            return _exhaust(state, runtime, NO_READING)
        return {"phase": "full", "verdict": None}
    choice = verdict["choice"] if verdict else "ALL_INVALID"
    top = top_labels(means)
    unconfirmed = bool(verdict and verdict["choice"] == "ALL_INVALID" and not verdict["confirmed"])
    if _choosing(state):
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
