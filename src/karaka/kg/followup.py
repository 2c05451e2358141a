"""Follow-up questions: pronouns of a plan resolved against the previous turn of the thread."""

from __future__ import annotations

from typing import Any

from karaka.store.resolver import is_pronoun
from karaka.words import PERSONAL_PRONOUNS


def resolve_follow_up(plan: dict[str, Any], turns: list[dict[str, Any]], types: dict[str, str]) -> list[str]:
    """Replace pronouns in a plan with the previous turn's entities; returns what was replaced.

    A pronoun in role R takes the previous turn's entity in R (its answer counts for the role it
    extracted); otherwise the first earlier entity of the right animacy (he/him → a Person).
    """
    if not turns:
        return []
    roles = dict(turns[-1].get("roles") or {})
    pool = list(dict.fromkeys(roles.values()))
    notes = []
    for step in plan.get("steps", []):
        karakas = step.get("karakas") or {}
        used = {v for v in karakas.values() if v and not is_pronoun(v)}
        for role, value in list(karakas.items()):
            if not value or not is_pronoun(value):
                continue
            person = value.lower() in PERSONAL_PRONOUNS
            same = roles.get(role)
            choice = same if same and same not in used else next(
                (e for e in pool if e not in used and (types.get(e) == "Person") == person), None)
            if choice:
                karakas[role] = choice
                used.add(choice)
                notes.append(f"follow-up: {value!r} in {role} → {choice!r} (previous turn)")
    return notes
