"""Numeric-consistency view: the numbers, dates and names of a claim must appear in evidence.

A claim value stated by some evidence sentence is *found*. A value that is not found is
*contradicted* when a sentence about the same thing (one sharing at least half of the
claim's other content words) states a different value of the same kind in its place.
"""

from __future__ import annotations

from dataclasses import dataclass

from veritype._text import content_words
from veritype.claims import Claim
from veritype.errors import ConfigurationError
from veritype.evidence import EvidencePack, Span
from veritype.verdicts import Verdict, ViewResult
from veritype.views._base import PackAnalysingView, register_view
from veritype.views._matching import TextValues
from veritype.views._values import Value, ValueKind, extract_values

# Share of the claim's non-value content words a sentence needs to count as aligned.
_ALIGNMENT = 0.5


@dataclass(frozen=True, slots=True)
class _Sentence:
    span: Span
    values: TextValues
    words: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Conflict:
    claim_value: Value
    evidence_value: Value
    sentence: int
    alignment: float


@register_view("numeric")
class NumericConsistencyView(PackAnalysingView[list[_Sentence]]):
    """Checks the claim's numbers, percentages, money, quantities, dates and names."""

    name: str
    cost: float
    strong: bool

    def __init__(self, *, cost: float = 0.5, strong: bool = True) -> None:
        if cost < 0:
            raise ConfigurationError(f"cost must be >= 0, got {cost}")
        self.name = "numeric"
        self.cost = cost
        self.strong = strong

    def _prepare(self, evidence: EvidencePack) -> list[_Sentence]:
        return _sentences(evidence)

    def _check(self, claim: Claim, sentences: list[_Sentence]) -> ViewResult:
        claim_values = extract_values(claim.text)
        if not claim_values:
            return ViewResult(self.name, Verdict.ABSTAINED, 0.0,
                              detail="no numbers, dates or names to check")
        where = [
            [i for i, sentence in enumerate(sentences) if sentence.values.contains(value)]
            for value in claim_values
        ]
        found = [value for value, hits in zip(claim_values, where, strict=True) if hits]
        missing = [value for value, hits in zip(claim_values, where, strict=True) if not hits]
        score = len(found) / len(claim_values)
        supporting = tuple(sentences[i].span for i in _cover(where))
        if not missing:
            return ViewResult(self.name, Verdict.ENTAILED, 1.0, spans=supporting,
                              detail="found " + _labels(found))

        conflicts = _conflicts(claim, claim_values, missing, sentences)
        if conflicts:
            used = sorted({conflict.sentence for conflict in conflicts})
            first: dict[Value, _Conflict] = {}
            for conflict in conflicts:
                first.setdefault(conflict.claim_value, conflict)
            detail = "; ".join(
                f"claim says {c.claim_value.label}, evidence says {c.evidence_value.label}"
                for c in first.values()
            )
            return ViewResult(
                self.name,
                Verdict.CONTRADICTED,
                score,
                contradiction=min(1.0, max(c.alignment for c in conflicts)),
                spans=tuple(sentences[i].span for i in used),
                detail=detail,
            )

        detail = "not found " + _labels(missing)
        if found:
            detail = f"found {_labels(found)}; {detail}"
        return ViewResult(self.name, Verdict.UNKNOWN, score, spans=supporting, detail=detail)


def _sentences(pack: EvidencePack) -> list[_Sentence]:
    sentences: list[_Sentence] = []
    for span in pack.sentences():
        text = pack.quote(span)
        sentences.append(_Sentence(span, TextValues.of(text), frozenset(content_words(text))))
    return sentences


def _labels(values: list[Value]) -> str:
    return ", ".join(value.label for value in values)


def _cover(where: list[list[int]]) -> list[int]:
    """Few sentences that together hold every found value: greedy set cover, in text order."""
    holds: dict[int, set[int]] = {}
    for value_index, hits in enumerate(where):
        for sentence in hits:
            holds.setdefault(sentence, set()).add(value_index)
    remaining = {i for i, hits in enumerate(where) if hits}
    chosen: list[int] = []
    while remaining:
        best = max(holds, key=lambda s: (len(holds[s] & remaining), -s))
        chosen.append(best)
        remaining -= holds[best]
    return sorted(chosen)


def _conflicts(
    claim: Claim, claim_values: list[Value], missing: list[Value], sentences: list[_Sentence]
) -> list[_Conflict]:
    """Conflicting values in sentences aligned with the claim, for each missing value."""
    # Align on the words around the values: the values themselves are what may differ.
    blanked = list(claim.text)
    for value in claim_values:
        blanked[value.start : value.end] = " " * (value.end - value.start)
    claim_words = set(content_words("".join(blanked)))
    if not claim_words:
        return []
    aligned: list[tuple[int, float]] = []
    for index, sentence in enumerate(sentences):
        shared = len(claim_words & sentence.words)
        if shared and shared / len(claim_words) >= _ALIGNMENT:
            aligned.append((index, shared / len(claim_words)))
    conflicts: list[_Conflict] = []
    for value in missing:
        if value.kind is ValueKind.ENTITY:  # a name can be missing, never contradicted
            continue
        for index, alignment in aligned:
            other = sentences[index].values.conflict(value)
            if other is not None:
                conflicts.append(_Conflict(value, other, index, alignment))
    return conflicts
