"""End to end: how factual are raw generator drafts, and veritype's rendered answers?

Questions come from TruthfulQA (the 817-question release) and HaluEval-QA (evaluation rows
≥ 8000), each a fixed-seed sample. The engine answers every question from a temporary
SQLite store built in the run: for HaluEval-QA the ``knowledge`` paragraphs of rows
8000–9999 (the question's own paragraph among ~2,000 distractors); for TruthfulQA, which
has no knowledge source, the 817 "Best Answer" texts (the published protocol's evidence,
which overlaps the judge's references). Nothing is fitted on this data.

This is self-consistency, not an independent judgement: the judge is the shipped ``nli``
and ``align`` cross-encoders, the same models that chose the rendered claims and their
citations, so rendered precision and citation figures lean in veritype's favour. The
independent judges are ``veritype eval corpus-qa`` and ``veritype eval truthfulqa-gen``
(gold answers, ROUGE-L; :mod:`veritype.evaluation.gold`). Each claim is scored against
the reference answers: a claim is supported when
the weaker of the two entailment probabilities from "question + a correct answer" is at
least 0.5 and above the same score from every incorrect answer. FActScore-style precision
(supported claims / claims) is reported for the raw drafts and for the rendered claims of
the answers that did not abstain, with ALCE-style citation recall and precision.
"""

from __future__ import annotations

import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from veritype.evaluation import plots
from veritype.evaluation._e2e_answering import (
    DEFAULT_K,
    DEFAULT_MAX_TOKENS,
    DEFAULT_QUESTIONS,
    DEFAULT_SEED,
    Answered,
    E2ESettings,
    answer_all,
)
from veritype.evaluation._e2e_data import (
    HALUEVAL_EVAL_STOP,
    SOURCE_TITLES,
    SOURCES,
    Question,
    corpus_texts,
    halueval_questions,
    halueval_rows,
    truthfulqa_questions,
    truthfulqa_rows,
)
from veritype.evaluation._e2e_judging import (
    CITATION_JUDGE,
    JUDGE,
    EntailmentScorer,
    cross_encoder_scorer,
    judge_all,
    judge_citations,
    judge_claims,
)
from veritype.evaluation._e2e_statistics import summarise
from veritype.evaluation.data import HALUEVAL_EVAL_START, require_dir
from veritype.evaluation.report import RunResult, Table
from veritype.evaluation.runner import ProgressFactory, no_progress

TARGET_RATIO = 3.0


def _interval(values: list[float | None]) -> str:
    low, high = values
    return "–" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def _example(answer: Answered) -> dict[str, Any]:
    return {
        "id": answer.question.question_id,
        "source": answer.question.source,
        "question": answer.question.text,
        "draft": answer.draft,
        "draft_claims": [
            {"text": text, "supported": supported, "entailed_by_own_evidence": grounded}
            for text, supported, grounded in zip(answer.draft_claims, answer.draft_supported,
                                                 answer.draft_grounded, strict=True)
        ],
        "abstained": answer.abstained,
        "abstention_reason": answer.abstention_reason,
        "rendered_claims": [
            {"text": text, "supported": supported, "entailed_by_own_evidence": grounded,
             "quotes": quotes, "entailed_by_citations": recall}
            for (text, quotes), supported, grounded, recall in zip(
                answer.rendered_claims, answer.rendered_supported, answer.rendered_grounded,
                answer.citation_recall, strict=True)
        ],
        "gold_retrieved": answer.gold_retrieved,
        "seconds": round(answer.seconds, 3),
    }


