"""CAUSES links earn their place: a cue in the text, one direction, no cycle."""

import re

import pytest

from karaka.app.runner import run_ingest
from karaka.kg.enrich.decisions import link
from karaka.services import get_services
from tests.fakes import fake_context, script, write_doc
from tests.scripted import ScriptedChatModel

LINES = ("The river flooded the valley because the dam broke.", "The farmers left the valley.",
         "So the village emptied.", "Rama took the bow and settled the dispute.")


def _ingest_with_judge(tmp_path, judge):
    write_doc(tmp_path / "docs", "flood.txt", *LINES)
    ctx, _ = fake_context(tmp_path / "ws", ScriptedChatModel(script(causality_prompt=judge)))
    run_ingest(ctx, tmp_path / "docs")
    services = get_services(ctx)
    graph = services.workspace.graph
    links = [(k, t) for k in graph.nodes_of("Kriya") for t in graph.neighbors(k, "CAUSES")]
    return services, links, {(graph.node(a)["verb"], graph.node(b)["verb"]) for a, b in links}


def test_causes_need_a_cue_and_never_form_a_cycle(tmp_path):
    asked: list[str] = []

    def judge(user, n):  # yes only where the first action named is the cause the text gives
        asked.append(user)
        return '{"answer": "%s"}' % ("yes" if re.search(r"First: (break|leave) ", user) else "no")

    services, links, verbs = _ingest_with_judge(tmp_path, judge)
    assert {("leave", "empty"), ("break", "flood")} <= verbs  # "So …" links the adjacent sentence; "because" turns round
    assert any("First: empty" in q for q in asked)  # each yes was asked the other way round too
    assert not any(("take", "settle") == pair or ("settle", "take") == pair for pair in verbs)  # no cue: not asked
    assert not any("settle" in a for a in asked)
    assert not {(b, a) for a, b in links} & set(links)  # no 2-cycle
    first, second = links[0]
    assert link(services, second, first, "CAUSES", method="llm") is False  # the reverse would close a cycle
    assert first not in services.workspace.graph.neighbors(second, "CAUSES")


def test_a_judge_that_says_yes_both_ways_links_nothing(tmp_path):
    asked: list[str] = []

    def judge(user, n):
        asked.append(user)
        return '{"answer": "yes"}'

    services, links, verbs = _ingest_with_judge(tmp_path, judge)
    graph = services.workspace.graph
    judged = [e for k in graph.nodes_of("Kriya") for e in graph.edges_out(k, "CAUSES") if e.attrs.get("method") == "llm"]
    assert [q.split("\n")[2] for q in asked] == ['First: leave (line 2): "The farmers left the valley"',
                                                 'First: empty (line 3): "the village emptied"']
    assert not judged and verbs == {("break", "flood")}  # only the parse's own "because" link


def test_a_cue_links_two_actions_only_where_it_stands_between_them_and_says_which_way():
    from karaka.kg.enrich.causes import cue

    cases = [  # (sentence, (first verb, as written), (second verb, as written), 1 / -1 / 0)
        ("The river flooded the valley because the dam broke.", ("flood", "flooded"), ("break", "broke"), -1),
        ("Because the dam broke, the river flooded the valley.", ("break", "broke"), ("flood", "flooded"), 1),
        ("The dam broke, so the river flooded the valley.", ("break", "broke"), ("flood", "flooded"), 1),
        ("He used the bow to kill Ravana.", ("use", "used"), ("kill", "kill"), 1),  # purpose
        ("He wanted to go home.", ("want", "wanted"), ("go", "go"), 0),  # what is wanted, not a purpose
        ("The economy would have to grow.", ("have", "have"), ("grow", "grow"), 0),  # what is owed
        ("The reports indicate the cause of death to be unclear.", ("indicate", "indicate"), ("be", "be "), 0),
        ("Both were shot in the attack and have been recovering since May.", ("shoot", "shot"),
         ("recover", "recovering"), 0),  # the cue after both verbs links neither
        ("The minister is due to make a decision in May.", ("be", "is"), ("make", "make"), 0),  # a schedule
        ("The tour was announced, due to start in May.", ("announce", "announced"), ("start", "start"), 0),
        ("As a result, they signed the accords, known as Oslo; Israel recognized the PLO.", ("know", "known"),
         ("recognize", "recognized"), 0),  # "As a result" points back to the sentence before
        ("He said the plan has since been approved.", ("say", "said"), ("approve", "approved"), 0),  # time
        ("He lived there since 1993 and worked there.", ("live", "lived"), ("work", "worked"), 0),
        ("This is his first visit since taking office.", ("be", "is"), ("take", "taking"), 0),
        ("We know the causes of it and the steps that help.", ("know", "know"), ("help", "help"), 0),  # a noun
        ("He did not die of suicide but of natural causes, his cat sleeping on his bed.", ("die", "die"),
         ("sleep", "sleeping"), 0),
        ("He left the party since he was tired.", ("leave", "left"), ("be", "was"), -1),
        ("The damage caused by the storm was not anticipated.", ("cause", "caused"), ("anticipate", "anticipated"), 0),
        ("Because you pay later when fixing and repairing it.", ("fix", "fixing"), ("repair", "repairing"), 0),
    ]
    for sentence, (first, first_word), (second, second_word), way in cases:
        a = {"verb": first, "char": sentence.index(first_word)}
        b = {"verb": second, "char": sentence.index(second_word)}
        assert cue(sentence, a, b) == way, sentence


