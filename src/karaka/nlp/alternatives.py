"""The parser's other readings of a sentence: the analyses a small model chooses among.

A parse commits to one reading where the sentence allows several. Each alternative here is the
same sentence re-analysed by ``roles.analyze_doc`` after one change to its parse, so every
alternative is a whole, consistent analysis made of the sentence's own words:

- **attachment**: a prepositional phrase under a noun of the verb's object hangs on the verb
  instead ("scored 98 out of 100" → APADANA), or one on the verb hangs on the object right before
  it ("bought the house with a garden");
- **label**: a bare noun phrase object that names a time is the time of the action ("met last
  week");
- **subject**: the kartā of an infinitive after an object-control verb is that verb's subject
  instead of its object ("asked him to go" read as "promised him to go");
- **clause**: a relative or participle clause hangs on the other noun of "N of M" ("the daughter
  of the colonel who was on the balcony"), or a clause on the verb above the one it hangs on.

A passive's subject is not offered: on 400 QA-SRL dev sentences the only other reading the parse
allows (the "by" phrase as a means, not the doer) was never better and worse 26 times in 37.

A label changed on the analysis itself also counts: a place span read as a time, a time or place
clause (an adjunct) made the action's kāraka. A time span is not offered as a place: on 400 QA-SRL
dev sentences that reading was better once in 98 and worse 69 times.

The first analysis (Candidate_A) stays the parser's best; alternatives come by kind (``ORDER``),
then in sentence order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from spacy.tokens import Doc, Token

from karaka.nlp import parse_many
from karaka.nlp.lexicon import OBJECT_CONTROL, PREP_ROLES
from karaka.nlp.phrases import is_temporal
from karaka.nlp.roles import analyze_doc, seed_candidate

ARGUMENTS = frozenset({"dobj", "obj", "nsubjpass", "attr", "pobj"})
NOUNS = frozenset({"NOUN", "PROPN", "NUM", "PRON"})


def _rebuilt(doc: Doc, heads: dict[int, int] | None = None, deps: dict[int, str] | None = None) -> Doc | None:
    """A copy of ``doc`` with some heads or labels changed, or None when spaCy refuses the tree."""
    heads, deps = heads or {}, deps or {}
    try:
        copy = Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
                   tags=[t.tag_ for t in doc], pos=[t.pos_ for t in doc], lemmas=[t.lemma_ for t in doc],
                   morphs=[str(t.morph) for t in doc],
                   heads=[heads.get(t.i, t.head.i) for t in doc], deps=[deps.get(t.i, t.dep_) for t in doc],
                   ents=[f"{t.ent_iob_}-{t.ent_type_}" if t.ent_type_ else "O" for t in doc])
    except ValueError:  # a cycle or a second root
        return None
    return copy


def _verb_of(noun: Token) -> Token | None:
    """The verb a noun phrase is an argument of, through a preposition at most ("out of 100 points")."""
    token = noun
    for _ in range(3):
        if token.dep_ in ARGUMENTS and token.head.pos_ in ("VERB", "AUX"):
            return token.head
        if token.dep_ == "pobj" and token.head.dep_ == "prep" and token.head.head.pos_ in ("VERB", "AUX"):
            return token.head.head
        token = token.head
    return None


def _attachments(doc: Doc) -> Iterator[tuple[str, Doc | None]]:
    for prep in doc:
        if prep.dep_ != "prep" or prep.lower_ not in PREP_ROLES and prep.lower_ != "by":
            continue
        head = prep.head
        if head.pos_ in NOUNS and head.dep_ in ARGUMENTS:
            verb = _verb_of(head)
            if verb is not None and prep.i > verb.i:
                yield f"'{prep.text} …' on '{verb.text}', not on '{head.text}'", _rebuilt(doc, heads={prep.i: verb.i})
        elif head.pos_ == "VERB" and prep.i > 0:
            before = doc[prep.i - 1]
            noun = before if before.pos_ in NOUNS else None
            while noun is not None and noun.head.i > noun.i and noun.head.i < prep.i:
                noun = noun.head  # "the old house" → "house"
            if noun is not None and noun.head == head and noun.dep_ in ("dobj", "obj", "attr") \
                    and noun.pos_ in ("NOUN", "PROPN"):
                yield f"'{prep.text} …' on '{noun.text}', not on '{head.text}'", _rebuilt(doc, heads={prep.i: noun.i})


def _labels(doc: Doc) -> Iterator[tuple[str, Doc | None]]:
    for token in doc:
        if token.head.pos_ != "VERB" or token.pos_ not in ("NOUN", "PROPN"):
            continue
        if token.dep_ in ("dobj", "obj") and is_temporal(token):
            yield f"'{token.text}' as the time of '{token.head.text}'", _rebuilt(doc, deps={token.i: "npadvmod"})


def _subjects(doc: Doc) -> Iterator[tuple[str, Doc | None]]:
    """An infinitive after an object-control verb done by the verb's subject, not its object ("promised him to go")."""
    for verb in doc:
        if verb.dep_ != "xcomp" or any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children):
            continue
        head = verb.head
        obj = next((c for c in head.children if c.dep_ == "dobj"), None)
        subject = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if obj is not None and subject is not None and head.lemma_.lower() in OBJECT_CONTROL:
            yield f"'{verb.text}' done by '{subject.text}', not by '{obj.text}'", _rebuilt(doc, deps={verb.i: "advcl"})


