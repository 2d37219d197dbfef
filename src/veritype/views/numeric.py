"""Numeric-consistency view: the numbers, dates and names of a claim must appear in evidence.

A claim value stated by some evidence sentence is *found*. A value that is not found is
*contradicted* when a sentence about the same thing (one sharing at least half of the
claim's other content words) states a different value of the same kind in its place. A claim
whose values are all found is still contradicted when the evidence gives a value only to
another subject while stating a different one for the claim's, or states the whole claim of
another subject ("William Caxton set up ..." for "Johannes Gutenberg set up ...").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from veritype._finite_verbs import first_verb
from veritype._tables import is_table_line
from veritype._text import content_words, sentence_spans, unhedged
from veritype.claims import Claim
from veritype.evidence import EvidencePack
from veritype.verdicts import Verdict, ViewResult, check_cost
from veritype.views._base import PackAnalysingView, register_view
from veritype.views._described_subjects import (
    DescribedClauses,
    another_name_of_the_subject,
    described_clauses,
    said_of_another_description,
)
from veritype.views._dimensions import DEGREE_WORDS, as_dimensions
from veritype.views._matching import TextValues, contains_run
from veritype.views._other_subjects import (
    EvidenceSentence,
    evidence_sentences,
    given_to_another,
    names_in,
    stated_of_another,
    swapped_value,
)
from veritype.views._qualifiers import QualifiedClauses, given_to_a_rival, qualified_clauses
from veritype.views._roles import given_to_another_agent
from veritype.views._values import Value, ValueKind, extract_values, text_words

_MAX_NAMES = 3
# Share of the claim's non-value content words a sentence needs to count as aligned.
_ALIGNMENT = 0.5


@dataclass(frozen=True, slots=True)
class _Conflict:
    claim_value: Value
    evidence_value: Value
    sentence: int
    alignment: float


@dataclass(frozen=True, slots=True)
class _Evidence:
    """A pack as numeric reads it, once: its sentences, their clauses with subjects, and
    its clauses as the rival-qualifier rule reads them."""

    sentences: list[EvidenceSentence]
    described: DescribedClauses
    qualified: QualifiedClauses


@register_view("numeric")
class NumericConsistencyView(PackAnalysingView[_Evidence]):
    """Checks the claim's numbers, percentages, money, quantities, dates and names."""

    name: str
    cost: float
    strong: bool

    def __init__(self, *, cost: float = 0.5, strong: bool = True) -> None:
        check_cost(cost)
        self.name = "numeric"
        self.cost = cost
        self.strong = strong

    def _prepare(self, evidence: EvidencePack) -> _Evidence:
        sentences = evidence_sentences(evidence)
        return _Evidence(sentences, described_clauses(sentences), qualified_clauses(sentences))

    def _check(self, claim: Claim, evidence: _Evidence) -> ViewResult:
        sentences, described = evidence.sentences, evidence.described
        # Read as a sentence: "aluminium melts at ..." names aluminium as "Aluminium ..." does,
        # and a name as the evidence writes it: "the harlow summer festival" is the Harlow
        # Summer Festival of the evidence, whatever the claim's capitals.
        text = _names_as_written(claim.text, sentences)
        claim = replace(claim, text=text[:1].upper() + text[1:])
        claim_values = extract_values(claim.text)
        if not claim_values:
            said = said_of_another_description(claim.text, described)
            if said is not None:
                return self._described(0.0, said, sentences)
            return ViewResult(self.name, Verdict.ABSTAINED, 0.0,
                              detail="no numbers, dates or names to check")
        where = [
            [i for i, sentence in enumerate(sentences)
             if sentence.values.contains(value)
             or _written_in_a_name(claim.text, value, sentence.values)]
            for value in claim_values
        ]
        found = [value for value, hits in zip(claim_values, where, strict=True) if hits]
        missing = [value for value, hits in zip(claim_values, where, strict=True) if not hits]
        score = len(found) / len(claim_values)
        supporting = tuple(sentences[i].span for i in _cover(where))
        if not missing:
            elsewhere = _of_another_event(claim, claim_values, where, sentences)
            if elsewhere is not None:
                value, other, index = elsewhere
                return self._refuted(
                    score, sentences[index], f"claim says {value.label}, evidence says "
                    f"{other.label} (it gives {value.label} to another event)")
            one_statement = _one_statement(claim.text, claim_values)
            swapped = swapped_value(claim.text, claim_values, sentences) if one_statement else None
            if swapped is not None:
                value, other, index = swapped
                return self._refuted(
                    score, sentences[index], f"claim says {value.label}, evidence says "
                    f"{other.label} of {_labels(names_in(claim_values))} ({value.label} is "
                    "another's)")
            qualified = _of_another_qualifier(claim, claim_values, where, sentences)
            if qualified is not None:
                value, other, index, words = qualified
                return self._refuted(
                    score, sentences[index], f"claim says {value.label}, evidence says "
                    f"{other.label} where it speaks of {words} ({value.label} is stated "
                    "without them)")
            rival = given_to_a_rival(claim.text, claim_values, evidence.qualified)
            if rival is not None:
                return self._refuted(
                    score, sentences[rival.sentence], f"claim says {rival.claimed.label} of "
                    f"{', '.join(rival.subject)}, evidence says {rival.given.label} of "
                    f"{', '.join(rival.subject)} ({rival.claimed.label} is stated of "
                    f"{', '.join(rival.rival)})")
            if one_statement:
                # The subject's own value first: "evidence says Bonn" of Beethoven says more
                # than "the evidence says this of Mozart".
                in_place = self._in_place(claim.text, claim_values, evidence, score,
                                          another=True)
                if in_place is not None:
                    return in_place
                stated = stated_of_another(claim.text, claim_values, sentences)
                if stated is not None:
                    subject, other, index, share = stated
                    return self._refuted(
                        score, sentences[index],
                        f"the evidence says this of {other.label}, not of {subject.label}", share)
                swap = given_to_another_agent(claim.text, [s.agencies for s in sentences],
                                              [s.words for s in sentences])
                if swap is not None:
                    claimed, agency, index = swap
                    return self._refuted(
                        score, sentences[index],
                        f"claim says {claimed.written}, evidence says {agency.written}")
                said = said_of_another_description(claim.text, described)
                if said is not None:
                    return self._described(score, said, sentences)
            return ViewResult(self.name, Verdict.ENTAILED, 1.0, spans=supporting,
                              detail="found " + _labels(found))

        if all(value.kind is ValueKind.ENTITY for value in missing) and _one_statement(
                claim.text, claim_values):
            # A name the evidence never gives, where it gives the subject another: "studied
            # at Utrecht University" against "She ... studied at Leiden University".
            in_place = self._in_place(claim.text, claim_values, evidence, score,
                                      another=False)
            if in_place is not None:
                return in_place
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

    def _in_place(self, text: str, claim_values: list[Value], evidence: _Evidence,
                  score: float, *, another: bool) -> ViewResult | None:
        """The contradiction of a name the claim gives its subject where the evidence gives
        the subject another, the subject a name or a description; ``another`` when the
        evidence states the claim's name too, of another subject."""
        given = given_to_another(text, claim_values, evidence.sentences)
        if given is not None:
            return self._given(given, score, evidence.sentences, another=another)
        renamed = another_name_of_the_subject(text, claim_values, evidence.described)
        if renamed is not None:
            value, rival, index = renamed
            return self._refuted(score, evidence.sentences[index],
                                 f"claim says {value.label}, evidence says {rival.label}")
        return None

    def _given(self, given: tuple[Value, Value, Value, int, float], score: float,
               sentences: list[EvidenceSentence], *, another: bool) -> ViewResult:
        """The contradiction of a name the evidence gives only another subject
        (:func:`~veritype.views._other_subjects.given_to_another`); ``another`` when the
        evidence states the claim's name too, of another subject."""
        value, rival, subject, index, share = given
        whose = f" ({value.label} is another's)" if another else ""
        return self._refuted(
            score, sentences[index],
            f"claim says {value.label}, evidence says {rival.label} of {subject.label}{whose}",
            share)

    def _described(self, score: float, described: tuple[str, int],
                   sentences: list[EvidenceSentence]) -> ViewResult:
        """The contradiction of a claim the evidence says of another subject
        (:func:`~veritype.views._described_subjects.said_of_another_description`)."""
        clause, index = described
        return self._refuted(score, sentences[index],
                             f"the evidence says this of another subject: \u201c{clause}\u201d")

    def _refuted(self, score: float, sentence: EvidenceSentence, detail: str,
                 share: float = 1.0) -> ViewResult:
        """A contradiction cited to the one evidence sentence that decided it."""
        return ViewResult(self.name, Verdict.CONTRADICTED, score, contradiction=share,
                          spans=(sentence.span,), detail=detail)


