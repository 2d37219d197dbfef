"""The report sections of a TruthfulQA run: per-view rates, agreement, the bound, ablations,
McNemar tests, the non-verbatim claims and the spread over split seeds."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from veritype.bounds import binomial_tail, kl_bound
from veritype.evaluation._truthfulqa_selection import (
    VERBATIM,
    VERBATIM_POINT,
    Point,
    Protocol,
    Scored,
    Selection,
    Split,
    select,
)
from veritype.evaluation.configurations import (
    LearnedFit,
    early_stop_calls,
    fit_learned,
    single_view_score,
    view_accepts,
    vote_mass,
    vote_score,
)
from veritype.evaluation.metrics import (
    Bools,
    Bootstrap,
    Floats,
    agreement,
    binary_metrics,
    mcnemar,
    precision_recall_curve,
    roc_auc,
    threshold_for_precision,
)
from veritype.evaluation.runner import EvalSettings, operating_point
from veritype.evaluation.scoring import ABSTAINED, ENTAILED, ScoreTable


def _average_precision(scores: Floats, truth: Bools) -> float:
    curve = precision_recall_curve(scores, truth)
    recall = np.r_[0.0, curve["recall"]]
    return float(np.sum(np.diff(recall) * np.asarray(curve["precision"])))


def _fit(table: ScoreTable, split: Split, views: Sequence[str], contradiction: bool) -> LearnedFit:
    rows = np.nonzero(split.calibration)[0]
    return fit_learned(table.select(rows), split.truth[rows], [split.groups[i] for i in rows],
                       views, contradiction_features=contradiction)


def _learned_at_p95(table: ScoreTable, split: Split, views: Sequence[str]) -> Point:
    """The learned aggregator over ``views`` fitted on the calibration rows, at the threshold
    where its calibration precision reaches 0.95."""
    learned = _fit(table, split, views, False).scores(table)
    return Point(learned, threshold_for_precision(
        learned[split.calibration], split.truth[split.calibration], 0.95, min_accepted=20))


def _per_view(table: ScoreTable, split: Split, views: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    truth = split.truth[split.held]
    for view in views:
        verdict = table.verdict[split.held, table.column(view)]
        voting = verdict != ABSTAINED
        entailed = verdict == ENTAILED
        out[view] = {
            "tpr": float(np.mean(entailed[truth & voting])) if np.any(truth & voting) else None,
            "fpr": float(np.mean(entailed[~truth & voting])) if np.any(~truth & voting) else None,
            "alpha": float(np.mean(entailed[~truth & voting])) if np.any(~truth & voting) else None,
            "abstain_rate": float(np.mean(~voting)),
            "average_precision": _average_precision(
                single_view_score(table, view)[split.held], truth
            ),
        }
    return out


def _pairwise(table: ScoreTable, views: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for a, b in itertools.combinations(views, 2):
        both = (table.verdict[:, table.column(a)] != ABSTAINED) & (
            table.verdict[:, table.column(b)] != ABSTAINED
        )
        out[f"{a}~{b}"] = {
            **agreement(view_accepts(table, a)[both], view_accepts(table, b)[both]),
            "claims": int(both.sum()),
        }
    return out


def _bound_rows(
    table: ScoreTable, split: Split, views: Sequence[str], per_view: dict[str, Any],
    taus: Sequence[float],
) -> list[dict[str, Any]]:
    """Proposition 1 beside the measured false-accept rate, per τ and N (mean over the view
    subsets of size N; ᾱ the mean per-view α of the subset). Both sides are measured on the
    held-out claims: this checks the inequality, it chooses nothing."""
    false = split.held & ~split.truth
    rows = []
    for tau in taus:
        for n in range(1, len(views) + 1):
            measured, bounds, tails, alphas = [], [], [], []
            for subset in itertools.combinations(views, n):
                alpha = float(np.mean([per_view[v]["alpha"] or 0.0 for v in subset]))
                alpha = min(max(alpha, 1e-6), 1 - 1e-6)
                mass = vote_mass(table, list(subset))[false]
                measured.append(float(np.mean(mass >= tau - 1e-9)))
                bounds.append(kl_bound(n, tau, alpha))
                tails.append(binomial_tail(n, tau, alpha))
                alphas.append(alpha)
            rows.append({
                "tau": tau, "n": n, "alpha_mean": float(np.mean(alphas)),
                "measured_fpr": float(np.mean(measured)), "kl_bound": float(np.mean(bounds)),
                "exact_tail": float(np.mean(tails)), "subsets": len(measured),
            })
    return rows


def _ablations(table: ScoreTable, split: Split, views: Sequence[str]) -> dict[str, Any]:
    truth = split.truth[split.held]

    def summary(subset: Sequence[str]) -> dict[str, Any]:
        learned = _learned_at_p95(table, split, subset)
        vote = vote_score(table, subset)
        return {
            "views": list(subset),
            "learned_average_precision": _average_precision(learned.scores[split.held], truth),
            "learned_at_cal_p95": split.point(learned, ci=False),
            "vote_average_precision": _average_precision(vote[split.held], truth),
            "vote_at_tau_1": split.point(Point(vote, 1.0), ci=False),
        }

    return {
        "without_view": {v: summary([w for w in views if w != v]) for v in views}
        if len(views) > 1 else {},
        "first_n_views": {str(n): summary(views[:n]) for n in range(1, len(views) + 1)},
    }


def _mcnemar_table(selection: Selection, split: Split) -> list[dict[str, Any]]:
    truth = split.truth[split.held]

    def correct(name: str, label: str) -> Bools:
        result: Bools = selection.points[name][label].accepts()[split.held] == truth
        return result

    chosen = selection.chosen
    base = correct(*chosen)
    rows = []
    for name, labels in selection.points.items():
        for label in labels:
            if (name, label) == chosen or not (
                label.startswith("cal:p9") or name in ("vote", VERBATIM)
            ):
                continue
            rows.append({"chosen": f"{chosen[0]} @ {chosen[1]}", "other": f"{name} @ {label}",
                         **mcnemar(base, correct(name, label))})
    return rows


def _non_verbatim(scored: Scored, selection: Selection, split: Split) -> list[dict[str, Any]]:
    """Held-out precision and recall of the verbatim baseline, the chosen and the default
    configuration, on all claims and on the claims that are not verbatim copies of their
    evidence (where copying the evidence cannot help). Non-verbatim precision is None when
    nothing non-verbatim is accepted."""
    held, truth, verbatim = split.held, scored.truth, scored.verbatim
    keys = [(VERBATIM, VERBATIM_POINT), selection.chosen]
    if "default" in selection.points:
        keys.append(("default", next(iter(selection.points["default"]))))
    other = held & ~verbatim
    report = []
    for name, label in keys:
        accepted = selection.points[name][label].accepts()
        everything = binary_metrics(accepted[held], truth[held])
        copied = binary_metrics(accepted[other], truth[other])
        report.append({
            "configuration": name, "point": label,
            "precision": everything["precision"], "recall": everything["recall"],
            "non_verbatim_precision": copied["precision"] if np.any(accepted & other) else None,
            "non_verbatim_recall": copied["recall"],
            "non_verbatim_claims": int(other.sum()),
            "non_verbatim_true_claims": int(np.sum(other & truth)),
            "verbatim_share_of_recall": float(np.sum(accepted & held & truth & verbatim)
                                              / max(int(np.sum(accepted & held & truth)), 1)),
        })
    return report


def _non_verbatim_auc(scored: Scored, split: Split) -> dict[str, float]:
    """Each view's ROC-AUC on the held-out claims that are not verbatim copies of their
    evidence: how well it ranks the claims a substring test cannot decide."""
    rows = split.held & ~scored.verbatim
    return {view: roc_auc(scored.scores[f"view:{view}"][rows], scored.truth[rows])
            for view in scored.table.views}


JUDGE = "judge"


def _judge_gain(scored: Scored, split: Split) -> dict[str, Any]:
    """What the judge adds: the learned aggregator fitted on the calibration questions with
    and without the ``judge`` view, each at its calibrated P ≥ 0.95 point (``at_cal_p95``)
    and at the point where the calibration claims that are not verbatim copies reach
    P ≥ 0.95 (``at_cal_p95_non_verbatim``); and, when the shipped default is staged, the
    default at its τ with and without its judge stage (``shipped_default``). Each is read on
    the held-out claims, on those that are not verbatim copies, and on the borderline ones
    (those the shipped default's encoders leave Uncertain, τ' < score < τ: the claims the
    engine sends the judge). Intervals resample held-out questions."""
    table, truth = scored.table, scored.truth
    encoders = [view for view in table.views if view != JUDGE]
    points = {"encoders": _learned_at_p95(table, split, encoders),
              "encoders+judge": _learned_at_p95(table, split, table.views)}
    copied = split.calibration & ~scored.verbatim
    non_verbatim_points = {
        name: Point(point.scores, threshold_for_precision(
            point.scores[copied], truth[copied], 0.95, min_accepted=20))
        for name, point in points.items()
    }
    shipped: dict[str, Point] = {}
    subsets = {"held_out": split.held, "non_verbatim": split.held & ~scored.verbatim}
    if scored.default_thresholds is not None:
        tau, tau_low = scored.default_thresholds
        first = scored.default_first_stage
        encoders_default = scored.scores["default"] if first is None else first
        subsets["borderline"] = split.held & (encoders_default > tau_low) & (
            encoders_default < tau)
        if first is not None:
            shipped = {"encoders": Point(first, tau),
                       "encoders+judge": Point(scored.scores["default"], tau)}
    report: dict[str, Any] = {
        "encoder_views": encoders,
        "thresholds": {name: point.threshold for name, point in points.items()},
        "thresholds_non_verbatim": {name: point.threshold
                                    for name, point in non_verbatim_points.items()},
    }
    for label, rows in subsets.items():
        within = Bootstrap(split.bootstrap.weights[:, rows[split.held]])

        def read(chosen: dict[str, Point], rows: Bools = rows, within: Bootstrap = within
                 ) -> dict[str, Any]:
            return {name: operating_point(point.scores[rows], point.threshold, truth[rows],
                                          within) for name, point in chosen.items()}

        report[label] = {
            "claims": int(rows.sum()),
            "true_claims": int(np.sum(rows & truth)),
            "roc_auc": {name: roc_auc(values[rows], truth[rows]) for name, values in (
                *((name, point.scores) for name, point in points.items()),
                *((f"view:{view}", scored.scores[f"view:{view}"]) for view in table.views))},
            "at_cal_p95": read(points),
            "at_cal_p95_non_verbatim": read(non_verbatim_points),
        }
        if shipped:
            report[label]["shipped_default"] = read(shipped)
    return report


def _spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, sample standard deviation (0 for one value), minimum and maximum."""
    array = np.asarray(values, dtype=np.float64)
    return {"mean": float(array.mean()),
            "sd": float(array.std(ddof=1)) if len(array) > 1 else 0.0,
            "min": float(array.min()), "max": float(array.max())}


