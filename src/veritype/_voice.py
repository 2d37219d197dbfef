"""A one-clause statement in the other voice: "Odile Marchetti wrote the novel" as "The novel
was written by Odile Marchetti", and back.

A claim that restates its evidence with the voice turned round asserts what the evidence
asserts, yet NLI models read the two as contradicting each other often enough (contradiction
0.86 for "Odile Marchetti wrote the novel Salt Between Us." against "The novel Salt Between
Us was written by Odile Marchetti and first published in 1988") that a copy in the other
voice is read as a copy. Only the plain shapes are turned: a past tense with its subject and
object ("A wrote B ..."), and "B was|were <participle> by A ..."; anything after the object
or the agent (a time, a place: "in 1995") stays where it is. A negated clause is not turned.
"""

from __future__ import annotations

import re

from veritype._finite_verbs import first_verb, is_adverb, is_regular_past
from veritype._text import NEGATIONS
from veritype._verbs import DETERMINERS, irregular_base, irregular_parts

# Where the object of an active clause, or the agent of a passive one, ends: a preposition
# that opens a phrase of time, place or manner (in lower case: "Salt Between Us" is a
# name), a comma, or the end.
_PHRASE_END = re.compile(
    r",|\s(?=(?:in|on|at|for|with|from|to|during|after|before|until|since|as|when|while|"
    r"because|and|but|near|into|onto|across|through|under|over|between|by|about|around|"
    r"within|without|against|among|along|behind|beyond|throughout|via|per|than)\s)")
_PASSIVE = re.compile(
    r"^(?P<subject>.+?)\s+(?P<aux>was|were)\s+(?:(?P<adverb>[a-z]+)\s+)?"
    r"(?P<participle>[a-z]+)\s+by\s+(?P<rest>.+)$")
_FIRST_WORD = re.compile(r"\w+")
_END = re.compile(r"[.!?]+$")


def other_voice(text: str) -> tuple[str, ...]:
    """``text`` restated in the other voice, each way the number of its new subject may be
    read ("was" and "were"); empty when it is not one clause of the shapes turned here."""
    sentence = _END.sub("", text.strip())
    if not sentence or any(word in NEGATIONS for word in sentence.lower().split()):
        return ()
    passive = _PASSIVE.match(sentence)
    if passive is not None:
        active = _active(passive)
        return () if active is None else (active + ".",)
    return tuple(turned + "." for turned in _passives(sentence))


def _active(match: re.Match[str]) -> str | None:
    """"B was <participle> by A <rest>" as "A <past> B <rest>"."""
    participle = match["participle"]
    past = _past_of(participle)
    adverb = match["adverb"]
    if past is None or (adverb is not None and not is_adverb(adverb)):
        return None
    agent, rest = _head_and_rest(match["rest"])
    subject = match["subject"]
    if not agent or first_verb(subject) is not None or first_verb(agent) is not None:
        return None
    words = [_capitalised(agent), *([adverb] if adverb else []), past, _lowered(subject)]
    return " ".join(words) + rest


def _passives(sentence: str) -> list[str]:
    """"A <past> B <rest>" as "B was|were <participle> by A <rest>"."""
    at = first_verb(sentence)
    if at is None or at == 0:
        return []
    agent = sentence[:at].strip()
    verb, _, after = sentence[at:].partition(" ")
    participle = _participle_of(verb)
    adverb = agent.rsplit(" ", 1)[-1] if " " in agent else ""
    if participle is None or not after or "," in agent:
        return []
    if adverb and is_adverb(adverb):
        agent = agent.rsplit(" ", 1)[0]
    else:
        adverb = ""
    obj, rest = _head_and_rest(after)
    if not obj or not (_determiner(obj) or obj[:1].isupper()) or first_verb(obj):
        return []
    subject = _capitalised(obj)
    by = " ".join([*([adverb] if adverb else []), participle, "by", _lowered(agent)])
    return [f"{subject} {aux} {by}{rest}" for aux in ("was", "were")]


def _head_and_rest(text: str) -> tuple[str, str]:
    """The noun phrase ``text`` opens with, and what follows it (with its leading space or
    comma)."""
    end = _PHRASE_END.search(text)
    if end is None:
        return text.strip(), ""
    return text[:end.start()].strip(), text[end.start():]


def _past_of(participle: str) -> str | None:
    """The past tense of a past participle ("written" → "wrote", "designed" → "designed")."""
    base = irregular_base(participle)
    if base is not None:
        past, irregular_participle = irregular_parts(base)
        return past if participle == irregular_participle else None
    return participle if is_regular_past(participle) else None


def _participle_of(verb: str) -> str | None:
    """The past participle of a past tense ("wrote" → "written"); None for a word that is no
    past tense."""
    base = irregular_base(verb)
    if base is not None:
        past, participle = irregular_parts(base)
        return participle if verb == past else None
    return verb if is_regular_past(verb) else None


def _determiner(phrase: str) -> str | None:
    """The determiner ``phrase`` opens with, as written ("The", "its"), if any."""
    first = _FIRST_WORD.match(phrase)
    return first.group(0) if first is not None and first.group(0).lower() in DETERMINERS \
        else None


def _lowered(phrase: str) -> str:
    """A noun phrase moved inside a sentence: its determiner in lower case ("The cover" →
    "the cover"); a name as written."""
    determiner = _determiner(phrase)
    capitalised = determiner is not None and determiner == determiner.capitalize()
    return phrase[:1].lower() + phrase[1:] if capitalised else phrase


def _capitalised(phrase: str) -> str:
    return phrase[:1].upper() + phrase[1:]