def _written_in_a_name(text: str, value: Value, values: TextValues) -> bool:
    """Whether a plain number of the claim is written, after the same word, inside a name of
    the evidence: "phase 3" is the "Phase 3" of "Phase 3 Clinical Trial"."""
    if value.kind is not ValueKind.NUMBER or value.unit:
        return False
    before = text_words(text[:value.start])
    return bool(before) and contains_run(values.words, (before[-1], *text_words(value.text)))


def _one_statement(text: str, values: list[Value]) -> bool:
    """A single sentence with at most a few names: several sentences, or a list of names,
    bind their values to more subjects than one clause of evidence holds."""
    return len(sentence_spans(text.strip())) == 1 and len(names_in(values)) <= _MAX_NAMES




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


def _of_another_event(claim: Claim, claim_values: list[Value], where: list[list[int]],
                      sentences: list[EvidenceSentence]) -> tuple[Value, Value, int] | None:
    """A date of the claim that the evidence gives only to another event, while a sentence
    holding every other word of the claim gives that event another date: "The Marlow Bridge
    opened in 1998." against "It ... opened to traffic in 1932. In 1998 the bridge was
    closed for eight months." Returns the claim's date, the evidence's and its sentence."""
    claim_words = _claim_words(claim, claim_values)
    if not claim_words:
        return None
    alignment = [len(claim_words & sentence.aligned) / len(claim_words) for sentence in sentences]
    for value, hits in zip(claim_values, where, strict=True):
        if value.kind is not ValueKind.DATE or any(alignment[i] >= _ALIGNMENT for i in hits):
            continue
        for index, sentence in enumerate(sentences):
            if alignment[index] == 1.0:
                other = sentence.values.conflict(value, claim_values)
                if other is not None:
                    return value, other, index
    return None