class EndToEnd:
    """The end-to-end benchmark: configured here, run by :meth:`run`. ``scorer`` defaults to
    the cross-encoder judge; ``progress`` shows the answering and the judging."""

    name = "e2e"

    def __init__(self, settings: E2ESettings, *, scorer: EntailmentScorer | None = None,
                 progress: ProgressFactory = no_progress) -> None:
        self.settings = settings
        self.scorer = scorer
        self.progress = progress

    def run(self) -> RunResult:
        """Answer, judge and summarise."""
        settings = self.settings
        started = time.perf_counter()
        require_dir(settings.data_dir)
        tqa_rows = truthfulqa_rows(settings.data_dir)
        qa_rows = halueval_rows(settings.data_dir)
        plan: dict[str, tuple[list[str], list[Question]]] = {}
        for source, texts, questions in (
            ("truthfulqa", [row["Best Answer"] for row in tqa_rows],
             truthfulqa_questions(tqa_rows, settings.limit, settings.seed)),
            ("halueval_qa", [str(row["knowledge"]) for row in qa_rows],
             halueval_questions(qa_rows, settings.limit, settings.seed)),
        ):
            plan[source] = (corpus_texts(texts, questions, settings.distractors), questions)
        answers: dict[str, list[Answered]] = {}
        timings: dict[str, float] = {}
        with tempfile.TemporaryDirectory(prefix="veritype-e2e-") as store_dir:
            for source, (evidence, questions) in plan.items():
                mark = time.perf_counter()
                answers[source], timings[f"{source}_ingest"] = answer_all(
                    settings, source, evidence, questions, Path(store_dir), self.progress)
                timings[f"{source}_answer"] = (
                    time.perf_counter() - mark - timings[f"{source}_ingest"])
        mark = time.perf_counter()
        everything = [a for source in SOURCES for a in answers[source]]
        judge_all(self.scorer or cross_encoder_scorer(self.progress), everything)
        timings["judge"] = time.perf_counter() - mark
        summaries = {SOURCE_TITLES[s]: summarise(answers[s], settings.resamples, settings.seed)
                     for s in SOURCES}
        summaries["all"] = summarise(everything, settings.resamples, settings.seed)
        overall = summaries["all"]
        headline: dict[str, float | int | str] = {
            "generator": settings.generator,
            "questions": overall["questions"],
            "answered": overall["answered"],
            "abstained": overall["abstained"],
            "abstained_share": overall["abstained_share"],
            "raw_precision": overall["raw_precision"],
            "raw_precision_ci_low": overall["raw_precision_ci95"][0],
            "raw_precision_ci_high": overall["raw_precision_ci95"][1],
            "rendered_precision": overall["rendered_precision"],
            "rendered_precision_ci_low": overall["rendered_precision_ci95"][0],
            "rendered_precision_ci_high": overall["rendered_precision_ci95"][1],
            "precision_ratio": overall["ratio"],
            "raw_precision_or_evidence": overall["raw_precision_or_evidence"],
            "rendered_precision_or_evidence": overall["rendered_precision_or_evidence"],
            "precision_ratio_or_evidence": overall["ratio_or_evidence"],
            "target_ratio": TARGET_RATIO,
            "raw_claims": overall["raw_claims"],
            "rendered_claims": overall["rendered_claims"],
            "citation_recall": overall["citation_recall"],
            "citation_precision": overall["citation_precision"],
            "own_evidence_in_context": overall["gold_retrieved_share"],
            "latency_median_s": overall["latency_s"]["median"],
            "latency_mean_s": overall["latency_s"]["mean"],
            "seconds": round(time.perf_counter() - started, 2),
        }
        result = RunResult(
            benchmark=self.name,
            config={
                "generator": settings.generator,
                "generator_options": settings.generator_options,
                "questions_per_source": settings.limit,
                "seed": settings.seed,
                "k": settings.k,
                "max_tokens": settings.max_tokens,
                "resamples": settings.resamples,
                "distractors": settings.distractors,
                "judge": JUDGE,
                "citation_judge": CITATION_JUDGE,
                "evidence": {
                    "truthfulqa": "the 817 Best Answer texts of TruthfulQA (2021 release); they "
                                  "overlap the judge's references",
                    "halueval_qa": f"knowledge paragraphs of HaluEval qa rows {HALUEVAL_EVAL_START}"
                                   f"–{HALUEVAL_EVAL_STOP - 1}",
                },
                "corpus_texts": {source: len(texts) for source, (texts, _) in plan.items()},
                "data_dir": str(settings.data_dir),
            },
            headline=headline,
            sections={"sources": summaries},
            tables=_tables(summaries, settings.k),
            timings=timings,
        )
        result.plots = {"e2e_precision": partial(plots.precision_bars, summaries=summaries)}
        result.examples = [_example(a) for a in everything]
        return result


