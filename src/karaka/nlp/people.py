"""Which common nouns can name a person, or a group of people, for a pronoun to stand for.

The packaged models give no such lexicon: spaCy's small model tags names (PERSON, ORG), not
"the minister" or "the backpack", and WordLlama's vectors do not separate people from things
("backpack" sits nearer "person" than "minister" does). A singular common noun that is on
neither list, and has no person-making ending, is a thing: "she" or "they" never stands for it.
"""

from __future__ import annotations

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

_ENDINGS = ("ist", "ian", "man", "woman", "person", "eer")
_NOT_PEOPLE = frozenset("""playlist checklist wishlist blacklist whitelist shortlist tracklist waitlist median career
veneer talisman ottoman caiman german roman""".split())


def names_people(noun: str) -> str:
    """"person", "group" or "" (a thing, as far as this knows) for a singular common noun."""
    word = noun.lower()
    if word in PEOPLE:
        return "person"
    if word in GROUPS:
        return "group"
    if len(word) > 5 and word.endswith(_ENDINGS) and word not in _NOT_PEOPLE:
        return "person"
    return ""
