"""Values the evidence gives another subject: how evidence sentences are read clause by
clause, each clause with the subject it speaks of, so that a claim's values can be found
said of someone else ("Marrowick has 18,500 people" for "Caldry has 18,500 people")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from veritype._finite_verbs import first_verb
from veritype._text import (
    ANAPHORIC_LEAD,
    ARTICLES,
    DEFINITE_DESCRIPTION,
    content_words,
    has_negation,
)
from veritype.answers.relevance import is_demonym
from veritype.clauses import subject_of
from veritype.deadline import checked
from veritype.evidence import EvidencePack, Span
from veritype.views._dimensions import as_dimensions
from veritype.views._matching import TextValues, contains_run
from veritype.views._roles import Agency, agencies
from veritype.views._values import Value, ValueKind

# Where a sentence joins two statements, each about its own subject.
_CLAUSE_BREAK = re.compile(
    r",\s*(?:while|whereas|but|and|compared with|against)\s+|;\s*|\s+while\s+")
_PRONOUN = re.compile(r"\b(?:it|its|they|their|he|his|she|her)\b", re.IGNORECASE)
# How many clauses back a pronoun may reach for the clause that named its subject.
_PRONOUN_CHAIN = 4


@dataclass(frozen=True, slots=True)
class EvidenceSentence:
    span: Span
    values: TextValues
    words: frozenset[str]
    clauses: tuple[EvidenceClause, ...] = ()
    # Who did what, as the sentence says it (``views._roles``).
    agencies: tuple[Agency, ...] = ()
    # What a claim aligns with: its words, each dimension word read as its dimension
    # ("deep" as "depth"), and, when it opens with a pronoun or "The <noun>", the names of
    # the nearest sentence before it that does not ("It is 2,120 metres long" after "Lake
    # Orsa is a glacial lake").
    aligned: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class EvidenceClause:
    text: str
    values: TextValues
    # Whether it opens with a pronoun or "The <noun>", naming its subject in the one before.
    continues: bool
    words: frozenset[str]


# Every clause of the evidence, with the index of its sentence.
_Units = list[tuple[int, EvidenceClause]]


def evidence_sentences(pack: EvidencePack) -> list[EvidenceSentence]:
    """Each sentence of ``pack`` with its values, its content words, its clauses, who does
    what in it and the words a claim aligns with."""
    sentences: list[EvidenceSentence] = []
    named: frozenset[str] = frozenset()  # the names of the last sentence not leaning back
    # Reading a long pack's values takes seconds: a cancel stops it between two sentences.
    for span in checked(pack.sentences(), "the next evidence sentence"):
        text = pack.quote(span)
        clauses = tuple(EvidenceClause(part, TextValues.of(part), _leans_back(part),
                                       frozenset(content_words(part)))
                        for part in _clauses(text))
        values, words = TextValues.of(text), frozenset(content_words(text))
        leans_back = bool(clauses) and clauses[0].continues
        if not leans_back:
            named = frozenset(word for value in values.values for word in value.words)
        sentences.append(EvidenceSentence(
            span, values, words, clauses, tuple(agencies(text)),
            as_dimensions(words) | (named if leans_back else frozenset())))
    return sentences


def _clauses(text: str) -> list[str]:
    """The clauses of a sentence, split where ``_CLAUSE_BREAK`` matches outside brackets
    ("Christian Panucci (] ; born 12 April 1973) is ..." is one clause), and before a gapped
    clause (:func:`_gapped`)."""
    parts: list[str] = []
    start = 0
    for match in _CLAUSE_BREAK.finditer(text):
        head = text[:match.start()]
        if head.count("(") <= head.count(")") and head.count("[") <= head.count("]"):
            parts.append(text[start:match.start()])
            start = match.end()
    parts.append(text[start:])
    return [clause for part in parts if part.strip() for clause in _gapped(part)]


# A clause whose verb is left out, after a comma or "and": a name, perhaps a preposition, and
# a value ("Carrow was abandoned in 1870, Dunlish in 1902", "The X5 costs 999 euros and the
# X7 1,449 euros").
_GAP = re.compile(
    r"(?:,\s*|\s+and\s+)(?=(?:the\s+)?(?-i:[A-Z][\w'\u2019-]*)(?:\s+(?-i:[A-Z0-9][\w'\u2019-]*))*"
    r"\s+(?:(?:in|on|at|for|from|by|to)\s+)?[\d£€$])")


def _gapped(clause: str) -> list[str]:
    """``clause`` cut before each gapped clause it ends with, when the part before holds a
    value of the kind the gapped clause gives: "Carrow was abandoned in 1870, Dunlish in
    1902" is two clauses, one giving 1870 to Carrow and one 1902 to Dunlish; "born in Bonn,
    Germany in 1770" stays one, since nothing before the comma is a date."""
    parts: list[str] = []
    start = 0
    for match in _GAP.finditer(clause):
        head, tail = clause[start:match.start()], clause[match.end():]
        given = {value.kind for value in TextValues.of(tail).values
                 if value.kind is not ValueKind.ENTITY}
        if given and given & {value.kind for value in TextValues.of(head).values}:
            parts.append(head)
            start = match.end()
    parts.append(clause[start:])
    return parts


