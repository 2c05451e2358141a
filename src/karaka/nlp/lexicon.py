"""The closed word lists the parse-based analyzer reads English by, each saying what it is for.

Prepositions and the roles they mark, the marks of reasons, purposes and times, the verbs that
hand their subject on to another verb or report speech, the nouns of amounts, the nouns that name
people or groups of people (``names_people``): closed classes of English, none of them there because
of one sentence. The words every part splits and filters text by are in ``karaka/words.py``.
"""


from __future__ import annotations

import re

PREP_ROLES = {
    **dict.fromkeys(["with", "using", "via"], "KARANA"),
    **dict.fromkeys(["from", "out"], "APADANA"),
    **dict.fromkeys(
        ["in", "at", "on", "near", "inside", "into", "onto", "under", "over", "within", "across",
         "through", "behind", "beside", "outside", "around", "along", "above", "below",
         "beneath", "between", "among", "throughout", "toward", "towards", "upon"],
        "ADHIKARANA_SPATIAL",
    ),
    **dict.fromkeys(["during", "before", "after", "since", "until", "till", "following", "prior"],
                    "ADHIKARANA_TEMPORAL"),
    **dict.fromkeys(["to", "unto", "for"], "SAMPRADANA"),  # "unto": the older "to" ("sold it unto a merchant")
}
"""Prepositions and the kāraka their object fills: "with" a tool (KARANA), "from" a source (APADANA), "in" a place."""


TEMPORAL_WORDS = frozenset(
    "today yesterday tomorrow tonight morning evening night noon midnight afternoon dawn dusk "
    "day days week weeks month months year years decade decades century centuries hour hours "
    "minute minutes moment time times season summer winter spring autumn era age period "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december weekend".split()
)
"""Nouns of time: a phrase headed by one is a time (ADHIKARANA_TEMPORAL), not a place."""


ANIMATE_PRONOUNS = frozenset("me you him her us them whom who someone everyone anyone".split())
"""Pronouns that stand for a person: such a subject can be an agent (KARTA)."""


RELATIVE = frozenset({"who", "whom", "which", "that", "whose"})
"""Relative pronouns: a relative clause takes the noun it modifies in their place."""


OBJECT_CONTROL = frozenset(
    "ask tell order force persuade urge allow permit enable encourage require invite advise warn instruct compel "
    "cause lead get want expect need help teach remind convince beg challenge forbid".split()
)
"""Verbs whose object is the subject of their to-infinitive: "asked him to stay" (he stays)."""


CAUSAL_MARKS = frozenset({"because", "since", "as", "for", "cause"})
"""Subordinating marks of a reason clause: "because", "since", "as"."""


PURPOSE_MARKS = frozenset({"so", "order"})
"""Marks of a purpose clause: "so that", "in order to"."""


TIME_MARKS = frozenset({"when", "after", "before", "while", "until", "till", "once", "whenever", "as soon as"})
"""Subordinating marks of a time clause: "when", "after", "until"."""


PREPOSITION_NOUNS = frozenset({"behalf", "spite", "terms", "favour", "favor", "lieu", "case", "respect", "regard"})
"""Nouns that a preposition before and "of" after make one preposition, no place: "on behalf of", "in spite of"."""


ASIDE_NOUNS = frozenset({"example", "instance"})
"""Nouns that make a phrase a writer's aside, no role of the action: "for example", "for instance"."""


CAUSAL_PREPS = frozenset({"because", "due", "owing", "thanks"})
"""Prepositions of a reason: "because of", "due to", "owing to", "thanks to"."""


ASPECT_ADVERBS = frozenset("again still already ever".split())
"""Adverbs of aspect: they say whether an action goes on or comes back, never when ("ever published")."""

