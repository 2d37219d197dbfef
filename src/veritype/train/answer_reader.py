"""Fit the answer reader on questions written for other corpora: ``veritype train answer-reader``.

The data are folders of small corpora with questions and gold answers: a folder with
``split.json`` and ``questions.json`` (``benchmarks/data/answer_corpora``: only the corpora of
its calibration half are read; the evaluation half is never touched here), or a folder whose
``questions.json`` maps each corpus folder to its questions (``tests/data/corpora``). Each
corpus is one source.

For every question that is not a comparison, the corpus is ingested into a fresh store, the
question's evidence is retrieved as ``Engine.ask`` retrieves it, and every sentence of it is a
candidate (as the extractive drafter reads it), labelled by whether it holds the gold answer.
Then:

- **coefficients**: a penalised logistic regression of the label on the reader's features
  (``veritype.answer_reader.FEATURES``) over all candidates.
- **held out by source**: the same fit without one source, read on that source: how often the
  best-ranked candidate holds the answer, beside the two single signals it combines (the
  answer model's P(answers) alone; the shared-word rules the drafter ranked by before), and
  the P(answers) of the best candidate for each question.
- **calibration**: P(the shown answer is right) is a logistic map of the logit of the best
  candidate's held-out P(answers), fitted on every question (an unanswerable one is right
  only by abstaining, so it counts as wrong when shown); the threshold is the P(answers) at
  which that reaches ``RIGHT_FLOOR``; "high" is the lowest P(right) above which at least
  ``HIGH_ACCURACY`` of the held-out answers are right (over at least ``MIN_BAND``); "medium"
  is P(right) ``MEDIUM_ACCURACY``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.aggregate._learned import newton
from veritype.answer_reader import FEATURES, READER_FILE, AnswerReader
from veritype.answering import RIGHT_FLOOR, AnswerCalibration
from veritype.errors import DataError
from veritype.evaluation.answer_corpora import ReadQuestion, gold_questions, read_candidates
from veritype.evaluation.machine import machine

HIGH_ACCURACY = 0.95
MEDIUM_ACCURACY = 0.7
MIN_BAND = 20
PENALTY = 1e-3
REPORT_FILE = "reader_report.json"


def fit_coefficients(reads: Sequence[ReadQuestion]) -> tuple[tuple[float, ...], float]:
    """The penalised logistic fit of the labels on the features: coefficients, intercept."""
    design = np.vstack([read.rows for read in reads])
    labels = np.concatenate([read.labels for read in reads])
    with_intercept = np.hstack([np.ones((design.shape[0], 1)), design])
    penalty = np.full(with_intercept.shape[1], PENALTY)
    penalty[0] = 0.0
    theta = newton(with_intercept, labels, penalty, max_iter=100)
    return tuple(float(c) for c in theta[1:]), float(theta[0])


def _probabilities(read: ReadQuestion, coefficients: Sequence[float], intercept: float
                   ) -> npt.NDArray[np.float64]:
    z = read.rows @ np.array(coefficients) + intercept
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)


def fit_reader(reads: Sequence[ReadQuestion]) -> tuple[AnswerReader, dict[str, Any]]:
    """The reader fitted on all ``reads``, calibrated on each source's held-out reading, and
    the report of that held-out reading."""
    sources = sorted({read.question.source for read in reads})
    if len(sources) < 2:
        raise DataError("the answer reader is calibrated across sources; give at least two")
    held_out: list[tuple[ReadQuestion, float, bool]] = []  # the best candidate's P, and right
    per_source: dict[str, dict[str, Any]] = {}
    for source in sources:
        train = [read for read in reads if read.question.source != source]
        coefficients, intercept = fit_coefficients(train)
        tops = {"reader": 0, "answer_model": 0, "shared_words": 0}
        answerable = 0
        for read in (read for read in reads if read.question.source == source):
            probabilities = _probabilities(read, coefficients, intercept)
            best = int(np.argmax(probabilities))
            right = bool(read.labels[best])
            held_out.append((read, float(probabilities[best]), right))
            if read.question.kind == "answerable":
                answerable += 1
                tops["reader"] += right
                tops["answer_model"] += bool(read.labels[int(np.argmax(read.answer_model))])
                tops["shared_words"] += bool(read.labels[int(np.argmax(read.shared_words))])
        per_source[source] = {"answerable": answerable,
                              "best_candidate_holds_answer": tops}
    calibration, calibration_report = _calibrate(held_out)
    coefficients, intercept = fit_coefficients(reads)
    reader = AnswerReader(coefficients, intercept, calibration)
    totals = {name: sum(s["best_candidate_holds_answer"][name] for s in per_source.values())
              for name in ("reader", "answer_model", "shared_words")}
    report = {
        "questions": len(reads),
        "candidates": int(sum(len(read.labels) for read in reads)),
        "sources": sources,
        "held_out_by_source": per_source,
        "best_candidate_holds_answer": {
            "answerable": sum(s["answerable"] for s in per_source.values()), **totals},
        "calibration": calibration_report,
        "coefficients": dict(zip(FEATURES, (round(c, 4) for c in coefficients), strict=True)),
        "machine": machine(),
    }
    return reader, report


def _calibrate(held_out: Sequence[tuple[ReadQuestion, float, bool]]
               ) -> tuple[AnswerCalibration, dict[str, Any]]:
    best = np.array([probability for _, probability, _ in held_out])
    right = np.array([float(is_right) for _, _, is_right in held_out])
    clipped = np.clip(best, 1e-4, 1 - 1e-4)
    design = np.column_stack([np.ones(len(best)), np.log(clipped / (1 - clipped))])
    intercept, slope = (float(v) for v in newton(design, right, np.zeros(2), max_iter=100))
    threshold = 1.0 / (1.0 + math.exp(-(math.log(RIGHT_FLOOR / (1 - RIGHT_FLOOR)) - intercept)
                                      / slope))
    calibration = AnswerCalibration(threshold=min(max(threshold, 1e-3), 1 - 1e-3),
                                    slope=slope, intercept=intercept, high=1.0,
                                    medium=MEDIUM_ACCURACY)
    probability = np.array([calibration.right(float(b)) for b in best])
    high = _lowest_precise(probability, right)
    calibration = AnswerCalibration(calibration.threshold, slope, intercept, high,
                                    min(MEDIUM_ACCURACY, high))
    shown = probability >= RIGHT_FLOOR
    kinds = [read.question.kind for read, _, _ in held_out]
    unanswerable = np.array([kind == "unanswerable" for kind in kinds])
    at_high = probability >= high
    report = {
        "questions": len(best),
        "shown": int(shown.sum()),
        "right_when_shown": round(float(right[shown].mean()), 4) if shown.any() else None,
        "answerable_coverage": round(float(shown[~unanswerable].mean()), 4),
        "unanswerable_abstained": round(float((~shown[unanswerable]).mean()), 4)
        if unanswerable.any() else None,
        "high": {"shown": int(at_high.sum()),
                 "right": round(float(right[at_high].mean()), 4) if at_high.any() else None},
    }
    return calibration, report


def _lowest_precise(probability: npt.NDArray[np.float64], right: npt.NDArray[np.float64]
                    ) -> float:
    """The lowest P(right) above which the answers are right at least ``HIGH_ACCURACY`` of
    the time, over at least ``MIN_BAND`` of them (1.0 when none is)."""
    order = np.argsort(-probability)
    hits = np.cumsum(right[order])
    counts = np.arange(1, len(order) + 1)
    precise = [i for i in range(len(order))
               if counts[i] >= MIN_BAND and hits[i] / counts[i] >= HIGH_ACCURACY
               and (i + 1 == len(order) or probability[order[i + 1]] < probability[order[i]])]
    return float(probability[order[precise[-1]]]) if precise else 1.0


def train_answer_reader(folders: Sequence[Path], out: Path, *, answer_model: str = "answers",
                        progress: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Fit the reader on ``folders``, write it to ``out/reader.json`` with its report, and
    return the report."""
    reads = read_candidates(gold_questions(folders), answer_model, progress)
    reader, report = fit_reader(reads)
    out.mkdir(parents=True, exist_ok=True)
    (out / READER_FILE).write_text(json.dumps(reader.to_dict(), indent=2) + "\n",
                                   encoding="utf-8")
    (out / REPORT_FILE).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report
