"""The judge's head of the default aggregator: P(supported) once the judge has voted.

The judge is asked only about the claims the encoders leave unsettled (inside the model's ask
band), so its head is fitted on such claims: a sample of the fitting pairs the encoders'
model leaves unsettled, the same number from each source, judged once and cached. The head
reads the encoders' features and the judge's P(yes); its bias is shifted so that its own best
threshold (the mean per-source balanced accuracy on the judged claims) falls on τ, and a low
P(yes) can take a claim to τ' or below: the judge moves a claim either way.
Leave-one-source-out on the judged claims chooses whether the head reads the encoders beside
the judge, and sets it beside the encoders alone.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.aggregate._calibrated import CalibratedAggregator, Head, Logistic, log_odds
from veritype.errors import DataError
from veritype.evaluation.data import Example
from veritype.evaluation.metrics import (
    Bools,
    balanced_accuracy,
    roc_auc,
    threshold_for_balanced_accuracy,
)
from veritype.evaluation.scoring import LocalEngine, ScoreTable, score_examples
from veritype.train._score_cache import cached_scores

JUDGE = "judge"
JUDGE_FEATURE = "judge.entailment"
JUDGE_SAMPLE = 400
JUDGE_CHUNK = 50


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1.0 - p))


def _moved(head: Logistic, threshold: float, tau: float) -> Logistic:
    """``head`` with its bias shifted so that a probability of ``threshold`` becomes ``tau``:
    it then types at τ exactly the claims it typed at its own threshold."""
    return Logistic(head.features, head.weights, head.bias + _logit(tau) - _logit(threshold))


def borderline_sample(examples: Sequence[Example], uncertain: Bools,
                      sources: npt.NDArray[np.str_], size: int, seed: int
                      ) -> npt.NDArray[np.intp]:
    """Up to ``size`` borderline rows, as many from each source, in a fixed hashed order."""
    names = sorted(set(sources.tolist()))
    per_source = size // max(len(names), 1)
    chosen: list[int] = []
    for source in names:
        rows = np.nonzero(uncertain & (sources == source))[0].tolist()
        rows.sort(key=lambda row: hashlib.sha256(
            f"{seed}:{examples[row].example_id}".encode()).digest())
        chosen.extend(rows[:per_source])
    return np.array(sorted(chosen), dtype=np.intp)


def judged_scores(path: Path, examples: list[Example],
                  on_progress: Callable[[int, int], None] | None) -> ScoreTable:
    """The judge's scores of ``examples``, cached in ``path`` a chunk at a time."""
    engine: LocalEngine | None = None
    table: ScoreTable | None = None

    def compute(new: list[Example]) -> ScoreTable:
        nonlocal engine
        engine = engine or LocalEngine((JUDGE,))
        return score_examples(engine, new)

    for end in range(JUDGE_CHUNK, len(examples) + JUDGE_CHUNK, JUDGE_CHUNK):
        table = cached_scores(path, examples[:end], compute)
        if on_progress is not None:
            on_progress(min(end, len(examples)), len(examples))
    assert table is not None
    return table


