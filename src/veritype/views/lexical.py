"""Lexical-support view: does one evidence sentence (or two adjacent ones) carry the
claim's content words?

The cheapest view. It reads no meaning beyond word overlap and negation, so its
contradiction verdict only fires when a single sentence repeats most of the claim with the
opposite polarity ("was opened" against "was never opened"), and a claim copied word for word
from a sentence that qualifies it ("very few (if any) ...", "more than ...", "euros and
Swiss francs") is not supported, only unknown. Adjacent pairs count for
support only, because a claim often names its subject where the evidence used a pronoun
("The bridge ... . It opened in 1937").
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from veritype._text import content_words, has_negation
from veritype._verbatim import quoted_in
from veritype.claims import Claim
from veritype.deadline import checked
from veritype.evidence import EvidencePack, Span
from veritype.verdicts import Verdict, ViewResult, check_cost, check_fraction
from veritype.views._base import PackAnalysingView, register_view


@dataclass(frozen=True, slots=True)
class _Sentence:
    span: Span
    words: frozenset[str]
    negated: bool
    text: str
    pair: bool = False


@register_view("lexical")
class LexicalSupportView(PackAnalysingView[list[_Sentence]]):
    """Support = the share of the claim's content words found in its best evidence sentence."""

    name: str
    cost: float
    strong: bool

    def __init__(
        self,
        *,
        support_threshold: float = 0.75,
        contradiction_threshold: float = 0.6,
        cost: float = 0.2,
        strong: bool = True,
    ) -> None:
        check_fraction("support_threshold", support_threshold)
        check_fraction("contradiction_threshold", contradiction_threshold)
        check_cost(cost)
        self.name = "lexical"
        self.support_threshold = support_threshold
        self.contradiction_threshold = contradiction_threshold
        self.cost = cost
        self.strong = strong

    def _prepare(self, evidence: EvidencePack) -> list[_Sentence]:
        return _sentences(evidence)

    def _check(self, claim: Claim, sentences: list[_Sentence]) -> ViewResult:
        claim_words = frozenset(content_words(claim.text))
        if not claim_words:
            return ViewResult(self.name, Verdict.ABSTAINED, 0.0, detail="no content words")
        negated = has_negation(claim.text)
        best: _Sentence | None = None
        best_key = (-1.0, False, False)
        for sentence in sentences:
            coverage = len(claim_words & sentence.words) / len(claim_words)
            # Highest coverage first; among equals, one of the claim's polarity, so an
            # equally close negated sentence does not overrule an agreeing one; then a single
            # sentence over a pair (the narrower citation); then the earliest (strict
            # comparison keeps the first).
            key = (coverage, sentence.negated == negated, not sentence.pair)
            if key > best_key:
                best, best_key = sentence, key
        coverage = max(best_key[0], 0.0)
        if best is None or coverage == 0.0:
            return ViewResult(self.name, Verdict.UNKNOWN, 0.0,
                              detail="no claim word in the evidence")
        shared = len(claim_words & best.words)
        ratio = f"{shared}/{len(claim_words)} claim words"
        if best.negated == negated and coverage >= self.support_threshold:
            qualified = _qualified_copy(claim.text, sentences)
            if qualified is not None:
                # Every word is there, yet the claim is not stated: the score is an even
                # chance, not the full coverage a stated copy earns.
                return ViewResult(self.name, Verdict.UNKNOWN, 0.5, spans=(qualified.span,),
                                  detail="the evidence has these very words, but qualified "
                                  "(a quantifier, hedge, comparison or a longer list)")
            return ViewResult(self.name, Verdict.ENTAILED, coverage, spans=(best.span,),
                              detail=f"{ratio} in {_where(best)}")
        if best.negated != negated and not best.pair and coverage >= self.contradiction_threshold:
            side = "evidence" if best.negated else "claim"
            return ViewResult(self.name, Verdict.CONTRADICTED, 0.0, contradiction=coverage,
                              spans=(best.span,),
                              detail=f"{ratio} in one sentence, but only the {side} negates")
        return ViewResult(self.name, Verdict.UNKNOWN, coverage, spans=(best.span,),
                          detail=f"{ratio} in the closest sentence")


def _qualified_copy(claim: str, sentences: list[_Sentence]) -> _Sentence | None:
    """A sentence holding the claim word for word inside words that change what it asserts
    ("Very few (if any) pop records are illegal"), when no sentence states it plainly:
    all the words are there, yet the evidence says less than the claim."""
    qualified = None
    for sentence in sentences:
        if sentence.pair:
            continue
        stated = quoted_in(claim, sentence.text)
        if stated:
            return None
        if stated is False and qualified is None:
            qualified = sentence
    return qualified


def _where(sentence: _Sentence) -> str:
    return "two adjacent sentences" if sentence.pair else "one sentence"


def _sentences(pack: EvidencePack) -> list[_Sentence]:
    """Each evidence sentence, then each pair of adjacent sentences of the same chunk."""
    singles: list[_Sentence] = []
    for span in checked(pack.sentences(), "the next evidence sentence"):
        text = pack.quote(span)
        singles.append(_Sentence(span, frozenset(content_words(text)), has_negation(text), text))
    pairs = [
        _Sentence(
            Span(first.span.doc_id, first.span.chunk_id, first.span.start, second.span.end),
            first.words | second.words,
            first.negated or second.negated,
            f"{first.text} {second.text}",
            pair=True,
        )
        for first, second in itertools.pairwise(singles)
        if first.span.chunk_id == second.span.chunk_id
    ]
    return singles + pairs
