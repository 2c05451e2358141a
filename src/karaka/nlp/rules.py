"""Rule checks of an extracted Kriyā against its line, and confirmation of a verifier's objections.

The line and a span are cut into words the same way (letters and digits, apostrophes kept), so a
span copied from the line always passes: "Dr. Aris", "( about US$ 49 million )". A verb may also
match a lemma of the line ("give" for "gave").
"""

from __future__ import annotations

import re
from typing import Any

from karaka.nlp import parse
from karaka.nlp.roles import analyze
from karaka.words import LIGHT_WORDS, lower_words

_QUOTED = re.compile(r"[\"'“‘`]([^\"'”’`]{2,80})[\"'”’`]")


def words(text: str) -> list[str]:
    """The words of a text, lower-cased (the one tokenisation for lines and spans)."""
    return lower_words(text)


def content_words(text: str) -> list[str]:
    """Words that must occur in the line (function words may be paraphrased)."""
    return [w for w in words(text) if w not in LIGHT_WORDS]


def mentions(value: Any) -> list[str]:
    """A role's value as a list of spans."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value if v]
    return [str(value)]


def line_words(line: str) -> set[str]:
    """The words of a line plus the lemmas of its tokens."""
    return set(words(line)) | {t.lemma_.lower() for t in parse(line)}


def rule_violations(item: dict[str, Any], line: str) -> list[str]:
    """Hard checks of one Kriyā: every word in its line, kartā and karma not swapped.

    Each problem names the offending words, so retry feedback can say exactly what to fix.
    """
    vocabulary = line_words(line)
    problems = []
    verb = str(item.get("verb", "")).lower().strip()
    unknown_verb = [w for w in words(verb) if w not in vocabulary and w != "be"]
    if unknown_verb:
        problems.append(f"verb {item.get('verb')!r} does not occur in the line (not in it: {', '.join(unknown_verb)})")
    for role, value in (item.get("karakas") or {}).items():
        for text in mentions(value):
            missing = [w for w in content_words(text) if w not in vocabulary]
            if missing:
                problems.append(f"{role} {text!r} is not in the line (not in it: {', '.join(missing)})")
    return problems + role_problems(item, line) + swap_problems(item, line) + structure_problems(item, line)


_NO_CONTENT = LIGHT_WORDS | frozenset("from into onto over under where when which who whom whose that there then than as if but "
                                "so not while since until after before".split())


def role_problems(item: dict[str, Any], line: str) -> list[str]:
    """Roles that cannot be right whatever the line says.

    One participant takes one kāraka of an action (Aṣṭādhyāyī 1.4.1, *ā kaḍārād ekā saṃjñā*); a
    role never holds the action itself ("shot" as the kartā of *shoot*); a role holds at least one
    content word ("where", "the" and "from" name nothing).
    """
    verb = str(item.get("verb", "")).lower().strip()
    lemmas = {t.lower_: t.lemma_.lower() for t in parse(line)}
    seen: dict[str, str] = {}
    problems = []
    for role, value in (item.get("karakas") or {}).items():
        for text in mentions(value):
            spoken = [w for w in words(text) if w not in _NO_CONTENT]
            if not words(text):
                continue  # punctuation a conjunct split left behind: nothing said, nothing wrong
            if not spoken:
                problems.append(f"{role} {text!r} names nothing (no content word)")
                continue
            if verb and all(lemmas.get(w, w) == verb for w in spoken):
                problems.append(f"{role} {text!r} is the action {verb!r} itself, not a participant")
            key = " ".join(words(text))
            if key in seen:
                problems.append(f"{text!r} fills both {seen[key]} and {role}; one participant takes one role")
            seen.setdefault(key, role)
    return problems


def _head_words(value: Any) -> set[str]:
    return {w for text in mentions(value) for w in content_words(text)}


def swap_problems(item: dict[str, Any], line: str) -> list[str]:
    """KARTA and KARMA exchanged against the parse of the line."""
    karakas = item.get("karakas") or {}
    karta, karma = _head_words(karakas.get("KARTA")), _head_words(karakas.get("KARMA"))
    if not karta:
        return []
    verb = str(item.get("verb", "")).lower()
    for parsed in analyze(line):
        if parsed["verb"] != verb:
            continue
        p_karta = _head_words(parsed["karakas"].get("KARTA"))
        p_karma = _head_words(parsed["karakas"].get("KARMA"))
        if p_karta and p_karma and karta & p_karma and not karta & p_karta and (not karma or karma & p_karta):
            return [f"KARTA and KARMA of {verb!r} are swapped against the parse "
                    f"(the doer is {' '.join(sorted(p_karta))})"]
    return []


def confirm_violations(claims: list[str], candidates: list[dict[str, Any]], lines: dict[int, str]) -> list[str]:
    """The verifier's objections that the checker can confirm against the text.

    A claim is confirmed when a phrase it quotes is a word sequence of the line, inside a role the
    parse finds or a noun phrase, that no candidate holds (an omission every candidate shares; a verb or a whole
    clause quoted is no omitted participant), or is held by a candidate but does not occur in the
    line (a hallucination), or when it names a swap that the parse shows.
    """
    text = " ".join(lines.values())
    line_seq = " ".join(words(text))
    # What can be a participant: a role span the parse finds, or a noun phrase of the line.
    parsed = [set(words(span)) for line in lines.values() for found in analyze(line)
              for value in found["karakas"].values() for span in mentions(value)]
    parsed += [set(words(chunk.text)) for line in lines.values() for chunk in parse(line).noun_chunks]
    held = {" ".join(words(span)) for data in candidates for item in data.get("kriyas", [])
            for value in (item.get("karakas") or {}).values() for span in mentions(value)}
    held_words = {w for phrase in held for w in phrase.split()}
    confirmed = []
    for claim in claims:
        for quote in _QUOTED.findall(claim):
            phrase = " ".join(words(quote))
            if not phrase or not content_words(quote):
                continue
            in_line = f" {phrase} " in f" {line_seq} "
            quoted = set(content_words(quote))
            if in_line and not quoted <= held_words and any(quoted <= span for span in parsed):
                confirmed.append(f"{quote!r} is in the text but no candidate holds it")
            elif not in_line and any(phrase == h or phrase in h for h in held):
                confirmed.append(f"{quote!r} is held by a candidate but is not in the text")
        if "swap" in claim.lower():
            for data in candidates:
                for item in data.get("kriyas", []):
                    line = lines.get(item.get("line")) or (next(iter(lines.values())) if len(lines) == 1 else "")
                    confirmed += swap_problems(item, line) if line else []
    return list(dict.fromkeys(confirmed))


_CLAUSE_LINKS = frozenset({"conj", "xcomp", "advcl", "relcl", "acl", "ccomp", "pcomp"})
"""How a verb's clause hangs off another's: its participants may stand in that other clause."""
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "agent", "expl"})
_BODY_PARTS = frozenset("arm arms hand hands leg legs foot feet head eye eyes ear ears face finger fingers knee knees "
                        "back shoulder shoulders neck mouth nose chest heart toe toes wrist elbow hip lip lips tongue "
                        "thumb ankle skin".split())
_LOCATIVE = frozenset("in on at into onto inside within under over across around near beside behind below above "
                      "along through".split())
STRUCTURE_VETOES = ("contains its own verb", "outside the clause of", "names a body part", "shared by")
"""The words that name each structural veto in a problem (the report counts them)."""


def _align(doc: Any, text: str) -> list[list[Any]]:
    """Every run of ``doc``'s tokens that spells ``text`` (word for word, punctuation aside)."""
    wanted = words(text)
    if not wanted:
        return []
    flat = [(t, w) for t in doc for w in words(t.text)]
    return [list(dict.fromkeys(t for t, _ in flat[start:start + len(wanted)]))
            for start in range(len(flat) - len(wanted) + 1)
            if [w for _, w in flat[start:start + len(wanted)]] == wanted]