def test_a_purpose_to_needs_the_parse_to_hang_it_on_a_verb_not_on_a_noun():
    from karaka.kg.enrich.causes import cue
    from karaka.nlp.roles import analyze

    for sentence, (first, second), way in [
            ("He used the bow to kill Ravana.", ("use", "kill"), 1),
            ("They built a wall to keep the water out.", ("build", "keep"), 1),
            ("He was not afforded the opportunity to attend the hearing.", ("afford", "attend"), 0),  # a complement
            ("They made an attempt to climb the hill.", ("make", "climb"), 0),
            ("A decision was made to close the road.", ("make", "close"), 0),  # the parse hangs it on the verb
            ("He went to town to buy bread, and to see his mother.", ("buy", "see"), 0),  # a series
            ("Historians must struggle to filter the bias.", ("struggle", "filter"), 0),  # the verb's complement
            ("The company hired staff to handle the rush.", ("hire", "handle"), 1)]:
        kriyas = {k["verb"]: k for k in analyze(sentence)}
        assert cue(sentence, kriyas[first], kriyas[second]) == way, (sentence, kriyas)


@pytest.mark.parametrize(("sentence", "pair", "way"), [
    # the to-infinitive completes another word than the first verb
    ("The new layout makes it easy to find the settings.", ("make", "find"), 0),
    ("The parser knows how to handle broken files.", ("know", "handle"), 0),
    # a verb's complement tells no purpose ...
    ("The board voted on Monday to close the old office.", ("vote", "close"), 0),
    ("The rules forbid members to share their passwords.", ("forbid", "share"), 0),
    # ... but after a causative with its object, what the first action brought about
    ("The heavy rain caused the river to flood the valley.", ("cause", "flood"), 1),
    ("The manager was persuaded by the staff to extend the deadline.", ("persuade", "extend"), 1),
])
def test_a_purpose_to_is_put_to_the_judge_only_where_the_parse_hangs_it_on_the_first_verb(sentence, pair, way):
    from karaka.kg.enrich.causes import cue
    from karaka.nlp.roles import analyze

    kriyas = {k["verb"]: k for k in analyze(sentence)}
    assert cue(sentence, kriyas[pair[0]], kriyas[pair[1]]) == way, (sentence, kriyas)


def test_a_reason_as_needs_a_clause_subject_and_a_purpose_to_no_degree():
    from karaka.nlp.roles import analyze

    def reasons(sentence):
        return [(k["verb"], link["kind"]) for k in analyze(sentence) for link in k.get("links", [])]

    assert reasons("He left the party early, as he was tired.") == [("leave", "reason")]
    assert reasons("These rights are aspirational, as contrasted with basic rights.") == []  # a comparison
    assert reasons("The pores are too small for bacteria to pass through.") == []  # a degree, no purpose or reason
    assert reasons("As Heald told the Post, the ozone has dropped.") == []  # a citation
    assert reasons("Nobody knows who will lead the party, as the mayor declared he wants to do so.") == []
    assert reasons("A decision was made to close the road.") == []  # what was decided, not what making was for
    assert reasons("After meeting with no success in its endeavours to attain credit, SASA approached the IOC.") == []
    assert reasons("They move to a city twice the size as they worked in before.") == []  # a comparison
    assert reasons("He ran as fast as he could.") == []
    assert reasons("Units have been set up since they became available.") == []  # "since" with a perfect: time
    assert reasons("Since he was tired, he left early.") == [("leave", "reason")]
    assert reasons("They built a wall to keep the water out.") == [("build", "purpose")]


