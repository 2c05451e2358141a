"""Relational and comparative questions → multi-step plans (no LLM).

"What nationality is the director of film Blood Street?" is two steps: who directed Blood Street,
then that person's nationality. The grammar is the general one of relational noun phrases:
"the R of (the R of)* E" and "E's R('s R)*", where R is an agent noun (director, composer,
founder…), a kinship noun (father, spouse, grandfather…) or an attribute (place of birth, date of
death, nationality…). Comparisons name two options ("…, A or B?", "Do A and B …") and an
attribute to compare (born first, died later, released earlier, same nationality), reached through
a relation when the question says so ("Which film has the director who was born later, A or B?").

Entities are found by the documents' titles (``titles`` maps a normalised title to its text), so
"Camille (1926 Feature Film)" in a question meets the passage titled "Camille (1926 feature film)".
"""

from __future__ import annotations

import re
from typing import Any

from karaka.words import WORD

AGENT_NOUNS = frozenset(
    "director composer producer writer author founder performer singer publisher creator editor designer architect "
    "screenwriter cinematographer owner presenter developer manufacturer inventor painter sculptor".split()
)
KINSHIP = frozenset("father mother parent son daughter child husband wife spouse brother sister sibling".split())
COMPOSITE = {
    "paternal grandfather": ["father", "father"], "paternal grandmother": ["father", "mother"],
    "maternal grandfather": ["mother", "father"], "maternal grandmother": ["mother", "mother"],
    "grandfather": ["father", "father"], "grandmother": ["father", "mother"], "uncle": ["father", "brother"],
    "aunt": ["father", "sister"], "father-in-law": ["spouse", "father"], "mother-in-law": ["spouse", "mother"],
    "sibling-in-law": ["spouse", "sibling"], "brother-in-law": ["spouse", "brother"],
    "sister-in-law": ["spouse", "sister"], "stepmother": ["father", "spouse"], "stepfather": ["mother", "spouse"],
}
ATTRIBUTES = {
    "place of birth": "birth_place", "birthplace": "birth_place", "date of birth": "birth_date",
    "birthday": "birth_date", "place of death": "death_place", "date of death": "death_date",
    "place of burial": "burial_place", "nationality": "nationality",
}
_TYPES = r"(?:film|song|album|magazine|newspaper|book|novel|company|band|play|series|show|game|team|mountain|river)"
_ORDER_WORDS = {
    "first": "earliest", "earlier": "earliest", "older": "earliest", "sooner": "earliest",
    "later": "latest", "last": "latest", "younger": "latest", "more recently": "latest", "recently": "latest",
}


def normalize(text: str) -> str:
    """Lower-cased words only (the key of a title or a name)."""
    return " ".join(WORD.findall(text.lower()))