def _verb_tokens(doc: Any, verb: str) -> list[Any]:
    found = [t for t in doc if t.lemma_.lower() == verb and t.pos_ in ("VERB", "AUX")]
    return found or [t for t in doc if t.lemma_.lower() == verb or t.lower_ == verb]


def _reach(verb: Any) -> set[int]:
    """Token indices a participant of ``verb`` may stand on.

    Its subtree, and up its clause links the subjects and objects it shares (a conjunct's
    subject, the noun a relative clause describes).
    """
    region = {t.i for t in verb.subtree}
    node = verb
    while node.dep_ in _CLAUSE_LINKS and node.head is not node:
        head = node.head
        region.add(head.i)
        for child in head.children:
            if child.dep_ in _SUBJECTS or (node.dep_ == "xcomp" and child.dep_ in ("dobj", "obj", "dative")) or \
                    (node.dep_ in ("relcl", "acl") and child.i < node.i and child.dep_ not in ("punct", "cc")):
                region.update(t.i for t in child.subtree)
        if node.dep_ in ("relcl", "acl"):  # the noun the clause describes, and what it hangs from
            region.update(t.i for t in head.subtree if t.i not in {x.i for x in node.subtree})
            if head.dep_ == "attr":  # "the analogy is the hurricane that struck": the copula's subject too
                region.update(t.i for c in head.head.children if c.dep_ in _SUBJECTS for t in c.subtree)
        node = head
    return region


