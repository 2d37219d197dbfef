"""TruthfulQA claim verification (DESIGN.md §5).

Evidence = Best Answer; claims = Correct Answers (supported) and Incorrect Answers
(unsupported). Questions are split 30/70 with a fixed seed; every threshold and the learned
aggregator are fitted on the 30% only, and every figure is measured on the 70%.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from veritype.aggregate import create_aggregator, default_covers, recommended_thresholds
from veritype.bounds import binomial_tail, kl_bound
from veritype.evaluation import plots
from veritype.evaluation.configurations import (
    LearnedFit,
    early_stop_calls,
    fit_learned,
    single_view_score,
    view_accepts,
    view_results,
    vote_mass,
    vote_score,
)
from veritype.evaluation.data import Example, is_verbatim, truthfulqa_examples
from veritype.evaluation.engine import ABSTAINED, ENTAILED, ScoreTable
from veritype.evaluation.metrics import (
    Bools,
    Bootstrap,
    Floats,
    agreement,
    binary_metrics,
    mcnemar,
    precision_recall_curve,
    threshold_for_f1,
    threshold_for_precision,
)
from veritype.evaluation.report import RunResult, Table
from veritype.evaluation.runner import (
    EvalSettings,
    operating_point,
    register_benchmark,
    score,
    split_by_group,
)

TARGET_PRECISION = 0.975
LEARNED_THRESHOLDS = (0.5, 0.8, 0.9, 0.95)
PUBLISHED = {
    "ETG 5 views on one DeBERTa-v3-small NLI": (0.969, 0.446),
    "ETG 3 paradigms + learned aggregator (v4)": (0.973, 0.555),
    "ETG single NLI view": (0.951, 0.504),
}
CLAIM_COUNT_NOTE = (
    "Splitting every Correct and Incorrect Answer of the 817-question file on ';' gives "
    "{claims} claims ({supported} correct, {unsupported} incorrect; {distinct} distinct "
    "(Best Answer, claim) pairs). The published 5,865 could not be reproduced: dropping "
    "the Best Answer repeated among the Correct Answers ({best_repeats}) or 'I have no "
    "comment' answers ({no_comment}) does not give it, nor does the MC2 target count."
)


def _average_precision(scores: Floats, truth: Bools) -> float:
    curve = precision_recall_curve(scores, truth)
    recall = np.r_[0.0, curve["recall"]]
    return float(np.sum(np.diff(recall) * np.asarray(curve["precision"])))


class _Split:
    """Calibration (30%) and held-out (70%) rows with the held-out bootstrap."""

    def __init__(self, examples: Sequence[Example], seed: int, resamples: int) -> None:
        self.groups = [e.group for e in examples]
        self.truth: Bools = np.array([e.supported for e in examples])
        self.calibration = split_by_group(self.groups, seed)
        self.held = ~self.calibration
        held_groups = [g for g, h in zip(self.groups, self.held, strict=True) if h]
        self.bootstrap = Bootstrap.draw(held_groups, resamples, seed)

    def point(self, scores: Floats, threshold: float | None, ci: bool = True) -> dict[str, Any]:
        return operating_point(
            scores[self.held], threshold, self.truth[self.held], self.bootstrap if ci else None
        )

    def calibrated(self, scores: Floats) -> dict[str, float | None]:
        cal, truth = scores[self.calibration], self.truth[self.calibration]
        return {
            "p95": threshold_for_precision(cal, truth, 0.95, min_accepted=20),
            "p975": threshold_for_precision(cal, truth, TARGET_PRECISION, min_accepted=20),
            "f1": threshold_for_f1(cal, truth),
        }

    def calibration_precision(self, scores: Floats, threshold: float) -> float:
        accepted = scores[self.calibration] >= threshold
        return binary_metrics(accepted, self.truth[self.calibration])["precision"]


def _fit(table: ScoreTable, split: _Split, views: Sequence[str], contradiction: bool) -> LearnedFit:
    rows = np.nonzero(split.calibration)[0]
    return fit_learned(
        table.select(rows),
        split.truth[rows],
        [split.groups[i] for i in rows],
        views,
        contradiction_features=contradiction,
    )


def _configurations(
    table: ScoreTable, split: _Split, views: Sequence[str], settings: EvalSettings
) -> tuple[dict[str, Floats], dict[str, dict[str, Any]], dict[str, LearnedFit]]:
    """Every configuration's effective scores and its operating points on the held-out rows."""
    scores: dict[str, Floats] = {"no verification": np.ones(len(split.truth))}
    points: dict[str, dict[str, Any]] = {
        "no verification": {"accept all": split.point(scores["no verification"], 1.0)}
    }
    for view in views:
        name = f"view:{view}"
        scores[name] = single_view_score(table, view)
        own = view_accepts(table, view).astype(np.float64)
        points[name] = {"own verdict": split.point(own, 1.0)}
        for label, threshold in split.calibrated(scores[name]).items():
            points[name][f"cal:{label}"] = split.point(scores[name], threshold)
    scores["vote"] = vote_score(table, views)
    points["vote"] = {f"τ={tau:g}": split.point(scores["vote"], tau) for tau in settings.taus}
    if default_covers(views):
        shipped = create_aggregator("default")
        aggregates = shipped.aggregate_batch(view_results(table, views))
        scores["default"] = np.array([0.0 if a.contradicted else a.score for a in aggregates])
        tau = recommended_thresholds(shipped)[0]
        points["default"] = {f"shipped τ={tau:.3f}": split.point(scores["default"], tau)}
    fits: dict[str, LearnedFit] = {}
    for name, contradiction in (("learned", False), ("learned+contradiction", True)):
        fits[name] = _fit(table, split, views, contradiction)
        scores[name] = fits[name].scores(table)
        points[name] = {f"t={t:g}": split.point(scores[name], t) for t in LEARNED_THRESHOLDS}
        for label, threshold in split.calibrated(scores[name]).items():
            points[name][f"cal:{label}"] = split.point(scores[name], threshold)
    return scores, points, fits


