"""Match keys of words: a crude stem, and when two keys are one word in two forms ("released", "release")."""

from __future__ import annotations

import re

_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly", "ment", "ments")

_ACRONYM_PLURAL = re.compile(r"[A-Z][A-Z0-9]+s")
"""An acronym's plural: "CPUs", "URLs", "IDs"."""


def key(word: str) -> str:
    """A word's match key: lower-cased, a crude stem (``released`` → ``releas``, ``mapping`` → ``map``)."""
    w = word.lower().strip("'’`.,;:()[]{}\"")
    if _ACRONYM_PLURAL.fullmatch(word.strip("'’`.,;:()[]{}\"")):
        return w[:-1]  # "CPUs" is "cpu" ("status" keeps its s, "CPUs" loses it)
    if len(w) <= 3 or not w.isalpha():
        return w
    for suffix in _SUFFIXES:
        if suffix == "s" and w.endswith(("ss", "us", "is")):
            continue  # "class", "status", "analysis"
        if suffix == "es" and not w[:-2].endswith(("s", "x", "z", "ch", "sh")):
            continue  # "boxes" loses "es", "files" only its "s"
        if len(w) - len(suffix) >= 3 and w.endswith(suffix):
            stem = w[: -len(suffix)]
            if suffix in ("ing", "ed", "ings") and len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
                stem = stem[:-1]  # mapping, mapped → map
            if suffix == "ies":
                stem += "y"
            return _without_e(stem)
    return _without_e(w)


def _without_e(stem: str) -> str:
    """A stem without its final e's ("release" → "releas"), but a doubled one stays: "employee" is no "employ"."""
    return stem.rstrip("e") if len(stem) > 4 and not stem.endswith("ee") else stem


def same(a: str, b: str) -> bool:
    """Whether two match keys are one word in two forms: equal, or one the other plus a short ending.

    A final "i" is a "y" ("retri", from a tagger's lemma "retrie", is "retry").
    """
    a, b = (x[:-1] + "y" if x.endswith("i") else x for x in (a, b))
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    if long_ == short + "s":
        return True  # a name kept whole ("macos") and its key ("maco"): ``key`` takes the s off as well
    if len(short) < 5 or not long_.startswith(short[: max(5, int(0.75 * len(short)))]):
        return False
    common = next((i for i, (x, y) in enumerate(zip(short, long_, strict=False)) if x != y), len(short))
    if any(x.endswith("ee") and y.endswith(("er", "or")) and x[:-2] == y[:-2] for x, y in ((a, b), (b, a))):
        return False  # the employer is not the employee, the lessor not the lessee
    return common >= max(5, int(0.75 * len(short))) and len(long_) - common <= 5