SPREAD_METRICS = ("precision", "recall", "f1", "verbatim_precision", "verbatim_recall")


def seed_spread(scored: Scored, protocol: Protocol, seeds: Iterable[int],
                settings: EvalSettings) -> dict[str, Any]:
    """For each split seed: the whole selection redone on that split's calibration questions,
    and the held-out figures of the point it chose and of the verbatim baseline."""
    runs: list[dict[str, Any]] = []
    for seed in seeds:
        calibration = protocol.split(scored.groups, seed)
        held = ~calibration
        selection = select(scored, calibration, settings)
        name, label = selection.chosen
        point = selection.points[name][label]
        chosen = binary_metrics(point.accepts()[held], scored.truth[held])
        baseline = binary_metrics(scored.verbatim[held], scored.truth[held])
        runs.append({
            "seed": seed, "configuration": f"{name} @ {label}", "threshold": point.threshold,
            "calibration_questions": len({g for g, c in zip(scored.groups, calibration,
                                                            strict=True) if c}),
            "held_out_claims": int(held.sum()),
            "precision": chosen["precision"], "recall": chosen["recall"], "f1": chosen["f1"],
            "verbatim_precision": baseline["precision"], "verbatim_recall": baseline["recall"],
        })
    summary = {m: _spread([r[m] for r in runs]) for m in SPREAD_METRICS} if runs else {}
    return {"seeds": [r["seed"] for r in runs], "runs": runs, "summary": summary}


