"""A sentence with inline code in backticks, parsed with one plain name in place of each piece of code.

Markdown marks code with backticks ("The `ACK` flag marks a frame."), and the small model reads a
backtick as a quotation mark that breaks the phrase around it: "`ACK` flag marks" becomes one noun
phrase whose head is "marks", with no verb and no action; the words inside ("`make install`",
"`ospenc --mode nb`") it parses as English, with verbs of their own. Code in running text is a
name, so the sentence is parsed again with one made-up name in place of each piece of code ("The
Zed flag marks a frame."), and that parse is given back over the sentence's own words: the code's
first word takes the name's place in the parse, the rest of the code ("flat": words of one name) and its
backticks hang on it.
"""

from __future__ import annotations

from typing import Any

TICK = "`"
STAND_IN = "Zed"
"""A name the small model reads as a proper noun wherever a name can stand (subject, object, modifier of a
noun, after a preposition), and that no text gives a meaning of its own to."""


def read_unticked(doc: Any, model: Any) -> Any:
    """``doc``, or its parse with a name in place of each piece of code in backticks, over its own words."""
    ticks = [t.i for t in doc if t.text == TICK]
    pairs = [(ticks[n], ticks[n + 1]) for n in range(0, len(ticks) - 1, 2) if ticks[n + 1] > ticks[n] + 1]
    if not pairs:
        return doc
    from spacy.tokens import Doc

    code = {i: start + 1 for start, end in pairs for i in range(start, end + 1)}  # each word → the code's first
    kept = [t for t in doc if code.get(t.i, t.i) == t.i]
    words = [STAND_IN if t.i in code else t.text for t in kept]
    ends = {start + 1: end for start, end in pairs}  # the code's first word → its closing backtick
    spaces = [bool(doc[ends.get(t.i, t.i)].whitespace_) for t in kept]
    other = Doc(model.vocab, words=words, spaces=spaces)
    for _, component in model.pipeline:
        other = component(other)
    place = {t.i: n for n, t in enumerate(kept)}
    heads, deps, tags, pos, lemmas, morphs, ents = [], [], [], [], [], [], []
    for token in doc:
        if token.i in code and token.i != code[token.i]:  # a backtick or a later word of the code
            heads.append(code[token.i])
            deps.append("punct" if token.text == TICK else "flat")  # UD's word of a name of many words
            tags.append("``" if token.text == TICK else "XX")
            pos.append("PUNCT" if token.text == TICK else "X")
            lemmas.append(token.text)
            morphs.append("")
            ents.append("O")
            continue
        word = other[place[token.i]]
        heads.append(kept[word.head.i].i)
        deps.append(word.dep_)
        tags.append(word.tag_)
        pos.append(word.pos_)
        lemmas.append(token.text if token.i in code else word.lemma_)
        morphs.append(str(word.morph))
        iob = f"{word.ent_iob_}-{word.ent_type_}" if word.ent_type_ and token.i not in code else "O"
        ents.append("B-" + iob[2:] if iob.startswith("I-") and ents[-1:] == ["O"] else iob)
    return Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc], tags=tags,
               pos=pos, lemmas=lemmas, morphs=morphs, heads=heads, deps=deps, ents=ents)
