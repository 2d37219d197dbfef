"""The context monitor: no clause of the answer may contradict the evidence or an earlier
clause of the same answer.

The monitor acts only at clause boundaries, so its cost is paid a few times per answer
rather than per token: a candidate that closes a clause ("." ";" "!" "?" a newline, the end
of the answer, or ", and" / ", but" / ", while" / ", whereas") is unsafe when the NLI model
finds the clause it closes contradicted by an evidence sentence or by an earlier clause.
A contradicted clause then cannot be completed, and the decoder backs off rather than write
around it (see ``veritype.decoding._decision``). A clause counts as checked (``coverage``)
when an evidence sentence entails it: a clause the evidence neither supports nor
contradicts is one the monitor could not check. Only the premises that share content words
with the clause, a word and not only a number among them, are scored: contradiction needs a
shared topic, and a shared number is none ("23 * 19 = 437" is not refuted by a trial that
enrolled "19 579 women"). Verdicts are cached per clause.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from veritype._text import content_words, sentence_spans
from veritype.decoding._base import (
    CLAUSE_BREAK,
    END_OF_TEXT,
    Coverage,
    register_guard,
    safe_one_by_one,
)
from veritype.errors import DecodingError
from veritype.evidence import EvidencePack

if TYPE_CHECKING:
    from veritype.models.cross_encoder import CrossEncoder

_CLOSERS = ".;!?\n"
_JOINERS = frozenset({"and", "but", "while", "whereas", "yet"})
_ENTAILMENT, _CONTRADICTION = 0, 2
_MAX_CACHE = 4096


class ContextGuard:
    """Blocks the token that would close a clause contradicting the evidence or the answer.

    ``contradiction_threshold``: the NLI contradiction probability at or above which (and
    above the entailment probability) a clause counts as contradicted (the shipped model
    puts entity swaps such as "... is in Berlin" against "... is in Paris" at 0.4-0.5, and
    compatible additions below 0.1); ``entailment_threshold``: the entailment probability
    at or above which an evidence sentence checks a clause (``coverage``); ``min_words``:
    shorter clauses ("Yes.") state nothing checkable; ``premises_per_clause``: how many
    evidence sentences and earlier clauses, by shared content words, are scored.
    """

    name = "context"
    exact = False

    def __init__(
        self,
        evidence: Sequence[str] | EvidencePack = (),
        *,
        encoder: CrossEncoder | None = None,
        model: str = "nli",
        contradiction_threshold: float = 0.4,
        entailment_threshold: float = 0.5,
        min_words: int = 3,
        premises_per_clause: int = 3,
        threads: int = 2,
        enabled: bool = True,
    ) -> None:
        if not 0.0 < contradiction_threshold <= 1.0:
            raise DecodingError(
                f"contradiction_threshold must lie in (0, 1], got {contradiction_threshold}"
            )
        if not 0.0 < entailment_threshold <= 1.0:
            raise DecodingError(
                f"entailment_threshold must lie in (0, 1], got {entailment_threshold}"
            )
        if min_words < 1 or premises_per_clause < 1:
            raise DecodingError("min_words and premises_per_clause must be >= 1")
        if encoder is None:
            from veritype.models.cross_encoder import CrossEncoder, model_directory

            encoder = CrossEncoder(model_directory(model), threads=threads)
        self.encoder = encoder
        self.contradiction_threshold = contradiction_threshold
        self.entailment_threshold = entailment_threshold
        self.min_words = min_words
        self.premises_per_clause = premises_per_clause
        self.enabled = enabled
        self.evidence_sentences = _evidence_sentences(evidence)
        self._evidence_words = [set(content_words(s)) for s in self.evidence_sentences]
        self._evidence_set = frozenset(self.evidence_sentences)
        self._verdicts: dict[tuple[str, tuple[str, ...]], bool] = {}

    def with_evidence(self, evidence: Sequence[str] | EvidencePack) -> ContextGuard:
        """The same monitor (sharing its loaded model) over other evidence."""
        return ContextGuard(
            evidence,
            encoder=self.encoder,
            contradiction_threshold=self.contradiction_threshold,
            entailment_threshold=self.entailment_threshold,
            min_words=self.min_words,
            premises_per_clause=self.premises_per_clause,
            enabled=self.enabled,
        )

    def safe(self, prefix: str, candidates: Sequence[str]) -> list[bool]:
        clauses: dict[int, str] = {}
        for index, candidate in enumerate(candidates):
            clause = closed_clause(prefix, candidate)
            if clause is not None and len(clause.split()) >= self.min_words:
                clauses[index] = clause
        if not clauses:
            return [True] * len(candidates)
        earlier = earlier_clauses(prefix)
        contradicted = self._contradicted(sorted(set(clauses.values())), earlier)
        return [not contradicted.get(clauses.get(i, ""), False) for i in range(len(candidates))]

    def safe_batch(
        self, prefixes: Sequence[str], candidates: Sequence[Sequence[str]]
    ) -> list[list[bool]]:
        return safe_one_by_one(self, prefixes, candidates)

    def coverage(self, text: str, start: int, end: int) -> Coverage:
        """Checked when an evidence sentence entails the clause (NLI entailment at or
        above ``entailment_threshold`` and above contradiction)."""
        clause = text[start:end]
        premises = [p for p in self._premises(clause, ()) if p in self._evidence_set]
        if not premises:
            return Coverage(self.name, False, "no evidence sentence shares its content words")
        scores = self.encoder.predict([(premise, clause) for premise in premises])
        best = int(scores[:, _ENTAILMENT].argmax())
        entailment = float(scores[best, _ENTAILMENT])
        if entailment >= self.entailment_threshold and entailment > float(
            scores[best, _CONTRADICTION]
        ):
            return Coverage(self.name, True, f"entailed ({entailment:.2f}) by {premises[best]!r}")
        return Coverage(self.name, False,
                        f"no evidence sentence entails it (best {entailment:.2f})")

    def contradiction(self, clause: str, earlier: Sequence[str] = ()) -> tuple[float, str]:
        """The strongest contradiction of ``clause`` among the premises and which premise."""
        premises = self._premises(clause, earlier)
        if not premises:
            return 0.0, ""
        scores = self.encoder.predict([(premise, clause) for premise in premises])
        best = int(scores[:, _CONTRADICTION].argmax())
        return float(scores[best, _CONTRADICTION]), premises[best]

    def _contradicted(self, clauses: Sequence[str], earlier: Sequence[str]) -> dict[str, bool]:
        keyed = {clause: (clause, tuple(earlier)) for clause in clauses}
        todo = [clause for clause, key in keyed.items() if key not in self._verdicts]
        pairs: list[tuple[str, str]] = []
        owners: list[str] = []
        for clause in todo:
            for premise in self._premises(clause, earlier):
                pairs.append((premise, clause))
                owners.append(clause)
        verdicts = dict.fromkeys(todo, False)
        if pairs:
            scores = self.encoder.predict(pairs)
            for owner, row in zip(owners, scores, strict=True):
                contradiction = float(row[_CONTRADICTION])
                if contradiction >= self.contradiction_threshold and contradiction > float(
                    row[_ENTAILMENT]
                ):
                    verdicts[owner] = True
        if len(self._verdicts) + len(verdicts) > _MAX_CACHE:
            self._verdicts.clear()
        for clause, verdict in verdicts.items():
            self._verdicts[keyed[clause]] = verdict
        return {clause: self._verdicts[key] for clause, key in keyed.items()}

    def _premises(self, clause: str, earlier: Sequence[str]) -> list[str]:
        """The evidence sentences and earlier clauses that share the most content words
        with ``clause``, at least one of them a word rather than a number."""
        words = set(content_words(clause))
        topic = {word for word in words if any(char.isalpha() for char in word)}
        if not topic:
            return []
        candidates = [*zip(self.evidence_sentences, self._evidence_words, strict=True),
                      *((c, set(content_words(c))) for c in earlier if c != clause)]
        scored = [(len(words & premise_words), premise) for premise, premise_words in candidates
                  if topic & premise_words]
        ranked = sorted(scored, key=lambda item: -item[0])
        return [premise for _, premise in ranked[: self.premises_per_clause]]


def _evidence_sentences(evidence: Sequence[str] | EvidencePack) -> list[str]:
    if isinstance(evidence, EvidencePack):
        texts = [chunk.text for chunk in evidence]
    elif isinstance(evidence, str):
        raise DecodingError("evidence must be a list of texts or an EvidencePack, not one string")
    else:
        texts = list(evidence)
    return [text[start:end] for text in texts for start, end in sentence_spans(text)]


def closed_clause(prefix: str, candidate: str) -> str | None:
    """The clause ``candidate`` closes after ``prefix``, or None when it closes none."""
    if candidate == END_OF_TEXT:
        return _last_clause(prefix)
    cut = next((i for i, char in enumerate(candidate) if char in _CLOSERS), None)
    if cut is not None:
        if candidate[cut] == "." and cut + 1 == len(candidate) and prefix[-1:].isdigit():
            # "3." may yet be "3.5": the number, not the clause, continues.
            return None
        return _last_clause(prefix + candidate[:cut])
    if re.search(r"\d\.$", prefix) and candidate[:1].isspace():
        return _last_clause(prefix[:-1])
    if candidate.strip().lower() in _JOINERS and prefix.rstrip().endswith(","):
        return _last_clause(prefix.rstrip()[:-1])
    return None


def _last_clause(text: str) -> str | None:
    breaks = list(CLAUSE_BREAK.finditer(text))
    start = breaks[-1].end() if breaks else 0
    clause = text[start:].strip()
    return clause or None


def earlier_clauses(prefix: str) -> list[str]:
    """The complete clauses of ``prefix`` before the one being written, questions excluded."""
    clauses: list[str] = []
    start = 0
    for match in CLAUSE_BREAK.finditer(prefix):
        clause = prefix[start : match.start()].strip()
        if clause and match.group(0) != "?":
            clauses.append(clause)
        start = match.end()
    return clauses


@register_guard("context")
def context_guard(**options: Any) -> ContextGuard:
    """The ``context`` guard (options: ``evidence``, ``model``, ``encoder``,
    ``contradiction_threshold``, ``entailment_threshold``, ``min_words``,
    ``premises_per_clause``, ``enabled``)."""
    return ContextGuard(**options)
