"""Whole answers judged by gold data, not by veritype's own models.

``veritype eval corpus-qa``: the knowledge paragraphs of HaluEval-QA rows 8000–9999 become
one corpus (2,000 paragraphs, many about similar entities, so an answer about the wrong
entity is possible) and a fixed-seed sample of those rows' questions is asked through
``Engine.ask``. An answer is correct when it contains the row's right answer and not its
hallucinated one (SQuAD normalisation, whole words); token F1 against the right answer is
reported too. Nothing is fitted on these rows (nothing veritype ships was trained on
HaluEval rows ≥ 8000).

``veritype eval truthfulqa-gen``: TruthfulQA's own automatic generation metric. Questions
are answered from the 817 Best Answers of the 2021 release (TruthfulQA has no knowledge
source; these texts overlap the references, which the report says); an answer is truthful
when its best ROUGE-L similarity to a correct reference ("I have no comment." among them,
as in the TruthfulQA paper) exceeds its best similarity to an incorrect one.

Both judge the raw draft (what the generator wrote before verification) and the rendered
answer (Verified claims only), count abstentions apart, and rank answers by the engine's
support (the mean support of the claims that count for confidence) for selective accuracy
against coverage; drafts ranked by their best dense retrieval similarity are the baseline
selector that needs no verifier.
"""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from veritype.errors import InputError
from veritype.evaluation.answer_metrics import (
    Floats,
    contains_answer,
    risk_coverage,
    selective_accuracy,
    token_f1,
    truthful_by_rouge,
    without_markers,
)
from veritype.evaluation.data import HALUEVAL_EVAL_START, require_dir
from veritype.evaluation.e2e import (
    HALUEVAL_EVAL_STOP,
    Answered,
    E2ESettings,
    Question,
    answer_all,
    corpus_texts,
    halueval_questions,
    halueval_rows,
    truthfulqa_questions,
    truthfulqa_rows,
)
from veritype.evaluation.metrics import Bootstrap
from veritype.evaluation.report import RunResult, Table
from veritype.evaluation.runner import ProgressFactory, no_progress

CORPUS_QA_QUESTIONS = 500
TRUTHFULQA_QUESTIONS = 400
COVERAGES = (0.5, 0.8)
# The answer kinds judged: the generator's draft, and veritype's rendered answer.
DRAFT, RENDERED = "raw draft", "rendered"


@dataclass(frozen=True, slots=True)
class Judged:
    """One answer (draft or rendered) as the gold judge saw it."""

    answered: bool
    correct: bool
    contains_wrong: bool  # contains the known-wrong answer (HaluEval's hallucinated one)
    token_f1: float
    other_source: bool  # rests on evidence other than the question's own


def judge_corpus_qa(answer: Answered) -> dict[str, Judged]:
    """Gold-answer containment for the draft and the rendered answer of one question."""
    right, wrong = answer.question.correct[0], answer.question.incorrect[0]
    # A hallucinated answer inside the right one ("Paris" in "Paris, France") proves nothing.
    wrong_counts = not contains_answer(right, wrong)

    def judged(text: str, answered: bool, own_source: bool) -> Judged:
        has_right = contains_answer(text, right)
        has_wrong = wrong_counts and contains_answer(text, wrong)
        return Judged(answered=answered, correct=answered and has_right and not has_wrong,
                      contains_wrong=answered and has_wrong,
                      token_f1=token_f1(text, right) if answered else 0.0,
                      other_source=answered and not own_source)

    return {DRAFT: judged(answer.draft, bool(answer.draft.strip()), answer.gold_retrieved),
            RENDERED: judged(without_markers(answer.answer_text), not answer.abstained,
                             answer.cites_own)}


def judge_truthfulqa(answer: Answered) -> dict[str, Judged]:
    """TruthfulQA's ROUGE-L truthfulness for the draft and the rendered answer."""
    question = answer.question

    def judged(text: str, answered: bool, own_source: bool) -> Judged:
        truthful, best_true, _ = truthful_by_rouge(text, question.correct, question.incorrect)
        return Judged(answered=answered, correct=answered and truthful,
                      contains_wrong=answered and not truthful,
                      token_f1=best_true if answered else 0.0,
                      other_source=answered and not own_source)

    return {DRAFT: judged(answer.draft, bool(answer.draft.strip()), answer.gold_retrieved),
            RENDERED: judged(without_markers(answer.answer_text), not answer.abstained,
                             answer.cites_own)}


def _weighted_share(values: Floats, over: Floats, weights: Floats) -> float:
    bottom = float(weights @ over)
    return float(weights @ values) / bottom if bottom else math.nan


