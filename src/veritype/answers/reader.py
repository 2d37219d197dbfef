"""Which text answers a question: the answer model's P(answers) read beside what the question
asks, by one fitted logistic model.

The answer model (``veritype.answers.scoring``) reads one (question, sentence) pair; on documents it
was not trained on it often prefers a sentence about a sibling entity or a neighbouring
policy. The rules of ``veritype.answers.question`` (the kind of value asked for, its focus, its
subject) know what it misses but are brittle as vetoes: a condition answers "when", a count
"how long". The reader turns both into evidence: each candidate text becomes a vector of
features (:data:`FEATURES`) and a logistic model fitted on question/answer pairs written for
other corpora (``veritype train answer-reader``) gives P(the text holds the answer).

A text is read with its ``context`` (the heading or title of its passage, and the sentence
"it" leads back to) and within its ``pool``, the other candidate texts: a question word that
many candidates share (the product's name on every page) says less than one they do not.

The reader's calibration (:class:`RightCalibration`) holds the reader P from which a claim
answers whatever the rules read of it (``answers_from``: a condition can answer "when"), and
maps the best reader P and the best answer-model P(answers) of the claims that answer to
P(the shown answer is right), with the floors of the confidence labels: the reader knows small
corpora of the user's kind, the answer model two-hop questions over many similar paragraphs,
and P(right) reads both.

Pure: no model is loaded here.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from veritype._text import content_families, normalise_word, tokens, word_family
from veritype.answer import Confidence
from veritype.answers.question import AnswerKind, Question, shared_focus
from veritype.answers.relevance import names_any
from veritype.answers.scoring import DECIDED_BY_RULES, AnswerScorer, band, read_json_object
from veritype.errors import ConfigurationError

READER_FILE = "reader.json"
_RIGHT_FIELDS = ("intercept", "reader_slope", "answer_model_slope", "high", "medium")
# A reader written before ``answers_from`` existed never answers by its P alone; one written
# before ``coverage_slope`` reads no question coverage.
_OPTIONAL_RIGHT_FIELDS = {"answers_from": 1.0, "coverage_slope": 0.0}

# The features of a (question, text) pair, in the order of a fitted model's coefficients.
FEATURES: tuple[str, ...] = (
    "answer_model_logit",  # logit of the answer model's P(answers)
    "shared_words",  # share of the question's content words in the text
    "shared_words_in_context",  # ... in the text with its context
    "rare_shared_words",  # ... weighted by how few texts of the pool hold each word
    "shared_focus",  # share of the question's focus words in the text with its context
    "holds_kind",  # the text holds a value of the kind asked for (a date for "when")
    "names_attribute",  # it names the measured attribute asked for ("range"), if any
    "names_event",  # it states the event a "did/does" question asks about, if any
    "rules_answer",  # the rules of ``veritype.answers.question`` say it answers
    "on_subject",  # it (or its context) names the question's subject, if any
    *(f"asks_{kind.value}" for kind in AnswerKind),
)


@dataclass(frozen=True)
class Candidate:
    """A text that may answer, with the heading, title or sentence it is read with."""

    text: str
    context: str = ""


@dataclass(frozen=True)
class RightCalibration:
    """P(the shown answer is right) = ``sigmoid(intercept + reader_slope · logit(best reader
    P) + answer_model_slope · logit(best P(answers)) + coverage_slope · coverage)`` over the
    claims that answer, where coverage is the share of what the question asks about that
    those claims speak of (:func:`question_coverage`); ``high`` and ``medium`` are the floors
    of those labels on it (below ``medium``: low). A claim whose reader P reaches
    ``answers_from`` answers, whatever kind of value the rules read in it (1.0: only the
    rules and the answer model's threshold decide)."""

    intercept: float
    reader_slope: float
    answer_model_slope: float
    high: float
    medium: float
    answers_from: float = 1.0
    coverage_slope: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.medium <= self.high <= 1.0:
            raise ConfigurationError(
                f"answer reader: 0 <= medium <= high <= 1 is required; got medium "
                f"{self.medium}, high {self.high}")
        if not 0.0 < self.answers_from <= 1.0:
            raise ConfigurationError(
                f"answer reader: answers_from must lie in (0, 1]; got {self.answers_from}")

    def right(self, read: float, scored: float, coverage: float) -> float:
        """P(right) of an answer whose best claims have reader P ``read`` and answer-model
        P(answers) ``scored``, and whose claims speak of the ``coverage`` share of what the
        question asks about."""
        return _sigmoid(self.intercept + self.reader_slope * _logit(read)
                        + self.answer_model_slope * _logit(scored)
                        + self.coverage_slope * coverage)

    def label(self, right: float) -> Confidence:
        """The confidence label of an answer right with probability ``right``."""
        return band(right, high=self.high, medium=self.medium)

    def reads_as_answer(self, question: Question, read: float) -> bool:
        """Whether a claim of reader P ``read`` answers ``question`` by that P alone, whatever
        kind of value the rules read in it; never for the questions the rules decide."""
        return question.kind not in DECIDED_BY_RULES and read >= self.answers_from


@dataclass(frozen=True)
class AnswerReader:
    """A fitted logistic model over :data:`FEATURES` and the calibration of P(right)."""

    coefficients: tuple[float, ...]
    intercept: float
    calibration: RightCalibration

    def __post_init__(self) -> None:
        if len(self.coefficients) != len(FEATURES):
            raise ConfigurationError(
                f"answer reader: {len(self.coefficients)} coefficients for "
                f"{len(FEATURES)} features")

    def probabilities(self, question: Question, candidates: Sequence[Candidate],
                      scores: Sequence[float], *, pool: Sequence[Candidate] | None = None
                      ) -> list[float]:
        """P(each candidate holds the answer), from the answer model's ``scores`` of them
        and their features, read within ``pool`` (default: the ``candidates``)."""
        rows = features(question, candidates, scores, pool=pool)
        return [_sigmoid(self.intercept + sum(c * x for c, x in
                                              zip(self.coefficients, row, strict=True)))
                for row in rows]

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(FEATURES),
                "coefficients": [round(c, 6) for c in self.coefficients],
                "intercept": round(self.intercept, 6),
                "calibration": asdict(self.calibration)}

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str) -> AnswerReader:
        try:
            names = list(data["features"])
            if names != list(FEATURES):
                raise ValueError(f"features {names} are not this version's {list(FEATURES)}")
            fields = {key: float(data["calibration"][key]) for key in _RIGHT_FIELDS}
            fields |= {key: float(data["calibration"].get(key, default))
                       for key, default in _OPTIONAL_RIGHT_FIELDS.items()}
            calibration = RightCalibration(**fields)
            return cls(tuple(float(c) for c in data["coefficients"]), float(data["intercept"]),
                       calibration)
        except (KeyError, TypeError, ValueError) as error:
            raise ConfigurationError(f"{where}: not an answer reader ({error})") from None

    @classmethod
    def read(cls, path: Path) -> AnswerReader:
        return cls.from_dict(read_json_object(path, "answer reader"), where=str(path))


