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

import csv
import random
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from veritype._cli import fail as _fail
from veritype._cli import progress as _progress
from veritype.claims import Claim, decompose
from veritype.errors import DataError, VeritypeError
from veritype.evaluation.data import HALUEVAL_EVAL_START, TRUTHFULQA_FILES, read_jsonl, require_file
from veritype.evaluation.metrics import Bootstrap, Floats
from veritype.evaluation.report import RunResult, Table, write_and_show
from veritype.evidence import EvidencePack

SOURCES = ("truthfulqa", "halueval_qa")
SOURCE_TITLES = {"truthfulqa": "TruthfulQA", "halueval_qa": "HaluEval-QA"}
HALUEVAL_EVAL_STOP = 10000
DEFAULT_QUESTIONS = 60
DEFAULT_SEED = 2024
DEFAULT_K = 3
DEFAULT_MAX_TOKENS = 96
TARGET_RATIO = 3.0
JUDGE_MODELS = ("nli", "align")
JUDGE_THRESHOLD = 0.5
JUDGE_BATCH = 64
JUDGE = (
    "self-consistency (veritype's own models, not an independent judge): the shipped nli and "
    "align cross-encoders; entailment score = the lower of their two "
    "entailment probabilities, or 0 where the numeric view finds a number, date or name of "
    "the claim contradicted by the premise; a claim is supported when its score from "
    f"'question + a correct answer' is ≥ {JUDGE_THRESHOLD} and greater than its score from every "
    "'question + incorrect answer' (TruthfulQA: Correct / Incorrect Answers; HaluEval-QA: "
    "right_answer / hallucinated_answer)"
)
CITATION_JUDGE = (
    "the same entailment score; a claim is entailed by its citations when the joined quotes "
    f"give a score ≥ {JUDGE_THRESHOLD}; a citation is needed when it entails the claim "
    "alone or the claim is entailed with it but not without it (ALCE)"
)

# Opens a progress display for ``total`` units of work; the callback reports units done.
Advance = Callable[[int], None]
ProgressFactory = Callable[[str, int], AbstractContextManager[Advance]]
# Scores (premise, hypothesis) pairs: the judge's entailment probability of each.
EntailmentScorer = Callable[[Sequence[tuple[str, str]]], Floats]


@contextmanager
def no_progress(description: str, total: int) -> Iterator[Advance]:
    yield lambda done: None


@dataclass(frozen=True, slots=True)
class Question:
    """One question with the reference answers the judge reads."""

    source: str
    question_id: str
    text: str
    correct: tuple[str, ...]
    incorrect: tuple[str, ...]
    gold_evidence: str  # the corpus text that answers it (Best Answer / knowledge paragraph)


@dataclass(slots=True)
class E2ESettings:
    """How to run the end-to-end benchmark; ``limit`` is the sample size per source."""

    data_dir: Path
    generator: str = "local"
    generator_options: dict[str, Any] = field(default_factory=dict)
    limit: int = DEFAULT_QUESTIONS
    seed: int = DEFAULT_SEED
    k: int = DEFAULT_K
    max_tokens: int = DEFAULT_MAX_TOKENS
    resamples: int = 1000
    distractors: int | None = None
    progress: ProgressFactory = no_progress

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise ValueError(f"limit must be >= 1, got {self.limit}")
        if self.distractors is not None and self.distractors < 0:
            raise ValueError(f"distractors must be >= 0, got {self.distractors}")
        if self.resamples < 1:
            raise ValueError(f"resamples must be >= 1, got {self.resamples}")
        if not self.data_dir.is_dir():
            raise DataError(f"data directory not found: {self.data_dir}")


# --- data ---------------------------------------------------------------------------------


def _split_answers(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(";") if part.strip())


def truthfulqa_rows(data_dir: Path) -> list[dict[str, str]]:
    path = require_file(data_dir / "truthfulqa" / TRUTHFULQA_FILES["2021"])
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for column in ("Question", "Best Answer", "Correct Answers", "Incorrect Answers"):
        if rows and column not in rows[0]:
            raise DataError(f"{path}: missing column {column!r}")
    return rows


