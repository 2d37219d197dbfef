"""Who did what: the agent a claim gives an action against the agents its evidence gives it.

"The museum building was designed by the Verhoeven family" names only what the evidence
names, yet the evidence says the building "was designed by the architect Ida Kraal" and the
maps "donated by the shipping family Verhoeven": the right names in the wrong roles. A claim
that gives an action ("designed by X") to an agent the evidence gives only another action,
while the evidence gives this action to someone else, is contradicted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veritype._text import content_words, normalise_word
from veritype._verbs import AUXILIARY_WORDS, VerbForm, irregular_base, irregular_forms

# "<participle> by <agent>" ("paid for by", "worked out by": a particle may follow it), or
# an action named by its noun ("to a design by", "a gift from"): the agent runs to the end of
# the clause or to a word that starts another phrase ("... by the shipping family Verhoeven
# in 1962", "... by a local carpenter, Sam Okafor, and the ribbon ...").
_PARTICIPLES = "|".join(sorted(word for word, kinds in irregular_forms().items()
                               if VerbForm.PARTICIPLE in kinds and len(word) > 2))
_BY_AGENT = re.compile(
    rf"\b(?P<verb>[a-z]{{3,}}(?:ed|en)|{_PARTICIPLES})(?:\s+(?:out|up|off|down|for|over))?"
    # "developed at the Kemble Institute by", "built between 1840 and 1844 by", "built
    # later, in 1768, by": an adverb and a phrase of place or time may stand between, each
    # perhaps set off by commas, if the phrase holds no verb of its own.
    r"(?:\s+(?:later|earlier|first|originally|again|[a-z]{3,}ly))?"
    r"(?:,?\s+(?:at|in|on|from|between|during|after|before)"
    r"(?:\s+(?![a-z]+(?:ed|en)\b)[\w'\u2019-]+){1,5}?)?"
    r",?\s+by\s+"
    r"|\b(?P<noun>design|designs|idea|invention|discovery|gift|donation)\s+(?:by|from|of)\s+")
# What a gapped clause opens with: a name, perhaps with a noun or two ("the Mira bridge").
_GAPPED_THING = (r"(?:the\s+)?(?-i:[A-Z])[\w'\u2019-]*(?:\s+(?-i:[A-Z0-9])[\w'\u2019-]*)*"
                 r"(?:\s+(?-i:[a-z]+)){0,2}")
_PHRASE_END = re.compile(
    # The full stop of an initial ("John A. Roebling") ends nothing.
    r"[;!?()]|(?<!\s(?-i:[A-Z]))\.|,\s*(?:and|but|while|which|who)\b|\sand\s+(?=(?-i:[a-z]))"
    r"|\s(?:in|on|at|for|with|from|to|against|during|after|before|until|since|but|while|"
    r"which|who|whose|that|as|when|where|because|although|though|was|were|is|are)\s"
    # "built by Orbis Systems and Kestrel-2 by Halden Aerospace": a gapped clause ends it.
    rf"|\sand\s+(?={_GAPPED_THING}\s+by\s)",
    re.IGNORECASE)
# "brought by the tenants' association against Redbrook Properties": the party a by-phrase's
# action was against, read as one more role of that action, so that giving it the action
# is a swap even where the agent is only described.
_AGAINST = re.compile(r"\sagainst\s+", re.IGNORECASE)
_OPPOSED = "against "
# What an action's noun names, as its verb would ("a gift from" as "donated by").
_NOUN_ACTIONS = {"design": "design", "designs": "design", "idea": "propos",
                 "invention": "invent", "discovery": "discover", "gift": "donat",
                 "donation": "donat", "analysis": "analys"}
# "Aisha Bello's analysis of the results": whose action its noun names, as "analysed by".
_OWNED_ACTION = re.compile(
    r"(?P<agent>(?:[A-Z][\w'\u2019-]+\s+)*[A-Z][\w'\u2019-]+?)['\u2019]s\s+"
    r"(?:(?:first|own|original|early|later|new)\s+)?"
    r"(?P<noun>design|idea|invention|discovery|gift|donation|analysis)\b")
_NAME = re.compile(r"\b[A-Z][\w'\u2019-]+")
# "Ida Kraal designed the building", "Owen Pryce later worked out its structure": a name,
# perhaps an adverb, then a verb in the past tense.
_PASTS = "|".join(sorted(word for word, kinds in irregular_forms().items()
                         if VerbForm.PAST in kinds and len(word) > 2
                         and word not in AUXILIARY_WORDS | {"became", "got", "let"}))
_NAMED_AGENT = re.compile(
    # "won by Rovers, who beat Albion": the name a relative clause opens on is its agent.
    r"(?P<agent>(?:[A-Z][\w'\u2019-]+\s+)*[A-Z][\w'\u2019-]+)(?:,\s*who\s+|\s+)"
    r"(?:(?:later|also|then|first|once|jointly|himself|herself|itself|[a-z]{3,}ly)\s+)?"
    rf"(?P<verb>[a-z]{{3,}}ed|{_PASTS})\b(?!\s+by\b)")
# Where the clause of a by-phrase starts: the words between it and the phrase name what was
# acted on ("Kestrel-1 was built by ...").
_CLAUSE_START = re.compile(r"[;:]|,\s|\.\s")
_AUXILIARY = re.compile(r"\s(?:was|were|is|are|has been|have been|had been)\s")
# "... built by Orbis Systems and Kestrel-2 by Halden Aerospace": another thing, the same
# action, another agent.
_GAPPED_AGENT = re.compile(rf"\s*and\s+(?P<patient>{_GAPPED_THING})\s+by\s+")
# "His assistant, Lena Brauer, built the first model": a name set off by commas, then its verb.
_APPOSED_AGENT = re.compile(
    r"(?<=,\s)(?P<agent>(?:[A-Z][\w'\u2019-]+\s+)*[A-Z][\w'\u2019-]+),\s+"
    r"(?:(?:later|also|then|first|once|jointly|[a-z]{3,}ly)\s+)?"
    rf"(?P<verb>[a-z]{{3,}}ed|{_PASTS})\b(?!\s+by\b)")
# "The idea came from Rowland Hill": whose idea it was, as "proposed by" says.
_FROM_AGENT = re.compile(r"\b(?:came|comes|originated|originates)\s+from\s+")
_ORIGIN = "proposed"
# An action told from the other side: "bought it from X" says X sold it, "sold it to X" that
# X bought it, "lost to X" that X beat the loser.
_CONVERSE = re.compile(
    r"\b(?P<verb>bought|purchased|acquired|sold|lost)"
    r"(?P<object>(?:\s+(?!(?:by|from|to)\b)[\w'\u2019-]+){0,6}?)\s+(?P<prep>from|to)\s+")
_CONVERSE_ACTIONS = {("bought", "from"): "sold", ("purchased", "from"): "sold",
                     ("acquired", "from"): "sold", ("sold", "to"): "bought",
                     ("lost", "to"): "beat"}
# Verbs that name one action, each read as the first of its group: "constructed by" gives the
# action "built by" gives.
_ONE_ACTION = {stem: group[0] for group in (
    ("propos", "suggest", "invent", "conceiv", "devis", "originat"),
    ("build", "construct", "erect"),
    ("found", "establish"),
    ("donat", "give", "bequeath"),
    ("analys", "analyz"),
) for stem in group}
# Sentence openers that are no one's name.
_NO_NAME = frozenset({"the", "a", "an", "it", "he", "she", "they", "this", "that", "its",
                      "his", "her", "their", "in", "on", "at", "after", "before"})


@dataclass(frozen=True, slots=True)
class Agency:
    """An action and the names of who did it, as one text gives them."""

    action: str  # the participle, normalised ("design")
    # The names in the by-phrase, lower case; or, for an agent named by a description
    # ("built by volunteers", "funded by the county council"), its content words.
    agents: frozenset[str]
    written: str  # the by-phrase as written, for a reason
    named: bool = True
    # The names of what was acted on, lower case, where the text names it ("Kestrel-1 was
    # built by ..."); empty where it does not ("It was built by ...").
    patients: frozenset[str] = frozenset()

    def of_same_patient(self, other: Agency) -> bool:
        """Whether the two may be of one thing: neither names it, or both name it alike."""
        return not self.patients or not other.patients or bool(self.patients & other.patients)


def agencies(text: str) -> list[Agency]:
    """Each "<participle> by <agent>", "came from <agent>" and "<Name> <verb in the past
    tense>" of ``text``, and the named party a by-phrase's action was "against"; an agent
    named by a description ("by the company") is read as unnamed, a pronoun ("by them", "It
    opened") gives nothing."""
    found: list[Agency] = []
    for pattern in (_BY_AGENT, _FROM_AGENT):
        for match in pattern.finditer(text):
            action = _matched_action(match)
            # The passive's subject, before its auxiliary: "Kestrel-1 was built by".
            passive = _AUXILIARY.split(_clause_before(text, match.start()), maxsplit=1)
            patients = _names(passive[0]) if len(passive) > 1 else frozenset()
            end = match.end()
            while True:  # the by-phrase, then each gapped one after it
                boundary = _PHRASE_END.search(text, end)
                stop = len(text) if boundary is None else boundary.start()
                phrase = text[end:stop].strip(" ,")
                names = _names(phrase)
                described = frozenset(content_words(phrase))
                if names or described:
                    found.append(Agency(action, names or described, f"{match.group(0)}{phrase}",
                                        named=bool(names), patients=patients))
                if (against := _AGAINST.match(text, stop)) is not None:
                    party = _PHRASE_END.split(text[against.end():], maxsplit=1)[0].strip(" ,")
                    if opposed := _names(party):
                        found.append(Agency(_OPPOSED + action, opposed,
                                            f"{against.group(0).lstrip()}{party}",
                                            patients=patients))
                gapped = _GAPPED_AGENT.match(text, stop)
                if gapped is None:
                    break
                patients, end = _names(gapped.group("patient")), gapped.end()
    for match in _OWNED_ACTION.finditer(text):
        if names := _names(match.group("agent")):
            found.append(Agency(_noun_action(match.group("noun")), names, match.group(0)))
    for match in _CONVERSE.finditer(text):
        converse = _CONVERSE_ACTIONS.get((match.group("verb").lower(),
                                          match.group("prep").lower()))
        phrase = _PHRASE_END.split(text[match.end():], maxsplit=1)[0].strip(" ,")
        if converse is None or not (names := _names(phrase)):
            continue
        # What changed hands, or, for "lost to", who lost.
        patients = (_names(_clause_before(text, match.start())) if converse == "beat"
                    else _names(match.group("object")))
        found.append(Agency(_action(converse), names, f"{match.group(0)}{phrase}",
                            patients=patients))
    for match in (*_NAMED_AGENT.finditer(text), *_APPOSED_AGENT.finditer(text)):
        if names := _names(match.group("agent")):
            acted_on = _PHRASE_END.split(text[match.end():], maxsplit=1)[0].split(",")[0]
            written = match.group(0) if match.re is _NAMED_AGENT else (
                f"{match.group('agent')} {match.group('verb')}")
            found.append(Agency(_action(match.group("verb")), names, written,
                                patients=_names(acted_on)))
    return found


def _clause_before(text: str, start: int) -> str:
    """The words of ``text``'s clause before ``start``."""
    return _CLAUSE_START.split(text[:start])[-1]


def _names(text: str) -> frozenset[str]:
    """The capitalised words of ``text``, lower case, but those that name no one."""
    return frozenset(name.lower() for name in _NAME.findall(text)) - _NO_NAME


def _matched_action(match: re.Match[str]) -> str:
    """The action a by-phrase or "came from" match names."""
    groups = match.groupdict()
    if groups.get("noun"):
        return _noun_action(groups["noun"])
    return _action(groups["verb"] if groups.get("verb") else _ORIGIN)


def _noun_action(noun: str) -> str:
    stem = _NOUN_ACTIONS[noun.lower()]
    return _ONE_ACTION.get(stem, stem)


def _action(verb: str) -> str:
    # "ran" and "run by" are one action: an irregular form is read as its base.
    stem = normalise_word(irregular_base(verb.lower()) or verb)
    return _ONE_ACTION.get(stem, stem)


def given_to_another_agent(claim: str, evidence: Sequence[Sequence[Agency]],
                           words: Sequence[frozenset[str]]) -> tuple[Agency, Agency, int] | None:
    """A role swap: the claim's action, the evidence's agency of the same action by someone
    else, and the index of the evidence text that says so (``evidence``: each text's
    ``agencies``; ``words``: each text's content words); None when the evidence gives the
    action to the claim's agent too, or to no one, or never names the claim's agent. Named
    there, the agent is named for something else, in whatever words ("the facade was the
    work of Tobias Lindqvist" against "the acoustics were designed by Tobias Lindqvist")."""
    given = [(index, agency) for index, read in enumerate(evidence) for agency in read]
    held = frozenset().union(*words)
    for claimed in agencies(claim):
        if not claimed.named:
            continue
        # Of the claim's thing, or with the two the other way round ("Ravensworth beat
        # Denholm City" for "Denholm City beat Ravensworth"): "Kestrel-2 by Halden Aerospace"
        # gives no action of Kestrel-1's.
        same = [(index, agency) for index, agency in given
                if agency.action == claimed.action and (
                    agency.of_same_patient(claimed) or agency.agents & claimed.patients)]
        named = all(normalise_word(name) in held for name in claimed.agents)
        if not named or not same or any(_same_agent(agency, claimed.agents)
                                        for _, agency in same):
            continue
        rivals = [(index, agency) for index, agency in same if agency.named]
        # An agent named by a description ("built by the company") may be the claim's,
        # unless the evidence gives the claim's agent another action ("paid for by the
        # Rotary Club and built by volunteers").
        if rivals or any(agency.named and agency.action != claimed.action
                         and _same_agent(agency, claimed.agents) for _, agency in given):
            index, rival = (rivals or same)[0]
            return claimed, rival, index
    return None


def _same_agent(given: Agency, claimed: frozenset[str]) -> bool:
    """Whether the evidence's agency names the claimed agent: the claim's names hold its
    agent's ("Aiko Tanaka" of "Dr Tanaka"), or its phrase as written holds the claim's ("Dr
    Aiko Tanaka", "John A. Roebling"); a shared surname alone does not ("Elliot Vance" is
    not "Clara Vance")."""
    written = {name.lower() for name in _NAME.findall(given.written)}
    return given.agents <= claimed or claimed <= written