def test_a_relative_clause_is_not_where_a_cue_between_two_verbs_belongs():
    from karaka.kg.enrich.causes import cue
    from karaka.nlp.roles import analyze

    sentence = "The rights which all people possess are basic, because rights depend on wealth."
    kriyas = {k["verb"]: k for k in analyze(sentence)}
    assert kriyas["possess"]["dep"] == "relcl"
    assert cue(sentence, kriyas["possess"], kriyas["depend"]) == 0  # "because" explains "are basic"
    assert cue(sentence, kriyas["be"], kriyas["depend"]) == -1


def test_a_connective_links_a_verb_only_where_the_parse_says_it_opens_that_verbs_clause():
    # "after" and "following" tell time: of 15 such pairs in the review samples 2 were causal, and in
    # one run of benchmarks/cause_judge.py Qwen's judge said yes to 3 others, so they are no cue
    from karaka.kg.enrich.causes import cue
    from karaka.nlp.roles import analyze

    for sentence, (first, second), way in [
            ("The match was cancelled because the storm hit the town.", ("cancel", "hit"), -1),  # marks "hit"
            ("The match was cancelled after the storm hit the town.", ("cancel", "hit"), 0),  # time, not cause
            ("The roof leaked, due to construction faults; but it became a landmark.", ("leak", "become"), 0),  # a noun
            ("He read the book so often that he knew it by heart.", ("read", "know"), 1),  # so … that
            ("The airport has become popular since the opening of a terminal; the airport handled many passengers.",
             ("become", "handle"), 0),  # "since" holds a noun
            ("The police said on Monday, because reporters asked, that nobody was hurt.", ("say", "ask"), -1),
            ("He is glad he has been able to help so many people and give them hope.", ("help", "give"), 0),  # a degree
            ("After the war, when the army returned, the city was rebuilt.", ("return", "rebuild"), 0),  # fronted, a noun
            ("The plan was rejected due to the cost involved.", ("reject", "involve"), 0),  # a noun's participle
            ("The crew were carried to reclining chairs by the medics.", ("carry", "recline"), 0),  # "to" + -ing
            ("As Heald told the Post, the ozone has dropped.", ("tell", "drop"), 0)]:  # a citation
        kriyas = {k["verb"]: k for k in analyze(sentence)}
        assert cue(sentence, kriyas[first], kriyas[second]) == way, (sentence, kriyas)


def parser_links(sentence, kind=None):
    """The parser's CAUSES links of a sentence, as (from verb, to verb), optionally of one kind."""
    from karaka.nlp.roles import analyze

    kriyas = analyze(sentence)
    verb = {k["token"]: k["verb"] for k in kriyas}
    return [(verb[link["from"]], verb[link["to"]]) for k in kriyas for link in k.get("links", [])
            if kind in (None, link["kind"])]


def test_in_order_to_is_a_purpose_the_parser_links_from_the_verb_it_serves():
    assert parser_links("He rose from the dead in order to grant eternal life.", "purpose") == [("rise", "grant")]
    assert parser_links("The economy would have to grow this year in order to avoid a recession.",
                        "purpose") == [("grow", "avoid")]
    assert parser_links("He gave orders in the order to avoid delay.", "purpose") == []  # no "in order to"


def test_no_parser_link_reaches_across_a_colon_or_semicolon():
    sentence = ("Because the script is used for other texts, rendering the letters as one ligature is considered "
                "faulty: if one of the fonts is installed on a computer, the word will appear without marks.")
    assert ("use", "appear") not in parser_links(sentence)  # the parse hangs the "because" clause after the colon
    assert set(parser_links("The river flooded the town because the dam broke; the farmers left.")) == {
        ("break", "flood")}


def test_a_reason_or_purpose_clause_after_a_that_clause_explains_that_clause():
    assert set(parser_links("Note that there is a small gap between copying the file and truncating it, so some data "
                            "might be lost.")) == {("be", "lose")}  # the gap, not the noting
    assert set(parser_links("He said that the road was closed because the bridge had collapsed.")) == {
        ("collapse", "close")}
    assert set(parser_links("Because the dam broke, he said that the town flooded.")) == {("break", "say")}  # before


def test_a_purpose_clause_after_a_to_infinitive_or_a_by_doing_serves_that_action():
    # the parse hangs the "so that" clause on "forget", the "to terminate" clause on "created"
    assert set(parser_links("Don't forget to change your PATH so that tox knows how to find all the installed "
                            "versions.", "purpose")) == {("change", "know")}
    assert set(parser_links(r"Multi-line labels can be created by using the escape sequences \n, \l, \r to terminate "
                            "lines that are centered.", "purpose")) == {("use", "terminate")}


