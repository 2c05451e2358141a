"""A chapter's summary: its parts, and the check of each sentence against the lines it cites (made-up lines)."""

import json

from karaka.answering.summary import MAX_PARTS, PART_CHARS, checked, parts
from karaka.store.base import SourceLine


def lines(*texts):
    return tuple(SourceLine(seq=n, line=n, sentence=0, text=t) for n, t in enumerate(texts, 1))


def test_parts_hold_consecutive_lines_up_to_the_size_and_stop_at_the_most_parts():
    long = lines(*(f"Line {n} " + "x" * 1400 for n in range(40)))
    split = parts(long)
    assert len(split) == MAX_PARTS and split[0] == [0, 1] and split[1] == [2, 3]
    assert all(sum(len(long[i].text) for i in p) <= PART_CHARS for p in split)
    assert parts(lines("One.", "Two.")) == [[0, 1]]


def test_a_sentence_stands_only_on_its_own_lines():
    chapter = lines("Ilse sold the mill in 1820.", "The river froze that winter.", "Her brother Jon left for Riga.")
    reply = json.dumps({"sentences": [
        {"text": "Ilse sold the mill in 1820.", "lines": [1]},
        {"text": "Jon left for Riga in 1820.", "lines": [3]},     # the year is in line 1, not in line 3
        {"text": "The river froze and Jon left.", "lines": [2, 3, 9]}]})
    told, dropped = checked(reply, [0, 1, 2], chapter)
    assert [(t.text, t.lines) for t in told] == [("Ilse sold the mill in 1820.", [0]),
                                                 ("The river froze and Jon left.", [1, 2])]
    assert dropped == ["'Jon left for Riga in 1820.' states '1820', not in its lines"]
    nothing = json.dumps({"sentences": [{"text": "The river froze.", "lines": []},
                                        {"text": "Then Anselm crossed the ice.", "lines": [2]}]})
    told, dropped = checked(nothing, [0, 1, 2], chapter)
    assert told == [] and dropped[0] == "'The river froze.' cites none of its lines" and "'Anselm'" in dropped[1]
    assert checked("no json here", [0], chapter) == ([], ["a reply was not JSON"])


def test_a_sentence_that_tells_other_things_than_its_lines_does_not_stand():
    chapter = lines("Ilse sold the mill in 1820.", "The river froze that winter.")
    reply = json.dumps({"sentences": [{"text": "Ilse sells her mill.", "lines": [1]},
                                      {"text": "One sentence of what happens, from the lines.", "lines": [2]}]})
    told, dropped = checked(reply, [0, 1], chapter)
    assert [t.text for t in told] == ["Ilse sells her mill."]
    assert dropped == ["'One sentence of what happens, from the lines.' tells too little of its lines"]