TIME_ADVERBS = ASPECT_ADVERBS | frozenset(
    "sometimes often always usually frequently rarely seldom occasionally once twice now then soon later earlier "
    "recently currently previously formerly originally eventually finally subsequently meanwhile afterwards "
    "afterward beforehand lately nowadays annually daily weekly monthly yearly initially immediately".split()
)
"""Adverbs of time and frequency: they say when, not how (no MANNER)."""


SENTENCE_ADVERBS = frozenset(
    "hopefully reportedly allegedly apparently supposedly specifically particularly especially mainly mostly largely "
    "primarily partly partially simply actually really certainly probably possibly perhaps clearly obviously "
    "fortunately unfortunately similarly additionally consequently generally typically essentially basically merely "
    "solely likely unlikely indeed furthermore moreover accordingly thereby notably importantly arguably "
    "ultimately overall".split()
)
"""Adverbs that comment on the whole statement; they say nothing of how it was done."""


DIRECTIONS = frozenset({"back", "up", "down", "away", "abroad", "home"})
"""Adverbs of direction: how an action moved something; a phrase they hold says where to or from ("back to the hills")."""


NOT_MANNER = frozenset(
    "not n't never also only just even too very so thus therefore however here there yet more most less least "
    "rather quite almost nearly first instead otherwise".split()
) | TIME_ADVERBS | SENTENCE_ADVERBS
"""Adverbs that are never a manner (negation, focus, degree, order, and the two lists above)."""


SPATIAL_PREPS = frozenset(PREP_ROLES[p] == "ADHIKARANA_SPATIAL" and p or "" for p in PREP_ROLES) - {""}
"""Prepositions of place (from ``PREP_ROLES``)."""


TEMPORAL_PREPS = frozenset(p for p, r in PREP_ROLES.items() if r == "ADHIKARANA_TEMPORAL")
"""Prepositions of time (from ``PREP_ROLES``)."""


QUANTITIES = frozenset("lot lots number couple handful majority minority rest half part percent dozen score bunch "
                        "plenty variety host".split())
"""Nouns of amount: "a lot of people" is people for a pronoun (plural), not a lot."""


REPORTING = frozenset("say tell report note write explain put state show suggest claim add expect declare announce "
                       "argue insist predict promise mention observe point confirm recall warn admit acknowledge "
                       "reveal describe".split())
"""Verbs of an "as" that cites rather than explains: "as Heald told the Post" is no reason."""


COPULAS = frozenset("be seem appear become remain happen".split())
"""Copulas: a subject after one may be an expletive ("it seems that …")."""


COMPARING = frozenset("as same such twice thrice times size much many more less long insofar".split())
"""Words before an "as" that compares rather than explains: "as much as", "the same as"."""


TO_NOUNS = frozenset("decision attempt effort endeavour endeavor quest plan promise offer request order bid move "
                     "choice agreement commitment proposal need right chance opportunity ability capacity reason "
                     "permission willingness refusal failure desire wish intention determination tendency urge motion "
                     "vote campaign push drive pledge threat demand invitation mandate authority power freedom".split())
"""Nouns a to-infinitive completes: "a decision to emphasize", "an attempt to climb"."""


AS_ROLE = frozenset("act serve work function double pose masquerade qualify rank count use know regard describe "
                     "treat define refer view".split())
"""Verbs an "as" right after gives a role: "act as a steward", "is used as a key", "known as Ram"."""


AS_ONE_LIKES = frozenset("see wish like please choose want stand".split())
"""Verbs of an "as" that tells a manner: "as they see fit", "as you wish", "as it currently stands"."""


TAKES_TO = frozenset("be have want need try plan hope seem appear indicate expect ask tell decide agree begin start continue "
                      "fail refuse consider believe like love hate prefer promise threaten intend manage learn "
                      "choose offer order allow force urge report say claim forbid permit enable encourage invite "
                      "advise instruct remind teach require warn beg oblige prohibit authorize authorise vote".split())
"""Verbs whose "to" + verb is what is wanted, said, tried, allowed or owed, not a purpose ("wanted to go",
"has to grow", "forbid them to share")."""


