"""Claims: the atomic, checkable statements an answer is made of, and how to find them.

``decompose`` splits an answer into sentences, splits coordinated clauses that each
state their own fact, classifies every claim, and links a pronoun-led claim to the
claim that introduced its referent, so the belief graph knows what depends on what.

Drafts from small models run on, repeat themselves and hedge, so ``decompose`` also
normalises what it finds:

- **Run-ons.** List items on their own lines are claims of their own (their marker is left
  out of the span), and a comma splice whose second half opens with a pronoun subject and
  a verb ("..., it is ...") is split like a coordinated clause.
- **Repeats.** A claim that states the same content words as an earlier one, with the same
  polarity (and, if it opens with a pronoun or borrowed its subject, the same referent), is
  dropped; so is an unfinished last claim that only repeats the start of an earlier one
  (a repetition loop cut off by the token limit). The first occurrence is kept.
- **Lead-ins and markers.** Attributions that add no fact ("According to the evidence,",
  "Based on the passages,", "The study shows that", "Answer:", "Yes,") are left out of the
  claim's span, and citation markers such as "[2]" are left out of its text.
- **Hedges.** Hedged claims ("may", "might", "probably", "it seems", ...) are kept as
  written and flagged ``hedged``: dropping the hedge would verify, and show, a stronger
  claim than the draft made, and dropping the claim would hide what the draft said.
- **Questions** ("Does aspirin ...?") are not claims and are skipped.
- **Headings.** A Markdown heading line ("# Tower Bridge") is never a claim; it names what
  the sentences under it are about.

Every claim is made **self-contained** before it is verified: a claim that opens with a
personal pronoun ("It opened in 1894."), a possessive ("Its main span ...") or a definite
description of its referent ("The bridge opened ...") has that opening replaced by the
subject of the claim (or heading) it refers to: "Tower Bridge opened in 1894.". The claim
keeps its span in the answer and its words as written (``written``) for display; the
resolved ``text`` is what the views read and the trace shows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from veritype._text import (
    ANAPHORIC_LEAD,
    HEADING,
    MODAL_MAY,
    content_words,
    has_negation,
    sentence_spans,
)
from veritype.clauses import (
    DESCRIPTION_LEAD,
    THERE_LEAD,
    resolve,
    split_clauses,
    subject_of,
)
from veritype.errors import InputError


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
    rebuilt in 1950") or a citation marker was left out. ``written`` is set when ``text``
    resolved a pronoun or description to its referent: the claim as the answer worded it,
    for display. ``hedged`` marks a claim the answer made tentatively ("may", "probably").
    """

    claim_id: str
    text: str
    claim_class: ClaimClass = ClaimClass.FACTUAL
    start: int = 0
    end: int = 0
    hedged: bool = False
    written: str = ""

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise InputError(f"claim {self.claim_id!r} has empty text")
        if not 0 <= self.start <= self.end:
            raise InputError(
                f"claim {self.claim_id!r}: invalid span start={self.start}, end={self.end}"
            )

    def to_dict(self) -> dict[str, str | int]:
        """The claim as JSON; ``hedged`` appears only when set, so existing traces and
        graphs keep their exact form."""
        data: dict[str, str | int] = {
            "claim_id": self.claim_id, "text": self.text,
            "claim_class": self.claim_class.value, "start": self.start, "end": self.end,
        }
        if self.hedged:
            data["hedged"] = 1
        if self.written:
            data["written"] = self.written
        return data

    @classmethod
    def from_dict(cls, data: dict[str, str | int]) -> Claim:
        return cls(str(data["claim_id"]), str(data["text"]), ClaimClass(str(data["claim_class"])),
                   int(data["start"]), int(data["end"]), bool(data.get("hedged", 0)),
                   str(data.get("written", "")))

    @property
    def shown(self) -> str:
        """The claim as the answer worded it (its resolved text when nothing was resolved)."""
        return self.written or self.text


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