def truthfulqa_questions(rows: Sequence[dict[str, str]], count: int, seed: int) -> list[Question]:
    """A fixed-seed sample of ``count`` questions; the Best Answer counts as correct."""
    picked = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
    return [
        Question(
            source="truthfulqa",
            question_id=f"tqa-{i}",
            text=rows[i]["Question"].strip(),
            correct=tuple(dict.fromkeys(
                (rows[i]["Best Answer"].strip(), *_split_answers(rows[i]["Correct Answers"]))
            )),
            incorrect=_split_answers(rows[i]["Incorrect Answers"]),
            gold_evidence=rows[i]["Best Answer"].strip(),
        )
        for i in picked
    ]


def halueval_rows(data_dir: Path) -> list[dict[str, Any]]:
    rows = list(read_jsonl(data_dir / "halueval" / "qa_data.json", HALUEVAL_EVAL_START,
                           HALUEVAL_EVAL_STOP))
    for key in ("knowledge", "question", "right_answer", "hallucinated_answer"):
        if rows and key not in rows[0]:
            raise DataError(f"HaluEval qa_data.json: rows lack the {key!r} field")
    return rows


def halueval_questions(rows: Sequence[dict[str, Any]], count: int, seed: int) -> list[Question]:
    picked = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
    return [
        Question(
            source="halueval_qa",
            question_id=f"halueval-qa-{HALUEVAL_EVAL_START + i}",
            text=str(rows[i]["question"]).strip(),
            correct=(str(rows[i]["right_answer"]).strip(),),
            incorrect=(str(rows[i]["hallucinated_answer"]).strip(),),
            gold_evidence=str(rows[i]["knowledge"]).strip(),
        )
        for i in picked
    ]


def corpus_texts(texts: Sequence[str], questions: Sequence[Question], distractors: int | None
                 ) -> list[str]:
    """The evidence corpus: every text, or each question's own evidence plus the first
    ``distractors`` other texts (quick runs)."""
    if distractors is None:
        return list(texts)
    own = [question.gold_evidence for question in questions]
    wanted = set(own)
    others = [text for text in texts if text.strip() not in wanted][:distractors]
    return own + others


# --- answering ----------------------------------------------------------------------------


@dataclass(slots=True)
class Answered:
    """What the engine did with one question."""

    question: Question
    draft: str
    draft_claims: list[str]
    rendered_claims: list[tuple[str, list[str]]]  # (claim, quotes of its citations)
    abstained: bool
    abstention_reason: str | None
    gold_retrieved: bool  # the question's own evidence is among the drafting context
    seconds: float
    timings: dict[str, float]
    answer_text: str = ""  # the rendered answer, citation markers included ("" on abstention)
    confidence: str = ""  # the answer's confidence label
    # Mean support of the claims that count for confidence: the engine's score of the draft.
    support: float = 0.0
    cites_own: bool = False  # a citation quotes the question's own evidence
    # Cosine similarity of the best dense hit: a selection baseline that needs no verifier.
    retrieval_score: float = 0.0
    draft_supported: list[bool] = field(default_factory=list)
    rendered_supported: list[bool] = field(default_factory=list)
    # Entailed by the question's own evidence: true background the references do not state.
    draft_grounded: list[bool] = field(default_factory=list)
    rendered_grounded: list[bool] = field(default_factory=list)
    citation_recall: list[bool] = field(default_factory=list)
    citations_needed: list[bool] = field(default_factory=list)


