"""What a clause says of another subject, read by the words before its verb rather than by
names alone: "The plover feeds in shallow water" against "The heron feeds in shallow water;
the plover feeds on open gravel", "Line 2 runs from Northgate to the airport" against "Line 1
of the metro runs from Northgate to the airport ... Line 2 ... runs from the harbour"; and a
name the claim gives its subject where the subject's clause gives another ("The island's
airport is near Vell" against "The island's airport is near Mardon").

Each clause's subject is read as the words before its first verb (an opening phrase of time
or place and an appositive set aside); two subjects are one when the words of one hold the
other's ("the sourdough" and "the bakery's sourdough"), so "Line 1" and "Line 2" differ. A
name and a description are never told apart, for a description may stand for the name ("The
company's headquarters are ..." after "Pixelon ..."): only two names, or two descriptions,
are two subjects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veritype._finite_verbs import first_verb, is_adverb
from veritype._text import (
    STOPWORDS,
    content_words,
    has_negation,
    normalise_word,
    surface_canonical,
    tokens,
)
from veritype.views._matching import TextValues
from veritype.views._other_subjects import EvidenceSentence, same_slot
from veritype.views._values import Value, ValueKind

# Words that open a subject without naming it.
_DETERMINERS = frozenset("""the a an its their his her our this that these those only both
    each all some most many such single""".split())  # noqa: SIM905
_PRONOUNS = frozenset({"it", "they", "he", "she", "we", "which", "who", "those", "these",
                       "this", "that"})
# A phrase of time or place before the subject: "In the trial, patients on drug X lost ...",
# "In 2018 the bakery moved ...", "At the time of its opening it was ...".
_OPENING_PHRASE = re.compile(
    r"(?:In|On|At|During|After|Before|Since|By|For|Under|Over|Across|From|Until)\s+"
    r"(?:[^,]{0,60},\s*|(?:(?:early|late|mid-?)\s*)?(?:[A-Z][a-z]+\s+)?\d{1,4}s?\s+"
    r"|the\s+time\s+of\s+\w+\s+\w+\s+)")
# How many clauses back a clause cut from its sentence may reach for its subject.
_BACK = 4
# The fewest predicate words a claim needs for a clause holding them all to say it.
_FEWEST = 2


@dataclass(frozen=True, slots=True)
class _Subject:
    words: frozenset[str]  # normalised, in American spelling
    # Written as a name: capitalised past its first word or holding a digit ("Line 2",
    # "drug Y", "Lumo Max"), or opening with a word the evidence writes as a name.
    named: bool

    def same(self, other: _Subject) -> bool:
        return self.words <= other.words or other.words <= self.words


def _subject(text: str, capitalised: frozenset[str]) -> _Subject | None:
    """The subject of a clause (``capitalised``: the words the evidence writes as names).
    None when the clause has no verb, or its subject is only a pronoun or nothing ("drains
    into the River Sile", "It opened in 1998")."""
    stripped = text.strip()
    if opening := _OPENING_PHRASE.match(stripped):
        stripped = stripped[opening.end():]
    if not stripped:
        return None
    stripped = stripped[0].upper() + stripped[1:]
    verb = first_verb(stripped)
    if verb is None:
        return None
    head = [match.group(0) for match in tokens(stripped[:verb].split(",", 1)[0])]
    lowered = [word.lower().replace("\u2019", "'") for word in head]
    # "The HTC Dream reportedly reached ...": an adverb before the verb is no subject's.
    kept = [index for index, word in enumerate(lowered)
            if word not in _DETERMINERS and not is_adverb(word)]
    if not kept or lowered[kept[0]] in _PRONOUNS:
        return None
    words = _naming_words(" ".join(head[index] for index in kept))
    if not words:
        return None
    named = any(head[index][:1].isupper() or any(c.isdigit() for c in head[index])
                for index in kept if index > 0) or lowered[kept[0]].removesuffix(
                    "'s") in capitalised
    return _Subject(words, named)


def _naming_words(text: str) -> frozenset[str]:
    """The words of ``text`` that can name a subject, normalised: a one-letter word names
    ("the Lumo S", "drug Y"); determiners, pronouns ("those on drug Y") and other
    stopwords do not."""
    words = (match.group(0).lower().replace("\u2019", "'") for match in tokens(text))
    return frozenset(normalise_word(word.removesuffix("'s")) for word in words
                     if word not in _DETERMINERS and word not in _PRONOUNS
                     and (word not in STOPWORDS or len(word) == 1))


@dataclass(frozen=True, slots=True)
class _ReadClause:
    sentence: int
    text: str  # as written: the offsets of ``values`` are in it
    words: frozenset[str]  # content words, in American spelling
    subject: _Subject | None
    values: TextValues


def _capitalised(sentences: list[EvidenceSentence]) -> frozenset[str]:
    """The words the evidence writes as names: capitalised inside a sentence, or never
    written in lower case ("Pixelon" opening every sentence it is in)."""
    inside = {value.words[0] for sentence in sentences
              for value in sentence.values.values if value.start > 0 and value.words}
    lower: set[str] = set()
    upper: set[str] = set()
    for sentence in sentences:
        for clause in sentence.clauses:
            for match in tokens(clause.text):
                word = match.group(0).replace("\u2019", "'").removesuffix("'s")
                (upper if word[:1].isupper() else lower).add(word.lower())
    return frozenset(inside | (upper - lower))


@dataclass(frozen=True, slots=True)
class DescribedClauses:
    """Every clause of an evidence pack with its subject, read once per pack."""

    clauses: tuple[_ReadClause, ...]
    capitalised: frozenset[str]  # the words the evidence writes as names


def described_clauses(sentences: list[EvidenceSentence]) -> DescribedClauses:
    """The clauses of ``sentences`` (``evidence_sentences`` of a pack), each with its
    subject."""
    capitalised = _capitalised(sentences)
    return DescribedClauses(tuple(_clause_subjects(sentences, capitalised)), capitalised)


def _clause_subjects(sentences: list[EvidenceSentence],
                     capitalised: frozenset[str]) -> list[_ReadClause]:
    """Each clause with its sentence's index, its words and its subject: its own, or, for
    a clause cut from its sentence that opens with its verb ("and drains into the River
    Sile"), that of the nearest clause before it that has one. A pronoun's subject is left
    unread: "The company's headquarters are in Tallinn, and it employs 3,400 people" speaks
    of the company."""
    read: list[_ReadClause] = []
    for index, sentence in enumerate(sentences):
        for clause in sentence.clauses:
            text = surface_canonical(clause.text.strip())
            subject = _subject(text, capitalised)
            if subject is None and text[:1].islower() and first_verb("It " + text) == 3:
                subject = next((before.subject for before in reversed(read[-_BACK:])
                                if before.subject is not None), None)
            read.append(_ReadClause(index, clause.text, frozenset(content_words(text)),
                                    subject, clause.values))
    return read


def said_of_another_description(text: str, described: DescribedClauses
                                ) -> tuple[str, int] | None:
    """The claim said of another subject: a clause holds every content word of the claim
    but its subject's, while its own subject is another of the same sort (two names, or two
    descriptions), sharing none of those words, and it does not name the claim's subject in
    full; the
    claim's subject is the subject of some clause, and none of those holds them all.
    Returns the other clause's text and its sentence's index."""
    if has_negation(text):  # a denial is the model's to read
        return None
    text = surface_canonical(text)
    subject = _subject(text, described.capitalised)
    if subject is None:
        return None
    words = frozenset(content_words(text)) - subject.words
    if len(words) < _FEWEST:
        return None
    read = described.clauses
    own = [clause for clause in read
           if clause.subject is not None and clause.subject.same(subject)]
    if not own or any(words <= clause.words for clause in own):
        return None
    for clause in read:
        other = clause.subject
        # A clause that names the claim's subject in full may say the claim in other order
        # ("Kestrel-1 was built by Orbis Systems" for "Orbis Systems built Kestrel-1").
        # A subject holding the claim's other words is misread ("Reheat it only once, ..."
        # opens with its verb).
        if (other is not None and not other.same(subject) and other.named == subject.named
                and not other.words & words and words <= clause.words
                and not subject.words <= _naming_words(surface_canonical(clause.text))):
            return clause.text.strip(), clause.sentence
    return None


def another_name_of_the_subject(text: str, claim_values: list[Value],
                                described: DescribedClauses
                                ) -> tuple[Value, Value, int] | None:
    """A name the claim gives its subject where a clause of that subject says the rest of
    the claim with another name in its place, and no clause of the subject gives the
    claim's: "The island's airport is near Vell" against "The island's airport is near
    Mardon, while its only hospital is in Vell." Returns the claim's name, the evidence's
    and the clause's sentence index."""
    if has_negation(text):
        return None
    subject = _subject(surface_canonical(text), described.capitalised)
    if subject is None:
        return None
    own = [clause for clause in described.clauses
           if clause.subject is not None and clause.subject.same(subject)]
    for value in claim_values:
        if value.kind is not ValueKind.ENTITY or set(value.words) <= subject.words or any(
                clause.values.contains(value) for clause in own):
            continue
        rest = (frozenset(content_words(surface_canonical(text))) - subject.words
                - set(content_words(value.text)))
        if not rest:
            continue
        for clause in own:
            if not rest <= clause.words:
                continue
            rival = next((other for other in clause.values.values
                          if other.kind is ValueKind.ENTITY
                          and not set(other.words) & subject.words
                          and same_slot(text, value, clause.text, other)), None)
            if rival is not None:
                return value, rival, clause.sentence
    return None