def _choose(
    points: dict[str, dict[str, Any]], scores: dict[str, Floats], split: _Split, family: str
) -> tuple[str, str]:
    """The headline (configuration, operating point), chosen on the calibration split only:
    the family's configuration whose calibrated P ≥ 0.975 point has the most calibration
    recall (vote: the smallest τ reaching 0.975 calibration precision)."""
    if family == "vote":
        reaching = [
            label for label, point in points["vote"].items()
            if split.calibration_precision(scores["vote"], float(point["threshold"]))
            >= TARGET_PRECISION
        ]
        return "vote", (reaching[0] if reaching else list(points["vote"])[-1])
    best, best_recall = "learned", -1.0
    for name in ("learned", "learned+contradiction"):
        threshold = points[name]["cal:p975"]["threshold"]
        if threshold is None:
            continue
        accepted = scores[name][split.calibration] >= threshold
        recall = binary_metrics(accepted, split.truth[split.calibration])["recall"]
        if recall > best_recall:
            best, best_recall = name, recall
    return best, "cal:p975"


def _per_view(table: ScoreTable, split: _Split, views: Sequence[str]) -> dict[str, Any]:
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


def _pairwise(table: ScoreTable, split: _Split, views: Sequence[str]) -> dict[str, Any]:
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
    table: ScoreTable, split: _Split, views: Sequence[str], per_view: dict[str, Any],
    taus: Sequence[float],
) -> list[dict[str, Any]]:
    """Proposition 1 beside the measured false-accept rate, per τ and N (mean over the view
    subsets of size N; ᾱ the mean per-view α of the subset)."""
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