def reader_of(scorer: AnswerScorer) -> AnswerReader | None:
    """The reader fitted for ``scorer`` (its ``reader`` attribute), if it has one."""
    reader = getattr(scorer, "reader", None)
    return reader if isinstance(reader, AnswerReader) else None


def features(question: Question, candidates: Sequence[Candidate], scores: Sequence[float],
             *, pool: Sequence[Candidate] | None = None) -> list[list[float]]:
    """The :data:`FEATURES` of each candidate, whose answer-model P(answers) is in ``scores``;
    a word's rarity is read in ``pool`` (default: the ``candidates``)."""
    asked = content_families(question.text)
    read = [_families(c) for c in candidates]
    rarity = _rarities(asked, read if pool is None else [_families(c) for c in pool])
    # Sums over sets are exact (``fsum``): a set's order changes with the hash seed.
    total_rarity = math.fsum(rarity.values()) or 1.0
    kinds = [float(question.kind is kind) for kind in AnswerKind]
    rows: list[list[float]] = []
    for candidate, words, score in zip(candidates, read, scores, strict=True):
        own = content_families(candidate.text)
        with_context = f"{candidate.text} {candidate.context}"
        rows.append([
            _logit(score),
            len(asked & own) / len(asked) if asked else 0.0,
            len(asked & words) / len(asked) if asked else 0.0,
            math.fsum(rarity[word] for word in asked & words) / total_rarity,
            shared_focus(question.focus, with_context) / len(question.focus)
            if question.focus else 1.0,
            float(question.holds_kind(candidate.text)),
            float(question.names_asked_attribute(candidate.text)),
            float(question.names_asked_event(candidate.text)),
            float(question.answers(candidate.text)),
            float(not question.subjects or names_any(with_context, question.subjects)),
            *kinds,
        ])
    return rows


def question_coverage(question: Question, answering: Sequence[Candidate],
                      pool: Sequence[Candidate]) -> float:
    """The share of what ``question`` asks about (its focus and subject words) that the
    ``answering`` texts, with their context, speak of, each word weighted by how few texts of
    ``pool`` hold it: an answer about annual leave covers "paid" and "leave" of "How much paid
    bereavement leave is there?" but not "bereavement", the word that tells this leave from
    the others. 1 when the question names nothing to cover."""
    asked = {word_family(match.group(0)) for match in tokens(question.text)
             if normalise_word(match.group(0)) in question.focus
             or any(match.group(0).lower() in subject for subject in question.subjects)}
    rarity = _rarities(asked, [_families(c) for c in pool])
    total = math.fsum(rarity.values())
    if not total:
        return 1.0
    held = set().union(*(_families(c) for c in answering))
    return math.fsum(rarity[word] for word in asked & held) / total


def _families(candidate: Candidate) -> set[str]:
    """The content word families of a candidate read with its context."""
    return content_families(f"{candidate.text} {candidate.context}")


def _rarities(asked: set[str], pooled: Sequence[set[str]]) -> dict[str, float]:
    """How few texts of a pool (each as its content word families, ``pooled``) hold each
    ``asked`` word, as an idf."""
    holding = Counter(word for words in pooled for word in words & asked)
    return {word: math.log((len(pooled) + 1) / (holding[word] + 0.5)) for word in asked}


def _logit(probability: float) -> float:
    clipped = min(max(probability, 1e-4), 1.0 - 1e-4)
    return math.log(clipped / (1.0 - clipped))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