# A capitalised word: a clause without one names nothing.
_NAME_WORD = re.compile(r"\b[A-Z]")
# A time before the subject: "In 1998 the bridge was closed ...", "Today, the hall ...".
_TIME_LEAD = re.compile(
    r"(?:(?:In|On|During|After|Before|Since|Until|By|From)\s+(?:(?:early|late|mid-?)\s*)?"
    r"(?:[A-Z][a-z]+\s+)?\d{1,4}s?|Today|Later|Then|Now|Since then),?\s+(?=the\s+[a-z])")


def _leans_back(text: str) -> bool:
    stripped = text.lstrip()
    if stripped[:1].islower() and (not _NAME_WORD.search(stripped)
                                   or first_verb("It " + stripped) == len("It ")):
        # A clause cut from its sentence that names nothing, or that opens with its verb,
        # goes on with the subject before it: "Quillfield pays the first 16 weeks ..., and
        # the next 23 weeks at ...", "Lake Tessel is smaller ..., and drains into the River
        # Sile".
        return True
    if (lead := _TIME_LEAD.match(stripped)) is not None:
        stripped = "T" + stripped[lead.end() + 1:]
    if DEFINITE_DESCRIPTION.match(stripped) or ANAPHORIC_LEAD.match(stripped):
        return True
    # A pronoun further on leans back unless the clause names its own subject first:
    # "Helena Voss is a chemist who won the prize for her work" speaks of Helena Voss.
    return bool(_PRONOUN.search(stripped)) and not _names_its_subject(stripped)


def _names_its_subject(text: str) -> bool:
    """Whether the clause's subject is a name ("Helena Voss", "The Old Mill"), not a
    definite description with a common noun ("The bridge")."""
    subject = subject_of(text)
    return (subject is not None and subject[:1].isupper()
            and DEFINITE_DESCRIPTION.match(subject) is None)


def names_in(values: list[Value]) -> list[Value]:
    return [value for value in values if value.kind is ValueKind.ENTITY]


def _named(name: Value, values: TextValues,
           apart: frozenset[tuple[str, ...]] = frozenset()) -> bool:
    """Whether a text names ``name``: in full, or by a shorter name made of its words
    ("Crestwell" for "Crestwell Snacks", "Beethoven" for "Ludwig van Beethoven"; not
    "Solvik Trail" for "Solvik City"). A name of ``apart`` names another thing ("Pixelon 8
    Pro" is not the Pixelon 8)."""
    entities = [value for value in values.values if value.kind is ValueKind.ENTITY]
    kept = [value for value in entities if value.words not in apart]
    shorter = any(contains_run(name.words, value.words)
                  and max(len(word) for word in value.words) >= 4 for value in kept)
    if len(kept) < len(entities):
        return shorter
    return values.contains(name) or shorter


