"""A deterministic, instant model that answers every Karaka prompt with schema-valid JSON.

It exists to measure the framework (benchmarks, crash tests, the demo's plumbing),
never to produce knowledge: its extractions are word-position guesses.
"""

from __future__ import annotations

import json
import re
import time

from karaka.models.base import KeyedChatModel

_LINE = re.compile(r"^\[L(\d+)\]\s*(.+)$", re.MULTILINE)
_CANDIDATE = re.compile(r"\b(Candidate_[A-Z])\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _guess_kriya(line: int, text: str) -> dict:
    words = _WORD.findall(text)
    verb = words[1].lower() if len(words) > 1 else (words[0].lower() if words else "be")
    karakas: dict[str, str] = {}
    if words:
        karakas["KARTA"] = words[0]
    if len(words) > 2:
        karakas["KARMA"] = " ".join(words[2:4])
    return {"line": line, "verb": verb, "karakas": karakas, "coreferences": []}


class SimulatedChatModel(KeyedChatModel):
    """Schema-valid answers at framework speed.

    Attributes:
        latency: seconds each call sleeps, to measure concurrency.
        score: the score every scoring call returns (>= 95 takes the fast path).
    """

    latency: float = 0.0
    score: int = 96
    model_name: str = "simulated"

    @property
    def _llm_type(self) -> str:
        return "karaka-simulated"

    def respond(self, key: str, system: str, user: str) -> str:  # noqa: C901 - one branch a key
        """Answer by prompt key."""
        if self.latency:
            time.sleep(self.latency)
        if key.endswith("_scoring_prompt"):
            return json.dumps({"reasoning": "simulated", "score": self.score})
        if key.endswith("_verification_prompt"):
            ids = _CANDIDATE.findall(user)
            choice = ids[0] if ids else "ALL_INVALID"
            return json.dumps({"choice": choice, "reasoning": "simulated"})
        if key in ("kriya_extraction_prompt", "kriya_correction_prompt"):
            lines = [(int(n), t) for n, t in _LINE.findall(user.rsplit("Lines:", 1)[-1])]
            return json.dumps({"kriyas": [_guess_kriya(n, t) for n, t in lines]})
        if key == "kriya_batch_validation_prompt":
            return json.dumps({"invalid_lines": [], "reasoning": "simulated"})
        if key == "query_decomposition_prompt":
            words = _WORD.findall(user.split("Question:")[-1])
            entity = next((w for w in words[1:] if w[0].isupper()), None)
            step = {
                "goal": "find the action", "verb": words[2].lower() if len(words) > 2 else None,
                "karakas": {"KARTA": entity}, "extract": "KARMA",
                "follow_causes": False, "follow_same_as": True,
            }
            return json.dumps({"steps": [step], "reasoning": "simulated"})
        if key == "metaphor_extraction_prompt":
            return json.dumps({"target": None, "reasoning": "simulated"})
        if key in ("coreference_prompt", "causality_prompt"):
            return json.dumps({"answer": "no", "target": None, "reasoning": "simulated"})
        if key == "entity_type_prompt":
            return json.dumps({"entity_type": "Object", "reasoning": "simulated"})
        if key == "entity_type_check_prompt":  # always the second option: never the same both ways round
            options = re.search(r'context: (\w+) or (\w+)\?', user)
            return json.dumps({"answer": options.group(2) if options else "", "reasoning": "simulated"})
        if key == "answer_read_prompt":  # the first line, and the reader's first hint when it gave one
            line = re.search(r"^1\. \[[^\]]+\] (.*)$", user, re.MULTILINE)
            hint = re.search(r'^- "(.*)" \(line (\d+)\)', user, re.MULTILINE)
            quote = " ".join(line.group(1).split()[:8]) if line else ""
            if hint:
                return json.dumps({"line": int(hint.group(2)), "quote": hint.group(1), "answer": hint.group(1)})
            return json.dumps({"line": 1 if line else 0, "quote": quote, "answer": quote})
        if key == "chapter_summary_prompt":  # the part's first line, as it stands
            line = re.search(r"^1\. (.*)$", user, re.MULTILINE)
            return json.dumps({"sentences": [{"text": line.group(1), "lines": [1]}] if line else []})
        return json.dumps({"reasoning": "simulated"})
