"""A small English verb lexicon: which forms of which verbs a word can be.

``veritype._finite_verbs`` decides from a word's neighbours whether it is a verb in its
sentence; this module only says which verb forms the word could be. The lexicon is written
by hand for this package (no third-party word list): the irregular verbs of English with
their past and past participle, and the regular verbs factual answers commonly use. A
regular verb's third-person and past forms are derived by English spelling rules, so only
base forms are listed.
"""

from __future__ import annotations

import re
from enum import Enum

# The auxiliaries and modals that open a verb phrase: "... and has a 750 Wh battery".
AUXILIARY_WORDS = frozenset("""is are was were has have had does do did will would can could
    may might must shall should""".split())  # noqa: SIM905
AUXILIARY = "(?:" + "|".join(sorted(AUXILIARY_WORDS)) + ")"
# A verb phrase sharing its sentence's subject, coordinated after a clause ("... and has a
# 750 Wh battery"): the claim splitter cuts before it, and a copy followed by it is whole.
COORDINATED_PREDICATE = re.compile(rf"(?:and|but)\s+{AUXILIARY}\s+\w")
# "[It is 2,120 metres long] and up to 38 metres deep": a measure of another dimension is a
# second predicate of the same subject, not a list's next item.
_SECOND_MEASURE = re.compile(
    r"and\s+(?:(?:up\s+to|about|around|nearly|almost|over|under|roughly|some)\s+)?"
    r"\d[\d,.]*\s*[a-z]+\s+(?:long|deep|high|wide|tall|thick|old|across|heavy)\b")
# Base, past, past participle; "was/were" and the other auxiliaries are read separately.
_IRREGULAR = """
arise arose arisen | awake awoke awoken | bear bore borne | beat beat beaten |
become became become | befall befell befallen | begin began begun | behold beheld beheld |
bend bent bent | bet bet bet | bid bid bid | bind bound bound | bite bit bitten |
bleed bled bled | blow blew blown | break broke broken | breed bred bred |
bring brought brought | broadcast broadcast broadcast | build built built | burn burnt burnt |
burst burst burst | buy bought bought | cast cast cast | catch caught caught |
choose chose chosen | cling clung clung | come came come | cost cost cost | creep crept crept |
cut cut cut | deal dealt dealt | dig dug dug | draw drew drawn | dream dreamt dreamt |
drink drank drunk | drive drove driven | dwell dwelt dwelt | eat ate eaten | fall fell fallen |
feed fed fed | feel felt felt | fight fought fought | find found found | flee fled fled |
fling flung flung | fly flew flown | forbid forbade forbidden | forecast forecast forecast |
foresee foresaw foreseen | foretell foretold foretold | forget forgot forgotten |
forgive forgave forgiven | freeze froze frozen | get got gotten | give gave given |
go went gone | grind ground ground | grow grew grown | hang hung hung | hear heard heard |
hide hid hidden | hit hit hit | hold held held | hurt hurt hurt | keep kept kept |
kneel knelt knelt | know knew known | lay laid laid | lead led led | leap leapt leapt |
learn learnt learnt | leave left left | lend lent lent | let let let | lie lay lain |
light lit lit | lose lost lost | make made made | mean meant meant | meet met met |
mislead misled misled | mistake mistook mistaken | outgrow outgrew outgrown |
overcome overcame overcome | oversee oversaw overseen | overtake overtook overtaken |
overthrow overthrew overthrown | partake partook partaken | pay paid paid | prove proved proven |
put put put | quit quit quit | read read read | rebuild rebuilt rebuilt | remake remade remade |
rewrite rewrote rewritten | ride rode ridden | ring rang rung | rise rose risen | run ran run |
say said said | see saw seen | seek sought sought | sell sold sold | send sent sent |
set set set | sew sewed sewn | shake shook shaken | shed shed shed | shine shone shone |
shoot shot shot | show showed shown | shrink shrank shrunk | shut shut shut | sing sang sung |
sink sank sunk | sit sat sat | slay slew slain | sleep slept slept | slide slid slid |
sow sowed sown | speak spoke spoken | speed sped sped | spend spent spent | spin spun spun |
split split split | spread spread spread | spring sprang sprung | stand stood stood |
steal stole stolen | stick stuck stuck | sting stung stung | stride strode stridden |
strike struck struck | string strung strung | strive strove striven | swear swore sworn |
sweep swept swept | swell swelled swollen | swim swam swum | swing swung swung |
take took taken | teach taught taught | tear tore torn | tell told told | think thought thought |
throw threw thrown | thrust thrust thrust | tread trod trodden | undergo underwent undergone |
understand understood understood | undertake undertook undertaken | undo undid undone |
uphold upheld upheld | upset upset upset | wake woke woken | wear wore worn | weave wove woven |
weep wept wept | win won won | wind wound wound | withdraw withdrew withdrawn |
withhold withheld withheld | withstand withstood withstood | write wrote written
"""