NO_LINK = [
    # an "as" of manner, condition or comparison gives no reason
    ("Members may make these decisions as they see fit.", "reason"),
    ("Any member may call for a vote on the ballot as it currently stands.", "reason"),
    ("The licence stays in force so long as the parties remain in compliance.", "reason"),
    ("Labels can be set as they would be for the top-level graph.", "reason"),
    ("People use them as though they were a new kind of shape.", "reason"),
    ("The lights went out as the crowd was leaving the stadium.", "reason"),  # an action in progress: time
    ("It ensures individuals who act as security stewards have the recognition from their employer.", "reason"),  # a role
    # a to-infinitive that completes its verb, or that the tagger barely took for a verb, tells no purpose
    ("These values ignore the time it takes to encode the frames.", "purpose"),
    ("It is important to check the values when it comes to filter lengths.", "purpose"),
    ("The payload type is defined in this profile to be mapped to the codec.", "purpose"),
    ("The change moves the end of the period to be one week from the vote.", "purpose"),
    ("This increases robustness to packet loss by removing the dependency.", "purpose"),
    ("The board voted on Monday to close the old office.", "purpose"),  # what was voted, not what for
    # "because otherwise X" says X would follow without the action
    ("The delay must be small enough because otherwise the filter is inefficient.", None),
    # the first part of a hyphenated word is no verb; a main verb with its own "that" is a clause left unattached
    ("The server keeps the pending writes so that we never re-run the finished nodes.", None),
    ("To give a common template, that all the implementations should follow, so that users can rely on one "
     "behaviour.", None),
]


@pytest.mark.parametrize(("sentence", "kind"), NO_LINK)
def test_no_parser_link_where_the_clause_gives_no_reason_or_purpose(sentence, kind):
    assert parser_links(sentence, kind) == []


@pytest.mark.parametrize(("sentence", "link"), [
    ("The format is obsolete, as it has been superseded by other formats.", ("supersede", "be")),
    ("The frames are buffered so they can be sent to be decoded by the receiver.", ("send", "decode")),
    ("To tune a drawing, the user can set the angle attributes.", ("set", "tune")),
    ("The payload must be padded to provide a whole number of octets.", ("pad", "provide")),
    ("Each name may begin with a slash to make it absolute.", ("begin", "make")),  # "begin to" only after a time
])
def test_a_reason_or_purpose_the_rules_leave_alone_is_still_linked(sentence, link):
    assert link in parser_links(sentence)


def test_a_to_infinitive_said_before_its_verb_is_its_purpose_only_where_it_opens_the_sentence():
    sentence = ("Input device discovery via HAL Xorg server 1.4 started using the HAL framework [http:// "
                "www.freedesktop.org/wiki/Software/hal] to discover connected input devices, receive notification of "
                "hotplug events for them, and to retrieve configuration parameters for them.")
    assert ("receive", "discover") not in parser_links(sentence)  # the parse hangs "to discover" on "receive"



def test_a_parse_that_came_through_docbin_links_as_a_fresh_parse_does():
    # the parse-ahead process sends parses as DocBin bytes, which keep no vectors for the tagger's scores
    from spacy.tokens import DocBin

    from karaka.nlp import nlp
    from karaka.nlp.roles import analyze_doc

    sentence = "This increases robustness to packet loss by removing the dependency."
    sent = DocBin(store_user_data=False)
    sent.add(nlp()(sentence))
    doc = next(DocBin().from_bytes(sent.to_bytes()).get_docs(nlp().vocab))
    assert not doc.tensor.size
    assert [k.get("links") for k in analyze_doc(doc)] == [k.get("links") for k in analyze_doc(nlp()(sentence))]
    assert not any(k.get("links") for k in analyze_doc(doc))


@pytest.mark.parametrize(("sentence", "link", "not_link"), [
    # an action a verb says did not happen: the reason or purpose explains that verb
    ("I stopped updating the old page because the wiki does a better job of it.", ("do", "stop"), ("do", "update")),
    ("They avoided driving at night to stay safe.", ("avoid", "stay"), ("drive", "stay")),
    # an action a verb only wants or needs: the purpose serves the action, not the wanting
    ("In order to run the tests, you will usually want to clone the repository.", ("clone", "run"), ("want", "run")),
    ("To build the docs, you need to install the theme first.", ("install", "build"), ("need", "build")),
])
def test_a_reason_or_purpose_explains_the_action_not_a_verb_that_frames_it(sentence, link, not_link):
    links = parser_links(sentence)
    assert link in links and not_link not in links, links