def _of_another_qualifier(claim: Claim, claim_values: list[Value], where: list[list[int]],
                          sentences: list[EvidenceSentence]
                          ) -> tuple[Value, Value, int, str] | None:
    """A number of the claim that the evidence states only where some of the claim's words
    are missing, while another sentence holds those words, as many of the claim's words in
    all, and another value of that kind: "Sound travels through water at 343 metres per
    second" against "Sound travels through dry air at 343 metres per second ... In water,
    sound moves ... at roughly 1,480 metres per second." Returns the claim's value, the
    evidence's, its sentence and the words it holds that the claim's value lacks."""
    # A capitalised first word may be a common noun that qualifies ("Steel carries sound").
    opening = [value for value in claim_values
               if value.kind is ValueKind.ENTITY and value.start == 0 and len(value.words) == 1]
    claim_words = _claim_words(claim, claim_values) | {
        word for value in opening for word in content_words(value.text)}
    if not claim_words:
        return None
    aligned = [claim_words & sentence.aligned for sentence in sentences]
    at = first_verb(claim.text)
    verb = frozenset() if at is None else frozenset(content_words(claim.text[at:].split()[0]))
    for value, hits in zip(claim_values, where, strict=True):
        if value.kind in (ValueKind.ENTITY, ValueKind.DATE) or not hits or _numbers_a_name(
                claim.text, value):
            continue
        own = max(hits, key=lambda i: len(aligned[i]))
        written = " ".join(clause.text for clause in sentences[own].clauses).lower()
        if is_table_line(written):  # a table row's qualifiers are its header's
            continue
        # Only words the sentence does not write at all ("two-year" holds "year"), and not
        # the claim's verb: "increased" for "rose" says the same of the same thing.
        lacking = {word for word in claim_words - aligned[own]
                   if word not in written and word not in verb}
        if not lacking:
            continue
        for index, sentence in enumerate(sentences):
            if (index in hits or not lacking <= aligned[index]
                    or len(aligned[index]) < len(aligned[own])):
                continue
            other = sentence.values.conflict(value, claim_values)
            if other is not None:
                lowered = claim.text.lower()
                # In the claim's order; a word read as its dimension ("depth") goes last.
                return value, other, index, ", ".join(sorted(
                    lacking, key=lambda word: (word not in lowered, lowered.find(word))))
    return None