def _variants(names: list[Value], units: _Units) -> frozenset[tuple[str, ...]]:
    """The evidence's names that are variants of one of ``names`` the evidence also writes:
    one extends the other, and a number is part of either ("Pixelon 8" and "Pixelon 8 Pro",
    "Apollo" and "Apollo 11"). The evidence tells them apart; "Crestwell" stays a short name
    for "Crestwell Snacks"."""
    written = {value.words for _, clause in units for value in clause.values.values
               if value.kind is ValueKind.ENTITY}
    return frozenset(
        words for name in names if name.words in written for words in written
        if words != name.words
        and (contains_run(words, name.words) or contains_run(name.words, words))
        and any(word.isdigit() for word in (*words, *name.words)))


def _units(sentences: list[EvidenceSentence]) -> _Units:
    return [(index, clause) for index, sentence in enumerate(sentences)
            for clause in sentence.clauses]


def _read(units: _Units, position: int) -> list[TextValues]:
    """What the clause at ``position`` says of its subject: itself, and, when it opens with
    a pronoun or "The <noun>", the clause that named that subject: the nearest one before it
    that does not itself open so. "Rosalind Franklin was a chemist. She worked at King's
    College from 1951. She died in 1958." states 1958 of Rosalind Franklin."""
    clause = units[position][1]
    if not clause.continues:
        return [clause.values]
    for back in range(position - 1, max(position - 1 - _PRONOUN_CHAIN, -1), -1):
        if not units[back][1].continues:
            return [units[back][1].values, clause.values]
    return [clause.values]


def _naming(units: _Units, name: Value,
            apart: frozenset[tuple[str, ...]] = frozenset()) -> list[bool]:
    """For each clause, whether it names ``name``, read as :func:`_read` reads it (``apart``:
    see :func:`_named`)."""
    return [any(_named(name, values, apart) for values in _read(units, position))
            for position in range(len(units))]


# "The head chef of the Old Mill", "The most common side effect of Vaccine A": a claim that
# opens with an attribute of a name speaks of that name.
_ATTRIBUTE_OF = re.compile(r"The(?:\s+[a-z][\w-]*){1,4}\s+of\s+(?:the\s+)?")


def _claim_subject(text: str, names: list[Value]) -> Value | None:
    """The name the claim speaks of: the one it opens with ("The" and a quotation mark
    aside), or the one an opening attribute is of ("The population of Caldry is ...")."""
    opening = text.lstrip().lstrip("'\"\u2018\u201c")
    opening = opening[4:] if opening.startswith("The ") else opening
    attribute = _ATTRIBUTE_OF.match(text.lstrip())
    for name in names:
        if opening.lower().startswith(" ".join(name.words)) or (
                attribute is not None
                and text.lstrip()[attribute.end():].lower().startswith(" ".join(name.words))):
            return name
    return None


def swapped_value(text: str, claim_values: list[Value], sentences: list[EvidenceSentence]
                  ) -> tuple[Value, Value, int] | None:
    """A number, date or amount of the claim that the evidence states only for another
    subject, while a clause naming every name of the claim states a different value of
    that kind: "Caldry has 18,500 people" against "Marrowick has a population of 18,500,
    while Caldry is home to 7,200 people." Returns the claim's value, the evidence's and
    the sentence that states it, from the clause sharing the most of the claim's words
    (``text``). A clause that opens with a pronoun or "The <noun>" reads
    with the one before it, so a value stated after "It" is bound to the name before."""
    units = _units(sentences)
    # Only names the evidence writes as names: capitalised inside a sentence or of two words
    # or more ("Norvik Foods and Tallis Bakeries supply ..."), not just as the one first word
    # of a sentence ("Belief in ..." names nothing).
    names = [name for name in names_in(claim_values) if any(
        value.kind is ValueKind.ENTITY and (value.start > 0 or len(value.words) > 1)
        and (contains_run(name.words, value.words) or contains_run(value.words, name.words))
        for _, clause in units for value in clause.values.values)]
    if not names or len(names) < len(names_in(claim_values)):
        return None

    words = frozenset(content_words(text))
    apart = _variants(names, units)
    # For each clause, whether it names every name of the claim.
    names_all = [all(said) for said in zip(*(_naming(units, name, apart) for name in names),
                                           strict=True)]

    for value in claim_values:
        if value.kind is ValueKind.ENTITY:
            continue
        if any(clause.values.contains(value) and named
               for named, (_, clause) in zip(names_all, units, strict=True)):
            continue
        rivals = [(other, index, len(words & clause.words))
                  for named, (index, clause) in zip(names_all, units, strict=True)
                  if named and (other := clause.values.conflict(value, claim_values))]
        if rivals:
            # The clause of the claim's own fact, by the words it shares: "abandoned in
            # 1870", not "built in 1742", sets 1902 aside for "Carrow was abandoned in 1902".
            other, index, _ = max(rivals, key=lambda rival: rival[2])
            return value, other, index
    return None