def test_a_connective_that_opens_a_sentence_links_the_main_verbs_and_thus_or_so_called_links_nothing(tmp_path):
    from karaka.config import Context

    write_doc(tmp_path / "docs", "server.txt",
              "The team kept the old server that crashed every week.", "So the company bought a new one.",
              "A colour can be any name that the browser knows.", "Thus, red and blue are two ways to name a colour.",
              "Some sounds have a noisy signal.", "So called voiced sounds have a harmonic part.")
    run_ingest(Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser"), tmp_path / "docs")
    graph = get_services(Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")).workspace.graph
    verbs = {(graph.node(k)["verb"], graph.node(t)["verb"]) for k in graph.nodes_of("Kriya")
             for t in graph.neighbors(k, "CAUSES")}
    assert ("keep", "buy") in verbs and ("crash", "buy") not in verbs  # the first sentence's main verb
    assert not {("know", "be"), ("be", "be"), ("have", "have")} & verbs, verbs



@pytest.mark.parametrize(("text", "verb", "other", "clause"), [
    ("The river flooded the valley because the dam broke.", "flooded", "broke", "The river flooded the valley"),
    ("The river flooded the valley because the dam broke.", "broke", "flooded", "the dam broke"),
    ('For instance, "ing" is a common subword, so BPE encodings will often split words.', "is", "split",
     '"ing" is a common subword'),
    ("Our code doesn't currently handle gaps, so it will raise an exception.", "raise", "handle",
     "it will raise an exception"),
    ("So, the village emptied.", "emptied", None, "the village emptied"),
])
def test_the_judge_is_shown_each_action_as_its_own_clause(text, verb, other, clause):
    from karaka.kg.enrich.causes import clause_text

    assert clause_text(text, text.index(verb), None if other is None else text.index(other)) == clause


@pytest.mark.parametrize(("sentence", "link"), [
    # the parse hangs the first clause on the second, or makes the second a conjunct
    ("Our code doesn't currently handle gaps, so it will raise an exception.", ("handle", "raise")),
    ("This request does not check the value of the field, so applications must be careful.", ("check", "be")),
    # the clause the words before the comma belong to, not a verb inside its subject nor a clause of time
    ("The value you want to change is stored deep in the stack, so you need to pass it through the API.",
     ("store", "need")),
    ("The library tries to defer imports until they are actually needed, so there should be no startup overhead.",
     ("defer", "be")),
])
def test_what_comes_before_a_comma_and_so_brings_about_what_follows(sentence, link):
    assert link in parser_links(sentence, "result")


@pytest.mark.parametrize("sentence", [
    "Valgrind can handle generated code, so long as none of the generated code is later overwritten.",
    "The site has grown by a third, so far without any new servers.",
    "The tool keeps every line, so as to let the reader check the source.",
])
def test_a_so_that_is_no_connective_links_nothing(sentence):
    assert not parser_links(sentence, "result")


def test_a_pair_the_parse_already_explains_is_not_put_to_the_judge(tmp_path):
    asked: list[str] = []

    def judge(user, n):
        asked.append(user)
        return '{"answer": "yes"}'

    write_doc(tmp_path / "docs", "lazy.txt",
              "The library tries to defer imports until they are actually needed, so there should be no startup overhead.")
    ctx, _ = fake_context(tmp_path / "ws", ScriptedChatModel(script(causality_prompt=judge)))
    run_ingest(ctx, tmp_path / "docs")
    graph = get_services(ctx).workspace.graph
    links = {(graph.node(k)["verb"], graph.node(t)["verb"], e.attrs.get("method"))
             for k in graph.nodes_of("Kriya") for e in graph.edges_out(k, "CAUSES") for t in [e.target]}
    assert links == {("defer", "be", "parser")}  # not also "needed" → "be" from the judge
    assert not asked


@pytest.mark.parametrize(("sentence", "link"), [
    ("This causes the echo canceller to automatically save the signals to files.", ("cause", "save")),
    ("A local attacker could cause the daemon to run out of file descriptors.", ("cause", "run")),
    ("Make the encoder use the psycho-acoustic model.", ("make", "use")),
])
def test_a_causative_brings_about_what_its_object_does(sentence, link):
    assert link in parser_links(sentence, "result")


@pytest.mark.parametrize("sentence", [
    "Development snapshots make no stability guarantees for new interfaces introduced since the last release.",
    "Once a decision has been delegated and made the Leader may not withdraw that delegation.",
])
def test_a_causative_without_an_action_it_brings_about_links_nothing(sentence):
    assert not parser_links(sentence, "result")