def answer_all(
    settings: E2ESettings, source: str, evidence: Sequence[str], questions: Sequence[Question],
    store_dir: Path,
) -> tuple[list[Answered], float]:
    """Build the store of ``evidence`` and ask every question; returns the answers and the
    ingestion time."""
    from veritype.engine import Engine, EngineConfig

    config = EngineConfig.load(
        env={},
        store=f"sqlite:///{store_dir / f'{source}.sqlite'}",
        generator=settings.generator,
        generator_options=settings.generator_options,
        k=settings.k,
        max_tokens=settings.max_tokens,
    )
    answered: list[Answered] = []
    with Engine(config) as engine:
        started = time.perf_counter()
        unique = list(dict.fromkeys(text.strip() for text in evidence if text.strip()))
        engine.ingest_texts(unique, titles=[f"{SOURCE_TITLES[source]} evidence {i + 1}"
                                            for i in range(len(unique))])
        ingest_seconds = time.perf_counter() - started
        dense_index = next((spec.name for spec in engine.corpus.indexes if spec.kind == "dense"),
                           None)
        title = f"{SOURCE_TITLES[source]}: answering"
        with settings.progress(title, len(questions)) as advance:
            for question in questions:
                asked = time.perf_counter()
                grounded = engine.ask(question.text)
                seconds = time.perf_counter() - asked
                trace = engine.trace(grounded.trace_id)
                # The same retrieval ask drafted from (deterministic, no filters).
                context = engine.corpus.retrieve(question.text, settings.k)
                dense = (engine.corpus.retrieve(question.text, 1, retriever=dense_index)
                         if dense_index else [])
                draft = str(trace.get("draft") or "") if trace is not None else ""
                counted = [claim.support_mass for claim in grounded.claims if claim.counted]
                rendered = [
                    (claim.text, [citation.quote for citation in claim.citations])
                    for claim in grounded.claims if claim.rendered
                ]
                answered.append(Answered(
                    question=question,
                    draft=draft,
                    draft_claims=[claim.text for claim in decompose(draft).claims],
                    rendered_claims=[] if grounded.abstained else rendered,
                    abstained=grounded.abstained,
                    abstention_reason=grounded.abstention_reason,
                    gold_retrieved=any(_overlaps(hit.chunk.text, question.gold_evidence)
                                       for hit in context),
                    seconds=seconds,
                    timings=dict(grounded.timings),
                    answer_text="" if grounded.abstained else grounded.answer,
                    confidence=grounded.confidence.value,
                    support=float(np.mean(counted)) if counted else 0.0,
                    cites_own=any(_overlaps(reference.quote, question.gold_evidence)
                                  for reference in grounded.references),
                    retrieval_score=dense[0].score if dense else 0.0,
                ))
                advance(1)
    return answered, ingest_seconds


def _overlaps(chunk: str, gold: str) -> bool:
    chunk, gold = chunk.strip(), gold.strip()
    return bool(chunk) and (chunk in gold or gold in chunk)


# --- judging ------------------------------------------------------------------------------


def cross_encoder_scorer(progress: ProgressFactory = no_progress) -> EntailmentScorer:
    """The judge: the lower entailment probability of the shipped nli and align models, or
    zero where the numeric view finds a number, date or name of the claim contradicted (the
    cross-encoders barely tell "2006" from "2008")."""
    from veritype.models.cross_encoder import CrossEncoder, shipped_model_dir
    from veritype.views import Verdict, create_view

    judges = [CrossEncoder(shipped_model_dir(name)) for name in JUDGE_MODELS]
    numeric = create_view("numeric")

    def conflicts(premise: str, claim: str) -> bool:
        result = numeric.verify(Claim("c", claim), EvidencePack.from_texts([premise]))
        return result.verdict is Verdict.CONTRADICTED

    def scores(pairs: Sequence[tuple[str, str]]) -> Floats:
        distinct = list(dict.fromkeys(pairs))
        found: dict[tuple[str, str], float] = {}
        with progress("e2e: judging", len(distinct)) as advance:
            for begin in range(0, len(distinct), JUDGE_BATCH):
                block = distinct[begin:begin + JUDGE_BATCH]
                entailment = np.min([judge.predict(block)[:, 0] for judge in judges], axis=0)
                entailment[[conflicts(*pair) for pair in block]] = 0.0
                found.update(zip(block, (float(v) for v in entailment), strict=True))
                advance(len(block))
        return np.array([found[pair] for pair in pairs], dtype=np.float64)

    return scores


def _premise(question: Question, answer: str) -> str:
    return f"{question.text} {answer}"


