"""A supported-vs-unsupported detection protocol shared by benchmarks with a calibration set.

Thresholds and the learned aggregator are fitted on the calibration examples only; every
figure is measured on the evaluation examples, with bootstrap intervals over their groups.
Thresholds and the chosen configuration maximise *balanced* accuracy on the calibration
examples, so that a skewed set (HaluEval general: 18% hallucinated) is not won by
accepting everything; on paired sets (one right, one hallucinated output per row) it
equals plain accuracy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from veritype.evaluation.configurations import (
    default_score,
    fit_learned,
    single_view_score,
    view_accepts,
    vote_score,
)
from veritype.evaluation.data import Example
from veritype.evaluation.metrics import Bools, Floats, binary_metrics, mcnemar
from veritype.evaluation.runner import EvalSettings, held_out_bootstrap, operating_point
from veritype.evaluation.scoring import ScoreTable


def best_accuracy_threshold(scores: Floats, truth: Bools, *, balanced: bool = False) -> float:
    """The threshold (a score of the data) with the highest accuracy (or balanced accuracy,
    the mean of the true-positive and true-negative rates); the lowest on ties."""
    candidates = np.unique(np.round(scores, 4))
    if not len(candidates):
        return 0.5
    key = "balanced_accuracy" if balanced else "accuracy"
    accuracies = [binary_metrics(scores >= t, truth)[key] for t in candidates]
    return float(candidates[int(np.argmax(accuracies))])


def detection(
    table: ScoreTable,
    examples: Sequence[Example],
    calibration: Bools,
    settings: EvalSettings,
) -> tuple[dict[str, Any], dict[str, Floats], Bools]:
    """Every configuration on the evaluation rows (``~calibration``), chosen on the rest;
    also every configuration's scores on the evaluation rows and their gold truth."""
    views = list(table.views)
    truth: Bools = np.array([e.supported for e in examples])
    groups = [e.group for e in examples]
    held = ~calibration
    bootstrap = held_out_bootstrap(groups, calibration, settings.resamples, settings.seed)
    scores: dict[str, Floats] = {}
    thresholds: dict[str, dict[str, float]] = {}
    for view in views:
        scores[f"view:{view}"] = single_view_score(table, view)
        thresholds[f"view:{view}"] = {}
        scores[f"view:{view} (own verdict)"] = view_accepts(table, view).astype(np.float64)
        thresholds[f"view:{view} (own verdict)"] = {"own verdict": 1.0}
    scores["vote"] = vote_score(table, views)
    thresholds["vote"] = {f"τ={tau:g}": tau for tau in settings.taus}
    if (default := default_score(table)) is not None:
        scores["default"], tau = default
        thresholds["default"] = {"shipped τ": tau}
    rows = np.nonzero(calibration)[0]
    # A calibration set with one class (tiny --limit runs) cannot fit a classifier.
    learned = None
    if len(set(truth[rows].tolist())) == 2:
        learned = fit_learned(table.select(rows), truth[rows], [groups[i] for i in rows], views)
        scores["learned"] = learned.scores(table)
        thresholds["learned"] = {"t=0.5": 0.5}
    for name in scores:
        if (name.startswith("view:") and "own" not in name) or name in ("vote", "learned",
                                                                        "default"):
            thresholds[name]["cal:balanced"] = best_accuracy_threshold(
                scores[name][calibration], truth[calibration], balanced=True
            )
    points: dict[str, dict[str, Any]] = {}
    calibration_accuracy: dict[tuple[str, str], float] = {}
    for name, marks in thresholds.items():
        points[name] = {}
        for label, threshold in marks.items():
            points[name][label] = operating_point(scores[name][held], threshold, truth[held],
                                                  bootstrap)
            accepted = scores[name][calibration] >= threshold
            calibration_accuracy[(name, label)] = (
                binary_metrics(accepted, truth[calibration])["balanced_accuracy"]
                if calibration.any() else 0.0
            )
    chosen = max(calibration_accuracy, key=lambda key: calibration_accuracy[key])
    chosen_threshold = thresholds[chosen[0]][chosen[1]]
    chosen_correct = (scores[chosen[0]][held] >= chosen_threshold) == truth[held]
    comparisons = []
    for name, marks in thresholds.items():
        for label, threshold in marks.items():
            if (name, label) != chosen:
                other = (scores[name][held] >= threshold) == truth[held]
                comparisons.append({"chosen": f"{chosen[0]} @ {chosen[1]}",
                                    "other": f"{name} @ {label}",
                                    **mcnemar(chosen_correct, other)})
    section = {
        "evaluation_examples": int(held.sum()),
        "calibration_examples": int(calibration.sum()),
        "configurations": points,
        "chosen": {"configuration": chosen[0], "point": chosen[1],
                   "calibration_balanced_accuracy": calibration_accuracy[chosen],
                   **points[chosen[0]][chosen[1]]},
        "learned_model": None if learned is None
        else {"l2": learned.l2, "model": learned.model.to_json()},
        "mcnemar": comparisons,
    }
    return section, {name: values[held] for name, values in scores.items()}, truth[held]
