"""One choice among every candidate, with or without a model: GROUNDED only for a proved one.

The best proved candidate is the answer (GROUNDED). With none proved, the best candidate is shown
as what it is, a candidate the lines do not prove (UNCERTAIN), with the closest lines first; with
no candidate at all, or a question about a version, a number or a name that no document holds,
there is no answer (NO_ANSWER), and the closest lines are offered as related lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from karaka.answering import kinds as k
from karaka.answering.candidate import Candidate
from karaka.answering.confidence import chance, features
from karaka.answering.question import Asked

MIN_COVER = 0.5
"""A candidate whose line holds less of the question than this is not shown, even as uncertain; nor is one of
another kind than asked ("which colour?" is not answered, even uncertainly, by something never called one)."""


@dataclass
class Decision:
    """What the lines support: the status, the answers shown, the lines to cite (best first), why."""

    status: str
    answers: list[Candidate] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    why: str = ""
    confidence: float = 0.0
    runner_up: Candidate | None = None
    """The best candidate with another text (how far ahead the answer is)."""

    @property
    def best(self) -> Candidate | None:
        return self.answers[0] if self.answers else None


def asks_many(asked: Asked) -> bool:
    """A question whose answer may be several spans of one line: "Who are the authors …?", "Which options …?"."""
    if asked.kind in (k.QUANTITY, k.VERSION, k.DATE, k.REASON, k.MANNER, k.POLAR):
        return False
    return bool(re.search(r"\b(are|were|list|all)\b", asked.text, re.IGNORECASE)) or (
        asked.focus.endswith("s") and not asked.focus.endswith("ss"))


def decide(asked: Asked, candidates: list[Candidate], pool: list[str], missing: list[str]) -> Decision:
    """The decision over ``candidates`` (best first) read from ``pool`` (the lines read, in rank order).

    ``missing`` lists the question's required words that no document holds.
    """
    if missing:
        return Decision("NO_ANSWER", lines=_related(candidates, pool),
                        why=f"the documents never mention {', '.join(missing)}", confidence=chance({}))
    shown = [c for c in candidates if c.proved or c.evidence.cover >= MIN_COVER and c.evidence.typed]
    if not shown:
        asked_for = f"called a {asked.focus_text}" if asked.kind == k.TERM and asked.focus_text else \
            f"of the kind asked for ({asked.kind})"
        why = f"nothing {asked_for} in the closest lines" if candidates else "nothing in the closest lines"
        if asked.kind == k.POLAR:
            why = "no line of the closest says yes or no to it"
        return Decision("NO_ANSWER", lines=_related(candidates, pool), why=why, confidence=chance({}))
    best = shown[0]
    runner_up = next((c for c in shown[1:] if c.text.lower() != best.text.lower()), None)
    answers = [best]
    if best.proved and asks_many(asked):
        answers += [c for c in shown[1:4] if c.proved and c.node == best.node and c.score >= 0.9 * best.score
                    and c.text.lower() not in best.text.lower()]
    lines = [best.node, *best.also, *_related(candidates, pool)]
    confidence = chance(features(best, runner_up))
    if best.proved:
        return Decision("GROUNDED", answers, list(dict.fromkeys(lines)), "proved: " + "; ".join(best.evidence.notes),
                        confidence, runner_up)
    return Decision("UNCERTAIN", answers, list(dict.fromkeys(lines)), f"not proved: {best.evidence.why_not}",
                    confidence, runner_up)


def _related(candidates: list[Candidate], pool: list[str]) -> list[str]:
    """The lines read, in retrieval's order: the closest lines, whatever candidates they gave.

    Ordering them by their candidates' cover put lines with a wrong-kind candidate first: on the
    action set the first cited line held the answer 76 % of the time, against bm25's top line's 85 %.
    """
    return list(dict.fromkeys(pool))