def find_entities(question: str, titles: dict[str, str]) -> list[tuple[int, int, str]]:
    """Title matches in a question: (start, end, title) by character offsets, longest first, no overlaps."""
    words = [(m.start(), m.end(), m.group().lower()) for m in WORD.finditer(question)]
    found: list[tuple[int, int, str]] = []
    taken: set[int] = set()
    for size in range(min(14, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            if taken & set(range(i, i + size)):
                continue
            key = " ".join(w for _, _, w in words[i:i + size])
            if key in titles and (size > 1 or question[words[i][0]].isupper()):
                end = words[i + size - 1][1]
                if question[end:end + 1] == ")":  # "Camille (1926 Feature Film)": keep the closing parenthesis
                    end += 1
                found.append((words[i][0], end, titles[key]))
                taken |= set(range(i, i + size))
    return sorted(found)


def _chain(text: str) -> list[list[str]]:
    """Relations named in "the R of the R2 of" or "'s R 's R2", in the order their words come.

    Each named relation is a group in application order ("father-in-law" is [spouse, father]).
    """
    for phrase in sorted([*COMPOSITE, *ATTRIBUTES], key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(phrase)}\b", phrase.replace(" ", "_"), text)
    out: list[list[str]] = []
    for part in re.split(r"\s+of\s+|'s\b|’s\b", text):
        words = [w for w in re.findall(r"[\w-]+", part) if w.replace("_", " ") in COMPOSITE
                 or w.replace("_", " ") in ATTRIBUTES or w in AGENT_NOUNS or w in KINSHIP]
        if not words:
            continue
        word = words[-1].replace("_", " ")
        if word in COMPOSITE:
            out.append(list(COMPOSITE[word]))
        elif word in ATTRIBUTES:
            out.append([ATTRIBUTES[word]])
        else:
            out.append([{"wife": "spouse", "husband": "spouse"}.get(word, word)])
    return out


def _outer(masked: str) -> str | None:
    """The attribute a question's own predicate asks for ("Where was X born?" → birth_place)."""
    rules = [
        (r"^where (?:was|is) .* born\b|^where .* born\??$", "birth_place"),
        (r"^when (?:was|is) .* born\b", "birth_date"), (r"^where did .* die\b", "death_place"),
        (r"^when did .* die\b", "death_date"), (r"^where (?:was|is) .* buried\b", "burial_place"),
        (r"^what nationality\b|nationality", "nationality"),
        (r"^which country .* from\b|^what country .* from\b|country .* from\??$", "nationality"),
        (r"^who did .* marry\b", "spouse"), (r"^when did .* found\b|founded\??$", "founding_date"),
        (r"^where does .* work\b", "employer"),
    ]
    for pattern, attribute in rules:
        if re.search(pattern, masked):
            return attribute
    return None


def _compare(masked: str) -> tuple[str, str] | None:
    """(attribute, pick) of a comparison: ("birth_date", "earliest") for "born first"."""
    if "same country" in masked and ("located" in masked or "mountain" in masked or "river" in masked):
        return "country", "same"
    if "same nationality" in masked or "same country" in masked:
        return "nationality", "same"
    if re.search(r"\b(older|younger)\b", masked):
        return "birth_date", "earliest" if "older" in masked else "latest"
    for verb, attribute in (("born", "birth_date"), ("died", "death_date"), ("die", "death_date"),
                            ("released", "release_date"), ("came out", "release_date"),
                            ("published", "release_date"), ("founded", "founding_date")):
        if verb in masked:
            for word, pick in _ORDER_WORDS.items():
                if re.search(rf"\b{word}\b", masked):
                    return attribute, pick
    return None


def relation_plan(question: str, titles: dict[str, str]) -> dict[str, Any] | None:
    """A multi-step plan for a relational or comparative question, or None when it is neither."""
    entities = find_entities(question, titles)
    if not entities:
        return None
    masked, marks = question, list[tuple[str, str]]()
    for n, (start, end, title) in enumerate(reversed(entities)):
        mark = f"E{len(entities) - n}"
        masked = masked[:start] + mark + masked[end:]
        marks.insert(0, (mark, title))
    masked = " ".join(masked.lower().replace("e1", "E1").replace("e2", "E2").split())
    names = dict(marks)
    if len(marks) >= 2:
        compared = _compare(masked)
        if compared is None:
            return None
        attribute, pick = compared
        via = [r for r in AGENT_NOUNS if re.search(rf"\b{r}s?\b", masked)][:1]
        return {"steps": [{"goal": question, "relation": attribute, "subject": names["E1"], "via": via}],
                "compare": {"attribute": attribute, "pick": pick, "via": via,
                            "options": [names["E1"], names["E2"]]}, "reasoning": "parser plan (comparison)"}
    before, _, after = masked.partition("E1")
    # "the place of birth of E's mother": the possessives after E bind first, then the "of" chain inward-out
    groups = _chain(after.split("?")[0]) + list(reversed(_chain(before)))
    chain = [relation for group in groups for relation in group]
    outer = _outer(masked)
    if outer and (not chain or chain[-1] != outer):
        chain.append(outer)
    if not chain:
        return None
    steps = [{"goal": f"{relation} of {'$' + str(i) if i else names['E1']}", "relation": relation,
              "subject": f"${i}" if i else names["E1"]} for i, relation in enumerate(chain)]
    return {"steps": steps, "reasoning": "parser plan (relations)"}
