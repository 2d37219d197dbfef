"""TruthfulQA claim verification under two protocols.

``current`` (the default): the later 2021 file (``TruthfulQA_v2021_817.csv``, with the
2025 release beside it); claims = every non-empty ';' piece of the Correct Answers
(supported) and Incorrect Answers (unsupported); evidence = the Best Answer; questions
shuffled with ``random.Random(seed)`` (2024), the first 30% calibrate.

``reference``: the ETG reference's protocol, exactly: the 2021-09-10 file
(``TruthfulQA_v2021_013686a.csv``); pieces of at least 3 characters (5,865 claims);
evidence = question + Best Answer; the first 245 questions of ``numpy.random.seed(42);
numpy.random.permutation(817)`` calibrate, the other 572 (4,168 claims) are held out.

Under both, ``select`` makes every choice (thresholds, the learned aggregators, the headline
configuration) from the calibration questions' labels alone, and every figure is measured on
the held-out rest. For the spread over splits the same selection is redone on the
calibration part of each of ``seeds`` further splits; view scores do not depend on the split,
so they are computed once and shared.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from veritype.aggregate import create_aggregator, default_covers, recommended_thresholds
from veritype.bounds import binomial_tail, kl_bound
from veritype.evaluation import plots
from veritype.evaluation.configurations import (
    LearnedFit,
    LearnedInputs,
    early_stop_calls,
    fit_learned,
    single_view_score,
    view_accepts,
    view_results,
    vote_mass,
    vote_score,
)
from veritype.evaluation.data import (
    TRUTHFULQA_FILES,
    TRUTHFULQA_REFERENCE_CLAIMS,
    TRUTHFULQA_REFERENCE_FILE,
    TRUTHFULQA_REFERENCE_QUESTIONS,
    Example,
    is_verbatim,
    truthfulqa_examples,
    truthfulqa_reference_examples,
)
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
    SPLIT_SEED,
    EvalSettings,
    operating_point,
    register_benchmark,
    score,
    split_by_group,
)
from veritype.evaluation.scoring import ABSTAINED, ENTAILED, ScoreTable

TARGET_PRECISION = 0.975
LEARNED_THRESHOLDS = (0.5, 0.8, 0.9, 0.95)
CALIBRATION_SHARE = 0.3
DEFAULT_SEEDS = 20
REFERENCE_SEED = 42
# int(0.3 * 817): the reference's calibration questions.
REFERENCE_CALIBRATION_QUESTIONS = 245
# The learned aggregators: without and with each view's 1 − contradiction as features.
LEARNED = (("learned", False), ("learned+contradiction", True))
VERBATIM = "verbatim substring"
VERBATIM_POINT = "claim ⊂ evidence"
PUBLISHED = {
    "ETG 5 views on one DeBERTa-v3-small NLI": (0.969, 0.446),
    "ETG 3 paradigms + learned aggregator (v4)": (0.973, 0.555),
    "ETG single NLI view": (0.951, 0.504),
}
# The published figure whose setting the reference protocol reproduces.
REFERENCE_NAME = "ETG 3 paradigms + learned aggregator (v4)"
REFERENCE_PRECISION, REFERENCE_RECALL = PUBLISHED[REFERENCE_NAME]
REFERENCE_BEST_F1 = 0.800
REFERENCE_CITATION = (
    "ETG reference, v4 (published figures, not rerun here): BART-large-MNLI, Flan-T5-large "
    "and RoBERTa-SQuAD2 with a learned aggregator"
)


def reference_split(groups: Sequence[str], seed: int) -> Bools:
    """True for the calibration questions: question ``q<i>`` calibrates when i is among the
    first 245 of ``numpy.random.seed(seed); numpy.random.permutation(817)``. A
    ``RandomState(seed)`` draws the same permutation without touching numpy's global state;
    under ``--limit`` every kept question stays on its side of the full split."""
    order = np.random.RandomState(seed).permutation(TRUTHFULQA_REFERENCE_QUESTIONS)
    calibration = set(order[:REFERENCE_CALIBRATION_QUESTIONS].tolist())
    mask: Bools = np.array([int(g.removeprefix("q")) in calibration for g in groups], dtype=bool)
    return mask


@dataclass(frozen=True, slots=True)
class Protocol:
    """Which file, which claims, which evidence, and how questions are split."""

    name: str
    file: str
    claims: str
    evidence: str
    fixed_seed: int
    split_rule: str
    load: Callable[[Path], list[Example]]
    split: Callable[[Sequence[str], int], Bools]
    with_2025: bool


PROTOCOLS = {
    "current": Protocol(
        name="current",
        file=TRUTHFULQA_FILES["2021"],
        claims="every non-empty ';' piece of the Correct (supported) and Incorrect "
        "(unsupported) Answers",
        evidence="the Best Answer",
        fixed_seed=SPLIT_SEED,
        split_rule="questions shuffled with random.Random({seed}), the first 30% calibrate",
        load=lambda data_dir: truthfulqa_examples(data_dir, "2021"),
        split=split_by_group,
        with_2025=True,
    ),
    "reference": Protocol(
        name="reference",
        file=TRUTHFULQA_REFERENCE_FILE,
        claims="every ';' piece of at least 3 characters (after stripping) of the Correct "
        "(supported) and Incorrect (unsupported) Answers",
        evidence='f"{question} {Best Answer}" (the reference says "question + Best Answer" '
        "and names no separator: one space)",
        fixed_seed=REFERENCE_SEED,
        split_rule="numpy.random.seed({seed}); numpy.random.permutation(817), the first 245 "
        "questions calibrate",
        load=truthfulqa_reference_examples,
        split=reference_split,
        with_2025=False,
    ),
}


def _average_precision(scores: Floats, truth: Bools) -> float:
    curve = precision_recall_curve(scores, truth)
    recall = np.r_[0.0, curve["recall"]]
    return float(np.sum(np.diff(recall) * np.asarray(curve["precision"])))


class Point(NamedTuple):
    """An operating point: accept a claim when its score reaches ``threshold`` (None: never)."""

    scores: Floats
    threshold: float | None

    def accepts(self) -> Bools:
        if self.threshold is None:
            return np.zeros(len(self.scores), dtype=bool)
        accepted: Bools = self.scores >= self.threshold
        return accepted


@dataclass(frozen=True, slots=True)
class Scored:
    """What does not depend on the split, computed once for every split seed: the score
    table, the gold labels and groups, the effective scores of the configurations that
    learn nothing (``own``: each view's own verdict as 0/1), and the learned aggregators'
    inputs."""

    table: ScoreTable
    truth: Bools
    groups: tuple[str, ...]
    verbatim: Bools
    scores: dict[str, Floats]
    own: dict[str, Floats]
    default_tau: float | None
    learned_inputs: dict[str, LearnedInputs]


def prepare(table: ScoreTable, examples: Sequence[Example]) -> Scored:
    """The split-independent part of a run from its score table (one row per example)."""
    views = list(table.views)
    verbatim = np.array([is_verbatim(e) for e in examples], dtype=bool)
    scores: dict[str, Floats] = {
        "no verification": np.ones(len(examples)),
        VERBATIM: verbatim.astype(np.float64),
    }
    own: dict[str, Floats] = {}
    for view in views:
        scores[f"view:{view}"] = single_view_score(table, view)
        own[f"view:{view}"] = view_accepts(table, view).astype(np.float64)
    scores["vote"] = vote_score(table, views)
    default_tau = None
    if default_covers(views):
        shipped = create_aggregator("default")
        aggregates = shipped.aggregate_batch(view_results(table, views))
        scores["default"] = np.array([0.0 if a.contradicted else a.score for a in aggregates])
        default_tau = recommended_thresholds(shipped)[0]
    learned_inputs = {name: LearnedInputs.of(table, views, contradiction_features=contradiction)
                      for name, contradiction in LEARNED}
    return Scored(table, np.array([e.supported for e in examples], dtype=bool),
                  tuple(e.group for e in examples), verbatim, scores, own, default_tau,
                  learned_inputs)


@dataclass(frozen=True, slots=True)
class Selection:
    """What the calibration questions decided: every operating point (configuration →
    label → point), the learned fits and their scores, the headline point, and the point
    with the best calibration F1."""

    points: dict[str, dict[str, Point]]
    fits: dict[str, LearnedFit]
    learned: dict[str, Floats]
    chosen: tuple[str, str]
    best_f1: tuple[str, str]

    def thresholds(self) -> dict[str, dict[str, float | None]]:
        return {name: {label: point.threshold for label, point in points.items()}
                for name, points in self.points.items()}


def select(scored: Scored, calibration: Bools, settings: EvalSettings) -> Selection:
    """Every threshold, the learned aggregators and the headline configuration, from the
    calibration rows alone: no label outside ``calibration`` is read."""
    rows = np.nonzero(calibration)[0]
    truth = scored.truth[rows]
    if truth.all() or not truth.any():
        raise ValueError(
            f"the {len(rows)} calibration claims are all of one label; fitting needs both "
            "(too few questions under --limit?)"
        )
    views = list(scored.table.views)

    def calibrated(values: Floats) -> dict[str, Point]:
        cal = values[rows]
        return {
            "cal:p95": Point(values, threshold_for_precision(cal, truth, 0.95, min_accepted=20)),
            "cal:p975": Point(values, threshold_for_precision(cal, truth, TARGET_PRECISION,
                                                              min_accepted=20)),
            "cal:f1": Point(values, threshold_for_f1(cal, truth)),
        }

    points: dict[str, dict[str, Point]] = {
        "no verification": {"accept all": Point(scored.scores["no verification"], 1.0)},
        VERBATIM: {VERBATIM_POINT: Point(scored.scores[VERBATIM], 1.0)},
    }
    for view in views:
        name = f"view:{view}"
        points[name] = {"own verdict": Point(scored.own[name], 1.0),
                        **calibrated(scored.scores[name])}
    points["vote"] = {f"τ={tau:g}": Point(scored.scores["vote"], tau) for tau in settings.taus}
    if scored.default_tau is not None:
        tau = scored.default_tau
        points["default"] = {f"shipped τ={tau:.3f}": Point(scored.scores["default"], tau)}
    fits: dict[str, LearnedFit] = {}
    learned: dict[str, Floats] = {}
    for name, inputs in scored.learned_inputs.items():
        fits[name] = inputs.fit_rows(rows, truth, [scored.groups[i] for i in rows])
        learned[name] = inputs.scores(fits[name])
        points[name] = {f"t={t:g}": Point(learned[name], t) for t in LEARNED_THRESHOLDS}
        points[name].update(calibrated(learned[name]))

    def on_calibration(point: Point) -> dict[str, float]:
        return binary_metrics(point.accepts()[rows], truth)

    best_f1 = max(((name, "cal:f1") for name, labels in points.items() if "cal:f1" in labels),
                  key=lambda key: on_calibration(points[key[0]][key[1]])["f1"])
    return Selection(points, fits, learned, _choose(points, on_calibration, settings.aggregator),
                     best_f1)


def _choose(points: dict[str, dict[str, Point]],
            on_calibration: Callable[[Point], dict[str, float]], family: str) -> tuple[str, str]:
    """The headline (configuration, operating point) from calibration figures: for the vote
    the smallest τ reaching 0.975 calibration precision (the largest τ when none does); for
    the learned family whichever learned aggregator's calibrated P ≥ 0.975 point has the most
    calibration recall."""
    if family == "vote":
        by_tau = sorted(points["vote"], key=lambda label: points["vote"][label].threshold or 0.0)
        reaching = [label for label in by_tau
                    if on_calibration(points["vote"][label])["precision"] >= TARGET_PRECISION]
        return "vote", reaching[0] if reaching else by_tau[-1]
    candidates = [name for name in ("learned", "learned+contradiction")
                  if points[name]["cal:p975"].threshold is not None]
    best = max(candidates, default="learned",
               key=lambda name: on_calibration(points[name]["cal:p975"])["recall"])
    return best, "cal:p975"


class _Split:
    """The calibration and held-out rows of one split, with the held-out bootstrap."""

    def __init__(self, scored: Scored, calibration: Bools, seed: int, resamples: int) -> None:
        self.groups = scored.groups
        self.truth = scored.truth
        self.calibration = calibration
        self.held = ~calibration
        held_groups = [g for g, h in zip(self.groups, self.held, strict=True) if h]
        self.bootstrap = Bootstrap.draw(held_groups, resamples, seed)

    def point(self, point: Point, ci: bool = True) -> dict[str, Any]:
        return operating_point(point.scores[self.held], point.threshold, self.truth[self.held],
                               self.bootstrap if ci else None)

    def questions(self, calibration: bool) -> int:
        side = self.calibration if calibration else self.held
        return len({g for g, s in zip(self.groups, side, strict=True) if s})


def _fit(table: ScoreTable, split: _Split, views: Sequence[str], contradiction: bool) -> LearnedFit:
    rows = np.nonzero(split.calibration)[0]
    return fit_learned(table.select(rows), split.truth[rows], [split.groups[i] for i in rows],
                       views, contradiction_features=contradiction)


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
    table: ScoreTable, split: _Split, views: Sequence[str], per_view: dict[str, Any],
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


def _ablations(table: ScoreTable, split: _Split, views: Sequence[str]) -> dict[str, Any]:
    truth = split.truth[split.held]
    cal_truth = split.truth[split.calibration]

    def summary(subset: Sequence[str]) -> dict[str, Any]:
        learned = _fit(table, split, subset, False).scores(table)
        threshold = threshold_for_precision(learned[split.calibration], cal_truth, 0.95,
                                            min_accepted=20)
        vote = vote_score(table, subset)
        return {
            "views": list(subset),
            "learned_average_precision": _average_precision(learned[split.held], truth),
            "learned_at_cal_p95": split.point(Point(learned, threshold), ci=False),
            "vote_average_precision": _average_precision(vote[split.held], truth),
            "vote_at_tau_1": split.point(Point(vote, 1.0), ci=False),
        }

    return {
        "without_view": {v: summary([w for w in views if w != v]) for v in views}
        if len(views) > 1 else {},
        "first_n_views": {str(n): summary(views[:n]) for n in range(1, len(views) + 1)},
    }


def _mcnemar_table(selection: Selection, split: _Split) -> list[dict[str, Any]]:
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


def _non_verbatim(scored: Scored, selection: Selection, split: _Split) -> list[dict[str, Any]]:
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


def _section(scored: Scored, selection: Selection, split: _Split, settings: EvalSettings,
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
    return section


def _count_note(protocol: Protocol, examples: Sequence[Example], limit: int | None) -> str:
    supported = sum(e.supported for e in examples)
    counts = (f"{len(examples):,} claims ({supported:,} correct, {len(examples) - supported:,} "
              f"incorrect; {len({(e.evidence, e.claim) for e in examples}):,} distinct "
              "(evidence, claim) pairs)")
    if limit is not None:
        return f"First {limit} questions only (--limit): {counts}."
    if protocol.name == "reference":
        return (f"{protocol.file}, the 2021-09-10 revision: {protocol.claims} gives {counts}: "
                f"the ETG reference's {TRUTHFULQA_REFERENCE_CLAIMS:,} (2,577 / 3,288).")
    return (f"{protocol.file}, the later 2021 revision with additional reference answers: "
            f"{protocol.claims} gives {counts}. The ETG reference's "
            f"{TRUTHFULQA_REFERENCE_CLAIMS:,} claims come from the 2021-09-10 revision "
            f"({TRUTHFULQA_REFERENCE_FILE}, pieces of at least 3 characters): "
            "--protocol reference evaluates those.")


def _limit(examples: list[Example], limit: int | None) -> list[Example]:
    """The examples of the first ``limit`` questions."""
    if limit is None:
        return examples
    keep = set(list(dict.fromkeys(e.group for e in examples))[:limit])
    return [e for e in examples if e.group in keep]


def _with_ci(point: dict[str, Any], key: str) -> str:
    low_high = point.get("ci95", {}).get(key)
    value = point[key]
    return f"{value:.3f} [{low_high[0]:.3f}, {low_high[1]:.3f}]" if low_high else f"{value:.3f}"


def _point_row(name: str, label: str, point: dict[str, Any]) -> tuple[Any, ...]:
    return (f"{name} @ {label}", _with_ci(point, "precision"), _with_ci(point, "recall"),
            _with_ci(point, "f1"), point["fpr"], point["hallucination_rate"])


def _spread_cell(summary: dict[str, dict[str, float]], metric: str) -> str:
    s = summary[metric]
    return f"{s['mean']:.3f} ± {s['sd']:.3f} ({s['min']:.3f}–{s['max']:.3f})"


def _split_text(protocol: Protocol, seed: int, split: _Split) -> str:
    return (f"seed {seed}: {protocol.split_rule.format(seed=seed)}; calibration "
            f"{split.questions(calibration=True)} questions ({int(split.calibration.sum()):,} "
            f"claims), held out {split.questions(calibration=False)} questions "
            f"({int(split.held.sum()):,} claims)")


def _comparison(protocol: Protocol, main: dict[str, Any], spread: dict[str, Any]) -> Table:
    """Our figures beside the ETG reference's published ones."""
    chosen = main["chosen"]
    baseline = main["configurations"][VERBATIM][VERBATIM_POINT]
    ours = next(r for r in main["non_verbatim"] if r["configuration"] == chosen["configuration"])
    best = main["calibration_best_f1"]
    rows: list[tuple[Any, ...]] = [
        (f"ours: {chosen['configuration']} @ {chosen['point']}, fixed split",
         _with_ci(chosen, "precision"), _with_ci(chosen, "recall"), _with_ci(chosen, "f1")),
    ]
    if spread["runs"]:
        rows.append((f"ours: selection redone on each of {len(spread['runs'])} split seeds, "
                     "mean ± sd (min–max)", _spread_cell(spread["summary"], "precision"),
                     _spread_cell(spread["summary"], "recall"),
                     _spread_cell(spread["summary"], "f1")))
    rows += [
        ("verbatim-substring baseline (claim ⊂ evidence), fixed split",
         _with_ci(baseline, "precision"), _with_ci(baseline, "recall"), _with_ci(baseline, "f1")),
        ("ours on the non-verbatim claims only", ours["non_verbatim_precision"],
         ours["non_verbatim_recall"], None),
        (f"ours: best calibration F1 ({best['configuration']} @ {best['point']}), held out",
         best["precision"], best["recall"], best["f1"]),
        (f"{REFERENCE_CITATION} (held-out 70%)", REFERENCE_PRECISION, REFERENCE_RECALL, None),
        ("ETG reference, v4: best F1", None, None, REFERENCE_BEST_F1),
    ]
    if protocol.name == "reference":
        note = ("Same file, claims, evidence and split as the ETG reference; "
                "its figures are published ones, not rerun here.")
    else:
        note = ("The ETG figures were measured under another protocol (the 2021-09-10 file, "
                "evidence = question + Best Answer, numpy seed-42 split: --protocol reference); "
                "here they are context, not a like-for-like comparison.")
    return Table(f"TruthfulQA, {protocol.name} protocol: ours beside the ETG reference",
                 ("figure", "precision", "recall", "F1"), rows,
                 note=note + " Every threshold and choice is made on the calibration "
                 "questions only; figures are on the held-out questions.")


def run_protocol(settings: EvalSettings, protocol: str = "current", seeds: int = DEFAULT_SEEDS,
                 split_seed: int | None = None) -> RunResult:
    """The TruthfulQA benchmark under ``protocol`` (``current`` or ``reference``), with the
    selection redone on split seeds ``0 … seeds-1`` for the spread; ``split_seed`` (default:
    the protocol's, 2024 or 42) fixes the headline split."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown TruthfulQA protocol {protocol!r}; known: "
                         f"{', '.join(PROTOCOLS)}")
    if seeds < 0:
        raise ValueError(f"--seeds must be >= 0, got {seeds}")
    spec = PROTOCOLS[protocol]
    seed = spec.fixed_seed if split_seed is None else split_seed
    started = time.perf_counter()
    examples = _limit(spec.load(settings.data_dir), settings.limit)
    recent = (_limit(truthfulqa_examples(settings.data_dir, "2025"), settings.limit)
              if spec.with_2025 else [])
    loaded = time.perf_counter()
    # One scoring pass over both releases: their shared pairs are scored once.
    table = score(settings, examples + recent, f"truthfulqa ({protocol}): verifying")
    scored_at = time.perf_counter()
    scored = prepare(table.select(np.arange(len(examples))), examples)
    calibration = spec.split(scored.groups, seed)
    selection = select(scored, calibration, settings)
    split = _Split(scored, calibration, seed, settings.resamples)
    main = _section(scored, selection, split, settings, full=True)
    reported = time.perf_counter()
    spread = seed_spread(scored, spec, range(seeds), settings)
    spread_done = time.perf_counter()
    sections: dict[str, Any] = {
        "protocol": {"name": protocol, "file": spec.file, "claims": spec.claims,
                     "evidence": spec.evidence, "split": _split_text(spec, seed, split),
                     "split_seed": seed},
        "release_2021": main,
        "seed_spread": spread,
        "published": {k: {"precision": p, "recall": r} for k, (p, r) in PUBLISHED.items()},
    }
    if recent:
        recent_scored = prepare(table.select(np.arange(len(examples), len(table.score))), recent)
        recent_calibration = spec.split(recent_scored.groups, seed)
        sections["release_2025"] = _section(
            recent_scored, select(recent_scored, recent_calibration, settings),
            _Split(recent_scored, recent_calibration, seed, settings.resamples), settings,
            full=False)

    chosen = main["chosen"]
    headline: dict[str, float | int | str] = {
        "protocol": protocol,
        "claims": len(examples),
        "split": _split_text(spec, seed, split),
        "distinct_pairs": table.pairs,
        "held_out_claims": main["held_out_claims"],
        "configuration": f"{chosen['configuration']} @ {chosen['point']}",
        "precision": chosen["precision"],
        "precision_ci_low": chosen["ci95"]["precision"][0],
        "precision_ci_high": chosen["ci95"]["precision"][1],
        "recall": chosen["recall"],
        "recall_ci_low": chosen["ci95"]["recall"][0],
        "recall_ci_high": chosen["ci95"]["recall"][1],
        "f1": chosen["f1"],
        "fpr": chosen["fpr"],
        "hallucination_rate": chosen["hallucination_rate"],
        "reference": REFERENCE_CITATION,
        "reference_precision": REFERENCE_PRECISION,
        "reference_recall": REFERENCE_RECALL,
    }
    if spread["runs"]:
        headline["seeds"] = len(spread["runs"])
        for metric in ("precision", "recall"):
            for stat, value in spread["summary"][metric].items():
                headline[f"seed_{metric}_{stat}"] = value
    headline["no_verification_hallucination_rate"] = (
        main["configurations"]["no verification"]["accept all"]["hallucination_rate"])
    best = main["calibration_best_f1"]
    headline["calibration_best_f1_configuration"] = f"{best['configuration']} @ {best['point']}"
    headline["calibration_best_f1_held_out_f1"] = best["f1"]
    for key, row in zip(("verbatim_baseline", "chosen", "default"), main["non_verbatim"],
                        strict=False):
        for metric in ("precision", "recall", "non_verbatim_precision", "non_verbatim_recall"):
            if row[metric] is not None:
                headline[f"{key}_{metric}"] = row[metric]
    for view in table.views:
        p95 = main["configurations"][f"view:{view}"]["cal:p95"]
        headline[f"{view}_precision_at_cal_p95"] = p95["precision"]
        headline[f"{view}_recall_at_cal_p95"] = p95["recall"]
    if "release_2025" in sections:
        recent_chosen = sections["release_2025"]["chosen"]
        headline["release_2025_claims"] = sections["release_2025"]["claims"]
        headline["release_2025_precision"] = recent_chosen["precision"]
        headline["release_2025_recall"] = recent_chosen["recall"]
    headline["seconds"] = round(time.perf_counter() - started, 2)

    tables = [_comparison(spec, main, spread),
              *_tables(spec, main, spread, sections, _count_note(spec, examples, settings.limit))]
    result = RunResult(
        benchmark="truthfulqa",
        config={
            "protocol": protocol, "file": spec.file, "evidence": spec.evidence,
            "claims": spec.claims, "views": list(table.views), "aggregator": settings.aggregator,
            "taus": list(settings.taus), "learned_thresholds": list(LEARNED_THRESHOLDS),
            "engine": settings.engine, "split_seed": seed,
            "split_rule": spec.split_rule.format(seed=seed),
            "calibration_share": CALIBRATION_SHARE, "seed_spread_seeds": list(range(seeds)),
            "bootstrap_resamples": settings.resamples, "limit": settings.limit,
            "data_dir": str(settings.data_dir), "target_precision": TARGET_PRECISION,
        },
        headline=headline,
        sections=sections,
        tables=tables,
        timings={"load": loaded - started, **table.timings, "reports": reported - scored_at,
                 "seed_spread": spread_done - reported},
    )
    _attach(result, scored, selection, split, examples, main)
    return result


def _attach(result: RunResult, scored: Scored, selection: Selection, split: _Split,
            examples: Sequence[Example], main: dict[str, Any]) -> None:
    """The plots and the per-claim examples of the fixed split."""
    name, label = selection.chosen
    chosen = selection.points[name][label]
    truth = split.truth[split.held]
    held_scores = {k: v[split.held] for k, v in {**scored.scores, **selection.learned}.items()
                   if k != "no verification"}
    result.plots = {
        "pr_curves": lambda path: plots.pr_curves(path, held_scores, truth, PUBLISHED),
        "bound_scaling": lambda path: plots.bound_scaling(path, main["bound_vs_measured"]),
        "support_mass": lambda path: plots.support_mass(
            path, vote_mass(scored.table, list(scored.table.views))[split.held],
            chosen.scores[split.held], truth, name),
    }
    accepted = chosen.accepts()
    result.examples = [
        {"id": e.example_id, "group": e.group, "question": e.meta.get("question", ""),
         "claim": e.claim, "evidence": list(e.evidence), "label": e.label,
         "split": "calibration" if split.calibration[i] else "held_out",
         "verbatim": bool(scored.verbatim[i]), "score": float(chosen.scores[i]),
         "verified": bool(accepted[i])}
        for i, e in enumerate(examples)
    ]


def _tables(protocol: Protocol, main: dict[str, Any], spread: dict[str, Any],
            sections: dict[str, Any], count_note: str) -> list[Table]:
    tables = [
        Table(
            f"TruthfulQA ({protocol.file}, {main['questions']} questions, {protocol.name} "
            f"protocol), held out: every point chosen on the calibration questions",
            ("configuration", "precision [95% CI]", "recall [95% CI]", "F1 [95% CI]", "FPR",
             "halluc. rate"),
            [
                _point_row(name, label, point)
                for name, points in main["configurations"].items()
                for label, point in points.items()
                if label in ("accept all", VERBATIM_POINT, "own verdict", "cal:p95", "cal:p975",
                             "cal:f1") or name == "vote"
            ],
            note=count_note,
        ),
        Table(
            "Held-out figures on all claims and on the claims that are not verbatim copies of "
            "their evidence",
            ("configuration", "precision", "recall", "non-verbatim precision",
             "non-verbatim recall", "verbatim share of recall"),
            [(f"{r['configuration']} @ {r['point']}", r["precision"], r["recall"],
              r["non_verbatim_precision"], r["non_verbatim_recall"],
              r["verbatim_share_of_recall"]) for r in main["non_verbatim"]],
            note=f"{main['non_verbatim'][0]['non_verbatim_claims']:,} held-out claims "
            f"({main['non_verbatim'][0]['non_verbatim_true_claims']:,} true) are not substrings "
            "of their evidence (case and spacing aside). The default configuration is the "
            "shipped aggregator at its shipped τ, fitted on training-side data only.",
        ),
    ]
    if spread["runs"]:
        summary = spread["summary"]
        tables.append(Table(
            f"The selection redone on each of {len(spread['runs'])} split seeds: held-out "
            "figures of the point each chose",
            ("seed", "chosen", "threshold", "calibration questions", "held-out claims",
             "precision", "recall", "F1", "verbatim P", "verbatim R"),
            [(r["seed"], r["configuration"], r["threshold"], r["calibration_questions"],
              r["held_out_claims"], r["precision"], r["recall"], r["f1"],
              r["verbatim_precision"], r["verbatim_recall"]) for r in spread["runs"]]
            + [(stat, None, None, None, None, *(summary[m][stat] for m in SPREAD_METRICS))
               for stat in ("mean", "sd", "min", "max")],
            note=f"Split for each seed s: {protocol.split_rule.format(seed='s')}. Thresholds, "
            "the learned aggregators and the configuration are chosen anew on each seed's "
            "calibration questions; sd is the sample standard deviation.",
        ))
    tables += [
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
            "Ablations: learned aggregator refitted on the calibration questions for each "
            "view set",
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
    ]
    if "release_2025" in sections:
        recent = sections["release_2025"]["chosen"]
        tables.append(Table(
            "TruthfulQA 2025 release (790 questions), same protocol",
            ("configuration", "precision [95% CI]", "recall [95% CI]", "F1 [95% CI]", "FPR",
             "halluc. rate"),
            [_point_row(recent["configuration"], recent["point"], recent)],
        ))
    return tables


@register_benchmark("truthfulqa")
def run(settings: EvalSettings) -> RunResult:
    """The current protocol with ``settings.seed`` as its split seed."""
    return run_protocol(settings, "current", DEFAULT_SEEDS, split_seed=settings.seed)
