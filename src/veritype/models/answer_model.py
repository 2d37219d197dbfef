"""The ``answers`` scorer: P(a sentence answers a question) from an ONNX cross-encoder.

The shipped model (``veritype/models/answers``) reads ``(question, sentence)`` pairs, as QNLI
does, and its entailment output is P(the sentence answers the question); ``calibration.json``
beside it says how to read that (``veritype.answers.scoring.AnswerCalibration``), and
``reader.json``, where present, the reader that weighs it with what the question asks
(``veritype.answers.reader``). Any directory
holding such a model and calibration, or a Hugging Face checkpoint by name or path (exported
once, needs the ``train`` extra) with a calibration passed in, works the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from veritype.answers.reader import READER_FILE, AnswerReader
from veritype.answers.scoring import CALIBRATION_FILE, AnswerCalibration, register_answer_scorer
from veritype.errors import ModelError
from veritype.models.cross_encoder import CrossEncoder, model_directory


@register_answer_scorer("answers")
class AnswerModel:
    """P(answers) of (question, text) pairs from a cross-encoder's entailment output."""

    name = "answers"

    def __init__(self, model: str = "answers", *, threads: int = 2,
                 calibration: AnswerCalibration | None = None) -> None:
        directory = model_directory(model)
        if calibration is None:
            path = directory / CALIBRATION_FILE
            if not path.is_file():
                raise ModelError(f"{directory}: no {CALIBRATION_FILE}; an answer model needs "
                                 "its calibration (veritype train answer-calibration)")
            calibration = AnswerCalibration.read(path)
        self.calibration = calibration
        # The reader fitted on this model's P(answers), where one ships beside it.
        reader = directory / READER_FILE
        self.reader = AnswerReader.read(reader) if reader.is_file() else None
        self._encoder = CrossEncoder(directory, threads=threads, max_length=128)

    def score(self, question: str, text: str) -> float:
        return self.score_batch(question, [text])[0]

    def score_batch(self, question: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        probabilities = self._encoder.predict([(question, text) for text in texts])
        return [float(row[0]) for row in probabilities]
