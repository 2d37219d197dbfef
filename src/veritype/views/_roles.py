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

from veritype._text import normalise_word

# "<participle> by <agent>": the agent runs to the end of the clause or to a word that
# starts another phrase ("... by the shipping family Verhoeven in 1962").
_BY_AGENT = re.compile(
    r"\b(?P<verb>[a-z]{3,}(?:ed|en)|made|built|led|held|paid|sold|won|bought|taught|drawn|"
    r"given|sent|told|brought|found|run|begun|done)\s+by\s+")
_PHRASE_END = re.compile(
    r"[;.!?()]|\s(?:in|on|at|for|with|from|to|during|after|before|until|since|but|while|"
    r"which|who|that|as|when|where|because|although|though|was|were|is|are)\s",
    re.IGNORECASE)
_NAME = re.compile(r"\b[A-Z][\w'\u2019-]+")
# "Ida Kraal designed the building": a name, then a verb in the past tense.
_NAMED_AGENT = re.compile(
    r"(?P<agent>(?:[A-Z][\w'\u2019-]+\s+)*[A-Z][\w'\u2019-]+)\s+"
    r"(?P<verb>[a-z]{3,}ed|made|built|led|held|paid|sold|won|bought|taught|drew|gave|sent|"
    r"told|brought|found|ran|began|wrote|founded)\b(?!\s+by\b)")
# "The idea came from Rowland Hill": whose idea it was, as "proposed by" says.
_FROM_AGENT = re.compile(r"\b(?:came|comes|originated|originates)\s+from\s+")
_ORIGIN = "proposed"
# Verbs that name one action, each read as the first of its group: "constructed by" gives the
# action "built by" gives.
_ONE_ACTION = {stem: group[0] for group in (
    ("propos", "suggest", "invent", "conceiv", "devis", "originat"),
    ("built", "construct", "erect"),
    ("found", "establish"),
    ("wrote", "written"),
    ("donat", "gave", "given", "bequeath"),
    ("drew", "drawn"),
) for stem in group}
# Sentence openers that are no one's name.
_NO_NAME = frozenset({"the", "a", "an", "it", "he", "she", "they", "this", "that", "its",
                      "his", "her", "their", "in", "on", "at", "after", "before"})


@dataclass(frozen=True, slots=True)
class Agency:
    """An action and the names of who did it, as one text gives them."""

    action: str  # the participle, normalised ("design")
    agents: frozenset[str]  # the names in the by-phrase, lower case
    written: str  # the by-phrase as written, for a reason


def agencies(text: str) -> list[Agency]:
    """Each "<participle> by <named agent>", "came from <named agent>" and "<Name> <verb in
    the past tense>" of ``text``; an agent naming no one ("by the company", "It opened")
    gives nothing."""
    found: list[Agency] = []
    for pattern in (_BY_AGENT, _FROM_AGENT):
        for match in pattern.finditer(text):
            phrase = _PHRASE_END.split(text[match.end():], maxsplit=1)[0].strip(" ,")
            names = frozenset(name.lower() for name in _NAME.findall(phrase)) - {"the"}
            if names:
                verb = match.group("verb") if pattern is _BY_AGENT else _ORIGIN
                found.append(Agency(_action(verb), names, f"{match.group(0)}{phrase}"))
    for match in _NAMED_AGENT.finditer(text):
        names = frozenset(name.lower() for name in match.group("agent").split()) - _NO_NAME
        if names:
            found.append(Agency(_action(match.group("verb")), names, match.group(0)))
    return found


def _action(verb: str) -> str:
    stem = normalise_word(verb)
    return _ONE_ACTION.get(stem, stem)


def given_to_another_agent(claim: str, evidence: Sequence[Sequence[Agency]]
                           ) -> tuple[Agency, Agency, int] | None:
    """A role swap: the claim's action, the evidence's agency of the same action by someone
    else, and the index of the evidence text that says so (``evidence``: each text's
    ``agencies``); None when the evidence gives the action to the claim's agent too, gives
    it to no one, or never names the claim's agent in another role."""
    given = [(index, agency) for index, read in enumerate(evidence) for agency in read]
    for claimed in agencies(claim):
        same = [(index, agency) for index, agency in given if agency.action == claimed.action]
        if any(agency.agents & claimed.agents for _, agency in same):
            continue
        elsewhere = any(agency.agents & claimed.agents for _, agency in given
                        if agency.action != claimed.action)
        if same and elsewhere:
            index, rival = same[0]
            return claimed, rival, index
    return None
