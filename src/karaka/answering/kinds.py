"""The kinds of answer a question can ask for, and the general words that say which.

A question says what it wants with its question word ("when" wants a date) or, after "which"
or "what", with the noun it asks about ("which option" wants a flag, "what year" a date). The
lists below are closed classes of English (and the question words of French, German and Spanish),
each with what it is for; none holds a word because one question used it. ``kind_of_focus``
reads a focus noun's kind off them.
"""

from __future__ import annotations

import re
from typing import Any

from karaka.nlp.lexicon import names_people

QUANTITY, DATE, NAME, PLACE, REASON, MANNER, CODE, VERSION, VALUE, TERM = (
    "quantity", "date", "name", "place", "reason", "manner", "code", "version", "value", "term")
POLAR = "polar"
"""A yes-or-no question ("Did Senna dwell in Orrin?"): answered "Yes" or "No" by a line that says so."""

WH_WORDS = {
    # English
    "who": "who", "whom": "who", "whose": "who", "what": "what", "which": "which", "when": "when",
    "where": "where", "why": "why", "how": "how",
    # French
    "qui": "who", "quoi": "what", "que": "what", "quel": "which", "quelle": "which", "quels": "which",
    "quelles": "which", "lequel": "which", "laquelle": "which", "quand": "when", "où": "where",
    "pourquoi": "why", "comment": "how", "combien": "how many",
    # German
    "wer": "who", "wen": "who", "wem": "who", "wessen": "who", "was": "what", "welcher": "which",
    "welche": "which", "welches": "which", "welchen": "which", "welchem": "which", "wann": "when",
    "wo": "where", "wohin": "where", "woher": "where", "warum": "why", "weshalb": "why", "wieso": "why",
    "wie": "how", "wofür": "what", "wozu": "why", "womit": "how",
    # Spanish
    "quién": "who", "quiénes": "who", "qué": "what", "cuál": "which", "cuáles": "which", "cuándo": "when",
    "dónde": "where", "por qué": "why", "cómo": "how", "cuánto": "how many", "cuántos": "how many",
    "cuánta": "how many", "cuántas": "how many",
}
"""Question words and the English one each stands for. "was" is German only where the question is German."""

DEGREE_AFTER_HOW = frozenset(
    "many much long old far big large small high low wide deep fast slow often frequently soon early late "
    "heavy tall short strong hot cold viele viel lange alt groß hoch weit oft schnell".split())
"""Adjectives and adverbs after "how" (or German "wie") that ask for an amount: "how long", "wie viele"."""

COUNTING_AFTER_HOW = frozenset(("many", "viele"))
"""Of those, the ones that count the noun after them ("wie viele Teile"); the others measure it ("wie groß ist die
Teilgröße", "how much memory"): its answer is a size or a time, in any unit."""

TIME_NOUNS = frozenset(
    "year date day month time century decade week era period season hour morning evening night weekday".split())
"""Nouns after "which/what" that ask for a date or a time: "in what year", "on which day"."""
FOREIGN_TIME_NOUNS = frozenset("jahr datum tag monat zeit année date jour mois heure siècle año fecha día mes".split())
"""The same in German, French and Spanish, for questions in those languages only ("text between which tags")."""

MEASURE_NOUNS = frozenset("""
number amount count total quantity size length width height depth weight volume area distance duration
delay latency interval timeout period age rate ratio percentage percent proportion share frequency speed
bitrate throughput bandwidth capacity limit maximum minimum max min level price cost fee score
temperature pressure resolution precision accuracy overhead population
anzahl zahl größe länge breite höhe dauer grenze menge intervall verzögerung zeitüberschreitung alter rate
anteil häufigkeit geschwindigkeit kapazität maximum minimum stufe preis kosten temperatur gewicht tiefe
nombre taille longueur durée taux limite quantité
""".split())
"""Nouns after "which/what" (or a copula's subject) that name a measured amount: their answer is a number."""

DIMENSIONS = frozenset("""
length width height depth weight volume area distance duration delay latency interval timeout period age
speed bitrate throughput bandwidth temperature pressure frequency rate
länge breite höhe dauer intervall verzögerung zeitüberschreitung alter geschwindigkeit häufigkeit temperatur
gewicht tiefe longueur durée taille vitesse
""".split())
"""Measure nouns of a physical dimension, measured in units ("14 knots", "3 seconds"), never by a count of
things: "14 passengers" is no speed. (A limit, a total or a size may count anything: "up to 8 Developers".)"""

