"""Metrics and statistics: confusion counts, bootstrap intervals, McNemar, Fleiss' κ.

"Accepted" means the claim would be rendered (typed Verified); "positive" that its gold
label is supported. Precision is the share of accepted claims that are true, and the
hallucination rate its complement.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from veritype.errors import ConfigurationError, InputError

Bools = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]
METRICS = ("precision", "recall", "f1", "fpr", "hallucination_rate", "accuracy",
           "balanced_accuracy")


def confusion(accepted: Bools, truth: Bools) -> dict[str, int]:
    """tp, fp, fn, tn of ``accepted`` against ``truth``."""
    if accepted.shape != truth.shape:
        raise InputError(f"shapes differ: {accepted.shape} predictions, {truth.shape} labels")
    return {
        "tp": int(np.sum(accepted & truth)),
        "fp": int(np.sum(accepted & ~truth)),
        "fn": int(np.sum(~accepted & truth)),
        "tn": int(np.sum(~accepted & ~truth)),
    }


def _ratio(top: float, bottom: float) -> float:
    return top / bottom if bottom else 0.0


def rates(counts: Mapping[str, int]) -> dict[str, float]:
    """Precision, recall, F1, FPR, hallucination rate and accuracy from confusion counts."""
    tp, fp, fn, tn = counts["tp"], counts["fp"], counts["fn"], counts["tn"]
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    return {
        "precision": precision,
        "recall": recall,
        "f1": _ratio(2 * precision * recall, precision + recall),
        "fpr": _ratio(fp, fp + tn),
        "hallucination_rate": _ratio(fp, tp + fp),
        "accuracy": _ratio(tp + tn, tp + fp + fn + tn),
        "balanced_accuracy": (recall + 1.0 - _ratio(fp, fp + tn)) / 2,
    }


def binary_metrics(accepted: Bools, truth: Bools) -> dict[str, float]:
    return rates(confusion(accepted, truth))


def balanced_accuracy(accepted: Bools, truth: Bools) -> float:
    """The balanced accuracy of ``accepted`` against ``truth``; NaN when ``truth`` holds one
    class only (it then says nothing about the other)."""
    if truth.all() or not truth.any():
        return float("nan")
    return binary_metrics(accepted, truth)["balanced_accuracy"]


def mean_balanced_accuracy(accepted: Bools, truth: Bools, groups: npt.NDArray[np.str_]
                           ) -> float:
    """The mean over ``groups`` (sources) of each group's balanced accuracy, every group
    weighing the same; groups of one class are left out."""
    values = [balanced_accuracy(accepted[groups == g], truth[groups == g])
              for g in np.unique(groups)]
    return float(np.nanmean(values)) if values else float("nan")


def _vector_rates(tp: Floats, fp: Floats, fn: Floats, tn: Floats) -> dict[str, Floats]:
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        recall = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
        return {
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "fpr": np.where(fp + tn > 0, fp / (fp + tn), 0.0),
            "hallucination_rate": np.where(tp + fp > 0, fp / (tp + fp), 0.0),
            "accuracy": (tp + tn) / np.maximum(tp + fp + fn + tn, 1),
            "balanced_accuracy": (recall + 1.0 - np.where(fp + tn > 0, fp / (fp + tn), 0.0)) / 2,
        }


@dataclass(frozen=True, slots=True)
class Bootstrap:
    """Resamples of whole groups (questions, rows), drawn once and reused for every
    configuration so their intervals are comparable."""

    weights: npt.NDArray[np.int32]  # (resamples, examples): how often each example is drawn

    @classmethod
    def draw(cls, groups: Sequence[str], resamples: int = 1000, seed: int = 0) -> Bootstrap:
        if resamples < 1:
            raise ConfigurationError(f"resamples must be >= 1, got {resamples}")
        names, index = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)
        rng = np.random.default_rng(seed)
        picks = rng.integers(0, len(names), size=(resamples, len(names)))
        counts = np.zeros((resamples, len(names)), dtype=np.int32)
        rows = np.repeat(np.arange(resamples), len(names))
        np.add.at(counts, (rows, picks.ravel()), 1)
        return cls(counts[:, index])

    def intervals(
        self, accepted: Bools, truth: Bools, level: float = 0.95
    ) -> dict[str, tuple[float, float]]:
        """Percentile intervals of every metric of ``accepted`` against ``truth``."""
        w = self.weights.astype(np.float64)
        tp = w @ (accepted & truth).astype(np.float64)
        fp = w @ (accepted & ~truth).astype(np.float64)
        fn = w @ (~accepted & truth).astype(np.float64)
        tn = w @ (~accepted & ~truth).astype(np.float64)
        low, high = 50 * (1 - level), 50 * (1 + level)
        return {
            name: (float(np.percentile(values, low)), float(np.percentile(values, high)))
            for name, values in _vector_rates(tp, fp, fn, tn).items()
        }

    def interval_of(
        self, statistic: Callable[[Floats], float], level: float = 0.95
    ) -> tuple[float, float]:
        """Percentile interval of any statistic of the example weights."""
        values = [statistic(row.astype(np.float64)) for row in self.weights]
        return (float(np.percentile(values, 50 * (1 - level))),
                float(np.percentile(values, 50 * (1 + level))))


def _log_binomial_pmf(k: int, n: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)


def mcnemar(correct_a: Bools, correct_b: Bools) -> dict[str, float]:
    """McNemar's test on paired correctness: the exact two-sided binomial p-value on the
    discordant pairs, and the continuity-corrected χ² statistic with its p-value."""
    if correct_a.shape != correct_b.shape:
        raise InputError("McNemar needs the two configurations on the same examples")
    b = int(np.sum(correct_a & ~correct_b))
    c = int(np.sum(~correct_a & correct_b))
    n = b + c
    if n == 0:
        return {"b": 0, "c": 0, "p_exact": 1.0, "chi2": 0.0, "p_chi2": 1.0}
    low = min(b, c)
    logs = [_log_binomial_pmf(k, n) for k in range(low + 1)]
    top = max(logs)
    p_exact = min(1.0, 2.0 * math.exp(top) * math.fsum(math.exp(x - top) for x in logs))
    chi2 = (abs(b - c) - 1) ** 2 / n
    # Survival function of χ² with one degree of freedom.
    p_chi2 = math.erfc(math.sqrt(chi2 / 2))
    return {"b": b, "c": c, "p_exact": p_exact, "chi2": chi2, "p_chi2": p_chi2}


def fleiss_kappa(ratings: npt.NDArray[np.int_]) -> float:
    """Fleiss' κ from an (items, categories) matrix of how many raters chose each category;
    every item needs the same number (≥ 2) of ratings."""
    table = np.asarray(ratings, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] == 0:
        raise InputError("Fleiss' kappa needs an (items, categories) count matrix")
    raters = table.sum(axis=1)
    if np.any(raters != raters[0]) or raters[0] < 2:
        raise InputError("every item needs the same number of ratings, at least 2")
    n = raters[0]
    agreement = ((table * (table - 1)).sum(axis=1) / (n * (n - 1))).mean()
    shares = table.sum(axis=0) / table.sum()
    chance = float(np.sum(shares**2))
    if chance == 1.0:
        return 1.0
    return float((agreement - chance) / (1.0 - chance))


def precision_recall_curve(scores: Floats, truth: Bools) -> dict[str, list[float]]:
    """Precision and recall at every distinct score threshold (accept score ≥ t)."""
    order = np.argsort(-scores, kind="stable")
    sorted_scores = scores[order]
    hits = truth[order].astype(np.float64)
    tp = np.cumsum(hits)
    accepted = np.arange(1, len(order) + 1, dtype=np.float64)
    # The last position of each run of equal scores: thresholds accept whole ties.
    last = np.r_[np.nonzero(np.diff(sorted_scores))[0], len(order) - 1] if len(order) else []
    positives = max(float(truth.sum()), 1.0)
    return {
        "threshold": [float(sorted_scores[i]) for i in last],
        "precision": [float(tp[i] / accepted[i]) for i in last],
        "recall": [float(tp[i] / positives) for i in last],
    }


def roc_auc(scores: Floats, truth: Bools) -> float:
    """ROC-AUC: the chance that a supported claim outscores an unsupported one (ties count
    half), by ranks with tied scores sharing their mean rank; 0 when a class is missing."""
    # The mean rank of each distinct score, from the cumulative counts of the sorted values.
    _, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    last = np.cumsum(counts)
    ranks = (last - (counts - 1) / 2.0)[inverse]
    positives = int(np.sum(truth))
    negatives = len(truth) - positives
    return float((ranks[truth].sum() - positives * (positives + 1) / 2)
                 / max(positives * negatives, 1))


def threshold_for_balanced_accuracy(
    scores: Floats, truth: Bools, groups: npt.NDArray[np.str_], points: int,
    blocked: Bools | None = None,
) -> float:
    """Among ``points`` quantiles of ``scores`` (1% to 99%, or 2% to 98% when few), the
    threshold with the best mean per-group balanced accuracy of accepting ``scores ≥ t``
    (never the ``blocked`` rows) against ``truth``."""
    edge = 0.01 if points > 100 else 0.02
    grid = np.unique(np.round(np.quantile(scores, np.linspace(edge, 1 - edge, points)), 4))
    kept = np.ones_like(truth) if blocked is None else ~blocked
    return float(max(grid, key=lambda t: mean_balanced_accuracy((scores >= t) & kept, truth,
                                                                groups)))


def threshold_for_precision(scores: Floats, truth: Bools, target: float, min_accepted: int = 1
                            ) -> float | None:
    """The lowest threshold whose accepted claims reach ``target`` precision (None if none)."""
    curve = precision_recall_curve(scores, truth)
    best = None
    for threshold, precision, recall in zip(
        curve["threshold"], curve["precision"], curve["recall"], strict=True
    ):
        accepted = int(np.sum(scores >= threshold))
        if precision >= target and accepted >= min_accepted and recall > 0:
            best = threshold
    return best


def threshold_for_f1(scores: Floats, truth: Bools) -> float:
    curve = precision_recall_curve(scores, truth)
    f1 = [
        2 * p * r / (p + r) if p + r else 0.0
        for p, r in zip(curve["precision"], curve["recall"], strict=True)
    ]
    return curve["threshold"][int(np.argmax(f1))] if f1 else 0.5


def agreement(a: Bools, b: Bools) -> dict[str, float]:
    """Raw agreement and Cohen's κ of two binary verdict vectors."""
    same = float(np.mean(a == b)) if len(a) else 0.0
    pa, pb = float(np.mean(a)) if len(a) else 0.0, float(np.mean(b)) if len(b) else 0.0
    chance = pa * pb + (1 - pa) * (1 - pb)
    kappa = (same - chance) / (1 - chance) if chance < 1 else 1.0
    return {"agreement": same, "cohen_kappa": kappa}