# "There" also points back, to a place named before ("There it was rebuilt.").
_LEAD_IN = re.compile(
    r"(?:(?:answer|a|response)\s*:\s*"
    r"|(?:yes|no|sure|indeed|in (?:summary|short|conclusion)|overall|to summari[sz]e)\s*[,:]\s*"
    r"|(?:according to|based on|as (?:stated|shown|reported|described) in|from)\s+"
    r"(?:the\s+)?(?:provided\s+|given\s+|available\s+)?"
    r"(?:evidence|text|passages?|context|documents?|sources?|abstracts?|articles?|stud(?:y|ies)"
    r"|information|data|\[\d+\])(?:\s*\[\d+\])?\s*,\s*"
    r"|(?:the\s+)?(?:evidence|text|passages?|context|documents?|sources?|abstracts?|articles?"
    r"|stud(?:y|ies))(?:\s*\[\d+\])?\s+(?:shows?|states?|says|indicates?|reports?|finds"
    r"|found|explains?|notes?|confirms?|mentions?)\s+that\s+)",
    re.IGNORECASE,
)
_CITATION_MARKER = re.compile(r"\s*\[\d+(?:\s*[,\u2013-]\s*\d+)*\]")
_HEDGE = re.compile(
    MODAL_MAY + r"|\b(?:might|could|possibly|probably|perhaps|likely|unlikely|presumably|apparently"
    r"|potentially|seems?|seemed|appears? to|suggests?|suggested|I think|I believe"
    r"|it is (?:possible|thought|believed)|not (?:sure|certain|clear))\b",
    re.IGNORECASE,
)
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*\u2022]|\d{1,2}[.)])[ \t]+")
_HEADING_LINE = re.compile(r"[ \t]*#{1,6}[ \t]")


def is_hedged(text: str) -> bool:
    """Whether ``text`` states its fact tentatively ("may", "probably", "it seems", ...)."""
    return _HEDGE.search(text) is not None


def strip_citation_markers(text: str) -> str:
    """``text`` without citation markers such as "[1]" or "[2, 3]"."""
    return _CITATION_MARKER.sub("", text)


@dataclass(frozen=True, slots=True)
class ClaimCandidate:
    """A claim before numbering: its text and its span in the answer.

    ``borrowed_subject`` marks a clause that took its sentence's subject; ``opens_sentence``
    a claim that may introduce a referent for pronoun-led claims after it; ``finished`` is
    false for a sentence the answer broke off (no closing punctuation); ``heading`` marks a
    heading, which names the referent of what follows and is no claim itself.
    """

    text: str
    start: int
    end: int
    borrowed_subject: bool = False
    opens_sentence: bool = True
    finished: bool = True
    heading: bool = False


def _content_key(text: str) -> tuple[bool, tuple[tuple[str, int], ...]]:
    return has_negation(text), tuple(sorted(Counter(content_words(text)).items()))

def build_decomposition(
    candidates: Sequence[ClaimCandidate], *, prefix: str = "c"
) -> Decomposition:
    """Number, classify, flag and link claim candidates, dropping repeated ones.

    Claim ids are ``{prefix}1``, ``{prefix}2``, ... in order. A claim that opens with a
    pronoun (or borrowed its subject) depends on the closest earlier claim that opened a
    sentence without a pronoun, and is resolved against that claim's subject (or the
    closest heading's, when no claim came between); when that claim has no clear subject
    ("Most of what stands today ..."), the pronoun is left as written. Repeats are judged
    on content words and polarity; for dependent claims, also on their referent.
    """
    claims: list[Claim] = []
    edges: list[tuple[str, str]] = []
    seen: dict[tuple[object, ...], str] = {}
    referent: str | None = None
    subject: str | None = None
    for candidate in candidates:
        if candidate.heading:
            subject, referent = candidate.text.strip() or None, None
            continue
        written = strip_citation_markers(candidate.text).strip()
        if not written or not content_words(written):
            continue
        led_by_pronoun = bool(ANAPHORIC_LEAD.match(written) or THERE_LEAD.match(written))
        text = resolve(written, subject) if led_by_pronoun or DESCRIPTION_LEAD.match(
            written) else written
        depends = (led_by_pronoun or candidate.borrowed_subject) and referent is not None
        key: tuple[object, ...] = (referent if depends else None, *_content_key(text))
        if key in seen or (not candidate.finished and _repeats_a_start(text, claims)):
            if candidate.opens_sentence and not led_by_pronoun and key in seen:
                referent = seen[key]
            continue
        claim = Claim(
            claim_id=f"{prefix}{len(claims) + 1}",
            text=text,
            claim_class=classify(text),
            start=candidate.start,
            end=candidate.end,
            hedged=is_hedged(text),
            written=written if text != written else "",
        )
        claims.append(claim)
        seen[key] = claim.claim_id
        if depends and referent is not None:
            edges.append((referent, claim.claim_id))
        if candidate.opens_sentence and not led_by_pronoun:
            referent = claim.claim_id
            subject = subject_of(text)
    return Decomposition(claims=claims, edges=edges)


