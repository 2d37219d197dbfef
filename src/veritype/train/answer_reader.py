"""Fit the answer reader on questions written for other corpora: ``veritype train answer-reader``.

The data are folders of small corpora with questions and gold answers: a folder with
``split.json`` and ``questions.json`` (``benchmarks/data/answer_corpora``: only the corpora of
its calibration half are read; the evaluation half is never touched here), or a folder whose
``questions.json`` maps each corpus folder to its questions (``tests/data/corpora``). Each
corpus is one source.

Besides the question sets (``veritype.evaluation.answer_corpora``), ``data_dir`` adds one more
source: a fixed-seed sample of HaluEval-QA rows ``ANSWER_TRAIN_ROWS``–``HALUEVAL_TRAIN_ROWS - 1``
(the rows the answer model's calibration reads; it was trained on the rows before, evaluation
reads the rows after), asked over their knowledge paragraphs and those of the
``DISTRACTOR_ROWS`` rows before them: two-hop questions over a dense corpus of similar
paragraphs, unlike the small corpora. Each source weighs the same in every fit.

For every question that the rules do not decide (neither a comparison nor yes/no), the corpus
is ingested into a fresh store, the question's evidence is retrieved as ``Engine.ask``
retrieves it, and every sentence of it is a candidate (as the extractive drafter reads it),
labelled by whether it holds the gold answer.
Then:

- **coefficients**: a penalised logistic regression of the label on the reader's features
  (``veritype.answers.reader.FEATURES``) over all candidates.
- **held out by source**: the same fit without one source, read on that source: how often the
  best-ranked candidate holds the answer, beside the two single signals it combines (the
  answer model's P(answers) alone; the shared-word rules the drafter ranked by before), and
  the P(answers) of the best candidate for each question.
- **answers from**: the lowest reader P from which the best-ranked candidate of a question
  holds its answer at least ``ANSWERS_PRECISION`` of the time (over at least ``MIN_BAND``
  questions, unanswerable ones included, each read by the reader fitted without its
  source): from there a claim answers by the reader alone, whatever kind of value the rules
  read in it.
- **calibration**: each source's questions are asked through ``Engine.ask`` with the reader
  fitted without that source (and its floor fitted without it), every answer the engine
  would show being shown; P(the shown
  answer is right) is a logistic map of the logits of the best reader P and the best
  answer-model P(answers) of the claims shown, fitted on all those answers (an unanswerable
  question's answer is wrong), each source weighing the same; "high" is the lowest P(right)
  from which the answers, each read under P(right) fitted without its source, are right at
  least ``HIGH_ACCURACY`` of the time with a Wilson lower bound (95%) of at least
  ``HIGH_LOWER_BOUND`` (over at least ``MIN_BAND``); "medium" is P(right)
  ``MEDIUM_ACCURACY``. The report reads each source under P(right) fitted on the others.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.aggregate._learned import newton
from veritype.answers.reader import FEATURES, READER_FILE, AnswerReader, RightCalibration
from veritype.answers.scoring import RIGHT_FLOOR
from veritype.errors import DataError
from veritype.evaluation._e2e_data import halueval_rows
from veritype.evaluation.answer_corpora import (
    AskedAnswer,
    GoldQuestion,
    ReadQuestion,
    ask_with_reader,
    gold_questions,
    read_candidates,
)
from veritype.evaluation.machine import machine
from veritype.models.cross_encoder import model_directory
from veritype.train.answer_calibration import DISTRACTOR_ROWS, wilson_low
from veritype.train.answer_data import ANSWER_TRAIN_ROWS
from veritype.train.data import HALUEVAL_TRAIN_ROWS

HIGH_ACCURACY = 0.95
HIGH_LOWER_BOUND = 0.9
_WILSON_95 = 1.96
ANSWERS_PRECISION = 0.9
MEDIUM_ACCURACY = 0.7
MIN_BAND = 20
PENALTY = 1e-3
REPORT_FILE = "reader_report.json"
# While P(right) is calibrated, every answer the engine would show is shown.
_SHOW_EVERY_ANSWER = RightCalibration(intercept=30.0, reader_slope=0.0, answer_model_slope=0.0,
                                      high=1.0, medium=1.0)
HALUEVAL_SOURCE = "halueval-qa"
HALUEVAL_QUESTIONS = 300
HALUEVAL_SEED = 11


def fit_coefficients(reads: Sequence[ReadQuestion]) -> tuple[tuple[float, ...], float]:
    """The penalised logistic fit of the labels on the features, each source weighing the
    same: coefficients, intercept."""
    design = np.vstack([read.rows for read in reads])
    labels = np.concatenate([read.labels for read in reads])
    per_read = _source_weights([read.question.source for read in reads])
    weights = np.concatenate([np.full(len(read.labels), weight)
                              for read, weight in zip(reads, per_read, strict=True)])
    with_intercept = np.hstack([np.ones((design.shape[0], 1)), design])
    penalty = np.full(with_intercept.shape[1], PENALTY)
    penalty[0] = 0.0
    theta = newton(with_intercept, labels, penalty, max_iter=100, sample_weight=weights)
    return tuple(float(c) for c in theta[1:]), float(theta[0])


def _source_weights(sources: Sequence[str]) -> list[float]:
    """Each item's weight, given its source: one over the number of items of that source."""
    counts = Counter(sources)
    return [1.0 / counts[source] for source in sources]