VERSION_NOUNS = frozenset("version release revision edition versión fassung".split())
"""Nouns whose answer is a version number."""

PLACE_NOUNS = frozenset(
    "place country city town village region state province county location site land island continent "
    "street building capital kingdom area ort stadt land pays ville lieu lugar ciudad país".split())
"""Nouns whose answer is a place."""

ARTEFACT_SHAPES = {
    "option": "flag", "flag": "flag", "switch": "flag", "argument": "flag", "parameter": "flag",
    "variable": "variable", "macro": "variable", "constant": "variable",
    "file": "path", "path": "path", "directory": "path", "folder": "path", "filename": "path",
    "extension": "path", "suffix": "path",
    "command": "command", "program": "command", "tool": "command", "utility": "command", "executable": "command",
    "binary": "command", "script": "command", "subcommand": "command",
    "function": "call", "module": "call", "package": "call", "library": "call", "method": "call",
    "exception": "name", "class": "name",
    "attribute": "name", "field": "name", "key": "name", "directive": "name",
    "keyword": "name", "property": "name", "handler": "name", "hook": "name", "format": "name",
    "encoding": "name", "protocol": "name",
    "address": "address", "email": "address", "e-mail": "address", "url": "address", "website": "address",
    "homepage": "address", "adresse": "address", "webseite": "address", "courriel": "address",
    # French and German
    "commande": "command", "programme": "command", "fichier": "path", "répertoire": "path",
    "befehl": "command", "programm": "command", "datei": "path", "verzeichnis": "path", "pfad": "path",
    "endung": "path", "schalter": "flag", "paramètre": "flag",
}
"""Nouns naming a software artefact, and the shape of the token that names one.

"Which option" is answered by a flag (``--quiet``), "which environment variable" by a name in
capitals (``CACHE_DIR``), "which file" by a path or a file name, "which function" by a call
name; a question about such a thing is not answered by a token of another shape."""

NAME_NOUNS = frozenset(
    "author authors maintainer developer company organisation organization person people team group vendor "
    "publisher creator founder owner inventor designer writer editor translator".split())
"""Nouns after "which/what" that ask for a name (besides the people nouns of ``nlp.lexicon``)."""

AUTHORING_VERBS = frozenset("write author create compose".split())
"""Verbs a line of bare names says by where it stands (a title page's "Ann Lee" wrote it); any other action
("who translated …?", "who led …?") a line of names alone does not say."""

AUTHORING_NOUNS = frozenset("author authors writer creator composer".split())
"""Who did an authoring verb, named by a noun: "who is the author of the manual?" is "who wrote it?"."""

CALLED_NOUNS = frozenset("name names title nickname surname".split())
"""Nouns that ask what a thing is called: answered by a proper name, a number or a quoted or code word, never by
a description of the name ("a wicked name")."""

VALUE_NOUNS = frozenset("value setting wert valeur valor".split())
"""Nouns whose answer is a value of any shape: a number, a literal (``None``, ``true``), a quoted string or a token."""

DEFAULT_WORDS = frozenset("default defaults standard voreinstellung standardwert vorgabe vorgabewert standardmäßig "
                          "voreingestellt voreingestellte voreingestellten défaut predeterminado".split())
"""Words that ask for a default value: its answer is the value said to be the default, not the thing's name."""

DOCUMENT_WORDS = frozenset("manual page readme guide documentation docs changelog reference handbook notes "
                           "specification spec faq".split())
"""Words a question uses for the document it asks about ("according to its manual page"): soft terms, matched
by the document's name as well as by its lines."""

EXCLUDING = frozenset("without except excluding besides sans ohne".split())
"""Prepositions whose object the answer leaves out ("install only the library, without its utility")."""

SPATIAL = frozenset("in into inside within at on onto upon to toward towards from near by beside beyond across "
                    "through throughout along around over under above below behind outside".split())
"""Prepositions that open a place or a direction: "to hospital", "beyond national borders"."""


CAUSATIVES = frozenset("make let help cause allow enable force get".split())
"""Verbs that hand the action on to the verb they govern ("which option makes it use …" asks about using)."""

KIND_NOUNS = frozenset("kind type sort form variety art".split())
"""Nouns of "what kind of X": the question asks for an X."""

BOUNDS = {
    "minimum": r"\bat least\b|\bor (?:later|newer|higher|above|more|greater)\b|\bat minimum\b|\bminimum\b",
    "maximum": r"\bat most\b|\bup to\b|\bno more than\b|\bor (?:fewer|less|lower|below)\b|\bmaximum\b",
}
"""How a line says a lower or an upper bound: "version 2 or later" is a minimum, "up to 8" a maximum."""