def judge_claims(
    scorer: EntailmentScorer, claims: Sequence[tuple[Question, str]]
) -> list[bool]:
    """The judge's verdict (supported or not) on each (question, claim)."""
    pairs: list[tuple[str, str]] = []
    for question, claim in claims:
        pairs += [(_premise(question, a), claim) for a in (*question.correct, *question.incorrect)]
    values = iter(scorer(pairs).tolist())
    verdicts = []
    for question, _ in claims:
        correct = [next(values) for _ in question.correct]
        incorrect = [next(values) for _ in question.incorrect]
        best = max(correct, default=0.0)
        verdicts.append(best >= JUDGE_THRESHOLD and best > max(incorrect, default=0.0))
    return verdicts


def judge_citations(
    scorer: EntailmentScorer, claims: Sequence[tuple[str, Sequence[str]]]
) -> tuple[list[bool], list[list[bool]]]:
    """ALCE citation recall (the joined quotes entail the claim) and, per citation, whether
    it is needed (it entails the claim alone, or the claim is entailed with it and not
    without it)."""
    together_pairs = [(" ".join(quotes), claim) for claim, quotes in claims]
    alone_pairs = [(quote, claim) for claim, quotes in claims for quote in quotes]
    without_pairs = [
        (" ".join([*quotes[:i], *quotes[i + 1:]]), claim)
        for claim, quotes in claims if len(quotes) > 1 for i in range(len(quotes))
    ]
    entailed = scorer([*together_pairs, *alone_pairs, *without_pairs]) >= JUDGE_THRESHOLD
    together = entailed[: len(together_pairs)].tolist()
    alone = iter(entailed[len(together_pairs): len(together_pairs) + len(alone_pairs)].tolist())
    without = iter(entailed[len(together_pairs) + len(alone_pairs):].tolist())
    needed: list[list[bool]] = []
    for (_, quotes), supported in zip(claims, together, strict=True):
        flags = []
        for _ in quotes:
            helps_alone = next(alone)
            rest_supports = next(without) if len(quotes) > 1 else False
            flags.append(bool(helps_alone or (supported and not rest_supports)))
        needed.append(flags)
    return [bool(v) for v in together], needed


def judge_all(scorer: EntailmentScorer, answers: Sequence[Answered]) -> None:
    """Fill in every answer's judged claims and citations, in one batch of judge calls."""
    claims = [(a.question, c) for a in answers for c in a.draft_claims]
    claims += [(a.question, c) for a in answers for c, _ in a.rendered_claims]
    cited = [(claim, quotes) for a in answers for claim, quotes in a.rendered_claims]
    verdicts = iter(judge_claims(scorer, claims))
    for answer in answers:
        answer.draft_supported = [next(verdicts) for _ in answer.draft_claims]
    for answer in answers:
        answer.rendered_supported = [next(verdicts) for _ in answer.rendered_claims]
    grounded = iter((scorer([(q.gold_evidence, c) for q, c in claims]) >= JUDGE_THRESHOLD)
                    .tolist())
    for answer in answers:
        answer.draft_grounded = [bool(next(grounded)) for _ in answer.draft_claims]
    for answer in answers:
        answer.rendered_grounded = [bool(next(grounded)) for _ in answer.rendered_claims]
    recall, needed = judge_citations(scorer, cited)
    recall_iter, needed_iter = iter(recall), iter(needed)
    for answer in answers:
        answer.citation_recall = [next(recall_iter) for _ in answer.rendered_claims]
        answer.citations_needed = [
            flag for _ in answer.rendered_claims for flag in next(needed_iter)
        ]


# --- figures ------------------------------------------------------------------------------


def _ratio(top: Floats, bottom: Floats, weights: Floats) -> float:
    denominator = float(weights @ bottom)
    return float(weights @ top) / denominator if denominator else 0.0


def _mean_where(values: Floats, present: Floats, weights: Floats) -> float:
    counted = weights * present
    total = float(counted.sum())
    return float(counted @ values) / total if total else 0.0


def _precision_ratio(raw: tuple[Floats, Floats], rendered: tuple[Floats, Floats],
                     weights: Floats) -> float:
    raw_precision = _ratio(*raw, weights)
    return _ratio(*rendered, weights) / raw_precision if raw_precision else float("nan")