def _clause(doc: Any, verb: str) -> tuple[list[Any], set[int]]:
    """The verb's tokens in the line, and the token indices its participants may stand on."""
    verbs = _verb_tokens(doc, verb) if verb else []
    return verbs, set().union(*(_reach(v) for v in verbs)) if verbs else set()


def _occurrence(doc: Any, text: str, reach: set[int]) -> list[Any]:
    """The tokens that spell ``text``: its occurrence in the verb's clause when there is one, else its first."""
    runs = _align(doc, text)
    return next((r for r in runs if {t.i for t in r} & reach), runs[0]) if runs else []


def _top(token: Any) -> Any:
    """The clause a verb's clause belongs to: up its clause links, and from a noun a clause describes to its head."""
    node = token
    while node.head is not node and (node.dep_ in _CLAUSE_LINKS or node.pos_ in ("NOUN", "PROPN", "PRON")):
        node = node.head
    return node


def _linked(a: Any, b: Any) -> bool:
    """Whether two verbs' clauses belong together: one hangs off the other, or both off one clause."""
    return a.i in {x.i for x in b.ancestors} or b.i in {x.i for x in a.ancestors} or _top(a).i == _top(b).i


def structure_problems(item: dict[str, Any], line: str) -> list[str]:
    """Vetoes from the line's dependency parse, each naming the words.

    A role's span lies in its verb's clause (the verb's subtree, or a subject or object its clause
    shares with the clause it hangs off, or a pronoun's antecedent when the clause holds a pronoun);
    a span never contains its own verb; a place is not a body part unless a locative preposition
    says so ("in his arm", not "his left arm").
    """
    verb = str(item.get("verb", "")).lower().strip()
    doc = parse(line)
    verbs, reach = _clause(doc, verb)
    if not verbs:
        return []
    pronoun_here = any(doc[i].pos_ == "PRON" and doc[i].lower_ not in ("it", "that", "which", "what") for i in reach)
    problems = []
    for role, value in (item.get("karakas") or {}).items():
        for text in mentions(value):
            tokens = _occurrence(doc, text, reach)
            if not tokens:
                continue
            inside = {t.i for t in tokens}
            if all(v.i in inside for v in verbs) and len(inside) > 1:
                problems.append(f"{role} {text!r} contains its own verb {verbs[0].text!r}")
                continue
            if not inside & reach and not (pronoun_here and role in ("KARTA", "KARMA")):
                owner = next((a for a in tokens[0].ancestors if a.pos_ in ("VERB", "AUX") and a.i not in
                              {v.i for v in verbs}), None)
                problems.append(f"{role} {text!r} lies outside the clause of {verb!r}"
                                + (f" (it belongs to {owner.text!r})" if owner is not None else ""))
                continue
            if role == "ADHIKARANA_SPATIAL" and words(text)[0] not in _LOCATIVE and \
                    any(t.lemma_.lower() in _BODY_PARTS for t in tokens):
                problems.append(f"{role} {text!r} names a body part, not a place (no locative preposition)")
    return problems


def shared_problems(items: list[dict[str, Any]], line: str) -> list[str]:
    """The same words of a line given to two Kriyās whose clauses the parse does not link."""
    doc = parse(line)
    holders: dict[tuple[int, ...], list[tuple[str, str]]] = {}
    for item in items:
        verb = str(item.get("verb", "")).lower().strip()
        _, reach = _clause(doc, verb)
        for value in (item.get("karakas") or {}).values():
            for text in mentions(value):
                tokens = _occurrence(doc, text, reach)
                if tokens and content_words(text):
                    holders.setdefault(tuple(t.i for t in tokens), []).append((verb, text))
    problems = []
    for held in holders.values():
        distinct = list(dict.fromkeys(verb for verb, _ in held))
        found = {v: _verb_tokens(doc, v) for v in distinct}
        for i, first in enumerate(distinct):
            for second in distinct[i + 1:]:
                if found[first] and found[second] and not any(_linked(a, b) for a in found[first]
                                                              for b in found[second]):
                    problems.append(f"{held[0][1]!r} is shared by {first!r} and {second!r}, whose clauses the "
                                    "parse does not link")
    return problems
