"""The shape of a code token (a flag, a path, a variable, a call, a name), and when a line calls one by the noun asked about."""

from __future__ import annotations

import re

from karaka.answering.kinds import ARTEFACT_SHAPES
from karaka.answering.question import Asked
from karaka.words import VARIABLE_NAME

LITERAL = re.compile(r"(?<![\w-])(None|True|False|null|nil|\"[^\"]{0,40}\"|'[^']{1,40}')(?![\w-])")
"""Literal values: what "what value does X give" may be answered by."""


ADDRESS = re.compile(r"(?<![\w.@-])(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://[^\s<>\"')\]]+|www\.[\w-]+(?:\.[\w-]+)+"
                     r"[^\s<>\"')\]]*)")
"""An e-mail address or a web address."""


def code_shape(token: str) -> str:
    """The shape of a code token: ``address``, ``flag``, ``variable``, ``path``, ``call``, ``number`` (a literal) or ``name``."""
    if re.fullmatch(r"\d+(?:[.,]\d+)*|true|false|null|nil|none|undefined", token, re.IGNORECASE):
        return "number"  # "set it to `1`", "if `false`": a literal value, no name of anything
    if ADDRESS.fullmatch(token):
        return "address"
    if re.match(r"--?[A-Za-z]", token):
        return "flag"
    if re.fullmatch(VARIABLE_NAME, token) or token.startswith("$"):
        return "variable"
    if "/" in token or token.startswith(".") or re.search(r"\.(?:[a-z]{1,5}|<[\w-]+>|%\w)$", token) and not token.endswith("()"):  # "x.<pid>"
        return "path"  # a dotfile (".netrc") too
    if token.endswith("()") or "." in token:
        return "call"
    return "name"


def fits_shape(asked: str, shape: str, token: str = "") -> bool:
    """Whether a token of ``shape`` is of the shape a question asks for (``asked``: "flag", "path", "command"…)."""
    if not asked:
        return True
    if asked == "name":  # a format, a class, a key: a file's name, an option or an address is none of them
        return shape not in ("path", "flag", "address", "number")
    if asked == "command":  # a program's name or where programs lie ("/usr/bin/gzip"): no data path nor option
        return shape == "name" or shape == "path" and bool(re.search(r"(?:^|/)(?:s?bin|libexec)/[^/]+$|^\./\S", token))
    dotted = shape in ("call", "path") and "/" not in token and not token.endswith("()") and not token.startswith(".")
    if asked == "call":  # "heron.dump" may look like a file's name ("x.dump"): a dotted name may be a call;
        return (shape in ("call", "name") or dotted) and "=" not in token and (  # "indent=2" is an argument,
            " " not in token.strip() or "(" in token)  # "mode <boolean>" a parameter and its type
    if asked == "variable":  # a configuration variable is often dotted: "diff.relative", "user.name"
        return (shape in ("variable", "name") or dotted) and " " not in token.strip()  # "gull-show status" is a command
    if asked == "flag":  # a command-line flag, or a configuration option ("fetch.writeCommitGraph")
        return shape == "flag" or dotted
    return shape == asked


def called(asked: Asked, text: str, start: int, end: int) -> bool:
    """Whether the line calls the code at ``start:end`` by the noun asked about: "the `FIN` flag", "option `x`".

    Then it is one, whatever its shape (a flag need not start with a dash when the text says it is
    a flag), and whatever words it shares with the question ("the `keys()` method" for "which
    method returns the keys?"); so is "a file called .cache" a file.
    """
    noun = re.escape(asked.focus_text)
    return bool(noun) and bool(_calling(noun, text, start, end))


def _calling(noun: str, text: str, start: int, end: int) -> list[str]:
    """The words of pattern ``noun`` the line calls the code at ``start:end`` by, before it, then after it.

    "option `x`", "a file called .cache"; "the `FIN` flag", "the `keys()` methods".
    """
    before = re.search(rf"\b({noun})\s+(?:called\s+|named\s+)?[`'\"]?$", text[:start], re.IGNORECASE)
    after = re.match(rf"(?:\(\))?[`'\"]?\s+({noun})s?\b", text[end:], re.IGNORECASE)
    if after and re.fullmatch(r"[a-z]+", text[start:end]) and not _DETERMINED.search(text[:start]):
        after = None  # "finger(1) and similar programs": a plain word before a noun, with no "the", describes it
    return [found.group(1).lower() for found in (before, after) if found]


_DETERMINED = re.compile(r"(?:\b(?:the|a|an|this|that|its|their|your|our|each|every|which)|'s|[`'\"])\s*$", re.IGNORECASE)
"""What stands before a word a noun after it calls so: "the keyring library", "Python's netrc module", "`x` flag"."""


_ARTEFACTS = "|".join(sorted(map(re.escape, ARTEFACT_SHAPES), key=len, reverse=True))


def called_otherwise(asked: Asked, text: str, start: int, end: int) -> str:
    """The artefact noun the line calls the code at ``start:end`` by, where it names another shape than asked; else "".

    "a new file called TRANSPORTtrans.c" says it is a file: no answer to "which function …?", whatever
    its shape might pass for; "the `keys()` method" is a function still (both are called so).
    """
    if not asked.shape:
        return ""
    return next((noun for noun in _calling(_ARTEFACTS, text, start, end)
                 if ARTEFACT_SHAPES[noun] != asked.shape and noun != asked.focus_text.lower()), "")
