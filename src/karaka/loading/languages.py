"""Which language a document is in: by script for CJK and others, by common words for Latin text.

Cheap and enough to decide whether the English parser may read a document, and to tell the user
which documents were indexed without being parsed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

_COMMON = {
    "en": "the and of to is in that it for with as was on are be this by not or from",
    "fr": "le la les de des et est un une du que qui pour dans pas sur au avec ce il",
    "de": "der die das und ist nicht ein eine zu den mit sich des auf für im dem von",
    "es": "el la los las de y que en un una es por con para del se no al lo",
    "it": "il di che la è per un una non in con del sono le gli della si da",
    "pt": "o a os as de que e do da em um uma para com não no na se por",
    "nl": "de het een en van is dat op te in zijn niet met voor die er als",
}
_WORDS = {lang: frozenset(words.split()) for lang, words in _COMMON.items()}
_SCRIPTS = (("ja", re.compile(r"[\u3040-\u30ff]")), ("zh", re.compile(r"[\u4e00-\u9fff]")),
            ("ko", re.compile(r"[\uac00-\ud7af]")), ("ru", re.compile(r"[\u0400-\u04ff]")),
            ("ar", re.compile(r"[\u0600-\u06ff]")), ("hi", re.compile(r"[\u0900-\u097f]")),
            ("el", re.compile(r"[\u0370-\u03ff]")), ("he", re.compile(r"[\u0590-\u05ff]")))
NAMES = {"en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
         "nl": "Dutch", "ja": "Japanese", "zh": "Chinese", "ko": "Korean", "ru": "Russian", "ar": "Arabic",
         "hi": "Hindi", "el": "Greek", "he": "Hebrew"}


FOREIGN_EVIDENCE = 8
"""Common words a text needs (and twice English's) to be called another Latin-script language."""


def detect(texts: Iterable[str], sample: int = 20000) -> str:
    """The language code of a text ("" when there is too little to tell)."""
    text = ""
    for piece in texts:
        text += piece[:sample] + "\n"  # a sample: a 50 MB line is not read whole
        if len(text) >= sample:
            break
    letters = sum(ch.isalpha() for ch in text)
    if letters < 20:
        return ""
    for lang, script in _SCRIPTS:  # Japanese before Chinese: kana say Japanese even among kanji
        if len(script.findall(text)) >= 0.2 * letters or (lang == "ja" and len(script.findall(text)) >= 0.05 * letters):
            return lang
    words = Counter(re.findall(r"[^\W\d_]+", text.lower()))
    scores = {lang: sum(words[w] for w in common) for lang, common in _WORDS.items()}
    best = max(scores, key=lambda lang: scores[lang])
    if best != "en" and (scores[best] < FOREIGN_EVIDENCE or scores[best] < 2 * scores["en"]):
        best = "en"  # a foreign title over a short English text ("El Festín de Satanás is a 1958 film") stays English
    return best if scores[best] >= 3 else ""