def _histogram(values: Floats, bins: Sequence[float]) -> list[int]:
    counts: list[int] = np.histogram(values, bins=np.asarray(bins))[0].tolist()
    return counts


def section(scored: Scored, selection: Selection, split: Split, settings: EvalSettings,
             full: bool) -> dict[str, Any]:
    """The report section of one file under one split."""
    table, views = scored.table, list(scored.table.views)
    chosen_name, chosen_label = selection.chosen
    best_name, best_label = selection.best_f1
    configurations = {name: {label: split.point(point) for label, point in labels.items()}
                      for name, labels in selection.points.items()}
    section: dict[str, Any] = {
        "claims": len(scored.truth),
        "questions": len(set(scored.groups)),
        "calibration_questions": split.questions(calibration=True),
        "calibration_claims": int(split.calibration.sum()),
        "held_out_questions": split.questions(calibration=False),
        "held_out_claims": int(split.held.sum()),
        "supported_share": float(scored.truth.mean()),
        "configurations": configurations,
        "chosen": {"configuration": chosen_name, "point": chosen_label,
                   **configurations[chosen_name][chosen_label]},
        "calibration_best_f1": {"configuration": best_name, "point": best_label,
                                **configurations[best_name][best_label]},
        "learned_models": {
            name: {"l2": fit.l2, "model": fit.model.to_json()}
            for name, fit in selection.fits.items()
        },
    }
    if not full:
        return section
    scores = {**scored.scores, **selection.learned}
    per_view = _per_view(table, split, views)
    mass = vote_mass(table, views)
    bins = [0.0, 0.125, 0.29, 0.42, 0.58, 0.71, 0.875, 1.0001]
    section.update({
        "non_verbatim": _non_verbatim(scored, selection, split),
        "non_verbatim_roc_auc": _non_verbatim_auc(scored, split),
        "per_view": per_view,
        "pairwise_agreement": _pairwise(table, views),
        "support_mass": {
            "bins": bins,
            "correct": _histogram(mass[split.held & split.truth], bins),
            "incorrect": _histogram(mass[split.held & ~split.truth], bins),
        },
        "bound_vs_measured": _bound_rows(table, split, views, per_view, settings.taus),
        "ablations": _ablations(table, split, views),
        "mcnemar": _mcnemar_table(selection, split),
        "early_stop": [early_stop_calls(table, tau, min(0.3, tau / 2)) for tau in settings.taus],
        "average_precision": {
            name: _average_precision(s[split.held], split.truth[split.held])
            for name, s in scores.items()
        },
        "pr_curves": {
            name: precision_recall_curve(s[split.held], split.truth[split.held])
            for name, s in scores.items() if name != "no verification"
        },
    })
    if JUDGE in views:
        section["judge_gain"] = _judge_gain(scored, split)
    return section