RAISING = frozenset("say know believe think consider expect suppose assume report find show deem define claim "
                     "presume allege estimate understand require rumour rumor".split())
"""Verbs whose passive takes a to-infinitive as its complement: "is defined to be mapped", "is said to have"."""


CAUSATIVE = frozenset("force cause compel make lead get drive push persuade convince induce prompt".split())
"""Verbs whose object does what follows: "forces the drawing to be bigger", "caused meltwater to enter"."""


UNDOING = frozenset("stop quit cease refuse fail avoid decline abandon".split())
"""Verbs that say their complement did not happen: "stopped updating", "refused to pay"."""


WANTING = frozenset("want need have try wish hope plan intend".split())
"""Verbs whose to-infinitive is the action itself: "you'll want to clone", "you need to go through"."""


SO_NOT_RESULT = frozenset("far long much many few called as".split())
"""Words after "so" that make it no connective: "so far", "so long as", "so called", "so as to"."""

# Which common nouns can name a person, or a group of people, for a pronoun to stand for. The packaged
# models give no such lexicon: spaCy's small model tags names (PERSON, ORG), not "the minister" or "the
# backpack", and WordLlama's vectors do not separate people from things ("backpack" sits nearer "person"
# than "minister" does). A singular common noun on neither list, without a person-making ending, is a
# thing: "she" or "they" never stands for it.

PEOPLE = frozenset("""
person human individual man woman child boy girl baby infant toddler kid teenager teen youth youngster adult
lady gentleman guy elder senior adolescent someone somebody anyone anybody everyone everybody nobody one
mother father parent mom mum dad son daughter brother sister wife husband spouse partner grandfather
grandmother grandparent grandson granddaughter grandchild uncle aunt cousin nephew niece sibling twin
stepfather stepmother stepson stepdaughter widow widower orphan heir heiress bride groom fiancé fiancée
girlfriend boyfriend friend neighbour neighbor colleague companion ally rival enemy opponent stranger
king queen prince princess duke duchess earl count countess lord emperor empress monarch ruler sultan
pharaoh tsar czar chief chieftain noble nobleman knight squire baron pope bishop archbishop cardinal priest
pastor minister monk nun saint prophet god goddess deity rabbi imam cleric preacher missionary apostle
president chairman chairwoman chairperson chair ceo executive director manager boss founder owner
proprietor leader head commander captain general colonel major lieutenant sergeant corporal admiral
marshal officer soldier troop trooper warrior fighter rebel militant guerrilla veteran recruit sailor
marine pilot spokesman spokeswoman spokesperson official politician statesman diplomat ambassador
envoy consul governor mayor senator congressman congresswoman legislator lawmaker representative
delegate councillor councilor chancellor premier secretary treasurer deputy candidate nominee incumbent
voter citizen resident inhabitant native immigrant emigrant migrant refugee exile tourist visitor guest
host traveller traveler passenger pilgrim settler colonist
judge justice magistrate lawyer attorney barrister solicitor prosecutor defendant plaintiff claimant
suspect accused convict criminal offender thief robber burglar killer murderer assassin gunman
terrorist bomber hijacker kidnapper hostage captive prisoner inmate detainee victim witness survivor
casualty informant spy agent detective inspector investigator policeman policewoman constable sheriff
guard bodyguard
doctor physician surgeon nurse dentist therapist psychiatrist psychologist patient paramedic midwife
teacher professor lecturer tutor instructor student pupil scholar researcher scientist graduate
undergraduate alumnus headmaster principal dean
artist painter sculptor musician composer conductor singer songwriter rapper dancer actor actress
performer comedian poet novelist author writer editor journalist reporter correspondent columnist
critic broadcaster presenter anchor photographer filmmaker producer designer architect
player athlete coach trainer referee umpire champion batsman bowler batter pitcher striker
goalkeeper runner swimmer cyclist skier skater boxer wrestler jockey racer driver rider
worker employee employer labourer laborer farmer peasant fisherman hunter miner builder carpenter
engineer mechanic technician programmer developer inventor explorer astronaut merchant trader dealer
banker broker investor entrepreneur businessman businesswoman shopkeeper seller vendor buyer
customer client consumer user subscriber member fan supporter follower disciple believer devotee
volunteer activist protester demonstrator campaigner advocate organiser organizer negotiator
mediator advisor adviser consultant assistant aide clerk servant maid butler slave master mistress
landlord tenant lodger chef cook waiter waitress baker butcher tailor
hero heroine villain protagonist character narrator
attacker assailant perpetrator culprit intruder hacker stalker abuser rioter looter sniper shooter smuggler
trafficker defender rescuer responder firefighter bystander onlooker commuter motorist pedestrian homeowner
householder shareholder stakeholder taxpayer newcomer outsider insider speaker listener viewer caller sender
recipient beneficiary applicant contestant competitor participant attendee panelist finalist winner loser
runner-up challenger contender borrower lender debtor creditor donor sponsor patron
""".split())
"""Singular common nouns that name a person."""