def _clauses(doc: Doc) -> Iterator[tuple[str, Doc | None]]:
    """A relative or participle clause on the other noun of "N of M", and a clause on the verb above its own.

    "the daughter of the colonel who was on the balcony": who was there, the colonel or the
    daughter? "signs governed by rules": on "signs", not "system", in "a system of signs".
    """
    for verb in doc:
        if verb.dep_ in ("relcl", "acl") and verb.head.pos_ in ("NOUN", "PROPN"):
            noun = verb.head
            if noun.dep_ == "pobj" and noun.head.dep_ == "prep" and noun.head.head.pos_ in ("NOUN", "PROPN"):
                above = noun.head.head
                yield f"'{verb.text} …' on '{above.text}', not on '{noun.text}'", _rebuilt(doc, heads={verb.i: above.i})
            for prep in (c for c in noun.children if c.dep_ == "prep" and c.i < verb.i):
                for below in (o for o in prep.children if o.dep_ == "pobj" and o.pos_ in ("NOUN", "PROPN")):
                    yield f"'{verb.text} …' on '{below.text}', not on '{noun.text}'", _rebuilt(doc, heads={verb.i: below.i})
        elif verb.dep_ == "advcl" and verb.head.dep_ in ("xcomp", "ccomp", "conj") and verb.head.head.pos_ == "VERB":
            above = verb.head.head
            yield f"'{verb.text} …' on '{above.text}', not on '{verb.head.text}'", _rebuilt(doc, heads={verb.i: above.i})


RELABELS = {"ADHIKARANA_SPATIAL": "ADHIKARANA_TEMPORAL"}
PROMOTIONS = {"TIME": "ADHIKARANA_TEMPORAL", "PLACE": "ADHIKARANA_SPATIAL"}


