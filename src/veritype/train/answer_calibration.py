"""Calibrate an answer model on questions it never read: ``veritype train answer-calibration``.

HaluEval-QA rows ``ANSWER_TRAIN_ROWS``–``HALUEVAL_TRAIN_ROWS - 1`` (the answer model trains on
rows before them, evaluation reads the rows after) are, with the knowledge of the
``DISTRACTOR_ROWS`` rows before them as distractors (rows a recipe may read, but never with
these questions; the shipped model's recipe stops before them), a corpus of knowledge
paragraphs as dense as the evaluation's, and a fixed-seed sample of the calibration rows'
questions is asked through ``Engine.ask`` with the model and the extractive drafter, every
shown claim counting as an answer. Each answer is judged by the
row's gold answers (``veritype.evaluation.gold``). Then, from the same run:

- **threshold**: a claim answers the question when P(answers) ≥ it and it holds a value of
  the asked kind, or the rules say so (``veritype.answers.scoring.claim_answers``); the answer then
  shows, else the engine abstains. Chosen to maximise right answers minus wrong
  ones: an answer is shown when it is more likely right than wrong.
- **P(right)**: a logistic map from the best P(answers) among the claims that answer, and
  the kind of answer the question asks for, to the chance the shown answer contains the gold
  answer; it is the answer's confidence. The kind matters: a sentence shown for a yes/no
  question rarely holds its "yes", while a date shown for "when" mostly is the date.
- **labels**: "high" from the lowest P(right) above which the answers are right at least
  ``HIGH_ACCURACY`` of the time (with ``MIN_BAND`` answers, on the band's Wilson lower
  bound, so that it holds on new questions); "medium" from P(right) ``MEDIUM_ACCURACY``
  (read off the calibrated probability: a band's average would let answers right half of
  the time into it); the rest "low".

The pair-level quality (ROC-AUC of P(answers) for sentences holding the gold answer against
their neighbours, beside the rules) is reported with it.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from veritype.aggregate._learned import newton
from veritype.answers.question import AnswerKind, Question, analyse
from veritype.answers.scoring import (
    CALIBRATION_FILE,
    DECIDED_BY_RULES,
    RIGHT_FLOOR,
    AnswerCalibration,
    AnswerScorer,
    answering_claims,
)
from veritype.errors import DataError
from veritype.evaluation.e2e import (
    Answered,
    E2ESettings,
    answer_all,
    halueval_questions,
    halueval_rows,
)
from veritype.evaluation.gold import RENDERED, judge_corpus_qa
from veritype.evaluation.machine import machine
from veritype.evaluation.metrics import balanced_accuracy, roc_auc
from veritype.evaluation.runner import ProgressFactory, no_progress
from veritype.train.answer_data import ANSWER_TRAIN_ROWS, knowledge_sentences
from veritype.train.data import HALUEVAL_TRAIN_ROWS

HIGH_ACCURACY = 0.9
MEDIUM_ACCURACY = 0.7
MIN_BAND = 30
# The knowledge of this many rows before the calibration rows joins their corpus, so that it
# is as dense as the evaluation's (2,000 paragraphs about similar entities): the more
# near-misses a corpus holds, the more often a confident answer is about the wrong entity.
DISTRACTOR_ROWS = 1000
# A kind of question gets its own offset in P(right) when asked this often; the offsets are
# shrunk towards 0 by this penalty on the mean log-loss.
MIN_KIND = 15
KIND_PENALTY = 0.01
REPORT_FILE = "calibration_report.json"
CARD_FILE = "model_card.md"
CARD_SECTION = "## Quality and calibration (HaluEval-QA rows 7000–7999, never trained on)"
# Every claim answers while the threshold is measured: P(answers) of any claim exceeds it,
# and P(right) is near 1, so no answer is held back by ``RIGHT_FLOOR``.
_EVERY_CLAIM = AnswerCalibration(threshold=1e-9, slope=1.0, intercept=30.0, high=1.0,
                                  medium=1.0)


@dataclass(frozen=True, slots=True)
class _Asked:
    """One calibration question: the claims the engine could show and their P(answers), and
    the gold answers that judge whichever of them answer."""

    claims: list[str]
    scores: list[float]
    answer: Answered
    question: Question

    def answering(self, threshold: float) -> list[int]:
        """The claims that answer at ``threshold``, as the renderer reads them."""
        at = replace(_EVERY_CLAIM, threshold=threshold)
        return answering_claims(self.question, self.claims, self.scores, at)

    def right(self, threshold: float) -> bool | None:
        """Whether the answer shown at ``threshold`` (its answering claims) is right; None
        when no claim answers there and the engine abstains."""
        chosen = self.answering(threshold)
        return self.judge(chosen) if chosen else None

    def judge(self, chosen: Sequence[int]) -> bool:
        """Whether the answer made of the ``chosen`` claims is right."""
        shown = " ".join(self.claims[i] for i in chosen)
        answer = replace(self.answer, answer_text=shown, abstained=False)
        return judge_corpus_qa(answer)[RENDERED].correct


def calibrate_answers(model_dir: Path, data_dir: Path, *, questions: int = 1000, seed: int = 7,
                      distractor_rows: int = DISTRACTOR_ROWS,
                      progress: ProgressFactory = no_progress) -> AnswerCalibration:
    """Fit the calibration of the answer model in ``model_dir`` and write it there
    (``calibration.json``) with its report (``calibration_report.json``); the corpus holds
    the knowledge of ``distractor_rows`` rows before the calibration rows besides theirs."""
    from veritype.models.answer_model import AnswerModel

    rows = halueval_rows(data_dir, ANSWER_TRAIN_ROWS, HALUEVAL_TRAIN_ROWS)
    if not rows:
        raise DataError(f"{data_dir}: no HaluEval-QA rows {ANSWER_TRAIN_ROWS}-"
                        f"{HALUEVAL_TRAIN_ROWS - 1} to calibrate on")
    scorer = AnswerModel(str(model_dir), calibration=_EVERY_CLAIM)
    pairs = _pair_quality(scorer, rows)
    distractors = halueval_rows(data_dir, ANSWER_TRAIN_ROWS - distractor_rows, ANSWER_TRAIN_ROWS)
    asked = _ask(model_dir, data_dir, rows, distractors, questions, seed, progress, scorer)
    threshold, shown = _threshold(asked)
    best = np.array([max(a.scores[i] for i in a.answering(threshold)) for a in shown])
    right = np.array([bool(a.right(threshold)) for a in shown], dtype=np.float64)
    kinds = [a.question.kind for a in shown]
    fitted = fit_p_right(threshold, best, kinds, right)
    probability = np.array([fitted.right(float(b), kind) for b, kind in zip(best, kinds,
                                                                            strict=True)])
    high = _band_floor(probability, right, HIGH_ACCURACY)
    medium = min(MEDIUM_ACCURACY, high)
    calibration = replace(fitted, high=high, medium=medium)
    (model_dir / CALIBRATION_FILE).write_text(json.dumps(calibration.to_dict(), indent=2) + "\n")
    labels = [calibration.label(float(p)).value for p in probability]
    # Whether a comparison's sides were both answered is not known here: all count as the
    # rules'.
    kept = (probability >= RIGHT_FLOOR) | np.array([kind in DECIDED_BY_RULES for kind in kinds])
    report: dict[str, Any] = {
        "rows": [ANSWER_TRAIN_ROWS, HALUEVAL_TRAIN_ROWS - 1],
        "questions": len(asked),
        "distractor_rows": [ANSWER_TRAIN_ROWS - distractor_rows, ANSWER_TRAIN_ROWS - 1],
        "corpus_paragraphs": len({str(row["knowledge"]).strip()
                                  for row in [*rows, *distractors]}),
        "seed": seed,
        "pairs": pairs,
        "calibration": calibration.to_dict(),
        "answered": len(shown),
        "coverage": len(shown) / len(asked),
        "accuracy_answered": float(right.mean()) if len(shown) else None,
        "accuracy_every_claim_answering": float(np.mean(
            [a.judge(range(len(a.claims))) for a in asked if a.claims])),
        "shown_at_right_floor": {
            "answers": int(np.sum(kept)),
            "accuracy": float(np.mean(right[kept])) if np.any(kept) else None,
        },
        "per_kind": {
            kind.value: {"answers": int(np.sum(mask)),
                         "accuracy": float(np.mean(right[mask])),
                         "offset": calibration.kind_offsets.get(kind.value, 0.0)}
            for kind in sorted(set(kinds), key=lambda k: k.value)
            if np.any(mask := np.array([k is kind for k in kinds]))
        },
        "per_label": {
            label: {"answers": labels.count(label),
                    "accuracy": float(np.mean([r for r, name in zip(right, labels, strict=True)
                                               if name == label]))}
            for label in sorted(set(labels))
        },
        "answers": [{"best_p_answers": round(float(b), 4), "kind": kind.value,
                     "p_right": round(float(p), 4), "right": bool(r)}
                    for b, kind, p, r in zip(best, kinds, probability, right, strict=True)],
        "machine": machine(),
    }
    (model_dir / REPORT_FILE).write_text(json.dumps(report, indent=2) + "\n")
    _update_card(model_dir / CARD_FILE, report)
    return calibration


def fit_p_right(threshold: float, best: np.ndarray, kinds: Sequence[AnswerKind],
                 right: np.ndarray) -> AnswerCalibration:
    """P(right) as a logistic model of logit(best P(answers)) with an offset for each kind of
    question asked at least ``MIN_KIND`` times (ridge-shrunk towards 0, so a kind seen a few
    dozen times moves its answers only as far as they warrant); labels are set later."""
    logit = np.log(np.clip(best, 1e-6, 1 - 1e-6) / np.clip(1 - best, 1e-6, 1))
    counted = sorted((kind for kind, count in Counter(kinds).items() if count >= MIN_KIND),
                     key=lambda kind: kind.value)
    indicators = [np.array([float(k is kind) for k in kinds]) for kind in counted]
    design = np.column_stack([logit, *indicators, np.ones_like(logit)])
    penalty = np.array([1e-3, *([KIND_PENALTY] * len(counted)), 0.0])
    theta = newton(design, right, penalty, 200)
    offsets = {kind.value: round(float(value), 4)
               for kind, value in zip(counted, theta[1:-1], strict=True)}
    return AnswerCalibration(threshold, float(theta[0]), float(theta[-1]), 1.0, 1.0,
                             kind_offsets=offsets)


def _update_card(card: Path, report: dict[str, Any]) -> None:
    """Write the calibration's section into the model card (replacing an earlier one)."""
    c, p, labels = report["calibration"], report["pairs"], report["per_label"]
    floor = report["shown_at_right_floor"]
    section = (
        f"{CARD_SECTION}\n\n"
        f"Written by `veritype train answer-calibration` from `{REPORT_FILE}`.\n\n"
        f"- Sentences: {p['pairs']} knowledge sentences of rows whose answer is in some but not "
        f"all of them ({p['answering']} hold it). ROC-AUC of P(answers) {p['roc_auc']:.3f}; "
        f"balanced accuracy at 0.5 {p['model_balanced_accuracy_at_0.5']:.3f}, where the rules "
        f"of `veritype.answers.question` reach {p['rules_balanced_accuracy']:.3f}.\n"
        f"- Answers: {report['questions']} of these rows' questions asked of the corpus of "
        f"their knowledge paragraphs and those of rows {report['distractor_rows'][0]}–"
        f"{report['distractor_rows'][1]} ({report['corpus_paragraphs']:,} paragraphs; "
        f"extractive drafts, default views), judged by their gold answers. "
        f"Threshold {c['threshold']:.3f} (the most right answers minus wrong ones): "
        f"{report['coverage']:.3f} of the questions answered, {report['accuracy_answered']:.3f} "
        f"of them right ({report['accuracy_every_claim_answering']:.3f} when every Verified "
        f"claim counts as an answer).\n"
        f"- Confidence: P(right) = sigmoid({c['slope']:.3f} · logit(best P(answers)) + "
        f"{c['intercept']:.3f} + the offset of the question's kind), the offsets: "
        + ", ".join(f"{kind} {offset:+.2f}"
                    for kind, offset in sorted(c.get('kind_offsets', {}).items()))
        + ".\n"
        + "- Answers right per kind: "
        + "; ".join(f"{kind} {v['accuracy']:.3f} of {v['answers']}"
                    for kind, v in report["per_kind"].items())
        + ".\n- Labels: "
        + "; ".join(f"{label} {labels[label]['answers']} answers, right "
                    f"{labels[label]['accuracy']:.3f}" for label in ("high", "medium", "low")
                    if label in labels)
        + f" (high from P(right) {c['high']:.3f}, medium from {c['medium']:.3f}).\n"
        + f"- Shown: an answer with P(right) below {RIGHT_FLOOR} is not shown (the engine "
        f"abstains), unless the rules chose it (yes/no questions, comparisons); "
        f"{floor['answers']} answers remain, right "
        + ("–" if floor["accuracy"] is None else f"{floor['accuracy']:.3f}") + ".\n"
    )
    text = card.read_text(encoding="utf-8") if card.is_file() else ""
    if CARD_SECTION in text:
        before, _, after = text.partition(CARD_SECTION)
        rest = after.find("\n## ")
        text = before + section + (after[rest:] if rest >= 0 else "")
    else:
        text = text.rstrip() + "\n\n" + section
    card.write_text(text, encoding="utf-8")