def summarise(answers: Sequence[Answered], resamples: int, seed: int) -> dict[str, Any]:
    """Precision (micro and per-answer mean), abstention, citations and latency of
    ``answers`` with bootstrap 95% intervals over questions."""
    if not answers:
        raise ValueError("no answers to summarise")
    raw_claims = np.array([len(a.draft_claims) for a in answers], dtype=np.float64)
    raw_true = np.array([sum(a.draft_supported) for a in answers], dtype=np.float64)
    raw_either = np.array([sum(map(max, a.draft_supported, a.draft_grounded)) for a in answers],
                          dtype=np.float64)
    shown_either = np.array([sum(map(max, a.rendered_supported, a.rendered_grounded))
                             for a in answers], dtype=np.float64)
    shown_claims = np.array([len(a.rendered_claims) for a in answers], dtype=np.float64)
    shown_true = np.array([sum(a.rendered_supported) for a in answers], dtype=np.float64)
    answered = np.array([not a.abstained for a in answers], dtype=np.float64)
    has_raw = (raw_claims > 0).astype(np.float64)
    has_shown = (answered * (shown_claims > 0)).astype(np.float64)
    raw_each = np.divide(raw_true, raw_claims, out=np.zeros_like(raw_true), where=raw_claims > 0)
    shown_each = np.divide(shown_true, shown_claims, out=np.zeros_like(shown_true),
                           where=shown_claims > 0)
    recall_hits = np.array([sum(a.citation_recall) for a in answers], dtype=np.float64)
    citations = np.array([len(a.citations_needed) for a in answers], dtype=np.float64)
    needed = np.array([sum(a.citations_needed) for a in answers], dtype=np.float64)
    gold = np.array([a.gold_retrieved for a in answers], dtype=np.float64)
    ones = np.ones(len(answers))
    statistics: dict[str, Callable[[Floats], float]] = {
        "raw_precision": partial(_ratio, raw_true, raw_claims),
        "rendered_precision": partial(_ratio, shown_true, shown_claims),
        "raw_precision_per_answer": partial(_mean_where, raw_each, has_raw),
        "rendered_precision_per_answer": partial(_mean_where, shown_each, has_shown),
        "ratio": partial(_precision_ratio, (raw_true, raw_claims), (shown_true, shown_claims)),
        "raw_precision_or_evidence": partial(_ratio, raw_either, raw_claims),
        "rendered_precision_or_evidence": partial(_ratio, shown_either, shown_claims),
        "ratio_or_evidence": partial(_precision_ratio, (raw_either, raw_claims),
                                     (shown_either, shown_claims)),
        "answered_share": partial(_ratio, answered, ones),
        "gold_retrieved_share": partial(_ratio, gold, ones),
        "citation_recall": partial(_ratio, recall_hits, shown_claims),
        "citation_precision": partial(_ratio, needed, citations),
    }
    bootstrap = Bootstrap.draw([a.question.question_id for a in answers], resamples, seed)
    summary: dict[str, Any] = {
        "questions": len(answers),
        "answered": int(answered.sum()),
        "abstained": int(len(answers) - answered.sum()),
        "raw_claims": int(raw_claims.sum()),
        "raw_supported": int(raw_true.sum()),
        "rendered_claims": int(shown_claims.sum()),
        "rendered_supported": int(shown_true.sum()),
        "citations": int(citations.sum()),
    }
    for name, statistic in statistics.items():
        summary[name] = statistic(ones)
        finite = [value for value in (statistic(row.astype(np.float64))
                                      for row in bootstrap.weights) if np.isfinite(value)]
        summary[f"{name}_ci95"] = (
            [float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))]
            if finite else [None, None]
        )
    summary["abstained_share"] = 1.0 - summary["answered_share"]
    seconds = np.array([a.seconds for a in answers])
    summary["latency_s"] = {
        "mean": float(seconds.mean()),
        "median": float(np.median(seconds)),
        "p90": float(np.percentile(seconds, 90)),
        "max": float(seconds.max()),
        "generate_mean": float(np.mean([a.timings.get("generate_s", 0.0) for a in answers])),
    }
    return summary