def _probabilities(read: ReadQuestion, coefficients: Sequence[float], intercept: float
                   ) -> npt.NDArray[np.float64]:
    z = read.rows @ np.array(coefficients) + intercept
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)


def _top(read: ReadQuestion, reader: tuple[tuple[float, ...], float]) -> tuple[float, bool]:
    """The P ``reader`` gives the candidate of ``read`` it ranks first, and whether that
    candidate holds the answer."""
    probabilities = _probabilities(read, *reader)
    best = int(np.argmax(probabilities))
    return float(probabilities[best]), bool(read.labels[best])


@dataclass(frozen=True)
class HeldOut:
    """The reader fitted without each source, and how each ranked its source's candidates."""

    readers: dict[str, tuple[tuple[float, ...], float]]
    per_source: dict[str, dict[str, Any]]


def held_out_rankings(reads: Sequence[ReadQuestion]) -> HeldOut:
    """For each source, the reader fitted on the others, and how often the candidate it ranks
    first on that source holds the answer, beside the answer model alone and shared words."""
    sources = sorted({read.question.source for read in reads})
    if len(sources) < 2:
        raise DataError("the answer reader is calibrated across sources; give at least two")
    readers: dict[str, tuple[tuple[float, ...], float]] = {}
    per_source: dict[str, dict[str, Any]] = {}
    for source in sources:
        coefficients, intercept = fit_coefficients(
            [read for read in reads if read.question.source != source])
        readers[source] = (coefficients, intercept)
        tops = {"reader": 0, "answer_model": 0, "shared_words": 0}
        answerable = 0
        for read in (read for read in reads if read.question.source == source
                     and read.question.kind == "answerable"):
            answerable += 1
            tops["reader"] += _top(read, readers[source])[1]
            tops["answer_model"] += bool(read.labels[int(np.argmax(read.answer_model))])
            tops["shared_words"] += bool(read.labels[int(np.argmax(read.shared_words))])
        per_source[source] = {"answerable": answerable, "best_candidate_holds_answer": tops}
    return HeldOut(readers, per_source)


def answers_from(reads: Sequence[ReadQuestion], held_out: HeldOut, *,
                 without: str | None = None) -> float:
    """The reader P from which a claim answers by the reader alone (the module's docstring),
    each question read by the reader fitted without its source; ``without`` leaves a source's
    questions out too."""
    tops = [_top(read, held_out.readers[read.question.source])
            for read in reads if read.question.source != without]
    best = np.array([p for p, _ in tops])
    holds = np.array([float(held) for _, held in tops])
    return _lowest_precise(best, holds, ANSWERS_PRECISION)


def fit_right(asked: Sequence[AskedAnswer], answers_floor: float = 1.0) -> RightCalibration:
    """P(right) of the shown answers from their best reader P and P(answers), each source
    weighing the same, with the floors of the labels: "high" is read on the answers of each
    source under P(right) fitted on the others (:func:`high_floor`)."""
    fitted = _p_right(asked)
    high = high_floor(asked)
    return replace(fitted, high=high, medium=min(MEDIUM_ACCURACY, high),
                   answers_from=answers_floor)