def _repeats_a_start(text: str, earlier: Sequence[Claim]) -> bool:
    """Whether ``text`` is how an earlier claim begins; its last word may be cut short."""
    words = content_words(text)
    if not words:
        return False
    for claim in earlier:
        before = content_words(claim.text)
        if len(before) >= len(words) and before[: len(words) - 1] == words[:-1] and (
            before[len(words) - 1].startswith(words[-1])
        ):
            return True
    return False


def _segments(answer: str) -> list[tuple[int, int]]:
    """Sentence spans; a list item on its own line is a block of its own, its marker left out."""
    spans: list[tuple[int, int]] = []
    for block_start, block_end in _blocks(answer):
        marker = _LIST_MARKER.match(answer, block_start, block_end)
        if marker is not None:
            block_start = marker.end()
        block = answer[block_start:block_end]
        spans.extend((block_start + s, block_start + e) for s, e in sentence_spans(block))
    return spans


def _blocks(answer: str) -> list[tuple[int, int]]:
    """``answer`` cut at the line breaks that begin or end a list item or a heading."""
    blocks: list[tuple[int, int]] = []
    start = 0
    line_start = 0
    for index, char in enumerate(answer):
        if char != "\n":
            continue
        if any(pattern.match(answer, position) for pattern in (_LIST_MARKER, _HEADING_LINE)
               for position in (index + 1, line_start)):
            blocks.append((start, index))
            start = index + 1
        line_start = index + 1
    blocks.append((start, len(answer)))
    return blocks


def _lead_in_length(sentence: str) -> int:
    """Characters of attribution or label at the start of ``sentence`` (repeatable)."""
    length = 0
    while True:
        found = _LEAD_IN.match(sentence, length)
        if found is None or found.end() == length or found.end() >= len(sentence):
            return length
        length = found.end()


def rule_candidates(answer: str) -> list[ClaimCandidate]:
    """The rule-based claim candidates of ``answer``: sentences and list items, split into
    clauses, without lead-ins, questions or content-free filler."""
    candidates: list[ClaimCandidate] = []
    for segment_start, segment_end in _segments(answer):
        raw = answer[segment_start:segment_end]
        heading = HEADING.match(raw)
        if heading is not None:
            candidates.append(ClaimCandidate(heading.group(1), segment_start + heading.start(1),
                                             segment_start + heading.end(1), heading=True))
            continue
        if raw.rstrip("\"')\u201d\u2019").endswith("?"):
            continue
        skipped = _lead_in_length(raw)
        sentence_start = segment_start + skipped
        sentence = raw[skipped:]
        if not set(content_words(sentence)) - _FILLER:
            continue
        finished = raw.rstrip("\"')\u201d\u2019")[-1:] in (".", "!")
        for index, clause in enumerate(split_clauses(sentence)):
            candidates.append(
                ClaimCandidate(
                    text=clause.text,
                    start=sentence_start + clause.start,
                    end=sentence_start + clause.end,
                    borrowed_subject=clause.borrowed_subject,
                    opens_sentence=index == 0,
                    finished=finished,
                )
            )
    return candidates


def decompose(answer: str, *, prefix: str = "c") -> Decomposition:
    """Split ``answer`` into atomic claims with spans, classes and dependency edges.

    Claim ids are ``{prefix}1``, ``{prefix}2``, ... in answer order. A claim that opens
    with a pronoun ("It", "They", "This") depends on the closest earlier claim that
    introduced a referent, i.e. the closest one that did not itself open with a pronoun.
    Repeats, lead-ins, questions and citation markers are normalised away (see the module
    documentation); every claim's span lies in ``answer``.
    """
    return build_decomposition(rule_candidates(answer), prefix=prefix)
