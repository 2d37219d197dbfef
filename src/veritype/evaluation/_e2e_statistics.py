"""The end-to-end figures: precision, abstention, citations and latency with bootstrap
intervals over questions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from veritype.errors import InputError
from veritype.evaluation._e2e_answering import Answered
from veritype.evaluation.metrics import Bootstrap, Floats


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
        raise InputError("no answers to summarise")
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