GROUPS = frozenset("""
government administration regime cabinet ministry department agency authority parliament congress
senate assembly council committee board court jury commission tribunal
team squad side club band crew staff cast orchestra choir troupe
company firm corporation business bank enterprise organisation organization institution foundation
charity university college school academy church party coalition alliance union league federation
association society movement faction opposition army navy military police militia force family
household clan tribe dynasty couple group crowd audience public community population electorate
majority minority nation people press media management leadership
""".split())
"""Singular common nouns that name a group of people: "they" or "it" may stand for one, "she" may not."""

PERSON_ENDINGS = ("ist", "ian", "man", "woman", "person", "eer")
"""Endings that make a noun name a person ("pianist", "librarian", "chairman", "engineer")."""
NOT_PEOPLE = frozenset("""playlist checklist wishlist blacklist whitelist shortlist tracklist waitlist median career
veneer talisman ottoman caiman german roman""".split())
"""Words with a person-making ending that name things."""


FEMALE = frozenset("""
woman girl lady mother mom mum daughter sister wife aunt niece grandmother granddaughter stepmother
stepdaughter widow heiress bride fiancée girlfriend queen princess duchess countess empress nun abbess
priestess goddess actress waitress hostess maid maiden mistress madam sorceress witch chairwoman spokeswoman
congresswoman
""".split())
MALE = frozenset("""
man boy gentleman father dad son brother husband uncle nephew grandfather grandson stepfather stepson
widower groom fiancé boyfriend king prince duke earl emperor monk abbot lord baron nobleman chairman
spokesman congressman sultan pharaoh tsar czar wizard
""".split())
"""Nouns that name a woman or a man: "she" never stands for "a widow's husband", nor "he" for "a widow named Cora"."""


def head_word(phrase: str) -> str:
    """A noun phrase's last word before what hangs on it: "widow" of "a widow named Cora", "grave" of "the grave of Tam"."""
    words = re.split(r"\s+(?:of|named|called|who|whom|whose|that|which)\s+|,", phrase)[0].split()
    return words[-1] if words else ""


def gender_of(name: str) -> str:
    """"female", "male" or "" for a name or description by its head noun ("a widow named Cora", "the king's son")."""
    word = head_word(name.lower()).strip(".'’\"")
    return "female" if word in FEMALE else "male" if word in MALE else ""


def names_people(noun: str) -> str:
    """"person", "group" or "" (a thing, as far as this knows) for a singular common noun."""
    word = noun.lower()
    if word in PEOPLE:
        return "person"
    if word in GROUPS:
        return "group"
    if len(word) > 5 and word.endswith(PERSON_ENDINGS) and word not in NOT_PEOPLE:
        return "person"
    return ""