def _p_right(asked: Sequence[AskedAnswer]) -> RightCalibration:
    """P(right) fitted on the shown answers of ``asked``, without label floors."""
    shown = [item for item in asked if item.shown]
    if not shown:
        raise DataError("no question was answered: nothing to calibrate P(right) on")
    design = np.column_stack([np.ones(len(shown)),
                              _logits(np.array([item.best_read for item in shown])),
                              _logits(np.array([item.best_scored for item in shown])),
                              np.array([item.coverage for item in shown])])
    right = np.array([float(item.right) for item in shown])
    weights = np.array(_source_weights([item.question.source for item in shown]))
    intercept, reader_slope, model_slope, coverage_slope = (
        float(v) for v in newton(design, right, np.full(4, PENALTY), max_iter=100,
                                 sample_weight=weights))
    return RightCalibration(intercept, reader_slope, model_slope, high=1.0, medium=1.0,
                            coverage_slope=coverage_slope)


def _held_out(asked: Sequence[AskedAnswer]) -> list[tuple[AskedAnswer, float]]:
    """Each answer with its P(right) fitted on the other sources' answers (0 when not
    shown)."""
    judged: list[tuple[AskedAnswer, float]] = []
    for source in sorted({item.question.source for item in asked}):
        calibration = _p_right([item for item in asked if item.question.source != source])
        judged += [(item, calibration.right(item.best_read, item.best_scored, item.coverage)
                    if item.shown else 0.0) for item in asked if item.question.source == source]
    return judged


def high_floor(asked: Sequence[AskedAnswer]) -> float:
    """The lowest P(right) from which the answers shown, each read under P(right) fitted
    without its source, are right at least ``HIGH_ACCURACY`` of the time with a Wilson
    lower bound (95%) of at least ``HIGH_LOWER_BOUND``, over at least ``MIN_BAND`` of them
    (1.0 when none are): a floor read on the answers it was fitted on would hold for the
    source that dominates them, not for a new user's documents."""
    shown = [(right, item.right) for item, right in _held_out(asked)
             if item.shown and right >= RIGHT_FLOOR]
    if not shown:
        return 1.0
    probability = np.array([right for right, _ in shown])
    hits = np.cumsum(np.array([float(held) for _, held in shown])[np.argsort(-probability)])
    ranked = np.sort(probability)[::-1]
    floor = 1.0
    for index in range(len(ranked)):
        count = index + 1
        last_of_tie = index + 1 == len(ranked) or ranked[index + 1] < ranked[index]
        if (last_of_tie and count >= MIN_BAND and hits[index] / count >= HIGH_ACCURACY
                and wilson_low(float(hits[index]), count, _WILSON_95) >= HIGH_LOWER_BOUND):
            floor = float(ranked[index])
    return floor


def calibration_report(asked: Sequence[AskedAnswer], high: float) -> dict[str, Any]:
    """Each source's answers under P(right) fitted on the other sources' (shown when it
    reaches ``RIGHT_FLOOR``; labelled "high" from ``high``), and all sources together."""
    judged = _held_out(asked)
    sources = sorted({item.question.source for item in asked})
    return {"all": _outcomes(judged, high),
            "by_source": {source: _outcomes([pair for pair in judged
                                             if pair[0].question.source == source], high)
                          for source in sources}}


def _outcomes(judged: Sequence[tuple[AskedAnswer, float]], high: float) -> dict[str, Any]:
    shown = [item for item, right in judged if item.shown and right >= RIGHT_FLOOR]
    at_high = [item for item, right in judged if item.shown and right >= high]
    answerable = [item for item, _ in judged if item.question.kind == "answerable"]
    unanswerable = [item for item, _ in judged if item.question.kind == "unanswerable"]
    return {
        "questions": len(judged),
        "shown": len(shown),
        "right_when_shown": round(sum(item.right for item in shown) / len(shown), 4)
        if shown else None,
        "answerable_coverage": round(sum(item in shown for item in answerable)
                                     / len(answerable), 4) if answerable else None,
        "unanswerable_abstained": round(sum(item not in shown for item in unanswerable)
                                        / len(unanswerable), 4) if unanswerable else None,
        "high": {"shown": len(at_high), "right": sum(item.right for item in at_high)},
    }


