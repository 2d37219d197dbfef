"""Does a text answer a question, and how likely is a shown answer right?

The rules of ``veritype.answers.question`` read a question for the kind of value it asks ("when" → a
date) and its focus; a two-hop question ("Bassist of the band who released Voivod was
originally in a band based where?") defeats them. An answer scorer is a learned judge of the
same thing: P(this text answers this question). veritype ships one (``answers``, a
cross-encoder trained on training-side HotpotQA questions against their knowledge sentences;
``veritype.models.answer_model``), registered by name here; a path to another such model
works too.

Each scorer carries its calibration (:class:`AnswerCalibration`), fitted on questions the
model never read: the probability from which a text counts as answering, and the map from the
best answering claim's probability to P(the shown answer is right), the answer's confidence,
with the floors of its labels.

Pure: this module loads no model; the registry imports the shipped one when it is asked for.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from veritype._registry import Registry
from veritype.answer import Confidence
from veritype.answers.question import AnswerKind, Question
from veritype.errors import ConfigurationError, VeritypeError

CALIBRATION_FILE = "calibration.json"


@dataclass(frozen=True, slots=True)
class AnswerCalibration:
    """How a scorer's probabilities are read.

    ``threshold``: P(answers) from which a text answers the question. P(the shown answer is
    right) is ``sigmoid(slope · logit(best) + intercept + kind_offsets[kind])`` of the best
    P(answers) among the shown claims that answer and the kind of answer the question asks
    for (a sentence rarely answers a yes/no question as its gold answer does, while a date
    that answers "when" is mostly right); ``high`` and ``medium`` are the floors of those
    labels on it (below ``medium``: low).
    """

    threshold: float
    slope: float
    intercept: float
    high: float
    medium: float
    # Log-odds added for a question of each kind (by ``AnswerKind`` value); 0 for the others.
    kind_offsets: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold < 1.0 or not 0.0 <= self.medium <= self.high <= 1.0:
            raise ConfigurationError(
                f"answer calibration: threshold must lie in (0, 1) and 0 <= medium <= high <= 1; "
                f"got threshold {self.threshold}, medium {self.medium}, high {self.high}"
            )

    def right(self, best: float, kind: AnswerKind | None = None) -> float:
        """P(the shown answer is right) when its best answering claim scores ``best``, for
        a question asking for ``kind``."""
        clipped = min(max(best, 1e-6), 1.0 - 1e-6)
        offset = self.kind_offsets.get(kind.value, 0.0) if kind is not None else 0.0
        z = self.slope * math.log(clipped / (1.0 - clipped)) + self.intercept + offset
        return 1.0 / (1.0 + math.exp(-z))

    def label(self, right: float) -> Confidence:
        """The confidence label of an answer right with probability ``right``."""
        return band(right, high=self.high, medium=self.medium)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"threshold": self.threshold, "slope": self.slope,
                                "intercept": self.intercept, "high": self.high,
                                "medium": self.medium}
        if self.kind_offsets:
            data["kind_offsets"] = dict(sorted(self.kind_offsets.items()))
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, where: str) -> AnswerCalibration:
        try:
            offsets = data.get("kind_offsets", {})
            kinds = {kind.value for kind in AnswerKind}
            unknown = sorted(set(offsets) - kinds)
            if unknown:
                raise ValueError(f"unknown answer kinds {unknown}; known: {sorted(kinds)}")
            return cls(**{key: float(data[key]) for key in
                          ("threshold", "slope", "intercept", "high", "medium")},
                       kind_offsets={str(kind): float(value) for kind, value in offsets.items()})
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ConfigurationError(f"{where}: not an answer calibration ({error})") from None

    @classmethod
    def read(cls, path: Path) -> AnswerCalibration:
        return cls.from_dict(read_json_object(path, "answer calibration"), where=str(path))


def read_json_object(path: Path, what: str) -> dict[str, Any]:
    """The JSON object in ``path``, a fitted ``what``; a ``ConfigurationError`` naming the
    file when it cannot be read or holds something else."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ConfigurationError(f"{path}: cannot read the {what}: {error}") from None
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path}: an {what} is a JSON object")
    return data


def band(right: float, *, high: float, medium: float) -> Confidence:
    """The confidence label of P(right) ``right`` with the floors ``high`` and ``medium``
    (below ``medium``: low)."""
    if right >= high:
        return Confidence.HIGH
    return Confidence.MEDIUM if right >= medium else Confidence.LOW


def claim_answers(question: Question, text: str, score: float | None,
                  calibration: AnswerCalibration | None) -> bool:
    """Whether a claim answers ``question``: the rules say so (``Question.answers``), or its
    P(answers) ``score`` reaches the calibrated threshold and it holds a value of the asked
    kind. A yes/no question is left to the rules, which check that the claim states or
    negates the asked property; the model knows answers that are values."""
    return question.answers(text) or model_answers(question, text, score, calibration)


