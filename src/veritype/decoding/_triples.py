"""Knowledge-base triples: the fact type, its dates, and the triples a corpus sentence
states ("X is/was/has/contains/causes Y", "X rose to 12%").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from veritype._text import sentence_spans
from veritype.errors import DecodingError

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Lower-case, typographic apostrophes made plain, runs of whitespace made one space."""
    return _SPACE.sub(" ", text.replace("\u2019", "'").lower()).strip()


def parse_date(value: str, *, end: bool = False) -> date | None:
    """"YYYY", "YYYY-MM" or "YYYY-MM-DD" as a date; a year or month stands for its first
    day, or its last when ``end``; empty means open-ended."""
    text = value.strip()
    if not text:
        return None
    match = re.fullmatch(r"(-?\d{1,4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?", text)
    if match is None:
        raise DecodingError(f"not a date: {value!r} (expected YYYY, YYYY-MM or YYYY-MM-DD)")
    year = int(match.group(1))
    month = int(match.group(2) or (12 if end else 1))
    if match.group(3):
        return date(year, month, int(match.group(3)))
    if not end:
        return date(year, month, 1)
    following = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return date.fromordinal(following.toordinal() - 1)


@dataclass(frozen=True, slots=True)
class Triple:
    """One fact: ``subject relation object``, true from ``valid_from`` to ``valid_to``
    (both inclusive, either open-ended when None)."""

    subject: str
    relation: str
    object: str
    valid_from: date | None = None
    valid_to: date | None = None
    source: str = ""

    def __post_init__(self) -> None:
        for label, value in (("subject", self.subject), ("relation", self.relation),
                             ("object", self.object)):
            if not value.strip():
                raise DecodingError(f"a triple needs a non-empty {label}: {self}")
        if self.valid_from and self.valid_to and self.valid_from > self.valid_to:
            raise DecodingError(f"triple valid_from is after valid_to: {self}")

    def valid_between(self, start: date, end: date) -> bool:
        """Whether the triple held at some time in ``start..end``."""
        return (self.valid_from is None or self.valid_from <= end) and (
            self.valid_to is None or self.valid_to >= start
        )

    def to_dict(self) -> dict[str, str]:
        return {
            "subject": self.subject,
            "relation": self.relation,
            "object": self.object,
            "valid_from": self.valid_from.isoformat() if self.valid_from else "",
            "valid_to": self.valid_to.isoformat() if self.valid_to else "",
            "source": self.source,
        }


# Extraction: a sentence-initial noun phrase of at most six words, a verb of a closed list
# (or any verb when a number follows), and the object up to the next clause break.
_VERBS = (
    "is|are|was|were|has|have|had|contains|contain|contained|causes|cause|caused|"
    "increases|increase|increased|decreases|decrease|decreased|reduces|reduce|reduced|"
    "inhibits|inhibit|inhibited|regulates|regulate|regulated|promotes|promote|promoted|"
    "induces|induce|induced|requires|require|required|affects|affect|affected|"
    "improves|improve|improved|encodes|encode|encoded|binds|bind|bound|activates|"
    "activate|activated|prevents|prevent|prevented|leads to|led to|results in|resulted in"
)
_SUBJECT = r"(?P<subject>[A-Za-z0-9][\w\-/'+]*(?: [\w\-/'+]+){0,5}?)"
_VERB_TRIPLE = re.compile(
    rf"^{_SUBJECT} (?P<relation>(?:(?:not|also) )?(?:{_VERBS}))\b (?P<object>[^,;:()\[\]]+)"
)
_NUMBER_TRIPLE = re.compile(
    rf"^{_SUBJECT} (?P<relation>(?:[a-z]+(?:ed|es|s)|rose|fell|grew)(?: (?:by|to|from|of|in|at))?) "
    r"(?P<object>(?:~|≈)?\d[\d,.]*(?: ?%| [A-Za-z\-]+)?)"
)
_OBJECT_STOP = re.compile(
    r"\b(?:that|which|who|whereas|while|but|because|although|and|or|were|was|is|are)\b"
)
_DANGLING = frozenset("a an the of to in on at by for from with as than into".split())  # noqa: SIM905
_SECTION_LABEL = re.compile(r"^(?:[A-Z]{3,} )+(?=[A-Z][a-z])")
_MAX_OBJECT_WORDS = 6
_NOT_SUBJECTS = frozenset(
    "it this these that those they we our us he she there here which who".split()  # noqa: SIM905
) | _DANGLING


def extract_triples(text: str, *, source: str = "") -> list[Triple]:
    """Triples from the sentences of ``text`` by pattern: "X is/was/has/contains/causes Y"
    and "X <verb> <number>" (numbers attached to a subject). Subjects with a pronoun or
    ending in a function word or adverb are skipped; objects are cut at the next clause
    ("that", "which", "and", ...), at six words and before a dangling "of"/"the"/...."""
    triples: list[Triple] = []
    for start, end in sentence_spans(text):
        sentence = _SECTION_LABEL.sub("", text[start:end].rstrip(".!? "))
        for pattern in (_NUMBER_TRIPLE, _VERB_TRIPLE):
            match = pattern.match(sentence)
            if match is None:
                continue
            subject = match.group("subject").strip()
            subject_words = subject.lower().split()
            if _NOT_SUBJECTS.intersection(subject_words) - {"the", "of", "to", "in", "a"} or (
                subject_words[-1] in _NOT_SUBJECTS or subject_words[-1].endswith("ly")
            ):
                break
            obj = _OBJECT_STOP.split(match.group("object"))[0]
            words = obj.split()[:_MAX_OBJECT_WORDS]
            while words and words[-1].lower() in _DANGLING:
                words.pop()
            if not words:
                continue
            triples.append(Triple(subject, match.group("relation"), " ".join(words),
                                  source=source))
            break
    return triples