def _pair_quality(scorer: AnswerScorer, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """ROC-AUC of P(answers) for sentences holding the right answer against the rest of their
    row's sentences, beside the rules' accuracy on the same pairs."""
    from veritype.evaluation.answer_metrics import contains_answer

    scores: list[float] = []
    truth: list[bool] = []
    rules: list[bool] = []
    for row in rows:
        sentences = knowledge_sentences(str(row["knowledge"]))
        holds = [contains_answer(s, str(row["right_answer"])) for s in sentences]
        if not any(holds) or all(holds):
            continue
        question = str(row["question"])
        asked = analyse(question)
        scores += scorer.score_batch(question, sentences)
        truth += holds
        rules += [asked.answers(s) for s in sentences]
    score_array, truth_array = np.array(scores), np.array(truth)
    return {
        "pairs": len(truth), "answering": int(truth_array.sum()),
        "roc_auc": roc_auc(score_array, truth_array),
        "rules_balanced_accuracy": balanced_accuracy(np.array(rules), truth_array),
        "model_balanced_accuracy_at_0.5": balanced_accuracy(score_array >= 0.5, truth_array),
    }


def _ask(model_dir: Path, data_dir: Path, rows: list[dict[str, Any]],
         distractors: list[dict[str, Any]], count: int, seed: int, progress: ProgressFactory,
         scorer: AnswerScorer) -> list[_Asked]:
    """Ask ``count`` sampled questions of ``rows`` of a corpus of their knowledge and that of
    ``distractors``, every claim counting as an answer, and judge each answer by the gold."""
    with tempfile.TemporaryDirectory(prefix="veritype-answer-calibration-") as scratch:
        # The engine reads the model with a calibration under which every claim answers.
        provisional = Path(scratch) / "model"
        shutil.copytree(model_dir, provisional)
        (provisional / CALIBRATION_FILE).write_text(json.dumps(_EVERY_CLAIM.to_dict()))
        settings = E2ESettings(data_dir=data_dir, generator="extractive", limit=count,
                               seed=seed, answer_model=str(provisional))
        asked_questions = halueval_questions(rows, count, seed, first_row=ANSWER_TRAIN_ROWS)
        texts = [str(row["knowledge"]) for row in [*rows, *distractors]]
        answers, _ = answer_all(settings, "halueval_qa", texts, asked_questions,
                                Path(scratch), progress)
    asked: list[_Asked] = []
    for answer in answers:
        claims = [text for text, _ in answer.rendered_claims]
        asked.append(_Asked(claims, scorer.score_batch(answer.question.text, claims), answer,
                            analyse(answer.question.text)))
    return asked


def _threshold(asked: list[_Asked]) -> tuple[float, list[_Asked]]:
    """The P(answers) that maximises right answers minus wrong ones (the highest among
    equals), and the questions answered at it."""
    candidates = sorted({t for a in asked for s in a.scores if 0.0 < (t := round(s, 3)) < 1.0}
                        | {0.5})
    best_value, best_threshold = -math.inf, 0.5
    for threshold in candidates:
        judged = [a.right(threshold) for a in asked]
        value = sum((1 if right else -1) for right in judged if right is not None)
        if value >= best_value:
            best_value, best_threshold = value, threshold
    return best_threshold, [a for a in asked if a.answering(best_threshold)]


# The one-sided 90% normal quantile of the Wilson bound on a band's accuracy.
_WILSON_Z = 1.2816


def wilson_low(hits: float, count: int, z: float = _WILSON_Z) -> float:
    """The Wilson score lower bound of a proportion of ``hits`` in ``count``."""
    share = hits / count
    centre = share + z * z / (2 * count)
    spread = z * math.sqrt(share * (1 - share) / count + z * z / (4 * count * count))
    return (centre - spread) / (1 + z * z / count)


def _band_floor(probability: np.ndarray, right: np.ndarray, accuracy: float) -> float:
    """The lowest P(right) such that the answers from it up are right at least ``accuracy``
    of the time, with at least ``MIN_BAND`` of them; 1.0 when no such band exists. "At
    least" is read on the Wilson lower bound (one-sided 90%): a floor chosen where the
    calibration rows just reach ``accuracy`` falls short of it on new questions half of the
    time."""
    order = np.argsort(-probability)
    ranked, hits = probability[order], np.cumsum(right[order])
    floor = 1.0
    for index in range(len(ranked)):
        count = index + 1
        if count >= MIN_BAND and wilson_low(float(hits[index]), count) >= accuracy:
            floor = float(ranked[index])
    return floor
