"""How a sentence is read: its coordinated clauses, its subject, and what a pronoun-led
claim refers to (see ``veritype.claims`` for how claims are made of these, and
``veritype._finite_verbs`` for where a sentence's verb stands)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from veritype._finite_verbs import NOMINAL_CUES, first_verb, has_verb, is_adverb
from veritype._tables import table_row_reading
from veritype._text import (
    ANAPHORIC_LEAD,
    DEFINITE_DESCRIPTION,
    HEADING,
    NEGATIONS,
    STOPWORDS,
    UPPER,
    content_words,
    normalise_word,
)
from veritype._verbs import (
    AUXILIARY,
    AUXILIARY_WORDS,
    BASE_FORMS,
    COORDINATED_PREDICATE,
    VerbForm,
    coordinates_a_predicate,
    opens_a_clause,
    verb_forms,
)
from veritype.evidence import Chunk, Span

THERE_LEAD = re.compile(r"there\b", re.IGNORECASE)
_PRONOUN_SUBJECT = r"(?:he|she|it|they|we|this|these|those|its|his|her|their)"
# A coordinated clause with a subject of its own: ", and it was ...", "; the bridge has ...".
_CLAUSE_WITH_SUBJECT = re.compile(
    rf"(?:,\s*(?:and|but|while|whereas)\s+|;\s*(?:and\s+|but\s+)?|\s+(?:and|but)\s+)"
    rf"(?=(?:{_PRONOUN_SUBJECT}|(?:the|a|an)\s+\w+(?:\s+\w+)?|[A-Z]\w+(?:\s+[A-Z]\w+)*)"
    rf"\s+{AUXILIARY}\b)",
)
# A coordinated predicate sharing the sentence subject: "... and was rebuilt in 1950".
# A comma splice or a coordinated clause: ", it is ...", ", and it flows ...", where a new
# clause opens with a pronoun subject and a verb.
_COMMA_SPLICE = re.compile(rf",\s+(?:(?:and|but)\s+)?(?={_PRONOUN_SUBJECT}\s+(\w))",
                           re.IGNORECASE)
# "and" or "but" between two predicates; group 1 is the word itself.
_AND_OR_BUT = re.compile(r"(?:,\s*|\s+)(and|but)\s+")
_CLAUSE_SHARED_SUBJECT = re.compile(
    rf"(?:,\s*|\s+)(?={COORDINATED_PREDICATE.pattern})(?:and|but)\s+"
)


def _is_substantive(text: str) -> bool:
    return len(content_words(text)) >= 2


def _whole_predicate(left: str, right: str, subject: str) -> bool:
    """Whether ``left`` (a clause with its verb) and ``right`` (a predicate after "and" or
    "but") each say something of their own: the left verb has words after it, so that "The
    company designs and builds bikes" is not cut into "The company designs.", and the right
    reads as a statement once given the subject."""
    verb = first_verb(left)
    if verb is None:
        return False
    after = left[verb:].split(maxsplit=1)
    if len(after) < 2 or not content_words(after[1]):
        return False
    # "The dam was built in 1936 and dedicated in 1935": after an auxiliary, a participle
    # may share it ("was dedicated") or stand alone ("was born ... and died"): not cut.
    opening = right.split(maxsplit=1)[0].lower() if right.split() else ""
    if after[0].lower() in AUXILIARY_WORDS and (
            opening.endswith("ed") or VerbForm.PARTICIPLE in verb_forms(opening)):
        return False
    return has_verb(f"{subject or left[:verb].strip()} {right}")


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
        if m.start() not in taken and first_verb(sentence[m.end():]) == m.start(1) - m.end()
    ]
    taken = {cut[0] for cut in cuts}
    cuts += [
        (m.start(), m.end(), True)
        for m in _CLAUSE_SHARED_SUBJECT.finditer(sentence)
        if m.start() not in taken
    ]
    taken = {cut[0] for cut in cuts}
    # "The X2 costs 199 euros, and the X4 costs 349 euros": a clause of its own after a
    # comma, whatever its verb.
    cuts += [(m.start(), m.end(), False) for m in _AND_OR_BUT.finditer(sentence)
             if m.start() not in taken and m.group(0).startswith(",")
             and opens_a_clause(sentence[m.start(1):].lower())]
    taken = {cut[0] for cut in cuts}
    # "... was born in 1819 and came to the throne in 1837": a finite verb after "and"
    # opens a second predicate of the same subject.
    lexical = {
        m.start() for m in _AND_OR_BUT.finditer(sentence)
        if m.start() not in taken and coordinates_a_predicate(sentence[m.start(1):].lower())
    }
    cuts += [(m.start(), m.end(), True) for m in _AND_OR_BUT.finditer(sentence)
             if m.start() in lexical]
    cuts.sort()
    subject = ""

    bounds: list[tuple[int, int, bool]] = []
    start, borrowed = 0, False
    for separator, clause_start, shares_subject in cuts:
        left, right = sentence[start:separator], sentence[clause_start:]
        if separator in lexical and not _whole_predicate(left, right, subject):
            continue
        if has_verb(left) and (has_verb(right) or separator in lexical) and _is_substantive(
            left) and _is_substantive(right):
            if shares_subject and not subject:
                verb = first_verb(left)
                if verb is None or not left[:verb].strip():
                    continue
                subject = left[:verb].strip()
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


# A name: capitalised words, perhaps joined by "of"/"the" ("The River Thames", "Bank of
# England", "Apollo 11", "Leonardo da Vinci").
_NAME = re.compile(
    rf"(?:The\s+)?[{UPPER}][\w'\u2019.&-]*"
    rf"(?:\s+(?:(?:of|de|da|di|del|du|la|le|von|van|der|the|and|&)\s+)*[{UPPER}0-9][\w'\u2019.&-]*)*"
)
# Capitalised words that open a sentence without naming anything: quantifiers ("Most of what
# stands today ..."), adverbs and conjunctions. Stopwords and negations are never names either.
_NOT_NAMES = frozenset(
    """many several half every another however today yesterday tomorrow although because
    unless though yes thus hence therefore meanwhile later earlier finally overall instead
    please according""".split()  # noqa: SIM905
)
# Function words a definite description may hold between its words ("The capital of France",
# "The 2022 tournament in Qatar", "The most visited museum").
_DESCRIPTION_LINKS = frozenset({"of", "in", "most", "more", "least"})
_PERSONAL_LEAD = re.compile(r"(?:it|he|she|they)\s+(?=\w)", re.IGNORECASE)
_POSSESSIVE_LEAD = re.compile(r"(?:its|his|her|their)\s+(?=\w)", re.IGNORECASE)
# An "it" that stands for nothing: "It is likely that ...", "It took ten years to ...",
# "It was not until 1990 that ...", "It was Napoleon who ...".
_EXPLETIVE_IT = re.compile(
    r"it\s+(?:(?:is|was|has\s+been|had\s+been|will\s+be|would\s+be|may\s+be|might\s+be|"
    r"seems|seemed|appears|appeared|remains|remained|becomes|became)\s+(?:not\s+)?"
    r"(?:\w+ly\s+)?(?:likely|unlikely|possible|impossible|important|necessary|clear|unclear|"
    r"true|false|known|believed|thought|said|estimated|reported|claimed|expected|assumed|"
    r"argued|suggested|rumou?red|worth|difficult|easy|hard|common|rare|usual|unusual|notable|"
    r"evident|obvious|apparent|essential|crucial|vital|surprising|understood|agreed|"
    r"recommended|advisable)\b"
    # "It takes 20 minutes to walk" is expletive; "It takes 20 minutes to the centre" is not.
    r"|(?:takes|took|cost|costs)\b(?=[^.;]*\bto\s+(?!(?:the|a|an|this|that|my|your|our|its|"
    r"their|his|her)\b)(?-i:[a-z]))|(?:rains|rained|snows|snowed)\b"
    r"|(?:is|was)\s+not\s+until\b"
    r"|(?:is|was)\s+(?-i:[A-Z])[\w.'\u2019-]*(?:\s+(?-i:[A-Z])[\w.'\u2019-]*)*\s+(?:who|that)\b)",
    re.IGNORECASE,
)
DESCRIPTION_LEAD = re.compile(r"[Tt]he\s+([a-z][\w-]*)\s+(?=\w)")


def heading_text(line: str) -> str | None:
    """The text of a Markdown heading line ("# Tower Bridge" → "Tower Bridge"), else None."""
    heading = HEADING.match(line)
    return None if heading is None else heading.group(1)


# "The island of Holmø", "The old mill village of Kvernes": a description of a name.
_DESCRIBED_NAME = re.compile(r"The(?:\s+[a-z][\w-]*){1,4}\s+of\s+[A-Z]")


def names_its_subject(sentence: str) -> bool:
    """Whether a later "it" can lead back to ``sentence``: it names its subject ("The
    Akashi Kaikyo Bridge is ...", "The island of Holmø lies ...", "The quickest way into
    town is the Airport Express train.") instead of opening with a pronoun or a description
    ("The bridge opened ...")."""
    subject = subject_of(sentence)
    return (ANAPHORIC_LEAD.match(sentence) is None and subject is not None
            and (DEFINITE_DESCRIPTION.match(sentence) is None
                 or _DESCRIBED_NAME.match(subject) is not None
                 or _specified_name(sentence) is not None))


# "The quickest way into town is the Airport Express train.": a description said to be a
# name; what a later "It" stands for is the name ("It leaves every 15 minutes").
# A name may be a numbered one written in lower case ("The cheaper option is airport bus 30"),
# and a relative clause after a comma says more of it ("..., which stops at the Harbour").
_SPECIFIED = re.compile(
    rf"\s(?:is|was)\s+(?P<name>(?:the\s+)?(?:[{UPPER}][\w'\u2019&-]*(?:\s+[{UPPER}0-9][\w'\u2019&-]*)*"
    r"(?:\s+[a-z][\w-]*)?|(?:[a-z][\w-]*\s+){1,3}[0-9]+[A-Za-z]?))\s*(?:,\s*which\s[^.]*)?\.?\s*$")


def _specified_name(sentence: str) -> str | None:
    """The name a sentence says its description is ("The quickest way into town is the
    Airport Express train." → "The Airport Express train"), when that is all it says but a
    relative clause on the name."""
    if DEFINITE_DESCRIPTION.match(sentence) is None:
        return None
    found = _SPECIFIED.search(sentence)
    if found is None or first_verb(sentence) != found.start() + 1:
        return None
    name = found["name"]
    if name[-1].isdigit() and any(word in STOPWORDS for word in name.split()[:-1]):
        return None  # "the longest in 1998" is no name
    return name[:1].upper() + name[1:]


# "The cover of Salt Between Us was designed ...": a description of a thing with its owner
# named; the owner runs over capitalised words (and the small words inside names) up to the
# verb.
_OWNED_SUBJECT = re.compile(
    r"^(?P<the>[Tt]he\s+)?(?P<head>(?:[A-Za-z][\w-]*\s+){0,3}[a-z][\w-]*)\s+of\s+"
    r"(?P<owner_the>the\s+)?"
    r"(?P<owner>[A-Z][\w'\u2019-]*(?:\s+(?:[A-Z][\w'\u2019-]*|of|the|and|de|van|von))*?)"
    r"\s+(?=[a-z])")


def owner_left_to_context(claim: str) -> tuple[str, str, str, str] | None:
    """A claim whose subject names the owner of what it describes, as a passage about the
    owner writes it: "The cover of Salt Between Us was designed by Greta Holm." as "The
    cover was designed by Greta Holm." and "Salt Between Us's cover was designed by Greta
    Holm.", with the owner ("Salt Between Us") and what it owns ("cover"); None for another
    claim. A self-contained claim names the owner its sentence left to the passage."""
    stripped = " ".join(claim.split())
    found = _OWNED_SUBJECT.match(stripped)
    if found is None or found["owner"].endswith(("of", "the", "and")):
        return None
    head, owner, predicate = found["head"], found["owner"], stripped[found.end():]
    if found["the"] is None:  # "First confirmed ascent of ...": capitalised as the opening
        head = head[:1].lower() + head[1:]
    possessive = ("The " if found["owner_the"] else "") + f"{owner}'s {head} {predicate}"
    return (f"The {head} {predicate}", possessive, owner, head)


def describes_another(sentence: str, referent: str | None) -> bool:
    """Whether ``sentence`` opens with a description ("The lighthouse ...") whose noun the
    ``referent`` so far (a heading or the sentence that named the subject) does not hold:
    it speaks of another thing than the one named before, and a later "it" leads back to
    it ("The quickest way into town is the Airport Express train. It leaves ...")."""
    subject = subject_of(sentence) if DEFINITE_DESCRIPTION.match(sentence) else None
    if subject is None:
        return False
    head = subject.split(" of ")[0].split()[-1].lower()
    return head not in {word.lower() for word in (referent or "").split()}


def subject_of(text: str) -> str | None:
    """The noun phrase a later pronoun can stand for: the subject before the first verb when
    it is a name ("Tower Bridge", "The Eiffel Tower") or a short definite description ("The
    new bridge", "The capital of France"). None when the sentence opens with a pronoun, a
    preposition, a quantifier ("Most of what stands today") or has no clear subject: a
    pronoun left as written is better than one replaced by the wrong words."""
    if ANAPHORIC_LEAD.match(text) or THERE_LEAD.match(text):
        return None
    specified = _specified_name(text)
    if specified is not None:
        return specified
    verb = first_verb(text)
    stretch = _without_trailing_adverbs((text if verb is None else text[:verb]).strip(" ."))
    name = _NAME.match(stretch)
    if name is not None and verb is not None and _plural_common_noun(name.group(0), text[verb:]):
        return None
    if name is not None and _names_something(name.group(0)):
        rest = stretch[name.end():]
        # A name before an appositive ("Tower Bridge, a bascule bridge, opened ..."), or before
        # a verb the lexicon does not know ("Tower Bridge spans the Thames").
        if not rest or rest[0] in ",(" or (verb is None and _opens_predicate(rest)):
            return name.group(0) if len(name.group(0).split()) <= 8 else None
    # A description before an appositive or a relative clause: "The new bridge, which ...".
    described = re.split(r"\s*[,(]", stretch, maxsplit=1)[0]
    if verb is not None and _is_description(described):
        return described
    return None


# Auxiliaries a plural subject may take besides a base form ("open", "cost"): all but the
# singular ones and "had" and "did"; a modal leaves the number open ("Rooms can be booked"),
# and an opening word then names nothing a later "It" can stand for with certainty.
_PLURAL_VERBS = AUXILIARY_WORDS - {"is", "was", "has", "does", "had", "did"}


def _plural_form(word: str) -> bool:
    """Whether ``word`` ends as an English plural does ("trials", not "glass" or "Paris")."""
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _plural_common_noun(name: str, predicate: str) -> bool:
    """Whether ``name``, one word capitalised only because it opens the sentence, may be a
    plural noun, as its verb (the first word of ``predicate``) agrees: "Bookings open seven
    days in advance" speaks of bookings, which no later "Its" stands for."""
    verb = predicate.split(maxsplit=1)[0].lower() if predicate.strip() else ""
    return (" " not in name and _plural_form(name)
            and (verb in _PLURAL_VERBS or verb in BASE_FORMS))


def _without_trailing_adverbs(stretch: str) -> str:
    """``stretch`` without the adverbs between a subject and its verb ("Mozart probably",
    "Aoife Brennan no longer")."""
    words = stretch.split()
    while len(words) > 1 and (
            (words[-1].islower() and is_adverb(words[-1])) or words[-2:] == ["no", "longer"]):
        words = words[:-2] if words[-1] == "longer" else words[:-1]
    return " ".join(words)


def _is_noun_phrase(phrase: str) -> bool:
    """Whether ``phrase`` is a name or a short definite description, all of it: what a
    pronoun may be replaced by."""
    name = _NAME.fullmatch(phrase)
    if name is not None:
        return _names_something(phrase) and len(phrase.split()) <= 8
    return _is_description(phrase) or _NUMBERED_NAME.fullmatch(phrase) is not None


# A name written in lower case but its number: "Airport bus 30", "Route 66".
_NUMBERED_NAME = re.compile(r"[A-Z][a-z-]*(?:\s+[a-z][\w-]*){0,2}\s+[0-9]+[A-Za-z]?")


def _names_something(name: str) -> bool:
    """Whether ``name`` is a name, not a capitalised function word, quantifier or adverb
    ("Most", "However", "Only"), nor a possessive ("Tower Bridge's")."""
    words = name.split()
    first = (words[1] if words[0] == "The" and len(words) > 1 else words[0]).lower()
    return not (
        first in STOPWORDS or first in NEGATIONS or first in _NOT_NAMES
        or is_adverb(first) or name.endswith(("'s", "\u2019s"))
    )


def _opens_predicate(rest: str) -> bool:
    """Whether ``rest``, what follows a name, opens with a lower-case word that is no function
    word: most likely the verb ("spans the Thames")."""
    found = re.match(r"\s+([a-z]+)\b", rest)
    return found is not None and found.group(1) not in STOPWORDS and found.group(1) not in (
        NOMINAL_CUES
    )


def _is_description(phrase: str) -> bool:
    """Whether ``phrase`` is "The" and up to five words, none of them a function word but
    "of" or "most" ("The new museum", "The capital of France")."""
    words = phrase.split()
    if words[:1] != ["The"] or not 2 <= len(words) <= 6 or words[-1] in _DESCRIPTION_LINKS:
        return False
    return all(
        re.fullmatch(r"[\w'\u2019-]+", word) is not None
        and (word.lower() not in STOPWORDS or word in _DESCRIPTION_LINKS)
        for word in words[1:]
    )


def _agrees(pronoun: str, subject: str) -> bool:
    """Whether ``pronoun`` can stand for ``subject``: "they" for a plural ("The trials"),
    "he"/"she" for a person's name, "it" for a name or a singular ("The trial"); "The trial
    enrolled patients. They ..." speaks of the patients, not the trial. The head of "The
    walls of Troy" is "walls"."""
    head = subject.split(" of ")[0].split()[-1]
    named = head[:1].isupper()
    plural = " and " in subject or (_plural_form(head) and not named)
    if pronoun in ("they", "their"):
        return plural
    if pronoun in ("he", "she", "his", "her"):
        return named and not plural and not subject.startswith("The ")
    return not plural


def resolve(text: str, subject: str | None) -> str:
    """``text`` with its opening pronoun, possessive or description of ``subject`` replaced by
    ``subject``; unchanged when it opens with none of them or there is no subject."""
    if not subject or not _is_noun_phrase(subject) or _EXPLETIVE_IT.match(text):
        return text
    lead = _PERSONAL_LEAD.match(text) or _POSSESSIVE_LEAD.match(text)
    if lead is not None and _agrees(lead.group(0).strip().lower(), subject):
        if lead.re is _PERSONAL_LEAD:
            return subject + " " + text[lead.end():]
        if _owns_its_kind(subject, text[lead.end():]):
            return text
        owner = subject + ("\u2019" if subject.endswith("s") else "'s")
        return owner + " " + text[lead.end():]
    lead = DESCRIPTION_LEAD.match(text)
    if lead is not None and lead.group(1).lower() in subject.lower().split()[1:]:
        return _described(subject, lead.group(1).lower()) + " " + text[lead.end():]
    return text


def _owns_its_kind(subject: str, owned: str) -> bool:
    """Whether the thing a possessive owns is of the subject's own kind: after "The smallest
    room seats two people.", "Its largest room" is the library's, not the smallest room's."""
    verb = first_verb(owned)
    phrase = (owned if verb is None else owned[:verb]).split()
    head = subject.split(" of ")[0].split()
    return bool(phrase and head) and normalise_word(phrase[-1]) == normalise_word(head[-1])


def _described(subject: str, head: str) -> str:
    """The part of ``subject`` a description with the head noun ``head`` names: the noun
    phrase after "of" when the head is there ("The wall" after "Construction of the Berlin
    Wall" is the Berlin Wall, not its construction), else all of it ("The capital" is "The
    capital of France")."""
    _, of, after = subject.rpartition(" of ")
    if of and head in after.lower().split():
        return after[:1].upper() + after[1:]
    return subject


def sentence_referents(chunk: Chunk, sentences: Sequence[Span], *,
                       carried: bool = True) -> list[str | None]:
    """For each of consecutive ``sentences``, the subject an opening pronoun or description
    of it stands for: the subject of the sentence before it, read with its own pronoun
    resolved, so a run of "She ..." sentences all stand for the name before them ("Rosalind
    Franklin was a chemist. She worked at King's College. She died in 1958."). ``carried``:
    a sentence without a subject of its own passes on the one before it; without, it
    passes on none (the sentence before, as read, is all there is)."""
    referents: list[str | None] = []
    referent: str | None = None
    for sentence in sentences:
        referents.append(referent)
        own = subject_of(resolve(chunk.slice(sentence.start, sentence.end), referent))
        referent = own or referent if carried else own
    return referents


def resolved_sentences(chunk: Chunk, sentences: Sequence[Span],
                       referents: Sequence[str | None]) -> str:
    """The text of consecutive ``sentences`` with each one's opening pronoun or description
    replaced by the subject it stands for (``referents``; :func:`veritype.clauses.resolve`),
    a table row read with its header (:func:`sentence_as_read`):
    a model reads "The Voltra City is light. It weighs 21 kg." as contradicting "The Voltra
    City weighs 21 kg" (contradiction 0.88), and the resolved window as stating it."""
    parts: list[str] = []
    for index, (sentence, referent) in enumerate(zip(sentences, referents, strict=True)):
        gap = chunk.slice(sentences[index - 1].end, sentence.start) if index else ""
        parts.append(gap + resolve(sentence_as_read(chunk, sentence), referent))
    return "".join(parts)


def sentence_as_read(chunk: Chunk, sentence: Span) -> str:
    """The text of one of ``chunk``'s sentences, a row of a Markdown table read with its
    header ("Environment: Sandbox; Requests per minute: 60; Burst: 5 per second.")."""
    row = table_row_reading(chunk.text, sentence.start - chunk.start, sentence.end - chunk.start)
    return row if row is not None else chunk.slice(sentence.start, sentence.end)