# The share of the claim's other words a clause must hold to state the claim of its subject.
_STATES_ALL_BUT_SUBJECT = 0.75
_REPORTING = frozenset("""say says said report reports reported announce announces announced
    claim claims claimed state states stated confirm confirms confirmed tell tells told warn
    warns warned recommend recommends recommended""".split())  # noqa: SIM905


def stated_of_another(text: str, claim_values: list[Value],
                      sentences: list[EvidenceSentence]
                      ) -> tuple[Value, Value, int, float] | None:
    """The claim said of another subject: a clause holds every other value of the claim and
    most of its other words, but names another subject and not the claim's, while the
    claim's subject is named elsewhere and no clause naming it holds those values. "Johannes
    Gutenberg set up the first printing press in England" against "William Caxton set up
    the first printing press in England at Westminster." Returns the claim's subject, the
    other subject, the clause's sentence and the share of the claim's words it holds."""
    names = names_in(claim_values)
    if has_negation(text):  # "X is not made from cow's milk" is the model's to read
        return None
    subject = _claim_subject(text, names)
    if subject is None:
        return None
    rest = [value for value in claim_values if value is not subject]
    words = set(content_words(text)) - set(content_words(subject.text))
    following = [word for word in text[subject.end:].replace(",", " ").split()
                 if word[:1].islower()][:3]
    # "Iran says ...", "Simi Valley, California, reported ...": the subject reports what
    # another may have done.
    if (len(words) < 2 or not _written_as_name(subject, sentences)
            or _REPORTING.intersection(following)):
        return None
    units = _units(sentences)

    def share(clause: EvidenceClause) -> float:
        if not all(clause.values.contains(value) for value in rest):
            return 0.0
        return len(words & clause.words) / len(words)

    # A variant of the subject's name the evidence also writes is another subject: what
    # "The Pixelon 8 Pro has" is not said of the Pixelon 8.
    apart = _variants([subject], units)
    named = _naming(units, subject, apart)
    # The claim holds of its subject where a clause naming it says most of it; a clause of
    # another subject that says all of it, where none of the subject's does, outweighs that:
    # "The most common side effect of Vaccine A was a headache" against "Vaccine A ...; its
    # most common side effect was a sore arm. Vaccine B ...; its most common side effect was
    # a headache."
    own = max((share(clause) for (_, clause), said in zip(units, named, strict=True)
               if said), default=None)
    if own is None or own >= 1.0:
        return None
    for position, ((index, clause), said) in enumerate(zip(units, named, strict=True)):
        held = share(clause)
        if said or held < _STATES_ALL_BUT_SUBJECT or (
                own >= _STATES_ALL_BUT_SUBJECT and held < 1.0):
            continue
        # The other name is the clause's subject: it opens the clause ("William Caxton set
        # up ...", "The Eiffel Tower was built ..."), or the one a clause cut from its
        # sentence goes on from ("... is smaller, and drains into the River Sile"), not an
        # object inside it.
        cut = clause.continues and clause.text.lstrip()[:1].islower()
        opening = _read(units, position)[0] if cut else clause.values
        first = next((value for value in opening.values
                      if value.kind is ValueKind.ENTITY), None)
        if (first is not None and first.start <= len("The ")
                and _written_as_name(first, sentences) and not is_demonym(first.words[-1])
                and (first.words in apart
                     or not any(contains_run(first.words, value.words)
                                or contains_run(value.words, first.words)
                                for value in (subject, *names_in(rest))))):
            return subject, first, index, held
    return None