def _tables(summaries: dict[str, dict[str, Any]], k: int) -> list[Table]:
    return [
        Table(
            "End to end, self-consistency: claim precision of raw drafts and rendered answers "
            "judged by veritype's own models (micro)",
            ("questions", "n", "answered", "raw claims", "raw precision", "95% CI",
             "rendered claims", "rendered precision", "95% CI", "ratio", "ratio 95% CI"),
            [(name, s["questions"], s["answered"], s["raw_claims"], s["raw_precision"],
              _interval(s["raw_precision_ci95"]), s["rendered_claims"], s["rendered_precision"],
              _interval(s["rendered_precision_ci95"]), s["ratio"], _interval(s["ratio_ci95"]))
             for name, s in summaries.items()],
            note=f"Judge: {JUDGE}. Rendered = the rendered claims of answers that did not "
                 "abstain. Intervals: bootstrap over questions.",
        ),
        Table(
            "End to end: precision when a claim also counts as supported if the question's own "
            "evidence entails it",
            ("questions", "raw precision", "95% CI", "rendered precision", "95% CI", "ratio",
             "ratio 95% CI"),
            [(name, s["raw_precision_or_evidence"], _interval(s["raw_precision_or_evidence_ci95"]),
              s["rendered_precision_or_evidence"],
              _interval(s["rendered_precision_or_evidence_ci95"]), s["ratio_or_evidence"],
              _interval(s["ratio_or_evidence_ci95"])) for name, s in summaries.items()],
            note="Own evidence: the Best Answer (TruthfulQA) or the row's knowledge paragraph "
                 "(HaluEval-QA), judged with the same entailment score; this credits true "
                 "background statements the reference answers do not state.",
        ),
        Table(
            "End to end: per-answer mean precision, abstention and citations",
            ("questions", "raw per answer", "95% CI", "rendered per answer", "95% CI",
             "abstained share", "own evidence in context", "citation recall",
             "citation precision"),
            [(name, s["raw_precision_per_answer"], _interval(s["raw_precision_per_answer_ci95"]),
              s["rendered_precision_per_answer"],
              _interval(s["rendered_precision_per_answer_ci95"]), s["abstained_share"],
              s["gold_retrieved_share"], s["citation_recall"], s["citation_precision"])
             for name, s in summaries.items()],
            note=f"Own evidence in context: the question's Best Answer / knowledge paragraph is "
                 f"among the {k} chunks the draft was written from. "
                 f"Citations: {CITATION_JUDGE}.",
        ),
        Table(
            "End to end: seconds per question (engine.ask)",
            ("questions", "mean", "median", "p90", "max", "generation mean"),
            [(name, s["latency_s"]["mean"], s["latency_s"]["median"], s["latency_s"]["p90"],
              s["latency_s"]["max"], s["latency_s"]["generate_mean"])
             for name, s in summaries.items()],
        ),
    ]


__all__ = [
    "DEFAULT_K",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_QUESTIONS",
    "DEFAULT_SEED",
    "HALUEVAL_EVAL_STOP",
    "Answered",
    "E2ESettings",
    "EndToEnd",
    "EntailmentScorer",
    "Question",
    "answer_all",
    "corpus_texts",
    "halueval_questions",
    "halueval_rows",
    "judge_citations",
    "judge_claims",
    "truthfulqa_questions",
    "truthfulqa_rows",
]
