"""Model-assisted claim decomposition, validated against the draft.

A generator is asked to restate the draft as short standalone facts. Its proposals are
never trusted: a proposed claim is accepted only if every one of its content words occurs
in a single sentence of the draft, with the same polarity; its span is that sentence.
So a poor decomposition can drop or reword a claim, but never add a claim the draft did
not make. Rule-based claims whose words no accepted proposal states are kept beside the
proposals, so nothing the draft said goes unchecked; if the generator fails or nothing is
accepted, the result is the rule decomposition.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from veritype._text import ANAPHORIC_LEAD, content_words, has_negation, sentence_spans
from veritype.claims import (
    ClaimCandidate,
    Decomposition,
    build_decomposition,
    rule_candidates,
)
from veritype.claims import (
    decompose as rule_decompose,
)
from veritype.errors import GenerationError
from veritype.evidence import Document, chunk_document
from veritype.generation._base import Draft, GenerationParams, Generator

INSTRUCTION = (
    "List every fact that the text states, as short standalone sentences, one per line. "
    "Use only words from the text, replace pronouns with what they refer to, and add nothing."
)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s*")


@dataclass(frozen=True, slots=True)
class Proposal:
    """One line the generator proposed, and why it was accepted or rejected."""

    text: str
    accepted: bool
    reason: str


def decompose(
    generator: Generator,
    draft: Draft | str,
    *,
    prefix: str = "c",
    params: GenerationParams | None = None,
) -> Decomposition:
    """Claims of ``draft`` as proposed by ``generator`` and validated against the draft."""
    return decompose_with_report(generator, draft, prefix=prefix, params=params)[0]


def decompose_with_report(
    generator: Generator,
    draft: Draft | str,
    *,
    prefix: str = "c",
    params: GenerationParams | None = None,
) -> tuple[Decomposition, list[Proposal]]:
    """``decompose`` plus the verdict on every proposed line, for inspection and tests."""
    text = draft.text if isinstance(draft, Draft) else draft
    rule = rule_candidates(text)
    if not rule:
        return rule_decompose(text, prefix=prefix), []
    evidence = chunk_document(Document.from_text(text, title="draft"), max_chars=len(text) + 1)
    try:
        proposed = generator.generate(INSTRUCTION, evidence, params or GenerationParams())
    except GenerationError:
        return rule_decompose(text, prefix=prefix), []
    sentences = _sentences_of(rule)
    accepted: dict[tuple[int, int], list[ClaimCandidate]] = {}
    report: list[Proposal] = []
    for line in _proposed_lines(proposed.text):
        span, reason = _locate(line, text, sentences)
        report.append(Proposal(line, span is not None, reason))
        if span is not None:
            accepted.setdefault(span, []).append(
                ClaimCandidate(line, span[0], span[1])
            )
    if not accepted:
        return rule_decompose(text, prefix=prefix), report
    candidates: list[ClaimCandidate] = []
    for span, members in sentences.items():
        proposals = accepted.get(span, [])
        covered = {word for p in proposals for word in content_words(p.text)}
        # A rule claim stays unless the accepted proposals already state all its words.
        kept = [*proposals, *(m for m in members if not set(content_words(m.text)) <= covered)]
        candidates.extend(
            replace(candidate, opens_sentence=index == 0) for index, candidate in enumerate(kept)
        )
    return build_decomposition(candidates, prefix=prefix), report


def _proposed_lines(text: str) -> list[str]:
    """One proposed claim per line, and per sentence when a line holds several."""
    lines: list[str] = []
    for raw in text.splitlines():
        line = _BULLET.sub("", raw).strip()
        lines.extend(line[start:end] for start, end in sentence_spans(line))
    return lines


def _sentences_of(
    candidates: Sequence[ClaimCandidate],
) -> dict[tuple[int, int], list[ClaimCandidate]]:
    """Rule candidates grouped by the sentence they came from, as (start, end) spans."""
    sentences: dict[tuple[int, int], list[ClaimCandidate]] = {}
    current: tuple[int, int] | None = None
    for candidate in candidates:
        if candidate.opens_sentence or current is None:
            current = (candidate.start, candidate.end)
            sentences[current] = [candidate]
        else:
            members = sentences.pop(current)
            current = (current[0], candidate.end)
            sentences[current] = [*members, candidate]
    return sentences


def _locate(
    line: str, text: str, sentences: dict[tuple[int, int], list[ClaimCandidate]]
) -> tuple[tuple[int, int] | None, str]:
    """The draft sentence that holds every content word of ``line``, or why none does."""
    words = set(content_words(line))
    if len(words) < 2:
        return None, "states too little to check"
    draft_words = set(content_words(text))
    foreign = sorted(words - draft_words)
    if foreign:
        return None, f"words not in the draft: {', '.join(foreign)}"
    previous: set[str] = set()
    for span in sentences:
        sentence = text[span[0] : span[1]]
        own = set(content_words(sentence))
        # A pronoun-led sentence may be restated with its referent's words from the
        # sentence before it ("It is tall." -> "The tower is tall.").
        borrowed = previous if ANAPHORIC_LEAD.match(sentence) else set()
        if words & own and words <= own | borrowed:
            if has_negation(sentence) != has_negation(line):
                return None, "negation differs from the draft"
            return span, "accepted"
        previous = own
    return None, "combines words from different sentences"