def fit_judge_head(
    model: CalibratedAggregator,
    fit_support: Callable[[npt.NDArray[np.float64], Bools, Sequence[str]], Logistic],
    base_features: Callable[[npt.NDArray[np.intp], Sequence[str]], npt.NDArray[np.float64]],
    examples: Sequence[Example],
    supported: Bools,
    sources: npt.NDArray[np.str_],
    uncertain: Bools,
    cache: Path,
    *,
    seed: int = 0,
    sample: int = JUDGE_SAMPLE,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[CalibratedAggregator, dict[str, Any]]:
    """``model`` with a judge head in front of its heads, and the head's report.

    ``fit_support(matrix, labels, names)`` fits a sign-constrained P(supported);
    ``base_features(rows, names)`` gives the encoders' features of those rows."""
    rows = borderline_sample(examples, uncertain, sources, sample, seed)
    judged = judged_scores(cache, [examples[row] for row in rows], on_progress)
    p_yes = judged.score[:, judged.column(JUDGE)]
    base = model.heads[-1]
    # The judge's feature is the log-odds of its P(yes), as the aggregator reads it.
    encoders = base_features(rows, base.support.features)
    candidates = {"judge": ([JUDGE_FEATURE], log_odds(p_yes)[:, None]),
                  "judge + encoders": ([*base.support.features, JUDGE_FEATURE],
                                       np.column_stack([encoders, log_odds(p_yes)]))}
    truth, groups = supported[rows], sources[rows]
    base_p = base.support.predict(encoders)
    tau, tau_low = model.thresholds

    def best_threshold(scores: npt.NDArray[np.float64], labels: Bools,
                       where: npt.NDArray[np.str_]) -> float:
        return threshold_for_balanced_accuracy(scores, labels, where, 49)

    per_source: dict[str, Any] = {}
    for source in np.unique(groups):
        train, held = groups != source, groups == source
        figures: dict[str, Any] = {
            "claims": int(held.sum()),
            "encoders_balanced_accuracy": balanced_accuracy(base_p[held] >= tau, truth[held]),
        }
        for name, (names, matrix) in candidates.items():
            head = fit_support(matrix[train], truth[train], names)
            threshold = best_threshold(head.predict(matrix[train]), truth[train], groups[train])
            p = head.predict(matrix[held])
            figures[name] = {"balanced_accuracy": balanced_accuracy(p >= threshold, truth[held]),
                             "auc": roc_auc(p, truth[held])}
        per_source[str(source)] = figures
    means = {name: float(np.mean([v[name]["balanced_accuracy"] for v in per_source.values()]))
             for name in candidates}
    # The head reads the encoders too only where that helps held out; fewer features win ties.
    chosen = max(candidates, key=lambda name: (round(means[name], 3),
                                               -len(candidates[name][0])))
    names, matrix = candidates[chosen]
    head = fit_support(matrix, truth, names)
    threshold = best_threshold(head.predict(matrix), truth, groups)
    shifted = _moved(head, threshold, tau)
    judged_model = CalibratedAggregator(
        [Head((JUDGE,), shifted, base.contradiction), *model.heads],
        thresholds=model.thresholds, kappa=model.kappa, decisive=model.decisive, ask=model.ask)
    final = shifted.predict(matrix)
    report = {
        "sample": len(rows), "per_source_sample": {str(s): int(np.sum(groups == s))
                                                   for s in np.unique(groups)},
        "ask_band": list(model.ask or (tau_low, tau)),
        "leave_one_source_out": per_source,
        "mean_balanced_accuracy": {"encoders": float(np.mean(
            [v["encoders_balanced_accuracy"] for v in per_source.values()])), **means},
        "chosen": chosen,
        "support": shifted.to_dict(),
        "threshold_before_shift": threshold,
        "on_judged_claims": {"verified": float(np.mean(final >= tau)),
                             "unsupported": float(np.mean(final <= tau_low)),
                             "supported_share": float(truth.mean())},
    }
    return judged_model, report


def reused_judge_head(model: CalibratedAggregator, previous: CalibratedAggregator,
                      source: str) -> tuple[CalibratedAggregator, dict[str, Any]]:
    """``model`` with ``previous``'s judge head in front of its heads, and a report. The head
    was fitted so that its own threshold fell at ``previous``'s τ; its bias is shifted by the
    change of τ, so it types exactly the judged claims it typed Verified before, and its
    contradiction model is ``model``'s. Judging a sample anew takes the judge ~1 s a claim."""
    judged = [head for head in previous.heads if JUDGE in head.requires]
    if not judged:
        raise DataError(f"{source}: holds no judge head to reuse")
    old_tau, tau = previous.thresholds[0], model.thresholds[0]
    shifted = _moved(judged[0].support, old_tau, tau)
    base = model.heads[-1]
    reused = CalibratedAggregator(
        [Head(judged[0].requires, shifted, base.contradiction), *model.heads],
        thresholds=model.thresholds, kappa=model.kappa, decisive=model.decisive, ask=model.ask)
    return reused, {"reused_from": source, "fitted_at_tau": old_tau, "tau": tau,
                    "support": shifted.to_dict()}

