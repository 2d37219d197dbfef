"""How a sentence is read: its verb, its coordinated clauses, its subject, and what a
pronoun-led claim refers to (see ``veritype.claims`` for how claims are made of these)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from veritype._text import (
    ANAPHORIC_LEAD,
    content_words,
)

THERE_LEAD = re.compile(r"there\b", re.IGNORECASE)
_PRONOUN_SUBJECT = r"(?:he|she|it|they|we|this|these|those|its|his|her|their)"
_AUXILIARY = (
    r"(?:is|are|was|were|has|have|had|does|do|did|will|would|can|could|may|might|must|"
    r"shall|should)"
)
# A coordinated clause with a subject of its own: ", and it was ...", "; the bridge has ...".
_CLAUSE_WITH_SUBJECT = re.compile(
    rf"(?:,\s*(?:and|but|while|whereas)\s+|;\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+)"
    rf"(?=(?:{_PRONOUN_SUBJECT}|(?:the|a|an)\s+\w+(?:\s+\w+)?|[A-Z]\w+(?:\s+[A-Z]\w+)*)"
    rf"\s+{_AUXILIARY}\b)",
)
# A coordinated predicate sharing the sentence subject: "... and was rebuilt in 1950".
# A comma splice: ", it is ...", where a new clause opens with a pronoun subject and a verb.
_COMMA_SPLICE = re.compile(
    rf",\s+(?=(?:{_PRONOUN_SUBJECT})\s+(?:{_AUXILIARY}|\w+(?:ed|es))\b)", re.IGNORECASE
)
_CLAUSE_SHARED_SUBJECT = re.compile(
    rf"(?:,\s*and\s+|\s+and\s+|,\s*but\s+|\s+but\s+)(?={_AUXILIARY}\s+\w+)"
)
_SUBJECT = re.compile(rf"^(.*?)\s+(?:{_AUXILIARY}|\w+(?:ed|es))\b", re.IGNORECASE)


def has_verb(text: str) -> bool:
    """Whether ``text`` has a verb (an auxiliary or a word in -ed/-es): a statement, not a
    bare phrase such as a name or a date."""
    return re.search(rf"\b{_AUXILIARY}\b|\b\w+(?:ed|es)\b", text, re.IGNORECASE) is not None


def _is_substantive(text: str) -> bool:
    return len(content_words(text)) >= 2


@dataclass(frozen=True, slots=True)
class Clause:
    start: int  # offsets relative to the sentence
    end: int
    text: str
    borrowed_subject: bool


def split_clauses(sentence: str) -> list[Clause]:
    """Split a sentence into clauses that each state their own fact.

    A part is only split off when both sides still carry a verb and at least two
    content words, so "salt and pepper are sold together" stays whole.
    """
    cuts = [(m.start(), m.end(), False) for m in _CLAUSE_WITH_SUBJECT.finditer(sentence)]
    taken = {cut[0] for cut in cuts}
    cuts += [
        (m.start(), m.end(), False)
        for m in _COMMA_SPLICE.finditer(sentence)
        if m.start() not in taken
    ]
    taken = {cut[0] for cut in cuts}
    cuts += [
        (m.start(), m.end(), True)
        for m in _CLAUSE_SHARED_SUBJECT.finditer(sentence)
        if m.start() not in taken
    ]
    cuts.sort()
    subject = ""

    bounds: list[tuple[int, int, bool]] = []
    start, borrowed = 0, False
    for separator, clause_start, shares_subject in cuts:
        left, right = sentence[start:separator], sentence[clause_start:]
        if has_verb(left) and has_verb(right) and _is_substantive(left) and (
            _is_substantive(right)
        ):
            if shares_subject and not subject:
                found = _SUBJECT.match(sentence[:separator])
                if found is None:
                    continue
                subject = found.group(1)
            bounds.append((start, separator, borrowed))
            start, borrowed = clause_start, shares_subject
    bounds.append((start, len(sentence), borrowed))

    clauses: list[Clause] = []
    for begin, end, uses_subject in bounds:
        raw = sentence[begin:end]
        begin += len(raw) - len(raw.lstrip())
        end = begin + len(raw.strip())
        text = sentence[begin:end].rstrip(",;")
        if uses_subject:
            text = f"{subject} {text}"
        clauses.append(Clause(begin, end, as_sentence(text), uses_subject))
    return clauses


def as_sentence(text: str) -> str:
    text = text.strip()
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    if text and text[-1] not in ".!?\"'\u201d":
        text += "."
    return text


# Attributions and labels that open a sentence without stating a fact of their own.
_LEADING_NAME = re.compile(
    r"(?:The\s+)?(?!(?:In|On|At|By|For|From|With|After|Before|During|Since|As|If|When|While|"
    r"Although|Because|However|Yes|No|The|A|An|It|He|She|They|We|This|That|These|Those|There|"
    r"Its|His|Her|Their)\b)[A-Z][\w'\u2019.&-]*(?:\s+(?:(?:of|de|la|von|van|the|and|&)\s+)*"
    r"[A-Z0-9][\w'\u2019.&-]*)*"
)
_PERSONAL_LEAD = re.compile(r"(?:it|he|she|they)\s+(?=\w)", re.IGNORECASE)
_POSSESSIVE_LEAD = re.compile(r"(?:its|his|her|their)\s+(?=\w)", re.IGNORECASE)
DESCRIPTION_LEAD = re.compile(r"[Tt]he\s+([a-z][\w-]*)\s+(?=\w)")
HEADING = re.compile(r"#{1,6}[ \t]+(.+?)[ \t#]*$")
# "The new bridge" before its verb; plural nouns end in -es too, so only auxiliaries and
# past tenses count as the verb here.
_DEFINITE_SUBJECT = re.compile(rf"(The\s+.*?)\s+(?:{_AUXILIARY}|\w+ed)\b")


def heading_text(line: str) -> str | None:
    """The text of a Markdown heading line ("# Tower Bridge" → "Tower Bridge"), else None."""
    heading = HEADING.match(line)
    return None if heading is None else heading.group(1)


def subject_of(text: str) -> str | None:
    """The subject a later pronoun can stand for: a leading name ("Tower Bridge"), else a
    short definite noun phrase before the first verb ("The new bridge"); None when it opens
    with a pronoun, a preposition or has no clear subject."""
    if ANAPHORIC_LEAD.match(text) or THERE_LEAD.match(text):
        return None
    name = _LEADING_NAME.match(text)
    if name is not None and (name.end() == len(text) or not text[name.end()].isalnum()):
        found = name.group(0).rstrip(".")
        return found if len(found.split()) <= 8 else None
    phrase = _DEFINITE_SUBJECT.match(text)
    if phrase is None:
        return None
    words = phrase.group(1).split()
    return phrase.group(1) if len(words) <= 5 else None


def _agrees(pronoun: str, subject: str) -> bool:
    """Whether ``pronoun`` can stand for ``subject``: "they" for a plural ("The trials"),
    "he"/"she" for a person's name, "it" for a name or a singular ("The trial"); "The trial
    enrolled patients. They ..." speaks of the patients, not the trial."""
    last = subject.split()[-1]
    named = last[:1].isupper()
    plural = last.endswith("s") and not last.endswith(("ss", "us", "is")) and not named
    if pronoun in ("they", "their"):
        return plural
    if pronoun in ("he", "she", "his", "her"):
        return named and not subject.startswith("The ")
    return not plural


def resolve(text: str, subject: str | None) -> str:
    """``text`` with its opening pronoun, possessive or description of ``subject`` replaced by
    ``subject``; unchanged when it opens with none of them or there is no subject."""
    if not subject:
        return text
    lead = _PERSONAL_LEAD.match(text) or _POSSESSIVE_LEAD.match(text)
    if lead is not None and _agrees(lead.group(0).strip().lower(), subject):
        if lead.re is _PERSONAL_LEAD:
            return subject + " " + text[lead.end():]
        owner = subject + ("\u2019" if subject.endswith("s") else "'s")
        return owner + " " + text[lead.end():]
    lead = DESCRIPTION_LEAD.match(text)
    if lead is not None and lead.group(1).lower() in subject.lower().split()[1:]:
        return subject + " " + text[lead.end():]
    return text