# Regular verbs, by base form.
_REGULAR = """
accept achieve acquire act adapt add adjust admit adopt affect agree aim allow alter
announce answer appear apply appoint approve argue arrange arrest arrive ask assemble assess
assign assist assume attack attempt attend attract avoid award ban base believe belong block
boil boost border borrow call cancel capture carry cause celebrate change charge check claim
clean clear climb close collapse collect combine command compare compete complete compose
conclude conduct confirm connect consider consist construct contain continue contribute
control convert convince cook copy count cover crash create cross cure damage dance decide
declare decline decrease defeat defend define delay deliver demand deny depend describe
design destroy determine develop die differ direct disappear discover discuss dismiss
display dissolve divide dominate double doubt drain drop earn ease elect eliminate emerge employ
empty enable encourage end endure engage enjoy ensure enter equal erupt escape establish estimate
evolve examine exceed exist expand expect experience explain explode explore export express
extend face fail fear fill finance finish fit fix flood flow focus fold follow force form
found free function gain gather generate govern graduate grant guarantee guide handle happen
hate help hire host hunt identify ignore illustrate imagine impact implement import improve
include increase indicate influence inform inhabit inherit injure insist install intend
introduce invade invent invest invite involve issue join judge jump kick kill knock lack
land last laugh launch lift like limit link listen live locate look love maintain manage
manufacture marry match matter measure melt mention merge migrate miss mix mount move name
need note notice obtain occupy occur offer open operate oppose orbit order organise organize
originate own pass perform permit persuade pick place plan plant play possess pour prefer
prepare present preserve press pretend prevent print proceed process produce promise promote
propose protect provide publish pull pump purchase push qualify question raise range rank
reach react realise realize receive recognise recognize recommend record recover reduce
refer reflect refuse regard reign reject relate release rely remain remember remove rename
repeat replace reply report represent require rescue resemble reside resign resist resolve
respond rest restore result retain retire return reveal rule sail save score seat seem
select separate serve settle share shift shout sign smile solve span start stay stop store
stretch study submit succeed suffer suggest supply support suppose surround survive suspect
switch talk taste tend test thank touch tour trade train transfer transform translate travel
treat trust try turn unite use vary visit vote wait walk want warn wash watch weigh welcome
wish wonder work worry yield
"""


class VerbForm(Enum):
    """Which form of a verb a word is."""

    BASE = "base"  # "fall", "release": present tense with a plural subject
    THIRD_PERSON = "third person"  # "falls", "releases": present tense, singular subject
    PAST = "past"  # "fell", "released": finite on its own
    PARTICIPLE = "participle"  # "fallen": finite only after an auxiliary


def _principal_parts() -> tuple[frozenset[str], dict[str, frozenset[VerbForm]],
                               dict[str, tuple[str, str]]]:
    """The base forms of every verb, the forms of each irregular word, and each irregular
    verb's past and participle by its base."""
    bases = set(_REGULAR.split())
    forms: dict[str, set[VerbForm]] = {}
    parts: dict[str, tuple[str, str]] = {}
    for entry in _IRREGULAR.split("|"):
        base, past, participle = entry.split()
        bases.add(base)
        parts[base] = (past, participle)
        forms.setdefault(past, set()).add(VerbForm.PAST)
        forms.setdefault(participle, set()).add(VerbForm.PARTICIPLE)
    return (frozenset(bases), {word: frozenset(kinds) for word, kinds in forms.items()},
            parts)


BASE_FORMS, _IRREGULAR_FORMS, _IRREGULAR_PARTS = _principal_parts()


def irregular_forms() -> dict[str, frozenset[VerbForm]]:
    """The past and participle forms of the irregular verbs, each with the forms it is."""
    return dict(_IRREGULAR_FORMS)


_IRREGULAR_BASES = {form: base for base, forms in _IRREGULAR_PARTS.items() for form in forms}


def irregular_base(word: str) -> str | None:
    """The base form of an irregular past or participle ("ran", "run" → "run"), if any."""
    return _IRREGULAR_BASES.get(word)


def irregular_parts(base: str) -> tuple[str, str]:
    """The past and past participle of the irregular verb ``base`` ("write": wrote, written);
    a ``KeyError`` for a verb that is not irregular."""
    return _IRREGULAR_PARTS[base]


