"""The language of a question, from its words, and the question forms other languages write alike."""

from __future__ import annotations

import re


def language(question: str) -> str:
    """The question's language: ``en`` unless its words are mostly those of French, German or Spanish."""
    words = re.findall(r"[^\W\d_]+", question.lower())
    counts = {"fr": 0, "de": 0, "es": 0, "en": 0}
    marks = {
        "fr": "le la les de des du est que qui quel quelle quels quelles dans pour une sur où pourquoi comment combien "
              "quand il elle lequel laquelle au aux avec par sont peut doit ce cette ces fait signifie veut",
        "de": "der die das den dem des ist sind wird werden wurde wurden wer wie welche welcher welches wann wo "
              "warum und mit von eine einen nicht im auf für sich zu bei aus nach über oder auch als soll sollen "
              "kann können muss müssen man es bedeutet bedeuten macht machen gibt geben hat haben heißt tut steht "
              "enthält",
        "es": "el los las es qué cuál cuándo dónde cómo quién por para una del con",
        "en": "the is are was were what which who when where why how does do did of in on to a an for with by",
    }
    for lang, text in marks.items():
        counts[lang] = sum(w in text.split() or _FIRST_WORDS.get(w) == lang for w in words)  # "mit welchem …"
    counts["de"] += sum(any(c in w for c in "äöüß") for w in words)  # letters English never writes
    if words and words[0] in _FIRST_WORDS:  # a question that opens with its language's question word
        counts[_FIRST_WORDS[words[0]]] += 2
    elif words[:1] == ["was"] and len(words) > 1 and words[1] in marks["de"].split():
        counts["de"] += 2  # "Was bedeutet …", "Was ist …": "was" opens an English question only before a subject
    best = max(counts, key=lambda lang: counts[lang])
    return best if best != "en" and counts[best] >= 2 and counts[best] > counts["en"] else "en"


_FIRST_WORDS = {**dict.fromkeys("que qui quoi quel quelle quels quelles lequel laquelle quand où pourquoi comment combien "
                                 "est-ce".split(), "fr"),
                **dict.fromkeys("wer wen wem wessen welcher welche welches welchen welchem wann wo wohin woher warum "
                                "weshalb wieso wie wofür wozu womit worauf woran".split(), "de"),
                **dict.fromkeys("quién quiénes cuál cuáles cuándo dónde cómo cuánto cuántos cuánta cuántas "
                                "qué".split(), "es")}
"""Question words that open a question in French, German or Spanish (and nowhere in an English one)."""


DEFINES_ELSEWHERE = re.compile(r"^\s*(?:was\s+(?:bedeutet|bedeuten|macht|tut|bewirkt)\s+(?:der|die|das|den)?|"
                                r"que\s+(?:fait|signifie|veut\s+dire)\s+(?:le|la|les|l')?|"
                                r"qué\s+(?:hace|significa)\s+(?:el|la|los|las)?)\s*(.+?)\s*\?*\s*$", re.IGNORECASE)
"""The same question in German, French or Spanish: "Was macht die Option -k?", "Que fait l'option -k ?"."""


NEGATIONS = frozenset("not never no nicht nie kein keine keinen keinem keiner keines ne pas jamais aucun aucune nunca "
                      "ningún ninguna".split())
"""Words that deny an action, in English, German, French and Spanish ("no" is Spanish "not" as well)."""


def denies(text: str) -> bool:
    """Whether a text holds a word that denies an action ("nicht", "ne … pas", "never", "n't")."""
    return "n't" in text.lower() or any(w in NEGATIONS for w in re.findall(r"[^\W\d_]+", text.lower()))