def _estimate(statistic: Callable[[Floats], float | None], bootstrap: Bootstrap, n: int
              ) -> dict[str, Any]:
    """A statistic of the question weights, with its 95% bootstrap interval."""
    point = statistic(np.ones(n))
    draws = [statistic(row.astype(np.float64)) for row in bootstrap.weights]
    finite = [value for value in draws if value is not None and math.isfinite(value)]
    interval = ([float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))]
                if finite else [None, None])
    value = None if point is None or not math.isfinite(point) else float(point)
    return {"value": value, "ci95": interval}


def summarise(answers: Sequence[Answered], judged: Sequence[dict[str, Judged]],
              resamples: int, seed: int) -> dict[str, Any]:
    """For each answer kind: coverage, accuracy among answered and over all questions, the
    known-wrong and other-source rates, token F1, selective accuracy at ``COVERAGES``
    ranked by the engine's support, and the risk–coverage area; plus the drafts ranked by
    retrieval similarity and accuracy per confidence label."""
    n = len(answers)
    if n == 0:
        raise InputError("no answers to summarise")
    bootstrap = Bootstrap.draw([a.question.question_id for a in answers], resamples, seed)
    support = np.array([a.support for a in answers])
    # With an answer scorer, the rendered answers are ranked by their confidence, P(right).
    calibrated = any(a.answer_probability is not None for a in answers)
    confidence = (np.array([a.answer_probability or 0.0 for a in answers]) if calibrated
                  else support)
    retrieval = np.array([a.retrieval_score for a in answers])
    ones = np.ones(n)
    kinds: dict[str, Any] = {}
    rankings = {DRAFT: support, RENDERED: confidence,
                f"{DRAFT}, ranked by retrieval": retrieval}
    ranked_by = {DRAFT: "engine support",
                 RENDERED: "answer probability" if calibrated else "engine support",
                 f"{DRAFT}, ranked by retrieval": "retrieval similarity"}
    for name, scores in rankings.items():
        kind = DRAFT if name.startswith(DRAFT) else RENDERED
        answered = np.array([j[kind].answered for j in judged], dtype=np.float64)
        correct = np.array([j[kind].correct for j in judged], dtype=np.float64)
        wrong = np.array([j[kind].contains_wrong for j in judged], dtype=np.float64)
        other = np.array([j[kind].other_source and not j[kind].correct for j in judged],
                         dtype=np.float64)
        f1 = np.array([j[kind].token_f1 for j in judged])
        summary: dict[str, Any] = {
            "ranked_by": ranked_by[name],
            "answered": int(answered.sum()),
            "coverage": _estimate(partial(_weighted_share, answered, ones), bootstrap, n),
            "accuracy_answered": _estimate(partial(_weighted_share, correct, answered),
                                           bootstrap, n),
            "accuracy_all": _estimate(partial(_weighted_share, correct, ones), bootstrap, n),
            "known_wrong_answered": _estimate(partial(_weighted_share, wrong, answered),
                                              bootstrap, n),
            "wrong_other_source_answered": _estimate(
                partial(_weighted_share, other, answered), bootstrap, n),
            "token_f1_answered": _estimate(partial(_weighted_share, f1, answered), bootstrap, n),
        }
        for coverage in COVERAGES:
            summary[f"selective_accuracy_at_{coverage:g}"] = _estimate(
                partial(_selective, scores, correct, answered, coverage), bootstrap, n)
        curve = risk_coverage(scores, correct, answered)
        summary["risk_coverage_area"] = curve["area"]
        summary["curve"] = {"coverage": curve["coverage"], "risk": curve["risk"]}
        kinds[name] = summary
    labels: dict[str, Any] = {}
    for label in sorted({a.confidence for a in answers}):
        members = [i for i, a in enumerate(answers) if a.confidence == label]
        shown = [i for i in members if judged[i][RENDERED].answered]
        labels[label] = {
            "questions": len(members),
            "rendered_answered": len(shown),
            "rendered_accuracy": (float(np.mean([judged[i][RENDERED].correct for i in shown]))
                                  if shown else None),
            "draft_accuracy": float(np.mean([judged[i][DRAFT].correct for i in members])),
        }
    seconds = np.array([a.seconds for a in answers])
    return {"questions": n, "kinds": kinds, "per_confidence": labels,
            "latency_s": {"mean": float(seconds.mean()), "median": float(np.median(seconds)),
                          "p90": float(np.percentile(seconds, 90))}}


def _selective(scores: Floats, correct: Floats, answered: Floats, coverage: float,
               weights: Floats) -> float | None:
    return selective_accuracy(scores, correct, answered, coverage, weights)