def answers_surely(question: Question, text: str, score: float | None,
                   calibration: AnswerCalibration | None) -> bool:
    """Whether a claim answers ``question`` by the answer model where it reads the question
    (a value asked for, with a scorer and its calibration), else by the rules. The rules
    take any value of the asked kind for an answer ("Christina Vidal" for "Who distributed
    the show ...?"); deciding that the claims about the question's subject already answer,
    so that no two-hop claim is needed, asks for the model's reading. The questions the
    rules decide (yes/no, comparisons) are theirs here too."""
    if score is None or calibration is None or question.kind in DECIDED_BY_RULES:
        return claim_answers(question, text, score, calibration)
    return model_answers(question, text, score, calibration)


# An answer the answer model chose that is more likely wrong than right is not shown (the
# engine abstains): the criterion the calibration's threshold is chosen by, applied to
# P(right), which also reads the kind of question.
RIGHT_FLOOR = 0.5
# The kinds of question whose answers the rules decide (a statement of the asked property, a
# value for each side of a comparison): the answer model reads one answer, and a yes/no
# question's gold answer ("yes") is in no sentence, so ``RIGHT_FLOOR`` does not hold them back.
DECIDED_BY_RULES = frozenset({AnswerKind.YES_NO, AnswerKind.COMPARISON})
# A claim the model scores below this share of the best-scoring answer is context: "The Volga
# is the longest river in Europe" (0.42) beside "The Volga ... flows into the Caspian Sea"
# (0.97) for "Into which sea does the Volga flow?".
NEAR_BEST = 0.5


def answering_claims(question: Question, texts: Sequence[str],
                     scores: Sequence[float | None],
                     calibration: AnswerCalibration | None,
                     abouts: Sequence[str] | None = None) -> list[int]:
    """The indices of the ``texts`` that answer ``question`` (``claim_answers``; the rules read
    each text with its ``abouts``, the titles and headings of its passages), where a model
    answer must also score at least ``NEAR_BEST`` of the best model answer."""
    by_model = [model_answers(question, text, score, calibration)
                for text, score in zip(texts, scores, strict=True)]
    best = max((score or 0.0 for score, chosen in zip(scores, by_model, strict=True) if chosen),
               default=0.0)
    about = list(abouts) if abouts is not None else [""] * len(texts)
    return [i for i, (text, score, context) in enumerate(zip(texts, scores, about, strict=True))
            if question.answers(text, context)
            or (by_model[i] and (score or 0.0) >= NEAR_BEST * best)]


def model_answers(question: Question, text: str, score: float | None,
                  calibration: AnswerCalibration | None) -> bool:
    """Whether the answer model says a claim answers ``question``: its P(answers) reaches the
    calibrated threshold, it holds a value of the asked kind, names the measured attribute
    asked for, if any ("The Trek costs 3,499 euros." holds a number but no range), states the
    event asked about, if any ("Marie Curie died in 1934" does not say when she moved), and
    the question is not yes/no."""
    return (score is not None and calibration is not None
            and score >= calibration.threshold and may_answer(question, text, calibration))


def may_answer(question: Question, text: str, calibration: AnswerCalibration | None) -> bool:
    """What :func:`model_answers` asks of a text besides its P(answers): a text failing it
    answers ``question`` at no score, so it need not be scored."""
    return (calibration is not None and question.kind is not AnswerKind.YES_NO
            and question.holds_kind(text) and question.names_asked_attribute(text)
            and question.names_asked_event(text))


@runtime_checkable
class AnswerScorer(Protocol):
    """P(a text answers a question), with the calibration that reads it."""

    name: str
    calibration: AnswerCalibration

    def score(self, question: str, text: str) -> float:
        """P(``text`` answers ``question``)."""
        ...

    def score_batch(self, question: str, texts: Sequence[str]) -> list[float]:
        """P(answers) of each of ``texts`` for one question."""
        ...


_REGISTRY = Registry[AnswerScorer](
    "answer scorer", lazy={"answers": "veritype.models.answer_model:AnswerModel"},
)
register_answer_scorer = _REGISTRY.register
DEFAULT_ANSWER_SCORER = "answers"
# A setting naming no scorer: answers are read by the rules alone.
NO_ANSWER_MODEL = "none"


def load_answer_scorer(setting: str) -> AnswerScorer | None:
    """The scorer an ``answer_model`` setting names (``create_answer_scorer``), or None when
    it is ``NO_ANSWER_MODEL``; one that cannot be built is a ``ConfigurationError`` naming the
    setting."""
    if setting == NO_ANSWER_MODEL:
        return None
    try:
        return create_answer_scorer(setting)
    except (VeritypeError, ImportError) as error:
        raise ConfigurationError(f"answer_model {setting!r}: {error}") from None


def create_answer_scorer(name_or_path: str, **options: Any) -> AnswerScorer:
    """The scorer registered as ``name_or_path``, else the ``answers`` model read from that
    directory (a ``model.onnx`` with its tokenizer, labels and ``calibration.json``)."""
    if name_or_path in _REGISTRY or not Path(name_or_path).is_dir():
        return _REGISTRY.create(name_or_path, **options)
    return _REGISTRY.create(DEFAULT_ANSWER_SCORER, model=name_or_path, **options)
