"""Whose number it is, clause by clause: a claim's number that the evidence gives to another
thing of the same kind, named by a common noun rather than a name.

"At standard pressure, ethanol reaches its boiling point at 100 degrees Celsius" against
"At standard atmospheric pressure, water boils at 100 degrees Celsius. Ethanol ... boils at
... 78 degrees Celsius": every number and word of the claim is in the evidence, but the
clause that states 100 is about water, and the clause about ethanol states 78. A word of the
claim's subject that the clauses stating its number lack, while those clauses' own subjects
hold a word the claim lacks (the rival: "water"), and another clause that holds the subject
word but not the rival gives another value of the same kind, contradicts the claim. A
subject word the clause merely leaves unsaid ("In the placebo group, the average fall was 5
mmHg" for "systolic blood pressure fell by 5 mmHg in the placebo group") has no rival there,
and decides nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veritype._finite_verbs import first_verb
from veritype._text import content_families, content_words, tokens, unhedged, word_family
from veritype.views._dimensions import DEGREE_WORDS, as_dimensions
from veritype.views._matching import TextValues
from veritype.views._other_subjects import EvidenceClause, EvidenceSentence
from veritype.views._values import Value, ValueKind

# The most words a subject and a rival may have: a thing and its qualifiers.
_MAX_SUBJECT = 5
_MAX_RIVAL = 3
_LEADING_PHRASE = re.compile(
    r"\s*(?:at|in|on|over|under|for|during|after|before|from|to|with|by|within|across|among)\b",
    re.IGNORECASE)
_PARTICIPLE = re.compile(r"(?<=\w)\s+(?:[a-z]{2,}(?:ing|ed)|given|made|built|sold|held)\b")
# What a value is for, right after it: "12 euros for adults", "2 dollars per hour on
# weekdays", "140 euros in a double room" (a unit phrase of up to two words may come first),
# up to "and", a comma or the next value.
_PAIRED = re.compile(
    r"\s*(?:(?:a|an|per|each)\s+\w+\s+)?(?:for|in|on|at)\s+"
    r"(?P<what>(?:(?!and\b)[^\W\d][\w'\u2019-]*\s*){1,4})")
_LOWER_WORD = re.compile(r"(?<![\w'\u2019-])[a-z][a-z-]*")
# Words that loosen a number or name no thing: never a subject's qualifier.
_NOT_QUALIFIERS = DEGREE_WORDS | {"about", "averag"}


@dataclass(frozen=True, slots=True)
class RivalValue:
    """A claim's value the evidence states of a rival, and the value it gives the claim's
    thing: the clause's sentence, the claim's subject words it holds, and the rival's words,
    each as the claim and the evidence write them."""

    claimed: Value
    given: Value
    sentence: int
    subject: tuple[str, ...]
    rival: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Clause:
    """An evidence clause as the rule reads it: its sentence's index, its word families and
    the words of its subject."""

    sentence: int
    clause: EvidenceClause
    words: frozenset[str]
    subject: frozenset[str]


@dataclass(frozen=True, slots=True)
class QualifiedClauses:
    """An evidence pack's clauses, read once for every claim checked against it, and the
    word families the pack writes in lower case."""

    clauses: tuple[_Clause, ...]
    common: frozenset[str]


def qualified_clauses(sentences: Sequence[EvidenceSentence]) -> QualifiedClauses:
    """The clauses of ``sentences`` read for :func:`given_to_a_rival`."""
    # Word families, so that "Service prices" and "prices of services" share "service".
    clauses = tuple(
        item for index, sentence in enumerate(sentences) for clause in sentence.clauses
        for item in (_Clause(index, clause, as_dimensions(content_families(clause.text)),
                             subject_words(clause.text, clause.values.values, None)),
                     *_paired(index, clause)))
    # The paired readings are cut from their clauses: they add no word.
    common = frozenset(word_family(word) for sentence in sentences
                       for clause in sentence.clauses
                       for word in _LOWER_WORD.findall(clause.text))
    return QualifiedClauses(clauses, common)


def _paired(index: int, clause: EvidenceClause) -> list[_Clause]:
    """A clause that pairs each of several values of one kind with the thing after it
    ("Tickets cost 12 euros for adults and 6 euros for students") read as one clause per
    value ("Tickets cost 12 euros for adults"), whose subject is the thing it is for. None
    unless every value of the kind is so paired."""
    text = clause.text
    kinds: dict[tuple[ValueKind, str], list[Value]] = {}
    for value in clause.values.values:
        if value.kind not in (ValueKind.ENTITY, ValueKind.DATE):
            kinds.setdefault((value.kind, value.unit), []).append(value)
    paired: list[_Clause] = []
    for kind in kinds.values():
        if len(kind) < 2:
            continue
        ends = [other.start for other in kind[1:]] + [len(text)]
        bound = [_PAIRED.match(text, other.end, end) for other, end in zip(kind, ends,
                                                                            strict=True)]
        if any(match is None for match in bound):
            continue
        for other, match in zip(kind, bound, strict=True):
            assert match is not None
            what = match.group("what")
            read = f"{text[:kind[0].start]}{text[other.start:other.end]} {match.group(0)}"
            paired.append(_Clause(
                index, EvidenceClause(read, TextValues.of(read), clause.continues,
                                      frozenset(content_words(read))),
                as_dimensions(content_families(read)), _thing_words(what)))
    return paired


def given_to_a_rival(text: str, values: Sequence[Value],
                     evidence: QualifiedClauses) -> RivalValue | None:
    """The first of the claim's numbers (``text``, its ``values``) that the evidence gives to
    a rival of the claim's subject (see the module's docstring), or None."""
    subject = subject_words(text, values, evidence.common, head=True)
    # A long subject is a sentence's, not a thing's: "Other tennis guests include coach ...".
    if not subject or len(subject) > _MAX_SUBJECT:
        return None
    claim_words = as_dimensions(content_families(text))
    for value in values:
        if value.kind in (ValueKind.ENTITY, ValueKind.DATE) or _in_compound(
                text, value) or not _alone_of_its_kind(value, values):
            continue
        own = [item for item in evidence.clauses if item.clause.values.contains(value)
               and _alone_of_its_kind(value, item.clause.values.values)]
        lacking = frozenset(word for word in subject
                            if not any(word in item.words for item in own))
        if not own or not lacking:
            continue
        # The words of the stating clauses' subjects that the claim does not hold.
        rivals = frozenset().union(*(item.subject for item in own)) - claim_words
        for item in evidence.clauses:
            held, rival = lacking & item.words, rivals - item.words
            if not held or not rival or len(rival) > _MAX_RIVAL:
                continue
            given = item.clause.values.conflict(value, values)
            if given is not None:
                stating = " ".join(stated.clause.text for stated in own)
                return RivalValue(value, given, item.sentence, _as_written(held, text),
                                  _as_written(rival, stating))
    return None


def subject_words(text: str, values: Sequence[Value],
                  common: frozenset[str] | None = frozenset(), *, head: bool = False
                  ) -> frozenset[str]:
    """The content words before a text's first verb (its first number, when no verb is
    found), its values left out: what the text says its number is of. A capitalised first
    word read as a name is kept when ``common`` holds it, words the evidence writes in lower
    case: then it is a common noun that qualifies ("Winter daytime temperatures" where the
    evidence says "in winter", "Goods became ..."); with ``common`` None, always (an
    evidence clause's subject, read as a rival, may be a name). With ``head``, the subject's
    head and any leading phrase of place or time ("At weekends, parking ..."): an apposition
    ("Autumn, the wettest season in the town, ...") and a participle's phrase ("... priced at
    60 euros") are left out."""
    at = first_verb(text)
    if at is None:
        at = min((value.start for value in values if value.kind is not ValueKind.ENTITY),
                 default=len(text))
    blanked = list(text[:at])
    for value in values:
        kept = ((value.kind is ValueKind.ENTITY and value.start == 0 and len(value.words) == 1
                 and (common is None or word_family(value.text) in common))
                or _in_compound(text, value))
        if value.start < at and not kept:
            end = min(value.end, at)
            blanked[value.start:end] = " " * (end - value.start)
    before = "".join(blanked)
    if head:
        parts = [part for part in before.split(",") if part.strip()]
        leading = 0
        while leading + 1 < len(parts) and _LEADING_PHRASE.match(parts[leading]):
            leading += 1
        before = " ".join(parts[:leading + 1])
        # "A six-course menu priced at 60 euros is served ...": the participle opens what is
        # said of the subject, not a qualifier of it.
        if (participle := _PARTICIPLE.search(before)) is not None:
            before = before[:participle.start()]
    return _thing_words(unhedged(before)) - _NOT_QUALIFIERS


def _thing_words(text: str) -> frozenset[str]:
    """The word families of ``text`` that may name a thing: words of three letters or
    more, no numbers."""
    return frozenset(word for word in as_dimensions(content_families(text))
                     if word.isalpha() and len(word) > 2)


def _as_written(families: frozenset[str], text: str) -> tuple[str, ...]:
    """Each word family as ``text`` first writes it ("larg" as "large"), in text order."""
    written: dict[str, str] = {}
    for match in tokens(text):
        family = word_family(match.group(0))
        if family in families:
            written.setdefault(family, match.group(0).lower())
    return (*written.values(), *sorted(families - written.keys()))


def _in_compound(text: str, value: Value) -> bool:
    """Whether a value is part of a hyphenated word ("a six-course menu", "a two-year
    warranty"): it describes the noun, it is no measure said of the subject."""
    return text[value.end:value.end + 1] == "-" or text[value.start - 1:value.start] == "-"


def _alone_of_its_kind(value: Value, values: Sequence[Value]) -> bool:
    """Whether ``values`` (a text's, ``value`` among them) hold no other value of its kind
    and unit: a text that gives several ("won 11 of his 14 games") binds none of them to
    its subject alone; :func:`_paired` reads a clause that pairs each with its thing."""
    return sum(other.kind is value.kind and other.unit == value.unit for other in values) <= 1
