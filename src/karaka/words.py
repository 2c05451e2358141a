"""The words every part reads text by: one tokeniser, one list of function words, one of pronouns.

The parse's checks, the store's name resolver, retrieval, the graph's traversal and the answers
split text and drop function words through this module. It imports nothing, so the store and a
cold question read it without loading the parser. The parse's own closed classes (prepositions
and their roles, marks of reasons and times) are in ``nlp/lexicon.py``; the answer kinds' words
in ``answering/kinds.py``.
"""

from __future__ import annotations

import re
from typing import Any

WORD = re.compile(r"[^\W_]+")
"""A word: a run of letters and digits. An underscore, an apostrophe or a hyphen ends it."""
VARIABLE_NAME = r"\$?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
"""An environment or configuration variable's name as code writes it: "FROBZ_LEVEL", "$FROBZ_HOME"."""


def words(text: str) -> list[str]:
    """The words of ``text`` as written (the one tokenisation of lines, spans and questions)."""
    return WORD.findall(text)


def lower_words(text: str) -> list[str]:
    """The words of ``text``, lower-cased."""
    return WORD.findall(text.lower())


_ENGLISH_FUNCTION_WORDS = """
a an the of to in on at by for with and or from into onto upon as than that this these those it its is are was
were be been being do does did done have has had having will would can could should shall may might must not no
nor there their they them he she his her him we our you your i me my mine yours which who whom whose what when
where why how if then so such any all some each every other another one both either neither about over under
between through during before after above below up down out off again further once here also only just very too
according"""
_OTHER_FUNCTION_WORDS = """
le la les l de des du un une et ou est sont à au aux en dans par pour sur avec que qui quoi ce cet cette ces il
elle ils elles on se sa son ses leur leurs ne pas plus
der die das den dem des ein eine einen einem einer und oder ist sind wird werden wurde wurden im in am an auf
aus bei mit nach von zu zum zur für über unter durch es er sie man sich nicht kein keine auch nur wie was wer
eines dass daß damit wenn ob weil als bis ohne um sowie sondern aber denn doch noch schon dann da dort hier wo
haben habe hatte hatten sein seine seiner seinen seinem war waren kann können konnte könnte darf dürfen durfte
muss müssen musste soll sollen sollte wollen wollte ich du wir ihr ihnen ihm ihn ihre ihrer ihren ihrem dies
diese dieser dieses diesem diesen jede jeder jedes jeden jedem alle allen aller welche welcher welches welchem
welchen selbst hat falls
el los las lo y o es son en por para con del al se"""

ENGLISH_LOOKALIKES = frozenset("son man die war den hat falls".split())
"""Function words of French, German or Spanish that are English nouns and verbs: French and Spanish "son"
(his; are), German "man" (one), "die" (the), "war" (was), "den" (the), "hat" (has), "falls" (if). They are what
an English text is about ("the son of Tam", "a man of war"), so they count as words there; a question in another
language drops them."""

FUNCTION_WORDS = frozenset((_ENGLISH_FUNCTION_WORDS + _OTHER_FUNCTION_WORDS).split()) - ENGLISH_LOOKALIKES
"""The stop-word list: function words of English, French, German and Spanish, never what a text is about (less
``ENGLISH_LOOKALIKES``)."""

SEARCH_STOP_WORDS = frozenset(
    "a an the of to in on at by for with and or is was were are be been being who what whom which when where why how "
    "did do does done about any all that this these those it its as from has have had not no but if than then so "
    "such there their they them he she his her him we our you your i".split()
) | frozenset("find documents document show list me lines".split())
"""What retrieval leaves out of lines and questions: English articles, pronouns, auxiliaries, question words and
the commonest prepositions, and the words of a request to the search itself ("show me the lines about …").
Narrower than ``FUNCTION_WORDS`` on purpose: particles and prepositions name a topic in technical text ("shut
down", "log out", "before a run"), and the other languages' function words weigh little by their frequency (all
of ``FUNCTION_WORDS`` cost the blind set one first cited line)."""

LIGHT_WORDS = FUNCTION_WORDS & frozenset("a an the of to in on at by for with and or from into as is was be his her "
                                         "its their".split()) | {"s"}
"""The function words a paraphrase adds or drops without changing what a phrase names ("the ring of Rama's",
"Rama's ring"): articles, the commonest prepositions, "and"/"or", the copula, possessives, a possessive's "s".
A phrase is matched, or checked against its line, by its other words."""

ARTICLES = frozenset("the a an".split())
"""The articles: never part of a name."""

PRONOUNS = frozenset(
    "he she it they him her his hers its their theirs which that who whom "
    "them i me we us you this these those himself herself itself themselves".split()
)
"""English pronouns that stand for a noun phrase (personal, possessive, relative, demonstrative, reflexive)."""

PERSONAL_PRONOUNS = frozenset("he she him her his hers who whom they them their".split())
"""Pronouns that stand for people: their antecedent is a person or a group of people."""

HUMAN_PRONOUNS = frozenset("he she him her his hers".split())
"""Pronouns that stand for one person, never a thing or a group."""

SINGULAR_PRONOUNS = frozenset("he she it him her his hers its".split())
"""Pronouns that stand for one person or thing."""

MASCULINE_PRONOUNS = frozenset("he him his himself".split())
FEMININE_PRONOUNS = frozenset("she her hers herself".split())
"""Pronouns of one gender: an entity "she" stood for is not what a later "he" stands for."""

DEICTIC_PRONOUNS = frozenset("i me my mine we us our ours you your yours this that".split())
"""Pronouns that point at the speaker, the listener or the situation, not back at a noun phrase."""

POINTING_WORDS = frozenset("following above below next previous preceding same former latter".split())
"""Words that pick a thing by where the text puts it ("the following script"), never its name."""

ANAPHORIC_PRONOUNS = PRONOUNS - DEICTIC_PRONOUNS
"""Pronouns that point back at a noun phrase named before them ("it", "they", "which")."""

AUXILIARIES = frozenset("do does did is are was were be been being has have had will would can could shall should "
                        "may might must".split())
"""Auxiliary verbs: they carry tense, mood or a question's inversion, not an action."""

LIGHT_VERBS = frozenset("be do have".split())
"""Verbs that name no action of their own in a question ("What is …", "What does X do?", "How many … have")."""

assert PERSONAL_PRONOUNS <= PRONOUNS and HUMAN_PRONOUNS <= PERSONAL_PRONOUNS and SINGULAR_PRONOUNS <= PRONOUNS


def attributive(token: Any) -> bool:
    """A function word used as a name before a noun: "the nobody user", "the none option" (parsed tokens).

    Between an article and a noun it names the thing; "the other user" (an adjective) does not.
    """
    doc, before, after = token.doc, token.i - 1, token.i + 1
    while before >= 0 and doc[before].text in _QUOTES:  # "the `nobody` UID"
        before -= 1
    while after < len(doc) and doc[after].text in _QUOTES:
        after += 1
    dropped = token.lower_ in FUNCTION_WORDS or token.pos_ == "PRON"  # what a reader of content words drops
    return dropped and token.pos_ in ("PRON", "NOUN", "PROPN") and before >= 0 and after < len(doc) and \
        doc[before].lower_ in ARTICLES and doc[after].pos_ in ("NOUN", "PROPN")


_QUOTES = frozenset("`'\"‘’“”")