def precision_bars(path: Path, summaries: dict[str, dict[str, Any]]) -> None:
    """Raw against rendered claim precision per source, with 95% bootstrap intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(summaries)
    figure, axes = plt.subplots(figsize=(7, 4))
    width = 0.38
    for offset, (key, label) in enumerate((("raw_precision", "raw draft"),
                                           ("rendered_precision", "veritype rendered"))):
        values = [summaries[name][key] for name in names]
        intervals = [summaries[name][f"{key}_ci95"] for name in names]
        errors = np.array([
            [max(value - (low if low is not None else value), 0.0) for value, (low, _) in
             zip(values, intervals, strict=True)],
            [max((high if high is not None else value) - value, 0.0) for value, (_, high) in
             zip(values, intervals, strict=True)],
        ])
        axes.bar(np.arange(len(names)) + offset * width, values, width, yerr=errors, capsize=4,
                 label=label)
    axes.set_xticks(np.arange(len(names)) + width / 2, names)
    axes.set_ylabel("claim precision (judged supported / claims)")
    axes.set_ylim(0, 1)
    axes.grid(alpha=0.3, axis="y")
    axes.legend(fontsize=8)
    axes.set_title("Factual precision: raw drafts vs rendered answers (95% CI)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


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


def run(settings: E2ESettings, scorer: EntailmentScorer | None = None) -> RunResult:
    """Answer, judge and summarise; ``scorer`` defaults to the cross-encoder judge."""
    started = time.perf_counter()
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
                settings, source, evidence, questions, Path(store_dir))
            timings[f"{source}_answer"] = (
                time.perf_counter() - mark - timings[f"{source}_ingest"])
    mark = time.perf_counter()
    everything = [a for source in SOURCES for a in answers[source]]
    judge_all(scorer or cross_encoder_scorer(settings.progress), everything)
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
    tables = [
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
                 f"among the {settings.k} chunks the draft was written from. "
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
    result = RunResult(
        benchmark="e2e",
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
        tables=tables,
        timings=timings,
    )
    result.plots = {"e2e_precision": partial(precision_bars, summaries=summaries)}
    result.examples = [_example(a) for a in everything]
    return result


# --- command line -------------------------------------------------------------------------



def command(
    data_dir: Annotated[
        Path,
        typer.Option("--data-dir", envvar="VERITYPE_DATA_DIR",
                     help="The datasets folder (truthfulqa/, halueval/)."),
    ],
    generator: Annotated[
        str, typer.Option("--generator", help="Drafting generator: local, extractive, openai.")
    ] = "local",
    limit: Annotated[
        int, typer.Option("--limit", help="Questions sampled from each of TruthfulQA and "
                          "HaluEval-QA.")
    ] = DEFAULT_QUESTIONS,
    k: Annotated[int, typer.Option("--k", help="Chunks retrieved for the draft.")] = DEFAULT_K,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", help="Longest draft, in tokens.")
    ] = DEFAULT_MAX_TOKENS,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the question samples.")]
    = DEFAULT_SEED,
    resamples: Annotated[int, typer.Option("--resamples", help="Bootstrap resamples.")] = 1000,
    distractors: Annotated[
        int | None, typer.Option("--distractors", help="Only the questions' own evidence plus "
                                 "this many other texts per corpus (default: every text).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Where run directories are written.")]
    = Path("eval-runs"),
) -> None:
    """Raw drafts vs rendered answers judged by veritype's own models (self-consistency)."""
    run_and_print(run, out, data_dir=data_dir, generator=generator, limit=limit, seed=seed, k=k,
                  max_tokens=max_tokens, resamples=resamples, distractors=distractors)


def run_and_print(run: Callable[[E2ESettings], RunResult], out: Path, **options: Any) -> None:
    """Run an answering benchmark from the command line: settings from ``options``, errors
    as one line, the run directory under ``out`` and the headline printed."""
    started = time.perf_counter()
    try:
        result = run(E2ESettings(progress=_progress, **options))
    except (VeritypeError, ValueError) as error:
        raise _fail(str(error)) from None
    write_and_show(result, out, started=started)


def register(eval_app: typer.Typer) -> None:
    """Add ``veritype eval e2e`` to the evaluation commands."""
    eval_app.command("e2e")(command)