def _logits(probabilities: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    clipped = np.clip(probabilities, 1e-4, 1 - 1e-4)
    return np.asarray(np.log(clipped / (1 - clipped)), dtype=np.float64)


def _lowest_precise(probability: npt.NDArray[np.float64], right: npt.NDArray[np.float64],
                    precision: float) -> float:
    """The lowest P above which the answers are right at least ``precision`` of the time,
    over at least ``MIN_BAND`` of them (1.0 when none is)."""
    order = np.argsort(-probability)
    hits = np.cumsum(right[order])
    counts = np.arange(1, len(order) + 1)
    precise = [i for i in range(len(order))
               if counts[i] >= MIN_BAND and hits[i] / counts[i] >= precision
               and (i + 1 == len(order) or probability[order[i + 1]] < probability[order[i]])]
    return float(probability[order[precise[-1]]]) if precise else 1.0


def halueval_gold_questions(data_dir: Path, folder: Path, count: int = HALUEVAL_QUESTIONS,
                            seed: int = HALUEVAL_SEED) -> list[GoldQuestion]:
    """A fixed-seed sample of ``count`` HaluEval-QA calibration rows as questions over a corpus
    written to ``folder``: one file per knowledge paragraph of those rows and the
    ``DISTRACTOR_ROWS`` before them."""
    rows = halueval_rows(data_dir, ANSWER_TRAIN_ROWS, HALUEVAL_TRAIN_ROWS)
    distractors = halueval_rows(data_dir, ANSWER_TRAIN_ROWS - DISTRACTOR_ROWS, ANSWER_TRAIN_ROWS)
    if not rows:
        raise DataError(f"{data_dir}: no HaluEval-QA rows {ANSWER_TRAIN_ROWS}-"
                        f"{HALUEVAL_TRAIN_ROWS - 1}")
    folder.mkdir(parents=True, exist_ok=True)
    paragraphs = dict.fromkeys(str(row["knowledge"]).strip() for row in [*rows, *distractors])
    for number, paragraph in enumerate(paragraphs):
        (folder / f"{number:05d}.txt").write_text(paragraph + "\n", encoding="utf-8")
    picked = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
    return [GoldQuestion(HALUEVAL_SOURCE, folder, str(rows[i]["question"]).strip(), "answerable",
                         ((str(rows[i]["right_answer"]).strip(),),))
            for i in picked]


def train_answer_reader(folders: Sequence[Path], out: Path, *, answer_model: str = "answers",
                        data_dir: Path | None = None,
                        progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Fit the reader on ``folders`` (and HaluEval-QA calibration rows from ``data_dir``, if
    given), calibrate P(right) on ``Engine.ask`` runs with each source's held-out reader,
    write it to ``out/reader.json`` with its report, and return the report."""
    questions = gold_questions(folders)
    with tempfile.TemporaryDirectory(prefix="veritype-answer-reader-") as scratch:
        if data_dir is not None:
            questions += halueval_gold_questions(data_dir, Path(scratch) / HALUEVAL_SOURCE)
        reads = read_candidates(questions, answer_model, progress)
        held_out = held_out_rankings(reads)
        asked: list[AskedAnswer] = []
        floors: dict[str, float] = {}
        for source, (coefficients, intercept) in held_out.readers.items():
            model = Path(scratch) / f"model-{source}"
            shutil.copytree(model_directory(answer_model), model)
            floors[source] = answers_from(reads, held_out, without=source)
            showing = replace(_SHOW_EVERY_ANSWER, answers_from=floors[source])
            (model / READER_FILE).write_text(json.dumps(
                AnswerReader(coefficients, intercept, showing).to_dict()))
            asked += ask_with_reader([q for q in questions if q.source == source], model,
                                     progress)
    floor = answers_from(reads, held_out)
    reader = AnswerReader(*fit_coefficients(reads), fit_right(asked, floor))
    totals = {name: sum(s["best_candidate_holds_answer"][name]
                        for s in held_out.per_source.values())
              for name in ("reader", "answer_model", "shared_words")}
    report = {
        "questions": len(reads),
        "candidates": int(sum(len(read.labels) for read in reads)),
        "sources": sorted(held_out.readers),
        "held_out_by_source": held_out.per_source,
        "best_candidate_holds_answer": {
            "answerable": sum(s["answerable"] for s in held_out.per_source.values()), **totals},
        "answers_from_held_out": floors,
        "calibration": {"fitted": asdict(reader.calibration),
                        "held_out": calibration_report(asked, reader.calibration.high)},
        "coefficients": dict(zip(FEATURES, (round(c, 4) for c in reader.coefficients),
                                 strict=True)),
        "machine": machine(),
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / READER_FILE).write_text(json.dumps(reader.to_dict(), indent=2) + "\n",
                                   encoding="utf-8")
    (out / REPORT_FILE).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report
