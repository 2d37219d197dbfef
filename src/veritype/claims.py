"""Claims: the atomic, checkable statements an answer is made of, and how to find them.

``decompose`` splits an answer into sentences, splits coordinated clauses that each
state their own fact, classifies every claim, and links a pronoun-led claim to the
claim that introduced its referent, so the belief graph knows what depends on what.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from veritype._text import content_words, sentence_spans


class ClaimClass(StrEnum):
    """The kind of statement a claim makes; each has its own minimum citation support."""

    FACTUAL = "factual"
    COMPARATIVE = "comparative"
    SCOPE = "scope"
    HISTORICAL = "historical"


@dataclass(frozen=True, slots=True)
class Claim:
    """One atomic claim. ``start``/``end`` locate it in the answer it came from.

    ``text`` may differ from ``answer[start:end]`` when a coordinated clause borrowed
    the subject of its sentence ("... and was rebuilt in 1950" → "The bridge was
    rebuilt in 1950").
    """

    claim_id: str
    text: str
    claim_class: ClaimClass = ClaimClass.FACTUAL
    start: int = 0
    end: int = 0

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise ValueError(f"claim {self.claim_id!r} has empty text")
        if not 0 <= self.start <= self.end:
            raise ValueError(
                f"claim {self.claim_id!r}: invalid span start={self.start}, end={self.end}"
            )

    def to_dict(self) -> dict[str, str | int]:
        return {"claim_id": self.claim_id, "text": self.text,
                "claim_class": self.claim_class.value, "start": self.start, "end": self.end}

    @classmethod
    def from_dict(cls, data: dict[str, str | int]) -> Claim:
        return cls(str(data["claim_id"]), str(data["text"]), ClaimClass(str(data["claim_class"])),
                   int(data["start"]), int(data["end"]))


@dataclass(frozen=True, slots=True)
class Decomposition:
    """Claims in answer order plus dependency edges ``(parent_id, child_id)``."""

    claims: list[Claim]
    edges: list[tuple[str, str]] = field(default_factory=list)


_COMPARATIVE = re.compile(
    r"\b(?:than|compared (?:to|with)|in comparison|relative to|versus|vs\.?|"
    r"(?:more|less|fewer|greater|higher|lower|larger|smaller|bigger|better|worse|"
    r"faster|slower|older|younger|longer|shorter|taller|cheaper)\b|"
    r"(?:most|least|largest|smallest|biggest|highest|lowest|best|worst|fastest|"
    r"slowest|oldest|youngest|longest|shortest|tallest)\b|outperform\w*|exceed\w*|"
    r"superior|inferior)",
    re.IGNORECASE,
)
_SCOPE = re.compile(
    r"\b(?:only|limited to|restricted to|applies to|apply to|assum\w+|provided that|"
    r"unless|except|excluding|at most|at least|up to|no more than|no less than|"
    r"under (?:the )?condition|in (?:some|certain|most|rare) cases|does not apply|"
    r"do not apply|valid (?:only )?(?:for|when|if)|not (?:valid|applicable))\b",
    re.IGNORECASE,
)
_HISTORICAL = re.compile(
    r"\b(?:(?:1[0-9]|20)\d{2}s?|\d{1,2}(?:st|nd|rd|th) century|centur(?:y|ies) ago|"
    r"founded|established|invented|discovered|built|born|died|opened|completed|"
    r"originally|formerly|historically|ancient|medieval|war|reign(?:ed)?|"
    r"was (?:first|once)|in the past)\b",
    re.IGNORECASE,
)


# Limits such as "at most 5 mg" use comparative words but state a scope, not a comparison.
_LIMIT_PHRASES = re.compile(r"\b(?:at (?:most|least)|no (?:more|less|fewer) than)\b", re.IGNORECASE)
# Conversational filler that makes no checkable statement on its own.
_FILLER = frozenset(
    {"yes", "no", "sure", "okay", "ok", "thanks", "thank", "great", "indeed", "certainly",
     "absolutely", "hello", "hi", "well", "note", "answer", "question"}
)


def states_scope(text: str) -> bool:
    """Whether ``text`` states an assumption or a limit ("only", "at most", "unless", ...)."""
    return _SCOPE.search(text) is not None


def classify(text: str) -> ClaimClass:
    """Classify a claim; comparative beats scope beats historical beats factual."""
    if _COMPARATIVE.search(_LIMIT_PHRASES.sub(" ", text)):
        return ClaimClass.COMPARATIVE
    if _SCOPE.search(text):
        return ClaimClass.SCOPE
    if _HISTORICAL.search(text):
        return ClaimClass.HISTORICAL
    return ClaimClass.FACTUAL


_PRONOUN_LEAD = re.compile(
    r"^(?:he|she|it|they|this|these|those|that|its|his|her|their|there)\b", re.IGNORECASE
)
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
_CLAUSE_SHARED_SUBJECT = re.compile(
    rf"(?:,\s*and\s+|\s+and\s+|,\s*but\s+|\s+but\s+)(?={_AUXILIARY}\s+\w+)"
)
_SUBJECT = re.compile(rf"^(.*?)\s+(?:{_AUXILIARY}|\w+(?:ed|es))\b", re.IGNORECASE)


def _has_verb(text: str) -> bool:
    return re.search(rf"\b{_AUXILIARY}\b|\b\w+(?:ed|es)\b", text, re.IGNORECASE) is not None


def _is_substantive(text: str) -> bool:
    return len(content_words(text)) >= 2


@dataclass(frozen=True, slots=True)
class _Clause:
    start: int  # offsets relative to the sentence
    end: int
    text: str
    borrowed_subject: bool


def _split_clauses(sentence: str) -> list[_Clause]:
    """Split a sentence into clauses that each state their own fact.

    A part is only split off when both sides still carry a verb and at least two
    content words, so "salt and pepper are sold together" stays whole.
    """
    cuts = [(m.start(), m.end(), False) for m in _CLAUSE_WITH_SUBJECT.finditer(sentence)]
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
        if _has_verb(left) and _has_verb(right) and _is_substantive(left) and (
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

    clauses: list[_Clause] = []
    for begin, end, uses_subject in bounds:
        raw = sentence[begin:end]
        begin += len(raw) - len(raw.lstrip())
        end = begin + len(raw.strip())
        text = sentence[begin:end].rstrip(",;")
        if uses_subject:
            text = f"{subject} {text}"
        clauses.append(_Clause(begin, end, _as_sentence(text), uses_subject))
    return clauses


def _as_sentence(text: str) -> str:
    text = text.strip()
    if text and text[0].islower():
        text = text[0].upper() + text[1:]
    if text and text[-1] not in ".!?\"'\u201d":
        text += "."
    return text


def decompose(answer: str, *, prefix: str = "c") -> Decomposition:
    """Split ``answer`` into atomic claims with spans, classes and dependency edges.

    Claim ids are ``{prefix}1``, ``{prefix}2``, ... in answer order. A claim that opens
    with a pronoun ("It", "They", "This") depends on the closest earlier claim that
    introduced a referent, i.e. the closest one that did not itself open with a pronoun.
    """
    claims: list[Claim] = []
    edges: list[tuple[str, str]] = []
    referent: str | None = None
    for sentence_start, sentence_end in sentence_spans(answer):
        sentence = answer[sentence_start:sentence_end]
        if not set(content_words(sentence)) - _FILLER:
            continue
        for index, clause in enumerate(_split_clauses(sentence)):
            claim = Claim(
                claim_id=f"{prefix}{len(claims) + 1}",
                text=clause.text,
                claim_class=classify(clause.text),
                start=sentence_start + clause.start,
                end=sentence_start + clause.end,
            )
            claims.append(claim)
            led_by_pronoun = _PRONOUN_LEAD.match(clause.text) is not None
            if (led_by_pronoun or clause.borrowed_subject) and referent is not None:
                edges.append((referent, claim.claim_id))
            if index == 0 and not led_by_pronoun:
                referent = claim.claim_id
    return Decomposition(claims=claims, edges=edges)