def relabelled(kriyas: list[dict[str, Any]]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each role span under its other plausible label, and each time or place clause as the action's kāraka."""
    for n, item in enumerate(kriyas):
        for role, value in item["karakas"].items():
            other = RELABELS.get(role)
            if other is None or other in item["karakas"]:
                continue
            for text in value if isinstance(value, list) else [value]:
                yield (f"'{text}' as {other} of '{item['verb']}', not {role}",
                       _replaced(kriyas, n, {**item, "karakas": _moved(item["karakas"], role, other, text)}))
        for kind, role in PROMOTIONS.items():
            if role in item["karakas"]:
                continue
            for text in (item.get("adjuncts") or {}).get(kind, []):
                yield (f"'{text}' as {role} of '{item['verb']}'",
                       _replaced(kriyas, n, {**item, "karakas": {**item["karakas"], role: text}}))


def _replaced(kriyas: list[dict[str, Any]], n: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    return [*kriyas[:n], item, *kriyas[n + 1:]]


def _moved(karakas: dict[str, Any], role: str, other: str, text: str) -> dict[str, Any]:
    out = dict(karakas)
    value = out.pop(role)
    rest = [v for v in (value if isinstance(value, list) else [value]) if v != text]
    if rest:
        out[role] = rest[0] if len(rest) == 1 else rest
    out[other] = text
    return out


# Kinds in the order they are offered: on 200 QA-SRL wikinews dev sentences a time clause made the
# action's time was right as often as wrong, a moved phrase one time in three; on 400 (wikinews and
# wikipedia) a clause on another head was better 13 times and worse 4 in 58 (see the README).
ORDER = ("time", "label", "place", "subject", "clause", "attachment")


def readings(doc: Doc, kriyas: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Other analyses of one parsed sentence whose analysis is ``kriyas``: ``(what changed, kriyas)``, distinct."""
    found: list[tuple[int, int, str, list[dict[str, Any]]]] = []
    for kind, changes in (("attachment", _attachments(doc)), ("label", _labels(doc)), ("subject", _subjects(doc)),
                          ("clause", _clauses(doc))):
        for what, changed in changes:
            if changed is not None:
                found.append((ORDER.index(kind), _position(what, doc), what, analyze_doc(changed)))
    for what, other in relabelled(kriyas):
        kind = "time" if "ADHIKARANA_TEMPORAL of" in what else "place" if "ADHIKARANA_SPATIAL of" in what else "label"
        found.append((ORDER.index(kind), _position(what, doc), what, other))
    seen, out = {_key(kriyas)}, []
    for _, _, what, other in sorted(found, key=lambda f: (f[0], f[1])):
        key = _key(other)
        if key not in seen:
            seen.add(key)
            out.append((what, other))
    return out


OFFERED = 4  # two attempts of GSV-Retry, two readings each


def for_loop(lines: dict[int, str], analysis: dict[str, Any], limit: int = OFFERED,
             docs: dict[int, Doc] | None = None) -> list[dict[str, Any]]:
    """The loop's ``alternatives`` for a window of numbered sentences and the parser's analysis of it.

    ``docs`` are the parses the analysis was made from (parsed here when not given).
    """
    if docs is None:
        numbers = sorted(lines)
        docs = dict(zip(numbers, parse_many(lines[n] for n in numbers), strict=True))
    return [{"what": what, "data": data} for what, data in alternatives(docs, analysis, limit)]


def alternatives(docs: dict[int, Doc], analysis: dict[str, Any], limit: int) -> list[tuple[str, dict[str, Any]]]:
    """Up to ``limit`` other analyses of a window (``analyze_window``'s), each changing one line's reading.

    Each is ``(what changed, candidate)`` with the candidate in the seed's schema (``seed_candidate``).
    """
    by_line: dict[int, list[dict[str, Any]]] = {}
    for item in analysis["kriyas"]:
        by_line.setdefault(item["line"], []).append(item)
    options: list[tuple[int, str, int, list[dict[str, Any]]]] = []
    for number, doc in docs.items():
        for rank, (what, kriyas) in enumerate(readings(doc, [_bare(k) for k in by_line.get(number, [])])):
            options.append((rank, what, number, kriyas))
    out = []
    for _, what, number, kriyas in sorted(options, key=lambda o: (o[0], o[2]))[:limit]:
        lines = {**by_line, number: [{**k, "line": number} for k in kriyas]}
        out.append((f"line {number}: {what}" if len(docs) > 1 else what,
                    seed_candidate({"kriyas": [k for n in sorted(lines) for k in lines[n]]})))
    return out


def _bare(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k != "line"}


def _position(what: str, doc: Doc) -> int:
    """Where the first quoted word of a change stands in the sentence (for sentence order)."""
    word = what.split("'")[1].split()[0] if what.count("'") >= 2 and what.split("'")[1] else ""
    return next((t.i for t in doc if t.text == word), len(doc))


def _key(kriyas: list[dict[str, Any]]) -> str:
    return repr([(k["verb"], sorted((r, str(v)) for r, v in k["karakas"].items())) for k in kriyas])