def forms_of(base: str) -> frozenset[str]:
    """Every written form of the verb with base form ``base`` ("die": die, dies, died,
    dying; "fall": fall, falls, fell, fallen, falling), by the lexicon's irregular parts and
    English spelling rules; just ``base`` for a word the lexicon has no verb for."""
    if base not in BASE_FORMS:
        return frozenset({base})
    vowels = "aeiou"
    if base.endswith("ie"):
        ing, past = base[:-2] + "ying", base + "d"
    elif base.endswith("e"):
        ing, past = (base if base.endswith("ee") else base[:-1]) + "ing", base + "d"
    elif base.endswith("y") and base[-2:-1] not in tuple(vowels):
        ing, past = base + "ing", base[:-1] + "ied"
    else:
        ing, past = base + "ing", base + "ed"
    third = (base[:-1] + "ies" if past == base[:-1] + "ied" else
             base + "es" if base.endswith(("s", "x", "z", "ch", "sh", "o")) else base + "s")
    forms = {base, third, ing, past}
    # "stop": stopped, stopping (a short vowel before a final consonant doubles it).
    if (len(base) >= 3 and base[-1] not in vowels + "wxy" and base[-2] in vowels
            and base[-3] not in vowels):
        forms |= {base + base[-1] + "ed", base + base[-1] + "ing"}
    forms.update(_IRREGULAR_PARTS.get(base, ()))
    return frozenset(forms)


def _third_person_base(word: str) -> str | None:
    """The base form ``word`` is the third person of ("releases" → "release"), if any."""
    if word.endswith("ies") and word[:-3] + "y" in BASE_FORMS:
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2] in BASE_FORMS and word[:-2].endswith(
        ("s", "x", "z", "ch", "sh", "o")
    ):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and word[:-1] in BASE_FORMS:
        return word[:-1]
    return None


def verb_forms(word: str) -> frozenset[VerbForm]:
    """Every verb form the lower-case ``word`` can be; empty when it is no verb in the lexicon.

    A regular past in -ed is not looked up here: any -ed word is read as one by its context.
    """
    kinds = set(_IRREGULAR_FORMS.get(word, ()))
    if word in BASE_FORMS:
        kinds.add(VerbForm.BASE)
    if _third_person_base(word) is not None:
        kinds.add(VerbForm.THIRD_PERSON)
    return frozenset(kinds)


# Adverbs that may stand between "and" and the verb it coordinates ("and now attracts").
_LINKING_ADVERBS = frozenset("""now still also later then soon today since once again
    eventually finally currently""".split())  # noqa: SIM905
# Words that join a second clause with a subject of its own ("..., while Grana Padano must").
_CLAUSE_JOINERS = frozenset({"and", "but", "yet", "while", "whereas"})


def _finite(word: str) -> bool:
    return word in AUXILIARY_WORDS or word.endswith("ed") or bool(
        verb_forms(word) & {VerbForm.THIRD_PERSON, VerbForm.PAST})


DETERMINERS = frozenset({"the", "a", "an", "its", "their", "his", "her", "our", "this",
                          "that", "these", "those"})


def coordinates_a_predicate(text: str) -> bool:
    """Whether lower-case ``text`` opens a second predicate of the same subject: "and" or
    "but" then an auxiliary and a word ("and has a 750 Wh battery") or a finite verb ("and
    flows into the North Sea", "but closed in 1990", "and now attracts"), not a second noun
    ("and Swiss francs")."""
    if COORDINATED_PREDICATE.match(text) or _SECOND_MEASURE.match(text):
        return True
    words = text.split()[:3]
    if len(words) < 2 or words[0] not in {"and", "but"}:
        return False
    verb, after = words[1], words[2] if len(words) > 2 else ""
    if (verb in _LINKING_ADVERBS or verb.endswith("ly")) and len(words) > 2:
        verb, after = words[2], (text.split()[3:4] or [""])[0]
    # "and coaches the football team": a word in -s before a determiner is a verb the
    # lexicon may lack; a list's next noun ("and games for one week") takes none.
    return _finite(verb) or (verb.endswith("s") and not verb.endswith(("ss", "us", "is"))
                             and after in DETERMINERS)


def opens_a_clause(text: str) -> bool:
    """Whether lower-case ``text`` opens a second clause with a subject of its own: "and",
    "but", "yet", "while" or "whereas", then a few words and a finite verb ("and the hosts
    beat Argentina", "but the real capacity was only 48,000", "while grana padano must be
    aged"), not a list's next item ("and Swiss francs")."""
    words = text.split()[:7]
    if len(words) < 3 or words[0] not in _CLAUSE_JOINERS or _finite(words[1]):
        return False
    return any(_finite(word.strip(",;:")) for word in words[2:])