TEMPORAL = frozenset("in on at by since until till during before after from to within around circa".split())
"""Prepositions that open a time: "in 1935", "by 1563", "since 2011"."""

COUNT_NOUNS = frozenset("number count amount total quantity anzahl zahl nombre".split())
"""Measure nouns that count what their "of" names: "the number of tables" counts tables."""


PURPOSE_NOUNS = frozenset("purpose aim goal zweck but objectif propósito".split())
"""Nouns that ask what something is for: "what is the purpose of compaction?" is answered as "why …?" is."""

CALLED = re.compile(r"\b(?:called|named|termed|known\s+as)\s*\?*\s*$", re.IGNORECASE)
"""A question that asks what something is called: its answer is the name, whatever the noun asked about is."""
NAMED_HOW = re.compile(r"\b(?:benannt|genannt|bezeichnet|heißt|heißen|heisst|heissen)\b", re.IGNORECASE)
"""After "wie", a word that asks for the name, not a way: "wie heißt die Datei?", "wie werden die Teile benannt?"
(English "how are the crates named?" may ask how the naming is done, "how is it called?" how a function is invoked)."""
USED_FOR = re.compile(r"\bused\s+for\s*\?*\s*$|^\s*what\s+(?:is|are|was|were)\s+(?!.*\b\w+ing\s+for\b)\S.*\s+for\s*\?*\s*$",
                      re.IGNORECASE)
"""A question ending "… used for?" asks a purpose, as "why …?" does; so does "what is X (a tool) for?", where the
copula leaves "for" nothing to take but the purpose ("what did she ask for?", "what are you looking for?" ask a thing)."""

KEY_VERBS = frozenset("mean indicate signify denote represent stand".split())
"""Verbs that ask what an entry's key stands for, or which key stands for a description: a list under a heading
("EXIT STATUS", "3  The index is locked") says it by its layout, with no verb."""


def default_kind(kind: str, focus: str) -> str:
    """The kind a question about a default asks for: a value, named or a number.

    "The log level defaults to `info`", "the paper size defaults to a4": a level or a size may be named. A
    default of a dimension or a count ("the default timeout", "the default number of threads") or one that
    is counted ("how many retries by default?") is measured.
    """
    if kind == TERM or kind == QUANTITY and focus.lower() in MEASURE_NOUNS - DIMENSIONS - COUNT_NOUNS:
        return VALUE
    return kind


def kind_of_focus(focus: str, lemma: str, lang: str = "en") -> tuple[str, str]:
    """(kind, shape) asked by a focus noun; a German compound by its last noun ("Umgebungsvariable": variable)."""
    word = lemma.lower()
    if lang == "de":
        for start in range(len(word) - 4, 0, -1):
            kind, shape = kind_of_focus(word[start:], word[start:], lang)
            if kind != TERM:
                return kind, shape
    if word in TIME_NOUNS or lang != "en" and word in FOREIGN_TIME_NOUNS:
        return DATE, ""
    if word in PURPOSE_NOUNS:
        return REASON, ""
    if word in VERSION_NOUNS:
        return VERSION, ""
    if word in VALUE_NOUNS:
        return VALUE, ""
    if word in MEASURE_NOUNS:
        return QUANTITY, ""
    if word in PLACE_NOUNS:
        return PLACE, ""
    if word in ARTEFACT_SHAPES:
        return CODE, ARTEFACT_SHAPES[word]
    if word in NAME_NOUNS or names_people(word) in ("person", "group"):
        return NAME, ""
    return TERM, ""


def names_document(tokens: Any, i: int) -> bool:
    """Whether a question's "text" is the document it asks of, as "manual" is.

    "the licence text", "the GPL version 3 text", "the text of the GPL" are; text it speaks of is not
    ("Text between which tags …?", "the text colour", "the long text").
    """
    word = tokens[i]
    if word.lower_ != "text" or word.dep_ == "compound":
        return False
    j = i - 1
    while j >= 0 and (tokens[j].pos_ in ("NOUN", "PROPN", "NUM") or tokens[j].text[:1].isupper()):  # "Tern", an ADJ
        j -= 1
    named = j < i - 1 and j >= 0 and tokens[j].lower_ in ("the", "this", "its")
    return named or i + 1 < len(tokens) and tokens[i + 1].lower_ == "of" and i > 0 and tokens[i - 1].lower_ == "the"