def _ablations(
    table: ScoreTable, split: _Split, views: Sequence[str], settings: EvalSettings
) -> dict[str, Any]:
    truth = split.truth[split.held]

    def summary(subset: Sequence[str]) -> dict[str, Any]:
        fit = _fit(table, split, subset, False)
        learned = fit.scores(table)
        threshold = split.calibrated(learned)["p95"]
        vote = vote_score(table, subset)
        return {
            "views": list(subset),
            "learned_average_precision": _average_precision(learned[split.held], truth),
            "learned_at_cal_p95": split.point(learned, threshold, ci=False),
            "vote_average_precision": _average_precision(vote[split.held], truth),
            "vote_at_tau_1": split.point(vote, 1.0, ci=False),
        }

    by_cost = list(views)
    return {
        "without_view": {v: summary([w for w in views if w != v]) for v in views}
        if len(views) > 1 else {},
        "first_n_views": {str(n): summary(by_cost[:n]) for n in range(1, len(views) + 1)},
    }


def _mcnemar_table(
    scores: dict[str, Floats], points: dict[str, dict[str, Any]], split: _Split,
    chosen: tuple[str, str],
) -> list[dict[str, Any]]:
    truth = split.truth[split.held]

    def correct(name: str, label: str) -> Bools:
        threshold = points[name][label]["threshold"]
        accepted = (
            scores[name][split.held] >= threshold if threshold is not None
            else np.zeros(len(truth), dtype=bool)
        )
        result: Bools = accepted == truth
        return result

    base = correct(*chosen)
    rows = []
    for name, labels in points.items():
        for label in labels:
            if (name, label) == chosen or not (label.startswith("cal:p9") or name == "vote"):
                continue
            rows.append({"chosen": f"{chosen[0]} @ {chosen[1]}", "other": f"{name} @ {label}",
                         **mcnemar(base, correct(name, label))})
    return rows


def _non_verbatim(
    examples: Sequence[Example],
    scores: dict[str, Floats],
    points: dict[str, dict[str, Any]],
    split: _Split,
    chosen: tuple[str, str],
) -> list[dict[str, Any]]:
    """Held-out precision, recall, and recall on the true claims that are not verbatim
    copies of the evidence, for the verbatim baseline, the chosen and the default
    configuration."""
    verbatim = np.array([is_verbatim(e) for e in examples])
    held, truth = split.held, split.truth
    rows = [("verbatim substring", "claim ⊂ evidence", verbatim)]
    for name, label in (chosen, *((("default", next(iter(points["default"]))),)
                                  if "default" in points else ())):
        threshold = points[name][label]["threshold"]
        accepted = (scores[name] >= threshold) if threshold is not None else np.zeros_like(truth)
        rows.append((name, label, accepted))
    report = []
    for name, label, accepted in rows:
        accepted = accepted & held
        true_held = held & truth
        other_true = true_held & ~verbatim
        report.append({
            "configuration": name, "point": label,
            "precision": float(np.sum(accepted & truth) / max(int(np.sum(accepted)), 1)),
            "recall": float(np.sum(accepted & truth) / max(int(np.sum(true_held)), 1)),
            "non_verbatim_recall": float(np.sum(accepted & other_true)
                                         / max(int(np.sum(other_true)), 1)),
            "non_verbatim_true_claims": int(np.sum(other_true)),
            "verbatim_share_of_recall": float(np.sum(accepted & truth & verbatim)
                                              / max(int(np.sum(accepted & truth)), 1)),
        })
    return report


def _histogram(values: Floats, bins: Sequence[float]) -> list[int]:
    counts: list[int] = np.histogram(values, bins=np.asarray(bins))[0].tolist()
    return counts