def _numbers_a_name(text: str, value: Value) -> bool:
    """Whether a bare number of ``text`` is a name's ("Route 7", "Apollo 11")."""
    before = text[:value.start].split()
    return value.kind is ValueKind.NUMBER and bool(before) and before[-1][:1].isupper()


def _names_as_written(text: str, sentences: Sequence[EvidenceSentence]) -> str:
    """``text`` with each name of several words in the evidence that it writes in other
    capitals (a run of its words, matched without case) written as the evidence writes it.
    A one-word "name" may be a sentence's capitalised first word ("Bread is baked daily"):
    such words are left as the claim writes them."""
    names = {value.text for sentence in sentences for value in sentence.values.values
             if value.kind is ValueKind.ENTITY and len(value.text.split()) > 1
             and any(char.isupper() for char in value.text)}
    lowered = text.lower()
    # Longest first, then in one fixed order: two spellings of one length ("SARS-Cov2",
    # "SARS-CoV2") must not be chosen by the hash seed.
    for name in sorted(names, key=lambda name: (-len(name), name)):
        if name in text or name.lower() not in lowered:
            continue
        pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)
        text = pattern.sub(name, text)
    return text


def _claim_words(claim: Claim, claim_values: list[Value]) -> frozenset[str]:
    """The claim's words around its values, to align it with evidence sentences: the values
    themselves are what may differ, and a hedge ("probably", "is thought to be", "around")
    changes none of what is asserted."""
    blanked = list(claim.text)
    for value in claim_values:
        blanked[value.start : value.end] = " " * (value.end - value.start)
    return as_dimensions(content_words(unhedged("".join(blanked)))) - DEGREE_WORDS


def _conflicts(claim: Claim, claim_values: list[Value], missing: list[Value],
               sentences: list[EvidenceSentence]) -> list[_Conflict]:
    """Conflicting values in sentences aligned with the claim, for each missing value."""
    claim_words = _claim_words(claim, claim_values)
    if not claim_words:
        return []
    aligned: list[tuple[int, float]] = []
    for index, sentence in enumerate(sentences):
        shared = len(claim_words & sentence.aligned)
        if shared and shared / len(claim_words) >= _ALIGNMENT:
            aligned.append((index, shared / len(claim_words)))
    conflicts: list[_Conflict] = []
    for value in missing:
        if value.kind is ValueKind.ENTITY:  # a name can be missing, never contradicted
            continue
        for index, alignment in aligned:
            other = sentences[index].values.conflict(value, claim_values, durations=True)
            if other is not None:
                conflicts.append(_Conflict(value, other, index, alignment))
    return conflicts