def risk_coverage_plot(path: Path, kinds: dict[str, Any], title: str) -> None:
    """Risk (1 − selective accuracy) against coverage for every answer kind."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    for name, summary in kinds.items():
        curve = summary["curve"]
        axes.plot(curve["coverage"], curve["risk"], label=f"{name} (by {summary['ranked_by']})",
                  linewidth=1.4)
    axes.set_xlabel("coverage (share of all questions answered)")
    axes.set_ylabel("risk (share of those answers judged wrong)")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    axes.set_title(title)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _cell(estimate: dict[str, Any]) -> str:
    value, (low, high) = estimate["value"], estimate["ci95"]
    if value is None:
        return "not reached"
    return (f"{value:.3f} [{low:.3f}, {high:.3f}]" if low is not None and high is not None
            else f"{value:.3f}")


def _tables(summary: dict[str, Any], judge: str, wrong_label: str, f1_label: str
            ) -> list[Table]:
    kinds = summary["kinds"]
    main = Table(
        "Answers judged by gold data: raw drafts vs rendered answers",
        ("answers", "ranked by", "coverage", "accuracy (answered)", "accuracy (all questions)",
         *(f"selective accuracy @ {c:.0%} coverage" for c in COVERAGES), "risk–coverage area",
         wrong_label, "wrong, from another source", f1_label),
        [(name, s["ranked_by"], _cell(s["coverage"]), _cell(s["accuracy_answered"]),
          _cell(s["accuracy_all"]),
          *(_cell(s[f"selective_accuracy_at_{c:g}"]) for c in COVERAGES),
          s["risk_coverage_area"], _cell(s["known_wrong_answered"]),
          _cell(s["wrong_other_source_answered"]), _cell(s["token_f1_answered"]))
         for name, s in kinds.items()],
        note=f"Judge: {judge}. Intervals: 95% bootstrap over questions. 'Not reached': fewer "
             "questions were answered than that coverage needs. Wrong, from another source: "
             "answered, judged wrong, and resting on evidence other than the question's own "
             "(drafts: the own text was not among the drafting context; rendered: no "
             "citation quotes it). Containment favours long answers (a draft of three "
             "passages holds more words than the claims kept from it); the F1 column "
             "weighs length. The risk–coverage area is summed over the coverage axis, so "
             "it is smaller for a kind that answers less: compare areas at equal coverage.",
    )
    labels = Table(
        "Accuracy per confidence label",
        ("label", "questions", "rendered answered", "rendered accuracy", "draft accuracy"),
        [(label, s["questions"], s["rendered_answered"], s["rendered_accuracy"],
          s["draft_accuracy"]) for label, s in summary["per_confidence"].items()],
    )
    return [main, labels]


def _headline(summary: dict[str, Any], generator: str) -> dict[str, float | int | str]:
    headline: dict[str, float | int | str] = {"generator": generator,
                                              "questions": summary["questions"]}
    for key, name in (("draft", DRAFT), ("rendered", RENDERED)):
        s = summary["kinds"][name]
        headline[f"{key}_coverage"] = s["coverage"]["value"]
        headline[f"{key}_accuracy_answered"] = s["accuracy_answered"]["value"]
        low, high = s["accuracy_answered"]["ci95"]
        headline[f"{key}_accuracy_answered_ci_low"] = low if low is not None else "–"
        headline[f"{key}_accuracy_answered_ci_high"] = high if high is not None else "–"
        for coverage in COVERAGES:
            value = s[f"selective_accuracy_at_{coverage:g}"]["value"]
            headline[f"{key}_selective_accuracy_at_{coverage:g}"] = (
                value if value is not None else "not reached")
        headline[f"{key}_wrong_other_source"] = s["wrong_other_source_answered"]["value"]
    return headline


def _examples(answers: Sequence[Answered], judged: Sequence[dict[str, Judged]]
              ) -> list[dict[str, Any]]:
    return [{"id": a.question.question_id, "question": a.question.text,
             "correct": a.question.correct, "incorrect": a.question.incorrect,
             "draft": a.draft, "answer": a.answer_text, "abstained": a.abstained,
             "abstention_reason": a.abstention_reason, "confidence": a.confidence,
             "support": a.support, "answer_probability": a.answer_probability,
             "draft_correct": j[DRAFT].correct,
             "rendered_correct": j[RENDERED].correct} for a, j in zip(answers, judged,
                                                                       strict=True)]


CORPUS_QA_JUDGE = ("an answer is correct when it contains the row's right_answer and not its "
                   "hallucinated_answer (SQuAD normalisation: lower case, no punctuation or "
                   "articles; whole words)")
TRUTHFULQA_JUDGE = ("TruthfulQA's ROUGE-L accuracy: truthful when the best ROUGE-L F-measure "
                    "(lower-case alphanumeric tokens, no stemming) to a correct reference or "
                    "'I have no comment.' exceeds the best to an incorrect reference")


# The answers, their judgements, the summary, the timings and the corpus size of one run.
Judgement = tuple[list[Answered], list[dict[str, Judged]], dict[str, Any], dict[str, float], int]


def _answer_and_judge(settings: E2ESettings, benchmark: str, source: str,
                      texts: list[str], questions: list[Question],
                      judge: Callable[[Answered], dict[str, Judged]],
                      progress: ProgressFactory) -> Judgement:
    """Build the corpus, ask every question, judge every answer and summarise."""
    started = time.perf_counter()
    evidence = corpus_texts(texts, questions, settings.distractors)
    with tempfile.TemporaryDirectory(prefix=f"veritype-{benchmark}-") as store_dir:
        answers, ingest_seconds = answer_all(settings, source, evidence, questions,
                                             Path(store_dir), progress)
    judged = [judge(answer) for answer in answers]
    summary = summarise(answers, judged, settings.resamples, settings.seed)
    timings = {"ingest": ingest_seconds, "total": time.perf_counter() - started}
    return answers, judged, summary, timings, len(evidence)


def _result(settings: E2ESettings, benchmark: str, parts: Judgement, judge: str,
            evidence: str, labels: tuple[str, str], title: str,
            headline: dict[str, float | int | str] | None = None) -> RunResult:
    answers, judged, summary, timings, corpus_size = parts
    result = RunResult(
        benchmark=benchmark,
        config=_config(settings, judge, corpus_size, evidence),
        headline={**_headline(summary, settings.generator), **(headline or {})},
        sections={"summary": summary},
        tables=_tables(summary, judge, *labels),
        timings=timings,
        examples=_examples(answers, judged),
    )
    result.plots = {"risk_coverage": partial(risk_coverage_plot, kinds=summary["kinds"],
                                             title=title)}
    return result


def run_corpus_qa(settings: E2ESettings, progress: ProgressFactory = no_progress) -> RunResult:
    """Ask HaluEval-QA questions of the corpus of their knowledge paragraphs; judge by gold."""
    rows = halueval_rows(require_dir(settings.data_dir))
    parts = _answer_and_judge(settings, "corpus-qa", "halueval_qa",
                              [str(row["knowledge"]) for row in rows],
                              halueval_questions(rows, settings.limit, settings.seed),
                              judge_corpus_qa, progress)
    return _result(settings, "corpus-qa", parts, CORPUS_QA_JUDGE,
                   f"knowledge paragraphs of HaluEval qa rows {HALUEVAL_EVAL_START}–"
                   f"{HALUEVAL_EVAL_STOP - 1}",
                   ("contains the hallucinated answer", "token F1 to the right answer (answered)"),
                   "HaluEval-QA corpus: risk against coverage")


def run_truthfulqa(settings: E2ESettings, progress: ProgressFactory = no_progress) -> RunResult:
    """Ask TruthfulQA questions of the Best Answer corpus; judge by ROUGE-L."""
    rows = truthfulqa_rows(require_dir(settings.data_dir))
    parts = _answer_and_judge(settings, "truthfulqa-gen", "truthfulqa",
                              [row["Best Answer"] for row in rows],
                              truthfulqa_questions(rows, settings.limit, settings.seed),
                              judge_truthfulqa, progress)
    answers, summary = parts[0], parts[2]
    # TruthfulQA scores a refusal as truthful: the share with abstentions counted that way.
    rendered = summary["kinds"][RENDERED]
    answered, truthful = rendered["answered"], rendered["accuracy_answered"]["value"] or 0.0
    no_comment = (truthful * answered + (len(answers) - answered)) / len(answers)
    summary["rendered_truthful_abstentions_as_no_comment"] = no_comment
    return _result(settings, "truthfulqa-gen", parts, TRUTHFULQA_JUDGE,
                   "the 817 Best Answer texts of TruthfulQA (2021 release); they overlap the "
                   "judge's correct references, so a retrieved Best Answer of the question "
                   "itself is judged truthful",
                   ("judged untruthful", "best ROUGE-L to a correct reference (answered)"),
                   "TruthfulQA generation (ROUGE-L judge): risk against coverage",
                   {"rendered_truthful_abstentions_as_no_comment": no_comment})


def _config(settings: E2ESettings, judge: str, corpus_texts_count: int, evidence: str
            ) -> dict[str, Any]:
    return {"generator": settings.generator, "generator_options": settings.generator_options,
            "questions": settings.limit, "seed": settings.seed, "k": settings.k,
            "max_tokens": settings.max_tokens, "resamples": settings.resamples,
            "distractors": settings.distractors, "judge": judge, "evidence": evidence,
            "corpus_texts": corpus_texts_count, "coverages": list(COVERAGES),
            "data_dir": str(settings.data_dir)}