def _protocol(
    table: ScoreTable, examples: Sequence[Example], settings: EvalSettings, full: bool
) -> tuple[dict[str, Any], dict[str, Floats], _Split]:
    """The report section of one release, with every configuration's scores and the split."""
    views = list(table.views)
    split = _Split(examples, settings.seed, settings.resamples)
    scores, points, fits = _configurations(table, split, views, settings)
    chosen = _choose(points, scores, split, settings.aggregator)
    section: dict[str, Any] = {
        "claims": len(examples),
        "questions": len(set(split.groups)),
        "calibration_questions": len({g for g, c in zip(split.groups, split.calibration,
                                                         strict=True) if c}),
        "held_out_claims": int(split.held.sum()),
        "supported_share": float(split.truth.mean()),
        "configurations": points,
        "chosen": {"configuration": chosen[0], "point": chosen[1],
                   **points[chosen[0]][chosen[1]]},
        "learned_models": {
            name: {"l2": fit.l2, "model": fit.model.to_json()} for name, fit in fits.items()
        },
    }
    if not full:
        return section, scores, split
    section["non_verbatim"] = _non_verbatim(examples, scores, points, split, chosen)
    per_view = _per_view(table, split, views)
    mass = vote_mass(table, views)
    bins = [0.0, 0.125, 0.29, 0.42, 0.58, 0.71, 0.875, 1.0001]
    section.update({
        "per_view": per_view,
        "pairwise_agreement": _pairwise(table, split, views),
        "support_mass": {
            "bins": bins,
            "correct": _histogram(mass[split.held & split.truth], bins),
            "incorrect": _histogram(mass[split.held & ~split.truth], bins),
        },
        "bound_vs_measured": _bound_rows(table, split, views, per_view, settings.taus),
        "ablations": _ablations(table, split, views, settings),
        "mcnemar": _mcnemar_table(scores, points, split, chosen),
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
    return section, scores, split


def _count_note(data_dir: Any, examples: Sequence[Example]) -> str:
    import csv

    from veritype.evaluation.data import TRUTHFULQA_FILES

    path = data_dir / "truthfulqa" / TRUTHFULQA_FILES["2021"]
    best_repeats = no_comment = 0
    with path.open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle):
            answers = [a.strip() for a in row["Correct Answers"].split(";") if a.strip()]
            best_repeats += sum(a == row["Best Answer"].strip() for a in answers)
            no_comment += sum("no comment" in a.lower() for a in answers)
    return CLAIM_COUNT_NOTE.format(
        claims=f"{len(examples):,}",
        supported=f"{sum(e.supported for e in examples):,}",
        unsupported=f"{sum(not e.supported for e in examples):,}",
        distinct=f"{len({(e.evidence, e.claim) for e in examples}):,}",
        best_repeats=best_repeats,
        no_comment=no_comment,
    )


def _limit(examples: list[Example], limit: int | None) -> list[Example]:
    """The examples of the first ``limit`` questions."""
    if limit is None:
        return examples
    keep = set(list(dict.fromkeys(e.group for e in examples))[:limit])
    return [e for e in examples if e.group in keep]


def _point_row(name: str, label: str, point: dict[str, Any]) -> tuple[Any, ...]:
    ci = point.get("ci95", {})

    def with_ci(key: str) -> str:
        low_high = ci.get(key)
        value = point[key]
        return f"{value:.3f} [{low_high[0]:.3f}, {low_high[1]:.3f}]" if low_high else f"{value:.3f}"

    return (f"{name} @ {label}", with_ci("precision"), with_ci("recall"), with_ci("f1"),
            point["fpr"], point["hallucination_rate"])


@register_benchmark("truthfulqa")
def run(settings: EvalSettings) -> RunResult:
    started = time.perf_counter()
    releases = {
        release: _limit(truthfulqa_examples(settings.data_dir, release), settings.limit)
        for release in ("2021", "2025")
    }
    loaded = time.perf_counter()
    # One scoring pass over both releases: their shared pairs are scored once.
    everything = releases["2021"] + releases["2025"]
    table = score(settings, everything, "truthfulqa: verifying")
    scored = time.perf_counter()
    n2021 = len(releases["2021"])
    main, scores, split = _protocol(table.select(np.arange(n2021)), releases["2021"], settings,
                                    full=True)
    recent, _, _ = _protocol(table.select(np.arange(n2021, len(everything))), releases["2025"],
                             settings, full=False)
    reported = time.perf_counter()
    chosen_name, chosen_label = main["chosen"]["configuration"], main["chosen"]["point"]
    chosen = main["configurations"][chosen_name][chosen_label]
    headline: dict[str, float | int | str] = {
        "claims": len(releases["2021"]),
        "distinct_pairs": table.pairs,
        "held_out_claims": main["held_out_claims"],
        "configuration": f"{chosen_name} @ {chosen_label}",
        "precision": chosen["precision"],
        "precision_ci_low": chosen["ci95"]["precision"][0],
        "precision_ci_high": chosen["ci95"]["precision"][1],
        "recall": chosen["recall"],
        "recall_ci_low": chosen["ci95"]["recall"][0],
        "recall_ci_high": chosen["ci95"]["recall"][1],
        "f1": chosen["f1"],
        "fpr": chosen["fpr"],
        "hallucination_rate": chosen["hallucination_rate"],
        "no_verification_hallucination_rate":
            main["configurations"]["no verification"]["accept all"]["hallucination_rate"],
    }
    best_f1 = max(
        (p for name, pts in main["configurations"].items() if name != "no verification"
         for label, p in pts.items() if label == "cal:f1"),
        key=lambda p: p["f1"],
    )
    headline["best_calibrated_f1"] = best_f1["f1"]
    for row in main["non_verbatim"]:
        key = {"verbatim substring": "verbatim_baseline"}.get(row["configuration"],
                                                               row["configuration"])
        key = "chosen" if row["configuration"] == chosen_name else key
        headline[f"{key}_non_verbatim_recall"] = row["non_verbatim_recall"]
        headline[f"{key}_precision"] = row["precision"]
    for view in table.views:
        p95 = main["configurations"][f"view:{view}"]["cal:p95"]
        headline[f"{view}_precision_at_cal_p95"] = p95["precision"]
        headline[f"{view}_recall_at_cal_p95"] = p95["recall"]
    recent_chosen = recent["chosen"]
    headline["release_2025_claims"] = recent["claims"]
    headline["release_2025_precision"] = recent_chosen["precision"]
    headline["release_2025_recall"] = recent_chosen["recall"]
    headline["seconds"] = round(time.perf_counter() - started, 2)

    tables = [
        Table(
            "TruthfulQA (817 questions), held-out 70%: configurations chosen on the 30%",
            ("configuration", "precision [95% CI]", "recall [95% CI]", "F1 [95% CI]", "FPR",
             "halluc. rate"),
            [
                _point_row(name, label, point)
                for name, pts in main["configurations"].items()
                for label, point in pts.items()
                if label in ("accept all", "own verdict", "cal:p95", "cal:p975", "cal:f1")
                or name == "vote"
            ],
            note=_count_note(settings.data_dir, releases["2021"]) if settings.limit is None
            else f"First {settings.limit} questions only (--limit).",
        ),
        Table(
            "Held-out recall on true claims that are not verbatim copies of the evidence",
            ("configuration", "precision", "recall", "non-verbatim recall",
             "verbatim share of recall"),
            [(f"{r['configuration']} @ {r['point']}", r["precision"], r["recall"],
              r["non_verbatim_recall"], r["verbatim_share_of_recall"])
             for r in main["non_verbatim"]],
            note=f"{main['non_verbatim'][0]['non_verbatim_true_claims']} held-out true claims "
            "are not substrings of their evidence. The default configuration is the shipped "
            "aggregator at its shipped τ, fitted on training-side data only.",
        ),
        Table(
            "Per-view rates on the held-out split (α = false-accept rate among voting claims)",
            ("view", "TPR", "FPR (α)", "abstain", "avg. precision"),
            [(v, d["tpr"], d["fpr"], d["abstain_rate"], d["average_precision"])
             for v, d in main["per_view"].items()],
        ),
        Table(
            "Pairwise agreement of view verdicts (entailed or not)",
            ("pair", "agreement", "Cohen κ", "claims"),
            [(k, d["agreement"], d["cohen_kappa"], d["claims"])
             for k, d in main["pairwise_agreement"].items()],
        ),
        Table(
            "Proposition 1: KL bound and exact tail (ᾱ per subset) beside the measured FPR",
            ("τ", "N", "ᾱ", "measured FPR", "exact tail", "KL bound"),
            [(r["tau"], r["n"], r["alpha_mean"], r["measured_fpr"], r["exact_tail"],
              r["kl_bound"]) for r in main["bound_vs_measured"]],
            note="Views abstain, and they are not independent: the bound holds for the "
            "idealised vote of N independent views, the measured rate is the real vote.",
        ),
        Table(
            "Ablations: learned aggregator refitted on the 30% for each view set",
            ("views", "learned AP", "P @ cal P≥0.95", "R @ cal P≥0.95", "vote AP"),
            [(f"without {k}" if kind == "without_view" else f"first {k}: {','.join(d['views'])}",
              d["learned_average_precision"], d["learned_at_cal_p95"]["precision"],
              d["learned_at_cal_p95"]["recall"], d["vote_average_precision"])
             for kind in ("without_view", "first_n_views")
             for k, d in main["ablations"][kind].items()],
        ),
        Table(
            "McNemar tests against the chosen configuration (held-out correctness)",
            ("comparison", "b (chosen only)", "c (other only)", "p exact", "p χ²"),
            [(r["other"], r["b"], r["c"], r["p_exact"], r["p_chi2"])
             for r in main["mcnemar"]],
        ),
        Table(
            "Early stopping: view calls of the vote at τ when claims close once no remaining "
            "view can change their type (types unchanged)",
            ("τ", "τ'", "calls", "calls (all views)", "saved", "cost saved"),
            [(r["tau"], r["tau_low"], r["calls"], r["calls_without_early_stop"],
              r["saved_share"], 1 - r["cost"] / r["cost_without_early_stop"])
             for r in main["early_stop"]],
            note="Every report here needs every view's score, so the evaluation itself runs "
            "all views; this is what a deployed vote-at-τ verifier would spend.",
        ),
        Table(
            "TruthfulQA 2025 release (790 questions), same protocol",
            ("configuration", "precision [95% CI]", "recall [95% CI]", "F1 [95% CI]", "FPR",
             "halluc. rate"),
            [_point_row(recent_chosen["configuration"], recent_chosen["point"], recent_chosen)],
        ),
    ]
    published = dict(PUBLISHED)
    result = RunResult(
        benchmark="truthfulqa",
        config={
            "views": list(table.views), "aggregator": settings.aggregator,
            "taus": list(settings.taus), "learned_thresholds": list(LEARNED_THRESHOLDS),
            "engine": settings.engine, "split_seed": settings.seed, "calibration_share": 0.3,
            "bootstrap_resamples": settings.resamples, "limit": settings.limit,
            "data_dir": str(settings.data_dir), "target_precision": TARGET_PRECISION,
        },
        headline=headline,
        sections={"release_2021": main, "release_2025": recent,
                  "published": {k: {"precision": p, "recall": r}
                                for k, (p, r) in published.items()}},
        tables=tables,
        timings={"load": loaded - started, **table.timings, "reports": reported - scored},
    )
    held_scores = {k: v[split.held] for k, v in scores.items() if k != "no verification"}
    truth = split.truth[split.held]
    result.plots = {
        "pr_curves": lambda path: plots.pr_curves(path, held_scores, truth, published),
        "bound_scaling": lambda path: plots.bound_scaling(path, main["bound_vs_measured"]),
        "support_mass": lambda path: plots.support_mass(
            path, vote_mass(table, list(table.views))[:n2021][split.held],
            scores[chosen_name][split.held], truth, chosen_name),
    }
    threshold = chosen["threshold"]
    result.examples = [
        {"id": e.example_id, "group": e.group, "question": e.meta.get("question", ""),
         "claim": e.claim, "evidence": list(e.evidence), "label": e.label,
         "split": "calibration" if split.calibration[i] else "held_out",
         "score": float(scores[chosen_name][i]),
         "verified": bool(threshold is not None and scores[chosen_name][i] >= threshold)}
        for i, e in enumerate(releases["2021"])
    ]
    return result