def given_to_another(text: str, claim_values: list[Value],
                     sentences: list[EvidenceSentence]
                     ) -> tuple[Value, Value, Value, int, float] | None:
    """A name the claim gives its subject that the evidence gives only other subjects, while
    a clause naming the claim's subject says the rest of the claim with another name in its
    place: "Ludwig van Beethoven was born in Salzburg" against "Wolfgang Amadeus Mozart was
    born in Salzburg ... Ludwig van Beethoven was born in Bonn in 1770". Returns the claim's
    name, the evidence's, the claim's subject, the clause's sentence and the share of the
    claim's other words that clause holds."""
    names = names_in(claim_values)
    if len(names) < 2 or has_negation(text):
        return None
    subject = _claim_subject(text, names)
    if subject is None or not _written_as_name(subject, sentences):
        return None
    units = _units(sentences)
    named = _naming(units, subject)
    if not any(named):
        return None
    own = set(content_words(subject.text))
    for value in (name for name in names if name is not subject):
        # Given to the subject anywhere (a shorter form of the name, or read through "It")
        # is no swap.
        if not _written_as_name(value, sentences) or any(
                said and _gives(text, value, clause)
                for said, (_, clause) in zip(named, units, strict=True)):
            continue
        words = set(content_words(text)) - own - set(content_words(value.text))
        words -= {word for other in claim_values for word in content_words(other.text)}
        if not words:
            continue
        for (index, clause), said in zip(units, named, strict=True):
            held = len(words & clause.words) / len(words)
            if not said or held < _STATES_ALL_BUT_SUBJECT:
                continue
            rival = next((other for other in clause.values.values
                          if other.kind is ValueKind.ENTITY and other.start > 0
                          and not any(contains_run(other.words, mine.words)
                                      or contains_run(mine.words, other.words)
                                      for mine in names)
                          and _written_as_name(other, sentences)
                          and same_slot(text, value, clause.text, other)), None)
            if rival is not None:
                return value, rival, subject, index, held
    return None


def _gives(text: str, value: Value, clause: EvidenceClause) -> bool:
    """Whether a clause names ``value`` as the claim does: as written, or as a longer or
    shorter name in the claim's place for it. "studied at Leiden University" does not give
    "born in Leiden"."""
    return any(
        other.kind is ValueKind.ENTITY
        and (other.words == value.words
             or ((contains_run(other.words, value.words) or contains_run(value.words,
                                                                         other.words))
                 and same_slot(text, value, clause.text, other)))
        for other in clause.values.values)




def same_slot(text: str, value: Value, other_text: str, other: Value) -> bool:
    """Whether ``other`` stands where ``value`` stands: the same word before it ("born in
    Salzburg", "born in Bonn") or after it ("an Ethiopian runner", "the Kenyan runner"),
    articles aside; "defeated by Otto I" and "defeated at the Battle of Lechfeld" differ."""
    def around(where: str, found: Value) -> tuple[str | None, str | None]:
        before = [w for w in where[:found.start].lower().split() if w not in ARTICLES]
        after = [w for w in where[found.end:].lower().split() if w not in ARTICLES]
        # A comma or the sentence's end is no word: "Otto I, Holy ..." and "Western
        # Europe." share nothing; "runner." is "runner".
        return (before[-1] if before and before[-1].isalnum() else None,
                after[0].rstrip(".!?;:") or None if after and after[0][:1].isalnum() else None)

    mine, theirs = around(text, value), around(other_text, other)
    return any(word is not None and word == their for word, their in zip(mine, theirs,
                                                                        strict=True))


def _written_as_name(name: Value, sentences: list[EvidenceSentence]) -> bool:
    """Whether the evidence writes ``name`` as a name: of two words or more, or capitalised
    inside a sentence somewhere ("with Brazil", "at Leiden University"), not only as a
    sentence's first word ("Directed by ...", "Based on ...")."""
    return len(name.words) > 1 or any(
        value.kind is ValueKind.ENTITY and value.start > 0
        and contains_run(value.words, name.words)
        for sentence in sentences for value in sentence.values.values)
